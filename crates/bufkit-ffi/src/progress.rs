//! Progress for callers across the boundary, at a rate they can take: a BEAM process's mailbox or
//! a JVM upcall pays per message, and an archive of 15,000 entries made 15,000 of them.

#![forbid(unsafe_code)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use asset_extract::Progress;

/// Passes progress on at most once per `interval`, and always the last one (every entry done),
/// which is then the last call: a report that arrives after it from a slower worker is dropped.
/// Calls never overlap, though they may come from several threads. A zero interval passes every
/// report on as it comes, from any worker, possibly at once (the C ABI's default, as before).
pub(crate) struct Throttle {
    interval: Duration,
    start: Instant,
    /// Nanoseconds after `start` of the last report passed on; `u64::MAX` before the first.
    last: AtomicU64,
    /// Held while passing a report on; true once the last one has gone.
    gate: Mutex<bool>,
}

impl Throttle {
    pub(crate) fn new(interval: Duration) -> Throttle {
        Throttle { interval, start: Instant::now(), last: AtomicU64::new(u64::MAX), gate: Mutex::new(false) }
    }

    /// Calls `deliver(p)` if `p` is due.
    pub(crate) fn report(&self, p: Progress, deliver: impl FnOnce(Progress)) {
        if self.interval.is_zero() {
            deliver(p);
            return;
        }
        let finished = p.entries_done >= p.entries_total;
        if finished {
            let mut done = self.gate.lock().unwrap_or_else(|e| e.into_inner());
            if !*done {
                *done = true;
                deliver(p);
            }
            return;
        }
        let now = self.start.elapsed().as_nanos().min(u128::from(u64::MAX - 1)) as u64;
        let last = self.last.load(Ordering::Relaxed);
        if last != u64::MAX && now.saturating_sub(last) < self.interval.as_nanos() as u64 {
            return;
        }
        // Another report being passed on: this one is not needed (the next is at most one interval away).
        let Ok(done) = self.gate.try_lock() else { return };
        if *done {
            return;
        }
        self.last.store(now, Ordering::Relaxed);
        deliver(p);
        drop(done);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    fn at(done: u64, total: u64) -> Progress {
        Progress { entries_done: done, entries_total: total, bytes_done: done, bytes_total: total }
    }

    #[test]
    fn zero_interval_passes_everything_on() {
        let t = Throttle::new(Duration::ZERO);
        let calls = AtomicUsize::new(0);
        for d in 1..=100 {
            t.report(at(d, 100), |_| {
                calls.fetch_add(1, Ordering::Relaxed);
            });
        }
        assert_eq!(calls.load(Ordering::Relaxed), 100);
    }

    #[test]
    fn a_long_interval_passes_the_first_and_the_last_and_nothing_after() {
        let t = Throttle::new(Duration::from_secs(3600));
        let mut seen = Vec::new();
        for d in 1..=1000 {
            t.report(at(d, 1000), |p| seen.push(p.entries_done));
        }
        t.report(at(999, 1000), |p| seen.push(p.entries_done)); // a slow worker's, after the last
        assert_eq!(seen, [1, 1000]);
    }

    #[test]
    fn threads_racing_still_end_with_exactly_one_last_report() {
        let t = Throttle::new(Duration::from_millis(1));
        let last = AtomicUsize::new(0);
        let after_last = AtomicUsize::new(0);
        let done = AtomicU64::new(0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..2500 {
                        let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                        t.report(at(d, 10_000), |p| {
                            if last.load(Ordering::Relaxed) > 0 {
                                after_last.fetch_add(1, Ordering::Relaxed);
                            }
                            if p.entries_done == 10_000 {
                                last.fetch_add(1, Ordering::Relaxed);
                            }
                        });
                    }
                });
            }
        });
        assert_eq!((last.load(Ordering::Relaxed), after_last.load(Ordering::Relaxed)), (1, 0));
    }
}
