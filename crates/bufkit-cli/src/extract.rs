//! `bufkit extract`: asset-extract from the command line, with a progress bar on a terminal.

use std::path::Path;
use std::time::Instant;

use asset_extract::{Options, Progress};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::report;

pub struct Args {
    pub threads: usize,
    pub only: Vec<String>,
    pub quota: Option<u64>,
    pub durable: bool,
    pub incremental: bool,
    pub json: bool,
}

#[derive(Serialize)]
struct Summary {
    archive: String,
    dest: String,
    files: u64,
    directories: u64,
    bytes: u64,
    skipped: u64,
    reused: u64,
    seconds: f64,
}

pub fn run(archive: &Path, dest: &Path, args: Args) -> Result<(), String> {
    let bar = if args.json { ProgressBar::hidden() } else { ProgressBar::new(0) };
    bar.set_style(ProgressStyle::with_template("{bar:30} {bytes}/{total_bytes} {msg}").expect("static template"));
    let progress = |p: Progress| {
        bar.set_length(p.bytes_total);
        bar.set_position(p.bytes_done);
        bar.set_message(format!("{}/{} files", p.entries_done, p.entries_total));
    };
    let options = Options {
        threads: args.threads,
        only: args.only,
        quota: args.quota,
        durable: args.durable,
        incremental: args.incremental,
        // Only when the bar is drawn (a terminal): otherwise each entry would pay for nothing.
        progress: if bar.is_hidden() { None } else { Some(&progress) },
        ..Options::default()
    };
    let start = Instant::now();
    let result = asset_extract::extract(archive, dest, &options);
    bar.finish_and_clear();
    let report = result.map_err(|e| format!("{}: {e}", archive.display()))?;
    let summary = Summary {
        archive: archive.display().to_string(),
        dest: dest.display().to_string(),
        files: report.files,
        directories: report.directories,
        bytes: report.bytes,
        skipped: report.skipped,
        reused: report.reused,
        seconds: start.elapsed().as_secs_f64(),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?);
    } else {
        println!(
            "{} -> {}: {} files ({} kept from before), {} directories, {}{} in {}",
            summary.archive,
            summary.dest,
            summary.files,
            summary.reused,
            summary.directories,
            report::bytes(summary.bytes),
            if summary.skipped > 0 { format!(", {} skipped", summary.skipped) } else { String::new() },
            report::duration(summary.seconds)
        );
    }
    Ok(())
}
