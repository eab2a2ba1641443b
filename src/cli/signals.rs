//! SIGINT and SIGTERM: a command stops within a second, with exit status 130 or 143 and a
//! line that says what was done and that running it again finishes the job.

use std::future::Future;
use std::sync::OnceLock;

use fleetctl_kube::runner::{StopSignal, shutdown_signal};
use thiserror::Error;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::watch;

use super::exit::{ExitStatus, Fault};

/// A command stopped by a signal.
#[derive(Debug, Error)]
#[error("stopped by {}{}: run the same command again to finish (every step can be run again)", .signal.name(), done_text(.done))]
pub struct Interrupted {
    /// The signal.
    pub signal: StopSignal,
    /// What had finished, for each cluster reached (empty when the command does not know).
    pub done: Vec<String>,
}

fn done_text(done: &[String]) -> String {
    if done.is_empty() { String::new() } else { format!(" after {}", done.join("; ")) }
}

impl Fault for Interrupted {
    fn exit_status(&self) -> ExitStatus {
        match self.signal {
            StopSignal::Interrupt => ExitStatus::Interrupted,
            StopSignal::Terminate => ExitStatus::Terminated,
        }
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

/// Runs `work` until it ends, or until SIGINT or SIGTERM arrives (which wins then, and `work`
/// is dropped: every step it had finished is kept, on the clusters).
pub async fn until_stopped<T>(work: impl Future<Output = T>) -> Result<T, StopSignal> {
    tokio::select! {
        // The work first: a command that handles the signal itself reports what it did.
        biased;
        value = work => Ok(value),
        signal = stop_signal() => Err(signal),
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
        assert_eq!(stopped, Err(StopSignal::Terminate));
        assert_eq!(until_stopped(std::future::pending::<()>()).await, Err(StopSignal::Terminate), "and it stays");
    }

    #[test]
    fn a_signal_gives_the_shell_status_of_death_by_that_signal() {
        let stopped = |signal| Interrupted { signal, done: Vec::new() }.exit_status() as u8;
        assert_eq!(stopped(StopSignal::Interrupt), 128 + 2);
        assert_eq!(stopped(StopSignal::Terminate), 128 + 15);
    }

    #[test]
    fn the_message_says_what_was_done_and_how_to_resume() {
        let interrupted = Interrupted { signal: StopSignal::Interrupt, done: vec!["c1: 2 of its steps".into()] };
        assert_eq!(
            interrupted.to_string(),
            "stopped by SIGINT after c1: 2 of its steps: run the same command again to finish (every step can be run again)"
        );
    }
}
