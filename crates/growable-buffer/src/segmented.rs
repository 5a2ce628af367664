//! A chain of fixed-size chunks: growth adds a chunk and never copies old bytes. Chunks come from
//! the heap, or from a [`BufferPool`] so that a buffer built and dropped over and over reuses warm
//! memory instead of faulting in fresh pages.

use buffer_pool::{BufferPool, PooledBuffer};

use crate::Error;
use crate::copy::copy_bytes;

/// One chunk's memory and how much of it is filled.
enum Chunk {
    /// `Vec::len` is the filled length; capacity is the chunk size (never reallocated).
    Heap(Vec<u8>),
    /// A pool buffer of at least the chunk size; `len` bytes filled.
    Pooled { buf: PooledBuffer, len: usize },
}

impl Chunk {
    fn len(&self) -> usize {
        match self {
            Chunk::Heap(v) => v.len(),
            Chunk::Pooled { len, .. } => *len,
        }
    }

    fn filled(&self) -> &[u8] {
        match self {
            Chunk::Heap(v) => v,
            Chunk::Pooled { buf, len } => &buf[..*len],
        }
    }

    fn clear(&mut self) {
        match self {
            Chunk::Heap(v) => v.clear(),
            Chunk::Pooled { len, .. } => *len = 0,
        }
    }

    /// Appends `data`, which fits: `len() + data.len() <= chunk_size`.
    #[inline]
    fn push(&mut self, data: &[u8], chunk_size: usize) {
        let used = self.len();
        debug_assert!(used + data.len() <= chunk_size);
        match self {
            Chunk::Heap(v) => {
                // SAFETY: the Vec's capacity is chunk_size ≥ used + data.len(), so the copy lands in
                // its spare capacity and set_len covers only written bytes; no aliasing behind &mut.
                unsafe {
                    copy_bytes(data.as_ptr(), v.as_mut_ptr().add(used), data.len());
                    v.set_len(used + data.len());
                }
            }
            Chunk::Pooled { buf, len } => {
                assert!(used + data.len() <= buf.len());
                // SAFETY: checked just above that the range is inside the pool buffer.
                unsafe { copy_bytes(data.as_ptr(), buf.as_mut_ptr().add(used), data.len()) };
                *len += data.len();
            }
        }
    }
}

/// Chunks of `chunk_size` bytes each; every chunk before `current` is full.
pub(crate) struct Segments {
    chunks: Vec<Chunk>,
    chunk_size: usize,
    /// Index of the chunk that receives the next byte (== chunks.len() when all are full).
    current: usize,
    len: usize,
    /// The most bytes this may hold: the last chunk can have room past it.
    max_len: usize,
    /// Where chunks come from and go back to; `None`: the heap.
    pool: Option<BufferPool>,
}

impl Segments {
    pub(crate) fn new(chunk_size: usize, max_len: usize, pool: Option<BufferPool>) -> Self {
        Segments { chunks: Vec::new(), chunk_size, current: 0, len: 0, max_len, pool }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn capacity(&self) -> usize {
        self.chunks.len() * self.chunk_size
    }

    /// Makes room for `additional` more bytes by adding whole chunks; returns how many were added.
    pub(crate) fn reserve(&mut self, additional: usize) -> Result<u64, Error> {
        let free = self.capacity() - self.len;
        if additional <= free {
            return Ok(0);
        }
        let missing = (additional - free).div_ceil(self.chunk_size);
        self.chunks.try_reserve(missing).map_err(|_| Error::AllocFailed { bytes: missing * size_of::<Chunk>() })?;
        for _ in 0..missing {
            let chunk = match &self.pool {
                Some(pool) => {
                    let buf = pool
                        .acquire_owned(self.chunk_size)
                        .map_err(|_| Error::AllocFailed { bytes: self.chunk_size })?;
                    Chunk::Pooled { buf, len: 0 }
                }
                None => {
                    let mut v = Vec::new();
                    // Uninitialised and never zeroed: only ever written by appends.
                    v.try_reserve_exact(self.chunk_size).map_err(|_| Error::AllocFailed { bytes: self.chunk_size })?;
                    Chunk::Heap(v)
                }
            };
            self.chunks.push(chunk);
        }
        Ok(missing as u64)
    }

    /// Appends `data` if it fits in the current chunk without filling it; false (and nothing
    /// changed) otherwise. The hot path of segmented appends.
    #[inline]
    pub(crate) fn append_within_current(&mut self, data: &[u8]) -> bool {
        let Some(chunk) = self.chunks.get_mut(self.current) else { return false };
        if data.len() >= self.chunk_size - chunk.len() || data.len() > self.max_len - self.len {
            return false;
        }
        chunk.push(data, self.chunk_size);
        self.len += data.len();
        true
    }

    /// Appends `data`; the caller has reserved room for it.
    pub(crate) fn append_reserved(&mut self, mut data: &[u8]) {
        self.len += data.len();
        while !data.is_empty() {
            let chunk = &mut self.chunks[self.current];
            let take = (self.chunk_size - chunk.len()).min(data.len());
            chunk.push(&data[..take], self.chunk_size);
            data = &data[take..];
            if chunk.len() == self.chunk_size {
                self.current += 1;
            }
        }
    }

    /// The rest of the current chunk, uninitialised as far as the caller may assume; empty when
    /// every chunk is full.
    pub(crate) fn spare_mut(&mut self) -> &mut [std::mem::MaybeUninit<u8>] {
        let chunk_size = self.chunk_size;
        match self.chunks.get_mut(self.current) {
            None => &mut [],
            Some(Chunk::Heap(v)) => {
                let room = chunk_size - v.len();
                &mut v.spare_capacity_mut()[..room]
            }
            Some(Chunk::Pooled { buf, len }) => {
                // SAFETY: initialised bytes are valid MaybeUninit<u8>s; the view is only written
                // with initialised bytes (commit's contract), so `buf` stays initialised.
                let all = unsafe { &mut *(std::ptr::from_mut(&mut buf[..]) as *mut [std::mem::MaybeUninit<u8>]) };
                &mut all[*len..chunk_size]
            }
        }
    }

    /// Adds `n` bytes written into [`spare_mut`](Self::spare_mut)'s room.
    ///
    /// # Safety
    /// `n` is at most that room's length, and its first `n` bytes have been written since.
    pub(crate) unsafe fn commit(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        let chunk_size = self.chunk_size;
        let chunk = &mut self.chunks[self.current];
        match chunk {
            Chunk::Heap(v) => {
                debug_assert!(v.len() + n <= chunk_size);
                // SAFETY: the caller wrote the n bytes after len, inside the chunk's capacity.
                unsafe { v.set_len(v.len() + n) };
            }
            Chunk::Pooled { len, .. } => *len += n,
        }
        self.len += n;
        if chunk.len() == chunk_size {
            self.current += 1;
        }
    }

    /// Forgets the bytes, keeps the chunks for reuse.
    pub(crate) fn clear(&mut self) {
        let used = (self.current + 1).min(self.chunks.len());
        for chunk in &mut self.chunks[..used] {
            chunk.clear();
        }
        self.current = 0;
        self.len = 0;
    }

    /// Forgets the bytes past `new_len` (fewer than held), keeping the chunks for reuse.
    pub(crate) fn truncate(&mut self, new_len: usize) {
        debug_assert!(new_len < self.len);
        let (keep, within) = (new_len / self.chunk_size, new_len % self.chunk_size);
        let used = (self.current + 1).min(self.chunks.len());
        for chunk in &mut self.chunks[keep + 1..used] {
            chunk.clear();
        }
        match &mut self.chunks[keep] {
            Chunk::Heap(v) => v.truncate(within),
            Chunk::Pooled { len, .. } => *len = within,
        }
        self.current = keep;
        self.len = new_len;
    }

    /// The non-empty chunks, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &[u8]> {
        self.chunks.iter().map(Chunk::filled).take_while(|c| !c.is_empty())
    }

    pub(crate) fn segment_count(&self) -> usize {
        self.len.div_ceil(self.chunk_size)
    }

    pub(crate) fn segment(&self, index: usize) -> Option<&[u8]> {
        if index < self.segment_count() { Some(self.chunks[index].filled()) } else { None }
    }

    /// Copies bytes from `offset` into `dst`, returning how many were copied.
    pub(crate) fn copy_to(&self, offset: usize, dst: &mut [std::mem::MaybeUninit<u8>]) -> usize {
        let mut chunk_index = offset / self.chunk_size;
        let mut within = offset % self.chunk_size;
        let mut copied = 0;
        while copied < dst.len() {
            let Some(chunk) = self.segment(chunk_index) else { break };
            let src = &chunk[within..];
            let take = src.len().min(dst.len() - copied);
            crate::copy::write_bytes(&mut dst[copied..copied + take], &src[..take]);
            copied += take;
            chunk_index += 1;
            within = 0;
        }
        copied
    }
}

impl Drop for Segments {
    /// Pool chunks go back to their pool (dirty: the pool's rule); heap chunks are freed.
    fn drop(&mut self) {
        if let Some(pool) = &self.pool {
            for chunk in self.chunks.drain(..) {
                if let Chunk::Pooled { buf, .. } = chunk {
                    pool.release(buf);
                }
            }
        }
    }
}
