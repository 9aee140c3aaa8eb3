/**
 * The calendar a process works with, read once at start: the cut-off from DISPATCH_CUTOFF and the bank holidays from
 * BANK_HOLIDAYS_FILE (a GOV.UK `bank-holidays.json`) or, unset, the copy shipped with the shop. The owner replaces the
 * file with `replaceBankHolidaysFile`, which checks the new one first so a bad file never replaces a good one.
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

/** The bank holidays of a GOV.UK `bank-holidays.json` file; throws an Error naming the file and what is wrong. */
export function readBankHolidaysFile(file: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`);
  }
  try {
    return readBankHolidays(document);
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
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
 * Checks `source` and, only when it is a good GOV.UK file, puts it in place of `target` in one rename (a reader never
 * sees half a file). Throws, leaving `target` as it was, otherwise.
 */
export function replaceBankHolidaysFile(source: string, target: string): BankHolidaysUpdate {
  const holidays = readBankHolidaysFile(source);
  const staging = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`);
  fs.copyFileSync(source, staging);
  fs.renameSync(staging, target);
  return { file: target, holidays: holidays.length, knownUntil: holidaysKnownUntil(holidays) };
}
