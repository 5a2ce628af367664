//! Where an archive's bytes are, for every reader (extraction, `cat`, `ls`, an
//! [`AssetArchive`](crate::AssetArchive)): all of them in memory (handed over, borrowed, mapped,
//! or a caller's source that lies in memory), or in a [`Source`] read as needed (a file read with
//! `pread`, a caller's storage, a stream's spool). Every reader asks this one type for an entry's
//! local header check and its compressed bytes ([`Input`]).
//!
//! A source read as needed costs what a request needs: at open, only its end records and central
//! directory come into memory; after that only the byte ranges asked for are read. It may change
//! underneath: a read then fails with an error (short reads, a local header that no longer
//! agrees, a CRC that no longer matches, a changed size or identity), never a signal.

#![forbid(unsafe_code)]

use std::path::Path;

use crate::Error;
use crate::entry::source::{Input, Source, read_up_to};
use crate::read::archive::{Layout, Locals, read_central};
use crate::read::bytes::Window;
use crate::read::entry::Entry;
use crate::read::local::{LocalRef, check_local};

/// How much of the file's end the first read takes: an end record with the longest comment, and
/// a ZIP64 locator and record before it, with room to spare. The central directory usually
/// follows in one more read.
const FIRST_TAIL: u64 = 64 * 1024 + 22 + 1024;

/// What of the local header the first read of an entry takes beyond its name: most extra fields.
const EXTRA_GUESS: u64 = 512;

/// The most of the file's end read at open: the largest central directory allowed, the end
/// records, and the search for an end record before appended data.
const HELD_MAX: u64 =
    crate::read::end_records::MAX_CENTRAL_DIRECTORY + crate::read::end_records::APPENDED_SEARCH as u64 + FIRST_TAIL;

/// From this many entries on, local headers are checked by one thread per core.
const PARALLEL_CHECKS: usize = 2048;

/// Local headers are checked from one read when that read is at most this long...
const HEADERS_READ_MAX: u64 = 64 << 10;
/// ...and each header in it starts at most this far past what the one before it needs: the bytes
/// between (the smaller entry's data) are read for nothing, so only small entries group.
const HEADERS_GAP_MAX: u64 = 4 << 10;

/// An archive's bytes, wherever they are; the parse (entries, index) is the caller's.
pub(crate) struct Opened<'s> {
    held: Held<'s>,
    len: u64,
}

/// Where the bytes are. The in-memory cases are matched, not called through [`Source`]: a view
/// or a find costs nanoseconds, and a virtual call would be a tenth of it.
enum Held<'s> {
    Vec(Vec<u8>),
    Borrowed(&'s [u8]),
    Map(memmap2::Mmap),
    /// A caller's source whose bytes all lie in memory ([`Source::bytes`]).
    InMemory(Box<dyn Source + 's>),
    /// Any other source, holding of it only its entries' central names (what checking their
    /// local headers needs), one after another (see
    /// [`compact_names`](crate::read::archive::compact_names)).
    Read {
        source: Box<dyn Source + 's>,
        names: Vec<u8>,
    },
}

impl Opened<'static> {
    /// An archive handed over in memory.
    pub(crate) fn vec(bytes: Vec<u8>) -> Opened<'static> {
        Opened { len: bytes.len() as u64, held: Held::Vec(bytes) }
    }

    /// A mapped archive.
    pub(crate) fn map(map: memmap2::Mmap) -> Opened<'static> {
        Opened { len: Source::len(&map), held: Held::Map(map) }
    }
}

impl<'s> Opened<'s> {
    /// An archive the caller lends, in memory.
    pub(crate) fn borrowed(bytes: &'s [u8]) -> Opened<'s> {
        Opened { len: bytes.len() as u64, held: Held::Borrowed(bytes) }
    }

    /// A caller's source whose bytes all lie in memory ([`Source::bytes`] is `Some`).
    pub(crate) fn in_memory(source: Box<dyn Source + 's>) -> Opened<'s> {
        debug_assert!(source.bytes().is_some());
        Opened { len: source.len(), held: Held::InMemory(source) }
    }

    /// Reads the end of `source` and parses its central directory, reading more of it only
    /// when the first read did not hold it all: from where the end records say the central
    /// directory starts (a directory beyond 64 KiB, ZIP64 records elsewhere), or up to 1 MiB more
    /// when no end record fits the end (one may stand before appended data). Never more: a
    /// damaged end costs what it costs to refuse, not a read of the whole source. `path` names
    /// the archive in errors.
    pub(crate) fn open(source: Box<dyn Source + 's>, path: &Path) -> Result<(Opened<'s>, Layout, Locals), Error> {
        let len = source.len();
        let appended_reach = len.saturating_sub(crate::read::end_records::APPENDED_SEARCH as u64 + FIRST_TAIL);
        let mut from = len.saturating_sub(FIRST_TAIL);
        loop {
            let tail = read_up_to(&*source, from, len - from, path)?;
            if (tail.len() as u64) < len - from {
                return Err(Error::io(
                    "reading",
                    path,
                    std::io::Error::other("the archive shrank while it was opened"),
                ));
            }
            let window = Window::tail(&tail, to_usize(len)?);
            // Where the end records put the central directory, when this read does not reach it:
            // read from there at once rather than parse most of the directory to find that out.
            match crate::read::archive::central_start(&window) {
                Some(start) if start < from && len - start <= HELD_MAX => {
                    from = start;
                    continue;
                }
                _ => {}
            }
            match read_central(&window) {
                Ok((layout, mut locals)) => {
                    let names = crate::read::archive::compact_names(&window, &mut locals)?;
                    return Ok((Opened { held: Held::Read { source, names }, len }, layout, locals));
                }
                Err(e) => {
                    from = match crate::read::archive::central_start(&window) {
                        // The end records say where the directory starts: read from there.
                        // A directory that far from the end is refused (what the parse said)
                        // rather than read, however it is described.
                        Some(start) if start < from && len - start <= HELD_MAX => start,
                        None if from > appended_reach => appended_reach,
                        _ => return Err(e),
                    };
                }
            }
        }
    }

    /// All of the archive, when it lies in memory.
    pub(crate) fn all(&self) -> Option<&[u8]> {
        match &self.held {
            Held::Vec(v) => Some(v),
            Held::Borrowed(b) => Some(b),
            Held::Map(m) => Some(m),
            Held::InMemory(source) => source.bytes(),
            Held::Read { .. } => None,
        }
    }

    /// Where the bytes are read from: for streaming reads, and to ask whether the source changed.
    pub(crate) fn source(&self) -> &(dyn Source + 's) {
        match &self.held {
            Held::Vec(v) => v,
            Held::Borrowed(b) => b,
            Held::Map(m) => m,
            Held::InMemory(source) | Held::Read { source, .. } => &**source,
        }
    }

    /// What the parser sees: all of the archive, or the central names read at open (where the
    /// local header checks look for them).
    pub(crate) fn window(&self) -> Window<'_> {
        match &self.held {
            Held::Read { names, .. } => Window::whole(names),
            _ => Window::whole(self.all().expect("in memory")),
        }
    }

    /// Entry `e`'s compressed bytes, its data starting at `data_offset`: a slice when the archive
    /// lies in memory, else a range read as the decoder asks.
    pub(crate) fn input(&self, data_offset: u64, e: &Entry) -> Input<'_> {
        Input::within(self.all(), self.source(), data_offset, e)
    }

    /// Checks entry `e`'s local header (and data descriptor) and returns where its data starts:
    /// in place in memory, else reading them from the source.
    pub(crate) fn check_local(&self, local: &LocalRef, e: &Entry) -> Result<u64, Error> {
        let read;
        let data = match &self.held {
            Held::Read { .. } => {
                read = self.read_local(local, e)?;
                Window::parts(
                    (read.header_at, &read.header),
                    (read.descriptor_at, &read.descriptor),
                    to_usize(self.len)?,
                )
            }
            _ => self.window(),
        };
        check_local(&self.window(), &data, local, e)
    }

    /// What [`check_local`](Self::check_local) needs of a source read as needed: entry `e`'s
    /// local header, and its data descriptor if it has one.
    fn read_local(&self, local: &LocalRef, e: &Entry) -> Result<LocalBytes, Error> {
        let path = Path::new(&e.path);
        let (start, limit) = (local.header_offset(), local.limit());
        let room = limit.saturating_sub(start);
        let mut header = read_up_to(self.source(), start, room.min(30 + local.name_len() as u64 + EXTRA_GUESS), path)?;
        if header.len() >= 30 {
            let whole = 30
                + u64::from(u16::from_le_bytes([header[26], header[27]]))
                + u64::from(u16::from_le_bytes([header[28], header[29]]));
            if whole > header.len() as u64 && whole <= room {
                header = read_up_to(self.source(), start, whole, path)?;
            }
        }
        let mut descriptor = Vec::new();
        let mut descriptor_at = 0;
        if local.has_descriptor() && header.len() >= 30 {
            let data_offset = start
                + 30
                + u64::from(u16::from_le_bytes([header[26], header[27]]))
                + u64::from(u16::from_le_bytes([header[28], header[29]]));
            if let Some(end) = data_offset.checked_add(e.compressed_size).filter(|&end| end < limit) {
                descriptor = read_up_to(self.source(), end, (limit - end).min(24), path)?;
                descriptor_at = end;
            }
        }
        Ok(LocalBytes { header_at: to_usize(start)?, header, descriptor_at: to_usize(descriptor_at)?, descriptor })
    }

    /// Checks the local headers of `entries` (each with its [`LocalRef`]) as
    /// [`check_local`](Self::check_local) does and returns where each one's data starts, in the
    /// order given. Headers are read in file order; those of neighbouring small entries (each
    /// header within 4 KiB of what the one before needs, at most 64 KiB in all) from one read:
    /// a few reads for an archive of many small files, one small read per entry where entries
    /// are large, so that their data is never read for it.
    pub(crate) fn check_locals(&self, entries: &[(&LocalRef, &Entry)]) -> Result<Vec<u64>, Error> {
        let mut order: Vec<usize> = (0..entries.len()).collect();
        order.sort_unstable_by_key(|&i| entries[i].0.header_offset());
        // Many entries: their headers (and small entries' data between them) are read by one
        // thread per core, each a contiguous run of the file.
        let threads = if entries.len() >= PARALLEL_CHECKS {
            std::thread::available_parallelism().map_or(1, |n| n.get()).min(4)
        } else {
            1
        };
        let runs: Vec<&[usize]> = order.chunks(order.len().div_ceil(threads).max(1)).collect();
        let checked: Vec<Result<Vec<(usize, u64)>, Error>> = if runs.len() <= 1 {
            runs.iter().map(|run| self.check_run(entries, run)).collect()
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = runs.iter().map(|run| s.spawn(|| self.check_run(entries, run))).collect();
                handles.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
            })
        };
        let mut offsets = vec![0u64; entries.len()];
        for run in checked {
            for (i, offset) in run? {
                offsets[i] = offset;
            }
        }
        Ok(offsets)
    }

    /// Checks the local headers of `run` (indexes into `entries`, in file order): each with the
    /// offset where its data starts.
    fn check_run(&self, entries: &[(&LocalRef, &Entry)], order: &[usize]) -> Result<Vec<(usize, u64)>, Error> {
        let need_end = |i: usize| {
            let (local, e) = entries[i];
            check_end(local, e, false)
        };
        let mut offsets = Vec::with_capacity(order.len());
        let mut k = 0;
        while k < order.len() {
            // One read for this header and the ones after it that end within HEADERS_READ_MAX.
            let start = entries[order[k]].0.header_offset();
            let mut group_end = k + 1;
            let mut end = need_end(order[k]);
            while let Some(&next) = order.get(group_end) {
                let next_end = need_end(next);
                let gap = entries[next].0.header_offset().saturating_sub(end);
                if next_end.max(end) - start > HEADERS_READ_MAX || gap > HEADERS_GAP_MAX {
                    break;
                }
                end = end.max(next_end);
                group_end += 1;
            }
            let path = Path::new(&entries[order[k]].1.path);
            let held =
                if group_end - k > 1 { read_up_to(self.source(), start, end - start, path)? } else { Vec::new() };
            for &i in &order[k..group_end] {
                let (local, e) = entries[i];
                let offset = match self.local_in(&held, start, local, e) {
                    Some(window) => check_local(&self.window(), &window, local, e)?,
                    None => self.check_local(local, e)?,
                };
                offsets.push((i, offset));
            }
            k = group_end;
        }
        Ok(offsets)
    }

    /// Checks entry `e`'s local header and returns where its data starts, as
    /// [`check_local`](Self::check_local) does, from `held` (bytes read at an offset) when they
    /// hold all the check needs, so that one read serves the check and the entry's data.
    pub(crate) fn locate(&self, local: &LocalRef, e: &Entry, held: Option<(u64, &[u8])>) -> Result<u64, Error> {
        match held.and_then(|(start, bytes)| self.local_in(bytes, start, local, e)) {
            Some(window) => check_local(&self.window(), &window, local, e),
            None => self.check_local(local, e),
        }
    }

    /// `held` (read at `start`) as a window, if it holds all that checking `local` (of entry `e`)
    /// reads: the header, its name and extra field, and the data descriptor if there is one.
    fn local_in<'h>(&self, held: &'h [u8], start: u64, local: &LocalRef, e: &Entry) -> Option<Window<'h>> {
        let at = local.header_offset().checked_sub(start)?;
        let header = held.get(usize::try_from(at).ok()?..)?.get(..30)?;
        let field = |o: usize| u64::from(u16::from_le_bytes([header[o], header[o + 1]]));
        let data_at = at + 30 + field(26) + field(28);
        let needed = if local.has_descriptor() {
            // At most 24 bytes of descriptor, and none past where the entry must end.
            (data_at.checked_add(e.compressed_size)? + 24).min(local.limit() - start)
        } else {
            data_at
        };
        if needed > held.len() as u64 {
            return None;
        }
        Some(Window::parts((usize::try_from(start).ok()?, held), (0, &[]), usize::try_from(self.len).ok()?))
    }
}

/// Where what checking entry `e`'s local header reads ends, if its extra field is of a usual
/// length: past the header (and the data descriptor, if there is one), and past the data too with
/// `with_data`. Never past where the entry must end.
pub(crate) fn check_end(local: &LocalRef, e: &Entry, with_data: bool) -> u64 {
    let header = local.header_offset() + 30 + local.name_len() as u64 + EXTRA_GUESS;
    let end = if local.has_descriptor() {
        header.saturating_add(e.compressed_size).saturating_add(24)
    } else if with_data {
        header.saturating_add(e.compressed_size)
    } else {
        header
    };
    end.min(local.limit())
}

fn to_usize(v: u64) -> Result<usize, Error> {
    usize::try_from(v).map_err(|_| Error::malformed("the archive is larger than this system's address space"))
}

/// An entry's local header and data descriptor (empty if it has none) read from a source, each
/// with where it starts in the archive.
struct LocalBytes {
    header_at: usize,
    header: Vec<u8>,
    descriptor_at: usize,
    descriptor: Vec<u8>,
}
