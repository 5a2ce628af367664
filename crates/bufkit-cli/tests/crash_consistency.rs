//! `kill -9` a `bufkit extract --replace` at random moments: after each kill the destination is
//! exactly the old tree or exactly the new one (the staged tree is swapped in with one atomic
//! exchange), and a run to completion leaves no staging behind (the sweep removes what killed runs
//! left). Everything happens in a temporary directory of the test's own.
//!
//! Trials: `BUFKIT_CRASH_TRIALS` (default 10 in the test command; the documented long run is 100:
//! `BUFKIT_CRASH_TRIALS=100 cargo test --release -p bufkit-cli --test crash_consistency`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const FILES: usize = 1500;

/// A zip of stored entries `d{i % 30}/f{i}.txt` holding `{tag}-{i}`, plus `only-{tag}.txt`.
fn archive(tag: &str) -> Vec<u8> {
    let mut entries: Vec<(String, Vec<u8>)> =
        (0..FILES).map(|i| (format!("d{}/f{i}.txt", i % 30), format!("{tag}-{i}").into_bytes())).collect();
    entries.push((format!("only-{tag}.txt"), tag.as_bytes().to_vec()));
    test_support::zip::stored_zip(&entries)
}

/// Every file under `dir` with its bytes (directories implied).
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let listing = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("listing {}: {e}", d.display()));
        for entry in listing {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.insert(path.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

#[test]
fn a_replace_killed_at_any_moment_leaves_the_old_tree_or_the_new_one() {
    let trials: u64 = std::env::var("BUFKIT_CRASH_TRIALS").ok().and_then(|v| v.parse().ok()).unwrap_or(10);
    let tmp = tempfile::Builder::new().prefix("bufkit-crash-").tempdir().unwrap();
    let work = tmp.path();
    let (a, b, dest) = (work.join("a.zip"), work.join("b.zip"), work.join("dest"));
    std::fs::write(&a, archive("A")).unwrap();
    std::fs::write(&b, archive("B")).unwrap();
    let bufkit = env!("CARGO_BIN_EXE_bufkit");
    let run = |archive: &Path| {
        let mut command = Command::new(bufkit);
        command.arg("extract").arg(archive).arg(&dest).args(["--replace", "--threads", "2"]);
        command
    };
    assert!(run(&a).output().unwrap().status.success());
    let trees = [tree(&dest), {
        let tmp = work.join("b-tree");
        assert!(Command::new(bufkit).arg("extract").arg(&b).arg(&tmp).output().unwrap().status.success());
        let t = tree(&tmp);
        std::fs::remove_dir_all(&tmp).unwrap();
        t
    }];
    // How long a whole replace takes here, to spread the kills over it (and a little past it).
    let start = std::time::Instant::now();
    assert!(run(&b).output().unwrap().status.success());
    let whole = start.elapsed().as_micros() as u64 + 1;
    let mut seed = u64::from(std::process::id()) ^ whole.rotate_left(17);
    let (mut killed_mid, mut finished) = (0, 0);
    for trial in 0..trials {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let delay = (seed >> 33) % (whole + whole / 4);
        let archive = if trial % 2 == 0 { &a } else { &b };
        let mut child =
            run(archive).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().unwrap();
        std::thread::sleep(Duration::from_micros(delay));
        let was_running = child.try_wait().unwrap().is_none();
        child.kill().unwrap(); // SIGKILL: no cleanup of its own
        child.wait().unwrap();
        if was_running {
            killed_mid += 1
        } else {
            finished += 1
        }
        let now = tree(&dest);
        assert!(
            now == trees[0] || now == trees[1],
            "trial {trial} (killed at {delay} µs of ~{whole}): DEST is neither tree ({} files)",
            now.len()
        );
    }
    eprintln!("{trials} trials: {killed_mid} killed mid-run, {finished} finished first");
    // A run to completion: the sweep removes what the killed runs left.
    let last = run(&a).output().unwrap();
    assert!(last.status.success(), "the run after the kills failed: {}", String::from_utf8_lossy(&last.stderr).trim());
    assert!(tree(&dest) == trees[0], "the run after the kills left DEST other than its archive");
    // Each name with its size: a lock file's size says whether its run had locked it.
    let mut left: Vec<(String, u64)> = std::fs::read_dir(work)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.metadata().map_or(0, |m| m.len())))
        .filter(|(name, _)| !["a.zip", "b.zip", "dest"].contains(&name.as_str()))
        .collect();
    left.sort();
    assert!(left.is_empty(), "staging or locks left behind (name, size): {left:?}");
}
