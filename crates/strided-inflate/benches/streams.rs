//! Per-stream cost with a reused decoder, and one large stream's throughput.
//! Reproduce: `cargo bench -p bufkit-strided-inflate --bench streams`.

use std::hint::black_box;
use std::io::Write;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use flate2::{Compression, Decompress, FlushDecompress, write::ZlibEncoder};
use strided_inflate::{Decoder, Format};

fn zlib(data: &[u8], level: u32) -> Vec<u8> {
    let mut e = ZlibEncoder::new(Vec::new(), Compression::new(level));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn per_stream(c: &mut Criterion) {
    let mut group = c.benchmark_group("per-stream");
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    // A trivial stream (the smallest git objects are a few bytes) and a typical ~100-byte one.
    let text =
        b"tree 8f2a1c0d\nparent 77e1b2\nauthor A U Thor <a@example.com> 1700000000 +0000\n\nfix the frobnicator\n";
    for (name, data) in [("trivial-5B", &b"hello"[..]), ("commit-100B", &text[..])] {
        let stream = [zlib(data, 6).as_slice(), &[0u8; 1 << 20]].concat(); // a megabyte after it, never read
        let mut out = vec![0u8; data.len()];
        let mut d = Decoder::new(Format::Zlib).unwrap();
        group.bench_function(format!("bufkit/{name}"), |b| {
            b.iter(|| black_box(d.inflate_at(black_box(&stream), 0, &mut out).unwrap()))
        });
        let mut z = Decompress::new(true);
        group.bench_function(format!("flate2-zlib-rs/{name}"), |b| {
            b.iter(|| {
                z.reset(true);
                z.decompress(black_box(&stream), &mut out, FlushDecompress::Finish).unwrap();
                black_box(z.total_in())
            })
        });
    }
    group.finish();
}

fn large_stream(c: &mut Criterion) {
    let data: Vec<u8> = (0..32usize << 20)
        .map(|i| b"def inflate(self, data):\n    return zlib.decompress(data)\n"[i % 58] ^ (i as u8 & 3))
        .collect();
    let stream = zlib(&data, 6);
    let mut out = vec![0u8; data.len()];
    let mut group = c.benchmark_group("large-stream-32MiB");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(10).measurement_time(Duration::from_secs(4));
    let mut d = Decoder::new(Format::Zlib).unwrap();
    group.bench_function("bufkit", |b| b.iter(|| d.inflate_at(&stream, 0, &mut out).unwrap()));
    let mut z = Decompress::new(true);
    group.bench_function("flate2-zlib-rs", |b| {
        b.iter(|| {
            z.reset(true);
            z.decompress(&stream, &mut out, FlushDecompress::Finish).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, per_stream, large_stream);
criterion_main!(benches);
