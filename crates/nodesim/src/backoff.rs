//! A container's restart back-off, as the kubelet keeps it (`kuberuntime_manager.doBackOff`
//! over a `flowcontrol.Backoff` keyed by the container): the first exit restarts the
//! container at once and arms the back-off at its start value; each later exit waits the
//! armed delay, counted from the exit, and doubles it up to the maximum; an exit further
//! than the reset period from the one that last armed it starts afresh.

use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use super::Timing;

/// One container's back-off.
#[derive(Debug)]
pub(super) struct Backoff {
    start: Duration,
    max: Duration,
    reset: Duration,
    /// The delay the next exit waits, and the exit that armed it.
    armed: Option<(Duration, Instant)>,
}

impl Backoff {
    pub(super) fn new(timing: Timing) -> Self {
        Self { start: timing.backoff_start, max: timing.backoff_max, reset: timing.backoff_reset, armed: None }
    }

    /// How long a container that exited at `exited` waits before it starts again.
    pub(super) fn delay_after(&mut self, exited: Instant) -> Duration {
        match self.armed {
            Some((delay, since)) if exited.saturating_duration_since(since) <= self.reset => {
                self.armed = Some(((delay * 2).min(self.max), exited));
                delay
            }
            _ => {
                self.armed = Some((self.start, exited));
                Duration::ZERO
            }
        }
    }
}

/// Waits `delay` from `exited`; `false` if the Pod stopped meanwhile.
pub(super) async fn wait(exited: Instant, delay: Duration, stop: &mut watch::Receiver<bool>) -> bool {
    tokio::select! {
        _ = stop.wait_for(|s| *s) => false,
        () = tokio::time::sleep_until(exited + delay) => true,
    }
}

/// A delay as Go's `time.Duration` prints it (`10s`, `5m0s`, `2m40s`), as the kubelet's
/// back-off messages show it.
pub(super) fn go_duration(delay: Duration) -> String {
    let seconds = delay.as_secs();
    match (seconds / 60, seconds % 60, delay.subsec_millis()) {
        (0, 0, millis) => format!("{millis}ms"),
        (0, s, 0) => format!("{s}s"),
        (0, s, millis) => format!("{s}.{}s", format!("{millis:03}").trim_end_matches('0')),
        (m, s, _) => format!("{m}m{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kubelet() -> Backoff {
        Backoff::new(Timing::default())
    }

    /// `flowcontrol.Backoff` as `doBackOff` uses it: 0, 10 s, 20 s, … 5 min, 5 min.
    #[test]
    fn the_first_exit_restarts_at_once_then_ten_seconds_doubling_to_five_minutes() {
        let mut backoff = kubelet();
        let mut at = Instant::now();
        let mut delays = Vec::new();
        for _ in 0..9 {
            let delay = backoff.delay_after(at);
            delays.push(delay.as_secs());
            // It ran for a second after the wait.
            at += delay + Duration::from_secs(1);
        }
        assert_eq!(delays, [0, 10, 20, 40, 80, 160, 300, 300, 300]);
    }

    #[test]
    fn exits_more_than_ten_minutes_apart_start_the_back_off_afresh() {
        let mut backoff = kubelet();
        let start = Instant::now();
        assert_eq!(backoff.delay_after(start), Duration::ZERO);
        assert_eq!(backoff.delay_after(start + Duration::from_secs(1)), Duration::from_secs(10));
        let later = start + Duration::from_secs(1) + Duration::from_secs(601);
        assert_eq!(backoff.delay_after(later), Duration::ZERO, "ten minutes after the exit that armed it");
        assert_eq!(backoff.delay_after(later + Duration::from_secs(1)), Duration::from_secs(10));
    }

    #[test]
    fn delays_read_as_gos() {
        let text = |ms: u64| go_duration(Duration::from_millis(ms));
        assert_eq!(
            [text(10_000), text(300_000), text(160_000), text(200), text(1_500)],
            ["10s", "5m0s", "2m40s", "200ms", "1.5s"]
        );
    }
}
