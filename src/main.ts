// Entry point: load config, build the app, listen, and shut down cleanly on SIGTERM/SIGINT.
import { loadConfig } from './config/config.ts';
import { createLogger, logDestination, logFileBase, secretsOf } from './observability/logger.ts';
import { formatDestination } from './observability/log-format.ts';
import { storeLocation } from './store/location.ts';
import { createApp } from './app.ts';
import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { runCli } from './cli/run.ts';
import { portProblems } from './cli/ports.ts';

// The command line first (src/cli/): --help, --version, check and keystore create end here, having started nothing.
// `.env` is read there, before any setting.
const cli = await runCli(process.argv.slice(2));
if (!cli.start) process.exit(cli.status);

// Until the config is read (LOG_LEVEL checked, LOG_MODE known): what this logger says is a refusal or a warning.
let logger = createLogger('info');

// Handlers before anything else. While starting, a signal ends the process at once: the start may be waiting on
// something that never answers (a database, a devnet), and nothing half-built needs saving (store writes are
// transactions; devnets and the plugin runtime end with this process). Once started, it drains and closes. A Ctrl-C
// or a group kill arrives twice (directly, and forwarded by npm): the first one counts.
let starting = true;
const stopRequested = new Promise<NodeJS.Signals>((resolve) => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (starting) {
        logger.warn({ signal }, 'stop requested while starting: exiting before serving');
        process.exit(0);
      }
      resolve(signal);
    });
  }
});

let config;
try {
  config = loadConfig();
} catch (err) {
  logger.fatal((err as Error).message);
  process.exit(1);
}
try {
  const output = config.logOutput;
  // LOG_MODE=file: one line on stdout says where the log goes, then every line goes there (as the reference).
  if (output.mode === 'file')
    logger.info(
      { files: `${logFileBase(output)}.<yyyy-MM-dd>.<n>.log`, maxBytes: output.maxBytes },
      'logging to rotating files (LOG_MODE=file)',
    );
  logger = createLogger(
    config.logLevel,
    formatDestination(config.logFormat, await logDestination(output)),
    secretsOf(config),
  );
} catch (err) {
  logger.fatal(`cannot open the log output: ${(err as Error).message}`);
  process.exit(1);
}
if (cli.envFile.file)
  logger.info(
    { file: cli.envFile.file, set: cli.envFile.set.length, keptFromEnvironment: cli.envFile.kept },
    'environment file read (.env): a variable already set keeps its value',
  );
// The reference's variables we read differently or cannot honour: one line each, with what we do instead.
for (const notice of config.notices) logger[notice.level]({ variable: notice.variable }, notice.message);
logger.info(
  { config: config.configPath, found: config.configLocation.source, relativePathsFrom: config.configLocation.bases },
  'config file',
);
logger.info({ dataDir: config.dataDir }, `store: ${storeLocation(config.databaseUrl, config.dataDir)}`);
if (config.apiKeyGenerated) {
  // Printed once, on stdout, so a newcomer can copy it; it is never logged anywhere else.
  process.stdout.write(
    `\nAPI_KEY was not set; generated one for this run (it changes on every start):\n\n  ${config.apiKey}\n\n`,
  );
  logger.warn(
    'API_KEY not set: using a generated key that changes on every start; set API_KEY (32+ characters) to keep one',
  );
}
if (!config.storageEncryptionKey) {
  logger.warn(
    'STORAGE_ENCRYPTION_KEY not set: signer keys and webhook signing keys are stored in plain text; set it (32+ characters) in production',
  );
}

// A port already taken fails the start here, in one sentence, before the store is opened or anything is started.
const busy = await portProblems(config);
if (busy.length > 0) {
  logger.fatal(`relaybox cannot start: ${busy.join('; ')}`);
  process.exit(1);
}

let app;
try {
  app = await createApp(config, logger);
} catch (err) {
  // A refusal to start (storage key mismatch, database unreachable, a signer refused…) is one clear line, not a stack
  // trace; the stack is there at LOG_LEVEL=debug for whoever debugs the service itself.
  logger.debug({ err }, 'start failure: detail');
  logger.fatal(`relaybox cannot start: ${(err as Error).message}`);
  process.exit(1);
}
starting = false;
let server;
try {
  server = await app.listen(config.port, config.host);
} catch (err) {
  // Taken between the check above and now: still one sentence, and what was started is stopped.
  logger.fatal(
    `relaybox cannot start: listening on ${config.host}:${config.port} failed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
  );
  await app.close().catch(() => undefined);
  process.exit(1);
}
const bound = server.address();
// Where to point curl and a browser: the API and the operator console share the port (and the key).
const base =
  bound && typeof bound === 'object'
    ? `http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`
    : '';
logger.info(
  {
    address: bound,
    url: `${base}/api/v1`,
    console: `${base}/console`,
    pid: process.pid,
    dataDir: config.dataDir,
    pluginsDir: config.pluginsDir,
    config: config.configPath,
  },
  'relaybox listening',
);
/**
 * Starting leaves ~35 MiB of garbage and grown heap pages (modules compiled, schemas compiled, the config read) that V8
 * keeps resident while the process idles: its memory reducer had not returned them a minute later (measured, HTTP
 * process ~158 MiB idle). One memory-reducing collection once serving returns them (~121 MiB). A load does the same
 * (the wrk runs of bench/plugin-path.ts: 101 → 135 MiB, kept), so the collection runs again once a load is over
 * (watchIdle). `gc` exists when Node runs with --expose-gc, as bin/relaybox starts it; elsewhere (tests, tools) this
 * does nothing.
 */
function releaseGarbage(): void {
  globalThis.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  heapAfterCollect = getHeapStatistics().total_heap_size;
}

/** The event loop busy less than this share of a second counts as a quiet second (idle, timers and the runtime's health messages keep it far below). */
const QUIET_UTILIZATION = 0.05;
/** Quiet seconds in a row that end a load. */
const QUIET_SECONDS = 3;
/** Growth of the heap since the last collection below which a quiet spell does not collect (a collection is tens of ms of CPU). */
const COLLECT_GROWTH_BYTES = 8 * 1024 * 1024;
let heapAfterCollect = Infinity;

/**
 * After a load: once the event loop has been quiet for QUIET_SECONDS and the heap has grown by COLLECT_GROWTH_BYTES
 * since the last collection, the same collection as at the start. Once a second it reads the event loop's
 * utilization, nothing per request; under load it never collects.
 */
function watchIdle(): void {
  let last = performance.eventLoopUtilization();
  let quiet = 0;
  setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    quiet = busy < QUIET_UTILIZATION ? quiet + 1 : 0;
    if (quiet >= QUIET_SECONDS && getHeapStatistics().total_heap_size - heapAfterCollect >= COLLECT_GROWTH_BYTES)
      releaseGarbage();
  }, 1000).unref();
}

// A few seconds on: the runtime process has booted and sent its plugins' inventory by then.
setTimeout(releaseGarbage, 5_000).unref();
if (globalThis.gc) watchIdle();

const signal = await stopRequested;
const stopStarted = Date.now();
logger.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down: draining in-flight requests');
try {
  await app.close();
  logger.info({ signal, ms: Date.now() - stopStarted }, 'relaybox stopped');
  process.exit(0);
} catch (err) {
  logger.error({ err }, 'unclean shutdown');
  process.exit(1);
}
