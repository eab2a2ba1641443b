//! kube-controller-manager's clusterrole-aggregation controller: a ClusterRole with an
//! `aggregationRule` holds the rules of every ClusterRole its selectors match (itself
//! excepted), in the order of their names, each rule once. A role labelled to aggregate
//! into another that aggregates too (`view` into `edit` into `admin`) reaches it through
//! the rules written here, one pass after another.

use k8s_openapi::api::rbac::v1::{ClusterRole, PolicyRule};
use serde_json::json;

use super::super::kinds;
use super::super::object;
use super::super::selector::LabelSelector;
use super::super::state::Shared;
use super::super::store::ObjectRef;
use super::{Step, modify};

/// Brings the rules of every aggregating ClusterRole up to date.
pub(super) fn sync(state: &Shared) -> Step {
    let resource = kinds::key_of::<ClusterRole>();
    let roles: Vec<ClusterRole> = state
        .store
        .list(&resource, None, None, 0, &|_| true)
        .items
        .iter()
        .filter_map(|stored| serde_json::from_value(stored.value()).ok())
        .collect();
    for role in &roles {
        let Some(rule) = &role.aggregation_rule else { continue };
        let selectors: Vec<LabelSelector> =
            rule.cluster_role_selectors.iter().flatten().filter_map(|s| LabelSelector::from_typed(s).ok()).collect();
        let name = role.metadata.name.as_deref().unwrap_or_default();
        let mut sources: Vec<&ClusterRole> = roles
            .iter()
            .filter(|other| other.metadata.name.as_deref() != Some(name))
            .filter(|other| {
                let labels = other
                    .metadata
                    .labels
                    .as_ref()
                    .map(|l| l.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>());
                selectors.iter().any(|s| !s.is_empty() && s.matches(labels.as_ref()))
            })
            .collect();
        sources.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        let mut rules: Vec<&PolicyRule> = Vec::new();
        for rule in sources.iter().flat_map(|source| source.rules.iter().flatten()) {
            if !rules.contains(&rule) {
                rules.push(rule);
            }
        }
        if role.rules.as_ref().is_some_and(|own| own.iter().eq(rules.iter().copied()))
            || (rules.is_empty() && role.rules.as_ref().is_none_or(Vec::is_empty))
        {
            continue;
        }
        let rules = json!(rules);
        let target = ObjectRef { resource: resource.clone(), key: name.to_string() };
        modify(state, &target, &mut |object| {
            if object::deletion_timestamp(object).is_none() {
                object["rules"] = rules.clone();
            }
        })?;
    }
    Ok(())
}
