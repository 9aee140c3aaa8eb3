/**
 * Automatic backups of the embedded default (decision 1270): with BACKUP_DIR set, the process that hosts the edge
 * takes one every BACKUP_INTERVAL_MINUTES into BACKUP_DIR and keeps the newest BACKUP_KEEP. The embedded default runs
 * one such process, so there is one schedule; on MySQL the database's own tools back up (docs/operations.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, type EnvReader } from '@storefront/config';
import type { Logger } from '@storefront/logging';
import { takeBackup } from './archive';

export interface BackupSchedule {
  dir: string;
  intervalMs: number;
  keep: number;
}

const NAME = /^storefront-backup-(\d{8}T\d{6}Z)\.tar\.gz$/;
const MINUTE_MS = 60_000;

export function readBackupSchedule(env: EnvReader): BackupSchedule | undefined {
  const dir = env.optional('BACKUP_DIR');
  if (!dir) return undefined;
  if (env.optional('MYSQL_URL'))
    throw new ConfigError(
      'BACKUP_DIR backs up the embedded SQLite stores; on MySQL back up with the database tools (docs/operations.md)',
    );
  return {
    dir,
    intervalMs: env.int('BACKUP_INTERVAL_MINUTES', 60, { min: 5, max: 7 * 24 * 60 }) * MINUTE_MS,
    keep: env.int('BACKUP_KEEP', 7, { min: 1, max: 1000 }),
  };
}

/** The archive's name for a moment: sortable, so the newest names sort last. */
export const scheduledBackupName = (at: number) =>
  `storefront-backup-${new Date(at)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '')}.tar.gz`;

/** Takes one backup into the schedule's folder and removes scheduled backups beyond the newest `keep`. */
export async function takeScheduledBackup(
  schedule: BackupSchedule,
  dataDir: string,
  services: readonly string[],
  now = () => Date.now(),
): Promise<{ archive: string; removed: string[] }> {
  const archive = path.join(schedule.dir, scheduledBackupName(now()));
  await takeBackup(dataDir, services, archive, now);
  const scheduled = fs
    .readdirSync(schedule.dir)
    .filter((name) => NAME.test(name))
    .sort();
  const removed = scheduled.slice(0, Math.max(0, scheduled.length - schedule.keep));
  for (const name of removed) fs.rmSync(path.join(schedule.dir, name));
  return { archive, removed };
}

/** Runs the schedule until stopped; a backup still running when the next is due is not doubled. */
export function startBackupSchedule(
  schedule: BackupSchedule,
  dataDir: string,
  services: readonly string[],
  logger: Logger,
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = takeScheduledBackup(schedule, dataDir, services)
      .then(
        ({ archive, removed }) => logger.info({ archive, removed }, 'backup taken'),
        (error: unknown) => logger.error({ err: error }, 'scheduled backup failed'),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, schedule.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
