//! How a pool is sized and bounded.

#![forbid(unsafe_code)]

use std::time::Duration;

use crate::Error;

/// A pool's configuration. Every field has a default; change what you need.
///
/// ```
/// use buffer_pool::{BufferPool, PoolConfig};
///
/// let pool = BufferPool::new(PoolConfig { max_retained_bytes: 8 << 20, ..PoolConfig::default() })?;
/// assert_eq!(pool.config().max_retained_bytes, 8 << 20);
/// # Ok::<(), buffer_pool::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolConfig {
    /// Smallest size class, a power of two ≥ 64. Default 4 KiB.
    pub min_class_size: usize,
    /// Largest size class, a power of two ≥ `min_class_size`, ≤ 1 GiB. Default 4 MiB. Larger
    /// requests are allocated directly and never retained.
    pub max_class_size: usize,
    /// Hard cap on the bytes the pool keeps idle (shared pool and every thread's cache together).
    /// A buffer returned when the cap is reached is freed. Default 64 MiB.
    pub max_retained_bytes: usize,
    /// How many idle buffers of one class the shared pool may hold. Default 64.
    pub max_buffers_per_class: usize,
    /// How many idle buffers of one class each thread keeps for itself (the fast path; LIFO, so the
    /// warmest buffer is reused first). 0 disables thread caches; at most 16. Default 4.
    pub thread_cache_buffers: usize,
    /// Zero every buffer before handing it out. Default false: buffers come back dirty, holding
    /// whatever their last user wrote.
    pub zero_on_acquire: bool,
    /// Free buffers that sat in the shared pool longer than this (checked on the pool's slow paths
    /// and by [`BufferPool::decay`](crate::BufferPool::decay)). Default: 30 s. `None`: never.
    pub decay_after: Option<Duration>,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            min_class_size: 4 << 10,
            max_class_size: 4 << 20,
            max_retained_bytes: 64 << 20,
            max_buffers_per_class: 64,
            thread_cache_buffers: 4,
            zero_on_acquire: false,
            decay_after: Some(Duration::from_secs(30)),
        }
    }
}

impl PoolConfig {
    /// Checks every field against its documented range.
    pub fn validate(&self) -> Result<(), Error> {
        if !self.min_class_size.is_power_of_two() || self.min_class_size < 64 {
            return Err(Error::InvalidConfig("min_class_size must be a power of two ≥ 64"));
        }
        if !self.max_class_size.is_power_of_two() || self.max_class_size < self.min_class_size {
            return Err(Error::InvalidConfig("max_class_size must be a power of two ≥ min_class_size"));
        }
        if self.max_class_size > 1 << 30 {
            return Err(Error::InvalidConfig("max_class_size must be at most 1 GiB"));
        }
        if self.thread_cache_buffers > crate::thread_cache::MAX_THREAD_CACHE {
            return Err(Error::InvalidConfig("thread_cache_buffers must be at most 16"));
        }
        if self.max_buffers_per_class == 0 {
            return Err(Error::InvalidConfig("max_buffers_per_class must be at least 1"));
        }
        Ok(())
    }

    /// Number of size classes.
    pub fn class_count(&self) -> usize {
        (self.max_class_size.trailing_zeros() - self.min_class_size.trailing_zeros()) as usize + 1
    }

    /// The class serving `size` bytes (`None` above the largest class), for `size > 0`.
    #[inline]
    pub(crate) fn class_of(&self, size: usize) -> Option<usize> {
        if size > self.max_class_size {
            return None;
        }
        let rounded = size.max(self.min_class_size).next_power_of_two();
        Some((rounded.trailing_zeros() - self.min_class_size.trailing_zeros()) as usize)
    }

    /// The buffer size of class `index`.
    #[inline]
    pub(crate) fn class_size(&self, index: usize) -> usize {
        self.min_class_size << index
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_up_to_their_class() {
        let c = PoolConfig::default();
        assert_eq!(c.class_count(), 11); // 4 KiB … 4 MiB
        assert_eq!(c.class_of(1), Some(0));
        assert_eq!(c.class_of(4096), Some(0));
        assert_eq!(c.class_of(4097), Some(1));
        assert_eq!(c.class_size(1), 8192);
        assert_eq!(c.class_of(4 << 20), Some(10));
        assert_eq!(c.class_of((4 << 20) + 1), None);
    }

    #[test]
    fn bad_configs_are_refused() {
        let bad = [
            PoolConfig { min_class_size: 100, ..PoolConfig::default() },
            PoolConfig { min_class_size: 32, ..PoolConfig::default() },
            PoolConfig { max_class_size: 2048, ..PoolConfig::default() },
            PoolConfig { max_class_size: 2 << 30, ..PoolConfig::default() },
            PoolConfig { max_buffers_per_class: 0, ..PoolConfig::default() },
        ];
        for config in bad {
            assert!(matches!(config.validate(), Err(Error::InvalidConfig(_))), "{config:?}");
        }
    }
}
