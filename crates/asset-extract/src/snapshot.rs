//! The archive read into memory, as it was when read: a file changed meanwhile gives at worst a
//! truncated or inconsistent snapshot, which parsing or the CRCs refuse, never a signal.
//!
//! Most of what reading costs over mapping is the fresh memory: on this VM each 4 KiB page costs
//! about 1.3 µs to fault in and zero. A large archive therefore goes into anonymous memory aligned
//! and sized to 2 MiB and advised for transparent huge pages, populated in one kernel pass: one
//! huge page to zero instead of 512 small ones. A 1 MB archive, in fresh processes: 404–584 µs
//! until it is in memory against 636–840 µs in 4 KiB pages, and 21–56 µs to unmap against
//! 101–129 (`bench-reports/extract/snapshot_cost.c`; `bench-reports/asset-extract.md`, "The
//! serial part, phase by phase").

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::ptr::NonNull;

use crate::Error;

/// Archives at least this large are read into populated anonymous memory, smaller ones onto the
/// heap.
const POPULATED_MIN: usize = 64 << 10;

/// Archives at least this large are read into huge pages: below it, zeroing a whole 2 MiB page
/// costs more than faulting in the 4 KiB pages the archive needs.
const HUGE_MIN: usize = 512 << 10;

/// A transparent huge page on x86-64 and aarch64 (4 KiB base pages).
const HUGE_PAGE: usize = 2 << 20;

/// Reads all of `file`, which was `len` bytes long when inspected.
pub(crate) fn snapshot(mut file: File, len: u64, path: &Path) -> Result<Snapshot, Error> {
    let fail = |e| Error::io("reading", path, e);
    let size = usize::try_from(len).map_err(|_| fail(io::ErrorKind::OutOfMemory.into()))?;
    let mut snapshot = if size >= POPULATED_MIN {
        Snapshot::Pages(Pages::populated(size).map_err(fail)?)
    } else {
        let mut data = Vec::new();
        data.try_reserve_exact(size).map_err(|_| fail(io::ErrorKind::OutOfMemory.into()))?;
        data.resize(size, 0);
        Snapshot::Heap(data)
    };
    let buf: &mut [u8] = match &mut snapshot {
        Snapshot::Pages(pages) => pages.as_mut_slice(),
        Snapshot::Heap(data) => data,
    };
    file.read_exact(buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => fail(io::Error::other("the archive shrank while it was read")),
        _ => fail(e),
    })?;
    // A file that grew meanwhile has moved its end record: refuse rather than parse a prefix.
    if file.read(&mut [0u8; 1]).map_err(fail)? != 0 {
        return Err(fail(io::Error::other("the archive grew while it was read")));
    }
    // Nor one truncated meanwhile: a read racing a truncate can copy the zeros the kernel writes
    // over the cut page's tail and still reach the old end (the C suite saw it once, as a CRC
    // failure). The size changes before that page is zeroed, so this sees it.
    if file.metadata().map_err(fail)?.len() != len {
        return Err(fail(io::Error::other("the archive shrank while it was read")));
    }
    Ok(snapshot)
}

/// An archive read into memory.
pub(crate) enum Snapshot {
    Heap(Vec<u8>),
    Pages(Pages),
}

impl std::ops::Deref for Snapshot {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Snapshot::Heap(data) => data,
            Snapshot::Pages(pages) => pages.as_slice(),
        }
    }
}

/// Private anonymous memory, populated when made: `len` bytes at the start of a mapping of
/// `mapped` bytes, which for a large `len` starts on a huge-page boundary and ends on one, so that
/// transparent huge pages can back every byte.
pub(crate) struct Pages {
    start: NonNull<u8>,
    len: usize,
    mapped: usize,
}

// SAFETY: `Pages` owns its mapping exclusively, like a `Box<[u8]>`; nothing in it is tied to a
// thread.
unsafe impl Send for Pages {}
// SAFETY: shared access only reads (`as_slice`); writing needs `&mut`.
unsafe impl Sync for Pages {}

impl Pages {
    /// Maps `len` (> 0) zeroed bytes and faults them in now, in huge pages where `len` is large
    /// and the kernel has them (the advice is only advice: without it, 4 KiB pages).
    fn populated(len: usize) -> io::Result<Pages> {
        let align = if len >= HUGE_MIN { HUGE_PAGE } else { page_size() };
        let mapped = len.checked_next_multiple_of(align).ok_or(io::ErrorKind::OutOfMemory)?;
        // Room to slide the start to an `align` boundary; the excess is unmapped below.
        let reserve = mapped.checked_add(align - page_size()).ok_or(io::ErrorKind::OutOfMemory)?;
        // SAFETY: a new private anonymous mapping at an address of the kernel's choosing; it
        // touches no existing memory.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                reserve,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let head = (base as usize).next_multiple_of(align) - base as usize;
        let tail = reserve - head - mapped;
        // SAFETY: both ranges lie inside the mapping just made, which nothing else uses yet, and
        // are page-aligned (the mapping, `head` and `mapped` are multiples of the page size).
        unsafe {
            if head > 0 {
                libc::munmap(base, head);
            }
            if tail > 0 {
                libc::munmap(base.cast::<u8>().add(head + mapped).cast(), tail);
            }
        }
        // SAFETY: `head < align <= reserve`, so the start is inside the mapping, and not null
        // (mmap does not return null for a mapping it chose).
        let start = unsafe { NonNull::new_unchecked(base.cast::<u8>().add(head)) };
        let pages = Pages { start, len, mapped };
        // SAFETY: advice over exactly the mapping `pages` owns; neither call changes its contents
        // (populating faults in zeroed pages, as the first touch would).
        unsafe {
            if align == HUGE_PAGE {
                libc::madvise(start.as_ptr().cast(), mapped, libc::MADV_HUGEPAGE);
            }
            // A kernel before 5.14 lacks MADV_POPULATE_WRITE: the pages then fault in on read.
            libc::madvise(start.as_ptr().cast(), len, libc::MADV_POPULATE_WRITE);
        }
        Ok(pages)
    }

    fn as_slice(&self) -> &[u8] {
        // SAFETY: `len` bytes from `start` are mapped, readable and initialized (zeroed by the
        // kernel, then written only through `as_mut_slice`), and live as long as `self`.
        unsafe { std::slice::from_raw_parts(self.start.as_ptr(), self.len) }
    }

    fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_slice`, and `&mut self` makes this the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.start.as_ptr(), self.len) }
    }
}

impl Drop for Pages {
    fn drop(&mut self) {
        // SAFETY: exactly the mapping `populated` kept, unmapped once; no slice of it outlives
        // `self`.
        unsafe { libc::munmap(self.start.as_ptr().cast(), self.mapped) };
    }
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).ok().filter(|&s| s.is_power_of_two()).unwrap_or(4096)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_of_every_size_class_are_zeroed_writable_and_aligned_as_promised() {
        for len in [POPULATED_MIN, 300_000, HUGE_MIN - 1, HUGE_MIN, HUGE_PAGE, HUGE_PAGE + 1, 5 << 20] {
            let mut pages = Pages::populated(len).unwrap();
            assert_eq!(pages.as_slice().len(), len);
            assert!(pages.as_slice().iter().all(|&b| b == 0));
            let align = if len >= HUGE_MIN { HUGE_PAGE } else { page_size() };
            assert_eq!(pages.start.as_ptr() as usize % align, 0, "len {len}");
            assert_eq!(pages.mapped % align, 0);
            assert!(pages.mapped >= len && pages.mapped - len < align);
            pages.as_mut_slice()[len - 1] = 7;
            pages.as_mut_slice()[0] = 9;
            assert_eq!((pages.as_slice()[0], pages.as_slice()[len - 1]), (9, 7));
        }
    }

    #[test]
    fn a_snapshot_holds_the_file_exactly_at_every_size() {
        let dir = std::env::temp_dir().join(format!("bufkit-snapshot-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for len in [0usize, 1, POPULATED_MIN - 1, POPULATED_MIN, HUGE_MIN + 12_345, HUGE_PAGE * 2 + 3] {
            let path = dir.join(format!("f{len}"));
            let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            std::fs::write(&path, &bytes).unwrap();
            let snap = snapshot(File::open(&path).unwrap(), len as u64, &path).unwrap();
            assert!(*snap == *bytes, "len {len}");
            let short = snapshot(File::open(&path).unwrap(), len as u64 + 1, &path);
            assert!(short.is_err(), "a file shorter than inspected is refused (len {len})");
            if len > 0 {
                let long = snapshot(File::open(&path).unwrap(), len as u64 - 1, &path);
                assert!(long.is_err(), "a file longer than inspected is refused (len {len})");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
