//! A hub's fleet as a file (`fleetctl hub backup`), and that file restored onto another hub
//! (`fleetctl hub restore`): the managed clusters (labels, cluster set, deploy mode, fleet,
//! desired version), cluster sets and their bindings, placements, addon configurations, the
//! clusters' ManifestWorks and the ManifestWorkReplicaSets — as their owners wrote them, not
//! what the hub's servers and controllers added (uids, status, owners, finalizers). No Secret
//! of the hub is read: no private key, certificate, bootstrap or import token is in the file.
//! A ManifestWork's own payload is its user's: one that carries a Secret is written only when
//! asked ([`BackupOptions::work_secrets`]).
//!
//! Restoring applies every object server-side (a rerun changes nothing), each cluster with the
//! namespace the hub makes for it, marked as made for it, and handed to the new hub's import
//! controller: a cluster its old hub had imported is imported again, one that had joined by
//! itself keeps its own klusterlet.

use std::collections::BTreeMap;
use std::time::Duration;

use fleetctl_api::conditions::LABEL_KLUSTERLET_WORKS;
use fleetctl_api::names::{
    ANNOTATION_CREATED_FOR_CLUSTER, ANNOTATION_MOVING_TO, ANNOTATION_OWN_KLUSTERLET, ANNOTATION_RECOVER_AFTER,
    ANNOTATION_RECOVERY_HUB, LABEL_HOSTED_CLUSTER, recovery_secret,
};
use fleetctl_api::{
    KlusterletAddonConfig, ManagedCluster, ManagedClusterSet, ManagedClusterSetBinding, ManifestWork,
    ManifestWorkReplicaSet, Placement,
};
use fleetctl_kube::kube_error;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::{ClusterResourceScope, NamespaceResourceScope};
use kube::api::{Api, ListParams, Patch, PatchParams};
use kube::{Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::LifecycleError;
use super::import::{rendered_bootstrap, runs_import_controller};
use super::moving::write_hub_secret;

/// The `apiVersion` and `kind` of a backup file.
pub const API_VERSION: &str = "fleetctl.io/v1alpha1";
/// See [`API_VERSION`].
pub const KIND: &str = "HubBackup";
/// Annotations the hub or a tool writes that a restored object must not carry.
const DROPPED_ANNOTATIONS: [&str; 3] =
    ["kubectl.kubernetes.io/last-applied-configuration", ANNOTATION_MOVING_TO, ANNOTATION_RECOVERY_HUB];
/// The field manager of what a restore writes: another than `fleetctl import`'s, so that
/// importing a restored cluster again keeps the labels the restore gave it.
const RESTORE_MANAGER: &str = "fleetctl-restore";
/// Writes to the new hub at once.
const PARALLEL: usize = 16;

/// A hub's fleet.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Backup {
    /// [`API_VERSION`].
    pub api_version: String,
    /// [`KIND`].
    pub kind: String,
    /// The URL of the hub it was taken from.
    pub hub: String,
    /// When it was taken (RFC 3339).
    pub taken: String,
    /// ManagedClusterSets.
    #[serde(default)]
    pub cluster_sets: Vec<ManagedClusterSet>,
    /// ManagedClusters.
    #[serde(default)]
    pub clusters: Vec<ManagedCluster>,
    /// ManagedClusterSetBindings.
    #[serde(default)]
    pub cluster_set_bindings: Vec<ManagedClusterSetBinding>,
    /// Placements (their decisions are the new hub's to make).
    #[serde(default)]
    pub placements: Vec<Placement>,
    /// KlusterletAddonConfigs.
    #[serde(default)]
    pub addon_configs: Vec<KlusterletAddonConfig>,
    /// The clusters' ManifestWorks but the klusterlet's (each hub renders its own).
    #[serde(default)]
    pub works: Vec<ManifestWork>,
    /// ManifestWorkReplicaSets.
    #[serde(default)]
    pub work_replica_sets: Vec<ManifestWorkReplicaSet>,
}

/// How to take a backup.
#[derive(Debug, Clone, Default)]
pub struct BackupOptions {
    /// Write ManifestWorks that carry Secrets too (their data in the file as on the hub).
    pub work_secrets: bool,
}

/// How many objects of each kind a restore applied.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Restored(pub BTreeMap<&'static str, usize>);

/// Reads the fleet of `hub`.
pub async fn backup(hub: &Client, hub_url: &str, options: &BackupOptions) -> Result<Backup, LifecycleError> {
    let works: Vec<ManifestWork> =
        all::<ManifestWork>(hub, "manifestworks").await?.into_iter().filter(carried).collect();
    let with_secrets: Vec<String> = works
        .iter()
        .filter(|w| w.spec.workload.manifests.iter().any(|m| m.0["kind"] == "Secret"))
        .map(|w| w.namespace().map_or_else(|| w.name_any(), |namespace| format!("{namespace}/{}", w.name_any())))
        .collect();
    if !with_secrets.is_empty() && !options.work_secrets {
        return Err(LifecycleError::Refused(format!(
            "ManifestWorks {} carry Secrets, whose data the file would hold as the hub does: pass \
             --include-work-secrets to write them (and keep the file as you keep those Secrets)",
            with_secrets.join(", ")
        )));
    }
    Ok(Backup {
        api_version: API_VERSION.into(),
        kind: KIND.into(),
        hub: hub_url.into(),
        taken: jiff::Timestamp::now().to_string(),
        cluster_sets: cleaned(all(hub, "managedclustersets").await?)?,
        clusters: cleaned(all(hub, "managedclusters").await?)?,
        cluster_set_bindings: cleaned(all(hub, "managedclustersetbindings").await?)?,
        placements: cleaned(all(hub, "placements").await?)?,
        addon_configs: cleaned(all(hub, "klusterletaddonconfigs").await?)?,
        works: cleaned(works)?,
        work_replica_sets: cleaned(all(hub, "manifestworkreplicasets").await?)?,
    })
}

/// Every object of a kind, in pages.
async fn all<K>(hub: &Client, plural: &'static str) -> Result<Vec<K>, LifecycleError>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + std::fmt::Debug,
{
    let api: Api<K> = Api::all(hub.clone());
    let mut objects = Vec::new();
    let mut params = ListParams::default().limit(500);
    loop {
        let page = api.list(&params).await.map_err(super::hub_read("list", plural))?;
        objects.extend(page.items);
        match page.metadata.continue_ {
            Some(token) if !token.is_empty() => params = params.continue_token(&token),
            _ => return Ok(objects),
        }
    }
}

/// Whether a work goes into the backup: not a klusterlet's, nor one being deleted.
fn carried(work: &ManifestWork) -> bool {
    !work.labels().contains_key(LABEL_KLUSTERLET_WORKS)
        && !work.labels().contains_key(LABEL_HOSTED_CLUSTER)
        && work.metadata.deletion_timestamp.is_none()
}

/// Objects as their owners wrote them: name, namespace, labels, annotations and spec.
fn cleaned<K: Resource + Serialize + DeserializeOwned>(objects: Vec<K>) -> Result<Vec<K>, LifecycleError> {
    objects.into_iter().map(clean).collect()
}

fn clean<K: Resource + Serialize + DeserializeOwned>(mut object: K) -> Result<K, LifecycleError> {
    let meta = object.meta_mut();
    let annotations = meta.annotations.take().map(|mut annotations| {
        annotations.retain(|key, _| !DROPPED_ANNOTATIONS.contains(&key.as_str()));
        annotations
    });
    *meta = ObjectMeta {
        name: meta.name.take(),
        namespace: meta.namespace.take(),
        labels: meta.labels.take(),
        annotations: annotations.filter(|a| !a.is_empty()),
        ..ObjectMeta::default()
    };
    let mut value = serde_json::to_value(&object).map_err(|e| LifecycleError::Failed(format!("encoding: {e}")))?;
    if let Some(fields) = value.as_object_mut() {
        fields.remove("status");
    }
    serde_json::from_value(value).map_err(|e| LifecycleError::Failed(format!("decoding: {e}")))
}

/// Checks that a file is a backup this version reads.
pub fn check(backup: &Backup) -> Result<(), LifecycleError> {
    if backup.api_version != API_VERSION || backup.kind != KIND {
        return Err(LifecycleError::Usage(format!(
            "the file is a {}/{}, not a {API_VERSION} {KIND}: give a file `fleetctl hub backup` wrote",
            backup.api_version, backup.kind
        )));
    }
    Ok(())
}

/// Restores `backup` onto `hub`.
pub async fn restore(hub: &Client, backup: &Backup) -> Result<Restored, LifecycleError> {
    check(backup)?;
    if !runs_import_controller(hub).await? {
        return Err(LifecycleError::Refused(
            "this hub runs no import controller: run `fleetctl hub install` on it before restoring".into(),
        ));
    }
    let mut restored = Restored::default();
    restored.0.insert("managedclustersets", apply_all(&backup.cluster_sets, cluster_scoped(hub)).await?);
    let namespaces: Vec<Namespace> = backup.clusters.iter().map(|c| cluster_namespace(&c.name_any())).collect();
    apply_namespaces(hub, &namespaces).await?;
    let clusters: Vec<ManagedCluster> = backup.clusters.iter().map(handed_to_import).collect();
    restored.0.insert("managedclusters", apply_all(&clusters, cluster_scoped(hub)).await?);
    // The namespaces of bindings and placements are the user's: made if missing, never marked.
    let mut others: Vec<String> = backup.cluster_set_bindings.iter().filter_map(ResourceExt::namespace).collect();
    others.extend(backup.placements.iter().filter_map(ResourceExt::namespace));
    others.extend(backup.work_replica_sets.iter().filter_map(ResourceExt::namespace));
    others.sort();
    others.dedup();
    let plain: Vec<Namespace> = others.iter().map(|name| plain_namespace(name)).collect();
    apply_namespaces(hub, &plain).await?;
    restored.0.insert("managedclustersetbindings", apply_all(&backup.cluster_set_bindings, namespaced(hub)).await?);
    restored.0.insert("placements", apply_all(&backup.placements, namespaced(hub)).await?);
    restored.0.insert("klusterletaddonconfigs", apply_all(&backup.addon_configs, namespaced(hub)).await?);
    restored.0.insert("manifestworks", apply_all(&backup.works, namespaced(hub)).await?);
    restored.0.insert("manifestworkreplicasets", apply_all(&backup.work_replica_sets, namespaced(hub)).await?);
    Ok(restored)
}

/// Makes `recovery` the recovery hub of the clusters of `backup` that `hub` imported: the
/// backup restored onto it (a standby: its clusters accepted, waiting), then each cluster's
/// bootstrap kubeconfig there handed to `hub`, whose klusterlet works carry it to the cluster.
/// Their agents turn to it once `hub` has not answered for `recover_after`. Returns how many
/// clusters have it.
pub async fn designate_recovery_hub(
    hub: &Client,
    recovery: &Client,
    recovery_url: &str,
    backup: &Backup,
    recover_after: &str,
    timeout: Duration,
) -> Result<usize, LifecycleError> {
    restore(recovery, backup).await?;
    let imported: Vec<&ManagedCluster> = backup
        .clusters
        .iter()
        .filter(|c| !c.is_hosted() && c.annotations().get(ANNOTATION_OWN_KLUSTERLET).is_none_or(|own| own != "true"))
        .collect();
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());
    futures::stream::iter(imported)
        .map(|backed_up| {
            let clusters = clusters.clone();
            async move {
                let name = backed_up.name_any();
                let kubeconfig = rendered_bootstrap(recovery, &name, timeout).await?;
                // The live cluster owns the Secret, so it goes with it.
                let live = clusters.get(&name).await.map_err(kube_error(format!("reading cluster {name}")))?;
                let annotations = BTreeMap::from([(ANNOTATION_RECOVER_AFTER.to_string(), recover_after.to_string())]);
                write_hub_secret(hub, &live, &recovery_secret(&name), kubeconfig, annotations).await?;
                // The hub reads the Secret of a cluster that names a recovery hub only.
                let patch = serde_json::json!({"metadata": {"annotations": {ANNOTATION_RECOVERY_HUB: recovery_url}}});
                clusters
                    .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
                    .await
                    .map(drop)
                    .map_err(|e| LifecycleError::from(kube_error(format!("naming the recovery hub of {name}"))(e)))
            }
        })
        .buffer_unordered(PARALLEL)
        .try_collect::<Vec<()>>()
        .await
        .map(|handed| handed.len())
}

/// A cluster as the new hub's import controller is to take it: accepted; one its old hub
/// imported is imported again (`own-klusterlet: false`, whoever its CSRs name).
fn handed_to_import(cluster: &ManagedCluster) -> ManagedCluster {
    let mut cluster = cluster.clone();
    cluster.spec.hub_accepts_client = true;
    let own = cluster.annotations().get(ANNOTATION_OWN_KLUSTERLET).is_some_and(|v| v == "true");
    cluster.annotations_mut().insert(ANNOTATION_OWN_KLUSTERLET.into(), own.to_string());
    cluster
}

/// A cluster's namespace, marked as made for it (detach then deletes it), as import makes it.
fn cluster_namespace(name: &str) -> Namespace {
    let mut namespace = plain_namespace(name);
    namespace.metadata.annotations = Some(BTreeMap::from([(ANNOTATION_CREATED_FOR_CLUSTER.into(), name.into())]));
    namespace
}

fn plain_namespace(name: &str) -> Namespace {
    Namespace { metadata: ObjectMeta { name: Some(name.into()), ..ObjectMeta::default() }, ..Namespace::default() }
}

/// Makes the namespaces that do not exist (one that does is left as it is).
async fn apply_namespaces(hub: &Client, namespaces: &[Namespace]) -> Result<(), LifecycleError> {
    let api: Api<Namespace> = Api::all(hub.clone());
    futures::stream::iter(namespaces)
        .map(|namespace| {
            let api = api.clone();
            async move {
                let name = namespace.name_any();
                if api.get_opt(&name).await.map_err(kube_error(format!("reading namespace {name}")))?.is_some() {
                    return Ok(());
                }
                let apply = PatchParams::apply(RESTORE_MANAGER);
                api.patch(&name, &apply, &Patch::Apply(namespace))
                    .await
                    .map(drop)
                    .map_err(|e| LifecycleError::from(kube_error(format!("writing namespace {name}"))(e)))
            }
        })
        .buffer_unordered(PARALLEL)
        .try_collect::<Vec<()>>()
        .await
        .map(drop)
}

/// Applies each object server-side through the API `api_of` gives it, [`PARALLEL`] at a
/// time; returns how many.
async fn apply_all<K>(
    objects: &[K],
    api_of: impl Fn(&K) -> Result<Api<K>, LifecycleError>,
) -> Result<usize, LifecycleError>
where
    K: Resource<DynamicType = ()> + Clone + Serialize + DeserializeOwned + std::fmt::Debug,
{
    let apply = PatchParams::apply(RESTORE_MANAGER).force();
    let writes = objects.iter().map(|object| Ok::<_, LifecycleError>((api_of(object)?, object)));
    futures::stream::iter(writes.collect::<Result<Vec<_>, _>>()?)
        .map(|(api, object)| {
            let apply = apply.clone();
            async move {
                let name = object.name_any();
                api.patch(&name, &apply, &Patch::Apply(object))
                    .await
                    .map(drop)
                    .map_err(|e| LifecycleError::from(kube_error(format!("writing {} {name}", K::kind(&())))(e)))
            }
        })
        .buffer_unordered(PARALLEL)
        .try_collect::<Vec<()>>()
        .await
        .map(|written| written.len())
}

/// The API of cluster-scoped objects.
fn cluster_scoped<K>(hub: &Client) -> impl Fn(&K) -> Result<Api<K>, LifecycleError>
where
    K: Resource<DynamicType = (), Scope = ClusterResourceScope>,
{
    move |_| Ok(Api::all(hub.clone()))
}

/// The API of a namespaced object's namespace (which a backup file must name).
fn namespaced<K>(hub: &Client) -> impl Fn(&K) -> Result<Api<K>, LifecycleError>
where
    K: Resource<DynamicType = (), Scope = NamespaceResourceScope>,
{
    move |object| {
        let namespace = object.namespace().ok_or_else(|| {
            LifecycleError::Usage(format!("{} {} names no namespace in the file", K::kind(&()), object.name_any()))
        })?;
        Ok(Api::namespaced(hub.clone(), &namespace))
    }
}

#[cfg(test)]
mod tests {
    use fleetctl_api::conditions::{self as c, MANAGED_CLUSTER_IMPORT_SUCCEEDED};
    use fleetctl_api::work::Manifest;
    use serde_json::json;

    use super::*;

    #[test]
    fn a_backed_up_object_keeps_what_its_owner_wrote_and_nothing_a_server_added() {
        let mut cluster = ManagedCluster::accepted("c1");
        cluster.metadata.uid = Some("u".into());
        cluster.metadata.resource_version = Some("7".into());
        cluster.metadata.finalizers = Some(vec!["cluster.open-cluster-management.io/api-resource-cleanup".into()]);
        cluster.metadata.labels = Some(BTreeMap::from([("env".into(), "prod".into())]));
        cluster.metadata.annotations = Some(BTreeMap::from([
            ("fleetctl.io/klusterlet-version".into(), "0.2.0".into()),
            (ANNOTATION_MOVING_TO.into(), "https://hub2".into()),
        ]));
        let condition = c::new_condition(MANAGED_CLUSTER_IMPORT_SUCCEEDED, c::TRUE, "Imported", "");
        cluster.status = Some(fleetctl_api::ManagedClusterStatus { conditions: vec![condition], ..Default::default() });
        let clean = clean(cluster).expect("clean");
        let value = serde_json::to_value(&clean).expect("json");
        assert_eq!(
            value["metadata"],
            json!({"name": "c1", "labels": {"env": "prod"}, "annotations": {"fleetctl.io/klusterlet-version": "0.2.0"}})
        );
        assert!(value.get("status").is_none(), "{value}");
        assert_eq!(value["spec"]["hubAcceptsClient"], true);
    }

    #[test]
    fn the_klusterlets_works_stay_behind_and_a_restored_cluster_is_imported_unless_it_keeps_its_own_klusterlet() {
        let mut klusterlet = ManifestWork::for_cluster("c1", "c1-klusterlet", Vec::new());
        klusterlet.metadata.labels = Some(BTreeMap::from([(LABEL_KLUSTERLET_WORKS.into(), "true".into())]));
        let user = ManifestWork::for_cluster("c1", "app", vec![Manifest(json!({"kind": "ConfigMap"}))]);
        assert!(!carried(&klusterlet) && carried(&user));
        let imported = handed_to_import(&ManagedCluster::accepted("c1"));
        assert_eq!(imported.annotations()[ANNOTATION_OWN_KLUSTERLET], "false");
        let mut joined = ManagedCluster::accepted("c2");
        joined.metadata.annotations = Some(BTreeMap::from([(ANNOTATION_OWN_KLUSTERLET.into(), "true".into())]));
        assert_eq!(handed_to_import(&joined).annotations()[ANNOTATION_OWN_KLUSTERLET], "true");
    }

    #[test]
    fn only_a_hub_backup_of_this_version_is_restored() {
        let wrong = Backup { api_version: "v1".into(), kind: "List".into(), ..Backup::default() };
        assert!(matches!(check(&wrong), Err(LifecycleError::Usage(why)) if why.contains("fleetctl.io/v1alpha1")));
        let right = Backup { api_version: API_VERSION.into(), kind: KIND.into(), ..Backup::default() };
        assert!(check(&right).is_ok());
    }
}
