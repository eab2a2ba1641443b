//! What the workload controllers share: which changes wake which controller, and how
//! they find the objects a controller owns (through `ownerReferences` with
//! `controller: true`, as kube-controller-manager's controllers do).

use std::collections::BTreeSet;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::super::registry::GroupResource;
use super::super::state::Shared;
use super::super::store::Notice;
use super::Work;

/// `apps/deployments`.
pub(super) fn deployments() -> GroupResource {
    GroupResource::new("apps", "deployments")
}

/// `apps/replicasets`.
pub(super) fn replica_sets() -> GroupResource {
    GroupResource::new("apps", "replicasets")
}

/// Core `pods`.
pub(super) fn pods() -> GroupResource {
    GroupResource::new("", "pods")
}

/// Core `nodes`.
pub(super) fn nodes() -> GroupResource {
    GroupResource::new("", "nodes")
}

/// The controller reference of an object: its owner's kind and name.
pub(super) fn controller_of(object: &Value) -> Option<(&str, &str)> {
    object["metadata"]["ownerReferences"]
        .as_array()?
        .iter()
        .find(|r| r["controller"] == true)
        .and_then(|r| Some((r["kind"].as_str()?, r["name"].as_str()?)))
}

/// Whether `object`'s controller has this uid.
fn controlled_by(object: &Value, uid: &str) -> bool {
    object["metadata"]["ownerReferences"]
        .as_array()
        .is_some_and(|refs| refs.iter().any(|r| r["controller"] == true && r["uid"] == uid))
}

/// The objects of `resource` in `namespace` that the object with `uid` controls, typed
/// (objects that do not decode are left out: they cannot be acted on).
pub(super) fn owned<T: DeserializeOwned>(
    state: &Shared,
    resource: &GroupResource,
    namespace: &str,
    uid: &str,
) -> Vec<T> {
    let page = state.store.list(resource, Some(namespace), None, 0, &|_| true);
    page.items
        .iter()
        .map(|stored| stored.value())
        .filter(|object| controlled_by(object, uid))
        .filter_map(|object| serde_json::from_value(object).ok())
        .collect()
}

/// The workload work a change asks for: a Deployment syncs when it or one of its
/// ReplicaSets changes, a ReplicaSet when it or one of its Pods changes; a Pod no node
/// runs yet is scheduled, and so are all such Pods when a Node changes.
pub(super) fn plan(notice: &Notice, batch: &mut BTreeSet<Work>) {
    let event = &notice.event;
    let namespace = event.namespace().unwrap_or_default();
    let owner = |kind: &str| {
        controller_of(event.value()).filter(|(k, _)| *k == kind).map(|(_, name)| format!("{namespace}/{name}"))
    };
    if notice.resource == deployments() {
        batch.insert(Work::Deployment(event.key.clone()));
    } else if notice.resource == replica_sets() {
        batch.insert(Work::ReplicaSet(event.key.clone()));
        if let Some(deployment) = owner("Deployment") {
            batch.insert(Work::Deployment(deployment));
        }
    } else if notice.resource == pods() {
        if let Some(set) = owner("ReplicaSet") {
            batch.insert(Work::ReplicaSet(set));
        }
        let unscheduled = event.value()["spec"]["nodeName"].as_str().is_none_or(str::is_empty);
        if !notice.deleting && unscheduled {
            batch.insert(Work::Schedule(event.key.clone()));
        }
    } else if notice.resource == nodes() && !notice.deleting {
        batch.insert(Work::ScheduleAll);
    }
}
