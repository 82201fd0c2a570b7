// Entry point: load config, build the app, listen, and shut down cleanly on SIGTERM/SIGINT.
import { loadConfig } from './config.ts';
import { createLogger, secretsOf } from './logger.ts';
import { createApp } from './app.ts';

const bootLogger = createLogger(process.env.LOG_LEVEL || 'info');
let config;
try {
  config = loadConfig();
} catch (err) {
  bootLogger.fatal((err as Error).message);
  process.exit(1);
}
const logger = createLogger(config.logLevel, undefined, secretsOf(config));
if (config.apiKeyGenerated) {
  // Printed once, on stdout, so a newcomer can copy it; it is never logged anywhere else.
  process.stdout.write(`\nAPI_KEY was not set; generated one for this run (it changes on every start):\n\n  ${config.apiKey}\n\n`);
  logger.warn('API_KEY not set: using a generated key that changes on every start; set API_KEY (32+ characters) to keep one');
}

const app = await createApp(config, logger);
const server = await app.listen(config.port, config.host);
const address = server.address();
logger.info({ address, dataDir: config.dataDir, pluginsDir: config.pluginsDir, config: config.configPath }, 'relaybox listening');

let closing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: draining in-flight requests');
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'unclean shutdown');
        process.exit(1);
      },
    );
  });
}
