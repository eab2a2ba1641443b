//! Logs for people: on stderr, at the level `-q`/`-v` chose (or `FLEETCTL_LOG`), coloured
//! only where the printer colours stderr.

use thiserror::Error;
use tracing_subscriber::EnvFilter;

use super::exit::{ExitStatus, Fault};
use super::flags::TerminalFlags;
use super::printer::Printer;

/// The variable that overrides the log filter.
const VARIABLE: &str = "FLEETCTL_LOG";

/// `FLEETCTL_LOG` is not a log filter.
#[derive(Debug, Error)]
#[error("{VARIABLE}={value:?} is not a log filter (e.g. `info` or `debug,kube=warn`)")]
pub struct LogFilterError {
    value: String,
    #[source]
    source: tracing_subscriber::filter::ParseError,
}

impl Fault for LogFilterError {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Usage
    }
}

/// Starts logging to stderr.
pub fn init(flags: &TerminalFlags, printer: &Printer) -> Result<(), LogFilterError> {
    let filter = match std::env::var_os(VARIABLE) {
        Some(value) => {
            let value = value.to_string_lossy().into_owned();
            EnvFilter::try_new(&value).map_err(|source| LogFilterError { value, source })?
        }
        None => EnvFilter::new(default_level(flags)),
    };
    // A subscriber already set (a test harness) keeps logging where it does.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(printer.stderr_color())
        .try_init();
    Ok(())
}

/// Without `-v`, kube's client keeps quiet: the command reports its failures itself, once.
/// `-v` says more of fleetctl's own doing, not the HTTP and TLS libraries' (`-vv` does).
fn default_level(flags: &TerminalFlags) -> &'static str {
    match (flags.quiet, flags.verbose) {
        (true, _) => "error,kube_client=off",
        (false, 0) => "info,kube_client=off",
        (false, 1) => concat!(
            "info,fleetctl=debug,fleetctl_kube=debug,fleetctl_hub=debug,fleetctl_agent=debug,",
            "fleetctl_devcluster=debug,fleetctl_apiserver=debug,fleetctl_nodesim=debug"
        ),
        (false, 2) => "debug",
        (false, _) => "trace",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_leaves_errors_and_each_v_says_more() {
        let flags = |quiet, verbose| TerminalFlags { quiet, verbose, no_color: false };
        assert_eq!(default_level(&flags(true, 0)), "error,kube_client=off");
        assert_eq!(default_level(&flags(false, 0)), "info,kube_client=off");
        let one = default_level(&flags(false, 1));
        assert!(
            one.starts_with("info,fleetctl=debug") && !one.contains("hyper"),
            "-v: fleetctl's own debug lines: {one}"
        );
        assert_eq!(default_level(&flags(false, 2)), "debug");
        assert_eq!(default_level(&flags(false, 3)), "trace");
    }
}
