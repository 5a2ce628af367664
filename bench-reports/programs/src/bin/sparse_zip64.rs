//! Writes a sparse ZIP64 archive: a HOLE-byte entry of zeros that takes no disk, then small stored
//! entries past it, for measuring what reading one of them costs (`bench-reports/asset-extract/
//! only_what_is_asked.py`). Usage: `sparse_zip64 OUT.zip HOLE_BYTES NAME=TEXT...`

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out, hole, files @ ..] = args.as_slice() else {
        eprintln!("usage: sparse_zip64 OUT.zip HOLE_BYTES NAME=TEXT...");
        std::process::exit(2);
    };
    let hole: u64 = hole.parse().expect("HOLE_BYTES is a number");
    let files: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|f| {
            let (name, text) = f.split_once('=').expect("NAME=TEXT");
            (name.to_string(), text.as_bytes().to_vec())
        })
        .collect();
    test_support::zip::write_sparse_zip64(std::path::Path::new(out), hole, &files)
}
