//! The CronJob controller of kube-controller-manager (`pkg/controller/cronjob`, the v2
//! controller): at each scheduled minute, read in the CronJob's `spec.timeZone` (UTC
//! without one), a Job from the job template named `<cronjob>-<scheduled minutes since the
//! epoch>` (the name is the lock that keeps a minute from running twice), annotated with
//! `batch.kubernetes.io/cronjob-scheduled-timestamp` and controlled by the CronJob; the
//! Job controller runs it.
//!
//! Only the most recent missed time runs (`mostRecentScheduleTime`), counted from
//! `status.lastScheduleTime` or, before the first run, the CronJob's creation, and not
//! from further back than `startingDeadlineSeconds`; a time found later than that deadline
//! is skipped. `Forbid` skips a time while a Job of the CronJob is active, `Replace`
//! deletes the active ones first, `Allow` runs them side by side. A suspended CronJob
//! starts nothing. `status.active` lists the unfinished Jobs it started,
//! `lastSuccessfulTime` the latest completion; finished Jobs beyond
//! `successfulJobsHistoryLimit` / `failedJobsHistoryLimit` go, oldest start first.
//!
//! A sync answers when the CronJob next needs one (its next scheduled time and upstream's
//! 100 ms): the controllers' loop sleeps until the earliest such time on the server's
//! [`Clock`](super::super::Clock).

use jiff::Timestamp;
use jiff::tz::{AmbiguousOffset, TimeZone};
use k8s_openapi::api::batch::v1::{CronJob, CronJobStatus, Job};
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference, Time};

use super::super::cron::{self, Schedule};
use super::super::options::WriteOptions;
use super::super::state::Shared;
use super::super::status::ApiError;
use super::super::store::ObjectRef;
use super::events::{self, Kind};
use super::workloads::{cron_jobs, jobs, owned, replace_status};
use super::{read, remove, resource_type, split_key};

/// The annotation that records the time a Job was scheduled for.
pub const SCHEDULED_TIMESTAMP: &str = "batch.kubernetes.io/cronjob-scheduled-timestamp";

/// The component its Events name.
const COMPONENT: &str = "cronjob-controller";

/// How long after a scheduled time the controller looks (upstream's `nextScheduleDelta`).
const NEXT_SCHEDULE_DELTA: jiff::SignedDuration = jiff::SignedDuration::from_millis(100);

/// A CronJob's schedule in its time zone.
struct When {
    schedule: Schedule,
    zone: TimeZone,
}

impl When {
    /// The schedule of `cron_job`; `None` when its schedule or time zone is not usable
    /// (upstream records an event and waits for a change of the spec).
    fn of(cron_job: &CronJob) -> Option<Self> {
        let spec = cron_job.spec.as_ref()?;
        let schedule = Schedule::parse(&spec.schedule).ok()?;
        let zone = match spec.time_zone.as_deref() {
            Some(name) => cron::time_zone(name).ok()?,
            None => TimeZone::UTC,
        };
        Some(Self { schedule, zone })
    }

    /// The instant of a civil minute in the zone: none for a minute a daylight-saving
    /// change skips, the first of a minute that comes twice.
    fn instant(&self, civil: jiff::civil::DateTime) -> Option<Timestamp> {
        let ambiguous = self.zone.to_ambiguous_timestamp(civil);
        match ambiguous.offset() {
            AmbiguousOffset::Gap { .. } => None,
            _ => ambiguous.earlier().ok(),
        }
    }

    /// The first scheduled time after `after`.
    fn next_after(&self, after: Timestamp) -> Option<Timestamp> {
        let mut civil = after.to_zoned(self.zone.clone()).datetime();
        loop {
            civil = self.schedule.next_after(civil)?;
            match self.instant(civil) {
                Some(t) if t > after => return Some(t),
                _ => {}
            }
        }
    }

    /// The last scheduled time at or before `at`.
    fn last_at_or_before(&self, at: Timestamp) -> Option<Timestamp> {
        let mut civil = at.to_zoned(self.zone.clone()).datetime();
        loop {
            let found = self.schedule.last_at_or_before(civil)?;
            match self.instant(found) {
                Some(t) if t <= at => return Some(t),
                _ => civil = found.checked_sub(jiff::Span::new().minutes(1)).ok()?,
            }
        }
    }

    /// `mostRecentScheduleTime`: the time runs are counted from (the last scheduled one,
    /// else the creation; with `deadline`, no earlier than `startingDeadlineSeconds`
    /// ago), and the most recent scheduled time after it and not after `now`.
    fn most_recent(&self, cron_job: &CronJob, now: Timestamp, deadline: bool) -> (Timestamp, Option<Timestamp>) {
        let status = cron_job.status.as_ref();
        let created = cron_job.metadata.creation_timestamp.as_ref().map_or(now, |t| t.0);
        let mut earliest = status.and_then(|s| s.last_schedule_time.as_ref()).map_or(created, |t| t.0);
        if deadline && let Some(seconds) = starting_deadline(cron_job) {
            earliest = earliest.max(now - jiff::SignedDuration::from_secs(seconds));
        }
        let first = self.next_after(earliest);
        if first.is_none_or(|first| now < first) {
            return (earliest, None);
        }
        (earliest, self.last_at_or_before(now))
    }

    /// `nextScheduleTimeDuration`: when to look again, a little after the next time.
    fn wake(&self, cron_job: &CronJob, now: Timestamp) -> Option<Timestamp> {
        let (earliest, recent) = self.most_recent(cron_job, now, false);
        self.next_after(recent.unwrap_or(earliest)).map(|next| next + NEXT_SCHEDULE_DELTA)
    }
}

fn starting_deadline(cron_job: &CronJob) -> Option<i64> {
    cron_job.spec.as_ref().and_then(|s| s.starting_deadline_seconds)
}

/// `Complete` or `Failed`, whichever is True.
fn finished(job: &Job) -> Option<&str> {
    let conditions = job.status.as_ref().and_then(|s| s.conditions.as_ref())?;
    conditions
        .iter()
        .find(|c| c.status == "True" && matches!(c.type_.as_str(), "Complete" | "Failed"))
        .map(|c| c.type_.as_str())
}

/// `getJobName`: the CronJob's name and the scheduled time in minutes since the epoch.
pub fn job_name(cron_job: &str, scheduled: Timestamp) -> String {
    format!("{cron_job}-{}", scheduled.as_second().div_euclid(60))
}

/// RFC 3339 in the zone, `Z` for UTC (as Go's `time.RFC3339` prints it).
fn rfc3339_in(at: Timestamp, zone: &TimeZone) -> String {
    let zoned = at.to_zoned(zone.clone());
    if zoned.offset().seconds() == 0 {
        zoned.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
    } else {
        zoned.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string()
    }
}

/// `getJobFromTemplate2`: the Job of the template for `scheduled`.
fn job_for(cron_job: &CronJob, when: &When, scheduled: Timestamp) -> Job {
    let template = cron_job.spec.as_ref().map(|s| s.job_template.clone()).unwrap_or_default();
    let meta = template.metadata.unwrap_or_default();
    let name = cron_job.metadata.name.clone().unwrap_or_default();
    let mut annotations = meta.annotations.unwrap_or_default();
    annotations.insert(SCHEDULED_TIMESTAMP.to_string(), rfc3339_in(scheduled, &when.zone));
    Job {
        metadata: ObjectMeta {
            name: Some(job_name(&name, scheduled)),
            namespace: cron_job.metadata.namespace.clone(),
            labels: meta.labels.filter(|l| !l.is_empty()),
            annotations: Some(annotations),
            owner_references: Some(vec![OwnerReference {
                api_version: "batch/v1".into(),
                kind: "CronJob".into(),
                name,
                uid: cron_job.metadata.uid.clone().unwrap_or_default(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            }]),
            ..ObjectMeta::default()
        },
        spec: template.spec,
        status: None,
    }
}

fn reference(kind: &str, meta: &ObjectMeta) -> ObjectReference {
    ObjectReference {
        api_version: Some("batch/v1".into()),
        kind: Some(kind.into()),
        name: meta.name.clone(),
        namespace: meta.namespace.clone(),
        uid: meta.uid.clone(),
        resource_version: meta.resource_version.clone(),
        ..ObjectReference::default()
    }
}

/// Records an Event about the CronJob.
fn record(state: &Shared, cron_job: &CronJob, kind: Kind, reason: &str, message: String) {
    events::record(state, COMPONENT, &reference("CronJob", &cron_job.metadata), kind, reason, message);
}

/// `removeOldestJobs`: the finished Jobs of one kind beyond `limit`, those that started
/// first (a Job that never started last, names breaking ties).
fn beyond_limit(mut finished: Vec<&Job>, limit: Option<i32>) -> Vec<&Job> {
    let Some(limit) = limit else { return Vec::new() };
    let keep = usize::try_from(limit).unwrap_or(0);
    if finished.len() <= keep {
        return Vec::new();
    }
    let start = |job: &Job| job.status.as_ref().and_then(|s| s.start_time.as_ref()).map(|t| t.0);
    finished.sort_by(|a, b| {
        let order = match (start(a), start(b)) {
            (Some(a), Some(b)) => a.cmp(&b),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        };
        order.then_with(|| a.metadata.name.cmp(&b.metadata.name))
    });
    let excess = finished.len() - keep;
    finished.truncate(excess);
    finished
}

fn uid(job: &Job) -> &str {
    job.metadata.uid.as_deref().unwrap_or_default()
}

/// Brings one CronJob's Jobs and status in line with its schedule; answers when it next
/// needs a look (`None`: only when it changes).
pub(super) fn sync(state: &Shared, key: &str) -> Result<Option<Timestamp>, ApiError> {
    let target = ObjectRef { resource: cron_jobs(), key: key.to_string() };
    let Some((_, value)) = read(state, &target) else { return Ok(None) };
    let Ok(cron_job) = serde_json::from_value::<CronJob>(value) else { return Ok(None) };
    let (namespace, name) = split_key(key);
    let namespace = namespace.unwrap_or_default();
    let mine: Vec<Job> = owned(state, &jobs(), namespace, cron_job.metadata.uid.as_deref().unwrap_or_default());
    let mut status = cron_job.status.clone().unwrap_or_default();
    let mut failure = None;

    // cleanupFinishedJobs
    let spec = cron_job.spec.as_ref();
    let of_kind = |kind: &str| mine.iter().filter(|j| finished(j) == Some(kind)).collect::<Vec<_>>();
    let succeeded_limit = spec.and_then(|s| s.successful_jobs_history_limit);
    let failed_limit = spec.and_then(|s| s.failed_jobs_history_limit);
    for job in beyond_limit(of_kind("Complete"), succeeded_limit)
        .into_iter()
        .chain(beyond_limit(of_kind("Failed"), failed_limit))
    {
        match delete_job(state, &cron_job, job) {
            Ok(()) => drop_active(&mut status, uid(job)),
            Err(e) => {
                failure.get_or_insert(e);
            }
        }
    }

    // What the Jobs say about the active list and the last success.
    for job in &mine {
        let active = status.active.iter().flatten().any(|r| r.uid.as_deref() == Some(uid(job)));
        if active && let Some(how) = finished(job) {
            drop_active(&mut status, uid(job));
            let job_name = job.metadata.name.as_deref().unwrap_or_default();
            record(
                state,
                &cron_job,
                Kind::Normal,
                "SawCompletedJob",
                format!("Saw completed job: {job_name}, status: {how}"),
            );
        }
        if finished(job) == Some("Complete")
            && let Some(done) = job.status.as_ref().and_then(|s| s.completion_time.clone())
            && status.last_successful_time.as_ref().is_none_or(|last| last.0 < done.0)
        {
            status.last_successful_time = Some(done);
        }
    }
    // An active Job that is gone is not active.
    let present: Vec<&str> = mine.iter().map(uid).collect();
    if let Some(active) = status.active.as_mut() {
        active.retain(|r| {
            let here = r.uid.as_deref().is_some_and(|u| present.contains(&u));
            if !here {
                let gone = r.name.as_deref().unwrap_or_default();
                record(state, &cron_job, Kind::Normal, "MissingJob", format!("Active job went missing: {gone}"));
            }
            here
        });
    }

    let wake = match failure {
        None => schedule(state, &cron_job, namespace, &mut status)?,
        Some(_) => None,
    };
    if status.active.as_ref().is_some_and(Vec::is_empty) {
        status.active = None;
    }
    if cron_job.status.clone().unwrap_or_default() != status {
        replace_status(state, &cron_jobs(), namespace, name, &status)?;
    }
    failure.map_or(Ok(wake), Err)
}

fn drop_active(status: &mut CronJobStatus, uid: &str) {
    if let Some(active) = status.active.as_mut() {
        active.retain(|r| r.uid.as_deref() != Some(uid));
    }
}

/// The scheduling half of `syncCronJob`: starts the Job of the most recent unmet time
/// if the policies allow; answers when to look again.
fn schedule(
    state: &Shared,
    cron_job: &CronJob,
    namespace: &str,
    status: &mut CronJobStatus,
) -> Result<Option<Timestamp>, ApiError> {
    let spec = cron_job.spec.as_ref();
    if cron_job.metadata.deletion_timestamp.is_some() || spec.and_then(|s| s.suspend) == Some(true) {
        return Ok(None);
    }
    let Some(when) = When::of(cron_job) else { return Ok(None) };
    let now = state.settings.clock.now();
    let with_status = CronJob { status: Some(status.clone()), ..cron_job.clone() };
    let wake = when.wake(&with_status, now);
    let (_, Some(scheduled)) = when.most_recent(&with_status, now, true) else { return Ok(wake) };
    if starting_deadline(cron_job).is_some_and(|seconds| scheduled + jiff::SignedDuration::from_secs(seconds) < now) {
        let missed = scheduled.strftime("%a, %d %b %Y %H:%M:%S +0000");
        record(
            state,
            cron_job,
            Kind::Warning,
            "MissSchedule",
            format!("Missed scheduled time to start a job: {missed}"),
        );
        return Ok(wake);
    }
    let name = job_name(cron_job.metadata.name.as_deref().unwrap_or_default(), scheduled);
    let active = status.active.clone().unwrap_or_default();
    if active.iter().any(|r| r.name.as_deref() == Some(name.as_str()))
        || status.last_schedule_time.as_ref().is_some_and(|t| t.0 == scheduled)
    {
        return Ok(wake);
    }
    match spec.and_then(|s| s.concurrency_policy.as_deref()) {
        Some("Forbid") if !active.is_empty() => {
            let why = "Not starting job because prior execution is running and concurrency policy is Forbid";
            record(state, cron_job, Kind::Normal, "JobAlreadyActive", why.to_string());
            return Ok(wake);
        }
        Some("Replace") => {
            for running in &active {
                let job_name = running.name.as_deref().unwrap_or_default();
                remove(state, &ObjectRef { resource: jobs(), key: format!("{namespace}/{job_name}") })?;
                drop_active(status, running.uid.as_deref().unwrap_or_default());
                record(state, cron_job, Kind::Normal, "SuccessfulDelete", format!("Deleted job {job_name}"));
            }
        }
        _ => {}
    }
    let Some(jobs_rt) = resource_type(state, &jobs()) else { return Ok(wake) };
    let body = serde_json::to_value(job_for(cron_job, &when, scheduled))
        .map_err(|e| ApiError::internal(format!("serializing a job from the template: {e}")))?;
    let created = match state.resource(&jobs_rt).create(Some(namespace), body, &WriteOptions::default()) {
        Ok(written) => {
            record(state, cron_job, Kind::Normal, "SuccessfulCreate", format!("Created job {name}"));
            written.body
        }
        Err(e) if e.code == 409 && e.reason == "AlreadyExists" => {
            // Made before the status said so (or by someone else: then it is theirs).
            let Some((_, existing)) = read(state, &ObjectRef { resource: jobs(), key: format!("{namespace}/{name}") })
            else {
                return Err(e);
            };
            let ours = super::workloads::controller_uid(&existing) == cron_job.metadata.uid.as_deref();
            if !ours {
                return Ok(wake);
            }
            existing
        }
        Err(e) => {
            record(state, cron_job, Kind::Warning, "FailedCreate", format!("Error creating job: {}", e.message));
            return Err(e);
        }
    };
    let job: Job =
        serde_json::from_value(created).map_err(|e| ApiError::internal(format!("reading back the job {name}: {e}")))?;
    if !status.active.iter().flatten().any(|r| r.uid.as_deref() == Some(uid(&job))) {
        status.active.get_or_insert_with(Vec::new).push(reference("Job", &job.metadata));
    }
    status.last_schedule_time = Some(Time(scheduled));
    Ok(wake)
}

fn delete_job(state: &Shared, cron_job: &CronJob, job: &Job) -> Result<(), ApiError> {
    let namespace = cron_job.metadata.namespace.as_deref().unwrap_or_default();
    let job_name = job.metadata.name.as_deref().unwrap_or_default();
    remove(state, &ObjectRef { resource: jobs(), key: format!("{namespace}/{job_name}") })?;
    record(state, cron_job, Kind::Normal, "SuccessfulDelete", format!("Deleted job {job_name}"));
    Ok(())
}

/// The CronJobs the store holds, for the first look after a start (a durable store's
/// CronJobs keep their schedules).
pub(super) fn all(state: &Shared) -> Vec<String> {
    let page = state.store.list(&cron_jobs(), None, None, 0, &|_| true);
    page.items
        .iter()
        .filter_map(|stored| {
            let value = stored.value();
            let meta = &value["metadata"];
            Some(format!("{}/{}", meta["namespace"].as_str()?, meta["name"].as_str()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use jiff::civil::date;
    use serde_json::json;

    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn cron_job(schedule: &str, created: &str, extra: serde_json::Value) -> CronJob {
        let mut value = json!({
            "metadata": {"name": "hello", "namespace": "ns", "uid": "cj1", "creationTimestamp": created},
            "spec": {"schedule": schedule, "jobTemplate": {
                "metadata": {"labels": {"team": "a"}, "annotations": {"note": "x"}},
                "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}},
        });
        for (k, v) in extra.as_object().unwrap() {
            value["spec"][k] = v.clone();
        }
        serde_json::from_value(value).unwrap()
    }

    fn with_last(mut cj: CronJob, last: &str) -> CronJob {
        cj.status = Some(CronJobStatus { last_schedule_time: Some(Time(at(last))), ..CronJobStatus::default() });
        cj
    }

    /// Before the first scheduled time there is nothing to run; once it has passed it is
    /// the one to run; after several, only the latest.
    #[test]
    fn most_recent_schedule_time_is_the_latest_unmet_time_since_the_last_run_or_the_creation() {
        let cj = cron_job("* * * * *", "2026-12-01T10:00:30Z", json!({}));
        let when = When::of(&cj).unwrap();
        assert_eq!(when.most_recent(&cj, at("2026-12-01T10:00:59Z"), true).1, None);
        assert_eq!(when.most_recent(&cj, at("2026-12-01T10:01:00Z"), true).1, Some(at("2026-12-01T10:01:00Z")));
        assert_eq!(when.most_recent(&cj, at("2026-12-01T10:05:10Z"), true).1, Some(at("2026-12-01T10:05:00Z")));
        let ran = with_last(cj, "2026-12-01T10:05:00Z");
        assert_eq!(when.most_recent(&ran, at("2026-12-01T10:05:30Z"), true).1, None);
        assert_eq!(when.wake(&ran, at("2026-12-01T10:05:30Z")), Some(at("2026-12-01T10:06:00.1Z")));
    }

    /// `startingDeadlineSeconds`: times further back than the deadline are not counted.
    #[test]
    fn times_older_than_the_starting_deadline_are_not_run() {
        let cj = cron_job("0 * * * *", "2026-12-01T08:30:00Z", json!({"startingDeadlineSeconds": 60}));
        let when = When::of(&cj).unwrap();
        assert_eq!(when.most_recent(&cj, at("2026-12-01T09:00:50Z"), true).1, Some(at("2026-12-01T09:00:00Z")));
        assert_eq!(when.most_recent(&cj, at("2026-12-01T09:01:10Z"), true).1, None);
        assert_eq!(when.wake(&cj, at("2026-12-01T09:01:10Z")), Some(at("2026-12-01T10:00:00.1Z")));
    }

    /// `spec.timeZone`: the schedule's minutes are wall-clock minutes of that zone.
    #[test]
    fn a_schedule_with_a_time_zone_runs_at_that_zone_s_wall_clock_time() {
        let cj = cron_job("0 9 * * *", "2026-12-01T00:00:00Z", json!({"timeZone": "Asia/Tokyo"}));
        let when = When::of(&cj).unwrap();
        // 09:00 in Tokyo is 00:00 UTC.
        assert_eq!(when.next_after(at("2026-12-01T00:00:00Z")), Some(at("2026-12-02T00:00:00Z")));
        let job = job_for(&cj, &when, at("2026-12-02T00:00:00Z"));
        let annotations = job.metadata.annotations.unwrap();
        assert_eq!(annotations[SCHEDULED_TIMESTAMP], "2026-12-02T09:00:00+09:00");
        // A minute that daylight saving skips does not run (02:30 on 2026-03-29 in Paris).
        let paris = cron_job("30 2 * * *", "2026-03-28T12:00:00Z", json!({"timeZone": "Europe/Paris"}));
        let when = When::of(&paris).unwrap();
        assert_eq!(when.next_after(at("2026-03-28T12:00:00Z")), Some(at("2026-03-30T00:30:00Z")));
    }

    /// `getJobFromTemplate2`: the name is the scheduled minute, the template's labels and
    /// annotations are kept, the CronJob controls it.
    #[test]
    fn the_job_of_a_scheduled_time_is_named_for_its_minute_and_owned_by_the_cron_job() {
        let cj = cron_job("* * * * *", "2026-12-01T10:00:00Z", json!({}));
        let when = When::of(&cj).unwrap();
        let scheduled = date(2026, 12, 1).at(10, 1, 0, 0).to_zoned(TimeZone::UTC).unwrap().timestamp();
        let job = job_for(&cj, &when, scheduled);
        assert_eq!(job.metadata.name.as_deref(), Some(format!("hello-{}", scheduled.as_second() / 60).as_str()));
        let annotations = job.metadata.annotations.unwrap();
        assert_eq!(annotations[SCHEDULED_TIMESTAMP], "2026-12-01T10:01:00Z");
        assert_eq!(annotations["note"], "x");
        assert_eq!(job.metadata.labels.unwrap()["team"], "a");
        let owner = &job.metadata.owner_references.unwrap()[0];
        assert_eq!((owner.kind.as_str(), owner.uid.as_str(), owner.controller), ("CronJob", "cj1", Some(true)));
    }

    fn finished_job(name: &str, started: Option<&str>) -> Job {
        let mut job = json!({"metadata": {"name": name, "uid": name}, "status": {
            "conditions": [{"type": "Complete", "status": "True"}]}});
        if let Some(started) = started {
            job["status"]["startTime"] = json!(started);
        }
        serde_json::from_value(job).unwrap()
    }

    /// `removeOldestJobs`: the ones that started first go; one that never started last.
    #[test]
    fn history_limits_remove_the_jobs_that_started_first() {
        let jobs = [
            finished_job("c", Some("2026-12-01T10:03:00Z")),
            finished_job("a", Some("2026-12-01T10:01:00Z")),
            finished_job("never", None),
            finished_job("b", Some("2026-12-01T10:02:00Z")),
        ];
        let names = |limit| -> Vec<String> {
            beyond_limit(jobs.iter().collect(), limit).iter().filter_map(|j| j.metadata.name.clone()).collect()
        };
        assert_eq!(names(Some(1)), ["a", "b", "c"]);
        assert_eq!(names(Some(3)), ["a"]);
        assert_eq!(names(Some(4)), Vec::<String>::new());
        assert_eq!(names(None), Vec::<String>::new());
    }
}
