//! Extraction on several cores holds a bounded amount of memory whatever the entry's size: the
//! decoding threads' chunks, never the entry.

#[allow(dead_code)] // its listing is for the tests that extract over a tree
mod support;
#[allow(dead_code)]
mod zipwriter;

use std::io::Write;

use asset_extract::{Options, ParallelInflate, extract};
use support::workdir;
use zipwriter::{Spec, build};

/// The counting allocator strided-inflate's memory tests install too (one copy, by path).
#[path = "../../strided-inflate/tests/support/counting.rs"]
mod counting;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

/// Numbered lines, about 8:1 deflated, streamed into the compressor (never held whole).
fn deflated_lines(len: usize) -> (Vec<u8>, u32) {
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut crc = flate2::Crc::new();
    let (mut written, mut line, mut x) = (0, 0u64, 5u64);
    let mut block = Vec::with_capacity(1 << 16);
    while written < len {
        block.clear();
        while block.len() < (1 << 16) - 64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            writeln!(block, "{line:09} worker-{} handled /api/v1/items/{} in {}us", x % 13, x % 100_003, x % 9_973)
                .unwrap();
            line += 1;
        }
        block.truncate(len - written);
        crc.update(&block);
        encoder.write_all(&block).unwrap();
        written += block.len();
    }
    (encoder.finish().unwrap(), crc.sum())
}

#[test]
fn an_entry_far_larger_than_the_chunks_is_not_held() {
    let len = 96 << 20;
    let threads = 2;
    let (body, crc) = deflated_lines(len);
    // The entry's data is only described to the zip writer: its size and CRC-32 are set below.
    let (mut zip, layout) = build(&[Spec::packed("big.log", b"", 8, body)], b"");
    for at in [layout.local[0] + 14, layout.central[0] + 16] {
        zip[at..at + 4].copy_from_slice(&crc.to_le_bytes());
        zip[at + 8..at + 12].copy_from_slice(&(len as u32).to_le_bytes());
    }
    let dir = workdir("parallel-memory");
    let path = dir.join("big.zip");
    std::fs::write(&path, &zip).unwrap();
    drop(zip);
    let options = Options { parallel_inflate: ParallelInflate::Always, threads, ..Options::default() };
    let (report, held) = counting::held(|| extract(&path, &dir.join("out"), &options).unwrap());
    assert_eq!(report.bytes, len as u64);
    // The bound `ParallelInflate` documents: about 16 MiB for each chunk decoded ahead
    // (`threads + threads / 2 + 1`), whatever the entry's size (here larger than it).
    let bound = (threads + threads / 2 + 1) * (16 << 20);
    assert!(bound < len);
    assert!(held < bound, "{} MiB held for a {} MiB entry", held >> 20, len >> 20);
}
