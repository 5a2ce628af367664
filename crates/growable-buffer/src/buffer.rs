//! The buffer itself: storage chosen by policy, a capacity limit, and counters.

use std::io::{self, IoSlice, Write};

use buffer_pool::BufferPool;

use crate::copy::copy_bytes;
use crate::raw::{RawBytes, Strategy};
use crate::segmented::Segments;
use crate::{Error, Growth, Stats};

/// How a [`GrowableBuffer`] is built.
///
/// ```
/// use growable_buffer::{Config, GrowableBuffer, Growth};
///
/// let config = Config { growth: Growth::Geometric { factor: 1.5 }, max_capacity: 1 << 20, ..Config::default() };
/// let mut buf = GrowableBuffer::with_config(config)?;
/// assert!(buf.append(&vec![0u8; 2 << 20]).is_err()); // over the limit: refused, nothing lost
/// # Ok::<(), growable_buffer::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// How the buffer grows. Default: geometric ×2.
    pub growth: Growth,
    /// The most bytes the buffer may ever hold; growth past it is an error. Default: `isize::MAX`.
    /// A segmented buffer allocates whole chunks, so its memory may pass this by less than a chunk.
    pub max_capacity: usize,
    /// Capacity allocated up front. Default: 0 (allocate on first append).
    pub initial_capacity: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config { growth: Growth::default(), max_capacity: isize::MAX as usize, initial_capacity: 0 }
    }
}

enum Storage {
    Contiguous { raw: RawBytes, len: usize },
    Segmented(Segments),
}

/// An append-only byte buffer whose growth policy you choose and whose cost you can read back.
///
/// Not thread-safe for concurrent mutation (it is `Send` and `Sync` like `Vec<u8>`).
///
/// ```
/// use growable_buffer::GrowableBuffer;
///
/// let mut buf = GrowableBuffer::new();
/// for word in ["never ", "quadratic"] {
///     buf.append(word.as_bytes())?;
/// }
/// assert_eq!(buf.contiguous()?, b"never quadratic");
/// assert!(buf.stats().bytes_copied <= buf.len() as u64);
/// # Ok::<(), growable_buffer::Error>(())
/// ```
pub struct GrowableBuffer {
    storage: Storage,
    growth: Growth,
    max_capacity: usize,
    stats: Stats,
}

impl Default for GrowableBuffer {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for GrowableBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GrowableBuffer").field("growth", &self.growth).field("stats", &self.stats()).finish()
    }
}

impl GrowableBuffer {
    /// An empty buffer with the default policy (geometric ×2) and no practical limit.
    pub fn new() -> Self {
        GrowableBuffer {
            storage: Storage::Contiguous { raw: RawBytes::new(), len: 0 },
            growth: Growth::default(),
            max_capacity: isize::MAX as usize,
            stats: Stats::default(),
        }
    }

    /// An empty buffer with the given policy and no practical limit.
    pub fn with_growth(growth: Growth) -> Result<Self, Error> {
        Self::with_config(Config { growth, ..Config::default() })
    }

    /// A buffer built from `config`; fails if the policy is invalid or the initial capacity
    /// exceeds the limit or cannot be allocated.
    pub fn with_config(config: Config) -> Result<Self, Error> {
        config.growth.validate()?;
        let storage = match config.growth {
            Growth::Segmented { chunk_size } => {
                Storage::Segmented(Segments::new(chunk_size, config.max_capacity, None))
            }
            _ => Storage::Contiguous { raw: RawBytes::new(), len: 0 },
        };
        Self::build(config, storage)
    }

    fn build(config: Config, storage: Storage) -> Result<Self, Error> {
        let mut buf = GrowableBuffer {
            storage,
            growth: config.growth,
            max_capacity: config.max_capacity,
            stats: Stats::default(),
        };
        if config.initial_capacity > 0 {
            buf.reserve(config.initial_capacity)?;
            buf.stats = Stats::default();
        }
        Ok(buf)
    }

    /// A segmented buffer whose chunks come from `pool` and go back to it when the buffer is
    /// dropped, so building and dropping buffers over and over touches no fresh pages.
    /// `config.growth` must be [`Growth::Segmented`] (else [`Error::InvalidConfig`]); a chunk size
    /// that is one of the pool's classes wastes nothing.
    ///
    /// ```
    /// use buffer_pool::{BufferPool, PoolConfig};
    /// use growable_buffer::{Config, GrowableBuffer, Growth};
    ///
    /// let pool = BufferPool::new(PoolConfig::default()).unwrap();
    /// let config = Config { growth: Growth::Segmented { chunk_size: 64 * 1024 }, ..Config::default() };
    /// for _ in 0..10 {
    ///     let mut message = GrowableBuffer::with_pool(config, pool.clone())?;
    ///     message.append(&[7u8; 200_000])?; // 4 chunks
    /// } // chunks go back to the pool
    /// assert_eq!(pool.stats().misses(), 4); // only the first message allocated
    /// # Ok::<(), growable_buffer::Error>(())
    /// ```
    pub fn with_pool(config: Config, pool: BufferPool) -> Result<Self, Error> {
        config.growth.validate()?;
        let Growth::Segmented { chunk_size } = config.growth else {
            return Err(Error::InvalidConfig("only segmented buffers draw chunks from a pool"));
        };
        Self::build(config, Storage::Segmented(Segments::new(chunk_size, config.max_capacity, Some(pool))))
    }

    /// The growth policy in force (after [`flatten`](Self::flatten) a segmented buffer reports geometric).
    pub fn growth(&self) -> Growth {
        self.growth
    }

    /// The configured capacity limit.
    pub fn max_capacity(&self) -> usize {
        self.max_capacity
    }

    /// Bytes held.
    pub fn len(&self) -> usize {
        match &self.storage {
            Storage::Contiguous { len, .. } => *len,
            Storage::Segmented(s) => s.len(),
        }
    }

    /// Whether no bytes are held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn capacity(&self) -> usize {
        match &self.storage {
            Storage::Contiguous { raw, .. } => raw.capacity(),
            Storage::Segmented(s) => s.capacity(),
        }
    }

    /// The counters, with the current length and capacity filled in.
    pub fn stats(&self) -> Stats {
        Stats { len: self.len(), capacity: self.capacity(), ..self.stats }
    }

    /// Makes sure `additional` more bytes fit without growing again. A total past `isize::MAX`
    /// (what no allocation can hold) is [`Error::LengthOverflow`] whatever the limit; past
    /// [`max_capacity`](Self::max_capacity), [`Error::CapacityExceeded`]; memory the system
    /// refuses, [`Error::AllocFailed`].
    pub fn reserve(&mut self, additional: usize) -> Result<(), Error> {
        let len = self.len();
        let needed = len
            .checked_add(additional)
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or(Error::LengthOverflow { len, additional })?;
        // The limit first: a segmented buffer's last chunk can have room past it.
        if needed > self.max_capacity {
            return Err(Error::CapacityExceeded { requested: needed, limit: self.max_capacity });
        }
        if needed <= self.capacity() {
            return Ok(());
        }
        self.grow_for(needed, additional)
    }

    #[cold]
    #[inline(never)]
    fn grow_for(&mut self, needed: usize, additional: usize) -> Result<(), Error> {
        let growth = self.growth;
        let max = self.max_capacity;
        match &mut self.storage {
            Storage::Contiguous { raw, len } => {
                let target = growth.next_capacity(raw.capacity(), needed).min(max);
                let strategy = if growth.grows_in_place() { Strategy::InPlace } else { Strategy::AllocateCopy };
                let relocation = raw.resize(target, max, *len, strategy)?;
                self.stats.grows += 1;
                self.stats.moves += u64::from(relocation.moved);
                self.stats.bytes_copied += relocation.bytes_copied as u64;
            }
            Storage::Segmented(segments) => {
                // The limit is on bytes held (checked by `reserve`): the last chunk is a whole
                // chunk even when only part of it may ever be filled.
                debug_assert!(segments.len() + additional <= max);
                self.stats.grows += segments.reserve(additional)?;
            }
        }
        Ok(())
    }

    /// Appends `data`. On error nothing is appended and nothing already held is lost.
    #[inline]
    pub fn append(&mut self, data: &[u8]) -> Result<(), Error> {
        if let Storage::Contiguous { raw, len } = &mut self.storage
            && raw.capacity() - *len >= data.len()
        {
            // SAFETY: capacity - len ≥ data.len(), so the destination range is inside the block,
            // and `data` cannot alias a block this buffer owns exclusively behind &mut self.
            unsafe { copy_bytes(data.as_ptr(), raw.as_mut_ptr().add(*len), data.len()) };
            *len += data.len();
            return Ok(());
        }
        if let Storage::Segmented(segments) = &mut self.storage
            && segments.append_within_current(data)
        {
            return Ok(());
        }
        self.append_slow(data)
    }

    #[inline(never)]
    fn append_slow(&mut self, data: &[u8]) -> Result<(), Error> {
        self.reserve(data.len())?;
        match &mut self.storage {
            Storage::Contiguous { raw, len } => {
                // SAFETY: reserve guaranteed capacity - len ≥ data.len(); `data` cannot alias our block.
                unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), raw.as_mut_ptr().add(*len), data.len()) };
                *len += data.len();
            }
            Storage::Segmented(segments) => segments.append_reserved(data),
        }
        Ok(())
    }

    /// The room right after the bytes held, as uninitialised memory, without growing: all of a
    /// contiguous buffer's spare capacity, or the rest of a segmented buffer's current chunk
    /// (empty when it is full), never past [`max_capacity`](Self::max_capacity). Bytes written
    /// there join the buffer with [`commit`](Self::commit); [`reserve`](Self::reserve) first to
    /// have room. What a caller that formats or encodes in place needs, without a copy.
    ///
    /// ```
    /// use std::mem::MaybeUninit;
    /// use growable_buffer::GrowableBuffer;
    ///
    /// let mut buf = GrowableBuffer::new();
    /// buf.append(b"len=")?;
    /// buf.reserve(20)?;
    /// let digits = 1234u32.to_string();
    /// let spare = buf.spare_capacity_mut();
    /// for (slot, &digit) in spare.iter_mut().zip(digits.as_bytes()) {
    ///     *slot = MaybeUninit::new(digit);
    /// }
    /// // SAFETY: the first 4 bytes of the spare room were just written, and nothing else changed.
    /// unsafe { buf.commit(digits.len()) };
    /// assert_eq!(buf.contiguous()?, b"len=1234");
    /// # Ok::<(), growable_buffer::Error>(())
    /// ```
    pub fn spare_capacity_mut(&mut self) -> &mut [std::mem::MaybeUninit<u8>] {
        let allowed = self.max_capacity.saturating_sub(self.len());
        let spare = match &mut self.storage {
            Storage::Contiguous { raw, len } => {
                let room = raw.capacity() - *len;
                // SAFETY: the block holds `capacity` bytes, the first `len` of them held; the rest
                // is ours behind &mut self, seen as MaybeUninit so nothing about it is assumed.
                unsafe { std::slice::from_raw_parts_mut(raw.as_mut_ptr().add(*len).cast(), room) }
            }
            Storage::Segmented(s) => s.spare_mut(),
        };
        let room = spare.len().min(allowed);
        &mut spare[..room]
    }

    /// Adds the first `n` bytes of the room [`spare_capacity_mut`](Self::spare_capacity_mut)
    /// returned to the bytes held. Not counted as a copy: the caller wrote them in place.
    ///
    /// # Safety
    /// `n` is at most the length of the slice the last `spare_capacity_mut` returned, nothing
    /// else changed the buffer since, and the first `n` bytes of that slice have been written.
    pub unsafe fn commit(&mut self, n: usize) {
        match &mut self.storage {
            Storage::Contiguous { raw, len } => {
                debug_assert!(n <= raw.capacity() - *len);
                *len += n;
            }
            // SAFETY: per this function's contract, which is the segments' too.
            Storage::Segmented(s) => unsafe { s.commit(n) },
        }
    }

    /// Forgets the bytes but keeps the capacity (and the counters).
    pub fn clear(&mut self) {
        match &mut self.storage {
            Storage::Contiguous { len, .. } => *len = 0,
            Storage::Segmented(s) => s.clear(),
        }
    }

    /// Forgets the bytes past the first `len` (nothing, if it holds no more); keeps the capacity
    /// and the counters. Undoes appends, e.g. of a message found malformed halfway through.
    ///
    /// ```
    /// let mut buf = growable_buffer::GrowableBuffer::new();
    /// buf.append(b"kept, ")?;
    /// buf.append(b"undone")?;
    /// buf.truncate(4);
    /// assert_eq!(buf.contiguous()?, b"kept");
    /// # Ok::<(), growable_buffer::Error>(())
    /// ```
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len() {
            return;
        }
        match &mut self.storage {
            Storage::Contiguous { len: held, .. } => *held = len,
            Storage::Segmented(s) => s.truncate(len),
        }
    }

    /// The bytes as one slice; [`Error::NotContiguous`] for a segmented buffer that has not been flattened.
    pub fn contiguous(&self) -> Result<&[u8], Error> {
        match &self.storage {
            // SAFETY: the first `len` bytes of the block were written by appends.
            Storage::Contiguous { raw, len } => Ok(unsafe { std::slice::from_raw_parts(raw.as_ptr(), *len) }),
            Storage::Segmented(_) => Err(Error::NotContiguous),
        }
    }

    /// The bytes as a sequence of non-empty slices (one for a contiguous buffer, none when empty).
    pub fn segments(&self) -> impl Iterator<Item = &[u8]> {
        let (single, chunks) = match &self.storage {
            Storage::Contiguous { .. } => (self.contiguous().ok().filter(|s| !s.is_empty()), None),
            Storage::Segmented(s) => (None, Some(s.iter())),
        };
        single.into_iter().chain(chunks.into_iter().flatten())
    }

    /// How many slices [`segments`](Self::segments) yields.
    pub fn segment_count(&self) -> usize {
        match &self.storage {
            Storage::Contiguous { len, .. } => usize::from(*len > 0),
            Storage::Segmented(s) => s.segment_count(),
        }
    }

    /// Slice number `index` of [`segments`](Self::segments), without walking the others.
    pub fn segment(&self, index: usize) -> Option<&[u8]> {
        match &self.storage {
            Storage::Contiguous { .. } => self.contiguous().ok().filter(|s| index == 0 && !s.is_empty()),
            Storage::Segmented(s) => s.segment(index),
        }
    }

    /// Copies bytes starting at `offset` into `dst`; returns how many (fewer than `dst.len()` at the end).
    pub fn copy_to(&self, offset: usize, dst: &mut [u8]) -> Result<usize, Error> {
        // SAFETY: initialised bytes are valid MaybeUninit<u8>s, and copy_to_uninit only writes
        // initialised bytes into them, so `dst` stays initialised.
        let dst = unsafe { &mut *(std::ptr::from_mut(dst) as *mut [std::mem::MaybeUninit<u8>]) };
        self.copy_to_uninit(offset, dst)
    }

    /// Like [`copy_to`](Self::copy_to), into memory that may be uninitialised (a C caller's
    /// `malloc`, a fresh Erlang binary): the first `n` bytes are initialised on return.
    pub fn copy_to_uninit(&self, offset: usize, dst: &mut [std::mem::MaybeUninit<u8>]) -> Result<usize, Error> {
        let len = self.len();
        if offset > len {
            return Err(Error::OffsetOutOfRange { offset, len });
        }
        Ok(match &self.storage {
            Storage::Contiguous { .. } => {
                let src = &self.contiguous()?[offset..];
                let n = src.len().min(dst.len());
                crate::copy::write_bytes(&mut dst[..n], &src[..n]);
                n
            }
            Storage::Segmented(s) => s.copy_to(offset, dst),
        })
    }

    /// Makes a segmented buffer contiguous with one copy of its bytes (counted in `bytes_copied`);
    /// later appends grow it geometrically. Does nothing to a contiguous buffer.
    pub fn flatten(&mut self) -> Result<(), Error> {
        let Storage::Segmented(segments) = &self.storage else { return Ok(()) };
        let len = segments.len();
        let mut raw = RawBytes::with_capacity(len, self.max_capacity)?;
        let copied = segments.copy_to(0, {
            // SAFETY: the block holds `len` bytes, uninitialised (hence MaybeUninit); copy_to writes
            // them all before anything reads them.
            unsafe { std::slice::from_raw_parts_mut(raw.as_mut_ptr().cast::<std::mem::MaybeUninit<u8>>(), len) }
        });
        debug_assert_eq!(copied, len);
        self.storage = Storage::Contiguous { raw, len };
        self.growth = Growth::default();
        self.stats.bytes_copied += len as u64;
        self.stats.moves += u64::from(len > 0);
        Ok(())
    }

    /// The bytes as a `Vec` (one copy; not counted, the buffer itself is unchanged).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        for s in self.segments() {
            out.extend_from_slice(s);
        }
        out
    }

    /// Writes every byte to `w` with vectored writes (`writev` for files and sockets): the segments go
    /// out as they are, with no copy. Returns the bytes written.
    ///
    /// ```
    /// use growable_buffer::{GrowableBuffer, Growth};
    ///
    /// let mut buf = GrowableBuffer::with_growth(Growth::Segmented { chunk_size: 4096 })?;
    /// buf.append(&[1u8; 10_000])?;
    /// let mut sink = Vec::new();
    /// assert_eq!(buf.write_all_to(&mut sink).unwrap(), 10_000);
    /// assert_eq!(buf.stats().bytes_copied, 0);
    /// # Ok::<(), growable_buffer::Error>(())
    /// ```
    pub fn write_all_to<W: Write + ?Sized>(&self, w: &mut W) -> io::Result<usize> {
        const BATCH: usize = 512; // below every platform's IOV_MAX
        let mut written = 0;
        let mut all = self.segments().peekable();
        let mut batch: Vec<IoSlice<'_>> = Vec::with_capacity(BATCH.min(self.segment_count()));
        while all.peek().is_some() {
            batch.clear();
            batch.extend(all.by_ref().take(BATCH).map(IoSlice::new));
            let mut slices = &mut batch[..];
            while !slices.is_empty() {
                match w.write_vectored(slices) {
                    Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                    Ok(n) => {
                        written += n;
                        IoSlice::advance_slices(&mut slices, n);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(written)
    }
}
