//! The lease controller: a joined cluster whose agent stopped renewing its lease for
//! longer than grace × leaseDurationSeconds turns Available=Unknown; while it renews,
//! `ManagedClusterConditionClockSynced` says whether the renewal time the agent wrote is
//! within that window of the hub's clock, as upstream's clock-sync controller (an agent
//! whose clock runs ahead writes renewals from the future; upstream's annotation
//! `registration.open-cluster-management.io/skip-clock-sync-check: "true"` opts a cluster
//! out). It follows the clusters and their leases, kept in a store: a renewal brings its
//! cluster back, which reads the lease there.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;
use kube::runtime::controller::{Action, Controller};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::{Resource, ResourceExt};

use fleetctl_kube::{controller, update_conditions};

use super::context::{Ctx, HubError, set};
use super::watches::{Followed, Listed, bounded, cluster_of, stored_by_name};
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
    let (listed, listing) = Listed::after({
        let leases = leases.clone();
        async move { leases.wait_until_ready().await.is_ok() }
    });
    let reconcile = move |cluster, ctx| reconcile(cluster, ctx, leases.clone(), listed.clone());
    tokio::join!(controller::run(controller, CONTROLLER, &ctx.metrics, reconcile, ctx.clone()), listing);
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
async fn reconcile(
    cluster: Arc<ManagedCluster>,
    ctx: Ctx,
    leases: Store<Lease>,
    listed: Listed,
) -> Result<Action, HubError> {
    let name = cluster.name_any();
    if !cluster.is_joined() && cluster.meta().deletion_timestamp.is_none() {
        return Ok(Action::await_change());
    }
    // A lease not listed yet is not a lease that is missing.
    if !listed.wait().await {
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
        if let Some(lease) = &lease {
            clock_synced(&cluster, &ctx, clock_in_sync(&cluster, lease, now, ctx.config.lease_grace, period)).await?;
        }
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

/// Upstream's annotation that keeps a cluster's clock counted as synced.
const SKIP_CLOCK_SYNC_CHECK: &str = "registration.open-cluster-management.io/skip-clock-sync-check";

/// Whether the agent's last renewal time is within grace × period of the hub's `now`
/// (a fresh lease is never older than that: only a renewal from the future is out of sync).
fn clock_in_sync(cluster: &ManagedCluster, lease: &Lease, now: jiff::Timestamp, grace: u32, period: Duration) -> bool {
    if cluster.annotations().get(SKIP_CLOCK_SYNC_CHECK).is_some_and(|v| v == "true") {
        return true;
    }
    let renewed = lease.spec.as_ref().and_then(|s| s.renew_time.as_ref()).map(|t| t.0);
    let window = jiff::SignedDuration::try_from(period * grace).unwrap_or(jiff::SignedDuration::MAX);
    renewed.is_none_or(|renewed| now.duration_until(renewed) < window)
}

/// Writes `ManagedClusterConditionClockSynced` when it says otherwise.
async fn clock_synced(cluster: &ManagedCluster, ctx: &Ctx, synced: bool) -> Result<(), HubError> {
    let (status, reason, message) = if synced {
        (c::TRUE, c::REASON_CLOCK_SYNCED, c::MESSAGE_CLOCK_SYNCED)
    } else {
        (c::FALSE, c::REASON_CLOCK_OUT_OF_SYNC, c::MESSAGE_CLOCK_OUT_OF_SYNC)
    };
    if c::has_status(cluster.conditions(), c::MANAGED_CLUSTER_CLOCK_SYNCED, status) {
        return Ok(());
    }
    let clusters: Api<ManagedCluster> = Api::all(ctx.client.clone());
    update_conditions(&clusters, cluster, |conditions| {
        set(conditions, c::MANAGED_CLUSTER_CLOCK_SYNCED, status, reason, message)
    })
    .await?;
    Ok(())
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

    #[test]
    fn a_renewal_from_further_ahead_than_the_lease_window_is_out_of_sync_as_upstreams_clock_sync_controller() {
        let lease = |renewed: i64| Lease {
            spec: Some(k8s_openapi::api::coordination::v1::LeaseSpec {
                renew_time: Some(MicroTime(jiff::Timestamp::from_second(renewed).expect("t"))),
                ..Default::default()
            }),
            ..Default::default()
        };
        let now = jiff::Timestamp::from_second(1000).expect("t");
        let period = Duration::from_secs(60);
        let mut cluster = ManagedCluster::new("c1", Default::default());
        assert!(clock_in_sync(&cluster, &lease(990), now, 5, period));
        assert!(clock_in_sync(&cluster, &lease(1299), now, 5, period), "ahead, within 5 × 60 s");
        assert!(!clock_in_sync(&cluster, &lease(1300), now, 5, period), "ahead by the whole window");
        cluster.annotations_mut().insert(SKIP_CLOCK_SYNC_CHECK.into(), "true".into());
        assert!(clock_in_sync(&cluster, &lease(5000), now, 5, period), "upstream's opt-out");
    }
}
