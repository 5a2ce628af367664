//! `bufkit test`: verify an archive without writing anything, like `unzip -t`.

#![forbid(unsafe_code)]

use std::io::Write;
use std::path::Path;

use asset_extract::{AssetArchive, Verification};

/// Verifies `archive`: its central directory at open, then every entry (local header, and a
/// file's data, size and CRC-32) on `threads` threads. Prints the failures and a summary, or JSON;
/// fails (a non-zero exit) if anything did not verify.
pub fn run(archive: &Path, json: bool, threads: usize) -> Result<(), String> {
    let name = archive.display().to_string();
    // Validated as every command validates it (every local header at open), so that `test`
    // passes exactly the archives `ls`, `cat` and `extract` accept.
    let (opened, fetched) = match crate::remote::open_archive(archive) {
        Ok(opened) => opened,
        Err(e) if json => {
            print(&serde_json::json!({ "archive": name, "ok": false, "error": e.to_string() }))?;
            return Err(format!("{name}: {e}"));
        }
        Err(e) => return Err(format!("{name}: {e}")),
    };
    let verified = opened.verify(threads);
    if json {
        let mut value = as_json(&name, &opened, &verified);
        if let Some(fetched) = &fetched {
            let (bytes, requests) = fetched.summary();
            value["fetched_bytes"] = bytes.into();
            value["requests"] = requests.into();
        }
        print(&value)?;
    } else {
        let mut text = String::new();
        for (index, e) in &verified.failures {
            text += &format!("FAILED  {}: {e}\n", opened.entries()[*index].path);
        }
        let before = match opened.prepended() {
            0 => String::new(),
            n => format!(" ({n} bytes before the archive, read past)"),
        };
        text += &if verified.is_ok() {
            format!("OK      {name}: {} entries, {} bytes verified{before}\n", verified.entries, verified.bytes)
        } else {
            format!("FAILED  {name}: {} of {} entries\n", verified.failures.len(), verified.entries)
        };
        write_out(text.as_bytes())?;
        if let Some(fetched) = &fetched {
            crate::remote::report(archive, fetched);
        }
    }
    if verified.is_ok() {
        Ok(())
    } else {
        Err(format!("{name}: {} of {} entries failed", verified.failures.len(), verified.entries))
    }
}

fn as_json(name: &str, opened: &AssetArchive, verified: &Verification) -> serde_json::Value {
    let failures: Vec<serde_json::Value> = verified
        .failures
        .iter()
        .map(|(index, e)| serde_json::json!({ "index": index, "name": opened.entries()[*index].path, "error": e.to_string() }))
        .collect();
    serde_json::json!({
        "archive": name,
        "ok": verified.is_ok(),
        "entries": verified.entries,
        "bytes": verified.bytes,
        "prepended": opened.prepended(),
        "failures": failures,
    })
}

fn print(value: &serde_json::Value) -> Result<(), String> {
    write_out((serde_json::to_string_pretty(value).expect("plain values") + "\n").as_bytes())
}

fn write_out(bytes: &[u8]) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| format!("writing: {e}")),
    }
}
