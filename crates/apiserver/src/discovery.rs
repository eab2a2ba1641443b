//! Discovery documents: aggregated (`apidiscovery.k8s.io/v2`) and legacy.

use std::sync::Arc;

use serde_json::{Value, json};

use super::registry::{Registry, ResourceType};

/// The content type of aggregated discovery v2.
pub const AGGREGATED_V2: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
/// The content type of aggregated discovery v2beta1.
pub const AGGREGATED_V2BETA1: &str = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

/// Which aggregated form an Accept header asks for, if any (v2 preferred).
pub fn aggregated_version(accept: &str) -> Option<&'static str> {
    let wants = |v: &str| {
        accept.split(',').any(|part| {
            part.contains("g=apidiscovery.k8s.io")
                && part.contains(&format!("v={v};"))
                && part.contains("as=APIGroupDiscoveryList")
        })
    };
    if wants("v2") {
        Some("v2")
    } else if wants("v2beta1") {
        Some("v2beta1")
    } else {
        None
    }
}

const VERBS: [&str; 8] = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

fn verbs(rt: &ResourceType) -> &'static [&'static str] {
    if rt.create_only { &["create"] } else { &VERBS }
}

fn subresource_list(rt: &ResourceType) -> Vec<(&'static str, Value, Vec<&'static str>)> {
    let own = json!({"group": rt.group, "version": rt.version, "kind": rt.kind});
    let mut out = Vec::new();
    let s = rt.subresources;
    if s.status {
        out.push(("status", own.clone(), vec!["get", "patch", "update"]));
    }
    if s.scale {
        out.push((
            "scale",
            json!({"group": "autoscaling", "version": "v1", "kind": "Scale"}),
            vec!["get", "patch", "update"],
        ));
    }
    if s.approval {
        out.push(("approval", own.clone(), vec!["get", "patch", "update"]));
    }
    if s.token {
        out.push((
            "token",
            json!({"group": "authentication.k8s.io", "version": "v1", "kind": "TokenRequest"}),
            vec!["create"],
        ));
    }
    if s.finalize {
        out.push(("finalize", own, vec!["update"]));
    }
    out
}

fn scope(rt: &ResourceType) -> &'static str {
    if rt.namespaced { "Namespaced" } else { "Cluster" }
}

/// An `APIGroupDiscoveryList` for `/api` (`core`) or `/apis` (every other group).
pub fn aggregated(registry: &Registry, core: bool, version: &str) -> Value {
    let (_, groups) = registry.snapshot();
    let items: Vec<Value> = groups
        .iter()
        .filter(|(group, _)| group.is_empty() == core)
        .map(|(group, versions)| {
            let versions: Vec<Value> = versions
                .iter()
                .map(|(v, resources)| json!({"version": v, "freshness": "Current", "resources": resources.iter().map(aggregated_resource).collect::<Vec<_>>()}))
                .collect();
            json!({"metadata": {"name": group, "creationTimestamp": null}, "versions": versions})
        })
        .collect();
    json!({"kind": "APIGroupDiscoveryList", "apiVersion": format!("apidiscovery.k8s.io/{version}"), "metadata": {}, "items": items})
}

fn aggregated_resource(rt: &Arc<ResourceType>) -> Value {
    let subresources: Vec<Value> = subresource_list(rt)
        .into_iter()
        .map(|(name, kind, verbs)| json!({"subresource": name, "responseKind": kind, "verbs": verbs}))
        .collect();
    let mut out = json!({
        "resource": rt.plural,
        "singularResource": rt.singular,
        "scope": scope(rt),
        "responseKind": {"group": rt.group, "version": rt.version, "kind": rt.kind},
        "verbs": verbs(rt),
    });
    if !rt.short_names.is_empty() {
        out["shortNames"] = json!(rt.short_names);
    }
    if !rt.categories.is_empty() {
        out["categories"] = json!(rt.categories);
    }
    if !subresources.is_empty() {
        out["subresources"] = json!(subresources);
    }
    out
}

/// Legacy `/api`: `APIVersions`.
pub fn legacy_core(address: &str) -> Value {
    json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": address}]})
}

fn group_entry(group: &str, versions: &[(String, Vec<Arc<ResourceType>>)]) -> Value {
    let list: Vec<Value> =
        versions.iter().map(|(v, _)| json!({"groupVersion": format!("{group}/{v}"), "version": v})).collect();
    let preferred = list.first().cloned().unwrap_or(Value::Null);
    json!({"name": group, "versions": list, "preferredVersion": preferred})
}

/// Legacy `/apis`: `APIGroupList`.
pub fn legacy_groups(registry: &Registry) -> Value {
    let (_, groups) = registry.snapshot();
    let items: Vec<Value> = groups.iter().filter(|(g, _)| !g.is_empty()).map(|(g, v)| group_entry(g, v)).collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": items})
}

/// Legacy `/apis/<group>`: `APIGroup`.
pub fn legacy_group(registry: &Registry, group: &str) -> Option<Value> {
    let (_, groups) = registry.snapshot();
    let (g, v) = groups.iter().find(|(g, _)| g == group && !g.is_empty())?;
    let mut entry = group_entry(g, v);
    entry["kind"] = json!("APIGroup");
    entry["apiVersion"] = json!("v1");
    Some(entry)
}

/// Legacy `/api/v1` or `/apis/<g>/<v>`: `APIResourceList`.
pub fn legacy_resources(registry: &Registry, group: &str, version: &str) -> Option<Value> {
    let (_, groups) = registry.snapshot();
    let (_, versions) = groups.iter().find(|(g, _)| g == group)?;
    let (_, resources) = versions.iter().find(|(v, _)| v == version)?;
    let mut list = Vec::new();
    for rt in resources {
        let mut entry = json!({
            "name": rt.plural, "singularName": rt.singular, "namespaced": rt.namespaced,
            "kind": rt.kind, "verbs": verbs(rt),
        });
        if !rt.short_names.is_empty() {
            entry["shortNames"] = json!(rt.short_names);
        }
        if !rt.categories.is_empty() {
            entry["categories"] = json!(rt.categories);
        }
        list.push(entry);
        for (name, kind, verbs) in subresource_list(rt) {
            let mut sub = json!({"name": format!("{}/{name}", rt.plural), "singularName": "", "namespaced": rt.namespaced, "kind": kind["kind"], "verbs": verbs});
            if kind["group"] != json!(rt.group) {
                sub["group"] = kind["group"].clone();
                sub["version"] = kind["version"].clone();
            }
            list.push(sub);
        }
    }
    let group_version = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
    Some(json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": list}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_headers_choose_the_aggregated_form() {
        let kubectl = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
        assert_eq!(aggregated_version(kubectl), Some("v2"));
        assert_eq!(aggregated_version("application/json"), None);
    }

    #[test]
    fn core_discovery_lists_configmaps_with_short_names() {
        let registry = Registry::with_builtins();
        let doc = aggregated(&registry, true, "v2");
        let resources = doc["items"][0]["versions"][0]["resources"].as_array().expect("resources");
        let cm = resources.iter().find(|r| r["resource"] == "configmaps").expect("configmaps");
        assert_eq!(cm["shortNames"], json!(["cm"]));
        assert_eq!(doc["items"][0]["metadata"]["name"], "");
    }
}
