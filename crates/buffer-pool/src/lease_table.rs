//! Checked handles for buffers lent across a foreign-function boundary, without a lock.
//!
//! A C caller holds a lease as plain data (`{data, len, id}`) that it may copy, forge or release
//! twice. [`LeaseTable`] turns each lent buffer into an id whose low 32 bits index a slot and
//! whose high 32 bits must equal the slot's generation, and keeps the buffer's address and length
//! beside it: a release is honoured only when all three match a live lease, exactly once, whatever
//! other threads do at the same time. Generations start at a random value per slot, so a live id
//! cannot be guessed from the order of lends.
//!
//! Everything in a slot is atomic, so no reader ever races with a writer: a lend writes the
//! address and length, then publishes the slot as live with a release store; a release reads
//! them after seeing the slot live, and wins the one compare-and-swap from live to free that
//! hands it the buffer. A slot whose generation has moved on fails that swap, so stale reads are
//! harmless. Free slots form lock-free stacks whose heads carry an ABA tag, one per shard, each
//! thread returning to its own shard (and lending from it first). In front of them each thread's
//! cache of the pool (`local.rs`) keeps a few free slots, so a lend from there is plain stores
//! and a release one compare-and-swap. Slots live in segments that double in size and are never
//! freed before the table, so an index, once handed out, always names the same memory.

use std::ptr::NonNull;

use crate::sync::{AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// Slots in segment 0; segment `s` holds `FIRST_SEGMENT << s`.
const FIRST_SEGMENT: usize = 64;
/// Enough segments for every 32-bit index.
const SEGMENTS: usize = 27;
/// The low bit of a slot's state: a lease is out.
const LIVE: u64 = 1;
/// The end of the free list.
const NONE: u32 = u32::MAX;
/// Free lists; threads are spread over them round-robin.
const SHARDS: usize = 16;

/// One shard's free-stack head on a cache line of its own: ABA tag in the high 32 bits, slot
/// index (or `NONE`) in the low.
#[repr(align(128))]
struct FreeHead(AtomicU64);

std::thread_local! {
    /// This thread's shard, assigned round-robin at its first use of a shared free list.
    static SHARD: usize = {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % SHARDS
    };
}

fn my_shard() -> usize {
    SHARD.try_with(|s| *s).unwrap_or(0)
}

/// The leases of one pool: `Send + Sync`, lock-free. The pool's lend and take-back paths drive
/// it (see `BufferPool::lend`).
pub(crate) struct LeaseTable {
    segments: [AtomicPtr<Slot>; SEGMENTS],
    /// Slots ever handed out; the next fresh index.
    used: AtomicUsize,
    free: [FreeHead; SHARDS],
    /// xorshift state for first generations, seeded from the OS.
    seed: AtomicU64,
}

/// A cache line each: slots of leases held by different threads must not share one.
#[repr(align(64))]
struct Slot {
    /// Generation in the high 32 bits, `LIVE` in bit 0.
    state: AtomicU64,
    data: AtomicUsize,
    len: AtomicUsize,
    next_free: AtomicU32,
}

/// Free slots a thread's cache of a pool keeps.
pub(crate) const LOCAL_SLOTS: usize = 8;

impl LeaseTable {
    pub(crate) fn new() -> LeaseTable {
        LeaseTable {
            segments: std::array::from_fn(|_| AtomicPtr::new(std::ptr::null_mut())),
            used: AtomicUsize::new(0),
            free: std::array::from_fn(|_| FreeHead(AtomicU64::new(u64::from(NONE)))),
            seed: AtomicU64::new(random_seed() | 1),
        }
    }

    /// Leases out now: a count over the slots (lends and releases keep no shared counter, which
    /// two threads on two cores would pass back and forth on every call).
    pub(crate) fn outstanding(&self) -> usize {
        (0..self.used.load(Ordering::Acquire).min(NONE as usize))
            .filter_map(|index| self.slot(index as u32))
            .filter(|slot| slot.state.load(Ordering::Acquire) & LIVE != 0)
            .count()
    }

    /// Records `data[..len)` as lent in `cached` (a free slot from a thread's cache) or a slot from
    /// the shared lists, and returns its id.
    ///
    /// # Panics
    /// When 2^32 leases are out at once.
    #[inline]
    pub(crate) fn lend(&self, cached: Option<u32>, data: NonNull<u8>, len: usize) -> u64 {
        let index = cached.unwrap_or_else(|| self.shared_slot());
        let slot = self.slot(index).expect("a slot handed out exists");
        slot.data.store(data.as_ptr() as usize, Ordering::Relaxed);
        slot.len.store(len, Ordering::Relaxed);
        let generation = slot.state.load(Ordering::Relaxed) >> 32;
        // Publishes data and len with the live state: a release that sees LIVE sees them.
        slot.state.store((generation << 32) | LIVE, Ordering::Release);
        (generation << 32) | u64::from(index)
    }

    #[cold]
    fn shared_slot(&self) -> u32 {
        let shard = my_shard();
        (0..SHARDS).find_map(|k| self.pop_free((shard + k) % SHARDS)).unwrap_or_else(|| self.fresh_slot())
    }

    /// Ends the live lease `id` of exactly `data[..len)` and returns its slot's index, now free
    /// (for a thread's cache, or [`give_back`](Self::give_back)). Anything else (released,
    /// forged, foreign, a pointer or length that does not match) is `None` and changes nothing.
    #[inline]
    pub(crate) fn release(&self, id: u64, data: NonNull<u8>, len: usize) -> Option<u32> {
        let slot = self.slot(id as u32)?;
        let generation = id >> 32;
        let live = (generation << 32) | LIVE;
        if slot.state.load(Ordering::Acquire) != live
            || slot.data.load(Ordering::Relaxed) != data.as_ptr() as usize
            || slot.len.load(Ordering::Relaxed) != len
        {
            return None;
        }
        // Only one release wins; a slot released and lent again meanwhile has a new generation.
        let next = (generation.wrapping_add(1) & u64::from(u32::MAX)) << 32;
        slot.state.compare_exchange(live, next, Ordering::AcqRel, Ordering::Relaxed).ok()?;
        Some(id as u32)
    }

    /// Puts a free slot (from [`release`](Self::release), or a thread cache being emptied) on this
    /// thread's shared list.
    pub(crate) fn give_back(&self, index: u32) {
        if let Some(slot) = self.slot(index) {
            self.push_free(my_shard(), index, slot);
        }
    }

    /// Ends every live lease and returns its buffer (for freeing them with the pool).
    pub(crate) fn drain(&self) -> Vec<(NonNull<u8>, usize)> {
        let mut out = Vec::new();
        for index in 0..self.used.load(Ordering::Acquire).min(u32::MAX as usize) {
            let Some(slot) = self.slot(index as u32) else { continue };
            let state = slot.state.load(Ordering::Acquire);
            if state & LIVE != 0 {
                slot.state.store(state & !LIVE, Ordering::Release);
                if let Some(data) = NonNull::new(slot.data.load(Ordering::Relaxed) as *mut u8) {
                    out.push((data, slot.len.load(Ordering::Relaxed)));
                }
            }
        }
        out
    }

    fn pop_free(&self, shard: usize) -> Option<u32> {
        let free = &self.free[shard].0;
        let mut head = free.load(Ordering::Acquire);
        loop {
            let index = head as u32;
            if index == NONE {
                return None;
            }
            // The slot's memory is never freed before the table, so this read is always valid;
            // if another thread popped it meanwhile, the tag makes the swap below fail.
            let next = self.slot(index)?.next_free.load(Ordering::Relaxed);
            let tag = (head >> 32).wrapping_add(1);
            match free.compare_exchange_weak(head, (tag << 32) | u64::from(next), Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Some(index),
                Err(now) => head = now,
            }
        }
    }

    fn push_free(&self, shard: usize, index: u32, slot: &Slot) {
        let free = &self.free[shard].0;
        let mut head = free.load(Ordering::Acquire);
        loop {
            slot.next_free.store(head as u32, Ordering::Relaxed);
            let tag = (head >> 32).wrapping_add(1);
            match free.compare_exchange_weak(head, (tag << 32) | u64::from(index), Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return,
                Err(now) => head = now,
            }
        }
    }

    /// A never-used slot, its segment allocated if it is the first there, with a random first
    /// generation.
    fn fresh_slot(&self) -> u32 {
        let index = self.used.fetch_add(1, Ordering::AcqRel);
        assert!(index < NONE as usize, "2^32 leases out at once");
        let (segment, _) = locate(index as u32);
        if self.segments[segment].load(Ordering::Acquire).is_null() {
            let size = FIRST_SEGMENT << segment;
            let slots: Box<[Slot]> = (0..size)
                .map(|_| Slot {
                    state: AtomicU64::new(self.next_generation() << 32),
                    data: AtomicUsize::new(0),
                    len: AtomicUsize::new(0),
                    next_free: AtomicU32::new(NONE),
                })
                .collect();
            let fresh = Box::into_raw(slots).cast::<Slot>();
            if self.segments[segment]
                .compare_exchange(std::ptr::null_mut(), fresh, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                // SAFETY: `fresh` came from Box::into_raw of a slice of `size` slots just above and
                // lost the race, so nothing else saw it.
                drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(fresh, size)) });
            }
        }
        index as u32
    }

    #[inline]
    fn slot(&self, index: u32) -> Option<&Slot> {
        if index == NONE {
            return None;
        }
        let (segment, offset) = locate(index);
        let base = self.segments[segment].load(Ordering::Acquire);
        if base.is_null() {
            return None;
        }
        // SAFETY: a non-null segment pointer is a live slice of FIRST_SEGMENT << segment slots,
        // freed only when the table drops, and locate() keeps offset below that length.
        Some(unsafe { &*base.add(offset) })
    }

    fn next_generation(&self) -> u64 {
        let mut x = self.seed.load(Ordering::Relaxed);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // A lost update only repeats a generation between two slots, which ids tell apart anyway.
        self.seed.store(x, Ordering::Relaxed);
        x >> 32
    }
}

impl Drop for LeaseTable {
    fn drop(&mut self) {
        for (segment, pointer) in self.segments.iter_mut().enumerate() {
            let base = pointer.load(Ordering::Acquire);
            if !base.is_null() {
                // SAFETY: allocated in fresh_slot as a boxed slice of exactly this many slots;
                // the table is being dropped, so no reference into it remains.
                drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(base, FIRST_SEGMENT << segment)) });
            }
        }
    }
}

/// The segment and the offset in it of slot `index`.
#[inline]
fn locate(index: u32) -> (usize, usize) {
    let k = index as usize / FIRST_SEGMENT + 1; // segment s starts at FIRST_SEGMENT * (2^s - 1)
    let segment = (usize::BITS - 1 - k.leading_zeros()) as usize;
    (segment, index as usize - FIRST_SEGMENT * ((1 << segment) - 1))
}

/// 64 unpredictable bits without a file or a system call per table: std's hasher keys come from
/// the OS's random source once per thread and change with every `RandomState`. Now that every pool
/// holds a lease table, reading `/dev/urandom` here cost each `BufferPool::new` an `open`, and
/// failed where the file is missing or forbidden (a sandbox, Miri's isolation).
fn random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};

    std::collections::hash_map::RandomState::new().build_hasher().finish()
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn fake(address: usize) -> NonNull<u8> {
        NonNull::new(address as *mut u8).unwrap()
    }

    #[test]
    fn segments_cover_every_index_once() {
        let mut expected = (0, 0);
        for index in 0..10_000u32 {
            let got = locate(index);
            if got.0 != expected.0 {
                assert_eq!((got.0, got.1), (expected.0 + 1, 0), "index {index}");
                expected = (got.0, 0);
            } else {
                assert_eq!(got.1, expected.1, "index {index}");
            }
            assert!(got.1 < FIRST_SEGMENT << got.0);
            expected.1 += 1;
        }
        assert!(locate(u32::MAX - 1).0 < SEGMENTS);
    }

    #[test]
    fn released_forged_and_mismatched_leases_are_refused() {
        let table = LeaseTable::new();
        let a = table.lend(None, fake(4096), 100);
        let b = table.lend(None, fake(8192), 200);
        assert_ne!(a as u32, b as u32);
        assert_eq!(table.outstanding(), 2);
        assert!(table.release(a, fake(8192), 100).is_none(), "another lease's data");
        assert!(table.release(a, fake(4096), 99).is_none(), "a wrong length");
        assert!(table.release(a ^ (1 << 40), fake(4096), 100).is_none(), "a wrong generation");
        assert!(table.release(u64::from(NONE), fake(4096), 100).is_none(), "the end marker");
        assert!(table.release(12345, fake(4096), 100).is_none(), "a slot never used");
        assert_eq!(table.release(a, fake(4096), 100), Some(a as u32));
        assert!(table.release(a, fake(4096), 100).is_none(), "twice");
        table.give_back(a as u32);
        // The slot is reused under a new generation: the old id stays dead.
        let c = table.lend(None, fake(4096), 100);
        assert_eq!(c as u32, a as u32);
        assert_ne!(c, a);
        assert!(table.release(a, fake(4096), 100).is_none());
        assert!(table.release(c, fake(4096), 100).is_some());
        assert!(table.release(b, fake(8192), 200).is_some());
        assert_eq!(table.outstanding(), 0);
    }

    #[test]
    fn drain_ends_every_live_lease_once() {
        let table = LeaseTable::new();
        let a = table.lend(None, fake(64), 1);
        let _b = table.lend(None, fake(128), 2);
        assert!(table.release(a, fake(64), 1).is_some());
        assert_eq!(table.drain(), vec![(fake(128), 2)]);
        assert_eq!(table.outstanding(), 0);
        assert!(table.drain().is_empty());
    }

    #[test]
    fn many_threads_lend_and_release_each_exactly_once() {
        let table = LeaseTable::new();
        let wins = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for t in 0..4usize {
                let (table, wins) = (&table, &wins);
                s.spawn(move || {
                    for i in 0..20_000usize {
                        let data = fake(((t << 20) | i) * 64 + 64);
                        let id = table.lend(None, data, i + 1);
                        // A second releaser racing the first: exactly one wins.
                        if let Some(index) = table.release(id, data, i + 1) {
                            wins.fetch_add(1, Ordering::Relaxed);
                            table.give_back(index);
                        }
                        assert!(table.release(id, data, i + 1).is_none());
                    }
                });
            }
        });
        assert_eq!(wins.load(Ordering::Relaxed), 80_000);
        assert_eq!(table.outstanding(), 0);
        assert!(table.used.load(Ordering::Relaxed) <= 8, "slots are reused, not leaked");
    }
}
