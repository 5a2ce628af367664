//! An archive's bytes as extraction reads them: in memory (handed over, or mapped by the caller's
//! choice), or in the file, read with `pread` only where a selected entry lies.

use std::mem::MaybeUninit;
use std::path::Path;

use crate::Error;
use crate::pread::PreadFile;

/// Where the archive's bytes are.
#[derive(Clone, Copy)]
pub(crate) enum Source<'a> {
    /// All of it, in memory or mapped.
    Memory(&'a [u8]),
    /// In the file: nothing is held but its central directory.
    File(&'a PreadFile),
}

impl<'a> Source<'a> {
    /// The `len` bytes at `offset`, when they are in memory.
    pub(crate) fn span(&self, offset: u64, len: u64) -> Option<&'a [u8]> {
        match self {
            Source::Memory(data) => Some(&data[offset as usize..(offset + len) as usize]),
            Source::File(_) => None,
        }
    }

    /// Fills `out` with the bytes at `offset`, or fails saying the archive changed.
    pub(crate) fn read_exact_at(&self, offset: u64, out: &mut [u8], entry: &str) -> Result<(), Error> {
        match self {
            Source::Memory(data) => {
                out.copy_from_slice(&data[offset as usize..offset as usize + out.len()]);
                Ok(())
            }
            Source::File(file) => {
                // SAFETY: every u8 is a valid MaybeUninit<u8>, and read_exact_at writes only bytes.
                let uninit = unsafe { &mut *(std::ptr::from_mut(out) as *mut [MaybeUninit<u8>]) };
                file.read_exact_at(offset, uninit, entry)
            }
        }
    }

    /// Fails if the file changed since it was opened (nothing to check for bytes in memory).
    pub(crate) fn check_unchanged(&self, path: &Path) -> Result<(), Error> {
        match self {
            Source::Memory(_) => Ok(()),
            Source::File(file) => file.check_unchanged(path),
        }
    }
}
