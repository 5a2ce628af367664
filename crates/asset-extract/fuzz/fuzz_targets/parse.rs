//! The archive parser and extraction to memory on arbitrary bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    test_support::zip::parse(data);
    // The crate's own check of its two ways of checking local headers (`--cfg fuzzing` only).
    asset_extract::deferred_checks_agree(data);
});
