/**
 * Process lifecycle shared by every app: `migrate` as a separate command, start, and a graceful
 * stop on SIGTERM/SIGINT or when the parent process dies (stop accepting, let in-flight work
 * finish, close pools, flush telemetry) bounded by a deadline so a stuck dependency cannot keep a
 * pod terminating forever.
 */
import { loadOrExit, readCommon, type CommonConfig, type EnvReader } from '@storefront/config';
import { SchemaNotMigrated } from '@storefront/db';
import { createLogger, type Logger } from '@storefront/logging';
import { currentTelemetry } from '@storefront/telemetry';
import { OPS_EXIT } from './ops';

export interface Stoppable {
  stop(): Promise<void>;
}

/** What `main.js migrate` does: it reads only the settings it needs, never the app's serve config. */
export interface MigrateCommand<MigrateConfig extends CommonConfig> {
  readConfig(env: EnvReader): MigrateConfig;
  /** Applies migrations and returns their names. */
  run(config: MigrateConfig): Promise<string[]>;
}

export interface MainOptions<ServeConfig extends CommonConfig, MigrateConfig extends CommonConfig> {
  /** Logger name, e.g. `identity`. */
  app: string;
  /** The app's whole configuration; read only by `serve`. */
  readConfig(env: EnvReader): ServeConfig;
  start(config: ServeConfig, logger: Logger): Promise<Stoppable>;
  migrate?: MigrateCommand<MigrateConfig>;
  shutdownDeadlineMs?: number;
}

/** How often a serving app checks that its parent is still alive. */
const PARENT_CHECK_INTERVAL_MS = 1000;

export function runMain<ServeConfig extends CommonConfig, MigrateConfig extends CommonConfig>(
  options: MainOptions<ServeConfig, MigrateConfig>,
): void {
  const command = process.argv[2] ?? 'serve';
  if (command === 'migrate') return runMigrate(options.app, options.migrate);
  if (command !== 'serve') {
    return fail(
      createLogger(options.app, loadOrExit(readCommon).logLevel),
      new Error(`unknown command "${command}"; use serve or migrate`),
    );
  }
  serve(options);
}

function runMigrate<MigrateConfig extends CommonConfig>(
  app: string,
  migrate: MigrateCommand<MigrateConfig> | undefined,
): void {
  if (!migrate)
    return fail(createLogger(app, loadOrExit(readCommon).logLevel), new Error('this app has no migrations'));
  const config = loadOrExit(migrate.readConfig);
  const logger = createLogger(app, config.logLevel);
  migrate.run(config).then(
    (applied) => {
      logger.info({ applied }, applied.length ? 'migrations applied' : 'schema already up to date');
      process.exit(0);
    },
    (error) => fail(logger, error),
  );
}

function serve<ServeConfig extends CommonConfig>({
  app,
  readConfig,
  start,
  shutdownDeadlineMs = 15_000,
}: MainOptions<ServeConfig, CommonConfig>): void {
  const config = loadOrExit(readConfig);
  const logger = createLogger(app, config.logLevel);
  const startedAt = process.hrtime.bigint();
  // start() runs once this function has put the signal handlers in place: a signal that arrives
  // during its first synchronous steps must find them, not the default action that kills the process.
  const starting = Promise.resolve().then(() => start(config, logger));

  let stopping = false;
  // A stop asked for while the app is still starting waits for the start to finish, so a
  // migration or seed on the embedded store is never cut off halfway.
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal: reason }, 'shutting down');
    const deadline = setTimeout(() => {
      logger.error('shutdown deadline passed; exiting with work unfinished');
      process.exit(1);
    }, shutdownDeadlineMs);
    deadline.unref();
    starting
      .then((running) => running.stop())
      // Spans of the last requests leave before the process does.
      .then(() => currentTelemetry()?.shutdown())
      .then(
        () => process.exit(0),
        (error) => fail(logger, error),
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  watchParent(() => stop('parent exited'), PARENT_CHECK_INTERVAL_MS);

  starting.then(
    () => logger.info({ startup_ms: Number(process.hrtime.bigint() - startedAt) / 1e6 }, 'ready'),
    (error) => {
      // An unmigrated store is a deployment step left out, not a crash: one line that says what to run.
      if (error instanceof SchemaNotMigrated) {
        process.stderr.write(`${app}: ${error.message}\n`);
        process.exit(OPS_EXIT.config);
      }
      fail(logger, error);
    },
  );
}

/**
 * Calls `onExit` once the process that started this one has gone (even by SIGKILL, which
 * forwards nothing): the orphan is re-parented, so its parent pid changes. A process started
 * without a parent of its own (pid 1 in a container, or already orphaned) has nothing to watch.
 */
function watchParent(onExit: () => void, intervalMs: number): void {
  const parent = process.ppid;
  if (parent <= 1) return;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onExit();
  }, intervalMs);
  timer.unref();
}

function fail(logger: Logger, error: unknown): void {
  logger.fatal({ err: error }, 'fatal error');
  process.exit(1);
}

export {
  OPS_EXIT,
  OpsExit,
  OpsUsageError,
  instantOption,
  migrationCommands,
  requiredOption,
  runOps,
  runOpsMain,
  storeConfigOf,
  wholeNumberOption,
  withStore,
  type OpsCommand,
  type OpsInput,
  type OpsIo,
  type OpsOptions,
  type OpsProgram,
  type OpsResult,
} from './ops';

export {
  openComponent,
  readGrpcServiceConfig,
  repeatInBackground,
  startGrpcService,
  type BuildContext,
  type ComponentOptions,
  type Connect,
  type OpenComponent,
  type GrpcServiceConfig,
  type GrpcServiceOptions,
  type RunningGrpcService,
  type ServiceParts,
  type ServiceStartOptions,
} from './grpc-service';
