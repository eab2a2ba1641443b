//! Connecting to the clusters a command names, before it does anything: a kubeconfig or
//! context that cannot be used, or a cluster that does not answer, refuses the command
//! (exit 4, nothing changed) the same way in every command.

use std::fmt;

use kube::{Client, Config};
use thiserror::Error;

use super::exit::{ExitStatus, Fault};
use fleetctl_kube::{ConfigError, Selection};

/// Which of the command's clusters, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The hub.
    Hub,
    /// The cluster being imported or detached.
    Target,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Hub => "hub",
            Self::Target => "target cluster",
        })
    }
}

/// Why a cluster the command needs cannot be used.
#[derive(Debug, Error)]
pub enum ConnectError {
    /// Its kubeconfig or context cannot be used.
    #[error("choosing the {role}")]
    Config {
        /// Which cluster.
        role: Role,
        /// Why.
        #[source]
        source: ConfigError,
    },
    /// Its API server did not answer.
    #[error("the {role} at {url} does not answer")]
    NotAnswering {
        /// Which cluster.
        role: Role,
        /// Its API server.
        url: String,
        /// Why.
        #[source]
        source: kube::Error,
    },
}

impl Fault for ConnectError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::Config { source, .. } => source.exit_status(),
            Self::NotAnswering { .. } => ExitStatus::Refused,
        }
    }
}

/// A client for the cluster, once it has answered (its `/version`).
pub async fn connect(selection: &Selection, role: Role) -> Result<(Client, Config), ConnectError> {
    let (client, config) = client(selection, role).await?;
    if let Err(source) = client.apiserver_version().await {
        return Err(ConnectError::NotAnswering { role, url: config.cluster_url.to_string(), source });
    }
    Ok((client, config))
}

/// A client for the cluster, without asking whether it answers (for a cluster the command
/// can do without, such as the target of `detach`).
pub async fn client(selection: &Selection, role: Role) -> Result<(Client, Config), ConnectError> {
    fleetctl_kube::client(selection).await.map_err(|source| ConnectError::Config { role, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_missing_kubeconfig_is_refused_naming_the_cluster_and_the_flag() {
        let selection = Selection::new(Some("/nonexistent/kubeconfig".into()), None).with_flag("--cluster-kubeconfig");
        let Err(error) = connect(&selection, Role::Target).await else { panic!("connected without a kubeconfig") };
        assert_eq!(error.exit_status(), ExitStatus::Refused);
        let text = fleetctl_kube::errors::chain(&error);
        assert!(
            text.starts_with("choosing the target cluster: kubeconfig /nonexistent/kubeconfig: no such file"),
            "{text}"
        );
        assert!(text.contains("pass --cluster-kubeconfig"), "{text}");
    }
}
