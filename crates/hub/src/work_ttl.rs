//! Completed ManifestWorks deleted `spec.deleteOption.ttlSecondsAfterFinished` after they
//! completed, as upstream's hub work manager's garbage collector deletes them: a work whose
//! `Complete` condition is True goes once that condition's transition time plus the TTL has
//! passed (at once for 0); a work of a ManifestWorkReplicaSet is left to its controller.
//!
//! The works are followed through a watch that keeps no cache: each event schedules the
//! work's deletion, moves it or cancels it, so that a fleet's works — the klusterlet works
//! carry a whole import manifest each — are not held in memory for the few with a TTL.

use std::collections::HashMap;
use std::time::Duration;

use futures::StreamExt;
use jiff::Timestamp;
use kube::api::{Api, DeleteParams, Preconditions};
use kube::runtime::watcher::{self, Event};
use kube::{Client, ResourceExt};
use tokio::time::Instant;
use tokio_util::time::{DelayQueue, delay_queue};

use fleetctl_api::ManifestWork;
use fleetctl_api::conditions::WORK_COMPLETE;
use fleetctl_api::work_replica_set::LABEL_REPLICA_SET;
use fleetctl_kube::backoff::Exponential;
use fleetctl_kube::watch::BackedOff;

/// When `work` is to be deleted, if it is to be.
fn deadline(work: &ManifestWork) -> Option<Timestamp> {
    if work.metadata.deletion_timestamp.is_some() || work.labels().contains_key(LABEL_REPLICA_SET) {
        return None;
    }
    let ttl = work.spec.delete_option.as_ref()?.ttl_seconds_after_finished?;
    let complete = work.status.as_ref()?.conditions.iter().find(|c| c.type_ == WORK_COMPLETE && c.status == "True")?;
    let ttl = jiff::SignedDuration::from_secs(ttl.max(0));
    Some(complete.last_transition_time.0.saturating_add(ttl).unwrap_or(Timestamp::MAX))
}

/// A work by namespace and name.
type Key = (String, String);

/// A deletion due: the work, its uid (a newcomer of the same name is not deleted), and how
/// many attempts failed before.
#[derive(Debug, Clone)]
struct Due {
    key: Key,
    uid: String,
    failures: u32,
}

/// The deletions to come.
#[derive(Default)]
struct Schedule {
    queue: DelayQueue<Due>,
    by_work: HashMap<Key, delay_queue::Key>,
}

impl Schedule {
    /// Schedules `work` as its TTL says, or cancels what was scheduled for it.
    fn follow(&mut self, work: &ManifestWork) {
        let key = (work.namespace().unwrap_or_default(), work.name_any());
        self.cancel(&key);
        if let Some(deadline) = deadline(work) {
            let wait = Duration::try_from(deadline.duration_since(Timestamp::now())).unwrap_or(Duration::ZERO);
            let due = Due { key: key.clone(), uid: work.uid().unwrap_or_default(), failures: 0 };
            self.by_work.insert(key, self.queue.insert_at(due, Instant::now() + wait));
        }
    }

    fn cancel(&mut self, key: &Key) {
        if let Some(scheduled) = self.by_work.remove(key) {
            self.queue.remove(&scheduled);
        }
    }

    fn retry(&mut self, mut due: Due) {
        due.failures += 1;
        let key = due.key.clone();
        let wait = Exponential::CONTROLLER.delay(due.failures);
        self.by_work.insert(key, self.queue.insert(due, wait));
    }
}

/// Deletes completed works whose TTL has passed, until the returned future is dropped.
pub async fn controller(client: Client) {
    let all = Api::<ManifestWork>::all(client.clone());
    let mut events = std::pin::pin!(watcher::watcher(all, watcher::Config::default()).backed_off());
    let mut schedule = Schedule::default();
    loop {
        tokio::select! {
            event = events.next() => match event {
                Some(Ok(Event::Apply(work) | Event::InitApply(work))) => schedule.follow(&work),
                Some(Ok(Event::Delete(work))) => schedule.cancel(&(work.namespace().unwrap_or_default(), work.name_any())),
                Some(Ok(Event::Init | Event::InitDone)) => {}
                Some(Err(e)) => tracing::debug!(error = %e, "watching ManifestWorks"),
                None => return,
            },
            Some(expired) = schedule.queue.next(), if !schedule.queue.is_empty() => {
                let due = expired.into_inner();
                schedule.by_work.remove(&due.key);
                if let Err(e) = delete(&client, &due).await {
                    tracing::warn!(namespace = %due.key.0, work = %due.key.1, error = %e, "deleting a completed ManifestWork");
                    schedule.retry(due);
                }
            }
        }
    }
}

/// Deletes the work `due` names, if it is still that work.
async fn delete(client: &Client, due: &Due) -> Result<(), kube::Error> {
    let (namespace, name) = &due.key;
    let api = Api::<ManifestWork>::namespaced(client.clone(), namespace);
    let params = DeleteParams {
        preconditions: Some(Preconditions { uid: Some(due.uid.clone()), resource_version: None }),
        ..DeleteParams::default()
    };
    match api.delete(name, &params).await {
        Ok(_) => {
            tracing::info!(%namespace, work = %name, "completed ManifestWork deleted after its TTL");
            Ok(())
        }
        // Gone already, or another work of the name now.
        Err(kube::Error::Api(status)) if status.code == 404 || status.code == 409 => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn work(ttl: Option<i64>, complete: Option<(&str, &str)>, labels: serde_json::Value) -> ManifestWork {
        let conditions: Vec<_> = complete
            .map(|(status, at)| {
                json!({"type": "Complete", "status": status, "reason": "R", "message": "", "lastTransitionTime": at})
            })
            .into_iter()
            .collect();
        serde_json::from_value(json!({
            "apiVersion": "work.open-cluster-management.io/v1", "kind": "ManifestWork",
            "metadata": {"name": "job", "namespace": "cluster1", "labels": labels},
            "spec": {"workload": {"manifests": []}, "deleteOption": {"propagationPolicy": "Foreground", "ttlSecondsAfterFinished": ttl}},
            "status": {"conditions": conditions},
        }))
        .unwrap()
    }

    #[test]
    fn a_completed_work_is_due_its_ttl_after_complete_turned_true_as_upstreams_garbage_collector_deletes_it() {
        let at = "2026-12-06T04:00:00Z";
        let due = |w: &ManifestWork| deadline(w).map(|t| t.to_string());
        assert_eq!(due(&work(Some(30), Some(("True", at)), json!({}))).as_deref(), Some("2026-12-06T04:00:30Z"));
        assert_eq!(due(&work(Some(0), Some(("True", at)), json!({}))).as_deref(), Some(at), "0: at once");
        assert_eq!(due(&work(None, Some(("True", at)), json!({}))), None, "no TTL: kept");
        assert_eq!(due(&work(Some(30), Some(("False", at)), json!({}))), None, "not complete");
        assert_eq!(due(&work(Some(30), None, json!({}))), None, "no Complete condition");
        let replica = json!({LABEL_REPLICA_SET: "default.set"});
        assert_eq!(due(&work(Some(30), Some(("True", at)), replica)), None, "its ManifestWorkReplicaSet's to delete");
    }
}
