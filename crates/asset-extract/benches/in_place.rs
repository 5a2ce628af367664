//! Assets in place, inside Rust: opening an APK-shaped archive, a lookup, a stored entry's view,
//! and a deflated entry read whole against strided-inflate's decoder on the same bytes (issue 12:
//! ≤ 1.05×). The C, Java and Erlang numbers are in `bench-reports/assets-in-place.md`.
//! Reproduce: `cargo bench -p bufkit-asset-extract --bench in_place`.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use asset_extract::{AssetArchive, Holding, Kind, LocalHeaders, Method};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use strided_inflate::{Decoder, Format};

#[path = "support/apk.rs"]
mod apk;

use apk::apk;

fn archive_file() -> PathBuf {
    let dir = if std::path::Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
    let path = dir.join(format!("bufkit-bench-in-place-{}.apk", std::process::id()));
    std::fs::write(&path, apk()).expect("writing the bench archive");
    path
}

fn open(c: &mut Criterion, path: &std::path::Path) {
    let mut group = c.benchmark_group("open-222-entries");
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    for (name, holding, local_headers) in [
        ("read/at-open", Holding::Read, LocalHeaders::AtOpen),
        ("read/on-first-read", Holding::Read, LocalHeaders::OnFirstRead),
        ("map/at-open", Holding::Map, LocalHeaders::AtOpen),
        ("map/on-first-read", Holding::Map, LocalHeaders::OnFirstRead),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| black_box(AssetArchive::open_with(path, holding, local_headers).unwrap()))
        });
    }
    group.finish();
}

fn lookup_and_view(c: &mut Criterion, path: &std::path::Path) {
    let archive = AssetArchive::open(path, Holding::Map).unwrap();
    let mut group = c.benchmark_group("lookup");
    group.bench_function("find", |b| b.iter(|| black_box(archive.find(black_box("assets/js/module117.js")))));
    let stored = archive.find("res/drawable/icon7.png").unwrap();
    group.bench_function("view-stored", |b| b.iter(|| black_box(archive.view(black_box(stored)).unwrap())));
    group.finish();
}

/// One deflated entry read whole, against the decoder alone on the same bytes.
fn deflated_entry(c: &mut Criterion, path: &std::path::Path) {
    let zip = std::fs::read(path).unwrap();
    let entries = asset_extract::read_entries(&zip).unwrap();
    let mut group = c.benchmark_group("deflated-entry");
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    // A small, a typical and a large script.
    for target in [2_000u64, 30_000, 110_000] {
        let (index, e) = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.kind == Kind::File && e.method == Method::Deflate)
            .min_by_key(|(_, e)| e.size.abs_diff(target))
            .unwrap();
        let src = &zip[e.data_offset as usize..(e.data_offset + e.compressed_size) as usize];
        let mut out = vec![0u8; e.size as usize];
        let label = format!("{}KB", e.size / 1000);
        group.throughput(Throughput::Bytes(e.size));
        let mut decoder = Decoder::new(Format::Raw).unwrap();
        group.bench_function(format!("decoder/{label}"), |b| {
            b.iter(|| black_box(decoder.inflate_at(black_box(src), 0, &mut out).unwrap()))
        });
        group.bench_function(format!("decoder+crc32/{label}"), |b| {
            b.iter(|| {
                decoder.inflate_at(black_box(src), 0, &mut out).unwrap();
                black_box(crc32fast::hash(&out))
            })
        });
        for (name, holding) in [("map", Holding::Map), ("read", Holding::Read)] {
            let archive = AssetArchive::open(path, holding).unwrap();
            archive.read_into(index, &mut out).unwrap(); // the first read checks the CRC (every read does, in the read holding)
            group.bench_function(format!("archive-{name}/{label}"), |b| {
                b.iter(|| archive.read_into(black_box(index), &mut out).unwrap())
            });
        }
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let path = archive_file();
    open(c, &path);
    lookup_and_view(c, &path);
    deflated_entry(c, &path);
    let _ = std::fs::remove_file(&path);
}

criterion_group!(in_place, benches);
criterion_main!(in_place);
