//! The 1-thread target: extracting with one thread should cost at most 1.1× (creating the same
//! files empty + inflating every entry in memory), both measured here, in the same run.
//! Usage: cargo run --release -p asset-extract --example one_thread_bound -- ARCHIVE DEST_DIR [ROUNDS]

use std::path::Path;
use std::time::Instant;

use asset_extract::{Kind, Options, extract, extract_to_memory, read_entries};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (archive, root) = (Path::new(&args[1]), Path::new(&args[2]));
    let rounds: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5);
    std::fs::create_dir_all(root).unwrap();
    let data = std::fs::read(archive).unwrap();
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
