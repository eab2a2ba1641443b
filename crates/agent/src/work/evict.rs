//! Eviction of this agent's AppliedManifestWorks whose work the hub no longer has, as
//! upstream's unmanaged-AppliedManifestWork controller does: a record whose work is gone
//! from the hub (deleted while the agent could not see it, its finalizer forced away), or
//! that comes from another hub (the agent was moved: its name carries the old hub's hash),
//! gets `status.evictionStartTime`; once the grace period has passed since, the record is
//! deleted and its resources go as a deleted Foreground work's do — those a record of the
//! current hub holds too only lose the old record's owner reference. A work that comes back
//! in time (the same name on the current hub) stops the eviction. A grace period of 100
//! years or more turns eviction off.
//!
//! Records of other agents (another klusterlet on the same cluster) are left alone.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kube::api::{Patch, PatchParams};
use kube::runtime::controller::Action;
use kube::runtime::reflector::{ObjectRef, Store};
use kube::{Resource, ResourceExt};
use serde_json::json;

use super::WorkReconcileError;
use super::controller::{Context, finish_record};
use fleetctl_api::{AppliedManifestWork, ManifestWork};
use fleetctl_kube::kube_error;

/// Upstream's bound: a grace period this long or longer never evicts.
pub const EVICTION_OFF: Duration = Duration::from_secs(100 * 365 * 24 * 3600);
/// The default grace period (upstream's `--appliedmanifestwork-eviction-grace-period`).
pub const DEFAULT_GRACE_PERIOD: Duration = Duration::from_secs(3600);

/// What a record of this agent is to become.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// Not this agent's, or its work is live on the current hub with no eviction pending.
    Leave,
    /// Its work is live again (or eviction is off): clear the eviction start.
    Stop,
    /// Its work is gone: start the grace period now.
    Start,
    /// The grace period runs for this much longer.
    Wait(Duration),
    /// The grace period is over: delete the record.
    Evict,
}

/// The verdict on a live (not deleting) record of this agent, `live` saying whether the
/// current hub has its work, `since` how long its eviction has been running.
fn verdict(started: bool, since: Duration, live: bool, grace: Duration) -> Verdict {
    match (live || grace >= EVICTION_OFF, started) {
        (true, true) => Verdict::Stop,
        (true, false) => Verdict::Leave,
        (false, false) => Verdict::Start,
        (false, true) if since >= grace => Verdict::Evict,
        (false, true) => Verdict::Wait(grace - since),
    }
}

/// What the eviction controller reads besides the record.
pub struct Eviction {
    /// The work controller's context: clients, cluster, agent id, current hub hash.
    pub ctx: Arc<Context>,
    /// The current hub's ManifestWorks of the cluster, as the work controller's watch sees them.
    pub works: Store<ManifestWork>,
    /// Whether that watch has listed the works once.
    pub works_listed: Arc<AtomicBool>,
    /// How long a record without a work is kept before it is evicted.
    pub grace: Duration,
}

impl Eviction {
    /// Whether the current hub has the work of `record`, and the record is this hub's.
    fn live(&self, record: &AppliedManifestWork) -> bool {
        record.spec.hub_hash == self.ctx.hub_hash
            && self.works.get(&ObjectRef::new(&record.spec.manifest_work_name).within(&self.ctx.cluster)).is_some()
    }
}

/// One look at a record.
pub async fn reconcile(
    record: Arc<AppliedManifestWork>,
    eviction: Arc<Eviction>,
) -> Result<Action, WorkReconcileError> {
    let ctx = &eviction.ctx;
    if record.spec.agent_id != ctx.agent_id {
        return Ok(Action::await_change());
    }
    // Nothing is judged missing before the first listing of the hub's works is in; that
    // listing has every record looked at again. (Not `Store::wait_until_ready`: its
    // one-waker cell would steal the wake-up of the work controller, which waits on it too.)
    if !eviction.works_listed.load(Ordering::Acquire) {
        return Ok(Action::await_change());
    }
    let live = eviction.live(&record);
    let name = record.name_any();
    tracing::debug!(record = %name, live, deleting = record.meta().deletion_timestamp.is_some(), "looking at a record");
    if record.meta().deletion_timestamp.is_some() {
        // A deleted record of a live work is its work's to finish (and make again).
        if live || finish_record(ctx, &record, None).await? {
            return Ok(Action::await_change());
        }
        return Err(WorkReconcileError::Waiting(format!(
            "the resources of appliedmanifestwork {name} are still going"
        )));
    }
    let started = record.status.as_ref().and_then(|s| s.eviction_start_time.as_ref());
    let since = started
        .and_then(|t| Duration::try_from(jiff::Timestamp::now().duration_since(t.0)).ok())
        .unwrap_or(Duration::ZERO);
    match verdict(started.is_some(), since, live, eviction.grace) {
        Verdict::Leave => Ok(Action::await_change()),
        Verdict::Stop => {
            set_start(ctx, &name, None).await?;
            tracing::info!(record = %name, "its work is back on the hub: eviction stopped");
            Ok(Action::await_change())
        }
        Verdict::Start => {
            set_start(ctx, &name, Some(jiff::Timestamp::now())).await?;
            tracing::info!(record = %name, grace = ?eviction.grace, "its work is not on the hub: eviction starts");
            Ok(Action::requeue(eviction.grace))
        }
        Verdict::Wait(remaining) => Ok(Action::requeue(remaining)),
        Verdict::Evict => {
            match ctx.records().delete(&name, &Default::default()).await {
                Ok(_) => tracing::info!(record = %name, "evicted after the grace period"),
                Err(kube::Error::Api(status)) if status.is_not_found() => {}
                Err(source) => return Err(kube_error(format!("evicting appliedmanifestwork {name}"))(source).into()),
            }
            Ok(Action::await_change())
        }
    }
}

/// Sets (or clears) a record's eviction start.
async fn set_start(ctx: &Context, name: &str, start: Option<jiff::Timestamp>) -> Result<(), WorkReconcileError> {
    let patch = json!({"status": {"evictionStartTime": start.map(Time)}});
    ctx.records()
        .patch_status(name, &PatchParams::default(), &Patch::Merge(patch))
        .await
        .map_err(kube_error(format!("writing the eviction start of appliedmanifestwork {name}")))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRACE: Duration = Duration::from_secs(10);

    #[test]
    fn a_record_whose_work_is_gone_is_evicted_once_the_grace_period_has_passed_as_upstreams_unmanaged_controller() {
        assert_eq!(verdict(false, Duration::ZERO, false, GRACE), Verdict::Start);
        assert_eq!(verdict(true, Duration::from_secs(4), false, GRACE), Verdict::Wait(Duration::from_secs(6)));
        assert_eq!(verdict(true, GRACE, false, GRACE), Verdict::Evict);
    }

    #[test]
    fn a_work_back_on_the_hub_or_a_grace_period_of_a_century_stops_eviction_as_upstreams_bound() {
        assert_eq!(verdict(true, Duration::from_secs(4), true, GRACE), Verdict::Stop);
        assert_eq!(verdict(false, Duration::ZERO, true, GRACE), Verdict::Leave);
        assert_eq!(verdict(true, Duration::from_secs(4), false, EVICTION_OFF), Verdict::Stop);
        assert_eq!(verdict(false, Duration::ZERO, false, EVICTION_OFF), Verdict::Leave);
    }
}
