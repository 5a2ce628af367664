//! The destination rules (create, replace, merge), what is refused, and the sweep of what dead
//! runs left. Every path here is inside a temporary directory the test made; the checks of the
//! current and home directories run in a child process whose cwd and HOME are such directories.

mod support;
#[allow(dead_code)] // shared with the other test binaries, which use all of it
mod zipwriter;

#[cfg(unix)]
use std::path::{Path, PathBuf};

use asset_extract::{Error, Mode, Options, extract_bytes};
use support::{listing, workdir};
use zipwriter::{Spec, build};

fn archive() -> Vec<u8> {
    build(&[Spec::dir("docs/"), Spec::file("docs/a.txt", b"new a"), Spec::file("b.txt", b"new b")], b"").0
}

fn with_mode(mode: Mode) -> Options<'static> {
    Options { mode, ..Options::default() }
}

#[test]
fn create_makes_a_new_directory_or_fills_an_empty_one() {
    let dir = workdir("dest-create");
    extract_bytes(&archive(), &dir.join("fresh"), &Options::default()).unwrap();
    assert_eq!(std::fs::read(dir.join("fresh/docs/a.txt")).unwrap(), b"new a");
    std::fs::create_dir(dir.join("empty")).unwrap();
    extract_bytes(&archive(), &dir.join("empty/"), &Options::default()).unwrap();
    assert_eq!(listing(&dir.join("empty")), vec!["b.txt", "docs"]);
    assert_eq!(listing(&dir), vec!["empty", "fresh"], "no staging or lock left");
}

#[test]
fn create_refuses_anything_that_exists_and_touches_nothing() {
    let dir = workdir("dest-create-refuses");
    std::fs::create_dir(dir.join("full")).unwrap();
    std::fs::write(dir.join("full/mine.txt"), b"unrelated").unwrap();
    std::fs::write(dir.join("passwd"), b"root:x:0:0").unwrap();
    for dest in ["full", "full/", "full//", "passwd"] {
        let err = extract_bytes(&archive(), &dir.join(dest), &Options::default()).unwrap_err();
        assert!(matches!(err, Error::Destination { .. }), "{dest}: {err}");
        assert!(
            err.to_string().contains(dir.join(dest.trim_end_matches('/')).to_str().unwrap()),
            "names the path: {err}"
        );
    }
    assert_eq!(std::fs::read(dir.join("full/mine.txt")).unwrap(), b"unrelated");
    assert_eq!(std::fs::read(dir.join("passwd")).unwrap(), b"root:x:0:0", "a file is never replaced by a directory");
    assert_eq!(listing(&dir), vec!["full", "passwd"]);
    // Replace and merge refuse a file too.
    for mode in [Mode::Replace, Mode::Merge] {
        assert!(matches!(
            extract_bytes(&archive(), &dir.join("passwd"), &with_mode(mode)),
            Err(Error::Destination { .. })
        ));
    }
    assert_eq!(std::fs::read(dir.join("passwd")).unwrap(), b"root:x:0:0");
}

#[test]
fn replace_swaps_the_whole_directory() {
    let dir = workdir("dest-replace");
    std::fs::create_dir(dir.join("out")).unwrap();
    std::fs::write(dir.join("out/stale.txt"), b"old").unwrap();
    extract_bytes(&archive(), &dir.join("out/"), &with_mode(Mode::Replace)).unwrap();
    assert_eq!(listing(&dir.join("out")), vec!["b.txt", "docs"]);
    assert_eq!(listing(&dir), vec!["out"]);
}

#[test]
fn replace_refuses_dot_names_in_any_spelling() {
    let dir = workdir("dest-replace-dots");
    std::fs::create_dir_all(dir.join("a/b")).unwrap();
    std::fs::write(dir.join("a/b/keep"), b"k").unwrap();
    for dest in ["a/b/.", "a/b/./", "a/b/..", "a/b/../", "a/b/.//"] {
        let err = extract_bytes(&archive(), &dir.join(dest), &with_mode(Mode::Replace)).unwrap_err();
        assert!(matches!(err, Error::Destination { .. }), "{dest}: {err}");
    }
    assert_eq!(std::fs::read(dir.join("a/b/keep")).unwrap(), b"k");
}

/// Runs in a child process (see `replace_refuses_the_current_and_home_directories`): cwd and HOME
/// are temporary directories made by the parent.
#[cfg(unix)]
#[test]
fn child_replace_protected_directories() {
    let Ok(root) = std::env::var("BUFKIT_TEST_PROTECTED_ROOT") else { return };
    let root = PathBuf::from(root);
    let cwd = std::env::current_dir().unwrap();
    let home = PathBuf::from(std::env::var("HOME").unwrap());
    for dest in [cwd.clone(), PathBuf::from("."), PathBuf::from("./"), home.clone(), home.join(".."), root.clone()] {
        let err = extract_bytes(&archive(), &dest, &with_mode(Mode::Replace)).unwrap_err();
        assert!(matches!(err, Error::Destination { .. }), "{}: {err}", dest.display());
    }
    // A symlink to the current directory is refused too (never followed).
    std::os::unix::fs::symlink(&cwd, root.join("link")).unwrap();
    assert!(matches!(
        extract_bytes(&archive(), &root.join("link"), &with_mode(Mode::Replace)),
        Err(Error::Destination { .. })
    ));
    assert!(cwd.join("keep").exists() && home.join("keep").exists());
}

#[test]
fn replace_refuses_the_current_and_home_directories() {
    let dir = workdir("dest-protected");
    let (cwd, home) = (dir.join("work/here"), dir.join("home"));
    for d in [&cwd, &home] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::write(d.join("keep"), b"k").unwrap();
    }
    let status = test_support::own_binary()
        .args(["--exact", "child_replace_protected_directories", "--test-threads", "1"])
        .current_dir(&cwd)
        .env("HOME", &home)
        .env("BUFKIT_TEST_PROTECTED_ROOT", dir.join("work"))
        .status()
        .unwrap();
    assert!(status.success(), "the child's checks failed");
    assert!(cwd.join("keep").exists() && home.join("keep").exists());
}

#[test]
fn merge_adds_files_and_keeps_unrelated_ones() {
    let dir = workdir("dest-merge");
    let out = dir.join("out");
    std::fs::create_dir_all(out.join("docs")).unwrap();
    std::fs::write(out.join("mine.txt"), b"unrelated").unwrap();
    std::fs::write(out.join("b.txt"), b"old b").unwrap();
    std::fs::write(out.join("docs/old.txt"), b"old doc").unwrap();
    let report = extract_bytes(&archive(), &out, &with_mode(Mode::Merge)).unwrap();
    assert_eq!(report.files, 2);
    assert_eq!(listing(&out), vec!["b.txt", "docs", "mine.txt"], "no staging or lock left inside");
    assert_eq!(std::fs::read(out.join("b.txt")).unwrap(), b"new b");
    assert_eq!(std::fs::read(out.join("mine.txt")).unwrap(), b"unrelated");
    assert_eq!(listing(&out.join("docs")), vec!["a.txt", "old.txt"]);
}

#[cfg(unix)]
#[test]
fn merge_never_follows_a_symlink_and_refuses_conflicts_before_moving_anything() {
    let dir = workdir("dest-merge-conflict");
    let (out, outside) = (dir.join("out"), dir.join("outside"));
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, out.join("docs")).unwrap();
    std::fs::write(out.join("b.txt"), b"old b").unwrap();
    let err = extract_bytes(&archive(), &out, &with_mode(Mode::Merge)).unwrap_err();
    assert!(matches!(&err, Error::Destination { reason, .. } if reason.contains("not a directory")), "{err}");
    assert!(listing(&outside).is_empty(), "nothing written through the link");
    assert_eq!(std::fs::read(out.join("b.txt")).unwrap(), b"old b", "nothing moved before the conflict was found");
    assert_eq!(listing(&out), vec!["b.txt", "docs"]);
    // A symlink where the archive has a file is replaced, its target untouched.
    std::fs::remove_file(out.join("docs")).unwrap();
    std::fs::write(outside.join("target"), b"t").unwrap();
    std::os::unix::fs::symlink(outside.join("target"), out.join("b.txt.link")).unwrap();
    std::fs::remove_file(out.join("b.txt")).unwrap();
    std::os::unix::fs::symlink(outside.join("target"), out.join("b.txt")).unwrap();
    extract_bytes(&archive(), &out, &with_mode(Mode::Merge)).unwrap();
    assert_eq!(std::fs::read(outside.join("target")).unwrap(), b"t");
    assert!(!std::fs::symlink_metadata(out.join("b.txt")).unwrap().file_type().is_symlink());
}

#[test]
fn patterns_that_select_nothing_are_refused_before_anything_is_touched() {
    let dir = workdir("dest-nothing");
    std::fs::create_dir(dir.join("out")).unwrap();
    std::fs::write(dir.join("out/mine.txt"), b"unrelated").unwrap();
    let options = Options { mode: Mode::Replace, only: vec!["*.png".into()], ..Options::default() };
    let err = extract_bytes(&archive(), &dir.join("out"), &options).unwrap_err();
    assert!(matches!(err, Error::NothingSelected { .. }), "{err}");
    assert_eq!(listing(&dir.join("out")), vec!["mine.txt"]);
}

#[test]
fn names_that_differ_only_in_case_extract_where_the_file_system_keeps_them_apart() {
    // /usr/share/doc (index.html, Index.html), terminfo (q/, Q/), a shaded jar (LICENSE, license/).
    let zip = build(
        &[
            Spec::file("index.html", b"lower"),
            Spec::file("Index.html", b"upper"),
            Spec::file("q/qansi", b"q"),
            Spec::file("Q/Qansi", b"Q"),
            Spec::file("META-INF/LICENSE", b"file"),
            Spec::file("META-INF/license/NOTICE", b"dir"),
        ],
        b"",
    )
    .0;
    let dir = workdir("dest-case");
    if cfg!(windows) {
        // Windows folds case always: such names are refused there, as with `fold_case`.
        let refused = extract_bytes(&zip, &dir.join("out"), &Options::default());
        assert!(matches!(refused, Err(Error::UnsafeName { .. })), "{refused:?}");
        assert!(listing(&dir).is_empty());
        return;
    }
    extract_bytes(&zip, &dir.join("out"), &Options::default()).unwrap();
    assert_eq!(std::fs::read(dir.join("out/Index.html")).unwrap(), b"upper");
    assert_eq!(std::fs::read(dir.join("out/index.html")).unwrap(), b"lower");
    assert_eq!(std::fs::read(dir.join("out/META-INF/license/NOTICE")).unwrap(), b"dir");
    let asked = Options { fold_case: true, ..Options::default() };
    assert!(matches!(extract_bytes(&zip, &dir.join("out2"), &asked), Err(Error::UnsafeName { .. })));
    assert_eq!(listing(&dir), vec!["out"]);
}

#[cfg(unix)]
#[test]
fn what_a_dead_run_left_is_swept_and_a_live_run_is_left_alone() {
    let dir = workdir("dest-sweep");
    // A dead run: its lock file exists, written (a run writes it once it holds the lock), but
    // nobody holds the lock.
    let dead = dir.join(".out.bufkit-tmp-999999-0");
    std::fs::create_dir_all(dead.join("big/tree")).unwrap();
    std::fs::write(dead.join("big/tree/f"), b"partial").unwrap();
    std::fs::write(dir.join(".out.bufkit-tmp-999999-0.lock"), b"live\n").unwrap();
    // A dead run that died between moving the old destination aside and renaming the new one in.
    std::fs::create_dir_all(dir.join(".out.bufkit-tmp-999999-1.old")).unwrap();
    std::fs::write(dir.join(".out.bufkit-tmp-999999-1.old/precious"), b"the old destination").unwrap();
    std::fs::write(dir.join(".out.bufkit-tmp-999999-1.lock"), b"live\n").unwrap();
    // A run between creating its lock file and locking it: the file is empty and unlocked.
    std::fs::write(dir.join(".out.bufkit-tmp-666666-0.lock"), b"").unwrap();
    // One that died right there, two hours ago: only its empty lock file is left.
    let died = std::fs::File::create(dir.join(".out.bufkit-tmp-666666-1.lock")).unwrap();
    died.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(7200)).unwrap();
    drop(died);
    // A live run: its lock is held (here, by this process through another descriptor).
    let live = dir.join(".out.bufkit-tmp-888888-0");
    std::fs::create_dir_all(&live).unwrap();
    let held = std::fs::File::create(dir.join(".out.bufkit-tmp-888888-0.lock")).unwrap();
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor we own.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) }, 0);
    // A directory that merely looks like staging, with no lock file: never guessed at.
    std::fs::create_dir_all(dir.join(".out.bufkit-tmp-777777-0")).unwrap();

    // The dead run's old destination comes back: "out" does not exist.
    let err = extract_bytes(&archive(), &dir.join("out"), &Options::default()).unwrap_err();
    assert!(matches!(err, Error::Destination { .. }), "the restored old destination is not replaced: {err}");
    assert_eq!(std::fs::read(dir.join("out/precious")).unwrap(), b"the old destination");
    let left = listing(&dir);
    assert!(!left.iter().any(|n| n.starts_with(".out.bufkit-tmp-999999")), "dead runs swept: {left:?}");
    assert!(left.contains(&".out.bufkit-tmp-888888-0".to_string()), "a live run is left alone: {left:?}");
    assert!(left.contains(&".out.bufkit-tmp-777777-0".to_string()), "no guess from a name: {left:?}");
    assert!(left.contains(&".out.bufkit-tmp-666666-0.lock".to_string()), "a run about to lock is left alone: {left:?}");
    assert!(!left.contains(&".out.bufkit-tmp-666666-1.lock".to_string()), "an hour-old empty lock is swept: {left:?}");
    drop(held);
}

/// A tmpfs of `size` mounted on `dir` (made by the test), unmounted when dropped.
#[cfg(unix)]
struct SmallFs(PathBuf);

#[cfg(unix)]
impl SmallFs {
    fn mount(dir: &Path, size: &str) -> SmallFs {
        std::fs::create_dir_all(dir).unwrap();
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .unwrap();
        assert!(status.success(), "mounting a {size} tmpfs on {} failed", dir.display());
        SmallFs(dir.to_path_buf())
    }
}

#[cfg(unix)]
impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[cfg(unix)]
#[test]
fn a_full_destination_file_system_is_a_clear_error_that_keeps_the_old_tree_and_leaves_nothing() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: mounting a small tmpfs needs root (CI runs as root)");
        return;
    }
    let dir = workdir("dest-full-fs");
    let fs = SmallFs::mount(&dir.join("mnt"), "2m");
    let out = fs.0.join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep.txt"), b"the old tree").unwrap();
    // Three 1 MiB entries of bytes that do not compress: 3 MiB for a 2 MiB file system.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let big: Vec<Spec> = (0..3)
        .map(|i| {
            let data: Vec<u8> = (0..1 << 20)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            Spec::stored(&format!("f{i}.bin"), &data)
        })
        .collect();
    let zip = build(&big, b"").0;
    for mode in [Mode::Replace, Mode::Merge] {
        let err = extract_bytes(&zip, &out, &with_mode(mode)).unwrap_err();
        let message = err.to_string();
        assert!(
            matches!(&err, Error::Io { source, .. } if source.raw_os_error() == Some(libc::ENOSPC)),
            "{mode:?}: {message}"
        );
        assert!(message.contains("No space left on device"), "{mode:?}: {message}");
        assert_eq!(listing(&fs.0), vec!["out"], "{mode:?}: no staging or lock left");
        assert_eq!(listing(&out), vec!["keep.txt"], "{mode:?}: the old tree is intact, no partial files");
        assert_eq!(std::fs::read(out.join("keep.txt")).unwrap(), b"the old tree");
    }
    // A file system that refuses writes.
    let remount = std::process::Command::new("mount").args(["-o", "remount,ro"]).arg(&fs.0).status().unwrap();
    assert!(remount.success());
    let small = build(&[Spec::file("a.txt", b"x")], b"").0;
    let err = extract_bytes(&small, &out, &with_mode(Mode::Replace)).unwrap_err();
    assert!(matches!(&err, Error::Io { source, .. } if source.raw_os_error() == Some(libc::EROFS)), "{err}");
    assert_eq!(listing(&out), vec!["keep.txt"]);
    drop(fs);
}

/// Issue 29, 6: runs replacing one destination at once all succeed, and the tree is always one
/// archive's, whole (a sweep never takes a live run's lock; a run never sees the destination
/// missing while another swaps it). On Windows, which cannot swap, a run may be refused instead.
#[test]
fn concurrent_runs_replacing_one_destination_all_succeed() {
    let dir = workdir("dest-concurrent");
    let dest = dir.join("out");
    let zip = archive();
    let replace = || Options { mode: Mode::Replace, threads: 1, ..Options::default() };
    extract_bytes(&zip, &dest, &replace()).unwrap();
    std::thread::scope(|s| {
        for _ in 0..6 {
            s.spawn(|| {
                for _ in 0..100 {
                    match extract_bytes(&zip, &dest, &replace()) {
                        Ok(_) => {}
                        // Windows cannot swap two directories in one step: a run that meets the
                        // destination moved aside by another is refused, and loses nothing.
                        Err(Error::Io { .. } | Error::Destination { .. }) if cfg!(windows) => {}
                        Err(e) => panic!("a run failed: {e}"),
                    }
                }
            });
        }
    });
    if cfg!(windows) {
        // A refused run may leave the old tree it had moved aside: the next run sweeps it.
        extract_bytes(&zip, &dest, &replace()).unwrap();
    }
    assert_eq!(listing(&dir), vec!["out"], "nothing left beside the destination");
    assert_eq!(listing(&dest), vec!["b.txt", "docs"], "one archive's tree, whole");
}
