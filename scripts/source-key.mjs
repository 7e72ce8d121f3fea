// What a compile of this checkout is made from, named by one digest: the
// build (scripts/build.mjs) keeps the modules cargo compiled under it, and a
// build from the same sources with the same tools and settings (the same
// commit built again, or a fresh clone of it whose target folder holds a
// copy of this one, as a CI cache gives it) takes them instead of compiling
// them again. Only what cannot differ without a change here is named:
// - the commit's tree (every tracked file's bytes), and only when the working
//   tree is that tree: no file changed, staged, deleted or untracked (outside
//   .gitignore), else there is no key and the build compiles;
// - the compiler and cargo, as they report themselves (`rustc -vV` names the
//   commit and host; a rust-toolchain file or RUSTUP_TOOLCHAIN changes it);
// - every environment variable cargo or rustc reads for flags, tools and
//   profiles (RUSTFLAGS, RUSTC*, RUSTUP_TOOLCHAIN, CARGO_* but the target
//   folder's place, the terminal's settings and CARGO_NET_OFFLINE, which
//   change no output: offline, a build that needs the network fails), and
//   the text of every cargo configuration file that applies (the checkout's
//   folders up to the root, and CARGO_HOME's).
// Anything else that could change a module (a dependency's files edited in
// cargo's registry by hand) is not named: such a change needs `cargo clean`
// anyway.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The variables that change nothing cargo writes into a module. */
const PLACES = new Set(['CARGO_TARGET_DIR', 'CARGO_BUILD_TARGET_DIR', 'CARGO_TERM_COLOR', 'CARGO_TERM_PROGRESS_WHEN', 'CARGO_TERM_QUIET', 'CARGO_TERM_VERBOSE', 'CARGO_NET_OFFLINE']);

/** `cmd args` run in `cwd`: its standard output, or null when it failed. */
function output(cmd, args, cwd, env) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 26 });
  return r.status === 0 ? r.stdout : null;
}

/** The cargo configuration files cargo reads for a build in `root`. */
function cargoConfigs(root, env) {
  const dirs = [];
  for (let d = path.resolve(root); ; d = path.dirname(d)) {
    dirs.push(path.join(d, '.cargo'));
    if (path.dirname(d) === d) break;
  }
  dirs.push(env.CARGO_HOME || path.join(os.homedir(), '.cargo'));
  return dirs.flatMap((d) => ['config', 'config.toml'].map((f) => path.join(d, f))).filter((f) => existsSync(f));
}

/**
 * The key of a compile of the checkout at `root` under `env`, as a hex
 * digest; null when it cannot be named (not a git checkout, a working tree
 * that differs from its commit, a tool that does not answer).
 */
export function sourceKey(root, env = process.env) {
  const status = output('git', ['status', '--porcelain=v1', '--untracked-files=all', '--ignore-submodules=none'], root, env);
  if (status === null || status !== '') return null;
  const tree = output('git', ['rev-parse', 'HEAD^{tree}'], root, env);
  const rustc = output('rustc', ['-vV'], root, env);
  const cargo = output('cargo', ['-V'], root, env);
  if (tree === null || rustc === null || cargo === null) return null;
  const hash = createHash('sha256');
  const part = (name, value) => hash.update(`${name}\0${value}\0`);
  part('tree', tree.trim());
  part('rustc', rustc);
  part('cargo', cargo);
  for (const name of Object.keys(env).sort()) {
    const read = /^(CARGO_|RUSTC|RUSTFLAGS$|RUSTDOCFLAGS$|RUSTUP_TOOLCHAIN$)/.test(name);
    if (read && !PLACES.has(name)) part(`env ${name}`, env[name]);
  }
  for (const file of cargoConfigs(root, env)) part('config', readFileSync(file, 'utf8'));
  return hash.digest('hex');
}
