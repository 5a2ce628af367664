//! Small streams through every path of the decoder (stored, fixed and dynamic blocks, long and
//! short match distances, every chunk boundary); small enough to run under Miri, which checks
//! the unsafe copies: `cargo +nightly miri test -p bufkit-strided-inflate --lib chunked`.

use super::*;

fn sample() -> Vec<u8> {
    let mut data: Vec<u8> = (0..1500u32).map(|i| b"tree blob commit\n"[(i % 17) as usize] ^ (i / 500) as u8).collect();
    data.extend(std::iter::repeat_n(b'a', 300)); // distance 1
    data.extend((0..300).map(|i| b"xyz"[i % 3])); // distance 3
    data.extend((0..200u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)); // noise
    data
}

fn inflate_all(stream: &[u8], chunk: usize) -> Result<(Vec<u8>, usize), Error> {
    let mut inflater = ChunkedInflater::with_chunk_size(Format::Raw, chunk);
    inflater.start(stream);
    let mut out = Vec::new();
    while let Some(c) = inflater.next_chunk()? {
        assert!(c.len() <= chunk + ChunkedInflater::MAX_OVERRUN);
        out.extend_from_slice(c);
    }
    Ok((out, inflater.consumed()))
}

#[test]
fn small_streams_round_trip_at_every_level_and_chunk_size() {
    let data = sample();
    for level in [0u8, 1, 6, 9] {
        let stream = miniz_oxide::deflate::compress_to_vec(&data, level);
        for chunk in [1usize, 7, 300, 5000] {
            assert_eq!(
                inflate_all(&stream, chunk).unwrap(),
                (data.clone(), stream.len()),
                "level {level}, chunk {chunk}"
            );
        }
    }
}

/// Inflates `stream` fed in pieces of the sizes `pieces` cycles through; `Err` as `start` would.
fn inflate_fed(stream: &[u8], chunk: usize, pieces: &[usize], format: Format) -> Result<(Vec<u8>, usize), Error> {
    let mut inflater = ChunkedInflater::with_chunk_size(format, chunk);
    inflater.start_fed();
    let (mut fed, mut out, mut turn) = (0, Vec::new(), 0);
    loop {
        while inflater.wants_input() {
            if fed == stream.len() {
                inflater.end_input();
                break;
            }
            let piece = &stream[fed..(fed + pieces[turn % pieces.len()]).min(stream.len())];
            turn += 1;
            fed += inflater
                .feed_with(piece.len(), |room| {
                    room.copy_from_slice(piece);
                    Ok::<_, ()>(piece.len())
                })
                .unwrap();
            assert!(inflater.fed.len() <= piece.len() + ChunkedInflater::INPUT_MARGIN + 8, "holds little input");
        }
        match inflater.next_chunk()? {
            Some(c) => out.extend_from_slice(c),
            None => break,
        }
    }
    Ok((out, inflater.consumed()))
}

#[test]
fn fed_input_decodes_exactly_as_whole_input_wherever_the_pieces_are_cut() {
    let mut data = sample();
    for i in 0..40u32 {
        data.extend(sample().iter().map(|b| b.wrapping_add(i as u8)));
    }
    let mut tail = b"trailing bytes of the next entry".to_vec();
    for level in [0u8, 1, 6, 9] {
        let mut stream = miniz_oxide::deflate::compress_to_vec(&data, level);
        let len = stream.len();
        stream.append(&mut tail.clone());
        for pieces in [&[1usize][..], &[3, 1000], &[4096], &[100_000], &[7, 65_536, 1]] {
            for chunk in [64usize, 5000, 1 << 20] {
                let fed = inflate_fed(&stream, chunk, pieces, Format::Raw).unwrap();
                assert_eq!(fed, (data.clone(), len), "level {level}, pieces {pieces:?}, chunk {chunk}");
            }
        }
    }
    let zlib = miniz_oxide::deflate::compress_to_vec_zlib(&data, 6);
    assert_eq!(inflate_fed(&zlib, 4096, &[5, 3000], Format::Zlib).unwrap(), (data.clone(), zlib.len()));
    let mut bad = zlib.clone();
    *bad.last_mut().unwrap() ^= 1;
    assert!(matches!(inflate_fed(&bad, 4096, &[5, 3000], Format::Zlib), Err(Error::Checksum { .. })));
    tail.clear();
}

#[test]
fn fed_input_that_ends_early_is_truncated_or_corrupt_as_whole_input_is() {
    let stream = miniz_oxide::deflate::compress_to_vec(&sample(), 6);
    for cut in (0..stream.len()).step_by(29) {
        let whole = inflate_all(&stream[..cut], 64).map(|_| ()).map_err(|e| std::mem::discriminant(&e));
        let fed =
            inflate_fed(&stream[..cut], 64, &[11, 2], Format::Raw).map(|_| ()).map_err(|e| std::mem::discriminant(&e));
        assert!(fed.is_err(), "cut at {cut}");
        assert_eq!(fed, whole, "cut at {cut}");
    }
}

#[test]
fn truncated_small_streams_fail_without_reading_out_of_bounds() {
    let stream = miniz_oxide::deflate::compress_to_vec(&sample(), 6);
    for cut in (0..stream.len()).step_by(37) {
        assert!(inflate_all(&stream[..cut], 64).is_err(), "cut at {cut}");
    }
}
