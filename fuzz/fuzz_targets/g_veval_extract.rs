#![no_main]
//! See `harmonic_judge::fuzzing::g_veval_extract`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| harmonic_judge::fuzzing::g_veval_extract(data));
