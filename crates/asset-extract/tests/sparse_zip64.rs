//! What reading one small entry of a multi-GiB archive costs: what that entry costs. The archive
//! is sparse (its 5 GiB entry is a hole in the file), so the test is free on disk; it was 4.3 s
//! and 5 GiB of memory when extraction read the whole archive first.

use std::path::PathBuf;

use asset_extract::{AssetArchive, Holding, Options, extract};
use test_support::zip::write_sparse_zip64;

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn one_small_entry_of_a_5_gib_zip64_archive_is_read_and_extracted_without_reading_the_rest() {
    let dir = TempDir(std::env::temp_dir().join(format!("bufkit-sparse-zip64-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).unwrap();
    let zip = dir.0.join("huge.zip");
    let small = b"thirty bytes of a small asset\n".to_vec();
    let files = vec![("assets/small.txt".to_string(), small.clone()), ("assets/other.txt".to_string(), b"x".to_vec())];
    write_sparse_zip64(&zip, 5 << 30, &files).unwrap();
    assert!(std::fs::metadata(&zip).unwrap().len() > 5 << 30);

    let archive = AssetArchive::open(&zip, Holding::Read).unwrap();
    assert_eq!(archive.entries()[0].size, 5 << 30);
    assert_eq!(archive.read(archive.find("assets/small.txt").unwrap()).unwrap(), small);
    // A slice of the small entry costs the slice, not the 5 GiB entry beside it.
    let mut slice = [0u8; 5];
    assert_eq!(archive.read_at(archive.find("assets/small.txt").unwrap(), 7, &mut slice).unwrap(), 5);
    assert_eq!(&slice, &small[7..12]);
    assert_eq!(archive.checkpoint_memory(), 0);

    let out = dir.0.join("out");
    let report = extract(&zip, &out, &Options { only: vec!["assets/small.txt".into()], ..Options::default() }).unwrap();
    assert_eq!((report.files, report.skipped), (1, 2));
    assert_eq!(std::fs::read(out.join("assets/small.txt")).unwrap(), small);
}
