//! `bufkit`: demos of each buffer strategy on built-in data (more commands arrive with their crates).

mod demo;
mod report;

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
    },
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo { story, json, max_mb } => demo::run(story, &demo::Options { json, max_mb }),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bufkit: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
