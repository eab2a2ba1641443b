//! A predicate's `celSelector`, as upstream's placement evaluates it: every expression must
//! answer true for `managedCluster`, the ManagedCluster as JSON, with upstream's library
//! function `managedCluster.scores(name)` — the scores of the cluster's AddOnPlacementScore
//! `name`, a list of `{name, value}`. An expression that does not compile (bad syntax, or a
//! variable other than `managedCluster`) makes the Placement misconfigured; one that fails
//! to evaluate (a missing field, a missing score) or answers anything but true leaves the
//! cluster out.
//!
//! The scores are looked up before evaluation, for the names the expressions spell as
//! literals (`scores('demo')`); a name computed at run time finds none. The Kubernetes
//! CEL libraries upstream also declares (quantity, semver, ip, url, …) are not offered.

use std::collections::BTreeSet;
use std::sync::Arc;

use cel::extractors::This;
use cel::objects::Key;
use cel::{Context, DeclarationError, ExecutionError, Value};
use fleetctl_api::ManagedCluster;
use fleetctl_api::placement::CelSelector;
use fleetctl_cel::{Expression, Variables, from_json};
use kube::ResourceExt;
use serde_json::json;

use super::scheduler::Scores;

/// The variable an expression reads the cluster from.
const VARIABLE: &str = "managedCluster";
/// The library function reading a cluster's AddOnPlacementScore.
const SCORES: &str = "scores";
/// Where the cluster's looked-up scores ride along in `managedCluster` (no expression can
/// spell the key).
const SCORES_KEY: &str = "\u{0}scores";

/// A `celSelector`, compiled.
#[derive(Debug)]
pub struct Compiled {
    expressions: Vec<Expression>,
    score_names: BTreeSet<String>,
}

impl Compiled {
    /// Compiles every expression; the first that fails names the error, as upstream's
    /// `compilation failed: …`.
    pub fn new(selector: &CelSelector) -> Result<Self, String> {
        let expressions = selector
            .cel_expressions
            .iter()
            .map(|source| Expression::compile_declaring(source, &[VARIABLE]))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        let score_names = expressions.iter().flat_map(|e| e.literal_arguments(SCORES)).collect();
        Ok(Self { expressions, score_names })
    }

    /// Whether every expression answers true for `cluster` (true without expressions).
    pub fn matches(&self, cluster: &ManagedCluster, scores: &Scores<'_>) -> bool {
        if self.expressions.is_empty() {
            return true;
        }
        let name = cluster.name_any();
        let mut object = match serde_json::to_value(cluster) {
            Ok(object) => object,
            Err(e) => {
                tracing::warn!(cluster = %name, error = %e, "the ManagedCluster could not be read as JSON for CEL");
                return false;
            }
        };
        let looked_up: serde_json::Map<String, serde_json::Value> = self
            .score_names
            .iter()
            .filter_map(|score| {
                // A score object without a status holds no scores (an empty list, as upstream's).
                let items = scores(&name, score)?.status.map_or_else(Vec::new, |status| status.scores);
                let items: Vec<_> = items.iter().map(|i| json!({"name": i.name, "value": i.value})).collect();
                Some((score.clone(), serde_json::Value::from(items)))
            })
            .collect();
        if let Some(fields) = object.as_object_mut() {
            fields.insert(SCORES_KEY.to_owned(), serde_json::Value::Object(looked_up));
        }
        let mut variables = Variables::default();
        variables.set_library(VARIABLE, from_json(&object), register);
        self.expressions.iter().all(|expression| match expression.eval_bool(&variables) {
            Ok(answer) => answer,
            Err(e) => {
                tracing::debug!(cluster = %name, error = %e, "a CEL expression did not evaluate");
                false
            }
        })
    }
}

/// Declares `scores` on `context`.
fn register(context: &mut Context<'_, '_>) -> Result<(), DeclarationError> {
    context.add_function(SCORES, |This(cluster): This<Value>, score: Arc<String>| {
        let Value::Map(cluster) = cluster else {
            return Err(ExecutionError::function_error(SCORES, "not a managedCluster"));
        };
        let looked_up = match cluster.map.get(&Key::String(Arc::new(SCORES_KEY.to_owned()))) {
            Some(Value::Map(looked_up)) => looked_up.map.get(&Key::String(score.clone())).cloned(),
            _ => None,
        };
        looked_up
            .ok_or_else(|| ExecutionError::function_error(SCORES, format!("failed to get score: {score} not found")))
    })
}

#[cfg(test)]
mod tests {
    use fleetctl_api::AddOnPlacementScore;
    use fleetctl_api::placement::{AddOnPlacementScoreItem, AddOnPlacementScoreStatus};
    use kube::api::ObjectMeta;

    use super::*;

    fn selector(expressions: &[&str]) -> Result<Compiled, String> {
        Compiled::new(&CelSelector { cel_expressions: expressions.iter().map(|e| (*e).to_owned()).collect() })
    }

    fn cluster(name: &str, labels: &[(&str, &str)]) -> ManagedCluster {
        let mut cluster = ManagedCluster::new(name, Default::default());
        cluster.metadata.labels = Some(labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect());
        cluster
    }

    fn demo_scores(cluster: &str, name: &str) -> Option<AddOnPlacementScore> {
        let value = match (cluster, name) {
            ("high", "demo") => 90,
            ("low", "demo") => 70,
            _ => return None,
        };
        Some(AddOnPlacementScore {
            metadata: ObjectMeta {
                name: Some(name.to_owned()),
                namespace: Some(cluster.to_owned()),
                ..Default::default()
            },
            status: Some(AddOnPlacementScoreStatus {
                conditions: Vec::new(),
                scores: vec![AddOnPlacementScoreItem { name: "demo".to_owned(), value }],
                valid_until: None,
            }),
        })
    }

    #[test]
    fn an_undeclared_variable_is_a_compilation_failure_as_upstreams_predicate_plugin_reports() {
        let error = selector(&["managedCluster.metadata.name != ''", "xxxx.expression"]).expect_err("misconfigured");
        assert!(error.contains("compilation failed") && error.contains("undeclared reference to 'xxxx'"), "{error}");
        assert!(selector(&["managedCluster.metadata.name.("]).is_err());
    }

    #[test]
    fn every_expression_must_answer_true_and_one_that_fails_to_evaluate_leaves_the_cluster_out() {
        let s = selector(&[
            "managedCluster.metadata.labels['env'] == 'prod'",
            "managedCluster.metadata.name.startsWith('c')",
        ])
        .expect("compiles");
        assert!(s.matches(&cluster("c1", &[("env", "prod")]), &demo_scores));
        assert!(!s.matches(&cluster("d1", &[("env", "prod")]), &demo_scores));
        // No `env` label: the index fails, which is no match (and no misconfiguration).
        assert!(!s.matches(&cluster("c2", &[]), &demo_scores));
        // Not a bool.
        assert!(
            !selector(&["managedCluster.metadata.name"]).expect("compiles").matches(&cluster("c3", &[]), &demo_scores)
        );
        assert!(selector(&[]).expect("compiles").matches(&cluster("c4", &[]), &demo_scores));
    }

    #[test]
    fn scores_reads_the_clusters_addon_placement_score_as_upstreams_placement_spec_filters_by_it() {
        let s = selector(&["managedCluster.scores(\"demo\").filter(s, s.name == 'demo').all(e, e.value > 80)"])
            .expect("compiles");
        assert!(s.matches(&cluster("high", &[]), &demo_scores));
        assert!(!s.matches(&cluster("low", &[]), &demo_scores));
        // A cluster without the score: the lookup fails, the cluster is left out.
        assert!(!s.matches(&cluster("none", &[]), &demo_scores));
    }
}
