//! Anonymous page mappings for large buffers (Linux): grown with `mremap`, so growth moves page
//! table entries instead of bytes, and backed by transparent huge pages where the kernel allows,
//! so filling fresh memory takes one fault per 2 MiB instead of one per 4 KiB.
//!
//! Huge pages only survive a move when source and destination are both 2 MiB-aligned, so every
//! mapping starts on a 2 MiB boundary and a move that cannot grow in place goes to an aligned
//! reservation (`MREMAP_FIXED`), never to wherever the kernel would put it.
//!
//! One freed mapping of at most [`KEEP_MAX`] bytes is kept for the next buffer that grows past the
//! heap ([`take_kept`]), its pages offered back to the kernel with `MADV_FREE`: the kernel takes
//! them only under memory pressure, and until then a new buffer writes into them without a page
//! fault, as a `realloc` loop reuses glibc's warm heap.
//!
//! This is the crate's one OS layer, and Linux's alone (`mremap`, `MADV_HUGEPAGE`, `MADV_FREE`).
//! Elsewhere (Android, macOS, the BSDs) and under Miri the module is not compiled: `raw.rs` keeps
//! every block on the global allocator and grows it with `realloc`, as it does on Linux below
//! [`MAP_THRESHOLD`](crate::MAP_THRESHOLD); growth then copies what `realloc` copies, and the
//! counters say so. `scripts/check-ports` type-checks that path for those systems.

use std::ptr::NonNull;
use std::sync::Mutex;

use libc::c_void;

/// The x86-64 / aarch64 (4 KiB base) transparent huge page size.
const HUGE_PAGE: usize = 2 << 20;
/// Mappings at least this large are aligned and advised for huge pages; smaller ones gain little.
const HUGE_MIN: usize = 4 << 20;

fn align_up(addr: usize) -> usize {
    (addr + HUGE_PAGE - 1) & !(HUGE_PAGE - 1)
}

/// A fresh anonymous private mapping of `len` bytes with `prot`, wherever the kernel puts it.
pub(crate) fn map_anonymous(len: usize, prot: libc::c_int) -> Option<*mut c_void> {
    // SAFETY: an anonymous private mapping with no address hint touches no existing memory.
    let p = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
    (p != libc::MAP_FAILED).then_some(p)
}

/// The system page size.
fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).ok().filter(|&s| s.is_power_of_two()).unwrap_or(4096)
}

/// Unmaps `len` bytes at `p`, which must start on a page boundary; whether the kernel agreed.
///
/// # Safety
/// `p..p + len` lies inside mappings this module made and nothing uses it afterwards.
unsafe fn unmap_range(p: *mut c_void, len: usize) -> bool {
    // SAFETY: per the contract.
    let unmapped = unsafe { libc::munmap(p, len) } == 0;
    debug_assert!(unmapped, "munmap({p:?}, {len}) failed: {}", std::io::Error::last_os_error());
    unmapped
}

/// Reserves `len` bytes of address space starting on a 2 MiB boundary, with `prot`. The slack
/// before and after is unmapped; the tail starts at the page after `len`, since `munmap` refuses
/// an address that is not page-aligned (and a failed trim would leak up to 2 MiB per mapping).
fn map_aligned(len: usize, prot: libc::c_int) -> Option<*mut c_void> {
    let page = page_size();
    let len_pages = len.checked_add(page - 1)? & !(page - 1);
    let span = len_pages.checked_add(HUGE_PAGE)?;
    let raw = map_anonymous(span, prot)?;
    let start = raw as usize;
    let aligned = align_up(start);
    let (head, tail) = (aligned - start, start + span - (aligned + len_pages));
    // SAFETY: both trimmed ranges lie inside the mapping just made, start on page boundaries
    // (`start`, `aligned` and `len_pages` are page multiples) and hold nothing.
    let trimmed = unsafe {
        (head == 0 || unmap_range(raw, head)) && (tail == 0 || unmap_range((aligned + len_pages) as *mut c_void, tail))
    };
    if !trimmed {
        // SAFETY: the whole span is still ours (a failed munmap changes nothing); give it all back.
        unsafe { libc::munmap(raw, span) };
        return None;
    }
    Some(aligned as *mut c_void)
}

fn advise(p: *mut c_void, len: usize) {
    if len >= HUGE_MIN {
        // SAFETY: p/len describe a live mapping we own; MADV_HUGEPAGE changes no contents.
        unsafe { libc::madvise(p, len, libc::MADV_HUGEPAGE) };
    }
}

/// A fresh read-write mapping of `len` (non-zero) bytes.
pub(crate) fn map(len: usize) -> Option<NonNull<u8>> {
    let p = if len >= HUGE_MIN {
        map_aligned(len, libc::PROT_READ | libc::PROT_WRITE)?
    } else {
        map_anonymous(len, libc::PROT_READ | libc::PROT_WRITE)?
    };
    advise(p, len);
    NonNull::new(p.cast())
}

/// Resizes the mapping at `ptr` from `old_len` to `new_len` bytes, keeping its contents; in place
/// when the neighbouring address space is free, else by moving its pages. On failure the old
/// mapping is untouched.
///
/// # Safety
/// `ptr`/`old_len` describe a live mapping made by [`map`] or `remap`; `new_len` is non-zero.
pub(crate) unsafe fn remap(ptr: NonNull<u8>, old_len: usize, new_len: usize) -> Option<NonNull<u8>> {
    let old = ptr.as_ptr().cast::<c_void>();
    // SAFETY: old/old_len is our mapping; without MREMAP_MAYMOVE it either resizes in place or fails.
    let p = unsafe { libc::mremap(old, old_len, new_len, 0) };
    if p != libc::MAP_FAILED {
        advise(p, new_len);
        return NonNull::new(p.cast());
    }
    let p = if new_len >= HUGE_MIN {
        let target = map_aligned(new_len, libc::PROT_NONE)?;
        // SAFETY: `target` is a reservation we own of new_len bytes; MREMAP_FIXED replaces it with
        // our pages atomically, and unmaps the old range.
        let p = unsafe { libc::mremap(old, old_len, new_len, libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED, target) };
        if p == libc::MAP_FAILED {
            // SAFETY: the reservation is ours and unused.
            unsafe { unmap_range(target, new_len) };
            return None;
        }
        p
    } else {
        // SAFETY: as above, letting the kernel choose the address.
        let p = unsafe { libc::mremap(old, old_len, new_len, libc::MREMAP_MAYMOVE) };
        if p == libc::MAP_FAILED {
            return None;
        }
        p
    };
    advise(p, new_len);
    NonNull::new(p.cast())
}

/// Unmaps a mapping.
///
/// # Safety
/// `ptr`/`len` describe a live mapping made by [`map`] or [`remap`], not used afterwards.
pub(crate) unsafe fn unmap(ptr: NonNull<u8>, len: usize) {
    // SAFETY: per the contract; a mapping from `map`/`remap` starts on a page boundary.
    unsafe { unmap_range(ptr.as_ptr().cast(), len) };
}

/// The largest freed mapping [`keep`] holds on to: the process never keeps more than this.
pub(crate) const KEEP_MAX: usize = 32 << 20;

/// The one kept mapping, as (address, length); addresses because raw pointers are not `Send`.
static KEPT: Mutex<Option<(usize, usize)>> = Mutex::new(None);

/// Gives up a mapping like [`unmap`], but keeps it (up to [`KEEP_MAX`] bytes) for [`take_kept`],
/// its pages lazily freed; a mapping kept before is unmapped.
///
/// # Safety
/// As for [`unmap`].
pub(crate) unsafe fn keep(ptr: NonNull<u8>, len: usize) {
    let p = ptr.as_ptr().cast::<c_void>();
    // SAFETY: p/len is our live mapping (contract); MADV_FREE lets the kernel drop its pages,
    // which then read as zeros: its contents are never read before being written again.
    if len > KEEP_MAX || unsafe { libc::madvise(p, len, libc::MADV_FREE) } != 0 {
        // SAFETY: per the contract.
        unsafe { unmap(ptr, len) };
        return;
    }
    let before = KEPT.lock().unwrap_or_else(|e| e.into_inner()).replace((p as usize, len));
    if let Some((addr, old_len)) = before {
        // SAFETY: a kept mapping belongs to KEPT alone, and was just taken out of it.
        unsafe { unmap_range(addr as *mut c_void, old_len) };
    }
}

/// The kept mapping, if there is one of at least `min_len` bytes, and its length; the caller owns
/// it from then on (to be given back with [`unmap`], [`keep`] or grown with [`remap`]). Its
/// contents are undefined.
pub(crate) fn take_kept(min_len: usize, max_len: usize) -> Option<(NonNull<u8>, usize)> {
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let (addr, len) = (*kept).filter(|&(_, len)| (min_len..=max_len).contains(&len))?;
    *kept = None;
    Some((NonNull::new(addr as *mut u8)?, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(p: NonNull<u8>, len: usize) {
        for i in (0..len).step_by(4096) {
            // SAFETY: i < len, inside the live mapping.
            unsafe { *p.as_ptr().add(i) = (i / 4096) as u8 };
        }
    }

    fn check(p: NonNull<u8>, len: usize) {
        for i in (0..len).step_by(4096) {
            // SAFETY: i < len, inside the live mapping.
            assert_eq!(unsafe { *p.as_ptr().add(i) }, (i / 4096) as u8, "page {}", i / 4096);
        }
    }

    /// Whether the page holding `addr` is mapped (mincore fails with ENOMEM on unmapped pages).
    fn page_is_mapped(addr: usize) -> bool {
        let page = page_size();
        let mut residency = 0u8;
        // SAFETY: mincore only inspects the address range; the vector has room for its one page.
        unsafe { libc::mincore((addr & !(page - 1)) as *mut c_void, page, &mut residency) == 0 }
    }

    #[test]
    fn a_large_mapping_of_an_odd_length_leaves_no_address_space_behind() {
        // Before the fix, the slack after such a mapping (up to 2 MiB) stayed mapped, every time.
        // Another test's thread may map that freed slack in the instant before we look: a leak
        // shows on every attempt, such a race not three times running.
        let page = page_size();
        for len in [HUGE_MIN + 1, HUGE_MIN + 1_000_001, 3 * HUGE_MIN + 4095] {
            let end = (len + page - 1) & !(page - 1);
            let slack_unmapped = (0..3).any(|_| {
                let p = map(len).unwrap();
                assert!(page_is_mapped(p.as_ptr() as usize + end - 1));
                let unmapped = !page_is_mapped(p.as_ptr() as usize + end);
                // SAFETY: made just above.
                unsafe { unmap(p, len) };
                unmapped
            });
            assert!(slack_unmapped, "slack after a {len}-byte mapping left mapped");
        }
    }

    #[test]
    fn large_mappings_start_on_huge_page_boundaries() {
        let p = map(HUGE_MIN + 12345).unwrap();
        assert_eq!(p.as_ptr() as usize % HUGE_PAGE, 0);
        // SAFETY: made just above.
        unsafe { unmap(p, HUGE_MIN + 12345) };
    }

    #[test]
    fn a_blocked_mapping_moves_to_an_aligned_place_with_its_contents() {
        let len = HUGE_MIN;
        let p = map(len).unwrap();
        fill(p, len);
        // Occupy the address space right after the mapping so it cannot grow in place.
        let after = (p.as_ptr() as usize + len) as *mut c_void;
        // SAFETY: MAP_FIXED_NOREPLACE never replaces an existing mapping; it fails instead.
        let blocker = unsafe {
            libc::mmap(
                after,
                4096,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE,
                -1,
                0,
            )
        };
        // SAFETY: p/len is the mapping made above; 4 * len is non-zero.
        let q = unsafe { remap(p, len, 4 * len) }.unwrap();
        if blocker == after {
            assert_ne!(q, p, "growth past a blocked neighbour must move");
            // SAFETY: the blocker is ours.
            unsafe { libc::munmap(blocker, 4096) };
        }
        assert_eq!(q.as_ptr() as usize % HUGE_PAGE, 0);
        check(q, len);
        fill(q, 4 * len);
        check(q, 4 * len);
        // SAFETY: q/4*len is the live mapping.
        unsafe { unmap(q, 4 * len) };
    }
}
