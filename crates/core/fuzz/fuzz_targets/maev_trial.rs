#![no_main]
//! The metric room's harness called `maev_trial` (`MetricCore::FUZZ`), through `harmonic_judge_core::fuzzing::run`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| harmonic_judge_core::fuzzing::run("maev_trial", data));
