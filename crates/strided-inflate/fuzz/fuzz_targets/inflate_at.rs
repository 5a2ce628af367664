#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| strided_inflate::fuzzing::inflate_at(data));
