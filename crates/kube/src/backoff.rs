//! Exponential back-off, per object: how long a controller waits before it tries an object
//! again that failed — as client-go's rate-limited workqueue (`ItemExponentialFailureRateLimiter`)
//! and controller-runtime's default rate limiter do. Each failure of an object doubles its
//! next delay up to a ceiling; a success forgets it, so the next failure starts small again.
//! Objects fail and recover independently: one broken cluster retries slowly while its
//! healthy neighbours keep their quick first retry. A fixed delay instead had every failing
//! object retry at the same rate for as long as it failed — in a hub outage, every cluster
//! every second.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, RandomState};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// Delays that double from `first` to `longest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exponential {
    /// The delay after the first failure.
    pub first: Duration,
    /// The ceiling.
    pub longest: Duration,
}

impl Exponential {
    /// Every controller's: one second, doubling to five minutes.
    pub const CONTROLLER: Self = Self { first: Duration::from_secs(1), longest: Duration::from_secs(300) };

    /// The delay after `failures` failures in a row (the first failure is 1): `first`,
    /// doubled for each failure before it, at most `longest`.
    pub fn delay(&self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(u32::BITS - 1);
        self.first.saturating_mul(1 << doublings).min(self.longest)
    }
}

/// One object's failures in a row, and when the last was counted.
#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    last: Instant,
}

/// The back-off of every object of one controller, by key.
#[derive(Debug)]
pub struct Backoff<Key> {
    schedule: Exponential,
    failing: Mutex<Failing<Key>>,
    /// Seeds the jitter: the same object and failure count always wait alike in a process,
    /// and objects that failed together spread out.
    jitter: RandomState,
}

/// The objects that failed last time, and how large the table may grow before entries
/// nobody retried any more are swept out.
#[derive(Debug)]
struct Failing<Key> {
    by_key: HashMap<Key, Failures>,
    sweep_at: usize,
}

/// A table this small is never swept.
const SWEEP_FLOOR: usize = 64;

impl<Key: Hash + Eq + Clone> Backoff<Key> {
    /// No failures yet.
    pub fn new(schedule: Exponential) -> Self {
        Self {
            schedule,
            failing: Mutex::new(Failing { by_key: HashMap::new(), sweep_at: SWEEP_FLOOR }),
            jitter: RandomState::new(),
        }
    }

    /// Counts a failure of `key`; how long to wait before trying it again. The delay is
    /// the schedule's, plus up to a quarter more (below the ceiling), so that objects that
    /// failed at the same moment — a fleet in an outage — are not retried at the same moment.
    pub fn failed(&self, key: &Key) -> Duration {
        self.failed_at(key, Instant::now())
    }

    fn failed_at(&self, key: &Key, now: Instant) -> Duration {
        let mut failing = self.failing.lock();
        if failing.by_key.len() >= failing.sweep_at {
            // An object that fails is retried within the ceiling: an entry older than twice
            // the ceiling belongs to an object that went away (deleted while failing).
            let stale = self.schedule.longest.saturating_mul(2);
            failing.by_key.retain(|_, failures| now.saturating_duration_since(failures.last) < stale);
            failing.sweep_at = (failing.by_key.len() * 2).max(SWEEP_FLOOR);
        }
        let failures = failing.by_key.entry(key.clone()).or_insert(Failures { count: 0, last: now });
        failures.count = failures.count.saturating_add(1);
        failures.last = now;
        let count = failures.count;
        drop(failing);
        let delay = self.schedule.delay(count);
        let quarter = self.jitter.hash_one((key, count)) % 1024;
        let jittered = delay + delay.mul_f64(quarter as f64 / 4096.0);
        jittered.min(self.schedule.longest)
    }

    /// `key` succeeded: its next failure starts from the first delay again.
    pub fn succeeded(&self, key: &Key) {
        let mut failing = self.failing.lock();
        if !failing.by_key.is_empty() {
            failing.by_key.remove(key);
        }
    }

    /// Failures of `key` in a row so far.
    #[cfg(test)]
    pub(crate) fn failures(&self, key: &Key) -> u32 {
        self.failing.lock().by_key.get(key).map_or(0, |failures| failures.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn within_jitter(delay: Duration, expected: Duration) -> bool {
        delay >= expected && delay <= expected + expected / 4
    }

    #[test]
    fn delays_double_from_one_second_to_five_minutes() {
        let seconds: Vec<u64> =
            [1, 2, 3, 4, 9, 10, 40, u32::MAX].iter().map(|n| Exponential::CONTROLLER.delay(*n).as_secs()).collect();
        assert_eq!(seconds, [1, 2, 4, 8, 256, 300, 300, 300]);
    }

    #[test]
    fn a_failing_object_backs_off_exponentially_on_its_own_and_a_success_starts_it_over() {
        let backoff = Backoff::new(Exponential::CONTROLLER);
        for expected in [1, 2, 4, 8] {
            let delay = backoff.failed(&"broken");
            assert!(within_jitter(delay, Duration::from_secs(expected)), "{delay:?} after {expected} s");
        }
        assert!(within_jitter(backoff.failed(&"healthy"), Duration::from_secs(1)), "another object starts small");
        assert_eq!(backoff.failures(&"broken"), 4);
        backoff.succeeded(&"broken");
        assert_eq!(backoff.failures(&"broken"), 0);
        assert!(within_jitter(backoff.failed(&"broken"), Duration::from_secs(1)), "a success starts it over");
    }

    #[test]
    fn the_ceiling_holds_whatever_the_jitter() {
        let backoff = Backoff::new(Exponential::CONTROLLER);
        let delays: Vec<Duration> = (0..20).map(|_| backoff.failed(&7)).collect();
        assert!(delays.iter().all(|d| *d <= Duration::from_secs(300)), "{delays:?}");
        assert_eq!(delays.last(), Some(&Duration::from_secs(300)));
    }

    #[test]
    fn objects_that_fail_together_are_spread_over_a_quarter_of_the_delay() {
        let backoff = Backoff::new(Exponential::CONTROLLER);
        let delays: std::collections::BTreeSet<Duration> = (0..100).map(|cluster| backoff.failed(&cluster)).collect();
        assert!(delays.len() > 50, "100 objects that failed at once retry at {} moments", delays.len());
        assert!(delays.iter().all(|d| within_jitter(*d, Duration::from_secs(1))));
    }

    #[test]
    fn entries_of_objects_that_went_away_while_failing_are_swept_out() {
        let backoff = Backoff::new(Exponential { first: Duration::from_millis(1), longest: Duration::from_millis(1) });
        for gone in 0..SWEEP_FLOOR {
            backoff.failed(&gone);
        }
        backoff.failed_at(&SWEEP_FLOOR, Instant::now() + Duration::from_millis(5));
        assert_eq!(backoff.failing.lock().by_key.len(), 1, "only the object that just failed is left");
    }
}
