//! The crate's one OS layer: the anonymous mappings large blocks live in. Any POSIX system has
//! `mmap` (Linux, Android, macOS, the BSDs); elsewhere, and under Miri, which cannot run it,
//! [`MAPS`] is false and every block comes from the global allocator, zeroed.

use std::ptr::NonNull;

/// Whether blocks can be mappings of their own here.
pub(crate) const MAPS: bool = cfg!(all(unix, not(miri)));

/// A fresh private anonymous mapping of `size` (non-zero) bytes, zero-filled by the kernel.
#[cfg(all(unix, not(miri)))]
pub(crate) fn map_zeroed(size: usize) -> Option<NonNull<u8>> {
    // SAFETY: a fresh private anonymous mapping, touching no existing memory; checked below.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if ptr == libc::MAP_FAILED { None } else { NonNull::new(ptr.cast()) }
}

/// Unmaps a mapping made by [`map_zeroed`].
///
/// # Safety
/// `ptr`/`size` are exactly a live mapping from [`map_zeroed`], not used afterwards.
#[cfg(all(unix, not(miri)))]
pub(crate) unsafe fn unmap(ptr: NonNull<u8>, size: usize) {
    // SAFETY: per the contract; munmap can only fail for a range that is not a mapping.
    unsafe { libc::munmap(ptr.as_ptr().cast(), size) };
}

#[cfg(not(all(unix, not(miri))))]
pub(crate) fn map_zeroed(_size: usize) -> Option<NonNull<u8>> {
    unreachable!("MAPS is false: no block is a mapping here")
}

/// # Safety
/// Never called: [`MAPS`] is false here.
#[cfg(not(all(unix, not(miri))))]
pub(crate) unsafe fn unmap(_ptr: NonNull<u8>, _size: usize) {
    unreachable!("MAPS is false: no block is a mapping here")
}
