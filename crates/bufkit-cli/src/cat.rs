//! `bufkit cat`: entries to stdout, like `unzip -p`, checked before a byte is written.

use std::io::Write;
use std::path::Path;

use asset_extract::Options;

pub fn run(archive: &Path, names: Vec<String>) -> Result<(), String> {
    let data = std::fs::read(archive).map_err(|e| format!("{}: {e}", archive.display()))?;
    let files = asset_extract::extract_to_memory(&data, &Options { only: names, ..Options::default() })
        .map_err(|e| format!("{}: {e}", archive.display()))?;
    let mut out = std::io::stdout().lock();
    for (_, bytes) in &files {
        match out.write_all(bytes) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()), // `| head` is fine
            other => other.map_err(|e| format!("writing: {e}"))?,
        }
    }
    out.flush().map_err(|e| format!("writing: {e}"))
}
