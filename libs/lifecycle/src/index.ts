/**
 * Process lifecycle shared by every app: `migrate` as a separate command, start, and a graceful
 * stop on SIGTERM/SIGINT (stop accepting, let in-flight work finish, close pools, flush
 * telemetry) bounded by a deadline so a stuck dependency cannot keep a pod terminating forever.
 */
import type { Logger } from '@storefront/logging';
import { currentTelemetry } from '@storefront/telemetry';

export interface Stoppable {
  stop(): Promise<void>;
}

export interface MainOptions {
  logger: Logger;
  start(): Promise<Stoppable>;
  /** Applies migrations and returns their names; run by `main.js migrate`. */
  migrate?(): Promise<string[]>;
  shutdownDeadlineMs?: number;
}

export function runMain({ logger, start, migrate, shutdownDeadlineMs = 15_000 }: MainOptions): void {
  const command = process.argv[2] ?? 'serve';
  if (command === 'migrate') {
    if (!migrate) return fail(logger, new Error('this app has no migrations'));
    migrate().then(
      (applied) => {
        logger.info({ applied }, applied.length ? 'migrations applied' : 'schema already up to date');
        process.exit(0);
      },
      (error) => fail(logger, error),
    );
    return;
  }
  if (command !== 'serve') return fail(logger, new Error(`unknown command "${command}"; use serve or migrate`));

  const startedAt = process.hrtime.bigint();
  start().then(
    (running) => {
      logger.info({ startup_ms: Number(process.hrtime.bigint() - startedAt) / 1e6 }, 'ready');
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'shutting down');
        const deadline = setTimeout(() => {
          logger.error('shutdown deadline passed; exiting with work unfinished');
          process.exit(1);
        }, shutdownDeadlineMs);
        deadline.unref();
        running
          .stop()
          // Spans of the last requests leave before the process does.
          .then(() => currentTelemetry()?.shutdown())
          .then(
            () => process.exit(0),
            (error) => fail(logger, error),
          );
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
    },
    (error) => fail(logger, error),
  );
}

function fail(logger: Logger, error: unknown): void {
  logger.fatal({ err: error }, 'fatal error');
  process.exit(1);
}
