//! The CronJob controller (kube-controller-manager's v2) against an in-process server
//! whose clock the test sets: the scheduled minutes pass without being waited for.

use fleetctl_apiserver::{ManualClock, Settings};
use futures::{StreamExt, TryStreamExt};
use jiff::Timestamp;
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::Event;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::wait::{Condition, await_condition, conditions};
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::json;

use crate::support::PATIENCE;
use crate::support::cluster::TestCluster;

struct Cron {
    _cluster: TestCluster,
    clock: ManualClock,
    cron_jobs: Api<CronJob>,
    jobs: Api<Job>,
    events: Api<Event>,
}

impl Cron {
    async fn start() -> Self {
        let clock = ManualClock::new(Timestamp::now());
        let cluster = TestCluster::with_settings(Settings { clock: clock.clock(), ..Settings::default() }).await;
        let client = cluster.client.clone();
        Self {
            _cluster: cluster,
            clock,
            cron_jobs: Api::namespaced(client.clone(), "default"),
            jobs: Api::namespaced(client.clone(), "default"),
            events: Api::namespaced(client, "default"),
        }
    }

    /// Creates a CronJob; answers its first scheduled minute (`* * * * *`: the minute
    /// after its creation).
    async fn create(&self, name: &str, spec: serde_json::Value) -> Timestamp {
        let mut body = json!({"metadata": {"name": name}, "spec": {
            "schedule": "* * * * *",
            "jobTemplate": {"spec": {"template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox:1.36"}]}}}}}});
        for (key, value) in spec.as_object().expect("an object") {
            body["spec"][key] = value.clone();
        }
        let cron_job: CronJob = serde_json::from_value(body).expect("a CronJob");
        let created = self.cron_jobs.create(&PostParams::default(), &cron_job).await.expect("created");
        let second = created.metadata.creation_timestamp.expect("a creation time").0.as_second();
        Timestamp::from_second((second.div_euclid(60) + 1) * 60).expect("a time")
    }

    /// Sets the clock `seconds` past `minute`.
    fn set(&self, minute: Timestamp, seconds: i64) {
        self.clock.set(minute + jiff::SignedDuration::from_secs(seconds));
    }

    /// The Job of `cron_job` for `minute`, once the Job controller has started it (so
    /// that a status the test writes is not overwritten by the controller's first one).
    async fn job(&self, cron_job: &str, minute: Timestamp) -> Job {
        let name = format!("{cron_job}-{}", minute.as_second() / 60);
        let started = |job: Option<&Job>| job.and_then(|j| j.status.as_ref()).is_some_and(|s| s.active == Some(1));
        self.until(&self.jobs, &name, started).await.expect("the job")
    }

    async fn until<K>(&self, api: &Api<K>, name: &str, condition: impl Condition<K>) -> Option<K>
    where
        K: kube::Resource + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + 'static,
    {
        let waited = tokio::time::timeout(PATIENCE, await_condition(api.clone(), name, condition)).await;
        waited.unwrap_or_else(|_| panic!("{name}: not within {PATIENCE:?}")).expect("watch")
    }

    /// The names of the Jobs there are now, sorted.
    async fn job_names(&self) -> Vec<String> {
        let list = self.jobs.list(&ListParams::default()).await.expect("jobs");
        let mut names: Vec<String> = list.items.into_iter().filter_map(|j| j.metadata.name).collect();
        names.sort();
        names
    }

    /// Waits for an Event of `reason` about `object`.
    async fn event(&self, object: &str, reason: &str) -> Event {
        let selector = format!("involvedObject.name={object}");
        let config = watcher::Config::default().fields(&selector);
        let mut found = watcher(self.events.clone(), config)
            .applied_objects()
            .try_filter(|e| std::future::ready(e.reason.as_deref() == Some(reason)))
            .boxed();
        let waited = tokio::time::timeout(PATIENCE, found.try_next()).await;
        waited
            .unwrap_or_else(|_| panic!("event {reason} about {object}: not within {PATIENCE:?}"))
            .expect("watch")
            .expect("an event")
    }

    /// Ends a Job as its controller would: `Complete` (or `Failed`), now.
    async fn finish(&self, job: &Job, condition: &str) {
        let now = Timestamp::now().to_string();
        let mut status = json!({"conditions": [{"type": condition, "status": "True", "lastTransitionTime": now}]});
        if condition == "Complete" {
            status["completionTime"] = json!(now);
        }
        let name = job.metadata.name.as_deref().expect("a name");
        let patch = Patch::Merge(json!({"status": status}));
        self.jobs.patch_status(name, &PatchParams::default(), &patch).await.expect("status written");
    }

    async fn status(&self, name: &str) -> k8s_openapi::api::batch::v1::CronJobStatus {
        self.cron_jobs.get(name).await.expect("the cron job").status.unwrap_or_default()
    }
}

fn active(status: &k8s_openapi::api::batch::v1::CronJobStatus) -> Vec<String> {
    status.active.iter().flatten().filter_map(|r| r.name.clone()).collect()
}

/// `getJobFromTemplate2` and `syncCronJob`: at the scheduled minute a Job named for it
/// (`<cronjob>-<minutes since the epoch>`), annotated with the scheduled time, controlled
/// by the CronJob; `status.active` lists it and `lastScheduleTime` is the minute; once it
/// completes it leaves `active` and its completion is `lastSuccessfulTime`.
#[tokio::test]
async fn every_minute_starts_the_job_named_for_its_scheduled_minute_and_records_it_in_status() {
    let cron = Cron::start().await;
    let first = cron.create("hello", json!({})).await;
    cron.set(first, 1);
    let job = cron.job("hello", first).await;
    let annotations = job.metadata.annotations.clone().unwrap_or_default();
    assert_eq!(
        annotations.get("batch.kubernetes.io/cronjob-scheduled-timestamp").map(String::as_str),
        Some(first.strftime("%Y-%m-%dT%H:%M:%SZ").to_string().as_str())
    );
    let owner = &job.metadata.owner_references.clone().unwrap_or_default()[0];
    assert_eq!((owner.kind.as_str(), owner.name.as_str(), owner.controller), ("CronJob", "hello", Some(true)));
    cron.event("hello", "SuccessfulCreate").await;
    let status = cron.status("hello").await;
    assert_eq!(active(&status), [job.metadata.name.clone().unwrap()]);
    assert_eq!(status.last_schedule_time.map(|t| t.0), Some(first));

    cron.finish(&job, "Complete").await;
    let done = cron
        .until(&cron.cron_jobs, "hello", |c: Option<&CronJob>| {
            c.and_then(|c| c.status.as_ref()).is_some_and(|s| s.active.is_none() && s.last_successful_time.is_some())
        })
        .await
        .expect("the cron job");
    assert_eq!(done.status.and_then(|s| s.last_schedule_time).map(|t| t.0), Some(first));
    cron.event("hello", "SawCompletedJob").await;
}

/// `concurrencyPolicy: Forbid`: while a Job runs the next time is not started
/// (`JobAlreadyActive`); with no `startingDeadlineSeconds` the time missed is started once
/// the running one finishes.
#[tokio::test]
async fn forbid_skips_the_next_time_while_a_job_runs_and_starts_the_missed_one_after() {
    let cron = Cron::start().await;
    let first = cron.create("forbid", json!({"concurrencyPolicy": "Forbid"})).await;
    cron.set(first, 1);
    let running = cron.job("forbid", first).await;
    let second = first + jiff::SignedDuration::from_secs(60);
    cron.set(second, 1);
    cron.event("forbid", "JobAlreadyActive").await;
    assert_eq!(cron.job_names().await, [running.metadata.name.clone().unwrap()]);

    cron.finish(&running, "Complete").await;
    cron.job("forbid", second).await;
}

/// `concurrencyPolicy: Replace`: the running Job is deleted and the next one started.
#[tokio::test]
async fn replace_deletes_the_running_job_and_starts_the_next() {
    let cron = Cron::start().await;
    let first = cron.create("replace", json!({"concurrencyPolicy": "Replace"})).await;
    cron.set(first, 1);
    let old = cron.job("replace", first).await;
    let second = first + jiff::SignedDuration::from_secs(60);
    cron.set(second, 1);
    let new = cron.job("replace", second).await;
    let uid = old.metadata.uid.clone().unwrap();
    cron.until(&cron.jobs, old.metadata.name.as_deref().unwrap(), conditions::is_deleted(&uid)).await;
    cron.event("replace", "SuccessfulDelete").await;
    let status = cron
        .until(&cron.cron_jobs, "replace", |c: Option<&CronJob>| {
            c.and_then(|c| c.status.as_ref()).is_some_and(|s| active(s).len() == 1)
        })
        .await
        .expect("the cron job");
    assert_eq!(active(&status.status.unwrap()), [new.metadata.name.unwrap()]);
}

/// `concurrencyPolicy: Allow` runs Jobs side by side; `cleanupFinishedJobs` keeps
/// `successfulJobsHistoryLimit` completed and `failedJobsHistoryLimit` failed Jobs, removing
/// those that started first.
#[tokio::test]
async fn history_limits_remove_the_oldest_finished_jobs_of_each_kind() {
    let cron = Cron::start().await;
    let first = cron.create("hist", json!({"successfulJobsHistoryLimit": 1, "failedJobsHistoryLimit": 1})).await;
    let minute = |n: i64| first + jiff::SignedDuration::from_secs(60 * n);
    let mut made = Vec::new();
    for n in 0..2 {
        cron.set(minute(n), 1);
        made.push(cron.job("hist", minute(n)).await);
    }
    let status = cron
        .until(&cron.cron_jobs, "hist", |c: Option<&CronJob>| {
            c.and_then(|c| c.status.as_ref()).is_some_and(|s| active(s).len() == 2)
        })
        .await
        .expect("two side by side");
    assert_eq!(status.status.map(|s| active(&s).len()), Some(2));
    for n in 2..4 {
        cron.set(minute(n), 1);
        made.push(cron.job("hist", minute(n)).await);
    }
    // Two completed, two failed: the first of each goes.
    for (job, how) in made.iter().zip(["Complete", "Complete", "Failed", "Failed"]) {
        cron.finish(job, how).await;
    }
    for gone in [&made[0], &made[2]] {
        let uid = gone.metadata.uid.clone().unwrap();
        cron.until(&cron.jobs, gone.metadata.name.as_deref().unwrap(), conditions::is_deleted(&uid)).await;
    }
    let kept: Vec<String> = [&made[1], &made[3]].iter().filter_map(|j| j.metadata.name.clone()).collect();
    assert_eq!(cron.job_names().await, kept);
}

/// `spec.suspend`: a suspended CronJob starts nothing; resumed with no
/// `startingDeadlineSeconds`, it starts the most recent time it missed at once.
#[tokio::test]
async fn a_suspended_cron_job_starts_nothing_and_resumed_runs_the_latest_missed_time() {
    let cron = Cron::start().await;
    cron.create("a-held", json!({"suspend": true})).await;
    // Due at the same minutes, a CronJob whose name sorts after is handled in the same pass
    // after the suspended one: once its Job exists, that pass is over.
    let first = cron.create("b-witness", json!({})).await;
    let second = first + jiff::SignedDuration::from_secs(60);
    cron.set(second, 1);
    let witness = cron.job("b-witness", second).await;
    assert_eq!(cron.job_names().await, [witness.metadata.name.unwrap()], "the suspended one started nothing");

    let resume = Patch::Merge(json!({"spec": {"suspend": false}}));
    cron.cron_jobs.patch("a-held", &PatchParams::default(), &resume).await.expect("resumed");
    cron.job("a-held", second).await;
    assert_eq!(cron.job_names().await.len(), 2, "only the latest missed time: {:?}", cron.job_names().await);
}

/// The controller sleeps until the earliest next time and no longer: a CronJob of another
/// schedule does not hold it up, and setting the clock wakes it.
#[tokio::test]
async fn the_controller_wakes_at_each_cron_job_s_own_next_time() {
    let cron = Cron::start().await;
    let first = cron.create("minutely", json!({})).await;
    cron.create("hourly", json!({"schedule": "0 * * * *"})).await;
    cron.set(first, 1);
    cron.job("minutely", first).await;
    let hour = Timestamp::from_second((first.as_second().div_euclid(3600) + 1) * 3600).unwrap();
    cron.set(hour, 1);
    cron.job("hourly", hour).await;
    cron.job("minutely", hour).await;
}
