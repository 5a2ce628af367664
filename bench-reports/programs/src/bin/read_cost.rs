//! Reads one deflated entry of the bench archive `ROUNDS` times one way, so that two ways can be
//! compared by the instructions they execute (noise-free, unlike time on a shared machine):
//!
//! ```sh
//! cargo build --release -p bufkit-bench --bin read_cost
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/read_cost map 30000 0
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/read_cost map 30000 200
//! ```
//!
//! The difference of the two totals over 200 is one read's cost. Ways: `decoder` (strided-inflate's
//! decoder on the entry's bytes), `decoder+crc32` (and the CRC-32 of the output), `map` and `read`
//! (`AssetArchive::read_into`, mapped or with `pread`, after a first read that checked the CRC).
//! `bench-reports/assets-in-place/read_cost.sh` runs them all.

use std::hint::black_box;

use asset_extract::{AssetArchive, Holding, Kind, Method};
use strided_inflate::{Decoder, Format};

#[path = "../../../../crates/asset-extract/benches/support/apk.rs"]
mod apk;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, way, target, rounds] = &args[..] else {
        return Err("usage: read_cost decoder|decoder+crc32|map|read TARGET_SIZE ROUNDS".into());
    };
    let (target, rounds): (u64, usize) = (target.parse()?, rounds.parse()?);
    let zip = apk::apk();
    let path = std::env::temp_dir().join(format!("bufkit-read-cost-{}.apk", std::process::id()));
    std::fs::write(&path, &zip)?;
    let entries = asset_extract::read_entries(&zip)?;
    let (index, e) = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == Kind::File && e.method == Method::Deflate)
        .min_by_key(|(_, e)| e.size.abs_diff(target))
        .ok_or("no deflated entry")?;
    let src = &zip[e.data_offset as usize..(e.data_offset + e.compressed_size) as usize];
    let mut out = vec![0u8; e.size as usize];
    let mut decoder = Decoder::new(Format::Raw)?;
    let holding = if way == "read" { Holding::Read } else { Holding::Map };
    let archive = AssetArchive::open(&path, holding)?;
    archive.read_into(index, &mut out)?; // warm: the decoder, the scratch buffer, the first CRC
    decoder.inflate_at(src, 0, &mut out)?;
    for _ in 0..rounds {
        match way.as_str() {
            "decoder" => drop(black_box(decoder.inflate_at(black_box(src), 0, &mut out)?)),
            "decoder+crc32" => {
                decoder.inflate_at(black_box(src), 0, &mut out)?;
                black_box(crc32fast::hash(&out));
            }
            "map" | "read" => archive.read_into(black_box(index), &mut out)?,
            other => return Err(format!("unknown way {other}").into()),
        }
    }
    std::fs::remove_file(&path)?;
    println!("{way} entry of {} bytes ({} compressed), {rounds} reads", e.size, e.compressed_size);
    Ok(())
}
