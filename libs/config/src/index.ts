/**
 * Typed configuration from the environment. Every reader validates its variable and a
 * problem surfaces as one ConfigError line naming it, so a process stops at start instead
 * of misbehaving later.
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type Env = Record<string, string | undefined>;

export class EnvReader {
  constructor(private readonly env: Env = process.env) {}

  /** The raw value, or undefined when unset or blank. */
  optional(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback?: string): string {
    const value = this.optional(name) ?? fallback;
    if (value === undefined) throw new ConfigError(`${name} is required but not set`);
    return value;
  }

  int(name: string, fallback: number, range: { min?: number; max?: number } = {}): number {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = range;
    if (!/^-?\d+$/.test(raw) || value < min || value > max) {
      throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
    }
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.optional(name) ?? fallback;
    if (!allowed.includes(raw as T)) {
      throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
    }
    return raw as T;
  }

  url(name: string, fallback?: string, protocols: readonly string[] = ['http:', 'https:']): string {
    const raw = this.optional(name) ?? fallback;
    if (raw === undefined) throw new ConfigError(`${name} is required but not set`);
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(`${name} must be a URL, got "${redactUrl(raw)}"`);
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
    }
    return raw;
  }

  optionalUrl(name: string, protocols?: readonly string[]): string | undefined {
    return this.optional(name) === undefined ? undefined : this.url(name, undefined, protocols);
  }

  /** host:port, as a gRPC server's listening address is written. */
  address(name: string, fallback: string): string {
    const raw = this.optional(name) ?? fallback;
    if (!hostPort(raw)) throw new ConfigError(`${name} must be host:port to listen on, got "${raw}"`);
    return raw;
  }

  /**
   * Where a client sends its calls, in one of the forms grpc-js resolves: `host:port` (one
   * backend), `dns:///host:port` (every address the name resolves to, e.g. a headless Service),
   * a comma list of IP `host:port` entries (written to grpc-js as `ipv4:` or `ipv6:`), or an
   * explicit `ipv4:`/`ipv6:` list.
   */
  grpcTarget(name: string, fallback: string): string {
    const raw = this.optional(name) ?? fallback;
    const target = grpcTargetOf(raw);
    if (target === undefined) {
      throw new ConfigError(
        `${name} must be host:port, dns:///host:port or a comma list of IP host:port entries (use ` +
          `dns:/// for a name with several addresses), got "${raw}"`,
      );
    }
    return target;
  }

  list(name: string): string[] {
    const raw = this.optional(name);
    return raw === undefined
      ? []
      : raw
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean);
  }

  /** A comma list of http(s) URLs, each reduced to its origin (`https://shop.example`). */
  origins(name: string): string[] {
    return this.list(name).map((item) => {
      const origin = originOf(item);
      if (origin === undefined)
        throw new ConfigError(`${name} must list http(s) URLs such as https://shop.example, got "${redactUrl(item)}"`);
      return origin;
    });
  }
}

const PORT = /^\d{1,5}$/;
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** host and port of `host:port` or `[v6]:port`, or undefined when it is neither. */
function hostPort(entry: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+):(\d{1,5})$/.exec(entry);
  if (!match || !PORT.test(match[2]!) || Number(match[2]) > 65535) return undefined;
  return { host: match[1]!, port: Number(match[2]) };
}

function ipFamily(host: string): 'ipv4' | 'ipv6' | undefined {
  const v4 = IPV4.exec(host);
  if (v4) return v4.slice(1).every((octet) => Number(octet) <= 255) ? 'ipv4' : undefined;
  return host.startsWith('[') ? 'ipv6' : undefined;
}

/** The grpc-js target for a client address variable (see EnvReader.grpcTarget), or undefined. */
function grpcTargetOf(raw: string): string | undefined {
  const dns = /^dns:(?:\/\/[^/]*\/)?(.+)$/.exec(raw);
  if (dns) return hostPort(dns[1]!) ? raw : undefined;
  const scheme = /^(ipv4|ipv6):(.+)$/.exec(raw);
  const entries = (scheme ? scheme[2]! : raw).split(',').map((entry) => entry.trim());
  const parsed = entries.map(hostPort);
  if (parsed.some((entry) => entry === undefined)) return undefined;
  const hosts = parsed.map((entry) => entry!.host);
  if (!scheme && entries.length === 1) return raw;
  // A list is handed to grpc-js's static resolver, which takes IP literals of one family only.
  const family = ipFamily(hosts[0]!);
  if (!family || hosts.some((host) => ipFamily(host) !== family) || (scheme && scheme[1] !== family)) return undefined;
  return `${family}:${entries.join(',')}`;
}

/** scheme://host[:port] of an http(s) URL, or undefined for anything else. */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Hides the password of a URL so configuration errors never print credentials. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return raw.replace(/\/\/[^@/]*@/, '//***@');
  }
}

/**
 * Loads configuration or ends the process with one clear line. Used by every main.ts.
 */
export function loadOrExit<T>(load: (env: EnvReader) => T, env: Env = process.env): T {
  try {
    return load(new EnvReader(env));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}

/** Settings every service process shares. */
export interface CommonConfig {
  dataDir: string;
  logLevel: string;
  buildId: string;
}

export function readCommon(env: EnvReader): CommonConfig {
  return {
    dataDir: env.string('DATA_DIR', './data'),
    logLevel: env.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    buildId: env.optional('BUILD_ID') ?? gitSha() ?? 'dev',
  };
}

/** Settings every HTTP app shares: the common ones and where it listens. */
export interface HttpAppConfig extends CommonConfig {
  port: number;
  /** Interface to listen on; 0.0.0.0 in containers. */
  host: string;
}

/**
 * The common settings, `<prefix>PORT` and `<prefix>HOST`: 127.0.0.1 unless told otherwise, so nothing is exposed by
 * default.
 */
export function readHttpAppConfig(env: EnvReader, prefix: string, defaultPort: number): HttpAppConfig {
  return {
    ...readCommon(env),
    port: env.int(`${prefix}PORT`, defaultPort, { min: 0, max: 65535 }),
    host: env.string(`${prefix}HOST`, '127.0.0.1'),
  };
}

/** The checked-out commit, read from .git without spawning git. */
function gitSha(): string | undefined {
  // Lazy requires keep this module free of I/O until a fallback is actually needed.
  const fs = require('node:fs') as typeof import('node:fs');
  const path = require('node:path') as typeof import('node:path');
  let dir = process.cwd();
  for (;;) {
    const head = path.join(dir, '.git', 'HEAD');
    if (fs.existsSync(head)) {
      const ref = fs.readFileSync(head, 'utf8').trim();
      if (!ref.startsWith('ref: ')) return ref.slice(0, 12);
      const refFile = path.join(dir, '.git', ref.slice(5));
      if (fs.existsSync(refFile)) return fs.readFileSync(refFile, 'utf8').trim().slice(0, 12);
      const packed = path.join(dir, '.git', 'packed-refs');
      if (!fs.existsSync(packed)) return undefined;
      const line = fs
        .readFileSync(packed, 'utf8')
        .split('\n')
        .find((l) => l.endsWith(` ${ref.slice(5)}`));
      return line?.slice(0, 12);
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The seller as every page's footer, the terms, the receipts and every mail's footer name it: its name, then its
 * address, e-mail, company number and VAT number where configured (Electronic Commerce Regulations 2002, reg. 6). Read
 * by the edge and by each component that sends mail, from the same variables.
 */

/**
 * Who sells: the name, geographic address, e-mail, company and VAT numbers the pages and receipts give (Electronic
 * Commerce Regulations 2002, reg. 6; a VAT number makes the receipts VAT receipts).
 */
export interface Seller {
  name: string;
  /** One line, its parts separated by commas. */
  address?: string;
  email?: string;
  companyNumber?: string;
  vatNumber?: string;
}

/** A UK VAT number: GB or XI, then 9 or 12 digits, or a government department's or health authority's code. */
const VAT_NUMBER = /^(GB|XI)(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/;
/** A Companies House number: 8 characters, digits or a two-letter prefix (SC, NI, OC, …) and 6 digits. */
const COMPANY_NUMBER = /^([0-9]{2}|[A-Z]{2})[0-9]{6}$/;

/** An optional identifier, its spaces dropped and letters upper-cased, that must match `pattern` when set. */
function identifier(env: EnvReader, name: string, pattern: RegExp, example: string): string | undefined {
  const raw = env.optional(name);
  if (raw === undefined) return undefined;
  const value = raw.replace(/\s+/g, '').toUpperCase();
  if (!pattern.test(value)) throw new ConfigError(`${name} must look like ${example}, got "${raw}"`);
  return value;
}

/** SELLER_NAME (default `defaultName`), SELLER_ADDRESS, SELLER_EMAIL, COMPANY_NUMBER, VAT_NUMBER. */
export function readSeller(env: EnvReader, defaultName: string): Seller {
  return {
    name: env.string('SELLER_NAME', defaultName),
    address: env.optional('SELLER_ADDRESS'),
    email: env.optional('SELLER_EMAIL'),
    companyNumber: identifier(env, 'COMPANY_NUMBER', COMPANY_NUMBER, '01234567 or SC123456'),
    vatNumber: identifier(env, 'VAT_NUMBER', VAT_NUMBER, 'GB123456789'),
  };
}

/** The seller's details after its name, each a label and its value, in the order they are shown. */
export function sellerFacts(seller: Seller): Array<[label: string, value: string]> {
  const facts: Array<[string, string | undefined]> = [
    ['Address', seller.address],
    ['E-mail', seller.email],
    ['Company number', seller.companyNumber],
    ['VAT number', seller.vatNumber],
  ];
  return facts.flatMap(([label, value]) => (value === undefined ? [] : [[label, value] as [string, string]]));
}
