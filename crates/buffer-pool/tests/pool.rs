//! The pool's rules: classes, reuse, every cap, trim, decay, thread exit, and foreign buffers.
#![cfg(not(loom))]

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use buffer_pool::{BufferPool, Error, PoolConfig};

fn pool(config: PoolConfig) -> BufferPool {
    BufferPool::new(config).unwrap()
}

#[test]
fn reuse_is_lifo_and_counted() {
    let pool = pool(PoolConfig::default());
    let first = pool.acquire(64 << 10).unwrap().as_ptr();
    let second = pool.acquire(64 << 10).unwrap().as_ptr();
    assert_eq!(first, second, "the warm buffer comes back");
    let (a, b) = (pool.acquire(64 << 10).unwrap(), pool.acquire(64 << 10).unwrap());
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    drop(a);
    drop(b);
    assert_eq!(pool.acquire(64 << 10).unwrap().as_ptr(), pb, "last in, first out");
    let _ = pa;
    let s = pool.stats();
    assert_eq!((s.misses(), s.hits(), s.returns()), (2, 3, 5));
}

#[test]
fn requests_get_their_class_size() {
    let pool = pool(PoolConfig::default());
    assert_eq!(pool.acquire(1).unwrap().len(), 4096);
    assert_eq!(pool.acquire(4097).unwrap().len(), 8192);
    assert_eq!(pool.acquire(1 << 20).unwrap().len(), 1 << 20);
    assert_eq!(pool.acquire(0).unwrap_err(), Error::ZeroSize);
    assert!(matches!(pool.acquire(usize::MAX), Err(Error::TooLarge(_))));
    #[cfg(not(miri))] // Miri stops at huge allocations instead of failing them
    assert_eq!(pool.acquire(1 << 47).unwrap_err(), Error::AllocFailed(1 << 47));
}

#[test]
fn oversize_requests_are_never_retained() {
    let pool = pool(PoolConfig::default());
    let big = pool.acquire((4 << 20) + 1).unwrap();
    assert_eq!(big.len(), (4 << 20) + 1);
    drop(big);
    let s = pool.stats();
    assert_eq!((s.oversize_allocations, s.returns(), s.retained_bytes), (1, 0, 0));
}

#[test]
fn buffers_come_back_dirty_unless_zeroing_is_asked_for() {
    let dirty = pool(PoolConfig::default());
    dirty.acquire(100).unwrap()[..4].copy_from_slice(b"used");
    assert_eq!(&dirty.acquire(100).unwrap()[..4], b"used");
    let clean = pool(PoolConfig { zero_on_acquire: true, ..PoolConfig::default() });
    clean.acquire(100).unwrap()[..4].copy_from_slice(b"used");
    assert!(clean.acquire(100).unwrap().iter().all(|&b| b == 0));
    assert!(dirty.acquire(1 << 20).unwrap().iter().all(|&b| b == 0), "fresh buffers are zeroed");
}

#[test]
fn the_retained_cap_frees_what_does_not_fit() {
    let pool = pool(PoolConfig { max_retained_bytes: 3 * 4096, thread_cache_buffers: 8, ..PoolConfig::default() });
    let leases: Vec<_> = (0..5).map(|_| pool.acquire(4096).unwrap()).collect();
    drop(leases);
    let s = pool.stats();
    assert_eq!((s.returns(), s.drops_over_cap(), s.retained_bytes), (3, 2, 3 * 4096));
}

#[test]
fn the_per_class_cap_bounds_the_shared_pool() {
    let pool = pool(PoolConfig { max_buffers_per_class: 2, thread_cache_buffers: 0, ..PoolConfig::default() });
    let leases: Vec<_> = (0..5).map(|_| pool.acquire(4096).unwrap()).collect();
    drop(leases);
    let s = pool.stats();
    assert_eq!((s.classes[0].idle_shared, s.returns(), s.drops_over_cap()), (2, 2, 3));
    assert_eq!(s.retained_bytes, 2 * 4096);
}

#[test]
fn trim_releases_everything_idle() {
    let pool = pool(PoolConfig { thread_cache_buffers: 2, ..PoolConfig::default() });
    let leases: Vec<_> = (0..6).map(|_| pool.acquire(8192).unwrap()).collect();
    drop(leases);
    assert_eq!(pool.retained_bytes(), 6 * 8192);
    pool.trim();
    assert_eq!(pool.retained_bytes(), 0);
    assert_eq!(pool.stats().classes[1].idle_shared, 0);
    drop(pool.acquire(8192).unwrap());
    assert_eq!(pool.stats().misses(), 7, "nothing was left to hit");
}

#[test]
fn trim_reaches_other_threads_caches_at_their_next_call() {
    let pool = pool(PoolConfig::default());
    let (to_worker, worker_rx) = std::sync::mpsc::channel::<()>();
    let (to_main, main_rx) = std::sync::mpsc::channel::<usize>();
    std::thread::scope(|s| {
        let pool = &pool;
        s.spawn(move || {
            drop(pool.acquire(4096).unwrap()); // cached by this thread
            to_main.send(pool.retained_bytes()).unwrap();
            worker_rx.recv().unwrap();
            drop(pool.acquire(16384).unwrap()); // next call: sees the trim, flushes its cache
            to_main.send(0).unwrap();
            worker_rx.recv().unwrap();
        });
        assert_eq!(main_rx.recv().unwrap(), 4096);
        pool.trim();
        to_worker.send(()).unwrap();
        main_rx.recv().unwrap();
        assert_eq!(pool.retained_bytes(), 16384, "only the buffer cached after the trim");
        to_worker.send(()).unwrap();
    });
}

#[test]
fn decay_frees_buffers_idle_too_long() {
    let pool = pool(PoolConfig { thread_cache_buffers: 0, decay_after: None, ..PoolConfig::default() });
    let leases: Vec<_> = (0..3).map(|_| pool.acquire(4096).unwrap()).collect();
    drop(leases);
    assert_eq!(pool.decay(Duration::from_secs(3600)), 0);
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(pool.decay(Duration::from_millis(1)), 3);
    assert_eq!(pool.retained_bytes(), 0);
    assert_eq!(pool.stats().decayed, 3);
}

#[test]
fn automatic_decay_runs_on_slow_paths() {
    let pool = pool(PoolConfig {
        thread_cache_buffers: 0,
        decay_after: Some(Duration::from_millis(4)),
        ..PoolConfig::default()
    });
    drop(pool.acquire(4096).unwrap());
    std::thread::sleep(Duration::from_millis(10));
    let _held = pool.acquire(8192).unwrap(); // a miss: the slow path decays the idle 4 KiB buffer
    let s = pool.stats();
    assert_eq!((s.decayed, s.classes[0].idle_shared, s.retained_bytes), (1, 0, 0));
}

#[test]
fn a_thread_exit_hands_its_cache_to_the_shared_pool() {
    let pool = pool(PoolConfig::default());
    let worker_pool = pool.clone();
    // join() waits for the OS thread, thread-local destructors included (a scoped join does not).
    std::thread::spawn(move || drop(worker_pool.acquire(32 << 10).unwrap())).join().unwrap();
    let s = pool.stats();
    assert_eq!(s.classes[3].idle_shared, 1);
    assert_eq!(s.retained_bytes, 32 << 10);
    drop(pool.acquire(32 << 10).unwrap());
    assert_eq!(pool.stats().hits(), 1, "the exited thread's buffer is reused");
}

#[test]
fn detached_buffers_never_return() {
    let pool = pool(PoolConfig::default());
    let kept = pool.acquire(4096).unwrap().detach();
    assert_eq!(kept.len(), 4096);
    drop(kept);
    assert_eq!(pool.stats().returns(), 0);
}

#[test]
fn foreign_buffers_are_kept_only_if_they_fit_a_class() {
    let small = pool(PoolConfig { min_class_size: 64, max_class_size: 1024, ..PoolConfig::default() });
    let big = pool(PoolConfig::default());
    big.release(small.acquire_owned(100).unwrap()); // 128 bytes: no class of `big`
    assert_eq!(big.stats().returns(), 0);
    small.release(big.acquire_owned(4096).unwrap()); // above `small`'s largest class
    assert_eq!(small.stats().returns(), 0);
    let other = pool(PoolConfig::default());
    other.release(big.acquire_owned(4096).unwrap()); // same classes: reused
    assert_eq!(other.stats().returns(), 1);
}

#[test]
fn the_cap_holds_under_concurrent_load() {
    let cap = 256 << 10; // small enough that returns hit it all the time
    let pool = pool(PoolConfig { max_retained_bytes: cap, thread_cache_buffers: 4, ..PoolConfig::default() });
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            let mut worst = 0;
            while !done.load(Ordering::Relaxed) {
                worst = worst.max(pool.retained_bytes());
            }
            worst
        });
        let workers: Vec<_> = (0..4)
            .map(|t| {
                let pool = &pool;
                s.spawn(move || {
                    let mut held = Vec::new();
                    for i in 0..if cfg!(miri) { 300 } else { 20_000usize } {
                        let size = 4096 << ((i * 7 + t) % 6); // 4 KiB … 128 KiB
                        held.push(pool.acquire(size).unwrap());
                        if held.len() > 6 || i % 3 == 0 {
                            held.truncate(i % 4);
                        }
                        if i % 100 == 37 {
                            pool.trim();
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        done.store(true, Ordering::Relaxed);
        let worst = watcher.join().unwrap();
        assert!(worst <= cap, "retained {worst} bytes, cap {cap}");
    });
    assert!(pool.retained_bytes() <= cap);
    let s = pool.stats();
    assert!(s.hits() > 0 && s.drops_over_cap() > 0, "{s:?}");
}

#[test]
fn a_dropped_pool_leaves_other_threads_working() {
    let (tx, rx) = std::sync::mpsc::channel::<BufferPool>();
    let worker = std::thread::spawn(move || {
        let pool = rx.recv().unwrap();
        drop(pool.acquire(4096).unwrap()); // cached here
        drop(pool);
        let fresh = BufferPool::new(PoolConfig::default()).unwrap(); // prunes the dead cache
        drop(fresh.acquire(4096).unwrap());
        fresh.stats().returns()
    });
    tx.send(BufferPool::new(PoolConfig::default()).unwrap()).unwrap();
    assert_eq!(worker.join().unwrap(), 1);
}

/// Whether the 1 MiB at `addr` are mapped: `msync` fails with ENOMEM on a range that is not.
#[cfg(target_os = "linux")]
fn mapped_at(addr: usize) -> bool {
    // SAFETY: msync only inspects the range; an unmapped one is an error, not a fault.
    unsafe { libc::msync(addr as *mut libc::c_void, 1 << 20, libc::MS_ASYNC) == 0 }
}

/// Issue 29, 2: dropping the pool (`bk_pool_free`) frees the buffers other live threads cache for
/// it, at once: a JVM's or a BEAM's threads never exit, so waiting for their exit leaks them.
#[cfg(target_os = "linux")]
#[test]
fn dropping_the_pool_frees_what_other_live_threads_cache() {
    let pool = std::sync::Arc::new(pool(PoolConfig::default()));
    let (cached_tx, cached_rx) = std::sync::mpsc::channel::<usize>();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let worker = {
        let pool = pool.clone();
        std::thread::spawn(move || {
            let lease = pool.acquire(1 << 20).unwrap();
            let addr = lease.as_ptr() as usize;
            drop(lease); // into this thread's cache
            drop(pool);
            cached_tx.send(addr).unwrap();
            done_rx.recv().unwrap(); // alive until the main thread has looked
        })
    };
    let addr = cached_rx.recv().unwrap();
    assert!(mapped_at(addr), "the cached buffer is a mapping of its own");
    let pool = std::sync::Arc::into_inner(pool).expect("the last handle");
    drop(pool);
    assert!(!mapped_at(addr), "a live thread's cached buffer stayed mapped after the pool was freed");
    done_tx.send(()).unwrap();
    worker.join().unwrap();
}

#[test]
fn a_thread_can_hand_its_cache_over_without_exiting() {
    let pool = pool(PoolConfig::default());
    drop(pool.acquire(4096).unwrap());
    pool.return_thread_cache();
    let s = pool.stats();
    assert_eq!((s.classes[0].idle_shared, s.retained_bytes), (1, 4096));
}

// ---- Leases as plain data (`lend` / `take_back`), as a C caller holds them ----

fn with_data(lent: buffer_pool::Lent, offset: usize) -> buffer_pool::Lent {
    buffer_pool::Lent { data: std::ptr::NonNull::new(lent.data.as_ptr().wrapping_add(offset)).unwrap(), ..lent }
}

#[test]
fn a_lease_is_taken_back_once_and_only_as_lent() {
    let pool = pool(PoolConfig::default());
    let other = self::pool(PoolConfig::default());
    let lent = pool.lend(5000).unwrap();
    assert_eq!(lent.len, 8192);
    assert_eq!(lent.data.as_ptr() as usize % 64, 0);
    assert_eq!(pool.outstanding_leases(), 1);
    for forged in [
        with_data(lent, 64),
        buffer_pool::Lent { len: 4096, ..lent },
        buffer_pool::Lent { id: lent.id ^ (1 << 32), ..lent },
        buffer_pool::Lent { id: lent.id + 1, ..lent },
    ] {
        assert_eq!(pool.take_back(forged), Err(Error::NotLent), "{forged:?}");
    }
    assert_eq!(other.take_back(lent), Err(Error::NotLent), "another pool's lease");
    assert_eq!(pool.outstanding_leases(), 1, "refusals touch nothing");
    pool.take_back(lent).unwrap();
    assert_eq!(pool.take_back(lent), Err(Error::NotLent), "twice");
    assert_eq!(pool.outstanding_leases(), 0);
    // The buffer went back to this thread's cache and comes out again, under a new id.
    let again = pool.lend(8192).unwrap();
    assert_eq!(again.data, lent.data);
    assert_ne!(again.id, lent.id);
    assert_eq!(pool.take_back(lent), Err(Error::NotLent), "the old id stays dead");
    pool.take_back(again).unwrap();
    let s = pool.stats();
    assert_eq!((s.misses(), s.hits(), s.returns()), (1, 1, 2));
}

#[test]
fn lends_follow_the_pool_rules() {
    let pool = pool(PoolConfig { zero_on_acquire: true, ..PoolConfig::default() });
    assert_eq!(pool.lend(0), Err(Error::ZeroSize));
    assert!(matches!(pool.lend(usize::MAX), Err(Error::TooLarge(_))));
    let lent = pool.lend(100).unwrap();
    // SAFETY: the pool lent lent.len writable bytes at lent.data until take_back.
    unsafe { lent.data.as_ptr().write_bytes(0xAB, lent.len) };
    pool.take_back(lent).unwrap();
    let again = pool.lend(100).unwrap();
    assert_eq!(again.data, lent.data, "reused");
    // SAFETY: as above.
    let bytes = unsafe { std::slice::from_raw_parts(again.data.as_ptr(), again.len) };
    assert!(bytes.iter().all(|&b| b == 0), "zeroed on lend, as on acquire");
    pool.take_back(again).unwrap();
    // Above the largest class: served exactly, never retained.
    let big = pool.lend((4 << 20) + 1).unwrap();
    assert_eq!(big.len, (4 << 20) + 1);
    pool.take_back(big).unwrap();
    let s = pool.stats();
    assert_eq!(s.oversize_allocations, 2, "the refused usize::MAX request counts, as with acquire");
    assert_eq!(s.retained_bytes, 4096, "{s:?}");
}

#[test]
fn leases_cross_threads_and_survive_thread_exits() {
    let pool = pool(PoolConfig::default());
    // Lent here, taken back on another thread, which then exits with the slot in its cache.
    let lent: Vec<_> = (0..20).map(|_| pool.lend(4096).unwrap()).collect();
    std::thread::scope(|s| {
        s.spawn(|| {
            for &l in &lent {
                pool.take_back(l).unwrap();
            }
        });
    });
    assert_eq!(pool.outstanding_leases(), 0);
    for &l in &lent {
        assert_eq!(pool.take_back(l), Err(Error::NotLent));
    }
    // Lent on exiting threads and taken back here.
    let from_threads: Vec<_> =
        (0..4).map(|_| std::thread::scope(|s| s.spawn(|| pool.lend(4096).unwrap()).join().unwrap())).collect();
    assert_eq!(pool.outstanding_leases(), 4);
    for l in from_threads {
        pool.take_back(l).unwrap();
    }
    assert_eq!(pool.outstanding_leases(), 0);
}

#[test]
fn many_threads_lend_and_take_back_each_lease_exactly_once() {
    let pool = pool(PoolConfig::default());
    let wins = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for i in 0..1_000usize {
                    let lent = pool.lend(1 + i % 20_000).unwrap();
                    // A second releaser racing the first on another thread: exactly one wins.
                    let twice = std::thread::scope(|s| {
                        let racer = s.spawn(|| pool.take_back(lent).is_ok());
                        let here = pool.take_back(lent).is_ok();
                        (here, racer.join().unwrap())
                    });
                    assert!(twice.0 ^ twice.1, "exactly one take-back wins: {twice:?}");
                    wins.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    assert_eq!(wins.load(Ordering::Relaxed), 4_000);
    assert_eq!(pool.outstanding_leases(), 0);
}

#[test]
fn dropping_the_pool_frees_what_is_still_lent() {
    let pool = pool(PoolConfig::default());
    let _kept = pool.lend(64 << 10).unwrap();
    let _big = pool.lend(8 << 20).unwrap();
    drop(pool); // under Miri or a leak checker, nothing is left behind
}
