//! OCM's rollout strategy (`RolloutStrategy` of `cluster.open-cluster-management.io/v1alpha1`):
//! how a change reaches the clusters a Placement selects — to all of them at once, cluster by
//! cluster, or decision group by decision group. A ClusterManagementAddOn's Placements roll out
//! their addon configurations with it.

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

use crate::fields::{self, string_enum};

string_enum! {
    /// How a rollout proceeds.
    pub enum RolloutType(closed) {
        /// To every selected cluster at once.
        All = "All",
        /// Cluster by cluster, the next one once a current one succeeded.
        Progressive = "Progressive",
        /// Decision group by decision group, the next once all of the current one succeeded.
        ProgressivePerGroup = "ProgressivePerGroup",
    }
    default = All;
}

/// How a change rolls out to the selected clusters.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RolloutStrategy {
    /// All, Progressive or ProgressivePerGroup.
    #[serde(default, rename = "type")]
    pub type_: RolloutType,

    /// The settings of an All rollout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all: Option<RolloutAll>,

    /// The settings of a Progressive rollout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progressive: Option<RolloutProgressive>,

    /// The settings of a ProgressivePerGroup rollout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progressive_per_group: Option<RolloutProgressivePerGroup>,
}

/// The timing and failure budget of a rollout.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RolloutConfig {
    /// How long to wait after a successful step before the next one (`2h`, `90m`, `360s`);
    /// progressive rollouts only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "0"))]
    pub min_success_time: Option<String>,

    /// How long a cluster may take to succeed before it counts as failed (`2h`, `90m`,
    /// `360s`), or `None` to wait for ever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "None"), pattern(r"^(([0-9])+[h|m|s])|None$"))]
    pub progress_deadline: Option<String>,

    /// How many clusters of the current step (a number or a percentage) may fail before the
    /// rollout stops; progressive rollouts only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "max_failures")]
    pub max_failures: Option<IntOrString>,
}

/// A number of clusters or a percentage of them, as rollouts count failures and concurrency.
fn count_or_percentage() -> Schema {
    json_schema!({"x-kubernetes-int-or-string": true, "pattern": r"^((100|[0-9]{1,2})%|[0-9]+)$"})
}

fn max_failures(_: &mut SchemaGenerator) -> Schema {
    let mut schema = count_or_percentage();
    schema.insert("default".into(), 0.into());
    schema
}

fn max_concurrency(_: &mut SchemaGenerator) -> Schema {
    count_or_percentage()
}

/// A decision group that must succeed first, by name or index.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MandatoryDecisionGroup {
    /// The group's name (the PlacementDecisions' decision-group-name label).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub group_name: String,

    /// The group's index (the PlacementDecisions' decision-group-index label).
    #[serde(default, skip_serializing_if = "fields::is_zero")]
    pub group_index: i32,
}

/// The settings of an All rollout.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RolloutAll {
    /// Timing and failure budget.
    #[serde(flatten)]
    pub config: RolloutConfig,
}

/// The settings of a Progressive rollout.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RolloutProgressive {
    /// Timing and failure budget.
    #[serde(flatten)]
    pub config: RolloutConfig,

    /// Decision groups that go first and may not fail.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mandatory_decision_groups: Vec<MandatoryDecisionGroup>,

    /// How many clusters (a number or a percentage) change at once; the Placement's
    /// clusters per decision group when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "max_concurrency")]
    pub max_concurrency: Option<IntOrString>,
}

/// The settings of a ProgressivePerGroup rollout.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RolloutProgressivePerGroup {
    /// Timing and failure budget.
    #[serde(flatten)]
    pub config: RolloutConfig,

    /// Decision groups that go first and may not fail.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mandatory_decision_groups: Vec<MandatoryDecisionGroup>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_rollout_strategy_reads_and_writes_as_upstream_writes_it() {
        let upstream = json!({
            "type": "Progressive",
            "progressive": {
                "minSuccessTime": "0s",
                "progressDeadline": "None",
                "maxFailures": "10%",
                "mandatoryDecisionGroups": [{"groupName": "canary"}, {"groupIndex": 2}],
                "maxConcurrency": 3
            }
        });
        let strategy: RolloutStrategy = serde_json::from_value(upstream.clone()).unwrap();
        assert_eq!(strategy.type_, RolloutType::Progressive);
        let progressive = strategy.progressive.as_ref().unwrap();
        assert_eq!(progressive.config.max_failures, Some(IntOrString::String("10%".into())));
        assert_eq!(progressive.max_concurrency, Some(IntOrString::Int(3)));
        assert_eq!(serde_json::to_value(&strategy).unwrap(), upstream);
    }
}
