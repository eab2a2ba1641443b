//! The resource quota controller of kube-controller-manager (`pkg/controller/resourcequota`):
//! a quota's `status.hard` is its `spec.hard`, and `status.used` what the namespace's
//! objects use of each of those names (counted as [`quota`](super::super::quota) counts),
//! recomputed whenever something in the namespace changes.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{ResourceQuota, ResourceQuotaStatus};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as Amount;

use super::super::quantity::Quantity;
use super::super::quota::{self, resource_quotas};
use super::super::state::Shared;
use super::Step;
use super::workloads::replace_status;

/// Brings the status of every quota of `namespace` up to date.
pub(super) fn sync_namespace(state: &Shared, namespace: &str) -> Step {
    let page = state.store.list(&resource_quotas(), Some(namespace), None, 0, &|_| true);
    for stored in page.items {
        let Ok(quota) = serde_json::from_value::<ResourceQuota>(stored.value()) else { continue };
        let status = status_of(state, namespace, &quota);
        if quota.status.as_ref() != Some(&status) {
            let name = quota.metadata.name.as_deref().unwrap_or_default();
            replace_status(state, &resource_quotas(), namespace, name, &status)?;
        }
    }
    Ok(())
}

/// `hard` from the spec (canonical), `used` counted for each of its names.
fn status_of(state: &Shared, namespace: &str, quota: &ResourceQuota) -> ResourceQuotaStatus {
    let spec_hard = quota.spec.as_ref().and_then(|s| s.hard.clone()).unwrap_or_default();
    let hard: BTreeMap<String, Amount> = spec_hard
        .into_iter()
        .map(|(name, amount)| {
            let canonical = Quantity::parse(&amount.0).map_or(amount.0, |q| q.to_string());
            (name, Amount(canonical))
        })
        .collect();
    let names: BTreeSet<String> = hard.keys().cloned().collect();
    let used = quota::used(&state.reader(), namespace, &names)
        .into_iter()
        .map(|(name, q)| (name, Amount(q.to_string())))
        .collect();
    ResourceQuotaStatus { hard: Some(hard), used: Some(used) }
}
