//! Reusable byte buffers: faster than the allocator, bounded, model-checked.
//!
//! A mobile runtime that allocated a fresh 100 KB buffer per extracted asset spent its time in the
//! garbage collector; in native code the same mistake shows up as page faults, ~250 of them for a
//! fresh 1 MiB block. A [`BufferPool`] hands back a warm buffer instead: from the calling thread's
//! small LIFO cache (no shared memory touched), else from a lock-free shared pool, else from the
//! allocator. Requests round up to power-of-two size classes; larger ones bypass the pool.
//!
//! Unlike pools that grow without bound, this one enforces a hard cap on the bytes it keeps idle,
//! per-class caps, [`BufferPool::trim`] and decay of idle buffers; a thread's cached buffers go
//! back to the shared pool when the thread exits.
//!
//! **Buffers come back dirty**: a reused buffer holds whatever its previous user wrote (never
//! uninitialised memory). Set [`PoolConfig::zero_on_acquire`] if that matters.
//!
//! ```
//! use buffer_pool::{BufferPool, PoolConfig};
//!
//! let pool = BufferPool::new(PoolConfig { max_retained_bytes: 16 << 20, ..PoolConfig::default() })?;
//! let mut copy_buffer = pool.acquire(100_000)?; // a 128 KiB class buffer
//! copy_buffer[..3].copy_from_slice(b"abc");
//! drop(copy_buffer);                           // back to this thread's cache
//! assert!(pool.retained_bytes() <= 16 << 20);
//! # Ok::<(), buffer_pool::Error>(())
//! ```
#![deny(missing_docs)]

mod block;
mod config;
mod error;
mod lease_table;
mod local;
mod pool;
mod shared;
mod stats;
mod sync;
mod sys;
mod thread_cache;

pub use config::PoolConfig;
pub use error::Error;
pub use pool::{BufferPool, Lease, Lent, PooledBuffer};
pub use stats::{ClassStats, PoolStats};

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
