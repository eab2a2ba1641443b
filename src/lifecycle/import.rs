//! Act I, driven from outside: preflight, the hub objects, the import secret, the
//! manifests applied to the target, and the wait until the cluster is Available.
//! Every step is idempotent, so a rerun after an interruption finishes the job.

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, ListParams, Patch, PatchParams};
use kube::{Client, ResourceExt};

use super::{LifecycleError, Observer, Outcome, Progress, refuse_if_leaving, step, valid_cluster_name, wait_for};
use fleetctl_api::addon::KlusterletAddonAgentConfigSpec;
use fleetctl_api::names::{AGENT_NAMESPACE, BOOTSTRAP_SECRET, KLUSTERLET};
use fleetctl_api::{KlusterletAddonConfig, KlusterletAddonConfigSpec, ManagedCluster, ManifestWork};
use fleetctl_kube::kubeconfig::{self, secret_text};
use fleetctl_kube::{ApplyOptions, FIELD_MANAGER, apply_yaml, kube_error};

/// The addons `--addons` may name: those fleetctl has agents for.
pub const ADDONS: [&str; 3] = ["cert-policy-controller", "iam-policy-controller", "search-collector"];

/// What to import and how.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The cluster's name on the hub.
    pub name: String,
    /// Labels of the ManagedCluster.
    pub labels: BTreeMap<String, String>,
    /// Addons to enable.
    pub addons: Vec<String>,
    /// Wait until the cluster is Available (else stop once the manifests are applied).
    pub wait: bool,
    /// Stop after the import secret and return the command to paste on the target.
    pub print_command: bool,
    /// Import even if the target is joined to another hub.
    pub force: bool,
    /// How long to wait.
    pub timeout: Duration,
}

/// How an import ended.
#[derive(Debug)]
pub enum Imported {
    /// It was imported and Available already; nothing was done.
    Already(Outcome),
    /// The command a person runs on the target.
    Command(String),
    /// Imported now.
    Done(Outcome),
}

/// The target's view of its klusterlet: the cluster it joins as, and the hub its bootstrap
/// kubeconfig names (`None` when there is no bootstrap kubeconfig, or none that names a hub).
async fn target_membership(target: &Client) -> Result<Option<(String, Option<String>)>, LifecycleError> {
    let klusterlets: Api<fleetctl_api::Klusterlet> = Api::all(target.clone());
    let klusterlet = match klusterlets.get_opt(KLUSTERLET).await {
        Ok(k) => k,
        // No Klusterlet CRD: never imported anywhere.
        Err(kube::Error::Api(status)) if status.code == 404 => None,
        Err(e) => return Err(kube_error("reading the target's klusterlet")(e).into()),
    };
    let Some(klusterlet) = klusterlet else { return Ok(None) };
    let secrets: Api<Secret> = Api::namespaced(target.clone(), AGENT_NAMESPACE);
    let secret = secrets
        .get_opt(BOOTSTRAP_SECRET)
        .await
        .map_err(kube_error(format!("reading the target's secret {AGENT_NAMESPACE}/{BOOTSTRAP_SECRET}")))?;
    let hub = secret.and_then(|secret| bootstrap_hub(&secret));
    Ok(Some((klusterlet.spec.cluster_name.clone(), hub)))
}

/// The hub a bootstrap secret points at. A secret whose kubeconfig cannot be read names no
/// hub: the membership check then goes by the cluster name alone (and says so in the log).
fn bootstrap_hub(secret: &Secret) -> Option<String> {
    let text = secret_text(secret).remove("kubeconfig")?;
    let parsed = match kube::config::Kubeconfig::from_yaml(&text) {
        Ok(parsed) => parsed,
        Err(e) => {
            tracing::warn!("the target's bootstrap kubeconfig is not a kubeconfig: {e}");
            return None;
        }
    };
    match kubeconfig::endpoint(&parsed) {
        Ok(endpoint) => Some(endpoint.server),
        Err(e) => {
            tracing::warn!("the target's bootstrap kubeconfig names no hub: {e}");
            None
        }
    }
}

/// Checks everything that can be checked without changing anything.
async fn preflight(
    hub: &Client,
    hub_url: &str,
    target: Option<&Client>,
    options: &ImportOptions,
) -> Result<Option<ManagedCluster>, LifecycleError> {
    if !valid_cluster_name(&options.name) {
        return Err(LifecycleError::Refused(format!(
            "invalid cluster name {:?}: use lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters",
            options.name
        )));
    }
    if let Some(bad) = options.addons.iter().find(|a| !ADDONS.contains(&a.as_str())) {
        return Err(LifecycleError::Refused(format!("unknown addon {bad:?}: choose from {}", ADDONS.join(", "))));
    }
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());
    // A list answers 404 when the hub does not serve ManagedClusters (a get would read
    // as "no such cluster").
    match clusters.list(&ListParams::default().limit(1)).await {
        Ok(_) => {}
        Err(kube::Error::Api(status)) if status.code == 404 => return Err(LifecycleError::NotInitialised),
        Err(source) => return Err(LifecycleError::NotAnswering { cluster: "hub", source }),
    }
    let existing = clusters
        .get_opt(&options.name)
        .await
        .map_err(|source| LifecycleError::NotAnswering { cluster: "hub", source })?;
    if let Some(cluster) = &existing {
        refuse_if_leaving(&options.name, cluster)?;
    }
    if let Some(target) = target {
        target
            .apiserver_version()
            .await
            .map_err(|source| LifecycleError::NotAnswering { cluster: "target cluster", source })?;
        if let Some((cluster, hub)) = target_membership(target).await? {
            let same_hub = hub.as_deref().is_none_or(|hub| hub.trim_end_matches('/') == hub_url.trim_end_matches('/'));
            let same = cluster == options.name && same_hub;
            if !same && !options.force {
                return Err(LifecycleError::Refused(format!(
                    "the target is already joined as cluster {cluster:?} to the hub at {}: detach it there first, or pass --force",
                    hub.as_deref().unwrap_or("an unknown address")
                )));
            }
        }
    }
    Ok(existing)
}

fn addon_config(name: &str, addons: &[String]) -> KlusterletAddonConfig {
    let on = |addon: &str| {
        if addons.iter().any(|a| a == addon) {
            KlusterletAddonAgentConfigSpec::enabled()
        } else {
            KlusterletAddonAgentConfigSpec::default()
        }
    };
    let mut config = KlusterletAddonConfig::new(
        name,
        KlusterletAddonConfigSpec {
            cluster_name: name.to_string(),
            cluster_namespace: name.to_string(),
            search_collector: on("search-collector"),
            policy_controller: on("config-policy-controller"),
            application_manager: on("application-manager"),
            cert_policy_controller: on("cert-policy-controller"),
            iam_policy_controller: on("iam-policy-controller"),
            ..KlusterletAddonConfigSpec::default()
        },
    );
    config.metadata.namespace = Some(name.to_string());
    config
}

/// Writes the namespace, the ManagedCluster and its KlusterletAddonConfig.
async fn hub_objects(hub: &Client, options: &ImportOptions) -> Result<(), LifecycleError> {
    let name = &options.name;
    let ssa = PatchParams::apply(FIELD_MANAGER).force();
    let namespace = Namespace {
        metadata: ObjectMeta { name: Some(name.clone()), ..ObjectMeta::default() },
        ..Namespace::default()
    };
    Api::<Namespace>::all(hub.clone())
        .patch(name, &ssa, &Patch::Apply(&namespace))
        .await
        .map_err(kube_error(format!("creating namespace {name}")))?;
    let mut cluster = ManagedCluster::accepted(name);
    cluster.metadata.labels = Some(options.labels.clone());
    Api::<ManagedCluster>::all(hub.clone())
        .patch(name, &ssa, &Patch::Apply(&cluster))
        .await
        .map_err(kube_error(format!("writing ManagedCluster {name}")))?;
    let config = addon_config(name, &options.addons);
    Api::<KlusterletAddonConfig>::namespaced(hub.clone(), name)
        .patch(name, &ssa, &Patch::Apply(&config))
        .await
        .map_err(kube_error(format!("writing KlusterletAddonConfig {name}/{name}")))?;
    Ok(())
}

/// The import secret's `crds.yaml` and `import.yaml`, once the hub has rendered it.
async fn import_manifests(hub: &Client, name: &str, timeout: Duration) -> Result<(String, String), LifecycleError> {
    let secrets: Api<Secret> = Api::namespaced(hub.clone(), name);
    let secret_name = format!("{name}-import");
    let what = format!("secret {name}/{secret_name} (is the hub controller running?)");
    let secret = wait_for(secrets, &secret_name, &what, timeout, |s: Option<&Secret>| {
        s.and_then(|s| s.data.as_ref()).is_some_and(|d| d.contains_key("import.yaml") && d.contains_key("crds.yaml"))
    })
    .await?
    .ok_or_else(|| LifecycleError::Failed(format!("{what} vanished")))?;
    let mut data = secret_text(&secret);
    let mut take = |key: &str| data.remove(key).ok_or_else(|| LifecycleError::Failed(format!("{what}: no {key}")));
    Ok((take("crds.yaml")?, take("import.yaml")?))
}

/// The one-line command a person pastes on the target (as the ACM console builds it).
pub fn paste_command(crds: &str, import: &str) -> String {
    format!(
        "echo \"{}\" | base64 -d | kubectl apply -f - && sleep 2 && echo \"{}\" | base64 -d | kubectl apply -f -",
        BASE64.encode(crds),
        BASE64.encode(import)
    )
}

/// Whether the cluster has done Act I.
pub fn imported(cluster: &ManagedCluster) -> bool {
    cluster.is_hub_accepted() && cluster.is_joined() && cluster.is_available()
}

/// Runs Act I for one cluster.
pub async fn import(
    hub: &Client,
    hub_url: &str,
    target: Option<&Client>,
    options: &ImportOptions,
    observer: Observer<'_>,
) -> Result<Imported, LifecycleError> {
    let name = options.name.as_str();
    let existing = preflight(hub, hub_url, target.filter(|_| !options.print_command), options).await?;
    if let Some(cluster) = existing.filter(imported) {
        observer(Progress::Note {
            cluster: name.to_string(),
            message: format!("cluster {name} is already imported and available"),
        });
        return Ok(Imported::Already(Outcome {
            cluster: name.to_string(),
            result: "already imported".into(),
            steps: Vec::new(),
            conditions: cluster.conditions().to_vec(),
        }));
    }
    let mut steps = Vec::new();
    step(
        observer,
        &mut steps,
        name,
        "hub: namespace, ManagedCluster, KlusterletAddonConfig",
        hub_objects(hub, options),
    )
    .await?;
    let (crds, manifests) =
        step(observer, &mut steps, name, "hub: import secret rendered", import_manifests(hub, name, options.timeout))
            .await?;
    if options.print_command {
        return Ok(Imported::Command(paste_command(&crds, &manifests)));
    }
    let target = target
        .ok_or_else(|| LifecycleError::Usage("the target cluster is needed to apply the import manifests".into()))?;
    let apply_options = ApplyOptions { crd_timeout: options.timeout, ..ApplyOptions::default() };
    step(observer, &mut steps, name, "target: klusterlet CRD established", async {
        apply_yaml(target, &crds, &apply_options).await.map_err(LifecycleError::from)
    })
    .await?;
    step(observer, &mut steps, name, "target: import manifests applied", async {
        apply_yaml(target, &manifests, &apply_options).await.map_err(LifecycleError::from)
    })
    .await?;
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());
    if options.wait {
        let joined = format!("cluster {name} to join");
        step(observer, &mut steps, name, "cluster joined", async {
            wait_for(clusters.clone(), name, &joined, options.timeout, |o: Option<&ManagedCluster>| {
                o.is_some_and(|c| c.is_hub_accepted() && c.is_joined())
            })
            .await
            .map(|_| ())
        })
        .await?;
        let available = format!("cluster {name} to be available");
        step(observer, &mut steps, name, "cluster available", async {
            wait_for(clusters.clone(), name, &available, options.timeout, |o: Option<&ManagedCluster>| {
                o.is_some_and(imported)
            })
            .await
            .map(|_| ())
        })
        .await?;
        step(observer, &mut steps, name, "klusterlet works applied", wait_works(hub, name, options.timeout)).await?;
        if !options.addons.is_empty() {
            step(
                observer,
                &mut steps,
                name,
                "addons available",
                wait_addons(hub, name, &options.addons, options.timeout),
            )
            .await?;
        }
    }
    let cluster = clusters.get(name).await.map_err(kube_error(format!("reading cluster {name}")))?;
    Ok(Imported::Done(Outcome {
        cluster: name.to_string(),
        result: if options.wait { "imported".into() } else { "manifests applied".into() },
        steps,
        conditions: cluster.conditions().to_vec(),
    }))
}

async fn wait_works(hub: &Client, name: &str, timeout: Duration) -> Result<(), LifecycleError> {
    let works: Api<ManifestWork> = Api::namespaced(hub.clone(), name);
    for work in [format!("{name}-klusterlet-crds"), format!("{name}-klusterlet")] {
        let what = format!("work {name}/{work} to be applied");
        wait_for(works.clone(), &work, &what, timeout, |w: Option<&ManifestWork>| {
            w.is_some_and(ManifestWork::is_applied)
        })
        .await?;
    }
    Ok(())
}

async fn wait_addons(hub: &Client, name: &str, addons: &[String], timeout: Duration) -> Result<(), LifecycleError> {
    let api: Api<fleetctl_api::ManagedClusterAddOn> = Api::namespaced(hub.clone(), name);
    for addon in addons {
        let what = format!("addon {name}/{addon} to be available");
        wait_for(api.clone(), addon, &what, timeout, |a: Option<&fleetctl_api::ManagedClusterAddOn>| {
            a.is_some_and(|a| a.is_available())
        })
        .await?;
    }
    Ok(())
}

/// The clusters matching a label selector (for commands that take `-l`).
pub async fn select(hub: &Client, selector: &str) -> Result<Vec<String>, LifecycleError> {
    let list = match Api::<ManagedCluster>::all(hub.clone()).list(&ListParams::default().labels(selector)).await {
        Ok(list) => list,
        Err(kube::Error::Api(status)) if status.code == 404 => return Err(LifecycleError::NotInitialised),
        Err(e) => return Err(kube_error(format!("listing clusters matching {selector:?}"))(e).into()),
    };
    Ok(list.items.iter().map(|c| c.name_any()).collect())
}
