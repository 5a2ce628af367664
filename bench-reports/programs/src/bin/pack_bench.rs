//! The inflate-only pass over a real pack, per engine, in CPU seconds (median of REPS passes).
//! Also writes the object table (stream offset, size as little-endian u64 pairs) that
//! `bench-reports/strided-inflate/git_loop.c` reads, so git's own loop inflates the same objects.
//!
//! Usage: cargo run --release -p bufkit-bench --bin pack_bench -- PACK TABLE_OUT REPS [ENGINE…]
//! With PACK=STREAM:<file>:<size> it times one large zlib stream instead (table of one entry).

use strided_inflate::pack;

#[path = "support/engines.rs"]
mod engines;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (source, table_out, reps) = (&args[1], &args[2], args[3].parse::<usize>().unwrap());
    let chosen: Vec<&str> =
        if args.len() > 4 { args[4..].iter().map(String::as_str).collect() } else { engines::ENGINES.to_vec() };
    let (data, table): (Vec<u8>, Vec<(usize, usize)>) = if let Some(spec) = source.strip_prefix("STREAM:") {
        let (file, size) = spec.rsplit_once(':').unwrap();
        (std::fs::read(file).unwrap(), vec![(0, size.parse().unwrap())])
    } else {
        let bytes = std::fs::read(source).unwrap();
        let mut t = Vec::new();
        pack::walk(&bytes, false, |o, _| t.push((o.offset + o.header_len, o.size))).unwrap();
        (bytes, t)
    };
    engines::write_table(table_out, &table).expect("TABLE_OUT writable");
    let max = table.iter().map(|t| t.1).max().unwrap_or(0);
    let mut out = vec![0u8; max];
    let bytes_out: usize = table.iter().map(|t| t.1).sum();
    for engine in chosen {
        let mut times = Vec::new();
        let mut consumed_total = 0usize;
        for _ in 0..reps {
            let start = engines::cpu_seconds();
            consumed_total = engines::pass(engine, &data, &table, &mut out);
            times.push(engines::cpu_seconds() - start);
        }
        println!(
            "{{\"engine\":\"{engine}\",\"seconds\":{:.6},\"objects\":{},\"bytes_out\":{bytes_out},\"consumed\":{consumed_total}}}",
            engines::median(times),
            table.len()
        );
    }
}
