//! Moving a managed cluster to another hub (`fleetctl move`) without touching what runs on
//! it. In order, each step idempotent so a rerun finishes an interrupted move:
//!
//! 1. the new hub gets the cluster (its labels, cluster set, deploy mode, fleet and desired
//!    version), its KlusterletAddonConfig and its ManifestWorks — under their names, so the
//!    work agent finds its records of them and adopts what it applied rather than re-creating
//!    it — and renders the cluster's bootstrap kubeconfig;
//! 2. the old hub hands the klusterlet that kubeconfig through its klusterlet works (the
//!    cluster's `fleetctl.io/moving-to` and the Secret `<c>-move`), which from then on orphan
//!    what they applied: the registration agent bootstraps with the new hub, as upstream's
//!    agent switches hubs when its bootstrap kubeconfig names another;
//! 3. the cluster joins the new hub and its klusterlet works apply there;
//! 4. the old hub forgets the cluster by force — nothing listens to it any more, so nothing
//!    on the cluster is touched.

use std::collections::BTreeMap;
use std::time::Duration;

use fleetctl_api::conditions::{ANNOTATION_KLUSTERLET_DEPLOY_MODE, LABEL_IMPORT_SECRET, LABEL_KLUSTERLET_WORKS};
use fleetctl_api::names::{
    ANNOTATION_KLUSTERLET_VERSION, ANNOTATION_MOVING_TO, ANNOTATION_OWN_KLUSTERLET, LABEL_HOSTED_CLUSTER,
    VERSION_CLAIM, klusterlet_crds_work, klusterlet_work, move_secret,
};
use fleetctl_api::operator::InstallMode;
use fleetctl_api::{KlusterletAddonConfig, ManagedCluster, ManifestWork};
use fleetctl_kube::objects::{self, MetaExt, labels, namespaced_meta};
use fleetctl_kube::{FIELD_MANAGER, kube_error};
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams};
use kube::{Client, Resource, ResourceExt};
use serde_json::json;

use super::detach::force_hub;
use super::import::{
    ImportOptions, Imported, check_label, fleet_of, import, imported, rendered_bootstrap, runs_import_controller,
};
use super::upgrade::running_version;
use super::{DryRun, LifecycleError, Observer, Outcome, refuse_if_leaving, step, wait_for};

/// What to move and how.
#[derive(Debug, Clone)]
pub struct MoveOptions {
    /// The cluster's name (the same on both hubs).
    pub name: String,
    /// How long each cluster may take.
    pub timeout: Duration,
    /// Say the writes instead of making them.
    pub dry_run: Option<DryRun>,
}

/// The two hubs of a move.
#[derive(Clone, Copy)]
pub struct Hubs<'a> {
    /// The hub the clusters leave.
    pub from: &'a Client,
    /// The hub they join.
    pub to: &'a Client,
    /// The new hub's URL, as the klusterlets will reach it (its import secret's).
    pub to_url: &'a str,
}

/// Moves one cluster from one hub to the other.
pub async fn move_cluster(
    hubs: Hubs<'_>,
    options: &MoveOptions,
    observer: Observer<'_>,
) -> Result<Outcome, LifecycleError> {
    let name = options.name.as_str();
    let from: Api<ManagedCluster> = Api::all(hubs.from.clone());
    let to: Api<ManagedCluster> = Api::all(hubs.to.clone());
    let source = from.get_opt(name).await.map_err(kube_error(format!("reading cluster {name} on the old hub")))?;
    let arrived = to.get_opt(name).await.map_err(kube_error(format!("reading cluster {name} on the new hub")))?;
    let Some(source) = source else {
        return match arrived.filter(imported) {
            Some(cluster) => Ok(Outcome {
                conditions: cluster.conditions().to_vec(),
                ..Outcome::unchanged(name, "already on the new hub".into())
            }),
            None => Err(LifecycleError::Refused(format!(
                "cluster {name} is on neither hub — list the old hub's with `fleetctl get clusters`"
            ))),
        };
    };
    let moving = source.annotations().contains_key(ANNOTATION_MOVING_TO);
    let uid = source
        .uid()
        .ok_or_else(|| LifecycleError::Failed(format!("the old hub returned cluster {name} without a uid")))?;
    let mut steps = Vec::new();
    // Interrupted while the old hub forgot it: finish that.
    if source.metadata.deletion_timestamp.is_some() && moving && arrived.as_ref().is_some_and(imported) {
        step(observer, &mut steps, name, "old hub: cluster forgotten", force_hub(&from, name, &uid, options.timeout))
            .await?;
        return moved(&to, name, steps).await;
    }
    refuse_unmovable(name, &source, moving)?;
    if !runs_import_controller(hubs.to).await? {
        return Err(LifecycleError::Refused(format!(
            "the new hub runs no import controller (plain OCM): it would not import cluster {name} — run `fleetctl \
             hub install` there first"
        )));
    }
    if options.dry_run.is_some() {
        return Ok(Outcome::dry_run(name, "would move".into(), writes(name, hubs.to_url)));
    }
    let copied = copy(hubs, &source, options);
    let kubeconfig = step(observer, &mut steps, name, "new hub: cluster, addons and works", copied).await?;
    let handed = hand_over(hubs.from, &source, hubs.to_url, kubeconfig);
    step(observer, &mut steps, name, "old hub: klusterlet handed the new hub", handed).await?;
    let joined = arrival(hubs.to, name, options.timeout);
    step(observer, &mut steps, name, "new hub: cluster available, klusterlet applied", joined).await?;
    let forgotten = async {
        delete_source(&from, name).await?;
        force_hub(&from, name, &uid, options.timeout).await
    };
    step(observer, &mut steps, name, "old hub: cluster forgotten", forgotten).await?;
    moved(&to, name, steps).await
}

/// The outcome of a cluster now on the new hub.
async fn moved(to: &Api<ManagedCluster>, name: &str, steps: Vec<super::StepRecord>) -> Result<Outcome, LifecycleError> {
    let cluster = to.get(name).await.map_err(kube_error(format!("reading cluster {name} on the new hub")))?;
    Ok(Outcome {
        cluster: name.to_string(),
        result: "moved".into(),
        steps,
        conditions: cluster.conditions().to_vec(),
        writes: Vec::new(),
    })
}

/// Refuses, before any write, a cluster this move cannot take along.
fn refuse_unmovable(name: &str, source: &ManagedCluster, moving: bool) -> Result<(), LifecycleError> {
    refuse_if_leaving(name, source)?;
    let refuse = |why: String| Err(LifecycleError::Refused(format!("cluster {name} is not moved: {why}")));
    if source.is_hosted() {
        return refuse(
            "it runs in Hosted mode, its agents on another managed cluster of this hub: detach it, then import it into \
             the new hub with --hosting-cluster"
                .into(),
        );
    }
    if source.annotations().get(ANNOTATION_OWN_KLUSTERLET).is_some_and(|v| v == "true") {
        return refuse(
            "its klusterlet is its own (it joined by itself), which this hub does not render: join it to the new hub \
             as it joined this one"
                .into(),
        );
    }
    if !moving && running_version(source).is_none() {
        return refuse(format!(
            "its klusterlet is not fleetctl's (it reports no {VERSION_CLAIM} claim): a move hands it the new hub \
             through fleetctl's import controller and klusterlet — on ACM, move clusters with ACM's own tools; \
             else detach it here and import it into the new hub"
        ));
    }
    // Once the klusterlet was handed the new hub, it leaves this one: no longer Available is expected.
    if !moving && !(imported(source)) {
        return refuse(
            "it is not available here, so its klusterlet cannot be handed the new hub — see `fleetctl describe \
             cluster`"
                .into(),
        );
    }
    Ok(())
}

/// What a move writes, for `--dry-run`.
fn writes(name: &str, to_url: &str) -> Vec<String> {
    vec![
        format!(
            "new hub ({to_url}): apply Namespace {name}, ManagedCluster {name} (labels, desired version), its \
             KlusterletAddonConfig and ManifestWorks as on the old hub"
        ),
        format!(
            "old hub: apply Secret {name}/{} (the new hub's bootstrap kubeconfig) and annotate ManagedCluster {name} \
             {ANNOTATION_MOVING_TO}; its klusterlet works then carry that kubeconfig and orphan what they applied",
            move_secret(name)
        ),
        format!("old hub: once the cluster is available on the new hub, delete ManagedCluster {name} by force"),
    ]
}

/// Step 1: the cluster, its addons and works on the new hub; returns the bootstrap
/// kubeconfig the new hub rendered for it.
async fn copy(hubs: Hubs<'_>, source: &ManagedCluster, options: &MoveOptions) -> Result<String, LifecycleError> {
    let name = options.name.as_str();
    let labels: BTreeMap<String, String> = source
        .labels()
        .iter()
        .filter(|(k, v)| check_label(k, v).is_ok())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mode = match source.annotations().get(ANNOTATION_KLUSTERLET_DEPLOY_MODE).map(String::as_str) {
        Some("Singleton") => InstallMode::Singleton,
        _ => InstallMode::Default,
    };
    let import_options = ImportOptions {
        labels,
        print_command: true,
        wait: false,
        klusterlet_mode: mode,
        fleet: fleet_of(source).map(str::to_string),
        ..ImportOptions::new(name, options.timeout)
    };
    let quiet = |_| {};
    match import(hubs.to, hubs.to_url, None, &import_options, &quiet).await? {
        Imported::Command(_) | Imported::Already(_) | Imported::Done(_) => {}
    }
    let apply = PatchParams::apply(FIELD_MANAGER).force();
    if let Some(version) = source.annotations().get(ANNOTATION_KLUSTERLET_VERSION) {
        let patch = json!({"metadata": {"annotations": {ANNOTATION_KLUSTERLET_VERSION: version}}});
        Api::<ManagedCluster>::all(hubs.to.clone())
            .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map_err(kube_error(format!("recording the desired version of {name} on the new hub")))?;
    }
    let addons = Api::<KlusterletAddonConfig>::namespaced(hubs.from.clone(), name)
        .get_opt(name)
        .await
        .map_err(kube_error(format!("reading the KlusterletAddonConfig of {name}")))?;
    if let Some(addons) = addons {
        let mut copy = KlusterletAddonConfig::new(name, addons.spec.clone());
        copy.metadata.namespace = Some(name.to_string());
        Api::<KlusterletAddonConfig>::namespaced(hubs.to.clone(), name)
            .patch(name, &apply, &Patch::Apply(&copy))
            .await
            .map_err(kube_error(format!("writing the KlusterletAddonConfig of {name} on the new hub")))?;
    }
    let works = Api::<ManifestWork>::namespaced(hubs.from.clone(), name)
        .list(&ListParams::default())
        .await
        .map_err(kube_error(format!("listing the works of {name}")))?;
    let to_works: Api<ManifestWork> = Api::namespaced(hubs.to.clone(), name);
    for work in works.items.iter().filter(|w| carried(w, name)) {
        let copy = copied_work(work, name);
        to_works
            .patch(&copy.name_any(), &apply, &Patch::Apply(&copy))
            .await
            .map_err(kube_error(format!("writing work {name}/{} on the new hub", copy.name_any())))?;
    }
    rendered_bootstrap(hubs.to, name, options.timeout).await
}

/// Whether a work of the old hub goes along: not the klusterlet's (each hub renders its own)
/// and not one being deleted.
fn carried(work: &ManifestWork, cluster: &str) -> bool {
    let name = work.name_any();
    !work.labels().contains_key(LABEL_KLUSTERLET_WORKS)
        && !work.labels().contains_key(LABEL_HOSTED_CLUSTER)
        && name != klusterlet_work(cluster)
        && name != klusterlet_crds_work(cluster)
        && work.metadata.deletion_timestamp.is_none()
}

/// A work as the new hub gets it: its name, labels, annotations and spec; not its owners
/// (objects of the old hub), nor anything the old hub's server set.
fn copied_work(work: &ManifestWork, cluster: &str) -> ManifestWork {
    let mut copy = ManifestWork::new(&work.name_any(), work.spec.clone());
    copy.metadata.namespace = Some(cluster.to_string());
    copy.metadata.labels = work.metadata.labels.clone();
    copy.metadata.annotations = work.metadata.annotations.clone().map(|mut annotations| {
        annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
        annotations
    });
    copy
}

/// Step 2: the old hub is told where the cluster goes and with which kubeconfig; its import
/// controller hands that to the klusterlet.
async fn hand_over(
    from: &Client,
    source: &ManagedCluster,
    to_url: &str,
    kubeconfig: String,
) -> Result<(), LifecycleError> {
    let name = source.name_any();
    write_hub_secret(from, source, &move_secret(&name), kubeconfig, BTreeMap::new()).await?;
    let patch = json!({"metadata": {"annotations": {ANNOTATION_MOVING_TO: to_url}}});
    Api::<ManagedCluster>::all(from.clone())
        .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(kube_error(format!("marking cluster {name} as moving on the old hub")))?;
    Ok(())
}

/// Writes, in `cluster`'s namespace on `hub`, a Secret `name` holding another hub's bootstrap
/// `kubeconfig` for the cluster, as the hub's import controller reads it (labelled as an
/// import secret, which it watches) and owned by the cluster (it goes with it).
pub(super) async fn write_hub_secret(
    hub: &Client,
    cluster: &ManagedCluster,
    name: &str,
    kubeconfig: String,
    annotations: BTreeMap<String, String>,
) -> Result<(), LifecycleError> {
    let namespace = cluster.name_any();
    let owner = cluster
        .controller_owner_ref(&())
        .ok_or_else(|| LifecycleError::Failed(format!("the hub returned cluster {namespace} without a uid")))?;
    let mut meta = namespaced_meta(&namespace, name).with_labels(labels([(LABEL_IMPORT_SECRET, "")]));
    meta.owner_references = Some(vec![owner]);
    meta.annotations = Some(annotations).filter(|a| !a.is_empty());
    let secret = objects::opaque_secret(meta, BTreeMap::from([("kubeconfig".to_string(), kubeconfig)]));
    let apply = PatchParams::apply(FIELD_MANAGER).force();
    Api::<Secret>::namespaced(hub.clone(), &namespace)
        .patch(name, &apply, &Patch::Apply(&secret))
        .await
        .map_err(kube_error(format!("writing secret {namespace}/{name}")))?;
    Ok(())
}

/// Step 3: the cluster has joined the new hub, is Available there, and its klusterlet works
/// are applied (the work agent runs against the new hub).
async fn arrival(to: &Client, name: &str, timeout: Duration) -> Result<(), LifecycleError> {
    let clusters: Api<ManagedCluster> = Api::all(to.clone());
    let what = format!("cluster {name} to be available on the new hub");
    wait_for(clusters, name, &what, timeout, |c: Option<&ManagedCluster>| c.is_some_and(imported)).await?;
    let works: Api<ManifestWork> = Api::namespaced(to.clone(), name);
    for work in [klusterlet_crds_work(name), klusterlet_work(name)] {
        let what = format!("work {name}/{work} to be applied on the new hub");
        wait_for(works.clone(), &work, &what, timeout, |w: Option<&ManifestWork>| {
            w.is_some_and(ManifestWork::is_applied)
        })
        .await?;
    }
    Ok(())
}

/// Deletes the cluster on the old hub (its import controller's finalizer holds it until
/// the hub has cleaned up).
async fn delete_source(from: &Api<ManagedCluster>, name: &str) -> Result<(), LifecycleError> {
    match from.delete(name, &DeleteParams::background()).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
        Err(e) => Err(kube_error(format!("deleting cluster {name} on the old hub"))(e).into()),
    }
}
