//! Per-resource behaviour in the shape of kube-apiserver's registry strategies
//! (`pkg/registry/*/*/strategy.go`): defaults (`pkg/apis/*/v1/defaults.go`),
//! validation on create and update (`pkg/apis/*/validation`), and the typed decoding
//! that strict field validation needs.
//!
//! A built-in kind without a strategy of its own gets [`Default`], which only checks
//! the body decodes as its typed struct.

mod certificates;
mod config;
mod cronjobs;
pub mod jobs;
mod pods;
mod rbac;
mod scheduling;
mod services;
mod typed;
mod workloads;

use serde_json::Value;

use super::registry::ResourceType;
use super::status::Cause;

pub use typed::unknown_field;

/// What a resource adds to the generic object rules.
pub trait Strategy: Sync {
    /// Fills in defaults and normalizes a new object.
    fn prepare_create(&self, _object: &mut Value) {}
    /// Fills in defaults and normalizes an updated object (`old` as stored).
    fn prepare_update(&self, _old: &Value, _new: &mut Value) {}
    /// Problems with a new object.
    fn validate_create(&self, _object: &Value) -> Vec<Cause> {
        Vec::new()
    }
    /// Problems with an update.
    fn validate_update(&self, _old: &Value, _new: &Value) -> Vec<Cause> {
        Vec::new()
    }
}

/// The strategy of kinds with nothing of their own.
pub struct Default;

impl Strategy for Default {}

/// The strategy of a resource type.
pub fn of(rt: &ResourceType) -> &'static dyn Strategy {
    match (rt.group.as_str(), rt.plural.as_str()) {
        ("apps", "deployments") => &workloads::Deployments,
        ("batch", "jobs") => &jobs::Jobs,
        ("batch", "cronjobs") => &cronjobs::CronJobs,
        ("", "pods") => &pods::Pods,
        ("", "services") => &services::Services,
        ("", "configmaps") => &config::ConfigMaps,
        ("", "secrets") => &config::Secrets,
        ("rbac.authorization.k8s.io", "roles") => &rbac::Roles { namespaced: true },
        ("rbac.authorization.k8s.io", "clusterroles") => &rbac::Roles { namespaced: false },
        ("rbac.authorization.k8s.io", "rolebindings") => &rbac::Bindings { namespaced: true },
        ("rbac.authorization.k8s.io", "clusterrolebindings") => &rbac::Bindings { namespaced: false },
        ("scheduling.k8s.io", "priorityclasses") => &scheduling::PriorityClasses,
        ("certificates.k8s.io", "certificatesigningrequests") => &certificates::CertificateSigningRequests,
        _ => &Default,
    }
}
