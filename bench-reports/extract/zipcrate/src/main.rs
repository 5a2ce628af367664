//! Extracts ARCHIVE into DEST with the `zip` crate's own `ZipArchive::extract` (one thread).
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let file = std::fs::File::open(&args[1]).expect("archive");
    let mut archive = zip::ZipArchive::new(file).expect("a zip");
    archive.extract(&args[2]).expect("extraction");
}
