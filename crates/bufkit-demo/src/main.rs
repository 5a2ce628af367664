//! `bufkit-demo`: the stories behind bufkit, each strategy timed side by side on built-in data.
//!
//! Not shipped: the `bufkit` command and the libraries carry none of this. Run it from a checkout:
//!
//! ```text
//! cargo run --release -p bufkit-demo              # every story
//! cargo run --release -p bufkit-demo -- growth    # one story; --json for machine-readable rows
//! ```

mod assets;
mod compress;
mod extract;
mod growth;
mod inflate;
mod pool;
mod report;
mod sys;

use clap::{Parser, ValueEnum};

/// A story.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Story {
    /// JInterface's send buffer: linear +2 KiB growth vs geometric vs segmented vs one memcpy.
    Growth,
    /// A mobile runtime's asset copy: a fresh 100 KB buffer per file vs the allocator vs a pool.
    Pool,
    /// JGit's pack walk: many tiny zlib streams, whole-buffer copies vs strides vs bufkit.
    Inflate,
    /// A mobile runtime's first start: ~200 assets out of an APK, fresh buffers vs pooled vs bufkit.
    Extract,
    /// The same first start without extracting: the assets read in place, against extracting
    /// then reading the files, and against a new inflater and buffer per read.
    Assets,
}

#[derive(Parser)]
#[command(name = "bufkit-demo", about = "The stories behind bufkit, measured side by side on built-in data")]
struct Cli {
    /// Which story (default: every one).
    #[arg(value_enum)]
    story: Option<Story>,
    /// Print machine-readable JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Largest message size in MB for the growth story.
    #[arg(long, default_value_t = 40)]
    max_mb: usize,
    /// Rounds over the asset set for the pool story.
    #[arg(long, default_value_t = 1000)]
    rounds: usize,
    /// Runs one strategy of the pool story in this fresh process and prints its JSON measurement
    /// (the pool story starts one process per strategy so page faults and peak RSS are its own).
    #[arg(long, hide = true, conflicts_with = "story")]
    pool_strategy: Option<String>,
}

/// Options shared by every story.
struct Options {
    json: bool,
    max_mb: usize,
    rounds: usize,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let options = Options { json: cli.json, max_mb: cli.max_mb, rounds: cli.rounds };
    let outcome = match &cli.pool_strategy {
        Some(strategy) => pool::run_child(strategy, cli.rounds),
        None => run(cli.story, &options),
    };
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bufkit-demo: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Runs one story, or all of them.
fn run(story: Option<Story>, options: &Options) -> Result<(), String> {
    let stories = match story {
        Some(s) => vec![s],
        None => Story::value_variants().to_vec(),
    };
    for story in stories {
        match story {
            Story::Growth => growth::run(options)?,
            Story::Pool => pool::run(options)?,
            Story::Inflate => inflate::run(options)?,
            Story::Extract => extract::run(options)?,
            Story::Assets => assets::run(options)?,
        }
    }
    Ok(())
}
