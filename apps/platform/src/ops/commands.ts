/**
 * The platform's ops commands: backup and restore of the embedded default's stores, every component's at once
 * (decision 1270), and a batch's recall list, a workflow across inventory and checkout (decision 1280). On MySQL each
 * database is backed up with the database's tools (docs/operations.md).
 */
import { readCommon, type EnvReader } from '@storefront/config';
import { conflict } from '@storefront/errors';
import type { OpsProgram } from '@storefront/lifecycle';
import { COMPONENTS } from '../config';
import { MIGRATIONS } from '../migrate';
import { restoreBackup, takeBackup, type BackupManifest } from '../backup/archive';
import { batchOrdersCommand } from './batch-orders';

function embeddedDataDir(env: EnvReader): string {
  if (env.optional('MYSQL_URL'))
    throw conflict(
      'not_embedded',
      'MYSQL_URL is set: back the MySQL databases up with mysqldump as docs/operations.md describes',
    );
  return readCommon(env).dataDir;
}

const describe = (manifest: BackupManifest) =>
  manifest.stores
    .map(
      (store) =>
        `${store.service}: ${store.bytes} bytes, ${store.migrations.length} migrations, sha256 ${store.sha256}`,
    )
    .join('\n');

export const platformOps: OpsProgram = {
  app: 'platform',
  commands: [
    {
      name: 'backup',
      args: ['<file.tar.gz>'],
      summary: "copy every component's store into one archive while the shop serves (never overwrites a file)",
      async run({ args: [file], env }) {
        const manifest = await takeBackup(embeddedDataDir(env), COMPONENTS, file!);
        return { text: `backup written to ${file}\n${describe(manifest)}`, data: { file, manifest } };
      },
    },
    {
      name: 'restore',
      args: ['<file.tar.gz>'],
      summary: 'fill an empty DATA_DIR from a backup, once every store in it checks out',
      async run({ args: [file], env }) {
        const dataDir = embeddedDataDir(env);
        const known = Object.fromEntries(COMPONENTS.map((name) => [name, Object.keys(MIGRATIONS[name])]));
        const manifest = await restoreBackup(file!, dataDir, known);
        return {
          text: `restored the backup of ${manifest.createdAt} into ${dataDir}\n${describe(manifest)}`,
          data: { file, dataDir, manifest },
        };
      },
    },
    batchOrdersCommand,
  ],
};
