//! Namespaces: termination (content first, then the `kubernetes` finalizer) and the
//! defaults every namespace gets.

use serde_json::{Value, json};

use super::super::kinds::{self, NAMESPACE_FINALIZER};
use super::super::object;
use super::super::resource::WriteOptions;
use super::super::state::{ApiState, Shared};
use super::super::store::ObjectRef;
use super::{Step, read, remove, resource_type};

/// A terminating namespace: delete its content, then release the namespace.
pub(super) fn terminate(state: &Shared, name: &str) -> Step {
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

/// Gives a namespace its `default` ServiceAccount and the `kube-root-ca.crt`
/// ConfigMap, as the serviceaccount and root-ca-publisher controllers do.
pub fn ensure_defaults(state: &ApiState, namespace: &str) -> Step {
    let ca = state.security.pki.ca().cert_pem.clone();
    let defaults = [
        ("serviceaccounts", json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}})),
        (
            "configmaps",
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kube-root-ca.crt"}, "data": {"ca.crt": ca}}),
        ),
    ];
    for (plural, object) in defaults {
        let Some(rt) = state.registry.get("", "v1", plural) else { continue };
        let name = object::name(&object).unwrap_or_default().to_string();
        if state.store.get(&rt.group_resource(), &super::super::store::key(Some(namespace), &name)).is_some() {
            continue;
        }
        match state.create(&rt, Some(namespace), object, &WriteOptions::default()) {
            // Gone or terminating meanwhile, or created concurrently: nothing to do.
            Err(e) if matches!(e.code, 403 | 404 | 409) => {}
            other => {
                other?;
            }
        }
    }
    Ok(())
}
