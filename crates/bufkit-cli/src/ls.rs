//! `bufkit ls`: an archive's entries, after the same validation as extraction, like `unzip -lv`.

#![forbid(unsafe_code)]

use std::io::Write;
use std::path::Path;

use asset_extract::{Entry, Kind};

pub fn run(archive: &Path, patterns: &[String], json: bool) -> Result<(), String> {
    let (opened, fetched) = crate::remote::open_archive(archive).map_err(|e| format!("{}: {e}", archive.display()))?;
    let selected: Vec<&Entry> = if patterns.is_empty() {
        opened.entries().iter().collect()
    } else {
        let mut indexes: Vec<usize> = patterns.iter().flat_map(|p| opened.list_matching(p)).collect();
        indexes.sort_unstable();
        indexes.dedup();
        indexes.into_iter().map(|i| &opened.entries()[i]).collect()
    };
    let links: Vec<&str> = opened
        .symlinks()
        .iter()
        .filter(|name| patterns.is_empty() || patterns.iter().any(|p| asset_extract::matches_pattern(p, name)))
        .map(String::as_str)
        .collect();
    let mut text = if json { as_json(&selected, &links) } else { as_table(&selected, &links) };
    if !json && opened.prepended() > 0 {
        text += &format!("{:>26}  ({} bytes before the archive, read past)\n", "", opened.prepended());
    }
    if let Some(fetched) = fetched {
        crate::remote::report(archive, &fetched);
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()), // `| head` is fine
        other => other.map_err(|e| format!("writing: {e}")),
    }
}

fn method(e: &Entry) -> &'static str {
    match (e.kind, e.method) {
        (Kind::Directory, _) => "dir",
        (_, method) => method.name(),
    }
}

fn as_table(entries: &[&Entry], links: &[&str]) -> String {
    let mut text = format!("{:>12} {:>12} {:<9} {:>8}  {}\n", "size", "compressed", "method", "crc32", "name");
    let (mut size, mut compressed) = (0u64, 0u64);
    for e in entries {
        size += e.size;
        compressed += e.compressed_size;
        let name = if e.kind == Kind::Directory { format!("{}/", e.path) } else { e.path.clone() };
        text += &format!("{:>12} {:>12} {:<9} {:08x}  {name}\n", e.size, e.compressed_size, method(e), e.crc32);
    }
    for name in links {
        text += &format!("{:>12} {:>12} {:<9} {:>8}  {name}\n", "-", "-", "symlink", "-");
    }
    let links = match links.len() {
        0 => String::new(),
        n => format!(", {n} symlinks (not extracted)"),
    };
    text += &format!("{size:>12} {compressed:>12} {:<7} {:>8}  {} entries{links}\n", "", "", entries.len());
    text
}

fn as_json(entries: &[&Entry], links: &[&str]) -> String {
    let mut rows: Vec<serde_json::Value> = entries
        .iter()
        .map(|e| {
            serde_json::json!({
                "name": e.path,
                "kind": if e.kind == Kind::Directory { "directory" } else { "file" },
                "size": e.size,
                "compressed_size": e.compressed_size,
                "method": method(e),
                "crc32": e.crc32,
            })
        })
        .collect();
    rows.extend(links.iter().map(|name| serde_json::json!({ "name": name, "kind": "symlink" })));
    serde_json::to_string_pretty(&rows).expect("plain values") + "\n"
}
