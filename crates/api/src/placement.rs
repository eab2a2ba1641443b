//! `Placement` and `PlacementDecision` (`cluster.open-cluster-management.io/v1beta1`,
//! namespaced): which clusters a workload goes to, chosen from the cluster sets bound into
//! the Placement's namespace, and the decisions the hub writes for it.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResource;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

use super::cluster::TaintEffect;
use super::conditions;
use super::fields::{self, string_enum};
use super::selector::{ExpressionSelector, LabelSelector};
use super::specless::{self, Specless};

/// The label naming the Placement a PlacementDecision belongs to.
pub const PLACEMENT_LABEL: &str = "cluster.open-cluster-management.io/placement";
/// The label with the index of a PlacementDecision's decision group.
pub const DECISION_GROUP_INDEX_LABEL: &str = "cluster.open-cluster-management.io/decision-group-index";
/// The label with the name of a PlacementDecision's decision group.
pub const DECISION_GROUP_NAME_LABEL: &str = "cluster.open-cluster-management.io/decision-group-name";
/// The annotation that, set to "true", stops the scheduler from scheduling a Placement.
pub const DISABLE_SCHEDULING_ANNOTATION: &str = "cluster.open-cluster-management.io/experimental-scheduling-disable";
/// The most cluster decisions one PlacementDecision holds.
pub const DECISIONS_PER_PLACEMENT_DECISION: usize = 100;

/// Which clusters to select, and how many.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "cluster.open-cluster-management.io",
    version = "v1beta1",
    kind = "Placement",
    plural = "placements",
    namespaced,
    status = "PlacementStatus",
    derive = "PartialEq",
    derive = "Default",
    doc = "Selects managed clusters from the ManagedClusterSets bound into its namespace; the hub writes the \
           selection into PlacementDecisions labelled with the Placement's name.",
    printcolumn = r#"{"name": "Succeeded", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"PlacementSatisfied\")].status"}"#,
    printcolumn = r#"{"name": "Reason", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"PlacementSatisfied\")].reason"}"#,
    printcolumn = r#"{"name": "SelectedClusters", "type": "integer", "jsonPath": ".status.numberOfSelectedClusters"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct PlacementSpec {
    /// The bound cluster sets to select from; empty means all of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cluster_sets: Vec<String>,

    /// How many clusters to select; all that qualify when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number_of_clusters: Option<i32>,

    /// A cluster qualifies when any predicate selects it; every cluster when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub predicates: Vec<ClusterPredicate>,

    /// How the qualifying clusters are ranked.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub prioritizer_policy: PrioritizerPolicy,

    /// How decisions spread over topologies (accepted as upstream does, not acted on).
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub spread_policy: SpreadPolicy,

    /// Taints of clusters this Placement tolerates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,

    /// How the selected clusters are divided into decision groups.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub decision_strategy: DecisionStrategy,

    /// The order of decisions: ClusterName or Score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "ClusterName", "enum" = ["ClusterName", "Score"]))]
    pub sort_by: Option<String>,

    /// The most often score changes alone are written into decisions, such as `1m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "1m"), pattern(r"^[0-9]+[hms]$"))]
    pub score_rate_limit: Option<String>,
}

/// One way a cluster qualifies.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterPredicate {
    /// The clusters this predicate selects.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub required_cluster_selector: ClusterSelector,
}

/// Selects clusters by labels, claims and CEL expressions; all given must hold.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterSelector {
    /// Selects by the cluster's labels.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub label_selector: LabelSelector,

    /// Selects by the cluster's claims (`status.clusterClaims`) as labels.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub claim_selector: ExpressionSelector,

    /// Selects by CEL expressions on the cluster.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub cel_selector: CelSelector,
}

/// CEL expressions a cluster must satisfy.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CelSelector {
    /// The expressions, all of which must be true.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cel_expressions: Vec<String>,
}

/// How qualifying clusters are ranked: prioritizers and their weights.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrioritizerPolicy {
    /// Additive (the configurations change the defaults, Balance and Steady with weight 1)
    /// or Exact (only the configurations count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "Additive"))]
    pub mode: Option<String>,

    /// Prioritizers and their weights.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub configurations: Vec<PrioritizerConfig>,
}

/// One prioritizer and its weight.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrioritizerConfig {
    /// Which score.
    pub score_coordinate: Option<ScoreCoordinate>,

    /// Its weight, -10 to 10; zero turns it off.
    #[serde(default = "default_weight")]
    #[schemars(extend("default" = 1), range(min = -10, max = 10))]
    pub weight: i32,
}

fn default_weight() -> i32 {
    1
}

/// A built-in prioritizer or the scores of an addon.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, Hash, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoreCoordinate {
    /// BuiltIn or AddOn.
    #[serde(rename = "type")]
    #[schemars(extend("default" = "BuiltIn", "enum" = ["BuiltIn", "AddOn"]))]
    pub type_: String,

    /// A built-in prioritizer: Balance, Steady, ResourceAllocatableCPU or
    /// ResourceAllocatableMemory.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub built_in: String,

    /// The AddOnPlacementScore and score of an AddOn prioritizer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add_on: Option<AddOnScore>,
}

/// An AddOnPlacementScore (by resource name, in each cluster's namespace) and one score in it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, Hash, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddOnScore {
    /// The AddOnPlacementScore's name.
    pub resource_name: String,
    /// The score's name in it.
    pub score_name: String,
}

/// Spread constraints.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpreadPolicy {
    /// At most 8 constraints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 8))]
    pub spread_constraints: Vec<SpreadConstraint>,
}

/// How decisions spread over the values of a label or claim.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpreadConstraint {
    /// The label or claim.
    #[schemars(
        length(max = 316),
        pattern(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
    )]
    pub topology_key: String,
    /// Label or Claim.
    #[schemars(extend("enum" = ["Label", "Claim"]))]
    pub topology_key_type: String,
    /// The most the decisions of two topologies may differ by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 1), range(min = 1))]
    pub max_skew: Option<i32>,
    /// DoNotSchedule or ScheduleAnyway.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "ScheduleAnyway", "enum" = ["DoNotSchedule", "ScheduleAnyway"]))]
    pub when_unsatisfiable: Option<String>,
}

/// Tolerates the cluster taints it matches.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Toleration {
    /// The taint key; empty (with Exists) matches every key.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(
        length(max = 316),
        pattern(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$")
    )]
    pub key: String,

    /// Equal (the default) or Exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "Equal"))]
    pub operator: Option<TolerationOperator>,

    /// The taint value to match with Equal.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(max = 1024))]
    pub value: String,

    /// The taint effect to match; empty matches every effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<TaintEffect>,

    /// How long after the taint was added the toleration holds; forever when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toleration_seconds: Option<i64>,
}

string_enum! {
    /// How a toleration matches a taint's value.
    pub enum TolerationOperator(open) {
        /// The values are equal.
        Equal = "Equal",
        /// Any value.
        Exists = "Exists",
    }
    default = Equal;
}

/// How the selected clusters are divided into decision groups.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionStrategy {
    /// The groups and their size.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub group_strategy: GroupStrategy,
}

/// Named groups first, then the rest, each at most `clustersPerDecisionGroup` clusters.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupStrategy {
    /// Named groups, by cluster selector.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decision_groups: Vec<DecisionGroup>,

    /// The largest group: a number, or a percentage of the selected clusters (`100%` when
    /// unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "clusters_per_decision_group")]
    pub clusters_per_decision_group: Option<IntOrString>,
}

fn clusters_per_decision_group(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "x-kubernetes-int-or-string": true,
        "default": "100%",
        "pattern": "^((100|[1-9][0-9]{0,1})%|[1-9][0-9]*)$"
    })
}

/// A named decision group.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionGroup {
    /// Its name.
    #[schemars(pattern(r"^[a-zA-Z0-9][-A-Za-z0-9_.]{0,61}[a-zA-Z0-9]$"))]
    pub group_name: String,

    /// The selected clusters that belong to it.
    #[serde(rename = "groupClusterSelector")]
    pub cluster_selector: GroupClusterSelector,
}

/// Selects the clusters of a decision group by labels and claims.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupClusterSelector {
    /// By the cluster's labels.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub label_selector: LabelSelector,

    /// By the cluster's claims.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub claim_selector: ExpressionSelector,
}

/// What the scheduler reports about a Placement.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacementStatus {
    /// How many clusters are selected.
    #[serde(default)]
    pub number_of_selected_clusters: i32,

    /// The decision groups and their PlacementDecisions.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "fields::null_as_default")]
    pub decision_groups: Vec<DecisionGroupStatus>,

    /// Conditions: PlacementSatisfied, PlacementMisconfigured.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "fields::null_as_default")]
    #[schemars(schema_with = "fields::conditions")]
    pub conditions: Vec<Condition>,

    /// When the scores in the decisions were last written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "fields::date_time")]
    pub last_score_update_time: Option<Time>,
}

/// One decision group.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionGroupStatus {
    /// Its index, from 0.
    #[serde(default)]
    pub decision_group_index: i32,

    /// Its name; empty for the groups of the clusters no named group selects.
    #[serde(default)]
    pub decision_group_name: String,

    /// Its PlacementDecisions.
    #[serde(default, deserialize_with = "fields::null_as_default")]
    pub decisions: Vec<String>,

    /// How many clusters it holds.
    #[serde(default)]
    #[schemars(extend("default" = 0))]
    pub cluster_count: i32,
}

/// The clusters the scheduler chose for a Placement, at most 100 per PlacementDecision, named
/// `<placement>-decision-<n>` and labelled with the Placement and the decision group.
#[derive(Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A page of the clusters the hub selected for a Placement.")]
pub struct PlacementDecision {
    /// Standard object metadata.
    #[schemars(schema_with = "specless::object_meta")]
    pub metadata: ObjectMeta,

    /// The decisions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<PlacementDecisionStatus>,
}

/// The decisions of a PlacementDecision.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacementDecisionStatus {
    /// The selected clusters.
    #[serde(deserialize_with = "fields::null_as_default")]
    pub decisions: Vec<ClusterDecision>,
}

/// One selected cluster.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterDecision {
    /// The cluster's name.
    pub cluster_name: String,

    /// Why it was selected (may be empty).
    pub reason: String,

    /// Its score, when scores are recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<i64>,
}

/// Scores an addon reports for its cluster, read by the AddOn prioritizer
/// (`cluster.open-cluster-management.io/v1alpha1`, in the cluster's namespace).
#[derive(Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "Scores an addon reports for the cluster of its namespace.")]
pub struct AddOnPlacementScore {
    /// Standard object metadata.
    #[schemars(schema_with = "specless::object_meta")]
    pub metadata: ObjectMeta,

    /// The scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<AddOnPlacementScoreStatus>,
}

/// The scores of an AddOnPlacementScore.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddOnPlacementScoreStatus {
    /// Conditions of the scores.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "fields::null_as_default")]
    #[schemars(schema_with = "fields::conditions")]
    pub conditions: Vec<Condition>,

    /// The scores, by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "fields::null_as_default")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub scores: Vec<AddOnPlacementScoreItem>,

    /// When the scores expire; an expired score counts as 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "fields::date_time")]
    pub valid_until: Option<Time>,
}

/// One score.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddOnPlacementScoreItem {
    /// Its name.
    pub name: String,
    /// Its value, -100 to 100.
    #[schemars(range(min = -100, max = 100))]
    pub value: i32,
}

impl Specless for PlacementDecision {
    const KIND: &'static str = "PlacementDecision";
    const VERSION: &'static str = "v1beta1";
    const PLURAL: &'static str = "placementdecisions";
    const CRD_NAME: &'static str = "placementdecisions.cluster.open-cluster-management.io";
}

impl Specless for AddOnPlacementScore {
    const KIND: &'static str = "AddOnPlacementScore";
    const VERSION: &'static str = "v1alpha1";
    const PLURAL: &'static str = "addonplacementscores";
    const CRD_NAME: &'static str = "addonplacementscores.cluster.open-cluster-management.io";
}

specless::resource!(PlacementDecision);
specless::resource!(AddOnPlacementScore);

impl Placement {
    /// The status conditions, empty when there is no status yet.
    pub fn conditions(&self) -> &[Condition] {
        self.status.as_ref().map_or(&[], |s| &s.conditions)
    }
}

impl conditions::HasConditions for Placement {
    fn status_conditions(&self) -> &[Condition] {
        self.conditions()
    }
}

impl PlacementDecision {
    /// The names of the clusters decided, in order.
    pub fn cluster_names(&self) -> impl Iterator<Item = &str> {
        self.status.iter().flat_map(|s| s.decisions.iter().map(|d| d.cluster_name.as_str()))
    }
}

impl AddOnPlacementScore {
    /// The value of the score `name`, if reported.
    pub fn score(&self, name: &str) -> Option<i32> {
        self.status.as_ref()?.scores.iter().find(|s| s.name == name).map(|s| s.value)
    }
}

#[cfg(test)]
mod tests {
    use kube::{CustomResourceExt, Resource};
    use serde_json::json;

    use super::*;

    #[test]
    fn an_upstream_placement_reads_and_writes_the_same() {
        let sample = json!({
            "apiVersion": "cluster.open-cluster-management.io/v1beta1",
            "kind": "Placement",
            "metadata": {"name": "p1", "namespace": "apps"},
            "spec": {
                "clusterSets": ["prod"],
                "numberOfClusters": 2,
                "predicates": [{"requiredClusterSelector": {
                    "labelSelector": {"matchLabels": {"vendor": "OpenShift"}},
                    "claimSelector": {"matchExpressions": [{"key": "region", "operator": "In", "values": ["eu"]}]}
                }}],
                "prioritizerPolicy": {"mode": "Exact", "configurations": [
                    {"scoreCoordinate": {"type": "BuiltIn", "builtIn": "ResourceAllocatableCPU"}, "weight": 2},
                    {"scoreCoordinate": {"type": "AddOn", "addOn": {"resourceName": "demo", "scoreName": "s1"}}, "weight": 1}
                ]},
                "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSelect", "tolerationSeconds": 10}],
                "decisionStrategy": {"groupStrategy": {
                    "clustersPerDecisionGroup": "25%",
                    "decisionGroups": [{"groupName": "canary", "groupClusterSelector": {"labelSelector": {"matchLabels": {"canary": "true"}}}}]
                }}
            },
            "status": {
                "numberOfSelectedClusters": 2,
                "decisionGroups": [{"decisionGroupIndex": 0, "decisionGroupName": "canary", "decisions": ["p1-decision-1"], "clusterCount": 2}]
            }
        });
        let placement: Placement = serde_json::from_value(sample.clone()).unwrap();
        assert_eq!(placement.spec.tolerations[0].operator, Some(TolerationOperator::Exists));
        assert_eq!(
            placement.spec.decision_strategy.group_strategy.clusters_per_decision_group,
            Some(IntOrString::String("25%".into()))
        );
        assert_eq!(serde_json::to_value(&placement).unwrap(), sample);
    }

    #[test]
    fn a_placement_decision_has_no_spec_as_upstream() {
        let sample = json!({
            "apiVersion": "cluster.open-cluster-management.io/v1beta1",
            "kind": "PlacementDecision",
            "metadata": {"name": "p1-decision-1", "namespace": "apps", "labels": {PLACEMENT_LABEL: "p1"}},
            "status": {"decisions": [{"clusterName": "c1", "reason": ""}]}
        });
        let decision: PlacementDecision = serde_json::from_value(sample.clone()).unwrap();
        assert_eq!(decision.cluster_names().collect::<Vec<_>>(), ["c1"]);
        assert_eq!(serde_json::to_value(&decision).unwrap(), sample);
        assert_eq!(PlacementDecision::api_version(&()), "cluster.open-cluster-management.io/v1beta1");
    }

    #[test]
    fn the_crds_match_upstream_names_and_columns() {
        let crd = Placement::crd();
        assert_eq!(crd.spec.scope, "Namespaced");
        let columns: Vec<_> =
            crd.spec.versions[0].additional_printer_columns.iter().flatten().map(|c| c.name.as_str()).collect();
        assert_eq!(columns, ["Succeeded", "Reason", "SelectedClusters"]);
        let decisions = PlacementDecision::crd();
        assert_eq!(decisions.metadata.name.as_deref(), Some("placementdecisions.cluster.open-cluster-management.io"));
        let schema = serde_json::to_value(&decisions.spec.versions[0].schema).unwrap();
        let root = &schema["openAPIV3Schema"]["properties"];
        assert!(root.get("spec").is_none());
        assert_eq!(root["status"]["properties"]["decisions"]["items"]["required"], json!(["clusterName", "reason"]));
        let scores = AddOnPlacementScore::crd();
        assert_eq!(scores.spec.versions[0].name, "v1alpha1");
    }
}
