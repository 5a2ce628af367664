//! The process as a shell sees it, now that `bufkit` enters by a C `main` instead of std's
//! wrapper: exit statuses (0, 1 with a one-line error, 2 for usage), a reader that closes the
//! pipe early (no error, no panic, as std's ignored SIGPIPE gave), and output that arrives whole.

mod support;

use std::io::Read;
use std::process::{Command, Stdio};

fn bufkit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bufkit"))
}

#[test]
fn exit_statuses_say_success_failure_and_misuse() {
    let out = bufkit().arg("--version").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("bufkit "), "{out:?}");
    let out = bufkit().args(["cat", "/nonexistent/archive.zip"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("bufkit: /nonexistent/archive.zip") && err.lines().count() == 1, "{err}");
    let out = bufkit().arg("no-such-command").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    let tmp = tempfile::Builder::new().prefix("bufkit-process-").tempdir().unwrap();
    let work = tmp.path();
    let zip = work.join("big.zip");
    let big: Vec<u8> = (0..8u32 << 20).map(|i| (i * 7 + i / 251) as u8).collect();
    std::fs::write(&zip, test_support::zip::stored_zip(&[("big.bin".to_string(), big)])).unwrap();
    let mut child = bufkit().arg("cat").arg(&zip).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut first = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap(); // then the pipe closes
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.is_empty(), "{:?}: {err}", out.status);
    assert_eq!(&first[..3], &[0, 7, 14]);
}

#[test]
fn a_long_listing_arrives_whole_through_a_pipe() {
    // Larger than a pipe's buffer, so the writes block until the reader drains them, and all of
    // it must be there when the process exits.
    let tmp = tempfile::Builder::new().prefix("bufkit-process-ls-").tempdir().unwrap();
    let work = tmp.path();
    let zip = work.join("many.zip");
    let files: Vec<(String, Vec<u8>)> = (0..2000).map(|i| (format!("f{i:04}.txt"), vec![b'x'; 3])).collect();
    std::fs::write(&zip, test_support::zip::stored_zip(&files)).unwrap();
    let (ok, table, err) = support::bufkit(&["ls", zip.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert_eq!(table.lines().count(), 2002, "header, 2,000 entries, summary");
    assert!(table.trim_end().ends_with("2000 entries"), "{}", &table[table.len() - 100..]);
}
