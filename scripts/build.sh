#!/usr/bin/env bash
# Builds the static site into dist/ (release, wasm-opt -Os): the one-item evaluator at dist/ and
# the batch & meta-evaluation lab, a second page with its own wasm, at dist/lab/. Run
# scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# Fetch crates first so Trunk's --offline (no tool downloads) never starves cargo.
cargo fetch --target wasm32-unknown-unknown
# The evaluator's wasm is cut into a first-visit part and chunks fetched on first use (see
# scripts/split/wasm-bindgen): the cut needs the linker's relocations, and Trunk must find the
# wrapper under wasm-bindgen's name. The lab shares the backend panel and gets its own chunks.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C link-arg=--emit-relocs"
export HJ_SPLIT_OUT="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/wasm-split"
PATH="$PWD/scripts/split:$PATH" trunk build --release --offline=true "$@" index.html
# Second page after the first: Trunk empties its own dist directory before building.
PATH="$PWD/scripts/split:$PATH" trunk build --release --offline=true "$@" --dist dist/lab src/bin/lab.html
# Our own llama.cpp build for the in-page judge (cached outside the clone; minutes only once).
# HJ_ENGINE_LATER=1 (scripts/serve.sh) does not wait for a first build of it: the site is
# finished without it (the in-page judge runs wllama's Memory32 build, and says so) and
# scripts/serve.sh builds it beside the running server.
if HJ_OWN_ENGINE=$(scripts/own_engine.sh --cached); then
  :
elif [[ ${HJ_ENGINE_LATER:-} == 1 ]]; then
  HJ_OWN_ENGINE=""
  echo "our own llama.cpp build for the in-page judge is not built yet: the site is finished without it"
else
  HJ_OWN_ENGINE=$(scripts/own_engine.sh)
fi
export HJ_OWN_ENGINE
scripts/finish_dist.py --chunks "$HJ_SPLIT_OUT" dist dist/lab
scripts/examples_manifest.py dist/examples
for wasm in dist/*_bg.wasm dist/lab/*_bg.wasm; do
  printf 'built %s: %s bytes (gzip -9: %s bytes)\n' "$wasm" "$(stat -c %s "$wasm")" "$(gzip -9 -c "$wasm" | wc -c)"
done
