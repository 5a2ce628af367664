//! Archives on an HTTP(S) server, read by range requests: the end records and the central
//! directory first, then only what a command asks for, each response checked. The bytes go
//! through the one reading path (`asset_extract::Source`), so a remote archive is refused exactly
//! where a file would be; and a server that ignores ranges, answers with the wrong range or a short
//! body, or whose archive changes between requests (its ETag or Last-Modified) is an error, never
//! another reading.

#![forbid(unsafe_code)]

use std::io::{self, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use asset_extract::{AssetArchive, LocalHeaders, Source};

use crate::range_response::{Asked, check_body, check_response, check_validators};

/// What the first request fetches from the end: what the search for the end record reads (the
/// record and the longest comment it may carry) and, for most archives, the central directory.
const TAIL: u64 = (64 << 10) + 22;
/// The least a request fetches: reads of a few bytes (a local header) take what follows too.
const LEAST: u64 = 4 << 10;
/// The most one request fetches, for a read that goes on from where the last one ended.
const MOST: u64 = 8 << 20;
/// The fetched ranges kept for later reads.
const KEPT: usize = 16 << 20;

/// Whether `name` names a remote archive (`http://` or `https://`).
pub fn is_url(name: &Path) -> bool {
    let name = name.to_string_lossy();
    name.starts_with("http://") || name.starts_with("https://")
}

/// What was fetched: bytes (bodies) and requests.
#[derive(Debug, Default)]
pub struct Fetched {
    pub bytes: AtomicU64,
    pub requests: AtomicU64,
}

impl Fetched {
    /// "N bytes in M requests", for a command's report.
    pub fn summary(&self) -> (u64, u64) {
        (self.bytes.load(Ordering::Relaxed), self.requests.load(Ordering::Relaxed))
    }
}

/// A remote archive, read by ranges.
pub struct HttpSource {
    agent: ureq::Agent,
    url: String,
    len: u64,
    /// The ETag and Last-Modified of the first response: every later one must carry the same.
    validators: (Option<String>, Option<String>),
    cache: Mutex<Cache>,
    fetched: Arc<Fetched>,
}

/// Ranges fetched, newest last, and where the last read ended (a read going on from there
/// fetches twice as much as the last, up to [`MOST`]).
#[derive(Default)]
struct Cache {
    ranges: Vec<(u64, Vec<u8>)>,
    last_end: u64,
    window: u64,
}

impl HttpSource {
    /// Opens `url`: one request for its last [`TAIL`] bytes, which gives its length too.
    pub fn open(url: &str) -> io::Result<HttpSource> {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(30)))
            .timeout_per_read(Some(Duration::from_secs(60)))
            .build();
        let agent: ureq::Agent = config.into();
        let fetched = Arc::new(Fetched::default());
        let mut source = HttpSource {
            agent,
            url: url.to_string(),
            len: 0,
            validators: (None, None),
            cache: Mutex::new(Cache::default()),
            fetched,
        };
        let (start, body, total, validators) = source.request(&format!("bytes=-{TAIL}"), None)?;
        source.len = total;
        source.validators = validators;
        source.cache.lock().unwrap_or_else(|e| e.into_inner()).ranges.push((start, body));
        Ok(source)
    }

    /// What this source has fetched so far (shared: it stays readable once the source is moved).
    pub fn fetched(&self) -> Arc<Fetched> {
        self.fetched.clone()
    }

    /// One range request (`range`, a Range header's value): the start, the body, the total length
    /// and the validators, every part checked against `expect` (the start and end asked) and the
    /// first response's.
    #[allow(clippy::type_complexity)]
    fn request(
        &self,
        range: &str,
        expect: Option<(u64, u64)>,
    ) -> io::Result<(u64, Vec<u8>, u64, (Option<String>, Option<String>))> {
        let failed = |what: String| io::Error::other(format!("{}: {what}", self.url));
        let response = self
            .agent
            .get(&self.url)
            .header("Range", range)
            .header("Accept-Encoding", "identity")
            .call()
            .map_err(|e| failed(format!("requesting {range}: {e}")))?;
        self.fetched.requests.fetch_add(1, Ordering::Relaxed);
        let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
        let asked = match expect {
            Some((start, end)) => Asked::Range { start, end: end.min(self.len), total: self.len },
            None => Asked::Tail(TAIL),
        };
        let (start, end, total) = check_response(
            response.status().as_u16(),
            header("content-encoding").as_deref(),
            header("content-range").as_deref(),
            asked,
        )
        .map_err(|what| failed(format!("{what} (asked {range})")))?;
        let validators = (header("etag"), header("last-modified"));
        if expect.is_some() {
            check_validators(&self.validators, &validators).map_err(failed)?;
        }
        let want = end - start + 1;
        let mut body = Vec::with_capacity(want as usize);
        response
            .into_body()
            .into_reader()
            .take(want + 1)
            .read_to_end(&mut body)
            .map_err(|e| failed(format!("reading bytes {start}-{end}: {e}")))?;
        self.fetched.bytes.fetch_add(body.len() as u64, Ordering::Relaxed);
        check_body(body.len() as u64, want, start, end).map_err(failed)?;
        Ok((start, body, total, validators))
    }
}

impl Source for HttpSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        if offset >= self.len || buf.is_empty() {
            return Ok(0);
        }
        let want = (buf.len() as u64).min(self.len - offset);
        let (from, to) = {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((start, bytes)) =
                cache.ranges.iter().rev().find(|(start, bytes)| *start <= offset && offset < start + bytes.len() as u64)
            {
                let at = (offset - start) as usize;
                let n = (want as usize).min(bytes.len() - at);
                buf[..n].copy_from_slice(&bytes[at..at + n]);
                return Ok(n);
            }
            cache.window = if offset == cache.last_end { (cache.window * 2).clamp(LEAST, MOST) } else { LEAST };
            let mut to = (offset + want.max(cache.window)).min(self.len);
            // Up to the first range already held that the read runs into (the central directory
            // read from its start into the tail fetched at open): only the part before it.
            if let Some(held) = cache.ranges.iter().map(|(start, _)| *start).filter(|s| *s > offset && *s < to).min() {
                to = held;
            }
            (offset, to)
        };
        let (start, body, _, _) = self.request(&format!("bytes={from}-{}", to - 1), Some((from, to)))?;
        let n = (want as usize).min(body.len());
        buf[..n].copy_from_slice(&body[..n]);
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.last_end = to;
        cache.ranges.push((start, body));
        while cache.ranges.iter().map(|(_, b)| b.len()).sum::<usize>() > KEPT && cache.ranges.len() > 1 {
            cache.ranges.remove(0);
        }
        Ok(n)
    }

    /// Fails when the archive on the server is no longer the one opened: one byte asked for again,
    /// its validators compared.
    fn check_unchanged(&self) -> io::Result<()> {
        self.request("bytes=0-0", Some((0, 1))).map(|_| ())
    }
}

/// Opens the archive `name` names to read in place: a file (read with `pread`, every local header
/// checked at open), or a URL, each local header then checked when its entry is first read
/// (checking every one at open would fetch them all), with what it fetches.
pub fn open_archive(name: &Path) -> Result<(AssetArchive, Option<Arc<Fetched>>), asset_extract::Error> {
    if !is_url(name) {
        return Ok((AssetArchive::open(name, asset_extract::Holding::Read)?, None));
    }
    let source = open_url(name)?;
    let fetched = source.fetched();
    Ok((AssetArchive::open_source_with(source, LocalHeaders::OnFirstRead)?, Some(fetched)))
}

/// The archive at URL `name`, as a source.
pub fn open_url(name: &Path) -> Result<HttpSource, asset_extract::Error> {
    let url = name.to_string_lossy();
    HttpSource::open(&url).map_err(|source| asset_extract::Error::Io {
        action: "opening",
        path: url.into_owned(),
        source,
    })
}

/// `bufkit: fetched N bytes in M requests`, on standard error.
pub fn report(url: &Path, fetched: &Fetched) {
    let (bytes, requests) = fetched.summary();
    eprintln!("bufkit: {}: fetched {bytes} bytes in {requests} requests", url.display());
}
