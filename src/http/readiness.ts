// GET /api/v1/ready: the reference's bare readiness answer `{ ready, status, reason?, components, timestamp }` (its
// client reads that shape), 200 when ready and 503 when not. Its components (system, redis, queue, plugins) are filled
// from ours, and ours (store, runtime, …) are added beside them with their own state.
import type { RequestHandler } from 'express';
import { systemHealth, type ComponentStatus, type SystemHealth } from './system-health.ts';

export interface ReadinessComponent {
  name: string;
  /** True when the component can serve requests. A throw or a rejection counts as down. */
  check(): boolean | Promise<boolean>;
}

interface Probe {
  name: string;
  up: boolean;
}

interface OwnHealth {
  status: ComponentStatus;
  error?: string;
}

// A probe that hangs must not hang the readiness answer (orchestrators time out and retry anyway).
const CHECK_TIMEOUT_MS = 2_000;

async function isUp(component: ReadinessComponent): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([Promise.resolve().then(() => component.check()), timeout])) === true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

const own = (probe: Probe | undefined): OwnHealth =>
  probe === undefined || probe.up ? { status: 'healthy' } : { status: 'unhealthy', error: `${probe.name} is down` };

/** The reference's `redis` component: our one Redis connection as both pools; without Redis, a healthy `enabled: false`. */
function redisHealth(probe: Probe | undefined): Record<string, unknown> {
  if (probe === undefined) {
    const none = { connected: false, available: 0, max_size: 0 };
    return { status: 'healthy', enabled: false, primary_pool: none, reader_pool: none };
  }
  const pool = { connected: probe.up, available: probe.up ? 1 : 0, max_size: 1 };
  return {
    ...own(probe),
    ...(probe.up ? {} : { error: 'Redis primary pool: connection failed' }),
    primary_pool: pool,
    reader_pool: pool,
  };
}

/** The reference's four components from ours (the job queue lives in the store; plugins run in the runtime), then ours. */
function components(probes: Probe[], system: SystemHealth): Record<string, unknown> {
  const find = (name: string) => probes.find((p) => p.name === name);
  const runtime = find('runtime');
  const out: Record<string, unknown> = {
    system,
    redis: redisHealth(find('redis')),
    queue: own(find('store')),
    ...(runtime ? { plugins: { ...own(runtime), enabled: true } } : {}),
  };
  // Ours, each under its own name; Redis is the reference's `redis` above.
  for (const p of probes) if (p.name !== 'redis') out[p.name] = own(p);
  return out;
}

/**
 * Ours: networks every RPC URL of which is down, or with a URL that accepts broadcasts its node never receives. The instance stays ready (its API answers, its transactions wait and
 * resume by themselves; taking every instance out of a load balancer would not bring a provider back): `degraded`,
 * with the reasons in `reason` and the `rpc` component.
 */
async function rpcHealth(
  outages: (() => Promise<string[]>) | undefined,
): Promise<{ status: ComponentStatus; error?: string } | undefined> {
  if (!outages) return undefined;
  const reasons = await outages().catch(() => []);
  return reasons.length > 0 ? { status: 'degraded', error: reasons.join('; ') } : { status: 'healthy' };
}

export function readinessHandler(
  list: readonly ReadinessComponent[],
  system: () => Promise<SystemHealth> = systemHealth,
  outages?: () => Promise<string[]>,
): RequestHandler {
  return async (_req, res) => {
    const [probes, sys, rpc] = await Promise.all([
      Promise.all(list.map(async (c) => ({ name: c.name, up: await isUp(c) }))),
      system(),
      rpcHealth(outages),
    ]);
    const down = probes.filter((p) => !p.up).map((p) => `${p.name} is down`);
    const reasons = [
      ...(sys.status === 'unhealthy' && sys.error ? [sys.error] : []),
      ...down,
      ...(rpc?.error ? [rpc.error] : []),
    ];
    const unhealthy = sys.status === 'unhealthy' || down.length > 0;
    const status: ComponentStatus = unhealthy ? 'unhealthy' : rpc?.status === 'degraded' ? 'degraded' : sys.status;
    const ready = status !== 'unhealthy';
    if (!ready) res.status(503).set('Retry-After', '5');
    res.json({
      ready,
      status,
      ...(reasons.length > 0 ? { reason: reasons.join('; ') } : {}),
      components: { ...components(probes, sys), ...(rpc ? { rpc } : {}) },
      timestamp: new Date().toISOString(),
    });
  };
}
