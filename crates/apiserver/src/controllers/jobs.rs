//! The Job controller of kube-controller-manager (`pkg/controller/job`) for NonIndexed
//! Jobs: Pods from the template (named `<job>-<random>`, the Job their controller), at
//! most `parallelism` at a time, until `completions` have succeeded (a work queue without
//! `completions`: until one has); a failed Pod counts against `backoffLimit`. As since
//! 1.31, the interim condition (`SuccessCriteriaMet`, `FailureTarget`) comes first, and
//! the terminal one (`Complete`, `Failed`) once no Pod of the Job is left running. A
//! suspended Job runs no Pods.

use k8s_openapi::api::batch::v1::{Job, JobCondition, JobStatus, UncountedTerminatedPods};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use super::super::key::ObjectKey;
use super::super::options::{DeleteOptions, Propagation, WriteOptions};
use super::super::state::Shared;
use super::super::status::ApiError;
use super::super::store::ObjectRef;
use super::replicasets::is_ready;
use super::workloads::{jobs, owned, pod_of_template, pods, replace_status};
use super::{Step, read, resource_type, split_key};

/// Where a Job stands, from its Pods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// More Pods to run (or running).
    Running,
    /// Enough succeeded.
    Succeeded,
    /// More failed than the backoff limit allows.
    Failed,
}

/// What the Job's Pods add up to.
#[derive(Debug, Default)]
struct Counts {
    active: usize,
    ready: usize,
    succeeded: usize,
    failed: usize,
}

fn phase(pod: &Pod) -> Option<&str> {
    pod.status.as_ref().and_then(|s| s.phase.as_deref())
}

fn count(pods: &[Pod]) -> Counts {
    let mut counts = Counts::default();
    for pod in pods {
        match phase(pod) {
            Some("Succeeded") => counts.succeeded += 1,
            Some("Failed") => counts.failed += 1,
            _ if pod.metadata.deletion_timestamp.is_none() => {
                counts.active += 1;
                counts.ready += usize::from(is_ready(pod));
            }
            _ => {}
        }
    }
    counts
}

fn verdict(job: &Job, counts: &Counts) -> Verdict {
    let spec = job.spec.as_ref();
    let backoff_limit = spec.and_then(|s| s.backoff_limit).unwrap_or(6);
    if i64::try_from(counts.failed).unwrap_or(i64::MAX) > i64::from(backoff_limit) {
        return Verdict::Failed;
    }
    let wanted = spec.and_then(|s| s.completions).map_or(1, |c| usize::try_from(c).unwrap_or(0));
    if counts.succeeded >= wanted { Verdict::Succeeded } else { Verdict::Running }
}

/// How many more Pods to start now.
fn to_start(job: &Job, counts: &Counts) -> usize {
    let spec = job.spec.as_ref();
    let parallelism = spec.and_then(|s| s.parallelism).map_or(1, |p| usize::try_from(p).unwrap_or(0));
    let remaining = match spec.and_then(|s| s.completions) {
        Some(completions) => usize::try_from(completions).unwrap_or(0).saturating_sub(counts.succeeded),
        None => parallelism,
    };
    parallelism.min(remaining).saturating_sub(counts.active)
}

fn holds(job: &Job, kind: &str) -> bool {
    let conditions = job.status.as_ref().and_then(|s| s.conditions.as_ref());
    conditions.is_some_and(|c| c.iter().any(|c| c.type_ == kind && c.status == "True"))
}

fn condition(kind: &str, reason: &str, message: &str, now: &Time) -> JobCondition {
    JobCondition {
        type_: kind.to_string(),
        status: "True".to_string(),
        reason: Some(reason.to_string()),
        message: Some(message.to_string()),
        last_probe_time: Some(now.clone()),
        last_transition_time: Some(now.clone()),
    }
}

/// Brings one Job's Pods and status in line with its spec.
pub(super) fn sync(state: &Shared, key: &str) -> Step {
    let target = ObjectRef { resource: jobs(), key: key.to_string() };
    let Some((_, value)) = read(state, &target) else { return Ok(()) };
    let Ok(job) = serde_json::from_value::<Job>(value) else { return Ok(()) };
    if job.metadata.deletion_timestamp.is_some() || holds(&job, "Complete") || holds(&job, "Failed") {
        return Ok(());
    }
    let (namespace, name) = split_key(key);
    let namespace = namespace.unwrap_or_default();
    let uid = job.metadata.uid.clone().unwrap_or_default();
    let mine: Vec<Pod> = owned(state, &pods(), namespace, &uid);
    let mut counts = count(&mine);
    let suspended = job.spec.as_ref().and_then(|s| s.suspend) == Some(true);
    let verdict = verdict(&job, &counts);
    let mut failure = None;
    if verdict != Verdict::Running || suspended {
        // Lingering Pods of a decided Job, and every Pod of a suspended one, go.
        for pod in mine.iter().filter(|p| {
            p.metadata.deletion_timestamp.is_none() && phase(p).is_none_or(|p| !matches!(p, "Succeeded" | "Failed"))
        }) {
            if let Err(e) = delete_pod(state, namespace, pod) {
                failure.get_or_insert(e);
            }
        }
    } else {
        for _ in 0..to_start(&job, &counts) {
            match create_pod(state, namespace, &job) {
                Ok(()) => counts.active += 1,
                Err(e) => {
                    failure.get_or_insert(e);
                    break;
                }
            }
        }
    }
    let status = next_status(&job, &counts, verdict, suspended, &Time(jiff::Timestamp::now()));
    if job.status.as_ref() != Some(&status) {
        replace_status(state, &jobs(), namespace, name, &status)?;
    }
    failure.map_or(Ok(()), Err)
}

fn create_pod(state: &Shared, namespace: &str, job: &Job) -> Step {
    let Some(pods_rt) = resource_type(state, &pods()) else { return Ok(()) };
    let template = job.spec.as_ref().map(|s| s.template.clone()).unwrap_or_default();
    let pod = pod_of_template(&template, "batch/v1", "Job", &job.metadata);
    let body = serde_json::to_value(pod)
        .map_err(|e| ApiError::internal(format!("serializing a pod from the template: {e}")))?;
    state.resource(&pods_rt).create(Some(namespace), body, &WriteOptions::default()).map(|_| ())
}

fn delete_pod(state: &Shared, namespace: &str, pod: &Pod) -> Step {
    let Some(pods_rt) = resource_type(state, &pods()) else { return Ok(()) };
    let opts = DeleteOptions { propagation: Some(Propagation::Background), ..DeleteOptions::default() };
    let name = pod.metadata.name.clone().unwrap_or_default();
    match state.resource(&pods_rt).delete(ObjectKey::namespaced(namespace, &name), &opts) {
        Err(e) if e.code == 404 => Ok(()),
        other => other.map(|_| ()),
    }
}

/// The status the counts and the verdict make; the times and conditions already set are
/// kept.
fn next_status(job: &Job, counts: &Counts, verdict: Verdict, suspended: bool, now: &Time) -> JobStatus {
    let before = job.status.clone().unwrap_or_default();
    let size = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    let mut conditions = before.conditions.clone().unwrap_or_default();
    let mut add = |kind: &str, reason: &str, message: &str| {
        if !conditions.iter().any(|c| c.type_ == kind && c.status == "True") {
            conditions.retain(|c| c.type_ != kind);
            conditions.push(condition(kind, reason, message, now));
        }
    };
    let settled = counts.active == 0;
    let mut completion_time = before.completion_time.clone();
    match verdict {
        Verdict::Failed => {
            let message = "Job has reached the specified backoff limit";
            add("FailureTarget", "BackoffLimitExceeded", message);
            if settled {
                add("Failed", "BackoffLimitExceeded", message);
            }
        }
        Verdict::Succeeded => {
            let message = "Reached expected number of succeeded pods";
            add("SuccessCriteriaMet", "CompletionsReached", message);
            if settled {
                add("Complete", "CompletionsReached", message);
                completion_time.get_or_insert_with(|| now.clone());
            }
        }
        Verdict::Running if suspended => add("Suspended", "JobSuspended", "Job suspended"),
        Verdict::Running => {
            if let Some(c) = conditions.iter_mut().find(|c| c.type_ == "Suspended" && c.status == "True") {
                *c =
                    JobCondition { status: "False".into(), ..condition("Suspended", "JobResumed", "Job resumed", now) };
            }
        }
    }
    let start_time = match (&before.start_time, suspended) {
        (Some(start), _) => Some(start.clone()),
        (None, false) => Some(now.clone()),
        (None, true) => None,
    };
    JobStatus {
        active: Some(size(counts.active)).filter(|n| *n > 0),
        ready: Some(size(counts.ready)),
        succeeded: Some(size(counts.succeeded)).filter(|n| *n > 0),
        failed: Some(size(counts.failed)).filter(|n| *n > 0),
        terminating: Some(0),
        start_time,
        completion_time,
        conditions: Some(conditions).filter(|c| !c.is_empty()),
        uncounted_terminated_pods: Some(UncountedTerminatedPods::default()),
        ..before
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn job(completions: Option<i32>, parallelism: i32, backoff_limit: i32) -> Job {
        serde_json::from_value(json!({
            "metadata": {"name": "pi", "namespace": "ns", "uid": "j1"},
            "spec": {"completions": completions, "parallelism": parallelism, "backoffLimit": backoff_limit,
                     "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "perl"}]}}},
        }))
        .unwrap()
    }

    fn counts(active: usize, succeeded: usize, failed: usize) -> Counts {
        Counts { active, ready: active, succeeded, failed }
    }

    fn now() -> Time {
        Time(jiff::Timestamp::from_second(1_000).unwrap())
    }

    fn kinds(status: &JobStatus) -> Vec<&str> {
        status.conditions.iter().flatten().map(|c| c.type_.as_str()).collect()
    }

    /// `manageJob`: at most `parallelism` active, never more than the completions left.
    #[test]
    fn a_job_runs_at_most_parallelism_pods_and_no_more_than_the_completions_left() {
        let j = job(Some(5), 2, 6);
        assert_eq!(to_start(&j, &counts(0, 0, 0)), 2);
        assert_eq!(to_start(&j, &counts(1, 3, 0)), 1);
        assert_eq!(to_start(&j, &counts(1, 4, 0)), 0);
        let queue = job(None, 3, 6);
        assert_eq!(to_start(&queue, &counts(1, 0, 0)), 2);
    }

    /// Since 1.31 the terminal condition waits until no Pod of the Job runs.
    #[test]
    fn success_criteria_met_comes_first_and_complete_once_no_pod_runs() {
        let j = job(Some(2), 2, 6);
        assert_eq!(verdict(&j, &counts(1, 2, 0)), Verdict::Succeeded);
        let lingering = next_status(&j, &counts(1, 2, 0), Verdict::Succeeded, false, &now());
        assert_eq!(kinds(&lingering), ["SuccessCriteriaMet"]);
        assert!(lingering.completion_time.is_none());
        let done = Job { status: Some(lingering), ..j };
        let settled = next_status(&done, &counts(0, 2, 0), Verdict::Succeeded, false, &now());
        assert_eq!(kinds(&settled), ["SuccessCriteriaMet", "Complete"]);
        assert_eq!(settled.completion_time, Some(now()));
        assert_eq!((settled.succeeded, settled.active, settled.start_time), (Some(2), None, Some(now())));
        let reason = settled.conditions.as_ref().unwrap()[1].reason.as_deref();
        assert_eq!(reason, Some("CompletionsReached"));
    }

    /// `backoffLimit` failures are allowed; one more fails the Job.
    #[test]
    fn one_failure_past_the_backoff_limit_fails_the_job() {
        let j = job(Some(1), 1, 1);
        assert_eq!(verdict(&j, &counts(0, 0, 1)), Verdict::Running);
        assert_eq!(verdict(&j, &counts(0, 0, 2)), Verdict::Failed);
        let status = next_status(&j, &counts(0, 0, 2), Verdict::Failed, false, &now());
        assert_eq!(kinds(&status), ["FailureTarget", "Failed"]);
        assert_eq!(status.conditions.unwrap()[1].reason.as_deref(), Some("BackoffLimitExceeded"));
    }

    #[test]
    fn a_suspended_job_has_no_start_time_and_says_it_is_suspended() {
        let j = job(Some(1), 1, 6);
        let status = next_status(&j, &counts(0, 0, 0), Verdict::Running, true, &now());
        assert_eq!(kinds(&status), ["Suspended"]);
        assert_eq!(status.start_time, None);
        let resumed =
            next_status(&Job { status: Some(status), ..j }, &counts(0, 0, 0), Verdict::Running, false, &now());
        let suspended = &resumed.conditions.unwrap()[0];
        assert_eq!((suspended.status.as_str(), suspended.reason.as_deref()), ("False", Some("JobResumed")));
    }
}
