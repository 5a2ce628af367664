//! The same pool three ways, alternating in one process: from Rust with a guard
//! (`acquire` + drop), from Rust as plain-data leases (`lend` + `take_back`), and through the C
//! ABI (`bk_pool_acquire` + `bk_pool_release`, called as C calls them). Each pair writes one
//! byte, as a caller would; each round runs on a thread of its own, where its pool is the only
//! one. Prints the median ns per pair of ROUNDS rounds and the ABI's ratios to the Rust guard and
//! to the checked `lend` + `take_back` the ABI runs (issue 10's target: ≤ 1.3×).
//!
//! Run: `cargo run --release -p bufkit-bench --bin pool_rust_vs_abi -- [ROUNDS]`

use std::hint::black_box;
use std::time::Instant;

use buffer_pool::{BufferPool, PoolConfig};
use bufkit::{bk_lease, bk_pool, bk_pool_acquire, bk_pool_free, bk_pool_new, bk_pool_release, bk_status};

const PAIRS: u32 = 500_000;

/// Times `run` on a thread of its own, where its pool is the only one: a thread's first pool is
/// found first, and a program that uses one pool, from Rust or from C, is what is compared.
fn per_pair(run: impl Fn() + Sync) -> f64 {
    std::thread::scope(|s| {
        s.spawn(|| {
            let start = Instant::now();
            run();
            start.elapsed().as_nanos() as f64 / f64::from(PAIRS)
        })
        .join()
        .expect("the round ran")
    })
}

/// A pool handle the timing threads share: `bk_pool` is thread-safe (its documentation).
#[derive(Clone, Copy)]
struct Handle(*mut bk_pool);
// SAFETY: every bk_pool call may come from any thread; the handle outlives the scoped threads.
unsafe impl Send for Handle {}
// SAFETY: as above.
unsafe impl Sync for Handle {}

impl Handle {
    /// The pointer (a method, so that a closure captures the whole `Handle`, not its field).
    fn get(self) -> *mut bk_pool {
        self.0
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(11);
    println!(
        "| size | Rust `acquire` + drop | Rust `lend` + `take_back` | C ABI acquire + release | ABI ÷ Rust guard | ABI ÷ `lend` |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for size in [4usize << 10, 64 << 10, 1 << 20] {
        let pool = BufferPool::new(PoolConfig::default()).expect("default config");
        let mut handle: *mut bk_pool = std::ptr::null_mut();
        // SAFETY: NULL config means the defaults; the out-pointer is a live local.
        assert_eq!(unsafe { bk_pool_new(std::ptr::null(), &mut handle) }, bk_status::BK_STATUS_OK);
        let guard = || {
            for i in 0..PAIRS {
                let mut lease = pool.acquire(size).expect("pool hit");
                lease[i as usize & 63] = i as u8;
                black_box(&lease);
            }
        };
        let lent = || {
            for i in 0..PAIRS {
                let l = pool.lend(size).expect("pool hit");
                // SAFETY: the pool lent l.len ≥ 64 writable bytes at l.data until take_back.
                unsafe { l.data.as_ptr().add(i as usize & 63).write(i as u8) };
                black_box(l);
                pool.take_back(l).expect("a live lease");
            }
        };
        let shared = Handle(handle);
        let abi = || {
            let handle = shared.get();
            let mut lease = std::mem::MaybeUninit::<bk_lease>::uninit();
            for i in 0..PAIRS {
                // SAFETY: a live pool from bk_pool_new and a writable out-pointer, as C passes them.
                let status = unsafe { bk_pool_acquire(black_box(handle), size, lease.as_mut_ptr()) };
                assert_eq!(status, bk_status::BK_STATUS_OK);
                // SAFETY: filled by the OK acquire just above.
                let l = unsafe { lease.assume_init_ref() };
                // SAFETY: the lease's data[0..len) is writable until released; len ≥ 64.
                unsafe { l.data.add(i as usize & 63).write(i as u8) };
                // SAFETY: the lease just filled in, released once.
                let status = unsafe { bk_pool_release(black_box(handle), lease.as_ptr()) };
                assert_eq!(status, bk_status::BK_STATUS_OK);
            }
        };
        let (mut g, mut l, mut a) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            g.push(per_pair(guard));
            l.push(per_pair(lent));
            a.push(per_pair(abi));
        }
        let (g, l, a) = (median(g), median(l), median(a));
        println!("| {} KiB | {g:.1} ns | {l:.1} ns | {a:.1} ns | {:.2}× | {:.2}× |", size >> 10, a / g, a / l);
        // SAFETY: every lease was released; the pool is freed once.
        assert_eq!(unsafe { bk_pool_free(handle) }, bk_status::BK_STATUS_OK);
    }
}
