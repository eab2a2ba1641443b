//! What some built-in kinds add to the generic object rules: namespaces, CRDs,
//! CertificateSigningRequests and Deployments.

use serde_json::{Value, json};

use super::auth::User;
use super::crd;
use super::object;
use super::registry::{GroupResource, ResourceType};
use super::resource::Propagation;
use super::status::{ApiError, Cause};

/// The finalizer namespace termination waits on.
pub const NAMESPACE_FINALIZER: &str = "kubernetes";

/// The storage key of namespaces.
pub fn namespaces() -> GroupResource {
    GroupResource::new("", "namespaces")
}

pub(super) fn is(rt: &ResourceType, group: &str, plural: &str) -> bool {
    rt.group == group && rt.plural == plural
}

/// The storage key of ServiceAccounts.
pub fn service_accounts() -> GroupResource {
    GroupResource::new("", "serviceaccounts")
}

/// The storage key of CustomResourceDefinitions.
pub fn custom_resource_definitions() -> GroupResource {
    GroupResource::new("apiextensions.k8s.io", "customresourcedefinitions")
}

/// The storage key of CertificateSigningRequests.
pub fn certificate_signing_requests() -> GroupResource {
    GroupResource::new("certificates.k8s.io", "certificatesigningrequests")
}

/// Name rules per kind.
pub fn check_name(rt: &ResourceType, name: &str) -> Option<Cause> {
    if is(rt, "", "namespaces") {
        object::check_label("metadata.name", name)
    } else if rt.group == "rbac.authorization.k8s.io" || is(rt, "certificates.k8s.io", "certificatesigningrequests") {
        object::check_path_segment("metadata.name", name)
    } else {
        object::check_subdomain("metadata.name", name)
    }
}

/// Defaults and checks for a new object of a special kind.
pub fn on_create(rt: &ResourceType, object: &mut Value, user: Option<&User>) -> Result<(), ApiError> {
    if is(rt, "", "namespaces") {
        object["spec"] = json!({"finalizers": [NAMESPACE_FINALIZER]});
        object["status"] = json!({"phase": "Active"});
        name_label(object);
    } else if is(rt, "apiextensions.k8s.io", "customresourcedefinitions") {
        crd::prepare(object)?;
    } else if is(rt, "certificates.k8s.io", "certificatesigningrequests") {
        // The requester is whoever sent the CSR, never what the body claims.
        let (name, uid, groups) = user.map(|u| (u.name.clone(), u.uid.clone(), u.groups.clone())).unwrap_or_default();
        object["spec"]["username"] = json!(name);
        object["spec"]["uid"] = json!(uid);
        object["spec"]["groups"] = json!(groups);
        if let Some(spec) = object["spec"].as_object_mut() {
            spec.remove("extra");
        }
    } else if is(rt, "apps", "deployments") && object["spec"]["replicas"].is_null() {
        object["spec"]["replicas"] = json!(1);
    }
    Ok(())
}

/// Rules for updates of a special kind.
pub fn on_update(rt: &ResourceType, old: &Value, next: &mut Value) -> Result<(), ApiError> {
    if is(rt, "", "namespaces") {
        name_label(next);
        if next["status"]["phase"].is_null() {
            next["status"]["phase"] = old["status"]["phase"].clone();
        }
    } else if is(rt, "apiextensions.k8s.io", "customresourcedefinitions") {
        crd::prepare(next)?;
        if object::deletion_timestamp(next).is_some() {
            crd::set_terminating(next);
        }
    }
    Ok(())
}

/// A namespace always carries `kubernetes.io/metadata.name`, as upstream guarantees.
fn name_label(object: &mut Value) {
    let name = object::name(object).unwrap_or_default().to_string();
    let meta = object::metadata_mut(object);
    let labels = object::ensure_object(meta.entry("labels").or_insert_with(|| json!({})));
    labels.insert("kubernetes.io/metadata.name".into(), json!(name));
}

/// The CSR `/approval` subresource: only Approved and Denied conditions may change.
pub fn approval(old: &Value, new: &Value) -> Result<Value, ApiError> {
    let name = object::name(old).unwrap_or_default();
    let is_decision = |c: &&Value| matches!(c["type"].as_str(), Some("Approved" | "Denied"));
    let requested: Vec<Value> = new["status"]["conditions"].as_array().cloned().unwrap_or_default();
    if let Some(other) = requested.iter().find(|c| !is_decision(c) && !old_has(old, c)) {
        return Err(ApiError::invalid(
            "CertificateSigningRequest",
            "certificates.k8s.io",
            name,
            vec![Cause::new(
                "FieldValueForbidden",
                "status.conditions",
                format!(
                    "Forbidden: only Approved and Denied conditions may be set through /approval, not {:?}",
                    other["type"]
                ),
            )],
        ));
    }
    let approved = requested.iter().any(|c| c["type"] == "Approved");
    let denied = requested.iter().any(|c| c["type"] == "Denied");
    if approved && denied {
        return Err(ApiError::invalid(
            "CertificateSigningRequest",
            "certificates.k8s.io",
            name,
            vec![Cause::new(
                "FieldValueInvalid",
                "status.conditions",
                "Invalid value: Approved and Denied conditions are mutually exclusive",
            )],
        ));
    }
    let mut conditions: Vec<Value> =
        old["status"]["conditions"].as_array().into_iter().flatten().filter(|c| !is_decision(c)).cloned().collect();
    let now = object::now();
    for mut c in requested.into_iter().filter(|c| is_decision(&c)) {
        if c["status"].is_null() {
            c["status"] = json!("True");
        }
        for stamp in ["lastUpdateTime", "lastTransitionTime"] {
            if c[stamp].is_null() {
                c[stamp] = json!(now);
            }
        }
        conditions.push(c);
    }
    let mut out = old.clone();
    out["status"]["conditions"] = Value::Array(conditions);
    Ok(out)
}

fn old_has(old: &Value, condition: &Value) -> bool {
    old["status"]["conditions"].as_array().is_some_and(|a| a.contains(condition))
}

/// The namespace `/finalize` subresource: only `spec.finalizers` changes.
pub fn finalize(old: &Value, new: &Value) -> Value {
    let mut out = old.clone();
    out["spec"]["finalizers"] = new["spec"]["finalizers"].clone();
    if out["spec"]["finalizers"].is_null() {
        out["spec"]["finalizers"] = json!([]);
    }
    out
}

/// Whether an object marked for deletion has nothing left holding it: no finalizer, and
/// no grace period still running (a Pod's ends when its kubelet deletes it with 0).
pub fn deletion_complete(rt: &ResourceType, object: &Value) -> bool {
    if object::deletion_timestamp(object).is_none() || !object::finalizers(object).is_empty() {
        return false;
    }
    if object::deletion_grace_period(object) > 0 {
        return false;
    }
    !is(rt, "", "namespaces") || object["spec"]["finalizers"].as_array().is_none_or(Vec::is_empty)
}

/// Propagation when the client names none.
pub fn default_propagation(_rt: &ResourceType) -> Propagation {
    Propagation::Background
}

/// The grace period a deletion gives an object (upstream's `CheckGracefulDelete`): only
/// Pods have one — the one the request asks for, else `spec.terminationGracePeriodSeconds`;
/// none for a Pod bound to no node or already finished (no kubelet will end it); a
/// negative one counts as 1. The Pod then stays, marked, until its kubelet has stopped its
/// containers and deletes it with a grace period of 0.
pub fn deletion_grace(rt: &ResourceType, object: &Value, asked: Option<i64>) -> i64 {
    if !is(rt, "", "pods") {
        return 0;
    }
    let bound = object["spec"]["nodeName"].as_str().is_some_and(|n| !n.is_empty());
    let finished = matches!(object["status"]["phase"].as_str(), Some("Succeeded" | "Failed"));
    if !bound || finished {
        return 0;
    }
    let grace = asked.or_else(|| object["spec"]["terminationGracePeriodSeconds"].as_i64()).unwrap_or(0);
    if grace < 0 { 1 } else { grace }
}

/// Kinds whose deletion always goes through a terminating phase.
pub fn deletes_gracefully(rt: &ResourceType) -> bool {
    is(rt, "", "namespaces")
}

/// The finalizer a kind gains when it is deleted: a CRD keeps its name until its
/// custom resources are gone, whatever updates did to its finalizers before.
pub fn deletion_finalizer(rt: &ResourceType) -> Option<&'static str> {
    is(rt, "apiextensions.k8s.io", "customresourcedefinitions").then_some(crd::CLEANUP_FINALIZER)
}

/// Marks what a kind shows while it is being deleted.
pub fn on_delete(rt: &ResourceType, object: &mut Value) {
    if is(rt, "", "namespaces") {
        object["status"]["phase"] = json!("Terminating");
    } else if is(rt, "apiextensions.k8s.io", "customresourcedefinitions") {
        crd::set_terminating(object);
    }
}
