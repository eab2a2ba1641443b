//! The hub controllers (`fleetctld hub`): import, auto-import, registration (accept and
//! CSR approval), lease, addons and cleanup, run under leader election with health and
//! metrics.
//!
//! Each controller module declares what it watches and runs itself on the controller
//! runtime ([`fleetctl_kube::controller`]); [`controllers`] only instantiates them, as
//! OCM's hub manager does, around what they share: the [`Context`] and one watch of the
//! ManagedClusters.

pub mod addons;
pub mod autoimport;
pub mod bootstrap;
pub mod cleanup;
pub mod context;
pub mod import;
pub mod lease;
pub mod manifests;
mod namespace;
pub mod registration;
pub mod serve;
mod watches;
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

/// Runs every hub controller until the returned future is dropped.
pub async fn controllers(client: Client, config: HubConfig, metrics: Registry) {
    let reporter = kube::runtime::events::Reporter { controller: "fleetctl-hub".into(), instance: None };
    let recorder = kube::runtime::events::Recorder::new(client.clone(), reporter);
    let ctx: Ctx =
        Arc::new(Context { client: client.clone(), config, metrics, recorder, written: Written::watched(RESYNC) });
    let mut clusters = ClusterWatch::new(Api::all(client));
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
        clusters.run(),
    );
}
