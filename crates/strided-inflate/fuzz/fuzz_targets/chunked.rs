//! The chunked decoder on arbitrary input, differentially against flate2.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| test_support::deflate::chunked(data));
