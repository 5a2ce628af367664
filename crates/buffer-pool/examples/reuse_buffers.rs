//! Reads 200 files through one pool's buffers, as an app copying its assets out would: after the
//! first, every buffer comes from this thread's cache instead of a fresh allocation.
//!
//! ```sh
//! cargo run --release -p bufkit-buffer-pool --example reuse_buffers
//! ```

use buffer_pool::{BufferPool, PoolConfig};

fn main() -> Result<(), buffer_pool::Error> {
    let pool = BufferPool::new(PoolConfig { max_retained_bytes: 1 << 20, ..PoolConfig::default() })?;
    let mut checksum = 0u64;
    for file in 0..200u64 {
        let mut buffer = pool.acquire(100 * 1024)?; // the 128 KiB class
        buffer.fill(file as u8); // stands for reading the file into it
        checksum = checksum.wrapping_add(buffer.iter().map(|&b| u64::from(b)).sum::<u64>());
    } // each buffer goes back to the pool here
    let stats = pool.stats();
    println!(
        "200 buffers: {} from the pool, {} allocated; {} bytes retained (cap 1 MiB); checksum {checksum}",
        stats.hits(),
        stats.misses(),
        stats.retained_bytes
    );
    Ok(())
}
