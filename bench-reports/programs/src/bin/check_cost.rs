//! What the safety checks cost: validating the whole archive (end records, every central and
//! local header, names, overlaps) and CRC-32 of every entry, against a full 1-thread extraction.
//! Usage: cargo run --release -p bufkit-bench --bin check_cost -- ARCHIVE DEST_DIR [ROUNDS]

use std::time::Instant;

use asset_extract::{Options, extract, extract_to_memory, read_entries};

mod support;

use support::median;

fn main() {
    let (archive, data, root, rounds) = support::args();
    let (archive, root) = (archive.as_path(), root.as_path());
    let one = Options { threads: 1, ..Options::default() };
    let (mut parse, mut crc, mut full) = (Vec::new(), Vec::new(), Vec::new());
    let files = extract_to_memory(&data, &one).unwrap();
    for _ in 0..rounds {
        let start = Instant::now();
        std::hint::black_box(read_entries(&data).unwrap());
        parse.push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        for (_, bytes) in &files {
            std::hint::black_box(crc32fast::hash(bytes));
        }
        crc.push(start.elapsed().as_secs_f64());
        let dest = root.join("full");
        let _ = std::fs::remove_dir_all(&dest);
        let start = Instant::now();
        extract(archive, &dest, &one).unwrap();
        full.push(start.elapsed().as_secs_f64());
    }
    let (p, c, f) = (median(parse), median(crc), median(full));
    println!(
        "{{\"archive\":\"{}\",\"validate_s\":{p:.5},\"crc32_s\":{c:.5},\"extract_1_thread_s\":{f:.4},\"validate_share\":{:.4},\"crc_share\":{:.4}}}",
        archive.display(),
        p / f,
        c / f
    );
    let _ = std::fs::remove_dir_all(root.join("full"));
}
