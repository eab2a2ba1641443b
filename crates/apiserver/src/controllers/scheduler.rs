//! The dev cluster's kube-scheduler: a Pod that names no node is bound to a Ready,
//! schedulable Node (the one running fewest Pods; node selectors, affinity, taints and
//! resources are not weighed). With none, its `PodScheduled` condition says
//! `Unschedulable`, as upstream's does, and it waits for a Node to become Ready.

use k8s_openapi::api::core::v1::{Node, Pod};
use serde_json::{Value, json};

use super::super::key::ObjectKey;
use super::super::options::WriteOptions;
use super::super::state::Shared;
use super::super::store::ObjectRef;
use super::workloads::{nodes, pods};
use super::{Step, read, resource_type, split_key};

/// Schedules one Pod.
pub(super) fn schedule(state: &Shared, key: &str) -> Step {
    let target = ObjectRef { resource: pods(), key: key.to_string() };
    let Some((_, pod)) = read(state, &target) else { return Ok(()) };
    let pending = pod["spec"]["nodeName"].as_str().is_none_or(str::is_empty);
    if !pending || super::super::object::deletion_timestamp(&pod).is_some() {
        return Ok(());
    }
    let (namespace, name) = split_key(key);
    let Some(rt) = resource_type(state, &pods()) else { return Ok(()) };
    let chosen = pick(state);
    let result = match &chosen {
        Some(node) => state.resource(&rt).write(
            ObjectKey::new(namespace, name),
            None,
            &WriteOptions::default(),
            None,
            &mut |current| {
                let mut next = current.clone();
                next["spec"]["nodeName"] = json!(node);
                Ok(next)
            },
        ),
        None => {
            let condition = unschedulable(state);
            if pod["status"]["conditions"].as_array().is_some_and(|c| c.contains(&condition)) {
                return Ok(());
            }
            state.resource(&rt).write(
                ObjectKey::new(namespace, name),
                Some("status"),
                &WriteOptions::default(),
                None,
                &mut |current| {
                    let mut next = current.clone();
                    next["status"]["phase"] = json!("Pending");
                    next["status"]["conditions"] = json!([condition.clone()]);
                    Ok(next)
                },
            )
        }
    };
    match result {
        Err(e) if e.code == 404 => Ok(()),
        other => other.map(|_| ()),
    }
}

/// Schedules every Pod still waiting for a node (a Node changed).
pub(super) fn schedule_all(state: &Shared) -> Step {
    let page = state.store.list(&pods(), None, None, 0, &|_| true);
    let waiting: Vec<String> = page
        .items
        .iter()
        .map(|stored| stored.value())
        .filter(|pod| pod["spec"]["nodeName"].as_str().is_none_or(str::is_empty))
        .filter_map(|pod| {
            Some(format!("{}/{}", pod["metadata"]["namespace"].as_str()?, pod["metadata"]["name"].as_str()?))
        })
        .collect();
    waiting.iter().try_for_each(|key| schedule(state, key))
}

fn ready_nodes(state: &Shared) -> Vec<Node> {
    let page = state.store.list(&nodes(), None, None, 0, &|_| true);
    page.items
        .iter()
        .filter_map(|stored| serde_json::from_value::<Node>(stored.value()).ok())
        .filter(|node| node.spec.as_ref().and_then(|s| s.unschedulable) != Some(true))
        .filter(|node| {
            let conditions = node.status.as_ref().and_then(|s| s.conditions.as_ref());
            conditions.is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
        })
        .collect()
}

/// The Ready Node with the fewest Pods.
fn pick(state: &Shared) -> Option<String> {
    let candidates = ready_nodes(state);
    if candidates.is_empty() {
        return None;
    }
    let page = state.store.list(&pods(), None, None, 0, &|_| true);
    let placed: Vec<Pod> = page.items.iter().filter_map(|s| serde_json::from_value(s.value()).ok()).collect();
    candidates.iter().filter_map(|node| node.metadata.name.clone()).min_by_key(|name| {
        placed.iter().filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_ref()) == Some(name)).count()
    })
}

/// The condition of a Pod no node can take, as upstream words it.
fn unschedulable(state: &Shared) -> Value {
    let total = state.store.list(&nodes(), None, None, 0, &|_| true).items.len();
    json!({
        "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
        "message": format!("0/{total} nodes are available: {total} node(s) were not ready."),
    })
}
