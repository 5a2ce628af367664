//! Assets read in place: an archive opened once, validated once with the extraction's strict
//! parser, then any entry read by name without extracting anything.

pub(crate) mod entry_reader;
pub(crate) mod parallel_reader;
pub(crate) mod verify;

use std::cell::RefCell;
use std::mem::MaybeUninit;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};

use buffer_pool::{BufferPool, Lease};
use strided_inflate::Decoder;

use crate::entry::decode::{Ask, Decoding, Output, WholeTools, decoding};
use crate::entry::opened::Opened;
use crate::entry::parallel::parallel_cores;
use crate::entry::random_access::{BlockChecked, BlockCrcs};
use crate::entry::source::Input;
use crate::entry::source::{FileSource, Source};
use crate::read::archive::{Layout, read_central, read_checked};
use crate::read::bytes::Window;
use crate::read::entry::{Entry, Method};
use crate::read::local::LocalRef;
use crate::read::name_index::NameIndex;
use crate::read::names::Kind;
use crate::{Error, ParallelInflate};
use entry_reader::EntryReader;
use parallel_reader::ParallelReader;

/// How an [`AssetArchive`] holds the archive's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Holding {
    /// Read with `pread` (the default): at open only the end records and the central directory
    /// are read; each entry's local header and data when it is read, and its CRC-32 checked on
    /// every read. The file may change or vanish meanwhile: a read then fails with an error
    /// ([`Error::Malformed`], [`Error::Crc`], [`Error::Io`]) and nothing can crash the host.
    /// Memory: the central directory. No views: [`AssetArchive::view`] gives `None`.
    #[default]
    Read,
    /// Memory-mapped: nothing is read at open beyond what validation touches, and stored entries
    /// are views of the mapping. The contract: the file must not be truncated or rewritten while
    /// the archive is open (as for an installed APK); if it is, reading may fault (SIGBUS).
    Map,
}

/// When an [`AssetArchive`] checks each entry's local header against its central directory
/// record (name, method, flags, CRC and sizes, data descriptor, extent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LocalHeaders {
    /// At open (the default): an archive that extraction refuses is refused at open, with the
    /// same error. Opening costs a look at every entry's local header: in a mapped archive a cache
    /// miss or page fault per entry, with [`Holding::Read`] a `pread` per entry.
    #[default]
    AtOpen,
    /// The first time each entry is read, viewed or streamed: opening reads only the end records
    /// and the central directory (all of which is still checked), and an entry whose local header
    /// disagrees fails every read with [`Error::Malformed`]. For archives a program trusts to be
    /// whole, such as its own installed APK, opened at every start.
    OnFirstRead,
}

/// An archive opened for reading its entries in place. `Send + Sync`: any number of threads read
/// at once. Entries are looked up by the name extraction would write them under (`/`-separated,
/// directories without their trailing `/`).
///
/// Opening validates the archive with extraction's strict rules (the end records, every central
/// directory record and name, entries that would overlap) and builds the index; each entry's
/// local header is checked at open too, or on its first read ([`LocalHeaders`]). Its CRC-32 is
/// checked the first time it is read whole (on every read in the [`Holding::Read`] holding, where
/// the file may change). A read that fails its CRC leaves the output zeroed and returns
/// [`Error::Crc`]. Symlink entries are left out of the entries (their local headers are still
/// checked): the archive is opened to read files, and a link is not one, where [`extract`](crate::extract)
/// refuses such an archive unless told to skip links ([`Options::skip_symlinks`](crate::Options)).
///
/// Four ways to read an entry, each for one need:
///
/// | need | call |
/// |---|---|
/// | all of it, checked before any byte is used | [`read_into_uninit`](Self::read_into_uninit): the one whole read |
/// | a stream, memory bounded whatever its size | [`reader`](Self::reader) (an [`io::Read`](std::io::Read)) |
/// | a slice at any offset | [`read_at`](Self::read_at) |
/// | a stored entry's bytes with no copy | [`view`](Self::view) (mapped archives) |
///
/// The rest are conveniences over those: [`read`](Self::read) (a new `Vec`), [`read_into`](Self::read_into)
/// (an initialised buffer) and [`read_pooled`](Self::read_pooled) (a pool's lease) are the whole
/// read; [`copy_to`](Self::copy_to) and [`parallel_reader`](Self::parallel_reader) are the stream,
/// on several cores where [`set_parallel_inflate`](Self::set_parallel_inflate)'s rule says so.
///
/// ```no_run
/// use asset_extract::{AssetArchive, Holding};
///
/// let apk = AssetArchive::open("app.apk".as_ref(), Holding::Map)?; // its directory validated, here
/// for index in apk.list("assets/") {
///     let js = apk.read(index)?; // inflated, local header and CRC checked the first time
///     println!("{}: {} bytes", apk.entries()[index].path, js.len());
/// }
/// if let Some(index) = apk.find("resources.arsc") {
///     let table = apk.view(index)?; // a stored entry, mapped: its bytes in place, no copy
///     println!("{:?} bytes", table.map(<[u8]>::len));
/// }
/// # Ok::<(), asset_extract::Error>(())
/// ```
pub struct AssetArchive {
    data: Opened<'static>,
    /// As the central directory says; `data_offset` is not used (see `data_offsets`), and reads 0.
    entries: Vec<Entry>,
    by_name: NameIndex,
    crc_checked: Vec<AtomicBool>,
    /// Each entry's local header, checked on first use.
    locals: Vec<LocalRef>,
    /// Where each entry's data starts once its local header has been checked (at open, or on its
    /// first read); 0 before (a local header takes at least 30 bytes, so no data starts at 0).
    data_offsets: Vec<AtomicU64>,
    /// Deflated entries' checkpoints, for [`read_at`](Self::read_at).
    checkpoints: crate::entry::random_access::CheckpointStore,
    /// Other entries' block CRC-32s, for [`read_at`](Self::read_at) from a file or a source.
    slice_blocks: std::sync::Mutex<std::collections::HashMap<usize, std::sync::Arc<BlockCrcs>>>,
    /// Symlink entries' names, as stored: checked like the others, never read.
    symlinks: Vec<String>,
    /// Bytes before the zip part that its offsets do not count.
    prepended: u64,
    /// When large deflated entries are inflated on several cores ([`ParallelInflate`] as a u8).
    parallel: AtomicU8,
}

std::thread_local! {
    /// Each thread's raw-deflate decoder: a read allocates nothing.
    static DECODER: RefCell<Option<Decoder>> = const { RefCell::new(None) };
    /// Each thread's buffer for deflated bytes read from a source not in memory.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The scratch buffer a thread keeps between reads; a larger one is freed after its read.
const SCRATCH_KEPT: usize = 4 << 20;

impl AssetArchive {
    /// Opens and validates the archive at `path`, held as `holding` says, every local header
    /// checked now ([`LocalHeaders::AtOpen`]).
    pub fn open(path: &Path, holding: Holding) -> Result<AssetArchive, Error> {
        AssetArchive::open_with(path, holding, LocalHeaders::AtOpen)
    }

    /// Opens and validates the archive at `path`, held as `holding` says, its local headers
    /// checked when `local_headers` says.
    pub fn open_with(path: &Path, holding: Holding, local_headers: LocalHeaders) -> Result<AssetArchive, Error> {
        let file = FileSource::open(path)?;
        match holding {
            Holding::Read => AssetArchive::opened(Box::new(file), path, local_headers),
            Holding::Map => {
                // SAFETY: read-only and private; the caller chose mapping and its contract
                // (documented on Holding::Map): the file is not truncated or rewritten while the
                // archive is open.
                let map = unsafe { memmap2::Mmap::map(file.file()) }.map_err(|e| Error::io("mapping", path, e))?;
                AssetArchive::parsed(Opened::map(map), local_headers)
            }
        }
    }

    /// Opens and validates the archive in `source` (a [`Source`] of the caller's: see its
    /// example), every local header checked now. A source in memory ([`Source::bytes`]) is read
    /// in place; any other is read as a file is, only where a request needs it.
    pub fn open_source(source: impl Source + 'static) -> Result<AssetArchive, Error> {
        AssetArchive::open_source_with(source, LocalHeaders::AtOpen)
    }

    /// Like [`open_source`](Self::open_source), its local headers checked when `local_headers`
    /// says.
    pub fn open_source_with(source: impl Source + 'static, local_headers: LocalHeaders) -> Result<AssetArchive, Error> {
        if source.bytes().is_some() {
            AssetArchive::parsed(Opened::in_memory(Box::new(source)), local_headers)
        } else {
            AssetArchive::opened(Box::new(source), Path::new("(source)"), local_headers)
        }
    }

    /// An archive read from `source` as needed (`path` names it in errors).
    fn opened(source: Box<dyn Source>, path: &Path, local_headers: LocalHeaders) -> Result<AssetArchive, Error> {
        let (opened, layout, mut locals) = Opened::open(source, path)?;
        let symlinks = std::mem::take(&mut locals.symlinks);
        let archive = AssetArchive::indexed(opened, layout, locals.entries, locals.index);
        if local_headers == LocalHeaders::AtOpen {
            // As extraction does: every entry's local header, and every symlink's, in file
            // order and few reads.
            let mut checks: Vec<(&LocalRef, &Entry)> = archive.locals.iter().zip(&archive.entries).collect();
            checks.extend(symlinks.iter().map(|(local, e)| (local, e)));
            let offsets = archive.data.check_locals(&checks)?;
            for (slot, offset) in archive.data_offsets.iter().zip(offsets) {
                slot.store(offset, Ordering::Relaxed);
            }
        }
        Ok(archive)
    }

    /// Validates an archive the caller hands over in memory, every local header checked now.
    pub fn from_bytes(data: Vec<u8>) -> Result<AssetArchive, Error> {
        AssetArchive::parsed(Opened::vec(data), LocalHeaders::AtOpen)
    }

    /// An archive in memory or mapped: at open, parsed as extraction parses it (the same checks,
    /// the same errors); on first read, its central directory only.
    fn parsed(data: Opened<'static>, local_headers: LocalHeaders) -> Result<AssetArchive, Error> {
        let all = data.all().expect("in memory or mapped");
        if local_headers == LocalHeaders::OnFirstRead {
            let (layout, locals) = read_central(&Window::whole(all))?;
            return Ok(AssetArchive::indexed(data, layout, locals.entries, locals.index));
        }
        let (mut layout, locals) = read_checked(all)?;
        let offsets: Vec<u64> = layout.entries.iter_mut().map(|e| std::mem::take(&mut e.data_offset)).collect();
        let archive = AssetArchive::indexed(data, layout, Vec::new(), locals.index);
        for (slot, offset) in archive.data_offsets.iter().zip(offsets) {
            slot.store(offset, Ordering::Relaxed);
        }
        Ok(archive)
    }

    fn indexed(data: Opened<'static>, layout: Layout, locals: Vec<LocalRef>, by_name: NameIndex) -> AssetArchive {
        let crc_checked = layout.entries.iter().map(|_| AtomicBool::new(false)).collect();
        let data_offsets = layout.entries.iter().map(|_| AtomicU64::new(0)).collect();
        AssetArchive {
            data,
            entries: layout.entries,
            by_name,
            crc_checked,
            locals,
            data_offsets,
            checkpoints: crate::entry::random_access::CheckpointStore::new(),
            slice_blocks: Default::default(),
            symlinks: layout.symlinks,
            prepended: layout.prepended,
            parallel: AtomicU8::new(0),
        }
    }

    /// The names of the archive's symlink entries (as stored, lossily decoded), which are not
    /// among its entries: their local headers are checked as the others' are, but a link is not
    /// read, and extraction refuses or skips them.
    pub fn symlinks(&self) -> &[String] {
        &self.symlinks
    }

    /// How many bytes of other data come before the zip part (a self-extractor's stub, a
    /// script before a jar), its offsets counted from its own start: read past, as unzip (which
    /// warns of them) and Python do. 0 for a plain archive.
    ///
    /// ```
    /// # let zip = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/examples.zip")).unwrap();
    /// let archive = asset_extract::AssetArchive::from_bytes([b"#!/bin/sh\nexit 0\n".as_slice(), &zip].concat())?;
    /// assert_eq!(archive.prepended(), 17);
    /// # Ok::<(), asset_extract::Error>(())
    /// ```
    pub fn prepended(&self) -> u64 {
        self.prepended
    }

    /// Number of entries (files and directories), in archive order.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the archive has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry at `index` (archive order), as its central directory record says. Its
    /// `data_offset` reads 0 here: reading the entry locates its data.
    pub fn entry(&self, index: usize) -> Option<&Entry> {
        self.entries.get(index)
    }

    /// Every entry, in archive order (`data_offset` reads 0, as for [`entry`](Self::entry)).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The index of the entry named `name`, in O(1).
    pub fn find(&self, name: &str) -> Option<usize> {
        self.by_name.find(&self.entries, name)
    }

    /// The indexes of the entries whose names start with `prefix`, in archive order.
    pub fn list(&self, prefix: &str) -> Vec<usize> {
        (0..self.entries.len()).filter(|&i| self.entries[i].path.starts_with(prefix)).collect()
    }

    /// Reads the whole entry at `index` into `out`, which must hold exactly its size
    /// ([`Entry::size`]); a directory has none. On error `out` is zeroed.
    pub fn read_into(&self, index: usize, out: &mut [u8]) -> Result<(), Error> {
        self.read_whole_into(index, self.file_entry(index)?, out)
    }

    /// [`read_into`](Self::read_into) of entry `e`, at `index`, already looked up.
    fn read_whole_into(&self, index: usize, e: &Entry, out: &mut [u8]) -> Result<(), Error> {
        // SAFETY: every u8 is a valid MaybeUninit<u8>, and read_whole writes only initialised bytes.
        let uninit = unsafe { &mut *(std::ptr::from_mut(out) as *mut [MaybeUninit<u8>]) };
        self.read_whole(index, e, uninit).map(|_| ())
    }

    /// Like [`read_into`](Self::read_into), into memory that may be uninitialised (a C caller's
    /// `malloc`): returns it initialised. A buffer of the wrong size is refused untouched.
    pub fn read_into_uninit<'o>(&self, index: usize, out: &'o mut [MaybeUninit<u8>]) -> Result<&'o mut [u8], Error> {
        self.read_whole(index, self.file_entry(index)?, out)
    }

    /// The one whole read, behind every other: entry `e` (at `index`, looked up once by the
    /// caller) into `out`, decoded as [`decoding`] chooses, with the thread's whole-buffer
    /// decoder.
    fn read_whole<'o>(&self, index: usize, e: &Entry, out: &'o mut [MaybeUninit<u8>]) -> Result<&'o mut [u8], Error> {
        if out.len() as u64 != e.size {
            return Err(Error::malformed_entry(
                format!("a buffer of {} bytes for {} bytes", out.len(), e.size),
                &e.path,
            ));
        }
        let input = self.input(index, e)?;
        let decoding = decoding(input, e, Ask::new(Output::Whole).parallel(self.parallel_inflate(), None))?;
        // Read from a source not in memory, the CRC-32 is checked every time: the source may
        // have changed since. In memory, the first time.
        let check = self.data.all().is_none() || !self.crc_checked[index].load(Ordering::Acquire);
        let out = DECODER.with(|decoder| {
            SCRATCH.with(|scratch| {
                let (mut decoder, mut scratch) = (decoder.borrow_mut(), scratch.borrow_mut());
                let out =
                    decoding.into_buffer(out, WholeTools { decoder: &mut decoder, scratch: &mut *scratch }, check);
                if scratch.capacity() > SCRATCH_KEPT {
                    *scratch = Vec::new();
                }
                out
            })
        })?;
        self.crc_checked[index].store(true, Ordering::Release);
        Ok(out)
    }

    /// Sets when a large deflated entry is inflated on several cores by the whole reads
    /// ([`read`](Self::read), [`read_into`](Self::read_into) and the like), [`copy_to`](Self::copy_to)
    /// and [`parallel_reader`](Self::parallel_reader): by the rule of
    /// [`inflate_in_parallel`](crate::inflate_in_parallel) (the default), always, or never. The
    /// bytes and every check are the same.
    pub fn set_parallel_inflate(&self, mode: ParallelInflate) {
        let code = match mode {
            ParallelInflate::Auto => 0,
            ParallelInflate::Always => 1,
            ParallelInflate::Never => 2,
        };
        self.parallel.store(code, Ordering::Relaxed);
    }

    /// How [`set_parallel_inflate`](Self::set_parallel_inflate) left it.
    pub fn parallel_inflate(&self) -> ParallelInflate {
        match self.parallel.load(Ordering::Relaxed) {
            1 => ParallelInflate::Always,
            2 => ParallelInflate::Never,
            _ => ParallelInflate::Auto,
        }
    }

    /// Hands entry `index` to `sink` in order as it inflates, checked at its end (its size,
    /// CRC-32 and stream end, before this returns): on several cores when
    /// [`set_parallel_inflate`](Self::set_parallel_inflate)'s rule says so, else through a
    /// [`reader`](Self::reader). Memory stays bounded whatever the entry's size. An error from
    /// `sink` stops it and is returned.
    pub fn copy_to(&self, index: usize, sink: &mut dyn FnMut(&[u8]) -> Result<(), Error>) -> Result<(), Error> {
        let e = self.file_entry(index)?;
        let ask = Ask::new(Output::Sink).parallel(self.parallel_inflate(), None);
        match decoding(self.input(index, e)?, e, ask)? {
            Decoding::Stream(decoder) => {
                // Through a reader, which keeps the checkpoints its pass records.
                let mut reader =
                    EntryReader::new(decoder, &self.crc_checked[index]).keeping_checkpoints(&self.checkpoints, index);
                let mut buf = vec![0u8; (e.size as usize).clamp(1, 256 << 10)];
                loop {
                    match reader.read_checked(&mut buf)? {
                        0 => return Ok(()),
                        n => sink(&buf[..n])?,
                    }
                }
            }
            other => {
                other.into_sink(&mut [], sink)?;
                self.crc_checked[index].store(true, Ordering::Release);
                Ok(())
            }
        }
    }

    /// Entry `index` as a stream inflated on several cores by a thread of its own, when
    /// [`set_parallel_inflate`](Self::set_parallel_inflate)'s rule says so for it (`None`: read it
    /// with [`reader`](Self::reader)). It holds the archive while it runs; memory stays bounded
    /// (two pieces of output ahead of the reader, and the decoder's own bound). A read may wait
    /// for the next piece to be decoded.
    pub fn parallel_reader(self: &Arc<Self>, index: usize) -> Result<Option<ParallelReader>, Error> {
        let e = self.file_entry(index)?;
        Ok(parallel_cores(self.parallel_inflate(), e)
            .map(|cores| ParallelReader::start(Arc::clone(self), index, cores)))
    }

    /// The whole entry at `index` in a new vector.
    pub fn read(&self, index: usize) -> Result<Vec<u8>, Error> {
        let e = self.file_entry(index)?;
        let size =
            usize::try_from(e.size).map_err(|_| Error::malformed_entry("size does not fit in memory", &e.path))?;
        let mut out = Vec::new();
        out.try_reserve_exact(size)
            .map_err(|_| Error::Limit { entry: e.path.clone(), reason: "out of memory".into() })?;
        out.resize(size, 0);
        self.read_whole_into(index, e, &mut out)?;
        Ok(out)
    }

    /// Reads entry `index` into a buffer lent by `pool`: no allocation once the pool is warm. The
    /// entry is the lease's first [`Entry::size`] bytes (the lease may be longer: the pool rounds
    /// up to its size class); dropping the lease gives the buffer back.
    ///
    /// ```
    /// use buffer_pool::{BufferPool, PoolConfig};
    /// # let zip = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/examples.zip")).unwrap();
    /// let archive = asset_extract::AssetArchive::from_bytes(zip)?;
    /// let pool = BufferPool::new(PoolConfig::default())?;
    /// let index = archive.find("a.js").unwrap();
    /// let lease = archive.read_pooled(index, &pool)?;
    /// assert_eq!(&lease[..archive.entries()[index].size as usize], b"let a = 1;");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_pooled<'p>(&self, index: usize, pool: &'p BufferPool) -> Result<Lease<'p>, Error> {
        let e = self.file_entry(index)?;
        let size =
            usize::try_from(e.size).map_err(|_| Error::malformed_entry("size does not fit in memory", &e.path))?;
        let mut lease =
            pool.acquire(size.max(1)).map_err(|err| Error::Limit { entry: e.path.clone(), reason: err.to_string() })?;
        self.read_whole_into(index, e, &mut lease[..size])?;
        Ok(lease)
    }

    /// A stored entry's bytes where they lie in the archive, no copy (`None` for a deflated
    /// entry: read it instead). Its CRC-32 is checked on the first view.
    pub fn view(&self, index: usize) -> Result<Option<&[u8]>, Error> {
        let e = self.file_entry(index)?;
        let Some(all) = self.data.all().filter(|_| e.method == Method::Stored) else { return Ok(None) };
        let offset = self.data_offset(index, e)?;
        // Checked by check_local: the data lies before the next entry, inside the archive.
        let bytes = &all[offset as usize..(offset + e.compressed_size) as usize];
        if !self.crc_checked[index].load(Ordering::Acquire) {
            if strided_inflate::crc32(bytes) != e.crc32 {
                return Err(Error::Crc { entry: e.path.clone() });
            }
            self.crc_checked[index].store(true, Ordering::Release);
        }
        Ok(Some(bytes))
    }

    /// Entry `index` as a stream in bounded memory (about 100 KiB, whatever its size): see
    /// [`EntryReader`] for when its checks run. Reading a large deflated entry of an archive in
    /// memory or mapped to its end also records its checkpoints (within the archive's budget:
    /// see [`set_checkpoint_limits`](Self::set_checkpoint_limits)), so that a later
    /// [`read_at`](Self::read_at) needs no pass of its own.
    pub fn reader(&self, index: usize) -> Result<EntryReader<'_>, Error> {
        let e = self.file_entry(index)?;
        Ok(self.stream_reader(index, e, self.input(index, e)?)?.keeping_checkpoints(&self.checkpoints, index))
    }

    /// Entry `e`, at `index`, whose compressed bytes are `input`, through a checking reader.
    fn stream_reader<'s>(&'s self, index: usize, e: &'s Entry, input: Input<'s>) -> Result<EntryReader<'s>, Error> {
        let decoder = crate::entry::decode::stream(input, e, Ask::new(Output::Stream))?;
        Ok(EntryReader::new(decoder, &self.crc_checked[index]))
    }

    /// Reads up to `out.len()` bytes of entry `index` from byte `offset` of its data into `out`;
    /// returns how many: fewer only where the entry ends (an `offset` equal to its size reads
    /// nothing; past it is [`Error::OutOfRange`]). The cost follows the slice, not the entry:
    /// - a stored entry is read in place (its CRC-32 checked over the whole entry on its first
    ///   read, as by [`read_into`](Self::read_into));
    /// - a deflated one inflates from the last checkpoint before `offset`, at most about one span
    ///   (1 MiB unless [`set_checkpoint_limits`](Self::set_checkpoint_limits) says otherwise). The
    ///   first such read of the entry builds its checkpoints in one full pass that checks its
    ///   CRC-32 (or they come from [`import_checkpoints`](Self::import_checkpoints));
    /// - other methods (bzip2, LZMA...) decode from the entry's start. The entry's first slice
    ///   first decodes it whole and checks its CRC-32, as a deflated entry's first slice does.
    ///
    /// A CRC-32 covers a whole entry, not a slice, so each slice is checked against that pass:
    /// the compressed bytes it decodes (and those to the next 64 KiB mark, or a stored entry's
    /// 16 KiB blocks) must be those the pass read, by a CRC-32 of each part noted then. A file
    /// ([`Holding::Read`]) or a caller's source whose bytes changed since gives an error
    /// ([`Error::Crc`], [`Error::Data`], or [`Error::Io`] for bzip2, LZMA, Zstandard and XZ
    /// entries), never other bytes; a mapped file must not change ([`Holding::Map`]).
    ///
    /// ```
    /// # let big: Vec<u8> = (0..300_000u32).flat_map(|i| format!("{},", i % 1000).into_bytes()).collect();
    /// # let zip = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/examples.zip")).unwrap();
    /// let archive = asset_extract::AssetArchive::from_bytes(zip)?;
    /// let index = archive.find("data.csv").unwrap();
    /// let mut slice = [0u8; 16];
    /// let n = archive.read_at(index, 1_000_000, &mut slice)?;
    /// assert_eq!(&slice[..n], &big[1_000_000..1_000_016]);
    /// # Ok::<(), asset_extract::Error>(())
    /// ```
    pub fn read_at(&self, index: usize, offset: u64, out: &mut [u8]) -> Result<usize, Error> {
        let e = self.file_entry(index)?;
        if offset > e.size {
            return Err(Error::OutOfRange { entry: e.path.clone(), offset, size: e.size });
        }
        let want = (out.len() as u64).min(e.size - offset) as usize;
        let out = &mut out[..want];
        if want == 0 {
            return Ok(0);
        }
        let data = self.data_offset(index, e)?;
        match (e.method, self.data.input(data, e)) {
            (Method::Deflate, _) => {
                let mut source = self.compressed_source(e, data);
                self.checkpoints.read_at(index, e, offset, out, &mut source)
            }
            // In memory, or mapped (whose contract is that the file does not change).
            (Method::Stored, Input::Slice(bytes)) => {
                self.checked_whole_once(index, e, Input::Slice(bytes))?;
                out.copy_from_slice(&bytes[offset as usize..offset as usize + want]);
                Ok(want)
            }
            (_, Input::Slice(bytes)) => {
                self.checked_whole_once(index, e, Input::Slice(bytes))?;
                self.decoded_slice(index, e, Input::Slice(bytes), offset, out)
            }
            // From a file or a caller's source, which may change: every block a slice reads is
            // checked against what the pass that checked the entry's CRC-32 read.
            (method, Input::Range { source, offset: at, len }) => {
                let crcs = self.slice_blocks(index, e);
                let checked = BlockChecked::new(source, at, len, &crcs);
                let input = Input::Range { source: &checked, offset: 0, len };
                // The blocks' CRC-32s come from a pass of their own that checks the entry, even
                // where another read checked it before: they are what that pass read.
                if !crcs.checked.load(Ordering::Acquire) {
                    self.check_whole(index, e, input)?;
                    crcs.checked.store(true, Ordering::Release);
                }
                if method == Method::Stored {
                    checked.read_exact(offset, out, e)?;
                    Ok(want)
                } else {
                    self.decoded_slice(index, e, input, offset, out)
                }
            }
        }
    }

    /// A slice of entry `e` (not deflated: these have no checkpoints) decoded from its start out
    /// of `input`, once the entry has been checked whole. A decoder's failure is the data's (or
    /// the archive's) error, never a failed system call on the caller's descriptor.
    fn decoded_slice(
        &self,
        index: usize,
        e: &Entry,
        input: Input<'_>,
        offset: u64,
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let mut reader = self.stream_reader(index, e, input)?;
        let failed = |err| crate::entry::methods::read_error(e, err);
        std::io::copy(&mut std::io::Read::take(std::io::Read::by_ref(&mut reader), offset), &mut std::io::sink())
            .map_err(failed)?;
        std::io::Read::read_exact(&mut reader, out).map_err(failed)?;
        Ok(out.len())
    }

    /// Entry `index`'s block CRC-32s for checked slices.
    fn slice_blocks(&self, index: usize, e: &Entry) -> std::sync::Arc<BlockCrcs> {
        let mut held = self.slice_blocks.lock().unwrap_or_else(|err| err.into_inner());
        std::sync::Arc::clone(held.entry(index).or_insert_with(|| BlockCrcs::new(e.compressed_size).into()))
    }

    /// Sets how far apart entries' checkpoints are (`span` output bytes, at least 32 KiB) and
    /// how much memory this archive's checkpoints may take in all (`budget` bytes), for
    /// [`read_at`](Self::read_at). Defaults: 1 MiB and 64 MiB. A read inflates at most about
    /// one span; each checkpoint takes 32 KiB.
    pub fn set_checkpoint_limits(&self, span: u64, budget: u64) {
        self.checkpoints.set_limits(span, budget);
    }

    /// Memory the checkpoints held take now, in bytes.
    pub fn checkpoint_memory(&self) -> u64 {
        self.checkpoints.memory()
    }

    /// Deflated entry `index`'s checkpoints as bytes to keep beside the archive (built now if
    /// they are not held), for [`import_checkpoints`](Self::import_checkpoints) in a later run.
    pub fn export_checkpoints(&self, index: usize) -> Result<Vec<u8>, Error> {
        let e = self.file_entry(index)?;
        if e.method != Method::Deflate {
            return Err(Error::malformed_entry("only deflated entries have checkpoints", &e.path));
        }
        let data = self.data_offset(index, e)?;
        let mut source = self.compressed_source(e, data);
        let points = self.checkpoints.for_entry(index, e, &mut source)?;
        points.export(&mut source).map_err(|err| crate::entry::random_access::seek_error(e, err))
    }

    /// Checkpoints [`export_checkpoints`](Self::export_checkpoints) made in an earlier run, for
    /// entry `index`: refused ([`Error::CheckpointsRefused`]) unless they were made for this
    /// entry's data (its sizes and CRC-32) and are whole and unaltered. Each is bound to the
    /// compressed bytes it describes: the first [`read_at`](Self::read_at) through it checks its
    /// digest against them, and one made for another archive (the same data compressed
    /// otherwise) or damaged fails that read with [`Error::CheckpointsRefused`] and is dropped.
    pub fn import_checkpoints(&self, index: usize, bytes: &[u8]) -> Result<(), Error> {
        let e = self.file_entry(index)?;
        if e.method != Method::Deflate {
            return Err(Error::CheckpointsRefused { entry: e.path.clone(), reason: "not a deflated entry".into() });
        }
        self.checkpoints.import(index, e, bytes)
    }

    /// Reads entry `index` whole from `input` through its checking reader, once: its CRC-32 and
    /// size checked for the slices that rest on it.
    fn checked_whole_once(&self, index: usize, e: &Entry, input: Input<'_>) -> Result<(), Error> {
        if self.crc_checked[index].load(Ordering::Acquire) {
            return Ok(());
        }
        self.check_whole(index, e, input)
    }

    /// Reads entry `index` whole from `input` through its checking reader: its CRC-32 and size.
    fn check_whole(&self, index: usize, e: &Entry, input: Input<'_>) -> Result<(), Error> {
        let mut reader = self.stream_reader(index, e, input)?;
        std::io::copy(&mut reader, &mut std::io::sink()).map_err(|err| crate::entry::methods::read_error(e, err))?;
        self.crc_checked[index].store(true, Ordering::Release);
        Ok(())
    }

    /// Entry `e`'s compressed bytes (its data at `data` in the archive), read at an offset.
    fn compressed_source<'s>(
        &'s self,
        e: &'s Entry,
        data: u64,
    ) -> impl FnMut(u64, &mut [u8]) -> std::io::Result<usize> + 's {
        move |offset: u64, buf: &mut [u8]| {
            let left = e.compressed_size.saturating_sub(offset);
            let n = (buf.len() as u64).min(left) as usize;
            self.data.source().read_at(data + offset, &mut buf[..n])
        }
    }

    /// The indexes of the entries whose names match `pattern`, in archive order: `*` any run of
    /// characters (`/` included), `?` one character, and a pattern ending in `/` a directory and
    /// everything under it; the same patterns as extraction's `--only`.
    pub fn list_matching(&self, pattern: &str) -> Vec<usize> {
        if !pattern.contains(['*', '?']) && !pattern.ends_with('/') {
            // An exact name: the index answers without a pass over every entry.
            return self.find(pattern).into_iter().collect();
        }
        (0..self.entries.len()).filter(|&i| crate::extract::options::matches(pattern, &self.entries[i].path)).collect()
    }

    /// Checks entry `index`'s local header, if that was not done at open or by a read.
    pub(crate) fn local_header_checked(&self, index: usize) -> Result<(), Error> {
        let e = &self.entries[index];
        self.data_offset(index, e).map(|_| ())
    }

    /// Where entry `index`'s data starts, its local header checked on first use.
    fn data_offset(&self, index: usize, e: &Entry) -> Result<u64, Error> {
        let offset = self.data_offsets[index].load(Ordering::Acquire);
        if offset != 0 {
            return Ok(offset);
        }
        let offset = self.data.check_local(self.local(index, e)?, e)?;
        self.data_offsets[index].store(offset, Ordering::Release);
        Ok(offset)
    }

    /// What checking entry `index`'s local header needs (kept only when it was not checked at open).
    fn local(&self, index: usize, e: &Entry) -> Result<&LocalRef, Error> {
        self.locals.get(index).ok_or_else(|| Error::malformed_entry("its local header was not located", &e.path))
    }

    /// Entry `index`'s data as stored: in place when the archive is in memory or mapped, else a
    /// range of its source. (Checked by check_local: the data lies before the next entry, inside
    /// the archive.)
    fn input(&self, index: usize, e: &Entry) -> Result<Input<'_>, Error> {
        let offset = self.data_offset(index, e)?;
        Ok(self.data.input(offset, e))
    }

    fn file_entry(&self, index: usize) -> Result<&Entry, Error> {
        let e = self
            .entries
            .get(index)
            .ok_or_else(|| Error::malformed(format!("no entry {index}: the archive has {}", self.entries.len())))?;
        if e.kind != Kind::File {
            return Err(Error::malformed_entry("a directory has no data", &e.path));
        }
        Ok(e)
    }
}

#[cfg(test)]
mod tests;
