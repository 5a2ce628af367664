//! The panic boundary that `#[export]` (crate `bufkit-ffi-macros`) puts around every export, and
//! the pointer checks the exports use.

use std::mem::MaybeUninit;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::status::bk_status;

/// Runs an export's body; a panic inside becomes `BK_STATUS_PANIC` instead of unwinding into C.
/// Inlined into each export: as a function of its own it saved and restored six registers around
/// every body (a pool acquire + release pair from C: 335 instructions before, 308 after).
#[inline(always)]
pub(crate) fn boundary(body: impl FnOnce() -> Result<(), bk_status>) -> bk_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => bk_status::BK_STATUS_OK,
        Ok(Err(status)) => status,
        Err(_) => bk_status::BK_STATUS_PANIC,
    }
}

/// Like [`boundary`] for exports that return a value rather than a status: `fallback` on panic.
#[inline(always)]
pub(crate) fn boundary_or<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

/// # Safety
/// `ptr` is null or points to a live `T` that nothing mutates for `'a`.
pub(crate) unsafe fn checked_ref<'a, T>(ptr: *const T) -> Result<&'a T, bk_status> {
    // SAFETY: non-null pointers are valid per the caller's contract.
    unsafe { ptr.as_ref() }.ok_or(bk_status::BK_STATUS_NULL_POINTER)
}

/// # Safety
/// `ptr` is null or points to a live `T` that nothing else accesses for `'a`.
pub(crate) unsafe fn checked_mut<'a, T>(ptr: *mut T) -> Result<&'a mut T, bk_status> {
    // SAFETY: non-null pointers are valid and unaliased per the caller's contract.
    unsafe { ptr.as_mut() }.ok_or(bk_status::BK_STATUS_NULL_POINTER)
}

/// An input byte range from C. `(NULL, 0)` is the empty slice; `(NULL, n > 0)` is an error.
///
/// # Safety
/// If `ptr` is non-null it points to `len` readable bytes that are not written for `'a`.
pub(crate) unsafe fn checked_slice<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], bk_status> {
    if len > isize::MAX as usize {
        return Err(bk_status::BK_STATUS_LENGTH_OVERFLOW);
    }
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(bk_status::BK_STATUS_NULL_POINTER);
    }
    // SAFETY: non-null, len ≤ isize::MAX, readable for len bytes per the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// An output byte range from C, with the same rules as [`checked_slice`]. The memory may be
/// uninitialised (a `malloc`, a fresh Erlang binary, a JNI scratch buffer), so it is seen as
/// `MaybeUninit<u8>` and only ever written through the `_uninit` entry points of the crates.
///
/// # Safety
/// If `ptr` is non-null it points to `len` writable bytes that nothing else accesses for `'a`.
pub(crate) unsafe fn checked_out_bytes<'a>(ptr: *mut u8, len: usize) -> Result<&'a mut [MaybeUninit<u8>], bk_status> {
    if len > isize::MAX as usize {
        return Err(bk_status::BK_STATUS_LENGTH_OVERFLOW);
    }
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(bk_status::BK_STATUS_NULL_POINTER);
    }
    // SAFETY: non-null, len ≤ isize::MAX, writable and unaliased for len bytes per the caller's
    // contract; MaybeUninit asks nothing of the bytes' contents.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr.cast::<MaybeUninit<u8>>(), len) })
}

/// Writes `value` through an out-parameter that must not be null.
///
/// # Safety
/// `out` is null or valid for a write of `T`.
pub(crate) unsafe fn write_out<T>(out: *mut T, value: T) -> Result<(), bk_status> {
    if out.is_null() {
        return Err(bk_status::BK_STATUS_NULL_POINTER);
    }
    // SAFETY: non-null and writable per the caller's contract; `write` drops nothing old.
    unsafe { out.write(value) };
    Ok(())
}

/// Gives `value` to C as a new handle in `*out`: boxed, and the caller's until the matching
/// `_free` hands it to [`handle_free`]. Nothing is allocated when `out` is NULL.
///
/// # Safety
/// `out` is NULL or valid for one write.
pub(crate) unsafe fn handle_new<T>(out: *mut *mut T, value: T) -> Result<(), bk_status> {
    if out.is_null() {
        return Err(bk_status::BK_STATUS_NULL_POINTER);
    }
    // SAFETY: non-null, and valid for a write per the caller's contract.
    unsafe { out.write(Box::into_raw(Box::new(value))) };
    Ok(())
}

/// Frees a handle that [`handle_new`] made; NULL does nothing.
///
/// # Safety
/// `handle` is NULL, or came from [`handle_new`] as a `*mut T` and is not used again.
pub(crate) unsafe fn handle_free<T>(handle: *mut T) {
    if !handle.is_null() {
        // SAFETY: made by Box::into_raw in handle_new, and freed once per the caller's contract.
        drop(unsafe { Box::from_raw(handle) });
    }
}
