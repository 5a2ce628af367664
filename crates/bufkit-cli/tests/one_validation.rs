//! `ls`, `cat`, `test` and `extract` validate an archive the same way at open: each accepts the
//! archives the others accept and refuses those they refuse, with the same reason. Works in a
//! temporary directory of its own.

mod support;

use std::path::Path;

fn stored(files: &[(&str, &[u8])]) -> Vec<u8> {
    let files: Vec<(String, Vec<u8>)> = files.iter().map(|(n, d)| (n.to_string(), d.to_vec())).collect();
    test_support::zip::stored_zip(&files)
}

/// Each command's verdict on `archive`: `Ok` or the first line of its error.
fn verdicts(work: &Path, name: &str, archive: &[u8]) -> Vec<(&'static str, Result<(), String>)> {
    let path = work.join(format!("{name}.zip"));
    std::fs::write(&path, archive).unwrap();
    let dest = work.join(format!("{name}-out"));
    let (zip, out) = (path.to_str().unwrap(), dest.to_str().unwrap());
    let runs: [(&str, Vec<&str>); 4] = [
        ("ls", vec!["ls", zip]),
        ("cat", vec!["cat", zip]),
        ("test", vec!["test", zip]),
        ("extract", vec!["extract", zip, out, "--skip-symlinks"]),
    ];
    let verdict = |ok: bool, err: &str| if ok { Ok(()) } else { Err(err.lines().next().unwrap_or("").to_string()) };
    let mut all: Vec<(&'static str, Result<(), String>)> = runs
        .into_iter()
        .map(|(command, args)| {
            let (ok, _, err) = support::bufkit(&args);
            (command, verdict(ok, &err))
        })
        .collect();
    // From a pipe that pauses after its first byte, as a download does: its entries are staged
    // as they arrive, then held to the central directory as a file's are.
    let streamed = work.join(format!("{name}-stream"));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bufkit"))
        .args(["extract", "-"])
        .arg(&streamed)
        .arg("--skip-symlinks")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    use std::io::Write;
    let (first, rest) = archive.split_at(1);
    let _ = stdin.write_all(first).and_then(|()| stdin.flush());
    std::thread::sleep(std::time::Duration::from_millis(20));
    let _ = stdin.write_all(rest);
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    all.push(("extract -", verdict(out.status.success(), &String::from_utf8_lossy(&out.stderr))));
    all
}

fn all_refuse(work: &Path, name: &str, archive: &[u8], says: &str) {
    for (command, verdict) in verdicts(work, name, archive) {
        match verdict {
            Err(e) => assert!(e.contains(says), "{name}: {command} refused for another reason: {e}"),
            Ok(()) => panic!("{name}: {command} accepted what the others refuse"),
        }
    }
    assert!(!work.join(format!("{name}-out")).exists(), "{name}: extraction left something");
    assert!(!work.join(format!("{name}-stream")).exists(), "{name}: extraction from a stream left something");
}

#[test]
fn every_command_accepts_and_refuses_the_same_archives() {
    let tmp = tempfile::Builder::new().prefix("bufkit-one-validation-").tempdir().unwrap();
    let work = tmp.path();

    let good = stored(&[("dir/", b""), ("dir/a.txt", b"alpha"), ("b.txt", b"beta")]);
    for (command, verdict) in verdicts(work, "good", &good) {
        assert_eq!(verdict, Ok(()), "{command}");
    }

    // A second end record after the first, describing another central directory: not read as
    // the first one says by any command.
    let mut twice = good.clone();
    let end = twice.windows(4).rposition(|w| w == b"PK\x05\x06").unwrap();
    let mut second = twice[end..].to_vec();
    second[16] ^= 1; // the central directory's offset
    twice.extend_from_slice(&second);
    all_refuse(work, "two-end-records", &twice, "no central directory where the end record says");

    // A file `a` beside an entry `a/b`: no tree holds both.
    let tree = stored(&[("a", b"file"), ("a/b", b"under a file")]);
    all_refuse(work, "file-and-dir", &tree, "a file where another entry needs a directory");

    // A directory entry's local header that disagrees with its central record (its method).
    let mut dir_local = good.clone();
    assert_eq!(&dir_local[..4], b"PK\x03\x04");
    dir_local[8] = 12;
    all_refuse(work, "dir-local-header", &dir_local, "local header method differs");

    // A symlink's local header that disagrees with its central record: checked by all, though
    // no command reads or creates the link.
    let files: Vec<(String, Vec<u8>)> = vec![("link".into(), b"target".to_vec()), ("c.txt".into(), b"c".to_vec())];
    let mut with_link = test_support::zip::stored_zip(&files);
    let central = with_link.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    with_link[central + 5] = 3; // made by Unix
    with_link[central + 38..central + 42].copy_from_slice(&(0o120777u32 << 16).to_le_bytes());
    for (command, verdict) in verdicts(work, "link", &with_link) {
        assert_eq!(verdict, Ok(()), "{command} with a symlink skipped");
    }
    let (ok, listing, _) = support::bufkit(&["ls", work.join("link.zip").to_str().unwrap()]);
    assert!(ok && listing.contains("symlink") && listing.contains("1 entries, 1 symlinks"), "{listing}");
    with_link[8] = 12;
    all_refuse(work, "link-local-header", &with_link, "local header method differs");
}
