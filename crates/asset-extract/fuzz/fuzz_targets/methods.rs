//! Entries in Deflate64, bzip2, LZMA, Zstandard and XZ: the fuzzer's bytes as compressed data, or
//! an encoder's output perhaps damaged or with a lying size; every reader must agree.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| test_support::zip::methods(data));
