/**
 * The ops command line of every service with a store (`node dist/ops.js <command>`, in the
 * image as in the repository): operators change and read the service's own tables without SQL.
 * Every app's commands share one shape: `--help`, sysexits(3) exit codes, `--json` for scripts
 * (the same `{success:false, error, detail}` shape as the API on failure), and one audit line
 * per run on stderr, and also in OPS_AUDIT_LOG when set, saying who ran what (the claimed actor
 * and the OS user) and how it ended.
 */
import fs from 'node:fs';
import os from 'node:os';
import type { DestinationStream } from 'pino';
import { AppError, invalidArgument, type ErrorKind } from '@storefront/errors';
import { ConfigError, EnvReader, readCommon, type Env } from '@storefront/config';
import {
  SchemaNotMigrated,
  migrateToLatest,
  migrationStatus,
  openDatabase,
  readStoreConfig,
  requireMigrated,
  type Knex,
  type Migration,
  type StoreConfig,
} from '@storefront/db';
import { createLogger } from '@storefront/logging';

export const OPS_EXIT = {
  ok: 0,
  refused: 1,
  usage: 64,
  badInput: 65,
  notFound: 66,
  unavailable: 69,
  failed: 70,
  config: 78,
} as const;

const EXIT_BY_KIND: Partial<Record<ErrorKind, number>> = {
  invalid_argument: OPS_EXIT.badInput,
  not_found: OPS_EXIT.notFound,
  conflict: OPS_EXIT.refused,
  unprocessable: OPS_EXIT.refused,
  unavailable: OPS_EXIT.unavailable,
  provider_unavailable: OPS_EXIT.unavailable,
  timeout: OPS_EXIT.unavailable,
};

export interface OpsOption {
  /** Placeholder of the option's value (`--reason <text>`); absent for a flag. */
  value?: string;
  description: string;
}

export type OpsOptions = Record<string, string | true | undefined>;

export interface OpsInput {
  args: string[];
  options: OpsOptions;
  env: EnvReader;
  /** The same environment unread, for code that takes it whole. */
  rawEnv: Env;
  /** A line for the person watching (stderr); never part of the --json answer. */
  progress(line: string): void;
  /**
   * Who the invocation says is running it (`--actor`, OPS_ACTOR, else the OS user): what it changes is recorded under
   * this name.
   */
  actor: string;
}

export interface OpsResult {
  /** What a person reads. */
  text: string;
  /** What `--json` prints, after `"success": true`. */
  data: Record<string, unknown>;
}

export interface OpsCommand {
  /** One or two words: `set-stock`, `promo create`. */
  name: string;
  /** The positional arguments as help shows them, e.g. `<sku> <units>`; their count is checked. */
  args?: string[];
  summary: string;
  options?: Record<string, OpsOption>;
  run(input: OpsInput): Promise<OpsResult>;
}

export interface OpsIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** A malformed invocation: exit 64 and the command's usage. */
export class OpsUsageError extends Error {}

/**
 * A failure that already knows its exit code and stable error name; `data` (e.g. what a check
 * found) joins the --json answer after `"success": false, "error", "detail"`.
 */
export class OpsExit extends Error {
  constructor(
    readonly exitCode: number,
    readonly code: string,
    readonly detail: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(detail);
  }
}

const GLOBAL_OPTIONS: Record<string, OpsOption> = {
  json: { description: 'print one JSON object on stdout instead of text' },
  actor: {
    value: '<name>',
    description: 'who is running this, for the audit line (default: OPS_ACTOR, else the OS user)',
  },
  help: { description: 'show this help' },
};

export interface OpsProgram {
  app: string;
  commands: OpsCommand[];
}

/**
 * Runs one invocation and returns its exit code; the caller sets process.exitCode. `audit` is
 * where the audit line goes (stderr by default, which keeps stdout for the answer).
 */
export async function runOps(
  program: OpsProgram,
  argv: readonly string[],
  env: Env,
  io: OpsIo,
  audit: DestinationStream = process.stderr,
): Promise<number> {
  const envReader = new EnvReader(env);
  let logLevel = 'info';
  try {
    logLevel = readCommon(envReader).logLevel;
  } catch {
    // A bad LOG_LEVEL is reported by the command that reads the configuration.
  }
  const started = process.hrtime.bigint();
  // The service's log stream too (OPS_AUDIT_LOG, e.g. /proc/1/fd/1 in its container): a run from
  // `kubectl exec` otherwise leaves its line only on the operator's terminal. No audit, no run.
  let auditLog: AuditLog | undefined;
  try {
    auditLog = openAuditLog(env.OPS_AUDIT_LOG);
  } catch (error) {
    io.stderr(
      `${program.app} ops: cannot write the audit line to OPS_AUDIT_LOG ${env.OPS_AUDIT_LOG}: ` +
        `${(error as Error).message}\n`,
    );
    return OPS_EXIT.config;
  }
  const loggers = [
    createLogger(program.app, logLevel, audit),
    ...(auditLog ? [createLogger(program.app, logLevel, auditLog)] : []),
  ];

  let parsed: ParsedArgs;
  try {
    parsed = parseArgs(argv);
  } catch (error) {
    io.stderr(`${(error as Error).message}\n\n${overview(program)}`);
    return OPS_EXIT.usage;
  }
  const command = findCommand(program.commands, parsed.positionals);
  if (!command) {
    const wanted = parsed.positionals.join(' ');
    if (!wanted && parsed.options.help) {
      io.stdout(overview(program));
      return OPS_EXIT.ok;
    }
    io.stderr(`${wanted ? `unknown command "${wanted}"\n\n` : ''}${overview(program)}`);
    return OPS_EXIT.usage;
  }
  if (parsed.options.help) {
    io.stdout(usageOf(program.app, command));
    return OPS_EXIT.ok;
  }
  const json = parsed.options.json === true;
  const args = parsed.positionals.slice(command.name.split(' ').length);
  const actor = actorOf(parsed.options.actor, env);
  const { help: _help, json: _json, actor: _actor, ...options } = parsed.options;

  let code: number;
  let outcome: Record<string, unknown>;
  try {
    checkInvocation(command, args, options);
    const result = await command.run({
      args,
      options,
      env: envReader,
      rawEnv: env,
      actor,
      progress: (line) => io.stderr(`${line}\n`),
    });
    io.stdout(json ? `${JSON.stringify({ success: true, ...result.data })}\n` : `${result.text}\n`);
    code = OPS_EXIT.ok;
    outcome = { outcome: 'ok' };
  } catch (error) {
    const failure = describeFailure(error);
    code = failure.exitCode;
    const data = error instanceof OpsExit ? error.data : {};
    if (error instanceof OpsUsageError) io.stderr(`${failure.detail}\n\n${usageOf(program.app, command)}`);
    else if (json)
      io.stdout(`${JSON.stringify({ success: false, error: failure.error, detail: failure.detail, ...data })}\n`);
    else io.stderr(`${program.app} ${command.name}: ${failure.detail}\n`);
    outcome = {
      outcome: code === OPS_EXIT.refused ? 'refused' : 'failed',
      error: failure.error,
      detail: failure.detail,
    };
  }
  const line = {
    audit: 'ops',
    // `actor` is what the invocation claims; `os_user` is who the operating system says ran it.
    actor,
    os_user: osUser(),
    command: command.name,
    args,
    options,
    ...outcome,
    exit_code: code,
    duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
  };
  for (const logger of loggers) logger.info(line, 'ops command');
  auditLog?.close();
  return code;
}

interface AuditLog {
  write(line: string): void;
  close(): void;
}

/** Appends synchronously, so the line is written before the process exits. */
function openAuditLog(target: string | undefined): AuditLog | undefined {
  if (!target?.trim()) return undefined;
  const fd = fs.openSync(target.trim(), 'a');
  return {
    write: (line) => {
      fs.writeSync(fd, line);
    },
    close: () => fs.closeSync(fd),
  };
}

/** The account the process runs as, whatever --actor or OPS_ACTOR claim. */
function osUser(): { username: string | null; uid: number | null } {
  const uid = process.getuid?.() ?? null;
  try {
    return { username: os.userInfo().username, uid };
  } catch {
    // A container user without a passwd entry still has a uid.
    return { username: null, uid };
  }
}

function describeFailure(error: unknown): { exitCode: number; error: string; detail: string } {
  if (error instanceof OpsUsageError) return { exitCode: OPS_EXIT.usage, error: 'usage', detail: error.message };
  if (error instanceof OpsExit) return { exitCode: error.exitCode, error: error.code, detail: error.detail };
  if (error instanceof AppError)
    return { exitCode: EXIT_BY_KIND[error.kind] ?? OPS_EXIT.failed, error: error.code, detail: error.detail };
  if (error instanceof ConfigError) return { exitCode: OPS_EXIT.config, error: 'configuration', detail: error.message };
  if (error instanceof SchemaNotMigrated)
    return { exitCode: OPS_EXIT.config, error: 'not_migrated', detail: error.message };
  return { exitCode: OPS_EXIT.failed, error: 'failed', detail: (error as Error).message };
}

function actorOf(option: string | true | undefined, env: Env): string {
  if (typeof option === 'string' && option.trim()) return option.trim();
  if (env.OPS_ACTOR?.trim()) return env.OPS_ACTOR.trim();
  try {
    return os.userInfo().username;
  } catch {
    // A container user without a passwd entry still has a uid.
    return `uid:${process.getuid?.() ?? 'unknown'}`;
  }
}

interface ParsedArgs {
  positionals: string[];
  options: OpsOptions;
}

/**
 * `--name value`, `--name=value`, flags, and `--` ending the options. A signed number (`-50`,
 * `+20`) is an argument, not an option, so point and stock changes need no quoting.
 */
function parseArgs(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const options: OpsOptions = {};
  for (let i = 0; i < argv.length; i += 1) {
    const token = argv[i]!;
    if (token === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (token === '-h') {
      options.help = true;
    } else if (token.startsWith('--')) {
      const [name, inline] = token.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      if (!name) throw new OpsUsageError(`malformed option "${token}"`);
      const next = argv[i + 1];
      if (inline !== undefined) options[name] = inline;
      else if (GLOBAL_OPTIONS[name] && !GLOBAL_OPTIONS[name].value) options[name] = true;
      else if (next !== undefined && !next.startsWith('--')) options[name] = argv[(i += 1)]!;
      else options[name] = true;
    } else if (token.startsWith('-') && !/^-\d/.test(token)) {
      throw new OpsUsageError(`unknown option "${token}"`);
    } else {
      positionals.push(token);
    }
  }
  return { positionals, options };
}

/** The command named by the leading words, the longest name first (`migrate status` before `migrate`). */
function findCommand(commands: readonly OpsCommand[], positionals: readonly string[]): OpsCommand | undefined {
  return [...commands]
    .sort((a, b) => b.name.split(' ').length - a.name.split(' ').length)
    .find((command) => command.name.split(' ').every((word, i) => positionals[i] === word));
}

function checkInvocation(command: OpsCommand, args: readonly string[], options: OpsOptions): void {
  const expected = command.args ?? [];
  if (args.length !== expected.length) {
    throw new OpsUsageError(
      `${command.name} takes ${expected.length ? expected.join(' ') : 'no arguments'}; got ` +
        `${args.length ? args.join(' ') : 'none'}`,
    );
  }
  for (const [name, value] of Object.entries(options)) {
    const known = command.options?.[name];
    if (!known) throw new OpsUsageError(`${command.name} has no option --${name}`);
    if (known.value && value === true) throw new OpsUsageError(`--${name} needs a value ${known.value}`);
    if (!known.value && value !== true) throw new OpsUsageError(`--${name} takes no value`);
  }
}

function overview(program: OpsProgram): string {
  const width = Math.max(...program.commands.map((command) => signature(command).length));
  const lines = program.commands.map((command) => `  ${signature(command).padEnd(width)}  ${command.summary}`);
  return [
    `usage: ops.js <command> [options]   (${program.app}; locally: npm run ops -- ${program.app} <command>)`,
    '',
    'commands:',
    ...lines,
    '',
    optionLines(GLOBAL_OPTIONS),
    '',
    'Run "<command> --help" for its options. Exit codes: 0 done, 1 refused, 64 usage, 65 bad input, ' +
      '66 not found, 69 unavailable, 70 failed, 78 configuration.',
    '',
  ].join('\n');
}

function usageOf(app: string, command: OpsCommand): string {
  const lines = [
    `usage: ops.js ${signature(command)}${command.options ? ' [options]' : ''}   (${app})`,
    '',
    command.summary,
    '',
  ];
  if (command.options) lines.push(optionLines(command.options), '');
  lines.push(optionLines(GLOBAL_OPTIONS), '');
  return lines.join('\n');
}

const signature = (command: OpsCommand) => [command.name, ...(command.args ?? [])].join(' ');

function optionLines(options: Record<string, OpsOption>): string {
  const names = Object.entries(options).map(
    ([name, option]) => [`--${name}${option.value ? ` ${option.value}` : ''}`, option.description] as const,
  );
  const width = Math.max(...names.map(([name]) => name.length));
  return names.map(([name, description]) => `  ${name.padEnd(width)}  ${description}`).join('\n');
}

/** The option's value, or a usage error naming it when a required one is missing. */
/**
 * A whole number written as digits only (a leading + allowed), from `min` to `max`; bad input names the option and the
 * range.
 */
export function wholeNumberOption(
  text: string,
  name: string,
  { min, max, code }: { min: number; max: number; code: string },
): number {
  const value = /^\+?\d{1,9}$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max))
    throw invalidArgument(`${name} must be a whole number from ${min} to ${max}, got "${text}"`, code);
  return value;
}

/** Whether `yyyy-mm-dd` names a day that exists (Date.parse would take 2026-02-30 for 2 March). */
function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.split('-').map(Number) as [number, number, number];
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** An ISO 8601 date (midnight UTC) or a date-time with a zone; bad input names the option. */
export function instantOption(text: string, name: string): number {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const zoned = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(text);
  const at =
    (dateOnly || zoned) && isCalendarDate(text.slice(0, 10)) ? Date.parse(dateOnly ? `${text}T00:00:00Z` : text) : NaN;
  if (!Number.isFinite(at))
    throw invalidArgument(
      `${name} must be an ISO 8601 date (2025-06-01) or date-time with a zone (2025-06-01T09:00:00Z), got "${text}"`,
      'invalid_date',
    );
  return at;
}

export function requiredOption(options: OpsOptions, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || !value.trim()) throw new OpsUsageError(`--${name} is required`);
  return value;
}

export function storeConfigOf(env: EnvReader, service: string): StoreConfig {
  return readStoreConfig(env, service, readCommon(env));
}

/** Runs `work` on the service's store, refusing one that is not migrated (it names `migrate`). */
export async function withStore<T>(
  env: EnvReader,
  service: string,
  migrations: Record<string, Migration>,
  work: (db: Knex) => Promise<T>,
): Promise<T> {
  const db = openDatabase(storeConfigOf(env, service));
  try {
    await requireMigrated(db, service, migrations);
    return await work(db);
  } finally {
    await db.destroy();
  }
}

/** `migrate` and `migrate status`, the same for every service with a store. */
export function migrationCommands(service: string, migrations: Record<string, Migration>): OpsCommand[] {
  return [
    {
      name: 'migrate',
      summary: `apply ${service}'s pending migrations (creates its MySQL database when missing)`,
      async run({ env }) {
        const applied = await migrateToLatest(storeConfigOf(env, service), migrations);
        return {
          text: applied.length ? `applied ${applied.join(', ')}` : 'schema already up to date',
          data: { applied },
        };
      },
    },
    {
      name: 'migrate status',
      summary: `list ${service}'s applied and pending migrations; changes nothing`,
      async run({ env }) {
        const db = openDatabase(storeConfigOf(env, service));
        try {
          const status = await migrationStatus(db, migrations);
          const text = [
            ...status.applied.map((name) => `applied  ${name}`),
            ...status.pending.map((name) => `pending  ${name}`),
            status.pending.length ? `${status.pending.length} pending: run migrate` : 'up to date',
          ].join('\n');
          return { text, data: status };
        } finally {
          await db.destroy();
        }
      },
    },
  ];
}

/** The entry point of an app's ops bundle. */
export function runOpsMain(program: OpsProgram): void {
  runOps(program, process.argv.slice(2), process.env, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${program.app} ops: ${(error as Error).message}\n`);
      process.exitCode = OPS_EXIT.failed;
    },
  );
}
