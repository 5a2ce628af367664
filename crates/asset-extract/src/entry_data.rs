//! One entry's bytes out of the archive, checked: the one place that inflates an entry whole and
//! verifies that its stream ends exactly at its compressed size and that its CRC-32 matches.

use std::mem::MaybeUninit;

use strided_inflate::Decoder;

use crate::Error;
use crate::archive::{Entry, Method};

/// The entry's bytes as stored in `data` (the archive).
pub(crate) fn stored_span<'a>(data: &'a [u8], e: &Entry) -> &'a [u8] {
    &data[e.data_offset as usize..(e.data_offset + e.compressed_size) as usize]
}

/// Fills `out` (exactly the entry's size) with its bytes from `src` (its data as stored, see
/// [`stored_span`]): inflated with `decoder` (raw deflate) or copied, then checked against the
/// stream's end and the CRC-32 when `check_crc`. On error `out` is zeroed.
pub(crate) fn read_entry(
    src: &[u8],
    e: &Entry,
    decoder: &mut Decoder,
    out: &mut [u8],
    check_crc: bool,
) -> Result<(), Error> {
    // SAFETY: every u8 is a valid MaybeUninit<u8>, and read_entry_uninit writes only initialised bytes.
    let uninit = unsafe { &mut *(std::ptr::from_mut(out) as *mut [MaybeUninit<u8>]) };
    read_entry_uninit(src, e, decoder, uninit, check_crc).map(|_| ())
}

/// Like [`read_entry`], into memory that may be uninitialised (a C caller's): on return every
/// byte of `out` is initialised (the entry, or zeros on error), and handed back as such.
pub(crate) fn read_entry_uninit<'o>(
    src: &[u8],
    e: &Entry,
    decoder: &mut Decoder,
    out: &'o mut [MaybeUninit<u8>],
    check_crc: bool,
) -> Result<&'o mut [u8], Error> {
    debug_assert_eq!(out.len() as u64, e.size);
    debug_assert_eq!(src.len() as u64, e.compressed_size);
    if crate::methods::handles(e.method) {
        // The streaming reader checks the size and the CRC-32 (always: `check_crc` aside).
        let checked = std::sync::atomic::AtomicBool::new(false);
        return crate::methods::read_whole(out, e, |whole| {
            crate::EntryReader::new(src, e, &checked)?.fill_exactly(whole)
        });
    }
    let result = match e.method {
        Method::Stored => {
            // SAFETY: both are valid for src.len() == out.len() bytes and cannot overlap (a
            // shared and an exclusive borrow).
            unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), out.as_mut_ptr().cast::<u8>(), src.len()) };
            Ok(())
        }
        Method::Deflate => match decoder.inflate_at_uninit(src, 0, out) {
            Ok(consumed) if consumed == src.len() => Ok(()),
            Ok(_) => Err(Error::malformed_entry("the deflate stream ends before its compressed size", &e.path)),
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
    match result {
        Ok(()) => Ok(out),
        Err(err) => {
            out.fill(0);
            Err(err)
        }
    }
}
