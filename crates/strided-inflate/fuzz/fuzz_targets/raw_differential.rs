//! Raw deflate streams on every decoding path, differentially against zlib: the Adler-32 check
//! of the zlib format hides a decoder that accepts an invalid code, so this target has none.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| test_support::deflate::raw_differential(data));
