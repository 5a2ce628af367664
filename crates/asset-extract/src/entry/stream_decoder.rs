//! One entry's bytes as a stream in bounded memory, checked as they go ([`EntryDecoder`]):
//! deflate through strided-inflate's chunked decoder, fed from memory or in pieces from the
//! source; stored bytes copied; Deflate64, bzip2, LZMA, Zstandard and XZ through their decoders
//! in [`methods`]. [`decoding`](crate::entry::decode::decoding) chooses it for every reader that
//! streams an entry.

use strided_inflate::{ChunkedInflater, Format};

use crate::Error;
use crate::entry::checks::{Trailing, check_stream_end, size_mismatch};
use crate::entry::methods;
use crate::entry::source::Input;
use crate::read::entry::{Entry, Method};

/// Output a reader's own chunked decoder hands out at a time: its memory is this plus 32 KiB of
/// history.
pub(crate) const READER_CHUNK: usize = 64 << 10;

/// Compressed bytes read from a source at a time while inflating, at first: reads double from
/// this to [`MAX_PIECE`], so a small entry costs a small read and a large one few reads.
const FIRST_PIECE: usize = 32 << 10;
const MAX_PIECE: usize = 256 << 10;

/// The chunked decoder an [`EntryDecoder`] inflates with: its own, or one its caller keeps from
/// entry to entry.
pub(crate) enum Inflater<'a, 'w> {
    Owned(Box<ChunkedInflater<'a>>),
    Lent(&'w mut ChunkedInflater<'a>),
}

impl<'a> std::ops::Deref for Inflater<'a, '_> {
    type Target = ChunkedInflater<'a>;
    fn deref(&self) -> &ChunkedInflater<'a> {
        match self {
            Inflater::Owned(d) => d,
            Inflater::Lent(d) => d,
        }
    }
}

impl<'a> std::ops::DerefMut for Inflater<'a, '_> {
    fn deref_mut(&mut self) -> &mut ChunkedInflater<'a> {
        match self {
            Inflater::Owned(d) => d,
            Inflater::Lent(d) => d,
        }
    }
}

/// How an entry is decoded, chosen once by [`EntryDecoder::new`].
enum How<'a, 'w> {
    /// Stored: copied from the compressed bytes, `at` of them done.
    Copy { input: Input<'a>, at: u64 },
    /// Deflate: the chunked decoder, fed from memory or in pieces; `handed` bytes of its last
    /// chunk already copied out.
    Inflate { inflater: Inflater<'a, 'w>, input: Input<'a>, fed: u64, piece: usize, handed: usize, ended: bool },
    /// The other methods, and the compressed bytes the decoder has taken.
    Decode(methods::Decoded<'a>, methods::Taken),
}

/// One entry's bytes as a stream in bounded memory, checked as they go: the size, the CRC-32 and
/// the stream's end when the last byte is out (see [`finish`](Self::finish)).
pub(crate) struct EntryDecoder<'a, 'w> {
    entry: &'a Entry,
    how: How<'a, 'w>,
    crc: strided_inflate::Crc32,
    produced: u64,
    trailing: Trailing,
    /// Set once the end has been checked.
    finished: bool,
}

impl<'a, 'w> EntryDecoder<'a, 'w> {
    /// The decoder for entry `e`, whose compressed bytes are `input`: its method chooses it. A
    /// deflated entry inflates with `inflater` when given (a caller's, kept between entries),
    /// else with a decoder of its own.
    pub(crate) fn new(
        input: Input<'a>,
        e: &'a Entry,
        inflater: Option<&'w mut ChunkedInflater<'a>>,
    ) -> Result<Self, Error> {
        let how = match e.method {
            Method::Stored => How::Copy { input, at: 0 },
            Method::Deflate => {
                let mut inflater = match inflater {
                    Some(lent) => Inflater::Lent(lent),
                    None => Inflater::Owned(Box::new(ChunkedInflater::with_chunk_size(Format::Raw, READER_CHUNK))),
                };
                match input {
                    Input::Slice(bytes) => inflater.start(bytes),
                    Input::Range { .. } => inflater.start_fed(),
                }
                How::Inflate { inflater, input, fed: 0, piece: FIRST_PIECE, handed: 0, ended: false }
            }
            _ => {
                let (decoder, taken) = match input {
                    Input::Slice(bytes) => methods::decoder(e, Box::new(bytes))?,
                    Input::Range { source, offset, len } => {
                        let path = &e.path;
                        let range = methods::Range::new(offset, len, move |pos, buf: &mut [u8]| {
                            crate::entry::source::read_some(source, pos, buf, path)
                        });
                        methods::decoder(e, Box::new(std::io::BufReader::with_capacity(methods::INPUT_BUFFER, range)))?
                    }
                };
                How::Decode(decoder, taken)
            }
        };
        Ok(EntryDecoder {
            entry: e,
            how,
            crc: strided_inflate::Crc32::new(),
            produced: 0,
            trailing: Trailing::Read,
            finished: false,
        })
    }

    /// Decodes with `rule` for bytes after the entry's stream (by default they are read past).
    pub(crate) fn with_trailing(mut self, rule: Trailing) -> Self {
        self.trailing = rule;
        self
    }

    /// The entry being decoded.
    pub(crate) fn entry(&self) -> &'a Entry {
        self.entry
    }

    /// The chunked decoder, for a deflated entry: to record checkpoints, or take its window.
    pub(crate) fn inflater(&mut self) -> Option<&mut ChunkedInflater<'a>> {
        match &mut self.how {
            How::Inflate { inflater, .. } => Some(&mut **inflater),
            _ => None,
        }
    }

    /// The compressed bytes the entry's stream has taken so far: where it ended, once it has.
    fn consumed(&self) -> u64 {
        match &self.how {
            How::Copy { input, .. } => input.len(),
            How::Inflate { inflater, .. } => inflater.consumed() as u64,
            How::Decode(_, taken) => taken.get(),
        }
    }

    /// Feeds a fed decoder as long as it wants input.
    fn feed(&mut self) -> Result<(), Error> {
        let path = &self.entry.path;
        let How::Inflate { inflater, input: Input::Range { source, offset, len }, fed, piece, .. } = &mut self.how
        else {
            return Ok(());
        };
        while inflater.wants_input() {
            if *fed == *len {
                inflater.end_input();
                break;
            }
            let n = (*len - *fed).min(*piece as u64) as usize;
            let at = *offset + *fed;
            *fed += inflater
                .feed_with(n, |room| crate::entry::source::read_exact(*source, at, room, path).map(|()| n))?
                as u64;
            *piece = (*piece * 2).min(MAX_PIECE);
        }
        Ok(())
    }

    /// For a deflated entry: inflates its next chunk, counted and hashed. Returns where the chunk
    /// starts in the entry (take it from [`inflater`](Self::inflater): `last_chunk`, or
    /// `swap_window`), or `None` once the entry has ended and checked.
    pub(crate) fn next_chunk(&mut self) -> Result<Option<u64>, Error> {
        self.feed()?;
        let How::Inflate { inflater, ended, .. } = &mut self.how else {
            unreachable!("next_chunk is for deflated entries");
        };
        let offset = inflater.total_out();
        let chunk = match inflater.next_chunk() {
            Ok(Some(chunk)) => chunk,
            Ok(None) => {
                *ended = true;
                self.finish()?;
                return Ok(None);
            }
            Err(source) => return Err(Error::Data { entry: self.entry.path.clone(), source }),
        };
        self.produced += chunk.len() as u64;
        if self.produced > self.entry.size {
            return Err(self.past_size());
        }
        self.crc.update(chunk);
        Ok(Some(offset))
    }

    /// Copies the entry's next bytes into `buf` and returns how many, counted and hashed; `Ok(0)`
    /// once the entry has ended and checked.
    pub(crate) fn read(&mut self, buf: &mut [u8]) -> Result<usize, Error> {
        if self.finished || buf.is_empty() {
            return Ok(0);
        }
        let path = &self.entry.path;
        let n = loop {
            match &mut self.how {
                How::Copy { input, at } => {
                    let n = buf.len().min((input.len() - *at) as usize);
                    let n = match input {
                        Input::Slice(bytes) => {
                            buf[..n].copy_from_slice(&bytes[*at as usize..*at as usize + n]);
                            n
                        }
                        Input::Range { source, offset, .. } => {
                            crate::entry::source::read_some(*source, *offset + *at, &mut buf[..n], path)?
                        }
                    };
                    *at += n as u64;
                    break n;
                }
                How::Inflate { inflater, handed, ended, .. } => {
                    let chunk = inflater.last_chunk();
                    if *handed < chunk.len() {
                        let n = buf.len().min(chunk.len() - *handed);
                        buf[..n].copy_from_slice(&chunk[*handed..*handed + n]);
                        *handed += n;
                        break n;
                    }
                    if *ended {
                        break 0;
                    }
                    if inflater.wants_input() {
                        self.feed()?;
                        continue;
                    }
                    match inflater.next_chunk() {
                        Ok(Some(_)) => *handed = 0,
                        Ok(None) => *ended = true,
                        Err(source) => return Err(Error::Data { entry: path.clone(), source }),
                    }
                }
                How::Decode(decoder, _) => match std::io::Read::read(decoder, buf) {
                    Ok(n) => break n,
                    Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(err) => return Err(methods::read_error(self.entry, err)),
                },
            }
        };
        self.counted(buf, n)
    }

    /// Counts and hashes the `n` bytes just copied into `buf`; at the end (`n == 0`), the checks.
    fn counted(&mut self, buf: &[u8], n: usize) -> Result<usize, Error> {
        self.produced += n as u64;
        if self.produced > self.entry.size {
            return Err(self.past_size());
        }
        self.crc.update(&buf[..n]);
        if n == 0 {
            self.finish()?;
        }
        Ok(n)
    }

    fn past_size(&self) -> Error {
        size_mismatch(self.entry, None)
    }

    /// Checks the whole entry once its last byte is out: its size, its CRC-32, and what follows
    /// its stream.
    fn finish(&mut self) -> Result<(), Error> {
        let e = self.entry;
        if self.produced != e.size {
            return Err(size_mismatch(e, Some(self.produced)));
        }
        if self.crc.finalize() != e.crc32 {
            return Err(Error::Crc { entry: e.path.clone() });
        }
        check_stream_end(e, self.consumed(), self.trailing)?;
        self.finished = true;
        Ok(())
    }

    /// Fills `out`, exactly the entry's size, with the whole entry, and checks its end.
    pub(crate) fn fill_exactly(mut self, out: &mut [u8]) -> Result<(), Error> {
        let mut filled = 0;
        while filled < out.len() {
            match self.read(&mut out[filled..])? {
                0 => break, // ended early: read has refused it
                n => filled += n,
            }
        }
        // One more read: past the size it fails, at the end it runs the checks.
        self.read(&mut [0u8; 1]).map(|_| ())
    }
}
