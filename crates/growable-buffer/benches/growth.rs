//! Appending 20–30-byte pieces under each policy, against one memcpy of the same total into
//! fresh memory measured in the same run. Reproduce: `cargo bench -p bufkit-growable-buffer --bench growth`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use growable_buffer::workload::{fill, memcpy_into_fresh_pages, piece_lengths};
use growable_buffer::{GrowableBuffer, Growth};

const MB: usize = 1_000_000;

fn policies(total: usize) -> Vec<(&'static str, Growth)> {
    let mut p = vec![
        ("geometric-x2", Growth::Geometric { factor: 2.0 }),
        ("geometric-x1.5", Growth::Geometric { factor: 1.5 }),
        ("segmented-64k", Growth::Segmented { chunk_size: 64 * 1024 }),
    ];
    if total <= 4 * MB {
        p.push(("linear-2k", Growth::Linear { step: 2048 })); // quadratic: minutes at 40 MB
    }
    p
}

fn appends(c: &mut Criterion) {
    let sizes: Vec<usize> = std::env::var("GROWTH_BENCH_MB")
        .map(|v| v.split(',').map(|s| s.trim().parse::<usize>().expect("GROWTH_BENCH_MB: list of MB") * MB).collect())
        .unwrap_or_else(|_| vec![MB, 40 * MB, 400 * MB]);
    for total in sizes {
        let source: Vec<u8> = (0..total).map(|i| (i * 31 % 251) as u8).collect();
        let lens = piece_lengths(total);
        let mut group = c.benchmark_group(format!("append-{}MB", total / MB));
        group.throughput(Throughput::Bytes(total as u64));
        group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
        group.bench_function("memcpy-fresh", |b| b.iter(|| memcpy_into_fresh_pages(black_box(&source))));
        for (name, growth) in policies(total) {
            group.bench_with_input(BenchmarkId::new(name, total / MB), &growth, |b, &growth| {
                b.iter(|| {
                    let mut buf = GrowableBuffer::with_growth(growth).unwrap();
                    fill(&mut buf, &source, &lens).unwrap();
                    black_box(buf)
                })
            });
        }
        group.finish();
    }
}

/// JInterface's case: 700,000 strings of 20–30 characters.
fn jinterface(c: &mut Criterion) {
    let mut lens = Vec::with_capacity(700_000);
    let mut seed = 7u32;
    for _ in 0..700_000 {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        lens.push((20 + (seed >> 16) % 11) as u8);
    }
    let total: usize = lens.iter().map(|&l| l as usize).sum();
    let source: Vec<u8> = (0..total).map(|i| b'a' + (i % 26) as u8).collect();
    let mut group = c.benchmark_group("jinterface-700k-strings");
    group.throughput(Throughput::Bytes(total as u64));
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    group.bench_function("memcpy-fresh", |b| b.iter(|| memcpy_into_fresh_pages(black_box(&source))));
    for (name, growth) in policies(total) {
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut buf = GrowableBuffer::with_growth(growth).unwrap();
                fill(&mut buf, &source, &lens).unwrap();
                black_box(buf)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, appends, jinterface);
criterion_main!(benches);
