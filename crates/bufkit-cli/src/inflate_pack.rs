//! `bufkit inflate-pack`: walk a git pack with strided-inflate and verify it.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use strided_inflate::pack::{self, Index, Object};

use crate::report;

#[derive(Serialize)]
struct Summary {
    pack: String,
    objects: usize,
    by_type: BTreeMap<&'static str, usize>,
    bytes_in: u64,
    bytes_out: u64,
    seconds: f64,
    objects_per_second: f64,
    megabytes_per_second_out: f64,
    checksum_verified: bool,
    index_verified: Option<bool>,
}

pub fn run(pack_path: &Path, idx_path: Option<&Path>, json: bool, threads: usize) -> Result<(), String> {
    let bytes = std::fs::read(pack_path).map_err(|e| format!("{}: {e}", pack_path.display()))?;
    let count = pack::pack_header(&bytes).map_err(|e| format!("{}: {e}", pack_path.display()))?;
    let index = match idx_path {
        Some(path) => {
            let idx = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Some(Index::parse(&idx).map_err(|e| format!("{}: {e}", path.display()))?)
        }
        None => None,
    };
    let progress = if json { ProgressBar::hidden() } else { ProgressBar::new(u64::from(count)) };
    progress.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} objects").expect("static template"));
    let bytes_out = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let start = Instant::now();
    let count_one = |data: &[u8]| {
        bytes_out.fetch_add(data.len() as u64, Ordering::Relaxed);
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(4096) {
            progress.set_position(n);
        }
    };
    let (objects, index_verified) = match &index {
        // Every offset is known: the objects are spread over threads, each checked against the index.
        Some(index) => {
            let objects = pack::walk_indexed(&bytes, index, threads, |_, data| count_one(data))
                .map_err(|e| format!("{}: {e}", pack_path.display()))?;
            (objects, Some(true))
        }
        None => {
            let mut objects: Vec<Object> = Vec::with_capacity(count as usize);
            pack::walk(&bytes, true, |object, data| {
                count_one(data);
                objects.push(object.clone());
            })
            .map_err(|e| format!("{}: {e}", pack_path.display()))?;
            (objects, None)
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    let bytes_out = bytes_out.into_inner();
    progress.finish_and_clear();
    let mut by_type = BTreeMap::new();
    for o in &objects {
        *by_type.entry(o.kind.name()).or_insert(0) += 1;
    }
    let bytes_in: u64 = objects.iter().map(|o| o.compressed_len as u64).sum();
    let summary = Summary {
        pack: pack_path.display().to_string(),
        objects: objects.len(),
        by_type,
        bytes_in,
        bytes_out,
        seconds,
        objects_per_second: objects.len() as f64 / seconds,
        megabytes_per_second_out: bytes_out as f64 / seconds / 1e6,
        checksum_verified: true,
        index_verified,
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?);
        return Ok(());
    }
    println!(
        "{}: {} objects, pack checksum ok{}",
        summary.pack,
        summary.objects,
        match index_verified {
            Some(_) => ", every offset and CRC-32 matches the index",
            None => "",
        }
    );
    let rows: Vec<Vec<String>> = summary.by_type.iter().map(|(k, n)| vec![k.to_string(), n.to_string()]).collect();
    print!("{}", report::table(&["type", "objects"], &rows));
    println!(
        "in {} compressed -> out {} in {} (walk, SHA-1 and inflate): {:.0} objects/s, {:.0} MB/s out",
        report::bytes(bytes_in),
        report::bytes(bytes_out),
        report::duration(seconds),
        summary.objects_per_second,
        summary.megabytes_per_second_out
    );
    Ok(())
}
