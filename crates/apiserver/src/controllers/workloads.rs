//! What the workload controllers share: which changes wake which controller, and how
//! they find the objects a controller owns (through `ownerReferences` with
//! `controller: true`, as kube-controller-manager's controllers do).

use std::collections::BTreeMap;
use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{Pod, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::super::key::ObjectKey;
use super::super::options::WriteOptions;
use super::super::registry::GroupResource;
use super::super::state::Shared;
use super::super::status::ApiError;
use super::super::store::Notice;
use super::{Step, Work, resource_type};

/// `apps/deployments`.
pub(super) fn deployments() -> GroupResource {
    GroupResource::new("apps", "deployments")
}

/// `apps/replicasets`.
pub(super) fn replica_sets() -> GroupResource {
    GroupResource::new("apps", "replicasets")
}

/// `batch/jobs`.
pub(super) fn jobs() -> GroupResource {
    GroupResource::new("batch", "jobs")
}

/// `batch/cronjobs`.
pub(super) fn cron_jobs() -> GroupResource {
    GroupResource::new("batch", "cronjobs")
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

/// The uid of `object`'s controller.
pub(super) fn controller_uid(object: &Value) -> Option<&str> {
    object["metadata"]["ownerReferences"].as_array()?.iter().find(|r| r["controller"] == true)?["uid"].as_str()
}

/// Whether `object`'s controller has this uid.
fn controlled_by(object: &Value, uid: &str) -> bool {
    controller_uid(object) == Some(uid)
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

/// A Pod of `template` named `<owner>-<random>` in the owner's namespace, controlled by the
/// owner (of `api_version` and `kind`, with `owner`'s metadata).
pub(super) fn pod_of_template(template: &PodTemplateSpec, api_version: &str, kind: &str, owner: &ObjectMeta) -> Pod {
    let base = owner.name.clone().unwrap_or_default();
    let reference = OwnerReference {
        api_version: api_version.into(),
        kind: kind.into(),
        name: base.clone(),
        uid: owner.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    };
    let meta = template.metadata.clone().unwrap_or_default();
    // ServiceAccount admission fills in the account when the Pod is created (strategy/pods.rs).
    let spec: PodSpec = template.spec.clone().unwrap_or_default();
    Pod {
        metadata: ObjectMeta {
            generate_name: Some(format!("{base}-")),
            namespace: owner.namespace.clone(),
            labels: meta.labels,
            annotations: meta.annotations.filter(|a: &BTreeMap<String, String>| !a.is_empty()),
            owner_references: Some(vec![reference]),
            ..ObjectMeta::default()
        },
        spec: Some(spec),
        status: None,
    }
}

/// Replaces the status of `resource` `namespace/name` through its status subresource (an
/// object deleted meanwhile needs none).
pub(super) fn replace_status<T: Serialize>(
    state: &Shared,
    resource: &GroupResource,
    namespace: &str,
    name: &str,
    status: &T,
) -> Step {
    let Some(rt) = resource_type(state, resource) else { return Ok(()) };
    let value = serde_json::to_value(status).map_err(|e| ApiError::internal(format!("serializing a status: {e}")))?;
    let result = state.resource(&rt).write(
        ObjectKey::namespaced(namespace, name),
        Some("status"),
        &WriteOptions::default(),
        None,
        &mut |c| {
            let mut next = c.clone();
            next["status"] = value.clone();
            Ok(next)
        },
    );
    match result {
        Err(e) if e.code == 404 => Ok(()),
        other => other.map(|_| ()),
    }
}

/// The workload work a change asks for: a Deployment syncs when it or one of its
/// ReplicaSets changes, a ReplicaSet or a Job when it or one of its Pods changes, a
/// CronJob when it or one of its Jobs changes, the
/// Endpoints of a Service when it or a Pod of its namespace changes; a Pod no node runs
/// yet is scheduled, and so are all such Pods when a Node changes.
pub(super) fn plan(notice: &Notice, batch: &mut BTreeSet<Work>) {
    let event = &notice.event;
    let namespace = event.namespace().unwrap_or_default();
    // Parsed once, and only for the kinds that need it.
    let parsed = std::cell::OnceCell::new();
    let object = || parsed.get_or_init(|| event.value());
    let owner =
        |kind: &str| controller_of(object()).filter(|(k, _)| *k == kind).map(|(_, name)| format!("{namespace}/{name}"));
    if notice.resource == deployments() {
        batch.insert(Work::Deployment(event.key.clone()));
    } else if notice.resource == replica_sets() {
        batch.insert(Work::ReplicaSet(event.key.clone()));
        if let Some(deployment) = owner("Deployment") {
            batch.insert(Work::Deployment(deployment));
        }
    } else if notice.resource == jobs() {
        batch.insert(Work::Job(event.key.clone()));
        if let Some(cron_job) = owner("CronJob") {
            batch.insert(Work::CronJob(cron_job));
        }
    } else if notice.resource == cron_jobs() {
        batch.insert(Work::CronJob(event.key.clone()));
    } else if notice.resource == super::endpoints::services() {
        batch.insert(Work::Endpoints(event.key.clone()));
    } else if notice.resource == pods() {
        batch.insert(Work::EndpointsIn(namespace.to_string()));
        if let Some(set) = owner("ReplicaSet") {
            batch.insert(Work::ReplicaSet(set));
        }
        if let Some(job) = owner("Job") {
            batch.insert(Work::Job(job));
        }
        let unscheduled = object()["spec"]["nodeName"].as_str().is_none_or(str::is_empty);
        if !notice.deleting && unscheduled {
            batch.insert(Work::Schedule(event.key.clone()));
        }
    } else if notice.resource == nodes() && !notice.deleting {
        batch.insert(Work::ScheduleAll);
    }
}
