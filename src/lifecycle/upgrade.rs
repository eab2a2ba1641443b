//! Act II: record the desired klusterlet version; the hub re-renders the klusterlet
//! work, the work agent applies it, the operator rolls the agents, and the agents
//! report the version they run. Fleet-wide upgrades are rollouts (`super::rollout`).

use std::time::Duration;

use kube::Client;
use kube::api::{Api, Patch, PatchParams};
use serde_json::json;

use super::{DryRun, LifecycleError, Observer, Outcome, Progress, refuse_if_leaving, step, wait_for};
use fleetctl_api::names::VERSION_CLAIM;
use fleetctl_api::names::{
    ANNOTATION_KLUSTERLET_VERSION, ANNOTATION_KLUSTERLET_VERSION_FROM, ANNOTATION_OWN_KLUSTERLET,
};
use fleetctl_api::{ManagedCluster, ManifestWork};
use fleetctl_kube::kube_error;
use kube::ResourceExt;

/// How to upgrade.
#[derive(Debug, Clone)]
pub struct UpgradeOptions {
    /// The klusterlet version (image tag) to run.
    pub version: String,
    /// Wait until the clusters run it.
    pub wait: bool,
    /// How long to wait per cluster.
    pub timeout: Duration,
    /// Say the write instead of making it.
    pub dry_run: Option<DryRun>,
    /// Take over a klusterlet the cluster joined with by itself (see [`start`]).
    pub adopt_klusterlet: bool,
}

impl UpgradeOptions {
    /// An upgrade to `version` that waits up to `timeout` for it, adopting nothing.
    pub fn waiting(version: impl Into<String>, timeout: Duration) -> Self {
        Self { version: version.into(), wait: true, timeout, dry_run: None, adopt_klusterlet: false }
    }
}

/// How an upgrade of a cluster began.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// The cluster runs the version asked for and is asked to: nothing to do.
    Done,
    /// An upgrade to the version is under way — another run's, or one a stopped run began:
    /// this run follows it to its end rather than starting another.
    UnderWay,
    /// This run recorded the version.
    Recorded,
}

/// How many times the version is recorded again after another writer changed the cluster
/// in between (each time re-read).
const RECORD_TRIES: usize = 5;

/// Whether `version` is a release version: `1.2.3` or `v1.2.3`, with an optional
/// pre-release suffix (`-rc.1`).
pub fn valid_version(version: &str) -> bool {
    let core = version.strip_prefix('v').unwrap_or(version);
    let (numbers, suffix) = core.split_once('-').unwrap_or((core, ""));
    let parts: Vec<&str> = numbers.split('.').collect();
    parts.len() == 3
        && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        && suffix.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        && !(core.contains('-') && suffix.is_empty())
}

/// The version a cluster's agents report running: the image tag every agent pod runs (the
/// registration agent reads it from the pods, not from a Deployment's spec); several,
/// comma-separated, while they roll from one to another.
pub fn running_version(cluster: &ManagedCluster) -> Option<&str> {
    cluster.status.as_ref()?.cluster_claims.iter().find(|c| c.name == VERSION_CLAIM).map(|c| c.value.as_str())
}

/// The desired version recorded on a cluster (`None`: the hub's default).
pub fn desired_version(cluster: &ManagedCluster) -> Option<&str> {
    cluster.annotations().get(ANNOTATION_KLUSTERLET_VERSION).map(String::as_str)
}

/// The desired version an upgrade under way replaced (`Some(None)`: the hub's default), as
/// the upgrade recorded it beside the version it asked for.
pub fn replaced_version(cluster: &ManagedCluster) -> Option<Option<&str>> {
    let from = cluster.annotations().get(ANNOTATION_KLUSTERLET_VERSION_FROM)?;
    Some(Some(from.as_str()).filter(|v| !v.is_empty()))
}

/// How an upgrade to `version` starts on `cluster`, and the patch it writes if it records
/// the version: the version, and the one it replaces (empty: the hub's default), in one
/// write that holds only if nobody changed the cluster since it was read. `adopt` also hands
/// the cluster's klusterlet to the hub ([`ANNOTATION_OWN_KLUSTERLET`] `false`: the hub
/// imports a cluster that joined by itself, whatever its CSRs say).
pub fn start(cluster: &ManagedCluster, version: &str, adopt: bool) -> (Start, Option<serde_json::Value>) {
    let hand_over = adopt && cluster.annotations().get(ANNOTATION_OWN_KLUSTERLET).map(String::as_str) != Some("false");
    if desired_version(cluster) == Some(version) && !hand_over {
        let start = if running_version(cluster) == Some(version) { Start::Done } else { Start::UnderWay };
        return (start, None);
    }
    // An empty version replaced is the hub's default (no annotation), which a rollback restores.
    let from = desired_version(cluster).unwrap_or("");
    let mut annotations = json!({ANNOTATION_KLUSTERLET_VERSION: version, ANNOTATION_KLUSTERLET_VERSION_FROM: from});
    if hand_over {
        annotations[ANNOTATION_OWN_KLUSTERLET] = json!("false");
    }
    let patch = json!({"metadata": {"resourceVersion": cluster.resource_version(), "annotations": annotations}});
    (Start::Recorded, Some(patch))
}

/// Whether the cluster's agents are not fleetctl's: they have reported its status (the
/// Kubernetes version every registration agent reports) but no fleetctl version claim —
/// upstream's klusterlet, which ACM's import controller renders and `clusteradm join`
/// installs. The version annotation would move nothing there.
fn foreign_klusterlet(cluster: &ManagedCluster) -> bool {
    cluster.status.as_ref().is_some_and(|s| !s.version.kubernetes.is_empty()) && running_version(cluster).is_none()
}

/// Refuses, before any write, to upgrade a cluster whose klusterlet fleetctl does not run,
/// saying how its own hub upgrades it.
fn refuse_if_foreign(name: &str, cluster: &ManagedCluster) -> Result<(), LifecycleError> {
    if !foreign_klusterlet(cluster) {
        return Ok(());
    }
    Err(LifecycleError::Refused(format!(
        "cluster {name} runs a klusterlet that is not fleetctl's (it reports no {VERSION_CLAIM} claim), which a \
         fleetctl upgrade cannot move: on ACM its images follow the hub's import controller (REGISTRATION_OPERATOR_IMAGE, \
         REGISTRATION_IMAGE, WORK_IMAGE — upgrading ACM upgrades every klusterlet); on OCM run `clusteradm upgrade \
         klusterlet` against the cluster; on a fleetctl hub, `--adopt-klusterlet` has fleetctl's operator take it over"
    )))
}

/// Refuses, before any write, to adopt a foreign klusterlet the hub did not mark as one its
/// cluster joined with by itself ([`ANNOTATION_OWN_KLUSTERLET`]): only fleetctl's hub marks
/// them, and only its import controller follows the mark (ACM's renders upstream's klusterlet
/// whatever a ManagedCluster says).
fn refuse_unless_adoptable(name: &str, cluster: &ManagedCluster) -> Result<(), LifecycleError> {
    let marked = cluster.annotations().contains_key(ANNOTATION_OWN_KLUSTERLET);
    if marked || !foreign_klusterlet(cluster) {
        return Ok(());
    }
    Err(LifecycleError::Refused(format!(
        "cluster {name} runs a klusterlet that is not fleetctl's, and its hub did not mark it as joined by itself          ({ANNOTATION_OWN_KLUSTERLET}): only a fleetctl hub adopts a klusterlet — on ACM, upgrading ACM upgrades every          klusterlet; on OCM run `clusteradm upgrade klusterlet` against the cluster"
    )))
}

/// Refuses, before any write, an upgrade on a hub without an import controller (plain
/// OCM): nothing there renders the klusterlet a recorded version names.
pub async fn refuse_without_import_controller(hub: &Client) -> Result<(), LifecycleError> {
    if super::import::runs_import_controller(hub).await? {
        return Ok(());
    }
    Err(LifecycleError::Refused(
        "this hub runs no import controller (plain OCM), so nothing there renders the klusterlet of a new version: \
         detach the cluster and import it again with the fleetctl of the version wanted (its klusterlet is that \
         version's), or run `clusteradm upgrade klusterlet` against a cluster that runs upstream's"
            .into(),
    ))
}

/// Records `version` as the cluster's desired version unless it is already (then the run
/// follows the upgrade under way); returns how it began, and the cluster as read.
async fn record(
    clusters: &Api<ManagedCluster>,
    name: &str,
    version: &str,
    dry_run: Option<DryRun>,
    adopt: bool,
) -> Result<(Start, ManagedCluster), LifecycleError> {
    for _ in 0..RECORD_TRIES {
        let Some(cluster) = clusters.get_opt(name).await.map_err(kube_error(format!("reading cluster {name}")))? else {
            return Err(LifecycleError::Refused(format!(
                "cluster {name} not found — list them with `fleetctl get clusters`"
            )));
        };
        refuse_if_leaving(name, &cluster)?;
        match adopt {
            true => refuse_unless_adoptable(name, &cluster)?,
            false => refuse_if_foreign(name, &cluster)?,
        }
        let (start, patch) = start(&cluster, version, adopt);
        let Some(patch) = patch else { return Ok((start, cluster)) };
        if dry_run.is_some_and(|d| !d.sends()) {
            return Ok((start, cluster));
        }
        let params = match dry_run {
            Some(dry_run) => dry_run.patch_params(PatchParams::default()),
            None => PatchParams::default(),
        };
        match clusters.patch(name, &params, &Patch::Merge(patch)).await {
            Ok(_) => return Ok((start, cluster)),
            // Changed in between (another upgrade, say): read it again.
            Err(kube::Error::Api(status)) if status.code == 409 => continue,
            Err(e) => return Err(kube_error(format!("recording the version of {name}"))(e).into()),
        }
    }
    Err(LifecycleError::Failed(format!(
        "cluster {name} kept changing while its version was recorded ({RECORD_TRIES} tries): run the upgrade again"
    )))
}

/// Upgrades one cluster.
pub async fn upgrade(
    hub: &Client,
    name: &str,
    options: &UpgradeOptions,
    observer: Observer<'_>,
) -> Result<Outcome, LifecycleError> {
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());
    let mut steps = Vec::new();
    let version = options.version.as_str();
    let (started, cluster) = step(
        observer,
        &mut steps,
        name,
        "hub: desired version recorded",
        record(&clusters, name, version, options.dry_run, options.adopt_klusterlet),
    )
    .await?;
    if options.dry_run.is_some() {
        let was = desired_version(&cluster).unwrap_or("the hub's default");
        let (result, writes) = match started {
            Start::Recorded => (
                format!("would upgrade to {version}"),
                vec![format!(
                    "hub: annotate ManagedCluster {name} {ANNOTATION_KLUSTERLET_VERSION}={version} (was {was}); the \
                     hub then renders the klusterlet work with the new images"
                )],
            ),
            Start::Done => (format!("already running {version}: nothing to write"), Vec::new()),
            Start::UnderWay => (format!("an upgrade to {version} is under way: nothing to write"), Vec::new()),
        };
        return Ok(Outcome::dry_run(name, result, writes));
    }
    if started == Start::Done {
        return Ok(Outcome {
            cluster: name.to_string(),
            result: format!("already running {version}"),
            steps: Vec::new(),
            conditions: cluster.conditions().to_vec(),
            writes: Vec::new(),
        });
    }
    if started == Start::UnderWay {
        let message = format!("an upgrade of {name} to {version} is under way already: following it to its end");
        observer(Progress::Note { cluster: name.to_string(), message });
    }
    if options.wait {
        // The work that carries the klusterlet: on its hosting cluster for a hosted cluster.
        let (namespace, work) = cluster
            .klusterlet_work()
            .ok_or_else(|| LifecycleError::Failed(format!("the hub returned cluster {name} without a name")))?;
        let works: Api<ManifestWork> = Api::namespaced(hub.clone(), &namespace);
        let image_suffix = format!("fleetctl:{}\"", options.version);
        let what = format!("work {namespace}/{work} to apply version {}", options.version);
        step(observer, &mut steps, name, "klusterlet work applied at its new generation", async {
            wait_for(works, &work, &what, options.timeout, move |w: Option<&ManifestWork>| {
                w.is_some_and(|w| {
                    w.is_applied() && serde_json::to_string(&w.spec).is_ok_and(|s| s.contains(&image_suffix))
                })
            })
            .await
            .map(|_| ())
        })
        .await?;
        let wanted = options.version.clone();
        let what = format!("cluster {name} to report version {}", options.version);
        step(observer, &mut steps, name, "agents report the new version", async {
            wait_for(clusters.clone(), name, &what, options.timeout, move |c: Option<&ManagedCluster>| {
                c.is_some_and(|c| running_version(c) == Some(wanted.as_str()))
            })
            .await
            .map(|_| ())
        })
        .await?;
        let what = format!("cluster {name} to be available");
        step(observer, &mut steps, name, "cluster available", async {
            wait_for(clusters.clone(), name, &what, options.timeout, |c: Option<&ManagedCluster>| {
                c.is_some_and(|c| c.is_available())
            })
            .await
            .map(|_| ())
        })
        .await?;
    }
    let cluster = clusters.get(name).await.map_err(kube_error(format!("reading cluster {name}")))?;
    Ok(Outcome {
        cluster: name.to_string(),
        result: if options.wait {
            format!("running {}", options.version)
        } else {
            format!("asked to run {}", options.version)
        },
        steps,
        conditions: cluster.conditions().to_vec(),
        writes: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster(desired: Option<&str>, from: Option<&str>, running: &str) -> ManagedCluster {
        let mut cluster = ManagedCluster::accepted("c1");
        cluster.metadata.resource_version = Some("7".into());
        let mut annotations = std::collections::BTreeMap::new();
        if let Some(desired) = desired {
            annotations.insert(ANNOTATION_KLUSTERLET_VERSION.to_string(), desired.to_string());
        }
        if let Some(from) = from {
            annotations.insert(ANNOTATION_KLUSTERLET_VERSION_FROM.to_string(), from.to_string());
        }
        cluster.metadata.annotations = Some(annotations);
        let claim = fleetctl_api::cluster::ManagedClusterClaim { name: VERSION_CLAIM.into(), value: running.into() };
        cluster.status = Some(fleetctl_api::ManagedClusterStatus { cluster_claims: vec![claim], ..Default::default() });
        cluster
    }

    #[test]
    fn two_upgrades_of_one_cluster_to_one_version_are_one_upgrade() {
        // The first records the version and what it replaces, in one write that holds only
        // if nobody changed the cluster since it was read.
        let (first, patch) = start(&cluster(Some("0.1.0"), None, "0.1.0"), "0.2.0", false);
        assert_eq!(first, Start::Recorded);
        let patch = patch.expect("a write");
        assert_eq!(patch["metadata"]["resourceVersion"], "7");
        assert_eq!(patch["metadata"]["annotations"][ANNOTATION_KLUSTERLET_VERSION], "0.2.0");
        assert_eq!(patch["metadata"]["annotations"][ANNOTATION_KLUSTERLET_VERSION_FROM], "0.1.0");
        // The second (or a rerun after a kill) finds it under way and writes nothing.
        let under_way = cluster(Some("0.2.0"), Some("0.1.0"), "0.1.0");
        assert_eq!(start(&under_way, "0.2.0", false), (Start::UnderWay, None));
        assert_eq!(replaced_version(&under_way), Some(Some("0.1.0")), "what a rollback restores");
        // Once it runs there, there is nothing to do.
        assert_eq!(start(&cluster(Some("0.2.0"), Some("0.1.0"), "0.2.0"), "0.2.0", false), (Start::Done, None));
        // From the hub's default, the default is what it replaces.
        let (_, patch) = start(&cluster(None, None, "0.1.0"), "0.2.0", false);
        assert_eq!(patch.expect("a write")["metadata"]["annotations"][ANNOTATION_KLUSTERLET_VERSION_FROM], "");
    }

    #[test]
    fn adopting_hands_a_cluster_that_joined_by_itself_to_the_hub_with_the_version_even_when_already_desired() {
        let mut joined = cluster(Some("0.2.0"), None, "");
        joined.metadata.annotations.get_or_insert_default().insert(ANNOTATION_OWN_KLUSTERLET.into(), "true".into());
        let (started, patch) = start(&joined, "0.2.0", true);
        assert_eq!(started, Start::Recorded);
        let patch = patch.expect("a write");
        assert_eq!(patch["metadata"]["annotations"][ANNOTATION_OWN_KLUSTERLET], "false");
        assert_eq!(patch["metadata"]["annotations"][ANNOTATION_KLUSTERLET_VERSION], "0.2.0");
        // Once handed over, adopting again is an upgrade as any other.
        joined.metadata.annotations.get_or_insert_default().insert(ANNOTATION_OWN_KLUSTERLET.into(), "false".into());
        assert_eq!(start(&joined, "0.2.0", true), (Start::UnderWay, None));
        // Without --adopt-klusterlet nothing hands it over.
        let (_, patch) = start(&cluster(None, None, "0.1.0"), "0.2.0", false);
        assert!(patch.expect("a write")["metadata"]["annotations"].get(ANNOTATION_OWN_KLUSTERLET).is_none());
    }

    #[test]
    fn a_cluster_whose_agents_report_status_without_fleetctls_version_claim_is_refused_before_any_write() {
        // Upstream's registration agent: the Kubernetes version, no fleetctl claim.
        let mut upstream = ManagedCluster::accepted("c1");
        upstream.status = Some(fleetctl_api::ManagedClusterStatus {
            version: fleetctl_api::cluster::ManagedClusterVersion { kubernetes: "v1.32.0".into() },
            ..Default::default()
        });
        let refused = refuse_if_foreign("c1", &upstream).expect_err("refused");
        assert!(refused.to_string().contains("clusteradm upgrade klusterlet"), "{refused}");
        // fleetctl's agents, and a cluster whose agents have not reported yet, go ahead.
        assert!(refuse_if_foreign("c1", &cluster(None, None, "0.1.0")).is_ok());
        assert!(refuse_if_foreign("c1", &ManagedCluster::accepted("c1")).is_ok());
    }

    #[test]
    fn versions_are_release_tags() {
        for good in ["0.2.0", "v1.2.3", "1.2.3-rc.1", "v10.0.0-alpha-1"] {
            assert!(valid_version(good), "{good}");
        }
        for bad in ["", "1.2", "latest", "v1.2.x", "1.2.3-", "1.2.3+meta", "1..3"] {
            assert!(!valid_version(bad), "{bad}");
        }
    }
}
