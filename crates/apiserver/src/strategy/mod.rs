//! Per-resource behaviour in the shape of kube-apiserver's registry strategies
//! (`pkg/registry/*/*/strategy.go`): defaults (`pkg/apis/*/v1/defaults.go`),
//! validation on create and update (`pkg/apis/*/validation`), and the typed decoding
//! that strict field validation needs.
//!
//! Each kind's descriptor (`kinds`) names its strategy; a kind without one of its own gets
//! [`Default`], and strict field validation checks its body against its typed struct.

pub mod certificates;
pub mod config;
pub mod crds;
pub mod cronjobs;
pub mod jobs;
pub mod namespaces;
pub mod nodes;
pub mod pods;
pub mod quotas;
pub mod rbac;
pub mod scheduling;
pub mod services;
pub mod workloads;

use serde_json::Value;

use super::auth::User;
use super::object;
use super::protobuf;
use super::status::{ApiError, Cause};

/// What a resource adds to the generic object rules. Every hook has the generic rule as
/// its default, so a kind states only where it differs.
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
    /// The rule a name must follow (`ValidateObjectMeta`'s name function): a DNS subdomain
    /// unless the kind says otherwise.
    fn check_name(&self, name: &str) -> Option<Cause> {
        object::check_subdomain("metadata.name", name)
    }
    /// Whether a create may set the status of a kind that has a `/status` subresource.
    fn keeps_status_on_create(&self) -> bool {
        false
    }
    /// What the server sets on a validated new object (who asked, initial status).
    fn finish_create(&self, _object: &mut Value, _user: Option<&User>) -> Result<(), ApiError> {
        Ok(())
    }
    /// What the server sets on a validated update.
    fn finish_update(&self, _old: &Value, _next: &mut Value) -> Result<(), ApiError> {
        Ok(())
    }
    /// The object an update of a subresource other than `/status` leaves (`None`: the kind
    /// does not serve `subresource`).
    fn update_subresource(&self, _subresource: &str, _old: &Value, _new: &Value) -> Option<Result<Value, ApiError>> {
        None
    }
    /// The grace period a deletion gives an object (upstream's `CheckGracefulDelete`):
    /// none unless the kind has one.
    fn deletion_grace(&self, _object: &Value, _asked: Option<i64>) -> i64 {
        0
    }
    /// Whether every deletion goes through a terminating phase, finalizers or not.
    fn deletes_gracefully(&self) -> bool {
        false
    }
    /// The finalizer the kind gains when it is deleted.
    fn deletion_finalizer(&self) -> Option<&'static str> {
        None
    }
    /// Marks what the kind shows while it is being deleted.
    fn on_delete(&self, _object: &mut Value) {}
    /// Whether a marked object has nothing of the kind's own left holding it (beyond
    /// `metadata.finalizers` and the grace period, which every kind has).
    fn nothing_else_holds(&self, _object: &Value) -> bool {
        true
    }
}

/// The strategy of kinds with nothing of their own.
pub struct Default;

impl Strategy for Default {}

/// Replaces `object` with its typed form after a typed rewrite (defaulting through
/// k8s-openapi's structs), keeping the `null`s kube-apiserver's Go types write for zero
/// Times that the object carried ([`protobuf::keep_zero_nulls`]); left as it is when the
/// typed form does not encode.
pub fn retyped<T: serde::Serialize>(typed: &T, object: &mut Value) {
    if let Ok(mut value) = serde_json::to_value(typed) {
        protobuf::keep_zero_nulls(object, &mut value);
        *object = value;
    }
}
