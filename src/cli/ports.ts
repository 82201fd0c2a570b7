// Before anything starts (no store opened, no devnet, no runtime): are the ports this start would listen on free?
import { createServer } from 'node:net';

interface ListenPlan {
  what: string;
  /** The variables that set it, for the sentence that says what to change. */
  variables: string;
  host: string;
  port: number;
}

/** Undefined when `port` on `host` can be bound now (port 0 always can); otherwise one sentence saying why not. */
function portProblem(plan: ListenPlan): Promise<string | undefined> {
  if (plan.port === 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      const where = `${plan.host}:${plan.port}`;
      if (err.code === 'EADDRINUSE')
        resolve(
          `the ${plan.what} port ${where} is already in use (another relaybox, or another service): stop it, or set ${plan.variables} to another port`,
        );
      else if (err.code === 'EACCES')
        resolve(
          `the ${plan.what} port ${where} may not be opened by this user (ports below 1024 need privileges): set ${plan.variables} to 1024 or above`,
        );
      else if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND')
        resolve(
          `the ${plan.what} address ${plan.host} is not one of this machine's: set HOST to one of its addresses, or 0.0.0.0`,
        );
      else resolve(`the ${plan.what} port ${where} cannot be opened (${err.code ?? err.message})`);
    });
    server.listen({ port: plan.port, host: plan.host, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** The API's port and, when one is configured, the metrics listener's. */
function listenPlans(config: {
  host: string;
  port: number;
  metricsHost: string;
  metricsPort: number | undefined;
}): ListenPlan[] {
  const plans: ListenPlan[] = [{ what: 'API', variables: 'PORT (or APP_PORT)', host: config.host, port: config.port }];
  if (config.metricsPort !== undefined)
    plans.push({ what: 'metrics', variables: 'METRICS_PORT', host: config.metricsHost, port: config.metricsPort });
  return plans;
}

/** Every port problem of this start, each one sentence. */
export async function portProblems(config: Parameters<typeof listenPlans>[0]): Promise<string[]> {
  const found = await Promise.all(listenPlans(config).map(portProblem));
  return found.filter((p): p is string => p !== undefined);
}
