//! A runtime's first start, without extracting: the ~200 built-in assets read straight from the
//! archive, against extracting them first and reading the files back, and against the
//! `java.util.zip` way of reading in place (a new inflater and a new buffer for every read).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use asset_extract::{AssetArchive, Holding, Kind, LocalHeaders, Method, Options};
use buffer_pool::{BufferPool, PoolConfig};
use flate2::read::DeflateDecoder;

use super::Options as DemoOptions;
use crate::report;

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
    let outcome = measure(&apk, &root);
    let _ = fs::remove_dir_all(&root);
    let (rows, expected, files) = outcome?;
    let bufkit = rows.iter().find(|r| r.0.starts_with("bufkit: open in place")).map_or(1.0, |r| r.1);
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

type Rows = Vec<(&'static str, f64)>;

/// Each strategy, best of 5, checked to read the same bytes.
fn measure(apk: &Path, root: &Path) -> Result<(Rows, (u64, u64), usize), String> {
    let err = |e: asset_extract::Error| e.to_string();
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
            rows.push((name, best));
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
            let mut bytes = Vec::with_capacity(e.size as usize);
            match e.method {
                Method::Deflate => DeflateDecoder::new(src).read_to_end(&mut bytes).map_err(|e| e.to_string())?,
                Method::Stored => src.len(),
            };
            if e.method == Method::Stored {
                bytes.extend_from_slice(src);
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
    let files =
        AssetArchive::open(apk, Holding::Map).map_err(err)?.entries().iter().filter(|e| e.kind == Kind::File).count();
    Ok((rows, expected.unwrap_or_default(), files))
}
