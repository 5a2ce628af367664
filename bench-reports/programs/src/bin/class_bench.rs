//! Inflate-only CPU per class of stream, every engine in one run: the objects of a git pack
//! sorted into classes (commits, trees, deltas, small / medium / large blobs, and poorly
//! compressible objects of any type), each class timed on its own per engine, engines alternating
//! round by round. Also writes each class's object table (little-endian u64 offset, size pairs)
//! to DIR/CLASS.table, so `git_loop.c` and the zlib-ng helper time exactly the same streams.
//!
//! Usage: cargo run --release -p bufkit-bench --bin class_bench -- PACK DIR ROUNDS
//! Prints one JSON line per class and engine: median CPU seconds of one pass over the class.

use std::collections::BTreeMap;

use strided_inflate::pack::{self, Kind};

#[path = "support/engines.rs"]
mod engines;

/// The class of an object: poorly compressible first (whatever its type), then by type and size.
fn class_of(object: &pack::Object) -> &'static str {
    if object.size >= 64 && object.compressed_len * 10 >= object.size * 9 {
        return "incompressible";
    }
    match object.kind {
        Kind::Commit | Kind::Tag => "commit",
        Kind::Tree => "tree",
        Kind::OfsDelta | Kind::RefDelta => "delta",
        Kind::Blob if object.size < 4 << 10 => "blob<4KiB",
        Kind::Blob if object.size < 64 << 10 => "blob<64KiB",
        Kind::Blob => "blob>=64KiB",
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, pack_path, dir, rounds] = &args[..] else {
        panic!("usage: class_bench PACK DIR ROUNDS");
    };
    let rounds: usize = rounds.parse().expect("ROUNDS is a number");
    let data = std::fs::read(pack_path).expect("PACK readable");
    let mut classes: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
    pack::walk(&data, false, |o, _| classes.entry(class_of(o)).or_default().push((o.offset + o.header_len, o.size)))
        .expect("a valid pack");
    std::fs::create_dir_all(dir).expect("DIR writable");
    let max = classes.values().flatten().map(|t| t.1).max().unwrap_or(0);
    let mut out = vec![0u8; max];
    let timed = ["bufkit", "libdeflate-direct", "flate2-zlib-rs"];
    for (class, table) in &classes {
        engines::write_table(&format!("{dir}/{class}.table"), table).expect("table writable");
        // Enough passes per round for about 20 ms of work, so the clock's resolution does not matter.
        let bytes_out: usize = table.iter().map(|t| t.1).sum();
        let start = engines::cpu_seconds();
        let reference = engines::pass("bufkit", &data, table, &mut out);
        let passes = ((0.02 / (engines::cpu_seconds() - start).max(1e-6)) as usize).clamp(1, 1000);
        let mut times: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for _ in 0..rounds {
            for engine in timed {
                let start = engines::cpu_seconds();
                for _ in 0..passes {
                    assert_eq!(engines::pass(engine, &data, table, &mut out), reference, "{engine} on {class}");
                }
                times.entry(engine).or_default().push((engines::cpu_seconds() - start) / passes as f64);
            }
        }
        let mut sizes: Vec<usize> = table.iter().map(|t| t.1).collect();
        sizes.sort_unstable();
        for (engine, t) in times {
            println!(
                "{{\"class\":\"{class}\",\"engine\":\"{engine}\",\"seconds\":{:.9},\"objects\":{},\"median_size\":{},\"bytes_out\":{bytes_out},\"consumed\":{reference}}}",
                engines::median(t),
                table.len(),
                sizes[sizes.len() / 2]
            );
        }
    }
}
