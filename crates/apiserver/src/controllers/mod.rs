//! The controllers a real cluster runs in kube-controller-manager and the
//! apiextensions server, reduced to what clients observe: garbage collection of
//! dependents (background, foreground, orphan), namespace termination and CRD cleanup.
//!
//! The workload controllers play kube-controller-manager's deployment, ReplicaSet, Job,
//! CronJob, resource quota, endpoints and EndpointSlice controllers and kube-scheduler
//! (`deployments`, `replicasets`, `jobs`, `cronjobs`, `quotas`, `endpoints`, `scheduler`).
//!
//! They also play the certificate signer for `kubernetes.io/kube-apiserver-client` and the
//! CSR cleaner, and give every namespace its `default` ServiceAccount and
//! `kube-root-ca.crt`.
//!
//! They react to store notices, coalesce what arrives together, and act through the
//! same verbs as HTTP clients. A step may also ask to run again at a time (a CronJob's
//! next scheduled minute): the loop sleeps until the earliest such time on the server's
//! clock.

mod aggregation;
mod crds;
mod cronjobs;
mod csr;
pub mod deployments;
mod endpoints;
mod events;
mod gc;
mod jobs;
mod namespaces;
mod quotas;
mod replicasets;
mod scheduler;
mod workloads;

pub use namespaces::ensure_defaults;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use tokio::sync::mpsc;

use super::crd;
use super::key::ObjectKey;
use super::kinds;
use super::object;
use super::options::{DeleteOptions, Propagation, WriteOptions};
use super::registry::{GroupResource, ResourceType};
use super::state::Shared;
use super::store::{EventType, Notice, ObjectRef};

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
    /// A new namespace needs its default ServiceAccount and root CA ConfigMap.
    NamespaceDefaults(String),
    /// A ClusterRole changed: the aggregated ClusterRoles need a look.
    AggregateRoles,
    /// A CSR may be ready to sign.
    Sign(String),
    /// The CSR cleaner's periodic sweep.
    CleanCsrs,
    /// A Deployment's ReplicaSets and status need a look.
    Deployment(String),
    /// A ReplicaSet's Pods and status need a look.
    ReplicaSet(String),
    /// A Job's Pods and status need a look.
    Job(String),
    /// A CronJob's schedule, Jobs and status need a look.
    CronJob(String),
    /// Something in a namespace changed: the usage its quotas record needs a look.
    Quotas(String),
    /// A Service's Endpoints and EndpointSlice need a look.
    Endpoints(String),
    /// Pods of a namespace changed: the Endpoints of its Services need a look.
    EndpointsIn(String),
    /// A Pod may need a node.
    Schedule(String),
    /// A Node changed: Pods waiting for one need a look.
    ScheduleAll,
}

impl Work {
    /// Whether the apiextensions server does it (kube-apiserver's own), not
    /// kube-controller-manager.
    fn is_apiextensions(&self) -> bool {
        matches!(self, Self::CrdCleanup(_) | Self::CrdRemoved(_))
    }

    fn is_workload(&self) -> bool {
        matches!(
            self,
            Self::Deployment(_)
                | Self::ReplicaSet(_)
                | Self::Job(_)
                | Self::CronJob(_)
                | Self::Quotas(_)
                | Self::Endpoints(_)
                | Self::EndpointsIn(_)
                | Self::Schedule(_)
                | Self::ScheduleAll
        )
    }
}

/// Runs until the store is dropped.
pub async fn run(state: Shared, mut notices: mpsc::UnboundedReceiver<Notice>) {
    // Failed steps and how often each has failed in a row.
    let mut failed: BTreeMap<Work, u32> = BTreeMap::new();
    // Steps that asked to run again at a time; the CronJobs of a store opened again are
    // due at once.
    let clock = state.settings.clock.clone();
    let mut due: BTreeMap<Work, jiff::Timestamp> =
        cronjobs::all(&state).into_iter().map(|key| (Work::CronJob(key), clock.now())).collect();
    // The first sweep comes at once: a store opened again may hold requests long done.
    let mut sweep = tokio::time::interval(CSR_SWEEP);
    sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let mut batch = BTreeSet::new();
        let next_due = due.values().min().copied();
        tokio::select! {
            _ = sweep.tick() => {
                batch.insert(Work::CleanCsrs);
            }
            () = clock.sleep_until(next_due.unwrap_or_default()), if next_due.is_some() => {
                let now = clock.now();
                batch.extend(due.iter().filter(|(_, at)| **at <= now).map(|(work, _)| work.clone()));
            }
            notice = notices.recv() => match notice {
                Some(first) => plan(&first, &mut batch),
                None => return,
            },
            // A step that failed (a write conflict, say) is tried again shortly, so no
            // change is lost for want of a later notice.
            () = tokio::time::sleep(RETRY), if !failed.is_empty() => batch.extend(failed.keys().cloned()),
        }
        while let Ok(next) = notices.try_recv() {
            plan(&next, &mut batch);
        }
        for work in batch {
            let Some(again) = handle(&state, &work) else {
                *failed.entry(work).or_insert(0) += 1;
                continue;
            };
            failed.remove(&work);
            match again {
                Some(at) => due.insert(work, at),
                None => due.remove(&work),
            };
        }
        failed.retain(|work, attempts| {
            let more = *attempts < RETRIES;
            if !more {
                tracing::warn!(?work, "built-in controller step keeps failing; it waits for the next change");
            }
            more
        });
    }
}

/// How often the CSR cleaner looks (kube-controller-manager's polling interval).
const CSR_SWEEP: std::time::Duration = std::time::Duration::from_secs(3600);

/// Pause before failed steps run again.
const RETRY: std::time::Duration = std::time::Duration::from_millis(100);

/// Tries of a failing step before it waits for the next notice instead (about 5 s).
const RETRIES: u32 = 50;

fn plan(notice: &Notice, batch: &mut BTreeSet<Work>) {
    workloads::plan(notice, batch);
    let event = &notice.event;
    // Events are never counted against quotas (and are written often).
    if let Some(namespace) = event.namespace()
        && notice.resource.resource != "events"
    {
        batch.insert(Work::Quotas(namespace.to_string()));
    }
    if notice.resource == kinds::key_of::<k8s_openapi::api::rbac::v1::ClusterRole>() {
        batch.insert(Work::AggregateRoles);
    }
    if !notice.deleting {
        if notice.resource == kinds::namespaces() && event.kind == EventType::Added {
            batch.insert(Work::NamespaceDefaults(event.key.clone()));
        } else if notice.resource == kinds::certificate_signing_requests() {
            batch.insert(Work::Sign(event.key.clone()));
        }
        // A dependent may name an owner that does not exist: the collector checks its
        // owners (only objects that have owners are parsed).
        let json = event.json();
        if memchr_owner_references(&json) {
            for owner in object::owner_uids(&object::metadata_only(&json)) {
                batch.insert(Work::OwnerGone(owner.to_string()));
            }
        }
        return;
    }
    if event.kind == EventType::Deleted
        && let Some((namespace, name)) = event.key.split_once('/')
        && namespaces::is_default_object(&notice.resource, name)
    {
        // The root CA ConfigMap and the default ServiceAccount come back when deleted.
        batch.insert(Work::NamespaceDefaults(namespace.to_string()));
    }
    let object = &object::metadata_only(&event.json());
    let is_crd = notice.resource == kinds::custom_resource_definitions();
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
        // Foreground and orphan deletion of a namespace are the collector's too.
        batch.insert(Work::Deleting(notice.resource.clone(), event.key.clone()));
    } else {
        if is_crd {
            batch.insert(Work::CrdCleanup(event.key.clone()));
        }
        batch.insert(Work::Deleting(notice.resource.clone(), event.key.clone()));
    }
}

/// Whether serialized JSON mentions `ownerReferences` at all (a cheap test before parsing).
fn memchr_owner_references(json: &[u8]) -> bool {
    memchr::memmem::find(json, b"\"ownerReferences\"").is_some()
}

/// Group and plural of a resource that is not built in.
fn custom_resource_of(resource: &GroupResource) -> Option<(&str, &str)> {
    (!kinds::is_builtin(&resource.group, &resource.resource))
        .then_some((resource.group.as_str(), resource.resource.as_str()))
}

/// Runs one step: `None` when it failed and should run again, else when it asks to run
/// again regardless of changes.
fn handle(state: &Shared, work: &Work) -> Option<Option<jiff::Timestamp>> {
    let settings = &state.settings;
    if !work.is_apiextensions() && !settings.controller_manager || work.is_workload() && !settings.workload_controllers
    {
        return Some(None);
    }
    match step(state, work) {
        Ok(again) => Some(again),
        Err(e) => {
            tracing::debug!(?work, error = %e, "built-in controller step failed; it runs again");
            None
        }
    }
}

/// Runs one step; a CronJob's and a namespace's in its deletion grace answer when they are
/// next due.
fn step(state: &Shared, work: &Work) -> Result<Option<jiff::Timestamp>, super::status::ApiError> {
    let done: Step = match work {
        Work::Deleting(resource, key) => gc::deleting(state, resource, key),
        Work::OwnerGone(uid) => gc::owner_gone(state, uid),
        Work::OwnerWaiting(uid) => gc::owner_waiting(state, uid),
        Work::Namespace(name) => return namespaces::terminate(state, name),
        Work::NamespaceDefaults(name) => namespaces::ensure_defaults(state, name),
        Work::CrdCleanup(name) => crds::cleanup(state, name),
        Work::Sign(name) => csr::sign(state, name),
        Work::AggregateRoles => aggregation::sync(state),
        Work::CleanCsrs => csr::clean(state),
        Work::Deployment(key) => deployments::sync(state, key),
        Work::ReplicaSet(key) => replicasets::sync(state, key),
        Work::Job(key) => jobs::sync(state, key),
        Work::CronJob(key) => return cronjobs::sync(state, key),
        Work::Quotas(namespace) => quotas::sync_namespace(state, namespace),
        Work::Endpoints(key) => endpoints::sync(state, key),
        Work::EndpointsIn(namespace) => endpoints::sync_namespace(state, namespace),
        Work::Schedule(key) => scheduler::schedule(state, key),
        Work::ScheduleAll => scheduler::schedule_all(state),
        Work::CrdRemoved(name) => {
            // A CRD created again under the same name since stays served.
            let crds = kinds::custom_resource_definitions();
            if state.store.get(&crds, name).is_none() {
                crd::unregister(&state.registry, name);
            }
            Ok(())
        }
    };
    done.map(|()| None)
}

pub(super) type Step = Result<(), super::status::ApiError>;

pub(super) fn resource_type(state: &Shared, resource: &GroupResource) -> Option<std::sync::Arc<ResourceType>> {
    state.registry.any_version(resource)
}

pub(super) fn split_key(key: &str) -> (Option<&str>, &str) {
    match key.split_once('/') {
        Some((ns, name)) => (Some(ns), name),
        None => (None, key),
    }
}

pub(super) fn read(state: &Shared, target: &ObjectRef) -> Option<(std::sync::Arc<ResourceType>, Value)> {
    let rt = resource_type(state, &target.resource)?;
    let stored = state.store.get(&target.resource, &target.key)?;
    Some((rt, stored.value()))
}

/// Rewrites an object through the normal update path, retrying on conflicts.
pub(super) fn modify(state: &Shared, target: &ObjectRef, change: &mut dyn FnMut(&mut Value)) -> Step {
    let Some(rt) = resource_type(state, &target.resource) else {
        return Ok(());
    };
    let (namespace, name) = split_key(&target.key);
    let result = state.resource(&rt).write(
        ObjectKey::new(namespace, name),
        None,
        &WriteOptions::default(),
        None,
        &mut |current| {
            let mut next = current.clone();
            change(&mut next);
            Ok(next)
        },
    );
    match result {
        Err(e) if e.code == 404 => Ok(()),
        other => other.map(|_| ()),
    }
}

pub(super) fn remove(state: &Shared, target: &ObjectRef) -> Step {
    remove_with(state, target, Propagation::Background)
}

/// Deletes an object (gone already is fine) with the given propagation for its dependents.
pub(super) fn remove_with(state: &Shared, target: &ObjectRef, propagation: Propagation) -> Step {
    let Some(rt) = resource_type(state, &target.resource) else {
        return Ok(());
    };
    let (namespace, name) = split_key(&target.key);
    let opts = DeleteOptions { propagation: Some(propagation), ..DeleteOptions::default() };
    match state.resource(&rt).delete(ObjectKey::new(namespace, name), &opts) {
        Err(e) if e.code == 404 => Ok(()),
        other => other.map(|_| ()),
    }
}

pub(super) fn drop_finalizer(state: &Shared, target: &ObjectRef, finalizer: &str) -> Step {
    modify(state, target, &mut |object| {
        let kept: Vec<String> = object::finalizers(object).into_iter().filter(|f| f != finalizer).collect();
        object::set_finalizers(object, &kept);
    })
}
