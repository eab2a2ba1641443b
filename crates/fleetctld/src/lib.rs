//! `fleetctld`, the in-cluster executable: every role that runs inside a cluster, from one
//! image — the hub controller (`fleetctld hub`), the klusterlet (`fleetctld agent
//! operator|registration|work`) and the addon agents (`fleetctld addon <name>`).
//!
//! It links none of the CLI's or the dev cluster's code, so each agent maps little. The
//! dev environment runs this executable for the Deployments it simulates, or, when it is
//! not beside `fleetctl`, the same roles in process through [`Command::run`].

mod addon;
mod agent;
mod hub;

pub use agent::{AgentArgs, AgentRole};

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgAction, Parser, Subcommand};

/// Exit status of a role that stopped with an error (clap's usage errors are 2).
const EXIT_FAILED: u8 = 1;

/// Run a fleetctl role inside a cluster (what the hub install, the import manifests and
/// the addon works deploy).
#[derive(Debug, Parser)]
#[command(name = fleetctl_api::names::INCLUSTER_EXECUTABLE, version)]
pub struct Cli {
    /// The role to run.
    #[command(subcommand)]
    pub command: Command,
    /// More log output (-v debug, -vv trace); FLEETCTL_LOG overrides it.
    #[arg(short, long, global = true, action = ArgAction::Count)]
    verbose: u8,
}

/// The roles.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The hub controllers (import, registration, lease, cleanup, addons) under leader election.
    Hub(hub::HubArgs),
    /// A klusterlet agent on a managed cluster.
    Agent(agent::AgentArgs),
    /// An addon agent on a managed cluster.
    Addon(addon::AddonArgs),
}

/// Why a role stopped.
#[derive(Debug, thiserror::Error)]
pub enum RoleError {
    /// The hub controllers failed.
    #[error(transparent)]
    Hub(#[from] fleetctl_hub::serve::ServeError),
    /// The klusterlet operator failed.
    #[error(transparent)]
    Operator(#[from] fleetctl_agent::operator::OperatorError),
    /// The registration agent failed.
    #[error(transparent)]
    Registration(#[from] fleetctl_agent::registration::RegistrationError),
    /// The work agent failed.
    #[error(transparent)]
    Work(#[from] fleetctl_agent::work::WorkError),
    /// An addon agent failed.
    #[error(transparent)]
    Addon(#[from] fleetctl_agent::addon::AddonError),
    /// A file a flag names could not be read.
    #[error("reading {flag} {}", path.display())]
    ReadFile {
        /// The flag.
        flag: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl Cli {
    /// Runs the role on a runtime of its own and turns the outcome into an exit code.
    pub fn run(self) -> ExitCode {
        // Pod logs are files: no colour codes.
        fleetctl_kube::runner::init_logging(self.verbose, false);
        // A klusterlet or addon agent waits on the network almost all the time and must stay
        // small (each runs on every managed cluster): one thread is enough, and it saves the
        // workers' stacks and malloc arenas. The hub controllers serve the whole fleet.
        let runtime = match self.command {
            Command::Addon(_) | Command::Agent(_) => tokio::runtime::Builder::new_current_thread().enable_all().build(),
            Command::Hub(_) => tokio::runtime::Builder::new_multi_thread().enable_all().build(),
        };
        let result = match runtime {
            Ok(runtime) => runtime.block_on(self.command.run()).map_err(|e| fleetctl_kube::errors::chain(&e)),
            Err(e) => Err(format!("starting the async runtime: {e}")),
        };
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                tracing::error!("{message}");
                ExitCode::from(EXIT_FAILED)
            }
        }
    }
}

impl Command {
    /// Runs the role until SIGINT/SIGTERM (or until the future is dropped).
    pub async fn run(self) -> Result<(), RoleError> {
        match self {
            Self::Hub(args) => hub::run(args).await,
            Self::Agent(args) => agent::run(args).await,
            Self::Addon(args) => addon::run(args).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_role_parses_its_manifest_args() {
        for args in [
            &["fleetctld", "hub"][..],
            &["fleetctld", "agent", "operator"],
            &["fleetctld", "agent", "registration", "--cluster-name", "c1", "--agent-id", "x"],
            &["fleetctld", "agent", "work", "--cluster-name", "c1", "--agent-id", "x"],
            &["fleetctld", "addon", "search-collector"],
            &["fleetctld", "addon", "cert-policy-controller", "--window", "7d", "-v"],
            &["fleetctld", "addon", "iam-policy-controller", "--max", "3"],
        ] {
            let parsed = Cli::try_parse_from(args);
            assert!(parsed.is_ok(), "{args:?}: {:?}", parsed.err());
        }
        for bad in [
            &["fleetctld", "addon", "no-such-addon"][..],
            &["fleetctld", "addon", "search-collector", "--lease-seconds", "0"],
        ] {
            assert!(Cli::try_parse_from(bad).is_err(), "{bad:?}");
        }
    }
}
