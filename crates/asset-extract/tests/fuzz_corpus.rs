//! Replays every input of the fuzz corpus (`fuzz/corpus/`) through the harnesses the fuzz targets
//! run, so what a fuzzer found once stays fixed.

#[allow(dead_code)] // the tests here use its tree
mod support;

use std::path::Path;

use support::tree;

/// The inputs of fuzz target `target`'s corpus, each through `harness`.
fn replay(target: &str, harness: fn(&[u8])) -> usize {
    test_support::replay(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target), harness)
}

#[test]
fn parse_corpus() {
    assert!(replay("parse", test_support::zip::parse) >= 5);
}

#[test]
fn structured_corpus() {
    assert!(replay("structured", test_support::zip::structured) >= 5);
}

#[test]
fn stream_corpus() {
    assert!(replay("stream", test_support::zip::stream) >= 5);
}

/// One reading or one refusal from memory, a file, a stream and a caller's source (issue 51).
#[test]
fn sources_corpus() {
    assert!(replay("sources", test_support::zip::sources) >= 200);
}

#[test]
fn methods_corpus() {
    assert!(replay("methods", test_support::zip::methods) >= 5);
}

/// Extraction from a file checks each selected file's local header in the worker that reads its
/// data, from the same read; from memory, every header is checked at parse. Over every archive of
/// the corpus, both accept the same archives and write the same trees, and so does extraction from
/// the file with every deflated entry inflated on several cores (refusing with the same error).
#[test]
fn extraction_from_a_file_agrees_with_extraction_from_memory() {
    let dir = support::workdir("corpus-file");
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/parse");
    let (mut accepted, mut refused) = (0, 0);
    for entry in std::fs::read_dir(&corpus).unwrap() {
        let input = entry.unwrap().path();
        let data = std::fs::read(&input).unwrap();
        let zip = dir.join("archive.zip");
        std::fs::write(&zip, &data).unwrap();
        let options = asset_extract::Options { threads: 2, ..Default::default() };
        let (memory, file) = (dir.join("memory"), dir.join("file"));
        let from_memory = asset_extract::extract_bytes(&data, &memory, &options);
        let from_file = asset_extract::extract(&zip, &file, &options);
        // And every deflated entry cut into chunks on several cores, whatever its size, against
        // the same extraction on one core. One writer each: with several, an archive with two
        // faults reports whichever a writer meets first.
        let (on_one, on_cores) = (dir.join("on-one"), dir.join("on-cores"));
        let serial = |mode| asset_extract::Options { threads: 1, parallel_inflate: mode, ..Default::default() };
        let from_file_on_one = asset_extract::extract(&zip, &on_one, &serial(asset_extract::ParallelInflate::Never));
        let from_file_on_cores =
            asset_extract::extract(&zip, &on_cores, &serial(asset_extract::ParallelInflate::Always));
        match (&from_memory, &from_file, &from_file_on_one, &from_file_on_cores) {
            (Ok(a), Ok(b), Ok(c), Ok(d)) => {
                assert_eq!((a.files, a.bytes), (b.files, b.bytes), "{}", input.display());
                assert_eq!((c.files, c.bytes), (d.files, d.bytes), "{}", input.display());
                assert!(tree(&memory) == tree(&file), "{}: other trees", input.display());
                assert!(tree(&on_one) == tree(&on_cores), "{}: another tree on several cores", input.display());
                accepted += 1;
            }
            (Err(_), Err(_), Err(c), Err(d)) => {
                assert_eq!(c.to_string(), d.to_string(), "{}: on one core and on several", input.display());
                let left = [&memory, &file, &on_one, &on_cores].into_iter().any(|d| d.exists());
                assert!(!left, "{}: something left", input.display());
                refused += 1;
            }
            _ => panic!(
                "{}: from memory {from_memory:?}, from a file {from_file:?}, on one core {from_file_on_one:?}, \
                 on several {from_file_on_cores:?}",
                input.display()
            ),
        }
        for out in [&memory, &file, &on_one, &on_cores] {
            let _ = std::fs::remove_dir_all(out);
        }
    }
    assert!(accepted >= 5 && refused >= 5, "{accepted} accepted, {refused} refused");
}
