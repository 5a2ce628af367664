//! Verifying an archive without writing anything, as `unzip -t` does: every entry's local header
//! against its central record, and every file's data inflated in bounded pieces with its size and
//! CRC-32 checked. The central directory was checked when the archive was opened.

#![forbid(unsafe_code)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{AssetArchive, Error, Kind};

/// What verifying an archive found.
#[derive(Debug, Default)]
pub struct Verification {
    /// Entries checked: files and directories.
    pub entries: u64,
    /// Bytes the files that verified inflate to.
    pub bytes: u64,
    /// Each entry that failed, by index, with why, in archive order.
    pub failures: Vec<(usize, Error)>,
}

impl Verification {
    /// Whether every entry verified.
    pub fn is_ok(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Each thread's buffer for the inflated bytes, which are checked and dropped.
const PIECE: usize = 256 << 10;

/// Entries a thread claims at once.
const CLAIM: usize = 16;

impl AssetArchive {
    /// Checks every entry as a read would, writing nothing, on up to `threads` threads (0: one per
    /// core): its local header, and a file's data inflated in 256 KiB pieces, its size and CRC-32
    /// checked. Memory stays bounded whatever the entries' sizes. Every entry is checked, failing
    /// or not, and every failure reported.
    ///
    /// ```
    /// # fn main() -> Result<(), asset_extract::Error> {
    /// # let zip = { let mut w = Vec::new(); w.extend_from_slice(&[0x50, 0x4b, 5, 6]); w.extend_from_slice(&[0; 18]); w };
    /// let archive = asset_extract::AssetArchive::from_bytes(zip)?;
    /// let verified = archive.verify(0);
    /// assert!(verified.is_ok(), "{:?}", verified.failures);
    /// # Ok(()) }
    /// ```
    pub fn verify(&self, threads: usize) -> Verification {
        let count = self.len();
        let threads = match threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
        .min(count.div_ceil(CLAIM))
        .max(1);
        let next = AtomicUsize::new(0);
        let failures = Mutex::new(Vec::new());
        let bytes = AtomicUsize::new(0);
        let work = || {
            let mut piece = vec![0u8; PIECE];
            loop {
                let start = next.fetch_add(CLAIM, Ordering::Relaxed);
                if start >= count {
                    break;
                }
                for index in start..(start + CLAIM).min(count) {
                    match self.verify_entry(index, &mut piece) {
                        Ok(size) => {
                            bytes.fetch_add(size, Ordering::Relaxed);
                        }
                        Err(e) => failures.lock().unwrap_or_else(|p| p.into_inner()).push((index, e)),
                    }
                }
            }
        };
        if threads == 1 {
            work();
        } else {
            std::thread::scope(|s| {
                for _ in 0..threads {
                    s.spawn(work);
                }
            });
        }
        let mut failures = failures.into_inner().unwrap_or_else(|p| p.into_inner());
        failures.sort_by_key(|&(index, _)| index);
        Verification { entries: count as u64, bytes: bytes.into_inner() as u64, failures }
    }

    /// Checks entry `index`: a directory's local header, a file's data through a reader into
    /// `piece`. Returns the bytes it inflated to.
    fn verify_entry(&self, index: usize, piece: &mut [u8]) -> Result<usize, Error> {
        let e = &self.entries()[index];
        if e.kind == Kind::Directory {
            self.local_header_checked(index)?;
            return Ok(0);
        }
        let mut reader = self.reader(index)?;
        let mut total = 0;
        loop {
            match reader.read_checked(piece)? {
                0 => return Ok(total),
                n => total += n,
            }
        }
    }
}
