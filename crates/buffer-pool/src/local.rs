//! Per-thread caches: the fast path. A few idle buffers per class in a LIFO stack (the warmest
//! buffer goes out first), and a credit of already-reserved bytes, so a steady acquire/release
//! loop on one thread touches no shared memory at all.

use std::cell::RefCell;

use crate::block::Block;
use crate::lease_table::LOCAL_SLOTS;
use crate::shared::Shared;
use crate::stats::{Counters, Event};
use crate::sync::{Arc, Mutex, Ordering, thread_local};
use crate::thread_cache::{Cache, FastClasses, LocalClass, MAX_THREAD_CACHE};

/// One thread's cache for one pool.
pub(crate) struct LocalPool {
    /// `shared.id`, kept here so finding this thread's cache touches no shared line.
    id: u64,
    shared: Arc<Shared>,
    generation: u64,
    /// `cache`'s classes, for the fast path: only this thread uses them while the pool is open.
    classes: FastClasses,
    cache: Arc<Cache>,
    counters: Arc<Counters>,
    /// Free slots of the pool's lease table: `lease_slots[..lease_slot_count]`. A lend takes one
    /// with plain stores, a release on this thread puts its slot back here.
    lease_slots: [u32; LOCAL_SLOTS],
    lease_slot_count: usize,
}

#[cfg(not(loom))]
thread_local! {
    static LOCAL: RefCell<Vec<LocalPool>> = const { RefCell::new(Vec::new()) };
}

#[cfg(loom)]
thread_local! {
    static LOCAL: RefCell<Vec<LocalPool>> = RefCell::new(Vec::new());
}

/// Runs `f` with this thread's cache for the pool `shared` (whose id is `id`), creating it on
/// first use. Returns `None` when the thread's caches are being torn down (thread exit), so
/// callers fall back to the shared pool.
#[inline]
pub(crate) fn with_local<R>(id: u64, shared: &Arc<Shared>, f: impl FnOnce(&mut LocalPool) -> R) -> Option<R> {
    LOCAL
        .try_with(|cell| {
            let mut pools = cell.try_borrow_mut().ok()?;
            // Nearly every thread uses one pool, whose cache is the first; a few use more. Both
            // paths are hot: searching out of line, as a cold path, made every call on a second
            // pool cost 6% more in a loop alternating two pools.
            let local = match pools.first_mut() {
                Some(first) if first.id == id => first,
                _ => find_or_create(&mut pools, shared),
            };
            local.sync_generation();
            Some(f(local))
        })
        .ok()
        .flatten()
}

/// This thread's cache for `shared` among the others, made on first use.
#[inline]
fn find_or_create<'a>(pools: &'a mut Vec<LocalPool>, shared: &Arc<Shared>) -> &'a mut LocalPool {
    match pools.iter().position(|p| p.id == shared.id) {
        Some(i) => &mut pools[i],
        None => create(pools, shared),
    }
}

#[cold]
#[inline(never)]
fn create<'a>(pools: &'a mut Vec<LocalPool>, shared: &Arc<Shared>) -> &'a mut LocalPool {
    // Forget caches of pools that have been dropped since this thread last looked.
    pools.retain(|p| !p.shared.closed.load(Ordering::Relaxed));
    pools.push(LocalPool::new(shared.clone()));
    pools.last_mut().expect("just pushed")
}

impl LocalPool {
    fn new(shared: Arc<Shared>) -> LocalPool {
        let counters = Arc::new(Counters::new(shared.config.class_count()));
        let cap = shared.config.thread_cache_buffers.min(MAX_THREAD_CACHE);
        let classes: Box<[LocalClass]> = (0..shared.config.class_count())
            .map(|i| LocalClass {
                len: 0,
                slots: [std::ptr::null_mut(); MAX_THREAD_CACHE],
                cap,
                size: shared.config.class_size(i),
                credit: 0,
                counts: counters.class(i),
            })
            .collect();
        let classes = Box::into_raw(classes);
        let cache = Arc::new(Cache { emptied: Mutex::new(false), classes });
        shared.register(counters.clone(), cache.clone());
        let generation = shared.generation.load(Ordering::Acquire);
        LocalPool {
            id: shared.id,
            shared,
            generation,
            classes: FastClasses(classes),
            cache,
            counters,
            lease_slots: [0; LOCAL_SLOTS],
            lease_slot_count: 0,
        }
    }

    pub(crate) fn counters(&self) -> &Counters {
        &self.counters
    }

    /// The cached buffers, for this thread's fast path.
    #[inline]
    fn classes(&mut self) -> &mut [LocalClass] {
        self.classes.get()
    }

    /// A free lease slot cached by this thread, if any.
    #[inline]
    pub(crate) fn pop_lease_slot(&mut self) -> Option<u32> {
        self.lease_slot_count = self.lease_slot_count.checked_sub(1)?;
        Some(self.lease_slots[self.lease_slot_count])
    }

    /// Caches a free lease slot; false (nothing kept) when the cache is full.
    #[inline]
    pub(crate) fn keep_lease_slot(&mut self, index: u32) -> bool {
        let Some(free) = self.lease_slots.get_mut(self.lease_slot_count) else { return false };
        *free = index;
        self.lease_slot_count += 1;
        true
    }

    /// Flushes the cache if `trim` ran since this thread last looked.
    #[inline]
    fn sync_generation(&mut self) {
        let current = self.shared.generation.load(Ordering::Acquire);
        if current != self.generation {
            self.resync(current);
        }
    }

    #[cold]
    #[inline(never)]
    fn resync(&mut self, generation: u64) {
        self.generation = generation;
        self.flush();
    }

    /// Frees every cached buffer and gives back every reservation.
    pub(crate) fn flush(&mut self) {
        let shared = self.shared.clone();
        for local in self.classes().iter_mut() {
            let held = local.len * local.size + local.credit;
            local.drain().for_each(drop);
            local.credit = 0;
            shared.unreserve(held);
        }
    }

    /// An idle buffer of `class`, from this thread's cache or the shared pool; `None` on a miss.
    #[inline]
    pub(crate) fn take(&mut self, class: usize) -> Option<Block> {
        let local = &mut self.classes.get()[class];
        if local.len > 0 {
            local.len -= 1;
            local.credit += local.size; // its reservation stays with this thread
            local.count(Event::Hit);
            // SAFETY: slots[len] (after the decrement) holds a cached block's pointer, owned by
            // this cache and now no longer counted in it.
            return Some(unsafe {
                Block::from_raw(std::ptr::NonNull::new_unchecked(local.slots[local.len]), local.size)
            });
        }
        self.take_shared(class)
    }

    #[inline(never)]
    fn take_shared(&mut self, class: usize) -> Option<Block> {
        let local = &mut self.classes.get()[class];
        let block = self.shared.pop(class);
        match &block {
            Some(_) => {
                // Keep the reservation as credit if the cache has room for it, so the release that
                // follows needs no shared atomic; otherwise give it back.
                if local.credit + local.size <= local.cap * local.size {
                    local.credit += local.size;
                } else {
                    self.shared.unreserve(local.size);
                }
                self.counters.count(class, Event::Hit);
            }
            None => self.counters.count(class, Event::Miss),
        }
        self.shared.maybe_decay();
        block
    }

    /// Takes back a buffer of `class`: into this thread's cache, else the shared pool, else (a
    /// cap is reached) frees it.
    #[inline]
    pub(crate) fn put(&mut self, class: usize, block: Block) {
        let local = &mut self.classes.get()[class];
        if local.len < local.cap && local.credit >= local.size {
            local.credit -= local.size;
            local.slots[local.len] = block.into_raw().0.as_ptr();
            local.len += 1;
            local.count(Event::Return);
            return;
        }
        self.put_slow(class, block);
    }

    #[inline(never)]
    fn put_slow(&mut self, class: usize, block: Block) {
        let local = &mut self.classes.get()[class];
        let size = local.size;
        if local.len < local.cap {
            if self.shared.reserve(size) {
                local.slots[local.len] = block.into_raw().0.as_ptr();
                local.len += 1;
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

impl LocalPool {
    /// Gives every cached buffer to the shared pool (freed if the pool is closed or a class is
    /// full) and every credit back: what a thread exit does, on request.
    pub(crate) fn hand_off(&mut self) {
        self.hand_off_cache(false);
    }

    /// [`hand_off`](Self::hand_off), and for good with `for_good` (the cache is going away).
    /// Nothing to do if the pool's close freed the cache already.
    fn hand_off_cache(&mut self, for_good: bool) {
        let shared = &self.shared;
        self.cache.empty(for_good, |classes| {
            let closed = shared.closed.load(Ordering::Acquire);
            for (class, local) in classes.iter_mut().enumerate() {
                let size = local.size;
                shared.unreserve(std::mem::take(&mut local.credit));
                for block in local.drain() {
                    if closed {
                        drop(block);
                        shared.unreserve(size);
                    } else {
                        shared.push_reserved(class, block);
                    }
                }
            }
        });
    }
}

impl Drop for LocalPool {
    /// Thread exit (or the pool is gone): the cache is handed off and the counters are folded into
    /// the pool's totals.
    fn drop(&mut self) {
        self.hand_off_cache(true);
        for &index in &self.lease_slots[..self.lease_slot_count] {
            self.shared.leases.give_back(index);
        }
        self.shared.retire(&self.counters, &self.cache);
    }
}
