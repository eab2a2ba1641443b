//! ManifestWorkReplicaSets, as upstream's hub work manager runs them: every cluster the
//! PlacementDecisions of a set's Placements (in the set's namespace) name gets one
//! ManifestWork with the set's template as its spec, labelled
//! `work.open-cluster-management.io/manifestworkreplicaset: <namespace>.<name>` and
//! `work.open-cluster-management.io/placementname: <placement>`; a cluster no longer decided
//! loses it; and behind the finalizer `work.open-cluster-management.io/manifest-work-cleanup`
//! a deleted set takes its works with it (Background: the set goes once their deletion is
//! asked for; Foreground: once they are gone). The status counts the works' conditions and
//! says PlacementVerified, PlacementRolledOut and ManifestworkApplied with upstream's reasons.
//!
//! Where upstream differs:
//! - Every rollout strategy rolls out as `All`: every decided cluster gets the work at once
//!   (Progressive and ProgressivePerGroup are read, not acted on).
//! - A new work is named as the set (upstream 1.3 lets the API server generate a name from
//!   it): a create racing a stale cache then meets a 409 instead of making a second work. A
//!   work of the set under another name (upstream's) is kept under it.
//! - Only works carrying the set's label are ever updated or deleted: a work of the set's
//!   name in a decided cluster that lacks the label (one written by hand) is left alone, and
//!   ManifestworkApplied says so.
//! - A cluster two Placements of the set decide gets one work, labelled with the first.
//! - While a Placement the set names is missing, nothing is written but the condition
//!   PlacementVerified=False (PlacementDecisionNotFound).

mod desired;
mod status;

use std::sync::Arc;

use fleetctl_api::conditions::{self as c, new_condition, set_conditions};
use fleetctl_api::placement::{PLACEMENT_LABEL, Placement, PlacementDecision};
use fleetctl_api::work_replica_set::{
    CONDITION_MANIFESTWORK_APPLIED, CONDITION_PLACEMENT_VERIFIED, CascadeDeletionPolicy, FINALIZER_REPLICA_SET_CLEANUP,
    LABEL_REPLICA_SET, ManifestWorkReplicaSetStatus, REASON_INVALID_MANIFEST_WORK_NAME,
    REASON_PLACEMENT_DECISION_NOT_FOUND, replica_set_of,
};
use fleetctl_api::{ManifestWork, ManifestWorkReplicaSet};
use fleetctl_kube::{KubeError, controller, kube_error};
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams, Preconditions};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::finalizer::{self, finalizer};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::runtime::watcher;

use self::desired::{Plan, Step};
use self::status::{Judged, Placed};
use crate::context::{Ctx, HubError};
use crate::watches::{Listed, bounded, known, stored};

/// The name the controller's metrics and logs go by.
pub const CONTROLLER: &str = "manifestworkreplicaset";

/// What a pass reads.
struct Stores {
    /// The works labelled as some set's.
    works: Store<ManifestWork>,
    /// The PlacementDecisions (those labelled with their Placement).
    decisions: Store<PlacementDecision>,
    placements: Store<Placement>,
}

impl Stores {
    /// The works labelled as `set`'s.
    fn works_of(&self, set: &ManifestWorkReplicaSet) -> Vec<Arc<ManifestWork>> {
        let label = set.works_label();
        self.works.state().into_iter().filter(|w| w.labels().get(LABEL_REPLICA_SET) == Some(&label)).collect()
    }
}

/// The sets in `namespace` that name Placement `placement`.
fn naming(
    sets: &Store<ManifestWorkReplicaSet>,
    namespace: Option<String>,
    placement: &str,
) -> Vec<ObjectRef<ManifestWorkReplicaSet>> {
    sets.state()
        .into_iter()
        .filter(|set| set.namespace() == namespace && set.spec.placement_refs.iter().any(|p| p.name == placement))
        .map(|set| ObjectRef::from_obj(set.as_ref()))
        .collect()
}

/// Runs the controller until the returned future is dropped.
pub async fn controller(ctx: Ctx) {
    let client = ctx.client.clone();
    let (works, work_changes) =
        stored(Api::<ManifestWork>::all(client.clone()), watcher::Config::default().labels(LABEL_REPLICA_SET));
    let (decisions, decision_changes) =
        stored(Api::<PlacementDecision>::all(client.clone()), watcher::Config::default().labels(PLACEMENT_LABEL));
    let (placements, placement_changes) = stored(Api::<Placement>::all(client.clone()), watcher::Config::default());
    let controller =
        Controller::new(Api::<ManifestWorkReplicaSet>::all(client), watcher::Config::default()).with_config(bounded());
    let (by_decision, by_placement) = (controller.store(), controller.store());
    let controller = controller
        // A work of a set changed or gone: its set.
        .watches_stream(work_changes, |work: ManifestWork| {
            let label = work.labels().get(LABEL_REPLICA_SET)?;
            let (namespace, name) = replica_set_of(label)?;
            Some(ObjectRef::new(name).within(namespace))
        })
        // A Placement decided again: every set naming it.
        .watches_stream(decision_changes, move |decision: PlacementDecision| {
            match decision.labels().get(PLACEMENT_LABEL) {
                Some(placement) => naming(&by_decision, decision.namespace(), placement),
                None => Vec::new(),
            }
        })
        // A Placement made, changed (its selected count) or gone: every set naming it.
        .watches_stream(placement_changes, move |placement: Placement| {
            naming(&by_placement, placement.namespace(), &placement.name_any())
        });
    let stores = Arc::new(Stores { works, decisions, placements });
    let (listed, listing) = Listed::after({
        let stores = stores.clone();
        async move {
            tokio::join!(known(&stores.works), known(&stores.decisions), known(&stores.placements));
            true
        }
    });
    let reconcile = move |set, ctx| reconcile(set, ctx, stores.clone(), listed.clone());
    tokio::join!(controller::run(controller, CONTROLLER, &ctx.metrics, reconcile, ctx.clone()), listing);
}

/// One pass over one set, behind its finalizer.
async fn reconcile(
    set: Arc<ManifestWorkReplicaSet>,
    ctx: Ctx,
    stores: Arc<Stores>,
    listed: Listed,
) -> Result<Action, finalizer::Error<HubError>> {
    if !listed.wait().await {
        return Ok(Action::await_change());
    }
    let sets: Api<ManifestWorkReplicaSet> = Api::namespaced(ctx.client.clone(), &set.namespace().unwrap_or_default());
    finalizer(&sets, FINALIZER_REPLICA_SET_CLEANUP, set, |event| async {
        match event {
            finalizer::Event::Apply(set) => deploy(&sets, &set, &ctx, &stores).await,
            finalizer::Event::Cleanup(set) => clean_up(&set, &ctx, &stores).await,
        }
    })
    .await
}

/// The set's works and status made to match its Placements' decisions.
async fn deploy(
    sets: &Api<ManifestWorkReplicaSet>,
    set: &ManifestWorkReplicaSet,
    ctx: &Ctx,
    stores: &Stores,
) -> Result<Action, HubError> {
    let mut next = set.status.clone().unwrap_or_default();
    if !set.works_label_is_valid() {
        let message = format!(
            "the label value of its ManifestWorks, {:?} (namespace.name), is longer than 63 characters: recreate the \
             ManifestWorkReplicaSet with a shorter namespace or name",
            set.works_label()
        );
        let invalid =
            new_condition(CONDITION_MANIFESTWORK_APPLIED, c::FALSE, REASON_INVALID_MANIFEST_WORK_NAME, message);
        set_conditions(&mut next.conditions, &[invalid]);
        write_status(sets, set, next).await?;
        return Ok(Action::await_change());
    }
    let namespace = set.namespace().unwrap_or_default();
    let placement = |name: &str| stores.placements.get(&ObjectRef::new(name).within(&namespace));
    let missing: Vec<&str> =
        set.spec.placement_refs.iter().map(|p| p.name.as_str()).filter(|name| placement(name).is_none()).collect();
    if !missing.is_empty() {
        let message = format!("Placement {} not found in namespace {namespace}", missing.join(", "));
        let not_found =
            new_condition(CONDITION_PLACEMENT_VERIFIED, c::FALSE, REASON_PLACEMENT_DECISION_NOT_FOUND, message);
        set_conditions(&mut next.conditions, &[not_found]);
        write_status(sets, set, next).await?;
        return Ok(Action::await_change());
    }

    let decided = desired::decided(set, &stores.decisions.state());
    let plan = desired::plan(set, &decided, &stores.works_of(set));
    let mut first_error = None;
    let Plan { clusters, delete } = plan;
    for work in &delete {
        if let Err(e) = delete_work(ctx, work).await {
            first_error.get_or_insert(e);
        }
    }
    let mut placed = Vec::new();
    let mut blocked = Vec::new();
    for (cluster, (placement, step)) in &clusters {
        match write_work(ctx, set, cluster, step).await {
            Ok(Outcome::InPlace) => {
                let current = if let Step::Current(work) = step { Some(work.as_ref()) } else { None };
                placed.push(Placed { placement, current });
            }
            Ok(Outcome::Blocked) => blocked.push(cluster.clone()),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }

    let placements: Vec<Arc<Placement>> = set.spec.placement_refs.iter().filter_map(|p| placement(&p.name)).collect();
    let of_name = |name: &str| placements.iter().find(|p| p.name_any() == name).map(Arc::as_ref);
    let (placements_summary, summary) = status::summaries(set, &placed, of_name);
    let judged = Judged {
        decided: decided.len(),
        selected: placements
            .iter()
            .filter_map(|p| p.status.as_ref())
            .map(|s| i64::from(s.number_of_selected_clusters))
            .sum(),
        succeeded: placed.iter().filter_map(|p| p.current).map(|w| i64::from(status::succeeded(w))).sum(),
        summary,
        blocked: &blocked,
        work_name: &set.name_any(),
    };
    set_conditions(&mut next.conditions, &status::conditions(&judged));
    next.summary = summary;
    next.placements_summary = placements_summary;
    write_status(sets, set, next).await?;
    match first_error {
        Some(e) => Err(e),
        None => Ok(Action::await_change()),
    }
}

/// What became of a decided cluster's work.
enum Outcome {
    /// The set's work is there, as wanted.
    InPlace,
    /// A work of the name that is not the set's is there.
    Blocked,
}

/// Creates or updates one cluster's work as `step` says.
async fn write_work(ctx: &Ctx, set: &ManifestWorkReplicaSet, cluster: &str, step: &Step) -> Result<Outcome, HubError> {
    let works: Api<ManifestWork> = Api::namespaced(ctx.client.clone(), cluster);
    match step {
        Step::Current(_) => Ok(Outcome::InPlace),
        Step::Update(work) => {
            let name = work.name_any();
            works
                .replace(&name, &PostParams::default(), work)
                .await
                .map_err(kube_error(format!("updating ManifestWork {name} in cluster {cluster}")))?;
            tracing::info!(set = %set.works_label(), %cluster, work = %name, "ManifestWork updated from the template");
            Ok(Outcome::InPlace)
        }
        Step::Create(work) => {
            let name = work.name_any();
            match works.create(&PostParams::default(), work).await {
                Ok(_) => {
                    tracing::info!(set = %set.works_label(), %cluster, work = %name, "ManifestWork created");
                    Ok(Outcome::InPlace)
                }
                Err(kube::Error::Api(status)) if status.code == 409 => {
                    // Made by this set a moment ago (the store has not seen it yet), or by someone else.
                    let there = works
                        .get(&name)
                        .await
                        .map_err(kube_error(format!("reading ManifestWork {name} in cluster {cluster}")))?;
                    if there.labels().get(LABEL_REPLICA_SET) == Some(&set.works_label()) {
                        Ok(Outcome::InPlace)
                    } else {
                        Ok(Outcome::Blocked)
                    }
                }
                Err(e) => Err(kube_error(format!("creating ManifestWork {name} in cluster {cluster}"))(e).into()),
            }
        }
    }
}

/// Deletes one of the set's works, if it is still that work.
async fn delete_work(ctx: &Ctx, work: &ManifestWork) -> Result<(), HubError> {
    let (cluster, name) = (work.namespace().unwrap_or_default(), work.name_any());
    let works: Api<ManifestWork> = Api::namespaced(ctx.client.clone(), &cluster);
    let params = DeleteParams {
        preconditions: Some(Preconditions { uid: work.uid(), resource_version: None }),
        ..DeleteParams::background()
    };
    match works.delete(&name, &params).await {
        Ok(_) => {
            tracing::info!(%cluster, work = %name, "ManifestWork of a ManifestWorkReplicaSet deleted");
            Ok(())
        }
        // Gone already, or another work of the name now.
        Err(kube::Error::Api(status)) if status.code == 404 || status.code == 409 => Ok(()),
        Err(e) => Err(kube_error(format!("deleting ManifestWork {name} in cluster {cluster}"))(e).into()),
    }
}

/// A deleted set's works deleted; with Foreground, the finalizer stays until they are gone.
async fn clean_up(set: &ManifestWorkReplicaSet, ctx: &Ctx, stores: &Stores) -> Result<Action, HubError> {
    let works = stores.works_of(set);
    for work in works.iter().filter(|w| w.metadata.deletion_timestamp.is_none()) {
        delete_work(ctx, work).await?;
    }
    if set.spec.cascade_deletion_policy == CascadeDeletionPolicy::Foreground && !works.is_empty() {
        return Err(HubError::Waiting(format!(
            "ManifestWorkReplicaSet {} waits for its {} ManifestWork(s) to be gone",
            set.works_label(),
            works.len()
        )));
    }
    Ok(Action::await_change())
}

/// Writes `next` as the set's status, if it differs.
async fn write_status(
    sets: &Api<ManifestWorkReplicaSet>,
    set: &ManifestWorkReplicaSet,
    next: ManifestWorkReplicaSetStatus,
) -> Result<(), KubeError> {
    if set.status.as_ref() == Some(&next) {
        return Ok(());
    }
    let name = set.name_any();
    let patch = Patch::Merge(serde_json::json!({"status": next}));
    sets.patch_status(&name, &PatchParams::default(), &patch)
        .await
        .map_err(kube_error(format!("writing the status of ManifestWorkReplicaSet {}", set.works_label())))?;
    Ok(())
}
