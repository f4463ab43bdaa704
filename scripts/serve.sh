#!/usr/bin/env bash
# Sets up everything, then serves the app with live rebuilds at http://127.0.0.1:8000/
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PWD/.tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
cargo fetch --target wasm32-unknown-unknown
exec trunk serve --release --offline "$@"
