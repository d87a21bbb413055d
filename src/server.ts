// Entry point of `npm start`: configuration from the environment, then the service.
import { ConfigError, loadConfig } from './config.ts';
import { createLogger, startService } from './service.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const service = await startService(config, { logger });
  logger.info({ url: service.url, store: service.store.dialect, workers: config.workers }, 'vectorize service ready');

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    service.shutdown(config.shutdownGraceMs).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`vectorize service failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
