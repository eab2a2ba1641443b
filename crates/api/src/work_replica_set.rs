//! `ManifestWorkReplicaSet` (`work.open-cluster-management.io/v1alpha1`, namespaced): one
//! ManifestWork template the hub copies into the namespace of every cluster that the
//! PlacementDecisions of its Placements name, with the counts of how those copies fare.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::conditions;
use super::fields::{self, string_enum};
use super::rollout::RolloutStrategy;
use super::work::ManifestWorkSpec;

/// The label of the ManifestWorks a ManifestWorkReplicaSet made: `<namespace>.<name>` of it.
pub const LABEL_REPLICA_SET: &str = "work.open-cluster-management.io/manifestworkreplicaset";
/// The label of those ManifestWorks naming the Placement that decided their cluster.
pub const LABEL_PLACEMENT_NAME: &str = "work.open-cluster-management.io/placementname";
/// On a ManifestWorkReplicaSet until the ManifestWorks it made are deleted.
pub const FINALIZER_REPLICA_SET_CLEANUP: &str = "work.open-cluster-management.io/manifest-work-cleanup";

/// Condition: whether the Placements exist and decide any cluster.
pub const CONDITION_PLACEMENT_VERIFIED: &str = "PlacementVerified";
/// Condition: whether every cluster the Placements select has its work rolled out.
pub const CONDITION_PLACEMENT_ROLLED_OUT: &str = "PlacementRolledOut";
/// Condition: whether every work made is applied and available.
pub const CONDITION_MANIFESTWORK_APPLIED: &str = "ManifestworkApplied";

/// Reason: all is as it should be.
pub const REASON_AS_EXPECTED: &str = "AsExpected";
/// Reason: a Placement the set names does not exist.
pub const REASON_PLACEMENT_DECISION_NOT_FOUND: &str = "PlacementDecisionNotFound";
/// Reason: the Placements decide no cluster.
pub const REASON_PLACEMENT_DECISION_EMPTY: &str = "PlacementDecisionEmpty";
/// Reason: some works are still progressing.
pub const REASON_PROCESSING: &str = "Processing";
/// Reason: some works are not as they should be (degraded, unavailable, missing).
pub const REASON_NOT_AS_EXPECTED: &str = "NotAsExpected";
/// Reason: the rollout goes on.
pub const REASON_PROGRESSING: &str = "Progressing";
/// Reason: the rollout is complete.
pub const REASON_COMPLETE: &str = "Complete";
/// Reason: `<namespace>.<name>` is no valid label value (longer than 63 characters).
pub const REASON_INVALID_MANIFEST_WORK_NAME: &str = "InvalidManifestWorkName";

/// The longest label value.
const MAX_LABEL_VALUE: usize = 63;

/// Desired state of a ManifestWorkReplicaSet: the work, where it goes, how it is deleted.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "work.open-cluster-management.io",
    version = "v1alpha1",
    kind = "ManifestWorkReplicaSet",
    plural = "manifestworkreplicasets",
    shortname = "mwrs",
    namespaced,
    status = "ManifestWorkReplicaSetStatus",
    derive = "PartialEq",
    derive = "Default",
    doc = "A ManifestWork the hub copies into the namespace of every cluster its Placements (in its own namespace) \
           decide, removing the copy from a cluster no longer decided and every copy when it is deleted.",
    printcolumn = r#"{"name": "Placement", "type": "string", "description": "Reason", "jsonPath": ".status.conditions[?(@.type==\"PlacementVerified\")].reason"}"#,
    printcolumn = r#"{"name": "Found", "type": "string", "description": "Configured", "jsonPath": ".status.conditions[?(@.type==\"PlacementVerified\")].status"}"#,
    printcolumn = r#"{"name": "ManifestWorks", "type": "string", "description": "Reason", "jsonPath": ".status.conditions[?(@.type==\"ManifestworkApplied\")].reason"}"#,
    printcolumn = r#"{"name": "Applied", "type": "string", "description": "Applied", "jsonPath": ".status.conditions[?(@.type==\"ManifestworkApplied\")].status"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct ManifestWorkReplicaSetSpec {
    /// The spec of the ManifestWork each decided cluster gets.
    #[serde(default)]
    pub manifest_work_template: ManifestWorkSpec,

    /// The Placements (in this namespace) whose decisions say where the work goes.
    #[schemars(length(min = 1))]
    pub placement_refs: Vec<LocalPlacementReference>,

    /// Background (the set goes at once, its works after it) or Foreground (the set stays
    /// until its works are gone).
    #[serde(default)]
    #[schemars(extend("default" = "Background"))]
    pub cascade_deletion_policy: CascadeDeletionPolicy,
}

string_enum! {
    /// Whether a ManifestWorkReplicaSet waits for its works to be gone before it goes.
    pub enum CascadeDeletionPolicy(closed) {
        /// Goes once the deletion of its works is asked for.
        Background = "Background",
        /// Goes once its works are gone.
        Foreground = "Foreground",
    }
    default = Background;
}

/// A Placement in the set's namespace, and how the work rolls out to its clusters.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LocalPlacementReference {
    /// The Placement's name.
    #[schemars(length(min = 1))]
    pub name: String,

    /// How the work reaches the Placement's clusters.
    #[serde(default)]
    #[schemars(extend("default" = {"type": "All", "all": {"progressDeadline": "None"}}))]
    pub rollout_strategy: RolloutStrategy,
}

/// What the hub reports about a ManifestWorkReplicaSet.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManifestWorkReplicaSetStatus {
    /// PlacementVerified, PlacementRolledOut, ManifestworkApplied.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "fields::null_as_default")]
    #[schemars(schema_with = "fields::conditions")]
    pub conditions: Vec<Condition>,

    /// The counts over every work of the set.
    #[serde(default)]
    pub summary: ManifestWorkReplicaSetSummary,

    /// The counts per Placement.
    #[serde(rename = "placementSummary", default, deserialize_with = "fields::null_as_default")]
    pub placements_summary: Vec<PlacementSummary>,
}

/// The works of one Placement.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacementSummary {
    /// The Placement's name.
    pub name: String,

    /// The Placement's decision groups and how many of its clusters have the work, as
    /// `<groups> (<with the work> / <selected> clusters applied)`.
    #[serde(default)]
    pub available_decision_groups: String,

    /// The counts over its works.
    #[serde(default)]
    pub summary: ManifestWorkReplicaSetSummary,
}

/// How many works there are, and how many of them have each condition True.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManifestWorkReplicaSetSummary {
    /// Works made from the current template.
    #[serde(default)]
    pub total: i64,
    /// Of them, Progressing.
    #[serde(default)]
    pub progressing: i64,
    /// Of them, Available.
    #[serde(default)]
    pub available: i64,
    /// Of them, Degraded.
    #[serde(default)]
    pub degraded: i64,
    /// Of them, Applied.
    #[serde(default)]
    pub applied: i64,
    /// How many works the set is to make (upstream's API has it; its controller leaves it 0).
    #[serde(default)]
    pub desired_total: i64,
    /// How many clusters run the current revision (upstream's API has it; its controller
    /// leaves it 0).
    #[serde(default)]
    pub updated: i64,
}

impl ManifestWorkReplicaSet {
    /// The value of [`LABEL_REPLICA_SET`] on its works: `<namespace>.<name>`.
    pub fn works_label(&self) -> String {
        format!(
            "{}.{}",
            self.metadata.namespace.as_deref().unwrap_or_default(),
            self.metadata.name.as_deref().unwrap_or_default()
        )
    }

    /// Whether [`Self::works_label`] is a valid label value: namespaces and names are DNS
    /// names, so only its length can be wrong.
    pub fn works_label_is_valid(&self) -> bool {
        self.works_label().len() <= MAX_LABEL_VALUE
    }

    /// The status conditions, empty when there is no status yet.
    pub fn conditions(&self) -> &[Condition] {
        self.status.as_ref().map_or(&[], |s| &s.conditions)
    }
}

impl conditions::HasConditions for ManifestWorkReplicaSet {
    fn status_conditions(&self) -> &[Condition] {
        self.conditions()
    }
}

/// The ManifestWorkReplicaSet (namespace, name) a work's [`LABEL_REPLICA_SET`] value names: a
/// namespace holds no dot, so the first dot ends it.
pub fn replica_set_of(label: &str) -> Option<(&str, &str)> {
    label.split_once('.').filter(|(namespace, name)| !namespace.is_empty() && !name.is_empty())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::rollout::RolloutType;

    #[test]
    fn an_upstream_manifestworkreplicaset_reads_and_writes_the_same() {
        let upstream = json!({
            "apiVersion": "work.open-cluster-management.io/v1alpha1",
            "kind": "ManifestWorkReplicaSet",
            "metadata": {"name": "app", "namespace": "default"},
            "spec": {
                "manifestWorkTemplate": {"workload": {"manifests": [{"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "cm", "namespace": "default"}}]}},
                "placementRefs": [{"name": "p1", "rolloutStrategy": {"type": "Progressive",
                    "progressive": {"maxConcurrency": 1}}}],
                "cascadeDeletionPolicy": "Foreground"
            },
            "status": {
                "conditions": [{"type": "PlacementVerified", "status": "True", "reason": "AsExpected", "message": "",
                    "lastTransitionTime": "2026-01-01T00:00:00Z"}],
                "summary": {"total": 2, "progressing": 0, "available": 1, "degraded": 0, "applied": 2,
                    "desiredTotal": 0, "updated": 0},
                "placementSummary": [{"name": "p1", "availableDecisionGroups": "1 (2 / 2 clusters applied)",
                    "summary": {"total": 2, "progressing": 0, "available": 1, "degraded": 0, "applied": 2,
                        "desiredTotal": 0, "updated": 0}}]
            }
        });
        let set: ManifestWorkReplicaSet = serde_json::from_value(upstream.clone()).unwrap();
        assert_eq!(set.spec.cascade_deletion_policy, CascadeDeletionPolicy::Foreground);
        assert_eq!(set.spec.placement_refs[0].rollout_strategy.type_, RolloutType::Progressive);
        assert_eq!(set.works_label(), "default.app");
        assert_eq!(serde_json::to_value(&set).unwrap(), upstream);
    }

    #[test]
    fn a_minimal_manifestworkreplicaset_defaults_as_upstreams_crd_does() {
        let set: ManifestWorkReplicaSet = serde_json::from_value(json!({
            "apiVersion": "work.open-cluster-management.io/v1alpha1", "kind": "ManifestWorkReplicaSet",
            "metadata": {"name": "app", "namespace": "default"},
            "spec": {"manifestWorkTemplate": {}, "placementRefs": [{"name": "p1"}]},
            "status": {"summary": {"total": 0}, "placementSummary": null}
        }))
        .unwrap();
        assert_eq!(set.spec.cascade_deletion_policy, CascadeDeletionPolicy::Background);
        assert_eq!(set.spec.placement_refs[0].rollout_strategy.type_, RolloutType::All);
    }

    #[test]
    fn the_works_label_names_the_set_and_is_read_back_at_the_first_dot() {
        assert_eq!(replica_set_of("default.app.v2"), Some(("default", "app.v2")));
        assert_eq!(replica_set_of("nodot"), None);
        assert_eq!(replica_set_of(".app"), None);
        let mut set = ManifestWorkReplicaSet::new("a".repeat(60).as_str(), ManifestWorkReplicaSetSpec::default());
        set.metadata.namespace = Some("ns".into());
        assert!(set.works_label_is_valid(), "63 characters");
        set.metadata.namespace = Some("ns1".into());
        assert!(!set.works_label_is_valid(), "64 characters");
    }
}
