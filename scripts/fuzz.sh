#!/usr/bin/env bash
# Runs every cargo-fuzz target (or those named) for a set time each, printing libFuzzer's
# final statistics. Needs a nightly toolchain and `cargo install cargo-fuzz`.
#   scripts/fuzz.sh [seconds-per-target=60] [target ...]
# Targets: response_parsers rating fleur_smoothing g_veval_extract maev_trial dataset_import
# image_sniff. New inputs are kept in target/fuzz-corpus/ (crates/core/fuzz/corpus/ is the committed
# seed set); a crash is written to crates/core/fuzz/artifacts/<target>/ and should become a unit test.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(response_parsers rating fleur_smoothing g_veval_extract maev_trial dataset_import image_sniff)
for t in "${targets[@]}"; do
  mkdir -p "target/fuzz-corpus/$t"
  printf '\n==> %s (%s s)\n' "$t" "$seconds"
  cargo +nightly fuzz run --fuzz-dir crates/core/fuzz "$t" "target/fuzz-corpus/$t" "crates/core/fuzz/corpus/$t" -- \
    -max_total_time="$seconds" -print_final_stats=1 2>&1 | grep -E "stat::number_of_executed_units|stat::peak_rss|ERROR|panicked|SUMMARY" || true
done
