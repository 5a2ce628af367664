//! `bufkit inflate-pack`: walk a git pack with strided-inflate and verify it.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use strided_inflate::pack::{self, Index, Kind, Object};

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

/// The file's bytes, mapped rather than read: no copy into fresh memory before the walk can start
/// (reading an 11 MB pack and its 4 MB index was a tenth of a 2-thread walk's wall time).
fn map(path: &Path) -> Result<memmap2::Mmap, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    // SAFETY: the map is only read. Packs and indexes are written once and renamed into place, so
    // nothing changes them while mapped; were one truncated underneath anyway, reading past its new
    // end would fault, the risk git itself takes, as it maps packs the same way.
    unsafe { memmap2::Mmap::map(&file) }.map_err(|e| format!("{}: mapping: {e}", path.display()))
}

/// Why an indexed walk failed: the index file (its message names it), or the pack.
enum Failure {
    IndexFile(String),
    Pack(pack::PackError),
}

impl From<pack::PackError> for Failure {
    fn from(e: pack::PackError) -> Failure {
        Failure::Pack(e)
    }
}

/// Objects a thread walks between two updates of the shared progress count.
const PROGRESS_STEP: u64 = 4096;

/// Every kind of object, in the order of `Tally::by_kind`.
const KINDS: [Kind; 6] = [Kind::Commit, Kind::Tree, Kind::Blob, Kind::Tag, Kind::OfsDelta, Kind::RefDelta];

/// What one thread of the walk counted. Each worker keeps its own, so counting touches no shared
/// memory: two shared atomics per object passed a cache line between the cores 156,000 times on a
/// history-shaped pack.
#[derive(Default)]
struct Tally {
    objects: usize,
    by_kind: [usize; KINDS.len()],
    bytes_in: u64,
    bytes_out: u64,
    /// Objects counted here but not yet in the shared progress count.
    unreported: u64,
}

impl Tally {
    fn add(&mut self, object: &Object, done: &AtomicU64, progress: &ProgressBar) {
        self.objects += 1;
        self.by_kind[KINDS.iter().position(|&k| k == object.kind).expect("every kind is listed")] += 1;
        self.bytes_in += object.compressed_len as u64;
        self.bytes_out += object.size as u64;
        self.unreported += 1;
        if self.unreported == PROGRESS_STEP {
            self.unreported = 0;
            progress.set_position(done.fetch_add(PROGRESS_STEP, Ordering::Relaxed) + PROGRESS_STEP);
        }
    }

    fn merge(mut self, other: Tally) -> Tally {
        self.objects += other.objects;
        for (mine, theirs) in self.by_kind.iter_mut().zip(other.by_kind) {
            *mine += theirs;
        }
        self.bytes_in += other.bytes_in;
        self.bytes_out += other.bytes_out;
        self
    }
}

pub fn run(pack_path: &Path, idx_path: Option<&Path>, json: bool, threads: usize) -> Result<(), String> {
    let bytes = map(pack_path)?;
    let count = pack::pack_header(&bytes).map_err(|e| format!("{}: {e}", pack_path.display()))?;
    let progress = if json { ProgressBar::hidden() } else { ProgressBar::new(u64::from(count)) };
    progress.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} objects").expect("static template"));
    let done = AtomicU64::new(0);
    let start = Instant::now();
    let (tally, index_verified) = match idx_path {
        // Every offset is known: the objects are spread over threads, each checked against the
        // index, which is read and parsed while the pack's SHA-1 is already being checked.
        Some(idx_path) => {
            let index = || {
                let idx = map(idx_path).map_err(Failure::IndexFile)?;
                // git (2.41 and later) writes the objects' pack order beside the index: read
                // with it, the index needs no sort. The `.rev` is checked against the index.
                let rev_path = idx_path.with_extension("rev");
                let parsed = if rev_path.is_file() {
                    Index::parse_with_reverse(&idx, &map(&rev_path).map_err(Failure::IndexFile)?)
                        .map_err(|e| format!("{} with {}: {e}", idx_path.display(), rev_path.display()))
                } else {
                    Index::parse(&idx).map_err(|e| format!("{}: {e}", idx_path.display()))
                };
                parsed.map_err(Failure::IndexFile)
            };
            let tallies = pack::walk_indexed_from(&bytes, index, threads, Tally::default, |tally, _, object, _| {
                tally.add(object, &done, &progress)
            })
            .map_err(|failure| match failure {
                Failure::IndexFile(message) => message,
                Failure::Pack(e) => format!("{}: {e}", pack_path.display()),
            })?;
            (tallies.into_iter().fold(Tally::default(), Tally::merge), Some(true))
        }
        None => {
            let mut tally = Tally::default();
            pack::walk(&bytes, true, |object, _| tally.add(object, &done, &progress))
                .map_err(|e| format!("{}: {e}", pack_path.display()))?;
            (tally, None)
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    progress.finish_and_clear();
    let by_type: BTreeMap<&'static str, usize> =
        KINDS.iter().zip(tally.by_kind).filter(|&(_, n)| n > 0).map(|(k, n)| (k.name(), n)).collect();
    let summary = Summary {
        pack: pack_path.display().to_string(),
        objects: tally.objects,
        by_type,
        bytes_in: tally.bytes_in,
        bytes_out: tally.bytes_out,
        seconds,
        objects_per_second: tally.objects as f64 / seconds,
        megabytes_per_second_out: tally.bytes_out as f64 / seconds / 1e6,
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
        report::bytes(summary.bytes_in),
        report::bytes(summary.bytes_out),
        report::duration(seconds),
        summary.objects_per_second,
        summary.megabytes_per_second_out
    );
    Ok(())
}
