//! What the registration agent reports about its cluster: availability of the local
//! API server, Kubernetes version, capacity from Nodes, and cluster claims including the
//! klusterlet version it runs — read from what runs, the agents' pods, never from a
//! Deployment's spec (which names the next version before any pod runs it).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::Client;
use kube::api::{Api, ListParams};
use serde_json::{Value, json};

use crate::Clusters;
use fleetctl_api::names::{KUBE_VERSION_CLAIM, VERSION_CLAIM};

/// What the agent saw of its cluster.
#[derive(Debug)]
pub struct Observed {
    /// Whether `/livez` (else `/healthz`) answered ok.
    pub healthy: bool,
    /// The figures it reports, or the read that failed (then the hub keeps the last ones:
    /// a cluster that could not be read has no empty capacity nor another version).
    pub details: Result<Details, kube::Error>,
}

/// The figures of a cluster the agent reports in its ManagedCluster's status.
#[derive(Debug, Clone, PartialEq)]
pub struct Details {
    /// `gitVersion`.
    pub kubernetes: String,
    /// The klusterlet version: the image tag the agents' pods run, several (comma-separated)
    /// while they roll from one version to another.
    pub klusterlet: String,
    /// Sums over Nodes.
    pub capacity: BTreeMap<String, Quantity>,
    /// Sums over schedulable Nodes.
    pub allocatable: BTreeMap<String, Quantity>,
}

async fn probe(local: &Client, path: &str) -> bool {
    let Ok(request) = http::Request::get(path).body(Vec::new()) else { return false };
    local.request_text(request).await.is_ok_and(|body| body.trim() == "ok")
}

/// Looks at the managed cluster and the agents' Pods; `version` is the agent's own, said when
/// no Pod of the agents runs.
pub async fn observe(clusters: &Clusters, namespace: &str, version: &str) -> Observed {
    let spoke = &clusters.spoke;
    let healthy = probe(spoke, "/livez").await || probe(spoke, "/healthz").await;
    Observed { healthy, details: details(clusters, namespace, version).await }
}

/// The managed cluster's version and nodes (the spoke), and the version the agents' Pods run
/// (where they run).
async fn details(clusters: &Clusters, namespace: &str, version: &str) -> Result<Details, kube::Error> {
    let kubernetes = clusters.spoke.apiserver_version().await?.git_version;
    let pods = Api::<Pod>::namespaced(clusters.management.clone(), namespace).list(&ListParams::default()).await?.items;
    // Run outside a pod (by hand, or as a task of a process), the agent says its own version.
    let klusterlet = running_version(&pods).unwrap_or_else(|| version.to_string());
    let nodes = Api::<Node>::all(clusters.spoke.clone()).list(&ListParams::default()).await?.items;
    let (capacity, allocatable) = sums(&nodes);
    Ok(Details { kubernetes, klusterlet, capacity, allocatable })
}

/// The klusterlet version the agents' pods run: the image tag of every container that runs,
/// as the kubelet reports it (a container still waiting for its image, or one that ended,
/// runs nothing); the tags comma-separated, in order, when they differ — a rollout under
/// way. `None` when no container runs.
pub fn running_version<'a>(pods: impl IntoIterator<Item = &'a Pod>) -> Option<String> {
    let statuses = pods.into_iter().filter_map(|pod| pod.status.as_ref()?.container_statuses.as_ref()).flatten();
    let running = statuses.filter(|c| c.state.as_ref().is_some_and(|s| s.running.is_some()));
    let tags: BTreeSet<String> = running.filter_map(|c| Some(c.image.rsplit_once(':')?.1.to_string())).collect();
    (!tags.is_empty()).then(|| tags.into_iter().collect::<Vec<_>>().join(","))
}

/// Parses a quantity into a base unit (millicores for CPU; bytes, pods… for the others).
fn amount(quantity: &Quantity, resource: &str) -> Option<u128> {
    let text = quantity.0.trim();
    let split = text.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let value: f64 = number.parse().ok()?;
    let factor: f64 = match suffix {
        "" => 1.0,
        "m" => 0.001,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "Ki" => 1024.0,
        "Mi" => 1024.0 * 1024.0,
        "Gi" => 1024.0 * 1024.0 * 1024.0,
        "Ti" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let scale = if resource == "cpu" { 1000.0 } else { 1.0 };
    // Quantities are non-negative and far below 2^128 in practice.
    Some((value * factor * scale).round().max(0.0) as u128)
}

fn render(total: u128, resource: &str) -> Quantity {
    if resource == "cpu" {
        if total.is_multiple_of(1000) { Quantity((total / 1000).to_string()) } else { Quantity(format!("{total}m")) }
    } else if total.is_multiple_of(1024 * 1024) {
        Quantity(format!("{}Mi", total / (1024 * 1024)))
    } else {
        Quantity(total.to_string())
    }
}

fn sums(nodes: &[Node]) -> (BTreeMap<String, Quantity>, BTreeMap<String, Quantity>) {
    let mut capacity: BTreeMap<String, u128> = BTreeMap::new();
    let mut allocatable: BTreeMap<String, u128> = BTreeMap::new();
    // Every resource the nodes list (cpu, memory, pods, ephemeral-storage, …), as upstream's
    // registration agent sums them; an unschedulable node's allocatable left out.
    let add = |total: &mut BTreeMap<String, u128>, listed: Option<&BTreeMap<String, Quantity>>| {
        for (resource, quantity) in listed.into_iter().flatten() {
            if let Some(q) = amount(quantity, resource) {
                *total.entry(resource.clone()).or_default() += q;
            }
        }
    };
    for node in nodes {
        let Some(status) = node.status.as_ref() else { continue };
        add(&mut capacity, status.capacity.as_ref());
        if !node.spec.as_ref().and_then(|s| s.unschedulable).unwrap_or(false) {
            add(&mut allocatable, status.allocatable.as_ref());
        }
    }
    let quantities = |m: BTreeMap<String, u128>| m.into_iter().map(|(k, v)| (k.clone(), render(v, &k))).collect();
    (quantities(capacity), quantities(allocatable))
}

/// The status fields the agent owns, as JSON for a merge patch (conditions apart).
pub fn status_fields(details: &Details) -> Value {
    json!({
        "version": {"kubernetes": details.kubernetes},
        "capacity": details.capacity,
        "allocatable": details.allocatable,
        "clusterClaims": [
            {"name": KUBE_VERSION_CLAIM, "value": details.kubernetes},
            {"name": VERSION_CLAIM, "value": details.klusterlet},
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(image: &str, state: serde_json::Value) -> Pod {
        serde_json::from_value(json!({
            "spec": {"containers": [{"name": "agent", "image": image}]},
            "status": {"containerStatuses": [
                {"name": "agent", "image": image, "imageID": image, "ready": true, "restartCount": 0, "state": state}
            ]},
        }))
        .expect("pod")
    }

    #[test]
    fn the_version_is_what_the_agents_containers_run_and_both_while_they_roll() {
        let running = || json!({"running": {"startedAt": "2025-01-01T00:00:00Z"}});
        let old = pod("quay.io/fleetctl/fleetctl:0.1.0", running());
        let new = pod("quay.io/fleetctl/fleetctl:0.2.0", running());
        assert_eq!(running_version([&old, &old]).as_deref(), Some("0.1.0"));
        assert_eq!(running_version([&old, &new]).as_deref(), Some("0.1.0,0.2.0"), "a rollout under way");
        // A container waiting for an image that cannot be pulled, or one that ended, runs nothing.
        let pulling = pod("quay.io/fleetctl/fleetctl:9.9.9", json!({"waiting": {"reason": "ImagePullBackOff"}}));
        let ended = pod("quay.io/fleetctl/fleetctl:0.0.9", json!({"terminated": {"exitCode": 0}}));
        assert_eq!(running_version([&old, &pulling, &ended]).as_deref(), Some("0.1.0"));
        assert_eq!(running_version([&pulling]), None);
    }

    #[test]
    fn every_node_resource_is_summed_in_kubernetes_units_as_upstreams_registration_agent_sums_them() {
        let node = |cpu: &str, memory: &str, unschedulable: bool| -> Node {
            let listed = json!({"cpu": cpu, "memory": memory, "pods": "110"});
            serde_json::from_value(json!({
                "spec": {"unschedulable": unschedulable},
                "status": {"capacity": listed, "allocatable": listed}
            }))
            .expect("node")
        };
        let (capacity, allocatable) = sums(&[node("2", "4Gi", false), node("500m", "1Gi", true)]);
        assert_eq!(capacity["cpu"].0, "2500m");
        assert_eq!(capacity["memory"].0, "5120Mi");
        assert_eq!(capacity["pods"].0, "220");
        assert_eq!(allocatable["cpu"].0, "2");
        assert_eq!(allocatable["memory"].0, "4096Mi");
        assert_eq!(allocatable["pods"].0, "110", "the unschedulable node's left out");
    }
}
