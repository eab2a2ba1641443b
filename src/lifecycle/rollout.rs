//! A fleet-wide upgrade as a progressive rollout, in the manner of OCM's rollout strategies
//! (`cluster.open-cluster-management.io/v1alpha1` `RolloutConfig`): a canary wave first,
//! which tolerates no failure (as upstream's mandatory decision groups); then waves of a
//! fixed size or a share of the fleet. With a soak time (upstream's `minSuccessTime`) a
//! wave counts as done once its clusters run the new version and stayed Available that
//! long, and the next wave waits for it; without one, the waves roll — a wave's size of
//! clusters upgrade at once, the next starting as one ends (upstream's `maxConcurrency`). A
//! cluster that does not run the new version within the progress deadline failed; once
//! more clusters failed than `--max-failures` allows, no other cluster starts. A cluster
//! that failed is rolled back: its previous desired version is restored and waited for.

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::StreamExt;
use kube::Client;
use kube::ResourceExt;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::wait::await_condition;
use serde::Serialize;
use serde_json::json;

use super::upgrade::{UpgradeOptions, desired_version, replaced_version, running_version, upgrade};
use super::{LifecycleError, Observer, Outcome, Progress, StepRecord, step, wait_for};
use fleetctl_api::ManagedCluster;
use fleetctl_api::names::{ANNOTATION_KLUSTERLET_VERSION, ANNOTATION_KLUSTERLET_VERSION_FROM};
use fleetctl_kube::kube_error;

/// How many clusters a wave holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaveSize {
    /// This many.
    Count(NonZeroUsize),
    /// This share of the fleet, in percent (1–100), at least one cluster.
    Percent(u8),
}

impl WaveSize {
    /// Parses `N` or `P%`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("invalid wave size {text:?}: give a number of clusters (3) or a share of them (25%)");
        if let Some(percent) = text.strip_suffix('%') {
            let percent: u8 = percent.parse().map_err(|_| bad())?;
            return if (1..=100).contains(&percent) { Ok(Self::Percent(percent)) } else { Err(bad()) };
        }
        text.parse::<NonZeroUsize>().map(Self::Count).map_err(|_| bad())
    }

    /// The number of clusters of a wave in a fleet of `total`.
    fn of(self, total: usize) -> usize {
        match self {
            Self::Count(n) => n.get(),
            Self::Percent(p) => (total * usize::from(p)).div_ceil(100).max(1),
        }
    }
}

/// How a rollout proceeds.
#[derive(Debug, Clone)]
pub struct Rollout {
    /// The size of the first wave, which tolerates no failure (0: no canary).
    pub canary: usize,
    /// The size of the other waves.
    pub wave_size: WaveSize,
    /// How many clusters may fail before the rollout stops.
    pub max_failures: usize,
    /// How long a wave's clusters must stay Available before the next wave starts.
    pub soak: Duration,
    /// Roll a failed cluster back to its previous version.
    pub rollback: bool,
}

/// The waves of a rollout over `clusters`, in order.
pub fn waves(clusters: &[String], rollout: &Rollout) -> Vec<Vec<String>> {
    let canary = rollout.canary.min(clusters.len());
    let (first, rest) = clusters.split_at(canary);
    let mut waves = Vec::new();
    if !first.is_empty() {
        waves.push(first.to_vec());
    }
    waves.extend(rest.chunks(rollout.wave_size.of(clusters.len())).map(<[String]>::to_vec));
    waves
}

/// What a rollout did: the waves, why it stopped early (if it did), and each cluster's
/// result in the order of the waves — filled as the rollout goes, so that what finished
/// is known even when the rollout is dropped half-way (a signal).
#[derive(Debug)]
pub struct RolloutResult {
    /// The waves, as planned.
    pub waves: Vec<Vec<String>>,
    /// Why the rollout stopped before its last wave.
    pub stopped: Option<String>,
    /// Each cluster's result; those of waves that did not start say so.
    pub clusters: Vec<(String, Result<Outcome, LifecycleError>)>,
}

/// The waves and the stop, for a report.
#[derive(Debug, Clone, Serialize)]
pub struct RolloutSummary {
    /// The clusters of each wave.
    pub waves: Vec<Vec<String>>,
    /// Why the rollout stopped before its last wave.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

impl RolloutResult {
    /// The rollout of `clusters` as planned, before it starts.
    pub fn planned(clusters: &[String], rollout: &Rollout) -> Self {
        Self { waves: waves(clusters, rollout), stopped: None, clusters: Vec::new() }
    }

    /// The waves and the stop, for a report.
    pub fn summary(&self) -> RolloutSummary {
        RolloutSummary { waves: self.waves.clone(), stopped: self.stopped.clone() }
    }

    /// The clusters of its waves that have no result of this rollout yet (a signal stopped
    /// it half-way), in the order of the waves.
    pub fn unfinished(&self) -> Vec<String> {
        let ended = |name: &String| self.clusters.iter().any(|(done, _)| done == name);
        self.waves.iter().flatten().filter(|name| !ended(name)).cloned().collect()
    }
}

/// What a cluster had before the upgrade, to roll it back to.
#[derive(Debug, Clone)]
struct Previous {
    /// The desired version recorded on the hub (`None`: the hub's default).
    desired: Option<String>,
    /// The version its agents reported.
    running: Option<String>,
}

async fn previous(clusters: &Api<ManagedCluster>, name: &str, version: &str) -> Result<Previous, LifecycleError> {
    let Some(cluster) = clusters.get_opt(name).await.map_err(kube_error(format!("reading cluster {name}")))? else {
        return Err(LifecycleError::Refused(format!(
            "cluster {name} not found — list them with `fleetctl get clusters`"
        )));
    };
    Ok(Previous::of(&cluster, version))
}

impl Previous {
    /// What to roll back to, read before upgrading `cluster` to `version`. A cluster asked
    /// for `version` already is one whose upgrade another run started (together with this
    /// one, or stopped before it ended): the version that upgrade replaced is the one it
    /// recorded beside it; without that record (an upgrade by an older fleetctl), the version
    /// the cluster runs.
    fn of(cluster: &ManagedCluster, version: &str) -> Self {
        let running = running_version(cluster).map(str::to_string);
        let desired = desired_version(cluster);
        let desired = match (desired == Some(version), replaced_version(cluster)) {
            (false, _) => desired.map(str::to_string),
            (true, Some(replaced)) => replaced.map(str::to_string),
            (true, None) if running.as_deref().is_some_and(|r| r != version) => running.clone(),
            (true, None) => Some(version.to_string()),
        };
        Self { desired, running }
    }
}

/// Upgrades one cluster within its progress deadline (`options.timeout`), which bounds the
/// whole of it — the new version applied, reported and Available — not each wait alone.
async fn upgrade_within_deadline(
    hub: &Client,
    name: &str,
    options: &UpgradeOptions,
    observer: Observer<'_>,
) -> Result<Outcome, LifecycleError> {
    let upgrading = upgrade(hub, name, options, observer);
    if !options.wait {
        return upgrading.await;
    }
    tokio::time::timeout(options.timeout, upgrading).await.unwrap_or_else(|_| {
        Err(LifecycleError::Timeout {
            what: format!("cluster {name} to run {} and be available (its progress deadline)", options.version),
            after: options.timeout,
        })
    })
}

/// A part of a rollout that ends before the next begins: within it at most `at_once`
/// clusters upgrade at a time, the next one starting as soon as one ends (a rolling window,
/// as upstream's progressive rollout keeps `maxConcurrency` clusters in progress), so one
/// slow cluster holds one slot, not the whole wave.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stage {
    /// The waves it covers (indexes into the plan).
    waves: std::ops::Range<usize>,
    /// How many of its clusters upgrade at once.
    at_once: usize,
    /// The canary wave: a failure stops the rollout.
    canary: bool,
    /// Its clusters must stay Available for the soak time once upgraded.
    soaked: bool,
}

impl Stage {
    /// What its waves are called in the progress messages.
    fn kind(&self) -> &'static str {
        if self.canary { "canary wave" } else { "wave" }
    }
}

/// The stages of a rollout of `waves`: the canary wave alone; then, when waves soak, each
/// wave alone (a soak is a wave's), else all the other waves as one rolling window of a
/// wave's size.
fn stages(waves: &[Vec<String>], rollout: &Rollout) -> Vec<Stage> {
    // The last wave has no wave after it to hold back: it is not soaked.
    let soaked = |wave: usize| !rollout.soak.is_zero() && wave + 1 < waves.len();
    let mut stages = Vec::new();
    let mut next = 0;
    if rollout.canary > 0 && !waves.is_empty() {
        stages.push(Stage { waves: 0..1, at_once: waves[0].len(), canary: true, soaked: soaked(0) });
        next = 1;
    }
    if rollout.soak.is_zero() {
        if let Some(at_once) = waves[next..].iter().map(Vec::len).max() {
            stages.push(Stage { waves: next..waves.len(), at_once, canary: false, soaked: false });
        }
    } else {
        stages.extend((next..waves.len()).map(|w| Stage {
            waves: w..w + 1,
            at_once: waves[w].len(),
            canary: false,
            soaked: soaked(w),
        }));
    }
    stages
}

/// How one cluster's upgrade ended, with what it had before.
type Upgraded = Result<(Outcome, Previous), (LifecycleError, Option<Previous>)>;

/// Upgrades one cluster within its progress deadline.
async fn upgrade_one(
    hub: &Client,
    api: &Api<ManagedCluster>,
    name: &str,
    options: &UpgradeOptions,
    observer: Observer<'_>,
) -> Upgraded {
    let previous = previous(api, name, &options.version).await.map_err(|error| (error, None))?;
    match upgrade_within_deadline(hub, name, options, observer).await {
        Ok(outcome) => Ok((outcome, previous)),
        // Refused before its write: there is nothing to roll back.
        Err(error) if error.changed_nothing() => Err((error, None)),
        Err(error) => Err((error, Some(previous))),
    }
}

/// Upgrades the clusters of `done` (as [`RolloutResult::planned`]) stage by stage (see
/// [`Stage`]), recording each result there as it ends; `options.timeout` is each cluster's
/// progress deadline (the whole of its upgrade), `rollback_timeout` bounds each rollback,
/// which a failed cluster gets at once, in its slot. Once more clusters failed than
/// allowed, no other cluster starts; those under way finish. Upgrading no cluster at all
/// is refused.
pub async fn rollout(
    hub: &Client,
    options: &UpgradeOptions,
    rollout: &Rollout,
    rollback_timeout: Duration,
    observer: Observer<'_>,
    done: &mut RolloutResult,
) -> Result<(), LifecycleError> {
    if done.waves.is_empty() {
        return Err(LifecycleError::Refused("no cluster matches: list them with `fleetctl get clusters`".into()));
    }
    super::upgrade::refuse_without_import_controller(hub).await?;
    let api: Api<ManagedCluster> = Api::all(hub.clone());
    let waves = done.waves.clone();
    let order: HashMap<&str, usize> = waves.iter().flatten().enumerate().map(|(i, name)| (name.as_str(), i)).collect();
    let failures = AtomicUsize::new(0);
    // The number (from 1) of the last wave a cluster started in; 0 before the first.
    let last_started = AtomicUsize::new(0);
    for stage in stages(&waves, rollout) {
        let first_result = done.clusters.len();
        let stop = |failures: usize| {
            if stage.canary && failures > 0 {
                Some(format!("the canary wave had {failures} failure(s), and a canary tolerates none"))
            } else if failures > rollout.max_failures {
                Some(format!("{failures} cluster(s) failed, more than --max-failures {}", rollout.max_failures))
            } else {
                None
            }
        };
        let clusters = stage.waves.clone().flat_map(|w| waves[w].iter().enumerate().map(move |(i, name)| (w, i, name)));
        let (failures, last_started, api, plan, stage) = (&failures, &last_started, &api, &waves, &stage);
        let mut ended = futures::stream::iter(clusters)
            .map(|(wave, index, name)| async move {
                if stop(failures.load(Ordering::SeqCst)).is_some() {
                    return (name, None);
                }
                last_started.fetch_max(wave + 1, Ordering::SeqCst);
                if index == 0 {
                    let message = format!("{} {} of {}: {}", stage.kind(), wave + 1, plan.len(), plan[wave].join(", "));
                    observer(Progress::Fleet { message });
                }
                let upgraded = match upgrade_one(hub, api, name, options, observer).await {
                    Err((error, Some(previous))) if rollout.rollback => {
                        let undone = roll_back(hub, name, &previous, rollback_timeout, observer).await;
                        Err((failed(error, Some(undone)), None))
                    }
                    other => other,
                };
                (name, Some(upgraded))
            })
            .buffer_unordered(stage.at_once);
        // A soaked stage's results wait for its soak: until then its upgrades are not done.
        let mut soaking: HashMap<String, Previous> = HashMap::new();
        let mut held = Vec::new();
        while let Some((name, upgraded)) = ended.next().await {
            let result = match upgraded {
                None => {
                    let after = last_started.load(Ordering::SeqCst);
                    Ok(Outcome::unchanged(name, format!("not upgraded: the rollout stopped after wave {after}")))
                }
                Some(Ok((outcome, previous))) => {
                    soaking.insert(name.to_string(), previous);
                    Ok(outcome)
                }
                Some(Err((error, _))) => {
                    failures.fetch_add(1, Ordering::SeqCst);
                    Err(error)
                }
            };
            if stage.soaked {
                held.push((name.to_string(), result));
            } else {
                done.clusters.push((name.to_string(), result));
            }
        }
        drop(ended);
        if stage.soaked && stop(failures.load(Ordering::SeqCst)).is_none() {
            let message = format!("{} {}: soaking for {:?}", stage.kind(), stage.waves.end, rollout.soak);
            observer(Progress::Fleet { message });
            let upgraded: Vec<String> = soaking.keys().cloned().collect();
            let fell = soak(api, &upgraded, rollout.soak).await;
            let soaking = &soaking;
            let rollbacks = fell.iter().map(|name| async move {
                let error = LifecycleError::Failed(format!(
                    "cluster {name} did not stay available for the soak time ({:?})",
                    rollout.soak
                ));
                let undone = match rollout.rollback {
                    true => Some(roll_back(hub, name, &soaking[name], rollback_timeout, observer).await),
                    false => None,
                };
                (name, failed(error, undone))
            });
            for (name, error) in futures::future::join_all(rollbacks).await {
                failures.fetch_add(1, Ordering::SeqCst);
                if let Some((_, result)) = held.iter_mut().find(|(held, _)| held == name) {
                    *result = Err(error);
                }
            }
        }
        done.clusters.extend(held);
        done.clusters[first_result..].sort_by_key(|(name, _)| order.get(name.as_str()).copied());
        if let Some(why) = stop(failures.load(Ordering::SeqCst)) {
            let number = last_started.load(Ordering::SeqCst);
            observer(Progress::Fleet { message: format!("rollout stopped after wave {number}: {why}") });
            for name in waves.iter().skip(stage.waves.end).flatten() {
                let result = format!("not upgraded: the rollout stopped after wave {number}");
                done.clusters.push((name.clone(), Ok(Outcome::unchanged(name, result))));
            }
            done.stopped = Some(why);
            break;
        }
    }
    Ok(())
}

/// The error of a cluster that failed, with what its rollback did.
fn failed(error: LifecycleError, undone: Option<Result<String, LifecycleError>>) -> LifecycleError {
    match undone {
        None => error,
        Some(Ok(version)) => LifecycleError::RolledBack { to: version, source: Box::new(error) },
        Some(Err(rollback)) => LifecycleError::RollbackFailed { source: Box::new(error), rollback: Box::new(rollback) },
    }
}

/// The clusters of `names` that stopped being Available within `soak`.
async fn soak(api: &Api<ManagedCluster>, names: &[String], soak: Duration) -> Vec<String> {
    let watches = names.iter().map(|name| async move {
        let fell =
            await_condition(api.clone(), name, |c: Option<&ManagedCluster>| !c.is_some_and(|c| c.is_available()));
        match tokio::time::timeout(soak, fell).await {
            // Soaked: it stayed Available.
            Err(_) => None,
            Ok(Ok(_)) => Some(name.clone()),
            // A watch that breaks cannot vouch for the cluster.
            Ok(Err(e)) => {
                tracing::warn!("watching {name} during the soak: {e}");
                Some(name.clone())
            }
        }
    });
    futures::future::join_all(watches).await.into_iter().flatten().collect()
}

/// Restores the cluster's previous desired version and waits until its agents run the
/// version they ran before and it is Available; returns that version.
async fn roll_back(
    hub: &Client,
    name: &str,
    previous: &Previous,
    timeout: Duration,
    observer: Observer<'_>,
) -> Result<String, LifecycleError> {
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());
    let mut steps: Vec<StepRecord> = Vec::new();
    let restored = previous.desired.as_deref().map_or("the hub's default".to_string(), str::to_string);
    step(observer, &mut steps, name, &format!("rollback: desired version {restored} restored"), async {
        let Some(cluster) = clusters.get_opt(name).await.map_err(kube_error(format!("reading cluster {name}")))? else {
            return Err(LifecycleError::Failed(format!("cluster {name} is gone")));
        };
        // Another run that followed the same upgrade rolled it back already, or someone
        // asked for yet another version: that stands.
        if desired_version(&cluster) == previous.desired.as_deref() {
            return Ok(());
        }
        // A merge patch with null removes the annotation: the hub's default again. The
        // write holds only if the cluster is as read.
        let patch = json!({"metadata": {
            "resourceVersion": cluster.resource_version(),
            "annotations": {ANNOTATION_KLUSTERLET_VERSION: previous.desired, ANNOTATION_KLUSTERLET_VERSION_FROM: null},
        }});
        clusters
            .patch(name, &PatchParams::default(), &Patch::Merge(patch))
            .await
            .map_err(kube_error(format!("restoring the version of {name}")))?;
        Ok(())
    })
    .await?;
    let wanted = previous.running.clone();
    let version = wanted.clone().unwrap_or(restored);
    let what = format!("cluster {name} to run {version} again and be available");
    step(observer, &mut steps, name, &format!("rollback: agents run {version} again"), async {
        wait_for(clusters.clone(), name, &what, timeout, move |c: Option<&ManagedCluster>| {
            c.is_some_and(|c| c.is_available() && (wanted.is_none() || running_version(c) == wanted.as_deref()))
        })
        .await
        .map(|_| ())
    })
    .await?;
    Ok(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fleet(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("c{i}")).collect()
    }

    fn plan(n: usize, canary: usize, wave_size: &str) -> Vec<usize> {
        let rollout = Rollout {
            canary,
            wave_size: WaveSize::parse(wave_size).expect("wave size"),
            max_failures: 0,
            soak: Duration::ZERO,
            rollback: true,
        };
        waves(&fleet(n), &rollout).iter().map(Vec::len).collect()
    }

    fn stages_of(
        n: usize,
        canary: usize,
        wave_size: &str,
        soak: Duration,
    ) -> Vec<(std::ops::Range<usize>, usize, bool)> {
        let rollout = Rollout {
            canary,
            wave_size: WaveSize::parse(wave_size).expect("wave size"),
            max_failures: 0,
            soak,
            rollback: true,
        };
        stages(&waves(&fleet(n), &rollout), &rollout).into_iter().map(|s| (s.waves, s.at_once, s.soaked)).collect()
    }

    /// Upstream's progressive rollout keeps `maxConcurrency` clusters in progress, starting
    /// the next as one succeeds: a slow cluster holds its slot, not the clusters after it.
    #[test]
    fn without_a_soak_the_waves_after_the_canary_are_one_rolling_window_of_a_waves_size() {
        assert_eq!(stages_of(10, 1, "3", Duration::ZERO), [(0..1, 1, false), (1..4, 3, false)]);
        assert_eq!(stages_of(10, 0, "4", Duration::ZERO), [(0..3, 4, false)]);
        assert_eq!(stages_of(2, 5, "1", Duration::ZERO), [(0..1, 2, false)], "a canary of the whole fleet");
    }

    #[test]
    fn with_a_soak_each_wave_ends_before_the_next_begins() {
        let soak = Duration::from_secs(30);
        assert_eq!(stages_of(5, 1, "2", soak), [(0..1, 1, true), (1..2, 2, true), (2..3, 2, false)]);
    }

    #[test]
    fn a_canary_wave_comes_first_then_waves_of_the_size_asked() {
        assert_eq!(plan(10, 1, "3"), [1, 3, 3, 3]);
        assert_eq!(plan(10, 0, "4"), [4, 4, 2]);
        assert_eq!(plan(3, 5, "1"), [3], "a canary larger than the fleet is the fleet");
    }

    #[test]
    fn a_share_of_the_fleet_rounds_up_and_is_at_least_one_cluster() {
        assert_eq!(plan(20, 2, "25%"), [2, 5, 5, 5, 3]);
        assert_eq!(plan(3, 0, "10%"), [1, 1, 1]);
        assert_eq!(plan(4, 0, "100%"), [4]);
    }

    #[test]
    fn wave_sizes_are_counts_or_percentages() {
        assert_eq!(WaveSize::parse("3"), Ok(WaveSize::Count(NonZeroUsize::new(3).expect("3"))));
        assert_eq!(WaveSize::parse("25%"), Ok(WaveSize::Percent(25)));
        for bad in ["0", "0%", "101%", "x", "-1", "%"] {
            assert!(WaveSize::parse(bad).expect_err(bad).contains("invalid wave size"), "{bad}");
        }
    }

    fn cluster(desired: Option<&str>, from: Option<&str>, running: &str) -> ManagedCluster {
        let mut cluster = ManagedCluster::accepted("c1");
        let mut annotations = std::collections::BTreeMap::new();
        for (key, value) in [(ANNOTATION_KLUSTERLET_VERSION, desired), (ANNOTATION_KLUSTERLET_VERSION_FROM, from)] {
            if let Some(value) = value {
                annotations.insert(key.to_string(), value.to_string());
            }
        }
        cluster.metadata.annotations = Some(annotations);
        let claim = fleetctl_api::cluster::ManagedClusterClaim {
            name: fleetctl_api::names::VERSION_CLAIM.into(),
            value: running.into(),
        };
        cluster.status = Some(fleetctl_api::ManagedClusterStatus { cluster_claims: vec![claim], ..Default::default() });
        cluster
    }

    #[test]
    fn a_cluster_rolls_back_to_the_version_its_upgrade_replaced_whichever_run_finds_it_under_way() {
        let some = |v: &str| Some(v.to_string());
        let fresh = Previous::of(&cluster(Some("0.1.0"), None, "0.1.0"), "0.2.0");
        assert_eq!((fresh.desired, fresh.running), (some("0.1.0"), some("0.1.0")));
        let default = Previous::of(&cluster(None, None, "0.1.0"), "0.2.0");
        assert_eq!(default.desired, None, "the hub's default again");
        // A second run, or a rerun after a kill: the upgrade recorded what it replaced.
        let joined = Previous::of(&cluster(Some("0.2.0"), Some("0.1.0"), "0.1.0"), "0.2.0");
        assert_eq!(joined.desired, some("0.1.0"));
        let from_default = Previous::of(&cluster(Some("0.2.0"), Some(""), "0.1.0"), "0.2.0");
        assert_eq!(from_default.desired, None);
        // Recorded by an older fleetctl, without what it replaced: what the cluster runs.
        let old = Previous::of(&cluster(Some("0.2.0"), None, "0.1.0"), "0.2.0");
        assert_eq!(old.desired, some("0.1.0"));
        let done = Previous::of(&cluster(Some("0.2.0"), None, "0.2.0"), "0.2.0");
        assert_eq!(done.desired, some("0.2.0"), "upgraded already: nothing lost");
    }

    /// The deadline holds for the whole of a cluster's upgrade: even a hub that takes the
    /// request and never answers (no wait of the upgrade's own has started) ends it.
    #[tokio::test]
    async fn the_progress_deadline_bounds_the_whole_upgrade_of_a_cluster() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("listener");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let _silent = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((connection, _)) = listener.accept().await {
                held.push(connection);
            }
        });
        let hub = Client::try_from(kube::Config::new(url.parse().expect("url"))).expect("client");
        let deadline = Duration::from_millis(100);
        let options = UpgradeOptions::waiting("0.2.0", deadline);
        let error = upgrade_within_deadline(&hub, "c1", &options, &|_| {}).await.expect_err("past its deadline");
        assert!(matches!(&error, LifecycleError::Timeout { after, .. } if *after == deadline), "{error}");
        assert_eq!(
            error.to_string(),
            "timed out after 100ms waiting for cluster c1 to run 0.2.0 and be available (its progress deadline)"
        );
    }

    #[test]
    fn the_clusters_a_stopped_rollout_did_not_finish_are_those_of_its_waves_without_a_result() {
        let rollout = Rollout {
            canary: 1,
            wave_size: WaveSize::parse("2").expect("2"),
            max_failures: 0,
            soak: Duration::ZERO,
            rollback: true,
        };
        let mut done = RolloutResult::planned(&fleet(4), &rollout);
        assert_eq!(done.unfinished(), fleet(4));
        done.clusters.push(("c1".into(), Ok(Outcome::unchanged("c1", "running 0.2.0".into()))));
        done.clusters.push(("c3".into(), Err(LifecycleError::Failed("boom".into()))));
        assert_eq!(done.unfinished(), ["c2", "c4"]);
    }

    #[test]
    fn a_failed_cluster_says_whether_its_rollback_worked() {
        let error = || LifecycleError::Timeout { what: "c1 to run 0.2.0".into(), after: Duration::from_secs(1) };
        let rolled = failed(error(), Some(Ok("0.1.0".into())));
        assert_eq!(
            fleetctl_kube::errors::chain(&rolled),
            "upgrade failed and was rolled back to 0.1.0: timed out after 1s waiting for c1 to run 0.2.0"
        );
        let stuck = failed(error(), Some(Err(LifecycleError::Failed("hub gone".into()))));
        let text = fleetctl_kube::errors::chain(&stuck);
        assert!(text.contains("its rollback failed too (hub gone)"), "{text}");
        assert!(matches!(failed(error(), None), LifecycleError::Timeout { .. }));
    }
}
