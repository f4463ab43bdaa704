#!/usr/bin/env bash
# Sets up everything, then runs every test: the native core tests (cargo test), a release build
# of the site, and the end-to-end tests in headless Chromium against a real llama-server with
# SmolLM2 (scripts/real_engine.sh) and loopback fake providers; their cross-browser set
# (tests/e2e/test_browsers.py) also runs in Firefox ESR and in WebKitGTK under Xvfb. This full
# run is the default and what CI runs (.ci/run).
#
#   scripts/test.sh                  everything (25 to 35 minutes on 2 cores once set up; the
#                                    browser tests in two parallel workers, HJ_TEST_WORKERS=1: one)
#   scripts/test.sh --quick          set-up check, cargo test, clippy for wasm32, structure, format, a build only if dist/ is
#                                    older than the sources, the fakes' self-tests and the browser
#                                    smoke set (pytest -m smoke); about 2 minutes once built
#   scripts/test.sh -m fleur         the same steps as --quick, then the browser tests these
#   scripts/test.sh -k share ...     pytest arguments select (instead of the smoke set)
#
# Markers (docs/testing.md): evaluator, lab; harmonic_eval, fleur, g_veval, maev; real_engine,
# in_browser, fakes; smoke; feature groups. Tests on the real engine build it on first use.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=false
if [[ "${1:-}" == "--quick" ]]; then
  quick=true
  shift
fi
# Any pytest arguments choose the browser tests: the quick tier's steps, then those tests.
[[ $# -gt 0 ]] && quick=true

scripts/setup.sh --test
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

if ! $quick; then
  printf '\n==> The real engine: llama-server and SmolLM2 (built once per machine, cached outside the clone)\n'
  HJ_ENGINE_DIR=$(scripts/real_engine.sh)
  export HJ_ENGINE_DIR
  echo "engine: $HJ_ENGINE_DIR"
fi

printf '\n==> Native tests (cargo test)\n'
cargo test --locked

# The page's package as the browser runs it (cargo test compiles it for the host): checked here
# in seconds, before the slower release build (about 1.5 minutes the first time on 2 cores).
printf '\n==> The page'"'"'s own code for wasm32 (cargo clippy --target wasm32-unknown-unknown)\n'
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --locked --target wasm32-unknown-unknown -p harmonic-judge --lib --bins -- -D warnings
else
  cargo check --locked --target wasm32-unknown-unknown -p harmonic-judge --lib --bins  # a toolchain without clippy
fi

if ! $quick; then
  printf '\n==> The editor: rust-analyzer, with no settings, follows calls in the page, the core and hj\n'
  python3 scripts/check_editor.py
fi

printf '\n==> Structure: no file over 600 lines of code, no function over 80, no import cycle\n'
python3 scripts/structure.py --check

# rustfmt comes with Rust's default profile; a toolchain without it says so instead of failing.
if cargo fmt --version >/dev/null 2>&1; then
  printf '\n==> Formatting (cargo fmt --check: run cargo fmt to fix)\n'
  cargo fmt --check
else
  printf '\n==> Formatting not checked: this toolchain has no rustfmt (rustup component add rustfmt)\n'
fi

# What the site is built from; a build is skipped in the quick tier only when none of it is
# newer than the last build's final step (dist/examples/manifest.json).
stale_dist() {
  local stamp=dist/examples/manifest.json
  [[ -f $stamp && -f dist/lab/index.html ]] || return 0
  [[ -n $(find src crates/core style public index.html Cargo.toml Cargo.lock Trunk.toml .cargo \
            scripts/build.sh scripts/finish_dist.py scripts/examples_manifest.py scripts/split \
            -newer "$stamp" -print -quit 2>/dev/null) ]]
}

if ! $quick || stale_dist; then
  printf '\n==> Building the site\n'
  scripts/build.sh
else
  printf '\n==> The site: dist/ is newer than its sources, not rebuilt (delete dist/ to force a build)\n'
fi

printf '\n==> End-to-end tests (headless Chromium; the cross-browser set also in Firefox ESR and WebKitGTK)\n'
# Test paths among the arguments replace the default ones.
paths=(tests/fakes_selftest tests/e2e)
for arg in "$@"; do
  [[ $arg != -* && -e ${arg%%::*} ]] && paths=()
done
if ! $quick; then
  # Two workers, each taking whole test files (a file's browsers and engines stay in one worker):
  # a serial run left a third of the two cores idle, waiting on browsers. The tests that measure
  # time or memory (marker `alone`) run afterwards with the machine to themselves.
  # HJ_TEST_WORKERS=1 runs everything in one process, in the same order.
  workers=${HJ_TEST_WORKERS:-$(( $(nproc) >= 2 ? 2 : 1 ))}
  # The SmolVLM-shaped test model is made before the workers start: two would make it at once.
  scripts/smolvlm_model.sh >/dev/null
  rm -rf target/e2e-times  # each test's worker, start and seconds (tests/conftest.py)
  status=0
  if (( workers > 1 )); then
    .venv/bin/python -m pytest tests/fakes_selftest tests/e2e -q -p no:cacheprovider \
      -n "$workers" --dist loadfile --no-loadscope-reorder -m "not alone" --durations=15 || status=$?
    printf '\n==> The tests that measure time or memory, alone on the machine\n'
    .venv/bin/python -m pytest tests/e2e -q -p no:cacheprovider -m alone --durations=5 || status=$?
  else
    .venv/bin/python -m pytest tests/fakes_selftest tests/e2e -q -p no:cacheprovider || status=$?
  fi
  (( status == 0 )) || exit "$status"
elif [[ $# -eq 0 ]]; then
  # The smoke set checks the layout at one width (HJ_LAYOUT_WIDTHS; every width in the full run).
  HJ_LAYOUT_WIDTHS="${HJ_LAYOUT_WIDTHS:-390}" \
    .venv/bin/python -m pytest tests/fakes_selftest tests/e2e -q -p no:cacheprovider -m smoke
  exit 0
else
  .venv/bin/python -m pytest "${paths[@]}" -q -p no:cacheprovider "$@"
  exit 0
fi

printf '\n==> Benchmark smoke run (figures and budgets reported; timings never fail the run)\n'
.venv/bin/python scripts/bench.py --smoke
