//! Acquire + release against the allocator, one thread and two threads on one pool.
//! Reproduce: `cargo bench -p bufkit-buffer-pool --bench pool`.

use std::alloc::{Layout, alloc, dealloc};
use std::hint::black_box;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use buffer_pool::{BufferPool, PoolConfig};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const SIZES: [(usize, &str); 2] = [(64 << 10, "64KiB"), (1 << 20, "1MiB")];

/// Runs `op` `iters` times on each of `threads` threads at once; returns the mean time per op
/// per thread (what one thread waits for one acquire + release while the others contend).
fn contended(threads: usize, iters: u64, op: impl Fn() + Sync) -> Duration {
    let barrier = Barrier::new(threads);
    let total: Duration = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    let start = Instant::now();
                    for _ in 0..iters {
                        op();
                    }
                    start.elapsed()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    total / threads as u32
}

fn malloc_free(size: usize) {
    let layout = Layout::from_size_align(size, 64).unwrap();
    // SAFETY: non-zero size; freed right after with the same layout.
    unsafe {
        let p = alloc(layout);
        black_box(p);
        dealloc(p, layout);
    }
}

fn pool_hit(pool: &BufferPool, size: usize) {
    let mut lease = pool.acquire(size).unwrap();
    lease[0] = 1; // use it, as a caller would
    black_box(&lease);
}

fn acquire_release(c: &mut Criterion) {
    let mut group = c.benchmark_group("acquire-release");
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    for (size, name) in SIZES {
        let pool = BufferPool::new(PoolConfig::default()).unwrap();
        for threads in [1usize, 2] {
            group.bench_function(BenchmarkId::new(format!("pool/{threads}t"), name), |b| {
                b.iter_custom(|iters| contended(threads, iters, || pool_hit(&pool, size)))
            });
            group.bench_function(BenchmarkId::new(format!("malloc-free/{threads}t"), name), |b| {
                b.iter_custom(|iters| contended(threads, iters, || malloc_free(size)))
            });
        }
        group.bench_function(BenchmarkId::new("vec-zeroed/1t", name), |b| b.iter(|| black_box(vec![0u8; size])));
    }
    group.finish();
}

/// What a miss really costs when the allocator must map fresh pages: mmap + touch every page + munmap.
fn fresh_mapping(c: &mut Criterion) {
    let size = 1 << 20;
    let mut group = c.benchmark_group("fresh-1MiB");
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    group.bench_function("mmap-touch-munmap", |b| {
        b.iter(|| {
            // SAFETY: an anonymous mapping we touch and unmap ourselves.
            unsafe {
                let p = libc_mmap(size);
                for i in (0..size).step_by(4096) {
                    *p.add(i) = 1;
                }
                libc_munmap(p, size);
            }
        })
    });
    let pool = BufferPool::new(PoolConfig::default()).unwrap();
    group.bench_function("pool-hit-touch-first-byte", |b| b.iter(|| pool_hit(&pool, size)));
    group.finish();
}

unsafe extern "C" {
    fn mmap(addr: *mut u8, len: usize, prot: i32, flags: i32, fd: i32, off: i64) -> *mut u8;
    fn munmap(addr: *mut u8, len: usize) -> i32;
}

unsafe fn libc_mmap(len: usize) -> *mut u8 {
    // PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS (Linux values)
    // SAFETY: anonymous mapping with no hint.
    let p = unsafe { mmap(std::ptr::null_mut(), len, 0x1 | 0x2, 0x02 | 0x20, -1, 0) };
    assert!(!p.is_null() && p as isize != -1);
    p
}

unsafe fn libc_munmap(p: *mut u8, len: usize) {
    // SAFETY: p/len is a mapping made by libc_mmap.
    unsafe { munmap(p, len) };
}

criterion_group!(benches, acquire_release, fresh_mapping);
criterion_main!(benches);
