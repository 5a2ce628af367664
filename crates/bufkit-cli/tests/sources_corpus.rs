//! One reading or none from every place an archive comes from (issue 51): every input of
//! asset-extract's `sources` fuzz corpus (a piece size, then an archive) extracted by `bufkit`
//! from the file, from a pipe (`extract -`) and from a URL served by range requests on
//! 127.0.0.1, and in-process from a caller's source answering a piece at a time: the same tree
//! from all four, or a refusal from all four with nothing left at any destination. (The fuzz
//! target itself reads from memory, the file, a stream and a source; `differential.py` compares
//! the CLI's places with Python and unzip.) Works in a temporary directory of its own.

#[allow(dead_code)] // its `bufkit` is for the tests that want text
mod support;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use support::range_server::{RangeServer, Server};
use test_support::zip::Pieces;

/// Every file under `dir`, with its bytes, sorted; `None` if `dir` does not exist.
fn tree(dir: &Path) -> Option<Vec<(String, Vec<u8>)>> {
    if !dir.exists() {
        return None;
    }
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                found.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    found.sort();
    Some(found)
}

/// `bufkit extract ARCHIVE DEST`, with `stdin` piped in when given: what it left at DEST, or
/// `None` when it refused (and then left nothing).
fn extracted(archive: &str, dest: &Path, stdin: Option<&[u8]>) -> Option<Vec<(String, Vec<u8>)>> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bufkit"))
        .args(["extract", "--threads", "1", archive, dest.to_str().unwrap()])
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(bytes) = stdin {
        // A refusal may come before all is written: the pipe then breaks, which is fine.
        let _ = child.stdin.take().unwrap().write_all(bytes);
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{archive}: {out:?}");
    if out.status.success() {
        tree(dest)
    } else {
        assert!(!dest.exists(), "{archive}: a refused extraction left {}", dest.display());
        None
    }
}

#[test]
fn every_place_gives_one_reading_or_one_refusal() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../asset-extract/fuzz/corpus/sources");
    let tmp = tempfile::Builder::new().prefix("bufkit-sources-").tempdir().unwrap();
    let (mut read, mut refused) = (0, 0);
    for (k, input) in std::fs::read_dir(&corpus).unwrap().enumerate() {
        let input = input.unwrap().path();
        let data = std::fs::read(&input).unwrap();
        let Some((&piece, archive)) = data.split_first() else { continue };
        let work = tmp.path().join(k.to_string());
        std::fs::create_dir(&work).unwrap();
        let file = work.join("archive.zip");
        std::fs::write(&file, archive).unwrap();
        let server = RangeServer::start(archive.to_vec(), Server::Honest);
        let source = Pieces { bytes: archive.to_vec(), piece: usize::from(piece) + 1 };
        let options = asset_extract::Options { threads: 1, ..Default::default() };
        let from_source = asset_extract::extract_source(&source, &work.join("source"), &options);
        let places = [
            ("source", from_source.ok().and_then(|_| tree(&work.join("source")))),
            ("file", extracted(file.to_str().unwrap(), &work.join("file"), None)),
            ("pipe", extracted("-", &work.join("pipe"), Some(archive))),
            ("url", extracted(&server.url, &work.join("url"), None)),
        ];
        for (place, reading) in &places[1..] {
            assert!(
                reading == &places[0].1,
                "{}: from the {place}, {}; from the source, {}",
                input.display(),
                reading.as_ref().map_or("refused".to_string(), |t| format!("{} files", t.len())),
                places[0].1.as_ref().map_or("refused".to_string(), |t| format!("{} files", t.len())),
            );
        }
        if places[0].1.is_some() {
            read += 1
        } else {
            refused += 1
        }
        std::fs::remove_dir_all(&work).unwrap();
    }
    // The corpus holds both kinds: the check is not one of refusals only.
    assert!(read >= 10 && refused >= 100, "{read} read, {refused} refused");
}
