//! The wall time the built-in controllers schedule by (kube-controller-manager's
//! controllers take a `now` function for the same reason): the system's, or one a test
//! sets, so that a CronJob's minutes pass without waiting for them.

use std::sync::Arc;

use jiff::Timestamp;
use tokio::sync::watch;

/// Where "now" comes from.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    manual: Option<Arc<watch::Sender<Timestamp>>>,
}

impl Clock {
    /// The system's clock.
    pub fn system() -> Self {
        Self::default()
    }

    /// The time now.
    pub fn now(&self) -> Timestamp {
        match &self.manual {
            Some(time) => *time.borrow(),
            None => Timestamp::now(),
        }
    }

    /// Returns once the time is `at` or later.
    pub async fn sleep_until(&self, at: Timestamp) {
        match &self.manual {
            Some(time) => {
                let mut seen = time.subscribe();
                // The sender lives as long as this clock: the wait ends only by the time.
                let _ = seen.wait_for(|now| *now >= at).await;
            }
            None => {
                let left = Timestamp::now().duration_until(at);
                tokio::time::sleep(left.try_into().unwrap_or_default()).await;
            }
        }
    }
}

/// A clock that stands still until it is set (for tests).
#[derive(Debug, Clone)]
pub struct ManualClock {
    time: Arc<watch::Sender<Timestamp>>,
}

impl ManualClock {
    /// A clock showing `start`.
    pub fn new(start: Timestamp) -> Self {
        Self { time: Arc::new(watch::Sender::new(start)) }
    }

    /// Sets the time; whatever sleeps until it (or earlier) wakes.
    pub fn set(&self, now: Timestamp) {
        self.time.send_replace(now);
    }

    /// The clock the server reads.
    pub fn clock(&self) -> Clock {
        Clock { manual: Some(self.time.clone()) }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_manual_clock_wakes_its_sleepers_when_set_past_their_time_and_not_before() {
        let start = Timestamp::from_second(1_000).unwrap();
        let hand = ManualClock::new(start);
        let clock = hand.clock();
        let at = Timestamp::from_second(1_060).unwrap();
        let sleeper = tokio::spawn({
            let clock = clock.clone();
            async move { clock.sleep_until(at).await }
        });
        hand.set(Timestamp::from_second(1_059).unwrap());
        tokio::task::yield_now().await;
        assert!(!sleeper.is_finished(), "a second early");
        hand.set(Timestamp::from_second(1_061).unwrap());
        tokio::time::timeout(Duration::from_secs(5), sleeper).await.unwrap().unwrap();
        assert_eq!(clock.now(), Timestamp::from_second(1_061).unwrap());
    }
}
