//! With `zip ARCHIVE DEST`: extracts ARCHIVE into DEST with the `zip` crate's own
//! `ZipArchive::extract` (one thread). With `zip test ARCHIVE`: reads every entry to the end, which
//! checks its CRC-32, writing nothing (what `bufkit test` and `7z t` do).
use std::io::Read;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args[1] == "test" {
        let file = std::fs::File::open(&args[2]).expect("archive");
        let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file)).expect("a zip");
        let mut buf = vec![0u8; 64 << 10];
        for i in 0..archive.len() {
            let mut entry = archive.by_index(i).expect("an entry");
            while entry.read(&mut buf).expect("the entry reads and its CRC-32 matches") > 0 {}
        }
        return;
    }
    let file = std::fs::File::open(&args[1]).expect("archive");
    let mut archive = zip::ZipArchive::new(file).expect("a zip");
    archive.extract(&args[2]).expect("extraction");
}
