//! An archive fed in pieces and extracted, against the same bytes extracted from a file.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| test_support::zip::stream(data));
