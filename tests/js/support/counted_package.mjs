// A copy of the Node package whose wasm-bindgen glue counts every string it
// copies into wasm memory (`passStringToWasm0`: the generic copy every
// `as_string()` goes through) besides the library's own `encodeInto`
// copies, and every array of bytes it copies in: text read again cannot
// hide in any. Its adapters
// (`countedAdapter`) call the copy. Load it before any other copy of the
// package in the process (the counter patches TextEncoder).
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '../../..');
const require = createRequire(import.meta.url);

/** The counted copy's folder, once made. */
let copyDir = null;

/** The counted copy's exports (the Node entry, as `require` gives it). */
export function countedPackage() {
  copyDir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-copies-'));
  cpSync(path.join(root, 'dist'), path.join(copyDir, 'dist'), { recursive: true });
  // The package's own manifest and the project's packages: the copy's
  // adapters import `ctxpack` (the copy itself, by its name) and their SDKs.
  cpSync(path.join(root, 'package.json'), path.join(copyDir, 'package.json'));
  symlinkSync(path.join(root, 'node_modules'), path.join(copyDir, 'node_modules'), 'dir');
  // Both modules' glue: the main module's, and the full module's
  // (compactRequestBody, fitContext, repairContext).
  for (const file of ['dist/node/ctxpack.js', 'dist/node/full/ctxpack_full.js']) {
    const glue = path.join(copyDir, file);
    const source = readFileSync(glue, 'utf8');
    const head = 'function passStringToWasm0(arg, malloc, realloc) {';
    assert.ok(source.includes(head), `${file} copies strings with passStringToWasm0`);
    // Bytes copied in (`Uint8Array::to_vec`, a request body's bytes) count
    // one each, as the units of a string do.
    const byteCopy = 'Uint8Array.prototype.set.call(getArrayU8FromWasm0(arg0, arg1), arg2);';
    if (file.includes('full')) assert.ok(source.includes(byteCopy), `${file} copies bytes in with Uint8Array.prototype.set`);
    writeFileSync(glue, source
      .replace(head, `${head}\n    globalThis.__ctxpackCopied = (globalThis.__ctxpackCopied ?? 0) + arg.length;`)
      .replace(byteCopy, `globalThis.__ctxpackCopied = (globalThis.__ctxpackCopied ?? 0) + arg2.length;\n            ${byteCopy}`));
  }
  const realEncodeInto = TextEncoder.prototype.encodeInto;
  TextEncoder.prototype.encodeInto = function (text, into) {
    const done = realEncodeInto.call(this, text, into);
    // What was read (a copy into a buffer too small stops short).
    if (!new Error().stack.includes('passStringToWasm0')) globalThis.__ctxpackCopied = (globalThis.__ctxpackCopied ?? 0) + done.read;
    return done;
  };
  return require(path.join(copyDir, 'dist/node/index.js'));
}

/** What `fn` resolves to, and the UTF-16 units and bytes copied into wasm memory meanwhile. */
export async function copiedBy(fn) {
  const before = globalThis.__ctxpackCopied ?? 0;
  const value = await fn();
  return { value, copied: (globalThis.__ctxpackCopied ?? 0) - before };
}

/** An adapter of the counted copy (`'ai-sdk'`, `'langchain'`), calling the copy's entry. */
export function countedAdapter(name) {
  assert.ok(copyDir, 'countedPackage() makes the copy first');
  return import(pathToFileURL(path.join(copyDir, `dist/adapters/${name}.mjs`)).href);
}
