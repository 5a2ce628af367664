//! Per-thread caches: the fast path. A few idle buffers per class in a LIFO stack (the warmest
//! buffer goes out first), and a credit of already-reserved bytes, so a steady acquire/release
//! loop on one thread touches no shared memory at all.

use std::cell::RefCell;

use crate::block::Block;
use crate::shared::Shared;
use crate::stats::{Counters, Event};
use crate::sync::{Arc, Ordering, thread_local};

struct LocalClass {
    stack: Vec<Block>,
    /// Bytes this thread holds reserved against the cap without a buffer behind them (a buffer it
    /// handed out from its stack). Always a multiple of the class size, and
    /// `stack.len() * size + credit <= thread_cache_buffers * size`.
    credit: usize,
}

/// One thread's cache for one pool.
pub(crate) struct LocalPool {
    shared: Arc<Shared>,
    generation: u64,
    classes: Box<[LocalClass]>,
    counters: Arc<Counters>,
}

#[cfg(not(loom))]
thread_local! {
    static LOCAL: RefCell<Vec<LocalPool>> = const { RefCell::new(Vec::new()) };
}

#[cfg(loom)]
thread_local! {
    static LOCAL: RefCell<Vec<LocalPool>> = RefCell::new(Vec::new());
}

/// Runs `f` with this thread's cache for `shared`, creating it on first use. Returns `None` when
/// the thread's caches are being torn down (thread exit), so callers fall back to the shared pool.
#[inline]
pub(crate) fn with_local<R>(shared: &Arc<Shared>, f: impl FnOnce(&mut LocalPool) -> R) -> Option<R> {
    LOCAL
        .try_with(|cell| {
            let mut pools = cell.try_borrow_mut().ok()?;
            let index = match pools.iter().position(|p| p.shared.id == shared.id) {
                Some(i) => i,
                None => {
                    // Forget caches of pools that have been dropped since this thread last looked.
                    pools.retain(|p| !p.shared.closed.load(Ordering::Relaxed));
                    pools.push(LocalPool::new(shared.clone()));
                    pools.len() - 1
                }
            };
            let local = &mut pools[index];
            local.sync_generation();
            Some(f(local))
        })
        .ok()
        .flatten()
}

impl LocalPool {
    fn new(shared: Arc<Shared>) -> LocalPool {
        let counters = Arc::new(Counters::new(shared.config.class_count()));
        shared.register(counters.clone());
        let classes = (0..shared.config.class_count()).map(|_| LocalClass { stack: Vec::new(), credit: 0 }).collect();
        let generation = shared.generation.load(Ordering::Acquire);
        LocalPool { shared, generation, classes, counters }
    }

    pub(crate) fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Flushes the cache if `trim` ran since this thread last looked.
    #[inline]
    fn sync_generation(&mut self) {
        let current = self.shared.generation.load(Ordering::Acquire);
        if current != self.generation {
            self.generation = current;
            self.flush();
        }
    }

    /// Frees every cached buffer and gives back every reservation.
    pub(crate) fn flush(&mut self) {
        for (class, local) in self.classes.iter_mut().enumerate() {
            let size = self.shared.config.class_size(class);
            let held = local.stack.len() * size + local.credit;
            local.stack.clear();
            local.credit = 0;
            self.shared.unreserve(held);
        }
    }

    /// An idle buffer of `class`, from this thread's stack or the shared pool; `None` on a miss.
    #[inline]
    pub(crate) fn take(&mut self, class: usize) -> Option<Block> {
        let size = self.shared.config.class_size(class);
        let limit = self.shared.config.thread_cache_buffers * size;
        let local = &mut self.classes[class];
        if let Some(block) = local.stack.pop() {
            local.credit += size; // its reservation stays with this thread
            self.counters.count(class, Event::Hit);
            return Some(block);
        }
        let block = self.shared.pop(class);
        match &block {
            Some(_) => {
                // Keep the reservation as credit if the cache has room for it, so the release that
                // follows needs no shared atomic; otherwise give it back.
                if local.credit + size <= limit {
                    local.credit += size;
                } else {
                    self.shared.unreserve(size);
                }
                self.counters.count(class, Event::Hit);
            }
            None => self.counters.count(class, Event::Miss),
        }
        self.shared.maybe_decay();
        block
    }

    /// Takes back a buffer of `class`: onto this thread's stack, else into the shared pool, else
    /// (a cap is reached) frees it.
    #[inline]
    pub(crate) fn put(&mut self, class: usize, block: Block) {
        let size = block.size();
        let cache = self.shared.config.thread_cache_buffers;
        let local = &mut self.classes[class];
        if local.stack.len() < cache {
            if local.credit >= size {
                local.credit -= size;
                local.stack.push(block);
                self.counters.count(class, Event::Return);
                return;
            }
            if self.shared.reserve(size) {
                local.stack.push(block);
                self.counters.count(class, Event::Return);
                return;
            }
        } else if self.shared.reserve(size) {
            let kept = self.shared.push_reserved(class, block);
            self.counters.count(class, if kept { Event::Return } else { Event::DropOverCap });
            self.shared.maybe_decay();
            return;
        }
        drop(block);
        self.counters.count(class, Event::DropOverCap);
    }
}

impl Drop for LocalPool {
    /// Thread exit (or the pool is gone): cached buffers go to the shared pool if it still exists
    /// and has room, reservations are given back, counters are folded into the pool's totals.
    fn drop(&mut self) {
        let closed = self.shared.closed.load(Ordering::Acquire);
        for (class, local) in self.classes.iter_mut().enumerate() {
            let size = self.shared.config.class_size(class);
            self.shared.unreserve(local.credit);
            local.credit = 0;
            for block in local.stack.drain(..) {
                if closed {
                    drop(block);
                    self.shared.unreserve(size);
                } else {
                    self.shared.push_reserved(class, block);
                }
            }
        }
        self.shared.retire(&self.counters);
    }
}
