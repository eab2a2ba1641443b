//! The lease controller: a joined cluster whose agent stopped renewing its lease for
//! longer than grace × leaseDurationSeconds turns Available=Unknown. It follows the
//! clusters and their leases, kept in a store: a renewal brings its cluster back, which
//! reads the lease there.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;
use kube::runtime::controller::{Action, Controller};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::{Resource, ResourceExt};

use fleetctl_kube::{controller, update_conditions};

use super::context::{Ctx, HubError, set};
use super::watches::{Followed, bounded, cluster_of, stored_by_name};
use fleetctl_api::ManagedCluster;
use fleetctl_api::conditions as c;
use fleetctl_api::names::CLUSTER_LEASE;

/// The name the controller's metrics and logs go by.
pub const CONTROLLER: &str = "lease";

/// Runs the lease controller on the clusters it follows until the returned future is dropped.
pub async fn controller(ctx: Ctx, clusters: Followed) {
    let (leases, lease_changes) = stored_by_name(Api::<Lease>::all(ctx.client.clone()), CLUSTER_LEASE);
    let controller = Controller::for_stream(clusters.changes, clusters.store)
        .with_config(bounded())
        .watches_stream(lease_changes, cluster_of);
    let reconcile = move |cluster, ctx| reconcile(cluster, ctx, leases.clone());
    controller::run(controller, CONTROLLER, &ctx.metrics, reconcile, ctx.clone()).await;
}

/// When the lease of a cluster counts as stale: `None` when it is fresh forever (no
/// renewal recorded yet is treated as "now"). The period is the longer of the cluster's
/// and the one the agent recorded with its last renewal: an agent keeps its old period
/// until its next renewal after the cluster's changed, and must not be judged by a
/// shorter one meanwhile.
fn deadline(lease: &Lease, grace: u32, period: Duration) -> Option<jiff::Timestamp> {
    let spec = lease.spec.as_ref()?;
    let renewed = spec.renew_time.as_ref()?.0;
    let recorded = spec.lease_duration_seconds.and_then(|s| u64::try_from(s).ok()).map(Duration::from_secs);
    let period = recorded.map_or(period, |recorded| recorded.max(period));
    let window = jiff::SignedDuration::try_from(period * grace).ok()?;
    renewed.checked_add(window).ok()
}

/// One pass over one cluster, its lease read from `leases` (the watched cluster leases:
/// every renewal brings the cluster here, and is not read again).
async fn reconcile(cluster: Arc<ManagedCluster>, ctx: Ctx, leases: Store<Lease>) -> Result<Action, HubError> {
    let name = cluster.name_any();
    if !cluster.is_joined() && cluster.meta().deletion_timestamp.is_none() {
        return Ok(Action::await_change());
    }
    // A lease not listed yet is not a lease that is missing.
    if leases.wait_until_ready().await.is_err() {
        // The watch is gone: the controllers are stopping.
        return Ok(Action::await_change());
    }
    let lease = leases.get(&ObjectRef::new(CLUSTER_LEASE).within(&name));
    let period = cluster.spec.lease_duration();
    let now = jiff::Timestamp::now();
    let stale_at = match &lease {
        Some(lease) => deadline(lease, ctx.config.lease_grace, period),
        // A cluster being deleted without a lease is gone at once, as upstream says.
        None if cluster.meta().deletion_timestamp.is_some() => Some(now),
        None => return Ok(Action::await_change()),
    };
    let Some(stale_at) = stale_at else { return Ok(Action::await_change()) };
    if now < stale_at {
        return Ok(Action::requeue(stale_at.duration_since(now).unsigned_abs() + Duration::from_millis(50)));
    }
    if c::has_status(cluster.conditions(), c::MANAGED_CLUSTER_AVAILABLE, c::UNKNOWN) {
        return Ok(Action::await_change());
    }
    let clusters: Api<ManagedCluster> = Api::all(ctx.client.clone());
    update_conditions(&clusters, &cluster, |conditions| {
        set(
            conditions,
            c::MANAGED_CLUSTER_AVAILABLE,
            c::UNKNOWN,
            c::REASON_LEASE_UPDATE_STOPPED,
            c::MESSAGE_LEASE_UPDATE_STOPPED,
        )
    })
    .await?;
    tracing::info!(cluster = %name, "lease expired: availability unknown");
    Ok(Action::await_change())
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;

    #[test]
    fn a_lease_goes_stale_after_grace_periods() {
        let lease = Lease {
            spec: Some(k8s_openapi::api::coordination::v1::LeaseSpec {
                renew_time: Some(MicroTime(jiff::Timestamp::from_second(1000).expect("t"))),
                ..Default::default()
            }),
            ..Default::default()
        };
        let at = deadline(&lease, 5, Duration::from_secs(60)).expect("deadline");
        assert_eq!(at.as_second(), 1300);
    }

    #[test]
    fn the_grace_counts_the_longer_of_the_clusters_and_the_agents_recorded_period() {
        let lease = |recorded: Option<i32>| Lease {
            spec: Some(k8s_openapi::api::coordination::v1::LeaseSpec {
                renew_time: Some(MicroTime(jiff::Timestamp::from_second(1000).expect("t"))),
                lease_duration_seconds: recorded,
                ..Default::default()
            }),
            ..Default::default()
        };
        // The cluster's period was cut to 10 s; the agent still renews every 60 s.
        let shortened = deadline(&lease(Some(60)), 5, Duration::from_secs(10)).expect("deadline");
        assert_eq!(shortened.as_second(), 1300);
        let lengthened = deadline(&lease(Some(10)), 5, Duration::from_secs(60)).expect("deadline");
        assert_eq!(lengthened.as_second(), 1300);
    }
}
