//! The command line: clap definitions, global options, and one module per subcommand.

mod completion;
mod demo;
mod describe;
mod detach;
pub mod dev;
mod get;
mod hub;
mod import;
pub mod printer;
mod progress;
mod upgrade;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use fleetctl_kube::{KubeconfigPair, Selection};

/// Exit codes, documented in `--help` and the README.
pub mod exit {
    /// Success.
    pub const OK: u8 = 0;
    /// The operation failed.
    pub const FAILED: u8 = 1;
    /// Usage error.
    pub const USAGE: u8 = 2;
    /// Timed out waiting.
    pub const TIMEOUT: u8 = 3;
    /// Refused by preflight (nothing changed).
    pub const REFUSED: u8 = 4;
}

const EXIT_CODES: &str = "Exit codes: 0 success; 1 the operation failed; 2 usage error; \
3 timed out waiting; 4 refused by preflight (nothing changed).";

/// Manage a fleet of Kubernetes clusters from one hub (Open Cluster Management compatible).
#[derive(Debug, Parser)]
#[command(name = "fleetctl", version, about, after_help = EXIT_CODES)]
pub struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

/// Output formats of `-o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// A table for people.
    Table,
    /// A table with more columns.
    Wide,
    /// JSON on stdout, nothing else.
    Json,
    /// YAML on stdout, nothing else.
    Yaml,
    /// Names only.
    Name,
}

/// Options every subcommand takes.
#[derive(Debug, Clone, clap::Args)]
struct GlobalArgs {
    /// Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config).
    #[arg(long, global = true, value_name = "FILE", env = "FLEETCTL_HUB_KUBECONFIG")]
    hub_kubeconfig: Option<PathBuf>,
    /// Context of the hub in its kubeconfig.
    #[arg(long, global = true, value_name = "NAME")]
    hub_context: Option<String>,
    /// Kubeconfig of the cluster being imported or detached (default: the hub's file).
    #[arg(long, global = true, value_name = "FILE")]
    cluster_kubeconfig: Option<PathBuf>,
    /// Context of that cluster.
    #[arg(long, global = true, value_name = "NAME")]
    cluster_context: Option<String>,
    /// Output format.
    #[arg(short, long, global = true, value_enum, default_value = "table")]
    output: Output,
    /// How long to wait for the cluster(s) (e.g. 90s, 5m).
    #[arg(long, global = true, default_value = "5m", value_parser = fleetctl_kube::duration::parse)]
    timeout: Duration,
    /// Print only errors.
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Log more (repeat for more detail); logs go to stderr.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// No colours (also NO_COLOR).
    #[arg(long, global = true)]
    no_color: bool,
}

/// The global options, resolved, as subcommands use them.
#[derive(Debug, Clone)]
pub struct Global {
    args: GlobalArgs,
}

impl Global {
    /// The hub and target cluster selections.
    pub fn clusters(&self) -> KubeconfigPair {
        KubeconfigPair::new(
            self.args.hub_kubeconfig.clone(),
            self.args.hub_context.clone(),
            self.args.cluster_kubeconfig.clone(),
            self.args.cluster_context.clone(),
        )
    }

    /// The hub selection.
    pub fn hub_selection(&self) -> Selection {
        self.clusters().hub
    }

    /// How long to wait.
    pub fn timeout(&self) -> Duration {
        self.args.timeout
    }

    /// Whether progress must stay off stderr (quiet, or machine output).
    pub fn quiet_progress(&self) -> bool {
        self.args.quiet || matches!(self.args.output, Output::Json | Output::Yaml)
    }

    /// Whether the target cluster was named explicitly.
    pub fn names_target(&self) -> bool {
        self.args.cluster_kubeconfig.is_some() || self.args.cluster_context.is_some()
    }

    /// Prints the result of a lifecycle operation in the chosen format (stdout; a reader
    /// that went away is fine).
    pub fn print_outcome(&self, outcome: &crate::lifecycle::Outcome) -> anyhow::Result<()> {
        let text = match self.args.output {
            Output::Json => format!("{}\n", serde_json::to_string_pretty(outcome)?),
            Output::Yaml => serde_yaml::to_string(outcome)?,
            Output::Name => format!("managedcluster.cluster.open-cluster-management.io/{}\n", outcome.cluster),
            Output::Table | Output::Wide => {
                if outcome.steps.is_empty() {
                    format!("{}: {}\n", outcome.cluster, outcome.result)
                } else {
                    let total: f64 = outcome.steps.iter().map(|s| s.seconds).sum();
                    format!("{}: {} ({total:.2}s)\n", outcome.cluster, outcome.result)
                }
            }
        };
        printer::write_stdout(&text)?;
        Ok(())
    }

    /// Says something to a person (stderr, unless quiet or machine output).
    pub fn say(&self, line: &str) {
        if !self.args.quiet && !matches!(self.args.output, Output::Json | Output::Yaml) {
            eprintln!("{line}");
        }
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The embedded dev cluster.
    Dev(dev::DevArgs),
    /// Run the three acts on an embedded dev environment, telling the story as it goes.
    Demo(demo::DemoArgs),
    /// Install or remove the hub.
    Hub(hub::HubArgs),
    /// Import a cluster into the hub (Act I).
    Import(import::ImportArgs),
    /// Upgrade the klusterlet of clusters (Act II).
    Upgrade(upgrade::UpgradeArgs),
    /// Detach a cluster from the hub (Act III).
    Detach(detach::DetachArgs),
    /// Show managed clusters or addons (a table, or -o wide|json|yaml|name).
    Get(get::GetArgs),
    /// Show everything the hub knows about one cluster.
    Describe(describe::DescribeArgs),
    /// Print a shell completion script.
    Completion(completion::CompletionArgs),
}

impl Cli {
    /// Runs the command and turns the outcome into an exit code.
    pub fn run(self) -> ExitCode {
        init_logging(self.global.verbose);
        let global = Global { args: self.global };
        block_on(async {
            match self.command {
                Command::Dev(args) => dev::run(args).await,
                Command::Demo(args) => demo::run(args).await,
                Command::Hub(args) => hub::run(args, &global).await,
                Command::Import(args) => import::run(args, &global).await,
                Command::Upgrade(args) => upgrade::run(args, &global).await,
                Command::Detach(args) => detach::run(args, &global).await,
                Command::Get(args) => get::run(args, &global).await,
                Command::Describe(args) => describe::run(args, &global).await,
                Command::Completion(args) => completion::run(args),
            }
        })
    }
}

/// Runs `work` to completion on a new runtime and turns its outcome into an exit code.
fn block_on(work: impl Future<Output = anyhow::Result<()>>) -> ExitCode {
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: starting the async runtime: {e}");
            return ExitCode::from(exit::FAILED);
        }
    };
    match runtime.block_on(work) {
        Ok(()) => ExitCode::from(exit::OK),
        Err(e) => {
            eprintln!("error: {e:#}");
            let code = e.downcast_ref::<crate::lifecycle::LifecycleError>().map_or(exit::FAILED, |l| l.exit_code());
            ExitCode::from(code)
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
    // Colours only for a person: logs of agents and clusters go to files.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr()) && std::env::var_os("NO_COLOR").is_none();
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi).try_init();
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
