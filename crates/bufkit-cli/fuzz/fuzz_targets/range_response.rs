//! Responses to range requests, decoded from the input, through the checks `bufkit` applies to
//! every response of a server: only exactly the range asked is accepted, and nothing panics.
#![no_main]

#[path = "../../src/range_response.rs"]
mod range_response;

libfuzzer_sys::fuzz_target!(|data: &[u8]| range_response::fuzz_one(data));
