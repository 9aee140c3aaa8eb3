/**
 * Backups of the embedded default (decisions 1270, 1345): every component's SQLite store copied while the shop serves,
 * all as of one instant (a write barrier of a few milliseconds, then each store's snapshot copied while its service
 * writes on), into one gzip'd tar whose first entry is a manifest naming each file with its size, SHA-256 and the
 * store's applied migrations. Restore reads the whole archive into a staging folder and checks all of it (every store
 * present, every checksum, SQLite's integrity check, no migration this build does not know) before it moves anything
 * into DATA_DIR, and fills only a DATA_DIR that holds no store. The internal keys `npm start` keeps in DATA_DIR travel
 * with the stores when they are there.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { AppError, conflict, invalidArgument } from '@storefront/errors';
import { appliedMigrationNames, copyLiveSqliteStores, sqliteIntegrity, sqliteStoreFile } from '@storefront/db';

export const BACKUP_FORMAT = 'storefront-backup';
export const BACKUP_FORMAT_VERSION = 1;
const MANIFEST = 'manifest.json';
const PRIVATE_FILE_MODE = 0o600;

export interface StoreCopy {
  service: string;
  file: string;
  bytes: number;
  sha256: string;
  /** The store's applied migrations, oldest first: what the code that opens it must know. */
  migrations: string[];
}

/** A file of DATA_DIR besides the stores. */
export interface FileCopy {
  file: string;
  bytes: number;
  sha256: string;
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_FORMAT_VERSION;
  /** The instant every store was copied as of. */
  createdAt: string;
  stores: StoreCopy[];
  /** The internal keys (`platform-keys.json`), when DATA_DIR holds them. */
  files: FileCopy[];
}

/** DATA_DIR's files besides the stores that a restored shop needs: `npm start`'s internal keys. */
const INTERNAL_FILES = ['platform-keys.json'];

const storeFile = (service: string) => path.basename(sqliteStoreFile('.', service));

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/**
 * Writes the archive of `services`' stores under `dataDir` to `archive`: to a `.partial` file first, renamed once
 * complete, so an interrupted backup never leaves a file that looks whole.
 */
export async function takeBackup(
  dataDir: string,
  services: readonly string[],
  archive: string,
  now = () => Date.now(),
): Promise<BackupManifest> {
  for (const service of services) {
    if (!fs.existsSync(sqliteStoreFile(dataDir, service)))
      throw invalidArgument(
        `DATA_DIR ${dataDir} holds no ${service} store (${storeFile(service)}); is it the shop's data directory?`,
        'store_missing',
      );
  }
  if (fs.existsSync(archive)) throw conflict('backup_exists', `${archive} exists already; a backup never overwrites`);
  fs.mkdirSync(path.dirname(path.resolve(archive)), { recursive: true });
  const staging = fs.mkdtempSync(path.join(path.dirname(path.resolve(archive)), '.backup-'));
  try {
    const createdAt = new Date(now()).toISOString();
    await copyLiveSqliteStores(
      services.map((service) => ({
        source: sqliteStoreFile(dataDir, service),
        target: path.join(staging, storeFile(service)),
      })),
    );
    const stores: StoreCopy[] = [];
    for (const service of services) {
      const copy = path.join(staging, storeFile(service));
      stores.push({
        service,
        file: storeFile(service),
        bytes: fs.statSync(copy).size,
        sha256: await sha256Of(copy),
        migrations: appliedMigrationNames(copy),
      });
    }
    const files: FileCopy[] = [];
    for (const file of INTERNAL_FILES.filter((name) => fs.existsSync(path.join(dataDir, name)))) {
      fs.copyFileSync(path.join(dataDir, file), path.join(staging, file));
      const copy = path.join(staging, file);
      files.push({ file, bytes: fs.statSync(copy).size, sha256: await sha256Of(copy) });
    }
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_FORMAT_VERSION,
      createdAt,
      stores,
      files,
    };
    const partial = `${archive}.partial`;
    const pack = tar.pack();
    const written = pipeline(pack, zlib.createGzip(), fs.createWriteStream(partial, { mode: PRIVATE_FILE_MODE }));
    pack.entry({ name: MANIFEST, mode: PRIVATE_FILE_MODE }, JSON.stringify(manifest, null, 2));
    for (const copy of [...stores, ...files]) {
      await new Promise<void>((resolve, reject) => {
        const entry = pack.entry({ name: copy.file, size: copy.bytes, mode: PRIVATE_FILE_MODE }, (error) =>
          error ? reject(error) : resolve(),
        );
        fs.createReadStream(path.join(staging, copy.file)).on('error', reject).pipe(entry);
      });
    }
    pack.finalize();
    await written;
    const handle = fs.openSync(partial, 'r');
    fs.fsyncSync(handle);
    fs.closeSync(handle);
    fs.renameSync(partial, archive);
    return manifest;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

const damaged = (detail: string) => invalidArgument(`the backup is damaged or incomplete: ${detail}`, 'backup_damaged');

/** Reads every entry of the archive into `staging`, refusing names that are not a manifest or a known store. */
async function unpack(archive: string, staging: string, services: readonly string[]): Promise<string[]> {
  const allowed = new Set([MANIFEST, ...services.map(storeFile), ...INTERNAL_FILES]);
  const names: string[] = [];
  const extract = tar.extract();
  // Settles with the feed's fault, if any: read once the entries are, or after the first fault found in them.
  const feeding = pipeline(fs.createReadStream(archive), zlib.createGunzip(), extract).then(
    () => undefined,
    (error: Error) => error,
  );
  try {
    for await (const entry of extract) {
      const { name, type } = entry.header;
      if (type !== 'file' || !allowed.has(name) || names.includes(name)) throw damaged(`unexpected entry "${name}"`);
      names.push(name);
      await pipeline(entry, fs.createWriteStream(path.join(staging, name), { mode: PRIVATE_FILE_MODE }));
    }
    const fault = await feeding;
    if (fault) throw fault;
  } catch (error) {
    // Reading stops at the first fault; the feed then ends with it or with a premature close, which says no more.
    await feeding;
    if (error instanceof AppError) throw error;
    throw damaged((error as Error).message);
  }
  return names;
}

function readManifest(staging: string, names: string[]): BackupManifest {
  if (!names.includes(MANIFEST)) throw damaged(`it has no ${MANIFEST}`);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(staging, MANIFEST), 'utf8')) as BackupManifest;
  } catch {
    throw damaged(`${MANIFEST} is not JSON`);
  }
  if (
    manifest?.format !== BACKUP_FORMAT ||
    manifest.version !== BACKUP_FORMAT_VERSION ||
    !Array.isArray(manifest.stores)
  )
    throw damaged(`${MANIFEST} is not a version ${BACKUP_FORMAT_VERSION} ${BACKUP_FORMAT} manifest`);
  return manifest;
}

async function checkCopy(staging: string, copy: FileCopy, name: string): Promise<void> {
  const file = path.join(staging, copy.file);
  if (!fs.existsSync(file)) throw damaged(`${name} is listed but missing`);
  if (fs.statSync(file).size !== copy.bytes || (await sha256Of(file)) !== copy.sha256)
    throw damaged(`${name} does not match its checksum`);
}

async function checkStore(staging: string, store: StoreCopy, known: readonly string[]): Promise<void> {
  await checkCopy(staging, store, `the ${store.service} store`);
  const file = path.join(staging, store.file);
  const integrity = sqliteIntegrity(file);
  if (integrity !== 'ok') throw damaged(`the ${store.service} store fails SQLite's integrity check: ${integrity}`);
  const unknown = store.migrations.filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new AppError(
      'unprocessable',
      'backup_newer_than_code',
      `the ${store.service} store has migrations this version does not know (${unknown.join(', ')}); ` +
        'restore it with the version that took the backup or a later one',
    );
}

/**
 * Fills an empty `dataDir` from `archive` once every check passed; `knownMigrations` is each service's migration
 * names in this build. Start-up then migrates the restored stores forward as usual.
 */
export async function restoreBackup(
  archive: string,
  dataDir: string,
  knownMigrations: Readonly<Record<string, readonly string[]>>,
): Promise<BackupManifest> {
  const services = Object.keys(knownMigrations);
  if (!fs.existsSync(archive)) throw invalidArgument(`there is no backup at ${archive}`, 'backup_missing');
  const occupied = [...services.map(storeFile), ...INTERNAL_FILES].filter((file) =>
    fs.existsSync(path.join(dataDir, file)),
  );
  if (occupied.length > 0)
    throw conflict(
      'data_dir_not_empty',
      `DATA_DIR ${dataDir} already holds ${occupied.join(', ')}; restore fills an empty DATA_DIR only`,
    );
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const staging = fs.mkdtempSync(path.join(dataDir, '.restore-'));
  try {
    const names = await unpack(archive, staging, services);
    const manifest = readManifest(staging, names);
    const listed = manifest.stores.map((store) => store.service);
    const missing = services.filter((service) => !listed.includes(service));
    if (missing.length > 0) throw damaged(`it holds no ${missing.join(', ')} store`);
    for (const store of manifest.stores) {
      if (!services.includes(store.service) || store.file !== storeFile(store.service))
        throw damaged(`${MANIFEST} lists an unknown store "${store.service}"`);
      await checkStore(staging, store, knownMigrations[store.service]!);
    }
    for (const copy of manifest.files) {
      if (!INTERNAL_FILES.includes(copy.file)) throw damaged(`${MANIFEST} lists an unknown file "${copy.file}"`);
      await checkCopy(staging, copy, copy.file);
    }
    const unlisted = names.filter(
      (name) => name !== MANIFEST && ![...manifest.stores, ...manifest.files].some((copy) => copy.file === name),
    );
    if (unlisted.length > 0) throw damaged(`${unlisted.join(', ')} not listed in ${MANIFEST}`);
    for (const copy of [...manifest.stores, ...manifest.files])
      fs.renameSync(path.join(staging, copy.file), path.join(dataDir, copy.file));
    return manifest;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
