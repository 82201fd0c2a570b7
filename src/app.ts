// Composition root: opens the store, starts the plugin runtime, mounts the routers. Never listens.
import express, { type Express } from 'express';
import type { Server } from 'node:http';
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
import { createNotificationsRepo } from './store/notifications-repo.ts';
import { createWebhookEventsRepo } from './store/webhook-events-repo.ts';
import { createRuntimeClient, type RuntimeClient } from './runtime-client.ts';
import { createPluginService } from './domain/plugins/service.ts';
import { createPluginsRouter } from './api/plugins/routes.ts';
import { createMetrics, type MetricsRecorder } from './metrics.ts';
import { createStoreProbes } from './store/probes.ts';
import { createRouteMatcher, requestMetrics } from './http/request-metrics.ts';
import { listenMetrics, metricsHandler } from './http/metrics-endpoint.ts';
import { readinessHandler } from './http/readiness.ts';
import { createApiDocument, ROUTE_GROUPS } from './openapi/registry.ts';
import { routeTemplates } from './openapi/document.ts';
import { createDocsRouter } from './openapi/docs-router.ts';
import packageJson from '../package.json' with { type: 'json' };

export interface App {
  express: Express;
  db: Db;
  /** The plugin runtime client (its `pid` lets tests kill the runtime process). */
  runtime: RuntimeClient;
  /** The metrics recorder (plugin calls, runtime restarts and queue depth are recorded through it). */
  metrics: MetricsRecorder;
  /** The METRICS_PORT listener, once listening (undefined when METRICS_PORT is unset). */
  readonly metricsServer: Server | undefined;
  /** Starts listening; resolves with the bound server (port 0 picks a free port). */
  listen(port: number, host: string): Promise<Server>;
  /** Stops accepting, drains in-flight requests, stops the runtime and dispatcher, closes the store. */
  close(): Promise<void>;
}

export async function createApp(config: Config, logger: Logger): Promise<App> {
  const db = openDatabase(config.dataDir);
  const storeProbes = createStoreProbes(db);
  const metrics = createMetrics({ transactionCounts: storeProbes.transactionCounts });

  const notificationsRepo = createNotificationsRepo(db);
  const webhookEvents = createWebhookEventsRepo(db);
  const secrets = createSecretBox(config.storageEncryptionKey);
  const webhookSignal = createWakeSignal();
  const notifications = createNotificationService({ notifications: notificationsRepo, events: webhookEvents, secrets, config, logger, signal: webhookSignal });
  const outbox = createOutbox({ events: webhookEvents, signal: webhookSignal });
  const relayers = createRelayerOperations({ db, config, logger, events: outbox });
  const dispatcher = createWebhookDispatcher({ events: webhookEvents, notifications: notificationsRepo, secrets, settings: config.webhooks, logger, signal: webhookSignal, observer: { attempt: metrics.webhookAttempt } });
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

  let server: Server | undefined;
  let metricsServer: Server | undefined;
  return {
    express: app,
    db,
    runtime,
    metrics,
    get metricsServer() {
      return metricsServer;
    },
    async listen(port, host) {
      if (config.metricsPort !== undefined) metricsServer = await listenMetrics(metrics, config.metricsPort, config.metricsHost);
      return new Promise((resolve, reject) => {
        const s = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(s)));
        server = s;
      });
    },
    async close() {
      for (const s of [server, metricsServer]) {
        if (!s) continue;
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeIdleConnections();
        });
      }
      await dispatcher.close();
      await runtime.close();
      db.close();
    },
  };
}
