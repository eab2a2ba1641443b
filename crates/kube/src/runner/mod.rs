//! What every long-running fleetctl process shares — the hub controllers and the
//! klusterlet agents: health and metrics endpoints, leader election, shutdown.

pub mod health;
pub mod leader;
pub mod metrics;

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

/// Logs to stderr at `info` (`-v`: `debug`, `-vv`: `trace`), or as `FLEETCTL_LOG` says;
/// colour codes only when `colour` (a person's terminal, not a log file). A subscriber
/// already set (a role run inside another program) is kept.
pub fn init_logging(verbose: u8, colour: bool) {
    let default = match verbose {
        0 => "info",
        1 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("FLEETCTL_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let subscriber = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(colour);
    if subscriber.try_init().is_err() {
        tracing::debug!("logging was set up already");
    }
}
