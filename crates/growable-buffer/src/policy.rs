//! Growth policies: how much capacity a full buffer asks for next.

#![forbid(unsafe_code)]

use crate::Error;

/// The default geometric factor. Measured in `bench-reports/growable-buffer.md`: above the mmap
/// threshold growth moves pages, not bytes, so fewer grows (×2) beat tighter capacity (×1.5), and
/// untouched capacity of a mapped buffer costs no resident memory.
pub const DEFAULT_FACTOR: f64 = 2.0;

/// The default chunk size of [`Growth::Segmented`]: 64 KiB, large enough that a `writev` of a
/// 400 MB buffer needs few system calls, small enough that the last chunk wastes little.
pub const DEFAULT_CHUNK_SIZE: usize = 64 * 1024;

/// Smallest capacity a growing contiguous buffer allocates, so tiny first appends do not regrow at once.
pub(crate) const MIN_CAPACITY: usize = 64;

/// How a buffer gets more room when an append does not fit.
///
/// ```
/// use growable_buffer::{GrowableBuffer, Growth};
///
/// let mut buf = GrowableBuffer::with_growth(Growth::Linear { step: 2048 })?;
/// buf.append(&[7u8; 5000])?;
/// assert_eq!(buf.stats().capacity, 5000); // an append bigger than the step grows to fit it
/// # Ok::<(), growable_buffer::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Growth {
    /// Multiply the capacity by `factor` (1 < factor ≤ 8), growing in place through
    /// `realloc`/`mremap`, so large buffers move by remapping pages rather than copying bytes.
    Geometric {
        /// The multiplier, e.g. 1.5 or 2.0.
        factor: f64,
    },
    /// Add `step` bytes, by allocating new memory and copying (what a managed runtime's
    /// `new byte[n]` + `arraycopy` does). Quadratic: kept only as the measured baseline that
    /// reproduces JInterface's +2 KiB failure.
    Linear {
        /// Bytes added per grow; at least 1.
        step: usize,
    },
    /// Grow to exactly the size needed: for callers that `reserve` up front.
    Exact,
    /// A chain of fixed-size chunks. Never copies on growth; finish with
    /// [`GrowableBuffer::write_all_to`](crate::GrowableBuffer::write_all_to) (one `writev` of all chunks) or
    /// [`GrowableBuffer::flatten`](crate::GrowableBuffer::flatten) (one copy).
    Segmented {
        /// Bytes per chunk; at least 64.
        chunk_size: usize,
    },
}

impl Default for Growth {
    fn default() -> Self {
        Growth::Geometric { factor: DEFAULT_FACTOR }
    }
}

impl Growth {
    /// Checks the policy's parameter against its documented range.
    pub fn validate(&self) -> Result<(), Error> {
        match *self {
            Growth::Geometric { factor } if !(factor > 1.0 && factor <= 8.0) => {
                Err(Error::InvalidConfig("geometric factor must be in (1, 8]"))
            }
            Growth::Linear { step: 0 } => Err(Error::InvalidConfig("linear step must be at least 1")),
            Growth::Segmented { chunk_size } if chunk_size < 64 => {
                Err(Error::InvalidConfig("segment chunk size must be at least 64 bytes"))
            }
            _ => Ok(()),
        }
    }

    /// The capacity a contiguous buffer of `capacity` bytes grows to when it must hold `needed`
    /// bytes, before the capacity limit is applied. Always ≥ `needed`.
    pub(crate) fn next_capacity(&self, capacity: usize, needed: usize) -> usize {
        let proposed = match *self {
            Growth::Geometric { factor } => {
                let scaled = capacity as f64 * factor;
                // f64 -> usize casts saturate, so a huge product clamps instead of wrapping.
                (scaled as usize).max(MIN_CAPACITY)
            }
            Growth::Linear { step } => capacity.saturating_add(step),
            Growth::Exact | Growth::Segmented { .. } => needed,
        };
        proposed.max(needed)
    }

    /// Whether growth goes through `realloc`/`mremap` (true) or allocate + copy + free (false).
    pub(crate) fn grows_in_place(&self) -> bool {
        !matches!(self, Growth::Linear { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometric_multiplies_and_never_returns_less_than_needed() {
        let g = Growth::Geometric { factor: 1.5 };
        assert_eq!(g.next_capacity(1000, 1001), 1500);
        assert_eq!(g.next_capacity(1000, 4000), 4000);
        assert_eq!(g.next_capacity(0, 1), MIN_CAPACITY);
        let huge = Growth::Geometric { factor: 4.0 };
        assert_eq!(huge.next_capacity(usize::MAX / 2, usize::MAX / 2 + 1), usize::MAX); // saturates
    }

    #[test]
    fn linear_adds_its_step() {
        let g = Growth::Linear { step: 2048 };
        assert_eq!(g.next_capacity(2048, 2049), 4096);
        assert_eq!(g.next_capacity(usize::MAX - 1, usize::MAX), usize::MAX);
    }

    #[test]
    fn out_of_range_parameters_are_refused() {
        for bad in [
            Growth::Geometric { factor: 1.0 },
            Growth::Geometric { factor: f64::NAN },
            Growth::Geometric { factor: 9.0 },
            Growth::Linear { step: 0 },
            Growth::Segmented { chunk_size: 63 },
        ] {
            assert!(matches!(bad.validate(), Err(Error::InvalidConfig(_))), "{bad:?}");
        }
        assert!(Growth::default().validate().is_ok());
    }
}
