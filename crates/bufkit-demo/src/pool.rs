//! A mobile runtime's story: ~200 JavaScript assets copied out of an archive at first start.
//!
//! Allocating a fresh 100 KB buffer (plus an 8 KiB output buffer) per file made Java collect
//! garbage 650 times; a reused buffer fixed it. The native analogue of that cost is allocations,
//! zeroing and page faults. Each strategy runs in its own process, so its page faults and peak
//! RSS are its own; the buffers each allocates are counted by the strategy itself (the pool by
//! its own statistics).
//!
//! The pool and the reused buffer lend the same 4 KiB, so they cost about the same on one
//! thread: what the pool adds is what a single reused buffer cannot give. Any thread may take a
//! buffer from it at once (a static buffer serves one), what it keeps is bounded, and no global
//! holds the buffer between uses.

use std::hint::black_box;
use std::process::Command;
use std::time::Instant;

use buffer_pool::{BufferPool, PoolConfig};
use serde::{Deserialize, Serialize};

use super::Options;
use crate::report;

/// The buffer the reused and pooled strategies copy through: the Java fix's size.
const BUFFER: usize = 4096;

/// (name, what it does), in the order shown.
const STRATEGIES: [(&str, &str); 4] = [
    ("fresh-100k", "new zeroed 100 KB buffer + 8 KiB output buffer per file (the original)"),
    ("malloc-per-file", "system allocator: a 4 KiB buffer malloc'd, zeroed and freed per file"),
    ("reused-4k", "one static 4 KiB buffer for every file (the Java fix): one thread at a time"),
    ("pool-4k", "a 4 KiB buffer-pool lease per file: any thread, bounded, no global"),
];

#[derive(Serialize, Deserialize)]
struct Measurement {
    strategy: String,
    files: usize,
    bytes: u64,
    rounds: usize,
    seconds: f64,
    /// Buffers the strategy allocated over all rounds (the pool: its misses).
    allocations: u64,
    minor_faults: u64,
    peak_rss_kib: u64,
}

/// The asset set: 200 files of 0.3–120 KB, log-uniformly spread (most small, a few large), about
/// 4 MB in all like a real app's JavaScript bundle, with
/// JavaScript-like bytes. Fixed, so every run copies the same data.
fn assets() -> Vec<Vec<u8>> {
    let mut seed = 0x9e37_79b9_u32;
    let mut next = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        seed >> 8
    };
    let text = b"function(a,b){return a.map(function(x){return x+b;});};var module={exports:{}};\n";
    (0..200)
        .map(|_| {
            let u = (next() % 1000) as f64 / 1000.0;
            let size = (300.0 * 400f64.powf(u)) as usize;
            (0..size).map(|i| text[(i + size) % text.len()]).collect()
        })
        .collect()
}

/// Copies `src` through `buf` into `out`, as a read/write loop does.
fn copy_through(src: &[u8], buf: &mut [u8], out: &mut Vec<u8>) {
    for chunk in src.chunks(buf.len()) {
        buf[..chunk.len()].copy_from_slice(chunk);
        out.extend_from_slice(&buf[..chunk.len()]);
    }
}

/// Copies every file through the strategy's buffer; returns the buffers it allocated.
fn copy_all(
    strategy: &str,
    files: &[Vec<u8>],
    out: &mut Vec<u8>,
    pool: &BufferPool,
    reused: &mut [u8],
) -> Result<u64, String> {
    let mut allocated = 0;
    for file in files {
        out.clear();
        match strategy {
            "fresh-100k" => {
                let mut buf = vec![0u8; 100_000];
                let mut staging = Vec::with_capacity(8192); // what BufferedOutputStream adds
                allocated += 2;
                for chunk in file.chunks(buf.len()) {
                    buf[..chunk.len()].copy_from_slice(chunk);
                    for piece in buf[..chunk.len()].chunks(8192) {
                        staging.clear();
                        staging.extend_from_slice(piece);
                        out.extend_from_slice(&staging);
                    }
                }
                black_box(&buf);
            }
            "malloc-per-file" => {
                let mut buf = vec![0u8; BUFFER]; // malloc + zeroing, then free at the end of the file
                allocated += 1;
                copy_through(file, &mut buf, out);
            }
            "reused-4k" => copy_through(file, reused, out),
            "pool-4k" => {
                let mut lease = pool.acquire(BUFFER).map_err(|e| e.to_string())?;
                copy_through(file, &mut lease, out);
            }
            other => return Err(format!("unknown strategy {other}")),
        }
        black_box(&out);
    }
    Ok(allocated)
}

/// The child: measures one strategy over `rounds` passes and prints one JSON line.
pub fn run_child(strategy: &str, rounds: usize) -> Result<(), String> {
    let files = assets();
    let bytes: u64 = files.iter().map(|f| f.len() as u64).sum();
    let largest = files.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::with_capacity(largest);
    let pool = BufferPool::new(PoolConfig::default()).map_err(|e| e.to_string())?;
    let mut reused = vec![0u8; BUFFER];
    copy_all(strategy, &files[..1], &mut out, &pool, &mut reused)?; // the destination is warm for all
    let (faults0, misses0) = (crate::sys::page_faults(), pool.stats().misses());
    let start = Instant::now();
    let mut allocated = 0;
    for _ in 0..rounds {
        allocated += copy_all(strategy, &files, &mut out, &pool, &mut reused)?;
    }
    let seconds = start.elapsed().as_secs_f64();
    allocated += pool.stats().misses() - misses0;
    let faults = crate::sys::page_faults();
    let m = Measurement {
        strategy: strategy.to_string(),
        files: files.len(),
        bytes,
        rounds,
        seconds,
        allocations: allocated,
        minor_faults: faults - faults0,
        peak_rss_kib: crate::sys::peak_rss_kib(),
    };
    println!("{}", serde_json::to_string(&m).map_err(|e| e.to_string())?);
    Ok(())
}

pub fn run(options: &Options) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    let rounds = options.rounds.max(1);
    let mut results = Vec::new();
    for (name, _) in STRATEGIES {
        let output = Command::new(&exe)
            .args(["--pool-strategy", name, "--rounds", &rounds.to_string()])
            .output()
            .map_err(|e| format!("running the {name} strategy: {e}"))?;
        if !output.status.success() {
            return Err(format!("the {name} strategy failed: {}", String::from_utf8_lossy(&output.stderr).trim()));
        }
        let m: Measurement = serde_json::from_slice(&output.stdout).map_err(|e| format!("{name}: bad output: {e}"))?;
        results.push(m);
    }
    if options.json {
        println!("{}", serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?);
        return Ok(());
    }
    let first = &results[0];
    println!(
        "pool: copying {} assets ({}) through a buffer, {} rounds, one process per strategy\n",
        first.files,
        report::bytes(first.bytes),
        rounds
    );
    let pool_secs = results.iter().find(|m| m.strategy == "pool-4k").map_or(1.0, |m| m.seconds);
    let per_round = |n: u64| format!("{:.0}", n as f64 / rounds as f64);
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|m| {
            vec![
                m.strategy.clone(),
                report::duration(m.seconds / rounds as f64),
                per_round(m.allocations),
                per_round(m.minor_faults),
                report::bytes(m.peak_rss_kib * 1024),
                format!("{:.2}x", m.seconds / pool_secs),
            ]
        })
        .collect();
    print!(
        "{}",
        report::table(
            &["strategy", "time/round", "buffers allocated/round", "page faults/round", "peak RSS", "vs pool"],
            &rows
        )
    );
    println!();
    for (name, what) in STRATEGIES {
        println!("  {name}: {what}");
    }
    println!(
        "\n  On one thread the pool costs what the reused buffer costs: it lends the same 4 KiB. What it adds:\n  \
         any number of threads take buffers at once (a static buffer serves one), what it keeps is bounded\n  \
         (max_retained_bytes), and no global holds the buffer between uses."
    );
    Ok(())
}
