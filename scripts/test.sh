#!/usr/bin/env bash
# Sets up everything, then runs every test: the native core tests (cargo test), a release build
# of the site, and the end-to-end tests in headless Chromium against loopback fake providers.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

printf '\n==> Native tests (cargo test)\n'
cargo test --locked

printf '\n==> Building the site\n'
scripts/build.sh

printf '\n==> End-to-end tests (headless Chromium)\n'
.venv/bin/python -m pytest tests/fakes_selftest tests/e2e -q -p no:cacheprovider "$@"

printf '\n==> Benchmark smoke run (figures and budgets reported; timings never fail the run)\n'
.venv/bin/python scripts/bench.py --smoke
