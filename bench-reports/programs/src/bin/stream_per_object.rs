//! Small zlib streams back to back (pack-like objects, median ~150 bytes compressed), each
//! inflated by a reused streaming decoder from the rest of the buffer: strided-inflate's
//! `StreamInflater` (the engine behind `bk_inflate_stream`) against zlib-rs through flate2's
//! `Decompress`, both handed the rest of the buffer, and both fed 512-byte strides as JGit feeds
//! `Inflater`. Prints the median nanoseconds per stream of ROUNDS rounds, alternating, and checks
//! that every engine ends every stream at the same place.
//!
//! Usage: cargo run --release -p bufkit-bench --bin stream_per_object -- [ROUNDS]

use std::io::Write;
use std::time::Instant;

use flate2::{Decompress, FlushDecompress, Status};
use strided_inflate::{Format, StreamInflater};

const OBJECTS: usize = 20_000;

/// An engine: walks every stream of `input`, fed whole or in strides, and returns where it ended.
type Walk = fn(&[u8], &[usize], Option<usize>, &mut [u8]) -> usize;

/// Tree-like objects (mode, name, and hex ids that do not compress), each a zlib stream.
fn pack_like() -> (Vec<u8>, Vec<usize>) {
    let (mut input, mut sizes, mut seed) = (Vec::new(), Vec::new(), 12345u32);
    for _ in 0..OBJECTS {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let len = 40 + (seed >> 16) as usize % 400;
        const HEX: &[u8] = b"0123456789abcdef";
        let object: Vec<u8> = (0..len)
            .map(|j| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                if j % 60 < 20 { b"100644 src/module.rs "[j % 20] } else { HEX[(seed >> 20) as usize % 16] }
            })
            .collect();
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(&object).expect("in memory");
        input.extend_from_slice(&e.finish().expect("in memory"));
        sizes.push(len);
    }
    (input, sizes)
}

fn ours(input: &[u8], sizes: &[usize], stride: Option<usize>, out: &mut [u8]) -> usize {
    let mut s = StreamInflater::new(Format::Zlib);
    let mut at = 0;
    for &n in sizes {
        s.reset(at);
        let mut from = at;
        at = loop {
            let end = stride.map_or(input.len(), |k| (from + k).min(input.len()));
            let step = s.feed(&input[from..end], &mut out[..n]).expect("valid");
            from += step.used;
            if let Some(total) = step.finished {
                break at + total;
            }
        };
    }
    at
}

fn zlib(input: &[u8], sizes: &[usize], stride: Option<usize>, out: &mut [u8]) -> usize {
    let mut d = Decompress::new(true);
    let mut at = 0;
    for &n in sizes {
        d.reset(true);
        loop {
            let from = at + d.total_in() as usize;
            let end = stride.map_or(input.len(), |k| (from + k).min(input.len()));
            let done = d.total_out() as usize;
            if d.decompress(&input[from..end], &mut out[done..n], FlushDecompress::None).expect("valid")
                == Status::StreamEnd
            {
                break;
            }
        }
        at += d.total_in() as usize;
    }
    at
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|r| r.parse().ok()).unwrap_or(9);
    let (input, sizes) = pack_like();
    let mut out = vec![0u8; 1000];
    let engines: [(&str, Walk, Option<usize>); 4] = [
        ("StreamInflater, the rest of the buffer", ours, None),
        ("zlib-rs, the rest of the buffer", zlib, None),
        ("StreamInflater, 512-byte strides", ours, Some(512)),
        ("zlib-rs, 512-byte strides", zlib, Some(512)),
    ];
    let mut times = vec![Vec::new(); engines.len()];
    for _ in 0..rounds {
        for (i, (_, run, stride)) in engines.iter().enumerate() {
            let start = Instant::now();
            assert_eq!(run(&input, &sizes, *stride, &mut out), input.len(), "every stream ends where the next starts");
            times[i].push(start.elapsed().as_nanos() as f64 / OBJECTS as f64);
        }
    }
    println!("{OBJECTS} zlib streams, {} bytes, {rounds} rounds (median ns per stream)", input.len());
    for ((name, _, _), mut t) in engines.iter().zip(times) {
        t.sort_by(|a, b| a.total_cmp(b));
        println!("  {name:<40} {:>8.0}", t[t.len() / 2]);
    }
}
