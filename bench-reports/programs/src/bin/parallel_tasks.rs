//! Where the time of one stream inflated on several cores goes: the deflated entry ENTRY of
//! ARCHIVE inflated serially (the chunked decoder) and by `inflate_parallel` on THREADS workers,
//! every chunk's speculation waited for and used wherever it lines up (`patient`, and
//! `keep_speculating` unless NO_KEEP is set), each output byte CRC-32'd as extraction does. Each
//! task of the parallel decode (a worker's speculation of a chunk or its resolving of a chunk's
//! markers; the writer's exact decoding, its finding of the window after a chunk, its hand-over
//! of a chunk to the sink) is timed by the
//! per-thread CPU clock of the thread that runs it. Prints one JSON object: the stream, serial
//! and parallel CPU and wall seconds, and every task with its chunk, kind, thread, CPU seconds and
//! wall start and end (for `bench-reports/strided-inflate/parallel_model.py`).
//!
//! Usage: cargo run --release -p bufkit-bench --bin parallel_tasks -- ARCHIVE ENTRY [THREADS] [CHUNK_MIB]

use std::sync::Mutex;
use std::time::Instant;

use strided_inflate::{ChunkedInflater, Format, Observer, Parallel, Task, inflate_parallel_observed};

/// This thread's CPU seconds.
fn thread_cpu() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime fills the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

/// This process's CPU seconds, user and system.
fn process_cpu() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime fills the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

/// This thread's number (1, 2, ... in the order threads first ask), to tell the workers from the
/// writer.
fn thread_id() -> i64 {
    use std::sync::atomic::{AtomicI64, Ordering};
    static NEXT: AtomicI64 = AtomicI64::new(1);
    thread_local!(static ID: i64 = NEXT.fetch_add(1, Ordering::Relaxed));
    ID.with(|id| *id)
}

/// One finished task: (kind, chunk, thread, CPU seconds, wall start, wall end).
type Done = (&'static str, usize, i64, f64, f64, f64);

/// Times each task on the thread that runs it.
struct Clock {
    start: Instant,
    open: Mutex<Vec<(Task, i64, f64, f64)>>,
    done: Mutex<Vec<Done>>,
}

impl Observer for Clock {
    fn began(&self, task: Task) {
        let now = self.start.elapsed().as_secs_f64();
        self.open.lock().unwrap().push((task, thread_id(), thread_cpu(), now));
    }

    fn ended(&self, task: Task) {
        let (cpu, now, tid) = (thread_cpu(), self.start.elapsed().as_secs_f64(), thread_id());
        let mut open = self.open.lock().unwrap();
        let at = open.iter().rposition(|&(t, id, _, _)| t == task && id == tid).expect("began");
        let (_, _, cpu0, wall0) = open.swap_remove(at);
        let (kind, chunk) = match task {
            Task::Speculate(k) => ("speculate", k),
            Task::Serial(k) => ("serial", k),
            Task::Resolve(k) => ("resolve", k),
            Task::Window(k) => ("window", k),
            Task::Emit(k) => ("emit", k),
        };
        self.done.lock().unwrap().push((kind, chunk, tid, cpu - cpu0, wall0, now));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(archive), Some(name)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: parallel_tasks ARCHIVE ENTRY [THREADS] [CHUNK_MIB]");
        std::process::exit(2);
    };
    let threads: usize = args.get(3).and_then(|t| t.parse().ok()).unwrap_or(2);
    let chunk_out: u64 = args.get(4).and_then(|m| m.parse::<u64>().ok()).map_or(4 << 20, |m| m << 20);
    let zip = std::fs::read(archive).expect("the archive");
    let entries = asset_extract::read_entries(&zip).expect("a valid archive");
    let e = entries.iter().find(|e| e.path == *name).expect("the entry");
    let stream = &zip[e.data_offset as usize..(e.data_offset + e.compressed_size) as usize];

    // Serial: the chunked decoder, each chunk CRC-32'd.
    let (cpu0, wall0) = (process_cpu(), Instant::now());
    let mut inflater = ChunkedInflater::new(Format::Raw);
    inflater.start(stream);
    let mut crc = strided_inflate::Crc32::new();
    while let Some(chunk) = inflater.next_chunk().expect("the entry inflates") {
        crc.update(chunk);
    }
    let (serial_cpu, serial_wall) = (process_cpu() - cpu0, wall0.elapsed().as_secs_f64());
    assert_eq!(crc.finalize(), e.crc32, "serial output");

    // Parallel, every task timed.
    let clock = Clock { start: Instant::now(), open: Mutex::new(Vec::new()), done: Mutex::new(Vec::new()) };
    let source = |offset: u64, buf: &mut [u8]| -> std::io::Result<usize> {
        let rest = stream.get(offset as usize..).unwrap_or(&[]);
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        Ok(n)
    };
    let mut crc = strided_inflate::Crc32::new();
    let mut sink = |bytes: &[u8]| -> std::io::Result<()> {
        crc.update(bytes);
        Ok(())
    };
    let how = Parallel { threads, chunk_out, patient: true, keep_speculating: std::env::var_os("NO_KEEP").is_none() };
    let cpu0 = process_cpu();
    let report = inflate_parallel_observed(stream.len() as u64, Some(e.size), how, &source, &mut sink, &clock)
        .expect("the entry inflates");
    let (parallel_cpu, parallel_wall) = (process_cpu() - cpu0, clock.start.elapsed().as_secs_f64());
    assert_eq!(crc.finalize(), e.crc32, "parallel output");

    let tasks: Vec<String> = clock
        .done
        .into_inner()
        .unwrap()
        .iter()
        .map(|(kind, chunk, tid, cpu, from, to)| {
            format!(
                "{{\"kind\": \"{kind}\", \"chunk\": {chunk}, \"thread\": {tid}, \"cpu\": {cpu:.6}, \"from\": {from:.6}, \"to\": {to:.6}}}"
            )
        })
        .collect();
    println!(
        "{{\"archive\": \"{archive}\", \"entry\": \"{name}\", \"size\": {}, \"compressed\": {}, \"threads\": {threads}, \
         \"chunk_out\": {chunk_out}, \"chunks\": {}, \"chunks_used\": {}, \"serial_out\": {}, \
         \"serial_cpu\": {serial_cpu:.6}, \"serial_wall\": {serial_wall:.6}, \"parallel_cpu\": {parallel_cpu:.6}, \
         \"parallel_wall\": {parallel_wall:.6}, \"tasks\": [{}]}}",
        e.size,
        e.compressed_size,
        report.chunks,
        report.chunks_used,
        report.serial_out,
        tasks.join(", ")
    );
}
