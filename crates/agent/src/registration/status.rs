//! What the registration agent reports about its cluster: availability of the local
//! API server, Kubernetes version, capacity from Nodes, and cluster claims including the
//! klusterlet version it runs.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::Client;
use kube::api::{Api, ListParams};
use serde_json::{Value, json};

use fleetctl_api::names::{KUBE_VERSION_CLAIM, REGISTRATION_DEPLOYMENT, VERSION, VERSION_CLAIM};

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
    /// The klusterlet version (the tag of the registration agent's image).
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

/// Looks at the local cluster.
pub async fn observe(local: &Client, namespace: &str) -> Observed {
    let healthy = probe(local, "/livez").await || probe(local, "/healthz").await;
    Observed { healthy, details: details(local, namespace).await }
}

async fn details(local: &Client, namespace: &str) -> Result<Details, kube::Error> {
    let kubernetes = local.apiserver_version().await?.git_version;
    let deployment = Api::<Deployment>::namespaced(local.clone(), namespace).get_opt(REGISTRATION_DEPLOYMENT).await?;
    // Run outside its Deployment (by hand, or in the dev environment's process), the agent
    // is the version it was built as.
    let klusterlet = match deployment {
        Some(deployment) => image_tag(&deployment).unwrap_or(VERSION).to_string(),
        None => VERSION.to_string(),
    };
    let nodes = Api::<Node>::all(local.clone()).list(&ListParams::default()).await?.items;
    let (capacity, allocatable) = sums(&nodes);
    Ok(Details { kubernetes, klusterlet, capacity, allocatable })
}

/// The tag of the image of a Deployment's first container.
fn image_tag(deployment: &Deployment) -> Option<&str> {
    let container = deployment.spec.as_ref()?.template.spec.as_ref()?.containers.first()?;
    Some(container.image.as_deref()?.rsplit_once(':')?.1)
}

/// Parses a CPU or memory quantity into a base unit (millicores, bytes).
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
    for node in nodes {
        let status = node.status.clone().unwrap_or_default();
        for resource in ["cpu", "memory"] {
            if let Some(q) = status.capacity.as_ref().and_then(|c| c.get(resource)).and_then(|q| amount(q, resource)) {
                *capacity.entry(resource.to_string()).or_default() += q;
            }
            let schedulable = !node.spec.as_ref().and_then(|s| s.unschedulable).unwrap_or(false);
            if let Some(q) = status.allocatable.as_ref().and_then(|c| c.get(resource)).and_then(|q| amount(q, resource))
                && schedulable
            {
                *allocatable.entry(resource.to_string()).or_default() += q;
            }
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

    #[test]
    fn node_capacity_is_summed_in_kubernetes_units() {
        let node = |cpu: &str, memory: &str, unschedulable: bool| -> Node {
            serde_json::from_value(json!({
                "spec": {"unschedulable": unschedulable},
                "status": {"capacity": {"cpu": cpu, "memory": memory}, "allocatable": {"cpu": cpu, "memory": memory}}
            }))
            .expect("node")
        };
        let (capacity, allocatable) = sums(&[node("2", "4Gi", false), node("500m", "1Gi", true)]);
        assert_eq!(capacity["cpu"].0, "2500m");
        assert_eq!(capacity["memory"].0, "5120Mi");
        assert_eq!(allocatable["cpu"].0, "2");
        assert_eq!(allocatable["memory"].0, "4096Mi");
    }
}
