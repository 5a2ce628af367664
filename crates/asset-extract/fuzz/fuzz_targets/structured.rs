//! Extraction to memory of well-formed archives built from the fuzzer's choices, sometimes with
//! one byte flipped.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| test_support::zip::structured(data));
