//! The controllers a real cluster runs in kube-controller-manager and the
//! apiextensions server, reduced to what clients observe: garbage collection of
//! dependents (background, foreground, orphan), namespace termination and CRD cleanup.
//!
//! They react to store notices (deletions and objects marked for deletion), coalesce
//! what arrives together, and act through the same verbs as HTTP clients.

use std::collections::BTreeSet;

use serde_json::Value;
use tokio::sync::mpsc;

use super::crd;
use super::kinds::{self, NAMESPACE_FINALIZER};
use super::object;
use super::registry::{GroupResource, ResourceType};
use super::resource::{DeleteOptions, Propagation, WriteOptions};
use super::state::Shared;
use super::store::{EventType, Notice, ObjectRef};

const FOREGROUND: &str = "foregroundDeletion";
const ORPHAN: &str = "orphan";

/// Work items, ordered so a batch handles each thing once.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Work {
    /// An object is marked for deletion and may have foreground/orphan work.
    Deleting(GroupResource, String),
    /// The owner with this uid is gone: its dependents need a look.
    OwnerGone(String),
    /// An object that may be waiting for its dependents to go (foreground).
    OwnerWaiting(String),
    /// A namespace may be terminating.
    Namespace(String),
    /// A CRD may be waiting for its custom resources to go.
    CrdCleanup(String),
    /// A CRD was removed: stop serving it.
    CrdRemoved(String),
}

/// Runs until the store is dropped.
pub async fn run(state: Shared, mut notices: mpsc::UnboundedReceiver<Notice>) {
    while let Some(first) = notices.recv().await {
        let mut batch = BTreeSet::new();
        plan(&first, &mut batch);
        while let Ok(next) = notices.try_recv() {
            plan(&next, &mut batch);
        }
        for work in batch {
            handle(&state, work);
        }
    }
}

fn plan(notice: &Notice, batch: &mut BTreeSet<Work>) {
    let event = &notice.event;
    let object = event.value();
    let is_crd = notice.resource == GroupResource::new("apiextensions.k8s.io", "customresourcedefinitions");
    if let Some(ns) = event.namespace() {
        batch.insert(Work::Namespace(ns.to_string()));
    }
    if event.kind == EventType::Deleted {
        if let Some(uid) = object::uid(object) {
            batch.insert(Work::OwnerGone(uid.to_string()));
        }
        for owner in object::owner_uids(object) {
            batch.insert(Work::OwnerWaiting(owner.to_string()));
        }
        if is_crd {
            batch.insert(Work::CrdRemoved(event.key.clone()));
        }
        if let Some((group, plural)) = custom_resource_of(&notice.resource) {
            batch.insert(Work::CrdCleanup(format!("{plural}.{group}")));
        }
        return;
    }
    if notice.resource == kinds::namespaces() {
        batch.insert(Work::Namespace(event.key.clone()));
    } else if is_crd {
        batch.insert(Work::CrdCleanup(event.key.clone()));
    } else {
        batch.insert(Work::Deleting(notice.resource.clone(), event.key.clone()));
    }
}

/// Group and plural of a resource that is not built in.
fn custom_resource_of(resource: &GroupResource) -> Option<(&str, &str)> {
    (!super::builtin::is_builtin(&resource.group, &resource.resource))
        .then_some((resource.group.as_str(), resource.resource.as_str()))
}

fn handle(state: &Shared, work: Work) {
    let outcome = match &work {
        Work::Deleting(resource, key) => deleting(state, resource, key),
        Work::OwnerGone(uid) => owner_gone(state, uid),
        Work::OwnerWaiting(uid) => owner_waiting(state, uid),
        Work::Namespace(name) => namespace(state, name),
        Work::CrdCleanup(name) => crd_cleanup(state, name),
        Work::CrdRemoved(name) => {
            crd::unregister(&state.registry, name);
            Ok(())
        }
    };
    if let Err(e) = outcome {
        tracing::debug!(?work, error = %e, "built-in controller step failed; the next notice retries it");
    }
}

type Step = Result<(), super::status::ApiError>;

fn resource_type(state: &Shared, resource: &GroupResource) -> Option<std::sync::Arc<ResourceType>> {
    state.registry.any_version(resource)
}

fn split_key(key: &str) -> (Option<&str>, &str) {
    match key.split_once('/') {
        Some((ns, name)) => (Some(ns), name),
        None => (None, key),
    }
}

fn read(state: &Shared, target: &ObjectRef) -> Option<(std::sync::Arc<ResourceType>, Value)> {
    let rt = resource_type(state, &target.resource)?;
    let stored = state.store.get(&target.resource, &target.key)?;
    Some((rt, stored.value()))
}

/// Rewrites an object through the normal update path, retrying on conflicts.
fn modify(state: &Shared, target: &ObjectRef, change: &mut dyn FnMut(&mut Value)) -> Step {
    let Some(rt) = resource_type(state, &target.resource) else {
        return Ok(());
    };
    let (namespace, name) = split_key(&target.key);
    let result = state.write(&rt, namespace, name, None, &WriteOptions::default(), None, &mut |current| {
        let mut next = current.clone();
        change(&mut next);
        Ok(next)
    });
    match result {
        Err(e) if e.code == 404 => Ok(()),
        other => other.map(|_| ()),
    }
}

fn remove(state: &Shared, target: &ObjectRef) -> Step {
    let Some(rt) = resource_type(state, &target.resource) else {
        return Ok(());
    };
    let (namespace, name) = split_key(&target.key);
    let opts = DeleteOptions { propagation: Some(Propagation::Background), ..DeleteOptions::default() };
    match state.delete(&rt, namespace, name, &opts) {
        Err(e) if e.code == 404 => Ok(()),
        other => other.map(|_| ()),
    }
}

fn drop_finalizer(state: &Shared, target: &ObjectRef, finalizer: &str) -> Step {
    modify(state, target, &mut |object| {
        let kept: Vec<String> = object::finalizers(object).into_iter().filter(|f| f != finalizer).collect();
        object::set_finalizers(object, &kept);
    })
}

/// An object marked for deletion: foreground deletes dependents first; orphan
/// releases them.
fn deleting(state: &Shared, resource: &GroupResource, key: &str) -> Step {
    let target = ObjectRef { resource: resource.clone(), key: key.to_string() };
    let Some((_, object)) = read(state, &target) else {
        return Ok(());
    };
    let Some(uid) = object::uid(&object).map(str::to_string) else {
        return Ok(());
    };
    let finalizers = object::finalizers(&object);
    if finalizers.iter().any(|f| f == ORPHAN) {
        for dependent in state.store.dependents(&uid) {
            modify(state, &dependent, &mut |d| strip_owner(d, &uid))?;
        }
        drop_finalizer(state, &target, ORPHAN)?;
    }
    if finalizers.iter().any(|f| f == FOREGROUND) {
        for dependent in state.store.dependents(&uid) {
            remove(state, &dependent)?;
        }
        owner_waiting(state, &uid)?;
    }
    Ok(())
}

/// Foreground deletion finishes once no dependent blocks it.
fn owner_waiting(state: &Shared, uid: &str) -> Step {
    let Some(owner) = state.store.owner_ref(uid) else {
        return Ok(());
    };
    let Some((_, object)) = read(state, &owner) else {
        return Ok(());
    };
    if !object::finalizers(&object).iter().any(|f| f == FOREGROUND) {
        return Ok(());
    }
    let blocked = state
        .store
        .dependents(uid)
        .iter()
        .any(|d| state.store.get(&d.resource, &d.key).is_some_and(|s| blocks_owner(&s.value(), uid)));
    if blocked { Ok(()) } else { drop_finalizer(state, &owner, FOREGROUND) }
}

fn blocks_owner(dependent: &Value, uid: &str) -> bool {
    dependent["metadata"]["ownerReferences"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|r| r["uid"] == uid && r["blockOwnerDeletion"] == true)
}

fn strip_owner(object: &mut Value, uid: &str) {
    let meta = object::metadata_mut(object);
    let kept: Vec<Value> = meta
        .get("ownerReferences")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|r| r["uid"] != uid)
        .cloned()
        .collect();
    if kept.is_empty() {
        meta.remove("ownerReferences");
    } else {
        meta.insert("ownerReferences".into(), Value::Array(kept));
    }
}

/// An owner is gone: dependents with no owner left go too; others drop the dangling reference.
fn owner_gone(state: &Shared, uid: &str) -> Step {
    for dependent in state.store.dependents(uid) {
        let Some((_, object)) = read(state, &dependent) else {
            continue;
        };
        let any_left = object::owner_uids(&object).any(|o| o != uid && state.store.uid_exists(o));
        if any_left {
            modify(state, &dependent, &mut |d| strip_owner(d, uid))?;
        } else {
            remove(state, &dependent)?;
        }
    }
    Ok(())
}

/// A terminating namespace: delete its content, then release the namespace.
fn namespace(state: &Shared, name: &str) -> Step {
    let target = ObjectRef { resource: kinds::namespaces(), key: name.to_string() };
    let Some((_, ns)) = read(state, &target) else {
        return Ok(());
    };
    if object::deletion_timestamp(&ns).is_none() {
        return Ok(());
    }
    let resources = state.registry.namespaced_resources();
    for resource in &resources {
        for key in state.store.keys(resource, Some(name)) {
            let item = ObjectRef { resource: resource.clone(), key };
            let marked = read(state, &item).is_some_and(|(_, o)| object::deletion_timestamp(&o).is_some());
            if !marked {
                remove(state, &item)?;
            }
        }
    }
    if resources.iter().any(|r| !state.store.keys(r, Some(name)).is_empty()) {
        // Objects with finalizers are still going; their removal brings us back here.
        return Ok(());
    }
    let Some(rt) = resource_type(state, &target.resource) else {
        return Ok(());
    };
    let result = state.write(&rt, None, name, Some("finalize"), &WriteOptions::default(), None, &mut |current| {
        let mut next = current.clone();
        let kept: Vec<Value> = current["spec"]["finalizers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| *f != NAMESPACE_FINALIZER)
            .cloned()
            .collect();
        next["spec"]["finalizers"] = Value::Array(kept);
        Ok(next)
    });
    match result {
        Err(e) if e.code == 404 => Ok(()),
        other => other.map(|_| ()),
    }
}

/// A CRD being deleted: delete its custom resources, then release the CRD.
fn crd_cleanup(state: &Shared, name: &str) -> Step {
    let target = ObjectRef {
        resource: GroupResource::new("apiextensions.k8s.io", "customresourcedefinitions"),
        key: name.to_string(),
    };
    let Some((_, crd_object)) = read(state, &target) else {
        return Ok(());
    };
    if object::deletion_timestamp(&crd_object).is_none() {
        return Ok(());
    }
    let group = crd_object["spec"]["group"].as_str().unwrap_or_default();
    let plural = crd_object["spec"]["names"]["plural"].as_str().unwrap_or_default();
    let resource = GroupResource::new(group, plural);
    let keys = state.store.keys(&resource, None);
    for key in &keys {
        let item = ObjectRef { resource: resource.clone(), key: key.clone() };
        remove(state, &item)?;
    }
    if state.store.keys(&resource, None).is_empty() {
        drop_finalizer(state, &target, crd::CLEANUP_FINALIZER)?;
    }
    Ok(())
}
