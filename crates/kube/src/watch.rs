//! How a watch waits out its failures. kube-runtime's `default_backoff` (client-go's: 0.8 s
//! doubling to 30 s, jittered) pauses after every error, a `410 Gone` included; after an
//! outage the pause has grown to its ceiling, and the API server that comes back answers the
//! first watch with `410` (the resource version it resumes from is older than its new watch
//! cache): the relist then waits out another ceiling although the server is there, and a
//! change made at the return reaches the watcher a minute late. Here a `410` relists at once
//! and starts the back-off over — the server answered — while a failure to reach it backs off
//! as before.

use std::time::Duration;

use futures::{Stream, StreamExt};
use kube::runtime::utils::Backoff;
use kube::runtime::watcher::{self, DefaultBackoff};
use tokio::time::Instant;

/// Within this long of a `410` that relisted at once, another `410` backs off: a server that
/// expires what it has just listed is not one to relist from in a loop.
const EXPIRY_AGAIN: Duration = Duration::from_secs(30);

/// `stream` (a [`watcher`]) with a pause after each failure to reach the server, none after
/// a `410 Gone` (unless the last one was under [`EXPIRY_AGAIN`] ago), and the back-off
/// started over by every event.
pub fn backed_off<T, S>(stream: S) -> impl Stream<Item = Result<T, watcher::Error>> + Send + 'static
where
    T: Send + 'static,
    S: Stream<Item = Result<T, watcher::Error>> + Send + 'static,
{
    let start = (stream.boxed(), Pauses::default(), None);
    futures::stream::unfold(start, |(mut stream, mut pauses, pause)| async move {
        if let Some(pause) = pause {
            tokio::time::sleep(pause).await;
        }
        let item = stream.next().await?;
        let pause = pauses.after(&item, Instant::now());
        Some((item, (stream, pauses, pause)))
    })
}

/// [`backed_off`] as a method of watch streams, in place of kube-runtime's `default_backoff`.
pub trait BackedOff<T>: Stream<Item = Result<T, watcher::Error>> + Send + Sized + 'static {
    /// This watch, [`backed_off`].
    fn backed_off(self) -> impl Stream<Item = Result<T, watcher::Error>> + Send + 'static;
}

impl<T, S> BackedOff<T> for S
where
    T: Send + 'static,
    S: Stream<Item = Result<T, watcher::Error>> + Send + 'static,
{
    fn backed_off(self) -> impl Stream<Item = Result<T, watcher::Error>> + Send + 'static {
        backed_off(self)
    }
}

/// The pauses of one watch: its back-off, and when a `410` last relisted at once.
#[derive(Default)]
struct Pauses {
    backoff: DefaultBackoff,
    relisted_at: Option<Instant>,
}

impl Pauses {
    /// The pause after `item`: none after an event or an expired resource version (the
    /// server answered: the back-off starts over), the next back-off after a failure to reach
    /// the server or a repeated expiry.
    fn after<T>(&mut self, item: &Result<T, watcher::Error>, now: Instant) -> Option<Duration> {
        match item {
            Ok(_) => {
                self.backoff.reset();
                None
            }
            Err(watcher::Error::WatchError(status))
                if status.code == 410 && self.relisted_at.is_none_or(|at| now - at >= EXPIRY_AGAIN) =>
            {
                self.relisted_at = Some(now);
                self.backoff.reset();
                None
            }
            Err(_) => self.backoff.next(),
        }
    }
}

/// For a [`kube::runtime::Controller`] whose trigger streams are [`backed_off`] already:
/// no second pause on top of theirs (the controller's own trigger back-off would pause after
/// a `410` again).
#[derive(Debug, Clone, Copy, Default)]
pub struct AlreadyBackedOff;

impl Iterator for AlreadyBackedOff {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        Some(Duration::ZERO)
    }
}

impl Backoff for AlreadyBackedOff {
    fn reset(&mut self) {}
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;
    use kube::core::Status;

    use super::*;

    fn expired() -> Result<u32, watcher::Error> {
        let mut status = Status::failure("too old resource version: 1 (2)", "Expired");
        status.code = 410;
        Err(watcher::Error::WatchError(Box::new(status)))
    }

    fn unreachable() -> Result<u32, watcher::Error> {
        Err(watcher::Error::NoResourceVersion)
    }

    /// The pause before each item after the first, with tokio's clock paused.
    async fn pauses(items: Vec<Result<u32, watcher::Error>>) -> Vec<Duration> {
        let mut stream = Box::pin(backed_off(futures::stream::iter(items)));
        let mut last = Instant::now();
        let mut pauses = Vec::new();
        let _first = stream.next().await;
        while stream.next().await.is_some() {
            pauses.push(last.elapsed());
            last = Instant::now();
        }
        pauses
    }

    #[tokio::test(start_paused = true)]
    async fn failures_to_reach_the_server_back_off_from_a_second_as_client_gos_reflector() {
        let pauses = pauses(vec![unreachable(), unreachable(), unreachable(), Ok(1)]).await;
        // Jittered: each pause is its step (0.8, 1.6, 3.2 s) up to twice it.
        assert!(pauses[0] >= Duration::from_millis(800) && pauses[0] < Duration::from_millis(1600), "{pauses:?}");
        assert!(pauses[1] >= Duration::from_millis(1600) && pauses[1] < Duration::from_millis(3200), "{pauses:?}");
        assert!(pauses[2] >= Duration::from_millis(3200), "{pauses:?}");
    }

    /// client-go's reflector and kube-runtime both wait out their back-off before the relist
    /// a `410 Gone` asks for; the server is there, so here the relist is at once.
    #[tokio::test(start_paused = true)]
    async fn an_expired_resource_version_relists_at_once_and_starts_the_back_off_over() {
        let pauses = pauses(vec![unreachable(), unreachable(), unreachable(), expired(), unreachable(), Ok(1)]).await;
        assert_eq!(pauses[3], Duration::ZERO, "no pause after the 410: {pauses:?}");
        assert!(pauses[4] < Duration::from_millis(1600), "the back-off started over: {pauses:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn events_pass_without_a_pause_and_start_the_back_off_over() {
        let pauses = pauses(vec![unreachable(), unreachable(), Ok(1), Ok(2), unreachable(), Ok(3)]).await;
        assert_eq!(pauses[2], Duration::ZERO, "{pauses:?}");
        assert!(pauses[4] < Duration::from_millis(1600), "{pauses:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_server_that_expires_again_what_it_just_listed_is_backed_off_from() {
        let pauses = pauses(vec![expired(), Ok(1), expired(), Ok(2)]).await;
        assert_eq!(pauses[0], Duration::ZERO, "{pauses:?}");
        assert!(pauses[2] >= Duration::from_millis(800), "the second 410 within 30 s backs off: {pauses:?}");
    }
}
