//! The scheduler's pure logic, upstream's plugin pipeline: the filters (Predicate, then
//! TaintToleration), the prioritizers (Balance, Steady, ResourceAllocatableCPU/Memory and
//! AddOn scores, weighted by the prioritizer policy), and the selection of the best
//! `numberOfClusters`. Everything it judges by is handed in as [`Inputs`]; nothing here
//! reads the API.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Duration;

use fleetctl_api::ManagedCluster;
use fleetctl_api::cluster::{Taint, TaintEffect};
use fleetctl_api::placement::{AddOnScore, Placement, ScoreCoordinate, Toleration, TolerationOperator};
use fleetctl_api::{AddOnPlacementScore, placement::ClusterSelector};
use jiff::Timestamp;
use kube::ResourceExt;

use super::cel;
use super::resources::allocatable_and_capacity;

/// The highest score a prioritizer gives.
const MAX_SCORE: i64 = 100;
/// The type of a built-in score coordinate.
const BUILT_IN: &str = "BuiltIn";

/// How a scheduling pass (or a part of it) went, as upstream's framework status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to report.
    Success,
    /// Scheduled, with something worth a warning (such as expired AddOn scores).
    Warning {
        /// The plugin that warned.
        plugin: String,
        /// What it said.
        message: String,
    },
    /// The Placement cannot be scheduled as written.
    Misconfigured {
        /// The plugin that found it (empty for the policy itself).
        plugin: String,
        /// What is wrong.
        message: String,
    },
}

impl Outcome {
    fn misconfigured(plugin: &str, message: impl Into<String>) -> Self {
        Self::Misconfigured { plugin: plugin.into(), message: message.into() }
    }
}

/// The AddOnPlacementScore of a cluster (the first argument) by name.
pub type Scores<'a> = dyn Fn(&str, &str) -> Option<AddOnPlacementScore> + Send + Sync + 'a;

/// What the scheduler judges a Placement by.
pub struct Inputs<'a> {
    /// The clusters of the cluster sets the Placement may select from.
    pub clusters: Vec<&'a ManagedCluster>,
    /// The clusters in the Placement's own PlacementDecisions now.
    pub decided: BTreeSet<String>,
    /// How many decisions of other Placements name each cluster.
    pub elsewhere: HashMap<String, i64>,
    /// The AddOnPlacementScore of a cluster by name (in the cluster's namespace).
    pub scores: &'a Scores<'a>,
    /// The time the pass judges tolerations and score expiry by.
    pub now: Timestamp,
}

/// What one pass decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// The selected clusters, best first.
    pub selected: Vec<String>,
    /// How many of `numberOfClusters` could not be selected (0 when unset).
    pub unscheduled: i64,
    /// The weighted sum of scores of every feasible cluster.
    pub scores: BTreeMap<String, i64>,
    /// How the pass went.
    pub outcome: Outcome,
    /// When a toleration of a selected cluster's taint expires: look again then.
    pub requeue_after: Option<Duration>,
}

impl Schedule {
    fn failed(outcome: Outcome) -> Self {
        Self { selected: Vec::new(), unscheduled: 0, scores: BTreeMap::new(), outcome, requeue_after: None }
    }
}

/// Schedules `placement` over `inputs`.
pub fn schedule(placement: &Placement, inputs: &Inputs<'_>) -> Schedule {
    let mut outcome = Outcome::Success;
    let feasible = match predicate(placement, &inputs.clusters, inputs.scores) {
        Ok(matched) => matched,
        Err(misconfigured) => return Schedule::failed(misconfigured),
    };
    let mut feasible = match taint_toleration(placement, feasible, &inputs.decided, inputs.now) {
        Ok(tolerated) => tolerated,
        Err(misconfigured) => return Schedule::failed(misconfigured),
    };
    let weights = match weights(placement) {
        Ok(weights) => weights,
        Err(misconfigured) => return Schedule::failed(misconfigured),
    };
    let mut sum: BTreeMap<String, i64> = feasible.iter().map(|c| (c.name_any(), 0)).collect();
    for (coordinate, weight) in &weights {
        let (scores, warning) = score(coordinate, placement, &feasible, inputs);
        if let Some(warning) = warning {
            outcome = warning;
        }
        for (name, value) in scores {
            if let Some(total) = sum.get_mut(&name) {
                *total += value * i64::from(*weight);
            }
        }
    }
    feasible.sort_by(|a, b| {
        let (a, b) = (a.name_any(), b.name_any());
        sum.get(&b).cmp(&sum.get(&a)).then(a.cmp(&b))
    });
    let wanted = placement.spec.number_of_clusters.map(i64::from);
    let count = wanted.map_or(feasible.len(), |n| usize::try_from(n.max(0)).unwrap_or(usize::MAX).min(feasible.len()));
    let selected: Vec<String> = feasible.iter().take(count).map(|c| c.name_any()).collect();
    let unscheduled = wanted.map_or(0, |n| n - i64::try_from(selected.len()).unwrap_or(i64::MAX));
    Schedule {
        selected,
        unscheduled,
        scores: sum,
        outcome,
        requeue_after: requeue_after(placement, &inputs.clusters, &inputs.decided, inputs.now),
    }
}

/// The labels a claim selector matches: the cluster's claims by name.
fn claims(cluster: &ManagedCluster) -> BTreeMap<String, String> {
    cluster.status.iter().flat_map(|s| s.cluster_claims.iter().map(|c| (c.name.clone(), c.value.clone()))).collect()
}

fn labels(cluster: &ManagedCluster) -> &BTreeMap<String, String> {
    cluster.labels()
}

/// Whether `cluster` matches a label and claim selector.
pub fn selects(
    label: &fleetctl_api::selector::LabelSelector,
    claim: &fleetctl_api::selector::ExpressionSelector,
    cluster: &ManagedCluster,
) -> bool {
    label.matches(labels(cluster)) && claim.matches(&claims(cluster))
}

/// A predicate's selector, checked and compiled as upstream's predicate plugin does.
struct Predicate<'p> {
    selector: &'p ClusterSelector,
    cel: cel::Compiled,
}

impl<'p> Predicate<'p> {
    fn new(selector: &'p ClusterSelector) -> Result<Self, Outcome> {
        const PLUGIN: &str = "Predicate";
        selector.label_selector.validate().map_err(|e| Outcome::misconfigured(PLUGIN, e.to_string()))?;
        selector.claim_selector.validate().map_err(|e| Outcome::misconfigured(PLUGIN, e.to_string()))?;
        let cel = cel::Compiled::new(&selector.cel_selector).map_err(|e| Outcome::misconfigured(PLUGIN, e))?;
        Ok(Self { selector, cel })
    }

    /// Whether the labels, the claims and the CEL expressions all select `cluster`.
    fn selects(&self, cluster: &ManagedCluster, scores: &Scores<'_>) -> bool {
        let s = self.selector;
        selects(&s.label_selector, &s.claim_selector, cluster) && self.cel.matches(cluster, scores)
    }
}

/// The Predicate filter: the clusters any predicate selects (all of them without predicates).
fn predicate<'a>(
    placement: &Placement,
    clusters: &[&'a ManagedCluster],
    scores: &Scores<'_>,
) -> Result<Vec<&'a ManagedCluster>, Outcome> {
    let predicates = &placement.spec.predicates;
    if predicates.is_empty() || clusters.is_empty() {
        return Ok(clusters.to_vec());
    }
    let predicates =
        predicates.iter().map(|p| Predicate::new(&p.required_cluster_selector)).collect::<Result<Vec<_>, _>>()?;
    Ok(clusters.iter().copied().filter(|cluster| predicates.iter().any(|p| p.selects(cluster, scores))).collect())
}

/// The TaintToleration filter: the clusters whose every taint is tolerated.
fn taint_toleration<'a>(
    placement: &Placement,
    clusters: Vec<&'a ManagedCluster>,
    decided: &BTreeSet<String>,
    now: Timestamp,
) -> Result<Vec<&'a ManagedCluster>, Outcome> {
    const PLUGIN: &str = "TaintToleration";
    if clusters.is_empty() {
        return Ok(clusters);
    }
    for toleration in &placement.spec.tolerations {
        let exists = toleration.operator == Some(TolerationOperator::Exists);
        if toleration.key.is_empty() && !exists {
            return Err(Outcome::misconfigured(PLUGIN, "If the key is empty, operator must be Exists."));
        }
        if exists && !toleration.value.is_empty() {
            return Err(Outcome::misconfigured(PLUGIN, "If the operator is Exists, the value should be empty."));
        }
    }
    let tolerations = &placement.spec.tolerations;
    Ok(clusters
        .into_iter()
        .filter(|c| tolerated(c, tolerations, decided.contains(&c.name_any()), now).is_some())
        .collect())
}

/// Whether every taint of `cluster` is tolerated: `None` if not, else when the first
/// toleration with a deadline expires (`Some(None)` when none has one).
fn tolerated(
    cluster: &ManagedCluster,
    tolerations: &[Toleration],
    in_decision: bool,
    now: Timestamp,
) -> Option<Option<Timestamp>> {
    let mut earliest: Option<Timestamp> = None;
    for taint in &cluster.spec.taints {
        let until = taint_tolerated(taint, tolerations, in_decision, now)?;
        earliest = match (earliest, until) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    Some(earliest)
}

/// Whether one taint is tolerated (see [`tolerated`]).
fn taint_tolerated(
    taint: &Taint,
    tolerations: &[Toleration],
    in_decision: bool,
    now: Timestamp,
) -> Option<Option<Timestamp>> {
    if taint.effect == TaintEffect::PreferNoSelect || (taint.effect == TaintEffect::NoSelectIfNew && in_decision) {
        return Some(None);
    }
    tolerations.iter().find_map(|toleration| toleration_holds(taint, toleration, now))
}

/// Whether `toleration` tolerates `taint` now: `Some(deadline)` if so.
fn toleration_holds(taint: &Taint, toleration: &Toleration, now: Timestamp) -> Option<Option<Timestamp>> {
    if toleration.effect.as_ref().is_some_and(|effect| *effect != taint.effect) {
        return None;
    }
    if !toleration.key.is_empty() && toleration.key != taint.key {
        return None;
    }
    let matched = match toleration.operator.as_ref().unwrap_or(&TolerationOperator::Equal) {
        TolerationOperator::Equal => toleration.value == taint.value,
        TolerationOperator::Exists => true,
        TolerationOperator::Other(_) => false,
    };
    if !matched {
        return None;
    }
    let Some(seconds) = toleration.toleration_seconds else { return Some(None) };
    // A taint without timeAdded was added at Go's zero time: long expired.
    let added = taint.time_added.as_ref()?.0;
    let deadline = added.checked_add(jiff::SignedDuration::from_secs(seconds)).ok()?;
    (now < deadline).then_some(Some(deadline))
}

/// When to look at the Placement again: the earliest deadline of a toleration that keeps a
/// decided cluster selected.
fn requeue_after(
    placement: &Placement,
    clusters: &[&ManagedCluster],
    decided: &BTreeSet<String>,
    now: Timestamp,
) -> Option<Duration> {
    clusters
        .iter()
        .filter(|c| decided.contains(&c.name_any()))
        .filter_map(|c| tolerated(c, &placement.spec.tolerations, true, now).flatten())
        .min()
        .map(|deadline| deadline.duration_since(now).unsigned_abs())
}

/// The built-in prioritizers.
const BALANCE: &str = "Balance";
const STEADY: &str = "Steady";
const CPU: &str = "ResourceAllocatableCPU";
const MEMORY: &str = "ResourceAllocatableMemory";

fn built_in(name: &str) -> ScoreCoordinate {
    ScoreCoordinate { type_: BUILT_IN.into(), built_in: name.into(), add_on: None }
}

/// The prioritizers and their weights: in Additive mode (the default) Balance and Steady
/// with weight 1, changed by the configurations; in Exact mode the configurations only.
/// Weight 0 turns a prioritizer off.
fn weights(placement: &Placement) -> Result<Vec<(ScoreCoordinate, i32)>, Outcome> {
    let policy = &placement.spec.prioritizer_policy;
    let mut weights: Vec<(ScoreCoordinate, i32)> = match policy.mode.as_deref() {
        None | Some("") | Some("Additive") => vec![(built_in(BALANCE), 1), (built_in(STEADY), 1)],
        Some("Exact") => Vec::new(),
        Some(other) => return Err(Outcome::misconfigured("", format!("incorrect prioritizer policy mode: {other}"))),
    };
    for config in &policy.configurations {
        let Some(coordinate) = &config.score_coordinate else {
            return Err(Outcome::misconfigured("", "scoreCoordinate field is required"));
        };
        match weights.iter_mut().find(|(c, _)| c == coordinate) {
            Some(entry) => entry.1 = config.weight,
            None => weights.push((coordinate.clone(), config.weight)),
        }
    }
    weights.retain(|(_, weight)| *weight != 0);
    for (coordinate, _) in &weights {
        if coordinate.type_ == BUILT_IN {
            if ![BALANCE, STEADY, CPU, MEMORY].contains(&coordinate.built_in.as_str()) {
                return Err(Outcome::misconfigured(
                    "",
                    format!("incorrect builtin prioritizer: {}", coordinate.built_in),
                ));
            }
        } else if coordinate.add_on.is_none() {
            return Err(Outcome::misconfigured("", "addOn should not be empty"));
        }
    }
    Ok(weights)
}

/// One prioritizer's scores of `clusters`, and a warning if it has one.
fn score(
    coordinate: &ScoreCoordinate,
    placement: &Placement,
    clusters: &[&ManagedCluster],
    inputs: &Inputs<'_>,
) -> (HashMap<String, i64>, Option<Outcome>) {
    match (&coordinate.add_on, coordinate.built_in.as_str()) {
        (Some(add_on), _) if coordinate.type_ != BUILT_IN => add_on_scores(add_on, clusters, inputs),
        (_, BALANCE) => (balance(clusters, &inputs.elsewhere), None),
        (_, STEADY) => (steady(clusters, &inputs.decided), None),
        (_, CPU) => (allocatable(clusters, "cpu"), None),
        (_, MEMORY) => (allocatable(clusters, "memory"), None),
        _ => {
            tracing::debug!(placement = %placement.name_any(), ?coordinate, "no such prioritizer");
            (HashMap::new(), None)
        }
    }
}

/// Balance: a cluster no other Placement decided gets 100, the most decided one -100.
pub fn balance(clusters: &[&ManagedCluster], elsewhere: &HashMap<String, i64>) -> HashMap<String, i64> {
    let most = elsewhere.values().copied().max().unwrap_or(0);
    clusters
        .iter()
        .map(|c| {
            let name = c.name_any();
            let score = match elsewhere.get(&name) {
                Some(count) if most > 0 => {
                    let usage = *count as f64 / most as f64;
                    // Go converts toward zero.
                    2 * ((MAX_SCORE as f64) * (0.5 - usage)).trunc() as i64
                }
                _ => MAX_SCORE,
            };
            (name, score)
        })
        .collect()
}

/// Steady: a cluster already decided gets 100, any other 0.
pub fn steady(clusters: &[&ManagedCluster], decided: &BTreeSet<String>) -> HashMap<String, i64> {
    clusters
        .iter()
        .map(|c| {
            let name = c.name_any();
            let score = if decided.contains(&name) { MAX_SCORE } else { 0 };
            (name, score)
        })
        .collect()
}

/// ResourceAllocatable{CPU,Memory}: the most allocatable 100, the least -100, in proportion
/// between; all 100 when they are equal; nothing for a cluster that reports no allocatable
/// and capacity of it.
pub fn allocatable(clusters: &[&ManagedCluster], resource: &str) -> HashMap<String, i64> {
    let known: Vec<(String, f64)> = clusters
        .iter()
        .filter_map(|c| allocatable_and_capacity(c, resource).map(|(allocatable, _)| (c.name_any(), allocatable)))
        .collect();
    let min = known.iter().map(|(_, a)| *a).fold(f64::INFINITY, f64::min);
    let max = known.iter().map(|(_, a)| *a).fold(f64::NEG_INFINITY, f64::max);
    known
        .into_iter()
        .map(|(name, a)| {
            let score = if max - min != 0.0 {
                let ratio = (a - min) / (max - min);
                ((ratio - 0.5) * 2.0 * 100.0).trunc() as i64
            } else {
                MAX_SCORE
            };
            (name, score)
        })
        .collect()
}

/// AddOn: the score the addon reports in the cluster's AddOnPlacementScore; 0 when there is
/// none or it expired (with a warning naming the expired ones).
fn add_on_scores(
    add_on: &AddOnScore,
    clusters: &[&ManagedCluster],
    inputs: &Inputs<'_>,
) -> (HashMap<String, i64>, Option<Outcome>) {
    let mut expired = String::new();
    let scores = clusters
        .iter()
        .map(|c| {
            let name = c.name_any();
            let Some(found) = (inputs.scores)(&name, &add_on.resource_name) else { return (name, 0) };
            let valid_until = found.status.as_ref().and_then(|s| s.valid_until.as_ref()).map(|t| t.0);
            if valid_until.is_some_and(|until| inputs.now > until) {
                expired.push_str(&format!(" {name}/{}", add_on.resource_name));
                return (name, 0);
            }
            let value = found.score(&add_on.score_name).map_or(0, i64::from);
            (name, value)
        })
        .collect();
    let warning = (!expired.is_empty()).then(|| Outcome::Warning {
        plugin: format!("AddOn/{}/{}", add_on.resource_name, add_on.score_name),
        message: format!("AddOnPlacementScores{expired} expired"),
    });
    (scores, warning)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use fleetctl_api::placement::{PlacementSpec, PrioritizerConfig, PrioritizerPolicy};
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

    use super::*;

    fn cluster(name: &str) -> ManagedCluster {
        ManagedCluster::accepted(name)
    }

    fn with_cpu(name: &str, allocatable: &str) -> ManagedCluster {
        let mut cluster = cluster(name);
        let status = cluster.status.get_or_insert_with(Default::default);
        status.allocatable = BTreeMap::from([("cpu".to_owned(), Quantity(allocatable.into()))]);
        status.capacity = BTreeMap::from([("cpu".to_owned(), Quantity("16".into()))]);
        cluster
    }

    fn tainted(name: &str, effect: TaintEffect, added: Option<Timestamp>) -> ManagedCluster {
        let mut cluster = cluster(name);
        cluster.spec.taints = vec![Taint { key: "k".into(), value: "v".into(), effect, time_added: added.map(Time) }];
        cluster
    }

    fn no_scores(_: &str, _: &str) -> Option<AddOnPlacementScore> {
        None
    }

    fn run(spec: PlacementSpec, clusters: &[ManagedCluster], decided: &[&str], now: Timestamp) -> Schedule {
        let placement = Placement::new("p", spec);
        let inputs = Inputs {
            clusters: clusters.iter().collect(),
            decided: decided.iter().map(|d| (*d).to_owned()).collect(),
            elsewhere: HashMap::new(),
            scores: &no_scores,
            now,
        };
        schedule(&placement, &inputs)
    }

    fn exact(configs: &[(&str, i32)]) -> PrioritizerPolicy {
        PrioritizerPolicy {
            mode: Some("Exact".into()),
            configurations: configs
                .iter()
                .map(|(name, weight)| PrioritizerConfig { score_coordinate: Some(built_in(name)), weight: *weight })
                .collect(),
        }
    }

    #[test]
    fn number_of_clusters_takes_the_best_scored_then_by_name_and_counts_the_rest_unscheduled() {
        let clusters = [with_cpu("a", "2"), with_cpu("b", "8"), with_cpu("c", "4")];
        let spec = PlacementSpec {
            number_of_clusters: Some(2),
            prioritizer_policy: exact(&[("ResourceAllocatableCPU", 1)]),
            ..PlacementSpec::default()
        };
        let done = run(spec, &clusters, &[], Timestamp::now());
        assert_eq!(done.selected, ["b", "c"]);
        assert_eq!((done.scores["b"], done.scores["a"]), (100, -100));
        let more = PlacementSpec { number_of_clusters: Some(5), ..PlacementSpec::default() };
        assert_eq!(run(more, &clusters, &[], Timestamp::now()).unscheduled, 2);
    }

    #[test]
    fn steady_keeps_what_was_decided() {
        let clusters = [cluster("a"), cluster("b")];
        let spec = PlacementSpec { number_of_clusters: Some(1), ..PlacementSpec::default() };
        assert_eq!(run(spec.clone(), &clusters, &["b"], Timestamp::now()).selected, ["b"]);
        assert_eq!(run(spec, &clusters, &[], Timestamp::now()).selected, ["a"]);
    }

    #[test]
    fn balance_prefers_clusters_other_placements_decided_less() {
        let (a, b) = (cluster("a"), cluster("b"));
        let elsewhere = HashMap::from([("a".to_owned(), 2), ("b".to_owned(), 1)]);
        let scores = balance(&[&a, &b], &elsewhere);
        assert_eq!((scores["a"], scores["b"]), (-100, 0));
    }

    #[test]
    fn no_select_taints_need_a_toleration_and_no_select_if_new_spares_decided_clusters() {
        let now = Timestamp::now();
        let clusters = [
            cluster("free"),
            tainted("no-select", TaintEffect::NoSelect, Some(now)),
            tainted("prefer", TaintEffect::PreferNoSelect, Some(now)),
            tainted("if-new", TaintEffect::NoSelectIfNew, Some(now)),
        ];
        let done = run(PlacementSpec::default(), &clusters, &["if-new"], now);
        assert_eq!(sorted(done.selected), ["free", "if-new", "prefer"]);
        let done = run(PlacementSpec::default(), &clusters, &[], now);
        assert_eq!(sorted(done.selected), ["free", "prefer"]);
    }

    fn sorted(mut names: Vec<String>) -> Vec<String> {
        names.sort();
        names
    }

    #[test]
    fn toleration_seconds_expire_and_the_placement_is_looked_at_again_then() {
        let now = Timestamp::now();
        let added = now.checked_sub(jiff::SignedDuration::from_secs(10)).unwrap();
        let clusters = [tainted("t", TaintEffect::NoSelect, Some(added))];
        let tolerate = |seconds| PlacementSpec {
            tolerations: vec![Toleration {
                key: "k".into(),
                operator: Some(TolerationOperator::Exists),
                toleration_seconds: Some(seconds),
                ..Toleration::default()
            }],
            ..PlacementSpec::default()
        };
        let held = run(tolerate(30), &clusters, &["t"], now);
        assert_eq!(held.selected, ["t"]);
        let requeue = held.requeue_after.expect("a requeue");
        assert!(requeue <= Duration::from_secs(20) && requeue > Duration::from_secs(18), "{requeue:?}");
        let expired = run(tolerate(5), &clusters, &["t"], now);
        assert!(expired.selected.is_empty());
        assert_eq!(expired.requeue_after, None);
    }

    #[test]
    fn misconfigurations_are_reported_with_upstreams_messages() {
        let misconfigured = |spec: PlacementSpec| run(spec, &[cluster("a")], &[], Timestamp::now()).outcome;
        let bad_toleration = PlacementSpec {
            tolerations: vec![Toleration {
                key: "k".into(),
                operator: Some(TolerationOperator::Exists),
                value: "v".into(),
                ..Toleration::default()
            }],
            ..PlacementSpec::default()
        };
        assert_eq!(
            misconfigured(bad_toleration),
            Outcome::misconfigured("TaintToleration", "If the operator is Exists, the value should be empty.")
        );
        let bad_mode = PlacementSpec {
            prioritizer_policy: PrioritizerPolicy { mode: Some("Sometimes".into()), ..PrioritizerPolicy::default() },
            ..PlacementSpec::default()
        };
        assert_eq!(misconfigured(bad_mode), Outcome::misconfigured("", "incorrect prioritizer policy mode: Sometimes"));
        let bad_prioritizer = PlacementSpec { prioritizer_policy: exact(&[("Luck", 1)]), ..PlacementSpec::default() };
        assert_eq!(misconfigured(bad_prioritizer), Outcome::misconfigured("", "incorrect builtin prioritizer: Luck"));
    }
}
