//! Act II: record the desired klusterlet version; the hub re-renders the klusterlet
//! work, the work agent applies it, the operator rolls the agents, and the agents
//! report the version they run. Fleet-wide upgrades are rollouts (`super::rollout`).

use std::time::Duration;

use kube::Client;
use kube::api::{Api, Patch, PatchParams};
use serde_json::json;

use super::{LifecycleError, Observer, Outcome, refuse_if_leaving, step, wait_for};
use fleetctl_api::names::ANNOTATION_KLUSTERLET_VERSION;
use fleetctl_api::names::VERSION_CLAIM;
use fleetctl_api::{ManagedCluster, ManifestWork};
use fleetctl_kube::kube_error;

/// How to upgrade.
#[derive(Debug, Clone)]
pub struct UpgradeOptions {
    /// The klusterlet version (image tag) to run.
    pub version: String,
    /// Wait until the clusters run it.
    pub wait: bool,
    /// How long to wait per cluster.
    pub timeout: Duration,
}

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

/// The version a cluster's agents report running.
pub fn running_version(cluster: &ManagedCluster) -> Option<&str> {
    cluster.status.as_ref()?.cluster_claims.iter().find(|c| c.name == VERSION_CLAIM).map(|c| c.value.as_str())
}

/// Upgrades one cluster.
pub async fn upgrade(
    hub: &Client,
    name: &str,
    options: &UpgradeOptions,
    observer: Observer<'_>,
) -> Result<Outcome, LifecycleError> {
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());
    let Some(cluster) = clusters.get_opt(name).await.map_err(kube_error(format!("reading cluster {name}")))? else {
        return Err(LifecycleError::Refused(format!(
            "cluster {name} not found — list them with `fleetctl get clusters`"
        )));
    };
    refuse_if_leaving(name, &cluster)?;
    let mut steps = Vec::new();
    let version = options.version.clone();
    step(observer, &mut steps, name, "hub: desired version recorded", async {
        let patch = json!({"metadata": {"annotations": {ANNOTATION_KLUSTERLET_VERSION: version}}});
        clusters
            .patch(name, &PatchParams::default(), &Patch::Merge(patch))
            .await
            .map_err(kube_error(format!("recording the version of {name}")))?;
        Ok(())
    })
    .await?;
    if options.wait {
        let works: Api<ManifestWork> = Api::namespaced(hub.clone(), name);
        let image_suffix = format!("fleetctl:{}\"", options.version);
        let what = format!("work {name}/{name}-klusterlet to apply version {}", options.version);
        step(observer, &mut steps, name, "klusterlet work applied at its new generation", async {
            wait_for(works, &format!("{name}-klusterlet"), &what, options.timeout, move |w: Option<&ManifestWork>| {
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
