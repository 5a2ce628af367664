//! A large batch spread over threads gives exactly what the same batch gives on one thread: the
//! same bytes in the same places, the same outcome for every stream (corrupt, truncated and
//! wrongly sized ones included), each reported once.

use std::io::Write;
use std::mem::MaybeUninit;
use std::sync::Mutex;

use flate2::{Compression, write::ZlibEncoder};
use strided_inflate::{Decoder, Error, Format, Request};

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = ZlibEncoder::new(Vec::new(), Compression::new(6));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// 9,000 streams of 10 B to 1 KB (about 4.5 MB out: enough streams and work to fan out over up to
/// four threads), every 97th corrupted, every 211th given a wrong size, the last one cut short.
fn batch() -> (Vec<u8>, Vec<Request>) {
    let (mut input, mut requests) = (Vec::new(), Vec::new());
    for i in 0..9000usize {
        let data: Vec<u8> = (0..10 + (i * 131) % 1000).map(|j| ((i * 7 + j * 13) % 251) as u8).collect();
        let mut stream = zlib(&data);
        if i % 97 == 0 {
            let mid = stream.len() / 2;
            stream[mid] ^= 0x55;
        }
        let expected_len = if i % 211 == 0 { data.len() + 1 } else { data.len() };
        requests.push(Request { offset: input.len(), expected_len });
        if i == 8999 {
            stream.truncate(stream.len() - 3);
        }
        input.extend_from_slice(&stream);
    }
    (input, requests)
}

fn outcome_key(outcome: &Result<usize, Error>) -> String {
    match outcome {
        Ok(consumed) => format!("ok {consumed}"),
        Err(e) => format!("err {e}"),
    }
}

fn run(input: &[u8], requests: &[Request], threads: Option<usize>) -> (Vec<u8>, Vec<String>, usize) {
    let total: usize = requests.iter().map(|r| r.expected_len).sum();
    let mut out = vec![MaybeUninit::new(0xEEu8); total];
    let outcomes = Mutex::new(vec![None; requests.len()]);
    let mut decoder = Decoder::new(Format::Zlib).unwrap();
    let report = |i: usize, outcome: Result<usize, Error>| {
        let mut outcomes = outcomes.lock().unwrap();
        assert!(outcomes[i].is_none(), "stream {i} reported twice");
        outcomes[i] = Some(outcome_key(&outcome));
    };
    let ok = match threads {
        None => decoder.inflate_each_uninit(input, requests.iter().copied(), &mut out, report),
        Some(n) => decoder.inflate_each_parallel_uninit(input, requests, &mut out, n, report),
    };
    // SAFETY: every byte was initialised above, and the decoder writes only initialised bytes.
    let out: Vec<u8> = out.into_iter().map(|b| unsafe { b.assume_init() }).collect();
    let outcomes = outcomes.into_inner().unwrap().into_iter().map(|o| o.expect("every stream reported")).collect();
    (out, outcomes, ok)
}

#[test]
fn a_batch_across_threads_matches_one_thread() {
    let (input, requests) = batch();
    let (serial_out, serial_outcomes, serial_ok) = run(&input, &requests, None);
    assert!(serial_ok > 8800 && serial_ok < 9000, "{serial_ok}");
    for threads in [1, 2, 3, 4, 8] {
        let (out, outcomes, ok) = run(&input, &requests, Some(threads));
        assert_eq!(ok, serial_ok, "{threads} threads");
        assert_eq!(outcomes, serial_outcomes, "{threads} threads");
        assert!(out == serial_out, "{threads} threads: other bytes");
    }
}

#[test]
fn a_batch_too_large_for_its_output_fails_every_stream() {
    let (input, requests) = batch();
    let mut out = vec![MaybeUninit::new(0u8); 10];
    let mut decoder = Decoder::new(Format::Zlib).unwrap();
    let failed = Mutex::new(0);
    let ok = decoder.inflate_each_parallel_uninit(&input, &requests, &mut out, 4, |_, outcome| {
        assert!(matches!(outcome, Err(Error::SizeMismatch { .. })));
        *failed.lock().unwrap() += 1;
    });
    assert_eq!((ok, *failed.lock().unwrap()), (0, requests.len()));
}
