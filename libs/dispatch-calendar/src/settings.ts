/**
 * The calendar a process works with, read once at start: the cut-off from DISPATCH_CUTOFF and the bank holidays from
 * BANK_HOLIDAYS_FILE (a GOV.UK `bank-holidays.json`) or, unset, the copy shipped with the shop. The owner replaces the
 * file with `replaceBankHolidays` (from a downloaded file, or from GOV.UK's URL), which checks the new one first so a
 * bad file never replaces a good one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, type EnvReader } from '@storefront/config';
import {
  SHIPPED_BANK_HOLIDAYS,
  holidaysKnownUntil,
  parseCutoff,
  readBankHolidays,
  type DispatchCalendar,
} from './calendar';

export const DEFAULT_CUTOFF = '14:00';

/** The shipped file's place in the repository, where the owner's update lands when BANK_HOLIDAYS_FILE is unset. */
export const REPOSITORY_BANK_HOLIDAYS_FILE = 'libs/dispatch-calendar/data/bank-holidays.json';

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** The bank holidays of a GOV.UK `bank-holidays.json` document's text; throws an Error naming `source`. */
function holidaysOf(text: string, source: string): string[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source} is not JSON: ${(error as Error).message}`);
  }
  try {
    return readBankHolidays(document);
  } catch (error) {
    throw new Error(`${source}: ${(error as Error).message}`);
  }
}

/** The bank holidays of a GOV.UK `bank-holidays.json` file; throws an Error naming the file and what is wrong. */
export function readBankHolidaysFile(file: string): string[] {
  return holidaysOf(readText(file), file);
}

export function readDispatchCalendar(env: EnvReader): DispatchCalendar {
  const cutoff = env.string('DISPATCH_CUTOFF', DEFAULT_CUTOFF);
  const cutoffMinutes = parseCutoff(cutoff);
  if (cutoffMinutes === undefined)
    throw new ConfigError(`DISPATCH_CUTOFF must be a 24-hour London time such as 14:00, got "${cutoff}"`);
  const file = env.optional('BANK_HOLIDAYS_FILE');
  let holidays: readonly string[] = SHIPPED_BANK_HOLIDAYS;
  if (file !== undefined) {
    try {
      holidays = readBankHolidaysFile(file);
    } catch (error) {
      throw new ConfigError(`BANK_HOLIDAYS_FILE: ${(error as Error).message}`);
    }
  }
  return { holidays: new Set(holidays), cutoffMinutes };
}

export interface BankHolidaysUpdate {
  file: string;
  holidays: number;
  knownUntil: number;
}

/**
 * Checks a GOV.UK document's text (`source` names where it came from) and, only when it is good, puts it in place of
 * `target` in one rename (a reader never sees half a file). Throws, leaving `target` as it was, otherwise.
 */
export function replaceBankHolidays(text: string, source: string, target: string): BankHolidaysUpdate {
  const holidays = holidaysOf(text, source);
  const staging = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`);
  fs.writeFileSync(staging, text);
  fs.renameSync(staging, target);
  return { file: target, holidays: holidays.length, knownUntil: holidaysKnownUntil(holidays) };
}

/** `replaceBankHolidays` with the owner's downloaded file. */
export const replaceBankHolidaysFile = (source: string, target: string): BankHolidaysUpdate =>
  replaceBankHolidays(readText(source), source, target);

/** Where GOV.UK publishes the file. */
export const GOV_UK_BANK_HOLIDAYS_URL = 'https://www.gov.uk/bank-holidays.json';

/** GOV.UK's file is some 20 KB; an answer beyond this is not the file. */
const DOWNLOAD_MAX_BYTES = 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 15_000;
/** Plain http is taken only from this machine (a copy served locally); anything else must be https. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether the owner named a URL rather than a file. */
export const isUrl = (source: string): boolean => /^https?:\/\//i.test(source);

/**
 * The owner's URL when the file may be fetched from it (https, or http on this machine);
 * throws an Error saying why not.
 */
export function bankHolidaysUrl(url: string): URL {
  const parsed = URL.parse(url);
  if (!parsed) throw new Error(`${url} is not a URL`);
  if (parsed.protocol !== 'https:' && !LOOPBACK_HOSTS.has(parsed.hostname))
    throw new Error(`${url}: only an https URL is fetched`);
  return parsed;
}

/** The text at a checked URL; throws an Error naming the URL and what went wrong. */
export async function downloadBankHolidays(parsed: URL, timeoutMs = DOWNLOAD_TIMEOUT_MS): Promise<string> {
  const url = parsed.href;
  let response: Response;
  try {
    response = await fetch(parsed, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    throw new Error(`cannot fetch ${url}: ${cause}`);
  }
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  if (Number(response.headers.get('content-length') ?? 0) > DOWNLOAD_MAX_BYTES) {
    await response.body?.cancel();
    throw new Error(`${url} answers more than a bank-holidays file (${DOWNLOAD_MAX_BYTES} bytes)`);
  }
  const body = Buffer.from(await response.arrayBuffer());
  if (body.length > DOWNLOAD_MAX_BYTES)
    throw new Error(`${url} answers more than a bank-holidays file (${DOWNLOAD_MAX_BYTES} bytes)`);
  return body.toString('utf8');
}
