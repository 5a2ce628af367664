//! The byte copy behind every append.

/// `copy_nonoverlapping`, with copies of up to 32 bytes done inline by two overlapping loads and
/// stores: appends are mostly short pieces, and a call into libc's memcpy costs more than the copy.
///
/// # Safety
/// As for `copy_nonoverlapping`: `src` readable and `dst` writable for `n` bytes, not overlapping.
#[inline(always)]
pub(crate) unsafe fn copy_bytes(src: *const u8, dst: *mut u8, n: usize) {
    use std::ptr::{read_unaligned, write_unaligned};
    // SAFETY: per the contract; in every branch each load/store covers [0, k) or [n - k, n) with
    // k ≤ n, so it stays inside both ranges.
    unsafe {
        if n > 32 {
            std::ptr::copy_nonoverlapping(src, dst, n);
        } else if n >= 16 {
            let head = read_unaligned(src.cast::<[u8; 16]>());
            let tail = read_unaligned(src.add(n - 16).cast::<[u8; 16]>());
            write_unaligned(dst.cast::<[u8; 16]>(), head);
            write_unaligned(dst.add(n - 16).cast::<[u8; 16]>(), tail);
        } else if n >= 8 {
            let head = read_unaligned(src.cast::<u64>());
            let tail = read_unaligned(src.add(n - 8).cast::<u64>());
            write_unaligned(dst.cast::<u64>(), head);
            write_unaligned(dst.add(n - 8).cast::<u64>(), tail);
        } else if n >= 4 {
            let head = read_unaligned(src.cast::<u32>());
            let tail = read_unaligned(src.add(n - 4).cast::<u32>());
            write_unaligned(dst.cast::<u32>(), head);
            write_unaligned(dst.add(n - 4).cast::<u32>(), tail);
        } else {
            for i in 0..n {
                *dst.add(i) = *src.add(i);
            }
        }
    }
}

/// Copies `src` into `dst` (of the same length), which may be uninitialised.
pub(crate) fn write_bytes(dst: &mut [std::mem::MaybeUninit<u8>], src: &[u8]) {
    assert_eq!(dst.len(), src.len());
    // SAFETY: both are valid for src.len() bytes, and a shared and an exclusive borrow cannot overlap.
    unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast::<u8>(), src.len()) };
}
