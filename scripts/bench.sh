#!/usr/bin/env bash
# Builds the release site, then prints the benchmark table (sizes, time to interactive, image
# preparation, γ re-aggregation, evaluation wall time, input tokens) with budgets as pass/fail.
# Usage: scripts/bench.sh [--smoke] [--strict]   (set-up: scripts/setup.sh --test)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
exec .venv/bin/python scripts/bench.py "$@"
