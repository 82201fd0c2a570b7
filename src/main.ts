// Entry point: load config, build the app, listen, and shut down cleanly on SIGTERM/SIGINT.
import { loadConfig } from './config/config.ts';
import { createLogger, secretsOf } from './observability/logger.ts';
import { createApp } from './app.ts';

let logger = createLogger(process.env.LOG_LEVEL || 'info');

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
logger = createLogger(config.logLevel, undefined, secretsOf(config));
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
  // A refusal to start (storage key mismatch, database unreachable…) is one clear line, not a stack trace.
  logger.fatal({ err }, `relaybox cannot start: ${(err as Error).message}`);
  process.exit(1);
}
starting = false;
const server = await app.listen(config.port, config.host);
logger.info({ address: server.address(), pid: process.pid, dataDir: config.dataDir, pluginsDir: config.pluginsDir, config: config.configPath }, 'relaybox listening');

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
