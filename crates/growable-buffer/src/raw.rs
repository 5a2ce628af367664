//! Contiguous storage that knows whether growth copied bytes or only moved pages.
//!
//! Small blocks come from the global allocator and grow with `realloc`. On Linux, blocks of
//! [`MAP_THRESHOLD`] bytes and more are mapped with `mmap` and grown with `mremap`, which moves page
//! table entries instead of bytes. Doing the mapping here rather than trusting glibc keeps that
//! behaviour deterministic: glibc raises its mmap threshold dynamically after frees, after which a
//! large `realloc` silently turns back into a copy.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

use crate::Error;

/// Blocks at least this large are page-mapped (Linux only): glibc's own initial threshold.
pub(crate) const MAP_THRESHOLD: usize = 128 * 1024;

/// What one capacity change did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Relocation {
    /// The data now lives at a different address.
    pub moved: bool,
    /// Bytes copied by the CPU to get there.
    pub bytes_copied: usize,
}

/// How to get from the old block to the new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strategy {
    /// `realloc` / `mremap`: extend in place or move pages where the system can.
    InPlace,
    /// Allocate a new block, copy, free the old one: what a managed runtime's array growth does.
    AllocateCopy,
}

/// An owned block of `cap` bytes; the owner tracks how many are initialised.
pub(crate) struct RawBytes {
    ptr: NonNull<u8>,
    cap: usize,
    /// Grown in place (not by the copying strategy, which models a managed runtime faithfully):
    /// may start from a mapping kept from an earlier buffer, and is kept when dropped.
    reuse: bool,
}

// SAFETY: RawBytes owns its block exclusively, like Box<[u8]>; nothing in it is tied to a thread.
unsafe impl Send for RawBytes {}
// SAFETY: shared references only read the pointer and capacity; mutation needs &mut.
unsafe impl Sync for RawBytes {}

impl RawBytes {
    /// An empty block that owns no memory.
    pub(crate) const fn new() -> Self {
        RawBytes { ptr: NonNull::dangling(), cap: 0, reuse: true }
    }

    /// A block of at least `cap` bytes and at most `most`.
    pub(crate) fn with_capacity(cap: usize, most: usize) -> Result<Self, Error> {
        let mut raw = RawBytes::new();
        raw.resize(cap, most, 0, Strategy::InPlace)?;
        Ok(raw)
    }

    pub(crate) fn capacity(&self) -> usize {
        self.cap
    }

    pub(crate) fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    pub(crate) fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Changes the capacity to `new_cap` (≥ `len`), keeping the first `len` bytes. Moving to a
    /// fresh mapping in place may give more, never more than `most` (≥ `new_cap`): a kept
    /// mapping larger than asked is taken whole when it fits. On error the block is unchanged.
    pub(crate) fn resize(
        &mut self,
        new_cap: usize,
        most: usize,
        len: usize,
        strategy: Strategy,
    ) -> Result<Relocation, Error> {
        debug_assert!(len <= self.cap && len <= new_cap && new_cap <= most);
        if new_cap == self.cap {
            return Ok(Relocation { moved: false, bytes_copied: 0 });
        }
        if new_cap > isize::MAX as usize {
            return Err(Error::AllocFailed { bytes: new_cap });
        }
        let old = self.ptr;
        if strategy == Strategy::InPlace && self.cap != 0 && new_cap != 0 && mapped(self.cap) == mapped(new_cap) {
            // SAFETY: the block is live, `len <= min(cap, new_cap)`, and new_cap is non-zero and ≤ isize::MAX.
            self.ptr =
                unsafe { reallocate(self.ptr, self.cap, new_cap) }.ok_or(Error::AllocFailed { bytes: new_cap })?;
            self.cap = new_cap;
            let moved = self.ptr != old;
            // glibc's realloc of a heap block that cannot grow in place copies it; mremap never does.
            let bytes_copied = if moved && !mapped(new_cap) { len } else { 0 };
            return Ok(Relocation { moved, bytes_copied });
        }
        let reuse = strategy == Strategy::InPlace;
        let (fresh, fresh_cap) = if new_cap == 0 {
            (NonNull::dangling(), 0)
        } else {
            // SAFETY: new_cap is non-zero and ≤ isize::MAX.
            unsafe { allocate(new_cap, most, reuse) }.ok_or(Error::AllocFailed { bytes: new_cap })?
        };
        if len > 0 {
            // SAFETY: both blocks hold at least `len` bytes and are distinct allocations.
            unsafe { std::ptr::copy_nonoverlapping(old.as_ptr(), fresh.as_ptr(), len) };
        }
        if self.cap != 0 {
            // SAFETY: `old` was allocated by `allocate`/`reallocate` with exactly `self.cap` bytes.
            unsafe { release(old, self.cap, reuse) };
        }
        self.ptr = fresh;
        self.cap = fresh_cap;
        self.reuse = reuse;
        Ok(Relocation { moved: len > 0, bytes_copied: len })
    }
}

impl Drop for RawBytes {
    fn drop(&mut self) {
        if self.cap != 0 {
            // SAFETY: the block was allocated with exactly `self.cap` bytes and is dropped once.
            unsafe { release(self.ptr, self.cap, self.reuse) };
        }
    }
}

/// Whether a block of this size is page-mapped rather than heap-allocated.
fn mapped(cap: usize) -> bool {
    cfg!(all(target_os = "linux", not(miri))) && cap >= MAP_THRESHOLD
}

fn heap_layout(cap: usize) -> Layout {
    // Alignment 1 and cap ≤ isize::MAX (checked by callers) make this infallible.
    Layout::from_size_align(cap, 1).expect("size checked against isize::MAX")
}

/// A block of at least `cap` bytes and its exact size: a mapping kept from a buffer dropped
/// before when `reuse` allows and one is big enough (its pages are likely still in memory), else
/// exactly `cap` fresh bytes.
///
/// # Safety
/// `cap` is non-zero and ≤ `isize::MAX`.
unsafe fn allocate(cap: usize, most: usize, reuse: bool) -> Option<(NonNull<u8>, usize)> {
    #[cfg(all(target_os = "linux", not(miri)))]
    if mapped(cap) {
        let kept = if reuse { crate::pages::take_kept(cap, most) } else { None };
        return kept.or_else(|| Some((crate::pages::map(cap)?, cap)));
    }
    let _ = (reuse, most);
    // SAFETY: the layout has non-zero size (caller's contract).
    Some((NonNull::new(unsafe { alloc::alloc(heap_layout(cap)) })?, cap))
}

/// # Safety
/// `ptr` came from `allocate`/`reallocate` with `old_cap` bytes; `new_cap` is non-zero, ≤ `isize::MAX`,
/// and on the same side of the mapping threshold as `old_cap`.
unsafe fn reallocate(ptr: NonNull<u8>, old_cap: usize, new_cap: usize) -> Option<NonNull<u8>> {
    #[cfg(all(target_os = "linux", not(miri)))]
    if mapped(old_cap) {
        // SAFETY: ptr/old_cap is a live mapping made by pages::map/remap (mapped() sizes only).
        return unsafe { crate::pages::remap(ptr, old_cap, new_cap) };
    }
    // SAFETY: ptr was allocated by the global allocator with heap_layout(old_cap); new_cap is valid.
    NonNull::new(unsafe { alloc::realloc(ptr.as_ptr(), heap_layout(old_cap), new_cap) })
}

/// Gives a block back; a mapping of a buffer that may `reuse` memory is kept for the next one
/// (see `pages::keep`).
///
/// # Safety
/// `ptr` came from `allocate`/`reallocate` with exactly `cap` (non-zero) bytes, and is not used again.
unsafe fn release(ptr: NonNull<u8>, cap: usize, reuse: bool) {
    #[cfg(all(target_os = "linux", not(miri)))]
    if mapped(cap) {
        // SAFETY: ptr/cap is a live mapping made by pages::map/remap, dropped once.
        unsafe {
            if reuse {
                crate::pages::keep(ptr, cap);
            } else {
                crate::pages::unmap(ptr, cap);
            }
        }
        return;
    }
    let _ = reuse;
    // SAFETY: allocated by the global allocator with this layout.
    unsafe { alloc::dealloc(ptr.as_ptr(), heap_layout(cap)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(raw: &mut RawBytes, len: usize) {
        for i in 0..len {
            // SAFETY: i < len ≤ capacity.
            unsafe { *raw.as_mut_ptr().add(i) = i as u8 };
        }
    }

    fn check(raw: &RawBytes, len: usize) {
        for i in 0..len {
            // SAFETY: i < len ≤ capacity and the first len bytes were written.
            assert_eq!(unsafe { *raw.as_ptr().add(i) }, i as u8);
        }
    }

    #[test]
    fn bytes_survive_every_kind_of_resize() {
        let mut raw = RawBytes::with_capacity(100, usize::MAX).unwrap();
        filled(&mut raw, 100);
        let r = raw.resize(1000, usize::MAX, 100, Strategy::InPlace).unwrap();
        assert!(r.bytes_copied == 0 || r.bytes_copied == 100);
        check(&raw, 100);
        raw.resize(MAP_THRESHOLD * 2, usize::MAX, 100, Strategy::InPlace).unwrap();
        check(&raw, 100);
        raw.resize(MAP_THRESHOLD * 8, usize::MAX, 100, Strategy::InPlace).unwrap();
        check(&raw, 100);
        let r = raw.resize(MAP_THRESHOLD * 9, usize::MAX, 100, Strategy::AllocateCopy).unwrap();
        assert_eq!(r, Relocation { moved: true, bytes_copied: 100 });
        check(&raw, 100);
    }

    #[cfg(all(target_os = "linux", not(miri)))]
    #[test]
    fn mapped_growth_copies_nothing() {
        let mut raw = RawBytes::with_capacity(MAP_THRESHOLD, usize::MAX).unwrap();
        filled(&mut raw, MAP_THRESHOLD);
        let mut cap = MAP_THRESHOLD;
        for _ in 0..8 {
            cap *= 2;
            let r = raw.resize(cap, usize::MAX, MAP_THRESHOLD, Strategy::InPlace).unwrap();
            assert_eq!(r.bytes_copied, 0);
        }
        check(&raw, MAP_THRESHOLD);
    }

    #[test]
    fn impossible_sizes_fail_cleanly() {
        let mut raw = RawBytes::with_capacity(16, usize::MAX).unwrap();
        filled(&mut raw, 16);
        assert_eq!(
            raw.resize(usize::MAX, usize::MAX, 16, Strategy::InPlace),
            Err(Error::AllocFailed { bytes: usize::MAX })
        );
        // 2^47 bytes is the whole user address space of x86-64: no allocator can satisfy it.
        #[cfg(not(miri))]
        assert!(matches!(raw.resize(1 << 47, usize::MAX, 16, Strategy::InPlace), Err(Error::AllocFailed { .. })));
        assert_eq!(raw.capacity(), 16);
        check(&raw, 16);
    }
}
