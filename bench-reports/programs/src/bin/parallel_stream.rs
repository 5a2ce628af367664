//! One large raw deflate stream: serial (ChunkedInflater), libdeflate into one buffer, and
//! `inflate_parallel` on 1 and 2 threads, each the median of 5 rounds, with CPU time.
//! Usage: cargo run --release -p bufkit-bench --bin parallel_stream -- [MiB] [FILE]
//! (FILE: a raw deflate stream to use instead of generated log lines).

use std::io::Write;
use std::time::Instant;

use strided_inflate::{ChunkedInflater, Decoder, Format, Parallel, inflate_parallel};

/// CPU seconds this process has used, user and system.
fn cpu() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
    // SAFETY: zeroed, then filled by getrusage.
    let u = unsafe { usage.assume_init() };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(u.ru_utime) + seconds(u.ru_stime)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mib: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(256);
    let (stream, len) = match args.get(2) {
        Some(path) => {
            let stream = std::fs::read(path).unwrap();
            let len = {
                let mut i = ChunkedInflater::new(Format::Raw);
                i.start(&stream);
                let mut n = 0;
                while let Some(c) = i.next_chunk().unwrap() {
                    n += c.len();
                }
                n
            };
            (stream, len)
        }
        None => {
            let mut data = Vec::with_capacity(mib << 20);
            let mut state = 28u64;
            while data.len() < mib << 20 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                data.extend_from_slice(
                    format!(
                        "2026-12-02T{:02}:{:02}:{:02}Z 10.0.{}.{} GET /api/v1/items/{} {} {}ms\n",
                        state % 24,
                        state % 60,
                        (state >> 8) % 60,
                        (state >> 16) % 256,
                        (state >> 24) % 256,
                        (state >> 32) % 100000,
                        [200, 200, 404, 500][(state % 4) as usize],
                        state % 2000
                    )
                    .as_bytes(),
                );
            }
            data.truncate(mib << 20);
            let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
            e.write_all(&data).unwrap();
            let len = data.len();
            (e.finish().unwrap(), len)
        }
    };
    if let Some(path) = std::env::var_os("SAVE") {
        std::fs::write(path, &stream).unwrap();
    }
    println!("stream: {} bytes inflating to {} ({:.1}:1)", stream.len(), len, len as f64 / stream.len() as f64);
    let mut out = vec![0u8; len];
    let time = |name: &str, f: &mut dyn FnMut()| {
        let mut walls = Vec::new();
        let mut cpus = Vec::new();
        for _ in 0..5 {
            let (c, t) = (cpu(), Instant::now());
            f();
            walls.push(t.elapsed().as_secs_f64());
            cpus.push(cpu() - c);
        }
        walls.sort_by(f64::total_cmp);
        cpus.sort_by(f64::total_cmp);
        println!("{name:<28} {:8.1} ms wall  {:8.1} ms CPU", walls[2] * 1e3, cpus[2] * 1e3);
        walls[2]
    };
    let only = std::env::var("THREADS").ok().and_then(|t| t.parse::<usize>().ok());
    let mut decoder = Decoder::new(Format::Raw).unwrap();
    let skip = only.is_some() && std::env::var_os("SKIP_BASE").is_some();
    let time = |name: &str, f: &mut dyn FnMut()| {
        if skip && !name.starts_with("inflate_parallel") { 1.0 } else { time(name, f) }
    };
    let libdeflate = time("libdeflate, one buffer", &mut || {
        decoder.inflate_at(&stream, 0, &mut out).unwrap();
    });
    let serial = time("ChunkedInflater, serial", &mut || {
        let mut i = ChunkedInflater::new(Format::Raw);
        i.start(&stream);
        let mut at = 0;
        while let Some(c) = i.next_chunk().unwrap() {
            out[at..at + c.len()].copy_from_slice(c);
            at += c.len();
        }
    });
    let source = |offset: u64, buf: &mut [u8]| -> std::io::Result<usize> {
        let rest = stream.get(offset as usize..).unwrap_or(&[]);
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        Ok(n)
    };
    for threads in only.map_or(vec![1, 2], |t| vec![t]) {
        let mut report = None;
        let wall = time(&format!("inflate_parallel, {threads} thread(s)"), &mut || {
            let mut at = 0;
            let mut sink = |b: &[u8]| -> std::io::Result<()> {
                out[at..at + b.len()].copy_from_slice(b);
                at += b.len();
                Ok(())
            };
            report = Some(
                inflate_parallel(
                    stream.len() as u64,
                    Some(len as u64),
                    Parallel {
                        threads,
                        patient: std::env::var_os("PATIENT").is_some(),
                        chunk_out: std::env::var("CHUNK_MIB")
                            .ok()
                            .and_then(|m| m.parse::<u64>().ok())
                            .map_or(Parallel::default().chunk_out, |m| m << 20),
                        keep_speculating: std::env::var_os("KEEP_SPECULATING").is_some(),
                    },
                    &source,
                    &mut sink,
                )
                .unwrap(),
            );
        });
        println!("    {:?}; {:.2}x serial, {:.2}x libdeflate", report.unwrap(), serial / wall, libdeflate / wall);
    }
}
