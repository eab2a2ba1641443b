//! The command line: clap definitions and one module per subcommand.

mod demo;
mod dev;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit codes, documented in `--help` and the README.
pub mod exit {
    /// Success.
    pub const OK: u8 = 0;
    /// The operation failed.
    pub const FAILED: u8 = 1;
    /// Usage error.
    pub const USAGE: u8 = 2;
}

const EXIT_CODES: &str = "Exit codes: 0 success; 1 the operation failed; 2 usage error; \
3 timed out waiting; 4 refused by preflight (nothing changed).";

/// Manage a fleet of Kubernetes clusters from one hub (Open Cluster Management compatible).
#[derive(Debug, Parser)]
#[command(name = "fleetctl", version, about, after_help = EXIT_CODES)]
pub struct Cli {
    /// Log more (repeat for more detail); logs go to stderr.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The embedded dev cluster.
    Dev(dev::DevArgs),
    /// Run the demo on an embedded dev cluster, telling the story as it goes.
    Demo,
}

impl Cli {
    /// Runs the command and turns the outcome into an exit code.
    pub fn run(self) -> ExitCode {
        init_logging(self.verbose);
        let runtime = match tokio::runtime::Runtime::new() {
            Ok(rt) => rt,
            Err(e) => {
                eprintln!("error: starting the async runtime: {e}");
                return ExitCode::from(exit::FAILED);
            }
        };
        let outcome = runtime.block_on(async {
            match self.command {
                Command::Dev(args) => dev::run(args).await,
                Command::Demo => demo::run().await,
            }
        });
        match outcome {
            Ok(()) => ExitCode::from(exit::OK),
            Err(e) => {
                eprintln!("error: {e:#}");
                ExitCode::from(exit::FAILED)
            }
        }
    }
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "info",
        1 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("FLEETCTL_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
