//! What a range response must be to be read: a 206 of exactly the range asked, unencoded, with
//! the first response's validators and a body of exactly that length. Pure functions of what the
//! server sent, so that the fuzz target (`fuzz/`, which includes this file) and the unit tests
//! hold them to the same rules as `remote`.

/// What a range request asked for.
#[derive(Debug, Clone, Copy)]
pub enum Asked {
    /// The last this many bytes (the first request: the length is not known yet).
    Tail(u64),
    /// Bytes `start..end` of an archive of `total` bytes.
    Range { start: u64, end: u64, total: u64 },
}

/// Checks a response to a range request (its status, Content-Encoding and Content-Range) against
/// what was asked: (start, end inclusive, total) of the bytes its body must hold, never more than
/// asked; else what was wrong.
pub fn check_response(
    status: u16,
    encoding: Option<&str>,
    content_range: Option<&str>,
    asked: Asked,
) -> Result<(u64, u64, u64), String> {
    if status != 206 {
        return Err(format!("the server answered {status} to a range request: it must serve ranges"));
    }
    if encoding.is_some_and(|e| !e.eq_ignore_ascii_case("identity")) {
        return Err("the server encoded a range (Content-Encoding)".into());
    }
    let content_range = content_range.ok_or("a range without Content-Range")?;
    let wrong = || format!("a wrong Content-Range: {content_range}");
    let (start, end, total) = parse_content_range(content_range).ok_or_else(wrong)?;
    let right = match asked {
        Asked::Tail(n) => end == total - 1 && end - start + 1 == n.min(total),
        Asked::Range { start: want, end: want_end, total: known } => {
            start == want && end + 1 == want_end && total == known
        }
    };
    if right { Ok((start, end, total)) } else { Err(wrong()) }
}

/// `bytes START-END/TOTAL`: (start, end inclusive, total), if well-formed and consistent.
pub fn parse_content_range(value: &str) -> Option<(u64, u64, u64)> {
    let rest = value.trim().strip_prefix("bytes ")?;
    let (range, total) = rest.split_once('/')?;
    let (start, end) = range.split_once('-')?;
    let (start, end, total): (u64, u64, u64) = (start.parse().ok()?, end.parse().ok()?, total.parse().ok()?);
    (start <= end && end < total).then_some((start, end, total))
}

/// The validators (ETag, Last-Modified) a response carries.
pub type Validators = (Option<String>, Option<String>);

/// Checks that a later response's validators are the first response's: else the archive changed
/// on the server between them.
pub fn check_validators(first: &Validators, now: &Validators) -> Result<(), String> {
    if first == now {
        return Ok(());
    }
    Err(format!(
        "the archive changed on the server (ETag {:?}, Last-Modified {:?}; first {:?}, {:?})",
        now.0, now.1, first.0, first.1
    ))
}

/// Checks that a body read (at most one byte past what was wanted) holds exactly `want` bytes.
pub fn check_body(got: u64, want: u64, start: u64, end: u64) -> Result<(), String> {
    if got == want { Ok(()) } else { Err(format!("a body of {got} bytes for bytes {start}-{end} ({want})")) }
}

/// The harness the fuzz target runs and the unit tests replay its corpus through: a response
/// decoded from `data` (status, encoding, validators, Content-Range and body length, most of them
/// near what was asked so that accepted responses are reached) is accepted only if it is exactly
/// the range asked, with the first validators and the whole body; nothing panics.
#[cfg(any(test, fuzzing))]
pub fn fuzz_one(data: &[u8]) {
    let mut bytes = data.iter().copied();
    let mut byte = || bytes.next().unwrap_or(0);
    let number = |byte: &mut dyn FnMut() -> u8| (0..8).fold(0u64, |n, _| n << 8 | u64::from(byte()));
    let total = match byte() % 4 {
        0 => 1 + number(&mut byte) % 100_000,
        1 => number(&mut byte).max(1),
        2 => u64::MAX,
        _ => 65_558,
    };
    let start = number(&mut byte) % total;
    let end = start.saturating_add(1 + number(&mut byte) % (1 << 24)).min(total);
    let asked =
        if byte() % 4 == 0 { Asked::Tail(1 + number(&mut byte) % 70_000) } else { Asked::Range { start, end, total } };
    let near = |base: u64, delta: u8| match delta % 5 {
        0 => base,
        1 => base.wrapping_add(1),
        2 => base.wrapping_sub(1),
        3 => 0,
        _ => u64::MAX,
    };
    let (a, b, t) = (near(start, byte()), near(end.wrapping_sub(1), byte()), near(total, byte()));
    let status = [206, 206, 200, 416, 0, u16::MAX][usize::from(byte() % 6)];
    let encoding = [None, Some("identity"), Some("IDENTITY"), Some("gzip"), Some("")][usize::from(byte() % 5)];
    let shape = byte() % 6;
    let rest: Vec<u8> = bytes.collect();
    let free = String::from_utf8_lossy(&rest).into_owned();
    let content_range = match shape {
        0 => None,
        1 => Some(free),
        2 => Some(format!("bytes {a}-{b}/{t}")),
        3 => Some(format!(" bytes {a}-{b}/{t} ")),
        4 => Some(format!("bytes {a}-{b}/*")),
        _ => Some(format!("bytes {a}-{b}/{t}{free}")),
    };
    let accepted = check_response(status, encoding, content_range.as_deref(), asked);
    if let Ok((s, e, t)) = accepted {
        assert_eq!(status, 206);
        assert!(encoding.is_none_or(|e| e.eq_ignore_ascii_case("identity")));
        assert!(s <= e && e < t, "an inconsistent range accepted");
        match asked {
            Asked::Tail(n) => assert!(e == t - 1 && e - s + 1 == n.min(t), "not the tail asked"),
            Asked::Range { start, end, total } => assert_eq!((s, e + 1, t), (start, end, total)),
        }
        let want = e - s + 1;
        assert!(check_body(want, want, s, e).is_ok());
        assert!(check_body(want.wrapping_add(1), want, s, e).is_err());
        assert!(check_body(want - 1, want, s, e).is_err());
    }
    let first: Validators = (Some(format!("\"{a}\"")), None);
    let same = first.clone();
    let other: Validators = (Some(format!("\"{b}\"")), None);
    assert!(check_validators(&first, &same).is_ok());
    assert_eq!(check_validators(&first, &other).is_ok(), a == b);
}

#[cfg(test)]
mod tests {
    use super::{Asked, check_response, fuzz_one, parse_content_range};

    /// Random responses, a few right and most wrong: one is accepted only if it is exactly the
    /// range asked, and none panics or claims more bytes than asked.
    #[test]
    fn only_the_range_asked_is_accepted() {
        let mut state = 0x2545f4914f6cdd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut accepted, mut refused) = (0, 0);
        for _ in 0..200_000 {
            let total = [1, 22, 65_558, 1 << 40, u64::MAX][(next() % 5) as usize];
            let start = next() % total;
            let end = start.saturating_add(1 + next() % (1 << 20)).min(total);
            let asked =
                if next() % 4 == 0 { Asked::Tail(1 + next() % 70_000) } else { Asked::Range { start, end, total } };
            let pick = |n: u64, v: &[u64]| v[(n % v.len() as u64) as usize];
            let a = pick(next(), &[start, start.wrapping_add(1), start.wrapping_sub(1), 0, next(), u64::MAX]);
            let b = pick(next(), &[end.wrapping_sub(1), end, a, total.wrapping_sub(1), next(), u64::MAX]);
            let t = pick(next(), &[total, total.wrapping_add(1), next(), u64::MAX]);
            let header = match next() % 8 {
                0 => None,
                1 => Some(format!("bytes */{t}")),
                2 => Some(format!("bytes {a}-{b}")),
                3 => Some(format!("{a}-{b}/{t}")),
                _ => Some(format!("bytes {a}-{b}/{t}")),
            };
            let status = pick(next(), &[206, 206, 206, 200, 416, 0]) as u16;
            let encoding = pick(next(), &[0, 0, 0, 1, 2]);
            let encoding = [None, Some("gzip"), Some("identity")][encoding as usize];
            match check_response(status, encoding, header.as_deref(), asked) {
                Ok((s, e, t)) => {
                    assert_eq!(status, 206);
                    assert!(encoding.is_none_or(|e| e == "identity"));
                    match asked {
                        Asked::Tail(n) => assert!(e == t - 1 && e - s + 1 == n.min(t), "not the tail asked"),
                        Asked::Range { start, end, total } => assert_eq!((s, e + 1, t), (start, end, total)),
                    }
                    accepted += 1;
                }
                Err(_) => refused += 1,
            }
        }
        assert!(accepted > 100 && refused > 100_000, "{accepted} accepted, {refused} refused");
    }

    #[test]
    fn content_ranges_are_read_strictly() {
        assert_eq!(parse_content_range("bytes 0-9/100"), Some((0, 9, 100)));
        assert_eq!(parse_content_range("bytes 90-99/100"), Some((90, 99, 100)));
        for bad in ["bytes 9-0/100", "bytes 0-100/100", "bytes */100", "bytes 0-9/*", "items 0-9/100", "bytes 0-9", ""]
        {
            assert_eq!(parse_content_range(bad), None, "{bad}");
        }
    }

    /// Every input of the fuzz target's corpus (`fuzz/corpus/range_response`), replayed: what the
    /// fuzzer found once stays fixed.
    #[test]
    fn the_fuzz_corpus_replays() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/range_response");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            fuzz_one(&std::fs::read(entry.unwrap().path()).unwrap());
            n += 1;
        }
        assert!(n >= 5, "{n} inputs");
    }
}
