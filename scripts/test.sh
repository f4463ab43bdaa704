#!/usr/bin/env bash
# Sets up everything, then runs every test: the native core tests (cargo test), a release build
# of the site, and the end-to-end tests in headless Chromium against a real llama-server with
# SmolLM2 (scripts/real_engine.sh) and loopback fake providers; their cross-browser set
# (tests/e2e/test_browsers.py) also runs in Firefox ESR and in WebKitGTK under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

printf '\n==> The real engine: llama-server and SmolLM2 (built once per machine, cached outside the clone)\n'
HJ_ENGINE_DIR=$(scripts/real_engine.sh)
export HJ_ENGINE_DIR
echo "engine: $HJ_ENGINE_DIR"

printf '\n==> Native tests (cargo test)\n'
cargo test --locked

printf '\n==> Structure: no file over 600 lines of code, no function over 80, no import cycle\n'
python3 scripts/structure.py --check

printf '\n==> Building the site\n'
scripts/build.sh

printf '\n==> End-to-end tests (headless Chromium; the cross-browser set also in Firefox ESR and WebKitGTK)\n'
.venv/bin/python -m pytest tests/fakes_selftest tests/e2e -q -p no:cacheprovider "$@"

printf '\n==> Benchmark smoke run (figures and budgets reported; timings never fail the run)\n'
.venv/bin/python scripts/bench.py --smoke
