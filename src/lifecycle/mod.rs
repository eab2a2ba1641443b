//! The three acts as operations — import, upgrade, detach — with typed errors and
//! progress events. The CLI and the demo drive them; they never print.

pub mod backup;
pub mod detach;
mod hosted;
pub mod import;
mod join;
pub mod moving;
pub mod rollout;
pub mod upgrade;
mod wait;

use std::time::Duration;

use fleetctl_kube::KubeError;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use serde::Serialize;

pub use wait::wait_for;

/// A step of an operation, as it happens.
#[derive(Debug, Clone)]
pub enum Progress {
    /// A step began.
    Started {
        /// The cluster.
        cluster: String,
        /// The step, in a few words.
        step: String,
    },
    /// A step ended well.
    Finished {
        /// The cluster.
        cluster: String,
        /// The step.
        step: String,
        /// How long it took.
        elapsed: Duration,
    },
    /// How an operation over the fleet proceeds (a rollout's waves).
    Fleet {
        /// What.
        message: String,
    },
    /// Something a person should know.
    Note {
        /// The cluster.
        cluster: String,
        /// What.
        message: String,
    },
}

/// Where progress goes.
pub type Observer<'a> = &'a (dyn Fn(Progress) + Send + Sync);

/// One finished step, for the result.
#[derive(Debug, Clone, Serialize)]
pub struct StepRecord {
    /// The step.
    pub step: String,
    /// Seconds it took.
    pub seconds: f64,
}

/// The result of an operation on one cluster.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// The cluster.
    pub cluster: String,
    /// What happened, in words.
    pub result: String,
    /// The steps run.
    pub steps: Vec<StepRecord>,
    /// The cluster's conditions at the end (empty once it is gone).
    pub conditions: Vec<Condition>,
    /// With `--dry-run`: the writes the operation would make, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub writes: Vec<String>,
}

impl Outcome {
    /// The result of a cluster left as it was.
    pub fn unchanged(cluster: &str, result: String) -> Self {
        Self { cluster: cluster.to_string(), result, steps: Vec::new(), conditions: Vec::new(), writes: Vec::new() }
    }

    /// The result of a dry run: what would have been written.
    pub fn dry_run(cluster: &str, result: String, writes: Vec<String>) -> Self {
        Self { writes, ..Self::unchanged(cluster, result) }
    }
}

/// A dry run: the writes an operation would make are said, not made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DryRun {
    /// Each write goes to the API server as a dry run (`dryRun=All`): validated, admitted
    /// and defaulted, not stored.
    Server,
    /// Nothing is sent: the writes are only said.
    Client,
}

impl DryRun {
    /// The patch parameters of a write under this dry run.
    pub fn patch_params(self, params: kube::api::PatchParams) -> kube::api::PatchParams {
        match self {
            Self::Server => params.dry_run(),
            Self::Client => params,
        }
    }

    /// Whether writes are sent to the server (as dry runs).
    pub fn sends(self) -> bool {
        self == Self::Server
    }
}

/// Why an operation did not complete; the CLI turns each kind into its exit code.
#[derive(Debug, thiserror::Error)]
pub enum LifecycleError {
    /// Preflight refused; nothing was changed.
    #[error("{0}")]
    Refused(String),
    /// The hub does not serve the OCM kinds; nothing was changed.
    #[error("the hub is not initialised — run `fleetctl hub install`")]
    NotInitialised,
    /// The hub serves ManagedClusters but nothing there imports clusters, and clusters
    /// cannot join it either (no OCM bootstrap identity); nothing was changed.
    #[error(
        "the hub serves ManagedClusters but no KlusterletAddonConfigs: it runs no import controller, and it has no \
         bootstrap identity (open-cluster-management/agent-registration-bootstrap, which `clusteradm init` makes) \
         for a cluster to join with — finish OCM's install (`clusteradm init`; then clusteradm join or fleetctl \
         import), or run `fleetctl hub install` to make it a fleetctl hub"
    )]
    NoImportController,
    /// A cluster did not answer during preflight; nothing was changed.
    #[error("the {cluster} does not answer")]
    NotAnswering {
        /// Which cluster: `hub` or `target cluster`.
        cluster: &'static str,
        /// The cause.
        #[source]
        source: kube::Error,
    },
    /// The cluster refused the command's credentials (401) or rights (403) before anything
    /// changed.
    #[error("{0}")]
    Forbidden(String),
    /// Bad input (a usage error).
    #[error("{0}")]
    Usage(String),
    /// Waiting ran out of time.
    #[error("timed out after {after:?} waiting for {what}")]
    Timeout {
        /// What was awaited.
        what: String,
        /// How long we waited.
        after: Duration,
    },
    /// The hub let go of the cluster, but its target did not clean itself in time.
    #[error(
        "the hub let go of cluster {cluster}, but after {after:?} the target still holds {}: rerun the same command \
         (with --force to remove them directly)",
        left.join(", ")
    )]
    LeftOnTarget {
        /// The cluster.
        cluster: String,
        /// What is left there, in words.
        left: Vec<String>,
        /// How long detach waited.
        after: Duration,
    },
    /// Watching for a state failed.
    #[error("watching {what}")]
    Watch {
        /// What was awaited.
        what: String,
        /// The cause.
        #[source]
        source: kube::runtime::wait::Error,
    },
    /// A call to a cluster failed.
    #[error(transparent)]
    Kube(#[from] KubeError),
    /// Applying manifests to the target failed.
    #[error("applying the import manifests to the target")]
    Apply(#[from] fleetctl_kube::ApplyError),
    /// Something else failed.
    #[error("{0}")]
    Failed(String),
    /// An upgrade failed, and the cluster was rolled back to the version it ran before.
    #[error("upgrade failed and was rolled back to {to}")]
    RolledBack {
        /// The version it runs again.
        to: String,
        /// Why the upgrade failed.
        #[source]
        source: Box<LifecycleError>,
    },
    /// An upgrade failed, and so did the rollback.
    #[error("upgrade failed, and its rollback failed too ({})", fleetctl_kube::errors::chain(.rollback.as_ref()))]
    RollbackFailed {
        /// Why the upgrade failed.
        #[source]
        source: Box<LifecycleError>,
        /// Why the rollback failed.
        rollback: Box<LifecycleError>,
    },
}

impl LifecycleError {
    /// Whether the operation stopped before its first write: a refusal, or bad input.
    pub fn changed_nothing(&self) -> bool {
        matches!(
            self,
            Self::Refused(_)
                | Self::Forbidden(_)
                | Self::NotInitialised
                | Self::NoImportController
                | Self::NotAnswering { .. }
                | Self::Usage(_)
        )
    }
}

/// The words of a refusal by authentication or authorization: which cluster, what was
/// asked (`verb` on `resource`) and the server's own message; `None` for other errors.
pub fn refusal(cluster: &str, verb: &str, resource: &str, error: &kube::Error) -> Option<String> {
    let kube::Error::Api(status) = error else { return None };
    match status.code {
        401 => Some(format!(
            "the {cluster} does not accept your credentials (401 Unauthorized: {}): refresh them, or choose another \
             context or kubeconfig",
            status.message
        )),
        403 => Some(format!(
            "the {cluster} does not let you {verb} {resource} (403 Forbidden: {}): ask its admin for a role that \
             allows it",
            status.message
        )),
        _ => None,
    }
}

/// How a read of the hub during preflight failed: refused (401/403, naming what was
/// asked), or no answer.
pub(crate) fn hub_read(verb: &'static str, resource: &'static str) -> impl Fn(kube::Error) -> LifecycleError {
    move |source| match refusal("hub", verb, resource, &source) {
        Some(message) => LifecycleError::Forbidden(message),
        None => LifecycleError::NotAnswering { cluster: "hub", source },
    }
}

/// Refuses to act on cluster `name` when it is being detached: only finishing the detach helps.
pub(crate) fn refuse_if_leaving(name: &str, cluster: &fleetctl_api::ManagedCluster) -> Result<(), LifecycleError> {
    if cluster.metadata.deletion_timestamp.is_none() {
        return Ok(());
    }
    Err(LifecycleError::Refused(format!(
        "cluster {name:?} is being detached: wait for `fleetctl detach {name}` to finish first"
    )))
}

/// Runs one step: tells the observer, records the duration.
pub(crate) async fn step<T>(
    observer: Observer<'_>,
    steps: &mut Vec<StepRecord>,
    cluster: &str,
    name: &str,
    work: impl std::future::Future<Output = Result<T, LifecycleError>>,
) -> Result<T, LifecycleError> {
    observer(Progress::Started { cluster: cluster.to_string(), step: name.to_string() });
    let started = std::time::Instant::now();
    let value = work.await?;
    let elapsed = started.elapsed();
    observer(Progress::Finished { cluster: cluster.to_string(), step: name.to_string(), elapsed });
    steps.push(StepRecord { step: name.to_string(), seconds: elapsed.as_secs_f64() });
    Ok(value)
}
