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

/// One byte as C passes it: `u8`, or `c_char` (signed on some targets). A byte range of either
/// is read as `u8`.
pub(crate) trait Byte {}
impl Byte for u8 {}
impl Byte for i8 {}

/// An input byte range from C (`#[bytes(len)]`). `(NULL, 0)` is the empty slice; `(NULL, n > 0)`
/// is an error.
///
/// # Safety
/// If `ptr` is non-null it points to `len` readable bytes that are not written for `'a`.
pub(crate) unsafe fn checked_bytes<'a, B: Byte>(ptr: *const B, len: usize) -> Result<&'a [u8], bk_status> {
    // SAFETY: the caller's contract, passed on; B is one byte, so `len` elements are `len` bytes.
    unsafe { checked_slice(ptr.cast::<u8>(), len) }
}

/// An output byte range from C (`#[out_bytes(len)]`), with the rules of [`checked_bytes`]. The
/// memory may be uninitialised (a `malloc`, a fresh Erlang binary, a JNI scratch buffer), so it is
/// seen as `MaybeUninit<u8>` and only ever written through the `_uninit` entry points of the crates.
///
/// # Safety
/// If `ptr` is non-null it points to `len` writable bytes that nothing else accesses for `'a`.
pub(crate) unsafe fn checked_out_bytes<'a, B: Byte>(
    ptr: *mut B,
    len: usize,
) -> Result<&'a mut [MaybeUninit<u8>], bk_status> {
    // SAFETY: the caller's contract, passed on; B is one byte.
    unsafe { checked_out_slice(ptr.cast::<u8>(), len) }
}

/// An input array from C (`#[slice(len)]`): `len` elements. `(NULL, 0)` is the empty slice;
/// `(NULL, n > 0)` is `BK_STATUS_NULL_POINTER`; more than `isize::MAX` bytes is
/// `BK_STATUS_LENGTH_OVERFLOW`.
///
/// # Safety
/// If `ptr` is non-null it points to `len` readable, initialised `T`s that are not written for `'a`.
pub(crate) unsafe fn checked_slice<'a, T>(ptr: *const T, len: usize) -> Result<&'a [T], bk_status> {
    if !array_is_there::<T>(ptr.is_null(), len)? {
        return Ok(&[]);
    }
    // SAFETY: non-null, at most isize::MAX bytes, readable and initialised for `len` elements per
    // the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// The rules every array from C follows: more than `isize::MAX` bytes is
/// `BK_STATUS_LENGTH_OVERFLOW`; a length of 0 is the empty slice whatever the pointer
/// (`Ok(false)`); otherwise a NULL pointer is `BK_STATUS_NULL_POINTER`, and `Ok(true)` means
/// the slice may be made.
fn array_is_there<T>(is_null: bool, len: usize) -> Result<bool, bk_status> {
    if len.checked_mul(size_of::<T>()).is_none_or(|bytes| bytes > isize::MAX as usize) {
        return Err(bk_status::BK_STATUS_LENGTH_OVERFLOW);
    }
    if len == 0 {
        return Ok(false);
    }
    if is_null {
        return Err(bk_status::BK_STATUS_NULL_POINTER);
    }
    Ok(true)
}

/// An output array from C (`#[out_slice(len)]`), with the rules of [`checked_slice`]. The memory
/// may be uninitialised, so it is seen as `MaybeUninit<T>`: written, never read.
///
/// # Safety
/// If `ptr` is non-null it points to `len` writable `T`s that nothing else accesses for `'a`.
pub(crate) unsafe fn checked_out_slice<'a, T>(ptr: *mut T, len: usize) -> Result<&'a mut [MaybeUninit<T>], bk_status> {
    if !array_is_there::<T>(ptr.is_null(), len)? {
        return Ok(&mut []);
    }
    // SAFETY: non-null, at most isize::MAX bytes, writable and unaliased for `len` elements per the
    // caller's contract; MaybeUninit asks nothing of the contents.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr.cast::<MaybeUninit<T>>(), len) })
}

/// An out-parameter (`#[out]`), seen as possibly uninitialised memory: written, never read.
///
/// # Safety
/// `ptr` is null or valid for writes of one `T`, and nothing else accesses it for `'a`.
pub(crate) unsafe fn checked_out<'a, T>(ptr: *mut T) -> Result<&'a mut MaybeUninit<T>, bk_status> {
    // SAFETY: non-null pointers are writable and unaliased per the caller's contract, and
    // MaybeUninit<T> has T's layout and asks nothing of the contents.
    unsafe { ptr.cast::<MaybeUninit<T>>().as_mut() }.ok_or(bk_status::BK_STATUS_NULL_POINTER)
}

/// An out-parameter that holds `value` from the start (`#[out = value]`): what a failure leaves
/// there, whatever fails next.
///
/// # Safety
/// As for [`checked_out`].
pub(crate) unsafe fn checked_out_init<'a, T>(ptr: *mut T, value: T) -> Result<&'a mut T, bk_status> {
    // SAFETY: the caller's contract, passed on.
    let out = unsafe { checked_out(ptr) }?;
    Ok(out.write(value))
}

/// A NUL-terminated string from C (`#[c_str]`).
///
/// # Safety
/// `ptr` is null or points to a NUL-terminated string that is not written for `'a`.
pub(crate) unsafe fn checked_c_str<'a>(ptr: *const std::ffi::c_char) -> Result<&'a std::ffi::CStr, bk_status> {
    if ptr.is_null() {
        return Err(bk_status::BK_STATUS_NULL_POINTER);
    }
    // SAFETY: non-null and NUL-terminated, unchanged for 'a, per the caller's contract.
    Ok(unsafe { std::ffi::CStr::from_ptr(ptr) })
}

/// An optional text buffer from C (`#[text_out(len)]`): NULL, or `len` writable bytes that
/// receive a NUL-terminated string, truncated to fit on a character boundary. It holds the empty
/// string from the start of the call, so a failure of any kind leaves no stale text.
pub(crate) struct TextOut<'a>(Option<&'a mut [MaybeUninit<u8>]>);

impl TextOut<'_> {
    /// Replaces the text.
    pub(crate) fn set(&mut self, text: &str) {
        if let Some(buf) = self.0.as_deref_mut() {
            write_c_string(text, buf, |dst, byte| {
                dst.write(byte);
            });
        }
    }
}

/// Fills a C string array of a struct with `text`, NUL-terminated and truncated to fit.
pub(crate) fn set_c_string(text: &str, buf: &mut [std::ffi::c_char]) {
    write_c_string(text, buf, |dst, byte| *dst = byte as std::ffi::c_char);
}

/// Stores `text` in `buf` with `store`, NUL-terminated, cut on a character boundary to fit;
/// nothing when `buf` has no room even for the NUL.
fn write_c_string<T>(text: &str, buf: &mut [T], store: impl Fn(&mut T, u8)) {
    let Some(room) = buf.len().checked_sub(1) else { return };
    let mut n = text.len().min(room);
    while !text.is_char_boundary(n) {
        n -= 1;
    }
    for (dst, &byte) in buf.iter_mut().zip(&text.as_bytes()[..n]) {
        store(dst, byte);
    }
    store(&mut buf[n], 0);
}

/// # Safety
/// `ptr` is NULL, or writable for `len` bytes that nothing else accesses for `'a`.
pub(crate) unsafe fn checked_text_out<'a, B: Byte>(ptr: *mut B, len: usize) -> Result<TextOut<'a>, bk_status> {
    if ptr.is_null() || len == 0 {
        return Ok(TextOut(None));
    }
    // SAFETY: the caller's contract, passed on.
    let mut out = TextOut(Some(unsafe { checked_out_bytes(ptr, len) }?));
    out.set("");
    Ok(out)
}

/// Gives `value` to C as a new handle in `*out` (an `#[out = std::ptr::null_mut()]` parameter):
/// boxed, and the caller's until the matching `_free` hands it to [`handle_free`].
pub(crate) fn handle_new<T>(out: &mut *mut T, value: T) -> Result<(), bk_status> {
    *out = Box::into_raw(Box::new(value));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The text a 0..len buffer holds after `set`, up to its NUL.
    fn text_after_set(text: &str, len: usize) -> Vec<u8> {
        let mut buf = vec![0xAAu8; len];
        {
            // SAFETY: `buf` is `len` writable bytes that nothing else uses in this block.
            let mut out = unsafe { checked_text_out(buf.as_mut_ptr(), len) }.unwrap();
            out.set(text);
        }
        buf.iter().take_while(|&&b| b != 0).copied().collect()
    }

    #[test]
    fn text_is_cut_to_fit_on_a_character_boundary_and_always_terminated() {
        assert_eq!(text_after_set("héllo", 64), "héllo".as_bytes());
        assert_eq!(text_after_set("héllo", 3), b"h"); // "h" + half of 'é' would not be UTF-8
        assert_eq!(text_after_set("héllo", 4), "hé".as_bytes());
        assert_eq!(text_after_set("abc", 1), b"");
        let mut fixed = [1 as std::ffi::c_char; 4];
        set_c_string("€uro", &mut fixed); // '€' is 3 bytes: it just fits
        assert_eq!(fixed.map(|c| c as u8), [0xE2, 0x82, 0xAC, 0]);
        set_c_string("x", &mut []); // no room even for the NUL: nothing written, no panic
    }

    #[test]
    fn a_text_buffer_is_emptied_as_soon_as_it_is_checked() {
        let mut buf = [b'x'; 8];
        // SAFETY: `buf` is 8 writable bytes, not used while the checked buffer lives (this line).
        assert!(unsafe { checked_text_out(buf.as_mut_ptr(), buf.len()) }.is_ok());
        assert_eq!(buf[0], 0);
        // NULL, or no room: nothing to write, and no error.
        // SAFETY: NULL is allowed.
        assert!(unsafe { checked_text_out(std::ptr::null_mut::<u8>(), 8) }.is_ok());
    }
}
