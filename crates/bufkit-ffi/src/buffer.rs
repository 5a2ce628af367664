//! `bk_buffer`: the growable byte buffer of the `growable-buffer` crate.

use bufkit_ffi_macros::{Boundary, export};
use std::os::raw::c_int;

use growable_buffer::{Config, GrowableBuffer, Growth};

use crate::macros::{handle_free, handle_new};
use crate::status::bk_status;

/// A growable byte buffer.
///
/// Created by `bk_buffer_new`, freed by `bk_buffer_free` (the caller owns it). Not thread-safe: it
/// may be moved between threads, but calls on one buffer must not overlap. Pointers it hands out
/// (`bk_buffer_data`, `bk_buffer_segment`) stay valid until the next call that changes the buffer
/// (append, reserve, clear, flatten, free).
///
/// Methods: (listed in include/bufkit.h)
pub struct bk_buffer {
    pub(crate) inner: GrowableBuffer,
}

/// Growth policies, as values of `bk_buffer_config.growth`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum bk_growth {
    /// Multiply capacity by `factor` (1 < factor ≤ 8), through realloc/mremap. The default (×2).
    BK_GROWTH_GEOMETRIC = 0,
    /// Add `step` bytes by allocate + copy: the quadratic baseline, for measurement only.
    BK_GROWTH_LINEAR = 1,
    /// Grow to exactly what is needed; reserve up front.
    BK_GROWTH_EXACT = 2,
    /// A chain of `chunk_size`-byte chunks (≥ 64) that never copies; not contiguous until flattened.
    BK_GROWTH_SEGMENTED = 3,
}

/// How to build a buffer. Fill it with `bk_buffer_config_default`, then change what you need.
/// Passing NULL to `bk_buffer_new` means the defaults.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct bk_buffer_config {
    /// A `bk_growth` value.
    pub growth: u32,
    /// Factor for `BK_GROWTH_GEOMETRIC` (default 2.0).
    pub factor: f64,
    /// Step in bytes for `BK_GROWTH_LINEAR` (default 2048).
    pub step: usize,
    /// Chunk size in bytes for `BK_GROWTH_SEGMENTED` (default 65536).
    pub chunk_size: usize,
    /// The most bytes the buffer may hold (default PTRDIFF_MAX); past it calls fail with
    /// `BK_STATUS_CAPACITY_EXCEEDED`.
    pub max_capacity: usize,
    /// Bytes allocated up front (default 0).
    pub initial_capacity: usize,
}

/// Counters of a buffer, filled by `bk_buffer_get_stats`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, Boundary)]
#[binding(record = "BufferStats")]
pub struct bk_buffer_stats {
    /// Bytes held.
    pub len: usize,
    /// Bytes it can hold before growing again.
    pub capacity: usize,
    /// Times the capacity increased (segmented: chunks allocated).
    pub grows: u64,
    /// Times the data changed address.
    pub moves: u64,
    /// Bytes copied by the CPU to relocate or flatten the data (pages moved by mremap do not count).
    pub bytes_copied: u64,
}

impl bk_buffer_config {
    fn defaults() -> Self {
        let defaults = Config::default();
        bk_buffer_config {
            growth: bk_growth::BK_GROWTH_GEOMETRIC as u32,
            factor: growable_buffer::DEFAULT_FACTOR,
            step: 2048,
            chunk_size: growable_buffer::DEFAULT_CHUNK_SIZE,
            max_capacity: defaults.max_capacity,
            initial_capacity: defaults.initial_capacity,
        }
    }

    fn to_config(self) -> Result<Config, bk_status> {
        let growth = match self.growth {
            g if g == bk_growth::BK_GROWTH_GEOMETRIC as u32 => Growth::Geometric { factor: self.factor },
            g if g == bk_growth::BK_GROWTH_LINEAR as u32 => Growth::Linear { step: self.step },
            g if g == bk_growth::BK_GROWTH_EXACT as u32 => Growth::Exact,
            g if g == bk_growth::BK_GROWTH_SEGMENTED as u32 => Growth::Segmented { chunk_size: self.chunk_size },
            _ => return Err(bk_status::BK_STATUS_INVALID_ARGUMENT),
        };
        Ok(Config { growth, max_capacity: self.max_capacity, initial_capacity: self.initial_capacity })
    }
}

/// Fills `*config_out` with the defaults (geometric ×2, no practical limit, nothing preallocated).
///
/// # Safety
/// `config_out` is NULL (an error) or valid for writing one `bk_buffer_config`.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_buffer_config_default(#[out] config_out: *mut bk_buffer_config) -> bk_status {
    config_out.write(bk_buffer_config::defaults());
    Ok(())
}

/// Creates a buffer and stores it in `*buffer_out` (set to NULL on failure). `config` may be NULL
/// for the defaults; it is only read during the call. Free the buffer with `bk_buffer_free`.
///
/// # Safety
/// `config` is NULL or points to a readable `bk_buffer_config`; `buffer_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_buffer_new(
    #[nullable] config: *const bk_buffer_config,
    #[out = std::ptr::null_mut()] buffer_out: *mut *mut bk_buffer,
) -> bk_status {
    let config = match config {
        Some(c) => c.to_config()?,
        None => Config::default(),
    };
    handle_new(buffer_out, bk_buffer { inner: GrowableBuffer::with_config(config)? })
}

/// Frees a buffer and everything it holds. NULL does nothing. The buffer must not be used again.
/// On Linux the memory of one freed buffer of 128 KiB to 32 MiB is kept for the next buffer that
/// grows that large (and whose `max_capacity` it fits: a buffer never holds more than its limit),
/// its pages offered back to the kernel (`MADV_FREE`) until then: resident memory may stay up to
/// 32 MiB higher until the kernel needs it.
///
/// # Safety
/// `buffer` is NULL or came from `bk_buffer_new` and has not been freed.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_buffer_free(#[raw] buffer: *mut bk_buffer) {
    // SAFETY: NULL, or from bk_buffer_new (handle_new), freed once per the contract.
    unsafe { handle_free(buffer) }
}

/// Appends `len` bytes from `data` (`data` may be NULL when `len` is 0). On failure nothing is
/// appended and nothing held is lost.
///
/// # Safety
/// `buffer` is a live buffer; `data` is readable for `len` bytes and does not point into `buffer`.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_buffer_append(
    #[live] buffer: *mut bk_buffer,
    #[bytes(len)] data: *const u8,
    len: usize,
) -> bk_status {
    Ok(buffer.inner.append(data)?)
}

/// Makes room for `additional` more bytes without growing again. A total past `PTRDIFF_MAX` is
/// `BK_STATUS_LENGTH_OVERFLOW`, whatever the buffer's limit; past its `max_capacity`,
/// `BK_STATUS_CAPACITY_EXCEEDED`; memory the system refuses, `BK_STATUS_ALLOC_FAILED`. On any
/// failure the buffer is unchanged.
///
/// # Safety
/// `buffer` is a live buffer.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_buffer_reserve(#[live] buffer: *mut bk_buffer, additional: usize) -> bk_status {
    Ok(buffer.inner.reserve(additional)?)
}

/// Forgets the bytes; keeps the capacity and the counters.
///
/// # Safety
/// `buffer` is a live buffer.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_buffer_clear(#[live] buffer: *mut bk_buffer) -> bk_status {
    buffer.inner.clear();
    Ok(())
}

/// Forgets the bytes past the first `len` (nothing, if it holds no more); keeps the capacity and
/// the counters. Undoes appends: a caller that appends a message in pieces and finds it malformed
/// halfway truncates back to the length it had before.
///
/// # Safety
/// `buffer` is a live buffer.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_buffer_truncate(#[live] buffer: *mut bk_buffer, len: usize) -> bk_status {
    buffer.inner.truncate(len);
    Ok(())
}

/// Stores the number of bytes held in `*len_out`.
///
/// # Safety
/// `buffer` is a live buffer; `len_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_buffer_len(#[live] buffer: *const bk_buffer, #[out] len_out: *mut usize) -> bk_status {
    len_out.write(buffer.inner.len());
    Ok(())
}

/// Fills `*stats_out` with the buffer's counters.
///
/// # Safety
/// `buffer` is a live buffer; `stats_out` is valid for one write.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_buffer_get_stats(
    #[live] buffer: *const bk_buffer,
    #[out] stats_out: *mut bk_buffer_stats,
) -> bk_status {
    let s = buffer.inner.stats();
    let stats = bk_buffer_stats {
        len: s.len,
        capacity: s.capacity,
        grows: s.grows,
        moves: s.moves,
        bytes_copied: s.bytes_copied,
    };
    stats_out.write(stats);
    Ok(())
}

/// Points `*data_out` at the bytes and stores their count in `*len_out`, without copying. The
/// pointer is owned by the buffer and valid until the next call that changes it. An empty buffer
/// may give a non-NULL pointer with length 0. A segmented buffer gives `BK_STATUS_NOT_CONTIGUOUS`.
///
/// # Safety
/// `buffer` is a live buffer; `data_out` and `len_out` are valid for one write each.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_buffer_data(
    #[live] buffer: *const bk_buffer,
    #[out] data_out: *mut *const u8,
    #[out] len_out: *mut usize,
) -> bk_status {
    let bytes = buffer.inner.contiguous()?;
    data_out.write(bytes.as_ptr());
    len_out.write(bytes.len());
    Ok(())
}

/// Stores in `*count_out` how many segments the bytes are in (0 when empty, 1 when contiguous).
///
/// # Safety
/// `buffer` is a live buffer; `count_out` is valid for one write.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_buffer_segment_count(
    #[live] buffer: *const bk_buffer,
    #[out] count_out: *mut usize,
) -> bk_status {
    count_out.write(buffer.inner.segment_count());
    Ok(())
}

/// Points `*data_out`/`*len_out` at segment `index` (as for an iovec), without copying. Valid
/// until the next call that changes the buffer. `BK_STATUS_OUT_OF_RANGE` past the last segment.
///
/// # Safety
/// `buffer` is a live buffer; `data_out` and `len_out` are valid for one write each.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_buffer_segment(
    #[live] buffer: *const bk_buffer,
    index: usize,
    #[out] data_out: *mut *const u8,
    #[out] len_out: *mut usize,
) -> bk_status {
    let segment = buffer.inner.segment(index).ok_or(bk_status::BK_STATUS_OUT_OF_RANGE)?;
    data_out.write(segment.as_ptr());
    len_out.write(segment.len());
    Ok(())
}

/// Copies up to `dst_len` bytes starting at `offset` into the caller's `dst`, and stores the number
/// copied in `*copied_out` (less than `dst_len` only at the end). `offset` past the end gives
/// `BK_STATUS_OUT_OF_RANGE`. Works for every policy.
///
/// # Safety
/// `buffer` is a live buffer; `dst` is writable for `dst_len` bytes (NULL only if `dst_len` is 0);
/// `copied_out` is valid for one write.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_buffer_copy_out(
    #[live] buffer: *const bk_buffer,
    offset: usize,
    #[out_bytes(dst_len)] dst: *mut u8,
    dst_len: usize,
    #[out] copied_out: *mut usize,
) -> bk_status {
    copied_out.write(buffer.inner.copy_to_uninit(offset, dst)?);
    Ok(())
}

/// Writes every byte to file descriptor `fd` with `writev` (segments go out as they are, no copy),
/// retrying short writes and EINTR, and stores the bytes written in `*written_out`. The fd is not
/// closed. On `BK_STATUS_IO_ERROR`, `errno` tells why (on Windows, `GetLastError()` for a failed
/// write; `errno` is `EBADF` for a descriptor the C runtime does not know) and an unknown prefix
/// may have been written.
///
/// # Safety
/// `buffer` is a live buffer; `fd` is an open descriptor the caller owns; `written_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_buffer_write_fd(
    #[live] buffer: *const bk_buffer,
    fd: c_int,
    #[out] written_out: *mut usize,
) -> bk_status {
    if fd < 0 {
        return Err(bk_status::BK_STATUS_INVALID_ARGUMENT);
    }
    // SAFETY: fd is open and stays open for the call, per the contract.
    // (`None`: a descriptor the C runtime does not know, which set errno to EBADF.)
    let Some(mut file) = (unsafe { crate::sys::borrow_descriptor(fd) }) else {
        return Err(bk_status::BK_STATUS_IO_ERROR);
    };
    let written = buffer.inner.write_all_to(&mut *file).map_err(|e| {
        if let Some(code) = e.raw_os_error() {
            crate::sys::set_os_error(code);
        }
        bk_status::BK_STATUS_IO_ERROR
    })?;
    written_out.write(written);
    Ok(())
}

/// Makes a segmented buffer contiguous with one copy (counted in `bytes_copied`); later appends
/// grow geometrically. Does nothing to a contiguous buffer. Invalidates segment pointers.
///
/// # Safety
/// `buffer` is a live buffer.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_buffer_flatten(#[live] buffer: *mut bk_buffer) -> bk_status {
    Ok(buffer.inner.flatten()?)
}
