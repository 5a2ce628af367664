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
    shared: Arc<Shared>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.shared.closed.store(true, Ordering::Release);
        with_local(&self.shared, |local| local.flush());
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
        Ok(BufferPool { handle: Arc::new(Handle { shared: Arc::new(Shared::new(config)) }) })
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
        let block = self.take_block(size)?;
        Ok(Lease { pool: self, block: std::mem::ManuallyDrop::new(block) })
    }

    /// Like [`acquire`](Self::acquire), for a buffer that outlives any borrow of the pool (a C
    /// caller's lease, a buffer handed to another thread). Give it back with [`release`](Self::release).
    pub fn acquire_owned(&self, size: usize) -> Result<PooledBuffer, Error> {
        Ok(PooledBuffer { block: self.take_block(size)? })
    }

    /// Takes back a buffer acquired from this pool or any other: a buffer whose size is one of
    /// this pool's classes is kept (within the caps), any other is freed.
    pub fn release(&self, buffer: PooledBuffer) {
        self.put_block(buffer.block);
    }

    #[inline]
    fn take_block(&self, size: usize) -> Result<Block, Error> {
        if size == 0 {
            return Err(Error::ZeroSize);
        }
        let shared = self.shared();
        let Some(class) = shared.config.class_of(size) else {
            with_local(shared, |local| local.counters().count_oversize());
            return Block::allocate(size);
        };
        let mut block = match with_local(shared, |local| local.take(class)) {
            Some(Some(block)) => block,
            Some(None) => return Block::allocate(shared.config.class_size(class)),
            // This thread is exiting: no cache to count in; use the shared pool alone.
            None => match shared.pop(class) {
                Some(block) => {
                    shared.unreserve(block.size());
                    block
                }
                None => return Block::allocate(shared.config.class_size(class)),
            },
        };
        if shared.config.zero_on_acquire {
            block.bytes_mut().fill(0);
        }
        Ok(block)
    }

    #[inline]
    fn put_block(&self, block: Block) {
        let shared = self.shared();
        let size = block.size();
        let class = match shared.config.class_of(size) {
            Some(class) if shared.config.class_size(class) == size => class,
            _ => return drop(block), // oversize, or not a size this pool makes
        };
        let mut pending = Some(block);
        with_local(shared, |local| local.put(class, pending.take().expect("taken once")));
        if let Some(block) = pending {
            // The thread is exiting: straight to the shared pool if the caps allow.
            if shared.reserve(size) {
                shared.push_reserved(class, block);
            }
        }
    }

    /// Frees every idle buffer: the shared pool's and this thread's cache now, other threads'
    /// caches at their next call on this pool.
    pub fn trim(&self) {
        let shared = self.shared();
        shared.generation.fetch_add(1, Ordering::AcqRel);
        with_local(shared, |_| ()); // syncing the generation flushes this thread's cache
        shared.drain();
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
    block: std::mem::ManuallyDrop<Block>,
}

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
        self.pool.put_block(block);
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
