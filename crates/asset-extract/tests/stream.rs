//! Extraction from a stream: the same trees, the same refusals and the same statuses as from a
//! file, nothing left behind on any failure, cancellation while the stream is read, and memory
//! bounded whatever the stream's size.

#[allow(dead_code)]
mod support;
#[allow(dead_code)]
mod zipwriter;

use std::io::{Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use asset_extract::{Error, Options, StreamedArchive, extract, extract_stream};
use support::{tree, workdir};
use zipwriter::{Spec, build};

/// The counting allocator strided-inflate's memory tests install too (one copy, by path).
#[path = "../../strided-inflate/tests/support/counting.rs"]
mod counting;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

/// The memory test counts every allocation of the process: it runs alone (`write`), the others
/// beside each other (`read`).
static ALONE: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// A reader handing out `data` a few bytes at a time, as a pipe does.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Extracts `zip` from a file and from a stream: the same tree, or the same error and nothing at
/// either destination.
fn both_ways(dir: &Path, name: &str, zip: &[u8]) -> Result<usize, String> {
    let (file_dest, stream_dest) = (dir.join(format!("{name}-file")), dir.join(format!("{name}-stream")));
    let path = dir.join(format!("{name}.zip"));
    std::fs::write(&path, zip).unwrap();
    // One writer: with several, an archive with two faults reports whichever a writer meets first.
    let options = Options { threads: 1, ..Options::default() };
    let from_file = extract(&path, &file_dest, &options);
    let from_stream = extract_stream(&mut Trickle { data: zip, step: 4093 }, &stream_dest, &options);
    let outcome = match (&from_file, &from_stream) {
        (Ok(a), Ok(b)) => {
            assert_eq!((a.files, a.bytes, a.prepended), (b.files, b.bytes, b.prepended), "{name}");
            assert!(tree(&file_dest) == tree(&stream_dest), "{name}: other trees");
            Ok(a.files as usize)
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string().replace("(stream)", &path.display().to_string()), "{name}");
            assert!(!file_dest.exists() && !stream_dest.exists(), "{name}: something left");
            Err(a.to_string())
        }
        _ => panic!("{name}: from a file {from_file:?}, from a stream {from_stream:?}"),
    };
    for d in [&file_dest, &stream_dest] {
        let _ = std::fs::remove_dir_all(d);
    }
    std::fs::remove_file(&path).unwrap();
    outcome
}

#[test]
fn every_corpus_archive_extracts_from_a_stream_as_from_a_file() {
    let _alone = ALONE.read().unwrap_or_else(|p| p.into_inner());
    let dir = workdir("stream-corpus");
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/parse");
    let (mut accepted, mut refused) = (0, 0);
    for (i, entry) in std::fs::read_dir(&corpus).unwrap().enumerate() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        match both_ways(&dir, &format!("c{i}"), &data) {
            Ok(_) => accepted += 1,
            Err(_) => refused += 1,
        }
    }
    assert!(accepted >= 5 && refused >= 5, "{accepted} accepted, {refused} refused");
}

#[test]
fn descriptors_prepended_bytes_and_every_kind_of_entry_come_through() {
    let _alone = ALONE.read().unwrap_or_else(|p| p.into_inner());
    let dir = workdir("stream-kinds");
    let body = b"the same words again and again, ".repeat(5000);
    let entries = [
        Spec::file("deflated.txt", &body),
        Spec { descriptor: true, ..Spec::file("deflated-with-descriptor.txt", &body) },
        // Stored with a data descriptor: its end is knowable only from the central directory.
        Spec { descriptor: true, ..Spec::stored("stored-with-descriptor.bin", &body[..70_000]) },
        Spec::dir("assets/"),
        Spec::stored("assets/empty", b""),
    ];
    let (zip, _) = build(&entries, b"");
    assert_eq!(both_ways(&dir, "kinds", &zip), Ok(4));
    // A self-extracting stub before the archive.
    let mut prefixed = b"#!/bin/sh\nexit 0\n".repeat(100);
    prefixed.extend_from_slice(&zip);
    assert_eq!(both_ways(&dir, "prefixed", &prefixed), Ok(4));
}

/// A reader that hands out `data` in pieces, pausing after the first as a download does: what
/// arrives after the pause is staged as it arrives.
struct Paused<'a> {
    data: &'a [u8],
    step: usize,
    paused: bool,
}

impl Read for Paused<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if !self.paused && self.data.len() > self.step {
            self.paused = true;
            let n = self.step;
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            return Ok(n);
        }
        if self.paused {
            std::thread::sleep(std::time::Duration::from_millis(30));
            self.paused = false;
            self.step = usize::MAX; // once: the rest in pieces as large as asked
        }
        let n = buf.len().min(self.data.len()).min(8191);
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[test]
fn a_stream_staged_as_it_arrives_extracts_exactly_as_its_file() {
    let _alone = ALONE.read().unwrap_or_else(|p| p.into_inner());
    let dir = workdir("stream-staged");
    let body = b"the same words again and again, ".repeat(3000);
    let mut entries = vec![Spec::dir("assets/")];
    for i in 0..40 {
        let spec = Spec::file(&format!("assets/{i}.txt"), &body[i..]);
        entries.push(if i % 3 == 0 { Spec { descriptor: true, ..spec } } else { spec });
    }
    entries.push(Spec { descriptor: true, ..Spec::stored("stored-with-descriptor.bin", &body[..9000]) });
    entries.push(Spec::stored("assets/empty", b""));
    let (zip, _) = build(&entries, b"");
    let path = dir.join("a.zip");
    std::fs::write(&path, &zip).unwrap();
    for options in [
        Options::default(),
        Options { only: vec!["assets/1*".into()], ..Options::default() },
        Options { no_mtime: true, ..Options::default() },
    ] {
        let (file_dest, stream_dest) = (dir.join("file"), dir.join("stream"));
        let a = extract(&path, &file_dest, &options).unwrap();
        let b = extract_stream(&mut Paused { data: &zip, step: 4096, paused: false }, &stream_dest, &options).unwrap();
        assert_eq!((a.files, a.bytes, a.skipped), (b.files, b.bytes, b.skipped));
        assert!(tree(&file_dest) == tree(&stream_dest), "other trees");
        if !options.no_mtime {
            for name in ["assets/5.txt", "assets/6.txt", "assets/12.txt", "assets/39.txt"] {
                if !file_dest.join(name).exists() {
                    continue;
                }
                let time = |d: &Path| std::fs::metadata(d.join(name)).unwrap().modified().unwrap();
                assert_eq!(time(&file_dest), time(&stream_dest), "{name}");
            }
        }
        std::fs::remove_dir_all(&file_dest).unwrap();
        std::fs::remove_dir_all(&stream_dest).unwrap();
    }
    // Nothing but the archive is left: no staging directory.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

#[test]
fn a_cut_or_padded_stream_is_refused_as_the_file_is_and_leaves_nothing() {
    let _alone = ALONE.read().unwrap_or_else(|p| p.into_inner());
    let dir = workdir("stream-cut");
    let (zip, layout) = build(&[Spec::file("a.txt", &[7u8; 50_000]), Spec::file("b.txt", b"bee")], b"");
    for cut in [0, 1, zip.len() / 3, layout.central[0], layout.eocd, zip.len() - 1] {
        assert!(both_ways(&dir, &format!("cut{cut}"), &zip[..cut]).is_err(), "cut at {cut}");
    }
    // A second end record after the first: whatever a file gets (the two agree here), the stream
    // gets; one that describes another central directory is refused both ways.
    let mut twice = zip.clone();
    twice.extend_from_slice(&zip[layout.eocd..]);
    let _ = both_ways(&dir, "twice", &twice);
    let mut other = zip.clone();
    let mut second = zip[layout.eocd..].to_vec();
    second[16] ^= 1; // the central directory's offset
    other.extend_from_slice(&second);
    assert!(both_ways(&dir, "other", &other).is_err());
    // Junk after the archive: whatever a file gets, the stream gets.
    let mut padded = zip.clone();
    padded.extend_from_slice(&[0x55; 300]);
    let _ = both_ways(&dir, "padded", &padded);
}

#[cfg(unix)]
#[test]
fn a_file_handed_over_as_a_stream_is_read_in_place_from_its_start_and_streamed_from_elsewhere() {
    use std::io::{Seek, SeekFrom};
    use std::os::fd::AsFd;
    let _alone = ALONE.read().unwrap_or_else(|p| p.into_inner());
    let dir = workdir("stream-file");
    let (zip, _) = build(&[Spec::file("a.txt", &[7u8; 50_000]), Spec::file("b.txt", b"bee")], b"");
    let prefix = b"a line before the archive\n";
    let path = dir.join("prefixed.zip");
    std::fs::write(&path, [&prefix[..], &zip].concat()).unwrap();
    let len = (prefix.len() + zip.len()) as u64;

    // From its start (`extract - < FILE`): the file itself, prepended bytes and all, as
    // `extract` reads it; left at its end, as a stream read to its end is.
    let mut file = std::fs::File::open(&path).unwrap();
    let report = asset_extract::extract_pipe(file.as_fd(), &dir.join("whole"), &Options::default()).unwrap();
    assert_eq!(report.prepended, prefix.len() as u64);
    assert_eq!(tree(&dir.join("whole")), tree_of_file(&path, &dir.join("as-file")));
    assert_eq!(file.stream_position().unwrap(), len);

    // Past the prefix: what is left of the file is the stream, the archive alone.
    file.seek(SeekFrom::Start(prefix.len() as u64)).unwrap();
    let report = asset_extract::extract_pipe(file.as_fd(), &dir.join("rest"), &Options::default()).unwrap();
    assert_eq!(report.prepended, 0);
    assert_eq!(tree(&dir.join("rest")), tree(&dir.join("whole")));
    assert_eq!(file.stream_position().unwrap(), len);

    // A cut file is refused as its stream would be, with nothing left.
    std::fs::write(&path, &zip[..zip.len() - 1]).unwrap();
    let cut = std::fs::File::open(&path).unwrap();
    assert!(asset_extract::extract_pipe(cut.as_fd(), &dir.join("cut"), &Options::default()).is_err());
    assert!(!dir.join("cut").exists());
}

/// `dest`'s tree after extracting the file `path` into it.
#[cfg(unix)]
fn tree_of_file(path: &Path, dest: &Path) -> Vec<(String, Vec<u8>)> {
    extract(path, dest, &Options::default()).unwrap();
    tree(dest)
}

#[test]
fn a_failing_stream_or_a_cancellation_leaves_nothing() {
    let _alone = ALONE.read().unwrap_or_else(|p| p.into_inner());
    struct Failing(usize);
    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Err(std::io::Error::other("connection reset"));
            }
            self.0 -= 1;
            buf[0] = b'P';
            Ok(1)
        }
    }
    let dir = workdir("stream-fail");
    let dest = dir.join("out");
    let err = extract_stream(&mut Failing(3), &dest, &Options::default()).unwrap_err();
    assert!(matches!(err, Error::Io { .. }) && err.to_string().contains("connection reset"), "{err}");
    assert!(!dest.exists());
    // Cancelled while the stream is being read: the rest is never read.
    let (zip, _) = build(&[Spec::file("a.txt", &[1u8; 100_000])], b"");
    let cancel = AtomicBool::new(false);
    struct Cancelling<'a> {
        data: &'a [u8],
        cancel: &'a AtomicBool,
        reads: usize,
    }
    impl Read for Cancelling<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.reads += 1;
            self.cancel.store(true, Ordering::Relaxed);
            let n = buf.len().min(self.data.len()).min(1000);
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }
    let mut input = Cancelling { data: &zip, cancel: &cancel, reads: 0 };
    let options = Options { cancel: Some(&cancel), ..Options::default() };
    assert!(matches!(extract_stream(&mut input, &dest, &options), Err(Error::Cancelled)));
    assert_eq!(input.reads, 1);
    assert!(!dest.exists());
    // Fed in pieces, then extracted: the same as a file.
    let mut incoming = StreamedArchive::beside(&dest).unwrap();
    for piece in zip.chunks(333) {
        incoming.write_all(piece).unwrap();
    }
    assert_eq!(incoming.len(), zip.len() as u64);
    assert_eq!(incoming.extract(&dest, &Options::default()).unwrap().bytes, 100_000);
    // Nothing but the tree: the spool had no name.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

/// A stored zip of one entry of `len` zeros, produced as it is read: the archive is never in
/// memory.
struct ZerosZip {
    head: Vec<u8>,
    zeros: u64,
    tail: Vec<u8>,
    at: u64,
}

impl ZerosZip {
    fn new(len: u64) -> ZerosZip {
        let mut crc = crc32fast::Hasher::new();
        let block = vec![0u8; 1 << 20];
        let mut left = len;
        while left > 0 {
            let n = left.min(block.len() as u64) as usize;
            crc.update(&block[..n]);
            left -= n as u64;
        }
        let crc = crc.finalize();
        let name = b"zeros.bin";
        let mut head = Vec::new();
        head.extend_from_slice(&0x04034b50u32.to_le_bytes());
        head.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
        head.extend_from_slice(&crc.to_le_bytes());
        head.extend_from_slice(&(len as u32).to_le_bytes());
        head.extend_from_slice(&(len as u32).to_le_bytes());
        head.extend_from_slice(&(name.len() as u16).to_le_bytes());
        head.extend_from_slice(&[0, 0]);
        head.extend_from_slice(name);
        let mut tail = Vec::new();
        tail.extend_from_slice(&0x02014b50u32.to_le_bytes());
        tail.extend_from_slice(&[20, 3, 20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
        tail.extend_from_slice(&crc.to_le_bytes());
        tail.extend_from_slice(&(len as u32).to_le_bytes());
        tail.extend_from_slice(&(len as u32).to_le_bytes());
        tail.extend_from_slice(&(name.len() as u16).to_le_bytes());
        tail.extend_from_slice(&[0; 8]);
        tail.extend_from_slice(&(0o100644u32 << 16).to_le_bytes());
        tail.extend_from_slice(&0u32.to_le_bytes());
        tail.extend_from_slice(name);
        let central_len = tail.len() as u32;
        let central_at = (head.len() as u64 + len) as u32;
        tail.extend_from_slice(&0x06054b50u32.to_le_bytes());
        tail.extend_from_slice(&[0, 0, 0, 0, 1, 0, 1, 0]);
        tail.extend_from_slice(&central_len.to_le_bytes());
        tail.extend_from_slice(&central_at.to_le_bytes());
        tail.extend_from_slice(&[0, 0]);
        ZerosZip { head, zeros: len, tail, at: 0 }
    }
}

impl Read for ZerosZip {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let (h, z) = (self.head.len() as u64, self.zeros);
        let n = if self.at < h {
            let n = buf.len().min((h - self.at) as usize);
            buf[..n].copy_from_slice(&self.head[self.at as usize..self.at as usize + n]);
            n
        } else if self.at < h + z {
            let n = buf.len().min((h + z - self.at) as usize);
            buf[..n].fill(0);
            n
        } else {
            let from = (self.at - h - z) as usize;
            let n = buf.len().min(self.tail.len().saturating_sub(from));
            buf[..n].copy_from_slice(&self.tail[from..from + n]);
            n
        };
        self.at += n as u64;
        Ok(n)
    }
}

#[test]
fn a_stream_far_larger_than_memory_allowed_is_extracted_in_bounded_memory() {
    let _alone = ALONE.write().unwrap_or_else(|p| p.into_inner());
    let dir = workdir("stream-memory");
    let len = 160u64 << 20;
    // From a file (written from the same generator), then from the stream: the stream adds its
    // copy buffer and the first 8 MiB it holds in memory before spooling to a file, and nothing
    // that grows with it.
    let path = dir.join("zeros.zip");
    std::io::copy(&mut ZerosZip::new(len), &mut std::fs::File::create(&path).unwrap()).unwrap();
    let options = Options { threads: 2, ..Options::default() };
    let held = |run: &dyn Fn() -> asset_extract::Report| {
        let (report, held) = counting::held(run);
        assert_eq!(report.bytes, len);
        held
    };
    let from_file = held(&|| extract(&path, &dir.join("file"), &options).unwrap());
    std::fs::remove_file(&path).unwrap();
    let mut input = ZerosZip::new(len);
    let input = std::sync::Mutex::new(&mut input);
    let from_stream = held(&|| extract_stream(&mut **input.lock().unwrap(), &dir.join("stream"), &options).unwrap());
    assert_eq!(std::fs::metadata(dir.join("stream/zeros.bin")).unwrap().len(), len);
    assert!(
        from_stream < from_file + (10 << 20) && from_stream < len as usize / 4,
        "{} MiB held from the stream, {} MiB from a file, for {} MiB",
        from_stream >> 20,
        from_file >> 20,
        len >> 20
    );
}
