//! Streams that RFC 1951 and zlib call invalid, which libdeflate upstream decodes into garbage:
//! every decoding path refuses them as corrupt, and their valid twins still inflate. The streams
//! are the seeds of the `raw_differential` fuzz corpus (made by hand: see each name).

use std::path::Path;

use strided_inflate::{ChunkedInflater, Decoder, Error, Format, Request, StreamInflater};

fn seed(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/raw_differential").join(format!("seed-{name}"));
    let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    data[3..].to_vec() // after the harness's chunk size and stride
}

/// The invalid streams, with the length upstream libdeflate inflates each to.
const INVALID: [(&str, usize); 10] = [
    ("static_litlen_286", 720), // the stream of the report: length symbol 286
    ("static_distance_30", 30_003),
    ("static_distance_31", 30_003),
    ("dynamic_287_litlen_codes", 1),
    ("dynamic_288_litlen_codes", 1),
    ("dynamic_31_distance_codes", 1),
    ("dynamic_32_distance_codes", 1),
    ("incomplete_distance_code_unused_codeword", 4),
    ("empty_distance_code_used", 4),
    ("incomplete_litlen_code_unused_codeword", 0),
];

const VALID: [(&str, usize); 4] = [
    ("static_distance_29_valid", 30_003),
    ("dynamic_286_30_valid", 1),
    ("incomplete_distance_code_valid", 4),
    ("incomplete_litlen_code_valid", 0),
];

fn is_corrupt(outcome: &Result<usize, Error>) -> bool {
    matches!(outcome, Err(Error::Corrupt { offset: 0, .. }))
}

#[test]
fn the_whole_buffer_decoder_refuses_invalid_codes() {
    let mut decoder = Decoder::new(Format::Raw).unwrap();
    for (name, len) in INVALID {
        let input = seed(name);
        let mut out = vec![0xA5; len];
        let outcome = decoder.inflate_at(&input, 0, &mut out);
        assert!(is_corrupt(&outcome), "{name}: {outcome:?}");
        assert!(out.iter().all(|&b| b == 0), "{name}: output handed out");
    }
}

#[test]
fn a_batch_refuses_invalid_codes_and_goes_on() {
    let mut decoder = Decoder::new(Format::Raw).unwrap();
    for (name, len) in INVALID {
        let (bad, good) = (seed(name), seed("incomplete_distance_code_valid"));
        let input = [bad.as_slice(), good.as_slice()].concat();
        let requests = [Request { offset: 0, expected_len: len }, Request { offset: bad.len(), expected_len: 4 }];
        let mut out = vec![0u8; len + 4];
        let mut results = [Ok(0), Ok(0)];
        assert_eq!(decoder.inflate_batch(&input, &requests, &mut out, &mut results), 1, "{name}");
        assert!(is_corrupt(&results[0]), "{name}: {:?}", results[0]);
        assert_eq!(results[1], Ok(good.len()));
        assert_eq!(&out[len..], b"aaaa");
    }
}

#[test]
fn the_chunked_and_streaming_decoders_refuse_invalid_codes() {
    for (name, len) in INVALID {
        let input = seed(name);
        let mut chunked = ChunkedInflater::with_chunk_size(Format::Raw, 64);
        chunked.start(&input);
        let outcome = loop {
            match chunked.next_chunk() {
                Ok(Some(_)) => {}
                Ok(None) => break Ok(chunked.consumed()),
                Err(e) => break Err(e),
            }
        };
        assert!(is_corrupt(&outcome), "chunked, {name}: {outcome:?}");
        let mut out = vec![0u8; len];
        let outcome = StreamInflater::new(Format::Raw).feed(&input, &mut out).map(|step| step.used);
        assert!(matches!(outcome, Err(Error::Corrupt { .. })), "stream, {name}: {outcome:?}");
    }
}

#[test]
fn the_valid_twins_inflate_on_every_path() {
    let mut decoder = Decoder::new(Format::Raw).unwrap();
    for (name, len) in VALID {
        let input = seed(name);
        let mut out = vec![0u8; len];
        assert_eq!(decoder.inflate_at(&input, 0, &mut out), Ok(input.len()), "{name}");
        let mut chunked = ChunkedInflater::new(Format::Raw);
        chunked.start(&input);
        let mut total = 0;
        while let Some(chunk) = chunked.next_chunk().unwrap_or_else(|e| panic!("{name}: {e}")) {
            total += chunk.len();
        }
        assert_eq!((total, chunked.consumed()), (len, input.len()), "{name}");
    }
}

/// Seen through zlib: the same streams, framed with a zlib header and a correct Adler-32, are
/// refused too (a checksum only covers the bytes a decoder produced, not how it got them).
#[test]
fn zlib_framing_does_not_hide_invalid_codes() {
    let mut decoder = Decoder::new(Format::Zlib).unwrap();
    for (name, len) in [("static_distance_30", 30_003), ("incomplete_distance_code_unused_codeword", 4)] {
        // What upstream libdeflate would have produced: the valid twin's bytes.
        let twin = if len == 4 { vec![b'a'; 4] } else { vec![b'x'; len] };
        let mut input = vec![0x78, 0x01];
        input.extend_from_slice(&seed(name));
        input.extend_from_slice(&adler32(&twin).to_be_bytes());
        let mut out = vec![0u8; len];
        let outcome = decoder.inflate_at(&input, 0, &mut out);
        assert!(is_corrupt(&outcome), "{name}: {outcome:?}");
    }
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    b << 16 | a
}
