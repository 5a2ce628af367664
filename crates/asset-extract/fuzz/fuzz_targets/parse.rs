//! The archive parser and extraction to memory on arbitrary bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| asset_extract::fuzzing::parse(data));
