//! The 1-thread target: extracting with one thread should cost at most 1.1× (creating the same
//! files empty + inflating every entry in memory), both measured here, in the same run.
//! Usage: cargo run --release -p bufkit-bench --bin one_thread_bound -- ARCHIVE DEST_DIR [ROUNDS]

use std::time::Instant;

use asset_extract::{Kind, Options, extract, extract_to_memory, read_entries};

mod support;

use support::median;

fn main() {
    let (archive, data, root, rounds) = support::args();
    let (archive, root) = (archive.as_path(), root.as_path());
    let entries = read_entries(&data).unwrap();
    let one = Options { threads: 1, ..Options::default() };
    let (mut empty, mut inflate, mut full) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let dest = root.join("empty");
        let _ = std::fs::remove_dir_all(&dest);
        let start = Instant::now();
        std::fs::create_dir_all(&dest).unwrap();
        for e in &entries {
            let path = dest.join(&e.path);
            match e.kind {
                Kind::Directory => std::fs::create_dir_all(&path).unwrap(),
                Kind::File => {
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    std::fs::File::create(&path).unwrap();
                }
            }
        }
        empty.push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        let files = extract_to_memory(&data, &one).unwrap();
        inflate.push(start.elapsed().as_secs_f64());
        drop(files);
        let dest = root.join("full");
        let _ = std::fs::remove_dir_all(&dest);
        let start = Instant::now();
        extract(archive, &dest, &one).unwrap();
        full.push(start.elapsed().as_secs_f64());
    }
    let (e, i, f) = (median(empty), median(inflate), median(full));
    println!(
        "{{\"archive\":\"{}\",\"create_empty_s\":{e:.4},\"inflate_in_memory_s\":{i:.4},\"extract_1_thread_s\":{f:.4},\"ratio\":{:.3}}}",
        archive.display(),
        f / (e + i)
    );
    let _ = std::fs::remove_dir_all(root.join("empty"));
    let _ = std::fs::remove_dir_all(root.join("full"));
}
