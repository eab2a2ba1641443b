//! Garbage collection of dependents: background, foreground and orphan propagation.

use serde_json::Value;

use super::super::object;
use super::super::options::Propagation;
use super::super::registry::GroupResource;
use super::super::state::Shared;
use super::super::store::ObjectRef;
use super::{Step, drop_finalizer, modify, read, remove, remove_with};

const FOREGROUND: &str = "foregroundDeletion";
const ORPHAN: &str = "orphan";

/// An object marked for deletion: foreground deletes dependents first; orphan
/// releases them.
pub(super) fn deleting(state: &Shared, resource: &GroupResource, key: &str) -> Step {
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
            release_or_remove(state, &dependent, &uid, Waiting::Yes)?;
        }
        owner_waiting(state, &uid)?;
    }
    Ok(())
}

/// Foreground deletion finishes once no dependent blocks it.
pub(super) fn owner_waiting(state: &Shared, uid: &str) -> Step {
    let Some(owner) = state.store.owner_ref(uid) else {
        return Ok(());
    };
    let Some((_, object)) = read(state, &owner) else {
        return Ok(());
    };
    if !object::finalizers(&object).iter().any(|f| f == FOREGROUND) {
        return Ok(());
    }
    let blocked = state.store.dependents(uid).iter().any(|d| {
        state.store.get(&d.resource, &d.key).is_some_and(|s| blocks_owner(&object::metadata_only(&s.json()), uid))
    });
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

/// An owner is gone (or never existed): dependents with no owner left go too; others
/// drop the dangling reference.
pub(super) fn owner_gone(state: &Shared, uid: &str) -> Step {
    if state.store.owner_ref(uid).is_some() {
        return Ok(());
    }
    for dependent in state.store.dependents(uid) {
        release_or_remove(state, &dependent, uid, Waiting::No)?;
    }
    Ok(())
}

/// Whether the owner waits, in foreground deletion, for its dependents to be gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waiting {
    Yes,
    No,
}

/// A dependent of an owner that is going: it goes too unless another owner that is
/// not itself going still holds it, in which case it only drops the reference.
/// A dependent that has dependents of its own, of an owner waiting for it, is deleted in
/// foreground too (upstream's `attemptToDeleteItem`), so the wait covers the whole tree:
/// a Deployment deleted in foreground goes once its ReplicaSets' Pods are gone.
fn release_or_remove(state: &Shared, dependent: &ObjectRef, owner: &str, waiting: Waiting) -> Step {
    let Some((_, object)) = read(state, dependent) else { return Ok(()) };
    let solid = |uid: &str| {
        state
            .store
            .owner_ref(uid)
            .and_then(|r| read(state, &r))
            .is_some_and(|(_, o)| object::deletion_timestamp(&o).is_none())
    };
    if object::owner_uids(&object).any(|o| o != owner && solid(o)) {
        return modify(state, dependent, &mut |d| strip_owner(d, owner));
    }
    let has_dependents = object::uid(&object).is_some_and(|uid| !state.store.dependents(uid).is_empty());
    if waiting == Waiting::Yes && has_dependents {
        remove_with(state, dependent, Propagation::Foreground)
    } else {
        remove(state, dependent)
    }
}
