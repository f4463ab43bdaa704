#!/usr/bin/env bash
# Builds our own llama.cpp engine for the page (issue 42, part 4) and prints the folder that
# holds it: engine.js and engine.wasm, which scripts/finish_dist.py copies into wllama/own/ beside
# src/web/own_engine/{worker.js,client.js}.
#
# libllama, llama.cpp's common library (chat templates, sampling) and its mtmd library (images
# through a projector), from the same PyPI source
# as the native engine (scripts/real_engine.sh), built with Debian's emscripten 3.1.6 (apt):
# Memory32, wasm SIMD (-msimd128, so ggml's arch/wasm kernels), C++ exceptions through
# JavaScript (-fexceptions: llama.cpp throws when it refuses a file), no JSPI. Two builds: one
# thread (engine.js, engine.wasm), and threads for a cross-origin isolated page (mt/: -pthread,
# shared memory, engine.worker.js for each thread). Each linked with
# src/web/own_engine/engine.cpp.
#
# Cached outside the clone, keyed by the llama.cpp source and emscripten's version (the
# libraries: about 6 minutes on 2 cores for each build) and by engine.cpp and this script (the
# -O3 links: about 3 minutes each).
#
#   scripts/own_engine.sh            build if needed; print the folder
#   scripts/own_engine.sh --cached   print the folder if it is built, else exit 1 (no build)
set -euo pipefail
cd "$(dirname "$0")/.."
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

LLAMA_SDIST=$(sed -n 's/^LLAMA_SDIST=\([^ ]*\).*/\1/p' scripts/real_engine.sh)
# --cached asks without building: nothing is built without emscripten.
[[ ${1:-} == --cached ]] && ! command -v emcc >/dev/null && exit 1
command -v emcc >/dev/null && command -v cmake >/dev/null || {
  as_root apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q emscripten cmake >&2
}
export NODE_PATH=/usr/share/nodejs  # Debian's emscripten finds its acorn there
# Debian's emscripten 3.1.6 with Debian's binaryen 108 only: build.sh puts npm's binaryen 132
# (.tools) first on PATH, and with it the -O3 link wrote a wasm whose imports are minified
# ("a"."a") beside a JavaScript that names them in full: the module never started. Every other
# folder with binaryen's tools in it leaves PATH here.
keep=()
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  [[ -x $d/wasm-opt && $d != /usr/bin ]] || keep+=("$d")
done
PATH=$(IFS=:; echo "${keep[*]}")
export PATH
EM=$(emcc --version | sed -n '1s/.* \([0-9][0-9.]*\).*/\1/p')
[[ $EM == 3.1.6 ]] || echo "own engine: emscripten $EM, not the 3.1.6 it was measured with" >&2
CACHE="${HJ_CACHE:-$HOME/.cache/harmonic-judge}"
# RECIPE: bump when the libraries' build below changes (its flags), so a cache is rebuilt; the
# patches are in the key by their hash.
RECIPE=2
PATCHES=$(cat scripts/llama-patches/*.patch | sha256sum | cut -c1-8)
LIBS="$CACHE/own-engine-llama$LLAMA_SDIST-em$EM-r$RECIPE-p$PATCHES"
KEY=$(cat src/web/own_engine/engine.cpp scripts/own_engine.sh | sha256sum | cut -c1-12)
OUT="$LIBS/web-$KEY"

# Flags both halves share. EMSCRIPTEN_SYSTEM_PROCESSOR: 3.1.6's toolchain file says x86, and
# ggml then silently falls back to its generic kernels. LLAMA_WASM_MEM64=OFF: llama.cpp asks for
# Memory64 by default, which 3.1.6's clang 14 crashes on.
FLAGS="-msimd128 -fexceptions"

if [[ ${1:-} == --cached ]]; then
  [[ -f "$OUT/engine.wasm" && -f "$OUT/mt/engine.wasm" ]] && echo "$OUT" && exit 0
  exit 1
fi

# Every scratch folder goes when the script ends, however it ends (an interrupted build left
# hundreds of megabytes in /tmp).
SCRATCH=()
trap 'rm -rf "${SCRATCH[@]}"' EXIT

# The libraries, in one of two forms: `lib` (one thread) and `lib-mt` (-pthread: atomics and
# shared memory, for a page that is cross-origin isolated). wasm-ld links no object built
# without atomics into shared memory, so each form is a build of its own.
build_libs() {
  local dir=$1 flags=$2
  [[ -f "$dir/done" ]] && return 0
  local tmp
  tmp=$(mktemp -d)
  SCRATCH+=("$tmp")
  echo "own engine: building libllama and llama-common with emscripten $EM, $flags (about 6 minutes)" >&2
  # The pinned source (its hash checked) with the page's patches to llama.cpp's WebAssembly
  # kernels, each a patch file with its own test (scripts/llama-patches/, docs/performance.md):
  # today one, rounding to nearest where quantize_row_q8_0 and quantize_row_q8_1 truncated.
  local tree
  tree=$(scripts/llama_source.sh --patched "$tmp/src") || { rm -rf "$tmp"; exit 1; }
  emcmake cmake -S "$tree" -B "$tmp/build" -DEMSCRIPTEN_SYSTEM_PROCESSOR=wasm32 \
    -DLLAMA_WASM_MEM64=OFF -DLLAMA_BUILD_HTML=OFF -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF \
    -DGGML_OPENMP=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF \
    -DLLAMA_BUILD_COMMON=ON -DLLAMA_BUILD_MTMD=ON -DMTMD_VIDEO=OFF -DBUILD_SHARED_LIBS=OFF "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
    >"$tmp/cmake.log" 2>&1 || { tail -n 30 "$tmp/cmake.log" >&2; rm -rf "$tmp"; exit 1; }
  grep -q "Wasm detected" "$tmp/cmake.log" || { echo "ggml did not pick its wasm kernels" >&2; rm -rf "$tmp"; exit 1; }
  # xxhash (image IDs in mtmd) includes <arm_neon.h> when it sees wasm SIMD, and 3.1.6's copy
  # of that header is broken: that one file is built without SIMD.
  sed -i 's/-msimd128 //' "$tmp/build/vendor/hash/CMakeFiles/vendor-hash.dir/flags.make"
  cmake --build "$tmp/build" --target llama-common mtmd -j"$(nproc)" >"$tmp/build.log" 2>&1 \
    || { tail -n 40 "$tmp/build.log" >&2; rm -rf "$tmp"; exit 1; }
  rm -rf "$dir"
  mkdir -p "$dir/include/jinja"
  find "$tmp/build" -name '*.a' -exec cp {} "$dir/" \;
  cp "$tree"/include/*.h "$tree"/ggml/include/*.h "$tree"/common/*.h "$dir/include/"
  cp "$tree"/common/jinja/*.h "$dir/include/jinja/"
  cp "$tree"/tools/mtmd/mtmd.h "$tree"/tools/mtmd/mtmd-helper.h "$dir/include/"
  rm -rf "$tmp"
  touch "$dir/done"
}

# Links engine.cpp with the libraries in `lib` into `out`: engine.js and engine.wasm (and, with
# -pthread, engine.worker.js, which each of the engine's threads runs).
link_engine() {
  local lib=$1 out=$2 flags=$3
  shift 3
  echo "own engine: linking engine.cpp, $flags (about 3 minutes)" >&2
  local tmp2
  tmp2=$(mktemp -d)
  SCRATCH+=("$tmp2")
  # shellcheck disable=SC2086  # the flags are words
  em++ -O3 $flags -std=c++17 src/web/own_engine/engine.cpp -I"$lib/include" \
    "$lib"/*.a \
    -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB -sFORCE_FILESYSTEM=1 -lworkerfs.js \
    -sENVIRONMENT=worker -sEXIT_RUNTIME=0 -sEXPORTED_RUNTIME_METHODS=ccall,FS \
    -sEXPORTED_FUNCTIONS=_hj_load,_hj_begin,_hj_prefill,_hj_step,_hj_result,_hj_cancel,_hj_progress,_hj_error,_hj_text,_hj_stop \
    "$@" -o "$tmp2/engine.js" 2>"$tmp2/link.log" || { tail -n 30 "$tmp2/link.log" >&2; rm -rf "$tmp2"; exit 1; }
  # The two halves must agree: every function the wasm imports is named in engine.js's table
  # (Debian's wasm-dis lists the imports).
  local imports table name
  imports=$(/usr/bin/wasm-dis "$tmp2/engine.wasm" | sed -n 's/^ *(import "[^"]*" "\([^"]*\)" (func.*/\1/p')
  table=$(grep -o 'asmLibraryArg={[^}]*}' "$tmp2/engine.js" || true)
  for name in $imports; do
    [[ $table == *"\"$name\":"* ]] || {
      echo "own engine: engine.js does not provide the wasm's import \"$name\" (a mismatched link)" >&2
      rm -rf "$tmp2"
      exit 1
    }
  done
  [[ -n $imports ]] || { echo "own engine: wasm-dis found no imports in engine.wasm" >&2; rm -rf "$tmp2"; exit 1; }
  rm -rf "$out"
  mkdir -p "$out"
  mv "$tmp2"/engine.* "$out/"
  rm -rf "$tmp2"
}

if [[ ! -f "$OUT/mt/engine.wasm" ]]; then
  build_libs "$LIBS/lib" "$FLAGS"
  build_libs "$LIBS/lib-mt" "$FLAGS -pthread"
  link_engine "$LIBS/lib" "$OUT.part/one" "$FLAGS"
  # The threads' workers are made when the engine starts (PTHREAD_POOL_SIZE: worker.js sets
  # Module.hjPool to the threads it was asked for, less one): one made later would wait for an
  # event loop that the computing worker never returns to.
  link_engine "$LIBS/lib-mt" "$OUT.part/mt" "$FLAGS -pthread" -sPTHREAD_POOL_SIZE=Module.hjPool
  rm -rf "$OUT"
  mv "$OUT.part/one" "$OUT"
  mv "$OUT.part/mt" "$OUT/mt"
  rm -rf "$OUT.part"
fi
echo "$OUT"
