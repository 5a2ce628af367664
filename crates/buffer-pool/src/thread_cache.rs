//! A thread's cached buffers for one pool: the storage that its owning thread's fast path
//! ([`local`](crate::local)) fills and empties without locking, and that the pool
//! ([`shared`](crate::shared)) frees when it closes, whatever the thread is doing.

use crate::block::Block;
use crate::stats::{Counters, Event};
use crate::sync::{AtomicU64, Mutex};

/// Most buffers a thread caches per class; [`PoolConfig::thread_cache_buffers`](crate::PoolConfig)
/// may not exceed it. A fixed array keeps the fast path free of capacity checks and allocation.
pub(crate) const MAX_THREAD_CACHE: usize = 16;

pub(crate) struct LocalClass {
    /// Buffers cached: `slots[..len]`, each from `Block::into_raw` with `size` bytes, owned here.
    pub(crate) len: usize,
    pub(crate) slots: [*mut u8; MAX_THREAD_CACHE],
    /// How many this thread may cache (`thread_cache_buffers`).
    pub(crate) cap: usize,
    /// The class's buffer size.
    pub(crate) size: usize,
    /// Bytes this thread holds reserved against the cap without a buffer behind them (a buffer it
    /// handed out from its cache). Always a multiple of `size`, and `len * size + credit <= cap * size`.
    pub(crate) credit: usize,
    /// This class's counters inside `LocalPool::counters`, which outlives this class.
    pub(crate) counts: *const [AtomicU64; 4],
}

impl LocalClass {
    #[inline]
    pub(crate) fn count(&self, event: Event) {
        // SAFETY: `counts` points into the Arc<Counters> the owning LocalPool holds for its whole life.
        Counters::bump_in(unsafe { &*self.counts }, event);
    }

    /// Takes the cached buffers out, as owned blocks.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = Block> + '_ {
        let size = self.size;
        let n = std::mem::take(&mut self.len);
        self.slots[..n].iter().map(move |&p| {
            // SAFETY: slots[..len] hold pointers from Block::into_raw of `size`-byte blocks that
            // only this cache owned; len is reset first, so each is taken back once.
            unsafe { Block::from_raw(std::ptr::NonNull::new_unchecked(p), size) }
        })
    }
}

/// A thread's cached buffers for one pool, reachable from the pool too: closing the pool frees
/// them at once, even while the thread lives on (a JVM's or a BEAM's threads never exit). Only the
/// owning thread's fast path touches the classes while the pool is open, without locking; once it
/// is closed no fast path runs on it again (no handle is left to call one), and whoever empties
/// the cache for good (the pool's close, or the thread's own hand-off when it exits or forgets
/// the closed pool) does it under `emptied`, once.
pub(crate) struct Cache {
    /// True once emptied for good.
    pub(crate) emptied: Mutex<bool>,
    /// From `Box::into_raw`, freed on drop.
    pub(crate) classes: *mut [LocalClass],
}

// SAFETY: the classes are only reached by the owning thread while the pool is open, and after
// that under `emptied`, by one thread at a time (see the type's docs); the blocks they point to
// are owned memory like Box<[u8]>, tied to no thread.
unsafe impl Send for Cache {}
// SAFETY: as above.
unsafe impl Sync for Cache {}

impl Cache {
    /// Empties the cache with `f` (for good with `for_good`: nothing is cached again), unless it
    /// was emptied for good already.
    pub(crate) fn empty(&self, for_good: bool, f: impl FnOnce(&mut [LocalClass])) {
        let mut emptied = self.emptied.lock().unwrap_or_else(|e| e.into_inner());
        if *emptied {
            return;
        }
        // SAFETY: under `emptied`, which every access but the owner's fast path takes, and the
        // fast path does not run meanwhile: the caller is the owning thread, or the pool is closed.
        f(unsafe { &mut *self.classes });
        *emptied = for_good;
    }

    /// Frees every cached buffer (the pool is closed); returns how many bytes they held.
    pub(crate) fn free_all(&self) -> usize {
        let mut freed = 0;
        self.empty(true, |classes| {
            for local in classes.iter_mut() {
                freed += local.len * local.size;
                local.drain().for_each(drop);
            }
        });
        freed
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        // SAFETY: from Box::into_raw in LocalPool::new, freed once, here. Emptied before the last
        // holder lets go (LocalPool's drop hands off or finds it freed).
        drop(unsafe { Box::from_raw(self.classes) });
    }
}

/// A [`Cache`]'s classes as its owning thread's fast path reaches them: straight, unlocked.
pub(crate) struct FastClasses(pub(crate) *mut [LocalClass]);

impl FastClasses {
    #[inline]
    pub(crate) fn get(&mut self) -> &mut [LocalClass] {
        // SAFETY: the cache's array, alive as long as the LocalPool holding this and the cache's
        // Arc. While the pool is open only the owning thread touches it, through `&mut`; the fast
        // path never runs once it closed (see `Cache`), and the hand-off takes the lock instead.
        unsafe { &mut *self.0 }
    }
}
