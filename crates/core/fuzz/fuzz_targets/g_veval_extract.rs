#![no_main]
//! The metric room's harness called `g_veval_extract` (`MetricCore::FUZZ`), through `harmonic_judge_core::fuzzing::run`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| harmonic_judge_core::fuzzing::run("g_veval_extract", data));
