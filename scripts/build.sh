#!/usr/bin/env bash
# Builds the static site into dist/ (release, wasm-opt -Oz). Run scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# Fetch crates first so Trunk's --offline (no tool downloads) never starves cargo.
cargo fetch --target wasm32-unknown-unknown
trunk build --release --offline "$@"
wasm=$(ls dist/*_bg.wasm)
printf 'built dist/: wasm %s bytes (gzip -9: %s bytes)\n' "$(stat -c %s "$wasm")" "$(gzip -9 -c "$wasm" | wc -c)"
