#!/usr/bin/env bash
# Builds the static site into dist/ (release, wasm-opt -Os): the one-item evaluator at dist/ and
# the batch & meta-evaluation lab, a second page with its own wasm, at dist/lab/. Run
# scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# Fetch crates first so Trunk's --offline (no tool downloads) never starves cargo.
cargo fetch --target wasm32-unknown-unknown
trunk build --release --offline=true "$@" index.html
# Second page after the first: Trunk empties its own dist directory before building.
trunk build --release --offline=true "$@" --dist dist/lab src/bin/lab.html
scripts/finish_dist.py dist dist/lab
scripts/examples_manifest.py dist/examples
for wasm in dist/*_bg.wasm dist/lab/*_bg.wasm; do
  printf 'built %s: %s bytes (gzip -9: %s bytes)\n' "$wasm" "$(stat -c %s "$wasm")" "$(gzip -9 -c "$wasm" | wc -c)"
done
