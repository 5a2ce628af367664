//! `bk_pool`: the bounded buffer pool of the `buffer-pool` crate, with leases C can hold.

use bufkit_ffi_macros::{Boundary, export};
use std::mem::MaybeUninit;
use std::time::Duration;

use buffer_pool::{BufferPool, Lent, PoolConfig};

use crate::macros::{handle_free, handle_new};
use crate::status::bk_status;

/// A pool of reusable byte buffers in power-of-two size classes.
///
/// Created by `bk_pool_new`, freed by `bk_pool_free` (the caller owns it). Thread-safe: any number
/// of threads may acquire and release on one pool at once. Every lease must be released with
/// `bk_pool_release` before the pool is freed; `bk_pool_free` refuses (and frees nothing) while
/// leases are out.
///
/// Methods: (listed in include/bufkit.h)
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
#[derive(Debug, Clone, Copy, Default, Boundary)]
#[binding(record = "PoolStats")]
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

impl bk_pool {
    /// Lends a buffer of at least `size` bytes (1 at least) and lets `fill` write into it: on
    /// success the lease goes to the caller with what `fill` returned; on failure the buffer goes
    /// back to the pool and nothing is lent.
    ///
    /// It lends through `bk_pool_acquire` and `bk_pool_release` themselves: the pool's `lend` and
    /// `take_back` then have one call site each, where they are inlined; a third call site made
    /// the compiler call them out of line from the exports too (+30 instructions per acquire +
    /// release pair from C, callgrind).
    pub(crate) fn lend_filled<R>(
        &self,
        size: usize,
        fill: impl FnOnce(&mut [MaybeUninit<u8>]) -> Result<R, bk_status>,
    ) -> Result<(bk_lease, R), bk_status> {
        let mut lease = bk_lease { data: std::ptr::null_mut(), len: 0, pool: self, id: 0 };
        // SAFETY: `self` is a live pool and `lease` a local, valid for one write.
        let status = unsafe { bk_pool_acquire(self, size.max(1), &mut lease) };
        if status != bk_status::BK_STATUS_OK {
            return Err(status);
        }
        // SAFETY: the pool lent `lease.len` bytes at `lease.data` to this call alone; they are
        // either released below or described in the lease returned, never both.
        let buffer = unsafe { std::slice::from_raw_parts_mut(lease.data.cast::<MaybeUninit<u8>>(), lease.len) };
        match fill(buffer) {
            Ok(value) => Ok((lease, value)),
            Err(status) => {
                // SAFETY: `self` is live, and `lease` is exactly what it lent just above.
                match unsafe { bk_pool_release(self, &lease) } {
                    bk_status::BK_STATUS_OK => Err(status),
                    failed => Err(failed),
                }
            }
        }
    }
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
pub unsafe extern "C" fn bk_pool_config_default(#[out] config_out: *mut bk_pool_config) -> bk_status {
    config_out.write(bk_pool_config::defaults());
    Ok(())
}

/// Creates a pool and stores it in `*pool_out` (NULL on failure). `config` may be NULL for the
/// defaults; it is only read during the call.
///
/// # Safety
/// `config` is NULL or readable; `pool_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_pool_new(
    #[nullable] config: *const bk_pool_config,
    #[out = std::ptr::null_mut()] pool_out: *mut *mut bk_pool,
) -> bk_status {
    let config = config.map_or_else(PoolConfig::default, |c| c.to_config());
    handle_new(pool_out, bk_pool { pool: BufferPool::new(config)? })
}

/// Frees a pool and every idle buffer it holds, those other live threads cache for it included
/// (freed at once, not when those threads exit). NULL does nothing (returns OK). If leases are
/// still out it frees nothing and returns `BK_STATUS_LEASES_OUTSTANDING`: release them, then call
/// again. On OK the pool must not be used again.
///
/// # Safety
/// `pool` is NULL or came from `bk_pool_new` and has not been freed; no other call on it overlaps.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_pool_free(#[raw] pool: *mut bk_pool) -> bk_status {
    if pool.is_null() {
        return Ok(());
    }
    // SAFETY: non-null, so a live pool per the `# Safety` section (no other call on it overlaps).
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
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_pool_acquire(
    #[live] pool: *const bk_pool,
    size: usize,
    #[out] lease_out: *mut bk_lease,
) -> bk_status {
    let Lent { data, len, id } = pool.pool.lend(size)?;
    lease_out.write(bk_lease { data: data.as_ptr(), len, pool, id });
    Ok(())
}

/// Gives a lease back. A lease of another pool is `BK_STATUS_WRONG_POOL`; one already released,
/// never lent, or whose `data`, `len` or `id` differ from what `bk_pool_acquire` filled in is
/// `BK_STATUS_LEASE_INVALID`; neither touches any memory. Lease ids are not predictable: a made-up
/// lease does not release a live one. Thread-safe.
///
/// # Safety
/// `pool` is a live pool; `lease` is NULL (an error) or readable.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_pool_release(#[live] pool: *const bk_pool, #[live] lease: *const bk_lease) -> bk_status {
    if !std::ptr::eq(lease.pool, pool) {
        return Err(bk_status::BK_STATUS_WRONG_POOL);
    }
    let data = std::ptr::NonNull::new(lease.data).ok_or(bk_status::BK_STATUS_LEASE_INVALID)?;
    Ok(pool.pool.take_back(Lent { data, len: lease.len, id: lease.id })?)
}

/// Frees every idle buffer (this thread's cache now, other threads' at their next call).
///
/// # Safety
/// `pool` is a live pool.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_pool_trim(#[live] pool: *const bk_pool) -> bk_status {
    pool.pool.trim();
    Ok(())
}

/// Fills `*stats_out` with the pool's totals.
///
/// # Safety
/// `pool` is a live pool; `stats_out` is valid for one write.
#[export(short)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_pool_get_stats(
    #[live] pool: *const bk_pool,
    #[out] stats_out: *mut bk_pool_stats,
) -> bk_status {
    let s = pool.pool.stats();
    let stats = bk_pool_stats {
        hits: s.hits(),
        misses: s.misses(),
        returns: s.returns(),
        drops_over_cap: s.drops_over_cap(),
        oversize_allocations: s.oversize_allocations,
        decayed: s.decayed,
        retained_bytes: s.retained_bytes,
        outstanding_leases: pool.pool.outstanding_leases(),
        class_count: s.classes.len(),
    };
    stats_out.write(stats);
    Ok(())
}

/// Fills `*stats_out` with size class `index`'s counters (0 is the smallest);
/// `BK_STATUS_OUT_OF_RANGE` past the last class.
///
/// # Safety
/// `pool` is a live pool; `stats_out` is valid for one write.
#[export]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bk_pool_get_class_stats(
    #[live] pool: *const bk_pool,
    index: usize,
    #[out] stats_out: *mut bk_pool_class_stats,
) -> bk_status {
    let s = pool.pool.stats();
    let c = s.classes.get(index).ok_or(bk_status::BK_STATUS_OUT_OF_RANGE)?;
    let stats = bk_pool_class_stats {
        size: c.size,
        hits: c.hits,
        misses: c.misses,
        returns: c.returns,
        drops_over_cap: c.drops_over_cap,
        idle_shared: c.idle_shared,
    };
    stats_out.write(stats);
    Ok(())
}
