//! Deflate64, bzip2, LZMA, Zstandard and XZ: read back exactly by every reader (whole reads and
//! streams, from memory and from the file, extraction, verification), from archives 7-Zip wrote
//! and from archives built here with each method's reference encoder; and refused cleanly when
//! corrupt, truncated, lying about their size or past the caller's limits.

mod support;
#[allow(dead_code)]
mod zipwriter;

use std::io::Read;
use std::path::{Path, PathBuf};

use asset_extract::{AssetArchive, Error, Holding, Method, Mode, Options, extract, extract_bytes, extract_to_memory};
use support::{listing, workdir};
use zipwriter::{Spec, build, put_u32};

/// The text file of the 7-Zip fixtures, as the script that made them wrote it.
fn fixture_text() -> Vec<u8> {
    (0..400)
        .flat_map(|i| format!("line {i}: assets/js/module-{}.js exports {} names\n", i % 37, i * 7 % 101).into_bytes())
        .collect()
}

/// Data that compresses, but not to nothing: numbered lines and a stretch of pseudo-random bytes.
fn sample(len: usize, seed: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    let mut x = seed | 1;
    let mut line = 0;
    while out.len() < len {
        if line % 50 == 49 {
            for _ in 0..300 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                out.push(x as u8);
            }
        } else {
            out.extend_from_slice(format!("{line:06} assets/js/chunk-{}.js => {}\n", line % 97, x % 1000).as_bytes());
        }
        line += 1;
    }
    out.truncate(len);
    out
}

fn encoder(method: Method, level: u32) -> impl Fn(&[u8]) -> Vec<u8> {
    move |data| test_support::zip::compress(method, data, level).expect("an encoder")
}

fn bzip2(data: &[u8]) -> Vec<u8> {
    encoder(Method::Bzip2, 9)(data)
}

fn zstd(data: &[u8]) -> Vec<u8> {
    encoder(Method::Zstd, 19)(data)
}

fn xz(data: &[u8]) -> Vec<u8> {
    encoder(Method::Xz, 6)(data)
}

/// LZMA as zip frames it (APPNOTE 5.8.8), with an end marker (flag bit 1).
fn lzma(data: &[u8]) -> Vec<u8> {
    encoder(Method::Lzma, 6)(data)
}

/// A method built here: its name, its number, its encoder, and the flags its entries carry.
type Encoder = (&'static str, u16, fn(&[u8]) -> Vec<u8>, u16);

/// Every method built here.
fn encoders() -> Vec<Encoder> {
    vec![("bzip2", 12, bzip2, 0), ("lzma", 14, lzma, 2), ("zstd", 93, zstd, 0), ("xz", 95, xz, 0)]
}

/// An archive of `files`, each compressed with `encode` as method `method`.
fn archive_of(files: &[(&str, Vec<u8>)], method: u16, encode: fn(&[u8]) -> Vec<u8>, flags: u16) -> Vec<u8> {
    let specs: Vec<Spec> =
        files.iter().map(|(name, data)| Spec { flags, ..Spec::packed(name, data, method, encode(data)) }).collect();
    build(&specs, b"").0
}

/// `bytes` in a temporary file, removed when the returned path is dropped.
fn temp_zip(name: &str, bytes: &[u8]) -> tempfile::TempPath {
    let mut file =
        tempfile::Builder::new().prefix(&format!("asset-extract-methods-{name}-")).suffix(".zip").tempfile().unwrap();
    std::io::Write::write_all(&mut file, bytes).unwrap();
    file.into_temp_path()
}

/// Every way of reading an entry gives `files`' bytes: whole and streamed, from memory, from the
/// file read with `pread` and mapped; extraction from memory, from the file and to memory; and
/// verification.
fn reads_back(name: &str, zip: &[u8], files: &[(&str, Vec<u8>)]) {
    let path = temp_zip(name, zip);
    let archives = [
        ("memory", AssetArchive::from_bytes(zip.to_vec()).unwrap()),
        ("pread", AssetArchive::open(&path, Holding::Read).unwrap()),
        ("map", AssetArchive::open(&path, Holding::Map).unwrap()),
    ];
    for (how, archive) in &archives {
        for (file, data) in files {
            let index = archive.find(file).unwrap_or_else(|| panic!("{name}: no {file}"));
            assert!(archive.read(index).unwrap() == *data, "{name} ({how}): {file} read whole differs");
            let mut streamed = Vec::new();
            archive.reader(index).unwrap().read_to_end(&mut streamed).unwrap();
            assert!(streamed == *data, "{name} ({how}): {file} streamed differs");
        }
        let verified = archive.verify(2);
        assert!(verified.is_ok(), "{name} ({how}): {:?}", verified.failures);
    }
    let dir = workdir(&format!("methods-{name}"));
    for (from, report) in [
        ("file", extract(&path, &dir.join("from-file"), &Options::default())),
        ("memory", extract_bytes(zip, &dir.join("from-memory"), &Options::default())),
    ] {
        assert_eq!(report.unwrap().files, files.len() as u64, "{name} from {from}");
        for (file, data) in files {
            let written = std::fs::read(dir.join(format!("from-{from}")).join(file)).unwrap();
            assert!(written == *data, "{name}: {file} extracted from {from} differs");
        }
    }
    let in_memory = extract_to_memory(zip, &Options::default()).unwrap();
    assert_eq!(in_memory.len(), files.len());
    for ((got_name, got), (file, data)) in in_memory.iter().zip(files) {
        assert_eq!(got_name, file);
        assert!(got == data, "{name}: {file} extracted to memory differs");
    }
}

#[test]
fn every_method_reads_back_exactly_from_every_reader() {
    // Small, empty, and larger than one streaming piece and than a whole-entry read (4 MiB).
    let files = [("small.txt", sample(3_000, 1)), ("empty.txt", Vec::new()), ("big.bin", sample(5 << 20, 2))];
    for (name, method, encode, flags) in encoders() {
        reads_back(name, &archive_of(&files, method, encode, flags), &files);
    }
}

#[test]
fn archives_7zip_wrote_read_back() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let text = fixture_text();
    for fixture in ["bzip2-7zip.zip", "lzma-7zip.zip"] {
        reads_back(fixture, &std::fs::read(data.join(fixture)).unwrap(), &[("text.txt", text.clone())]);
    }
    // Deflate64: far.bin repeats 40,000 random bytes three times (matches 40,000 bytes back,
    // past deflate's 32 KiB window) and holds 70,000 zeros (Deflate64's long-length code).
    let zip = std::fs::read(data.join("deflate64.zip")).unwrap();
    let archive = AssetArchive::from_bytes(zip.clone()).unwrap();
    let far = archive.read(archive.find("far.bin").unwrap()).unwrap();
    assert_eq!(far.len(), 199_000);
    assert_eq!(&far[..40_000], &far[40_000..80_000]);
    assert_eq!(&far[..40_000], &far[80_000..120_000]);
    assert!(far[120_000..190_000].iter().all(|&b| b == 0));
    assert!(far.ends_with(b"jumps over the lazy dog. "));
    reads_back("deflate64", &zip, &[("far.bin", far), ("text.txt", text)]);
}

/// Extracting `zip` must fail as `check` says, from memory and from a file, leaving an existing
/// destination as it was.
fn refused(name: &str, zip: &[u8], options: Options<'_>, check: impl Fn(&Error) -> bool) {
    let dir = workdir(&format!("methods-refused-{name}"));
    let path = temp_zip(&format!("refused-{name}"), zip);
    std::fs::create_dir(dir.join("out")).unwrap();
    std::fs::write(dir.join("out/keep.txt"), b"existing data").unwrap();
    let options = Options { mode: Mode::Replace, ..options };
    for (from, result) in [
        ("file", extract(&path, &dir.join("out"), &options)),
        ("memory", extract_bytes(zip, &dir.join("out"), &options)),
    ] {
        let err = result.expect_err(name);
        assert!(check(&err), "{name} from {from}: unexpected {err:?}");
        assert_eq!(listing(&dir), vec!["out"], "{name}: something was left beside the destination");
        assert_eq!(listing(&dir.join("out")), vec!["keep.txt"], "{name}: the destination changed");
    }
}

/// Reading entry `file` of `zip` fails, whole and streamed, from memory and from the file.
fn unreadable(name: &str, zip: &[u8], file: &str) {
    let path = temp_zip(&format!("unreadable-{name}"), zip);
    for archive in [AssetArchive::from_bytes(zip.to_vec()).unwrap(), AssetArchive::open(&path, Holding::Read).unwrap()]
    {
        let index = archive.find(file).unwrap();
        assert!(archive.read(index).is_err(), "{name}: read whole");
        let mut sink = Vec::new();
        let streamed_fails = archive.reader(index).map_or(true, |mut r| r.read_to_end(&mut sink).is_err());
        assert!(streamed_fails, "{name}: streamed");
        assert!(!archive.verify(1).is_ok(), "{name}: verified");
    }
}

#[test]
fn corrupt_data_in_every_method_is_an_error_with_nothing_written() {
    use strided_inflate::Error::SizeMismatch;
    let data = sample(200_000, 3);
    for (name, method, encode, flags) in encoders() {
        let mut body = encode(&data);
        // A flipped byte in the middle of the stream, and a stream cut short.
        let middle = body.len() / 2;
        body[middle] ^= 0x55;
        let spec = Spec { flags, ..Spec::packed("data.bin", &data, method, body) };
        let zip = build(&[spec], b"").0;
        refused(&format!("{name}-flipped"), &zip, Options::default(), |e| {
            matches!(e, Error::Crc { .. } | Error::Malformed { .. } | Error::Data { .. })
        });
        unreadable(&format!("{name}-flipped"), &zip, "data.bin");
        let cut = encode(&data)[..middle].to_vec();
        let zip = build(&[Spec { flags, ..Spec::packed("data.bin", &data, method, cut) }], b"").0;
        refused(&format!("{name}-cut"), &zip, Options::default(), |e| {
            matches!(e, Error::Malformed { .. } | Error::Data { source: SizeMismatch { actual: Some(_), .. }, .. })
        });
        unreadable(&format!("{name}-cut"), &zip, "data.bin");
    }
}

#[test]
fn a_bomb_in_every_method_stops_at_its_declared_size_or_at_the_limits() {
    use strided_inflate::Error::SizeMismatch;
    // 16 MiB of zeros: well past deflate's 1,032:1 in every method.
    let zeros = vec![0u8; 16 << 20];
    for (name, method, encode, flags) in encoders() {
        let body = encode(&zeros);
        assert!(body.len() < (16 << 20) / 1100, "{name}: {} bytes", body.len());
        // Declared small: decoding stops one byte past the declared size, in bounded memory.
        let mut zip = build(&[Spec { flags, ..Spec::packed("bomb.bin", &zeros[..1000], method, body.clone()) }], b"").0;
        // (liblzma is told the declared size, so it stops there and calls what follows corrupt.)
        refused(&format!("{name}-lying"), &zip, Options::default(), |e| {
            matches!(e, Error::Data { source: SizeMismatch { expected: 1000, actual: None, .. }, .. })
                || matches!(e, Error::Malformed { reason, .. } if name == "lzma" && reason.contains("corrupt lzma data"))
        });
        // Declared honestly: the ratio limit and the quota refuse it before anything is written.
        zip = build(&[Spec { flags, ..Spec::packed("bomb.bin", &zeros, method, body) }], b"").0;
        refused(&format!("{name}-ratio"), &zip, Options { max_ratio: Some(100.0), ..Options::default() }, |e| {
            matches!(e, Error::Limit { .. })
        });
        refused(&format!("{name}-quota"), &zip, Options { quota: Some(1 << 20), ..Options::default() }, |e| {
            matches!(e, Error::Limit { .. })
        });
    }
}

#[test]
fn methods_bufkit_does_not_read_are_refused_by_name() {
    for (method, name) in [(98u16, "PPMd"), (6, "implode"), (1, "shrink"), (99, "AE-x encryption"), (97, "WavPack")] {
        let (mut zip, layout) = build(&[Spec::stored("a.bin", b"0123456789")], b"");
        for at in [layout.local[0] + 8, layout.central[0] + 10] {
            zip[at..at + 2].copy_from_slice(&method.to_le_bytes());
        }
        let Err(err) = AssetArchive::from_bytes(zip.clone()) else { panic!("method {method} accepted") };
        assert!(matches!(err, Error::UnsupportedMethod { method: m, .. } if m == method), "{err:?}");
        assert!(err.to_string().contains(name), "{err}");
        refused(&format!("method-{method}"), &zip, Options::default(), |e| {
            matches!(e, Error::UnsupportedMethod { .. })
        });
    }
}

#[test]
fn an_lzma_dictionary_past_the_limit_is_refused_before_it_is_allocated() {
    let data = sample(10_000, 4);
    let mut body = lzma(&data);
    put_u32(&mut body, 5, 1 << 30); // the properties' dictionary size: 1 GiB
    let zip = build(&[Spec { flags: 2, ..Spec::packed("big-dictionary.bin", &data, 14, body) }], b"").0;
    refused("lzma-dictionary", &zip, Options::default(), |e| matches!(e, Error::Limit { .. }));
}

/// The archive the C, Java and Erlang tests read (`tests/data/methods.zip`): the fixture text once
/// per method, named after it. Written by `cargo test --test methods -- --ignored`; the Deflate64
/// stream is 7-Zip's, from `deflate64.zip`.
fn methods_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/methods.zip")
}

#[test]
#[ignore = "writes tests/data/methods.zip"]
fn write_the_bindings_fixture() {
    let text = fixture_text();
    let seven = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/deflate64.zip")).unwrap();
    let entries = asset_extract::read_entries(&seven).unwrap();
    let e = entries.iter().find(|e| e.path == "text.txt").unwrap();
    let deflate64 = seven[e.data_offset as usize..(e.data_offset + e.compressed_size) as usize].to_vec();
    let mut specs = vec![Spec::packed("deflate64.txt", &text, 9, deflate64)];
    for (name, method, encode, flags) in encoders() {
        specs.push(Spec { flags, ..Spec::packed(&format!("{name}.txt"), &text, method, encode(&text)) });
    }
    std::fs::write(methods_fixture(), build(&specs, b"").0).unwrap();
}

#[test]
fn the_bindings_fixture_holds_the_text_once_per_method() {
    let zip = std::fs::read(methods_fixture()).unwrap();
    let archive = AssetArchive::from_bytes(zip.clone()).unwrap();
    let methods: Vec<(String, u16)> = archive.entries().iter().map(|e| (e.path.clone(), e.method.code())).collect();
    let expected = [("deflate64.txt", 9), ("bzip2.txt", 12), ("lzma.txt", 14), ("zstd.txt", 93), ("xz.txt", 95)];
    assert_eq!(methods, expected.map(|(name, code)| (name.to_string(), code)).to_vec());
    let files: Vec<(&str, Vec<u8>)> = expected.iter().map(|&(name, _)| (name, fixture_text())).collect();
    reads_back("bindings-fixture", &zip, &files);
}

#[test]
fn encryption_is_refused_naming_the_scheme() {
    for (method, flags, scheme) in
        [(8u16, 1u16, "ZipCrypto"), (99, 1, "WinZip AES"), (8, 0x41, "PKWARE strong encryption")]
    {
        let spec = Spec { flags, ..Spec::packed("secret.bin", b"0123456789", method, b"0123456789".to_vec()) };
        let zip = build(&[spec], b"").0;
        let Err(err) = AssetArchive::from_bytes(zip.clone()) else { panic!("{scheme} accepted") };
        assert!(matches!(&err, Error::Encrypted { scheme: s, .. } if *s == scheme), "{err:?}");
        assert!(err.to_string().contains(scheme), "{err}");
        refused(&format!("encrypted-{method}-{flags}"), &zip, Options::default(), |e| {
            matches!(e, Error::Encrypted { .. })
        });
    }
}

/// Entry `name`'s data as stored in `zip` (its local header at `header`).
fn stored_data(zip: &[u8], header: usize, compressed: usize) -> Vec<u8> {
    let u16_at = |at: usize| u16::from_le_bytes([zip[at], zip[at + 1]]) as usize;
    let start = header + 30 + u16_at(header + 26) + u16_at(header + 28);
    zip[start..start + compressed].to_vec()
}

/// Issue 38: bytes after an entry's stream, inside its compressed size, follow one rule for every
/// method and every reader: read past by default (as unzip, Python and commons-compress read
/// them), refused by strict extraction.
#[test]
fn bytes_after_a_stream_are_read_past_unless_strict_in_every_method() {
    let data = sample(300_000, 4);
    let junk: Vec<u8> = (0..128u32).map(|i| (i * 37 + 11) as u8).collect();
    let text = fixture_text();
    let deflate64 = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/deflate64.zip")).unwrap();
    // A name, a method, its compressed stream, its flags and what it decompresses to.
    type Case = (&'static str, u16, Vec<u8>, u16, Vec<u8>);
    let mut cases: Vec<Case> = vec![
        ("deflate", 8, zipwriter::deflate(&data), 0, data.clone()),
        ("deflate64", 9, stored_data(&deflate64, 41430, 2194), 0, text.clone()),
    ];
    for (name, method, encode, flags) in encoders() {
        cases.push((name, method, encode(&data), flags, data.clone()));
    }
    // A large deflated entry: streamed by extraction in chunks.
    let big = sample(6 << 20, 5);
    cases.push(("deflate-large", 8, zipwriter::deflate(&big), 0, big.clone()));
    for (name, method, body, flags, plain) in cases {
        let spec = |body: Vec<u8>| Spec { flags, ..Spec::packed("data.bin", &plain, method, body) };
        // The same stream without junk reads, strict or not.
        let clean = build(&[spec(body.clone())], b"").0;
        let dir = workdir(&format!("trailing-clean-{name}"));
        extract_bytes(&clean, &dir.join("out"), &Options { strict: true, ..Options::default() })
            .unwrap_or_else(|e| panic!("{name}: a clean stream refused under strict: {e}"));
        let zip = build(&[spec([body.clone(), junk.clone()].concat())], b"").0;
        reads_back(&format!("trailing-{name}"), &zip, &[("data.bin", plain.clone())]);
        // One byte is enough for strict (Deflate64's decoder reads a few bytes ahead, but never
        // past a stream that ends its data).
        let one = build(&[spec([body, vec![0xA5]].concat())], b"").0;
        for (what, zip) in [("128", &zip), ("1", &one)] {
            refused(
                &format!("trailing-{name}-{what}-strict"),
                zip,
                Options { strict: true, ..Options::default() },
                |e| matches!(e, Error::Malformed { reason, .. } if reason.contains("bytes follow") && reason.contains("(strict)")),
            );
        }
    }
}

/// Issue 38: bzip2, XZ and Zstandard streams one after another make one entry when the first
/// alone does not reach its size (as `pbzip2`, `xz -T` and `zstd` concatenations write them);
/// a stream that ends short with nothing after it is refused.
#[test]
fn concatenated_streams_make_one_entry_until_its_size() {
    let (a, b) = (sample(200_000, 6), sample(150_000, 7));
    let whole = [a.clone(), b.clone()].concat();
    for (name, method, encode, flags) in encoders() {
        if name == "lzma" {
            continue; // one stream, ended by its size
        }
        let mut body = [encode(&a), encode(&b)].concat();
        if name == "xz" {
            // Stream padding between XZ streams.
            let first = encode(&a);
            body = [first, vec![0; 8], encode(&b)].concat();
        }
        let zip = build(&[Spec { flags, ..Spec::packed("data.bin", &whole, method, body.clone()) }], b"").0;
        reads_back(&format!("concatenated-{name}"), &zip, &[("data.bin", whole.clone())]);
        if name == "xz" {
            // Stream padding after the last stream is the format's own: strict reads it.
            let padded = [body, vec![0; 12]].concat();
            let zip = build(&[Spec { flags, ..Spec::packed("data.bin", &whole, method, padded) }], b"").0;
            let dir = workdir("xz-padding-strict");
            extract_bytes(&zip, &dir.join("out"), &Options { strict: true, ..Options::default() }).unwrap();
        }
        let short = build(&[Spec { flags, ..Spec::packed("data.bin", &whole, method, encode(&a)) }], b"").0;
        unreadable(&format!("short-{name}"), &short, "data.bin");
    }
}

/// Slices of a bzip2, LZMA, Zstandard or XZ entry from a caller's source whose bytes change after
/// the entry was checked: an error, or the entry's own bytes, never other bytes with success.
#[test]
fn slices_of_a_source_that_changes_are_an_error_never_other_bytes() {
    let data = sample(300_000, 9);
    for (name, method, encode, flags) in encoders() {
        let zip = archive_of(&[("data.txt", data.clone())], method, encode, flags);
        let (mut refused, mut read) = (0, 0);
        for flipped in (40..zip.len() - 100).step_by(zip.len() / 9) {
            let changed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let source = support::Changing { bytes: zip.clone(), flipped, changed: changed.clone() };
            let archive = AssetArchive::open_source(source).unwrap();
            let mut slice = vec![0u8; 4096];
            archive.read_at(0, 0, &mut slice).unwrap();
            changed.store(true, std::sync::atomic::Ordering::Relaxed);
            for offset in (0..data.len() as u64 - 4096).step_by(70_001) {
                match archive.read_at(0, offset, &mut slice) {
                    Ok(_) => {
                        assert!(
                            slice == data[offset as usize..offset as usize + 4096],
                            "{name}: other bytes at {offset}"
                        );
                        read += 1;
                    }
                    Err(_) => refused += 1,
                }
            }
        }
        // Slices decode from the entry's start: a change anywhere before them is seen.
        assert!(refused > 0, "{name}: {refused} refused, {read} read");
    }
}
