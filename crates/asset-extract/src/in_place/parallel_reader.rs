//! An entry inflated on several cores, read as a stream: a thread of its own runs the parallel
//! decoder and hands its output, in pieces, to the reader through a channel two pieces deep.

#![forbid(unsafe_code)]

use std::io;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::{AssetArchive, Error};

/// An entry as an [`io::Read`], inflated on several cores, from
/// [`AssetArchive::parallel_reader`]. Its bytes are serial decoding's, and its checks those of an
/// [`EntryReader`](crate::EntryReader): they run at the entry's end, and a failure makes the read
/// that would return 0 fail (and every later one).
pub struct ParallelReader {
    pieces: Option<Receiver<Message>>,
    /// The piece being handed out, and how much of it has been.
    piece: Vec<u8>,
    at: usize,
    /// Pieces handed out, for the decoding thread to fill again (fresh megabytes cost their
    /// page faults).
    spare: Arc<Mutex<Vec<Vec<u8>>>>,
    ended: bool,
    failed: Option<Error>,
    thread: Option<JoinHandle<()>>,
    /// The entry's name, for the error of a decoding thread that died.
    entry: String,
    /// The cores it decodes on.
    cores: usize,
}

impl std::fmt::Debug for ParallelReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParallelReader").field("ended", &self.ended).finish_non_exhaustive()
    }
}

/// What the decoding thread sends: the entry's next bytes, its end (every check passed), or why
/// it failed. A thread that ends without sending `End` or `Failed` died: the entry is not ended.
enum Message {
    Piece(Vec<u8>),
    End,
    Failed(Error),
}

/// Pieces of output handed to the reader at a time, at most.
const PIECE: usize = 1 << 20;

impl ParallelReader {
    /// Starts inflating entry `index` of `archive` on a thread of its own.
    pub(crate) fn start(archive: Arc<AssetArchive>, index: usize, cores: usize) -> ParallelReader {
        let entry = archive.entries()[index].path.clone();
        let (tx, rx): (SyncSender<Message>, _) = sync_channel(2);
        let spare = Arc::new(Mutex::new(Vec::new()));
        let spare_for_thread = Arc::clone(&spare);
        let thread = std::thread::spawn(move || {
            let outcome = archive.copy_to(index, &mut |bytes: &[u8]| {
                // chunks() of an empty slice yields nothing: no piece is ever empty.
                for part in bytes.chunks(PIECE) {
                    let mut piece: Vec<u8> =
                        spare_for_thread.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default();
                    piece.clear();
                    piece.extend_from_slice(part);
                    // The reader gone (dropped early): stop decoding.
                    tx.send(Message::Piece(piece)).map_err(|_| Error::Cancelled)?;
                }
                Ok(())
            });
            // The reader may be gone: then nobody is waiting for the outcome.
            let _ = tx.send(match outcome {
                Ok(()) => Message::End,
                Err(e) => Message::Failed(e),
            });
        });
        ParallelReader {
            pieces: Some(rx),
            piece: Vec::new(),
            at: 0,
            spare,
            ended: false,
            failed: None,
            thread: Some(thread),
            entry,
            cores,
        }
    }

    /// Copies the entry's next bytes into `buf` and returns how many; `Ok(0)` at the end, once
    /// the checks have passed. The same as [`io::Read::read`], with the error as an [`Error`].
    /// Waits for the decoding threads only when no decoded byte is at hand (see
    /// [`wait`](Self::wait)).
    pub fn read_checked(&mut self, buf: &mut [u8]) -> Result<usize, Error> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.wait()?;
        let n = buf.len().min(self.piece.len() - self.at);
        buf[..n].copy_from_slice(&self.piece[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }

    /// The cores the entry is inflated on (as many decoding threads).
    pub fn cores(&self) -> usize {
        self.cores
    }

    /// Waits until the next read can return without waiting: until decoded bytes are at hand,
    /// the entry has ended with every check passed, or it has failed (the error, as the next
    /// read would return it). For a caller that reads where waiting is costly.
    pub fn wait(&mut self) -> Result<(), Error> {
        if let Some(first) = &self.failed {
            return Err(first.again());
        }
        if self.at < self.piece.len() || self.ended {
            return Ok(());
        }
        let next = match self.pieces.as_ref().map(Receiver::recv) {
            Some(Ok(message)) => message,
            // The decoding thread ended without a word: it panicked. Never a short entry.
            Some(Err(_)) | None => Message::Failed(Error::Io {
                action: "inflating on several cores",
                path: self.entry.clone(),
                source: io::Error::other("the decoding thread stopped before the entry's end"),
            }),
        };
        match next {
            // Pieces are never empty: the decoder hands over no empty output.
            Message::Piece(piece) => {
                let done = std::mem::replace(&mut self.piece, piece);
                self.at = 0;
                if done.capacity() > 0 {
                    self.spare.lock().unwrap_or_else(|e| e.into_inner()).push(done);
                }
                Ok(())
            }
            Message::Failed(e) => {
                self.failed = Some(e.again());
                Err(e)
            }
            // The decoding thread is done, and checked everything.
            Message::End => {
                self.ended = true;
                Ok(())
            }
        }
    }
}

impl io::Read for ParallelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.read_checked(buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}

impl Drop for ParallelReader {
    fn drop(&mut self) {
        // The channel first: a decoding thread blocked on it stops at its next piece.
        self.pieces = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
