//! One pooled allocation: an owned, initialised, 64-byte-aligned run of bytes.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

use crate::Error;

/// Cache-line alignment: no two buffers share a line, and SIMD loads are aligned.
const ALIGN: usize = 64;

/// Blocks of this size and up are anonymous mappings of their own (page-aligned, zero-filled by
/// the kernel), so memory the pool frees (over its cap, decayed, trimmed) goes back to the system
/// at once, whatever the C allocator's heap would keep (glibc serves such sizes from its heap once
/// its mmap threshold has risen, and keeps the holes).
const MAP_AT: usize = 16 << 10;

/// Whether a block of `size` is a mapping (see `sys::MAPS`).
fn mapped(size: usize) -> bool {
    crate::sys::MAPS && size >= MAP_AT
}

/// An owned block of `size` bytes. Its bytes are always initialised (zeroed when allocated, then
/// whatever the last user wrote), so handing them out as `&mut [u8]` is sound.
pub(crate) struct Block {
    ptr: NonNull<u8>,
    size: usize,
    /// When it was last returned to the shared queue (pool clock ticks), for decay.
    pub(crate) idle_since: u64,
}

// SAFETY: a Block exclusively owns its allocation, like Box<[u8]>.
unsafe impl Send for Block {}

impl Block {
    /// A fresh zeroed block; `size` is non-zero and ≤ isize::MAX rounded to ALIGN.
    pub(crate) fn allocate(size: usize) -> Result<Block, Error> {
        let layout = Layout::from_size_align(size, ALIGN).map_err(|_| Error::TooLarge(size))?;
        if mapped(size) {
            let ptr = crate::sys::map_zeroed(size).ok_or(Error::AllocFailed(size))?;
            return Ok(Block { ptr, size, idle_since: 0 });
        }
        // SAFETY: size is non-zero (callers reject 0). Zeroed so that every byte is initialised;
        // large blocks come from fresh mappings, where zero pages cost nothing extra.
        let ptr = unsafe { alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).ok_or(Error::AllocFailed(size))?;
        Ok(Block { ptr, size, idle_since: 0 })
    }

    pub(crate) fn size(&self) -> usize {
        self.size
    }

    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: the block owns `size` initialised bytes; the borrow is tied to &self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.size) }
    }

    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, exclusively through &mut self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.size) }
    }

    /// Gives up ownership; [`Block::from_raw`] takes it back.
    pub(crate) fn into_raw(self) -> (NonNull<u8>, usize) {
        let parts = (self.ptr, self.size);
        std::mem::forget(self);
        parts
    }

    /// # Safety
    /// `ptr`/`size` came from [`Block::into_raw`] and are not owned by anything else.
    pub(crate) unsafe fn from_raw(ptr: NonNull<u8>, size: usize) -> Block {
        Block { ptr, size, idle_since: 0 }
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        if mapped(self.size) {
            // SAFETY: `allocate` mapped exactly this range for this block, which is dropped once;
            // nothing else refers to it.
            unsafe { crate::sys::unmap(self.ptr, self.size) };
            return;
        }
        let layout = Layout::from_size_align(self.size, ALIGN).expect("checked at allocation");
        // SAFETY: allocated in `allocate` with this layout, and dropped once.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), layout) }
    }
}
