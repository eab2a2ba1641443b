//! Exit statuses: every error a command can end with says which status it means, so the
//! same fault gives the same code in every command (as uv's `ExitStatus`).
//!
//! The mapping for the errors of the layers below the CLI is here, in one table; the CLI's
//! own errors map next to their definitions.

use std::process::ExitCode;

use fleetctl_devcluster::env::EnvError;
use fleetctl_devcluster::serve::ServeError;
use fleetctl_kube::{ApplyError, ConfigError};

use crate::fleet::file::FileError;
use crate::lifecycle::LifecycleError;

/// The documented exit codes (`--help`, README).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: success.
    Success = 0,
    /// 1: the operation failed.
    Failure = 1,
    /// 2: usage error.
    Usage = 2,
    /// 3: timed out waiting.
    Timeout = 3,
    /// 4: refused by preflight; nothing changed.
    Refused = 4,
    /// 130: stopped by SIGINT (128 + 2, as a shell reports it); what finished is kept.
    Interrupted = 130,
    /// 143: stopped by SIGTERM (128 + 15).
    Terminated = 143,
}

impl ExitStatus {
    /// How grave the status is, for a command over several clusters, which exits with the
    /// gravest of theirs: a signal, then a usage error, a failure, a timeout (partly done),
    /// a refusal (nothing changed), success.
    pub fn severity(self) -> u8 {
        match self {
            Self::Success => 0,
            Self::Refused => 1,
            Self::Timeout => 2,
            Self::Failure => 3,
            Self::Usage => 4,
            Self::Interrupted | Self::Terminated => 5,
        }
    }
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> Self {
        Self::from(status as u8)
    }
}

/// The exit codes, as `--help` ends with them (a macro, so `--help` texts can add to it).
#[macro_export]
macro_rules! exit_codes {
    () => {
        "Exit codes: 0 success; 1 the operation failed; 2 usage error; 3 timed out (--timeout); 4 refused \
before any change (a cluster or context that cannot be used, missing rights); 130/143 stopped by SIGINT/SIGTERM \
(run the command again to finish). Over several clusters, the gravest of theirs: 130/143, 2, 1, 3, 4."
    };
}

/// The text `--help` ends with.
pub const EXIT_CODES: &str = exit_codes!();

/// An error that knows the exit status it ends a command with.
pub trait Fault: std::error::Error + Send + Sync + 'static {
    /// The status the command exits with.
    fn exit_status(&self) -> ExitStatus;
}

/// What a command ends with when it fails: the error, with its causes, and its status.
#[derive(Debug)]
pub struct CommandError {
    status: ExitStatus,
    error: Box<dyn std::error::Error + Send + Sync>,
}

impl CommandError {
    /// The status the command exits with.
    pub fn status(&self) -> ExitStatus {
        self.status
    }

    /// The same error, said of one cluster of several (`cluster c2: …`), with its status.
    #[must_use]
    pub fn of_cluster(self, cluster: &str) -> Self {
        let error = OfCluster { cluster: cluster.to_string(), source: self.error };
        Self { status: self.status, error: Box::new(error) }
    }

    /// The error and its causes on one line (`what failed: why: root cause`). An API
    /// server's refusal reads as its code, reason and message — not as the client's debug
    /// text of the whole Status.
    pub fn chain(&self) -> String {
        let mut parts = Vec::new();
        let mut next: Option<&(dyn std::error::Error + 'static)> = Some(self.error.as_ref());
        while let Some(error) = next {
            if let Some(kube::Error::Api(status)) = error.downcast_ref::<kube::Error>() {
                parts.push(format!("{} {}: {}", status.code, status.reason, status.message));
                break;
            }
            parts.push(error.to_string());
            next = error.source();
        }
        parts.join(": ")
    }
}

impl<E: Fault> From<E> for CommandError {
    fn from(error: E) -> Self {
        Self { status: error.exit_status(), error: Box::new(error) }
    }
}

/// An error of one cluster among several.
#[derive(Debug, thiserror::Error)]
#[error("cluster {cluster}")]
struct OfCluster {
    cluster: String,
    #[source]
    source: Box<dyn std::error::Error + Send + Sync>,
}

/// A kubeconfig or context that cannot be used: nothing was tried, so nothing changed.
impl Fault for ConfigError {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Refused
    }
}

impl Fault for LifecycleError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::Refused(_)
            | Self::Forbidden(_)
            | Self::NotInitialised
            | Self::NoImportController
            | Self::NotAnswering { .. } => ExitStatus::Refused,
            Self::Usage(_) => ExitStatus::Usage,
            Self::Timeout { .. } | Self::LeftOnTarget { .. } => ExitStatus::Timeout,
            Self::Kube(_) | Self::Apply(_) | Self::Watch { .. } | Self::Failed(_) | Self::RollbackFailed { .. } => {
                ExitStatus::Failure
            }
            // Rolled back, the cluster is as it was; the upgrade's own fault decides.
            Self::RolledBack { source, .. } => source.exit_status(),
        }
    }
}

/// A fleet file that cannot be read or is not a valid fleet: nothing was changed.
impl Fault for FileError {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Usage
    }
}

/// `hub install|uninstall`.
impl Fault for ApplyError {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Failure
    }
}

/// `dev up|down|restart|status|logs`.
impl Fault for EnvError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::NoDir | Self::AlreadyRunning { .. } | Self::NotRunning { .. } | Self::NoLog { .. } => {
                ExitStatus::Refused
            }
            Self::NotDurable(_) => ExitStatus::Refused,
            Self::Clusters(_) | Self::Ambiguous { .. } | Self::NoCluster { .. } => ExitStatus::Usage,
            Self::StartupTimeout { .. } | Self::HubController { .. } => ExitStatus::Timeout,
            _ => ExitStatus::Failure,
        }
    }
}

/// `dev serve`.
impl Fault for ServeError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::RotateWithoutStore => ExitStatus::Usage,
            Self::RotateCa(fleetctl_apiserver::SecurityError::Rotating(_)) => ExitStatus::Refused,
            _ => ExitStatus::Failure,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn statuses_are_the_documented_codes() {
        let codes = [
            ExitStatus::Success,
            ExitStatus::Failure,
            ExitStatus::Usage,
            ExitStatus::Timeout,
            ExitStatus::Refused,
            ExitStatus::Interrupted,
            ExitStatus::Terminated,
        ]
        .map(|s| s as u8);
        assert_eq!(codes, [0, 1, 2, 3, 4, 130, 143]);
    }

    #[test]
    fn over_several_clusters_a_signal_outranks_a_failure_which_outranks_a_timeout_and_a_refusal() {
        let mut statuses = [
            ExitStatus::Refused,
            ExitStatus::Interrupted,
            ExitStatus::Success,
            ExitStatus::Timeout,
            ExitStatus::Usage,
            ExitStatus::Failure,
        ];
        statuses.sort_by_key(|s| s.severity());
        let codes = statuses.map(|s| s as u8);
        assert_eq!(codes, [0, 4, 3, 1, 2, 130]);
    }

    #[test]
    fn an_error_of_one_cluster_names_it_and_keeps_its_status() {
        let timeout = LifecycleError::Timeout { what: "c2 to join".into(), after: Duration::from_secs(1) };
        let error = CommandError::from(timeout).of_cluster("c2");
        assert_eq!(error.status(), ExitStatus::Timeout);
        assert_eq!(error.chain(), "cluster c2: timed out after 1s waiting for c2 to join");
    }

    #[test]
    fn an_unusable_kubeconfig_is_refused() {
        let missing = ConfigError::MissingFile { path: "/nope".into(), flag: "--hub-kubeconfig" };
        assert_eq!(CommandError::from(missing).status(), ExitStatus::Refused);
    }

    #[test]
    fn lifecycle_errors_keep_their_kind() {
        let timeout = LifecycleError::Timeout { what: "x".into(), after: Duration::from_secs(1) };
        assert_eq!(CommandError::from(timeout).status(), ExitStatus::Timeout);
        assert_eq!(CommandError::from(LifecycleError::Usage("x".into())).status(), ExitStatus::Usage);
        assert_eq!(CommandError::from(LifecycleError::Refused("x".into())).status(), ExitStatus::Refused);
        assert_eq!(CommandError::from(LifecycleError::NotInitialised).status(), ExitStatus::Refused);
        assert_eq!(CommandError::from(LifecycleError::Failed("x".into())).status(), ExitStatus::Failure);
    }

    #[test]
    fn the_chain_names_every_cause_once() {
        let read = ConfigError::Read { path: "/k".into(), source: std::io::Error::other("denied") };
        assert_eq!(CommandError::from(read).chain(), "kubeconfig /k: cannot read it: denied");
    }
}
