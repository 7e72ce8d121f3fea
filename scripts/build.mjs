// Builds the npm package's three flavours from one release compile of each
// wasm module — the main one (crate `ctxpack`) and the extras one (crate
// `ctxpack-extras`: the CommonMark parser and the functions a page's first
// compaction does not need, kept out of the main module):
//   dist/web      ES module for browsers and workers (explicit `await init()`,
//                 which instantiates both modules in parallel)
//   dist/bundler  ES module importing both .wasm files (Vite, webpack)
//   dist/node     CommonJS for `require` (the extras module is loaded on
//                 first use), with an ES module wrapper for `import`
// Each flavour's entry is `index.js` (from js/entry/), over wasm-bindgen's
// `ctxpack.js` and `extras/ctxpack_extras.js`, feeding them to `api.js`
// (the functions every flavour binds the same way).
//   dist/wasm     the .wasm files, once for all three flavours (with the
//                 bundler glue they import)
// Each .wasm is shrunk with Binaryen's wasm-opt -Oz (the npm `binaryen` package).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { sourceKey } from './source-key.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
// Tools' standard output goes to our standard error: `npm pack --json` runs
// this script (prepack) and its own standard output must stay JSON.
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: ['ignore', 2, 'inherit'] });
const quiet = process.argv.includes('--quiet');
const log = (...a) => { if (!quiet) console.error('[build]', ...a); };
const fail = (msg) => {
  console.error(`[build] ${msg}`);
  process.exit(1);
};

/** Compiles the wasm crate `pkg` (whose library target is `name`) and returns
 * the path of its .wasm, as cargo reports it: the target directory may be
 * anywhere (`CARGO_TARGET_DIR`, a workspace's target, `build.target-dir` in a
 * cargo config). Each crate is built on its own, so the main module's
 * features are its own (no CommonMark parser in it). */
/**
 * The flags every module is compiled with: the caller's (CARGO_ENCODED_RUSTFLAGS,
 * else RUSTFLAGS), `more`, and the crates.io sources' directory mapped away.
 * rustc writes each panic location's file path into the module; mapped to
 * its path under the registry, a module is the same wherever Cargo keeps
 * its sources, and names no directory of the machine that built it.
 */
function rustflags(...more) {
  const given = process.env.CARGO_ENCODED_RUSTFLAGS !== undefined
    ? process.env.CARGO_ENCODED_RUSTFLAGS.split('\x1f')
    : (process.env.RUSTFLAGS ?? '').split(/\s+/);
  const sources = path.join(process.env.CARGO_HOME || path.join(os.homedir(), '.cargo'), 'registry', 'src');
  return [...given, ...more, `--remap-path-prefix=${sources}${path.sep}=`].filter(Boolean).join('\x1f');
}

function compile(pkg, name, { extra = [], profile, env = { ...process.env, CARGO_ENCODED_RUSTFLAGS: rustflags() } } = {}) {
  const args = ['build', ...(profile ? ['--profile', profile] : ['--release']), '--lib', '-p', pkg, '--target', 'wasm32-unknown-unknown',
    '--message-format=json-render-diagnostics', ...(quiet ? ['--quiet'] : []), ...extra];
  const r = spawnSync('cargo', args, { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28 });
  if (r.error) fail(`could not run cargo: ${r.error.message}`);
  if (r.status !== 0) fail(`cargo build failed (${r.signal ?? `exit ${r.status}`})`);
  const wasm = [];
  for (const line of r.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const msg = JSON.parse(line);
    if (msg.reason === 'compiler-artifact' && msg.target?.name === name) {
      wasm.push(...msg.filenames.filter((f) => f.endsWith('.wasm')));
    }
  }
  if (wasm.length !== 1) fail(`expected one ${name} .wasm from cargo, got ${wasm.length ? wasm.join(', ') : 'none'}`);
  return wasm[0];
}

// Binaryen from npm (version 132): Debian's wasm-opt 108 breaks the
// externref table that wasm-bindgen emits for rustc's reference-types output.
// WASM_OPT names another wasm-opt to use instead.
const wasmOpt = process.env.WASM_OPT || path.join(root, 'node_modules/.bin/wasm-opt');
if (!existsSync(wasmOpt)) {
  fail(`wasm-opt not found at ${wasmOpt}: run \`npm ci\` (it comes from the npm \`binaryen\` package) or set WASM_OPT`);
}

// The cargo target directory (wherever cargo puts it), for the modules
// already compiled and optimized.
const metadata = JSON.parse(execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 }));

/** Optimized modules already made, by what went in: the module's bytes (by their sha256),
 * wasm-opt's flags, its path and its version. A build whose module
 * came out of rustc and wasm-bindgen the same (a rebuild with no change, or
 * a clone whose target folder holds a copy of this one) takes the result
 * from here instead of running wasm-opt again. The path is wasm-opt's real
 * one: through a linked node_modules (as the pack test's clone has it) it is
 * the same program. The newest CACHE_KEEP stay. */
const optCache = path.join(metadata.target_directory, 'wasm-opt-cache');
const CACHE_KEEP = 12;
const wasmOptVersion = (() => {
  const r = spawnSync(wasmOpt, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : `unknown (${r.status ?? r.signal})`;
})();
const cacheKey = (digest, flags) => createHash('sha256')
  .update(digest).update('\0').update(flags.join(' ')).update('\0').update(realpathSync(wasmOpt)).update('\0').update(wasmOptVersion)
  .digest('hex');
function keepOptimized(key, file) {
  mkdirSync(optCache, { recursive: true });
  copyFileSync(file, path.join(optCache, `${key}.wasm.tmp`));
  renameSync(path.join(optCache, `${key}.wasm.tmp`), path.join(optCache, `${key}.wasm`));
  const entries = readdirSync(optCache).filter((f) => f.endsWith('.wasm'))
    .map((f) => ({ f, t: statSync(path.join(optCache, f)).mtimeMs })).sort((a, b) => b.t - a.t);
  for (const { f } of entries.slice(CACHE_KEEP)) rmSync(path.join(optCache, f), { force: true });
}

const flavours = [
  ['web', 'web'],
  ['bundler', 'bundler'],
  ['node', 'nodejs'],
];

/** Runs `cmd` with `args` in a child process of its own; resolves to its
 * exit status (or the signal that ended it). */
function runAsync(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', (e) => resolve(e.message));
    child.on('close', (code, signal) => resolve(signal ?? (code === 0 ? 0 : `exit ${code}`)));
  });
}

/** wasm-opt at `level` on `file` (whose sha256 is `digest`), in place. Binaryen's npm build runs under
 * Node and has been seen to crash (SIGSEGV) now and then: retry, and if it
 * keeps failing stop the build, so that an unoptimized module is never
 * shipped. Modules are optimized side by side (wasm-opt runs mostly on one
 * core): once one has failed for good, the others stop trying. */
let optimizeFailed = false;
async function optimize(file, level, digest) {
  // --converge repeats the passes while they still shrink the module; the
  // producers and target-features sections are notes for linkers, read by
  // nothing once the module is final. --low-memory-unused lets constant
  // offsets fold into loads and stores: rustc's wasm layout puts the stack
  // first, growing down from 1 MB, so the lowest kilobyte is only reached by
  // a stack already overflowing (2 KB less gzipped for the main module).
  const flags = [level, ...(level === '-Oz' ? ['--converge'] : []), '--low-memory-unused', '--strip-producers', '--strip-target-features',
    '--enable-bulk-memory', '--enable-sign-ext', '--enable-nontrapping-float-to-int',
    '--enable-mutable-globals', '--enable-reference-types', '--enable-multivalue', '--enable-simd'];
  const args = [...flags, file, '-o', `${file}.opt`];
  // Keyed by the flags, not the files' paths: a clone elsewhere finds it.
  const key = cacheKey(digest, flags);
  const cached = path.join(optCache, `${key}.wasm`);
  if (existsSync(cached)) {
    copyFileSync(cached, file);
    log(`${path.relative(root, file)}: optimized before, taken from ${path.relative(root, cached)}`);
    return;
  }
  const attempts = 3;
  for (let attempt = 1; attempt <= attempts && !optimizeFailed; attempt++) {
    const status = await runAsync(wasmOpt, args);
    if (optimizeFailed) break;
    if (status === 0) {
      renameSync(`${file}.opt`, file);
      keepOptimized(key, file);
      return;
    }
    console.error(`[build] wasm-opt failed on ${path.relative(root, file)} (attempt ${attempt} of ${attempts}): ${status}`);
  }
  if (optimizeFailed) return;
  optimizeFailed = true;
  // Leave no half-built package behind for `npm pack` or the tests to pick up.
  rmSync(dist, { recursive: true, force: true });
  fail(`wasm-opt failed ${attempts} times on ${path.relative(root, file)}; no package was built`);
}

/**
 * Writes module `wasm` (crate library `name`) for every flavour with
 * wasm-bindgen, into `dist/<flavour>/<sub>`, and starts its optimization at
 * `level`. wasm-bindgen writes the same `.wasm` for every flavour (only the
 * JavaScript glue differs): it is checked to be so, optimized once (the
 * bundler's copy) and copied to the other flavours. Resolves when done.
 */
function bindAndOptimize(wasmFile, name, sub, level) {
  const files = flavours.map(([dir, target]) => {
    const out = path.join(dist, dir, sub);
    mkdirSync(out, { recursive: true });
    run('wasm-bindgen', [wasmFile, '--target', target, '--out-dir', out, '--out-name', name]);
    return path.join(out, `${name}_bg.wasm`);
  });
  const [first, ...others] = files.map((f) => createHash('sha256').update(readFileSync(f)).digest('hex'));
  if (others.some((h) => h !== first)) fail(`wasm-bindgen wrote different ${name}_bg.wasm files for the flavours`);
  const bundler = files[flavours.findIndex(([dir]) => dir === 'bundler')];
  return optimize(bundler, level, first).then(() => {
    for (const f of files) if (f !== bundler) copyFileSync(bundler, f);
  });
}

/** The modules cargo compiled, by what they were compiled from
 * (scripts/source-key.mjs): a build of the same sources with the same tools
 * and settings takes them from here instead of compiling again. The newest
 * COMPILED_KEEP stay. */
const compiledCache = path.join(metadata.target_directory, 'compiled-cache');
const COMPILED_KEEP = 4;
const modules = [
  { pkg: 'ctxpack', name: 'ctxpack', sub: '', level: '-Oz' },
  // The CommonMark parser and what a page's first compaction does not need, as a module of its own (see js/entry/).
  { pkg: 'ctxpack-extras', name: 'ctxpack_extras', sub: 'extras', level: '-Oz' },
  // The main module with fitContext, repairContext and compactRequestBody
  // (its crate's `full` feature), loaded the first time one is called. It
  // is about speed (a server compacts every request through it) and not in
  // the main module's budget: compiled with opt-level 3 (the
  // `release-full` profile), optimized with -O3. A third faster on a
  // re-sent long chat than -Oz, and 401 KB gzipped instead of 276 KB.
  { pkg: 'ctxpack-full', name: 'ctxpack_full', sub: 'full', level: '-O3', profile: 'release-full' },
  // The image codec, as a module of its own, loaded on first use. It is built
  // with WebAssembly SIMD (the resizer's convolutions run about a quarter
  // faster; every engine since 2021 has it), in the same target directory as
  // the others: cargo (since 1.85) names what it compiles with other flags
  // apart and keeps both, so the other modules are not rebuilt after it, and
  // the build scripts and proc macros (the host's, which the flags do not
  // reach) are compiled once for all three modules instead of again for the
  // codec. It is compiled while the other two are optimized. The codec is
  // about speed: -O3, not -Oz.
  { pkg: 'ctxpack-codec', name: 'ctxpack_codec', sub: 'codec', level: '-O3', simd: true },
];
const key = sourceKey(root);
const kept = key && path.join(compiledCache, key);
const reuse = kept && modules.every(({ name }) => existsSync(path.join(kept, `${name}.wasm`)));

rmSync(dist, { recursive: true, force: true });
const optimizing = [];
const compiled = [];
if (reuse) {
  // Used now: the newest entries are the ones kept.
  const now = new Date();
  utimesSync(kept, now, now);
  log(`the modules of these sources (${key.slice(0, 12)}) are taken from ${path.relative(root, kept) || kept}, as compiled before`);
}
for (const { pkg, name, sub, level, simd, profile } of modules) {
  let wasm;
  if (reuse) {
    wasm = path.join(kept, `${name}.wasm`);
  } else if (simd) {
    wasm = compile(pkg, name, { env: { ...process.env, CARGO_ENCODED_RUSTFLAGS: rustflags('-Ctarget-feature=+simd128') } });
    log(`compiled ${wasm}`);
  } else {
    wasm = compile(pkg, name, { profile });
    log(`compiled ${wasm}`);
  }
  compiled.push([name, wasm]);
  optimizing.push(bindAndOptimize(wasm, name, sub, level));
}
// Kept only if the sources did not change while cargo compiled them.
if (key && !reuse && sourceKey(root) === key) {
  // Written whole under another name, then renamed: a build stopped halfway
  // leaves no entry that looks complete.
  const partial = `${kept}.${process.pid}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  for (const [name, wasm] of compiled) copyFileSync(wasm, path.join(partial, `${name}.wasm`));
  rmSync(kept, { recursive: true, force: true });
  renameSync(partial, kept);
  const entries = readdirSync(compiledCache).filter((f) => /^[0-9a-f]{64}$/.test(f))
    .map((f) => ({ f, t: statSync(path.join(compiledCache, f)).mtimeMs })).sort((a, b) => b.t - a.t);
  for (const { f } of entries.slice(COMPILED_KEEP)) rmSync(path.join(compiledCache, f), { recursive: true, force: true });
}
await Promise.all(optimizing);

const entryFiles = {
  web: [['web.js', 'index.js'], ['web.d.ts', 'index.d.ts'], ['canvas-resize.js', 'canvas-resize.js']],
  bundler: [['bundler.js', 'index.js'], ['bundler.d.ts', 'index.d.ts'], ['canvas-resize.js', 'canvas-resize.js']],
  node: [['node.js', 'index.js']],
};

/** The files every entry binds over the modules: js/entry/api.js and the
 * concepts it imports from js/entry/api/, as paths under js/entry. */
const apiFiles = ['api.js', ...readdirSync(path.join(root, 'js/entry/api')).filter((f) => f.endsWith('.js')).sort().map((f) => `api/${f}`)];

/** js/entry/`file` as CommonJS for dist/node: each of its imports is one
 * `import { … } from './….js';` line, which becomes a `require`, and its
 * one `export { … };` line becomes `module.exports = { … };`. */
function apiAsCommonJs(file) {
  const source = readFileSync(path.join(root, 'js/entry', file), 'utf8');
  const importLine = /^import \{([^}]*)\} from '(\.\/[^']+\.js)';$/gm;
  const exportLine = /^export \{([^}]*)\};$/m;
  const imports = source.match(/^import\b.*$/gm) ?? [];
  if (imports.some((l) => !new RegExp(importLine.source).test(l)) || (source.match(/^export\b/gm) ?? []).length !== 1 || !exportLine.test(source)) {
    fail(`js/entry/${file} must import only with \`import { … } from './….js';\` lines and export with one \`export { … };\` line`);
  }
  return `'use strict';\n${source.replace(importLine, "const {$1} = require('$2');").replace(exportLine, 'module.exports = {$1};')}`;
}

const nodeApi = apiFiles.map((f) => [f, apiAsCommonJs(f)]);

// The entry apps import: the main module's exports, with the functions of
// the extras module joined to it (js/entry/<flavour>.*).
for (const [dir] of flavours) {
  mkdirSync(path.join(dist, dir, 'api'), { recursive: true });
  for (const [from, to] of entryFiles[dir]) copyFileSync(path.join(root, 'js/entry', from), path.join(dist, dir, to));
  if (dir !== 'node') for (const f of apiFiles) copyFileSync(path.join(root, 'js/entry', f), path.join(dist, dir, f));
}
for (const [f, text] of nodeApi) writeFileSync(path.join(dist, 'node', f), text);

/** Replaces each `from` with its `to` in `file`; a `from` not found stops
 * the build (wasm-bindgen changed how its glue names the module). */
function rewrite(file, pairs) {
  let text = readFileSync(file, 'utf8');
  for (const [from, to] of pairs) {
    if (!text.includes(from)) fail(`${path.relative(root, file)} no longer holds ${from}`);
    text = text.replaceAll(from, to);
  }
  writeFileSync(file, text);
}

// Each module ships once, in dist/wasm: the three flavours' .wasm files are
// the same bytes, only the glue differs. dist/wasm holds each module beside
// the bundler glue half it imports (the module's import section names
// "./<name>_bg.js", which a bundler resolves next to the .wasm); the web
// glue fetches, and the Node glue reads, the same file.
const sharedModules = [['', 'ctxpack'], ['extras', 'ctxpack_extras'], ['full', 'ctxpack_full'], ['codec', 'ctxpack_codec']];
for (const [sub, name] of sharedModules) {
  const into = path.join(dist, 'wasm', sub);
  mkdirSync(into, { recursive: true });
  for (const f of [`${name}_bg.wasm`, `${name}_bg.js`, `${name}_bg.wasm.d.ts`]) {
    renameSync(path.join(dist, 'bundler', sub, f), path.join(into, f));
  }
  const shipped = readFileSync(path.join(into, `${name}_bg.wasm`));
  for (const flavour of ['web', 'node']) {
    if (!readFileSync(path.join(dist, flavour, sub, `${name}_bg.wasm`)).equals(shipped)) fail(`${flavour}'s ${name}_bg.wasm differs from the bundler's`);
    for (const f of [`${name}_bg.wasm`, `${name}_bg.wasm.d.ts`]) rmSync(path.join(dist, flavour, sub, f), { force: true });
  }
  const at = `${sub ? '../../' : '../'}wasm/${sub ? `${sub}/` : ''}${name}_bg`;
  rewrite(path.join(dist, 'bundler', sub, `${name}.js`), [[`"./${name}_bg.wasm"`, `"${at}.wasm"`], [`"./${name}_bg.js"`, `"${at}.js"`]]);
  rewrite(path.join(dist, 'web', sub, `${name}.js`), [[`new URL('${name}_bg.wasm', import.meta.url)`, `new URL('${at}.wasm', import.meta.url)`]]);
  rewrite(path.join(dist, 'node', sub, `${name}.js`), [['`${__dirname}/' + name + '_bg.wasm`', '`${__dirname}/' + at + '.wasm`']]);
}

// dist/node is CommonJS whatever the root package says.
writeFileSync(path.join(dist, 'node/package.json'), JSON.stringify({ type: 'commonjs' }, null, 2) + '\n');

// `import` in Node: an ES module that re-exports the CommonJS build by name,
// the very module `require` loads, so a process holds one instance of the
// wasm modules however it loads ctxpack (the adapters import `ctxpack` too):
// a Stash opened through one works with all. Every name, as the other
// flavours export the main module's (the adapters ask the core's rules
// through its `__` functions).
const require = createRequire(import.meta.url);
const cjs = require(path.join(dist, 'node/index.js'));
const names = Object.keys(cjs).filter((n) => n !== 'default' && n !== '__esModule');
writeFileSync(
  path.join(dist, 'node/index.mjs'),
  `// Generated by scripts/build.mjs: the CommonJS build as an ES module.\n` +
    `import cjs from './index.js';\n` +
    `export const { ${names.join(', ')} } = cjs;\n` +
    `export default cjs;\n`,
);
writeFileSync(
  path.join(dist, 'node/index.d.mts'),
  `export * from './ctxpack.js';\nimport * as ctxpack from './ctxpack.js';\nexport default ctxpack;\n`,
);

// Node-only pieces (`ctxpack/node`): the file-system stash.
for (const f of ['file-stash.js', 'file-stash.mjs', 'file-stash.d.ts']) {
  copyFileSync(path.join(root, 'js/node', f), path.join(dist, 'node', f));
}
writeFileSync(path.join(dist, 'node/file-stash.d.mts'), `export * from './file-stash.js';\n`);

// Adapters for client libraries (`ctxpack/ai-sdk`, `ctxpack/langchain`,
// `ctxpack/redis`): plain modules over the public API, each library an
// optional peer dependency.
mkdirSync(path.join(dist, 'adapters'), { recursive: true });
for (const f of ['ai-sdk.mjs', 'ai-sdk.d.ts', 'langchain.mjs', 'langchain.d.ts', 'plain-prompt.mjs', 'redis.cjs', 'redis-batch.cjs', 'redis.mjs', 'redis.d.ts']) {
  copyFileSync(path.join(root, 'js/adapters', f), path.join(dist, 'adapters', f));
}

// The proxy (`ctxpack/proxy`): a Node request handler over the Node build.
mkdirSync(path.join(dist, 'proxy'), { recursive: true });
for (const f of readdirSync(path.join(root, 'js/proxy'))) {
  copyFileSync(path.join(root, 'js/proxy', f), path.join(dist, 'proxy', f));
}

const bytes = readFileSync(path.join(dist, 'wasm/ctxpack_bg.wasm'));
const extrasBytes = readFileSync(path.join(dist, 'wasm/extras/ctxpack_extras_bg.wasm'));
const fullBytes = readFileSync(path.join(dist, 'wasm/full/ctxpack_full_bg.wasm'));
const codecBytes = readFileSync(path.join(dist, 'wasm/codec/ctxpack_codec_bg.wasm'));
const sizes = {
  raw: bytes.length,
  gzip: gzipSync(bytes, { level: 9 }).length,
  wasmOpt: true,
  extras: { raw: extrasBytes.length, gzip: gzipSync(extrasBytes, { level: 9 }).length },
  full: { raw: fullBytes.length, gzip: gzipSync(fullBytes, { level: 9 }).length },
  codec: { raw: codecBytes.length, gzip: gzipSync(codecBytes, { level: 9 }).length },
};
writeFileSync(path.join(dist, 'sizes.json'), JSON.stringify(sizes) + '\n');
log(`wasm: ${(sizes.raw / 1024).toFixed(1)} KiB raw, ${(sizes.gzip / 1024).toFixed(1)} KiB gzipped; extras module ${(sizes.extras.raw / 1024).toFixed(1)} KiB raw, ${(sizes.extras.gzip / 1024).toFixed(1)} KiB gzipped; full module ${(sizes.full.raw / 1024).toFixed(1)} KiB raw, ${(sizes.full.gzip / 1024).toFixed(1)} KiB gzipped; codec module ${(sizes.codec.raw / 1024).toFixed(1)} KiB raw, ${(sizes.codec.gzip / 1024).toFixed(1)} KiB gzipped`);
