//! The pool handle, and the guards that hand its buffers out.

use std::ops::{Deref, DerefMut};
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
        self.shared.drain();
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
        let shared = self.shared();
        let size = buffer.block.size();
        match shared.config.class_of(size) {
            Some(class) if shared.config.class_size(class) == size => self.put_block(buffer.block, class),
            _ => drop(buffer), // oversize, or not a size this pool makes
        }
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
