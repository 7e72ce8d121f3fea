// A StashAdapter on the file system, for Node hosts such as a VSCode desktop
// extension (keep it under `context.globalStorageUri.fsPath`). One JSON file
// per key, written to a temporary file and renamed into place, so a record is
// either whole or absent.
'use strict';

const fs = require('node:fs/promises');
const path = require('node:path');

/** Keys are md5 ids and `<md5>.meta`; anything else is refused (no path escapes). */
const KEY = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}(\.meta)?$/;

function keyError(key) {
  const e = new Error(`invalid stash key ${JSON.stringify(String(key)).slice(0, 80)}`);
  e.name = 'DataError';
  return e;
}

function mapFsError(e) {
  if (e && (e.code === 'ENOSPC' || e.code === 'EDQUOT')) {
    const q = new Error(`disk full: ${e.message}`);
    q.name = 'QuotaExceededError';
    q.cause = e;
    return q;
  }
  return e;
}

/**
 * A stash adapter keeping each record as a file in `dir` (created on first write).
 * @param {string} dir
 */
function fileStash(dir) {
  if (typeof dir !== 'string' || dir.length === 0) throw new TypeError('fileStash(dir): dir must be a non-empty string');
  const root = path.resolve(dir);
  const file = (key) => {
    if (typeof key !== 'string' || !KEY.test(key)) throw keyError(key);
    return path.join(root, `${key}.json`);
  };
  return {
    async get(key) {
      try {
        return JSON.parse(await fs.readFile(file(key), 'utf8'));
      } catch (e) {
        if (e && (e.code === 'ENOENT' || e instanceof SyntaxError)) return undefined;
        throw e;
      }
    },
    async put(key, value) {
      const target = file(key);
      const tmp = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      try {
        await fs.mkdir(root, { recursive: true });
        await fs.writeFile(tmp, JSON.stringify(value));
        await fs.rename(tmp, target);
      } catch (e) {
        await fs.rm(tmp, { force: true }).catch(() => {});
        throw mapFsError(e);
      }
    },
    async delete(key) {
      await fs.rm(file(key), { force: true });
    },
    async keys() {
      try {
        return (await fs.readdir(root))
          .filter((n) => n.endsWith('.json'))
          .map((n) => n.slice(0, -5))
          .filter((k) => KEY.test(k));
      } catch (e) {
        if (e && e.code === 'ENOENT') return [];
        throw e;
      }
    },
  };
}

module.exports = { fileStash };
