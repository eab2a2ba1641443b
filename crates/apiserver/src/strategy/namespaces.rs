//! Namespaces: the `kubernetes` finalizer and the `Active` phase on create, the
//! `kubernetes.io/metadata.name` label upstream guarantees, a name that is a DNS label,
//! `/finalize` changing only `spec.finalizers`, and a deletion that always goes through
//! `Terminating` until namespace termination has emptied `spec.finalizers`.

use serde_json::{Value, json};

use super::super::auth::User;
use super::super::object;
use super::super::status::{ApiError, Cause};
use super::Strategy;

/// The finalizer namespace termination waits on.
pub const NAMESPACE_FINALIZER: &str = "kubernetes";

/// The Namespace strategy.
pub struct Namespaces;

impl Strategy for Namespaces {
    fn check_name(&self, name: &str) -> Option<Cause> {
        object::check_label("metadata.name", name)
    }

    fn finish_create(&self, object: &mut Value, _user: Option<&User>) -> Result<(), ApiError> {
        object["spec"] = json!({"finalizers": [NAMESPACE_FINALIZER]});
        object["status"] = json!({"phase": "Active"});
        name_label(object);
        Ok(())
    }

    fn finish_update(&self, old: &Value, next: &mut Value) -> Result<(), ApiError> {
        name_label(next);
        if next["status"]["phase"].is_null() {
            next["status"]["phase"] = old["status"]["phase"].clone();
        }
        Ok(())
    }

    fn update_subresource(&self, subresource: &str, old: &Value, new: &Value) -> Option<Result<Value, ApiError>> {
        (subresource == "finalize").then(|| Ok(finalize(old, new)))
    }

    fn deletes_gracefully(&self) -> bool {
        true
    }

    fn on_delete(&self, object: &mut Value) {
        object["status"]["phase"] = json!("Terminating");
    }

    fn nothing_else_holds(&self, object: &Value) -> bool {
        object["spec"]["finalizers"].as_array().is_none_or(Vec::is_empty)
    }
}

/// A namespace always carries `kubernetes.io/metadata.name`.
fn name_label(object: &mut Value) {
    let name = object::name(object).unwrap_or_default().to_string();
    let meta = object::metadata_mut(object);
    let labels = object::ensure_object(meta.entry("labels").or_insert_with(|| json!({})));
    labels.insert("kubernetes.io/metadata.name".into(), json!(name));
}

/// `/finalize`: only `spec.finalizers` changes.
fn finalize(old: &Value, new: &Value) -> Value {
    let mut out = old.clone();
    out["spec"]["finalizers"] = new["spec"]["finalizers"].clone();
    if out["spec"]["finalizers"].is_null() {
        out["spec"]["finalizers"] = json!([]);
    }
    out
}
