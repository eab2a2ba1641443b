//! ResourceQuota admission (`plugin/pkg/admission/resourcequota`): a new object is refused
//! when it would take a namespace past a quota (`exceeded quota: NAME, requested: …, used:
//! …, limited: …`), and a Pod whose containers do not state the compute resources a quota
//! limits is refused (`failed quota: NAME: must specify …`).
//!
//! The usage is counted from the store at the time of the request rather than from the
//! quota's `status.used`, which the quota controller writes a moment after each change;
//! a quota the controller has not seen yet limits by its spec.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::super::context::Context;
use super::super::quantity::Quantity;
use super::super::quota::{self, Usage, resource_quotas};
use super::super::status::ApiError;
use super::{Admitted, Operation, Plugin, Request};

/// The ResourceQuota admission plugin.
pub struct ResourceQuota;

impl Plugin for ResourceQuota {
    fn validate(&self, context: &Context<'_>, request: &Request<'_>, _: &mut Admitted) -> Result<(), ApiError> {
        let (Operation::Create, None, Some(namespace), Some(object)) =
            (request.operation, request.subresource, request.key.namespace, request.object)
        else {
            return Ok(());
        };
        let rt = request.rt;
        let quotas = context.store.list(&resource_quotas(), Some(namespace)).items;
        if quotas.is_empty() {
            return Ok(());
        }
        let delta = quota::usage_of(&rt.group_resource(), object);
        let refuse = |why: String| ApiError::forbidden(&rt.plural, &rt.group, request.key.name, &why);
        for stored in quotas {
            let quota_object = stored.value();
            let name = quota_object["metadata"]["name"].as_str().unwrap_or_default().to_string();
            let hard = quota::hard(&quota_object);
            if rt.group.is_empty() && rt.plural == "pods" {
                let missing = missing_compute(object, &hard);
                if !missing.is_empty() {
                    return Err(refuse(format!("failed quota: {name}: must specify {missing}")));
                }
            }
            let requested: Usage =
                delta.iter().filter(|(k, _)| hard.contains_key(*k)).map(|(k, v)| (k.clone(), *v)).collect();
            if requested.is_empty() {
                continue;
            }
            let names: BTreeSet<String> = requested.keys().cloned().collect();
            let used = quota::used(&context.store, namespace, &names);
            let exceeded: BTreeSet<&String> = requested
                .iter()
                .filter(|(k, amount)| {
                    let total = used.get(*k).copied().unwrap_or_default().plus(**amount);
                    hard.get(*k).is_some_and(|limit| total > *limit)
                })
                .map(|(k, _)| k)
                .collect();
            if !exceeded.is_empty() {
                let mask = |usage: &Usage| -> Usage {
                    usage.iter().filter(|(k, _)| exceeded.contains(k)).map(|(k, v)| (k.clone(), *v)).collect()
                };
                return Err(refuse(format!(
                    "exceeded quota: {name}, requested: {}, used: {}, limited: {}",
                    quota::pretty(&mask(&requested)),
                    quota::pretty(&mask(&used)),
                    quota::pretty(&mask(&hard)),
                )));
            }
        }
        Ok(())
    }
}

/// The pod evaluator's `Constraints`: for each compute name the quota limits that some
/// container (or init container) leaves out, the containers that do, as
/// `requests.cpu for: a,b; limits.memory for: a`.
fn missing_compute(pod: &Value, hard: &BTreeMap<String, Quantity>) -> String {
    let required: Vec<&str> = quota::MUST_SPECIFY.iter().copied().filter(|r| hard.contains_key(*r)).collect();
    let mut missing: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for field in ["containers", "initContainers"] {
        for container in pod["spec"][field].as_array().into_iter().flatten() {
            let stated = quota::container_usage(container);
            for resource in required.iter().filter(|r| !stated.contains_key(**r)) {
                missing.entry(resource).or_default().insert(container["name"].as_str().unwrap_or_default());
            }
        }
    }
    missing
        .iter()
        .map(|(resource, names)| format!("{resource} for: {}", names.iter().copied().collect::<Vec<_>>().join(",")))
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_limited_compute_name_a_container_leaves_out_is_named_with_its_containers() {
        let hard: BTreeMap<String, Quantity> =
            ["requests.cpu", "limits.memory", "pods"].iter().map(|n| (n.to_string(), Quantity::count(1))).collect();
        let pod = json!({"spec": {"containers": [
            {"name": "a", "resources": {"requests": {"cpu": "100m"}}},
            {"name": "b"},
        ]}});
        assert_eq!(missing_compute(&pod, &hard), "limits.memory for: a,b; requests.cpu for: b");
        let stated = json!({"spec": {"containers": [{"name": "a", "resources": {
            "requests": {"cpu": "1"}, "limits": {"memory": "1Gi"}}}]}});
        assert_eq!(missing_compute(&stated, &hard), "");
    }
}
