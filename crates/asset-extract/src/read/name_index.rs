//! The name → entry index of an [`AssetArchive`](crate::AssetArchive): an open-addressing table of
//! entry numbers over the entries' own names, so building it copies no name (a `HashMap<String,
//! usize>` cloned 15,000 strings to open the JDK's `src.zip`). Hashed with a per-process random
//! seed: names come from the archive, and a fixed hash would let one pick names that collide.

#![forbid(unsafe_code)]

use std::hash::BuildHasher;

use crate::Error;
use crate::read::names::Kind;

const EMPTY: u32 = u32::MAX;

/// What the index needs of an entry: its path and its kind.
pub(crate) trait Named {
    fn path(&self) -> &str;
    fn kind(&self) -> Kind;
}

#[derive(Default)]
pub(crate) struct NameIndex {
    hasher: foldhash::fast::RandomState,
    /// Per slot: the high 32 bits of the name's hash (to skip most string comparisons) and the
    /// entry's number, or `EMPTY`.
    slots: Box<[(u32, u32)]>,
    mask: usize,
}

impl NameIndex {
    /// Indexes `entries` by path. `Err(i)` when entry `i` repeats an earlier entry's path.
    pub(crate) fn build(entries: &[impl Named]) -> Result<NameIndex, usize> {
        assert!(entries.len() < EMPTY as usize, "the parser bounds the entry count far below 2^32");
        // At most half full: short probe sequences.
        let capacity = (entries.len() * 2).next_power_of_two().max(8);
        let mut index = NameIndex {
            hasher: foldhash::fast::RandomState::default(),
            slots: vec![(0, EMPTY); capacity].into_boxed_slice(),
            mask: capacity - 1,
        };
        for (i, e) in entries.iter().enumerate() {
            let (tag, mut slot) = index.start(e.path());
            loop {
                let (t, at) = index.slots[slot];
                if at == EMPTY {
                    index.slots[slot] = (tag, i as u32);
                    break;
                }
                if t == tag && entries[at as usize].path() == e.path() {
                    return Err(i);
                }
                slot = (slot + 1) & index.mask;
            }
        }
        Ok(index)
    }

    /// Indexes `entries` by path and checks that their paths can all exist together: no path
    /// twice, and no file where another entry needs a directory (`a` beside `a/b`). Every reading
    /// of an archive (extraction, reads in place, listing, verifying) refuses such an archive at
    /// open, with the same error.
    pub(crate) fn checked(entries: &[impl Named]) -> Result<NameIndex, Error> {
        let index = NameIndex::build(entries)
            .map_err(|i| Error::UnsafeName { entry: entries[i].path().to_string(), reason: "duplicate name" })?;
        for e in entries {
            let mut rest = e.path();
            while let Some((parent, _)) = rest.rsplit_once('/') {
                match index.find(entries, parent).map(|j| &entries[j]) {
                    Some(found) if found.kind() == Kind::File => {
                        return Err(Error::UnsafeName {
                            entry: found.path().to_string(),
                            reason: "a file where another entry needs a directory",
                        });
                    }
                    // A directory entry: its own walk checks the parents above it.
                    Some(_) => break,
                    None => rest = parent,
                }
            }
        }
        Ok(index)
    }

    /// The number of the entry named `name` in `entries` (those the index was built from).
    pub(crate) fn find(&self, entries: &[impl Named], name: &str) -> Option<usize> {
        let (tag, mut slot) = self.start(name);
        loop {
            let (t, at) = self.slots[slot];
            if at == EMPTY {
                return None;
            }
            if t == tag && entries[at as usize].path() == name {
                return Some(at as usize);
            }
            slot = (slot + 1) & self.mask;
        }
    }

    /// The name's tag and first slot.
    fn start(&self, name: &str) -> (u32, usize) {
        let hash = self.hasher.hash_one(name);
        ((hash >> 32) as u32, hash as usize & self.mask)
    }
}

impl std::fmt::Debug for NameIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NameIndex").field("slots", &self.slots.len()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Entry {
        path: String,
        kind: Kind,
    }

    impl Named for Entry {
        fn path(&self) -> &str {
            &self.path
        }
        fn kind(&self) -> Kind {
            self.kind
        }
    }

    fn entry(path: String) -> Entry {
        Entry { path, kind: Kind::File }
    }

    #[test]
    fn every_name_is_found_and_no_other() {
        for n in [0usize, 1, 7, 8, 100, 5000] {
            let entries: Vec<Entry> = (0..n).map(|i| entry(format!("dir{}/file{i}.js", i % 13))).collect();
            let index = NameIndex::build(&entries).unwrap();
            for (i, e) in entries.iter().enumerate() {
                assert_eq!(index.find(&entries, &e.path), Some(i));
            }
            assert_eq!(index.find(&entries, "dir0/file.js"), None);
            assert_eq!(index.find(&entries, ""), None);
        }
    }

    #[test]
    fn a_repeated_name_is_refused_with_its_position() {
        let entries: Vec<Entry> = ["a", "b", "c", "b"].iter().map(|s| entry(s.to_string())).collect();
        assert!(matches!(NameIndex::build(&entries), Err(3)));
    }

    #[test]
    fn a_file_where_another_entry_needs_a_directory_is_refused() {
        let dir = |path: &str| Entry { kind: Kind::Directory, ..entry(path.to_string()) };
        let names = |paths: &[&str]| paths.iter().map(|p| entry(p.to_string())).collect::<Vec<_>>();
        for paths in [&["a", "a/b"][..], &["a/b/c", "a"], &["x/a", "x/a/b/c"]] {
            let err = NameIndex::checked(&names(paths)).unwrap_err();
            assert!(matches!(err, Error::UnsafeName { reason: "a file where another entry needs a directory", .. }));
        }
        assert!(NameIndex::checked(&[dir("a"), entry("a/b".into()), entry("ab".into())]).is_ok());
        assert!(NameIndex::checked(&names(&["a/b", "a/c/d", "b"])).is_ok());
    }
}
