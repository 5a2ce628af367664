//! What a buffer's growth has cost so far.

#![forbid(unsafe_code)]

/// Counters kept by every [`GrowableBuffer`](crate::GrowableBuffer).
///
/// ```
/// use growable_buffer::{GrowableBuffer, Growth};
///
/// let mut buf = GrowableBuffer::with_growth(Growth::Segmented { chunk_size: 64 })?;
/// buf.append(&[0u8; 200])?;
/// let stats = buf.stats();
/// assert_eq!((stats.len, stats.capacity, stats.grows, stats.bytes_copied), (200, 256, 4, 0));
/// # Ok::<(), growable_buffer::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Bytes held.
    pub len: usize,
    /// Bytes the buffer can hold before it grows again.
    pub capacity: usize,
    /// Times the capacity increased (for segmented buffers: chunks allocated).
    pub grows: u64,
    /// Times the data changed address.
    pub moves: u64,
    /// Bytes the CPU copied to relocate or flatten the data. Pages moved by `mremap` are not copies.
    pub bytes_copied: u64,
}
