//! A fleet-wide upgrade as a progressive rollout, in the manner of OCM's rollout strategies
//! (`cluster.open-cluster-management.io/v1alpha1` `RolloutConfig`): a canary wave first,
//! which tolerates no failure (as upstream's mandatory decision groups); then waves of a
//! fixed size or a share of the fleet; a wave counts as done once its clusters run the new
//! version and stayed Available for the soak time (upstream's `minSuccessTime`); a cluster
//! that does not get there within the progress deadline failed; once more clusters failed
//! than `--max-failures` allows, the rollout stops. A cluster that failed is rolled back:
//! its previous desired version is restored and waited for.

use std::num::NonZeroUsize;
use std::time::Duration;

use kube::Client;
use kube::ResourceExt;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::wait::await_condition;
use serde::Serialize;
use serde_json::json;

use super::upgrade::{UpgradeOptions, running_version, upgrade};
use super::{LifecycleError, Observer, Outcome, Progress, StepRecord, step, wait_for};
use fleetctl_api::ManagedCluster;
use fleetctl_api::names::ANNOTATION_KLUSTERLET_VERSION;
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
}

/// What a cluster had before the upgrade, to roll it back to.
#[derive(Debug, Clone)]
struct Previous {
    /// The desired version recorded on the hub (`None`: the hub's default).
    desired: Option<String>,
    /// The version its agents reported.
    running: Option<String>,
}

async fn previous(clusters: &Api<ManagedCluster>, name: &str) -> Result<Previous, LifecycleError> {
    let Some(cluster) = clusters.get_opt(name).await.map_err(kube_error(format!("reading cluster {name}")))? else {
        return Err(LifecycleError::Refused(format!(
            "cluster {name} not found — list them with `fleetctl get clusters`"
        )));
    };
    Ok(Previous {
        desired: cluster.annotations().get(ANNOTATION_KLUSTERLET_VERSION).cloned(),
        running: running_version(&cluster).map(str::to_string),
    })
}

/// Upgrades the clusters of `done` (as [`RolloutResult::planned`]) wave by wave, recording
/// each result there as it ends; `options.timeout` is each cluster's progress deadline,
/// `rollback_timeout` bounds each rollback. Upgrading no cluster at all is refused.
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
    let api: Api<ManagedCluster> = Api::all(hub.clone());
    let waves = &done.waves;
    let mut failures = 0;
    for (index, wave) in waves.iter().enumerate() {
        let canary = index == 0 && rollout.canary > 0;
        let number = index + 1;
        let kind = if canary { "canary wave" } else { "wave" };
        observer(Progress::Fleet { message: format!("{kind} {number} of {}: {}", waves.len(), wave.join(", ")) });
        let upgrades = wave.iter().map(|name| {
            let api = &api;
            async move {
                let result = match previous(api, name).await {
                    Ok(previous) => match upgrade(hub, name, options, observer).await {
                        Ok(outcome) => Ok((outcome, previous)),
                        Err(error) => Err((error, Some(previous))),
                    },
                    Err(error) => Err((error, None)),
                };
                (name.clone(), result)
            }
        });
        let mut ended = futures::future::join_all(upgrades).await;
        let last = number == waves.len();
        if !rollout.soak.is_zero() && !last {
            let upgraded: Vec<String> = ended.iter().filter(|(_, r)| r.is_ok()).map(|(name, _)| name.clone()).collect();
            observer(Progress::Fleet { message: format!("{kind} {number}: soaking for {:?}", rollout.soak) });
            let fell = soak(&api, &upgraded, rollout.soak).await;
            for (name, result) in &mut ended {
                if !fell.contains(name) {
                    continue;
                }
                if let Ok((_, previous)) = result {
                    let error = LifecycleError::Failed(format!(
                        "cluster {name} did not stay available for the soak time ({:?})",
                        rollout.soak
                    ));
                    *result = Err((error, Some(previous.clone())));
                }
            }
        }
        for (name, result) in ended {
            let result = match result {
                Ok((outcome, _)) => Ok(outcome),
                Err((error, previous)) => {
                    failures += 1;
                    let undone = match previous.filter(|_| rollout.rollback) {
                        Some(previous) => Some(roll_back(hub, &name, &previous, rollback_timeout, observer).await),
                        None => None,
                    };
                    Err(failed(error, undone))
                }
            };
            done.clusters.push((name, result));
        }
        let mut stopped = None;
        if canary && failures > 0 {
            stopped = Some(format!("the canary wave had {failures} failure(s), and a canary tolerates none"));
        } else if failures > rollout.max_failures {
            stopped = Some(format!("{failures} cluster(s) failed, more than --max-failures {}", rollout.max_failures));
        }
        if let Some(why) = &stopped {
            observer(Progress::Fleet { message: format!("rollout stopped after wave {number}: {why}") });
            for name in waves.iter().skip(number).flatten() {
                let result = format!("not upgraded: the rollout stopped after wave {number}");
                done.clusters.push((name.clone(), Ok(Outcome::unchanged(name, result))));
            }
            done.stopped = stopped;
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
        // A merge patch with null removes the annotation: the hub's default again.
        let patch = json!({"metadata": {"annotations": {ANNOTATION_KLUSTERLET_VERSION: previous.desired}}});
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
