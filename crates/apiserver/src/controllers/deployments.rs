//! The deployment controller of kube-controller-manager (`pkg/controller/deployment`):
//! a Deployment owns one ReplicaSet per Pod template it has had, named
//! `<deployment>-<pod-template-hash>`; the one whose template is the Deployment's is the
//! new ReplicaSet, the others are old. Each template change gets the next revision
//! (`deployment.kubernetes.io/revision`); going back to an earlier template (`kubectl
//! rollout undo`) moves that ReplicaSet to the next revision, and the revisions it had
//! go into `deployment.kubernetes.io/revision-history`.
//!
//! Rollouts follow the strategy: `Recreate` scales the old ReplicaSets to zero and waits
//! for their Pods to go before the new one scales up; `RollingUpdate` scales the new one
//! up by at most `maxSurge` over the replicas and the old ones down while at least
//! `replicas − maxUnavailable` Pods are available (unavailable old Pods go first). A
//! paused Deployment gets no new ReplicaSet, only scaling. Old ReplicaSets scaled to
//! zero are kept up to `revisionHistoryLimit`.
//!
//! The status sums the ReplicaSets' (replicas, updated, ready, available) with the
//! `Available` and `Progressing` conditions and their upstream reasons. `minReadySeconds`
//! is not waited for: a ready Pod counts as available at once. Progress deadlines are
//! not enforced.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{
    Deployment, DeploymentCondition, DeploymentSpec, DeploymentStatus, ReplicaSet, ReplicaSetSpec,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, OwnerReference, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::super::encoding;
use super::super::key::ObjectKey;
use super::super::options::{DeleteOptions, Propagation, WriteOptions};
use super::super::state::Shared;
use super::super::status::ApiError;
use super::super::store::ObjectRef;
use super::workloads::{deployments, owned, replace_status, replica_sets};
use super::{Step, read, resource_type, split_key};

/// The revision of a ReplicaSet, and of the Deployment (its new ReplicaSet's).
pub const REVISION: &str = "deployment.kubernetes.io/revision";
/// The revisions a ReplicaSet had before a rollback moved it to a new one.
pub const REVISION_HISTORY: &str = "deployment.kubernetes.io/revision-history";
/// The Deployment's replicas when it last scaled the ReplicaSet.
pub const DESIRED_REPLICAS: &str = "deployment.kubernetes.io/desired-replicas";
/// The most Pods the rollout allowed then (replicas + maxSurge).
pub const MAX_REPLICAS: &str = "deployment.kubernetes.io/max-replicas";
/// The label that tells the Pods of one template from another's.
pub const TEMPLATE_HASH_LABEL: &str = "pod-template-hash";

/// Deployment annotations that are the controller's or kubectl's, not copied to ReplicaSets.
const NOT_COPIED: [&str; 5] =
    [REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, "kubectl.kubernetes.io/last-applied-configuration"];

/// Brings one Deployment's ReplicaSets and status in line with its spec.
pub(super) fn sync(state: &Shared, key: &str) -> Step {
    let target = ObjectRef { resource: deployments(), key: key.to_string() };
    let Some((_, value)) = read(state, &target) else { return Ok(()) };
    let Ok(deployment) = serde_json::from_value::<Deployment>(value) else { return Ok(()) };
    if deployment.metadata.deletion_timestamp.is_some() {
        // The garbage collector removes its ReplicaSets, and they their Pods.
        return Ok(());
    }
    let (namespace, name) = split_key(key);
    let namespace = namespace.unwrap_or_default();
    let uid = deployment.metadata.uid.clone().unwrap_or_default();
    let sets: Vec<ReplicaSet> = owned(state, &replica_sets(), namespace, &uid);
    let plan = plan(&deployment, sets, &now());
    let Some(sets_rt) = resource_type(state, &replica_sets()) else { return Ok(()) };
    if let Some(new) = &plan.create {
        let body = to_value(new)?;
        match state.resource(&sets_rt).create(Some(namespace), body, &WriteOptions::default()) {
            Ok(_) => {}
            // A ReplicaSet of that name that is not ours: the next hash avoids it.
            Err(e) if e.code == 409 => return bump_collision_count(state, namespace, name),
            Err(e) => return Err(e),
        }
    }
    for set in &plan.updates {
        let set_name = set.metadata.name.clone().unwrap_or_default();
        let result = state.resource(&sets_rt).write(
            ObjectKey::namespaced(namespace, &set_name),
            None,
            &WriteOptions::default(),
            None,
            &mut |c| {
                let mut next = c.clone();
                next["spec"]["replicas"] = Value::from(set.spec.as_ref().and_then(|s| s.replicas).unwrap_or(0));
                next["metadata"]["annotations"] = match &set.metadata.annotations {
                    Some(annotations) => annotations.iter().map(|(k, v)| (k.clone(), v.as_str())).collect(),
                    None => Value::Null,
                };
                Ok(next)
            },
        );
        ignore_missing(result.map(|_| ()))?;
    }
    for set_name in &plan.delete {
        let opts = DeleteOptions { propagation: Some(Propagation::Background), ..DeleteOptions::default() };
        ignore_missing(state.resource(&sets_rt).delete(ObjectKey::namespaced(namespace, set_name), &opts).map(|_| ()))?;
    }
    write_deployment(state, namespace, name, &deployment, &plan)
}

fn ignore_missing(step: Step) -> Step {
    match step {
        Err(e) if e.code == 404 => Ok(()),
        other => other,
    }
}

fn to_value<T: serde::Serialize>(object: &T) -> Result<Value, ApiError> {
    serde_json::to_value(object).map_err(|e| ApiError::internal(format!("serializing a workload object: {e}")))
}

/// The revision annotation and the status, each written only when it changed.
fn write_deployment(state: &Shared, namespace: &str, name: &str, deployment: &Deployment, plan: &Plan) -> Step {
    let Some(rt) = resource_type(state, &deployments()) else { return Ok(()) };
    let annotations = deployment.metadata.annotations.clone().unwrap_or_default();
    if let Some(revision) = &plan.revision
        && annotations.get(REVISION) != Some(revision)
    {
        let result = state.resource(&rt).write(
            ObjectKey::namespaced(namespace, name),
            None,
            &WriteOptions::default(),
            None,
            &mut |c| {
                let mut next = c.clone();
                super::super::object::ensure_object(&mut next["metadata"]["annotations"])
                    .insert(REVISION.into(), Value::from(revision.as_str()));
                Ok(next)
            },
        );
        ignore_missing(result.map(|_| ()))?;
    }
    if deployment.status.as_ref() == Some(&plan.status) {
        return Ok(());
    }
    replace_status(state, &deployments(), namespace, name, &plan.status)
}

/// A name taken by a ReplicaSet that is not this template's: the count goes into the
/// hash, as upstream's `status.collisionCount`.
fn bump_collision_count(state: &Shared, namespace: &str, name: &str) -> Step {
    let Some(rt) = resource_type(state, &deployments()) else { return Ok(()) };
    let result = state.resource(&rt).write(
        ObjectKey::namespaced(namespace, name),
        Some("status"),
        &WriteOptions::default(),
        None,
        &mut |c| {
            let mut next = c.clone();
            let count = c["status"]["collisionCount"].as_i64().unwrap_or(0) + 1;
            next["status"]["collisionCount"] = Value::from(count);
            Ok(next)
        },
    );
    ignore_missing(result.map(|_| ()))
}

fn now() -> Time {
    let now = jiff::Timestamp::now();
    // Stored times have whole seconds; a finer one would never compare equal.
    Time(jiff::Timestamp::from_second(now.as_second()).unwrap_or(now))
}

/// What one sync does.
#[derive(Debug, Default)]
struct Plan {
    /// The new ReplicaSet to create.
    create: Option<ReplicaSet>,
    /// Existing ReplicaSets with new replicas or annotations.
    updates: Vec<ReplicaSet>,
    /// Old ReplicaSets beyond the history limit.
    delete: Vec<String>,
    /// The Deployment's revision (its new ReplicaSet's), if it has one.
    revision: Option<String>,
    /// The status to write.
    status: DeploymentStatus,
}

/// What the controller does for this Deployment, given the ReplicaSets it owns: pure.
fn plan(deployment: &Deployment, mut sets: Vec<ReplicaSet>, now: &Time) -> Plan {
    let spec = deployment.spec.clone().unwrap_or_default();
    let replicas = spec.replicas.unwrap_or(1).max(0);
    let paused = spec.paused == Some(true);
    sets.sort_by(|a, b| {
        (revision(a), &a.metadata.creation_timestamp, &a.metadata.name).cmp(&(
            revision(b),
            &b.metadata.creation_timestamp,
            &b.metadata.name,
        ))
    });
    let new_at = sets.iter().rposition(|set| same_template(&spec, set));
    let mut new = new_at.map(|at| sets.remove(at));
    let mut old = sets;
    let latest_old = old.iter().map(revision).max().unwrap_or(0);
    let mut touched: Vec<String> = Vec::new();
    let mut created = false;
    match new.as_mut() {
        None if !paused => {
            new = Some(new_replica_set(deployment, &spec, latest_old + 1));
            created = true;
        }
        // Back to an earlier template: it becomes the latest revision.
        Some(set) if revision(set) <= latest_old => {
            let annotations = set.metadata.annotations.get_or_insert_with(BTreeMap::new);
            let before = annotations.get(REVISION).cloned().unwrap_or_default();
            let mut history: Vec<String> = annotations
                .get(REVISION_HISTORY)
                .map(|h| h.split(',').map(str::to_string).collect())
                .unwrap_or_default();
            history.push(before);
            annotations.insert(REVISION_HISTORY.into(), history.join(","));
            annotations.insert(REVISION.into(), (latest_old + 1).to_string());
            touched.extend(set.metadata.name.clone());
        }
        _ => {}
    }
    let (surge, unavailable) = limits(&spec, replicas);
    let recreate = spec.strategy.as_ref().and_then(|s| s.type_.as_deref()) == Some("Recreate");
    let mut counts =
        Counts { old: old.iter().map(spec_replicas).collect(), new: new.as_ref().map_or(0, spec_replicas) };
    if paused {
        // Only scaling: the one active ReplicaSet follows the replicas.
        let active: Vec<usize> = (0..old.len()).filter(|i| counts.old[*i] > 0).collect();
        match (&new, active.as_slice()) {
            (Some(_), []) => counts.new = replicas,
            (None, [only]) => counts.old[*only] = replicas,
            _ => {}
        }
    } else if recreate {
        if counts.old.iter().any(|n| *n > 0) {
            counts.old.iter_mut().for_each(|n| *n = 0);
        } else if old.iter().all(|set| status_replicas(set) == 0) {
            counts.new = replicas;
        }
    } else {
        roll(&mut counts, &old, new.as_ref(), replicas, surge, unavailable);
    }
    let mut updates = Vec::new();
    for (set, target) in old.iter_mut().zip(&counts.old) {
        if spec_replicas(set) != *target {
            scale(set, *target, replicas, surge);
            touched.extend(set.metadata.name.clone());
        }
    }
    if let Some(set) = new.as_mut()
        && (created || spec_replicas(set) != counts.new)
    {
        scale(set, counts.new, replicas, surge);
        touched.extend(set.metadata.name.clone());
    }
    let delete = beyond_history(&spec, &old, &counts.old);
    for set in old.iter().chain(new.iter().filter(|_| !created)) {
        if set.metadata.name.as_ref().is_some_and(|n| touched.contains(n)) {
            updates.push(set.clone());
        }
    }
    let status = status(deployment, new.as_ref(), &old, created, (replicas, unavailable), now);
    Plan {
        create: new.clone().filter(|_| created),
        updates,
        delete,
        revision: new.as_ref().map(|set| revision(set).to_string()),
        status,
    }
}

/// The replicas each ReplicaSet should have.
struct Counts {
    old: Vec<i32>,
    new: i32,
}

/// One step of a rolling update (upstream's `reconcileNewReplicaSet` and
/// `reconcileOldReplicaSets`): surge the new ReplicaSet, then scale old ones down,
/// unavailable Pods first, keeping `replicas − maxUnavailable` available.
fn roll(
    counts: &mut Counts,
    old: &[ReplicaSet],
    new: Option<&ReplicaSet>,
    replicas: i32,
    surge: i32,
    unavailable: i32,
) {
    let current: i32 = counts.old.iter().sum::<i32>() + counts.new;
    if counts.new > replicas {
        counts.new = replicas;
    } else if counts.new < replicas && current < replicas + surge {
        counts.new = (counts.new + replicas + surge - current).min(replicas);
    }
    let all: i32 = counts.old.iter().sum::<i32>() + counts.new;
    let min_available = replicas - unavailable;
    let new_available = new.map_or(0, available);
    let new_unavailable = (counts.new - new_available).max(0);
    let mut room = all - min_available - new_unavailable;
    if room <= 0 {
        return;
    }
    for (set, target) in old.iter().zip(counts.old.iter_mut()) {
        let unhealthy = (*target - available(set)).max(0);
        let down = unhealthy.min(room);
        *target -= down;
        room -= down;
    }
    let all_available: i32 = old.iter().map(available).sum::<i32>() + new_available;
    let mut excess = all_available - min_available;
    for target in counts.old.iter_mut() {
        if excess <= 0 {
            break;
        }
        let down = (*target).min(excess);
        *target -= down;
        excess -= down;
    }
}

/// Sets a ReplicaSet's replicas and the annotations that record why.
fn scale(set: &mut ReplicaSet, target: i32, replicas: i32, surge: i32) {
    if let Some(spec) = set.spec.as_mut() {
        spec.replicas = Some(target);
    }
    let annotations = set.metadata.annotations.get_or_insert_with(BTreeMap::new);
    annotations.insert(DESIRED_REPLICAS.into(), replicas.to_string());
    annotations.insert(MAX_REPLICAS.into(), (replicas + surge).to_string());
}

/// Old ReplicaSets scaled to zero with no Pods left, oldest first, beyond the limit.
fn beyond_history(spec: &DeploymentSpec, old: &[ReplicaSet], targets: &[i32]) -> Vec<String> {
    let limit = usize::try_from(spec.revision_history_limit.unwrap_or(10).max(0)).unwrap_or(0);
    let idle: Vec<&ReplicaSet> = old
        .iter()
        .zip(targets)
        .filter(|(set, target)| **target == 0 && spec_replicas(set) == 0 && status_replicas(set) == 0)
        .map(|(set, _)| set)
        .collect();
    let excess = idle.len().saturating_sub(limit);
    idle.iter().take(excess).filter_map(|set| set.metadata.name.clone()).collect()
}

/// maxSurge (rounded up) and maxUnavailable (rounded down) as Pod counts; both zero
/// would never progress, so unavailable is then one.
fn limits(spec: &DeploymentSpec, replicas: i32) -> (i32, i32) {
    let rolling = spec.strategy.as_ref().and_then(|s| s.rolling_update.as_ref());
    let resolve = |value: Option<&IntOrString>, up: bool| match value {
        Some(IntOrString::Int(n)) => (*n).max(0),
        Some(IntOrString::String(s)) => {
            let percent: i64 = s.trim_end_matches('%').parse().unwrap_or(25);
            let scaled = i64::from(replicas) * percent;
            let n = if up { (scaled + 99) / 100 } else { scaled / 100 };
            i32::try_from(n).unwrap_or(i32::MAX)
        }
        None => {
            let scaled = i64::from(replicas) * 25;
            i32::try_from(if up { (scaled + 99) / 100 } else { scaled / 100 }).unwrap_or(i32::MAX)
        }
    };
    let surge = resolve(rolling.and_then(|r| r.max_surge.as_ref()), true);
    let unavailable = resolve(rolling.and_then(|r| r.max_unavailable.as_ref()), false);
    if surge == 0 && unavailable == 0 { (0, 1) } else { (surge, unavailable.min(replicas)) }
}

fn revision(set: &ReplicaSet) -> u64 {
    set.metadata.annotations.as_ref().and_then(|a| a.get(REVISION)).and_then(|r| r.parse().ok()).unwrap_or(0)
}

fn spec_replicas(set: &ReplicaSet) -> i32 {
    set.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1)
}

fn status_replicas(set: &ReplicaSet) -> i32 {
    set.status.as_ref().map_or(0, |s| s.replicas)
}

fn available(set: &ReplicaSet) -> i32 {
    set.status.as_ref().and_then(|s| s.available_replicas).unwrap_or(0)
}

fn ready(set: &ReplicaSet) -> i32 {
    set.status.as_ref().and_then(|s| s.ready_replicas).unwrap_or(0)
}

/// Whether the ReplicaSet's template is the Deployment's, its hash label aside. Empty
/// strings, lists and maps count as absent, as they do once upstream has stored an object
/// (Go's `omitempty`: a client that sends `args: []` or `value: ""` gets back none, and
/// `rollout undo` sends none).
fn same_template(spec: &DeploymentSpec, set: &ReplicaSet) -> bool {
    let Some(mut template) = set.spec.as_ref().and_then(|s| s.template.clone()) else { return false };
    if let Some(labels) = template.metadata.as_mut().and_then(|m| m.labels.as_mut()) {
        labels.remove(TEMPLATE_HASH_LABEL);
    }
    let normal = |t| {
        serde_json::to_value(t).ok().map(|mut v| {
            prune_empty(&mut v, false);
            v
        })
    };
    normal(&template) == normal(&spec.template)
}

/// Fields of a Pod template that are maps of strings, where an empty value is a value.
const STRING_MAPS: [&str; 3] = ["labels", "annotations", "nodeSelector"];

/// Removes empty strings, lists and maps (and nulls), innermost first; in a map of
/// strings (`in_map`) only what is not a string.
fn prune_empty(value: &mut Value, in_map: bool) {
    match value {
        Value::Object(map) => {
            for (key, field) in map.iter_mut() {
                prune_empty(field, STRING_MAPS.contains(&key.as_str()));
            }
            map.retain(|_, v| !is_empty(v, in_map));
        }
        Value::Array(items) => items.iter_mut().for_each(|item| prune_empty(item, false)),
        _ => {}
    }
}

fn is_empty(value: &Value, in_map: bool) -> bool {
    match value {
        Value::Null => true,
        Value::String(text) => text.is_empty() && !in_map,
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// The `pod-template-hash` of a template: a hash of it and the collision count, in the
/// alphabet upstream encodes it with.
pub fn template_hash(spec: &DeploymentSpec, collisions: Option<i32>) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut hasher = Sha256::new();
    hasher.update(encoding::to_bytes(&spec.template));
    if let Some(count) = collisions {
        hasher.update(count.to_le_bytes());
    }
    let digest = hasher.finalize();
    let number = u32::from_le_bytes([digest[0], digest[1], digest[2], digest[3]]);
    number.to_string().bytes().map(|b| ALPHABET[usize::from(b) % ALPHABET.len()] as char).collect()
}

/// The ReplicaSet of the Deployment's current template, at `revision`, with no replicas yet.
fn new_replica_set(deployment: &Deployment, spec: &DeploymentSpec, revision: u64) -> ReplicaSet {
    let hash = template_hash(spec, deployment.status.as_ref().and_then(|s| s.collision_count));
    let name = deployment.metadata.name.clone().unwrap_or_default();
    let mut template = spec.template.clone();
    let mut labels = template.metadata.as_ref().and_then(|m| m.labels.clone()).unwrap_or_default();
    labels.insert(TEMPLATE_HASH_LABEL.into(), hash.clone());
    template.metadata.get_or_insert_with(ObjectMeta::default).labels = Some(labels.clone());
    let mut selector: LabelSelector = spec.selector.clone();
    selector.match_labels.get_or_insert_with(BTreeMap::new).insert(TEMPLATE_HASH_LABEL.into(), hash.clone());
    let mut annotations: BTreeMap<String, String> = deployment
        .metadata
        .annotations
        .clone()
        .unwrap_or_default()
        .into_iter()
        .filter(|(k, _)| !NOT_COPIED.contains(&k.as_str()))
        .collect();
    annotations.insert(REVISION.into(), revision.to_string());
    ReplicaSet {
        metadata: ObjectMeta {
            name: Some(format!("{name}-{hash}")),
            namespace: deployment.metadata.namespace.clone(),
            labels: Some(labels),
            annotations: Some(annotations),
            owner_references: Some(vec![OwnerReference {
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                name,
                uid: deployment.metadata.uid.clone().unwrap_or_default(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            }]),
            ..ObjectMeta::default()
        },
        spec: Some(ReplicaSetSpec {
            replicas: Some(0),
            min_ready_seconds: spec.min_ready_seconds,
            selector,
            template: Some(template),
        }),
        status: None,
    }
}

/// The status the Deployment's ReplicaSets add up to. Condition times are kept while a
/// condition says the same, so an unchanged situation gives an identical status.
fn status(
    deployment: &Deployment,
    new: Option<&ReplicaSet>,
    old: &[ReplicaSet],
    created: bool,
    (replicas, max_unavailable): (i32, i32),
    now: &Time,
) -> DeploymentStatus {
    let all = || old.iter().chain(new);
    let total: i32 = all().map(status_replicas).sum();
    let updated = new.map_or(0, status_replicas);
    let ready_count: i32 = all().map(ready).sum();
    let available_count: i32 = all().map(available).sum();
    let previous = deployment.status.as_ref().and_then(|s| s.conditions.clone()).unwrap_or_default();
    let condition = |kind: &str, status: &str, reason: &str, message: String| {
        let before = previous.iter().find(|c| c.type_ == kind);
        let transition = before.filter(|c| c.status == status).and_then(|c| c.last_transition_time.clone());
        let same = before.filter(|c| {
            c.status == status && c.reason.as_deref() == Some(reason) && c.message.as_deref() == Some(&message)
        });
        DeploymentCondition {
            type_: kind.to_string(),
            status: status.to_string(),
            reason: Some(reason.to_string()),
            message: Some(message),
            last_transition_time: Some(transition.unwrap_or_else(|| now.clone())),
            last_update_time: Some(same.and_then(|c| c.last_update_time.clone()).unwrap_or_else(|| now.clone())),
        }
    };
    let available_condition = if available_count >= replicas - max_unavailable {
        condition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.".into())
    } else {
        condition(
            "Available",
            "False",
            "MinimumReplicasUnavailable",
            "Deployment does not have minimum availability.".into(),
        )
    };
    let set_name = new.and_then(|s| s.metadata.name.clone()).unwrap_or_default();
    let complete = updated == replicas && total == replicas && available_count >= replicas;
    let progressing = if deployment.spec.as_ref().and_then(|s| s.paused) == Some(true) {
        condition("Progressing", "Unknown", "DeploymentPaused", "Deployment is paused".into())
    } else if created {
        condition("Progressing", "True", "NewReplicaSetCreated", format!("Created new replica set \"{set_name}\""))
    } else if complete {
        condition(
            "Progressing",
            "True",
            "NewReplicaSetAvailable",
            format!("ReplicaSet \"{set_name}\" has successfully progressed."),
        )
    } else {
        condition("Progressing", "True", "ReplicaSetUpdated", format!("ReplicaSet \"{set_name}\" is progressing."))
    };
    DeploymentStatus {
        observed_generation: deployment.metadata.generation,
        replicas: Some(total),
        updated_replicas: Some(updated),
        ready_replicas: Some(ready_count),
        available_replicas: Some(available_count),
        unavailable_replicas: Some((replicas - available_count).max(0)),
        terminating_replicas: None,
        collision_count: deployment.status.as_ref().and_then(|s| s.collision_count),
        conditions: Some(vec![available_condition, progressing]),
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::apps::v1::ReplicaSetStatus;
    use serde_json::json;

    use super::*;

    fn deployment(strategy: Value, replicas: i32, image: &str) -> Deployment {
        serde_json::from_value(json!({
            "metadata": {"name": "web", "namespace": "ns", "uid": "d1", "generation": 2},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "strategy": strategy,
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": image}]}}},
        }))
        .unwrap()
    }

    fn rolling() -> Value {
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}})
    }

    /// The ReplicaSet the controller would have made for `d`, at `replicas` with
    /// `available` of them available, created at second `at`.
    fn existing(d: &Deployment, revision: u64, replicas: i32, available: i32, at: i64) -> ReplicaSet {
        let mut set = new_replica_set(d, d.spec.as_ref().unwrap(), revision);
        set.spec.as_mut().unwrap().replicas = Some(replicas);
        set.metadata.creation_timestamp = Some(Time(jiff::Timestamp::from_second(at).unwrap()));
        set.status = Some(ReplicaSetStatus {
            replicas,
            ready_replicas: Some(available),
            available_replicas: Some(available),
            ..ReplicaSetStatus::default()
        });
        set
    }

    fn t() -> Time {
        Time(jiff::Timestamp::from_second(1_000).unwrap())
    }

    fn replicas_of(set: &ReplicaSet) -> i32 {
        spec_replicas(set)
    }

    #[test]
    fn a_new_deployment_gets_a_replica_set_at_revision_1_named_by_its_template_hash() {
        let d = deployment(rolling(), 3, "nginx:1");
        let plan = plan(&d, vec![], &t());
        let created = plan.create.expect("a new ReplicaSet");
        let hash = template_hash(d.spec.as_ref().unwrap(), None);
        assert_eq!(created.metadata.name.as_deref(), Some(format!("web-{hash}").as_str()));
        let annotations = created.metadata.annotations.clone().unwrap();
        assert_eq!(annotations[REVISION], "1");
        let spec = created.spec.unwrap();
        assert_eq!(spec.replicas, Some(3), "nothing old: it surges straight to the replicas");
        assert_eq!(spec.selector.match_labels.unwrap()[TEMPLATE_HASH_LABEL], hash);
        assert_eq!(spec.template.unwrap().metadata.unwrap().labels.unwrap()[TEMPLATE_HASH_LABEL], hash);
        assert_eq!(created.metadata.owner_references.unwrap()[0].controller, Some(true));
        assert_eq!(plan.revision.as_deref(), Some("1"));
        let progressing = &plan.status.conditions.unwrap()[1];
        assert_eq!(progressing.reason.as_deref(), Some("NewReplicaSetCreated"));
    }

    #[test]
    fn a_rolling_update_surges_the_new_replica_set_and_keeps_min_available() {
        let v1 = deployment(rolling(), 4, "nginx:1");
        let v2 = deployment(rolling(), 4, "nginx:2");
        let old = existing(&v1, 1, 4, 4, 10);
        // 4 replicas, 25%: one surge Pod, one unavailable Pod.
        let step = plan(&v2, vec![old.clone()], &t());
        let new = step.create.expect("new ReplicaSet");
        assert_eq!(replicas_of(&new), 1, "maxSurge 1");
        assert_eq!(revision(&new), 2);
        let old_after: Vec<i32> = step.updates.iter().map(replicas_of).collect();
        assert_eq!(old_after, [3], "maxUnavailable 1 lets one old Pod go");
        // The new Pod is not ready yet: nothing more goes.
        let mut new = existing(&v2, 2, 1, 0, 20);
        let old = existing(&v1, 1, 3, 3, 10);
        let step = plan(&v2, vec![old.clone(), new.clone()], &t());
        assert!(step.create.is_none());
        let counts: Vec<(String, i32)> =
            step.updates.iter().map(|s| (s.metadata.name.clone().unwrap(), replicas_of(s))).collect();
        let new_name = new.metadata.name.clone().unwrap();
        assert_eq!(counts, [(new_name.clone(), 2)], "surge to replicas + 1 = 5 Pods, old untouched");
        // Once it is ready, old ones go while three stay available.
        new.spec.as_mut().unwrap().replicas = Some(2);
        new.status.as_mut().unwrap().available_replicas = Some(2);
        let step = plan(&v2, vec![old, new], &t());
        let old_counts: Vec<i32> =
            step.updates.iter().filter(|s| s.metadata.name.as_deref() != Some(&new_name)).map(replicas_of).collect();
        assert_eq!(old_counts, [1], "3 old + 2 new available, 3 must stay: 2 old go");
    }

    #[test]
    fn unavailable_old_pods_go_first_and_recreate_waits_for_old_pods_to_be_gone() {
        // 4 old Pods of which 2 are available, the new one available: with one Pod
        // of surge the two unavailable ones go, though only one Pod more than the
        // minimum of 3 is available.
        let v1 = deployment(rolling(), 4, "nginx:1");
        let v2 = deployment(rolling(), 4, "nginx:2");
        let step = plan(&v2, vec![existing(&v1, 1, 4, 2, 10), existing(&v2, 2, 1, 1, 20)], &t());
        let counts: Vec<i32> = step.updates.iter().map(replicas_of).collect();
        assert_eq!(counts, [2]);

        let recreate = json!({"type": "Recreate"});
        let r1 = deployment(recreate.clone(), 2, "nginx:1");
        let r2 = deployment(recreate, 2, "nginx:2");
        let step = plan(&r2, vec![existing(&r1, 1, 2, 2, 10)], &t());
        assert_eq!(replicas_of(step.create.as_ref().unwrap()), 0, "new waits");
        assert_eq!(step.updates.iter().map(replicas_of).collect::<Vec<_>>(), [0], "old scaled to zero");
        // Scaled to zero but its Pods still there: still waiting.
        let new = existing(&r2, 2, 0, 0, 20);
        let mut going = existing(&r1, 1, 0, 0, 10);
        going.status.as_mut().unwrap().replicas = 1;
        assert!(plan(&r2, vec![going.clone(), new.clone()], &t()).updates.is_empty());
        going.status.as_mut().unwrap().replicas = 0;
        let step = plan(&r2, vec![going, new], &t());
        assert_eq!(step.updates.iter().map(replicas_of).collect::<Vec<_>>(), [2]);
    }

    #[test]
    fn rollback_moves_the_earlier_replica_set_to_the_next_revision_with_its_history() {
        let v1 = deployment(rolling(), 1, "nginx:1");
        let v2 = deployment(rolling(), 1, "nginx:2");
        let first = existing(&v1, 1, 0, 0, 10);
        let second = existing(&v2, 2, 1, 1, 20);
        // `rollout undo` puts v1's template back.
        let step = plan(&v1, vec![first, second], &t());
        assert!(step.create.is_none(), "the template's ReplicaSet is reused");
        let back = step.updates.iter().find(|s| revision(s) == 3).expect("revision 3");
        assert_eq!(back.metadata.annotations.as_ref().unwrap()[REVISION_HISTORY], "1");
        assert_eq!(step.revision.as_deref(), Some("3"));
        assert_eq!(replicas_of(back), 1);
    }

    #[test]
    fn a_paused_deployment_gets_no_new_replica_set_and_status_says_paused() {
        let mut v2 = deployment(rolling(), 3, "nginx:2");
        v2.spec.as_mut().unwrap().paused = Some(true);
        let v1 = deployment(rolling(), 2, "nginx:1");
        let step = plan(&v2, vec![existing(&v1, 1, 2, 2, 10)], &t());
        assert!(step.create.is_none());
        assert_eq!(step.updates.iter().map(replicas_of).collect::<Vec<_>>(), [3], "scaling still follows");
        let progressing = &step.status.conditions.unwrap()[1];
        assert_eq!((progressing.status.as_str(), progressing.reason.as_deref()), ("Unknown", Some("DeploymentPaused")));
    }

    #[test]
    fn status_sums_the_replica_sets_and_keeps_times_while_nothing_changes() {
        let mut d = deployment(rolling(), 2, "nginx:1");
        let set = existing(&d, 1, 2, 2, 10);
        let first = plan(&d, vec![set.clone()], &t());
        assert!(first.updates.is_empty() && first.create.is_none() && first.delete.is_empty());
        let status = first.status.clone();
        assert_eq!(
            (status.replicas, status.updated_replicas, status.available_replicas, status.unavailable_replicas),
            (Some(2), Some(2), Some(2), Some(0))
        );
        assert_eq!(status.observed_generation, Some(2));
        let conditions = status.conditions.clone().unwrap();
        assert_eq!(conditions[0].reason.as_deref(), Some("MinimumReplicasAvailable"));
        assert_eq!(conditions[1].reason.as_deref(), Some("NewReplicaSetAvailable"));
        d.status = Some(status);
        let later = Time(jiff::Timestamp::from_second(2_000).unwrap());
        assert_eq!(plan(&d, vec![set], &later).status, d.status.unwrap(), "nothing changed, nothing to write");
    }

    #[test]
    fn old_replica_sets_beyond_the_history_limit_are_deleted_oldest_first() {
        let mut d = deployment(rolling(), 1, "nginx:9");
        d.spec.as_mut().unwrap().revision_history_limit = Some(1);
        let sets: Vec<ReplicaSet> = (1..=3)
            .map(|n| existing(&deployment(rolling(), 1, &format!("nginx:{n}")), n, 0, 0, i64::try_from(n).unwrap()))
            .chain([existing(&d, 4, 1, 1, 40)])
            .collect();
        let names: Vec<String> = sets.iter().take(2).map(|s| s.metadata.name.clone().unwrap()).collect();
        assert_eq!(plan(&d, sets, &t()).delete, names);
    }

    #[test]
    fn a_template_with_empty_lists_and_strings_is_the_same_template_without_them() {
        let with = deployment(rolling(), 1, "nginx:1");
        let mut without = with.clone();
        let mut set = new_replica_set(&with, with.spec.as_ref().unwrap(), 1);
        set.spec.as_mut().unwrap().template.as_mut().unwrap().spec.as_mut().unwrap().containers[0].args = Some(vec![]);
        assert!(same_template(without.spec.as_ref().unwrap(), &set));
        let env = serde_json::from_value(json!([{"name": "A", "value": ""}])).unwrap();
        set.spec.as_mut().unwrap().template.as_mut().unwrap().spec.as_mut().unwrap().containers[0].env = Some(env);
        let bare = serde_json::from_value(json!([{"name": "A"}])).unwrap();
        without.spec.as_mut().unwrap().template.spec.as_mut().unwrap().containers[0].env = Some(bare);
        assert!(same_template(without.spec.as_ref().unwrap(), &set), "value: \"\" is no value");
        let labelled = |value: &str| {
            let mut d = without.clone();
            let meta = d.spec.as_mut().unwrap().template.metadata.get_or_insert_with(Default::default);
            meta.labels.get_or_insert_with(Default::default).insert("tier".into(), value.into());
            d
        };
        let empty_label = new_replica_set(&labelled(""), labelled("").spec.as_ref().unwrap(), 1);
        assert!(!same_template(without.spec.as_ref().unwrap(), &empty_label), "an empty label value is a value");
        without.spec.as_mut().unwrap().template.spec.as_mut().unwrap().containers[0].image = Some("nginx:2".into());
        assert!(!same_template(without.spec.as_ref().unwrap(), &set));
    }

    #[test]
    fn max_surge_rounds_up_and_max_unavailable_down() {
        let spec = |surge: Value, unavailable: Value| -> DeploymentSpec {
            serde_json::from_value(json!({"selector": {}, "template": {},
                "strategy": {"rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}}))
            .unwrap()
        };
        assert_eq!(limits(&spec(json!("25%"), json!("25%")), 1), (1, 0));
        assert_eq!(limits(&spec(json!("25%"), json!("25%")), 10), (3, 2));
        assert_eq!(limits(&spec(json!(0), json!(0)), 3), (0, 1));
        assert_eq!(limits(&spec(json!(2), json!(5)), 3), (2, 3));
    }
}
