//! `bufkit extract`: asset-extract from the command line, with a progress bar on a terminal.

use std::path::Path;
use std::time::Instant;

use asset_extract::{Error, Mode, Options, Progress};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::report;

/// `bufkit extract`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// The archive: a file; an http:// or https:// URL (read by range requests, only the selected
    /// entries' data); or `-`, standard input (a pipe, a socket), spooled beside DEST as it arrives
    /// and extracted once whole, with every check a file gets (a file redirected to it is read in
    /// place, as the file).
    pub archive: std::path::PathBuf,
    /// The directory to create (or replace, or merge into).
    pub dest: std::path::PathBuf,
    /// Replace an existing DEST directory as a whole, atomically (refuses /, mount points,
    /// `.`/`..`, the current and home directories).
    #[arg(long, conflicts_with = "merge")]
    pub replace: bool,
    /// Add the archive's files into an existing DEST, replacing same-named files (symlinks in
    /// DEST are never followed).
    #[arg(long)]
    pub merge: bool,
    /// Refuse names that differ only in case even where DEST's file system keeps them apart.
    #[arg(long)]
    pub fold_case: bool,
    /// Refuse every name Windows reads otherwise than it is stored (a colon, `< > " | ? *`, a
    /// trailing dot or space, a device name such as CON or nul.txt, an 8.3 short name such as
    /// GIT~1, names that differ only in case), as extraction on Windows always does: for archives
    /// bound for Windows as well.
    #[arg(long)]
    pub portable_names: bool,
    /// Refuse entries that inflate to more than this many times their compressed size.
    #[arg(long)]
    pub max_ratio: Option<f64>,
    /// Refuse archives with other data before or after the zip part (a self-extractor's stub, a
    /// `.jmod` header), a cut end-record comment, or data after an entry's compressed stream
    /// inside its compressed size; all read past by default when every offset agrees.
    #[arg(long)]
    pub strict: bool,
    /// Skip symlink entries instead of refusing the archive (a link is never created).
    #[arg(long)]
    pub skip_symlinks: bool,
    /// Map the archive instead of reading it (no copy; the archive must not change meanwhile,
    /// or bufkit dies of SIGBUS).
    #[arg(long)]
    pub map_archive: bool,
    /// Worker threads (default: one per core); an entry inflated on several cores uses as many.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Inflate a large deflated entry on several cores: `auto` (an entry of 20 MiB or more, with
    /// 4 cores or more), `always` or `never`. The bytes and every check are the same.
    #[arg(long, value_enum, default_value_t = ParallelArg::Auto)]
    pub parallel_inflate: ParallelArg,
    /// Extract only entries matching this pattern (`*`, `?`, or `dir/`); repeatable.
    #[arg(long = "only")]
    pub only: Vec<String>,
    /// Refuse archives that would write more than this many bytes.
    #[arg(long)]
    pub quota: Option<u64>,
    /// fsync every file and directory before replacing DEST.
    #[arg(long)]
    pub durable: bool,
    /// Leave files and directories with the time of the extraction instead of the modification
    /// time the archive records.
    #[arg(long)]
    pub no_mtime: bool,
    /// Keep unchanged files from the previous (incremental) extraction into DEST; write only
    /// what changed.
    #[arg(long)]
    pub incremental: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `--parallel-inflate`'s values.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ParallelArg {
    Auto,
    Always,
    Never,
}

impl From<ParallelArg> for asset_extract::ParallelInflate {
    fn from(arg: ParallelArg) -> Self {
        match arg {
            ParallelArg::Auto => Self::Auto,
            ParallelArg::Always => Self::Always,
            ParallelArg::Never => Self::Never,
        }
    }
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
    prepended: u64,
    seconds: f64,
    /// For a URL: the bytes fetched, and in how many requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    fetched_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    requests: Option<u64>,
}

#[derive(Serialize)]
struct Failure<'a> {
    archive: String,
    dest: String,
    error: String,
    entry: Option<&'a str>,
}

pub fn run(args: Args) -> Result<(), String> {
    let (archive, dest) = (args.archive.as_path(), args.dest.as_path());
    let mode = match (args.replace, args.merge) {
        (true, _) => Mode::Replace,
        (_, true) => Mode::Merge,
        _ => Mode::Create,
    };
    crate::sys::cancel_on_interrupt();
    let bar = if args.json { ProgressBar::hidden() } else { ProgressBar::new(0) };
    bar.set_style(ProgressStyle::with_template("{bar:30} {bytes}/{total_bytes} {msg}").expect("static template"));
    let progress = |p: Progress| {
        bar.set_length(p.bytes_total);
        bar.set_position(p.bytes_done);
        bar.set_message(format!("{}/{} files", p.entries_done, p.entries_total));
    };
    let options = Options {
        mode,
        fold_case: args.fold_case,
        portable_names: args.portable_names,
        max_ratio: args.max_ratio,
        map_archive: args.map_archive,
        strict: args.strict,
        skip_symlinks: args.skip_symlinks,
        cancel: Some(&crate::sys::INTERRUPTED),
        threads: args.threads,
        parallel_inflate: args.parallel_inflate.into(),
        only: args.only.clone(),
        quota: args.quota,
        durable: args.durable,
        no_mtime: args.no_mtime,
        incremental: args.incremental,
        // Only when the bar is drawn (a terminal): otherwise each entry would pay for nothing.
        progress: if bar.is_hidden() { None } else { Some(&progress) },
    };
    let start = Instant::now();
    let mut fetched = None;
    let result = if archive == Path::new("-") {
        crate::sys::with_stdin_pipe(|stdin| asset_extract::extract_pipe(stdin, dest, &options))
    } else if crate::remote::is_url(archive) {
        crate::remote::open_url(archive).and_then(|source| {
            fetched = Some(source.fetched());
            asset_extract::extract_source(&source, dest, &options)
        })
    } else {
        asset_extract::extract(archive, dest, &options)
    };
    bar.finish_and_clear();
    let report = match result {
        Ok(report) => report,
        Err(e) => return Err(failure(archive, dest, &e, args.json)),
    };
    let summary = Summary {
        archive: archive.display().to_string(),
        dest: dest.display().to_string(),
        files: report.files,
        directories: report.directories,
        bytes: report.bytes,
        skipped: report.skipped,
        reused: report.reused,
        prepended: report.prepended,
        seconds: start.elapsed().as_secs_f64(),
        fetched_bytes: fetched.as_ref().map(|f| f.summary().0),
        requests: fetched.as_ref().map(|f| f.summary().1),
    };
    if let (Some(f), false) = (&fetched, args.json) {
        crate::remote::report(archive, f);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?);
    } else {
        println!(
            "{} -> {}: {} files{}, {} directories, {}{} in {}",
            summary.archive,
            summary.dest,
            summary.files,
            if args.incremental { format!(" ({} kept from before)", summary.reused) } else { String::new() },
            summary.directories,
            report::bytes(summary.bytes),
            if summary.skipped > 0 { format!(", {} skipped", summary.skipped) } else { String::new() }
                + &if report.symlinks_skipped > 0 {
                    format!(", {} symlinks skipped", report.symlinks_skipped)
                } else {
                    String::new()
                }
                + &if summary.prepended + report.appended > 0 {
                    format!(" ({} bytes before and {} after the archive ignored)", summary.prepended, report.appended)
                } else {
                    String::new()
                },
            report::duration(summary.seconds)
        );
    }
    Ok(())
}

/// The one-line error (or, with --json, a JSON object on stdout) for a failed extraction.
fn failure(archive: &Path, dest: &Path, e: &Error, json: bool) -> String {
    let message = match e {
        Error::Cancelled => "interrupted: nothing was extracted, nothing left behind".to_string(),
        e => format!("{}: {e}", archive.display()),
    };
    if json {
        let failure = Failure {
            archive: archive.display().to_string(),
            dest: dest.display().to_string(),
            error: e.to_string(),
            entry: e.entry(),
        };
        println!("{}", serde_json::to_string_pretty(&failure).unwrap_or_default());
    }
    message
}
