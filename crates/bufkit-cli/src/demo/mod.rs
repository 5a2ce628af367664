//! The stories behind bufkit, run side by side on built-in data.

mod assets;
mod compress;
mod extract;
mod growth;
mod inflate;
pub mod pool;

use clap::ValueEnum;

/// A demo story.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Story {
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

/// Options shared by every story.
pub struct Options {
    pub json: bool,
    pub max_mb: usize,
    pub rounds: usize,
}

/// Runs one story, or all of them.
pub fn run(story: Option<Story>, options: &Options) -> Result<(), String> {
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
