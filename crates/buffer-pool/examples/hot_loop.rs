//! A tight acquire/release loop for profiling: `perf record cargo run --release --example hot_loop`.
use buffer_pool::{BufferPool, PoolConfig};

fn main() {
    let pool = BufferPool::new(PoolConfig::default()).unwrap();
    let iters: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(50_000_000);
    let start = std::time::Instant::now();
    for _ in 0..iters {
        let mut lease = pool.acquire(64 << 10).unwrap();
        lease[0] = 1;
        std::hint::black_box(&lease);
    }
    println!("{:.1} ns per acquire+release", start.elapsed().as_nanos() as f64 / iters as f64);
}
