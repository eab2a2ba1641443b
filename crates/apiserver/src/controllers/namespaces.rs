//! Namespaces: termination (content first, then the `kubernetes` finalizer) and the
//! defaults every namespace gets.

use k8s_openapi::api::core::v1::Pod;
use serde_json::{Value, json};

use super::super::key::ObjectKey;
use super::super::kinds::{self, NAMESPACE_FINALIZER};
use super::super::object;
use super::super::options::WriteOptions;
use super::super::state::{ApiState, Shared};
use super::super::status::ApiError;
use super::super::store::ObjectRef;
use super::{Step, read, remove, resource_type};

/// A terminating namespace: once its deletion grace has passed, delete its content, then
/// release the namespace. Answers when to look again while the grace lasts.
pub(super) fn terminate(state: &Shared, name: &str) -> Result<Option<jiff::Timestamp>, ApiError> {
    let target = ObjectRef { resource: kinds::namespaces(), key: name.to_string() };
    let Some((_, ns)) = read(state, &target) else {
        return Ok(None);
    };
    let Some(deleted) = object::deletion_timestamp(&ns) else {
        return Ok(None);
    };
    // kube-controller-manager's namespace controller takes up a deleted namespace only after
    // its deletion grace (`namespaceDeletionGracePeriod`, 5 s), so what runs in it hears of
    // the deletion before its Pods are stopped: an operator that deletes its own namespace
    // as its cleanup's last step (upstream's klusterlet operator under ACM) still releases its
    // finalizer. A timestamp that does not parse is taken as long past.
    if let Ok(deleted) = deleted.parse::<jiff::Timestamp>()
        && let Ok(due) = deleted.checked_add(state.settings.namespace_deletion_grace)
        && state.settings.clock.now() < due
    {
        return Ok(Some(due));
    }
    remove_all(state, &target, name).map(|()| None)
}

/// Deletes the content of the terminating namespace `name`, then releases it.
fn remove_all(state: &Shared, target: &ObjectRef, name: &str) -> Step {
    let resources = state.registry.namespaced_resources();
    let pods = kinds::key_of::<Pod>();
    let mut failure = None;
    // Pods first, and the rest once every Pod is gone, as the namespace controller's
    // ordered deletion (KEP-5080) does: a Pod keeps what it runs with — its ServiceAccount,
    // and so its token, its Secrets, its RBAC — until its containers have stopped.
    remove_content(state, std::slice::from_ref(&pods), name, &mut failure);
    if state.store.keys(&pods, Some(name)).is_empty() {
        remove_content(state, &resources, name, &mut failure);
    }
    let remaining = Remaining::count(state, &resources, name);
    let Some(rt) = resource_type(state, &target.resource) else {
        return Ok(());
    };
    report(state, &rt, name, &remaining, failure.as_ref())?;
    if let Some(e) = failure {
        return Err(e);
    }
    if remaining.objects > 0 {
        // Objects with finalizers are still going; their removal brings us back here.
        return Ok(());
    }
    let result = state.resource(&rt).write(
        ObjectKey::cluster(name),
        Some("finalize"),
        &WriteOptions::default(),
        None,
        &mut |current| {
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
        },
    );
    match result {
        Err(e) if e.code == 404 => Ok(()),
        other => other.map(|_| ()),
    }
}

/// Deletes the objects of `resources` in `namespace` not yet marked for deletion; the
/// first failure goes to `failure`.
fn remove_content(
    state: &Shared,
    resources: &[super::super::registry::GroupResource],
    namespace: &str,
    failure: &mut Option<ApiError>,
) {
    for resource in resources {
        for key in state.store.keys(resource, Some(namespace)) {
            let item = ObjectRef { resource: resource.clone(), key };
            let marked = read(state, &item).is_some_and(|(_, o)| object::deletion_timestamp(&o).is_some());
            if !marked && let Err(e) = remove(state, &item) {
                failure.get_or_insert(e);
            }
        }
    }
}

/// What a terminating namespace still holds.
#[derive(Default)]
struct Remaining {
    objects: usize,
    /// `resource.group has N resource instances` per resource.
    by_resource: Vec<String>,
    /// finalizer → objects holding it.
    finalizers: std::collections::BTreeMap<String, usize>,
}

impl Remaining {
    fn count(state: &Shared, resources: &[super::super::registry::GroupResource], namespace: &str) -> Self {
        let mut remaining = Self::default();
        for resource in resources {
            let page = state.store.list(resource, Some(namespace), None, 0, &|_| true);
            if page.items.is_empty() {
                continue;
            }
            remaining.objects += page.items.len();
            remaining.by_resource.push(format!("{resource} has {} resource instances", page.items.len()));
            for item in &page.items {
                for finalizer in object::finalizers(&object::metadata_only(&item.json())) {
                    *remaining.finalizers.entry(finalizer).or_default() += 1;
                }
            }
        }
        remaining
    }
}

/// The deletion conditions of a terminating namespace, as the namespace controller
/// reports them, written through `/status` when they change.
fn report(
    state: &Shared,
    rt: &super::super::registry::ResourceType,
    name: &str,
    remaining: &Remaining,
    failure: Option<&ApiError>,
) -> Step {
    let condition = |kind: &str, on: bool, reason_on: &str, reason_off: &str, message: String| {
        json!({"type": kind, "status": if on { "True" } else { "False" },
               "reason": if on { reason_on } else { reason_off }, "message": if on { message } else { String::new() }})
    };
    let finalizers: Vec<String> =
        remaining.finalizers.iter().map(|(f, n)| format!("{f} in {n} resource instances")).collect();
    let wanted = [
        condition("NamespaceDeletionDiscoveryFailure", false, "DiscoveryFailed", "ResourcesDiscovered", String::new()),
        condition(
            "NamespaceDeletionGroupVersionParsingFailure",
            false,
            "GroupVersionParsingFailed",
            "ParsedGroupVersions",
            String::new(),
        ),
        condition(
            "NamespaceDeletionContentFailure",
            failure.is_some(),
            "ContentDeletionFailed",
            "ContentDeleted",
            failure.map(|e| format!("Failed to delete all resource types, 1 remaining: {e}")).unwrap_or_default(),
        ),
        condition(
            "NamespaceContentRemaining",
            remaining.objects > 0,
            "SomeResourcesRemain",
            "ContentRemoved",
            format!("Some resources are remaining: {}", remaining.by_resource.join(", ")),
        ),
        condition(
            "NamespaceFinalizersRemaining",
            !remaining.finalizers.is_empty(),
            "SomeFinalizersRemain",
            "ContentHasNoFinalizers",
            format!("Some content in the namespace has finalizers remaining: {}", finalizers.join(", ")),
        ),
    ];
    let result = state.resource(rt).write(
        ObjectKey::cluster(name),
        Some("status"),
        &WriteOptions::default(),
        None,
        &mut |current| {
            let mut next = current.clone();
            let now = object::now();
            let before = current["status"]["conditions"].as_array().cloned().unwrap_or_default();
            let conditions: Vec<Value> = wanted
                .iter()
                .map(|want| {
                    let same = before.iter().find(|c| c["type"] == want["type"]);
                    let mut c = want.clone();
                    c["lastTransitionTime"] = match same {
                        Some(old) if old["status"] == want["status"] => old["lastTransitionTime"].clone(),
                        _ => json!(now),
                    };
                    match same {
                        Some(old)
                            if old["status"] == c["status"]
                                && old["reason"] == c["reason"]
                                && old["message"] == c["message"] =>
                        {
                            old.clone()
                        }
                        _ => c,
                    }
                })
                .collect();
            next["status"]["conditions"] = Value::Array(conditions);
            Ok(next)
        },
    );
    match result {
        Err(e) if e.code == 404 => Ok(()),
        other => other.map(|_| ()),
    }
}

/// Whether `name` in `resource` is one of the objects every namespace gets.
pub(super) fn is_default_object(resource: &super::super::registry::GroupResource, name: &str) -> bool {
    (resource.group.is_empty() && resource.resource == "configmaps" && name == ROOT_CA)
        || (resource.group.is_empty() && resource.resource == "serviceaccounts" && name == "default")
}

/// The ConfigMap holding the cluster CA in every namespace.
const ROOT_CA: &str = "kube-root-ca.crt";

/// Gives a namespace its `default` ServiceAccount and the `kube-root-ca.crt`
/// ConfigMap, as the serviceaccount and root-ca-publisher controllers do; a ConfigMap
/// that no longer holds the CA bundle (a CA rotated since) gets it again.
pub fn ensure_defaults(state: &ApiState, namespace: &str) -> Step {
    let ca = state.security.pki.trust_bundle().to_string();
    let defaults = [
        ("serviceaccounts", json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}})),
        (
            "configmaps",
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": ROOT_CA}, "data": {"ca.crt": ca}}),
        ),
    ];
    for (plural, object) in defaults {
        let Some(rt) = state.registry.get("", "v1", plural) else { continue };
        let name = object::name(&object).unwrap_or_default().to_string();
        let result = match state.store.get(&rt.group_resource(), &super::super::store::key(Some(namespace), &name)) {
            Some(stored) if plural != "configmaps" || stored.value()["data"] == object["data"] => continue,
            Some(_) => state
                .resource(&rt)
                .write(ObjectKey::namespaced(namespace, &name), None, &WriteOptions::default(), None, &mut |current| {
                    let mut next = current.clone();
                    next["data"] = object["data"].clone();
                    Ok(next)
                })
                .map(|_| ()),
            None => state.resource(&rt).create(Some(namespace), object, &WriteOptions::default()).map(|_| ()),
        };
        match result {
            // Gone or terminating meanwhile, or created concurrently: nothing to do.
            Err(e) if matches!(e.code, 403 | 404 | 409) => {}
            other => other?,
        }
    }
    Ok(())
}
