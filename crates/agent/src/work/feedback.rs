//! Status feedback, as upstream's status reader computes it: for a manifest whose config
//! has `feedbackRules`, the values its object holds at the rules' paths — `WellKnownStatus`,
//! the paths upstream knows for Deployments, DaemonSets, Jobs and Pods; `JSONPaths`, the
//! rule's own (kubectl's JSONPath, from the object's root). An integer, a string or a
//! boolean is reported; a path that finds nothing, or finds a list or an object, reports
//! nothing (upstream's default, without its `RawFeedbackJsonString` gate).

use fleetctl_api::work::{FeedbackRule, FeedbackType, FeedbackValue, FieldValue, StatusFeedbackResult, ValueType};
use jsonpath_rust::JsonPath;
use serde_json::Value;

/// Upstream's well-known status paths of a kind, by group and kind.
fn well_known(group: &str, kind: &str) -> &'static [(&'static str, &'static str)] {
    match (group, kind) {
        ("apps", "Deployment") => &[
            ("ReadyReplicas", ".status.readyReplicas"),
            ("Replicas", ".status.replicas"),
            ("AvailableReplicas", ".status.availableReplicas"),
        ],
        ("apps", "DaemonSet") => &[
            ("NumberReady", ".status.numberReady"),
            ("DesiredNumberScheduled", ".status.desiredNumberScheduled"),
            ("NumberAvailable", ".status.numberAvailable"),
        ],
        ("batch", "Job") => &[
            ("JobComplete", r#".status.conditions[?(@.type=="Complete")].status"#),
            ("JobSucceeded", ".status.succeeded"),
        ],
        ("", "Pod") => {
            &[("PodReady", r#".status.conditions[?(@.type=="Ready")].status"#), ("PodPhase", ".status.phase")]
        }
        _ => &[],
    }
}

/// The feedback `rules` ask of `object` (of API group `group`, version `version`).
pub fn values(rules: &[FeedbackRule], object: &Value, group: &str, version: &str) -> StatusFeedbackResult {
    let kind = object["kind"].as_str().unwrap_or_default();
    let mut values = Vec::new();
    for rule in rules {
        match &rule.type_ {
            FeedbackType::WellKnownStatus => {
                values.extend(well_known(group, kind).iter().filter_map(|(name, path)| value(name, path, object)));
            }
            FeedbackType::JsonPaths => values.extend(
                rule.json_paths
                    .iter()
                    // A path for another version of the resource says nothing of this one.
                    .filter(|path| path.version.is_empty() || path.version == version)
                    .filter_map(|path| value(&path.name, &path.path, object)),
            ),
            FeedbackType::Other(other) => tracing::debug!(rule = other, "an unknown feedback rule type"),
        }
    }
    StatusFeedbackResult { values }
}

/// The value at `path` of `object` as feedback named `name`: the first result, if it is a
/// scalar.
fn value(name: &str, path: &str, object: &Value) -> Option<FeedbackValue> {
    let absolute = format!("${}", path.trim().trim_start_matches('$'));
    let found = match object.query(&absolute) {
        Ok(found) => found,
        Err(error) => {
            tracing::debug!(%error, path, "a feedback path that does not parse");
            return None;
        }
    };
    let field = match found.first().copied()? {
        Value::Number(n) => {
            FieldValue { type_: ValueType::Integer, integer: Some(n.as_i64()?), ..FieldValue::default() }
        }
        Value::String(s) => FieldValue { type_: ValueType::String, string: Some(s.clone()), ..FieldValue::default() },
        Value::Bool(b) => FieldValue { type_: ValueType::Boolean, boolean: Some(*b), ..FieldValue::default() },
        _ => return None,
    };
    Some(FeedbackValue { name: name.to_owned(), value: field })
}

#[cfg(test)]
mod tests {
    use fleetctl_api::work::JsonPath as Path;
    use serde_json::json;

    use super::*;

    fn deployment() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
               "spec": {"replicas": 3},
               "status": {"readyReplicas": 2, "replicas": 3, "conditions": [{"type": "Available", "status": "True"}]}})
    }

    fn named(result: &StatusFeedbackResult) -> Vec<(String, FieldValue)> {
        result.values.iter().map(|v| (v.name.clone(), v.value.clone())).collect()
    }

    fn integer(i: i64) -> FieldValue {
        FieldValue { type_: ValueType::Integer, integer: Some(i), ..FieldValue::default() }
    }

    #[test]
    fn well_known_statuses_are_upstreams_paths_of_the_kind_and_a_missing_field_reports_nothing() {
        let rule = FeedbackRule { type_: FeedbackType::WellKnownStatus, json_paths: Vec::new() };
        let result = values(std::slice::from_ref(&rule), &deployment(), "apps", "v1");
        // availableReplicas is not in the status: no value, as upstream.
        assert_eq!(named(&result), [("ReadyReplicas".to_owned(), integer(2)), ("Replicas".to_owned(), integer(3))]);
        // A kind upstream knows no statuses of reports none.
        let map = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"}});
        assert!(values(&[rule], &map, "", "v1").values.is_empty());
    }

    #[test]
    fn json_paths_read_from_the_objects_root_with_filters_and_skip_lists_and_other_versions() {
        let path = |name: &str, path: &str, version: &str| Path {
            name: name.to_owned(),
            path: path.to_owned(),
            version: version.to_owned(),
        };
        let rule = FeedbackRule {
            type_: FeedbackType::JsonPaths,
            json_paths: vec![
                path("replicas", ".spec.replicas", ""),
                path("available", r#".status.conditions[?(@.type=="Available")].status"#, ""),
                path("conditions", ".status.conditions", ""),
                path("elsewhere", ".spec.replicas", "v2"),
            ],
        };
        let result = values(&[rule], &deployment(), "apps", "v1");
        let available = FieldValue { type_: ValueType::String, string: Some("True".into()), ..FieldValue::default() };
        assert_eq!(named(&result), [("replicas".to_owned(), integer(3)), ("available".to_owned(), available)]);
    }
}
