//! `search-collector`: counts the objects of a fixed set of kinds by kind and namespace.
//!
//! It rescans on a timer ([`SCAN_INTERVAL`]) rather than watching: keeping a watch (and a
//! cache of keys, to count deletions) on every kind would cost more memory than the agent
//! is allowed, and counts a few seconds old are what a fleet overview needs.

use std::collections::BTreeMap;
use std::time::Duration;

use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, ListParams};
use kube::{Client, ResourceExt};
use serde_json::json;
use tokio::sync::watch;

use fleetctl_api::addon::SEARCH_KINDS;

use super::{Report, offer};

/// How often the counts are refreshed.
pub const SCAN_INTERVAL: Duration = Duration::from_secs(10);
/// Objects per list page, so a large cluster never sits in memory at once.
const PAGE: u32 = 250;

/// Counts per kind, then per namespace (`""` for cluster-scoped objects).
pub type Counts = BTreeMap<String, BTreeMap<String, u64>>;

/// Scans forever, offering a report after each scan.
pub async fn run(client: Client, reports: watch::Sender<Option<Report>>) {
    loop {
        let counts = scan(&client).await;
        offer(&reports, report(&counts));
        tokio::time::sleep(SCAN_INTERVAL).await;
    }
}

/// Counts every kind the cluster serves; a kind it does not serve (or we may not list) is
/// left out rather than failing the scan.
async fn scan(client: &Client) -> Counts {
    let mut counts = Counts::new();
    for (group, version, kind, plural) in SEARCH_KINDS {
        let resource = ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), plural);
        let api: Api<DynamicObject> = Api::all_with(client.clone(), &resource);
        let mut params = ListParams::default().limit(PAGE);
        let mut per_namespace = BTreeMap::new();
        loop {
            let page = match api.list(&params).await {
                Ok(page) => page,
                Err(e) => {
                    tracing::debug!(kind, error = %e, "not counted");
                    break;
                }
            };
            for object in &page.items {
                *per_namespace.entry(object.namespace().unwrap_or_default()).or_insert(0) += 1;
            }
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(token) => params = params.continue_token(&token),
                None => {
                    counts.insert(kind.to_string(), per_namespace);
                    break;
                }
            }
        }
    }
    counts
}

/// The report of some counts: a total line and the counts as JSON.
pub fn report(counts: &Counts) -> Report {
    let total: u64 = counts.values().flat_map(BTreeMap::values).sum();
    let namespaces = counts.values().flat_map(BTreeMap::keys).filter(|ns| !ns.is_empty()).collect::<Vec<_>>();
    let mut distinct = namespaces.clone();
    distinct.sort();
    distinct.dedup();
    let by_kind = counts
        .iter()
        .map(|(kind, per_ns)| format!("{kind}={}", per_ns.values().sum::<u64>()))
        .collect::<Vec<_>>()
        .join(" ");
    let totals: BTreeMap<&String, u64> = counts.iter().map(|(k, per_ns)| (k, per_ns.values().sum())).collect();
    Report {
        summary: format!("{total} objects in {} namespaces: {by_kind}", distinct.len()),
        report: json!({"total": total, "kinds": totals, "byNamespace": counts}),
        compliant: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_by_kind_and_namespace() {
        let counts = Counts::from([
            ("Pod".to_string(), BTreeMap::from([("a".to_string(), 2), ("b".to_string(), 1)])),
            ("Namespace".to_string(), BTreeMap::from([(String::new(), 2)])),
        ]);
        let report = report(&counts);
        assert_eq!(report.summary, "5 objects in 2 namespaces: Namespace=2 Pod=3");
        assert_eq!(report.report["kinds"]["Pod"], 3);
        assert_eq!(report.report["byNamespace"]["Pod"]["a"], 2);
        assert_eq!(report.compliant, None);
    }
}
