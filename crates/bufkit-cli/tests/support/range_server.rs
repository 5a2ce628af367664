//! A range-serving HTTP/1.1 server on 127.0.0.1 for the tests of URLs, honest or misbehaving in
//! one way; nothing else on the network is touched.
#![allow(dead_code)] // each test binary uses what it needs

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// How the server misbehaves.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Server {
    Honest,
    /// 200 and the whole archive, whatever the Range.
    IgnoresRanges,
    /// A Content-Range one byte off.
    WrongRange,
    /// Another ETag from the second request on.
    ChangesEtag,
    /// A body 10 bytes shorter than its Content-Length, then the connection closed.
    ShortBody,
}

/// A range-serving HTTP/1.1 server on 127.0.0.1, counting the body bytes it sends; stopped when
/// dropped.
pub struct RangeServer {
    pub url: String,
    sent: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    port: u16,
}

impl RangeServer {
    pub fn start(archive: Vec<u8>, how: Server) -> RangeServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let sent = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let archive = Arc::new(archive);
        let requests = Arc::new(AtomicU64::new(0));
        let (s, st) = (sent.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if st.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (archive, sent, requests) = (archive.clone(), s.clone(), requests.clone());
                std::thread::spawn(move || serve(conn, &archive, how, &sent, &requests));
            }
        });
        RangeServer { url: format!("http://127.0.0.1:{port}/app.zip"), sent, stop, port }
    }

    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }
}

impl Drop for RangeServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port)); // wakes the accept loop to see it
    }
}

/// Serves requests on one connection until it closes.
fn serve(conn: TcpStream, archive: &[u8], how: Server, sent: &AtomicU64, requests: &AtomicU64) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut out = conn;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut range = None;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("range")
            {
                range = Some(value.trim().to_string());
            }
        }
        let n = requests.fetch_add(1, Ordering::Relaxed);
        let len = archive.len() as u64;
        if len == 0 {
            let head = "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */0\r\nContent-Length: 0\r\n\r\n";
            if out.write_all(head.as_bytes()).is_err() {
                return;
            }
            continue;
        }
        let (start, end) = match range.as_deref().and_then(|r| r.strip_prefix("bytes=")) {
            Some(r) if r.starts_with('-') => {
                let tail: u64 = r[1..].parse().unwrap();
                (len.saturating_sub(tail), len - 1)
            }
            Some(r) => {
                let (a, b) = r.split_once('-').unwrap();
                let a: u64 = a.parse().unwrap();
                let b: u64 = if b.is_empty() { len - 1 } else { b.parse::<u64>().unwrap().min(len - 1) };
                (a, b)
            }
            None => (0, len - 1),
        };
        let etag = if how == Server::ChangesEtag && n > 0 { "\"v2\"" } else { "\"v1\"" };
        let (status, body, content_range) = match how {
            Server::IgnoresRanges => ("200 OK", archive, String::new()),
            Server::WrongRange => (
                "206 Partial Content",
                &archive[start as usize..=end as usize],
                format!("Content-Range: bytes {}-{}/{len}\r\n", start + 1, end + 1),
            ),
            _ => (
                "206 Partial Content",
                &archive[start as usize..=end as usize],
                format!("Content-Range: bytes {start}-{end}/{len}\r\n"),
            ),
        };
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\n{content_range}ETag: {etag}\r\nAccept-Ranges: bytes\r\n\r\n",
            body.len()
        );
        let body = if how == Server::ShortBody && body.len() > 10 { &body[..body.len() - 10] } else { body };
        if out.write_all(head.as_bytes()).and_then(|()| out.write_all(body)).is_err() {
            return;
        }
        sent.fetch_add(body.len() as u64, Ordering::Relaxed);
        if how == Server::ShortBody {
            return;
        }
    }
}
