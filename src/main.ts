// Entry point: load config, build the app, listen, and shut down cleanly on SIGTERM/SIGINT.
import { loadConfig } from './config/config.ts';
import { createLogger, logDestination, logFileBase, secretsOf } from './observability/logger.ts';
import { storeLocation } from './store/location.ts';
import { createApp } from './app.ts';

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
  if (output.mode === 'file') logger.info({ files: `${logFileBase(output)}.<yyyy-MM-dd>.<n>.log`, maxBytes: output.maxBytes }, 'logging to rotating files (LOG_MODE=file)');
  logger = createLogger(config.logLevel, await logDestination(output), secretsOf(config));
} catch (err) {
  logger.fatal(`cannot open the log files: ${(err as Error).message}`);
  process.exit(1);
}
// The reference's variables we read differently or cannot honour: one line each, with what we do instead.
for (const notice of config.notices) logger[notice.level]({ variable: notice.variable }, notice.message);
logger.info({ config: config.configPath, found: config.configLocation.source, relativePathsFrom: config.configLocation.bases }, 'config file');
logger.info({ dataDir: config.dataDir }, `store: ${storeLocation(config.databaseUrl, config.dataDir)}`);
if (config.apiKeyGenerated) {
  // Printed once, on stdout, so a newcomer can copy it; it is never logged anywhere else.
  process.stdout.write(`\nAPI_KEY was not set; generated one for this run (it changes on every start):\n\n  ${config.apiKey}\n\n`);
  logger.warn('API_KEY not set: using a generated key that changes on every start; set API_KEY (32+ characters) to keep one');
}
if (!config.storageEncryptionKey) {
  logger.warn('STORAGE_ENCRYPTION_KEY not set: signer keys and webhook signing keys are stored in plain text; set it (32+ characters) in production');
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
const server = await app.listen(config.port, config.host);
const bound = server.address();
// Where to point curl and a browser: the API and the operator console share the port (and the key).
const base = bound && typeof bound === 'object' ? `http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}` : '';
logger.info({ address: bound, url: `${base}/api/v1`, console: `${base}/console`, pid: process.pid, dataDir: config.dataDir, pluginsDir: config.pluginsDir, config: config.configPath }, 'relaybox listening');
// A few seconds on: the runtime process has booted and sent its plugins' inventory by then.
setTimeout(releaseStartUpGarbage, 5_000).unref();

/**
 * Starting leaves ~35 MiB of garbage and grown heap pages (modules compiled, schemas compiled, the config read) that V8
 * keeps resident while the process idles: its memory reducer had not returned them a minute later (measured, HTTP
 * process ~158 MiB idle). One memory-reducing collection once serving returns them (~121 MiB). `gc` exists when Node
 * runs with --expose-gc, as bin/relaybox starts it; elsewhere (tests, tools) this does nothing.
 */
function releaseStartUpGarbage(): void {
  globalThis.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

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
