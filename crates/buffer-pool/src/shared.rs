//! The state all threads share: a bounded queue of idle buffers per class, the retained-bytes
//! reservation that enforces the cap, and the registry of every thread's counters.

#![forbid(unsafe_code)]

use std::time::{Duration, Instant};

use crate::block::Block;
use crate::lease_table::LeaseTable;
use crate::stats::{Counters, PoolStats};
use crate::sync::{Arc, AtomicBool, AtomicU64, AtomicUsize, BoundedQueue, Mutex, Ordering};
use crate::thread_cache::Cache;
use crate::{ClassStats, PoolConfig};

pub(crate) struct Shared {
    /// Never reused, so a thread cache can tell pools apart after one is dropped.
    pub(crate) id: u64,
    pub(crate) config: PoolConfig,
    queues: Box<[BoundedQueue<Block>]>,
    /// Bytes reserved against `max_retained_bytes`: every idle buffer (shared or cached by a
    /// thread) plus each thread cache's credit. Only grows through `reserve`, which refuses to
    /// pass the cap, so idle memory can never exceed it.
    retained: AtomicUsize,
    /// Bumped by `trim`; a thread cache that sees a new value flushes itself.
    pub(crate) generation: AtomicU64,
    /// The last `BufferPool` handle is gone; thread caches drop what they hold for it.
    pub(crate) closed: AtomicBool,
    registry: Mutex<Registry>,
    epoch: Instant,
    /// Pool clock (ms since `epoch`) of the last decay pass.
    last_decay: AtomicU64,
    decayed: AtomicU64,
    /// Buffers lent as plain data (`BufferPool::lend`), checked when they come back.
    pub(crate) leases: LeaseTable,
}

/// Every live thread's counters and cache, and the sum of the counters of those whose threads
/// have exited.
struct Registry {
    live: Vec<(Arc<Counters>, Arc<Cache>)>,
    retired: PoolStats,
}

static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Shared {
    pub(crate) fn new(config: PoolConfig) -> Shared {
        let classes = config.class_count();
        let retired = PoolStats {
            classes: (0..classes).map(|i| ClassStats { size: config.class_size(i), ..ClassStats::default() }).collect(),
            ..PoolStats::default()
        };
        Shared {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            queues: (0..classes).map(|_| BoundedQueue::new(config.max_buffers_per_class)).collect(),
            config,
            retained: AtomicUsize::new(0),
            generation: AtomicU64::new(0),
            closed: AtomicBool::new(false),
            registry: Mutex::new(Registry { live: Vec::new(), retired }),
            epoch: Instant::now(),
            last_decay: AtomicU64::new(0),
            decayed: AtomicU64::new(0),
            leases: LeaseTable::new(),
        }
    }

    /// Reserves `bytes` against the cap; false (and nothing reserved) if that would pass it.
    pub(crate) fn reserve(&self, bytes: usize) -> bool {
        let cap = self.config.max_retained_bytes;
        let mut current = self.retained.load(Ordering::Relaxed);
        loop {
            let Some(next) = current.checked_add(bytes).filter(|&n| n <= cap) else { return false };
            match self.retained.compare_exchange_weak(current, next, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => return true,
                Err(seen) => current = seen,
            }
        }
    }

    pub(crate) fn unreserve(&self, bytes: usize) {
        if bytes > 0 {
            let before = self.retained.fetch_sub(bytes, Ordering::AcqRel);
            debug_assert!(before >= bytes, "retained-bytes accounting went negative");
        }
    }

    pub(crate) fn retained(&self) -> usize {
        self.retained.load(Ordering::Acquire)
    }

    /// Takes an idle buffer of `class` from the shared pool; its reservation stays with the caller.
    pub(crate) fn pop(&self, class: usize) -> Option<Block> {
        self.queues[class].pop()
    }

    /// Puts an idle buffer whose bytes the caller has already reserved into the shared pool; if the
    /// class is full the buffer is freed and its reservation released. True if kept.
    pub(crate) fn push_reserved(&self, class: usize, mut block: Block) -> bool {
        let size = block.size();
        block.idle_since = self.now_ms();
        match self.queues[class].push(block) {
            Ok(()) => true,
            Err(block) => {
                drop(block);
                self.unreserve(size);
                false
            }
        }
    }

    /// Frees every idle buffer in the shared pool.
    pub(crate) fn drain(&self) {
        for (class, queue) in self.queues.iter().enumerate() {
            while let Some(block) = queue.pop() {
                drop(block);
                self.unreserve(self.config.class_size(class));
            }
        }
    }

    pub(crate) fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// Runs a decay pass if the configured interval's quarter has passed since the last one.
    pub(crate) fn maybe_decay(&self) {
        let Some(after) = self.config.decay_after else { return };
        let now = self.now_ms();
        let last = self.last_decay.load(Ordering::Relaxed);
        let every = (after.as_millis() as u64 / 4).max(1);
        if now.saturating_sub(last) >= every
            && self.last_decay.compare_exchange(last, now, Ordering::AcqRel, Ordering::Relaxed).is_ok()
        {
            self.decay(after);
        }
    }

    /// Frees shared buffers idle for at least `idle_for`; returns how many.
    pub(crate) fn decay(&self, idle_for: Duration) -> usize {
        let now = self.now_ms();
        let limit = idle_for.as_millis() as u64;
        let mut freed = 0;
        for (class, queue) in self.queues.iter().enumerate() {
            // One pass over what is there now; the queue is FIFO, so the oldest come first.
            for _ in 0..queue.len() {
                let Some(block) = queue.pop() else { break };
                if now.saturating_sub(block.idle_since) >= limit {
                    drop(block);
                    self.unreserve(self.config.class_size(class));
                    freed += 1;
                } else if let Err(block) = queue.push(block) {
                    drop(block);
                    self.unreserve(self.config.class_size(class));
                }
            }
        }
        self.decayed.fetch_add(freed as u64, Ordering::Relaxed);
        freed
    }

    pub(crate) fn register(&self, counters: Arc<Counters>, cache: Arc<Cache>) {
        self.registry.lock().unwrap_or_else(|e| e.into_inner()).live.push((counters, cache));
    }

    /// Folds an exiting thread's counters into the retired totals, and forgets its cache.
    pub(crate) fn retire(&self, counters: &Arc<Counters>, cache: &Arc<Cache>) {
        let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = registry.live.iter().position(|(c, k)| Arc::ptr_eq(c, counters) && Arc::ptr_eq(k, cache)) {
            let (gone, _) = registry.live.swap_remove(i);
            gone.add_to(&mut registry.retired);
        }
    }

    /// Frees the buffers every live thread caches (the pool is closed, so none of them uses its
    /// cache again): nothing stays mapped until those threads exit.
    pub(crate) fn free_thread_caches(&self) {
        let caches: Vec<Arc<Cache>> =
            self.registry.lock().unwrap_or_else(|e| e.into_inner()).live.iter().map(|(_, k)| k.clone()).collect();
        for cache in caches {
            let freed = cache.free_all();
            self.unreserve(freed);
        }
    }

    pub(crate) fn stats(&self) -> PoolStats {
        let registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        let mut stats = registry.retired.clone();
        for (counters, _) in &registry.live {
            counters.add_to(&mut stats);
        }
        drop(registry);
        for (c, queue) in stats.classes.iter_mut().zip(self.queues.iter()) {
            c.idle_shared = queue.len();
        }
        stats.decayed = self.decayed.load(Ordering::Relaxed);
        stats.retained_bytes = self.retained();
        stats
    }
}
