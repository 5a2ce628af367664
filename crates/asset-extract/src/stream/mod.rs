//! Extraction from a stream (a pipe, a socket, stdin, a host's callback): the archive's bytes are
//! spooled as they arrive (in memory up to 8 MiB, beyond that in an unnamed file beside the
//! destination), and while the stream is slower than the workers, the entries it brings are
//! staged as they arrive: inflated by worker threads straight into the extraction's staging
//! directory ([`arrivals`](crate::stream::arrivals)). When the stream ends, the spool is extracted on the
//! one reading path, exactly as a file is: a zip's central directory, which says what the archive
//! holds, comes last, and every entry is checked against it as a file's are, so a stream admits
//! one reading or none, with prepended data, ZIP64, data descriptors (stored entries too) and
//! every method. A file staged ahead is kept only where the archive describes it exactly as it was
//! staged; any other is removed, and the entry written from the spool. Memory stays bounded (one
//! copy buffer, at most 8 MiB queued for the workers, their buffers) whatever the stream's size;
//! the spool takes the archive's size on the destination's file system, and is gone when
//! extraction ends, or the process does.

pub(crate) mod arrivals;
#[cfg(test)]
mod arrivals_tests;
pub(crate) mod follower;
pub(crate) mod prestaged;

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use crate::extract::options::{Options, Report};
use crate::sys::BorrowedPipe;
use crate::{Error, FileSource};
use arrivals::Arrivals;
use follower::Wanted;

/// What a spool copies at a time.
const COPY: usize = 1 << 20;

/// Archives up to this size are spooled in memory: no file to create, and extracted from memory.
/// A larger one moves to a file once it passes this.
const IN_MEMORY: usize = 8 << 20;

/// An archive arriving as a stream, written to as it arrives ([`Write`]), then extracted once it
/// has all arrived: for hosts that are handed the bytes in pieces (a BEAM process's messages, a
/// socket's callbacks). [`extract_stream`] is this, fed from a [`Read`].
///
/// ```
/// use std::io::Write;
/// # let zip = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/examples.zip")).unwrap();
/// # let dir = std::env::temp_dir().join(format!("asset-extract-streamed-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// let dest = dir.join("out");
/// let mut incoming = asset_extract::StreamedArchive::beside(&dest)?;
/// for piece in zip.chunks(7) {
///     incoming.write_all(piece)?; // as each piece arrives
/// }
/// let report = incoming.extract(&dest, &Default::default())?;
/// assert_eq!(report.files, 4);
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct StreamedArchive {
    spool: Spool,
    place: PathBuf,
    len: u64,
    /// The entries being staged as they arrive (none where nothing can be staged beside the
    /// destination).
    arrivals: Option<Box<Arrivals>>,
}

/// A spool in memory, read as a file is (not as an archive handed over in memory, which is
/// checked in another order): a stream extracts exactly as its file would, errors included.
struct Held(Vec<u8>);

impl crate::Source for Held {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        crate::Source::read_at(&self.0[..], offset, buf)
    }

    fn read_at_uninit(&self, offset: u64, buf: &mut [std::mem::MaybeUninit<u8>]) -> io::Result<usize> {
        crate::Source::read_at_uninit(&self.0[..], offset, buf)
    }
}

/// Where the bytes received so far are.
enum Spool {
    /// In memory, up to [`IN_MEMORY`] bytes.
    Memory(Vec<u8>),
    /// In an unnamed file beside the destination.
    File(File),
}

impl StreamedArchive {
    /// Makes room for an archive to be extracted into `dest`: in memory up to 8 MiB, beyond that
    /// in a file on `dest`'s file system, with no name (nothing is left behind whatever happens).
    /// Its entries are staged as they arrive, every entry (its options are not known yet): see
    /// [`extracting`](Self::extracting).
    pub fn beside(dest: &Path) -> Result<StreamedArchive, Error> {
        Ok(Self::with_wanted(dest, Some(Wanted::default())))
    }

    /// Makes room, as [`beside`](Self::beside) does, for an archive to be extracted into `dest`
    /// with `options`: entries that `options.only` leaves out, or that would pass its quota or
    /// ratio, are not staged as they arrive.
    pub fn extracting(dest: &Path, options: &Options<'_>) -> Result<StreamedArchive, Error> {
        Ok(Self::with_wanted(dest, Wanted::of(options)))
    }

    fn with_wanted(dest: &Path, wanted: Option<Wanted>) -> StreamedArchive {
        // Reserved whole, never grown: no copy, and pages take memory only once written.
        let held = Vec::with_capacity(IN_MEMORY);
        let arrivals = wanted.map(|wanted| Box::new(Arrivals::beside(dest, wanted)));
        StreamedArchive { spool: Spool::Memory(held), place: spool_place(dest), len: 0, arrivals }
    }

    /// Stages every entry it can as it arrives, however fast the stream, and lets that finish
    /// before extracting (a fast stream is otherwise extracted from its spool alone): for the
    /// tests and fuzz harnesses (crates/test-support) that hold the staging path to a file's.
    /// Not part of the API.
    #[doc(hidden)]
    pub fn stage_everything(&mut self) {
        if let Some(arrivals) = &mut self.arrivals {
            arrivals.stage_everything();
        }
    }

    /// Bytes of the archive received so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing has been received.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Extracts the archive received, which must be whole, into `dest`, as
    /// [`extract`](crate::extract) extracts a file.
    pub fn extract(self, dest: &Path, options: &Options<'_>) -> Result<Report, Error> {
        if options.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(Error::Cancelled);
        }
        let prestaged = self.arrivals.and_then(|arrivals| arrivals.finish());
        match self.spool {
            Spool::Memory(bytes) => crate::extract::extract_spool(&Held(bytes), dest, options, prestaged),
            Spool::File(file) => {
                let source = FileSource::from_file(file, Path::new("(stream)"))?;
                crate::extract::extract_spool(&source, dest, options, prestaged)
            }
        }
    }
}

impl StreamedArchive {
    /// Reads `input` to its end into the spool, unbuffered. With `pipe` (the descriptor `input`
    /// reads), the rest is spliced in once the stream no longer [`follows`](Self::follows).
    /// `cancel` is looked at between reads.
    fn receive(
        &mut self,
        input: &mut dyn Read,
        mut pipe: Option<BorrowedPipe<'_>>,
        cancel: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<(), Error> {
        let stream = Path::new("(stream)");
        let mut buf = vec![0u8; COPY];
        loop {
            if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return Err(Error::Cancelled);
            }
            if let Some(fd) = pipe.filter(|_| !self.follows()) {
                match self.splice_from(fd, cancel)? {
                    Some(_) => return Ok(()),
                    None => pipe = None, // read as any stream
                }
            }
            let n = match input.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io("reading", stream, e)),
            };
            self.write_all(&buf[..n]).map_err(|e| Error::io("spooling", stream, e))?;
        }
    }

    /// Whether the bytes still to come are looked at as they arrive (to stage their entries):
    /// false once the stream has proved a local one, whose entries are extracted from the spool
    /// when it ends.
    fn follows(&self) -> bool {
        self.arrivals.as_ref().is_some_and(|a| a.follows())
    }

    /// Moves everything left in the pipe `pipe` into the spool inside the kernel (Linux and
    /// Android, `splice`), never through this process's memory: the bytes received. `Ok(None)`
    /// where the pipe or the spool cannot splice (not a pipe, another system): read it instead.
    /// Only once [`follows`](Self::follows) is false (else its entries would not be staged) and
    /// the spool is a file (the first 8 MiB are held in memory). `cancel` is looked at between
    /// pieces.
    fn splice_from(
        &mut self,
        pipe: BorrowedPipe<'_>,
        cancel: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<Option<u64>, Error> {
        let Spool::File(file) = &self.spool else { return Ok(None) };
        if self.follows() {
            return Ok(None);
        }
        let mut moved = 0u64;
        loop {
            if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return Err(Error::Cancelled);
            }
            match crate::sys::splice_to_file(pipe, file, self.len, COPY) {
                Ok(0) => return Ok(Some(moved)),
                Ok(n) => {
                    moved += n as u64;
                    self.len += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if moved == 0 && crate::sys::unsupported(&e) => return Ok(None),
                Err(e) => return Err(Error::io("spooling", &self.place, e)),
            }
        }
    }
}

impl Write for StreamedArchive {
    /// Spools `bytes`; an error names the spool's directory.
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let place = &self.place;
        let failed =
            |e: io::Error| io::Error::new(e.kind(), format!("spooling the stream in {}: {e}", place.display()));
        if let Spool::Memory(held) = &mut self.spool
            && held.len() + bytes.len() > IN_MEMORY
        {
            let file = crate::sys::unnamed_file(place).map_err(failed)?;
            crate::sys::write_all_at(&file, held, 0).map_err(failed)?;
            if let Some(arrivals) = &mut self.arrivals {
                arrivals.spooled_to(&file);
            }
            self.spool = Spool::File(file);
        }
        let n = match &mut self.spool {
            Spool::Memory(held) => {
                held.extend_from_slice(bytes);
                bytes.len()
            }
            // At its offset, never at the handle's position: readers of the arriving spool read
            // at theirs through the same file (on Windows, a read at an offset moves it).
            Spool::File(file) => {
                crate::sys::write_all_at(file, bytes, self.len).map_err(failed)?;
                bytes.len()
            }
        };
        if let Some(arrivals) = &mut self.arrivals {
            arrivals.feed(&bytes[..n]);
        }
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Extracts the archive read from `input` to its end into `dest`, as [`extract`](crate::extract)
/// extracts a file: the same checks, options and statuses, and nothing at `dest` changes unless
/// the whole archive arrived and every selected entry verified. Cancellation is honoured while the
/// stream is read, too. A stream that ends early, or carries bytes after the archive, is refused
/// as a file that does would be.
///
/// ```
/// # let zip = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/examples.zip")).unwrap();
/// # let dir = std::env::temp_dir().join(format!("asset-extract-stream-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// let mut input: &[u8] = &zip; // stdin, a socket, a child's pipe...
/// let report = asset_extract::extract_stream(&mut input, &dir.join("out"), &Default::default())?;
/// assert_eq!(report.files, 4);
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), asset_extract::Error>(())
/// ```
pub fn extract_stream(input: &mut dyn Read, dest: &Path, options: &Options<'_>) -> Result<Report, Error> {
    if options.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
        return Err(Error::Cancelled);
    }
    let mut incoming = StreamedArchive::extracting(dest, options)?;
    incoming.receive(input, None, options.cancel)?;
    incoming.extract(dest, options)
}

/// Extracts the archive read from the descriptor `input` (standard input, a pipe, a socket) to
/// its end into `dest`, as [`extract_stream`] does. On Linux and Android, once the stream has
/// proved a local one (its entries are not staged as they arrive), the rest of a pipe is moved
/// into the spool inside the kernel (`splice`), never through this process's memory.
///
/// A regular file at its start (`bufkit extract - < app.apk`) needs no spool: it is extracted in
/// place, as [`extract`](crate::extract) extracts it, reading only what is selected, and left at
/// its end, as a stream read to its end is.
///
/// ```no_run
/// # #[cfg(unix)] {
/// use std::os::fd::AsFd; // on Windows: std::os::windows::io::AsHandle, and `as_handle()`
/// let report = asset_extract::extract_pipe(std::io::stdin().as_fd(), "out".as_ref(), &Default::default())?;
/// println!("{} files", report.files);
/// # }
/// # Ok::<(), asset_extract::Error>(())
/// ```
pub fn extract_pipe(input: BorrowedPipe<'_>, dest: &Path, options: &Options<'_>) -> Result<Report, Error> {
    if options.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
        return Err(Error::Cancelled);
    }
    let owned = input.try_clone_to_owned().map_err(|e| Error::io("reading", Path::new("(stream)"), e))?;
    let mut reader = File::from(owned);
    if let Some(source) = file_at_its_start(&reader) {
        let extracted = crate::extract::extract_spool(&source, dest, options, None);
        let _ = io::Seek::seek(&mut reader, io::SeekFrom::End(0));
        return extracted;
    }
    let mut incoming = StreamedArchive::extracting(dest, options)?;
    incoming.receive(&mut reader, Some(input), options.cancel)?;
    incoming.extract(dest, options)
}

/// `file` as a source to read in place, where it is a regular file positioned at its start (what
/// it holds from there is the whole stream, and reading it where it lies reads the same bytes).
fn file_at_its_start(file: &File) -> Option<FileSource> {
    let at_start = file.metadata().is_ok_and(|m| m.is_file()) && io::Seek::stream_position(&mut &*file).ok() == Some(0);
    at_start.then(|| FileSource::from_file(file.try_clone().ok()?, Path::new("(stream)")).ok()).flatten()
}

/// Where the spool goes: the directory `dest` is created in (or the nearest one that exists), so
/// that it takes room on the file system the files go to, not in memory (a tmpfs `/tmp`).
fn spool_place(dest: &Path) -> PathBuf {
    let mut dir = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    while !dir.is_dir() {
        match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => dir = p.to_path_buf(),
            _ => return PathBuf::from("."),
        }
    }
    dir
}
