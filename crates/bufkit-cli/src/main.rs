//! `bufkit`: extract, list, verify and read zip/APK/JAR archives, and walk git packs.

// The C `main` below replaces std's: see `main` for why.
#![cfg_attr(not(test), no_main)]

mod cat;
mod extract;
mod inflate_pack;
mod ls;
mod range_response;
mod remote;
mod report;
mod slice;
mod sys;
mod test;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "bufkit", version, about = "Extract, list, verify and read zip/APK/JAR archives; walk git packs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Extract a zip/APK/JAR into DEST, all or nothing: nothing at DEST changes unless every
    /// entry has verified. DEST must not exist or be an empty directory, unless --replace or
    /// --merge says otherwise. Exits non-zero with a one-line error naming the entry or the path;
    /// Ctrl-C cancels and leaves nothing behind.
    Extract(extract::Args),
    /// Write entries of a zip/APK/JAR to stdout, like `unzip -p`: every file in archive order, or
    /// those NAMEs (exact names, or `*`/`?`/`dir/` patterns). Each entry is inflated once and
    /// checked (CRC-32, sizes): up to 64 MiB of them are checked before a byte is written; more
    /// are written as they inflate, and a failed check stops the command. Exits non-zero with the
    /// reason on any failure.
    Cat {
        /// The archive: a file, or an http:// or https:// URL (read by range requests, only what
        /// the command needs).
        archive: std::path::PathBuf,
        /// Entries to write (default: all).
        names: Vec<String>,
        /// Inflate a large deflated entry on several cores: `auto` (an entry of 20 MiB or more,
        /// with 4 cores or more), `always` or `never`. The bytes and every check are the same.
        #[arg(long, value_enum, default_value_t = extract::ParallelArg::Auto)]
        parallel_inflate: extract::ParallelArg,
        /// Only LEN bytes of the one entry NAME from OFFSET (`OFFSET:LEN`), inflated from the
        /// checkpoint before OFFSET: from --checkpoints, or built now (one pass over the entry).
        #[arg(long, value_name = "OFFSET:LEN")]
        range: Option<String>,
        /// Checkpoints `bufkit index` wrote for this entry of this archive (refused for another).
        #[arg(long, value_name = "FILE", requires = "range")]
        checkpoints: Option<std::path::PathBuf>,
    },
    /// Write a deflated entry's checkpoints to a file, so that `cat --range --checkpoints` reads
    /// a slice of it later for the cost of one checkpoint span (1 MiB of output) rather than the
    /// entry from its start. The entry is inflated (and, for a URL, fetched) once.
    Index {
        /// The archive: a file, or an http:// or https:// URL.
        archive: std::path::PathBuf,
        /// The entry.
        entry: String,
        /// Where to write the checkpoints.
        #[arg(short, long)]
        output: std::path::PathBuf,
    },
    /// List the entries of a zip/APK/JAR (size, compressed size, method, CRC-32, name), after
    /// validating the whole archive as extraction does: all of them, or those matching PATTERNs
    /// (exact names, or `*`/`?`/`dir/` patterns).
    Ls {
        /// The archive: a file, or an http:// or https:// URL (read by range requests, only what
        /// the command needs).
        archive: std::path::PathBuf,
        /// Entries to list (default: all).
        patterns: Vec<String>,
        /// Print machine-readable JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Verify a zip/APK/JAR without writing anything, like `unzip -t`: the central directory, then
    /// every entry's local header, and every file inflated with its size and CRC-32 checked.
    /// Prints each failure and a summary (or JSON); exits non-zero if anything failed.
    Test {
        /// The archive: a file, or an http:// or https:// URL (read by range requests, only what
        /// the command needs).
        archive: std::path::PathBuf,
        /// Print machine-readable JSON instead of lines.
        #[arg(long)]
        json: bool,
        /// Threads checking entries (default: one per core).
        #[arg(long, default_value_t = 0)]
        threads: usize,
    },
    /// Walk a git pack: inflate every object at its offset, count objects by type, and verify
    /// the walk against the pack's trailer and (with --idx) its index. Exits non-zero on any mismatch.
    InflatePack {
        /// The `.pack` file.
        pack: std::path::PathBuf,
        /// The pack's `.idx`, to check every offset and CRC-32 against. A `.rev` beside it (git
        /// 2.41 and later write one) is read too, for the objects' pack order, and checked.
        #[arg(long)]
        idx: Option<std::path::PathBuf>,
        /// Print machine-readable JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// With --idx: threads inflating objects (default: one per core). Without --idx the walk
        /// is sequential (each object's end is only known once it is inflated), the SHA-1 beside it.
        #[arg(long, default_value_t = 0)]
        threads: usize,
    },
}

/// The process's entry, in place of the `main` std would wrap. std's wrapper asks glibc where the
/// main thread's stack is (which reads and parses `/proc/self/maps`) to report stack overflows
/// by name: about 45 µs of a `bufkit cat` that takes 1.2 ms, as long as `unzip -p` takes for the
/// whole job (bench-reports/asset-extract.md). A stack overflow still stops the process, by
/// SIGSEGV. What else the wrapper did is done here: SIGPIPE ignored (a closed pipe is an error
/// that the commands handle), a panic exits with status 101, and stdout is flushed at the end.
#[cfg_attr(not(test), unsafe(no_mangle))]
#[cfg_attr(test, allow(dead_code))] // the test harness brings its own `main`
extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    sys::ignore_broken_pipe();
    // The arguments come from std (which reads them on Linux whatever the entry point).
    // After a panic (its message printed by the hook), std's status: 101.
    let status = std::panic::catch_unwind(run).unwrap_or(101);
    use std::io::Write;
    let _ = std::io::stdout().flush();
    status
}

/// The command line's command, run; its exit status.
fn run() -> std::ffi::c_int {
    match run_command() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("bufkit: {e}");
            1
        }
    }
}

fn run_command() -> Result<(), String> {
    let cli = Cli::parse();
    match cli.command {
        Command::Extract(args) => extract::run(args),
        Command::Cat { archive, names, parallel_inflate, range: None, .. } => {
            cat::run(&archive, names, parallel_inflate.into())
        }
        Command::Cat { archive, names, range: Some(range), checkpoints, .. } => match names.as_slice() {
            [name] => slice::cat_range(&archive, name, slice::parse_range(&range)?, checkpoints.as_deref()),
            _ => Err("--range takes exactly one entry NAME".into()),
        },
        Command::Index { archive, entry, output } => slice::index(&archive, &entry, &output),
        Command::Ls { archive, patterns, json } => ls::run(&archive, &patterns, json),
        Command::Test { archive, json, threads } => test::run(&archive, json, threads),
        Command::InflatePack { pack, idx, json, threads } => inflate_pack::run(&pack, idx.as_deref(), json, threads),
    }
}
