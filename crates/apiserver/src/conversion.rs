//! Custom resources served in several versions and stored in one, as the apiextensions
//! server does it: every object is written in the CRD's storage version and read in the
//! version a client asks for. With `spec.conversion.strategy: None` only `apiVersion`
//! changes; with `Webhook` the CRD's conversion webhook converts — a `ConversionReview`
//! (`apiextensions.k8s.io/v1`, which the webhook must list in
//! `conversionReviewVersions`) through the same callout as admission webhooks — and a
//! webhook that fails, answers a failure, or changes what it may not (the objects' count,
//! kind, name, namespace or uid) fails the request with 500, as upstream's does.

use serde_json::{Value, json};

use super::callout::{self, Target};
use super::object;
use super::reader::Reader;
use super::status::ApiError;

/// How long a conversion webhook may take (upstream's fixed timeout).
const TIMEOUT_SECONDS: i32 = 30;

/// How the versions of one CRD convert into each other.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// The storage version's `apiVersion` (`group/version`).
    pub storage: String,
    /// The CRD's strategy.
    pub strategy: Strategy,
}

/// `spec.conversion.strategy`.
#[derive(Debug, Clone, PartialEq)]
pub enum Strategy {
    /// Only `apiVersion` changes.
    None,
    /// The webhook converts.
    Webhook {
        /// Where it is (`clientConfig`).
        target: WebhookTarget,
        /// The ConversionReview versions it accepts.
        review_versions: Vec<String>,
    },
}

/// A webhook's client configuration, comparable so that a registry change can tell a
/// changed CRD from an unchanged one.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookTarget(pub Value);

impl Conversion {
    /// The conversion of a CRD's `spec`, if it serves a storage version.
    pub fn of(crd_spec: &Value) -> Option<Self> {
        let group = crd_spec["group"].as_str()?;
        let storage = crd_spec["versions"].as_array()?.iter().find(|v| v["storage"] == true)?["name"].as_str()?;
        let conversion = &crd_spec["conversion"];
        let strategy = match conversion["strategy"].as_str() {
            Some("Webhook") => Strategy::Webhook {
                target: WebhookTarget(conversion["webhook"]["clientConfig"].clone()),
                review_versions: conversion["webhook"]["conversionReviewVersions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
            },
            _ => Strategy::None,
        };
        Some(Self { storage: format!("{group}/{storage}"), strategy })
    }

    /// `objects` in `api_version` (each left as it is when it already is in it).
    pub fn convert(&self, store: &Reader, objects: Vec<Value>, api_version: &str) -> Result<Vec<Value>, ApiError> {
        if objects.iter().all(|o| o["apiVersion"] == api_version) {
            return Ok(objects);
        }
        match &self.strategy {
            Strategy::None => Ok(objects.into_iter().map(|o| relabelled(o, api_version)).collect()),
            Strategy::Webhook { target, review_versions } => {
                webhook(store, target, review_versions, objects, api_version)
            }
        }
    }

    /// One object in `api_version`.
    pub fn convert_one(&self, store: &Reader, object: Value, api_version: &str) -> Result<Value, ApiError> {
        let mut converted = self.convert(store, vec![object], api_version)?;
        converted.pop().ok_or_else(|| ApiError::internal("the conversion returned no object"))
    }
}

fn relabelled(mut object: Value, api_version: &str) -> Value {
    object["apiVersion"] = json!(api_version);
    object
}

fn failed(kind: &str, api_version: &str, why: impl std::fmt::Display) -> ApiError {
    ApiError::internal(format!("conversion webhook for {api_version}, Kind={kind} failed: {why}"))
}

/// Asks the webhook to convert `objects` (those not in `api_version` already) and checks
/// its answer; the others stay where they are in the list.
fn webhook(
    store: &Reader,
    target: &WebhookTarget,
    review_versions: &[String],
    objects: Vec<Value>,
    api_version: &str,
) -> Result<Vec<Value>, ApiError> {
    let kind = objects.first().and_then(|o| o["kind"].as_str()).unwrap_or_default().to_string();
    let fail = |why: String| failed(&kind, api_version, why);
    if !review_versions.iter().any(|v| v == "v1") {
        return Err(fail(format!(
            "the webhook accepts ConversionReview versions {review_versions:?}; this server sends v1"
        )));
    }
    let config: k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::WebhookClientConfig =
        serde_json::from_value(target.0.clone()).map_err(|e| fail(format!("clientConfig: {e}")))?;
    let (to_convert, positions): (Vec<Value>, Vec<usize>) =
        objects.iter().enumerate().filter(|(_, o)| o["apiVersion"] != api_version).map(|(i, o)| (o.clone(), i)).unzip();
    let uid = object::new_uid();
    let review = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": uid, "desiredAPIVersion": api_version, "objects": to_convert}});
    let answer = callout::post(store, &Target::from(&config), TIMEOUT_SECONDS, &review).map_err(|e| fail(e.0))?;
    let response = &answer["response"];
    if response["uid"] != uid.as_str() {
        return Err(fail("the answer is for another request (its uid differs)".into()));
    }
    if response["result"]["status"] != "Success" {
        let message = response["result"]["message"].as_str().unwrap_or("without explanation");
        return Err(fail(format!("conversion failed: {message}")));
    }
    let converted = response["convertedObjects"].as_array().cloned().unwrap_or_default();
    if converted.len() != to_convert.len() {
        return Err(fail(format!("expected {} converted objects, got {}", to_convert.len(), converted.len())));
    }
    let mut out = objects;
    for ((position, before), mut after) in positions.into_iter().zip(&to_convert).zip(converted) {
        check_converted(before, &after, api_version).map_err(fail)?;
        // Only labels and annotations of the metadata may change; the rest is the original.
        let labels = after["metadata"]["labels"].take();
        let annotations = after["metadata"]["annotations"].take();
        after["metadata"] = before["metadata"].clone();
        for (field, value) in [("labels", labels), ("annotations", annotations)] {
            match value {
                Value::Null => _ = object::metadata_mut(&mut after).remove(field),
                value => _ = object::metadata_mut(&mut after).insert(field.into(), value),
            }
        }
        out[position] = after;
    }
    Ok(out)
}

/// Upstream's checks of a converted object: the version asked for, and the same kind
/// and identity.
fn check_converted(before: &Value, after: &Value, api_version: &str) -> Result<(), String> {
    if after["apiVersion"] != api_version {
        return Err(format!(
            "invalid converted object: expected apiVersion {api_version:?}, got {}",
            after["apiVersion"]
        ));
    }
    if after["kind"] != before["kind"] {
        return Err(format!("invalid converted object: expected kind {}, got {}", before["kind"], after["kind"]));
    }
    for field in ["name", "namespace", "uid"] {
        if after["metadata"][field] != before["metadata"][field] {
            return Err(format!("invalid converted object: metadata.{field} changed"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crd_without_a_conversion_strategy_relabels_and_a_webhook_crd_names_its_webhook() {
        let spec = json!({"group": "example.com", "versions": [{"name": "v1alpha1", "storage": false}, {"name": "v1", "storage": true}]});
        let none = Conversion::of(&spec).expect("conversion");
        assert_eq!((none.storage.as_str(), &none.strategy), ("example.com/v1", &Strategy::None));
        let mut hooked = spec.clone();
        hooked["conversion"] = json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
            "clientConfig": {"url": "https://127.0.0.1:1/convert"}}});
        let Strategy::Webhook { review_versions, .. } = Conversion::of(&hooked).expect("conversion").strategy else {
            panic!("a webhook")
        };
        assert_eq!(review_versions, ["v1"]);
    }

    #[test]
    fn a_converted_object_keeps_its_kind_and_identity() {
        let before = json!({"apiVersion": "example.com/v1alpha1", "kind": "W", "metadata": {"name": "a", "uid": "u"}});
        let good = json!({"apiVersion": "example.com/v1", "kind": "W", "metadata": {"name": "a", "uid": "u"}});
        assert_eq!(check_converted(&before, &good, "example.com/v1"), Ok(()));
        let renamed = json!({"apiVersion": "example.com/v1", "kind": "W", "metadata": {"name": "b", "uid": "u"}});
        assert!(check_converted(&before, &renamed, "example.com/v1").is_err());
        assert!(check_converted(&before, &good, "example.com/v2").is_err());
    }
}
