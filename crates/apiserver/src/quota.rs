//! What objects count against a ResourceQuota, as kube-apiserver's quota evaluators
//! (`pkg/quota/v1/evaluator/core`, the generic object counter) count them: every object
//! as `count/<resource>[.<group>]`; Pods that are not finished as `pods` and by the
//! compute resources of their containers (`requests.cpu` and `cpu`, `limits.cpu`, the
//! same for memory and ephemeral storage: a container's requests, the largest init
//! container's where that is more, plus the Pod's overhead); Services as `services`,
//! `services.nodeports` and `services.loadbalancers`; claims as `persistentvolumeclaims`
//! and `requests.storage`; Secrets, ConfigMaps, ReplicationControllers and quotas by
//! their names.
//!
//! Both the quota controller (a quota's `status.used`) and quota admission (what a new
//! object would add) count with it.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::quantity::Quantity;
use super::reader::Reader;
use super::registry::GroupResource;

/// Core `resourcequotas`.
pub fn resource_quotas() -> GroupResource {
    GroupResource::new("", "resourcequotas")
}

/// Amounts by quota resource name.
pub type Usage = BTreeMap<String, Quantity>;

/// The compute names `ValidateResourceQuota` takes without a `/` (`IsStandardQuotaResourceName`;
/// the object counts of [`INTEGER`] are standard too).
const STANDARD: &[&str] = &[
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.storage",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
];

/// The names counted in whole objects (`IsIntegerResourceName`).
const INTEGER: &[&str] = &[
    "pods",
    "services",
    "replicationcontrollers",
    "resourcequotas",
    "secrets",
    "persistentvolumeclaims",
    "configmaps",
    "services.nodeports",
    "services.loadbalancers",
];

/// The compute names a quota makes every container of a Pod state (quota's
/// `validationSet`: "must specify").
pub const MUST_SPECIFY: &[&str] = &["cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"];

/// Whether a quota may name `resource`.
pub fn is_standard(resource: &str) -> bool {
    STANDARD.contains(&resource)
        || INTEGER.contains(&resource)
        || resource.starts_with("requests.hugepages-")
        || resource.contains('/')
}

/// Whether `resource` counts whole objects.
pub fn is_integer(resource: &str) -> bool {
    INTEGER.contains(&resource) || resource.starts_with("count/")
}

/// `count/<resource>` for the core group, `count/<resource>.<group>` for others.
fn count_name(resource: &GroupResource) -> String {
    match resource.group.as_str() {
        "" => format!("count/{}", resource.resource),
        group => format!("count/{}.{group}", resource.resource),
    }
}

/// The resource a quota name is counted from.
fn counted_from(name: &str) -> Option<GroupResource> {
    if let Some(counted) = name.strip_prefix("count/") {
        let (resource, group) = counted.split_once('.').unwrap_or((counted, ""));
        return Some(GroupResource::new(group, resource));
    }
    let core = |plural: &str| Some(GroupResource::new("", plural));
    match name {
        "services" | "services.nodeports" | "services.loadbalancers" => core("services"),
        "persistentvolumeclaims" | "requests.storage" => core("persistentvolumeclaims"),
        "secrets" | "configmaps" | "replicationcontrollers" | "resourcequotas" => core(name),
        n if n == "pods" || MUST_SPECIFY.contains(&n) || n.contains("ephemeral-storage") => core("pods"),
        _ => None,
    }
}

fn add(usage: &mut Usage, name: &str, amount: Quantity) {
    let total = usage.get(name).copied().unwrap_or_default().plus(amount);
    usage.insert(name.to_string(), total);
}

fn quantity(v: &Value) -> Option<Quantity> {
    v.as_str().and_then(|s| Quantity::parse(s).ok())
}

/// Whether a Pod has finished (`QuotaV1Pod`: Succeeded and Failed Pods count no more).
fn finished(pod: &Value) -> bool {
    matches!(pod["status"]["phase"].as_str(), Some("Succeeded" | "Failed"))
}

/// One container's compute usage (`podComputeUsageHelper`; the Pod strategy has
/// defaulted its requests from its limits).
pub fn container_usage(container: &Value) -> Usage {
    let mut usage = Usage::new();
    let resources = &container["resources"];
    for resource in ["cpu", "memory", "ephemeral-storage"] {
        let limit = quantity(&resources["limits"][resource]);
        if let Some(request) = quantity(&resources["requests"][resource]) {
            add(&mut usage, resource, request);
            add(&mut usage, &format!("requests.{resource}"), request);
        }
        if let Some(limit) = limit {
            add(&mut usage, &format!("limits.{resource}"), limit);
        }
    }
    usage
}

fn containers<'a>(pod: &'a Value, field: &str) -> impl Iterator<Item = &'a Value> {
    pod["spec"][field].as_array().into_iter().flatten()
}

/// A Pod's compute usage: its containers' sum, at least each init container's, plus the
/// overhead.
fn pod_usage(pod: &Value) -> Usage {
    let mut usage = Usage::new();
    for container in containers(pod, "containers") {
        for (name, amount) in container_usage(container) {
            add(&mut usage, &name, amount);
        }
    }
    for init in containers(pod, "initContainers") {
        for (name, amount) in container_usage(init) {
            let larger = usage.get(&name).copied().unwrap_or_default().max(amount);
            usage.insert(name, larger);
        }
    }
    if let Some(overhead) = pod["spec"]["overhead"].as_object() {
        for (resource, amount) in overhead {
            if let Some(amount) = quantity(amount).filter(|_| ["cpu", "memory"].contains(&resource.as_str())) {
                for name in [resource.clone(), format!("requests.{resource}"), format!("limits.{resource}")] {
                    if usage.contains_key(&name) || !name.starts_with("limits.") {
                        add(&mut usage, &name, amount);
                    }
                }
            }
        }
    }
    usage.insert("pods".into(), Quantity::count(1));
    usage
}

/// What one object of `resource` uses.
pub fn usage_of(resource: &GroupResource, object: &Value) -> Usage {
    let mut usage = Usage::new();
    let core = resource.group.is_empty();
    let plural = resource.resource.as_str();
    if core && plural == "pods" {
        if finished(object) {
            return usage;
        }
        usage = pod_usage(object);
    } else if core && plural == "services" {
        usage.insert("services".into(), Quantity::count(1));
        let kind = object["spec"]["type"].as_str().unwrap_or("ClusterIP");
        if matches!(kind, "NodePort" | "LoadBalancer") {
            let ports = object["spec"]["ports"].as_array().map_or(0, Vec::len);
            usage.insert("services.nodeports".into(), Quantity::count(ports));
        }
        if kind == "LoadBalancer" {
            usage.insert("services.loadbalancers".into(), Quantity::count(1));
        }
    } else if core && plural == "persistentvolumeclaims" {
        usage.insert(plural.into(), Quantity::count(1));
        if let Some(storage) = quantity(&object["spec"]["resources"]["requests"]["storage"]) {
            usage.insert("requests.storage".into(), storage);
        }
    } else if core && matches!(plural, "secrets" | "configmaps" | "replicationcontrollers" | "resourcequotas") {
        usage.insert(plural.into(), Quantity::count(1));
    }
    usage.insert(count_name(resource), Quantity::count(1));
    usage
}

/// What the objects of `namespace` use of `names` (each of them, zero where nothing
/// counts).
pub fn used(store: &Reader, namespace: &str, names: &BTreeSet<String>) -> Usage {
    let mut usage: Usage = names.iter().map(|n| (n.clone(), Quantity::default())).collect();
    let sources: BTreeSet<GroupResource> = names.iter().filter_map(|n| counted_from(n)).collect();
    for resource in sources {
        let page = store.list(&resource, Some(namespace));
        for stored in page.items {
            for (name, amount) in usage_of(&resource, &stored.value()) {
                if names.contains(&name) {
                    add(&mut usage, &name, amount);
                }
            }
        }
    }
    usage
}

/// A quota's hard limits (its status's once the controller has written them, else its
/// spec's), the ones that parse.
pub fn hard(quota: &Value) -> Usage {
    let status = &quota["status"]["hard"];
    let hard = if status.is_object() { status } else { &quota["spec"]["hard"] };
    hard.as_object()
        .into_iter()
        .flatten()
        .filter_map(|(name, amount)| Some((name.clone(), quantity(amount)?)))
        .collect()
}

/// `prettyPrint`: `name=amount` by name, comma-separated.
pub fn pretty(usage: &Usage) -> String {
    usage.iter().map(|(name, amount)| format!("{name}={amount}")).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pods() -> GroupResource {
        GroupResource::new("", "pods")
    }

    /// The pod evaluator: containers add up, an init container counts where it is larger;
    /// a finished Pod counts nothing.
    #[test]
    fn a_pod_uses_its_containers_requests_and_limits_and_a_finished_one_nothing() {
        let pod = json!({"spec": {
        "initContainers": [{"name": "init", "resources": {"requests": {"cpu": "2"}}}],
        "containers": [
            {"name": "a", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}}},
            {"name": "b", "resources": {"requests": {"memory": "64Mi"}, "limits": {"cpu": "500m", "memory": "64Mi"}}},
        ]}});
        let usage = usage_of(&pods(), &pod);
        let shown: BTreeMap<&str, String> = usage.iter().map(|(k, v)| (k.as_str(), v.to_string())).collect();
        assert_eq!(shown["pods"], "1");
        assert_eq!(shown["count/pods"], "1");
        assert_eq!(shown["requests.cpu"], "2", "the init container's 2 beats 750m");
        assert_eq!(shown["cpu"], "2");
        assert_eq!(shown["limits.cpu"], "500m");
        assert_eq!(shown["requests.memory"], "128Mi");
        assert_eq!(shown["memory"], "128Mi");
        assert_eq!(shown["limits.memory"], "192Mi");
        let mut done = pod.clone();
        done["status"] = json!({"phase": "Succeeded"});
        assert!(usage_of(&pods(), &done).is_empty());
    }

    #[test]
    fn other_kinds_count_as_objects_under_their_names() {
        let svc = json!({"spec": {"type": "NodePort", "ports": [{"port": 80}, {"port": 443}]}});
        let usage = usage_of(&GroupResource::new("", "services"), &svc);
        let names: Vec<&str> = usage.keys().map(String::as_str).collect();
        assert_eq!(names, ["count/services", "services", "services.nodeports"]);
        assert_eq!(usage["services.nodeports"], Quantity::count(2));
        let deploy = usage_of(&GroupResource::new("apps", "deployments"), &json!({}));
        assert_eq!(deploy.keys().collect::<Vec<_>>(), ["count/deployments.apps"]);
        assert_eq!(counted_from("count/deployments.apps"), Some(GroupResource::new("apps", "deployments")));
        assert_eq!(counted_from("limits.memory"), Some(pods()));
        assert_eq!(pretty(&usage), "count/services=1,services=1,services.nodeports=2");
    }
}
