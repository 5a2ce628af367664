//! The pool handle, and the guards that hand its buffers out.

use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::time::Duration;

use crate::block::Block;
use crate::local::with_local;
use crate::shared::Shared;
use crate::stats::Event;
use crate::sync::{Arc, Ordering};
use crate::{Error, PoolConfig, PoolStats};

/// A bounded pool of reusable byte buffers in power-of-two size classes.
///
/// Cloning gives another handle to the same pool; the pool is shared by every thread that uses
/// it. `acquire` serves from the calling thread's cache first (no shared memory touched), then
/// from a lock-free shared pool, then from the allocator. Idle memory never exceeds
/// [`PoolConfig::max_retained_bytes`].
///
/// ```
/// use buffer_pool::{BufferPool, PoolConfig};
///
/// let pool = BufferPool::new(PoolConfig::default())?;
/// for _ in 0..100 {
///     let mut buf = pool.acquire(64 * 1024)?; // one allocation, then 99 reuses of the same warm buffer
///     buf[0] = 1;
/// } // each guard gives its buffer back here
/// assert_eq!(pool.stats().misses(), 1);
/// # Ok::<(), buffer_pool::Error>(())
/// ```
#[derive(Clone)]
pub struct BufferPool {
    handle: Arc<Handle>,
}

/// Closes the shared state when the last `BufferPool` clone goes.
struct Handle {
    /// `shared.id`, one pointer closer for the fast path.
    id: u64,
    shared: Arc<Shared>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.shared.closed.store(true, Ordering::Release);
        with_local(self.id, &self.shared, |local| local.flush());
        self.shared.free_thread_caches();
        self.shared.drain();
        for (data, len) in self.shared.leases.drain() {
            // SAFETY: lent by `lend` from Block::into_raw and never taken back; drain ended the
            // lease, so this is the block's only owner now.
            drop(unsafe { Block::from_raw(data, len) });
        }
    }
}

impl std::fmt::Debug for BufferPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufferPool").field("config", self.config()).finish_non_exhaustive()
    }
}

impl BufferPool {
    /// A pool with `config` (see [`PoolConfig::validate`]).
    pub fn new(config: PoolConfig) -> Result<BufferPool, Error> {
        config.validate()?;
        let shared = Arc::new(Shared::new(config));
        Ok(BufferPool { handle: Arc::new(Handle { id: shared.id, shared }) })
    }

    fn shared(&self) -> &Arc<Shared> {
        &self.handle.shared
    }

    /// The configuration the pool was built with.
    pub fn config(&self) -> &PoolConfig {
        &self.shared().config
    }

    /// A buffer of at least `size` bytes (its class's size; exactly `size` above the largest class,
    /// which is never retained). Its contents are whatever its last user left unless
    /// [`PoolConfig::zero_on_acquire`] is set; a freshly allocated buffer is zeroed.
    #[inline]
    pub fn acquire(&self, size: usize) -> Result<Lease<'_>, Error> {
        let (block, class) = self.take_block(size)?;
        Ok(Lease { pool: self, class, block: std::mem::ManuallyDrop::new(block) })
    }

    /// Like [`acquire`](Self::acquire), for a buffer that outlives any borrow of the pool (a C
    /// caller's lease, a buffer handed to another thread). Give it back with [`release`](Self::release).
    pub fn acquire_owned(&self, size: usize) -> Result<PooledBuffer, Error> {
        Ok(PooledBuffer { block: self.take_block(size)?.0 })
    }

    /// Takes back a buffer acquired from this pool or any other: a buffer whose size is one of
    /// this pool's classes is kept (within the caps), any other is freed.
    pub fn release(&self, buffer: PooledBuffer) {
        match self.class_of_block(buffer.block.size()) {
            Some(class) => self.put_block(buffer.block, class),
            None => drop(buffer), // oversize, or not a size this pool makes
        }
    }

    /// Lends a buffer of at least `size` bytes as plain data, for a caller that holds it as an
    /// address, a length and an id (a C program), and may copy, forge or double-release them.
    /// [`take_back`](Self::take_back) accepts it exactly once, from any thread, and only with
    /// the three values lent. Buffers still lent when the last handle to the pool is dropped
    /// are freed with it. Served like [`acquire`](Self::acquire), from this thread's cache first.
    ///
    /// ```
    /// use buffer_pool::{BufferPool, Error, PoolConfig};
    ///
    /// let pool = BufferPool::new(PoolConfig::default())?;
    /// let lent = pool.lend(100)?;
    /// // SAFETY: the pool lent `lent.len` writable bytes at `lent.data` until it is taken back.
    /// unsafe { lent.data.as_ptr().write_bytes(7, lent.len) };
    /// assert_eq!(pool.outstanding_leases(), 1);
    /// let forged = buffer_pool::Lent { id: lent.id ^ (1 << 32), ..lent };
    /// assert_eq!(pool.take_back(forged), Err(Error::NotLent));
    /// pool.take_back(lent)?;
    /// assert_eq!(pool.take_back(lent), Err(Error::NotLent)); // twice
    /// # Ok::<(), buffer_pool::Error>(())
    /// ```
    #[inline]
    pub fn lend(&self, size: usize) -> Result<Lent, Error> {
        let shared = self.shared();
        let class = match shared.config.class_of(size) {
            Some(class) if size > 0 => class,
            _ => return self.lend_slow(size), // 0 (refused) or above the largest class
        };
        // One visit to this thread's cache for the buffer and the lease slot. The closure returns
        // plain numbers: a Block moved out of it cost a stalled store-to-load forward per call.
        let visit = with_local(self.handle.id, shared, |local| {
            let cached = local.take(class).map_or(std::ptr::null_mut(), |block| block.into_raw().0.as_ptr());
            (cached, local.pop_lease_slot())
        });
        let Some((cached, slot)) = visit else { return self.lend_slow(size) }; // thread exiting
        let len = shared.config.class_size(class);
        let data = match NonNull::new(cached) {
            Some(data) if shared.config.zero_on_acquire => {
                // SAFETY: `take` handed out this class's block through into_raw just above.
                let mut block = unsafe { Block::from_raw(data, len) };
                block.bytes_mut().fill(0);
                block.into_raw().0
            }
            Some(data) => data,
            None => match Block::allocate(len) {
                Ok(block) => block.into_raw().0,
                Err(e) => {
                    if let Some(index) = slot {
                        shared.leases.give_back(index);
                    }
                    return Err(e);
                }
            },
        };
        let id = shared.leases.lend(slot, data, len);
        Ok(Lent { data, len, id })
    }

    /// `lend` for what the fast path does not serve: 0 bytes, oversize requests, and a thread
    /// that is exiting.
    #[cold]
    fn lend_slow(&self, size: usize) -> Result<Lent, Error> {
        let (block, _) = self.take_block(size)?;
        let (data, len) = block.into_raw();
        Ok(Lent { data, len, id: self.shared().leases.lend(None, data, len) })
    }

    /// Ends a lease from [`lend`](Self::lend) and takes its buffer back, if `lent` is exactly a
    /// live lease of this pool; otherwise (released already, never lent, another pool's, or a
    /// changed address, length or id) `Error::NotLent`, and nothing is touched.
    #[inline]
    pub fn take_back(&self, lent: Lent) -> Result<(), Error> {
        let shared = self.shared();
        let index = shared.leases.release(lent.id, lent.data, lent.len).ok_or(Error::NotLent)?;
        let block = || {
            // SAFETY: the table lent exactly this address and length, from Block::into_raw in
            // `lend`, and `release` ended that lease once, for this caller alone; this closure
            // runs once (inside the visit below, or after it when the visit did not run).
            unsafe { Block::from_raw(lent.data, lent.len) }
        };
        let class = self.class_of_block(lent.len);
        // The closure captures plain numbers and makes the block inside: moving a Block into it
        // cost a stalled store-to-load forward of its fields on every call.
        let slot_kept = with_local(self.handle.id, shared, |local| {
            match class {
                Some(class) => local.put(class, block()),
                None => drop(block()), // oversize
            }
            local.keep_lease_slot(index)
        });
        match slot_kept {
            Some(true) => {}
            Some(false) => shared.leases.give_back(index),
            // This thread is exiting (no cache): free the block, which is all a pool may do then.
            None => {
                drop(block());
                shared.leases.give_back(index);
            }
        }
        Ok(())
    }

    /// Buffers lent by [`lend`](Self::lend) and not yet taken back (counted when asked).
    pub fn outstanding_leases(&self) -> usize {
        self.shared().leases.outstanding()
    }

    /// The class a block of `size` bytes goes back to: `None` unless `size` is exactly a class.
    #[inline]
    fn class_of_block(&self, size: usize) -> Option<usize> {
        let config = &self.shared().config;
        config.class_of(size).filter(|&class| config.class_size(class) == size)
    }

    /// The block and its class (`NO_CLASS` for oversize blocks).
    #[inline]
    fn take_block(&self, size: usize) -> Result<(Block, u8), Error> {
        if size == 0 {
            return Err(Error::ZeroSize);
        }
        let shared = self.shared();
        let Some(class) = shared.config.class_of(size) else {
            with_local(self.handle.id, shared, |local| local.counters().count_oversize());
            return Ok((Block::allocate(size)?, NO_CLASS));
        };
        let fresh = || Ok((Block::allocate(shared.config.class_size(class))?, class as u8));
        let mut block = match with_local(self.handle.id, shared, |local| local.take(class)) {
            Some(Some(block)) => block,
            Some(None) => return fresh(),
            // This thread is exiting: no cache to count in; use the shared pool alone.
            None => match shared.pop(class) {
                Some(block) => {
                    shared.unreserve(block.size());
                    block
                }
                None => return fresh(),
            },
        };
        if shared.config.zero_on_acquire {
            block.bytes_mut().fill(0);
        }
        Ok((block, class as u8))
    }

    /// Takes back a block of `class` (a valid class of this pool, matching the block's size).
    #[inline]
    fn put_block(&self, block: Block, class: usize) {
        // If this thread is exiting (its cache is gone), the closure is dropped unrun and the
        // block with it: freed, which is all a pool may do then.
        with_local(self.handle.id, self.shared(), move |local| local.put(class, block));
    }

    /// Frees every idle buffer: the shared pool's and this thread's cache now, other threads'
    /// caches at their next call on this pool.
    pub fn trim(&self) {
        let shared = self.shared();
        shared.generation.fetch_add(1, Ordering::AcqRel);
        with_local(self.handle.id, shared, |_| ()); // syncing the generation flushes this thread's cache
        shared.drain();
    }

    /// Moves this thread's cached buffers for this pool into the shared pool, where other threads
    /// can reuse them: what happens anyway when the thread exits. Useful before a worker thread
    /// parks for a long time.
    pub fn return_thread_cache(&self) {
        with_local(self.handle.id, self.shared(), |local| local.hand_off());
    }

    /// Frees shared buffers that have been idle for at least `idle_for`; returns how many. The pool
    /// also does this by itself with [`PoolConfig::decay_after`].
    pub fn decay(&self, idle_for: Duration) -> usize {
        self.shared().decay(idle_for)
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> PoolStats {
        self.shared().stats()
    }

    /// Bytes held in reserve against the cap (see [`PoolStats::retained_bytes`]).
    pub fn retained_bytes(&self) -> usize {
        self.shared().retained()
    }
}

/// A buffer lent as plain data by [`BufferPool::lend`]: its address, its length, and the id
/// that [`BufferPool::take_back`] checks with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lent {
    /// The buffer's first byte (64-byte aligned).
    pub data: std::ptr::NonNull<u8>,
    /// Its usable length: the request rounded up to its class.
    pub len: usize,
    /// The lease's id (opaque; not predictable from the order of lends).
    pub id: u64,
}

// SAFETY: a Lent is three numbers; using the memory it names takes `unsafe` and the lease's rules,
// on whichever thread.
unsafe impl Send for Lent {}
// SAFETY: as above; it has no interior mutability.
unsafe impl Sync for Lent {}

/// A buffer borrowed from a [`BufferPool`]; it goes back to the pool when dropped.
///
/// ```
/// use buffer_pool::{BufferPool, PoolConfig};
///
/// let pool = BufferPool::new(PoolConfig::default())?;
/// let mut lease = pool.acquire(1000)?;
/// assert_eq!(lease.len(), 4096); // the smallest class
/// lease[..5].copy_from_slice(b"hello");
/// let kept = lease.detach();     // keep it: it will never return to the pool
/// assert_eq!(&kept[..5], b"hello");
/// # Ok::<(), buffer_pool::Error>(())
/// ```
pub struct Lease<'pool> {
    pool: &'pool BufferPool,
    /// The block's class, or `NO_CLASS` for an oversize block that is freed on drop.
    class: u8,
    block: std::mem::ManuallyDrop<Block>,
}

/// The class of blocks above the largest class.
const NO_CLASS: u8 = u8::MAX;

impl Lease<'_> {
    /// Keeps the buffer instead of returning it: it is freed when the result is dropped (or can
    /// be given back with [`BufferPool::release`]).
    pub fn detach(self) -> PooledBuffer {
        let mut this = std::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped, so the block is taken exactly once.
        PooledBuffer { block: unsafe { std::mem::ManuallyDrop::take(&mut this.block) } }
    }
}

impl Deref for Lease<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.block.bytes()
    }
}

impl DerefMut for Lease<'_> {
    fn deref_mut(&mut self) -> &mut [u8] {
        self.block.bytes_mut()
    }
}

impl Drop for Lease<'_> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: drop runs once and nothing uses the block afterwards.
        let block = unsafe { std::mem::ManuallyDrop::take(&mut self.block) };
        if self.class != NO_CLASS {
            self.pool.put_block(block, usize::from(self.class));
        }
    }
}

impl std::fmt::Debug for Lease<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease").field("len", &self.len()).finish()
    }
}

/// A pool buffer owned outright: freed when dropped, or given back with [`BufferPool::release`].
///
/// ```
/// use buffer_pool::{BufferPool, PoolConfig};
///
/// let pool = BufferPool::new(PoolConfig::default())?;
/// let buf = pool.acquire_owned(5000)?;
/// let buf = std::thread::spawn(move || buf).join().unwrap(); // it can travel
/// pool.release(buf);
/// assert_eq!(pool.stats().returns(), 1);
/// # Ok::<(), buffer_pool::Error>(())
/// ```
pub struct PooledBuffer {
    block: Block,
}

impl PooledBuffer {
    /// Start of the buffer, for handing to C; valid while this value lives.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.block.as_ptr()
    }

    /// Gives up ownership as a raw pointer and length; [`PooledBuffer::from_raw`] takes it back.
    pub fn into_raw(self) -> (std::ptr::NonNull<u8>, usize) {
        self.block.into_raw()
    }

    /// Takes back a buffer given up by [`PooledBuffer::into_raw`].
    ///
    /// # Safety
    /// `ptr` and `len` came from one `into_raw` call, and nothing else owns or frees them.
    pub unsafe fn from_raw(ptr: std::ptr::NonNull<u8>, len: usize) -> PooledBuffer {
        // SAFETY: per the caller's contract, these came from Block::into_raw.
        PooledBuffer { block: unsafe { Block::from_raw(ptr, len) } }
    }
}

impl Deref for PooledBuffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.block.bytes()
    }
}

impl DerefMut for PooledBuffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        self.block.bytes_mut()
    }
}

impl std::fmt::Debug for PooledBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PooledBuffer").field("len", &self.len()).finish()
    }
}

#[allow(dead_code)]
fn assert_send_sync() {
    fn is<T: Send + Sync>() {}
    is::<BufferPool>();
    fn send<T: Send>() {}
    send::<PooledBuffer>();
}

#[allow(dead_code)]
const _: Event = Event::Hit;
