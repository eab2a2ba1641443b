//! Status feedback, as upstream's status reader computes it: for a manifest whose config
//! has `feedbackRules`, the values its object holds at the rules' paths — `WellKnownStatus`,
//! the paths upstream knows for Deployments, DaemonSets, Jobs and Pods; `JSONPaths`, the
//! rule's own (kubectl's JSONPath, from the object's root). An integer, a string or a
//! boolean is reported; a path that finds nothing reports nothing; one that finds a list or
//! an object is reported as its JSON text (`JsonRaw`) up to a length when upstream's
//! `RawFeedbackJsonString` gate is on, and is an error otherwise (upstream's default), as is a
//! path that does not parse or a kind without well-known statuses; the manifest's
//! `StatusFeedbackSynced` condition says which.

use fleetctl_api::conditions::{FALSE, TRUE, new_condition};
use fleetctl_api::work::{FeedbackRule, FeedbackType, FeedbackValue, FieldValue, StatusFeedbackResult, ValueType};
use jsonpath_rust::JsonPath;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
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

/// The manifest condition that says how reading the feedback went.
const SYNCED: &str = "StatusFeedbackSynced";

/// What feedback rules read of an object: the values, and what went wrong.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Feedback {
    /// The values read.
    pub values: StatusFeedbackResult,
    /// Why some could not be read.
    pub errors: Vec<String>,
}

/// Upstream's `--max-json-raw-length` default: the longest JSON text a `JsonRaw` value holds.
pub const MAX_JSON_RAW_LENGTH: usize = 1024;

/// The feedback `rules` ask of `object` (of API group `group`, version `version`); a list or
/// an object found is reported as JSON text of at most `raw_json` bytes, and is an error
/// without it.
pub fn values(rules: &[FeedbackRule], object: &Value, group: &str, version: &str, raw_json: Option<usize>) -> Feedback {
    let kind = object["kind"].as_str().unwrap_or_default();
    let mut feedback = Feedback::default();
    let read = |name: &str, path: &str, feedback: &mut Feedback| match value(name, path, object, raw_json) {
        Ok(Some(found)) => feedback.values.values.push(found),
        Ok(None) => {}
        Err(error) => feedback.errors.push(error),
    };
    for rule in rules {
        match &rule.type_ {
            FeedbackType::WellKnownStatus => {
                let paths = well_known(group, kind);
                if paths.is_empty() {
                    feedback.errors.push(format!("cannot find the wellknown statuses for resource with kind {kind}"));
                }
                paths.iter().for_each(|(name, path)| read(name, path, &mut feedback));
            }
            FeedbackType::JsonPaths => {
                for path in &rule.json_paths {
                    // A path for another version of the resource says nothing of this one.
                    if !path.version.is_empty() && path.version != version {
                        feedback.errors.push(format!(
                            "version set in the path {} is not matched for the related resource",
                            path.name
                        ));
                        continue;
                    }
                    read(&path.name, &path.path, &mut feedback);
                }
            }
            FeedbackType::Other(other) => feedback.errors.push(format!("unknown feedback rule type {other}")),
        }
    }
    feedback
}

/// The manifest's `StatusFeedbackSynced`, as upstream sets it on every manifest whose object
/// it read: True (`NoStatusFeedbackSynced` without rules), or False naming what failed.
pub fn synced(rules: &[FeedbackRule], feedback: &Feedback) -> Condition {
    if rules.is_empty() {
        new_condition(SYNCED, TRUE, "NoStatusFeedbackSynced", "")
    } else if feedback.errors.is_empty() {
        new_condition(SYNCED, TRUE, "StatusFeedbackSynced", "")
    } else {
        let message = format!("Sync status feedback failed with error {}", feedback.errors.join(", "));
        new_condition(SYNCED, FALSE, "StatusFeedbackSyncFailed", message)
    }
}

/// The value at `path` of `object` as feedback named `name`: the first result, if it is a
/// scalar (or, with `raw_json`, a list or an object as JSON text); none when nothing is there.
fn value(name: &str, path: &str, object: &Value, raw_json: Option<usize>) -> Result<Option<FeedbackValue>, String> {
    let absolute = format!("${}", path.trim().trim_start_matches('$'));
    let found =
        object.query(&absolute).map_err(|e| format!("failed to parse json path {path} of {name} with error: {e}"))?;
    let Some(first) = found.first().copied() else { return Ok(None) };
    let field = match first {
        Value::Number(n) => match n.as_i64() {
            Some(i) => FieldValue { type_: ValueType::Integer, integer: Some(i), ..FieldValue::default() },
            None => return Err(format!("the value for {name} is not an integer")),
        },
        Value::String(s) => FieldValue { type_: ValueType::String, string: Some(s.clone()), ..FieldValue::default() },
        Value::Bool(b) => FieldValue { type_: ValueType::Boolean, boolean: Some(*b), ..FieldValue::default() },
        Value::Null => return Ok(None),
        structure => match raw_json {
            Some(longest) => {
                let text = structure.to_string();
                if text.len() > longest {
                    return Err(format!(
                        "the length of returned json raw string for name {name} is larger than the maximum length {longest}"
                    ));
                }
                FieldValue { type_: ValueType::JsonRaw, json_raw: Some(text), ..FieldValue::default() }
            }
            None => return Err(format!("the value for {name} is not a scalar")),
        },
    };
    Ok(Some(FeedbackValue { name: name.to_owned(), value: field }))
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

    fn named(result: &Feedback) -> Vec<(String, FieldValue)> {
        result.values.values.iter().map(|v| (v.name.clone(), v.value.clone())).collect()
    }

    fn integer(i: i64) -> FieldValue {
        FieldValue { type_: ValueType::Integer, integer: Some(i), ..FieldValue::default() }
    }

    #[test]
    fn well_known_statuses_are_upstreams_paths_of_the_kind_and_a_missing_field_reports_nothing() {
        let rule = FeedbackRule { type_: FeedbackType::WellKnownStatus, json_paths: Vec::new() };
        let result = values(std::slice::from_ref(&rule), &deployment(), "apps", "v1", None);
        // availableReplicas is not in the status: no value, as upstream.
        assert_eq!(named(&result), [("ReadyReplicas".to_owned(), integer(2)), ("Replicas".to_owned(), integer(3))]);
        assert_eq!(synced(std::slice::from_ref(&rule), &result).reason, "StatusFeedbackSynced");
        // A kind upstream knows no statuses of reports none, and says so.
        let map = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"}});
        let none = values(std::slice::from_ref(&rule), &map, "", "v1", None);
        assert!(none.values.values.is_empty());
        let condition = synced(&[rule], &none);
        assert_eq!((condition.status.as_str(), condition.reason.as_str()), (FALSE, "StatusFeedbackSyncFailed"));
        assert_eq!(synced(&[], &Feedback::default()).reason, "NoStatusFeedbackSynced");
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
        let result = values(std::slice::from_ref(&rule), &deployment(), "apps", "v1", None);
        let available = FieldValue { type_: ValueType::String, string: Some("True".into()), ..FieldValue::default() };
        assert_eq!(named(&result), [("replicas".to_owned(), integer(3)), ("available".to_owned(), available)]);
        // The list and the other version are errors, as upstream's reader says them.
        assert_eq!(result.errors.len(), 2, "{:?}", result.errors);
        // With upstream's RawFeedbackJsonString gate the list is its JSON text, up to a length.
        let raw = values(std::slice::from_ref(&rule), &deployment(), "apps", "v1", Some(MAX_JSON_RAW_LENGTH));
        let conditions = raw.values.values.iter().find(|v| v.name == "conditions").expect("conditions");
        assert_eq!(conditions.value.type_, ValueType::JsonRaw);
        let text = conditions.value.json_raw.as_deref().expect("text");
        assert_eq!(serde_json::from_str::<Value>(text).expect("json"), deployment()["status"]["conditions"]);
        assert_eq!(raw.errors.len(), 1, "only the other version: {:?}", raw.errors);
        let short = values(&[rule], &deployment(), "apps", "v1", Some(4));
        assert_eq!(short.errors.len(), 2, "too long for 4 bytes: {:?}", short.errors);
    }
}
