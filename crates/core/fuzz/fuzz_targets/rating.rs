#![no_main]
//! See `harmonic_judge_core::fuzzing::rating`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| harmonic_judge_core::fuzzing::rating(data));
