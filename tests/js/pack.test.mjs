// `npm pack`, install the tarball into an empty project, and use it the ways
// apps do: require, import, ctxpack/node, the web build's files, and the bin.
// Twice: from this checkout as built (`npm test` builds it first, so its pack
// skips the prepack build), and from a fresh `git clone` of it, with no dist/
// and CARGO_TARGET_DIR elsewhere, where `npm pack` has to build the package
// itself, offline (CARGO_NET_OFFLINE), in a target folder seeded with a copy
// of the checkout's (as a CI cache gives it). The clone holds the committed HEAD: when the checkout is
// that commit, as built, the clone's build takes the modules cargo compiled
// for it (scripts/source-key.mjs) and wasm-opt's results; when the checkout
// has uncommitted changes, the clone's crates are compiled from its own
// sources, with the crates.io dependencies from the copy.
import test, { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../scripts/serve.mjs';
import { sourceKey } from '../../scripts/source-key.mjs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// The tools the machine's setup installed (scripts/setup.sh puts them there).
const env = { ...process.env, PATH: `${path.join(os.homedir(), '.cargo/bin')}${path.delimiter}${process.env.PATH}` };
let dir;

before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-pack-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** `npm pack` in `cwd` into `dest`: the tarball's path and file list. */
function pack(cwd, dest, { ignoreScripts = false, extraEnv = {} } = {}) {
  mkdirSync(dest, { recursive: true });
  const r = spawnSync(npm, ['pack', '--json', '--pack-destination', dest, ...(ignoreScripts ? ['--ignore-scripts'] : [])], {
    cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', maxBuffer: 1 << 28,
  });
  assert.equal(r.status, 0, `npm pack failed in ${cwd}:\n${r.stderr.slice(-4000)}`);
  const [info] = JSON.parse(r.stdout);
  return { path: path.join(dest, info.filename), files: info.files.map((f) => f.path), stderr: r.stderr };
}

/**
 * A new empty project with the tarball installed from npm's cache where it
 * can (its runtime dependency's metadata comes from the registry on a
 * machine whose cache has only the lockfile's tarballs).
 */
function install(tarball, app) {
  mkdirSync(app, { recursive: true });
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  execFileSync(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
}

function checkFiles(files) {
  for (const f of [
    'dist/wasm/ctxpack_bg.wasm', 'dist/wasm/extras/ctxpack_extras_bg.wasm', 'dist/wasm/full/ctxpack_full_bg.wasm', 'dist/wasm/codec/ctxpack_codec_bg.wasm',
    'dist/web/full/ctxpack_full.js', 'dist/bundler/full/ctxpack_full.js', 'dist/node/full/ctxpack_full.js',
    'dist/web/index.js', 'dist/web/index.d.ts', 'dist/web/ctxpack.js', 'dist/web/extras/ctxpack_extras.js',
    'dist/bundler/index.js', 'dist/bundler/ctxpack.js', 'dist/bundler/extras/ctxpack_extras.js',
    'dist/node/index.js', 'dist/node/ctxpack.js', 'dist/node/extras/ctxpack_extras.js', 'dist/node/index.mjs',
    'dist/node/file-stash.js', 'dist/adapters/ai-sdk.mjs', 'dist/adapters/langchain.mjs', 'bin/ctxpack.cjs', 'README.md', 'LICENSE', 'package.json',
    // The README's links to its details resolve in the package too.
    'docs/formats.md', 'docs/models.md', 'docs/stash.md',
    'dist/adapters/redis.cjs', 'dist/adapters/redis-batch.cjs', 'dist/adapters/redis.mjs', 'dist/adapters/redis.d.ts', 'dist/adapters/plain-prompt.mjs',
  ]) {
    assert.ok(files.includes(f), f);
  }
  // Each module once: the flavours share dist/wasm.
  assert.deepEqual(files.filter((f) => f.endsWith('.wasm')).sort(), ['dist/wasm/codec/ctxpack_codec_bg.wasm', 'dist/wasm/ctxpack_bg.wasm', 'dist/wasm/extras/ctxpack_extras_bg.wasm', 'dist/wasm/full/ctxpack_full_bg.wasm']);
  assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('core/') || f.startsWith('extras/') || f.startsWith('full/') || f.startsWith('tests/') || f.startsWith('target/') || f.startsWith('scripts/')), files.join(' '));
}

/** require, import, ctxpack/node, the web build's files and the bin, in `app`. */
function checkApp(app) {
  writeFileSync(path.join(app, 'cjs.cjs'), `
    const { parseMarkdownImages, Stash, compactContext } = require('ctxpack');
    const { fileStash } = require('ctxpack/node');
    (async () => {
      const stash = await Stash.open({ backend: fileStash(__dirname + '/stash') });
      const msgs = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=' } }] }, { role: 'user', content: 'x' }];
      const { report } = await compactContext(msgs, { stash });
      console.log(parseMarkdownImages('![a](b.png)')[0].url, report.stashed);
    })();
  `);
  writeFileSync(path.join(app, 'esm.mjs'), `
    import { toMultimodal, CtxpackError } from 'ctxpack';
    import { fileStash } from 'ctxpack/node';
    const { content } = await toMultimodal('hi ![x](data:image/gif;base64,R0lGODlhAQABAAAAACw=)');
    console.log(content.length, typeof fileStash, CtxpackError.name);
  `);
  assert.equal(execFileSync(process.execPath, ['cjs.cjs'], { cwd: app, encoding: 'utf8' }).trim(), 'b.png 1');
  assert.equal(execFileSync(process.execPath, ['esm.mjs'], { cwd: app, encoding: 'utf8' }).trim(), '2 function CtxpackError');
  const web = path.join(app, 'node_modules/ctxpack/dist/web');
  assert.ok(existsSync(path.join(app, 'node_modules/ctxpack/dist/wasm/ctxpack_bg.wasm')));
  assert.match(readFileSync(path.join(web, 'ctxpack.js'), 'utf8'), /__wbg_init as default/);
  assert.ok(existsSync(path.join(app, 'node_modules/ctxpack/LICENSE')));
  const bin = spawnSync(path.join(app, 'node_modules/.bin/ctxpack'), ['--help'], { encoding: 'utf8' });
  assert.equal(bin.status, 0);
  assert.match(bin.stdout, /ctxpack compact/);
}

describe('npm pack of this checkout, as built', () => {
  let tarball;
  before(() => {
    assert.ok(existsSync(path.join(ROOT, 'dist/wasm/ctxpack_bg.wasm')), 'no dist/: run `npm run build` first');
    tarball = pack(ROOT, path.join(dir, 'here'), { ignoreScripts: true });
    install(tarball.path, path.join(dir, 'here/app'));
  });

  test('the tarball holds the builds, the bin, the README and the license — no sources', () => {
    checkFiles(tarball.files);
  });

  test('an empty project requires, imports and runs it', () => {
    checkApp(path.join(dir, 'here/app'));
  });
});

const isGit = spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() === 'true';
// Under `npm test` (scripts/test.mjs sets CTXPACK_NPM_TEST) the fresh clone
// is tested, and a checkout that is no git checkout fails the test: a CI
// checkout is always a git clone. Run on its own outside git, it is skipped.
const underNpmTest = process.env.CTXPACK_NPM_TEST === '1';

describe('npm pack of a fresh clone, CARGO_TARGET_DIR elsewhere, no dist/ and none of its crates built', { skip: isGit || underNpmTest ? false : 'not a git checkout' }, () => {
  let clone;
  let target;
  let checkoutTarget;
  // The checkout's source key, and whether its compiled modules are kept.
  let key;
  let asBuilt;
  // The clone's builds: in a target folder of their own, and offline (the
  // crates.io dependencies are in cargo's registry, as CI's cache has them).
  let cloneEnv;
  before(() => {
    assert.ok(isGit, `${ROOT} is not a git checkout: npm test packs a fresh clone of it, as CI checks out one`);
    clone = path.join(dir, 'clone');
    execFileSync('git', ['clone', '--quiet', ROOT, clone], { stdio: ['ignore', 'pipe', 'pipe'] });
    // The npm packages are the checkout's (Binaryen's wasm-opt among them).
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
    // A target folder of its own, outside the clone. Not the checkout's: the
    // wasm modules are cdylibs, whose files cargo names without a hash, so a
    // clone building there would overwrite the checkout's modules while the
    // checkout's cargo still takes them for fresh.
    target = path.join(dir, 'clone-target');
    assert.ok(!path.resolve(target).startsWith(clone + path.sep));
    cloneEnv = { CARGO_TARGET_DIR: target, CARGO_NET_OFFLINE: 'true' };
    // Seeded with a copy of the checkout's release builds (the wasm target,
    // the codec's SIMD build among them, the host's build scripts, the
    // compiled and the optimized modules), as a CI cache would be. Compiled modules are taken
    // for sources that are the same (the same commit, tools and settings).
    // Otherwise the clone's own crates, at another path, are compiled from
    // the clone's sources, and cargo reuses only the crates.io dependencies
    // it finds compiled for the same profile and flags; a module that comes
    // out the same bytes is not optimized again.
    checkoutTarget = JSON.parse(execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], {
      cwd: ROOT, env, encoding: 'utf8', maxBuffer: 1 << 26,
    })).target_directory;
    for (const sub of ['release', path.join('wasm32-unknown-unknown', 'release'), 'compiled-cache', 'wasm-opt-cache']) {
      const from = path.join(checkoutTarget, sub);
      if (existsSync(from)) cpSync(from, path.join(target, sub), { recursive: true, preserveTimestamps: true });
    }
    // The checkout is the clone's commit, built: its compiled modules are kept.
    key = sourceKey(ROOT, env);
    asBuilt = key !== null && existsSync(path.join(checkoutTarget, 'compiled-cache', key));
    // Otherwise an entry of the copy for the clone's sources was left by an
    // earlier build of its commit (an earlier run of these tests, before the
    // checkout changed): it goes, so that the clone's crates are compiled
    // from its own sources on every run, as on the first.
    const cloneKey = sourceKey(clone, { ...env, ...cloneEnv });
    assert.ok(cloneKey, 'a fresh clone is a clean checkout of its commit');
    if (!asBuilt) rmSync(path.join(target, 'compiled-cache', cloneKey), { recursive: true, force: true });
  });

  test('npm pack builds dist/ itself (the modules of the same commit reused, or the crates compiled from the clone), and the tarball installs into an empty project and runs', { timeout: 30 * 60_000 }, () => {
    assert.ok(!existsSync(path.join(clone, 'dist')), 'a fresh clone has no dist/');
    const tarball = pack(clone, path.join(dir, 'clone-pack'), { extraEnv: cloneEnv });
    assert.match(tarball.stderr, /prepack/);
    if (asBuilt) {
      assert.equal(sourceKey(clone, { ...env, ...cloneEnv }), key, 'the clone is the same sources');
      assert.match(tarball.stderr, new RegExp(`the modules of these sources \\(${key.slice(0, 12)}\\) are taken from`));
      assert.doesNotMatch(tarball.stderr, /Compiling ctxpack/);
      assert.equal((tarball.stderr.match(/optimized before, taken from/g) ?? []).length, 4, tarball.stderr);
      // What the clone packed is the checkout's build, byte for byte.
      for (const f of ['ctxpack_bg.wasm', 'extras/ctxpack_extras_bg.wasm', 'full/ctxpack_full_bg.wasm', 'codec/ctxpack_codec_bg.wasm']) {
        assert.ok(readFileSync(path.join(clone, 'dist/wasm', f)).equals(readFileSync(path.join(ROOT, 'dist/wasm', f))), f);
      }
    } else {
      // Each of the package's crates compiled from the clone's own sources.
      for (const [name, sub] of [['ctxpack', ''], ['ctxpack-core', 'core'], ['ctxpack-extras', 'extras'], ['ctxpack-full', 'full'], ['ctxpack-codec', 'codec']]) {
        const from = path.join(clone, sub).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        assert.match(tarball.stderr, new RegExp(`Compiling ${name} v\\S+ \\(${from}\\)`), `${name} compiled from the clone`);
      }
    }
    assert.ok(!existsSync(path.join(clone, 'target')), 'cargo built in CARGO_TARGET_DIR, not in the clone');
    assert.ok(existsSync(path.join(clone, 'dist/wasm/ctxpack_bg.wasm')));
    checkFiles(tarball.files);
    const app = path.join(dir, 'clone-pack/app');
    install(tarball.path, app);
    checkApp(app);
  });

  test('a wasm-opt that keeps failing, or is missing, fails the build and leaves no dist/', { timeout: 10 * 60_000 }, () => {
    const failing = path.join(dir, 'failing-wasm-opt');
    writeFileSync(failing, '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    const build = (wasmOpt) => spawnSync(process.execPath, ['scripts/build.mjs', '--quiet'], {
      cwd: clone, env: { ...env, ...cloneEnv, WASM_OPT: wasmOpt }, encoding: 'utf8', maxBuffer: 1 << 28,
    });
    const r = build(failing);
    assert.notEqual(r.status, 0);
    // Modules are optimized side by side: the one that failed for good was
    // tried three times, none more, and the others stopped trying.
    const tries = new Map();
    for (const [, file, attempt] of r.stderr.matchAll(/wasm-opt failed on (\S+) \(attempt (\d) of 3\)/g)) {
      tries.set(file, [...(tries.get(file) ?? []), Number(attempt)]);
    }
    const gaveUp = r.stderr.match(/wasm-opt failed 3 times on (\S+); no package was built/);
    assert.ok(gaveUp, r.stderr);
    assert.deepEqual(tries.get(gaveUp[1]), [1, 2, 3], r.stderr);
    for (const attempts of tries.values()) assert.ok(attempts.length <= 3, r.stderr);
    assert.ok(!existsSync(path.join(clone, 'dist')), 'no half-built dist/ is left');
    const missing = build(path.join(dir, 'no-such-wasm-opt'));
    assert.notEqual(missing.status, 0);
    assert.match(missing.stderr, /wasm-opt not found/);
  });
});
