//! A mobile runtime's first start: ~200 JavaScript assets extracted from its APK. A fresh 100 KB
//! buffer per file (plus an 8 KiB buffered writer) was the original; a reused buffer fixed most
//! of it; bufkit extracts in parallel, verified and all-or-nothing.

#![forbid(unsafe_code)]

use std::fs::{self, File};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use asset_extract::{Entry, Kind, Method, Options, read_entries};
use buffer_pool::{BufferPool, PoolConfig};

use super::Options as DemoOptions;
use crate::report;

/// A built-in APK-like archive: 200 JavaScript-like files of 0.3–120 KB in a few directories.
pub(super) fn built_in_archive() -> Vec<u8> {
    let mut seed = 0x1234_5678u32;
    let mut next = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        seed >> 8
    };
    // Code-like text from a vocabulary of identifiers and punctuation: it compresses about as well
    // as real minified JavaScript (3-4x), unlike a repeated line.
    const WORDS: [&str; 32] = [
        "function",
        "return",
        "const",
        "let",
        "this",
        "props",
        "state",
        "render",
        "item",
        "value",
        "index",
        "node",
        "children",
        "options",
        "callback",
        "result",
        "error",
        "data",
        "key",
        "map",
        "filter",
        "reduce",
        "length",
        "push",
        "then",
        "async",
        "await",
        "export",
        "import",
        "default",
        "null",
        "undefined",
    ];
    const PUNCT: [&str; 8] = ["(", ")", "{", "}", ".", ", ", ";\n", " = "];
    let files: Vec<(String, Vec<u8>)> = (0..200)
        .map(|i| {
            let u = (next() % 1000) as f64 / 1000.0;
            let size = (300.0 * 400f64.powf(u)) as usize;
            let mut body = Vec::with_capacity(size + 16);
            while body.len() < size {
                let r = next();
                body.extend_from_slice(WORDS[(r % 32) as usize].as_bytes());
                if r % 7 == 0 {
                    body.extend_from_slice(format!("{}", r % 1000).as_bytes());
                }
                body.extend_from_slice(PUNCT[((r >> 5) % 8) as usize].as_bytes());
            }
            body.truncate(size);
            (format!("assets/{}/module{i}.js", ["app", "vendor", "lib", "ui"][i % 4]), body)
        })
        .collect();
    zip(&files)
}

/// The smallest honest zip writer: deflated entries, a central directory, an end record.
fn zip(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        let body = super::compress::deflate(data, 9, false);
        let crc = strided_inflate::crc32(data);
        let offset = out.len() as u32;
        let fields = |sig: u32, central_entry: bool, buf: &mut Vec<u8>| {
            buf.extend_from_slice(&sig.to_le_bytes());
            if central_entry {
                buf.extend_from_slice(&20u16.to_le_bytes());
            }
            buf.extend_from_slice(&[20, 0, 0, 0x08, 8, 0, 0, 0, 0x21, 0]); // version, flags (UTF-8), deflate, time, date
            buf.extend_from_slice(&crc.to_le_bytes());
            buf.extend_from_slice(&(body.len() as u32).to_le_bytes());
            buf.extend_from_slice(&(data.len() as u32).to_le_bytes());
            buf.extend_from_slice(&(name.len() as u16).to_le_bytes());
            buf.extend_from_slice(&0u16.to_le_bytes());
            if central_entry {
                buf.extend_from_slice(&[0; 6]); // comment length, disk, internal attributes
                buf.extend_from_slice(&0o100644u32.wrapping_shl(16).to_le_bytes());
                buf.extend_from_slice(&offset.to_le_bytes());
            }
            buf.extend_from_slice(name.as_bytes());
        };
        fields(0x0403_4b50, false, &mut out);
        out.extend_from_slice(&body);
        fields(0x0201_4b50, true, &mut central);
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// The loop a runtime writes by hand: per entry, a buffer and a buffered file writer (and one
/// decoder kept throughout, as `java.util.zip` keeps its inflaters).
fn copy_loop<'a>(
    archive: &[u8],
    entries: &[Entry],
    dest: &Path,
    mut buffer_for: impl FnMut() -> Box<dyn AsMut<[u8]> + 'a>,
) -> Result<(), String> {
    let mut inflater = strided_inflate::ChunkedInflater::with_chunk_size(strided_inflate::Format::Raw, 32 << 10);
    for e in entries {
        let path = dest.join(&e.path);
        if e.kind == Kind::Directory {
            fs::create_dir_all(&path).map_err(|err| err.to_string())?;
            continue;
        }
        fs::create_dir_all(path.parent().expect("entries have parents here")).map_err(|err| err.to_string())?;
        let src = &archive[e.data_offset as usize..(e.data_offset + e.compressed_size) as usize];
        let mut reader: Box<dyn Read> = match e.method {
            Method::Deflate => Box::new(super::compress::Inflating::new(&mut inflater, src)),
            Method::Stored => Box::new(src),
            other => return Err(format!("the demo's archive holds no {} entries", other.name())),
        };
        let mut out = BufWriter::new(File::create(&path).map_err(|err| err.to_string())?);
        let mut buf = buffer_for();
        loop {
            let n = reader.read(buf.as_mut().as_mut()).map_err(|err| err.to_string())?;
            if n == 0 {
                break;
            }
            out.write_all(&buf.as_mut().as_mut()[..n]).map_err(|err| err.to_string())?;
        }
        out.flush().map_err(|err| err.to_string())?;
    }
    Ok(())
}

struct Owned(Vec<u8>);
impl AsMut<[u8]> for Owned {
    fn as_mut(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

/// A pool lease as a copy buffer; it goes back to the pool when the file is done.
struct Leased<'a>(buffer_pool::Lease<'a>);
impl AsMut<[u8]> for Leased<'_> {
    fn as_mut(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

pub fn run(options: &DemoOptions) -> Result<(), String> {
    let archive = built_in_archive();
    let entries = read_entries(&archive).map_err(|e| e.to_string())?;
    let base = if Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
    let root = base.join(format!("bufkit-demo-extract-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    let pool = BufferPool::new(PoolConfig::default()).map_err(|e| e.to_string())?;
    let mut rows: Vec<report::Strategy> = Vec::new();
    let rounds = 5;
    let mut time = |name: &'static str, run: &mut dyn FnMut(&Path) -> Result<(), String>| -> Result<(), String> {
        let mut best = f64::MAX;
        for round in 0..rounds {
            let dest = root.join(format!("{name}-{round}"));
            let start = Instant::now();
            run(&dest)?;
            best = best.min(start.elapsed().as_secs_f64());
            let _ = fs::remove_dir_all(&dest);
        }
        rows.push(report::Strategy::timed(name, best));
        Ok(())
    };
    time("fresh 100 KB buffer + BufWriter per file (the original)", &mut |d| {
        copy_loop(&archive, &entries, d, || Box::new(Owned(vec![0u8; 100_000])))
    })?;
    time("one 64 KiB pool lease per file, same loop", &mut |d| {
        copy_loop(&archive, &entries, d, || Box::new(Leased(pool.acquire(64 << 10).expect("a 64 KiB buffer"))))
    })?;
    time("bufkit extract, 1 thread", &mut |d| {
        asset_extract::extract_bytes(&archive, d, &Options { threads: 1, ..Options::default() })
            .map(drop)
            .map_err(|e| e.to_string())
    })?;
    time("bufkit extract, all cores", &mut |d| {
        asset_extract::extract_bytes(&archive, d, &Options::default()).map(drop).map_err(|e| e.to_string())
    })?;
    let _ = fs::remove_dir_all(&root);
    let bufkit = rows.last().map_or(1.0, |r| r.seconds);
    let files = entries.iter().filter(|e| e.kind == Kind::File).count();
    let bytes: u64 = entries.iter().map(|e| e.size).sum();
    let heading = format!(
        "extract: {files} assets ({}, archive {}) to {}, best of {rounds}; bufkit verifies every CRC and replaces the destination all or nothing",
        report::bytes(bytes),
        report::bytes(archive.len() as u64),
        base.display()
    );
    report::timed_strategies(rows, bufkit, options.json, &heading, "vs bufkit")?;
    Ok(())
}
