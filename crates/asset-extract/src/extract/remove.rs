//! Removing a directory tree (the destination an extraction replaced) with several threads.
//!
//! Removing files is most of the cost of replacing a destination (on tmpfs, about as much as
//! writing them), and one thread does it one unlink at a time. Here every directory is a job:
//! a worker lists it, unlinks its files, queues its subdirectories, and the last job to finish
//! inside a directory removes it. Everything is relative to open directories (`sys::Dir`),
//! never following a link: a directory swapped for a symlink while the tree is removed is
//! unlinked as a link, never followed. A subdirectory is opened only when a worker takes its job, and jobs are
//! taken newest first (depth first), so the descriptors open at once stay near the tree's depth
//! plus the thread count, however wide the tree.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use crate::sys::{self, Dir};

/// A directory being emptied.
struct Node {
    dir: Dir,
    /// The directory holding this one and this one's name in it; `None` for the root.
    parent: Option<(Arc<Node>, OsString)>,
    /// Jobs not finished inside this directory: its own listing plus one per subdirectory.
    pending: AtomicUsize,
}

/// A directory to empty: `name` inside `parent`, not opened yet.
struct Job {
    parent: Arc<Node>,
    name: OsString,
}

/// Jobs waiting, and how many are running (the queue is drained when both are zero).
struct Queue {
    state: Mutex<(Vec<Job>, usize)>,
    changed: Condvar,
    failure: Mutex<Option<io::Error>>,
}

impl Queue {
    fn push(&self, job: Job) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).0.push(job);
        self.changed.notify_one();
    }

    fn fail(&self, err: io::Error) {
        self.failure.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(err);
    }

    fn failed(&self) -> bool {
        self.failure.lock().unwrap_or_else(|p| p.into_inner()).is_some()
    }

    /// Takes jobs until none is waiting and none is running.
    fn work(&self) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(job) = state.0.pop() {
                state.1 += 1;
                drop(state);
                self.run(job);
                state = self.state.lock().unwrap_or_else(|p| p.into_inner());
                state.1 -= 1;
                if state.0.is_empty() && state.1 == 0 {
                    self.changed.notify_all();
                }
            } else if state.1 == 0 {
                return;
            } else {
                state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
            }
        }
    }

    /// Opens the job's directory and empties it; its parent then has one job fewer.
    fn run(&self, job: Job) {
        if self.failed() {
            return finish(job.parent, self);
        }
        match job.parent.dir.open_dir(&job.name) {
            Ok(dir) => {
                let node = Arc::new(Node { dir, parent: Some((job.parent, job.name)), pending: AtomicUsize::new(1) });
                self.empty(&node);
                finish(node, self);
            }
            Err(e) => {
                self.fail(e);
                finish(job.parent, self);
            }
        }
    }

    /// Unlinks the files of `node` and queues its subdirectories.
    fn empty(&self, node: &Arc<Node>) {
        let result = node.dir.for_each_entry(|name: &OsStr, is_dir| {
            if !is_dir {
                return node.dir.remove_file(name);
            }
            node.pending.fetch_add(1, Ordering::AcqRel);
            self.push(Job { parent: Arc::clone(node), name: name.to_owned() });
            Ok(())
        });
        if let Err(e) = result {
            self.fail(e);
        }
    }
}

/// One job inside `node` is done; when it was the last, `node` is empty and is removed from its
/// parent, which in turn has one job fewer, and so on up. A loop, holding each parent before
/// letting go of its child, so neither the walk up nor the drops recurse (the tree may be
/// thousands of directories deep, and the caller's thread may have a small stack).
fn finish(mut node: Arc<Node>, queue: &Queue) {
    loop {
        if node.pending.fetch_sub(1, Ordering::AcqRel) != 1 {
            return;
        }
        // Its own handle closed first where nothing else holds it: Windows removes an open
        // directory only once its last handle closes.
        let (parent, name) = match Arc::try_unwrap(node) {
            Ok(Node { dir, parent, .. }) => {
                drop(dir);
                let Some(parent) = parent else { return };
                parent
            }
            Err(shared) => match &shared.parent {
                Some((parent, name)) => (Arc::clone(parent), name.clone()),
                None => return,
            },
        };
        if !queue.failed()
            && let Err(e) = parent.dir.remove_dir(&name)
        {
            queue.fail(e);
        }
        node = parent;
    }
}

/// Removes the directory `path` and everything in it with up to `threads` threads, as
/// `std::fs::remove_dir_all` does with one: anything else at `path` (a symlink included) is
/// removed itself, never followed.
pub(crate) fn remove_tree(path: &Path, threads: usize) -> io::Result<()> {
    let dir = match Dir::open(path) {
        Ok(dir) => dir,
        // A symlink (never followed) or a file.
        Err(e) if sys::not_a_directory(&e) => return sys::remove_link_or_file(path),
        Err(e) => return Err(e),
    };
    let root = Arc::new(Node { dir, parent: None, pending: AtomicUsize::new(1) });
    let queue = Queue { state: Mutex::new((Vec::new(), 0)), changed: Condvar::new(), failure: Mutex::new(None) };
    // The root's own listing runs here first and queues the jobs the threads share.
    queue.empty(&root);
    finish(Arc::clone(&root), &queue);
    std::thread::scope(|s| {
        for _ in 1..threads.max(1) {
            s.spawn(|| queue.work());
        }
        queue.work();
    });
    if let Some(e) = queue.failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    drop(root);
    std::fs::remove_dir(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_wide_tree_is_removed_with_few_descriptors_open() {
        // The check runs in a child process (this test binary again) held to 64 descriptors: a
        // remover that opened every subdirectory it queued would need 600.
        use std::os::unix::process::CommandExt;
        let mut child = test_support::own_binary();
        child
            .args(["--exact", "extract::remove::tests::wide_tree_in_a_child", "--ignored", "--test-threads", "1"])
            .env("BUFKIT_WIDE_TREE_CHILD", "1");
        // SAFETY: setrlimit is async-signal-safe and touches only the child's own limits.
        unsafe {
            child.pre_exec(|| {
                let limit = libc::rlimit { rlim_cur: 64, rlim_max: 64 };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
            });
        }
        let out = child.output().unwrap();
        let log = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && log.contains("1 passed"), "{log}{}", String::from_utf8_lossy(&out.stderr));
    }

    #[test]
    fn a_deep_tree_is_removed_on_a_small_stack() {
        let tmp = tempfile::Builder::new().prefix("bufkit-deep-tree-").tempdir().unwrap();
        let base = tmp.path().join("tree");
        // Windows has no openat: every name is resolved from the tree's path, so a tree this deep
        // takes minutes there (under wine); a shallower one still overflows a recursive remover.
        let deep = base.join("d/".repeat(if cfg!(windows) { 300 } else { 1500 }));
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join("f"), b"x").unwrap();
        let root = base.clone();
        std::thread::Builder::new()
            .stack_size(128 << 10)
            .spawn(move || remove_tree(&root, 1).unwrap())
            .unwrap()
            .join()
            .unwrap();
        assert!(!base.exists());
    }

    #[test]
    #[ignore = "run by a_wide_tree_is_removed_with_few_descriptors_open, in a process held to 64 descriptors"]
    fn wide_tree_in_a_child() {
        assert!(std::env::var_os("BUFKIT_WIDE_TREE_CHILD").is_some(), "run through its parent test");
        let tmp = tempfile::Builder::new().prefix("bufkit-wide-tree-").tempdir().unwrap();
        let base = tmp.path().join("tree");
        for d in 0..600 {
            let dir = base.join(format!("d{d}"));
            std::fs::create_dir_all(dir.join("inner")).unwrap();
            std::fs::write(dir.join("f"), b"x").unwrap();
        }
        remove_tree(&base, 3).unwrap();
        assert!(!base.exists());
    }

    #[cfg(unix)]
    #[test]
    fn removes_a_deep_wide_tree_and_leaves_symlink_targets_alone() {
        let tmp = tempfile::Builder::new().prefix("bufkit-remove-test-").tempdir().unwrap();
        let base = tmp.path().join("tree");
        let (tree, outside) = (base.join("tree"), base.join("outside"));
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("keep"), b"precious").unwrap();
        let mut deep = tree.clone();
        for depth in 0..40 {
            deep = deep.join(format!("d{depth}"));
            std::fs::create_dir_all(&deep).unwrap();
            for f in 0..5 {
                std::fs::write(deep.join(format!("f{f}")), b"x").unwrap();
            }
            std::fs::create_dir_all(deep.join("empty")).unwrap();
        }
        std::os::unix::fs::symlink(&outside, tree.join("d0").join("link")).unwrap();
        for threads in [1, 3] {
            remove_tree(&tree, threads).unwrap();
            assert!(!tree.exists());
            assert_eq!(std::fs::read(outside.join("keep")).unwrap(), b"precious");
            std::fs::create_dir_all(tree.join("a/b")).unwrap();
        }
        assert!(remove_tree(&base.join("missing"), 2).is_err());
        std::os::unix::fs::symlink(&outside, base.join("root-link")).unwrap();
        remove_tree(&base.join("root-link"), 2).unwrap();
        assert!(!base.join("root-link").exists(), "a symlink as the root is removed itself");
        assert!(outside.join("keep").exists(), "not followed");
    }
}
