//! One stream read other than from its start (on several threads, through checkpoints),
//! differentially against serial decoding.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| test_support::deflate::seek(data));
