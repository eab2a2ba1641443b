//! One Deployment: its Pods (one per replica) and its status.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::{Deployment, DeploymentStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kube::api::{Api, Patch, PatchParams};
use tokio::sync::{Notify, mpsc, watch};

use super::pod::PodHandle;
use super::status::{PodCounts, deployment_status, desired_replicas, same_status, template_hash};
use super::{Key, Node};

/// After a failed status write, how long until the next try.
const STATUS_RETRY: Duration = Duration::from_secs(1);

/// Keeps a Deployment's Pods and status in line with its spec until the Deployment is
/// gone (`None`, or the dispatcher dropping its sender), then stops its Pods.
pub(super) async fn run(
    node: Arc<Node>,
    key: Key,
    mut desired: watch::Receiver<Option<Arc<Deployment>>>,
    mut pod_gone: mpsc::UnboundedReceiver<String>,
) {
    // Pods poke this when one of them becomes ready or stops being ready.
    let changed = Arc::new(Notify::new());
    let mut pods: Vec<PodHandle> = Vec::new();
    // The status last written and the resourceVersion it was computed from: until the
    // write comes back through the watch, the same computation must not write again.
    let mut written: Option<(Option<String>, DeploymentStatus)> = None;
    loop {
        let current = desired.borrow_and_update().clone();
        let Some(deployment) = current else { break };
        reconcile(&node, &deployment, &mut pods, &changed).await;
        write_status(&node, &key, &deployment, &pods, &mut written, &changed).await;
        tokio::select! {
            changed = desired.changed() => if changed.is_err() { break },
            () = changed.notified() => {}
            Some(name) = pod_gone.recv() => {
                // Someone deleted a Pod: its process stops, and the next pass replaces it.
                if let Some(at) = pods.iter().position(|p| p.name() == name) {
                    pods.remove(at).stop().await;
                }
            }
        }
    }
    stop_all(pods).await;
    tracing::debug!(namespace = %key.0, deployment = %key.1, "deployment gone: its pods are stopped");
}

/// The Pods wanted now: those of the current template (and owner), as many as replicas;
/// a Deployment being deleted wants none.
async fn reconcile(node: &Arc<Node>, deployment: &Deployment, pods: &mut Vec<PodHandle>, changed: &Arc<Notify>) {
    let want = if deployment.metadata.deletion_timestamp.is_some() { 0 } else { desired_replicas(deployment) };
    let hash = template_hash(deployment);
    // A Deployment recreated under the same name owns none of the old Pods.
    let generation = format!("{}/{hash}", deployment.metadata.uid.as_deref().unwrap_or_default());
    let (current, old): (Vec<_>, Vec<_>) = std::mem::take(pods).into_iter().partition(|p| p.generation() == generation);
    *pods = current;
    let mut stopping = old;
    while pods.len() > want {
        if let Some(extra) = pods.pop() {
            stopping.push(extra);
        }
    }
    // Old Pods go before new ones start: two copies of an agent never run at once.
    stop_all(stopping).await;
    while pods.len() < want {
        pods.push(PodHandle::start(node.clone(), deployment, &hash, &generation, changed.clone()));
    }
}

async fn stop_all(pods: Vec<PodHandle>) {
    futures::future::join_all(pods.into_iter().map(PodHandle::stop)).await;
}

fn now() -> Time {
    let now = jiff::Timestamp::now();
    // Stored times have whole seconds; a finer one would never compare equal.
    Time(jiff::Timestamp::from_second(now.as_second()).unwrap_or(now))
}

async fn write_status(
    node: &Node,
    key: &Key,
    deployment: &Deployment,
    pods: &[PodHandle],
    written: &mut Option<(Option<String>, DeploymentStatus)>,
    changed: &Arc<Notify>,
) {
    let counts = PodCounts {
        total: pods.len(),
        updated: pods.len(),
        ready: pods.iter().filter(|p| p.ready()).count(),
        updated_ready: pods.iter().filter(|p| p.ready()).count(),
    };
    let status = deployment_status(deployment, counts, now());
    if same_status(deployment.status.as_ref(), &status) {
        return;
    }
    let version = deployment.metadata.resource_version.clone();
    if written.as_ref().is_some_and(|(v, s)| *v == version && same_status(Some(s), &status)) {
        return;
    }
    let api: Api<Deployment> = Api::namespaced(node.client(), &key.0);
    let patch = Patch::Merge(serde_json::json!({ "status": status }));
    match api.patch_status(&key.1, &PatchParams::default(), &patch).await {
        Ok(_) => *written = Some((version, status)),
        Err(kube::Error::Api(e)) if e.code == 404 => {}
        Err(e) => {
            tracing::warn!(namespace = %key.0, deployment = %key.1, error = %e, "writing deployment status (will retry)");
            let changed = changed.clone();
            tokio::spawn(async move {
                tokio::time::sleep(STATUS_RETRY).await;
                changed.notify_one();
            });
        }
    }
}
