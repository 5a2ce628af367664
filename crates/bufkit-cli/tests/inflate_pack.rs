//! `bufkit inflate-pack`: a real pack made by git, walked sequentially and across threads with its
//! index, gives git's object counts; a damaged pack or index is refused with the reason. Works in
//! a temporary directory of its own.

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

fn git(repo: &Path, args: &[&str]) {
    let out = Command::new("git").arg("-C").arg(repo).args(args).output().expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A repository of 40 commits to 5 files, packed: its .pack and .idx.
fn packed_repo(work: &Path) -> (PathBuf, PathBuf) {
    let repo = work.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    for commit in 0..40 {
        for file in 0..5 {
            let text: String =
                (0..(20 + commit * file)).map(|line| format!("line {line} of {file}, round {commit}\n")).collect();
            std::fs::write(repo.join(format!("f{file}.txt")), text).unwrap();
        }
        git(&repo, &["add", "."]);
        git(&repo, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", &format!("round {commit}")]);
    }
    // A `.rev` is git's default since 2.41; said here so an older git writes one too.
    git(&repo, &["-c", "pack.writeReverseIndex=true", "gc", "-q", "--aggressive"]);
    let dir = repo.join(".git/objects/pack");
    let pack = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "pack"))
        .expect("git gc wrote a pack");
    let idx = pack.with_extension("idx");
    (pack, idx)
}

fn inflate_pack(args: &[&str]) -> (bool, String, String) {
    support::bufkit(&[&["inflate-pack"], args].concat())
}

#[test]
fn a_git_pack_is_walked_alike_sequentially_and_across_threads() {
    let tmp = tempfile::Builder::new().prefix("bufkit-inflate-pack-").tempdir().unwrap();
    let work = tmp.path();
    let (pack, idx) = packed_repo(work);
    let (pack_s, idx_s) = (pack.to_str().unwrap(), idx.to_str().unwrap());

    let summaries: Vec<serde_json::Value> = [
        vec!["--json", pack_s],
        vec!["--json", pack_s, "--idx", idx_s, "--threads", "1"],
        vec!["--json", pack_s, "--idx", idx_s, "--threads", "3"],
    ]
    .iter()
    .map(|args| {
        let (ok, out, err) = inflate_pack(args);
        assert!(ok, "{args:?}: {err}");
        serde_json::from_str(&out).unwrap()
    })
    .collect();
    // 40 commits, 40 root trees, and every version of 5 files (some stored as deltas).
    let by_type = &summaries[0]["by_type"];
    assert_eq!(by_type["commit"], 40);
    assert_eq!(
        summaries[0]["objects"],
        by_type.as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum::<u64>()
    );
    for s in &summaries[1..] {
        for field in ["objects", "by_type", "bytes_in", "bytes_out"] {
            assert_eq!(s[field], summaries[0][field], "{field}");
        }
        assert_eq!(s["index_verified"], true);
    }

    // One flipped byte in the middle of the pack: refused, by the walk with or without the index.
    let mut bytes = std::fs::read(&pack).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    let bad = work.join("bad.pack");
    std::fs::write(&bad, &bytes).unwrap();
    for args in [vec![bad.to_str().unwrap()], vec![bad.to_str().unwrap(), "--idx", idx_s, "--threads", "2"]] {
        let (ok, out, err) = inflate_pack(&args);
        assert!(!ok && out.is_empty(), "{args:?} accepted a damaged pack: {out}");
        assert!(err.contains("bad.pack"), "{err}");
    }
    // The `.rev` git wrote beside the index is used, and checked: two objects swapped in it
    // are refused, and without it the index is sorted instead, with the same result.
    let rev = idx.with_extension("rev");
    let good_rev = std::fs::read(&rev).expect("git wrote a .rev");
    let mut swapped = good_rev.clone();
    swapped.copy_within(12..16, 16);
    swapped[16..20].copy_from_slice(&good_rev[12..16]);
    std::fs::write(&rev, &swapped).unwrap();
    let (ok, _, err) = inflate_pack(&[pack_s, "--idx", idx_s]);
    assert!(!ok && err.contains(".rev") && err.contains("pack order"), "{err}");
    std::fs::remove_file(&rev).unwrap();
    let (ok, out, err) = inflate_pack(&["--json", pack_s, "--idx", idx_s, "--threads", "2"]);
    assert!(ok, "{err}");
    let without_rev: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(without_rev["objects"], summaries[0]["objects"]);
    // A truncated pack and an index of another length.
    let short = work.join("short.pack");
    std::fs::write(&short, &std::fs::read(&pack).unwrap()[..100]).unwrap();
    assert!(!inflate_pack(&[short.to_str().unwrap(), "--idx", idx_s]).0);
    let cut_idx = work.join("cut.idx");
    std::fs::write(&cut_idx, &std::fs::read(&idx).unwrap()[..1000]).unwrap();
    let (ok, _, err) = inflate_pack(&[pack_s, "--idx", cut_idx.to_str().unwrap()]);
    assert!(!ok && err.contains("cut.idx"), "{err}");
}
