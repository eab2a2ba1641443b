//! CronJobs: the defaults of `batch/v1` (`SetDefaults_CronJob`, and the pod template's
//! inside the job template) and the checks of `ValidateCronJob`: a schedule that parses
//! (not naming a time zone itself: that is `spec.timeZone`'s, an IANA name other than
//! `Local`), a known concurrency policy, and a job template that
//! makes a valid Job (the Job checks, with the selector the Job will be given).

use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde_json::Value;

use super::super::cron;
use super::super::status::Cause;
use super::Strategy;
use super::jobs::{generate_selector, validate as validate_job};
use super::workloads::default_pod_spec;

/// The CronJob strategy.
pub struct CronJobs;

fn typed(object: &Value) -> Option<CronJob> {
    serde_json::from_value(object.clone()).ok()
}

fn default_cron_job(object: &mut Value) {
    let Some(mut cron_job) = typed(object) else { return };
    let Some(spec) = cron_job.spec.as_mut() else { return };
    spec.concurrency_policy.get_or_insert_with(|| "Allow".to_string());
    spec.suspend.get_or_insert(false);
    spec.successful_jobs_history_limit.get_or_insert(3);
    spec.failed_jobs_history_limit.get_or_insert(1);
    if let Some(pod) = spec.job_template.spec.as_mut().and_then(|job| job.template.spec.as_mut()) {
        default_pod_spec(pod);
    }
    super::retyped(&cron_job, object);
}

fn validate(cron_job: &CronJob) -> Vec<Cause> {
    let Some(spec) = &cron_job.spec else {
        return vec![Cause::new("FieldValueRequired", "spec", "Required value")];
    };
    let mut causes = Vec::new();
    let schedule = spec.schedule.as_str();
    if schedule.contains("TZ") {
        causes.push(Cause::new(
            "FieldValueInvalid",
            "spec.schedule",
            format!("Invalid value: {schedule:?}: cannot use TZ or CRON_TZ in schedule, use timeZone field instead"),
        ));
    } else if let Err(e) = cron::Schedule::parse(schedule) {
        causes.push(Cause::new("FieldValueInvalid", "spec.schedule", format!("Invalid value: {schedule:?}: {e}")));
    }
    if let Some(zone) = &spec.time_zone {
        let why = match zone.as_str() {
            "" => Some("timeZone must be nil or non-empty string".to_string()),
            local if local.eq_ignore_ascii_case("local") => {
                Some("timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones".to_string())
            }
            name => cron::time_zone(name).err().map(|e| e.to_string()),
        };
        if let Some(why) = why {
            causes.push(Cause::new("FieldValueInvalid", "spec.timeZone", format!("Invalid value: {zone:?}: {why}")));
        }
    }
    if let Some(policy) = spec.concurrency_policy.as_deref().filter(|p| !matches!(*p, "Allow" | "Forbid" | "Replace")) {
        causes.push(Cause::new(
            "FieldValueNotSupported",
            "spec.concurrencyPolicy",
            format!(r#"Unsupported value: {policy:?}: supported values: "Allow", "Forbid", "Replace""#),
        ));
    }
    let Some(job_spec) = spec.job_template.spec.clone() else {
        causes.push(Cause::new("FieldValueRequired", "spec.jobTemplate.spec", "Required value"));
        return causes;
    };
    // The Job this template makes, with the selector the Job strategy will generate.
    let name = cron_job.metadata.name.clone().unwrap_or_default();
    let meta = ObjectMeta { name: Some(name), uid: Some("template".to_string()), ..ObjectMeta::default() };
    let mut job = Job { metadata: meta, spec: Some(job_spec), status: None };
    generate_selector(&mut job);
    causes.extend(validate_job(&job).into_iter().map(|cause| {
        let field =
            cause.field.strip_prefix("spec").map_or(cause.field.clone(), |rest| format!("spec.jobTemplate.spec{rest}"));
        Cause { field, ..cause }
    }));
    causes
}

impl Strategy for CronJobs {
    fn prepare_create(&self, object: &mut Value) {
        default_cron_job(object);
    }

    fn prepare_update(&self, _old: &Value, new: &mut Value) {
        default_cron_job(new);
    }

    fn validate_create(&self, object: &Value) -> Vec<Cause> {
        typed(object).map(|cron_job| validate(&cron_job)).unwrap_or_default()
    }

    fn validate_update(&self, _old: &Value, new: &Value) -> Vec<Cause> {
        self.validate_create(new)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn cron_job(schedule: &str, restart_policy: &str) -> Value {
        json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "hello"},
            "spec": {"schedule": schedule, "jobTemplate": {"spec": {"template": {"spec": {
                "restartPolicy": restart_policy, "containers": [{"name": "c", "image": "busybox:1.36"}]}}}}}})
    }

    /// `SetDefaults_CronJob`; the job template gets the pod defaults only (no Job ones).
    #[test]
    fn a_new_cron_job_gets_upstream_s_defaults() {
        let mut c = cron_job("*/5 * * * *", "OnFailure");
        CronJobs.prepare_create(&mut c);
        let spec = &c["spec"];
        assert_eq!((spec["concurrencyPolicy"].as_str(), spec["suspend"].as_bool()), (Some("Allow"), Some(false)));
        assert_eq!(
            (spec["successfulJobsHistoryLimit"].as_i64(), spec["failedJobsHistoryLimit"].as_i64()),
            (Some(3), Some(1))
        );
        let pod = &spec["jobTemplate"]["spec"]["template"]["spec"];
        assert_eq!(pod["containers"][0]["terminationMessagePath"], "/dev/termination-log");
        assert!(spec["jobTemplate"]["spec"]["backoffLimit"].is_null());
        assert!(CronJobs.validate_create(&c).is_empty(), "{:?}", CronJobs.validate_create(&c));
    }

    #[test]
    fn a_schedule_that_does_not_parse_or_names_a_zone_is_invalid() {
        for (schedule, message) in [
            ("* * * *", "expected exactly 5 fields, found 4"),
            ("61 * * * *", "end of range (61) above maximum (59)"),
            ("CRON_TZ=Europe/Paris * * * * *", "use timeZone field instead"),
        ] {
            let causes = CronJobs.validate_create(&cron_job(schedule, "Never"));
            assert_eq!(causes.len(), 1, "{causes:?}");
            assert_eq!(causes[0].field, "spec.schedule");
            assert!(causes[0].message.contains(message), "{}", causes[0].message);
        }
    }

    /// `validateTimeZone`: an IANA name the database holds; not `Local`, not empty.
    #[test]
    fn a_time_zone_must_be_an_iana_name_other_than_local() {
        let with_zone = |zone: &str| {
            let mut c = cron_job("@hourly", "Never");
            c["spec"]["timeZone"] = json!(zone);
            CronJobs.validate_create(&c)
        };
        assert!(with_zone("Europe/Paris").is_empty());
        for (zone, message) in [
            ("Local", "timeZone must be an explicit time zone"),
            ("", "timeZone must be nil or non-empty string"),
            ("Mars/Olympus_Mons", "unknown time zone Mars/Olympus_Mons"),
        ] {
            let causes = with_zone(zone);
            assert_eq!(causes.len(), 1, "{causes:?}");
            assert_eq!(causes[0].field, "spec.timeZone");
            assert!(causes[0].message.contains(message), "{}", causes[0].message);
        }
    }

    /// `ValidateCronJob` validates the job template as a Job: pods that restart Always
    /// cannot be a Job's.
    #[test]
    fn a_job_template_whose_pods_would_restart_always_is_invalid() {
        let causes = CronJobs.validate_create(&cron_job("@hourly", "Always"));
        let fields: Vec<&str> = causes.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(fields, ["spec.jobTemplate.spec.template.spec.restartPolicy"]);
    }
}
