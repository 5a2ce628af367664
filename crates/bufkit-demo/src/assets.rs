//! A runtime's first start, without extracting: the ~200 built-in assets read straight from the
//! archive, against extracting them first and reading the files back, and against the
//! `java.util.zip` way of reading in place (a new inflater and a new buffer for every read): in
//! Rust, and with `ZipFile` itself when a JDK is found.

#![forbid(unsafe_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use asset_extract::{AssetArchive, Holding, Kind, LocalHeaders, Method, Options};
use buffer_pool::{BufferPool, PoolConfig};

use super::Options as DemoOptions;
use crate::report::{self, Strategy};

/// The `java.util.zip` row's program, run as a single-file source program (JDK 11 and later).
const ZIP_FILE_ASSETS: &str = include_str!("ZipFileAssets.java");

/// Sums a checksum over the bytes, so no strategy can skip reading them.
fn touch(bytes: &[u8]) -> u64 {
    bytes.iter().step_by(64).map(|&b| u64::from(b)).sum()
}

pub fn run(options: &DemoOptions) -> Result<(), String> {
    let zip = super::extract::built_in_archive();
    let base = if Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
    let root = base.join(format!("bufkit-demo-assets-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    let apk = root.join("app.apk");
    fs::write(&apk, &zip).map_err(|e| format!("{}: {e}", apk.display()))?;
    let outcome = measure(&apk, &root).map(|mut measured| {
        match java_zip_file(&apk, &root, measured.expected) {
            Ok(row) => measured.rows.insert(2, row),
            Err(why) => eprintln!("assets: no java.util.zip row: {why}"),
        }
        measured
    });
    let _ = fs::remove_dir_all(&root);
    let Measured { rows, expected, files } = outcome?;
    let bufkit = rows.iter().find(|r| r.name.starts_with("bufkit: open in place")).map_or(1.0, |r| r.seconds);
    let heading = format!(
        "assets: first start reads {files} assets ({}) of a {} archive in {}, best of 5; every strategy reads every byte (checksum {})",
        report::bytes(expected.1),
        report::bytes(zip.len() as u64),
        base.display(),
        expected.0
    );
    report::timed_strategies(rows, bufkit, options.json, &heading, "vs bufkit in place")?;
    Ok(())
}

/// The strategies' rows, the (checksum, bytes) each read, and the number of files.
struct Measured {
    rows: Vec<Strategy>,
    expected: (u64, u64),
    files: usize,
}

/// Each strategy, best of 5, checked to read the same bytes.
fn measure(apk: &Path, root: &Path) -> Result<Measured, String> {
    let err = |e: asset_extract::Error| e.to_string();
    let files =
        AssetArchive::open(apk, Holding::Map).map_err(err)?.entries().iter().filter(|e| e.kind == Kind::File).count();
    let mut rows = Vec::new();
    let mut expected = None;
    let mut time =
        |name: &'static str, run: &mut dyn FnMut(usize) -> Result<(u64, u64), String>| -> Result<(), String> {
            let mut best = f64::MAX;
            for round in 0..5 {
                let start = Instant::now();
                let seen = run(round)?;
                best = best.min(start.elapsed().as_secs_f64());
                match expected {
                    None => expected = Some(seen),
                    Some(e) if e != seen => return Err(format!("{name} read other bytes: {seen:?} against {e:?}")),
                    Some(_) => {}
                }
            }
            rows.push(Strategy::timed(name, best));
            Ok(())
        };
    time("extract to a directory, then read every file", &mut |round| {
        let dest = root.join(format!("extracted-{round}"));
        asset_extract::extract(apk, &dest, &Options::default()).map_err(err)?;
        let archive = AssetArchive::open(apk, Holding::Map).map_err(err)?; // only to list the names
        let mut seen = (0, 0);
        for e in archive.entries().iter().filter(|e| e.kind == Kind::File) {
            let bytes = fs::read(dest.join(&e.path)).map_err(|e| e.to_string())?;
            seen = (seen.0 + touch(&bytes), seen.1 + bytes.len() as u64);
        }
        let _ = fs::remove_dir_all(&dest);
        Ok(seen)
    })?;
    time("per read a new inflater and a new buffer (java.util.zip's pattern, in Rust)", &mut |_| {
        let zip = fs::read(apk).map_err(|e| e.to_string())?;
        let entries = asset_extract::read_entries(&zip).map_err(err)?; // where each entry's data lies
        let mut seen = (0, 0);
        for e in entries.iter().filter(|e| e.kind == Kind::File) {
            let src = &zip[e.data_offset as usize..(e.data_offset + e.compressed_size) as usize];
            let mut bytes = vec![0u8; e.size as usize];
            match e.method {
                Method::Deflate => {
                    let mut inflater =
                        strided_inflate::Decoder::new(strided_inflate::Format::Raw).map_err(|e| e.to_string())?;
                    inflater.inflate_at(src, 0, &mut bytes).map_err(|e| e.to_string())?;
                }
                Method::Stored => bytes.copy_from_slice(src),
                other => return Err(format!("the demo's archive holds no {} entries", other.name())),
            }
            seen = (seen.0 + touch(&bytes), seen.1 + bytes.len() as u64);
        }
        Ok(seen)
    })?;
    let pool = BufferPool::new(PoolConfig::default()).map_err(|e| e.to_string())?;
    for (name, holding, local_headers) in [
        ("bufkit: open in place (read), read every asset", Holding::Read, LocalHeaders::AtOpen),
        ("bufkit: the same, local headers checked on first read", Holding::Read, LocalHeaders::OnFirstRead),
        ("bufkit: open in place (mapped), read every asset", Holding::Map, LocalHeaders::AtOpen),
    ] {
        time(name, &mut |_| {
            let archive = AssetArchive::open_with(apk, holding, local_headers).map_err(err)?;
            let mut seen = (0, 0);
            for index in (0..archive.len()).filter(|&i| archive.entries()[i].kind == Kind::File) {
                let bytes = archive.read(index).map_err(err)?;
                seen = (seen.0 + touch(&bytes), seen.1 + bytes.len() as u64);
            }
            Ok(seen)
        })?;
    }
    time("bufkit: mapped, local headers on first read, into pool leases", &mut |_| {
        let archive = AssetArchive::open_with(apk, Holding::Map, LocalHeaders::OnFirstRead).map_err(err)?;
        let mut seen = (0, 0);
        for (index, e) in archive.entries().iter().enumerate().filter(|(_, e)| e.kind == Kind::File) {
            let lease = archive.read_pooled(index, &pool).map_err(err)?;
            let bytes = &lease[..e.size as usize];
            seen = (seen.0 + touch(bytes), seen.1 + bytes.len() as u64);
        }
        Ok(seen)
    })?;
    time("bufkit: mapped, into one buffer reused for every asset", &mut |_| {
        let archive = AssetArchive::open_with(apk, Holding::Map, LocalHeaders::OnFirstRead).map_err(err)?;
        let biggest = archive.entries().iter().map(|e| e.size as usize).max().unwrap_or(0);
        let mut buffer = vec![0u8; biggest];
        let mut seen = (0, 0);
        for (index, e) in archive.entries().iter().enumerate().filter(|(_, e)| e.kind == Kind::File) {
            let bytes = &mut buffer[..e.size as usize];
            archive.read_into(index, bytes).map_err(err)?;
            seen = (seen.0 + touch(bytes), seen.1 + bytes.len() as u64);
        }
        Ok(seen)
    })?;
    Ok(Measured { rows, expected: expected.unwrap_or_default(), files })
}

/// `java.util.zip.ZipFile` reading every asset, in a JVM (warm), when a JDK 11+ is found: checked
/// to read the same bytes as the other strategies.
fn java_zip_file(apk: &Path, root: &Path, expected: (u64, u64)) -> Result<Strategy, String> {
    let (java, version) = find_java().ok_or("no JDK 11 or later found (JAVA_HOME, PATH, /usr/lib/jvm)")?;
    let source = root.join("ZipFileAssets.java");
    fs::write(&source, ZIP_FILE_ASSETS).map_err(|e| format!("{}: {e}", source.display()))?;
    let out =
        Command::new(&java).arg(&source).arg(apk).arg("5").output().map_err(|e| format!("{}: {e}", java.display()))?;
    if !out.status.success() {
        return Err(format!("{} failed: {}", java.display(), String::from_utf8_lossy(&out.stderr).trim()));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let fields: Vec<&str> = stdout.split_whitespace().collect();
    let [seconds, checksum, bytes] = fields[..] else {
        return Err(format!("unexpected output from ZipFileAssets: {stdout:?}"));
    };
    let parse = |s: &str| s.parse::<u64>().map_err(|e| format!("{s:?}: {e}"));
    let seen = (parse(checksum)?, parse(bytes)?);
    if seen != expected {
        return Err(format!("java.util.zip read other bytes: {seen:?} against {expected:?}"));
    }
    let seconds = seconds.parse::<f64>().map_err(|e| format!("{seconds:?}: {e}"))?;
    Ok(Strategy::timed(
        format!("java.util.zip.ZipFile, getInputStream().readAllBytes() per asset (JDK {version}, warm)"),
        seconds,
    ))
}

/// A `java` of JDK 11 or later (single-file source programs): `$JAVA_HOME`, then `PATH`, then
/// the newest under `/usr/lib/jvm`; with its feature version.
fn find_java() -> Option<(PathBuf, u32)> {
    let mut candidates = Vec::new();
    if let Some(home) = std::env::var_os("JAVA_HOME") {
        candidates.push(PathBuf::from(home).join("bin/java"));
    }
    candidates.push(PathBuf::from("java"));
    let mut installed: Vec<PathBuf> = fs::read_dir("/usr/lib/jvm")
        .map(|dir| dir.filter_map(|e| e.ok()).map(|e| e.path().join("bin/java")).filter(|p| p.is_file()).collect())
        .unwrap_or_default();
    installed.sort();
    candidates.extend(installed.into_iter().rev());
    candidates.into_iter().find_map(|java| {
        let out = Command::new(&java).arg("-version").output().ok()?;
        let text = String::from_utf8_lossy(&out.stderr);
        // `openjdk version "17.0.15" 2025-04-15`, `java version "1.8.0_402"`.
        let quoted = text.split('"').nth(1)?;
        let mut parts = quoted.split(['.', '-', '+', '_']);
        let major: u32 = match parts.next()?.parse().ok()? {
            1 => parts.next()?.parse().ok()?,
            n => n,
        };
        (major >= 11).then_some((java, major))
    })
}
