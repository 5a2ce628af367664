//! What the inflate benchmarks share: one pass of each engine over a table of zlib streams
//! (offset, exact inflated size), the same calls wherever an engine is timed; the CPU clock, the
//! median, and the table file that `git_loop.c` and the zlib-ng helper read.

use flate2::{Decompress, FlushDecompress, Status};
use strided_inflate::{ChunkedInflater, Decoder, Format};

/// Every engine `pass` knows, in report order.
#[allow(dead_code)] // pack_bench's default; not every example that includes this file lists them
pub const ENGINES: [&str; 5] = ["bufkit", "bufkit-chunked", "libdeflate-direct", "flate2-zlib-rs", "miniz_oxide"];

/// Inflates every stream of `table` from `data` with `engine` (into `out`, as large as the largest
/// stream) and returns the input bytes they occupied, for checking that engines agree.
pub fn pass(engine: &str, data: &[u8], table: &[(usize, usize)], out: &mut [u8]) -> usize {
    let mut consumed = 0;
    match engine {
        "bufkit" => {
            let mut d = Decoder::new(Format::Zlib).expect("a decoder");
            for &(off, size) in table {
                consumed += d.inflate_at(data, off, &mut out[..size]).expect("a valid stream");
            }
        }
        "bufkit-chunked" => {
            // Bounded memory: 1 MiB chunks, whatever the stream's size.
            let mut inflater = ChunkedInflater::new(Format::Zlib);
            for &(off, size) in table {
                inflater.start(&data[off..]);
                while let Some(chunk) = inflater.next_chunk().expect("a valid stream") {
                    std::hint::black_box(chunk);
                }
                assert_eq!(inflater.total_out(), size as u64);
                consumed += inflater.consumed();
            }
        }
        "libdeflate-direct" => {
            // SAFETY: plain libdeflate calls on valid buffers; freed at the end.
            unsafe {
                let d = libdeflate_sys::libdeflate_alloc_decompressor();
                for &(off, size) in table {
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
                    consumed += used;
                }
                libdeflate_sys::libdeflate_free_decompressor(d);
            }
        }
        "flate2-zlib-rs" => {
            let mut d = Decompress::new(true);
            for &(off, size) in table {
                d.reset(true);
                let st = d.decompress(&data[off..], &mut out[..size], FlushDecompress::Finish).expect("a valid stream");
                assert_eq!(st, Status::StreamEnd);
                consumed += d.total_in() as usize;
            }
        }
        "miniz_oxide" => {
            use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
            let mut d = DecompressorOxide::new();
            let flags =
                inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER | inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
            for &(off, size) in table {
                d.init();
                let (st, used, made) = decompress(&mut d, &data[off..], &mut out[..size], 0, flags);
                assert_eq!((st, made), (miniz_oxide::inflate::TINFLStatus::Done, size), "{off}");
                consumed += used;
            }
        }
        other => panic!("unknown engine {other}"),
    }
    consumed
}

/// CPU seconds this process has used (all threads).
pub fn cpu_seconds() -> f64 {
    // SAFETY: clock_gettime fills the timespec it is given.
    let mut t: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: a valid clock id and out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

/// The median of `v` (the upper one of an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Writes `table` as `git_loop.c` and the zlib-ng helper read it: little-endian u64 offset and
/// size pairs.
pub fn write_table(path: &str, table: &[(usize, usize)]) -> std::io::Result<()> {
    let bytes: Vec<u8> = table
        .iter()
        .flat_map(|&(off, size)| [(off as u64).to_le_bytes(), (size as u64).to_le_bytes()])
        .flatten()
        .collect();
    std::fs::write(path, bytes)
}
