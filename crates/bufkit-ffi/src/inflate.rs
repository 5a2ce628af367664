//! `bk_inflater` and `bk_inflate_stream`: zlib/deflate streams at offsets, exact consumed counts.

use bufkit_ffi_macros::export;
use std::mem::MaybeUninit;
use strided_inflate::{Decoder, Format, Request, StreamInflater};

use crate::macros::{handle_free, handle_new};
use crate::pool::{bk_lease, bk_pool};
use crate::status::bk_status;

/// A reusable decoder for streams at offsets of a larger buffer.
///
/// Created by `bk_inflater_new`, freed by `bk_inflater_free` (the caller owns it). Not
/// thread-safe: use one per thread (it may move between threads). Setting up a stream allocates
/// nothing.
///
/// Methods: (listed in include/bufkit.h)
pub struct bk_inflater {
    decoder: Decoder,
}

/// One stream inflated from input fed in strides (for sources not all in memory).
///
/// Created by `bk_inflate_stream_new`, freed by `bk_inflate_stream_free`. Not thread-safe.
///
/// Methods: (listed in include/bufkit.h)
pub struct bk_inflate_stream {
    inner: StreamInflater,
}

/// Stream framings, as values of the `format` arguments.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum bk_format {
    /// RFC 1950 zlib: header, deflate data, Adler-32 (git objects).
    BK_FORMAT_ZLIB = 0,
    /// RFC 1951 raw deflate (zip entries).
    BK_FORMAT_RAW = 1,
}

/// Where one stream of a batch starts and its exact inflated size.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct bk_inflate_request {
    /// Offset of the stream in the input.
    pub offset: usize,
    /// Exact inflated size.
    pub expected_len: usize,
}

/// The outcome of one stream of a batch. Written by bufkit into memory the caller provides, which
/// may be uninitialised: the status is a plain `uint32_t` holding a `bk_status` value.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct bk_inflate_result {
    /// A `bk_status` value: `BK_STATUS_OK` or why this stream failed.
    pub status: u32,
    /// Input bytes the stream occupied (0 on failure).
    pub consumed: usize,
}

fn format_of(code: u32) -> Result<Format, bk_status> {
    match code {
        c if c == bk_format::BK_FORMAT_ZLIB as u32 => Ok(Format::Zlib),
        c if c == bk_format::BK_FORMAT_RAW as u32 => Ok(Format::Raw),
        _ => Err(bk_status::BK_STATUS_INVALID_ARGUMENT),
    }
}

/// Creates a decoder for `format` (a `bk_format`) in `*inflater_out` (NULL on failure).
///
/// # Safety
/// `inflater_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_inflater_new(
    format: u32,
    #[out = std::ptr::null_mut()] inflater_out: *mut *mut bk_inflater,
) -> bk_status {
    handle_new(inflater_out, bk_inflater { decoder: Decoder::new(format_of(format)?)? })
}

/// Frees a decoder. NULL does nothing.
///
/// # Safety
/// `inflater` is NULL or came from `bk_inflater_new` and has not been freed.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_inflater_free(#[raw] inflater: *mut bk_inflater) {
    // SAFETY: NULL, or from bk_inflater_new (handle_new), freed once per the contract.
    unsafe { handle_free(inflater) }
}

/// Inflates the stream at `input[offset]` into the caller's `out`, whose length `out_len` is the
/// stream's exact inflated size, and stores in `*consumed_out` the input bytes the stream
/// occupied (the next stream starts at `offset + consumed`). Bytes after the stream are never
/// read as part of it and the input is never copied. Failures: `BK_STATUS_OUT_OF_RANGE` (offset
/// past the end), `BK_STATUS_TRUNCATED`, `BK_STATUS_CHECKSUM`, `BK_STATUS_SIZE_MISMATCH`,
/// `BK_STATUS_CORRUPT`; then `out` is zeroed and `*consumed_out` is 0.
///
/// # Safety
/// `inflater` is live; `input` is readable for `input_len` bytes and `out` writable for `out_len`
/// (either may be NULL only with a 0 length), and they do not overlap; `consumed_out` is valid for one write.
/// `out` may be uninitialised memory (e.g. fresh from `malloc`): on return every byte is written.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_inflate_at(
    #[live] inflater: *mut bk_inflater,
    #[bytes(input_len)] input: *const u8,
    input_len: usize,
    offset: usize,
    #[out_bytes(out_len)] out: *mut u8,
    out_len: usize,
    #[out = 0] consumed_out: *mut usize,
) -> bk_status {
    *consumed_out = inflater.decoder.inflate_at_uninit(input, offset, out)?;
    Ok(())
}

/// The most bytes `compressed_len` bytes of deflate data can inflate to (deflate expands at most
/// about 1032:1, plus room for a tiny stream): the one bound every binding uses to refuse a claimed
/// size before allocating it. Never fails; saturates at `SIZE_MAX`.
#[export(on_panic = usize::MAX)]
#[unsafe(no_mangle)]
pub extern "C" fn bk_inflate_max_len(compressed_len: usize) -> usize {
    strided_inflate::max_inflated_len(compressed_len)
}

/// Checks, without inflating or allocating, whether the stream at `input[offset]` could inflate
/// to `expected_len` bytes: `BK_STATUS_OK` when the size is reachable (inflate to find out), else
/// the status `bk_inflate_at` would return for it (`BK_STATUS_TRUNCATED`, `BK_STATUS_CORRUPT`,
/// `BK_STATUS_SIZE_MISMATCH`, `BK_STATUS_OUT_OF_RANGE`...). For callers that allocate the output
/// themselves (a NIF's binary, a Java array) and must not allocate a size a few input bytes claim.
///
/// # Safety
/// `inflater` is live; `input` is readable for `input_len` bytes (NULL only with 0).
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_inflate_check_reachable(
    #[live] inflater: *const bk_inflater,
    #[bytes(input_len)] input: *const u8,
    input_len: usize,
    offset: usize,
    expected_len: usize,
) -> bk_status {
    inflater.decoder.refuse_unreachable(input, offset, expected_len).map_or(Ok(()), |refusal| Err(refusal.into()))
}

/// Like `bk_inflate_at`, with the output in a buffer lent by `pool`: on success `*lease_out`
/// describes it (its first `expected_len` bytes are the data; release it with `bk_pool_release`);
/// on failure nothing is lent, `*consumed_out` is 0 and the status is the one `bk_inflate_at`
/// gives for the same input (a size the input cannot reach is refused before borrowing memory).
///
/// # Safety
/// `inflater` is live; `pool` is a live pool; `input` is readable for `input_len` bytes (NULL only
/// with 0); `lease_out` and `consumed_out` are valid for one write each.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_inflate_at_pooled(
    #[live] inflater: *mut bk_inflater,
    #[live] pool: *const bk_pool,
    #[bytes(input_len)] input: *const u8,
    input_len: usize,
    offset: usize,
    expected_len: usize,
    #[out] lease_out: *mut bk_lease,
    #[out = 0] consumed_out: *mut usize,
) -> bk_status {
    // Borrow no memory for a size the input cannot reach; refuse as bk_inflate_at would.
    if let Some(refusal) = inflater.decoder.refuse_unreachable(input, offset, expected_len) {
        return Err(refusal.into());
    }
    let (lease, consumed) = pool.lend_filled(expected_len, |buffer| {
        Ok(inflater.decoder.inflate_at_uninit(input, offset, &mut buffer[..expected_len])?)
    })?;
    *consumed_out = consumed;
    lease_out.write(lease);
    Ok(())
}

// A caller's requests are read as the decoder's own type, in place.
const _: () = {
    assert!(size_of::<bk_inflate_request>() == size_of::<Request>());
    assert!(align_of::<bk_inflate_request>() == align_of::<Request>());
    assert!(std::mem::offset_of!(bk_inflate_request, offset) == std::mem::offset_of!(Request, offset));
    assert!(std::mem::offset_of!(bk_inflate_request, expected_len) == std::mem::offset_of!(Request, expected_len));
};

/// The caller's results array, written from the threads a large batch fans out to.
struct ResultsOut<'a>(&'a [std::cell::UnsafeCell<MaybeUninit<bk_inflate_result>>]);

// SAFETY: the threads of one batch write disjoint elements (each request's index once), and all of
// them have ended before bk_inflate_batch returns, while the caller keeps the array alive.
unsafe impl Sync for ResultsOut<'_> {}

impl<'a> ResultsOut<'a> {
    fn new(results: &'a mut [MaybeUninit<bk_inflate_result>]) -> Self {
        // SAFETY: UnsafeCell<T> has T's layout, and the exclusive borrow is held for 'a.
        ResultsOut(unsafe {
            &*(std::ptr::from_mut(results) as *const [std::cell::UnsafeCell<MaybeUninit<bk_inflate_result>>])
        })
    }

    /// # Safety
    /// No other thread writes element `i`.
    unsafe fn write(&self, i: usize, result: bk_inflate_result) {
        // SAFETY: element i is in bounds (indexing checks), and no other thread accesses it per
        // this function's one requirement.
        unsafe { (*self.0[i].get()).write(result) };
    }
}

/// How many threads a large batch may use: the machine's cores, looked up once.
fn batch_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Inflates `count` streams in one call: request `i`'s output goes to the next
/// `requests[i].expected_len` bytes of `out`, in order, and `results[i]` gets its status and
/// consumed count. `*succeeded_out` receives how many succeeded. Returns `BK_STATUS_OK` when the
/// call itself was well-formed (see `results` for each stream); `BK_STATUS_SIZE_MISMATCH` if
/// `out_len` is less than the sum of the expected lengths.
///
/// A large batch is spread over the machine's cores: the calling thread starts on runs of 32
/// streams and, if the rest would take 2 ms or more at its pace, helpers (one per other core)
/// take runs too. The outputs and results are the same as on one thread, and every thread has
/// ended when the call returns. A batch of fewer than 2,048 streams per core, or of tiny streams,
/// stays on the calling thread; below 2,048 per core it allocates nothing.
///
/// # Safety
/// `inflater` is live; `input` is readable for `input_len` bytes and `out` writable for `out_len`
/// (either NULL only with 0), and they do not overlap; `requests` is readable and `results`
/// writable for `count` elements; `succeeded_out` is valid for one write.
/// `out` and `results` may be uninitialised memory: each result, and each request's share of `out`,
/// is written.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_inflate_batch(
    #[live] inflater: *mut bk_inflater,
    #[bytes(input_len)] input: *const u8,
    input_len: usize,
    #[slice(count)] requests: *const bk_inflate_request,
    count: usize,
    #[out_bytes(out_len)] out: *mut u8,
    out_len: usize,
    #[out_slice(count)] results: *mut bk_inflate_result,
    #[out] succeeded_out: *mut usize,
) -> bk_status {
    let total = requests.iter().try_fold(0usize, |sum, r| sum.checked_add(r.expected_len));
    if total.is_none_or(|t| t > out.len()) {
        return Err(bk_status::BK_STATUS_SIZE_MISMATCH);
    }
    // SAFETY: bk_inflate_request and Request have the same layout (both repr(C), the same two
    // usize fields in the same order: checked at compile time above), and the slice is read only.
    let requests: &[Request] = unsafe { &*(std::ptr::from_ref(requests) as *const [Request]) };
    let results = ResultsOut::new(results);
    let ok = inflater.decoder.inflate_each_parallel_uninit(input, requests, out, batch_threads(), |i, outcome| {
        let result = match outcome {
            Ok(consumed) => bk_inflate_result { status: bk_status::BK_STATUS_OK as u32, consumed },
            Err(e) => bk_inflate_result { status: bk_status::from(e) as u32, consumed: 0 },
        };
        // SAFETY: the decoder reports each request's index once, from one thread.
        unsafe { results.write(i, result) };
    });
    succeeded_out.write(ok);
    Ok(())
}

/// Starts a stream of `format` whose errors report `origin` as its offset, in `*stream_out`.
///
/// # Safety
/// `stream_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_inflate_stream_new(
    format: u32,
    origin: usize,
    #[out = std::ptr::null_mut()] stream_out: *mut *mut bk_inflate_stream,
) -> bk_status {
    let inner = StreamInflater::new(format_of(format)?).at_offset(origin);
    handle_new(stream_out, bk_inflate_stream { inner })
}

/// Frees a stream. NULL does nothing.
///
/// # Safety
/// `stream` is NULL or came from `bk_inflate_stream_new` and has not been freed.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_inflate_stream_free(#[raw] stream: *mut bk_inflate_stream) {
    // SAFETY: NULL, or from bk_inflate_stream_new (handle_new), freed once per the contract.
    unsafe { handle_free(stream) }
}

/// Starts over for another stream at `origin`, keeping the allocation.
///
/// # Safety
/// `stream` is live.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_inflate_stream_reset(#[live] stream: *mut bk_inflate_stream, origin: usize) -> bk_status {
    stream.inner.reset(origin);
    Ok(())
}

/// Feeds the next `input_len` bytes. `out`/`out_len` is the stream's whole output (its exact
/// inflated size), the same on every call. `*used_out` receives how many of these input bytes
/// belong to the stream; `*consumed_out` stays 0 until the stream has ended and verified, then
/// receives the total bytes it occupied. `*used_out < input_len` happens only on the call where
/// the stream ends: the rest belongs to whatever follows. A full output never stops feeding early:
/// a stream longer than `out_len` is `BK_STATUS_SIZE_MISMATCH` as soon as the input shows it. An
/// empty input means the source has ended: `BK_STATUS_TRUNCATED` if the stream has not.
/// A failed feed fails the stream: `out` is zeroed, and every later feed returns the same status
/// (using no input: `*used_out` is 0) until `bk_inflate_stream_reset` starts it over.
///
/// # Safety
/// `stream` is live; `input` is readable for `input_len` bytes and `out` writable for `out_len`
/// (either NULL only with 0), and they do not overlap; `used_out` and `consumed_out` are valid for
/// one write each.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_inflate_stream_feed(
    #[live] stream: *mut bk_inflate_stream,
    #[bytes(input_len)] input: *const u8,
    input_len: usize,
    #[out_bytes(out_len)] out: *mut u8,
    out_len: usize,
    #[out = 0] used_out: *mut usize,
    #[out = 0] consumed_out: *mut usize,
) -> bk_status {
    let step = stream.inner.feed_uninit(input, out)?;
    *used_out = step.used;
    *consumed_out = step.finished.unwrap_or(0);
    Ok(())
}
