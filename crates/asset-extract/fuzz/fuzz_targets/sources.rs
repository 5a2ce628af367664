//! An archive read from memory, a file, a stream and a caller's source: one reading or one refusal.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| test_support::zip::sources(data));
