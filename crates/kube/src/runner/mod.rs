//! What every long-running fleetctl process shares — the hub controllers and the
//! klusterlet agents: health and metrics endpoints, leader election, shutdown.

pub mod health;
pub mod leader;
pub mod metrics;

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The signal that asked the process to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopSignal {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM.
    Terminate,
}

impl StopSignal {
    /// The signal's name, as `kill -l` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Interrupt => "SIGINT",
            Self::Terminate => "SIGTERM",
        }
    }
}

/// Resolves when the process receives SIGINT or SIGTERM, saying which.
pub async fn shutdown_signal() -> StopSignal {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            // Without a SIGTERM handler only SIGINT stops us.
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => StopSignal::Interrupt,
        () = terminate => StopSignal::Terminate,
    }
}

/// Logs to stderr at `info` (`-v`: `debug`, `-vv`: `trace`), or as `FLEETCTL_LOG` says
/// (`LEVEL` and `TARGET=LEVEL` directives, comma-separated: `info,kube=warn`); colour codes
/// only when `colour` (a person's terminal, not a log file). A subscriber already set (a
/// role run inside another program) is kept.
pub fn init_logging(verbose: u8, colour: bool) {
    let default = match verbose {
        0 => LevelFilter::INFO,
        1 => LevelFilter::DEBUG,
        _ => LevelFilter::TRACE,
    };
    // Targets rather than EnvFilter: the directives a pod's environment sets need no
    // span or field matching, and EnvFilter's regular expressions would be mapped into
    // every agent.
    let (filter, refused) = match std::env::var("FLEETCTL_LOG") {
        Ok(value) => match value.parse::<Targets>() {
            Ok(filter) => (filter, None),
            Err(error) => (Targets::new().with_default(default), Some((value, error))),
        },
        Err(_) => (Targets::new().with_default(default), None),
    };
    let output = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(colour);
    if tracing_subscriber::registry().with(output).with(filter).try_init().is_err() {
        tracing::debug!("logging was set up already");
    }
    if let Some((value, error)) = refused {
        tracing::warn!("FLEETCTL_LOG={value:?} is not a log filter ({error}): logging at {default}");
    }
}
