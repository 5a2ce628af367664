#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| test_support::deflate::pack_walk(data));
