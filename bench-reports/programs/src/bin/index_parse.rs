//! A pack index parsed both ways, alternating in one process: `Index::parse` (read the `.idx`,
//! radix-sort by offset) and `Index::parse_with_reverse` (the `.rev` gives the pack order). Checks
//! that both give the same index, then prints the median time of each over ROUNDS rounds.
//!
//! Run: `cargo run --release -p bufkit-bench --bin index_parse -- PACK.idx [ROUNDS]`
//! (the `.rev` beside it is read too).

use std::time::Instant;

use strided_inflate::pack::Index;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let idx_path = args.next().expect("usage: index_parse PACK.idx [ROUNDS]");
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(21);
    let idx = std::fs::read(&idx_path).expect("readable .idx");
    let rev = std::fs::read(idx_path.replace(".idx", ".rev")).expect("a .rev beside the .idx");
    let sorted = Index::parse(&idx).expect("a valid .idx");
    assert_eq!(Index::parse_with_reverse(&idx, &rev).expect("a valid .rev"), sorted);
    let (mut by_sort, mut by_rev) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        std::hint::black_box(Index::parse(&idx).unwrap());
        by_sort.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        std::hint::black_box(Index::parse_with_reverse(&idx, &rev).unwrap());
        by_rev.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let (s, r) = (median(by_sort), median(by_rev));
    println!("{} objects: parse {s:.2} ms, parse_with_reverse {r:.2} ms ({:.2}×)", sorted.entries.len(), s / r);
}
