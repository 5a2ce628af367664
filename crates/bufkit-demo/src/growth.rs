//! JInterface's story: a message of many 20–30-byte strings appended to a send buffer.
//!
//! Growing by a constant 2 KiB copies the whole buffer every 2 KiB, so the cost is quadratic;
//! geometric growth through realloc/mremap and segmented chunks stay within a small factor of one
//! memcpy of the same bytes into fresh memory.

#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::Instant;

use growable_buffer::workload::{self, memcpy_into_fresh_pages, piece_lengths};
use growable_buffer::{GrowableBuffer, Growth};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use super::Options;
use crate::report;

const MB: usize = 1_000_000;
/// Largest size at which the linear baseline is really run; above it its time is extrapolated.
const LINEAR_MAX_MB: usize = 4;

#[derive(Serialize)]
struct Row {
    mb: usize,
    policy: &'static str,
    seconds: f64,
    /// False when the time is extrapolated from the largest measured linear run (t ∝ size²).
    measured: bool,
    grows: u64,
    moves: u64,
    bytes_copied: u64,
    ratio_to_memcpy: f64,
}

#[derive(Serialize)]
struct Report {
    story: &'static str,
    piece_bytes: &'static str,
    rows: Vec<Row>,
}

/// Fastest of `runs` timings of `f`, with the value it returned on that run.
fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best: Option<(f64, T)> = None;
    for _ in 0..runs {
        let start = Instant::now();
        let value = black_box(f());
        let secs = start.elapsed().as_secs_f64();
        if best.as_ref().is_none_or(|(b, _)| secs < *b) {
            best = Some((secs, value));
        }
    }
    best.expect("runs > 0")
}

fn fill(growth: Growth, source: &[u8], lens: &[u8]) -> Result<growable_buffer::Stats, String> {
    let mut buf = GrowableBuffer::with_growth(growth).map_err(|e| e.to_string())?;
    workload::fill(&mut buf, source, lens).map_err(|e| e.to_string())?;
    Ok(buf.stats())
}

pub fn run(options: &Options) -> Result<(), String> {
    let max_mb = options.max_mb.max(1);
    let mut sizes: Vec<usize> = [1, 2, 4, 16, 40, 100, 400].into_iter().filter(|&s| s <= max_mb).collect();
    if !sizes.contains(&max_mb) {
        sizes.push(max_mb);
    }
    let source: Vec<u8> = (0..max_mb * MB).map(|i| b' ' + (i % 95) as u8).collect();
    let policies: [(&str, Growth); 3] = [
        ("geometric x2", Growth::Geometric { factor: 2.0 }),
        ("geometric x1.5", Growth::Geometric { factor: 1.5 }),
        ("segmented 64 KiB", Growth::Segmented { chunk_size: 64 * 1024 }),
    ];
    let steps = sizes.len() * (policies.len() + 2);
    let progress = if options.json { ProgressBar::hidden() } else { ProgressBar::new(steps as u64) };
    progress.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}").expect("static template"));

    let mut rows = Vec::new();
    let mut linear_anchor: Option<(usize, f64)> = None;
    for &mb in &sizes {
        let total = mb * MB;
        let lens = piece_lengths(total);
        let src = &source[..total];
        let runs = 3;
        progress.set_message(format!("{mb} MB: memcpy"));
        let (memcpy_secs, copied) = best_of(runs, || memcpy_into_fresh_pages(src));
        copied.ok_or("mmap of the reference buffer failed")?;
        progress.inc(1);
        let row = |policy: &'static str, secs: f64, measured: bool, stats: growable_buffer::Stats| Row {
            mb,
            policy,
            seconds: secs,
            measured,
            grows: stats.grows,
            moves: stats.moves,
            bytes_copied: stats.bytes_copied,
            ratio_to_memcpy: secs / memcpy_secs,
        };
        rows.push(row("one memcpy (reference)", memcpy_secs, true, growable_buffer::Stats::default()));
        for (name, growth) in policies {
            progress.set_message(format!("{mb} MB: {name}"));
            let (secs, stats) = best_of(runs, || fill(growth, src, &lens));
            rows.push(row(name, secs, true, stats?));
            progress.inc(1);
        }
        progress.set_message(format!("{mb} MB: linear +2 KiB"));
        let linear = Growth::Linear { step: 2048 };
        if mb <= LINEAR_MAX_MB {
            let (secs, stats) = best_of(1, || fill(linear, src, &lens));
            linear_anchor = Some((mb, secs));
            rows.push(row("linear +2 KiB", secs, true, stats?));
        } else if let Some((anchor_mb, anchor_secs)) = linear_anchor {
            // Not run: every grow copies the whole buffer, so time scales with the size squared.
            let scale = (mb as f64 / anchor_mb as f64).powi(2);
            let grows = total.div_ceil(2048) as u64;
            let copied = (1..grows).map(|g| g * 2048).sum::<u64>();
            let stats =
                growable_buffer::Stats { len: total, capacity: total, grows, moves: grows - 1, bytes_copied: copied };
            rows.push(row("linear +2 KiB", anchor_secs * scale, false, stats));
        }
        progress.inc(1);
    }
    progress.finish_and_clear();

    if options.json {
        let report = Report { story: "growth", piece_bytes: "20-30", rows };
        println!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
        return Ok(());
    }
    println!("growth: appending 20-30-byte pieces into one buffer (JInterface's send buffer)\n");
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let time = report::duration(r.seconds);
            vec![
                format!("{} MB", r.mb),
                r.policy.to_string(),
                if r.measured { time } else { format!("~{time} (est.)") },
                r.grows.to_string(),
                report::bytes(r.bytes_copied),
                format!("{:.2}x", r.ratio_to_memcpy),
            ]
        })
        .collect();
    print!("{}", report::table(&["size", "policy", "time", "grows", "bytes copied", "vs memcpy"], &cells));
    println!(
        "\nlinear +2 KiB is run up to {LINEAR_MAX_MB} MB and extrapolated (t ~ size^2) above: each grow copies the whole buffer.\n\
         geometric grows in place (realloc below {}, mremap above: pages move, bytes do not); segmented never copies.",
        report::bytes(growable_buffer::MAP_THRESHOLD as u64)
    );
    Ok(())
}
