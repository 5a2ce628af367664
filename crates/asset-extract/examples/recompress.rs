//! Writes a copy of a zip archive whose files are compressed with another method, for the
//! methods' speed table (`bench-reports/extract/methods_speed.py`):
//!
//! ```sh
//! cargo run --release -p bufkit-asset-extract --example recompress -- IN.zip bzip2|lzma|zstd|xz OUT.zip
//! ```
//!
//! Each method at its encoder's default level (bzip2 9, LZMA and XZ preset 6, Zstandard 3).
//! Directories are left out and empty files stored; names and contents are kept, in the same
//! order.

use std::io::Write;

use asset_extract::{AssetArchive, Holding, Kind};

#[allow(dead_code)]
#[path = "../tests/zipwriter/mod.rs"]
mod zipwriter;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, method, output] = &args[..] else {
        eprintln!("usage: recompress IN.zip bzip2|lzma|zstd|xz OUT.zip");
        std::process::exit(2);
    };
    let archive = AssetArchive::open(std::path::Path::new(input), Holding::Read).expect("the input opens");
    type Encode = fn(&[u8]) -> Vec<u8>;
    let (code, encode): (u16, Encode) = match method.as_str() {
        "bzip2" => (12, bzip2),
        "lzma" => (14, lzma),
        "zstd" => (93, |data| zstd::encode_all(data, 3).expect("zstd")),
        "xz" => (95, xz),
        other => panic!("no such method: {other}"),
    };
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

fn bzip2(data: &[u8]) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn xz(data: &[u8]) -> Vec<u8> {
    let mut e = liblzma::write::XzEncoder::new(Vec::new(), 6);
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// LZMA as zip frames it (APPNOTE 5.8.8), from liblzma's `.lzma` output, with an end marker.
fn lzma(data: &[u8]) -> Vec<u8> {
    let options = liblzma::stream::LzmaOptions::new_preset(6).unwrap();
    let stream = liblzma::stream::Stream::new_lzma_encoder(&options).unwrap();
    let mut e = liblzma::write::XzEncoder::new_stream(Vec::new(), stream);
    e.write_all(data).unwrap();
    let alone = e.finish().unwrap();
    let mut out = vec![9, 20, 5, 0];
    out.extend_from_slice(&alone[..5]);
    out.extend_from_slice(&alone[13..]);
    out
}
