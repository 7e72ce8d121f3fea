// Clippy while cargo compiles: the environment under which `cargo test` (or
// `cargo build`) lints the workspace's crates as it compiles them, as
// `cargo clippy` does under `cargo check`. `cargo clippy` is cargo with
// clippy's driver as the workspace's compiler (RUSTC_WORKSPACE_WRAPPER; the
// driver is rustc with clippy's lints, and writes the same libraries and
// binaries) and clippy's arguments in CLIPPY_ARGS, each followed by the
// separator clippy's driver splits them on. Crates from crates.io are not the
// workspace's, so cargo compiles them with rustc and they are not linted.

/** `-D warnings`: a lint fails the crate's compilation, and the cargo step. */
export const clippyWhileCompiling = Object.freeze({
  RUSTC_WORKSPACE_WRAPPER: process.env.CLIPPY_DRIVER || 'clippy-driver',
  CLIPPY_ARGS: ['-D', 'warnings'].map((a) => `${a}__CLIPPY_HACKERY__`).join(''),
});
