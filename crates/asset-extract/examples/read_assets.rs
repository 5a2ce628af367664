//! Opens an APK or any zip once, lists it, reads one entry in place and extracts the whole archive:
//!
//! ```sh
//! cargo run --release -p bufkit-asset-extract --example read_assets -- app.apk assets/index.js
//! ```
//!
//! With no arguments it does the same with the small archive the crate's doc examples read
//! (`tests/data/examples.zip`).

use std::path::PathBuf;

use asset_extract::{AssetArchive, Holding, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let work = std::env::temp_dir().join(format!("read-assets-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let mut args = std::env::args().skip(1);
    let (archive_path, wanted) = match (args.next(), args.next()) {
        (Some(path), name) => (PathBuf::from(path), name),
        (None, _) => {
            (PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/examples.zip")), Some("notes.txt".into()))
        }
    };
    // Opened and validated once; entries are then found by name without a scan.
    let archive = AssetArchive::open(&archive_path, Holding::Read)?;
    println!("{}: {} entries", archive_path.display(), archive.len());
    if let Some(name) = wanted {
        let index = archive.find(&name).ok_or_else(|| format!("no entry named {name}"))?;
        let bytes = archive.read(index)?; // inflated, its CRC-32 checked
        println!("{name}: {} bytes", bytes.len());
    }
    // All or nothing: the destination appears only once every entry has checked.
    let report = asset_extract::extract(&archive_path, &work.join("out"), &Options::default())?;
    println!("extracted {} files, {} bytes, into {}", report.files, report.bytes, work.join("out").display());
    std::fs::remove_dir_all(&work)?;
    Ok(())
}
