#!/usr/bin/env bash
# The in-page judge on a real GPU, in one call of at most 5 minutes on a machine with a GPU
# (docs/performance.md records what it said): serves dist/, starts Chromium (or Firefox ESR:
# --browser firefox) with WebGPU on the GPU, reports the adapter and shader-f16, runs
# Automatic's check of the GPU against the CPU (every rating's probability against the tolerance
# f16 rounding explains), then one HarmonicEval evaluation with the GPU setting and compares its
# ratings with the CPU path's (scripts/gpu_check.py; --check-only stops after the check).
#
#   HJ_ENGINE_DIR=... scripts/gpu_check.sh [--browser chromium|firefox] [--check-only] [--json FILE]
#
# Needs a built dist/, the test environment (scripts/setup.sh --test) and the engine folder
# (scripts/real_engine.sh). Without a GPU, in Chromium, it reports the SwiftShader fallback; the
# suite runs it that way (tests/e2e/test_in_page_gpu.py). In Firefox here (Mesa's lavapipe, a
# CPU emulating a GPU) the check runs: --browser firefox --check-only.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/gpu: /' || echo "gpu: none seen (no nvidia-smi)"
[[ -n "${HJ_ENGINE_DIR:-}" ]] || HJ_ENGINE_DIR=$(scripts/real_engine.sh | tail -n1)
export HJ_ENGINE_DIR
exec timeout 300 .venv/bin/python scripts/gpu_check.py "$@"
