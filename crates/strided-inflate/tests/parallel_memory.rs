//! One stream on several threads keeps its memory bounded whatever the stream: a stretch that
//! compresses a thousand times better than the rest (so its chunks inflate to a thousand times
//! what the stream's overall ratio predicts) is left to serial decoding, not held whole.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

use strided_inflate::{Parallel, inflate_parallel};

/// The system allocator, counting the bytes live now and the most ever live.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded: `ptr` came from this allocator with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let live = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size - layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: forwarded: `ptr` came from this allocator with this layout.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn a_stretch_that_compresses_far_better_than_the_rest_is_not_held_whole() {
    // 2 MiB of pseudo-random bytes (stored blocks), then 256 MiB of zeros (about 1,000:1), then
    // 2 MiB of random bytes again: the overall ratio (about 60:1) makes chunks of a few KiB
    // compressed, and those in the zeros inflate to megabytes each.
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
    let mut state = 9u64;
    let mut random = |n: usize| {
        let mut v = Vec::with_capacity(n);
        while v.len() < n {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            v.extend_from_slice(&state.to_le_bytes());
        }
        v
    };
    let (head, tail) = (random(2 << 20), random(2 << 20));
    encoder.write_all(&head).unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..256 {
        encoder.write_all(&zeros).unwrap();
    }
    drop(zeros);
    encoder.write_all(&tail).unwrap();
    let stream = encoder.finish().unwrap();
    let total = (4 << 20) + (256 << 20);

    let source = |offset: u64, buf: &mut [u8]| -> std::io::Result<usize> {
        let rest = stream.get(offset as usize..).unwrap_or(&[]);
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        Ok(n)
    };
    // The sink checks the bytes as they come, holding none of them.
    let mut at = 0usize;
    let mut sink = |bytes: &[u8]| -> std::io::Result<()> {
        for (i, &b) in bytes.iter().enumerate() {
            let p = at + i;
            let want = if p < 2 << 20 {
                head[p]
            } else if p < (2 << 20) + (256 << 20) {
                0
            } else {
                tail[p - (2 << 20) - (256 << 20)]
            };
            assert_eq!(b, want, "byte {p}");
        }
        at += bytes.len();
        Ok(())
    };
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let how = Parallel { threads: 2, chunk_out: 1 << 20, patient: true, keep_speculating: false };
    let report = inflate_parallel(stream.len() as u64, Some(total as u64), how, &source, &mut sink).unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    assert_eq!((at, report.total_out), (total, total as u64));
    // Per worker and spare: a marked output of at most 2 × 1 MiB symbols (4 MiB), its input,
    // its decoder; the writer's decoder and resolved bytes. Far below the 256 MiB a chunk of zeros
    // could inflate to.
    assert!(peak < 64 << 20, "peak {} MiB", peak >> 20);
    assert!(report.serial_out > 200 << 20, "the zeros were decoded serially: {report:?}");
}
