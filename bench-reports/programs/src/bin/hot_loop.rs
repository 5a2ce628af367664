//! A tight acquire/release loop for profiling: `perf record cargo run --release --example hot_loop`.
//! `hot_loop N lend` runs the checked lease that bufkit-ffi's `bk_pool_acquire` / `bk_pool_release`
//! run (`lend` + `take_back`) instead of the guard, for counting what the C ABI adds:
//! `valgrind --tool=callgrind target/release/hot_loop N lend`, at N = 0 and 100000.
use buffer_pool::{BufferPool, PoolConfig};

fn main() {
    let pool = BufferPool::new(PoolConfig::default()).unwrap();
    let iters: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(50_000_000);
    let lend = std::env::args().nth(2).is_some_and(|a| a == "lend");
    let start = std::time::Instant::now();
    for i in 0..iters {
        if lend {
            let lent = pool.lend(64 << 10).unwrap();
            // SAFETY: the pool lent at least 64 KiB at `data` to this loop until take_back.
            unsafe { lent.data.as_ptr().write(i as u8) };
            pool.take_back(std::hint::black_box(lent)).unwrap();
        } else {
            let mut lease = pool.acquire(64 << 10).unwrap();
            lease[0] = 1;
            std::hint::black_box(&lease);
        }
    }
    println!("{:.1} ns per acquire+release", start.elapsed().as_nanos() as f64 / iters as f64);
}
