// Composition root: opens the store, starts the plugin runtime, mounts the routers. Never listens.
import express, { type Express } from 'express';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { openDatabase, type Db } from './store/db.ts';
import { requestContext } from './http/request-context.ts';
import { requireApiKey } from './http/auth.ts';
import { rateLimit } from './http/rate-limit.ts';
import { jsonBody } from './http/json-body.ts';
import { errorHandler, notFoundRoute } from './http/error-handler.ts';
import { success } from './http/envelope.ts';
import { createRelayerOperations } from './api/relayers/operations.ts';
import { createRelayersRouter } from './api/relayers/routes.ts';
import { createNotificationService } from './domain/notifications/service.ts';
import { createNotificationsRouter } from './api/notifications/routes.ts';
import { createOutbox } from './domain/webhooks/outbox.ts';
import { createWebhookDispatcher } from './domain/webhooks/dispatcher.ts';
import { createWakeSignal } from './domain/webhooks/wake-signal.ts';
import { createSecretBox } from './domain/notifications/secret-box.ts';
import { createSqliteStore } from './store/sqlite/store.ts';
import type { Store } from './domain/ports.ts';
import { createJobScheduler, type JobScheduler } from './domain/jobs/scheduler.ts';
import { createRuntimeClient, type RuntimeClient } from './runtime-client.ts';
import { createPluginService } from './domain/plugins/service.ts';
import { createPluginsRouter } from './api/plugins/routes.ts';
import { createMetrics, type MetricsRecorder } from './metrics.ts';
import { createStoreProbes } from './store/probes.ts';
import { createRouteMatcher, requestMetrics } from './http/request-metrics.ts';
import { listenMetrics, metricsHandler } from './http/metrics-endpoint.ts';
import { closeGracefully } from './http/graceful-close.ts';
import { readinessHandler } from './http/readiness.ts';
import { createApiDocument, ROUTE_GROUPS } from './openapi/registry.ts';
import { routeTemplates } from './openapi/document.ts';
import { createDocsRouter } from './openapi/docs-router.ts';
import { startChains, type ChainRegistry } from './chains/index.ts';
import packageJson from '../package.json' with { type: 'json' };

export interface App {
  express: Express;
  /** The SQLite connection under `store` (tests and tools read it directly). */
  db: Db;
  store: Store;
  /** The one background job scheduler: handlers are registered per job kind. */
  jobs: JobScheduler;
  /** The plugin runtime client (its `pid` lets tests kill the runtime process). */
  runtime: RuntimeClient;
  /** The metrics recorder (plugin calls, runtime restarts and queue depth are recorded through it). */
  metrics: MetricsRecorder;
  /** The EVM chain adapters, and the devnets started for `devnet` networks. */
  chains: ChainRegistry;
  /** The METRICS_PORT listener, once listening (undefined when METRICS_PORT is unset). */
  readonly metricsServer: Server | undefined;
  /** Starts listening; resolves with the bound server (port 0 picks a free port). */
  listen(port: number, host: string): Promise<Server>;
  /**
   * Stops accepting, lets in-flight requests (and their plugin calls) finish within SHUTDOWN_GRACE_MS, then stops
   * the runtime and the webhook dispatcher and closes the store.
   */
  close(): Promise<void>;
}

export async function createApp(config: Config, logger: Logger): Promise<App> {
  const db = openDatabase(config.dataDir);
  const store = createSqliteStore(db);
  const { repos } = store;
  const storeProbes = createStoreProbes(store);
  const metrics = createMetrics({ transactionCounts: storeProbes.transactionCounts });
  const chains = await startChains(config.file, { logger, observer: metrics }).catch((err: unknown) => {
    db.close();
    throw err;
  });

  const secrets = createSecretBox(config.storageEncryptionKey);
  const webhookSignal = createWakeSignal();
  const notifications = await createNotificationService({ notifications: repos.notifications, events: repos.webhookEvents, secrets, config, logger, signal: webhookSignal });
  const outbox = createOutbox({ signal: webhookSignal });
  const relayers = await createRelayerOperations({ store, config, logger, events: outbox, chains });
  const dispatcher = createWebhookDispatcher({ events: repos.webhookEvents, notifications: repos.notifications, secrets, settings: config.webhooks, logger, signal: webhookSignal, observer: { attempt: metrics.webhookAttempt } });
  const jobs = createJobScheduler({ jobs: repos.jobs, owner: `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`, logger, wakeups: store.onJobsScheduled });
  const runtime = await createRuntimeClient({
    config,
    logger,
    host: { relayers, db },
    observer: { restarted: metrics.runtimeRestart, inFlight: metrics.setRuntimeQueueDepth, workerStalled: metrics.runtimeWorkerStall, quarantined: metrics.pluginQuarantined },
  });
  const plugins = createPluginService({ runtime, observer: metrics });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(logger));
  app.use(requestMetrics(metrics, createRouteMatcher([...routeTemplates(ROUTE_GROUPS), '/docs/{asset}'])));
  app.get('/api/v1/health', (_req, res) => {
    res.json(success({ status: 'ok' }));
  });
  app.get('/api/v1/ready', readinessHandler([
    { name: 'store', check: storeProbes.answers },
    { name: 'runtime', check: () => runtime.serving() },
  ]));
  app.use(createDocsRouter(createApiDocument(packageJson.version)));
  app.get('/metrics', requireApiKey(config.apiKey), metricsHandler(metrics));

  const api = express.Router();
  api.use(requireApiKey(config.apiKey));
  api.use(jsonBody());
  const limited = rateLimit(config.rateLimit);
  api.use('/relayers', limited, createRelayersRouter(relayers));
  api.use('/plugins', limited, createPluginsRouter(plugins));
  api.use('/notifications', createNotificationsRouter(notifications));
  app.use('/api/v1', api);

  app.use(notFoundRoute);
  app.use(errorHandler(logger));

  dispatcher.start();
  jobs.start();

  let server: Server | undefined;
  let metricsServer: Server | undefined;
  return {
    express: app,
    db,
    store,
    jobs,
    runtime,
    metrics,
    chains,
    get metricsServer() {
      return metricsServer;
    },
    async listen(port, host) {
      if (config.metricsPort !== undefined) {
        metricsServer = await listenMetrics(metrics, config.metricsPort, config.metricsHost);
        // METRICS_PORT=0 picks a free port: the scraper needs to know which.
        logger.info({ address: metricsServer.address() }, 'metrics listening');
      }
      return new Promise((resolve, reject) => {
        const s = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(s)));
        server = s;
      });
    },
    async close() {
      const graceMs = config.shutdownGraceMs;
      const deadline = Date.now() + graceMs;
      const http = Promise.all([server, metricsServer].map((s) => (s ? closeGracefully(s, deadline) : { cut: false })));
      // The runtime stops restarting at once but keeps serving the calls of the requests still in flight.
      const runtimeStopped = runtime.close(http);
      if ((await http).some((r) => r.cut)) logger.warn({ graceMs }, 'shutdown grace period over: closing the connections still open');
      await Promise.all([dispatcher.close(), jobs.close(), runtimeStopped]);
      await chains.close();
      await store.close();
    },
  };
}
