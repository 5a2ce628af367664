//! One stream on several threads keeps its memory bounded whatever the stream: a stretch that
//! compresses a thousand times better than the rest (so its chunks inflate to a thousand times
//! what the stream's overall ratio predicts) is left to serial decoding, not held whole.

use std::io::Write;

#[path = "support/counting.rs"]
mod counting;

use strided_inflate::{Parallel, inflate_parallel};

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

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
    let how = Parallel { threads: 2, chunk_out: 1 << 20, patient: true, keep_speculating: false };
    let (report, peak) =
        counting::held(|| inflate_parallel(stream.len() as u64, Some(total as u64), how, &source, &mut sink).unwrap());
    assert_eq!((at, report.total_out), (total, total as u64));
    // Per worker and spare: a marked output of at most 2 × 1 MiB symbols (4 MiB), its input,
    // its decoder; the writer's decoder and resolved bytes. Far below the 256 MiB a chunk of zeros
    // could inflate to.
    assert!(peak < 64 << 20, "peak {} MiB", peak >> 20);
    assert!(report.serial_out > 200 << 20, "the zeros were decoded serially: {report:?}");
}
