//! Writes a copy of a zip archive whose files are compressed with another method, for the
//! methods' speed table (`bench-reports/asset-extract/methods_speed.py`):
//!
//! ```sh
//! cargo run --release -p bufkit-bench --bin recompress -- IN.zip bzip2|lzma|zstd|xz OUT.zip
//! ```
//!
//! Each method at its encoder's default level (bzip2 9, LZMA and XZ preset 6, Zstandard 3).
//! Directories are left out and empty files stored; names and contents are kept, in the same
//! order.

use asset_extract::{AssetArchive, Holding, Kind, Method};

#[allow(dead_code)]
#[path = "../../../../crates/asset-extract/tests/zipwriter/mod.rs"]
mod zipwriter;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, method, output] = &args[..] else {
        eprintln!("usage: recompress IN.zip bzip2|lzma|zstd|xz OUT.zip");
        std::process::exit(2);
    };
    let archive = AssetArchive::open(std::path::Path::new(input), Holding::Read).expect("the input opens");
    let (method, level) = match method.as_str() {
        "bzip2" => (Method::Bzip2, 9),
        "lzma" => (Method::Lzma, 6),
        "zstd" => (Method::Zstd, 3),
        "xz" => (Method::Xz, 6),
        other => panic!("no such method: {other}"),
    };
    let code = method.code();
    let encode = |data: &[u8]| test_support::zip::compress(method, data, level).expect("an encoder");
    let specs: Vec<zipwriter::Spec> = (0..archive.len())
        .filter(|&i| archive.entries()[i].kind == Kind::File)
        .map(|i| {
            let data = archive.read(i).expect("the input reads");
            if data.is_empty() {
                // Stored, as zip tools write empty files (7-Zip reads an empty XZ stream as an error).
                return zipwriter::Spec::stored(&archive.entries()[i].path, &data);
            }
            let body = encode(&data);
            zipwriter::Spec {
                flags: if code == 14 { 2 } else { 0 },
                ..zipwriter::Spec::packed(&archive.entries()[i].path, &data, code, body)
            }
        })
        .collect();
    std::fs::write(output, zipwriter::build(&specs, b"").0).expect("the output is written");
}
