//! loom models of the shared pool and the thread-cache hand-off. Run with
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p bufkit-buffer-pool --test loom --release`
//! (the test command uses bound 2; the longer documented run uses 3).
#![cfg(loom)]

use buffer_pool::{BufferPool, PoolConfig};
use loom::thread;

fn small_pool(max_retained_bytes: usize, thread_cache_buffers: usize) -> BufferPool {
    BufferPool::new(PoolConfig {
        min_class_size: 4096,
        max_class_size: 8192,
        max_retained_bytes,
        max_buffers_per_class: 2,
        thread_cache_buffers,
        decay_after: None,
        ..PoolConfig::default()
    })
    .unwrap()
}

/// Two threads return buffers at once into a pool with room for one: the cap is never passed and
/// every buffer is either kept or freed, never both or neither.
#[test]
fn concurrent_returns_never_pass_the_cap() {
    loom::model(|| {
        let pool = small_pool(4096, 1);
        let a = pool.acquire_owned(4096).unwrap();
        let b = pool.acquire_owned(4096).unwrap();
        let other = pool.clone();
        let t = thread::spawn(move || other.release(a));
        pool.release(b);
        assert!(pool.retained_bytes() <= 4096);
        t.join().unwrap();
        let s = pool.stats();
        assert!(s.retained_bytes <= 4096, "{s:?}");
        assert_eq!(s.returns() + s.drops_over_cap(), 2, "{s:?}");
        assert_eq!(s.returns(), 1, "exactly one fits: {s:?}");
    });
}

/// A thread caches a buffer and hands its cache off (as it does at exit; loom's join does not wait
/// for thread-local destructors, so the hand-off is called explicitly) while another thread works
/// the same pool: the buffer lands in the shared pool and the accounting comes back to zero.
#[test]
fn thread_exit_hands_its_cache_over() {
    loom::model(|| {
        let pool = small_pool(4 * 8192, 2);
        let other = pool.clone();
        let t = thread::spawn(move || {
            drop(other.acquire(4096).unwrap());
            other.return_thread_cache();
        });
        drop(pool.acquire(8192).unwrap());
        t.join().unwrap();
        let s = pool.stats();
        assert_eq!(s.misses(), 2, "{s:?}");
        assert_eq!(s.retained_bytes, 4096 + 8192, "both buffers idle, nothing reserved twice: {s:?}");
        assert_eq!(s.classes[0].idle_shared, 1, "the exited thread's buffer is in the shared pool: {s:?}");
        pool.trim();
        assert_eq!(pool.retained_bytes(), 0, "after trim: {:?}", pool.stats());
    });
}

/// A trim racing a return: whatever the order, nothing is reserved for a freed buffer.
#[test]
fn trim_racing_a_return_keeps_the_books_straight() {
    loom::model(|| {
        let pool = small_pool(4 * 8192, 0);
        let lease = pool.acquire_owned(4096).unwrap();
        let other = pool.clone();
        let t = thread::spawn(move || other.release(lease));
        pool.trim();
        t.join().unwrap();
        let s = pool.stats();
        assert_eq!(s.retained_bytes, s.classes[0].idle_shared * 4096, "{s:?}");
        pool.trim();
        assert_eq!(pool.retained_bytes(), 0);
    });
}

/// Three threads acquire and return buffers of two classes through their caches and the shared
/// pool under a tight cap; every observation respects the cap, and once every cache is handed
/// off, the books equal exactly what the shared pool holds.
#[test]
fn three_threads_churning_keep_the_cap_and_the_books() {
    loom::model(|| {
        let pool = small_pool(4096 + 8192, 1);
        let workers: Vec<_> = (0..2)
            .map(|t| {
                let pool = pool.clone();
                thread::spawn(move || {
                    let size = if t == 0 { 4096 } else { 8192 };
                    drop(pool.acquire(size).unwrap());
                    drop(pool.acquire(4096).unwrap());
                    assert!(pool.retained_bytes() <= 4096 + 8192);
                    pool.return_thread_cache();
                })
            })
            .collect();
        drop(pool.acquire(8192).unwrap());
        assert!(pool.retained_bytes() <= 4096 + 8192);
        for w in workers {
            w.join().unwrap();
        }
        pool.return_thread_cache();
        let s = pool.stats();
        let idle: usize = s.classes.iter().map(|c| c.idle_shared * c.size).sum();
        assert_eq!(s.retained_bytes, idle, "{s:?}");
        assert!(s.retained_bytes <= 4096 + 8192, "{s:?}");
        assert_eq!(s.hits() + s.misses(), 5, "{s:?}");
    });
}

/// Two threads take back the same lease at once (a double release racing the real one): exactly
/// one gets the buffer, and the count of leases out comes back to zero.
#[test]
fn a_double_take_back_has_one_winner() {
    loom::model(|| {
        let pool = small_pool(8192, 1);
        let lent = pool.lend(100).unwrap();
        let other = pool.clone();
        let t = thread::spawn(move || other.take_back(lent).is_ok());
        let here = pool.take_back(lent).is_ok();
        let there = t.join().unwrap();
        assert!(here ^ there, "exactly one release wins: {here} {there}");
        assert_eq!(pool.outstanding_leases(), 0);
    });
}

/// Lends and take-backs on two threads at once share the lease slots: no slot is handed to both,
/// and a forged take-back (right id, wrong data) racing them takes nothing.
#[test]
fn concurrent_lends_never_share_a_slot() {
    loom::model(|| {
        let pool = small_pool(8192, 1);
        let first = pool.lend(64).unwrap();
        pool.take_back(first).unwrap(); // one slot in this thread's cache
        let other = pool.clone();
        let t = thread::spawn(move || {
            let lent = other.lend(64).unwrap();
            let forged = buffer_pool::Lent {
                data: std::ptr::NonNull::new(lent.data.as_ptr().wrapping_add(64)).unwrap(),
                ..lent
            };
            assert!(other.take_back(forged).is_err(), "forged data");
            lent
        });
        let mine = pool.lend(64).unwrap();
        let theirs = t.join().unwrap();
        assert_ne!(mine.id as u32, theirs.id as u32, "two live leases, two slots");
        assert_ne!(mine.data, theirs.data, "two live leases, two buffers");
        assert_eq!(pool.outstanding_leases(), 2);
        pool.take_back(theirs).unwrap();
        pool.take_back(mine).unwrap();
        assert_eq!(pool.outstanding_leases(), 0);
    });
}

/// Issue 29, 2: closing a pool frees what live threads cache for it, and a thread that forgets
/// the closed pool's cache (on its next new pool) may do so at the same moment: whichever comes
/// first empties the cache, the other finds it empty, and no buffer is freed twice.
#[test]
fn a_closing_pool_and_a_thread_forgetting_it_free_its_cache_once() {
    loom::model(|| {
        let pool = small_pool(4 * 8192, 2);
        let other = pool.clone();
        let t = thread::spawn(move || {
            drop(other.acquire(4096).unwrap()); // cached by this thread
            drop(other);
            let fresh = small_pool(8192, 1); // forgets caches of closed pools
            drop(fresh.acquire(4096).unwrap());
            fresh.return_thread_cache();
        });
        drop(pool);
        t.join().unwrap();
    });
}
