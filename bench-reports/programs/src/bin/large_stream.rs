//! One large raw deflate stream, inflated four ways: libdeflate into a whole-size buffer (already
//! faulted in, and fresh), `ChunkedInflater` in 1 MiB chunks, and zlib-rs (flate2) 1 MiB at a time.
//! Prints the median wall time of ROUNDS rounds for each, and checks all agree.
//!
//! Usage: cargo run --release -p bufkit-bench --bin large_stream -- FILE [ROUNDS]
//! (FILE is compressed here with flate2 at level 6 first, so any large file will do.)

use std::io::Write;
use std::time::Instant;

use flate2::{Decompress, FlushDecompress, Status};
use strided_inflate::{ChunkedInflater, Format};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn libdeflate(raw: &[u8], out: &mut [u8]) {
    // SAFETY: plain libdeflate calls on valid buffers; the decompressor is freed at the end.
    unsafe {
        let d = libdeflate_sys::libdeflate_alloc_decompressor();
        let (mut used, mut made) = (0usize, 0usize);
        let r = libdeflate_sys::libdeflate_deflate_decompress_ex(
            d,
            raw.as_ptr().cast(),
            raw.len(),
            out.as_mut_ptr().cast(),
            out.len(),
            &mut used,
            &mut made,
        );
        assert_eq!((r, made, used), (0, out.len(), raw.len()));
        libdeflate_sys::libdeflate_free_decompressor(d);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let data = std::fs::read(&args[1]).expect("input file");
    let rounds: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(5);
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(&data).unwrap();
    let raw = e.finish().unwrap();
    let mut warm = vec![1u8; data.len()];
    let (mut whole_warm, mut whole_fresh, mut chunked, mut zlib_rs) = (vec![], vec![], vec![], vec![]);
    let mut inflater = ChunkedInflater::new(Format::Raw);
    // Checked once, outside the clock.
    inflater.start(&raw);
    let mut at = 0;
    while let Some(c) = inflater.next_chunk().unwrap() {
        assert!(c == &data[at..at + c.len()], "chunked output differs at {at}");
        at += c.len();
    }
    assert_eq!(at, data.len());
    let mut chunk = vec![0u8; 1 << 20];
    for _ in 0..rounds {
        let t = Instant::now();
        libdeflate(&raw, &mut warm);
        whole_warm.push(t.elapsed().as_secs_f64());
        assert!(warm == data);

        let t = Instant::now();
        let mut fresh = vec![0u8; data.len()];
        libdeflate(&raw, &mut fresh);
        whole_fresh.push(t.elapsed().as_secs_f64());
        drop(fresh);

        let t = Instant::now();
        inflater.start(&raw);
        while let Some(c) = inflater.next_chunk().unwrap() {
            std::hint::black_box(c);
        }
        chunked.push(t.elapsed().as_secs_f64());
        assert!(inflater.total_out() == data.len() as u64 && inflater.consumed() == raw.len());

        let t = Instant::now();
        let mut d = Decompress::new(false);
        loop {
            let before = d.total_out();
            let st = d.decompress(&raw[d.total_in() as usize..], &mut chunk, FlushDecompress::None).unwrap();
            std::hint::black_box(&chunk[..(d.total_out() - before) as usize]);
            if st == Status::StreamEnd {
                break;
            }
        }
        zlib_rs.push(t.elapsed().as_secs_f64());
        assert_eq!(d.total_out() as usize, data.len());
    }
    println!(
        "{{\"bytes\":{},\"compressed\":{},\"libdeflate_whole_prefaulted_ms\":{:.1},\"libdeflate_whole_fresh_ms\":{:.1},\"chunked_ms\":{:.1},\"zlib_rs_1mib_ms\":{:.1}}}",
        data.len(),
        raw.len(),
        median(whole_warm) * 1e3,
        median(whole_fresh) * 1e3,
        median(chunked) * 1e3,
        median(zlib_rs) * 1e3
    );
}
