//! What reading an entry in place allocates, counted by a counting allocator in this test binary
//! (the library and the CLI count nothing): a read into the caller's buffer allocates nothing once
//! the thread's decoder exists (mapped; from the file at most one more per read), a read into a
//! fresh vector allocates that vector, and opening allocates about one name per entry.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use asset_extract::{AssetArchive, Holding, Kind};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; only a counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is System's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn counted<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let out = f();
    (out, ALLOCATIONS.load(Ordering::Relaxed) - before)
}

#[test]
fn a_read_into_the_callers_buffer_allocates_nothing() {
    let files: Vec<(String, Vec<u8>)> = (0..200)
        .map(|i| (format!("assets/js/module{i}.js"), format!("export const v{i} = {i};\n").repeat(20 + i).into_bytes()))
        .collect();
    let zip = test_support::zip::deflated_zip(&files);
    let dir = tempfile::Builder::new().prefix("asset-extract-read-allocations-").tempdir().unwrap();
    let path = dir.path().join("app.apk");
    std::fs::write(&path, &zip).unwrap();
    for holding in [Holding::Map, Holding::Read] {
        let (archive, opening) = counted(|| AssetArchive::open(&path, holding).unwrap());
        assert!(opening < 4 * files.len() as u64, "{holding:?}: opening allocated {opening} times");
        let indexes: Vec<usize> = (0..archive.len()).filter(|&i| archive.entries()[i].kind == Kind::File).collect();
        let mut buf = vec![0u8; files.iter().map(|(_, d)| d.len()).max().unwrap()];
        // The thread's decoder and scratch buffer are made by the first read.
        let first = indexes[0];
        archive.read_into(first, &mut buf[..archive.entries()[first].size as usize]).unwrap();
        let (_, into_buffer) = counted(|| {
            for &i in &indexes {
                archive.read_into(i, &mut buf[..archive.entries()[i].size as usize]).unwrap();
            }
        });
        let (_, into_vectors) = counted(|| {
            for &i in &indexes {
                std::hint::black_box(archive.read(i).unwrap());
            }
        });
        if holding == Holding::Map {
            assert_eq!(into_buffer, 0, "{holding:?}: reads into the caller's buffer allocated");
            assert_eq!(into_vectors, indexes.len() as u64, "{holding:?}: one vector per read, nothing else");
        } else {
            // From the file: at most one allocation per read besides the output vector.
            let n = indexes.len() as u64;
            assert!(into_buffer <= n, "{holding:?}: {into_buffer} allocations for {n} reads");
            assert!(into_vectors <= 2 * n, "{holding:?}: {into_vectors} allocations for {n} reads");
        }
    }
}
