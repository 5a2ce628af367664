//! Where an archive's bytes come from: a file read with `pread`, memory, a mapping, or storage of
//! the caller's own ([`Source`]). Every reading of an archive goes through this one trait, so a
//! source of the caller's is read, checked and refused exactly as a file is.

use std::fs::File;
use std::io;
use std::mem::MaybeUninit;
use std::path::Path;

use crate::Error;
use crate::read::entry::Entry;

/// An archive's bytes, read at offsets: a file ([`FileSource`]), memory (`Vec<u8>`, `&[u8]`), a
/// mapping (`memmap2::Mmap`), or anything a host keeps them in (an encrypted store, a cache, a
/// remote object fetched by ranges). Shared by the threads that read the archive.
///
/// The reader trusts nothing a source says: what it reads is parsed and checked as a file's bytes
/// are (a source that answers short, fails, or changes its answers gives an [`Error`], never a
/// crash or a wrong reading), and memory stays bounded whatever [`len`](Self::len) claims.
///
/// ```
/// use asset_extract::{AssetArchive, Source};
///
/// /// The archive's bytes, served from wherever the host keeps them.
/// struct Served(Vec<u8>);
///
/// impl Source for Served {
///     fn len(&self) -> u64 {
///         self.0.len() as u64
///     }
///     fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
///         let rest = self.0.get(offset as usize..).unwrap_or(&[]);
///         let n = buf.len().min(rest.len());
///         buf[..n].copy_from_slice(&rest[..n]);
///         Ok(n)
///     }
/// }
///
/// # let zip = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/examples.zip")).unwrap();
/// let archive = AssetArchive::open_source(Served(zip))?;
/// assert_eq!(archive.read(archive.find("a.txt").unwrap())?, b"hi");
/// # Ok::<(), asset_extract::Error>(())
/// ```
pub trait Source: Send + Sync {
    /// The archive's length in bytes.
    fn len(&self) -> u64;

    /// Reads bytes at `offset` into `buf` and returns how many, as `pread` does: fewer than asked
    /// only at the end of the source (or when interrupted); 0 at or past the end.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize>;

    /// [`read_at`](Self::read_at) into memory that may be uninitialised (a C caller's buffer),
    /// for sources that can write straight into it; the bytes it says it read are initialised.
    /// By default the buffer is zeroed, then read into.
    fn read_at_uninit(&self, offset: u64, buf: &mut [MaybeUninit<u8>]) -> io::Result<usize> {
        buf.fill(MaybeUninit::new(0));
        // SAFETY: every byte was just initialised, and read_at writes only bytes.
        let buf = unsafe { &mut *(std::ptr::from_mut(buf) as *mut [u8]) };
        self.read_at(offset, buf)
    }

    /// All of the archive, when it lies in memory (handed over or mapped): entries are then read
    /// in place, and stored ones viewed without a copy. `None` (the default) for the others.
    fn bytes(&self) -> Option<&[u8]> {
        None
    }

    /// Fails when the source is no longer the archive it was when opened (a file rewritten, a
    /// remote object replaced): extraction checks it before putting anything in place.
    fn check_unchanged(&self) -> io::Result<()> {
        Ok(())
    }

    /// Whether [`len`](Self::len) is 0.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Source for [u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        let rest = usize::try_from(offset).ok().and_then(|at| self.get(at..)).unwrap_or(&[]);
        let n = buf.len().min(rest.len());
        buf[..n].copy_from_slice(&rest[..n]);
        Ok(n)
    }

    fn read_at_uninit(&self, offset: u64, buf: &mut [MaybeUninit<u8>]) -> io::Result<usize> {
        let rest = usize::try_from(offset).ok().and_then(|at| self.get(at..)).unwrap_or(&[]);
        let n = buf.len().min(rest.len());
        for (slot, &byte) in buf[..n].iter_mut().zip(rest) {
            *slot = MaybeUninit::new(byte);
        }
        Ok(n)
    }

    fn bytes(&self) -> Option<&[u8]> {
        Some(self)
    }
}

/// Forwards every method to the slice the value derefs to.
macro_rules! source_of_bytes {
    ($($t:ty),*) => {$(
        impl Source for $t {
            fn len(&self) -> u64 {
                Source::len(&self[..])
            }
            fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
                Source::read_at(&self[..], offset, buf)
            }
            fn read_at_uninit(&self, offset: u64, buf: &mut [MaybeUninit<u8>]) -> io::Result<usize> {
                Source::read_at_uninit(&self[..], offset, buf)
            }
            fn bytes(&self) -> Option<&[u8]> {
                Some(&self[..])
            }
        }
    )*};
}

source_of_bytes!(Vec<u8>, memmap2::Mmap);

/// Forwards every method to the source pointed at.
macro_rules! source_by_pointer {
    ($($t:ty),*) => {$(
        impl<S: Source + ?Sized> Source for $t {
            fn len(&self) -> u64 {
                (**self).len()
            }
            fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
                (**self).read_at(offset, buf)
            }
            fn read_at_uninit(&self, offset: u64, buf: &mut [MaybeUninit<u8>]) -> io::Result<usize> {
                (**self).read_at_uninit(offset, buf)
            }
            fn bytes(&self) -> Option<&[u8]> {
                (**self).bytes()
            }
            fn check_unchanged(&self) -> io::Result<()> {
                (**self).check_unchanged()
            }
        }
    )*};
}

source_by_pointer!(&S, Box<S>, std::sync::Arc<S>);

/// An archive file, read with `pread` only where a request needs it. It may change underneath: a
/// read then fails with an error (short reads, a header or CRC that no longer agrees), never a
/// signal, and [`check_unchanged`](Source::check_unchanged) tells a rewrite since it was opened.
#[derive(Debug)]
pub struct FileSource {
    file: File,
    /// The file's version when opened, which reads check it still has.
    version: crate::sys::Version,
}

impl FileSource {
    /// Opens the archive at `path`, refusing what is not a regular file: a directory, a device, a
    /// socket, or a FIFO, which is opened without waiting for a writer (a plain `open(2)` of a
    /// FIFO blocks until one comes, and the caller's thread with it).
    pub fn open(path: &Path) -> Result<FileSource, Error> {
        let file = crate::sys::open_archive(path).map_err(|e| Error::io("opening", path, e))?;
        FileSource::from_file(file, path)
    }

    /// An archive file already open (`path` names it in errors), refused unless it is a regular
    /// file.
    pub fn from_file(file: File, path: &Path) -> Result<FileSource, Error> {
        let meta = file.metadata().map_err(|e| Error::io("inspecting", path, e))?;
        let kind = meta.file_type();
        if !kind.is_file() {
            let what = if kind.is_dir() {
                io::ErrorKind::IsADirectory.into()
            } else {
                io::Error::other("not a regular file (a FIFO, device or socket)")
            };
            return Err(Error::io("reading the archive", path, what));
        }
        Ok(FileSource { version: crate::sys::Version::of(&meta), file })
    }

    /// The open file.
    pub fn file(&self) -> &File {
        &self.file
    }
}

impl Source for FileSource {
    fn len(&self) -> u64 {
        self.version.len()
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        crate::sys::read_at(&self.file, buf, offset)
    }

    fn read_at_uninit(&self, offset: u64, buf: &mut [MaybeUninit<u8>]) -> io::Result<usize> {
        crate::sys::read_at_uninit(&self.file, buf, offset)
    }

    /// Fails if the file is no longer the one opened: another file at its path is fine (it was
    /// opened), but a change of its size or contents since (its modification or change time) is
    /// not, so that nothing is put in place from an archive rewritten midway.
    fn check_unchanged(&self) -> io::Result<()> {
        if crate::sys::Version::of(&self.file.metadata()?) != self.version {
            return Err(io::Error::other("the archive changed while it was read"));
        }
        Ok(())
    }
}

/// Fills `out` with the bytes of `source` at `offset`: all of them, or an error naming `entry`
/// (a source that ends first shrank since it was opened).
pub(crate) fn read_exact_at(
    source: &dyn Source,
    offset: u64,
    out: &mut [MaybeUninit<u8>],
    entry: &str,
) -> Result<(), Error> {
    let mut done = 0;
    while done < out.len() {
        match source.read_at_uninit(offset + done as u64, &mut out[done..]) {
            Ok(0) => return Err(Error::malformed_entry("the archive shrank since it was opened", entry)),
            Ok(n) if n <= out.len() - done => done += n,
            Ok(n) => {
                return Err(Error::io(
                    "reading",
                    Path::new(entry),
                    io::Error::other(format!("the source said it read {n} bytes into room for {}", out.len() - done)),
                ));
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(Error::io("reading", Path::new(entry), err)),
        }
    }
    Ok(())
}

/// [`read_exact_at`] into initialised memory.
pub(crate) fn read_exact(source: &dyn Source, offset: u64, out: &mut [u8], entry: &str) -> Result<(), Error> {
    // SAFETY: every u8 is a valid MaybeUninit<u8>, and read_exact_at writes only bytes.
    let uninit = unsafe { &mut *(std::ptr::from_mut(out) as *mut [MaybeUninit<u8>]) };
    read_exact_at(source, offset, uninit, entry)
}

/// Some bytes of `source` at `offset` into `buf` (not empty): the source ending first means it
/// shrank since it was opened.
pub(crate) fn read_some(source: &dyn Source, offset: u64, buf: &mut [u8], entry: &str) -> Result<usize, Error> {
    loop {
        match source.read_at(offset, buf) {
            Ok(0) if !buf.is_empty() => {
                return Err(Error::malformed_entry("the archive shrank since it was opened", entry));
            }
            Ok(n) if n <= buf.len() => return Ok(n),
            Ok(n) => {
                return Err(Error::io(
                    "reading",
                    Path::new(entry),
                    io::Error::other(format!("the source said it read {n} bytes into room for {}", buf.len())),
                ));
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(Error::io("reading", Path::new(entry), err)),
        }
    }
}

/// Up to `len` bytes of `source` at `offset`, fewer only where it ends; `path` names it in errors.
pub(crate) fn read_up_to(source: &dyn Source, offset: u64, len: u64, path: &Path) -> Result<Vec<u8>, Error> {
    let len =
        usize::try_from(len).map_err(|_| Error::malformed("the archive is larger than this system's address space"))?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(len).map_err(|_| Error::io("reading", path, io::ErrorKind::OutOfMemory.into()))?;
    buf.resize(len, 0);
    let mut done = 0;
    while done < len {
        match source.read_at(offset + done as u64, &mut buf[done..]) {
            Ok(0) => break,
            Ok(n) if n <= len - done => done += n,
            Ok(n) => {
                let what = io::Error::other(format!("the source said it read {n} bytes into room for {}", len - done));
                return Err(Error::io("reading", path, what));
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io("reading", path, e)),
        }
    }
    buf.truncate(done);
    Ok(buf)
}

/// Where an entry's compressed bytes are.
#[derive(Clone, Copy)]
pub(crate) enum Input<'a> {
    /// In memory: the archive's bytes, or a read holding them.
    Slice(&'a [u8]),
    /// In a source: `len` bytes from `offset`, read in pieces as the decoder asks.
    Range { source: &'a (dyn Source + 'a), offset: u64, len: u64 },
}

impl<'a> Input<'a> {
    /// Entry `e`'s compressed bytes at `offset` of `source`: a slice when the source lies in
    /// memory, else a range read as needed.
    pub(crate) fn of(source: &'a (dyn Source + 'a), offset: u64, e: &Entry) -> Input<'a> {
        Input::within(source.bytes(), source, offset, e)
    }

    /// Entry `e`'s compressed bytes at `offset`: in `all`, the source's bytes when they lie in
    /// memory, else a range of `source`.
    pub(crate) fn within(all: Option<&'a [u8]>, source: &'a (dyn Source + 'a), offset: u64, e: &Entry) -> Input<'a> {
        match all {
            Some(all) => Input::Slice(&all[offset as usize..(offset + e.compressed_size) as usize]),
            None => Input::Range { source, offset, len: e.compressed_size },
        }
    }

    /// Fills `out` with the compressed bytes from `at` on (`at + out.len()` within them).
    pub(crate) fn read_exact(&self, at: u64, out: &mut [MaybeUninit<u8>], entry: &str) -> Result<(), Error> {
        match *self {
            Input::Slice(bytes) => {
                let from = &bytes[at as usize..at as usize + out.len()];
                for (slot, &byte) in out.iter_mut().zip(from) {
                    *slot = MaybeUninit::new(byte);
                }
                Ok(())
            }
            Input::Range { source, offset, .. } => read_exact_at(source, offset + at, out, entry),
        }
    }

    /// The compressed bytes' length.
    pub(crate) fn len(&self) -> u64 {
        match *self {
            Input::Slice(bytes) => bytes.len() as u64,
            Input::Range { len, .. } => len,
        }
    }
}
