// The integration tests in the web worker extension host, first window
// (bundled by build.mjs, as the extension is).
import * as vscode from 'vscode';
import { check, extension, chatChecks, stashedBefore } from './suite.js';

/** The keys of IndexedDB database `name`'s object store `store`. */
function indexedDbKeys(name, store) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(name);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const keys = db.transaction(store).objectStore(store).getAllKeys();
      keys.onsuccess = () => { db.close(); resolve(keys.result.map(String)); };
      keys.onerror = () => { db.close(); reject(keys.error); };
    };
  });
}

export async function run() {
  check(typeof WorkerGlobalScope === 'function' && self instanceof WorkerGlobalScope, 'the tests run in the web worker host');
  const api = await extension();
  const md5 = await chatChecks(api);

  // The original is a record of the extension's IndexedDB database.
  const keys = await indexedDbKeys('ctxpack-chat', 'images');
  check(keys.some((key) => key.includes(md5)), `a record of IndexedDB names ${md5}: ${keys}`);

  // In one bundle, `require` and `import` of ctxpack are one module; this
  // bundle is a copy of ctxpack apart from the extension's, which refuses the
  // extension's stash.
  const required = require('ctxpack/web');
  const imported = await import('ctxpack/web');
  check(required.Stash === imported.Stash && required.compactContext === imported.compactContext, 'require and import give the same functions');
  const wasm = vscode.Uri.joinPath(vscode.extensions.getExtension('ctxpack.ctxpack-chat').extensionUri, 'node_modules/ctxpack/dist/wasm');
  await imported.default({ wasm: (file) => vscode.workspace.fs.readFile(vscode.Uri.joinPath(wasm, file)) });
  const refused = await imported.expandContext((await stashedBefore()).messages, { stash: api.stash }).catch((e) => e);
  check(refused?.code === 'STASH_UNAVAILABLE', `another copy's stash is refused: ${refused}`);

  // The codec module, which ctxpack imports on first use, is in the bundle
  // and reads its wasm through the same reader.
  const png = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(vscode.workspace.workspaceFolders[0].uri, 'chart.png'));
  const { data } = await imported.codecResize({ data: png, mime: 'image/png', width: 64, height: 48 }, { width: 32, height: 24, mime: 'image/jpeg', quality: 80 });
  check(data[0] === 0xff && data[1] === 0xd8, 'the codec module made a JPEG');
}
