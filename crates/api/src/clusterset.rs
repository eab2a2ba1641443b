//! `ManagedClusterSet` (cluster-scoped) and `ManagedClusterSetBinding` (namespaced), both
//! `cluster.open-cluster-management.io/v1beta2`: groups of managed clusters, and the
//! namespaces a group is bound into so that Placements there may select its clusters.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::cluster::ManagedCluster;
use super::conditions;
use super::fields::{self, string_enum};
use super::selector::LabelSelector;

/// The label that makes a cluster a member of an ExclusiveClusterSetLabel set.
pub const CLUSTER_SET_LABEL: &str = "cluster.open-cluster-management.io/clusterset";
/// The set every cluster without [`CLUSTER_SET_LABEL`] joins.
pub const DEFAULT_CLUSTER_SET: &str = "default";
/// The set of every cluster (an empty LabelSelector).
pub const GLOBAL_CLUSTER_SET: &str = "global";

/// Which clusters a set holds.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "cluster.open-cluster-management.io",
    version = "v1beta2",
    kind = "ManagedClusterSet",
    plural = "managedclustersets",
    shortname = "mclset",
    shortname = "mclsets",
    status = "ManagedClusterSetStatus",
    derive = "PartialEq",
    derive = "Default",
    doc = "A group of managed clusters (cluster-scoped). Binding it into a namespace with a \
           ManagedClusterSetBinding lets the Placements of that namespace select its clusters.",
    printcolumn = r#"{"name": "Empty", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"ClusterSetEmpty\")].status"}"#,
    printcolumn = r#"{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}"#
)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("default" = {"clusterSelector": {"selectorType": "ExclusiveClusterSetLabel"}}))]
pub struct ManagedClusterSetSpec {
    /// How the set's clusters are chosen.
    #[serde(default)]
    #[schemars(extend("default" = {"selectorType": "ExclusiveClusterSetLabel"}))]
    pub cluster_selector: ManagedClusterSelector,

    /// Namespaces the set's clusters manage.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub managed_namespaces: Vec<ManagedNamespaceConfig>,
}

/// How a set chooses its clusters.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterSelector {
    /// ExclusiveClusterSetLabel (the clusters labelled with the set's name) or
    /// LabelSelector (the clusters `labelSelector` selects).
    #[serde(default)]
    #[schemars(extend("default" = "ExclusiveClusterSetLabel"))]
    pub selector_type: SelectorType,

    /// The clusters of a LabelSelector set; empty selects every cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<LabelSelector>,
}

string_enum! {
    /// How a set chooses its clusters.
    pub enum SelectorType(closed) {
        /// The clusters labelled `cluster.open-cluster-management.io/clusterset=<set>`.
        ExclusiveClusterSetLabel = "ExclusiveClusterSetLabel",
        /// The clusters a label selector selects.
        LabelSelector = "LabelSelector",
    }
    default = ExclusiveClusterSetLabel;
}

/// A namespace a set's clusters manage.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManagedNamespaceConfig {
    /// Namespace name.
    #[schemars(length(max = 63), pattern(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"))]
    pub name: String,
}

/// What the hub reports about a set.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterSetStatus {
    /// Conditions of the set: ClusterSetEmpty.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "fields::null_as_default")]
    #[schemars(schema_with = "fields::condition_list")]
    pub conditions: Vec<Condition>,
}

/// Binds a set into the binding's namespace; the binding's name is the set's.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "cluster.open-cluster-management.io",
    version = "v1beta2",
    kind = "ManagedClusterSetBinding",
    plural = "managedclustersetbindings",
    shortname = "mclsetbinding",
    shortname = "mclsetbindings",
    namespaced,
    status = "ManagedClusterSetBindingStatus",
    derive = "PartialEq",
    derive = "Default",
    doc = "Binds a ManagedClusterSet into a namespace (its name must be the set's): the Placements of the \
           namespace may select the set's clusters. Creating one needs `create` on \
           `managedclustersets/bind` for the set."
)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterSetBindingSpec {
    /// The set bound; the same as the binding's name.
    #[schemars(length(min = 1))]
    pub cluster_set: String,
}

/// What the hub reports about a binding.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterSetBindingStatus {
    /// Conditions of the binding: Bound.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "fields::null_as_default")]
    #[schemars(schema_with = "fields::condition_list")]
    pub conditions: Vec<Condition>,
}

impl ManagedClusterSet {
    /// A set of the clusters labelled with its name.
    pub fn exclusive(name: &str) -> Self {
        Self::new(name, ManagedClusterSetSpec::default())
    }

    /// A set of the clusters `selector` selects (every cluster when it is empty).
    pub fn selecting(name: &str, selector: LabelSelector) -> Self {
        Self::new(
            name,
            ManagedClusterSetSpec {
                cluster_selector: ManagedClusterSelector {
                    selector_type: SelectorType::LabelSelector,
                    label_selector: Some(selector),
                },
                ..ManagedClusterSetSpec::default()
            },
        )
    }

    /// The status conditions, empty when there is no status yet.
    pub fn conditions(&self) -> &[Condition] {
        self.status.as_ref().map_or(&[], |s| &s.conditions)
    }

    /// Whether `cluster` is a member of this set (upstream's `GetClustersFromClusterSet`).
    /// A set of an unknown selector type holds no cluster.
    pub fn contains(&self, cluster: &ManagedCluster) -> bool {
        let name = self.metadata.name.as_deref().unwrap_or_default();
        let labels = cluster.metadata.labels.as_ref();
        let selector = &self.spec.cluster_selector;
        match selector.selector_type {
            SelectorType::ExclusiveClusterSetLabel => {
                labels.and_then(|l| l.get(CLUSTER_SET_LABEL)).is_some_and(|set| set == name)
            }
            SelectorType::LabelSelector => {
                let empty = BTreeMap::new();
                selector.label_selector.as_ref().is_none_or(|s| s.matches(labels.unwrap_or(&empty)))
            }
            SelectorType::Other(_) => false,
        }
    }
}

impl ManagedClusterSetBinding {
    /// A binding of `set` into `namespace`.
    pub fn of(namespace: &str, set: &str) -> Self {
        let mut binding = Self::new(set, ManagedClusterSetBindingSpec { cluster_set: set.to_owned() });
        binding.metadata.namespace = Some(namespace.to_owned());
        binding
    }

    /// The status conditions, empty when there is no status yet.
    pub fn conditions(&self) -> &[Condition] {
        self.status.as_ref().map_or(&[], |s| &s.conditions)
    }
}

impl conditions::HasConditions for ManagedClusterSet {
    fn status_conditions(&self) -> &[Condition] {
        self.conditions()
    }
}

impl conditions::HasConditions for ManagedClusterSetBinding {
    fn status_conditions(&self) -> &[Condition] {
        self.conditions()
    }
}

#[cfg(test)]
mod tests {
    use kube::CustomResourceExt;
    use serde_json::json;

    use super::*;

    fn cluster(labels: &[(&str, &str)]) -> ManagedCluster {
        let mut cluster = ManagedCluster::accepted("c1");
        cluster.metadata.labels = Some(labels.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect());
        cluster
    }

    #[test]
    fn an_exclusive_set_holds_the_clusters_labelled_with_its_name() {
        let set = ManagedClusterSet::exclusive("prod");
        assert!(set.contains(&cluster(&[(CLUSTER_SET_LABEL, "prod")])));
        assert!(!set.contains(&cluster(&[(CLUSTER_SET_LABEL, "dev")])));
        assert!(!set.contains(&cluster(&[])));
    }

    #[test]
    fn the_global_set_holds_every_cluster() {
        let global = ManagedClusterSet::selecting(GLOBAL_CLUSTER_SET, LabelSelector::default());
        assert!(global.contains(&cluster(&[])));
        assert!(global.contains(&cluster(&[(CLUSTER_SET_LABEL, "dev")])));
    }

    #[test]
    fn an_upstream_set_and_binding_read_and_write_the_same() {
        let set = json!({
            "apiVersion": "cluster.open-cluster-management.io/v1beta2",
            "kind": "ManagedClusterSet",
            "metadata": {"name": "global"},
            "spec": {"clusterSelector": {"selectorType": "LabelSelector", "labelSelector": {}}},
            "status": {"conditions": [{
                "type": "ClusterSetEmpty", "status": "False", "reason": "ClustersSelected",
                "message": "2 ManagedClusters selected", "lastTransitionTime": "2025-10-17T00:05:21Z"
            }]}
        });
        let read: ManagedClusterSet = serde_json::from_value(set.clone()).unwrap();
        assert_eq!(read.spec.cluster_selector.selector_type, SelectorType::LabelSelector);
        assert_eq!(serde_json::to_value(&read).unwrap(), set);
        let binding = ManagedClusterSetBinding::of("apps", "global");
        assert_eq!(
            serde_json::to_value(&binding).unwrap(),
            json!({
                "apiVersion": "cluster.open-cluster-management.io/v1beta2",
                "kind": "ManagedClusterSetBinding",
                "metadata": {"name": "global", "namespace": "apps"},
                "spec": {"clusterSet": "global"}
            })
        );
    }

    #[test]
    fn the_crds_match_upstream_names_and_columns() {
        let crd = ManagedClusterSet::crd();
        assert_eq!(crd.spec.scope, "Cluster");
        assert_eq!(crd.spec.names.short_names, Some(vec!["mclset".into(), "mclsets".into()]));
        let columns: Vec<_> =
            crd.spec.versions[0].additional_printer_columns.iter().flatten().map(|c| c.name.as_str()).collect();
        assert_eq!(columns, ["Empty", "Age"]);
        let binding = ManagedClusterSetBinding::crd();
        assert_eq!(binding.spec.scope, "Namespaced");
        assert_eq!(binding.spec.names.short_names, Some(vec!["mclsetbinding".into(), "mclsetbindings".into()]));
    }
}
