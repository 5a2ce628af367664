//! `bufkit ls|cat|test|extract URL`: an archive read by range requests from a server the test
//! starts on 127.0.0.1 (and stops): the same output as from the file, only what is asked for
//! fetched, and a server that misbehaves refused with nothing left at DEST. Nothing else on the
//! network is touched. Works in a temporary directory of its own.

#[allow(dead_code)] // its `bufkit` is for the tests that want text
mod support;

use std::process::Command;

use support::range_server::{RangeServer, Server};

/// An archive of 40 small deflated files and one large stored one (random bytes), the large one
/// in the middle; and its bytes.
fn archive() -> (Vec<u8>, Vec<(String, Vec<u8>)>) {
    let mut state = 0x9e3779b97f4a7c15u64;
    let mut noise = vec![0u8; 12 << 20];
    for b in noise.iter_mut() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        *b = state as u8;
    }
    let mut files: Vec<(String, Vec<u8>)> =
        (0..40).map(|i| (format!("assets/{i}.js"), format!("var v{i} = {i};\n").repeat(300).into_bytes())).collect();
    files.insert(20, ("assets/blob.bin".to_string(), noise));
    let log: String =
        (0..70_000).map(|i| format!("2026-12-05T02:{:02} GET /item/{} {}\n", i % 60, i * 7919 % 5003, i % 7)).collect();
    files.push(("logs/app.log".to_string(), log.into_bytes()));
    (test_support::zip::deflated_zip(&files), files)
}

fn bufkit(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_bufkit")).args(args).output().unwrap()
}

#[test]
fn a_remote_archive_reads_as_its_file_fetching_only_what_is_asked() {
    let tmp = tempfile::Builder::new().prefix("bufkit-remote-").tempdir().unwrap();
    let work = tmp.path();
    let (zip, files) = archive();
    let path = work.join("app.zip");
    std::fs::write(&path, &zip).unwrap();
    let file = path.to_str().unwrap();
    let server = RangeServer::start(zip.clone(), Server::Honest);
    let url = server.url.as_str();

    // ls: the same listing.
    let (from_file, from_url) = (bufkit(&["ls", file]), bufkit(&["ls", url]));
    assert!(from_url.status.success(), "{}", String::from_utf8_lossy(&from_url.stderr));
    assert_eq!(from_file.stdout, from_url.stdout);
    assert!(String::from_utf8_lossy(&from_url.stderr).contains("fetched"));

    // cat of one small entry: the end records, the central directory, that entry and at most
    // 64 KiB more.
    let before = server.sent();
    let out = bufkit(&["cat", url, "assets/3.js"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, files[3].1);
    let fetched = server.sent() - before;
    let central = zip.len() - zip.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    let bound = central + 22 + files[3].1.len() + (64 << 10);
    assert!(fetched <= bound as u64, "{fetched} bytes fetched for one small entry ({bound} allowed)");
    assert!(fetched < zip.len() as u64 / 10);

    // cat of the large entry, test, and extract: the same bytes as from the file.
    let out = bufkit(&["cat", url, "assets/blob.bin"]);
    assert!(out.status.success() && out.stdout == files[20].1);
    let out = bufkit(&["test", "--json", url]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["fetched_bytes"].as_u64().unwrap() >= zip.len() as u64 - (64 << 10));
    let dest = work.join("out");
    let out = bufkit(&["extract", "--json", url, dest.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["files"], 42);
    assert!(report["requests"].as_u64().unwrap() >= 2);
    for (name, data) in &files {
        assert!(std::fs::read(dest.join(name)).unwrap() == *data, "{name}");
    }

    // A slice of the deflated log, from checkpoints `bufkit index` wrote: one span fetched (its
    // compressed bytes, at most a quarter of the entry's here), not the entry.
    let log = &files.last().unwrap().1;
    let points = work.join("log.idx");
    let compressed = {
        let listing = bufkit(&["ls", "--json", file]);
        let rows: serde_json::Value = serde_json::from_slice(&listing.stdout).unwrap();
        rows.as_array().unwrap().iter().find(|r| r["name"] == "logs/app.log").unwrap()["compressed_size"]
            .as_u64()
            .unwrap()
    };
    // Indexing fetches the entry once: its checkpoints' digests come from the same pass.
    let before = server.sent();
    let out = bufkit(&["index", url, "logs/app.log", "-o", points.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let fetched = server.sent() - before;
    let bound = (64 << 10) + 22 + central as u64 + compressed + (64 << 10);
    assert!(fetched <= bound, "{fetched} bytes fetched to index an entry of {compressed} ({bound} allowed)");
    let before = server.sent();
    let at = log.len() - 10_000;
    let range = format!("{at}:4096");
    let out = bufkit(&["cat", "--range", &range, "--checkpoints", points.to_str().unwrap(), url, "logs/app.log"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, log[at..at + 4096]);
    let fetched = server.sent() - before;
    let bound = (64 << 10) + 22 + central as u64 + compressed / 2 + (64 << 10);
    assert!(fetched <= bound, "{fetched} bytes fetched for a 4 KiB slice ({bound} allowed, entry {compressed})");
    // Checkpoints of another entry: refused.
    let out = bufkit(&["cat", "--range", "0:10", "--checkpoints", points.to_str().unwrap(), url, "assets/3.js"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("checkpoints"), "{}", String::from_utf8_lossy(&out.stderr));
    drop(server);
}

#[test]
fn a_server_that_misbehaves_is_refused_and_leaves_nothing() {
    let tmp = tempfile::Builder::new().prefix("bufkit-remote-bad-").tempdir().unwrap();
    let work = tmp.path();
    let (zip, _) = archive();
    for (how, says) in [
        (Server::IgnoresRanges, "must serve ranges"),
        (Server::WrongRange, "wrong Content-Range"),
        (Server::ChangesEtag, "changed on the server"),
        (Server::ShortBody, "bytes"),
    ] {
        let server = RangeServer::start(zip.clone(), how);
        let dest = work.join(format!("{how:?}"));
        let out = bufkit(&["extract", &server.url, dest.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{how:?}: succeeded");
        assert!(stderr.contains(says), "{how:?}: {stderr}");
        assert!(!dest.exists(), "{how:?}: something left");
        let server = RangeServer::start(zip.clone(), how);
        let out = bufkit(&["cat", &server.url, "assets/blob.bin"]);
        assert!(!out.status.success(), "{how:?}: cat succeeded");
    }
}
