//! The hub controllers (`fleetctld hub`): import, auto-import, registration (accept and
//! CSR approval), lease, addons and cleanup, cluster sets and placement, ManifestWork TTLs
//! and ManifestWorkReplicaSets, run under leader election with health and metrics.
//!
//! Each controller module declares what it watches and runs itself on the controller
//! runtime ([`fleetctl_kube::controller`]); [`controllers`] only instantiates them, as
//! OCM's hub manager does, around what they share: the [`Context`] and one watch of the
//! ManagedClusters.

pub mod addons;
pub mod autoimport;
pub mod bootstrap;
pub mod cleanup;
pub mod clustersets;
pub mod context;
pub mod import;
pub mod lease;
pub mod manifests;
mod namespace;
pub mod placement;
pub mod registration;
pub mod serve;
mod watches;
mod webhook;
mod work_replica_set;
mod work_ttl;
pub mod works;

use std::sync::Arc;
use std::time::Duration;

use kube::Client;
use kube::api::Api;

pub use context::{Context, Ctx, HubAddress, HubConfig, HubError, SecretRef};

use fleetctl_kube::Written;
use fleetctl_kube::runner::metrics::Registry;
use registration::PendingCsrs;
use watches::ClusterWatch;

/// How long what a controller wrote counts as written without being seen again: an
/// object it does not watch is written again at the first pass after this.
const RESYNC: Duration = Duration::from_secs(600);

/// Which of the hub controllers a process runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Controllers {
    /// Every hub controller.
    #[default]
    All,
    /// The placement controller only, as upstream's placement manager runs on its own.
    Placement,
}

/// A `--controllers` value that names no set of controllers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a set of hub controllers: all or placement")]
pub struct UnknownControllers(String);

impl std::str::FromStr for Controllers {
    type Err = UnknownControllers;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value {
            "all" => Ok(Self::All),
            "placement" => Ok(Self::Placement),
            other => Err(UnknownControllers(other.to_owned())),
        }
    }
}

/// Runs the hub controllers `which` names until the returned future is dropped.
pub async fn controllers(client: Client, config: HubConfig, metrics: Registry, which: Controllers) {
    let reporter = kube::runtime::events::Reporter { controller: "fleetctl-hub".into(), instance: None };
    let recorder = kube::runtime::events::Recorder::new(client.clone(), reporter);
    let ctx: Ctx =
        Arc::new(Context { client: client.clone(), config, metrics, recorder, written: Written::watched(RESYNC) });
    let mut clusters = ClusterWatch::new(Api::all(client));
    if which == Controllers::Placement {
        tokio::join!(placement::controller(ctx.clone(), clusters.follow_with_deletions()), clusters.run());
        return;
    }
    // The CSRs the approver leaves pending, which the accept controller forgets with their
    // detached cluster.
    let pending_csrs = Arc::new(PendingCsrs::default());
    tokio::join!(
        import::controller(ctx.clone(), clusters.follow()),
        autoimport::controller(ctx.clone(), clusters.follow()),
        registration::controller(ctx.clone(), clusters.follow(), pending_csrs.clone()),
        registration::approval::controller(ctx.clone(), clusters.follow(), pending_csrs),
        lease::controller(ctx.clone(), clusters.follow()),
        addons::controller(ctx.clone(), clusters.follow()),
        addons::install::controller(ctx.clone(), clusters.follow()),
        clustersets::controller(ctx.clone(), clusters.follow(), clusters.follow_with_deletions()),
        placement::controller(ctx.clone(), clusters.follow_with_deletions()),
        work_ttl::controller(ctx.client.clone()),
        work_replica_set::controller(ctx.clone()),
        clusters.run(),
    );
}
