//! `bufkit`: demos of each buffer strategy on built-in data (more commands arrive with their crates).

mod alloc_count;
mod cat;
mod demo;
mod extract;
mod inflate_pack;
mod report;

#[global_allocator]
static ALLOCATOR: alloc_count::Counting = alloc_count::Counting;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "bufkit", version, about = "Buffer strategies that are never quadratic, measured side by side")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the stories behind bufkit on built-in data; with no story, run them all.
    Demo {
        /// Which story.
        #[arg(value_enum)]
        story: Option<demo::Story>,
        /// Print machine-readable JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Largest message size in MB for the growth story.
        #[arg(long, default_value_t = 40)]
        max_mb: usize,
        /// Rounds over the asset set for the pool story.
        #[arg(long, default_value_t = 200)]
        rounds: usize,
    },
    /// Extract a zip/APK/JAR into DEST, all or nothing: nothing at DEST changes unless every
    /// entry has verified. DEST must not exist or be an empty directory, unless --replace or
    /// --merge says otherwise. Exits non-zero with a one-line error naming the entry or the path;
    /// Ctrl-C cancels and leaves nothing behind.
    Extract {
        /// The archive.
        archive: std::path::PathBuf,
        /// The directory to create (or replace, or merge into).
        dest: std::path::PathBuf,
        /// Replace an existing DEST directory as a whole, atomically (refuses /, mount points,
        /// `.`/`..`, the current and home directories).
        #[arg(long, conflicts_with = "merge")]
        replace: bool,
        /// Add the archive's files into an existing DEST, replacing same-named files (symlinks in
        /// DEST are never followed).
        #[arg(long)]
        merge: bool,
        /// Refuse names that differ only in case even where DEST's file system keeps them apart.
        #[arg(long)]
        fold_case: bool,
        /// Refuse entries that inflate to more than this many times their compressed size.
        #[arg(long)]
        max_ratio: Option<f64>,
        /// Refuse archives with other data prepended to the zip part (a self-extractor's stub, a
        /// `.jmod` header); accepted by default when every offset agrees.
        #[arg(long)]
        strict: bool,
        /// Skip symlink entries instead of refusing the archive (a link is never created).
        #[arg(long)]
        skip_symlinks: bool,
        /// Map the archive instead of reading it (no copy; the archive must not change meanwhile,
        /// or bufkit dies of SIGBUS).
        #[arg(long)]
        map_archive: bool,
        /// Worker threads (default: one per core).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Extract only entries matching this pattern (`*`, `?`, or `dir/`); repeatable.
        #[arg(long = "only")]
        only: Vec<String>,
        /// Refuse archives that would write more than this many bytes.
        #[arg(long)]
        quota: Option<u64>,
        /// fsync every file and directory before replacing DEST.
        #[arg(long)]
        durable: bool,
        /// Keep unchanged files from the previous (incremental) extraction into DEST; write only
        /// what changed.
        #[arg(long)]
        incremental: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write entries of a zip/APK/JAR to stdout, like `unzip -p`: every file in archive order, or
    /// those NAMEs (exact names, or `*`/`?`/`dir/` patterns). Nothing is written unless every
    /// selected entry verified (CRC-32, sizes); exits non-zero with the reason otherwise.
    Cat {
        /// The archive.
        archive: std::path::PathBuf,
        /// Entries to write (default: all).
        names: Vec<String>,
    },
    /// Walk a git pack: inflate every object at its offset, count objects by type, and verify
    /// the walk against the pack's trailer and (with --idx) its index. Exits non-zero on any mismatch.
    InflatePack {
        /// The `.pack` file.
        pack: std::path::PathBuf,
        /// The pack's `.idx`, to check every offset and CRC-32 against.
        #[arg(long)]
        idx: Option<std::path::PathBuf>,
        /// Print machine-readable JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Runs one strategy of the pool story in this fresh process and prints its JSON measurement
    /// (the pool story starts one process per strategy so page faults and peak RSS are its own).
    #[command(hide = true)]
    PoolStrategy { strategy: String, rounds: usize },
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo { story, json, max_mb, rounds } => demo::run(story, &demo::Options { json, max_mb, rounds }),
        Command::Extract {
            archive,
            dest,
            replace,
            merge,
            fold_case,
            max_ratio,
            map_archive,
            strict,
            skip_symlinks,
            threads,
            only,
            quota,
            durable,
            incremental,
            json,
        } => {
            let mode = match (replace, merge) {
                (true, _) => asset_extract::Mode::Replace,
                (_, true) => asset_extract::Mode::Merge,
                _ => asset_extract::Mode::Create,
            };
            let args = extract::Args {
                mode,
                fold_case,
                max_ratio,
                map_archive,
                strict,
                skip_symlinks,
                threads,
                only,
                quota,
                durable,
                incremental,
                json,
            };
            extract::run(&archive, &dest, args)
        }
        Command::Cat { archive, names } => cat::run(&archive, names),
        Command::InflatePack { pack, idx, json } => inflate_pack::run(&pack, idx.as_deref(), json),
        Command::PoolStrategy { strategy, rounds } => demo::pool::run_child(&strategy, rounds),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bufkit: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
