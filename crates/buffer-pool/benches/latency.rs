//! Tail latency of `acquire` with 4 threads on one pool (oversubscribed on a 2-core machine).
//! Reproduce: `cargo bench -p bufkit-buffer-pool --bench latency`. Prints percentiles; not criterion,
//! because the tail, not the mean, is the point.

use std::hint::black_box;
use std::sync::Barrier;
use std::time::Instant;

use buffer_pool::{BufferPool, PoolConfig};

const THREADS: usize = 4;
const OPS: usize = 500_000;

fn percentile(sorted: &[u64], p: f64) -> u64 {
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)]
}

fn main() {
    let pool = BufferPool::new(PoolConfig::default()).unwrap();
    let barrier = Barrier::new(THREADS);
    let mut all: Vec<u64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (pool, barrier) = (&pool, &barrier);
                s.spawn(move || {
                    let mut samples = Vec::with_capacity(OPS);
                    barrier.wait();
                    for i in 0..OPS {
                        let size = 4096 << ((i + t) % 9); // 4 KiB … 1 MiB, a mix of classes
                        let start = Instant::now();
                        let mut lease = pool.acquire(size).unwrap();
                        let took = start.elapsed().as_nanos() as u64;
                        lease[0] = i as u8;
                        black_box(&lease);
                        drop(lease);
                        samples.push(took);
                    }
                    samples
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    all.sort_unstable();
    let s = pool.stats();
    println!(
        "acquire latency, {THREADS} threads x {OPS} ops, sizes 4 KiB-1 MiB: p50 {} ns, p99 {} ns, p99.9 {} ns, p99.99 {} ns, max {} ns; hits {}, misses {}",
        percentile(&all, 0.50),
        percentile(&all, 0.99),
        percentile(&all, 0.999),
        percentile(&all, 0.9999),
        all[all.len() - 1],
        s.hits(),
        s.misses()
    );
}
