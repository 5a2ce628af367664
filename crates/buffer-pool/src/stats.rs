//! Counters: each thread writes its own, `BufferPool::stats` adds them up.

#![forbid(unsafe_code)]

use crate::sync::{AtomicU64, Ordering};

/// One size class's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassStats {
    /// Buffer size of the class.
    pub size: usize,
    /// Acquires served by a retained buffer (thread cache or shared pool).
    pub hits: u64,
    /// Acquires that had to allocate.
    pub misses: u64,
    /// Buffers taken back for reuse.
    pub returns: u64,
    /// Buffers freed on return because a cap (retained bytes, or buffers per class) was reached.
    pub drops_over_cap: u64,
    /// Buffers idle in the shared pool now.
    pub idle_shared: usize,
}

/// A snapshot of a pool's counters.
///
/// ```
/// use buffer_pool::{BufferPool, PoolConfig};
///
/// let pool = BufferPool::new(PoolConfig::default())?;
/// drop(pool.acquire(10_000)?); // miss, then returned
/// drop(pool.acquire(10_000)?); // hit
/// let stats = pool.stats();
/// assert_eq!((stats.hits(), stats.misses()), (1, 1));
/// assert_eq!(stats.classes[2].size, 16 << 10);
/// # Ok::<(), buffer_pool::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Per size class, smallest first.
    pub classes: Vec<ClassStats>,
    /// Requests above the largest class, allocated directly and never retained.
    pub oversize_allocations: u64,
    /// Buffers freed by decay after idling too long.
    pub decayed: u64,
    /// Bytes the pool holds in reserve: idle buffers plus each thread's small reservation for its
    /// cache. Never above `max_retained_bytes`; the idle buffers alone are at most this.
    pub retained_bytes: usize,
}

impl PoolStats {
    /// Hits over all classes.
    pub fn hits(&self) -> u64 {
        self.classes.iter().map(|c| c.hits).sum()
    }

    /// Misses over all classes.
    pub fn misses(&self) -> u64 {
        self.classes.iter().map(|c| c.misses).sum()
    }

    /// Returns over all classes.
    pub fn returns(&self) -> u64 {
        self.classes.iter().map(|c| c.returns).sum()
    }

    /// Drops over cap over all classes.
    pub fn drops_over_cap(&self) -> u64 {
        self.classes.iter().map(|c| c.drops_over_cap).sum()
    }
}

/// Which counter.
#[derive(Clone, Copy)]
pub(crate) enum Event {
    Hit,
    Miss,
    Return,
    DropOverCap,
}

/// One thread's counters for one pool. Only the owning thread writes them (plain load + store,
/// no read-modify-write), so counting costs no shared cache-line traffic; `stats()` reads them all.
pub(crate) struct Counters {
    classes: Box<[[AtomicU64; 4]]>,
    oversize: AtomicU64,
}

impl Counters {
    pub(crate) fn new(classes: usize) -> Self {
        Counters {
            classes: (0..classes).map(|_| std::array::from_fn(|_| AtomicU64::new(0))).collect(),
            oversize: AtomicU64::new(0),
        }
    }

    #[inline]
    pub(crate) fn count(&self, class: usize, event: Event) {
        bump(&self.classes[class][event as usize]);
    }

    /// The counters of `class`, for a thread cache to keep a direct pointer to.
    pub(crate) fn class(&self, class: usize) -> *const [AtomicU64; 4] {
        &self.classes[class]
    }

    #[inline]
    pub(crate) fn bump_in(counts: &[AtomicU64; 4], event: Event) {
        bump(&counts[event as usize]);
    }

    pub(crate) fn count_oversize(&self) {
        bump(&self.oversize);
    }

    /// Adds these counters into `into`.
    pub(crate) fn add_to(&self, into: &mut PoolStats) {
        for (c, counters) in into.classes.iter_mut().zip(self.classes.iter()) {
            let [hits, misses, returns, drops] = counters.each_ref().map(|a| a.load(Ordering::Relaxed));
            c.hits += hits;
            c.misses += misses;
            c.returns += returns;
            c.drops_over_cap += drops;
        }
        into.oversize_allocations += self.oversize.load(Ordering::Relaxed);
    }
}

#[inline]
fn bump(counter: &AtomicU64) {
    counter.store(counter.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
}
