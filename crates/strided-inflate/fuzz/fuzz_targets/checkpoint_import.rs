//! Checkpoints imported for a stream they were not made for, or altered: every slice read through
//! them is the stream's own bytes or an error, never other bytes with OK.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| test_support::deflate::checkpoint_import(data));
