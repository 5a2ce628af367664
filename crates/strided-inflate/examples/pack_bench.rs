//! The inflate-only pass over a real pack, per engine, in CPU seconds (median of REPS passes).
//! Also writes the object table (stream offset, size as little-endian u64 pairs) that
//! `bench-reports/inflate/git_loop.c` reads, so git's own loop inflates the same objects.
//!
//! Usage: cargo run --release -p bufkit-strided-inflate --example pack_bench -- PACK TABLE_OUT REPS [ENGINE…]
//! With PACK=STREAM:<file>:<size> it times one large zlib stream instead (table of one entry).

use std::io::Write;

use flate2::{Decompress, FlushDecompress, Status};
use strided_inflate::{ChunkedInflater, Decoder, Format, pack};

fn cpu_seconds() -> f64 {
    // SAFETY: clock_gettime fills the timespec it is given.
    let mut t: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: a valid clock id and out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (source, table_out, reps) = (&args[1], &args[2], args[3].parse::<usize>().unwrap());
    let engines: Vec<&str> = if args.len() > 4 {
        args[4..].iter().map(String::as_str).collect()
    } else {
        vec!["bufkit", "bufkit-chunked", "libdeflate-direct", "flate2-zlib-rs", "miniz_oxide"]
    };
    let (data, table): (Vec<u8>, Vec<(usize, usize)>) = if let Some(spec) = source.strip_prefix("STREAM:") {
        let (file, size) = spec.rsplit_once(':').unwrap();
        (std::fs::read(file).unwrap(), vec![(0, size.parse().unwrap())])
    } else {
        let bytes = std::fs::read(source).unwrap();
        let mut t = Vec::new();
        pack::walk(&bytes, false, |o, _| t.push((o.offset + o.header_len, o.size))).unwrap();
        (bytes, t)
    };
    let mut f = std::fs::File::create(table_out).unwrap();
    for &(off, size) in &table {
        f.write_all(&(off as u64).to_le_bytes()).unwrap();
        f.write_all(&(size as u64).to_le_bytes()).unwrap();
    }
    let max = table.iter().map(|t| t.1).max().unwrap_or(0);
    let mut out = vec![0u8; max];
    let bytes_out: usize = table.iter().map(|t| t.1).sum();
    for engine in engines {
        let mut times = Vec::new();
        let mut consumed_total = 0usize;
        for _ in 0..reps {
            consumed_total = 0;
            let start = cpu_seconds();
            match engine {
                "bufkit" => {
                    let mut d = Decoder::new(Format::Zlib).unwrap();
                    for &(off, size) in &table {
                        consumed_total += d.inflate_at(&data, off, &mut out[..size]).unwrap();
                    }
                }
                "bufkit-chunked" => {
                    // Bounded memory: 1 MiB chunks, whatever the object's size.
                    let mut inflater = ChunkedInflater::new(Format::Zlib);
                    for &(off, size) in &table {
                        inflater.start(&data[off..]);
                        while let Some(chunk) = inflater.next_chunk().unwrap() {
                            std::hint::black_box(chunk);
                        }
                        assert_eq!(inflater.total_out(), size as u64);
                        consumed_total += inflater.consumed();
                    }
                }
                "libdeflate-direct" => {
                    // SAFETY: plain libdeflate calls on valid buffers; freed at the end.
                    unsafe {
                        let d = libdeflate_sys::libdeflate_alloc_decompressor();
                        for &(off, size) in &table {
                            let (mut used, mut made) = (0usize, 0usize);
                            let r = libdeflate_sys::libdeflate_zlib_decompress_ex(
                                d,
                                data[off..].as_ptr().cast(),
                                data.len() - off,
                                out.as_mut_ptr().cast(),
                                size,
                                &mut used,
                                &mut made,
                            );
                            assert_eq!((r, made), (0, size));
                            consumed_total += used;
                        }
                        libdeflate_sys::libdeflate_free_decompressor(d);
                    }
                }
                "flate2-zlib-rs" => {
                    let mut d = Decompress::new(true);
                    for &(off, size) in &table {
                        d.reset(true);
                        let st = d.decompress(&data[off..], &mut out[..size], FlushDecompress::Finish).unwrap();
                        assert_eq!(st, Status::StreamEnd);
                        consumed_total += d.total_in() as usize;
                    }
                }
                "miniz_oxide" => {
                    use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
                    let mut d = DecompressorOxide::new();
                    let flags = inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER
                        | inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
                    for &(off, size) in &table {
                        d.init();
                        let (st, used, made) = decompress(&mut d, &data[off..], &mut out[..size], 0, flags);
                        assert_eq!((st, made), (miniz_oxide::inflate::TINFLStatus::Done, size), "{off}");
                        consumed_total += used;
                    }
                }
                other => panic!("unknown engine {other}"),
            }
            times.push(cpu_seconds() - start);
        }
        println!(
            "{{\"engine\":\"{engine}\",\"seconds\":{:.6},\"objects\":{},\"bytes_out\":{bytes_out},\"consumed\":{consumed_total}}}",
            median(times),
            table.len()
        );
    }
}
