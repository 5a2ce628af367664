//! zlib-ng over the objects of a pack (or one large stream), two ways: git's loop
//! (`inflateInit` / `inflate(Z_FINISH)` / `inflateEnd` per object) and its best usage (one stream,
//! `inflateReset` per object). Input and output as `git_loop.c`: PACK TABLE REPS, the table being
//! little-endian u64 (offset, size) pairs written by `pack_bench`; prints one JSON line per way with
//! the median CPU seconds of one pass.

use std::ffi::c_void;

use libz_ng_sys as z;

unsafe extern "C" fn zalloc(_: *mut c_void, items: z::uInt, size: z::uInt) -> *mut c_void {
    // SAFETY: calloc with the counts zlib-ng asks for.
    unsafe { libc::calloc(items as usize, size as usize) }
}

unsafe extern "C" fn zfree(_: *mut c_void, p: *mut c_void) {
    // SAFETY: `p` came from zalloc.
    unsafe { libc::free(p) }
}

fn fresh_stream() -> z::z_stream {
    z::z_stream {
        next_in: std::ptr::null_mut(),
        avail_in: 0,
        total_in: 0,
        next_out: std::ptr::null_mut(),
        avail_out: 0,
        total_out: 0,
        msg: std::ptr::null_mut(),
        state: std::ptr::null_mut(),
        zalloc,
        zfree,
        opaque: std::ptr::null_mut(),
        data_type: 0,
        adler: 0,
        reserved: 0,
    }
}

fn cpu_seconds() -> f64 {
    // SAFETY: an all-zero timespec is valid; clock_gettime fills it.
    let mut t: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: a valid clock id and out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

/// Inflates object `(off, size)` with `strm` (already initialised or reset); returns bytes consumed.
fn inflate_one(strm: &mut z::z_stream, pack: &[u8], off: usize, out: &mut [u8]) -> usize {
    strm.next_in = pack[off..].as_ptr() as *mut u8;
    strm.avail_in = (pack.len() - off).min(u32::MAX as usize) as z::uInt;
    strm.next_out = out.as_mut_ptr();
    strm.avail_out = out.len() as z::uInt;
    // SAFETY: the stream is initialised and its pointers are valid for the lengths given.
    let st = unsafe { z::inflate(strm, z::Z_FINISH) };
    assert!(st == z::Z_STREAM_END && strm.total_out as usize == out.len(), "object at {off}: inflate {st}");
    strm.total_in as usize
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let pack = std::fs::read(&args[1]).expect("pack");
    let table: Vec<(usize, usize)> = std::fs::read(&args[2])
        .expect("table")
        .chunks_exact(16)
        .map(|c| (u64::from_le_bytes(c[..8].try_into().unwrap()) as usize, u64::from_le_bytes(c[8..].try_into().unwrap()) as usize))
        .collect();
    let reps: usize = args[3].parse().expect("reps");
    let max = table.iter().map(|t| t.1).max().unwrap_or(1);
    let mut out = vec![0u8; max.max(1)];
    let mut median = |mut pass: Box<dyn FnMut(&mut [u8]) -> usize + '_>| {
        let mut times = Vec::new();
        let mut consumed = 0;
        for _ in 0..reps {
            let start = cpu_seconds();
            consumed = pass(&mut out);
            times.push(cpu_seconds() - start);
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        (times[reps / 2], consumed)
    };
    let (t, c) = median(Box::new(|out| {
        let mut sum = 0;
        for &(off, size) in &table {
            let mut strm = fresh_stream();
            // SAFETY: a fully initialised stream with allocator callbacks.
            assert_eq!(unsafe { z::inflateInit_(&mut strm, c"1.3.1".as_ptr(), size_of::<z::z_stream>() as i32) }, z::Z_OK);
            sum += inflate_one(&mut strm, &pack, off, &mut out[..size]);
            // SAFETY: initialised above, ended once.
            unsafe { z::inflateEnd(&mut strm) };
        }
        sum
    }));
    println!("{{\"engine\":\"zlib-ng-loop\",\"seconds\":{t:.6},\"objects\":{},\"consumed\":{c}}}", table.len());
    let (t, c) = median(Box::new(|out| {
        let mut strm = fresh_stream();
        // SAFETY: as above.
        assert_eq!(unsafe { z::inflateInit_(&mut strm, c"1.3.1".as_ptr(), size_of::<z::z_stream>() as i32) }, z::Z_OK);
        let mut sum = 0;
        for &(off, size) in &table {
            // SAFETY: the stream is initialised.
            assert_eq!(unsafe { z::inflateReset(&mut strm) }, z::Z_OK);
            sum += inflate_one(&mut strm, &pack, off, &mut out[..size]);
        }
        // SAFETY: initialised above, ended once.
        unsafe { z::inflateEnd(&mut strm) };
        sum
    }));
    println!("{{\"engine\":\"zlib-ng-reset\",\"seconds\":{t:.6},\"objects\":{},\"consumed\":{c}}}", table.len());
}
