//! A batch spread over threads: the requests cut into runs of [`RUN`] streams, which the threads
//! (the calling one included, with the caller's decoder; the others with a decoder each) take one
//! at a time from a shared counter until none is left, each run inflating into its own share of
//! the output. Runs taken as they come balance the work however the streams' costs are spread.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::Error;
use crate::decoder::{Decoder, Request};

/// Streams per run: small enough to balance, large enough that taking a run costs nothing.
const RUN: usize = 32;
/// Below this many streams per thread, another thread costs more than it saves.
const MIN_STREAMS_PER_THREAD: usize = 64;
/// Below this much estimated work in all (output bytes, plus [`PER_STREAM`] per stream), the batch
/// stays on the calling thread: starting a thread costs tens of microseconds.
const MIN_WORK: usize = 256 << 10;
/// A stream's fixed cost (its header and tables) in output-byte equivalents.
const PER_STREAM: usize = 300;

/// The output, shared by the threads of one batch, each writing only the runs it takes.
struct SharedOut(*mut MaybeUninit<u8>);

// SAFETY: runs are disjoint ranges of the output, and each run is taken by exactly one thread (a
// fetch_add on one counter); the output outlives the scope in which the threads run.
unsafe impl Sync for SharedOut {}

impl SharedOut {
    /// # Safety
    /// `start..end` is inside the output and no other thread uses it while the slice lives.
    #[allow(clippy::mut_from_ref)] // the disjointness above is what makes the shared &self sound
    unsafe fn range(&self, start: usize, end: usize) -> &mut [MaybeUninit<u8>] {
        // SAFETY: per this function's contract.
        unsafe { std::slice::from_raw_parts_mut(self.0.add(start), end - start) }
    }
}

impl Decoder {
    /// Like [`inflate_each_uninit`](Self::inflate_each_uninit), with the requests spread over up
    /// to `threads` threads (this one included) when the batch is large enough to pay for them:
    /// the same outputs, in the same places, and the same outcome for each stream, which `each`
    /// receives from whichever thread inflated it (each index exactly once). Every request must
    /// fit: their sizes add up to at most `out.len()` (else every stream is a size mismatch, as
    /// [`inflate_batch`](Self::inflate_batch) does). Returns how many succeeded. Threads started
    /// here have ended when it returns.
    pub fn inflate_each_parallel_uninit(
        &mut self,
        input: &[u8],
        requests: &[Request],
        out: &mut [MaybeUninit<u8>],
        threads: usize,
        each: impl Fn(usize, Result<usize, Error>) + Sync,
    ) -> usize {
        let total = requests.iter().try_fold(0usize, |sum, r| sum.checked_add(r.expected_len));
        if total.is_none_or(|t| t > out.len()) {
            let err = Error::SizeMismatch { offset: 0, expected: total.unwrap_or(usize::MAX), actual: Some(out.len()) };
            (0..requests.len()).for_each(|i| each(i, Err(err.clone())));
            return 0;
        }
        let work =
            requests.iter().map(|r| r.expected_len.saturating_add(PER_STREAM)).fold(0usize, usize::saturating_add);
        let threads = threads.min(requests.len() / MIN_STREAMS_PER_THREAD).max(1);
        if threads == 1 || work < MIN_WORK {
            return self.inflate_each_uninit(input, requests.iter().copied(), out, each);
        }
        // Where each run's output starts (and, last, where the outputs end).
        let mut starts = Vec::with_capacity(requests.len().div_ceil(RUN) + 1);
        let mut at = 0;
        for run in requests.chunks(RUN) {
            starts.push(at);
            at += run.iter().map(|r| r.expected_len).sum::<usize>();
        }
        starts.push(at);
        let (next, shared, format, each) = (AtomicUsize::new(0), SharedOut(out.as_mut_ptr()), self.format(), &each);
        let (next, shared, starts) = (&next, &shared, &starts);
        // Takes runs until none is left; returns the streams that succeeded.
        let work_through = move |decoder: &mut Decoder| {
            let mut ok = 0;
            loop {
                let run = next.fetch_add(1, Ordering::Relaxed);
                let Some(first) = run.checked_mul(RUN).filter(|&f| f < requests.len()) else { return ok };
                let streams = &requests[first..(first + RUN).min(requests.len())];
                // SAFETY: starts[run]..starts[run + 1] is this run's share, inside `out` (every
                // request fits, checked above); this thread alone took `run`.
                let mine = unsafe { shared.range(starts[run], starts[run + 1]) };
                ok += decoder.inflate_each_uninit(input, streams.iter().copied(), mine, |i, o| each(first + i, o));
            }
        };
        std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..threads)
                .map(|_| {
                    scope.spawn(move || match Decoder::new(format) {
                        Ok(mut decoder) => work_through(&mut decoder),
                        Err(_) => 0, // no decoder (out of memory): the other threads take the runs
                    })
                })
                .collect();
            let mut ok = work_through(self);
            for helper in helpers {
                // A panic in a helper is a bug; carry it to this thread, as the serial path would.
                ok += helper.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            }
            ok
        })
    }
}
