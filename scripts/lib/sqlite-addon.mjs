// Preloaded (--import) into every process of a benchmark run on the images' Node
// (images-node.mjs): better-sqlite3's addon in this checkout is compiled for the machine's Node,
// so its path resolves to the one compiled for the running Node, named by STOREFRONT_SQLITE_ADDON.
import Module from 'node:module';
import path from 'node:path';

const addon = process.env.STOREFRONT_SQLITE_ADDON;
if (addon) {
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function resolveSqliteAddon(request, ...rest) {
    const resolved = resolveFilename.call(this, request, ...rest);
    return resolved.endsWith(`${path.sep}better_sqlite3.node`) ? addon : resolved;
  };
}
