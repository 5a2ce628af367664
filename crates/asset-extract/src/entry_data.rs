//! One entry's bytes out of the archive, checked: the one place that inflates an entry whole and
//! verifies its size and CRC-32, and the one rule for bytes after an entry's stream.

use std::mem::MaybeUninit;

use strided_inflate::Decoder;

use crate::Error;
use crate::archive::{Entry, Method};

/// What becomes of bytes that follow an entry's compressed stream inside its compressed size
/// (the stream ends, its size and CRC-32 match, and the entry's data goes on). They are no part
/// of any reading of the archive, so by default they are read past, as Info-ZIP `unzip`,
/// Python's `zipfile` and commons-compress read them; strict extraction
/// ([`Options::strict`](crate::Options::strict)) refuses them. The same rule holds for every
/// method (a stream of bzip2, XZ or Zstandard that completes the entry's size ends its data: a
/// second stream is read only while the entry is not yet complete) and on every path: whole
/// reads, streams, `read_at`, verification and extraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Trailing {
    /// Read past them (the default).
    #[default]
    Read,
    /// Refuse the entry (strict extraction).
    Refuse,
}

impl Trailing {
    /// The rule `strict` asks for.
    pub(crate) fn strict(strict: bool) -> Trailing {
        if strict { Trailing::Refuse } else { Trailing::Read }
    }
}

/// Checks entry `e`'s stream, which ended after `consumed` of its compressed bytes (its size and
/// CRC-32 already checked), against `rule`.
pub(crate) fn check_stream_end(e: &Entry, consumed: u64, rule: Trailing) -> Result<(), Error> {
    if consumed >= e.compressed_size || rule == Trailing::Read {
        return Ok(());
    }
    Err(Error::malformed_entry(
        format!(
            "{} bytes follow its {} stream inside its compressed size (strict)",
            e.compressed_size - consumed,
            e.method.name()
        ),
        &e.path,
    ))
}

/// The entry's bytes as stored in `data` (the archive).
pub(crate) fn stored_span<'a>(data: &'a [u8], e: &Entry) -> &'a [u8] {
    &data[e.data_offset as usize..(e.data_offset + e.compressed_size) as usize]
}

/// Fills `out` (exactly the entry's size) with its bytes from `src` (its data as stored, see
/// [`stored_span`]): inflated with `decoder` (raw deflate) or copied, then checked against the
/// stream's end (as `trailing` says) and the CRC-32 when `check_crc`. On error `out` is zeroed.
pub(crate) fn read_entry(
    src: &[u8],
    e: &Entry,
    decoder: &mut Decoder,
    out: &mut [u8],
    check_crc: bool,
    trailing: Trailing,
) -> Result<(), Error> {
    // SAFETY: every u8 is a valid MaybeUninit<u8>, and read_entry_uninit writes only initialised bytes.
    let uninit = unsafe { &mut *(std::ptr::from_mut(out) as *mut [MaybeUninit<u8>]) };
    read_entry_uninit(src, e, decoder, uninit, check_crc, trailing).map(|_| ())
}

/// Like [`read_entry`], into memory that may be uninitialised (a C caller's): on return every
/// byte of `out` is initialised (the entry, or zeros on error), and handed back as such.
pub(crate) fn read_entry_uninit<'o>(
    src: &[u8],
    e: &Entry,
    decoder: &mut Decoder,
    out: &'o mut [MaybeUninit<u8>],
    check_crc: bool,
    trailing: Trailing,
) -> Result<&'o mut [u8], Error> {
    debug_assert_eq!(out.len() as u64, e.size);
    debug_assert_eq!(src.len() as u64, e.compressed_size);
    if crate::methods::handles(e.method) {
        // The streaming reader checks the size and the CRC-32 (always: `check_crc` aside).
        let checked = std::sync::atomic::AtomicBool::new(false);
        return crate::methods::read_whole(out, e, |whole| {
            crate::EntryReader::new(src, e, &checked)?.with_trailing(trailing).fill_exactly(whole)
        });
    }
    let mut consumed = src.len() as u64;
    let result = match e.method {
        Method::Stored => {
            // SAFETY: both are valid for src.len() == out.len() bytes and cannot overlap (a
            // shared and an exclusive borrow).
            unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), out.as_mut_ptr().cast::<u8>(), src.len()) };
            Ok(())
        }
        Method::Deflate => match decoder.inflate_at_uninit(src, 0, out) {
            Ok(n) => {
                consumed = n as u64;
                Ok(())
            }
            Err(source) => Err(Error::Data { entry: e.path.clone(), source }),
        },
        _ => unreachable!("the other methods returned above"),
    };
    // SAFETY: the copy or the inflate (which zeroes on error) wrote every byte of `out`.
    let out = unsafe { &mut *(std::ptr::from_mut(out) as *mut [u8]) };
    let result = result.and_then(|()| {
        if check_crc && strided_inflate::crc32(out) != e.crc32 {
            Err(Error::Crc { entry: e.path.clone() })
        } else {
            Ok(())
        }
    });
    let result = result.and_then(|()| check_stream_end(e, consumed, trailing));
    match result {
        Ok(()) => Ok(out),
        Err(err) => {
            out.fill(0);
            Err(err)
        }
    }
}
