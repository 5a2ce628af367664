//! A reused decoder sets up and inflates a stream without allocating.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Write;

use strided_inflate::{Decoder, Format, Request};

struct Counting;

thread_local! {
    /// This thread's allocations (tests run on several threads at once).
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

fn allocations() -> usize {
    ALLOCS.with(Cell::get)
}

// SAFETY: forwards every call to the system allocator unchanged, counting allocations.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // try_with: the slot may be gone while a thread exits.
        let _ = ALLOCS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract is System's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn inflating_with_a_reused_decoder_allocates_nothing() {
    let data: Vec<u8> = (0..10_000u32).map(|i| (i * 31 % 251) as u8).collect();
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(&data).unwrap();
    let stream = e.finish().unwrap();
    let mut out = vec![0u8; data.len()];
    let mut decoder = Decoder::new(Format::Zlib).unwrap();
    decoder.inflate_at(&stream, 0, &mut out).unwrap(); // warm
    let before = allocations();
    for _ in 0..100 {
        decoder.inflate_at(&stream, 0, &mut out).unwrap();
    }
    assert_eq!(allocations() - before, 0);
    assert_eq!(out, data);
}

#[test]
fn a_batch_through_inflate_each_allocates_nothing() {
    let data = b"a small object, as in a git pack";
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    let stream = e.finish().unwrap();
    let requests = [Request { offset: 0, expected_len: data.len() }; 64];
    let mut out = vec![0u8; data.len() * 64];
    let mut decoder = Decoder::new(Format::Zlib).unwrap();
    let mut consumed = [0usize; 64];
    decoder.inflate_each(&stream, requests, &mut out, |i, r| consumed[i] = r.unwrap()); // warm
    let before = allocations();
    let ok = decoder.inflate_each(&stream, requests, &mut out, |i, r| consumed[i] = r.unwrap());
    assert_eq!(allocations() - before, 0);
    assert_eq!(ok, 64);
    assert!(consumed.iter().all(|&c| c == stream.len()));
}

#[test]
fn a_reset_stream_fed_in_strides_allocates_nothing() {
    let data: Vec<u8> = (0..20_000u32).map(|i| (i * 7 % 253) as u8 ^ (i / 300) as u8).collect();
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(&data).unwrap();
    let mut input = e.finish().unwrap();
    let len = input.len();
    input.extend_from_slice(&[0xA5; 1000]); // what follows the stream
    let mut out = vec![0u8; data.len()];
    let mut stream = strided_inflate::StreamInflater::new(Format::Zlib);
    let mut walk = |stream: &mut strided_inflate::StreamInflater| {
        stream.reset(0);
        let mut fed = 0;
        loop {
            let step = stream.feed(&input[fed..(fed + 4096).min(input.len())], &mut out).unwrap();
            fed += step.used;
            if let Some(total) = step.finished {
                return total;
            }
        }
    };
    assert_eq!(walk(&mut stream), len); // warm
    let before = allocations();
    for _ in 0..50 {
        assert_eq!(walk(&mut stream), len);
    }
    assert_eq!(allocations() - before, 0);
    assert_eq!(out, data);
}
