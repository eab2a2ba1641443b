//! The in-cluster roles as tasks of this process: a container of the fleetctl image whose
//! args are a `fleetctld` command line runs as a task instead of a process — in the dev
//! environment's node simulator where `fleetctld` is not beside `fleetctl`, and in the fleet
//! simulator's kubelet. What runs is what the manifests say: the args are parsed with
//! `fleetctld`'s own command line.

use std::sync::Arc;

use clap::{CommandFactory, Parser};
use thiserror::Error;

use fleetctl_api::names::INCLUSTER_EXECUTABLE;
use fleetctl_nodesim::{InProcessCommand, InProcessRunner};

/// Why a container run in process ended.
#[derive(Debug, Error)]
enum InProcessError {
    /// The container names another executable.
    #[error("only the fleetctl entrypoint runs in process, not {0}")]
    Entrypoint(String),
    /// The container's args are not a `fleetctld` command line.
    #[error("parsing the container's args")]
    Args(#[source] clap::Error),
    /// The role failed.
    #[error(transparent)]
    Role(#[from] fleetctld::RoleError),
}

/// The in-process runner of the node simulator: the container's args are parsed as a
/// `fleetctld` command line, and the role runs as a task.
pub fn runner() -> InProcessRunner {
    Arc::new(|command: InProcessCommand| {
        Box::pin(async move {
            match run_in_process(command).await {
                Ok(()) => 0,
                Err(e) => {
                    tracing::warn!(
                        error = fleetctl_kube::errors::chain(&e),
                        "in-process container ended with an error"
                    );
                    1
                }
            }
        })
    })
}

async fn run_in_process(command: InProcessCommand) -> Result<(), InProcessError> {
    if let Some(executable) = &command.command {
        return Err(InProcessError::Entrypoint(executable.clone()));
    }
    parse(&command).map_err(InProcessError::Args)?.command.run().await?;
    Ok(())
}

/// The container's command line, read as `fleetctld`'s.
pub fn parse(command: &InProcessCommand) -> Result<fleetctld::Cli, clap::Error> {
    fleetctld::Cli::try_parse_from(args(command))
}

/// The command line for a container run in process. The process environment is
/// shared, so the container's variables become the flags that read them (`env =` in
/// the clap definitions), and `KUBECONFIG` becomes `--kubeconfig`.
fn args(command: &InProcessCommand) -> Vec<String> {
    let mut root = fleetctld::Cli::command();
    // Global flags (such as an addon's `--kubeconfig`) reach the subcommands only once built.
    root.build();
    let mut leaf = &root;
    for arg in command.args.iter().take_while(|a| !a.starts_with('-')) {
        match leaf.find_subcommand(arg) {
            Some(sub) => leaf = sub,
            None => break,
        }
    }
    let given =
        |long: &str| command.args.iter().any(|a| a == &format!("--{long}") || a.starts_with(&format!("--{long}=")));
    let mut args: Vec<String> =
        std::iter::once(INCLUSTER_EXECUTABLE.to_string()).chain(command.args.iter().cloned()).collect();
    for arg in leaf.get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        let from_env = arg.get_env().and_then(|var| command.env.iter().find(|(name, _)| var == name.as_str()));
        let value = match from_env {
            Some((_, value)) => Some(value.clone()),
            None if long == "kubeconfig" => Some(command.kubeconfig.display().to_string()),
            None => None,
        };
        if let Some(value) = value
            && !given(long)
        {
            args.push(format!("--{long}={value}"));
        }
    }
    args
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn in_process_containers_get_their_env_as_flags() {
        let command = InProcessCommand {
            command: None,
            args: vec!["hub".into()],
            env: vec![
                ("FLEETCTL_HEALTH_ADDR".into(), "127.0.0.1:0".into()),
                ("POD_NAMESPACE".into(), "ns".into()),
                ("OTHER".into(), "x".into()),
            ],
            kubeconfig: PathBuf::from("/k"),
        };
        let args = args(&command);
        assert_eq!(args[..2], ["fleetctld", "hub"]);
        for flag in ["--kubeconfig=/k", "--health-addr=127.0.0.1:0", "--namespace=ns"] {
            assert!(args.contains(&flag.to_string()), "{flag} in {args:?}");
        }
        assert!(fleetctld::Cli::try_parse_from(&args).is_ok());
    }

    #[test]
    fn flags_the_container_gives_win() {
        let command = InProcessCommand {
            command: None,
            args: vec!["agent".into(), "operator".into(), "--kubeconfig".into(), "/mine".into()],
            env: vec![("POD_NAMESPACE".into(), "ns".into())],
            kubeconfig: PathBuf::from("/k"),
        };
        let args = args(&command);
        assert!(!args.iter().any(|a| a.starts_with("--kubeconfig=")));
        assert!(fleetctld::Cli::try_parse_from(&args).is_ok(), "{args:?}");
    }
}
