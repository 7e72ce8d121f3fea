// Builds the npm package's three flavours from one release compile:
//   dist/web      ES module for browsers and workers (explicit `await init()`)
//   dist/bundler  ES module importing the .wasm (Vite, webpack)
//   dist/node     CommonJS for `require`, with an ES module wrapper for `import`
// Each .wasm is shrunk with Binaryen's wasm-opt -Oz (the npm `binaryen` package).
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

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

/** Compiles the wasm crate and returns the path of its .wasm, as cargo reports
 * it: the target directory may be anywhere (`CARGO_TARGET_DIR`, a workspace's
 * target, `build.target-dir` in a cargo config). */
function compile() {
  const args = ['build', '--release', '--lib', '-p', 'ctxpack', '--target', 'wasm32-unknown-unknown',
    '--message-format=json-render-diagnostics', ...(quiet ? ['--quiet'] : [])];
  const r = spawnSync('cargo', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28 });
  if (r.error) fail(`could not run cargo: ${r.error.message}`);
  if (r.status !== 0) fail(`cargo build failed (${r.signal ?? `exit ${r.status}`})`);
  const wasm = [];
  for (const line of r.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const msg = JSON.parse(line);
    if (msg.reason === 'compiler-artifact' && msg.target?.name === 'ctxpack') {
      wasm.push(...msg.filenames.filter((f) => f.endsWith('.wasm')));
    }
  }
  if (wasm.length !== 1) fail(`expected one ctxpack .wasm from cargo, got ${wasm.length ? wasm.join(', ') : 'none'}`);
  return wasm[0];
}

// Binaryen from npm (version 132): Debian's wasm-opt 108 breaks the
// externref table that wasm-bindgen emits for rustc's reference-types output.
// WASM_OPT names another wasm-opt to use instead.
const wasmOpt = process.env.WASM_OPT || path.join(root, 'node_modules/.bin/wasm-opt');
if (!existsSync(wasmOpt)) {
  fail(`wasm-opt not found at ${wasmOpt}: run \`npm ci\` (it comes from the npm \`binaryen\` package) or set WASM_OPT`);
}

const wasm = compile();
log(`compiled ${wasm}`);

const flavours = [
  ['web', 'web'],
  ['bundler', 'bundler'],
  ['node', 'nodejs'],
];

/** wasm-opt -Oz in place. Binaryen's npm build runs under Node and has been
 * seen to crash (SIGSEGV) now and then: retry, and if it keeps failing stop
 * the build, so that an unoptimized module is never shipped. */
function optimize(file) {
  // --converge repeats the passes while they still shrink the module; the
  // producers and target-features sections are notes for linkers, read by
  // nothing once the module is final.
  const args = ['-Oz', '--converge', '--strip-producers', '--strip-target-features',
    '--enable-bulk-memory', '--enable-sign-ext', '--enable-nontrapping-float-to-int',
    '--enable-mutable-globals', '--enable-reference-types', '--enable-multivalue', file, '-o', `${file}.opt`];
  const attempts = 3;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      execFileSync(wasmOpt, args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
      renameSync(`${file}.opt`, file);
      return;
    } catch (e) {
      console.error(`[build] wasm-opt failed (attempt ${attempt} of ${attempts}): ${e.signal ?? (e.status != null ? `exit ${e.status}` : e.message)}`);
    }
  }
  // Leave no half-built package behind for `npm pack` or the tests to pick up.
  rmSync(dist, { recursive: true, force: true });
  fail(`wasm-opt failed ${attempts} times on ${path.relative(root, file)}; no package was built`);
}

rmSync(dist, { recursive: true, force: true });
for (const [dir, target] of flavours) {
  const out = path.join(dist, dir);
  mkdirSync(out, { recursive: true });
  run('wasm-bindgen', [wasm, '--target', target, '--out-dir', out, '--out-name', 'ctxpack']);
  const bg = path.join(out, 'ctxpack_bg.wasm');
  optimize(bg);
}

// dist/node is CommonJS whatever the root package says.
writeFileSync(path.join(dist, 'node/package.json'), JSON.stringify({ type: 'commonjs' }, null, 2) + '\n');

// `import` in Node: an ES module that re-exports the CommonJS build by name.
const require = createRequire(import.meta.url);
const cjs = require(path.join(dist, 'node/ctxpack.js'));
const names = Object.keys(cjs).filter((n) => n !== 'default' && n !== '__esModule' && !n.startsWith('__'));
writeFileSync(
  path.join(dist, 'node/index.mjs'),
  `// Generated by scripts/build.mjs: the CommonJS build as an ES module.\n` +
    `import cjs from './ctxpack.js';\n` +
    `export const { ${names.join(', ')} } = cjs;\n` +
    `export default cjs;\n`,
);
writeFileSync(path.join(dist, 'node/index.d.mts'), `export * from './ctxpack.js';\n`);

// Node-only pieces (`ctxpack/node`): the file-system stash.
for (const f of ['file-stash.js', 'file-stash.mjs', 'file-stash.d.ts']) {
  copyFileSync(path.join(root, 'js/node', f), path.join(dist, 'node', f));
}
writeFileSync(path.join(dist, 'node/file-stash.d.mts'), `export * from './file-stash.js';\n`);

// Adapters for client libraries (`ctxpack/ai-sdk`, `ctxpack/langchain`): plain
// ES modules over the public API, each library an optional peer dependency.
mkdirSync(path.join(dist, 'adapters'), { recursive: true });
for (const f of ['ai-sdk.mjs', 'ai-sdk.d.ts', 'langchain.mjs', 'langchain.d.ts']) {
  copyFileSync(path.join(root, 'js/adapters', f), path.join(dist, 'adapters', f));
}

const bytes = readFileSync(path.join(dist, 'web/ctxpack_bg.wasm'));
const sizes = { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, wasmOpt: true };
writeFileSync(path.join(dist, 'sizes.json'), JSON.stringify(sizes) + '\n');
log(`wasm: ${(sizes.raw / 1024).toFixed(1)} KiB raw, ${(sizes.gzip / 1024).toFixed(1)} KiB gzipped`);
