//! A reused decoder sets up and inflates a stream without allocating.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

use strided_inflate::{Decoder, Format};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged, counting allocations.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::SeqCst);
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
    let before = ALLOCS.load(Ordering::SeqCst);
    for _ in 0..100 {
        decoder.inflate_at(&stream, 0, &mut out).unwrap();
    }
    assert_eq!(ALLOCS.load(Ordering::SeqCst) - before, 0);
    assert_eq!(out, data);
}
