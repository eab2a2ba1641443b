//! The ReplicaSet controller of kube-controller-manager (`pkg/controller/replicaset`):
//! as many Pods as `spec.replicas`, made from the template with the ReplicaSet as their
//! controller and named `<replicaset>-<random>`; extra Pods go unscheduled first, then
//! not ready, then the newest. The status counts them as they are: replicas, fully
//! labeled, ready and available (ready counts as available; `minReadySeconds` is not
//! waited for).

use k8s_openapi::api::apps::v1::{ReplicaSet, ReplicaSetStatus};
use k8s_openapi::api::core::v1::Pod;

use super::super::key::ObjectKey;
use super::super::options::{DeleteOptions, Propagation, WriteOptions};
use super::super::state::Shared;
use super::super::status::ApiError;
use super::super::store::ObjectRef;
use super::workloads::{owned, pod_of_template, pods, replace_status, replica_sets};
use super::{Step, read, resource_type, split_key};

/// Brings one ReplicaSet's Pods and status in line with its spec.
pub(super) fn sync(state: &Shared, key: &str) -> Step {
    let target = ObjectRef { resource: replica_sets(), key: key.to_string() };
    let Some((_, value)) = read(state, &target) else { return Ok(()) };
    let Ok(set) = serde_json::from_value::<ReplicaSet>(value) else { return Ok(()) };
    if set.metadata.deletion_timestamp.is_some() {
        return Ok(());
    }
    let (namespace, name) = split_key(key);
    let namespace = namespace.unwrap_or_default();
    let uid = set.metadata.uid.clone().unwrap_or_default();
    let mut live: Vec<Pod> = owned(state, &pods(), namespace, &uid);
    live.retain(|pod| pod.metadata.deletion_timestamp.is_none() && !finished(pod));
    let want = usize::try_from(set.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1).max(0)).unwrap_or(0);
    let Some(pods_rt) = resource_type(state, &pods()) else { return Ok(()) };
    let mut failure = None;
    if live.len() < want {
        let body = serde_json::to_value(pod_of(&set))
            .map_err(|e| ApiError::internal(format!("serializing a pod from the template: {e}")))?;
        for _ in live.len()..want {
            if let Err(e) = state.resource(&pods_rt).create(Some(namespace), body.clone(), &WriteOptions::default()) {
                failure.get_or_insert(e);
            }
        }
    } else if live.len() > want {
        let mut doomed = live.clone();
        doomed.sort_by_key(|pod| std::cmp::Reverse(deletion_rank(pod)));
        for pod in doomed.iter().take(live.len() - want) {
            let opts = DeleteOptions { propagation: Some(Propagation::Background), ..DeleteOptions::default() };
            let pod_name = pod.metadata.name.clone().unwrap_or_default();
            match state.resource(&pods_rt).delete(ObjectKey::namespaced(namespace, &pod_name), &opts) {
                Ok(_) => {}
                Err(e) if e.code == 404 => {}
                Err(e) => {
                    failure.get_or_insert(e);
                }
            }
        }
    }
    write_status(state, namespace, name, &set, &live)?;
    failure.map_or(Ok(()), Err)
}

/// A Pod that ran to completion or failed no longer counts (restartPolicy Never/OnFailure).
fn finished(pod: &Pod) -> bool {
    matches!(pod.status.as_ref().and_then(|s| s.phase.as_deref()), Some("Succeeded" | "Failed"))
}

pub(super) fn is_ready(pod: &Pod) -> bool {
    pod.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

/// Which Pod goes first when there are too many (higher goes first): unscheduled, then
/// pending, then not ready, then the most recently created.
fn deletion_rank(pod: &Pod) -> (bool, bool, bool, Option<jiff::Timestamp>) {
    let unscheduled = pod.spec.as_ref().and_then(|s| s.node_name.as_deref()).is_none_or(str::is_empty);
    let pending = pod.status.as_ref().and_then(|s| s.phase.as_deref()) != Some("Running");
    let created = pod.metadata.creation_timestamp.as_ref().map(|t| t.0);
    (unscheduled, pending, !is_ready(pod), created)
}

/// A Pod of the ReplicaSet's template.
fn pod_of(set: &ReplicaSet) -> Pod {
    let template = set.spec.as_ref().and_then(|s| s.template.clone()).unwrap_or_default();
    pod_of_template(&template, "apps/v1", "ReplicaSet", &set.metadata)
}

fn write_status(state: &Shared, namespace: &str, name: &str, set: &ReplicaSet, live: &[Pod]) -> Step {
    let labels = set.spec.as_ref().and_then(|s| s.template.as_ref()?.metadata.as_ref()?.labels.clone());
    let fully_labeled = live
        .iter()
        .filter(|pod| {
            let have = pod.metadata.labels.clone().unwrap_or_default();
            labels.iter().flatten().all(|(k, v)| have.get(k) == Some(v))
        })
        .count();
    let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    let ready = count(live.iter().filter(|p| is_ready(p)).count());
    let status = ReplicaSetStatus {
        replicas: count(live.len()),
        fully_labeled_replicas: Some(count(fully_labeled)),
        ready_replicas: Some(ready),
        available_replicas: Some(ready),
        observed_generation: set.metadata.generation,
        conditions: None,
        terminating_replicas: None,
    };
    if set.status.as_ref() == Some(&status) {
        return Ok(());
    }
    replace_status(state, &replica_sets(), namespace, name, &status)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod(node: Option<&str>, phase: &str, ready: bool, created: i64) -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": format!("p{created}"), "creationTimestamp":
                jiff::Timestamp::from_second(created).unwrap().to_string()},
            "spec": {"containers": [], "nodeName": node},
            "status": {"phase": phase, "conditions": [{"type": "Ready", "status": if ready {"True"} else {"False"}}]},
        }))
        .unwrap()
    }

    #[test]
    fn extra_pods_go_unscheduled_then_pending_then_not_ready_then_newest() {
        let mut pods = [
            pod(Some("n"), "Running", true, 1),
            pod(Some("n"), "Running", true, 5),
            pod(Some("n"), "Running", false, 2),
            pod(Some("n"), "Pending", false, 3),
            pod(None, "Pending", false, 4),
        ];
        pods.sort_by_key(|p| std::cmp::Reverse(deletion_rank(p)));
        let order: Vec<&str> = pods.iter().filter_map(|p| p.metadata.name.as_deref()).collect();
        assert_eq!(order, ["p4", "p3", "p2", "p5", "p1"]);
    }

    #[test]
    fn pods_of_the_template_are_controlled_by_the_replica_set() {
        let set: ReplicaSet = serde_json::from_value(json!({
            "metadata": {"name": "web-abc", "namespace": "ns", "uid": "rs1"},
            "spec": {"selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web", "pod-template-hash": "abc"}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
        }))
        .unwrap();
        let pod = pod_of(&set);
        assert_eq!(pod.metadata.generate_name.as_deref(), Some("web-abc-"));
        assert_eq!(pod.metadata.labels.unwrap()["pod-template-hash"], "abc");
        let owner = &pod.metadata.owner_references.unwrap()[0];
        assert_eq!((owner.kind.as_str(), owner.uid.as_str(), owner.controller), ("ReplicaSet", "rs1", Some(true)));
    }
}
