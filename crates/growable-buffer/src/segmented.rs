//! A chain of fixed-size chunks: growth allocates a new chunk and never copies old bytes.

use crate::Error;
use crate::copy::copy_bytes;

/// Chunks of `chunk_size` bytes each; every chunk before `current` is full.
pub(crate) struct Segments {
    chunks: Vec<Vec<u8>>,
    chunk_size: usize,
    /// Index of the chunk that receives the next byte (== chunks.len() when all are full).
    current: usize,
    len: usize,
}

impl Segments {
    pub(crate) fn new(chunk_size: usize) -> Self {
        Segments { chunks: Vec::new(), chunk_size, current: 0, len: 0 }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn capacity(&self) -> usize {
        self.chunks.len() * self.chunk_size
    }

    /// Makes room for `additional` more bytes by allocating whole chunks; returns how many were added.
    pub(crate) fn reserve(&mut self, additional: usize) -> Result<u64, Error> {
        let free = self.capacity() - self.len;
        if additional <= free {
            return Ok(0);
        }
        let missing = (additional - free).div_ceil(self.chunk_size);
        self.chunks.try_reserve(missing).map_err(|_| Error::AllocFailed { bytes: missing * size_of::<Vec<u8>>() })?;
        for _ in 0..missing {
            let mut chunk = Vec::new();
            // Fallible and uninitialised: a chunk is never zeroed, only ever written by appends.
            chunk.try_reserve_exact(self.chunk_size).map_err(|_| Error::AllocFailed { bytes: self.chunk_size })?;
            self.chunks.push(chunk);
        }
        Ok(missing as u64)
    }

    /// Appends `data` if it fits in the current chunk without filling it; false (and nothing
    /// changed) otherwise. The hot path of segmented appends.
    #[inline]
    pub(crate) fn append_within_current(&mut self, data: &[u8]) -> bool {
        let Some(chunk) = self.chunks.get_mut(self.current) else { return false };
        let used = chunk.len();
        if data.len() >= self.chunk_size - used {
            return false;
        }
        // SAFETY: the chunk's capacity is chunk_size and used + data.len() < chunk_size, so the
        // destination is inside its spare capacity; `data` cannot alias a chunk we own behind &mut.
        unsafe {
            copy_bytes(data.as_ptr(), chunk.as_mut_ptr().add(used), data.len());
            chunk.set_len(used + data.len());
        }
        self.len += data.len();
        true
    }

    /// Appends `data`; the caller has reserved room for it.
    pub(crate) fn append_reserved(&mut self, mut data: &[u8]) {
        self.len += data.len();
        while !data.is_empty() {
            let chunk = &mut self.chunks[self.current];
            let room = self.chunk_size - chunk.len();
            let take = room.min(data.len());
            chunk.extend_from_slice(&data[..take]);
            data = &data[take..];
            if chunk.len() == self.chunk_size {
                self.current += 1;
            }
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

    /// The non-empty chunks, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &[u8]> {
        self.chunks.iter().map(Vec::as_slice).take_while(|c| !c.is_empty())
    }

    pub(crate) fn segment_count(&self) -> usize {
        self.len.div_ceil(self.chunk_size)
    }

    pub(crate) fn segment(&self, index: usize) -> Option<&[u8]> {
        if index < self.segment_count() { Some(&self.chunks[index]) } else { None }
    }

    /// Copies bytes from `offset` into `dst`, returning how many were copied.
    pub(crate) fn copy_to(&self, offset: usize, dst: &mut [u8]) -> usize {
        let mut chunk_index = offset / self.chunk_size;
        let mut within = offset % self.chunk_size;
        let mut copied = 0;
        while copied < dst.len() {
            let Some(chunk) = self.segment(chunk_index) else { break };
            let src = &chunk[within..];
            let take = src.len().min(dst.len() - copied);
            dst[copied..copied + take].copy_from_slice(&src[..take]);
            copied += take;
            chunk_index += 1;
            within = 0;
        }
        copied
    }
}
