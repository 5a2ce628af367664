//! An append-only byte buffer that is never quadratic, never copies more than it must, and tells
//! you what its growth cost.
//!
//! Erlang's JInterface once grew its send buffer by a constant 2 KiB: a 40 MB message meant ~20,000
//! full copies and ten minutes. [`GrowableBuffer`] grows geometrically through `realloc`/`mremap` by
//! default (large buffers move by remapping pages, not copying bytes), or as a chain of chunks that
//! never copies and is written out with one `writev`. The constant-step policy survives only as the
//! measured baseline. Every buffer counts its grows, moves and bytes copied ([`Stats`]), and a hard
//! capacity limit turns runaway growth into an [`Error`] instead of an abort.
//!
//! On Linux the process keeps the mapping of one dropped buffer of at most 32 MiB (glibc's own
//! ceiling for blocks it keeps in its heap once freed), its pages offered back to the kernel
//! (`MADV_FREE`), and the next buffer that grows past the heap starts from it: building message after message in fresh buffers then costs few page faults, as a
//! `realloc` loop reusing the C heap would.
//!
//! ```
//! use growable_buffer::{GrowableBuffer, Growth};
//!
//! let mut linear = GrowableBuffer::with_growth(Growth::Linear { step: 2048 })?;
//! let mut geometric = GrowableBuffer::new();
//! for _ in 0..10_000 {
//!     linear.append(b"twenty-five bytes of text")?;
//!     geometric.append(b"twenty-five bytes of text")?;
//! }
//! assert_eq!(linear.to_vec(), geometric.to_vec());
//! // The constant step copied the growing buffer over and over; doubling barely copied at all.
//! assert!(linear.stats().bytes_copied > 20 * geometric.stats().bytes_copied);
//! # Ok::<(), growable_buffer::Error>(())
//! ```
#![deny(missing_docs)]

mod buffer;
mod copy;
mod error;
#[cfg(all(target_os = "linux", not(miri)))]
mod pages;
mod policy;
mod raw;
mod segmented;
mod stats;
#[doc(hidden)]
#[cfg(feature = "workload")]
pub mod workload;

pub use buffer::{Config, GrowableBuffer};
pub use error::Error;
pub use policy::{DEFAULT_CHUNK_SIZE, DEFAULT_FACTOR, Growth};
pub use stats::Stats;

/// Size at and above which contiguous buffers are page-mapped on Linux (so growth moves pages, not bytes).
pub const MAP_THRESHOLD: usize = raw::MAP_THRESHOLD;

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
