//! Zip archives made to order, and the harnesses asset-extract's fuzz targets and corpus replay
//! share. Each harness checks invariants rather than just "no panic".

#![forbid(unsafe_code)]

use asset_extract::{Error, Kind, Method, Options, extract_to_memory, read_archive};

/// `data` is an archive. Checks: parsing and extraction to memory never panic; a parsed entry's
/// data lies inside the input and its name is a safe relative path; an extracted file has its
/// declared size and CRC-32.
pub fn parse(data: &[u8]) {
    let Ok(layout) = read_archive(data) else { return };
    for e in &layout.entries {
        assert!(e.data_offset.checked_add(e.compressed_size).is_some_and(|end| end <= data.len() as u64));
        assert!(!e.path.is_empty() && !e.path.starts_with('/') && !e.path.contains('\0') && !e.path.contains('\\'));
        assert!(e.path.split('/').all(|c| !c.is_empty() && c != "." && c != ".."), "unsafe path {:?}", e.path);
    }
    parallel_agrees(data);
    if let Ok(files) = extract_to_memory(data, &Options::default()) {
        let expected: Vec<_> = layout.entries.iter().filter(|e| e.kind == Kind::File).collect();
        assert_eq!(files.len(), expected.len());
        for ((path, bytes), e) in files.iter().zip(expected) {
            assert_eq!((path, bytes.len() as u64), (&e.path, e.size));
            assert_eq!(crc32fast::hash(bytes), e.crc32);
        }
    }
}

/// Inflating on several cores changes nothing but the time: extraction to memory and every whole
/// read of an archive opened in place give the same bytes, or fail with the same error (the same
/// variant, so the same status through the C ABI), with [`ParallelInflate::Always`](asset_extract::ParallelInflate::Always) as with
/// [`ParallelInflate::Never`](asset_extract::ParallelInflate::Never).
pub fn parallel_agrees(data: &[u8]) {
    use asset_extract::ParallelInflate::{Always, Never};
    let same = |a: &Result<Vec<u8>, Error>, b: &Result<Vec<u8>, Error>, what: &str| match (a, b) {
        (Ok(a), Ok(b)) => assert!(a == b, "{what}: the bytes differ on several cores"),
        (Err(a), Err(b)) => {
            assert_eq!(std::mem::discriminant(a), std::mem::discriminant(b), "{what}: {a} on several cores, {b} on one")
        }
        (a, b) => {
            panic!("{what}: {:?} on several cores, {:?} on one", a.as_ref().map(Vec::len), b.as_ref().map(Vec::len))
        }
    };
    let extracted = |mode| {
        let options = Options { parallel_inflate: mode, threads: 2, ..Options::default() };
        extract_to_memory(data, &options)
            .map(|files| files.into_iter().flat_map(|(name, bytes)| [name.into_bytes(), bytes]).flatten().collect())
    };
    same(&extracted(Always), &extracted(Never), "extraction to memory");
    let Ok(archive) = asset_extract::AssetArchive::from_bytes(data.to_vec()) else { return };
    for index in 0..archive.len() {
        if archive.entries()[index].kind != Kind::File {
            continue;
        }
        archive.set_parallel_inflate(Always);
        let on_cores = archive.read(index);
        let mut copied = Vec::new();
        let copied = archive
            .copy_to(index, &mut |bytes| {
                copied.extend_from_slice(bytes);
                Ok(())
            })
            .map(|()| copied);
        archive.set_parallel_inflate(Never);
        let on_one = archive.read(index);
        same(&on_cores, &on_one, "a whole read");
        same(&copied, &on_one, "a copy");
    }
}

/// Reads choices from the fuzzer's bytes; zeros once they run out.
struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    fn byte(&mut self) -> u8 {
        let (&b, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        b
    }

    fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n
    }
}

/// One entry of a structured archive.
pub struct Spec {
    /// Its name, as stored (any bytes).
    pub name: Vec<u8>,
    /// Its contents.
    pub data: Vec<u8>,
    /// Deflated (in stored blocks), else stored.
    pub deflate: bool,
    /// Sizes and CRC-32 in a data descriptor after the data, not in the local header.
    pub descriptor: bool,
    /// The Unix mode its central record gives (type and permission bits).
    pub unix_mode: u32,
    /// Bytes written as the entry's data under this method number, in place of `data` stored or
    /// deflated (`data` still gives the declared size and CRC-32).
    pub packed: Option<(u16, Vec<u8>)>,
}

/// Name parts that exercise the name rules: traversal, absolute, case twins, CP437, odd bytes.
const PARTS: [&[u8]; 12] =
    [b"a", b"A", b"b", b"..", b".", b"", b"x y", "é".as_bytes(), b"\x91\x86", b"-", b"c\\d", b"/"];
/// Unix modes: file, executable, directory, symlink, FIFO (a pipe zip read), device, setuid.
const MODES: [u32; 7] = [0o100644, 0o100755, 0o040755, 0o120777, 0o010600, 0o020644, 0o104755];

/// A valid raw deflate stream holding `data` in stored blocks (no compressor needed).
fn stored_deflate(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 5 * (data.len() / 65535 + 1));
    let mut chunks = data.chunks(65535).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        let len = chunk.len() as u16;
        out.push(u8::from(chunks.peek().is_none()));
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out
}

/// Builds a well-formed zip of `specs` (stored or stored-block deflate, with or without data
/// descriptors), after `prefix`.
pub fn build(specs: &[Spec], prefix: &[u8]) -> Vec<u8> {
    let mut out = prefix.to_vec();
    let mut central = Vec::new();
    for s in specs {
        let (method, body) = match &s.packed {
            Some((method, body)) => (*method, body.clone()),
            None if s.deflate => (8, stored_deflate(&s.data)),
            None => (0, s.data.clone()),
        };
        let crc = crc32fast::hash(&s.data);
        let flags: u16 = if s.descriptor { 8 } else { 0 };
        let offset = (out.len() - prefix.len()) as u32;
        let sizes = |known: bool| if known { (crc, body.len() as u32, s.data.len() as u32) } else { (0, 0, 0) };
        for (buf, central_entry) in [(&mut out, false), (&mut central, true)] {
            let (c, cs, us) = sizes(central_entry || !s.descriptor);
            buf.extend_from_slice(&(if central_entry { 0x0201_4b50u32 } else { 0x0403_4b50 }).to_le_bytes());
            if central_entry {
                buf.extend_from_slice(&(3u16 << 8 | 20).to_le_bytes());
            }
            buf.extend_from_slice(&20u16.to_le_bytes());
            buf.extend_from_slice(&flags.to_le_bytes());
            buf.extend_from_slice(&method.to_le_bytes());
            buf.extend_from_slice(&[0, 0, 0x21, 0]);
            for v in [c, cs, us] {
                buf.extend_from_slice(&v.to_le_bytes());
            }
            buf.extend_from_slice(&(s.name.len() as u16).to_le_bytes());
            buf.extend_from_slice(&[0, 0]);
            if central_entry {
                buf.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
                buf.extend_from_slice(&(s.unix_mode << 16).to_le_bytes());
                buf.extend_from_slice(&offset.to_le_bytes());
            }
            buf.extend_from_slice(&s.name);
        }
        out.extend_from_slice(&body);
        if s.descriptor {
            out.extend_from_slice(&0x0807_4b50u32.to_le_bytes());
            for v in [crc, body.len() as u32, s.data.len() as u32] {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    let (cd, cd_len) = ((out.len() - prefix.len()) as u32, central.len() as u32);
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&(specs.len() as u16).to_le_bytes());
    out.extend_from_slice(&(specs.len() as u16).to_le_bytes());
    out.extend_from_slice(&cd_len.to_le_bytes());
    out.extend_from_slice(&cd.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

/// A well-formed zip of regular files stored as they are, in this order (for tests elsewhere, such
/// as the CLI's crash-consistency test).
pub fn stored_zip(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let specs: Vec<Spec> = files
        .iter()
        .map(|(name, data)| Spec {
            name: name.as_bytes().to_vec(),
            data: data.clone(),
            deflate: false,
            descriptor: false,
            unix_mode: 0o100644,
            packed: None,
        })
        .collect();
    build(&specs, b"")
}

/// A well-formed zip of regular files, each a deflate entry made of stored blocks (no compressor
/// needed), in this order (for tests and doc examples).
pub fn deflated_zip(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let specs: Vec<Spec> = files
        .iter()
        .map(|(name, data)| Spec {
            name: name.as_bytes().to_vec(),
            data: data.clone(),
            deflate: true,
            descriptor: false,
            unix_mode: 0o100644,
            packed: None,
        })
        .collect();
    build(&specs, b"")
}

/// `data` describes an archive (entries with names from tricky parts, kinds, sizes, methods,
/// descriptors, data prepended, and one byte perhaps flipped), which is built and extracted to
/// memory. Checks: never panics; without the flip, whatever extracts is exactly what was put in,
/// each file under its name; with it, every file that comes out has its declared size and CRC
/// (the [`parse`] checks).
pub fn structured(data: &[u8]) {
    let mut c = Cursor(data);
    let count = 1 + c.below(6);
    let specs: Vec<Spec> = (0..count)
        .map(|_| {
            let mut name = Vec::new();
            for i in 0..1 + c.below(3) {
                if i > 0 {
                    name.push(b'/');
                }
                name.extend_from_slice(PARTS[c.below(PARTS.len())]);
            }
            let unix_mode = MODES[c.below(MODES.len())];
            if unix_mode & 0o170_000 == 0o040_000 {
                name.push(b'/');
            }
            let len = usize::from(c.byte()) * 8 + c.below(8);
            let fill = c.byte();
            let data = if unix_mode & 0o170_000 == 0o040_000 { Vec::new() } else { vec![fill; len] };
            Spec { name, data, deflate: c.byte() & 1 == 1, descriptor: c.byte() & 1 == 1, unix_mode, packed: None }
        })
        .collect();
    let prefix: &[u8] = if c.byte() & 3 == 0 { b"JM\x01\x00" } else { b"" };
    let mut archive = build(&specs, prefix);
    let flip = c.byte() & 1 == 1;
    if flip {
        let at = (usize::from(c.byte()) << 8 | usize::from(c.byte())) % archive.len();
        archive[at] ^= c.byte() | 1;
    }
    parse(&archive);
    if flip {
        return;
    }
    // Success means every entry passed (one refusal refuses the archive), and files come out in
    // archive order: the i-th file is the i-th entry that is not a directory.
    if let Ok(files) = extract_to_memory(&archive, &Options::default()) {
        // A name ending in `/` is a directory whatever its mode (as for unzip and Python).
        let is_file = |s: &&Spec| s.unix_mode & 0o170_000 != 0o040_000 && !s.name.ends_with(b"/");
        let archived: Vec<&Spec> = specs.iter().filter(is_file).collect();
        assert_eq!(files.len(), archived.len());
        for ((path, bytes), spec) in files.iter().zip(archived) {
            assert!(bytes == &spec.data, "{path}: bytes differ from what was archived");
        }
    }
}

/// Writes a ZIP64 archive at `path` whose first entry, `hole.bin`, is `hole` bytes of zeros
/// stored as a hole in the file (no disk is used for it: the archive is sparse), followed by
/// `files` stored as they are, past the 4 GiB mark when `hole` reaches it (so their offsets need
/// ZIP64 too). The end records are ZIP64's. For tests and benchmarks of what reading one small
/// entry of a huge archive costs.
pub fn write_sparse_zip64(path: &std::path::Path, hole: u64, files: &[(String, Vec<u8>)]) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    const MADE_BY: u16 = 3 << 8 | 45;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut central = Vec::new();
    let mut count = 0u64;
    // The hole: 64-bit sizes in the local header's ZIP64 field.
    let name = b"hole.bin";
    let crc = crc_of_zeros(hole);
    let mut local = local_header(name, crc, u32::MAX, u32::MAX, 20);
    local.extend_from_slice(name);
    local.extend_from_slice(&1u16.to_le_bytes());
    local.extend_from_slice(&16u16.to_le_bytes());
    local.extend_from_slice(&hole.to_le_bytes());
    local.extend_from_slice(&hole.to_le_bytes());
    out.write_all(&local)?;
    let mut extra = Vec::new();
    extra.extend_from_slice(&1u16.to_le_bytes());
    extra.extend_from_slice(&16u16.to_le_bytes());
    extra.extend_from_slice(&hole.to_le_bytes());
    extra.extend_from_slice(&hole.to_le_bytes());
    central_record(&mut central, name, crc, u32::MAX, u32::MAX, 0, &extra, MADE_BY);
    count += 1;
    out.seek(SeekFrom::Current(hole as i64))?;
    let mut offset = local.len() as u64 + hole;
    for (name, data) in files {
        let crc = crc32fast::hash(data);
        let mut local = local_header(name.as_bytes(), crc, data.len() as u32, data.len() as u32, 0);
        local.extend_from_slice(name.as_bytes());
        out.write_all(&local)?;
        out.write_all(data)?;
        let mut extra = Vec::new();
        extra.extend_from_slice(&1u16.to_le_bytes());
        extra.extend_from_slice(&8u16.to_le_bytes());
        extra.extend_from_slice(&offset.to_le_bytes());
        central_record(
            &mut central,
            name.as_bytes(),
            crc,
            data.len() as u32,
            data.len() as u32,
            u32::MAX,
            &extra,
            MADE_BY,
        );
        count += 1;
        offset += (local.len() + data.len()) as u64;
    }
    let central_at = offset;
    out.write_all(&central)?;
    let record_at = central_at + central.len() as u64;
    let mut end = Vec::new();
    end.extend_from_slice(&0x0606_4b50u32.to_le_bytes());
    end.extend_from_slice(&44u64.to_le_bytes());
    end.extend_from_slice(&MADE_BY.to_le_bytes());
    end.extend_from_slice(&45u16.to_le_bytes());
    end.extend_from_slice(&[0; 8]);
    end.extend_from_slice(&count.to_le_bytes());
    end.extend_from_slice(&count.to_le_bytes());
    end.extend_from_slice(&(central.len() as u64).to_le_bytes());
    end.extend_from_slice(&central_at.to_le_bytes());
    end.extend_from_slice(&0x0706_4b50u32.to_le_bytes());
    end.extend_from_slice(&0u32.to_le_bytes());
    end.extend_from_slice(&record_at.to_le_bytes());
    end.extend_from_slice(&1u32.to_le_bytes());
    end.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    end.extend_from_slice(&[0; 4]);
    end.extend_from_slice(&(count as u16).to_le_bytes());
    end.extend_from_slice(&(count as u16).to_le_bytes());
    end.extend_from_slice(&(central.len() as u32).to_le_bytes());
    end.extend_from_slice(&u32::MAX.to_le_bytes());
    end.extend_from_slice(&0u16.to_le_bytes());
    out.write_all(&end)?;
    out.flush()
}

/// The CRC-32 of `len` zero bytes, in O(log len): CRCs of halves combined.
fn crc_of_zeros(len: u64) -> u32 {
    let mut result = crc32fast::Hasher::new();
    let mut power = crc32fast::Hasher::new();
    power.update(&[0]);
    let mut bit = 1u64;
    while bit <= len {
        if len & bit != 0 {
            result.combine(&power);
        }
        let twice = power.clone();
        power.combine(&twice);
        bit <<= 1;
    }
    result.finalize()
}

fn local_header(name: &[u8], crc: u32, csize: u32, size: u32, extra_len: u16) -> Vec<u8> {
    let mut h = Vec::with_capacity(30);
    h.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
    h.extend_from_slice(&45u16.to_le_bytes());
    h.extend_from_slice(&0x800u16.to_le_bytes());
    h.extend_from_slice(&[0; 6]); // stored, no time or date
    h.extend_from_slice(&crc.to_le_bytes());
    h.extend_from_slice(&csize.to_le_bytes());
    h.extend_from_slice(&size.to_le_bytes());
    h.extend_from_slice(&(name.len() as u16).to_le_bytes());
    h.extend_from_slice(&extra_len.to_le_bytes());
    h
}

#[allow(clippy::too_many_arguments)]
fn central_record(
    out: &mut Vec<u8>,
    name: &[u8],
    crc: u32,
    csize: u32,
    size: u32,
    offset: u32,
    extra: &[u8],
    made_by: u16,
) {
    out.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
    out.extend_from_slice(&made_by.to_le_bytes());
    out.extend_from_slice(&45u16.to_le_bytes());
    out.extend_from_slice(&0x800u16.to_le_bytes());
    out.extend_from_slice(&[0; 6]);
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&csize.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&(name.len() as u16).to_le_bytes());
    out.extend_from_slice(&(extra.len() as u16).to_le_bytes());
    out.extend_from_slice(&[0; 6]); // comment, disk, internal attributes
    out.extend_from_slice(&(0o100644u32 << 16).to_le_bytes());
    out.extend_from_slice(&offset.to_le_bytes());
    out.extend_from_slice(name);
    out.extend_from_slice(extra);
}

/// `data` compressed with `method`'s reference encoder at `level` (bzip2 1–9, LZMA, XZ 0–9,
/// Zstandard 1–22), framed as a zip entry of that method holds it (LZMA with APPNOTE 5.8.8's
/// header and an end marker, so its entry needs flag bit 1). `None` for stored, deflate and
/// Deflate64 (no encoder here), or if the encoder fails. For tests, benches and fuzzing.
pub fn compress(method: Method, data: &[u8], level: u32) -> Option<Vec<u8>> {
    use std::io::Write;
    match method {
        Method::Bzip2 => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(level.clamp(1, 9)));
            e.write_all(data).ok()?;
            e.finish().ok()
        }
        Method::Lzma => {
            let options = liblzma::stream::LzmaOptions::new_preset(level.min(9)).ok()?;
            let stream = liblzma::stream::Stream::new_lzma_encoder(&options).ok()?;
            let mut e = liblzma::write::XzEncoder::new_stream(Vec::new(), stream);
            e.write_all(data).ok()?;
            // liblzma's `.lzma`: properties, an 8-byte size, the stream. Zip's: a version, the
            // properties' size, the properties, the stream.
            let alone = e.finish().ok()?;
            let mut framed = vec![9, 20, 5, 0];
            framed.extend_from_slice(&alone[..5]);
            framed.extend_from_slice(&alone[13..]);
            Some(framed)
        }
        Method::Zstd => zstd::encode_all(data, level.clamp(1, 22) as i32).ok(),
        Method::Xz => {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), level.min(9));
            e.write_all(data).ok()?;
            e.finish().ok()
        }
        Method::Stored | Method::Deflate | Method::Deflate64 => None,
    }
}

/// `data` picks a method beside deflate (Deflate64, bzip2, LZMA, Zstandard, XZ) and the entry's
/// bytes as stored: the fuzzer's own bytes, or its bytes compressed by the method's encoder and
/// perhaps with one byte flipped; the declared size is the truth or the fuzzer's. Checks: opening
/// the one-entry archive never fails; reading it whole, streaming it and extracting it to memory
/// agree (the same bytes, or all three refuse); what is read has the declared size and CRC-32;
/// and an unflipped encoding with the true size reads back exactly.
pub fn methods(data: &[u8]) {
    let mut c = Cursor(data);
    let method = [9u16, 12, 14, 93, 95][c.below(5)];
    let mode = c.below(4); // 0: the fuzzer's bytes; 1: encoded; 2: encoded, one byte flipped; 3: encoded, size lied
    let (flip_at, flip) = (usize::from(c.byte()) << 8 | usize::from(c.byte()), c.byte() | 1);
    let lie = usize::from(c.byte()) << 8 | usize::from(c.byte());
    let payload = c.0.to_vec();
    let encoded = Method::from_code(method).and_then(|m| compress(m, &payload, 1));
    let (body, truth) = match (mode, encoded) {
        (1..=3, Some(mut body)) => {
            if mode == 2 && !body.is_empty() {
                let at = flip_at % body.len();
                body[at] ^= flip;
            }
            (body, Some(payload.clone()))
        }
        _ => (payload.clone(), None),
    };
    // The declared entry: the truth, or (mode 3, or the fuzzer's bytes) a size of the fuzzer's.
    let declared = match (&truth, mode) {
        (Some(truth), 1 | 2) => truth.clone(),
        (Some(truth), _) => truth.iter().copied().cycle().take(lie).collect(),
        (None, _) => vec![0u8; lie],
    };
    let spec = Spec {
        name: b"entry".to_vec(),
        data: declared.clone(),
        deflate: false,
        descriptor: false,
        unix_mode: 0o100644,
        packed: Some((method, body)),
    };
    let zip = build(&[spec], b"");
    let archive = asset_extract::AssetArchive::from_bytes(zip.clone()).expect("a well-formed one-entry archive opens");
    let whole = archive.read(0);
    let mut streamed = Vec::new();
    let streamed = archive.reader(0).and_then(|mut r| {
        std::io::Read::read_to_end(&mut r, &mut streamed)
            .map_err(|e| Error::Malformed { reason: e.to_string(), entry: None })?;
        Ok(streamed)
    });
    let extracted = extract_to_memory(&zip, &Options::default()).map(|mut files| files.remove(0).1);
    match (&whole, &streamed, &extracted) {
        (Ok(a), Ok(b), Ok(c)) => {
            assert!(a == b && b == c, "the readers disagree");
            assert_eq!((a.len(), crc32fast::hash(a)), (declared.len(), crc32fast::hash(&declared)));
        }
        (Err(_), Err(_), Err(_)) => {}
        _ => panic!(
            "the readers disagree on success: whole {:?}, streamed {:?}, extracted {:?}",
            whole.as_ref().map(Vec::len),
            streamed.as_ref().map(Vec::len),
            extracted.as_ref().map(Vec::len)
        ),
    }
    if mode == 1 && truth.is_some() {
        assert!(whole.as_ref().is_ok_and(|bytes| *bytes == payload), "an intact encoding must read back: {whole:?}");
    }
}

/// `data` = a piece size (its first byte, 1 to 256), then an archive. Fed to a
/// [`StreamedArchive`](asset_extract::StreamedArchive) in pieces of that size and extracted, then
/// extracted from a file of the same bytes: the same tree, or the same error and nothing left at
/// either destination. Works in a directory of its own under the system's temporary directory.
pub fn stream(data: &[u8]) {
    use std::io::Write;
    let Some((&piece, archive)) = data.split_first() else { return };
    let piece = usize::from(piece) + 1;
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("asset-extract-fuzz-stream-{}-{run}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory of our own");
    let _removed = RemovedOnDrop(dir.clone());
    let (from_stream, from_file) = (dir.join("stream"), dir.join("file"));
    // One writer: with several, an archive with two faults reports whichever a writer meets first.
    let options = Options { threads: 1, ..Options::default() };
    let started = std::time::SystemTime::now() - std::time::Duration::from_secs(1);
    let mut incoming = asset_extract::StreamedArchive::beside(&from_stream).expect("a spool");
    // Every entry the stream's local headers describe staged as it arrives, then checked against
    // the central directory: what is extracted must be exactly what the file gives.
    incoming.stage_everything();
    for chunk in archive.chunks(piece) {
        incoming.write_all(chunk).expect("spooled");
    }
    let streamed = incoming.extract(&from_stream, &options);
    let path = dir.join("archive.zip");
    std::fs::write(&path, archive).expect("written");
    let filed = asset_extract::extract(&path, &from_file, &options);
    match (&streamed, &filed) {
        (Ok(a), Ok(b)) => {
            assert_eq!((a.files, a.directories, a.bytes), (b.files, b.directories, b.bytes));
            assert_eq!(tree(&from_stream, started), tree(&from_file, started), "the stream extracted another tree");
        }
        (Err(a), Err(b)) => {
            assert_eq!(
                a.to_string(),
                b.to_string().replace(&path.display().to_string(), "(stream)"),
                "stream and file"
            );
            assert!(!from_stream.exists() && !from_file.exists(), "something left behind");
        }
        _ => panic!("from the stream {streamed:?}, from the file {filed:?}"),
    }
}

/// `data` = a piece size (its first byte, 1 to 256), then an archive, read from every place an
/// archive comes from: memory, a file, a stream (a reader giving at most the piece size a call,
/// as a pipe may) and a caller's source (answering at most the piece size a call); each
/// extracted, and read in place through `AssetArchive` from memory and from the source. One
/// reading or one refusal: the same tree from every extraction and the same files from every
/// archive in place, or every one refused (an archive with several faults may be refused for
/// any of them) and nothing left at any destination. (A URL, read by ranges, is the CLI's: `ffi-tests/corpus/differential.py` reads
/// each mutant from the file, a pipe and a loopback URL through `bufkit`.)
pub fn sources(data: &[u8]) {
    let Some((&piece, archive)) = data.split_first() else { return };
    let piece = usize::from(piece) + 1;
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("asset-extract-fuzz-sources-{}-{run}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory of our own");
    let _removed = RemovedOnDrop(dir.clone());
    let path = dir.join("archive.zip");
    std::fs::write(&path, archive).expect("written");
    let options = Options { threads: 1, ..Options::default() };
    let started = std::time::SystemTime::now() - std::time::Duration::from_secs(1);
    let served = Pieces { bytes: archive.to_vec(), piece };
    let places: [(&str, &Extraction<'_>); 4] = [
        ("memory", &|dest| asset_extract::extract_bytes(archive, dest, &options)),
        ("file", &|dest| asset_extract::extract(&path, dest, &options)),
        ("stream", &|dest| asset_extract::extract_stream(&mut Trickle { rest: archive, piece }, dest, &options)),
        ("source", &|dest| asset_extract::extract_source(&served, dest, &options)),
    ];
    let mut first: Option<(&str, Result<Tree, Error>)> = None;
    for (place, extract) in places {
        let dest = dir.join(place);
        let outcome = extract(&dest).map(|_| tree(&dest, started));
        if outcome.is_err() {
            assert!(!dest.exists(), "a refused extraction from the {place} left its destination");
        }
        match &first {
            None => first = Some((place, outcome)),
            Some((was, seen)) => match (seen, &outcome) {
                (Ok(a), Ok(b)) => assert!(a == b, "the {place} extracted another tree than the {was}"),
                // Refused by both (an archive with several faults may be refused for either).
                (Err(_), Err(_)) => {}
                (a, b) => panic!("the {was}: {a:?}; the {place}: {b:?}"),
            },
        }
    }
    // In place: the archive's files read whole, from memory and from the source, agree; and, where
    // extraction read the archive, they are its files.
    let in_memory = asset_extract::AssetArchive::from_bytes(archive.to_vec()).and_then(|a| files_of(&a));
    let from_source = asset_extract::AssetArchive::open_source(served.clone()).and_then(|a| files_of(&a));
    match (&in_memory, &from_source) {
        (Ok(a), Ok(b)) => assert!(a == b, "in place, the source read other files than memory"),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("in place, from memory {a:?}, from the source {b:?}"),
    }
    if let (Some((_, Ok(_))), Err(e)) = (&first, &in_memory) {
        panic!("extracted, but refused in place: {e}");
    }
    if let (Some((_, Ok(extracted))), Ok(read)) = (&first, &in_memory) {
        let files: Vec<(&str, &[u8])> = extracted
            .iter()
            .filter_map(|(name, node)| match node {
                Node::File { bytes, .. } => Some((name.as_str(), bytes.as_slice())),
                _ => None,
            })
            .collect();
        let read: Vec<(&str, &[u8])> = read.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
        assert!(files == read, "extraction wrote other files than are read in place");
    }
}

/// One way of extracting the archive into a destination.
type Extraction<'a> = dyn Fn(&std::path::Path) -> Result<asset_extract::Report, Error> + 'a;

/// What an extraction left, as [`tree`] lists it.
type Tree = Vec<(String, Node)>;

/// An archive's files (not directories) read whole, sorted by name.
pub fn files_of(archive: &asset_extract::AssetArchive) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let mut files = Vec::new();
    for (i, e) in archive.entries().iter().enumerate() {
        if e.kind == Kind::File {
            files.push((e.path.clone(), archive.read(i)?.to_vec()));
        }
    }
    files.sort();
    Ok(files)
}

/// A reader giving at most `piece` bytes a call, as a pipe may.
pub struct Trickle<'a> {
    /// What is left to give.
    pub rest: &'a [u8],
    /// The most one read gives.
    pub piece: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.piece).min(self.rest.len());
        buf[..n].copy_from_slice(&self.rest[..n]);
        self.rest = &self.rest[n..];
        Ok(n)
    }
}

/// A caller's source serving `bytes`, answering at most `piece` bytes a call.
#[derive(Clone)]
pub struct Pieces {
    /// The archive.
    pub bytes: Vec<u8>,
    /// The most one call answers.
    pub piece: usize,
}

impl asset_extract::Source for Pieces {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let rest = self.bytes.get(offset as usize..).unwrap_or(&[]);
        let n = buf.len().min(self.piece).min(rest.len());
        buf[..n].copy_from_slice(&rest[..n]);
        Ok(n)
    }
}

/// A run's directory, removed however the run ends (a failed check panics).
struct RemovedOnDrop(std::path::PathBuf);

impl Drop for RemovedOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What an extraction left at one path, for comparing two extractions: a file's permission
/// bits, bytes and time, a directory's permission bits, a link's target.
#[derive(PartialEq, PartialOrd, Eq, Ord, Debug)]
enum Node {
    Directory { mode: u32 },
    File { mode: u32, bytes: Vec<u8>, mtime: Stamp },
    Link { target: std::path::PathBuf },
}

/// A file's modification time: the one the archive gave it, or (where it gave none) the time of
/// the extraction, which two extractions do not share.
#[derive(PartialEq, PartialOrd, Eq, Ord, Debug)]
enum Stamp {
    Given(i64),
    OfTheExtraction,
}

/// Every path under `dir` (relative) with what is there, sorted; links are not followed. A time
/// at or after `started` is the extraction's own.
fn tree(dir: &std::path::Path, started: std::time::SystemTime) -> Vec<(String, Node)> {
    let started = started.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            // Joined by `/` on every system, as entry names are.
            let under = path.strip_prefix(dir).expect("under dir").components();
            let rel = under.map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            let meta = std::fs::symlink_metadata(&path).expect("an extracted path");
            let mode = crate::sys::permission_bits(&meta);
            let node = if meta.file_type().is_symlink() {
                Node::Link { target: std::fs::read_link(&path).expect("a link") }
            } else if meta.is_dir() {
                stack.push(path);
                Node::Directory { mode }
            } else {
                let secs = meta
                    .modified()
                    .expect("a modification time")
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or_else(|before| -(before.duration().as_secs_f64().ceil() as i64), |d| d.as_secs() as i64);
                let mtime = if secs >= started { Stamp::OfTheExtraction } else { Stamp::Given(secs) };
                Node::File { mode, bytes: std::fs::read(&path).expect("an extracted file"), mtime }
            };
            out.push((rel, node));
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::{Spec, build};
    use asset_extract::{Options, extract_to_memory};

    #[test]
    fn the_builder_makes_archives_that_extract_exactly() {
        let specs = [
            Spec {
                name: b"a/b.txt".to_vec(),
                data: vec![7; 70_000],
                deflate: true,
                descriptor: true,
                unix_mode: 0o100644,
                packed: None,
            },
            Spec {
                name: b"c".to_vec(),
                data: b"stored".to_vec(),
                deflate: false,
                descriptor: false,
                unix_mode: 0o100755,
                packed: None,
            },
            Spec {
                name: b"e".to_vec(),
                data: Vec::new(),
                deflate: true,
                descriptor: false,
                unix_mode: 0o100644,
                packed: None,
            },
        ];
        for prefix in [&b""[..], b"JM\x01\x00"] {
            let files = extract_to_memory(&build(&specs, prefix), &Options::default()).unwrap();
            let got: Vec<(&str, &[u8])> = files.iter().map(|(p, b)| (p.as_str(), b.as_slice())).collect();
            assert_eq!(got, [("a/b.txt", &[7u8; 70_000][..]), ("c", b"stored"), ("e", b"")]);
        }
    }
}
