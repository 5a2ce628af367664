//! An archive read with `pread` (the default holding of an [`AssetArchive`](crate::AssetArchive)):
//! at open, only its end records and central directory come into memory; an entry's local header
//! and data are read when the entry is. The file may change underneath: a read then fails with an
//! error (short reads, a local header that no longer agrees, a CRC that no longer matches), never
//! a signal.

use std::fs::File;
use std::mem::MaybeUninit;
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::Error;
use crate::archive::{Entry, Layout, LocalRef, Locals, Window, check_local, read_central};

/// How much of the file's end the first read takes: an end record with the longest comment, and
/// a ZIP64 locator and record before it, with room to spare. The central directory usually
/// follows in one more read.
const FIRST_TAIL: u64 = 64 * 1024 + 22 + 1024;

/// What of the local header the first read of an entry takes beyond its name: most extra fields.
const EXTRA_GUESS: u64 = 512;

/// The held part of the file: its end, from the central directory on.
pub(crate) struct PreadFile {
    file: File,
    len: u64,
    tail: Vec<u8>,
}

impl PreadFile {
    /// Reads the end of `file` and parses its central directory, reading more of the file only
    /// when the first read did not hold it all (a central directory beyond 64 KiB, an end record
    /// before appended data, ZIP64 records elsewhere): at worst the whole file, so a parse over too
    /// little never refuses an archive the strict parser accepts.
    pub(crate) fn open(file: File, len: u64, path: &Path) -> Result<(PreadFile, Layout, Locals), Error> {
        let mut from = len.saturating_sub(FIRST_TAIL);
        loop {
            let tail = read_at(&file, from, len - from, path)?;
            let window = Window::tail(&tail, to_usize(len)?);
            match read_central(&window) {
                Ok((layout, locals)) => return Ok((PreadFile { file, len, tail }, layout, locals)),
                Err(e) if from == 0 => return Err(e),
                Err(_) => {
                    // Where the central directory starts, if the end records say; else all of it.
                    from = crate::archive::central_start(&window).filter(|&start| start < from).unwrap_or(0);
                }
            }
        }
    }

    /// The held part, at its offset in the file.
    pub(crate) fn window(&self) -> Window<'_> {
        Window::tail(&self.tail, self.len as usize)
    }

    /// Checks entry `e`'s local header (and data descriptor), reading them from the file, and
    /// returns where its data starts.
    pub(crate) fn check_local(&self, local: &LocalRef, e: &Entry) -> Result<u64, Error> {
        let path = Path::new(&e.path);
        let (start, limit) = (local.header_offset(), local.limit());
        let room = limit.saturating_sub(start);
        let mut header = read_at(&self.file, start, room.min(30 + local.name_len() as u64 + EXTRA_GUESS), path)?;
        if header.len() >= 30 {
            let whole = 30
                + u64::from(u16::from_le_bytes([header[26], header[27]]))
                + u64::from(u16::from_le_bytes([header[28], header[29]]));
            if whole > header.len() as u64 && whole <= room {
                header = read_at(&self.file, start, whole, path)?;
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
                descriptor = read_at(&self.file, end, (limit - end).min(24), path)?;
                descriptor_at = end;
            }
        }
        let window =
            Window::parts((to_usize(start)?, &header), (to_usize(descriptor_at)?, &descriptor), to_usize(self.len)?);
        check_local(&self.window(), &window, local, e)
    }

    /// Fills `out` with the bytes at `offset`: all of them, or an error saying the file changed.
    /// Straight into `out`, which may be uninitialised (a caller's buffer), with no zeroing first.
    pub(crate) fn read_exact_at(&self, offset: u64, out: &mut [MaybeUninit<u8>], entry: &str) -> Result<(), Error> {
        let mut done = 0;
        while done < out.len() {
            let rest = &mut out[done..];
            // SAFETY: `rest` is valid for writes of its length; pread writes at most that many
            // bytes and never reads them, so uninitialised memory is fine.
            let n = unsafe {
                libc::pread(
                    std::os::fd::AsRawFd::as_raw_fd(&self.file),
                    rest.as_mut_ptr().cast(),
                    rest.len(),
                    (offset + done as u64) as libc::off_t,
                )
            };
            match n {
                0 => return Err(Error::malformed_entry("the archive shrank since it was opened", entry)),
                n if n < 0 => {
                    let err = std::io::Error::last_os_error();
                    if err.kind() != std::io::ErrorKind::Interrupted {
                        return Err(Error::io("reading", Path::new(entry), err));
                    }
                }
                n => done += n as usize,
            }
        }
        Ok(())
    }

    /// The open file, for streaming reads.
    pub(crate) fn file(&self) -> &File {
        &self.file
    }
}

/// `len` bytes at `offset`, fewer only at the end of the file.
fn read_at(file: &File, offset: u64, len: u64, path: &Path) -> Result<Vec<u8>, Error> {
    let mut buf = Vec::new();
    let len = to_usize(len)?;
    buf.try_reserve_exact(len).map_err(|_| Error::io("reading", path, std::io::ErrorKind::OutOfMemory.into()))?;
    buf.resize(len, 0);
    let mut done = 0;
    while done < len {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io("reading", path, e)),
        }
    }
    buf.truncate(done);
    Ok(buf)
}

fn to_usize(v: u64) -> Result<usize, Error> {
    usize::try_from(v).map_err(|_| Error::malformed("the archive is larger than this system's address space"))
}
