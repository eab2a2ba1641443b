//! Jobs: the defaults of `batch/v1` (`SetDefaults_Job`, and the pod template's), the
//! selector the Job strategy generates from the Job's uid unless `manualSelector`
//! (`generateSelector`), and the checks of `ValidateJob`: a pod template that may end
//! (restartPolicy `OnFailure` or `Never`), counts that are not negative, a selector that
//! the template matches; on update an immutable selector and completion mode, and a
//! template that changes only while the Job is suspended.

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde_json::Value;

use super::super::status::Cause;
use super::Strategy;
use super::workloads::{default_pod_spec, validate_template};

/// The label that ties a Job's Pods to it, by the Job's uid.
pub const CONTROLLER_UID: &str = "batch.kubernetes.io/controller-uid";
/// The label with the Job's name on its Pods.
pub const JOB_NAME: &str = "batch.kubernetes.io/job-name";

/// The Job strategy.
pub struct Jobs;

fn typed(object: &Value) -> Option<Job> {
    serde_json::from_value(object.clone()).ok()
}

fn default_job(job: &mut Job) {
    let Some(spec) = job.spec.as_mut() else { return };
    if spec.completions.is_none() && spec.parallelism.is_none() {
        spec.completions = Some(1);
    }
    spec.parallelism.get_or_insert(1);
    spec.backoff_limit.get_or_insert(6);
    spec.completion_mode.get_or_insert_with(|| "NonIndexed".to_string());
    spec.suspend.get_or_insert(false);
    let replacement = if spec.pod_failure_policy.is_some() { "Failed" } else { "TerminatingOrFailed" };
    spec.pod_replacement_policy.get_or_insert_with(|| replacement.to_string());
    if let Some(pod) = spec.template.spec.as_mut() {
        default_pod_spec(pod);
    }
}

/// The selector and Pod labels that tie the Job's Pods to it by its uid.
pub(super) fn generate_selector(job: &mut Job) {
    let (Some(uid), Some(name)) = (job.metadata.uid.clone(), job.metadata.name.clone()) else { return };
    let Some(spec) = job.spec.as_mut() else { return };
    if spec.manual_selector == Some(true) {
        return;
    }
    let labels =
        spec.template.metadata.get_or_insert_with(Default::default).labels.get_or_insert_with(Default::default);
    // With the labels of the same meaning that Pods carried before 1.27, still set.
    for key in [CONTROLLER_UID, "controller-uid"] {
        labels.insert(key.to_string(), uid.clone());
    }
    for key in [JOB_NAME, "job-name"] {
        labels.insert(key.to_string(), name.clone());
    }
    if spec.selector.is_none() {
        spec.selector = Some(LabelSelector {
            match_labels: Some([(CONTROLLER_UID.to_string(), uid)].into()),
            ..LabelSelector::default()
        });
    }
}

fn rewrite(object: &mut Value, change: impl FnOnce(&mut Job)) {
    let Some(mut job) = typed(object) else { return };
    change(&mut job);
    super::retyped(&job, object);
}

fn not_negative(causes: &mut Vec<Cause>, field: &str, value: Option<i64>) {
    if let Some(value) = value.filter(|v| *v < 0) {
        causes.push(Cause::new(
            "FieldValueInvalid",
            format!("spec.{field}"),
            format!("Invalid value: {value}: must be greater than or equal to 0"),
        ));
    }
}

pub(super) fn validate(job: &Job) -> Vec<Cause> {
    let Some(spec) = &job.spec else {
        return vec![Cause::new("FieldValueRequired", "spec", "Required value")];
    };
    let mut causes = Vec::new();
    not_negative(&mut causes, "parallelism", spec.parallelism.map(i64::from));
    not_negative(&mut causes, "completions", spec.completions.map(i64::from));
    not_negative(&mut causes, "backoffLimit", spec.backoff_limit.map(i64::from));
    not_negative(&mut causes, "activeDeadlineSeconds", spec.active_deadline_seconds);
    match spec.template.spec.as_ref().and_then(|pod| pod.restart_policy.as_deref()) {
        Some("OnFailure" | "Never") => {}
        other => causes.push(Cause::new(
            "FieldValueNotSupported",
            "spec.template.spec.restartPolicy",
            format!(r#"Unsupported value: "{}": supported values: "OnFailure", "Never""#, other.unwrap_or_default()),
        )),
    }
    let selector = spec.selector.clone().unwrap_or_default();
    causes.extend(validate_template(&selector, &spec.template, "job"));
    causes
}

impl Strategy for Jobs {
    fn prepare_create(&self, object: &mut Value) {
        rewrite(object, |job| {
            default_job(job);
            generate_selector(job);
        });
    }

    fn prepare_update(&self, _old: &Value, new: &mut Value) {
        rewrite(new, default_job);
    }

    fn validate_create(&self, object: &Value) -> Vec<Cause> {
        typed(object).map(|job| validate(&job)).unwrap_or_default()
    }

    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        let mut causes = self.validate_create(new);
        let suspended = new["spec"]["suspend"] == true;
        for field in ["selector", "completionMode", "template"] {
            if field == "template" && suspended {
                continue;
            }
            if old["spec"][field] != new["spec"][field] {
                causes.push(Cause::new(
                    "FieldValueInvalid",
                    format!("spec.{field}"),
                    format!("Invalid value: {}: field is immutable", new["spec"][field]),
                ));
            }
        }
        causes
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn job(restart_policy: Option<&str>) -> Value {
        let mut pod = json!({"containers": [{"name": "pi", "image": "perl:5.34"}]});
        if let Some(policy) = restart_policy {
            pod["restartPolicy"] = json!(policy);
        }
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi", "uid": "u-1"},
            "spec": {"template": {"spec": pod}}})
    }

    /// `SetDefaults_Job` and `generateSelector` (pkg/registry/batch/job/strategy.go).
    #[test]
    fn a_new_job_gets_upstream_s_defaults_and_a_selector_by_its_uid() {
        let mut j = job(Some("Never"));
        Jobs.prepare_create(&mut j);
        let spec = &j["spec"];
        assert_eq!((spec["completions"].as_i64(), spec["parallelism"].as_i64()), (Some(1), Some(1)));
        assert_eq!((spec["backoffLimit"].as_i64(), spec["completionMode"].as_str()), (Some(6), Some("NonIndexed")));
        assert_eq!(
            (spec["suspend"].as_bool(), spec["podReplacementPolicy"].as_str()),
            (Some(false), Some("TerminatingOrFailed"))
        );
        assert_eq!(spec["selector"], json!({"matchLabels": {CONTROLLER_UID: "u-1"}}));
        let labels = &spec["template"]["metadata"]["labels"];
        assert_eq!(*labels, json!({CONTROLLER_UID: "u-1", JOB_NAME: "pi", "controller-uid": "u-1", "job-name": "pi"}));
        assert_eq!(spec["template"]["spec"]["containers"][0]["terminationMessagePath"], "/dev/termination-log");
        assert!(Jobs.validate_create(&j).is_empty(), "{:?}", Jobs.validate_create(&j));
    }

    /// A work queue (parallelism without completions) keeps completions unset.
    #[test]
    fn a_work_queue_job_keeps_completions_unset() {
        let mut j = job(Some("OnFailure"));
        j["spec"]["parallelism"] = json!(3);
        Jobs.prepare_create(&mut j);
        assert!(j["spec"]["completions"].is_null());
        assert_eq!(j["spec"]["parallelism"], 3);
    }

    /// `ValidateJob`: the pod template defaults to `Always`, which a Job may not use.
    #[test]
    fn a_job_whose_pods_would_restart_always_is_invalid() {
        for policy in [None, Some("Always")] {
            let mut j = job(policy);
            Jobs.prepare_create(&mut j);
            let causes = Jobs.validate_create(&j);
            assert_eq!(causes.len(), 1, "{causes:?}");
            assert_eq!(causes[0].field, "spec.template.spec.restartPolicy");
            assert!(causes[0].message.contains(r#"Unsupported value: "Always""#), "{}", causes[0].message);
        }
    }

    #[test]
    fn a_job_s_selector_is_immutable_and_its_template_changes_only_while_suspended() {
        let mut old = job(Some("Never"));
        Jobs.prepare_create(&mut old);
        let mut new = old.clone();
        new["spec"]["template"]["spec"]["containers"][0]["image"] = json!("perl:5.36");
        let causes = Jobs.validate_update(&old, &new);
        assert_eq!(causes.iter().map(|c| c.field.as_str()).collect::<Vec<_>>(), ["spec.template"]);
        new["spec"]["suspend"] = json!(true);
        assert!(Jobs.validate_update(&old, &new).is_empty());
        new["spec"]["selector"] = json!({"matchLabels": {"x": "y"}});
        assert!(Jobs.validate_update(&old, &new).iter().any(|c| c.field == "spec.selector"));
    }
}
