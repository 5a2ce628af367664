//! A batch spread over threads: the requests cut into runs of [`RUN`] streams, which the threads
//! (the calling one included, with the caller's decoder; the others with a decoder each) take one
//! at a time from a shared counter until none is left, each run inflating into its own share of
//! the output. Runs taken as they come balance the work however the streams' costs are spread.
//! The calling thread starts alone and times its first run: helpers are started only if what is
//! left would take long enough to pay for them, even on a busy machine (a batch of tiny streams,
//! or of a thousand small objects, never starts one).

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::Error;
use crate::decoder::{Decoder, Request};

/// Streams per run: small enough to balance, large enough that taking a run costs nothing.
const RUN: usize = 32;
/// Below this many streams per thread, a batch stays on one thread. On a busy machine the first
/// run's pace is slowed by the other work, so the timing alone would start helpers for batches of
/// a thousand small objects too, and those ran 2.8× slower than on one thread while two other
/// processes kept both cores busy (the wait for a helper the kernel has not run yet).
const MIN_STREAMS_PER_THREAD: usize = 2048;
/// Helpers start only when the rest of the batch, at the first run's pace, would take at least
/// this long on one thread. Starting one costs tens of microseconds, but on a busy machine (a BEAM
/// or a JVM whose threads keep every core busy) the batch also waits, at its end, for a helper the
/// kernel has not run yet, up to a scheduling slice of a few milliseconds: measured, batches of
/// about 0.5 ms fanned out at a 250 µs threshold ran 3.2× slower than on one thread while two
/// other processes kept both cores busy. So only batches long against that wait fan out.
const WORTH_A_HELPER: Duration = Duration::from_millis(2);

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
        let threads = threads.min(requests.len() / MIN_STREAMS_PER_THREAD).max(1);
        if threads == 1 {
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
        // Takes the next run, if any is left; returns the streams that succeeded in it.
        let take_run = move |decoder: &mut Decoder| -> Option<usize> {
            let run = next.fetch_add(1, Ordering::Relaxed);
            let first = run.checked_mul(RUN).filter(|&f| f < requests.len())?;
            let streams = &requests[first..(first + RUN).min(requests.len())];
            // SAFETY: starts[run]..starts[run + 1] is this run's share, inside `out` (every request
            // fits, checked above); this thread alone took `run`.
            let mine = unsafe { shared.range(starts[run], starts[run + 1]) };
            Some(decoder.inflate_each_uninit(input, streams.iter().copied(), mine, |i, o| each(first + i, o)))
        };
        std::thread::scope(|scope| {
            let started = Instant::now();
            let mut ok = take_run(self).unwrap_or(0);
            // The first run's pace says whether helpers pay for themselves.
            let left = u32::try_from(requests.len().saturating_sub(RUN)).unwrap_or(u32::MAX);
            let rest = (started.elapsed() / RUN as u32).checked_mul(left);
            let helpers: Vec<_> = if rest.is_none_or(|rest| rest >= WORTH_A_HELPER) {
                (1..threads)
                    .map(|_| {
                        scope.spawn(move || {
                            // No decoder (out of memory): the other threads take the runs.
                            let Ok(mut decoder) = Decoder::new(format) else { return 0 };
                            let mut ok = 0;
                            while let Some(n) = take_run(&mut decoder) {
                                ok += n;
                            }
                            ok
                        })
                    })
                    .collect()
            } else {
                Vec::new()
            };
            while let Some(n) = take_run(self) {
                ok += n;
            }
            for helper in helpers {
                // A panic in a helper is a bug; carry it to this thread, as the serial path would.
                ok += helper.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            }
            ok
        })
    }
}
