//! The placement controller, upstream's scheduling controller: each Placement is scheduled
//! over the clusters of the ManagedClusterSets bound into its namespace (filtered by
//! `spec.clusterSets`), through the [`scheduler`]'s filters and prioritizers, and its
//! decisions are written as PlacementDecisions ([`decisions`]) with the Placement's status
//! ([`status`]) and upstream's events (DecisionCreate, DecisionUpdate, ScoreUpdate,
//! DecisionDelete).
//!
//! It is driven by watches only: a Placement is scheduled when it or its PlacementDecisions
//! change, and every Placement when a ManagedCluster, ManagedClusterSet,
//! ManagedClusterSetBinding or AddOnPlacementScore changes; a toleration that expires
//! brings its Placement back at that time.

mod cel;
mod decisions;
mod resources;
mod scheduler;
mod status;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use futures::StreamExt;
use kube::api::{Api, PostParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::events::{Event, EventType};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::runtime::watcher;
use kube::{Resource, ResourceExt};

use fleetctl_api::PlacementDecision;
use fleetctl_api::placement::{DISABLE_SCHEDULING_ANNOTATION, PLACEMENT_LABEL};
use fleetctl_api::{AddOnPlacementScore, ManagedCluster, ManagedClusterSet, ManagedClusterSetBinding, Placement};
use fleetctl_kube::reconcile::delete;
use fleetctl_kube::{controller, kube_error};

use super::context::{Ctx, HubError};
use super::watches::{Followed, Listed, bounded, coalesced, stored};
use scheduler::{Inputs, Outcome, Schedule};

/// The name the controller's metrics and logs go by.
pub const CONTROLLER: &str = "placement";

/// The longest event note upstream writes for scores (events hold 1 KiB).
const MAX_SCORE_NOTE: usize = 1000;

/// What the scheduler reads, as the watches keep it.
#[derive(Clone)]
struct Stores {
    clusters: Store<ManagedCluster>,
    sets: Store<ManagedClusterSet>,
    bindings: Store<ManagedClusterSetBinding>,
    decisions: Store<PlacementDecision>,
    scores: Store<AddOnPlacementScore>,
}

impl Stores {
    /// Waits until every store has listed; false when a watch is gone (stopping). Run by
    /// one task only (see [`Listed`]).
    async fn ready(self) -> bool {
        self.clusters.wait_until_ready().await.is_ok()
            && self.sets.wait_until_ready().await.is_ok()
            && self.bindings.wait_until_ready().await.is_ok()
            && self.decisions.wait_until_ready().await.is_ok()
            && self.scores.wait_until_ready().await.is_ok()
    }
}

/// Runs the placement controller until the returned future is dropped.
pub async fn controller(ctx: Ctx, clusters: Followed) {
    let client = ctx.client.clone();
    let all = watcher::Config::default;
    let (sets, set_changes) = stored(Api::<ManagedClusterSet>::all(client.clone()), all());
    let (bindings, binding_changes) = stored(Api::<ManagedClusterSetBinding>::all(client.clone()), all());
    let (decisions, decision_changes) = stored(Api::<PlacementDecision>::all(client.clone()), all());
    let (scores, score_changes) = stored(Api::<AddOnPlacementScore>::all(client.clone()), all());
    let others = futures::stream::select_all([
        clusters.changes.map(|_| ()).boxed(),
        set_changes.map(|_| ()).boxed(),
        binding_changes.map(|_| ()).boxed(),
        score_changes.map(|_| ()).boxed(),
    ]);
    let (watch_others, others_changed) = coalesced(others);
    let controller = Controller::new(Api::<Placement>::all(client), all())
        .with_config(bounded())
        .watches_stream(decision_changes, placement_of)
        .reconcile_all_on(others_changed);
    let stores = Stores { clusters: clusters.store, sets, bindings, decisions, scores };
    let (listed, listing) = Listed::after(stores.clone().ready());
    let reads = Arc::new(Reads { stores, listed });
    let reconcile = move |placement, ctx| reconcile(placement, ctx, reads.clone());
    tokio::join!(controller::run(controller, CONTROLLER, &ctx.metrics, reconcile, ctx.clone()), watch_others, listing);
}

/// What a reconcile reads: the stores, once they have listed.
struct Reads {
    stores: Stores,
    listed: Listed,
}

/// The Placement a PlacementDecision belongs to, by its label.
fn placement_of(decision: PlacementDecision) -> Option<ObjectRef<Placement>> {
    let placement = decision.labels().get(PLACEMENT_LABEL)?;
    Some(ObjectRef::new(placement).within(&decision.namespace()?))
}

/// One scheduling pass over one Placement.
async fn reconcile(placement: Arc<Placement>, ctx: Ctx, reads: Arc<Reads>) -> Result<Action, HubError> {
    if placement.meta().deletion_timestamp.is_some()
        || placement.annotations().get(DISABLE_SCHEDULING_ANNOTATION).is_some_and(|v| v == "true")
        || !reads.listed.wait().await
    {
        return Ok(Action::await_change());
    }
    let stores = &reads.stores;
    let namespace = placement.namespace().unwrap_or_default();
    let name = placement.name_any();
    // The bindings of sets that exist; a binding's name is its set's.
    let bound: BTreeSet<String> = stores
        .bindings
        .state()
        .iter()
        .filter(|b| b.namespace().as_deref() == Some(namespace.as_str()))
        .map(|b| b.name_any())
        .filter(|set| stores.sets.get(&ObjectRef::new(set)).is_some())
        .collect();
    let named = &placement.spec.cluster_sets;
    let eligible: Vec<String> = bound.iter().filter(|set| named.is_empty() || named.contains(set)).cloned().collect();
    let sets: Vec<Arc<ManagedClusterSet>> =
        eligible.iter().filter_map(|set| stores.sets.get(&ObjectRef::new(set))).collect();
    let clusters = stores.clusters.state();
    let available: Vec<&ManagedCluster> = clusters
        .iter()
        .map(Arc::as_ref)
        .filter(|c| c.meta().deletion_timestamp.is_none() && sets.iter().any(|set| set.contains(c)))
        .collect();
    let all_decisions = stores.decisions.state();
    let own = |d: &&Arc<PlacementDecision>| {
        d.namespace().as_deref() == Some(namespace.as_str()) && d.labels().get(PLACEMENT_LABEL) == Some(&name)
    };
    let existing: Vec<Arc<PlacementDecision>> = all_decisions.iter().filter(own).cloned().collect();
    let decided: BTreeSet<String> = existing.iter().flat_map(|d| d.cluster_names().map(str::to_owned)).collect();
    let mut elsewhere: HashMap<String, i64> = HashMap::new();
    for decision in all_decisions.iter().filter(|d| !own(d)) {
        for cluster in decision.cluster_names() {
            *elsewhere.entry(cluster.to_owned()).or_default() += 1;
        }
    }
    let scores = |cluster: &str, resource: &str| {
        stores.scores.get(&ObjectRef::new(resource).within(cluster)).map(|s| AddOnPlacementScore::clone(&s))
    };
    let inputs = Inputs { clusters: available, decided, elsewhere, scores: &scores, now: jiff::Timestamp::now() };
    let schedule = scheduler::schedule(&placement, &inputs);
    let owner = placement.controller_owner_ref(&()).ok_or_else(|| HubError::NoUid(name.clone()))?;
    let by_name: BTreeMap<String, &ManagedCluster> = inputs.clusters.iter().map(|c| (c.name_any(), *c)).collect();
    let selected: Vec<&ManagedCluster> = schedule.selected.iter().filter_map(|c| by_name.get(c).copied()).collect();
    let (plan, outcome) = match decisions::plan(&placement, &selected, &owner) {
        Ok(plan) => (plan, schedule.outcome.clone()),
        Err(misconfigured) => (decisions::Plan::default(), misconfigured),
    };
    bind(&ctx, &placement, &plan.decisions, &existing, &schedule, &outcome).await?;
    let counts = status::Counts {
        named_sets: named.clone(),
        eligible_sets: eligible,
        bindings: bound.len(),
        available: inputs.clusters.len(),
        selected: schedule.selected.len(),
        unscheduled: schedule.unscheduled,
    };
    let conditions = [status::misconfigured(&outcome), status::satisfied(&counts)];
    let next = status::next(placement.status.as_ref(), schedule.selected.len(), plan.groups, conditions);
    if placement.status.as_ref() != Some(&next) {
        let mut updated = Placement::clone(&placement);
        updated.status = Some(next);
        Api::<Placement>::namespaced(ctx.client.clone(), &namespace)
            .replace_status(&name, &PostParams::default(), &updated)
            .await
            .map_err(kube_error(format!("updating the status of placement {namespace}/{name}")))?;
    }
    if let Outcome::Misconfigured { plugin, message } = &outcome {
        tracing::debug!(placement = %format!("{namespace}/{name}"), plugin, message, "misconfigured");
    }
    Ok(schedule.requeue_after.map_or_else(Action::await_change, Action::requeue))
}

/// Writes the planned PlacementDecisions of `placement` and deletes the ones it no longer
/// has, with upstream's events.
async fn bind(
    ctx: &Ctx,
    placement: &Placement,
    planned: &[PlacementDecision],
    existing: &[Arc<PlacementDecision>],
    schedule: &Schedule,
    outcome: &Outcome,
) -> Result<(), HubError> {
    let namespace = placement.namespace().unwrap_or_default();
    let api: Api<PlacementDecision> = Api::namespaced(ctx.client.clone(), &namespace);
    for desired in planned {
        let name = desired.name_any();
        let current = match existing.iter().find(|d| d.name_any() == name) {
            Some(current) => PlacementDecision::clone(current),
            None => create(ctx, &api, placement, desired).await?,
        };
        if current.status != desired.status {
            let mut updated = current.clone();
            updated.status = desired.status.clone();
            let written = api
                .replace_status(&name, &PostParams::default(), &updated)
                .await
                .map_err(kube_error(format!("updating the decisions of {namespace}/{name}")))?;
            updated_events(ctx, placement, &written, schedule, outcome).await;
            // The labels follow in the next pass, as upstream's.
            continue;
        }
        if current.metadata.labels != desired.metadata.labels {
            let mut relabelled = current;
            relabelled.metadata.labels = desired.metadata.labels.clone();
            api.replace(&name, &PostParams::default(), &relabelled)
                .await
                .map_err(kube_error(format!("labelling placement decision {namespace}/{name}")))?;
        }
    }
    for stale in existing.iter().filter(|d| !planned.iter().any(|p| p.name_any() == d.name_any())) {
        let name = stale.name_any();
        delete(&api, &name, &Default::default()).await?;
        let note =
            format!("Decision {name} is deleted with placement {} in namespace {namespace}", placement.name_any());
        publish(ctx, placement, stale, EventType::Normal, "DecisionDelete", "DecisionDeleted", note).await;
    }
    Ok(())
}

/// Creates a PlacementDecision (its decisions are written next); one that exists already
/// (the watch has not brought it yet) is read instead.
async fn create(
    ctx: &Ctx,
    api: &Api<PlacementDecision>,
    placement: &Placement,
    desired: &PlacementDecision,
) -> Result<PlacementDecision, HubError> {
    let name = desired.name_any();
    let namespace = desired.namespace().unwrap_or_default();
    let mut new = desired.clone();
    new.status = None;
    match api.create(&PostParams::default(), &new).await {
        Ok(created) => {
            let note =
                format!("Decision {name} is created with placement {} in namespace {namespace}", placement.name_any());
            publish(ctx, placement, &created, EventType::Normal, "DecisionCreate", "DecisionCreated", note).await;
            Ok(created)
        }
        Err(kube::Error::Api(status)) if status.code == 409 => {
            Ok(api.get(&name).await.map_err(kube_error(format!("reading placement decision {namespace}/{name}")))?)
        }
        Err(e) => Err(kube_error(format!("creating placement decision {namespace}/{name}"))(e).into()),
    }
}

/// The DecisionUpdate event (a warning when the pass warned) and the ScoreUpdate event.
async fn updated_events(
    ctx: &Ctx,
    placement: &Placement,
    decision: &PlacementDecision,
    schedule: &Schedule,
    outcome: &Outcome,
) {
    let (name, placement_name) = (decision.name_any(), placement.name_any());
    let namespace = placement.namespace().unwrap_or_default();
    let base = format!("Decision {name} is updated with placement {placement_name} in namespace {namespace}");
    let (type_, note) = match outcome {
        Outcome::Warning { plugin, message } => (EventType::Warning, format!("{base}: {message} in plugin {plugin}")),
        _ => (EventType::Normal, base),
    };
    publish(ctx, placement, decision, type_, "DecisionUpdate", "DecisionUpdated", note).await;
    if !schedule.scores.is_empty() {
        let note = score_note(&schedule.scores);
        publish(ctx, placement, decision, EventType::Normal, "ScoreUpdate", "ScoreUpdated", note).await;
    }
}

/// `name:score ` for each cluster by name, cut at upstream's length with `......`.
fn score_note(scores: &BTreeMap<String, i64>) -> String {
    let mut note = String::new();
    for (name, score) in scores {
        let next = format!("{name}:{score} ");
        if note.len() + next.len() > MAX_SCORE_NOTE {
            note.push_str("......");
            break;
        }
        note.push_str(&next);
    }
    note
}

/// Records an event about `placement` and one of its decisions. As upstream's recorder, a
/// failure to record is logged and does not fail the pass (a namespace being deleted takes
/// no new events, and its Placement is still scheduled until it goes).
async fn publish(
    ctx: &Ctx,
    placement: &Placement,
    decision: &PlacementDecision,
    type_: EventType,
    reason: &str,
    action: &str,
    note: String,
) {
    let event = Event {
        type_,
        reason: reason.into(),
        note: Some(note),
        action: action.into(),
        secondary: Some(decision.object_ref(&())),
    };
    if let Err(error) = ctx.recorder.publish(&event, &placement.object_ref(&())).await {
        let placement = format!("{}/{}", placement.namespace().unwrap_or_default(), placement.name_any());
        tracing::warn!(%placement, reason, error = %fleetctl_kube::errors::chain(&error), "recording an event");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_events_list_clusters_by_name_and_stop_at_upstreams_length() {
        let scores: BTreeMap<String, i64> = [("b".to_owned(), 5), ("a".to_owned(), -3)].into();
        assert_eq!(score_note(&scores), "a:-3 b:5 ");
        let many: BTreeMap<String, i64> = (0..200).map(|i| (format!("cluster-{i:03}"), 100)).collect();
        let note = score_note(&many);
        assert!(note.ends_with("......") && note.len() <= MAX_SCORE_NOTE + 6);
    }
}
