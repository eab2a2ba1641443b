//! What stops a command before it ends by itself: SIGINT and SIGTERM (within a second, exit
//! 130 or 143), and its `--timeout`, which bounds the whole command, connecting included
//! (exit 3). Either way a line says what was done and that running it again finishes the job.

use std::fmt;
use std::future::Future;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use fleetctl_kube::runner::{StopSignal, shutdown_signal};
use thiserror::Error;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::watch;

use super::exit::{ExitStatus, Fault};

/// Why a command stopped before it ended by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// A signal.
    Signal(StopSignal),
    /// Its `--timeout` passed.
    Deadline(Duration),
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Signal(signal) => write!(f, "stopped by {}", signal.name()),
            Self::Deadline(after) => write!(f, "timed out: --timeout {after:?} passed"),
        }
    }
}

/// A command stopped by a signal or its deadline.
#[derive(Debug, Error)]
#[error("{stop}{}: run the same command again to finish{} (every step can be run again)", done_text(.done), longer(.stop))]
pub struct Interrupted {
    /// What stopped it.
    pub stop: Stop,
    /// What had finished, for each cluster reached (empty when the command does not know).
    pub done: Vec<String>,
}

fn done_text(done: &[String]) -> String {
    if done.is_empty() { String::new() } else { format!(" after {}", done.join("; ")) }
}

fn longer(stop: &Stop) -> &'static str {
    match stop {
        Stop::Deadline(_) => ", with a longer --timeout if it needs one",
        Stop::Signal(_) => "",
    }
}

impl Fault for Interrupted {
    fn exit_status(&self) -> ExitStatus {
        match self.stop {
            Stop::Signal(StopSignal::Interrupt) => ExitStatus::Interrupted,
            Stop::Signal(StopSignal::Terminate) => ExitStatus::Terminated,
            Stop::Deadline(_) => ExitStatus::Timeout,
        }
    }
}

/// When the command's `--timeout` passes, and how long it was.
static DEADLINE: OnceLock<(Instant, Duration)> = OnceLock::new();

/// Starts the command's clock: from now on every [`until_stopped`] also ends at `timeout`.
pub fn start_deadline(timeout: Duration) {
    let _ = DEADLINE.set((Instant::now() + timeout, timeout));
}

/// The command's `--timeout` (`None`: it has none).
pub fn timeout() -> Option<Duration> {
    DEADLINE.get().map(|(_, timeout)| *timeout)
}

/// The time left before the command's deadline (`None`: it has none).
pub fn remaining() -> Option<Duration> {
    DEADLINE.get().map(|(at, _)| at.saturating_duration_since(Instant::now()))
}

/// Resolves when the command's deadline passes (never, without one).
async fn deadline() -> Duration {
    match DEADLINE.get() {
        Some((at, timeout)) => {
            tokio::time::sleep_until((*at).into()).await;
            *timeout
        }
        None => std::future::pending().await,
    }
}

/// The first stop signal of the command, once [`listen`] is on.
static STOP: OnceLock<watch::Receiver<Option<StopSignal>>> = OnceLock::new();

/// Catches SIGINT and SIGTERM from now on for the whole command, so a signal that arrives
/// between two steps is kept for the next [`until_stopped`] rather than lost (or killing the
/// process before it can say what it did). Call once, inside the command's runtime, before
/// any work; where the handlers cannot be installed the signals keep their default action.
pub fn listen() {
    let (Ok(mut interrupt), Ok(mut terminate)) = (signal(SignalKind::interrupt()), signal(SignalKind::terminate()))
    else {
        return;
    };
    let (stop, stopped) = watch::channel(None);
    if STOP.set(stopped).is_ok() {
        tokio::spawn(async move {
            let signal = tokio::select! {
                _ = interrupt.recv() => StopSignal::Interrupt,
                _ = terminate.recv() => StopSignal::Terminate,
            };
            // Nobody waiting any more means the command is over.
            let _ = stop.send(Some(signal));
        });
    }
}

/// Resolves with the command's stop signal: the one [`listen`] caught (also before this
/// call), else the next one.
async fn stop_signal() -> StopSignal {
    let Some(stopped) = STOP.get() else { return shutdown_signal().await };
    let mut stopped = stopped.clone();
    match stopped.wait_for(Option::is_some).await.map(|seen| *seen) {
        Ok(Some(signal)) => signal,
        // The listener is gone with the runtime: no signal will come through it.
        _ => std::future::pending().await,
    }
}

/// Runs `work` until it ends, or until SIGINT or SIGTERM arrives or the command's deadline
/// passes (which wins then, and `work` is dropped: every step it had finished is kept, on
/// the clusters).
pub async fn until_stopped<T>(work: impl Future<Output = T>) -> Result<T, Stop> {
    tokio::select! {
        // The work first: a command that handles the signal itself reports what it did.
        biased;
        value = work => Ok(value),
        signal = stop_signal() => Err(Stop::Signal(signal)),
        after = deadline() => Err(Stop::Deadline(after)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_signal_that_arrives_between_two_waits_stops_the_next_one() {
        listen();
        nix::sys::signal::raise(nix::sys::signal::Signal::SIGTERM).expect("raise");
        // No wait was running when it came; the next one still hears it.
        let stopped = until_stopped(std::future::pending::<()>()).await;
        let terminated = Stop::Signal(StopSignal::Terminate);
        assert_eq!(stopped, Err(terminated));
        assert_eq!(until_stopped(std::future::pending::<()>()).await, Err(terminated), "and it stays");
    }

    #[test]
    fn a_signal_gives_the_shell_status_of_death_by_that_signal_and_a_deadline_the_timeout_status() {
        let stopped = |stop| Interrupted { stop, done: Vec::new() }.exit_status() as u8;
        assert_eq!(stopped(Stop::Signal(StopSignal::Interrupt)), 128 + 2);
        assert_eq!(stopped(Stop::Signal(StopSignal::Terminate)), 128 + 15);
        assert_eq!(stopped(Stop::Deadline(Duration::from_secs(10))), 3);
    }

    #[test]
    fn the_message_says_what_was_done_and_how_to_resume() {
        let done = vec!["c1: 2 of its steps".to_string()];
        let interrupted = Interrupted { stop: Stop::Signal(StopSignal::Interrupt), done: done.clone() };
        assert_eq!(
            interrupted.to_string(),
            "stopped by SIGINT after c1: 2 of its steps: run the same command again to finish (every step can be run again)"
        );
        let late = Interrupted { stop: Stop::Deadline(Duration::from_secs(10)), done };
        assert_eq!(
            late.to_string(),
            "timed out: --timeout 10s passed after c1: 2 of its steps: run the same command again to finish, with a \
             longer --timeout if it needs one (every step can be run again)"
        );
    }
}
