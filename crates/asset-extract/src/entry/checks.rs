//! The checks every way of decoding an entry makes once it ends, the same whichever way it was
//! read: its size ([`size_mismatch`]) and what follows its stream ([`Trailing`]).

use crate::Error;
use crate::read::entry::Entry;

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

/// An entry whose data decodes to another size than its headers say: `actual` bytes, or
/// (`None`) more than its size. The same error whichever way the entry is read (whole, streamed,
/// on several cores), the whole read's decoder's.
pub(crate) fn size_mismatch(e: &Entry, actual: Option<u64>) -> Error {
    let fit = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    Error::Data {
        entry: e.path.clone(),
        source: strided_inflate::Error::SizeMismatch { offset: 0, expected: fit(e.size), actual: actual.map(fit) },
    }
}
