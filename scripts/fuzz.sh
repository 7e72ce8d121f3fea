#!/usr/bin/env bash
# `npm run fuzz`: runs every cargo-fuzz target for FUZZ_SECONDS (default 60)
# each, starting from the seeds in fuzz/seeds/. A crash input is copied to
# fuzz/regressions/<target>/, which `cargo test` replays from then on.
# Needs the nightly toolchain and cargo-fuzz; installs them when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
SECONDS_EACH="${FUZZ_SECONDS:-60}"
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
status=0
for target in markdown data_url messages sanitize; do
  corpus="fuzz/corpus/$target"
  mkdir -p "$corpus" "fuzz/artifacts/$target"
  cp -n fuzz/seeds/"$target"/* "$corpus"/ 2>/dev/null || true
  echo "== $target: ${SECONDS_EACH}s"
  if ! cargo +nightly fuzz run "$target" "$corpus" -- -max_total_time="$SECONDS_EACH" -rss_limit_mb=4096 2>&1 | tail -n 4; then
    status=1
  fi
  for crash in fuzz/artifacts/"$target"/*; do
    [ -e "$crash" ] || continue
    cp "$crash" fuzz/regressions/"$target"/
    echo "!! $target found $(basename "$crash"); kept in fuzz/regressions/$target/"
    status=1
  done
done
exit $status
