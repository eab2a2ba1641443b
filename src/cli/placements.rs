//! `fleetctl get clustersets|placements`: OCM's cluster sets and Placements at a glance, as
//! `get clusters` shows clusters: one list request per kind (the clusters and bindings
//! counted for the sets), nothing written.

use jiff::Timestamp;
use kube::api::{Api, ListParams};
use kube::{Client, ResourceExt};

use super::get::{ReadError, condition_status, created_age, list_error};
use super::printer::{self, Cell, Column, Listing, PrintError, Row};
use fleetctl_api::clusterset::SelectorType;
use fleetctl_api::conditions as c;
use fleetctl_api::selector::LabelSelector;
use fleetctl_api::{ManagedCluster, ManagedClusterSet, ManagedClusterSetBinding, Placement};

/// What each set holds and where it is bound.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct SetUse {
    clusters: usize,
    namespaces: Vec<String>,
}

const CLUSTER_SET_COLUMNS: [Column; 6] = [
    Column::normal("NAME"),
    Column::normal("EMPTY"),
    Column::normal("CLUSTERS"),
    Column::normal("AGE"),
    Column::wide("SELECTOR"),
    Column::wide("BOUND NAMESPACES"),
];

/// `get clustersets [NAME…]`.
pub(super) async fn cluster_sets(client: &Client, names: &[String]) -> Result<Listing, ReadError> {
    let sets = Api::<ManagedClusterSet>::all(client.clone())
        .list(&ListParams::default())
        .await
        .map_err(list_error("managedclustersets", "listing cluster sets"))?
        .items;
    let clusters = Api::<ManagedCluster>::all(client.clone())
        .list(&ListParams::default())
        .await
        .map_err(list_error("managedclusters", "listing clusters"))?
        .items;
    let bindings = Api::<ManagedClusterSetBinding>::all(client.clone())
        .list(&ListParams::default())
        .await
        .map_err(list_error("managedclustersetbindings", "listing cluster set bindings"))?
        .items;
    let mut sets: Vec<_> = sets.into_iter().filter(|s| names.is_empty() || names.contains(&s.name_any())).collect();
    let missing: Vec<String> = names.iter().filter(|n| !sets.iter().any(|s| s.name_any() == **n)).cloned().collect();
    if !missing.is_empty() {
        return Err(ReadError::NotFound { kind: "cluster set", names: missing, list: "fleetctl get clustersets" });
    }
    sets.sort_by_key(|s| s.name_any());
    let now = Timestamp::now();
    let rows = sets
        .iter()
        .map(|set| {
            let usage = SetUse {
                clusters: clusters.iter().filter(|c| set.contains(c)).count(),
                namespaces: bindings
                    .iter()
                    .filter(|b| b.spec.cluster_set == set.name_any())
                    .filter_map(|b| b.namespace())
                    .collect(),
            };
            cluster_set_row(set, Some(&usage), now)
        })
        .collect::<Result<_, _>>()?;
    Ok(Listing {
        resource: "managedclusterset.cluster.open-cluster-management.io",
        columns: CLUSTER_SET_COLUMNS.to_vec(),
        rows,
        single: names.len() == 1,
    })
}

/// How a set chooses its clusters, for a cell.
fn selector_text(set: &ManagedClusterSet) -> String {
    let selector = &set.spec.cluster_selector;
    match &selector.selector_type {
        SelectorType::LabelSelector => {
            format!("LabelSelector({})", selector.label_selector.as_ref().map_or(String::new(), label_selector_text))
        }
        other => other.to_string(),
    }
}

/// A label selector as `kubectl` writes one (`a=b,c in (d,e)`).
fn label_selector_text(selector: &LabelSelector) -> String {
    let labels = selector.match_labels.iter().map(|(k, v)| format!("{k}={v}"));
    let expressions = selector.match_expressions.iter().map(|r| {
        let values = r.values.join(",");
        match r.operator.as_str() {
            "Exists" => r.key.clone(),
            "DoesNotExist" => format!("!{}", r.key),
            operator => format!("{} {} ({values})", r.key, operator.to_lowercase()),
        }
    });
    labels.chain(expressions).collect::<Vec<_>>().join(",")
}

/// One row of `get clustersets`; `usage` unknown (`-`) while watching.
pub(super) fn cluster_set_row(
    set: &ManagedClusterSet,
    usage: Option<&SetUse>,
    now: Timestamp,
) -> Result<Row, PrintError> {
    let namespaces = usage.map(|u| u.namespaces.join(",")).filter(|n| !n.is_empty());
    let cells = vec![
        Cell::plain(set.name_any()),
        Cell::plain(condition_status(set.conditions(), c::CLUSTER_SET_EMPTY).unwrap_or(printer::NONE)),
        Cell::plain(usage.map_or(printer::NONE.into(), |u| u.clusters.to_string())),
        Cell::plain(created_age(set, now)),
        Cell::plain(selector_text(set)),
        Cell::plain(namespaces.unwrap_or_else(|| printer::NONE.into())),
    ];
    Ok(Row { name: set.name_any(), cells, object: printer::for_output(set)? })
}

const PLACEMENT_COLUMNS: [Column; 9] = [
    Column::normal("NAMESPACE"),
    Column::normal("NAME"),
    Column::normal("SATISFIED"),
    Column::normal("REASON"),
    Column::normal("SELECTED"),
    Column::normal("AGE"),
    Column::wide("CLUSTERSETS"),
    Column::wide("DECISIONS"),
    Column::wide("MISCONFIGURED"),
];

/// `get placements [NAME…]` in `namespace` (every namespace for `None`).
pub(super) async fn placements(
    client: &Client,
    namespace: Option<&str>,
    names: &[String],
) -> Result<Listing, ReadError> {
    let api: Api<Placement> = match namespace {
        Some(namespace) => Api::namespaced(client.clone(), namespace),
        None => Api::all(client.clone()),
    };
    let mut items =
        api.list(&ListParams::default()).await.map_err(list_error("placements", "listing placements"))?.items;
    items.retain(|p| names.is_empty() || names.contains(&p.name_any()));
    let missing: Vec<String> = names.iter().filter(|n| !items.iter().any(|p| p.name_any() == **n)).cloned().collect();
    if !missing.is_empty() {
        return Err(ReadError::NotFound { kind: "placement", names: missing, list: "fleetctl get placements -A" });
    }
    items.sort_by_key(|p| (p.namespace(), p.name_any()));
    let now = Timestamp::now();
    Ok(Listing {
        resource: "placement.cluster.open-cluster-management.io",
        columns: PLACEMENT_COLUMNS.to_vec(),
        rows: items.iter().map(|p| placement_row(p, now)).collect::<Result<_, _>>()?,
        single: names.len() == 1,
    })
}

/// One row of `get placements`.
pub(super) fn placement_row(placement: &Placement, now: Timestamp) -> Result<Row, PrintError> {
    let conditions = placement.conditions();
    let satisfied = c::find(conditions, c::PLACEMENT_SATISFIED);
    let status = placement.status.as_ref();
    let decisions: Vec<&str> = status
        .iter()
        .flat_map(|s| s.decision_groups.iter().flat_map(|g| g.decisions.iter().map(String::as_str)))
        .collect();
    let list = |items: &[&str]| if items.is_empty() { printer::NONE.to_owned() } else { items.join(",") };
    let sets: Vec<&str> = placement.spec.cluster_sets.iter().map(String::as_str).collect();
    let cells = vec![
        Cell::plain(placement.namespace().unwrap_or_else(|| printer::NONE.into())),
        Cell::plain(placement.name_any()),
        Cell::status(satisfied.map(|c| c.status.as_str())),
        Cell::plain(satisfied.map_or(printer::NONE, |c| c.reason.as_str())),
        Cell::plain(status.map_or(printer::NONE.into(), |s| s.number_of_selected_clusters.to_string())),
        Cell::plain(created_age(placement, now)),
        Cell::plain(list(&sets)),
        Cell::plain(list(&decisions)),
        Cell::status(condition_status(conditions, c::PLACEMENT_MISCONFIGURED)),
    ];
    Ok(Row { name: placement.name_any(), cells, object: printer::for_output(placement)? })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn texts(row: &Row) -> Vec<&str> {
        row.cells.iter().map(|c| c.text.as_str()).collect()
    }

    #[test]
    fn a_cluster_set_row_shows_emptiness_members_and_bindings() {
        let set: ManagedClusterSet = serde_json::from_value(json!({
            "apiVersion": "cluster.open-cluster-management.io/v1beta2", "kind": "ManagedClusterSet",
            "metadata": {"name": "prod"},
            "spec": {"clusterSelector": {"selectorType": "LabelSelector", "labelSelector": {"matchLabels": {"env": "prod"}}}},
            "status": {"conditions": [{"type": "ClusterSetEmpty", "status": "False", "reason": "ClustersSelected",
                                       "message": "2 ManagedClusters selected", "lastTransitionTime": "2025-01-01T00:00:00Z"}]}
        }))
        .unwrap();
        let usage = SetUse { clusters: 2, namespaces: vec!["apps".into(), "ops".into()] };
        let row = cluster_set_row(&set, Some(&usage), Timestamp::now()).unwrap();
        assert_eq!(texts(&row), ["prod", "False", "2", "-", "LabelSelector(env=prod)", "apps,ops"]);
    }

    #[test]
    fn a_placement_row_shows_whether_it_is_satisfied_and_its_decisions() {
        let placement: Placement = serde_json::from_value(json!({
            "apiVersion": "cluster.open-cluster-management.io/v1beta1", "kind": "Placement",
            "metadata": {"name": "canary", "namespace": "apps"},
            "spec": {"clusterSets": ["prod"], "numberOfClusters": 3},
            "status": {
                "numberOfSelectedClusters": 2,
                "decisionGroups": [{"decisionGroupIndex": 0, "decisionGroupName": "", "decisions": ["canary-decision-1"], "clusterCount": 2}],
                "conditions": [
                    {"type": "PlacementSatisfied", "status": "False", "reason": "NotAllDecisionsScheduled",
                     "message": "1 cluster decisions unscheduled", "lastTransitionTime": "2025-01-01T00:00:00Z"},
                    {"type": "PlacementMisconfigured", "status": "False", "reason": "Succeedconfigured",
                     "message": "Placement configurations check pass", "lastTransitionTime": "2025-01-01T00:00:00Z"}
                ]
            }
        }))
        .unwrap();
        let row = placement_row(&placement, Timestamp::now()).unwrap();
        assert_eq!(
            texts(&row),
            ["apps", "canary", "False", "NotAllDecisionsScheduled", "2", "-", "prod", "canary-decision-1", "False"]
        );
    }
}
