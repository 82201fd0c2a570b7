// Composition root: opens the store, starts the plugin runtime, mounts the routers. Never listens.
import express, { type Express, type RequestHandler } from 'express';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { processEnv, type Config, type NetworkConfig } from './config/config.ts';
import type { Db } from './store/sqlite/db.ts';
import { openStore, type OpenedStore } from './store/open.ts';
import type { RedisHandle } from './store/redis.ts';
import { requestContext } from './http/request-context.ts';
import { requireApiKey } from './http/auth.ts';
import { rateLimit } from './http/rate-limit.ts';
import { jsonBody } from './http/json-body.ts';
import { errorHandler, notFoundRoute } from './http/error-handler.ts';
import { createRelayerOperations } from './api/relayers/operations.ts';
import { createRelaying } from './domain/relaying.ts';
import { registerJobKinds } from './domain/jobs/kinds.ts';
import { createRelayersRouter } from './api/relayers/routes.ts';
import { createNotificationService } from './domain/notifications/service.ts';
import { createNotificationsRouter } from './api/notifications/routes.ts';
import { createOutbox, createRelayerEvents } from './domain/webhooks/outbox.ts';
import { levelRank } from './domain/relayers/balance-levels.ts';
import { createWebhookDispatcher } from './domain/webhooks/dispatcher.ts';
import { createWakeSignal } from './domain/webhooks/wake-signal.ts';
import { createSecretBox, storageKeyVerifier } from './domain/secret-box.ts';
import type { Store } from './domain/ports.ts';
import { createJobScheduler, type JobScheduler } from './domain/jobs/scheduler.ts';
import { createRuntimeClient, type RuntimeClient, type RuntimeFaults } from './plugin-host/client.ts';
import { createPluginService, operatorEntries, type PluginService } from './domain/plugins/service.ts';
import { createPluginCallHandler, createPluginsRouter, PLUGIN_CALL_PATH } from './api/plugins/routes.ts';
import { createMetrics, type Metrics, type MetricsRecorder } from './observability/metrics.ts';
import { createRouteMatcher, requestMetrics } from './http/request-metrics.ts';
import { createMetricsRouter, listenMetrics, METRICS_PATHS } from './http/metrics-endpoint.ts';
import { closeGracefully } from './http/graceful-close.ts';
import { readinessHandler } from './http/readiness.ts';
import { createApiDocument, ROUTE_GROUPS } from './openapi/registry.ts';
import { routeTemplates } from './openapi/document.ts';
import { createDocsRouter, DOCS_PATHS } from './openapi/docs-router.ts';
import { startChains, type ChainRegistry } from './chains/index.ts';
import type { ResolveHost } from './net/url-guard.ts';
import { createWebhookUrlPolicy } from './net/url-policy.ts';
import { createManagementServices } from './domain/management.ts';
import { createSignerResolver } from './signers/registry.ts';
import type { SignerResolver } from './domain/signers/ports.ts';
import { applyNetworkOverrides } from './domain/networks/service.ts';
import { createApiKeyService, type ApiKeyService } from './domain/api-keys/service.ts';
import { createSignersRouter } from './api/signers/routes.ts';
import { createNetworksRouter } from './api/networks/routes.ts';
import { createApiKeysRouter } from './api/api-keys/routes.ts';
import packageJson from '../package.json' with { type: 'json' };
import { releaseDeadOwners } from './domain/jobs/predecessors.ts';
import { newInstanceId, ownerIsGone } from './store/instance-id.ts';
import { createLiveFeed, type LiveFeed } from './domain/live/feed.ts';
import { createRemoteChanges } from './domain/live/remote-changes.ts';
import { createRelayerActivity, oldestUnfinishedAt } from './domain/live/relayer-activity.ts';
import { createPluginCallLog, recordCalls } from './domain/live/plugin-calls.ts';
import { createTimelineReader } from './domain/transactions/timeline.ts';
import { createEventsRouter, type EventsRouter } from './api/events/routes.ts';
import { createRelayerInsightsRouter } from './api/relayers/insight-routes.ts';
import { createPluginCallsRouter } from './api/plugins/calls-routes.ts';
import { CONSOLE_PATH, consoleHandler } from './console/routes.ts';

export interface App {
  express: Express;
  /** The SQLite connection under `store` (tests and tools read it directly); throws on PostgreSQL (DATABASE_URL). */
  readonly db: Db;
  /** Unique per process run: names the job and outbox leases this instance holds. */
  instanceId: string;
  store: Store;
  /** The one background job scheduler: handlers are registered per job kind. */
  jobs: JobScheduler;
  /** The plugin runtime client (its `pid` lets tests kill the runtime process). */
  runtime: RuntimeClient;
  /** The metrics recorder (plugin calls, runtime restarts and queue depth are recorded through it). */
  metrics: MetricsRecorder;
  /** The EVM chain adapters, and the devnets started for `devnet` networks. */
  chains: ChainRegistry;
  /** Live events (committed transaction changes): what GET /api/v1/events streams. */
  live: LiveFeed;
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

/** Parts a test or a bench puts in place of the real ones (a signer that answers slowly, fails or hangs). */
export interface AppOverrides {
  resolveSigner?: SignerResolver;
  /** The URL guard's DNS lookup (RPC and webhook URLs given through the API): tests steer what a name resolves to. */
  resolveHost?: ResolveHost;
  /** Starts the plugin runtime in place of forking its process (a test that calls no plugin starts none). */
  startRuntime?: typeof createRuntimeClient;
  /** Faults the plugin runtime injects (a worker that stalls): only a test sets them, never configuration. */
  runtimeFaults?: RuntimeFaults;
  /**
   * How long a call arriving during a runtime restart waits for the next runtime (5 s): a test that checks the hold
   * gives it longer than a loaded machine's restart, so it checks the hold and not the machine's speed.
   */
  runtimeRestartHoldMs?: number;
}

/** What every step of the start reads: the settings, the logger, the parts a test put in place, this run's id. */
interface Root {
  config: Config;
  logger: Logger;
  replaced: AppOverrides;
  instanceId: string;
}

type Stores = Awaited<ReturnType<typeof openStores>>;
type Services = Awaited<ReturnType<typeof createServices>>;
type WebhookDelivery = ReturnType<typeof createWebhookDelivery>;

/** Everything built once at start that the routes, the background work and the App handle read. */
interface Parts {
  stores: Stores;
  metrics: Metrics;
  chains: ChainRegistry;
  services: Services;
  webhooks: WebhookDelivery;
  runtime: RuntimeClient;
  plugins: PluginService;
}

/** The Express app, and the events router whose open streams `close` ends first. */
interface HttpApp {
  app: Express;
  events: EventsRouter;
}

/** What the reference's metrics label with that our recorder calls do not carry: network types, by network and by relayer (as configured at start). */
function referenceMetricsOf(config: Config) {
  const networkTypes = new Map(config.file.networks.map((n) => [n.network, n.type as string]));
  const relayerTypes = new Map(config.file.relayers.map((r) => [r.id, r.network_type as string]));
  return {
    networkTypeOf: (network: string) => networkTypes.get(network),
    relayerNetworkTypeOf: (id: string) => relayerTypes.get(id),
    dataDir: config.dataDir,
  };
}

export async function createApp(config: Config, logger: Logger, replaced: AppOverrides = {}): Promise<App> {
  const root: Root = { config, logger, replaced, instanceId: newInstanceId() };
  const stores = await openStores(root);
  const metrics = createMetrics({
    transactionCounts: stores.opened.probes.transactionCounts,
    store: stores.opened.kind,
    reference: referenceMetricsOf(config),
  });
  const { networks, chains } = await startNetworks(root, stores, metrics);
  const services = await createServices(root, stores, metrics, networks, chains);
  const webhooks = createWebhookDelivery(root, stores.opened, metrics, services);
  const { runtime, plugins } = await startPlugins(root, stores, metrics, services);
  const parts: Parts = { stores, metrics, chains, services, webhooks, runtime, plugins };
  const http = createHttpApp(root, parts);
  await startBackground(root, parts);
  return appHandle(root, parts, http);
}

/** `work`, but when it fails `undo` runs first (closing what was opened before it), then the failure goes on. */
function undoOnFailure<T>(work: Promise<T>, undo: () => Promise<void>): Promise<T> {
  return work.catch(async (err: unknown) => {
    await undo();
    throw err;
  });
}

/** Opens the store (and Redis with REDIS_URL) and prepares it: nothing reads it before. */
async function openStores({ config, logger, instanceId }: Root) {
  const opened = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    instanceId,
    storageKeyVerifier: storageKeyVerifier(config.storageEncryptionKey),
    previousStorageKeyVerifier:
      config.storageEncryptionKeyPrevious && storageKeyVerifier(config.storageEncryptionKeyPrevious),
    // Longer than one delivery attempt, so a live instance keeps its events; a dead one's come back this soon.
    outboxLeaseMs: config.webhooks.timeoutMs + 5_000,
    logger,
  });
  // ioredis (~6 MiB resident, measured) loads only with REDIS_URL.
  const redisKv = config.redisUrl ? await import('./store/redis-kv-repo.ts') : undefined;
  const redis: RedisHandle | undefined = config.redisUrl
    ? (await import('./store/redis.ts')).openRedis(config.redisUrl, logger, config.redis)
    : undefined;
  const closeStores = async () => {
    await redis?.close();
    await opened.store.close();
  };
  await undoOnFailure(opened.prepare(), closeStores);
  return { opened, redis, redisKv, closeStores };
}

/** The networks (the config file's under the stored overrides) and their chain adapters. */
async function startNetworks({ config, logger, replaced }: Root, { opened, closeStores }: Stores, metrics: Metrics) {
  // RPC URLs changed through the API replace the config file's (the store wins; a drift is logged). Read once the
  // schema is migrated (on PostgreSQL that happens under the start-up lock).
  const overrides = await undoOnFailure(
    opened.startup(() => opened.store.repos.networkOverrides.all()),
    closeStores,
  );
  const networks = applyNetworkOverrides(config.file.networks, overrides, logger);
  // RPC URLs that came through the API (stored overrides, relayers' custom_rpc_urls) are guarded; the config file's are not.
  const guard = { settings: config.rpcUrls, configFile: config.file, resolve: replaced.resolveHost };
  const chains = await undoOnFailure(
    startChains(
      { ...config.file, networks },
      { logger, observer: metrics, guard, rpc: config.rpc, jupiterUrl: config.jupiterApiUrl },
    ),
    closeStores,
  );
  return { networks, chains };
}

/** The domain services (seeded from the config), the job scheduler and the in-memory live views. */
async function createServices(
  { config, logger, replaced, instanceId }: Root,
  { opened, closeStores }: Stores,
  metrics: Metrics,
  networks: NetworkConfig[],
  chains: ChainRegistry,
) {
  const { store } = opened;
  const { repos } = store;
  // With the previous key during a rotation: what it sealed still opens until the start re-seals it (secrets-at-rest.ts).
  const secrets = createSecretBox(config.storageEncryptionKey, config.storageEncryptionKeyPrevious);
  const webhookSignal = createWakeSignal();
  // In memory, for the console and the events stream: live changes, each relayer's last hour, recent plugin calls.
  const live = createLiveFeed();
  const activity = createRelayerActivity();
  const pluginCalls = createPluginCallLog();
  const transactionChanged = (
    record: Parameters<typeof activity.observe>[0],
    from: Parameters<typeof activity.observe>[1],
  ) => {
    activity.observe(record, from);
    live.publish({ type: 'transaction_update', relayer_id: record.relayer_id, transaction: record });
  };
  // Changes other instances commit reach this instance's stream too (PostgreSQL; one instance on SQLite).
  opened.onRemoteTransactionWritten(
    createRemoteChanges({
      feed: live,
      findMany: (ids) => repos.transactions.findMany(ids),
      onError: (err) =>
        logger.warn({ err }, 'events stream: the transactions another instance changed could not be read'),
    }),
  );
  const outbox = createOutbox({ signal: webhookSignal });
  // Shared database: a dead instance's jobs go to the others when its leases lapse, so keep them short (renewed while running).
  const jobs = createJobScheduler({
    jobs: repos.jobs,
    owner: instanceId,
    logger,
    wakeups: store.onJobsScheduled,
    ...(opened.kind === 'postgres' ? { leaseMs: 10_000 } : {}),
  });
  // Seeding from the config under the start-up lock: instances starting together write one after the other.
  const seeded = opened.startup(async () => {
    // Signer keys and keystore passphrases an entry names are read from the process environment; endpoints from the config.
    const management = await createManagementServices({
      store,
      config,
      networks,
      chains,
      secrets,
      logger,
      resolveSigner:
        replaced.resolveSigner ?? createSignerResolver({ env: processEnv(), settings: config.signerSettings }),
    });
    const notifications = await createNotificationService({
      notifications: repos.notifications,
      events: repos.webhookEvents,
      secrets,
      config,
      logger,
      signal: webhookSignal,
    });
    const relaying = await createRelaying({
      store,
      config,
      logger,
      events: outbox,
      chains,
      ...management,
      observer: {
        transition: metrics.transactionTransition,
        untracked: metrics.transactionsUntracked,
        feeCapWait: metrics.transactionFeeCapWait,
        stuckEscalation: metrics.transactionStuckEscalation,
        changed: transactionChanged,
      },
      relayerEvents: createRelayerEvents({ signal: webhookSignal }),
      stages: { stage: metrics.transactionStage, ended: metrics.transactionEnded },
      lanes: metrics.lanes,
    });
    // Every background job kind, in one place (src/domain/jobs/kinds.ts); each non-final transaction gets its job back.
    await registerJobKinds(jobs, relaying);
    return { management, notifications, relaying };
  });
  const { notifications, relaying, management } = await undoOnFailure(seeded, async () => {
    await chains.close();
    await closeStores();
  });
  const relayers = createRelayerOperations(relaying, { store, checkRpcUrls: chains.checkRpcUrls });
  metrics.setBalanceSource(async () =>
    (await relaying.balanceWatch.all()).map(({ relayerId, view }) => ({
      relayer_id: relayerId,
      balance: Number(view.balance),
      level: levelRank(view.level),
    })),
  );
  return { secrets, webhookSignal, live, activity, pluginCalls, jobs, notifications, relaying, relayers, management };
}

/** The webhook dispatcher (not started yet) and the policy the webhook URLs it connects to are checked against. */
function createWebhookDelivery(
  { config, logger, replaced }: Root,
  opened: OpenedStore,
  metrics: Metrics,
  { secrets, webhookSignal }: Services,
) {
  const { repos } = opened.store;
  // Outbox writes committed by other instances wake this dispatcher too (PostgreSQL NOTIFY).
  const stopOutboxWakeups = opened.onOutboxWritten(webhookSignal.notify);
  // Webhook URLs given through the API are guarded like RPC URLs (checked when given, again at every connect).
  const webhookUrls = createWebhookUrlPolicy(
    { blockPrivateIps: config.webhooks.blockPrivateIps, notifications: config.file.notifications },
    replaced.resolveHost,
  );
  const dispatcher = createWebhookDispatcher({
    events: repos.webhookEvents,
    notifications: repos.notifications,
    secrets,
    settings: config.webhooks,
    logger,
    signal: webhookSignal,
    observer: { attempt: metrics.webhookAttempt },
    fetchFor: webhookUrls.fetchFor,
  });
  return { stopOutboxWakeups, webhookUrls, dispatcher };
}

/** The plugin runtime and the plugin service over it, its calls recorded for the console. */
async function startPlugins(
  { config, logger, replaced }: Root,
  { opened, redis, redisKv }: Stores,
  metrics: Metrics,
  { relayers, pluginCalls }: Services,
) {
  const { repos } = opened.store;
  // Plugin settings changed through the API apply over the config file's entries (the store wins).
  const pluginOverrides = new Map((await repos.pluginOverrides.all()).map((o) => [o.plugin_id, o.settings]));
  for (const id of pluginOverrides.keys())
    logger.warn(
      { pluginId: id },
      "config drift: this plugin's settings were changed through the API and apply over the config file's (the store wins)",
    );
  const runtime = await (replaced.startRuntime ?? createRuntimeClient)({
    config,
    logger,
    plugins: operatorEntries(config.file.plugins, pluginOverrides),
    // Several instances: plugin KV on Redis when there is one (measured: bench/kv-store.bench.ts, docs/operating.md).
    host: {
      relayers,
      kv: redis && redisKv && opened.kind === 'postgres' ? redisKv.createRedisKvRepo(redis.client) : opened.kv,
    },
    observer: {
      restarted: metrics.runtimeRestart,
      inFlight: metrics.setRuntimeQueueDepth,
      workerStalled: metrics.runtimeWorkerStall,
      quarantined: metrics.pluginQuarantined,
    },
    ...(replaced.runtimeFaults ? { faults: replaced.runtimeFaults } : {}),
    ...(replaced.runtimeRestartHoldMs !== undefined ? { restartHoldMs: replaced.runtimeRestartHoldMs } : {}),
  });
  const plugins = recordCalls(
    createPluginService({
      runtime,
      observer: metrics,
      pluginsDir: config.pluginsDir,
      configured: config.file.plugins,
      overrides: pluginOverrides,
      repo: repos.pluginOverrides,
      logger,
    }),
    pluginCalls,
  );
  return { runtime, plugins };
}

/** The Express app: request context and metrics, the public routes, the metrics routes, then the API under /api/v1. */
function createHttpApp(root: Root, parts: Parts): HttpApp {
  const { logger } = root;
  const {
    stores: { opened, redis },
    metrics,
    services: { relaying },
    runtime,
  } = parts;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(logger));
  app.use(
    requestMetrics(
      metrics,
      createRouteMatcher([...routeTemplates(ROUTE_GROUPS), '/docs/{asset}', '/console', '/console/assets/{asset}']),
    ),
  );
  const { apiKeys, guard } = frontDoor(root, parts);
  // The plugin call first: it is the hot path, and no route below matches `/api/v1/plugins/{id}/call…`, so it need
  // not walk the dozen layers before it (a measured share of a call's CPU and allocation). Mounted at /api/v1 as
  // the API router is, so the key check sees the same path there. A call's body is JSON whatever its content type
  // says, or without one (the reference reads it so).
  const calls = express.Router();
  calls.all(PLUGIN_CALL_PATH, guard, jsonBody({ untypedIsJson: () => true }), createPluginCallHandler(parts.plugins));
  app.use('/api/v1', calls);
  // The reference's liveness answer: plain `OK` (its client reads a string); readiness keeps the component detail.
  app.get('/api/v1/health', (_req, res) => {
    res.type('text/plain').send('OK');
  });
  app.get(
    '/api/v1/ready',
    readinessHandler(
      [
        { name: 'store', check: opened.probes.answers },
        ...(redis ? [{ name: 'redis', check: redis.answers }] : []),
        { name: 'runtime', check: () => runtime.serving() },
      ],
      undefined,
      relaying.rpcOutages,
    ),
  );
  // The reference's public paths: its key check lets every method through and no route matches, so 404, never 401.
  app.use(['/api/v1/health', '/api/v1/ready'], notFoundRoute);
  app.use(
    DOCS_PATHS,
    createDocsRouter(() => createApiDocument(packageJson.version)),
  );
  // The operator console: static files only; everything it shows or does goes through the API below with the typed key.
  app.use(CONSOLE_PATH, consoleHandler(logger));
  // Ours (Prometheus text; the names as JSON for a client that asks for JSON) and the reference's metrics server routes.
  app.use(METRICS_PATHS, createMetricsRouter(metrics, guard, 'when-asked'));
  const api = createApiRouter(root, parts, apiKeys, guard);
  app.use('/api/v1', api.router);

  app.use(notFoundRoute);
  app.use(errorHandler(logger));
  return { app, events: api.events };
}

/**
 * One front door (and one cache of presented keys' digests) for the API and the metrics routes: the key check,
 * then the key's rate limit, so that every authenticated route counts against it.
 */
function frontDoor({ config, logger }: Root, parts: Parts): { apiKeys: ApiKeyService; guard: RequestHandler } {
  const apiKeys = createApiKeyService({
    repo: parts.stores.opened.store.repos.apiKeys,
    logger,
    defaultRateLimit: { requests_per_second: config.rateLimit.rps, burst_size: config.rateLimit.burst },
  });
  const authenticate = requireApiKey(config.apiKey, apiKeys.find);
  const limited = rateLimit({ ...config.rateLimit, apiKey: config.apiKey }, parts.stores.redis?.client);
  const guard: RequestHandler = (req, res, next) =>
    authenticate(req, res, (err?: unknown) => (err ? next(err) : limited(req, res, next)));
  return { apiKeys, guard };
}

/** The /api/v1 router (the plugin call is mounted ahead of it): the key check and its rate limit, JSON bodies, the resources. */
function createApiRouter({ logger }: Root, parts: Parts, apiKeys: ApiKeyService, guard: RequestHandler) {
  const {
    stores: { opened },
    metrics,
    chains,
    services,
    webhooks,
    plugins,
  } = parts;
  const { repos } = opened.store;
  const { relayers, activity, pluginCalls, live, management } = services;
  const api = express.Router();
  api.use(guard);
  api.use(jsonBody());
  // The reference's API scope: /api/v1/metrics is the JSON list of names.
  api.use(
    METRICS_PATHS,
    createMetricsRouter(metrics, (_req, _res, next) => next(), 'always'),
  );
  const timeline = createTimelineReader({ transactions: repos.transactions, webhookEvents: repos.webhookEvents });
  api.use(
    '/relayers',
    createRelayersRouter(relayers),
    createRelayerInsightsRouter({
      ops: relayers,
      timeline,
      activity,
      oldestUnfinished: (id) => oldestUnfinishedAt(repos.transactions, id),
    }),
  );
  api.use(
    '/plugins',
    createPluginsRouter(plugins),
    createPluginCallsRouter({ calls: pluginCalls, requirePlugin: plugins.get }),
  );
  const events = createEventsRouter({ feed: live, requireRelayer: (id) => relayers.getRelayer(id), logger });
  api.use('/events', events.router);
  api.use('/notifications', createNotificationsRouter(services.notifications, webhooks.webhookUrls.check));
  api.use('/signers', createSignersRouter(management.signers));
  api.use('/networks', createNetworksRouter(management.networks, chains.checkRpcUrls));
  api.use('/api-keys', createApiKeysRouter(apiKeys));
  return { router: api, events };
}

/** Starts the background work: webhook delivery, then the jobs. */
async function startBackground(
  { logger }: Root,
  { stores: { opened }, services: { jobs }, webhooks: { dispatcher } }: Parts,
) {
  dispatcher.start();
  // Embedded store: one instance per file, so the leases of a crashed predecessor on this host are freed at once.
  // Shared database: other hosts' pids mean nothing here; leases are short (10 s) and lapse.
  if (opened.kind === 'sqlite') {
    // A failure here only means waiting out those leases: never a reason not to start.
    await releaseDeadOwners({ jobs: opened.store.repos.jobs, isDead: ownerIsGone, logger, now: Date.now() }).catch(
      (err: unknown) => logger.warn({ err }, "could not release a dead process's job leases; they lapse on their own"),
    );
  }
  jobs.start();
}

/** The App handed back: its parts, `listen`, and `close` in shutdown order. */
function appHandle({ config, logger, instanceId }: Root, parts: Parts, { app, events }: HttpApp): App {
  const {
    stores: { opened, closeStores },
    metrics,
    chains,
    services: { jobs, live, relaying },
    webhooks: { stopOutboxWakeups, webhookUrls, dispatcher },
    runtime,
  } = parts;
  let server: Server | undefined;
  let metricsServer: Server | undefined;
  return {
    express: app,
    get db(): Db {
      if (!opened.sqlite)
        throw new Error('app.db is the SQLite connection; this app runs on PostgreSQL (DATABASE_URL)');
      return opened.sqlite;
    },
    instanceId,
    store: opened.store,
    jobs,
    runtime,
    metrics,
    chains,
    live,
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
      // Event streams never finish on their own: ended first, so they do not hold the close for the grace period.
      events.closeAll();
      const http = Promise.all([server, metricsServer].map((s) => (s ? closeGracefully(s, deadline) : { cut: false })));
      // The runtime stops restarting at once but keeps serving the calls of the requests still in flight.
      const runtimeStopped = runtime.close(http);
      if ((await http).some((r) => r.cut))
        logger.warn({ graceMs }, 'shutdown grace period over: closing the connections still open');
      stopOutboxWakeups();
      relaying.balanceWatch.close();
      await Promise.all([dispatcher.close(), jobs.close(), runtimeStopped]);
      await webhookUrls.close();
      await chains.close();
      await closeStores();
    },
  };
}
