//! `bk_pool`: the bounded buffer pool of the `buffer-pool` crate, with leases C can hold.

use bufkit_ffi_macros::export;
use std::time::Duration;

use buffer_pool::{BufferPool, Lent, PoolConfig};

use crate::macros::{checked_ref, handle_free, handle_new, write_out};
use crate::status::bk_status;

/// A pool of reusable byte buffers in power-of-two size classes.
///
/// Created by `bk_pool_new`, freed by `bk_pool_free` (the caller owns it). Thread-safe: any number
/// of threads may acquire and release on one pool at once. Every lease must be released with
/// `bk_pool_release` before the pool is freed; `bk_pool_free` refuses (and frees nothing) while
/// leases are out.
///
/// Methods: `bk_pool_acquire`, `bk_pool_release`, `bk_pool_trim`, `bk_pool_get_stats`,
/// `bk_pool_get_class_stats`, `bk_pool_free`.
pub struct bk_pool {
    /// Lends and takes back leases as plain data, checked by id, data and length, lock-free
    /// (`BufferPool::lend`, `BufferPool::take_back`).
    pool: BufferPool,
}

/// A buffer lent by a pool, filled in by `bk_pool_acquire`. The caller may read and write
/// `data[0..len)` until it passes the lease to `bk_pool_release`; after that the memory belongs to
/// the pool again. A lease may be released from any thread, once, to the pool that lent it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct bk_lease {
    /// The buffer: `len` bytes, 64-byte aligned. Its contents are whatever its last user left
    /// (zeroed when fresh, or always if the pool's `zero_on_acquire` is set).
    pub data: *mut u8,
    /// Usable bytes: the request rounded up to its size class (exactly the request above the
    /// largest class).
    pub len: usize,
    /// The pool that lent it, for checking; never dereferenced through the lease.
    pub pool: *const bk_pool,
    /// Identifies the lease within its pool (opaque; not predictable from the order of acquires).
    pub id: u64,
}

/// How to build a pool. Fill it with `bk_pool_config_default`, then change what you need;
/// NULL to `bk_pool_new` means the defaults.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct bk_pool_config {
    /// Smallest class, a power of two ≥ 64 (default 4096).
    pub min_class_size: usize,
    /// Largest class, a power of two ≥ min, ≤ 1 GiB (default 4 MiB); larger requests are served
    /// directly and never retained.
    pub max_class_size: usize,
    /// Hard cap on idle bytes kept (default 64 MiB).
    pub max_retained_bytes: usize,
    /// Idle buffers per class in the shared pool (default 64, at least 1).
    pub max_buffers_per_class: usize,
    /// Idle buffers per class each thread caches (default 4, at most 16; 0 disables).
    pub thread_cache_buffers: usize,
    /// Non-zero: zero every buffer before lending it (default 0: buffers come back dirty).
    pub zero_on_acquire: u32,
    /// Free shared buffers idle this many milliseconds (default 30000; 0: never).
    pub decay_after_ms: u64,
}

/// A pool's totals, filled by `bk_pool_get_stats`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct bk_pool_stats {
    /// Acquires served by a retained buffer.
    pub hits: u64,
    /// Acquires that allocated.
    pub misses: u64,
    /// Buffers taken back for reuse.
    pub returns: u64,
    /// Buffers freed on return because a cap was reached.
    pub drops_over_cap: u64,
    /// Requests above the largest class.
    pub oversize_allocations: u64,
    /// Buffers freed by decay.
    pub decayed: u64,
    /// Bytes held in reserve against the cap (never above `max_retained_bytes`).
    pub retained_bytes: usize,
    /// Leases lent and not yet released.
    pub outstanding_leases: usize,
    /// Number of size classes (for `bk_pool_get_class_stats`).
    pub class_count: usize,
}

/// One size class's counters, filled by `bk_pool_get_class_stats`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct bk_pool_class_stats {
    /// Buffer size of the class.
    pub size: usize,
    /// Acquires served by a retained buffer.
    pub hits: u64,
    /// Acquires that allocated.
    pub misses: u64,
    /// Buffers taken back.
    pub returns: u64,
    /// Buffers freed on return because a cap was reached.
    pub drops_over_cap: u64,
    /// Buffers idle in the shared pool now.
    pub idle_shared: usize,
}

impl bk_pool_config {
    fn defaults() -> Self {
        let d = PoolConfig::default();
        bk_pool_config {
            min_class_size: d.min_class_size,
            max_class_size: d.max_class_size,
            max_retained_bytes: d.max_retained_bytes,
            max_buffers_per_class: d.max_buffers_per_class,
            thread_cache_buffers: d.thread_cache_buffers,
            zero_on_acquire: u32::from(d.zero_on_acquire),
            decay_after_ms: d.decay_after.map_or(0, |t| t.as_millis() as u64),
        }
    }

    fn to_config(self) -> PoolConfig {
        PoolConfig {
            min_class_size: self.min_class_size,
            max_class_size: self.max_class_size,
            max_retained_bytes: self.max_retained_bytes,
            max_buffers_per_class: self.max_buffers_per_class,
            thread_cache_buffers: self.thread_cache_buffers,
            zero_on_acquire: self.zero_on_acquire != 0,
            decay_after: (self.decay_after_ms > 0).then(|| Duration::from_millis(self.decay_after_ms)),
        }
    }
}

/// Fills `*config_out` with the defaults.
///
/// # Safety
/// `config_out` is NULL (an error) or valid for writing one `bk_pool_config`.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_pool_config_default(config_out: *mut bk_pool_config) -> bk_status {
    // SAFETY: per this function's contract.
    unsafe { write_out(config_out, bk_pool_config::defaults()) }
}

/// Creates a pool and stores it in `*pool_out` (NULL on failure). `config` may be NULL for the
/// defaults; it is only read during the call.
///
/// # Safety
/// `config` is NULL or readable; `pool_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_pool_new(config: *const bk_pool_config, pool_out: *mut *mut bk_pool) -> bk_status {
    if pool_out.is_null() {
        return Err(bk_status::BK_STATUS_NULL_POINTER);
    }
    // SAFETY: checked non-null; valid for a write per the contract.
    unsafe { pool_out.write(std::ptr::null_mut()) };
    // SAFETY: NULL or readable per the contract.
    let config = unsafe { config.as_ref() }.map_or_else(PoolConfig::default, |c| c.to_config());
    let pool = BufferPool::new(config)?;
    // SAFETY: as above.
    unsafe { handle_new(pool_out, bk_pool { pool }) }
}

/// Frees a pool and every idle buffer it holds. NULL does nothing (returns OK). If leases are
/// still out it frees nothing and returns `BK_STATUS_LEASES_OUTSTANDING`: release them, then call
/// again. On OK the pool must not be used again.
///
/// # Safety
/// `pool` is NULL or came from `bk_pool_new` and has not been freed; no other call on it overlaps.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_pool_free(pool: *mut bk_pool) -> bk_status {
    if pool.is_null() {
        return Ok(());
    }
    // SAFETY: live per the contract.
    if unsafe { &*pool }.pool.outstanding_leases() > 0 {
        return Err(bk_status::BK_STATUS_LEASES_OUTSTANDING);
    }
    // SAFETY: from bk_pool_new (handle_new), freed once per the contract; no lease refers to it any more.
    unsafe { handle_free(pool) };
    Ok(())
}

/// Lends a buffer of at least `size` bytes (0 is `BK_STATUS_INVALID_ARGUMENT`) and describes it in
/// `*lease_out`. Thread-safe.
///
/// # Safety
/// `pool` is a live pool; `lease_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_pool_acquire(pool: *const bk_pool, size: usize, lease_out: *mut bk_lease) -> bk_status {
    if lease_out.is_null() {
        return Err(bk_status::BK_STATUS_NULL_POINTER);
    }
    // SAFETY: per this function's contract.
    let handle = unsafe { checked_ref(pool) }?;
    let Lent { data, len, id } = handle.pool.lend(size)?;
    // SAFETY: checked non-null; writable per the contract.
    unsafe { write_out(lease_out, bk_lease { data: data.as_ptr(), len, pool, id }) }
}

/// Gives a lease back. A lease of another pool is `BK_STATUS_WRONG_POOL`; one already released,
/// never lent, or whose `data`, `len` or `id` differ from what `bk_pool_acquire` filled in is
/// `BK_STATUS_LEASE_INVALID`; neither touches any memory. Lease ids are not predictable: a made-up
/// lease does not release a live one. Thread-safe.
///
/// # Safety
/// `pool` is a live pool; `lease` is NULL (an error) or readable.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_pool_release(pool: *const bk_pool, lease: *const bk_lease) -> bk_status {
    // SAFETY: per this function's contract.
    let handle = unsafe { checked_ref(pool) }?;
    // SAFETY: per this function's contract.
    let lease = unsafe { checked_ref(lease) }?;
    if lease.pool != pool {
        return Err(bk_status::BK_STATUS_WRONG_POOL);
    }
    let data = std::ptr::NonNull::new(lease.data).ok_or(bk_status::BK_STATUS_LEASE_INVALID)?;
    Ok(handle.pool.take_back(Lent { data, len: lease.len, id: lease.id })?)
}

/// Frees every idle buffer (this thread's cache now, other threads' at their next call).
///
/// # Safety
/// `pool` is a live pool.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_pool_trim(pool: *const bk_pool) -> bk_status {
    // SAFETY: per this function's contract.
    unsafe { checked_ref(pool) }?.pool.trim();
    Ok(())
}

/// Fills `*stats_out` with the pool's totals.
///
/// # Safety
/// `pool` is a live pool; `stats_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_pool_get_stats(pool: *const bk_pool, stats_out: *mut bk_pool_stats) -> bk_status {
    // SAFETY: per this function's contract.
    let handle = unsafe { checked_ref(pool) }?;
    let s = handle.pool.stats();
    let stats = bk_pool_stats {
        hits: s.hits(),
        misses: s.misses(),
        returns: s.returns(),
        drops_over_cap: s.drops_over_cap(),
        oversize_allocations: s.oversize_allocations,
        decayed: s.decayed,
        retained_bytes: s.retained_bytes,
        outstanding_leases: handle.pool.outstanding_leases(),
        class_count: s.classes.len(),
    };
    // SAFETY: per this function's contract.
    unsafe { write_out(stats_out, stats) }
}

/// Fills `*stats_out` with size class `index`'s counters (0 is the smallest);
/// `BK_STATUS_OUT_OF_RANGE` past the last class.
///
/// # Safety
/// `pool` is a live pool; `stats_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_pool_get_class_stats(
    pool: *const bk_pool,
    index: usize,
    stats_out: *mut bk_pool_class_stats,
) -> bk_status {
    // SAFETY: per this function's contract.
    let handle = unsafe { checked_ref(pool) }?;
    let s = handle.pool.stats();
    let c = s.classes.get(index).ok_or(bk_status::BK_STATUS_OUT_OF_RANGE)?;
    let stats = bk_pool_class_stats {
        size: c.size,
        hits: c.hits,
        misses: c.misses,
        returns: c.returns,
        drops_over_cap: c.drops_over_cap,
        idle_shared: c.idle_shared,
    };
    // SAFETY: per this function's contract.
    unsafe { write_out(stats_out, stats) }
}
