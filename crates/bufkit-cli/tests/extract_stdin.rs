//! `bufkit extract - DEST`: the archive read from standard input (a pipe) extracts as its file
//! does; one cut short is refused and leaves nothing. Works in a temporary directory of its own.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `bufkit extract - dest` with `input` written to its standard input through a pipe.
fn extract_piped(input: &[u8], dest: &std::path::Path) -> std::process::Output {
    extract_piped_pausing(input, dest, None)
}

/// As [`extract_piped`], the writer pausing `pause` (a number of pieces of 10,000 bytes, and how
/// long) as a download does.
fn extract_piped_pausing(
    input: &[u8],
    dest: &std::path::Path,
    pause: Option<(usize, std::time::Duration)>,
) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bufkit"))
        .args(["extract", "-"])
        .arg(dest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        for (i, piece) in input.chunks(10_000).enumerate() {
            if let Some((after, pause)) = pause
                && i == after
            {
                std::thread::sleep(pause);
            }
            if stdin.write_all(piece).is_err() {
                break; // bufkit stopped reading (it refused the stream)
            }
        }
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

#[test]
fn an_archive_piped_in_extracts_as_its_file_and_a_cut_one_leaves_nothing() {
    let tmp = tempfile::Builder::new().prefix("bufkit-extract-stdin-").tempdir().unwrap();
    let work = tmp.path();
    let files: Vec<(String, Vec<u8>)> = (0..50)
        .map(|i| (format!("assets/{i}.js"), format!("function f{i}() {{ return {i}; }}\n").repeat(200).into_bytes()))
        .collect();
    let zip = test_support::zip::deflated_zip(&files);
    let out = extract_piped(&zip, &work.join("out"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for (name, data) in &files {
        assert!(std::fs::read(work.join("out").join(name)).unwrap() == *data, "{name}");
    }
    let cut = extract_piped(&zip[..zip.len() - 30], &work.join("cut"));
    assert!(!cut.status.success());
    assert!(String::from_utf8_lossy(&cut.stderr).contains("malformed"), "{}", String::from_utf8_lossy(&cut.stderr));
    assert!(!work.join("cut").exists());
    // Nothing else beside the two: the spool had no name.
    assert_eq!(std::fs::read_dir(work).unwrap().count(), 1);
}

#[test]
fn a_large_archive_piped_in_fast_or_slowly_or_redirected_from_a_file_extracts_as_its_file() {
    let tmp = tempfile::Builder::new().prefix("bufkit-extract-stdin-large-").tempdir().unwrap();
    let work = tmp.path();
    // 24 MiB of entries: past the 8 MiB held in memory, so the rest of a fast pipe is spliced
    // into the spool's file; a slow one is followed, its entries staged as they arrive.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let files: Vec<(String, Vec<u8>)> = (0..24)
        .map(|i| {
            let data: Vec<u8> = (0..1 << 20)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 56) as u8
                })
                .collect();
            (format!("lib/{i}.so"), data)
        })
        .collect();
    let zip = test_support::zip::deflated_zip(&files);
    let check = |dest: &std::path::Path, out: &std::process::Output| {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        for (name, data) in &files {
            assert!(std::fs::read(dest.join(name)).unwrap() == *data, "{name}");
        }
    };
    let fast = work.join("fast");
    check(&fast, &extract_piped(&zip, &fast));
    // Slowly: a pause after the first MiB, then the rest.
    let slow = work.join("slow");
    let out = extract_piped_pausing(&zip, &slow, Some((105, std::time::Duration::from_millis(50))));
    check(&slow, &out);
    // Redirected from a file: read in place, as the file.
    let path = work.join("a.zip");
    std::fs::write(&path, &zip).unwrap();
    let redirected = work.join("redirected");
    let out = Command::new(env!("CARGO_BIN_EXE_bufkit"))
        .args(["extract", "-"])
        .arg(&redirected)
        .stdin(std::fs::File::open(&path).unwrap())
        .output()
        .unwrap();
    check(&redirected, &out);
}
