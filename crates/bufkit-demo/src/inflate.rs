//! JGit's story: counting the objects of a pack means inflating hundreds of thousands of tiny zlib
//! streams whose compressed lengths nobody knows. JGit handed `Inflater.setInput` the whole rest of
//! its 1 MB+ window for each one, and the JDK of 2011 copied all of it on every call; feeding
//! 512-byte strides fixed that. Today's JDK pins instead of copying; bufkit inflates in place from
//! the offset and reports the exact consumed count.

#![forbid(unsafe_code)]

use std::time::Instant;

use serde::Serialize;
use strided_inflate::{Decoder, Format, StreamInflater};

use super::Options;
use crate::report;

const OBJECTS: usize = 20_000;
const WINDOW: usize = 1 << 20;

#[derive(Serialize)]
struct Row {
    strategy: &'static str,
    seconds: f64,
    objects_per_second: f64,
    bytes_copied: u64,
    ratio_to_bufkit: f64,
}

/// A pack-like buffer: small tree-like objects (median ~150 bytes compressed), each a zlib stream,
/// back to back.
fn pack_like() -> (Vec<u8>, Vec<usize>) {
    let mut input = Vec::new();
    let mut sizes = Vec::with_capacity(OBJECTS);
    let mut seed = 12345u32;
    for i in 0..OBJECTS {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let len = 40 + (seed >> 16) as usize % 400;
        let _ = i;
        // Tree-like: mode, name, and a hex object id per entry; ids do not compress, names do.
        const HEX: &[u8] = b"0123456789abcdef";
        let object: Vec<u8> = (0..len)
            .map(|j| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                if j % 60 < 20 { b"100644 src/module.rs "[j % 20] } else { HEX[(seed >> 20) as usize % 16] }
            })
            .collect();
        input.extend_from_slice(&super::compress::deflate(&object, 6, true));
        sizes.push(len);
    }
    (input, sizes)
}

/// Walks every stream with `inflate(input, offset, out) -> consumed`; returns total consumed.
fn walk(sizes: &[usize], out: &mut Vec<u8>, mut inflate: impl FnMut(usize, &mut [u8]) -> usize) -> usize {
    let mut at = 0;
    for &size in sizes {
        out.resize(size, 0);
        at += inflate(at, out);
    }
    at
}

pub fn run(options: &Options) -> Result<(), String> {
    let (input, sizes) = pack_like();
    let mut out = Vec::new();
    let mut rows = Vec::new();
    let mut copied;

    // 1. The JDK of 2011: setInput(whole rest of the window) copied it, for every object.
    copied = 0u64;
    let mut decoder = Decoder::new(Format::Zlib).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let total_copy = walk(&sizes, &mut out, |at, dst| {
        let rest = &input[at..(at + WINDOW).min(input.len())];
        let copy = rest.to_vec(); // what setInput did
        copied += copy.len() as u64;
        decoder.inflate_at(&copy, 0, dst).expect("valid")
    });
    rows.push(("whole 1 MiB window copied per object (JDK 2011)", start.elapsed().as_secs_f64(), copied));

    // 2. JGit's fix: 512-byte strides, each copied.
    copied = 0;
    let mut stream = StreamInflater::new(Format::Zlib);
    let start = Instant::now();
    let total_stride = walk(&sizes, &mut out, |at, dst| {
        stream.reset(at);
        let mut from = at;
        loop {
            let stride = input[from..(from + 512).min(input.len())].to_vec();
            copied += stride.len() as u64;
            let step = stream.feed(&stride, dst).expect("valid");
            from += step.used;
            if let Some(consumed) = step.finished {
                break consumed;
            }
        }
    });
    rows.push(("512-byte strides, copied (JGit's fix)", start.elapsed().as_secs_f64(), copied));

    // 3. bufkit: in place from the offset, the exact consumed count, nothing copied.
    let start = Instant::now();
    let total_bufkit = walk(&sizes, &mut out, |at, dst| decoder.inflate_at(&input, at, dst).expect("valid"));
    rows.push(("bufkit inflate_at (exact consumed, no copy)", start.elapsed().as_secs_f64(), 0));

    if [total_copy, total_stride, total_bufkit].iter().any(|&t| t != input.len()) {
        return Err("the strategies disagree on where the streams end".into());
    }
    let bufkit_secs = rows[2].1;
    let rows: Vec<Row> = rows
        .into_iter()
        .map(|(strategy, seconds, bytes_copied)| Row {
            strategy,
            seconds,
            objects_per_second: OBJECTS as f64 / seconds,
            bytes_copied,
            ratio_to_bufkit: seconds / bufkit_secs,
        })
        .collect();
    if options.json {
        println!("{}", serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?);
        return Ok(());
    }
    println!(
        "inflate: {OBJECTS} small zlib streams back to back ({}), each inflated at its offset; all three agree on every end\n",
        report::bytes(input.len() as u64)
    );
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.strategy.to_string(),
                report::duration(r.seconds),
                format!("{:.0}", r.objects_per_second),
                report::bytes(r.bytes_copied),
                format!("{:.1}x", r.ratio_to_bufkit),
            ]
        })
        .collect();
    print!("{}", report::table(&["strategy", "time", "objects/s", "input copied", "vs bufkit"], &cells));
    Ok(())
}
