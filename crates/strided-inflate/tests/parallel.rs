//! One stream on several threads: the output, the bytes consumed and every error are those of
//! serial decoding, whatever the data, the compression level, the chunk size and the damage.

use std::io::Write;

use strided_inflate::{ChunkedInflater, Format, Parallel, ParallelReport, inflate_parallel};

fn sample(len: usize, seed: u64, kind: u8) -> Vec<u8> {
    let mut state = seed | 1;
    let mut out = Vec::with_capacity(len + 64);
    while out.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        match kind {
            // Log lines: long matches, dynamic blocks.
            0 => out.extend_from_slice(
                format!("2026-12-02T13:{:02} GET /item/{} {}\n", state % 60, state % 5000, state % 7).as_bytes(),
            ),
            // Random bytes: stored blocks.
            1 => out.extend_from_slice(&state.to_le_bytes()),
            // Runs: matches at distance 1 and huge ratios.
            2 => out.extend(std::iter::repeat_n((state % 3) as u8, (state % 3000) as usize)),
            // A mix.
            _ => match state % 3 {
                0 => out.extend_from_slice(&state.to_le_bytes()),
                1 => out.extend_from_slice(b"the same words again and again, "),
                _ => out.extend(std::iter::repeat_n(b'z', (state % 500) as usize)),
            },
        }
    }
    out.truncate(len);
    out
}

fn deflate(data: &[u8], level: u32) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(level));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Serial decoding: the output, or the error.
fn serial(stream: &[u8]) -> Result<(Vec<u8>, usize), strided_inflate::Error> {
    let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, 1 << 16);
    inflater.start(stream);
    let mut out = Vec::new();
    while let Some(chunk) = inflater.next_chunk()? {
        out.extend_from_slice(chunk);
    }
    Ok((out, inflater.consumed()))
}

fn parallel(
    stream: &[u8],
    expected: Option<u64>,
    threads: usize,
    chunk_out: u64,
) -> (Result<(Vec<u8>, usize), String>, usize) {
    let (result, report) =
        parallel_with(stream, expected, Parallel { threads, chunk_out, patient: true, keep_speculating: false });
    (result, report.chunks_used)
}

/// `inflate_parallel` over `stream` in memory: the output and bytes consumed, or the error; and
/// its report.
fn parallel_with(
    stream: &[u8],
    expected: Option<u64>,
    how: Parallel,
) -> (Result<(Vec<u8>, usize), String>, ParallelReport) {
    let source = |offset: u64, buf: &mut [u8]| -> std::io::Result<usize> {
        let rest = stream.get(offset as usize..).unwrap_or(&[]);
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        Ok(n)
    };
    let mut out = Vec::new();
    let mut sink = |bytes: &[u8]| -> std::io::Result<()> {
        out.extend_from_slice(bytes);
        Ok(())
    };
    let result = inflate_parallel(stream.len() as u64, expected, how, &source, &mut sink);
    match result {
        Ok(report) => {
            assert_eq!(report.total_out, out.len() as u64);
            (Ok((out, report.consumed as usize)), report)
        }
        Err(e) => (Err(e.to_string()), ParallelReport::default()),
    }
}

#[test]
fn the_output_is_serial_decodings_for_every_kind_of_data_and_chunk() {
    let mut used = 0;
    for kind in 0..4u8 {
        let data = sample(1 << 20, 7 + u64::from(kind), kind);
        for level in [1, 6, 9] {
            let stream = deflate(&data, level);
            let expected = serial(&stream).unwrap();
            assert_eq!(expected.0, data);
            for (threads, chunk_out) in [(2, 128 << 10), (3, 512 << 10), (2, 32 << 10)] {
                let (got, chunks_used) = parallel(&stream, Some(data.len() as u64), threads, chunk_out);
                let got = got.unwrap_or_else(|e| panic!("kind {kind} level {level} threads {threads}: {e}"));
                assert!(
                    got.0 == expected.0,
                    "kind {kind} level {level} threads {threads} chunk {chunk_out}: output differs"
                );
                assert_eq!(got.1, expected.1, "kind {kind} level {level}: consumed");
                used += chunks_used;
            }
        }
    }
    // The speculation is used, not only the serial fallback.
    assert!(used > 30, "only {used} chunks used");
}

#[test]
fn a_damaged_stream_fails_as_serial_decoding_fails() {
    let data = sample(1 << 20, 3, 0);
    let stream = deflate(&data, 6);
    let mut state = 11u64;
    let mut compared = 0;
    for _ in 0..24 {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mut damaged = stream.clone();
        let at = (state >> 20) as usize % damaged.len();
        damaged[at] ^= 1 << ((state >> 8) % 8);
        let expected =
            serial(&damaged).map_err(|e| strided_inflate::SeekError::<std::io::Error>::Stream(e).to_string());
        let (got, _) = parallel(&damaged, Some(data.len() as u64), 2, 64 << 10);
        match (&expected, &got) {
            (Ok(a), Ok(b)) => assert!(a.0 == b.0 && a.1 == b.1, "flip at {at}: outputs differ"),
            (Err(a), Err(b)) => assert_eq!(a, b, "flip at {at}"),
            _ => panic!(
                "flip at {at}: serial {:?}, parallel {:?}",
                expected.as_ref().map(|o| o.0.len()),
                got.as_ref().map(|o| o.0.len())
            ),
        }
        compared += 1;
    }
    assert_eq!(compared, 24);
    // Cut short, and with bytes after the stream that are not its own.
    let (cut, _) = parallel(&stream[..stream.len() - 100], Some(data.len() as u64), 2, 128 << 10);
    assert!(cut.is_err());
    let mut longer = stream.clone();
    longer.extend_from_slice(&[0u8; 10]);
    let (long, _) = parallel(&longer, Some(data.len() as u64), 2, 128 << 10);
    assert!(long.is_err(), "trailing bytes accepted");
}

#[test]
fn tiny_and_empty_streams_decode() {
    for data in [Vec::new(), b"x".to_vec(), sample(40_000, 1, 0)] {
        let stream = deflate(&data, 6);
        let (got, _) = parallel(&stream, None, 2, 16 << 10);
        assert_eq!(got.unwrap().0, data);
    }
}

#[test]
fn speculation_stops_where_markers_never_die_out() {
    // Log lines: each line copies its prefix from the line before, so a chunk decoded without its
    // window stays marked to its end. After two such chunks the writer decodes the rest serially
    // (unless told to wait for every speculation, as the other tests do).
    let data = sample(24 << 20, 5, 0);
    let stream = deflate(&data, 6);
    let how = Parallel { threads: 2, chunk_out: 2 << 20, patient: false, keep_speculating: false };
    let (result, report) = parallel_with(&stream, Some(data.len() as u64), how);
    let (out, _) = result.unwrap();
    assert!(out == data, "output differs");
    assert!(report.chunks > 8);
    assert!(report.chunks_used <= 2, "{report:?}");
    assert_eq!(report.stopped_speculating, report.chunks_used == 2, "{report:?}");
}

#[test]
fn a_stretch_far_denser_than_the_stream_is_cut_short_and_decoded_the_same() {
    // Random bytes around 3 MiB of log lines: the stream's ratio (about 2:1) makes chunks that,
    // in the lines (about 8:1), decode to several times what a worker may hold. Their speculation
    // ends early, at a block boundary, and the writer decodes on from there. The random bytes are
    // stored blocks, whose headers a worker may find a bit early: the same block.
    let mut data = sample(1 << 20, 11, 1);
    data.extend_from_slice(&sample(3 << 20, 12, 0));
    data.extend_from_slice(&sample(1 << 20, 13, 1));
    let stream = deflate(&data, 6);
    let expected = serial(&stream).unwrap();
    for threads in [2, 3] {
        let how = Parallel { threads, chunk_out: 1 << 20, patient: true, keep_speculating: true };
        let (got, report) = parallel_with(&stream, Some(data.len() as u64), how);
        let got = got.unwrap();
        assert!(got.0 == expected.0, "{threads} threads: output differs");
        assert_eq!(got.1, expected.1);
        // Of 6 chunks: the first (always serial), and the dense one up to where it was cut short,
        // are decoded serially; the others line up, behind stored blocks too.
        assert!(report.chunks_used >= 4, "{threads} threads: {} chunks used", report.chunks_used);
    }
}

#[test]
fn blocks_spanning_many_chunks_never_stall_the_writer() {
    // Chunks of 8 KiB of output, blocks of hundreds: a chunk lined up at one block runs on past
    // the next several chunks. The writer, reaching a chunk beyond the bound workers speculate
    // within, writes what is pending first instead of waiting on a speculation no worker may
    // start. Run many times: the stall depended on which thread finished first.
    let mut data = sample(1 << 20, 21, 0);
    data.extend_from_slice(&sample(256 << 10, 22, 3));
    data.extend_from_slice(&sample(1 << 20, 23, 0));
    let stream = deflate(&data, 9);
    let expected = serial(&stream).unwrap();
    let (done, finished) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        for _ in 0..40 {
            let (got, _) = parallel(&stream, Some(data.len() as u64), 4, 8 << 10);
            assert!(got.unwrap() == expected, "output differs");
        }
        done.send(()).unwrap();
    });
    let stalled = finished.recv_timeout(std::time::Duration::from_secs(60)).is_err();
    assert!(!stalled, "parallel decoding stalled");
    worker.join().unwrap();
}
