//! Detach (Act III) on the hub, behind the import controller's finalizer: say what is
//! happening, let the agents remove themselves (addon works first, then the klusterlet
//! works), and once the cluster is no longer Available — at once when it was not
//! Available to begin with — force-remove what remains and delete the cluster's
//! namespace. The registration controller then takes the agent's rights away.

use fleetctl_api::conditions::{self as c, ANNOTATION_RETAIN_NAMESPACE, LABEL_CLUSTER_NAME};
use fleetctl_api::names::{
    ANNOTATION_CREATED_FOR_CLUSTER, LABEL_HOSTED_CLUSTER, bootstrap_role, bootstrap_service_account,
    hosted_klusterlet_work, import_secret, is_protected_namespace, klusterlet_crds_work, klusterlet_work,
};
use fleetctl_api::{KlusterletAddonConfig, ManagedCluster, ManagedClusterAddOn, ManifestWork};
use fleetctl_kube::reconcile::{delete, strip_finalizers};
use fleetctl_kube::{KubeError, kube_error, update_conditions};
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::core::v1::{Namespace, Secret, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, ListParams};
use kube::runtime::controller::Action;

use super::context::{Ctx, HubError, set};

/// What is left of a cluster on the hub.
struct Remaining {
    addons: Vec<String>,
    works: Vec<ManifestWork>,
    /// A hosted cluster's works in its hosting cluster's namespace: (namespace, name).
    hosted: Vec<(String, String)>,
}

impl Remaining {
    fn describe(&self) -> String {
        format!("{} addons and {} manifestworks remain", self.addons.len(), self.works.len() + self.hosted.len())
    }

    fn is_empty(&self) -> bool {
        self.addons.is_empty() && self.works.is_empty() && self.hosted.is_empty()
    }
}

async fn remaining(ctx: &Ctx, cluster: &str) -> Result<Remaining, HubError> {
    let addons = Api::<ManagedClusterAddOn>::namespaced(ctx.client.clone(), cluster)
        .list(&ListParams::default())
        .await
        .map_err(kube_error(format!("listing the addons of {cluster}")))?;
    let works = Api::<ManifestWork>::namespaced(ctx.client.clone(), cluster)
        .list(&ListParams::default())
        .await
        .map_err(kube_error(format!("listing the manifestworks of {cluster}")))?;
    let hosted = Api::<ManifestWork>::all(ctx.client.clone())
        .list(&ListParams::default().labels(&format!("{LABEL_HOSTED_CLUSTER}={cluster}")))
        .await
        .map_err(kube_error(format!("listing the hosted works of {cluster}")))?;
    Ok(Remaining {
        addons: addons.items.iter().map(|a| a.name_any()).collect(),
        works: works.items,
        hosted: hosted.items.iter().filter_map(|work| Some((work.namespace()?, work.name_any()))).collect(),
    })
}

/// Deletes the work `name` in `namespace`.
async fn delete_work(ctx: &Ctx, (namespace, name): &(String, String)) -> Result<(), KubeError> {
    let works: Api<ManifestWork> = Api::namespaced(ctx.client.clone(), namespace);
    delete(&works, name, &DeleteParams::background()).await
}

/// The detach reason: kept once chosen, so a normal detach does not turn "forced" when
/// the agent reports itself gone.
fn reason(cluster: &ManagedCluster) -> &'static str {
    match c::find(cluster.conditions(), c::MANAGED_CLUSTER_IMPORT_SUCCEEDED).map(|c| c.reason.as_str()) {
        Some(c::REASON_DETACHING) => c::REASON_DETACHING,
        Some(c::REASON_FORCE_DETACHING) => c::REASON_FORCE_DETACHING,
        _ if cluster.spec.hub_accepts_client && cluster.is_available() => c::REASON_DETACHING,
        _ => c::REASON_FORCE_DETACHING,
    }
}

/// One pass over a cluster being deleted: `Ok` once the hub side is clean (the
/// finalizer then goes), [`HubError::Waiting`] while the agents are removing themselves.
pub async fn reconcile(cluster: &ManagedCluster, ctx: &Ctx) -> Result<Action, HubError> {
    let name = cluster.name_any();
    let clusters: Api<ManagedCluster> = Api::all(ctx.client.clone());
    let reason = reason(cluster);
    let left = remaining(ctx, &name).await?;
    update_conditions(&clusters, cluster, |conditions| {
        let message =
            if reason == c::REASON_DETACHING { "Detaching the cluster" } else { "Force detaching the cluster" };
        let mut changed = set(conditions, c::MANAGED_CLUSTER_IMPORT_SUCCEEDED, c::FALSE, reason, message);
        changed |= if left.is_empty() {
            set(conditions, c::MANAGED_CLUSTER_DELETING, c::FALSE, c::REASON_NO_RESOURCE, "No resources remain")
        } else {
            set(conditions, c::MANAGED_CLUSTER_DELETING, c::TRUE, c::REASON_RESOURCE_REMAINING, &left.describe())
        };
        changed
    })
    .await?;
    if reason == c::REASON_DETACHING && cluster.is_available() {
        // The agents are there to remove themselves; every removal brings us back here.
        graceful_step(ctx, &name, &left).await?;
        return Err(HubError::Waiting(format!("detaching cluster {name}: {}", left.describe())));
    }
    force(ctx, cluster, &left).await?;
    // A hosted cluster's agents have left (or do not answer), but its Klusterlet on the hosting
    // cluster is still to be cleaned up there, with the managed cluster's kubeconfig: while the
    // hosting cluster's agent can do it, the hub waits for it.
    if !left.hosted.is_empty() && hosting_available(ctx, &left.hosted).await? {
        release_hosted(ctx, &name, &left.hosted).await?;
        return Err(HubError::Waiting(format!(
            "detaching cluster {name}: its klusterlet is being removed from its hosting cluster"
        )));
    }
    Ok(Action::await_change())
}

/// Whether the hosting cluster of these works (their namespace's cluster) is Available.
async fn hosting_available(ctx: &Ctx, hosted: &[(String, String)]) -> Result<bool, HubError> {
    let Some((hosting, _)) = hosted.first() else { return Ok(false) };
    let cluster = Api::<ManagedCluster>::all(ctx.client.clone())
        .get_opt(hosting)
        .await
        .map_err(kube_error(format!("reading the hosting cluster {hosting}")))?;
    Ok(cluster.is_some_and(|c| c.is_available()))
}

/// Deletes a hosted cluster's works on its hosting cluster, the one of its Klusterlet last
/// (its cleanup needs the kubeconfig the other carried).
async fn release_hosted(ctx: &Ctx, cluster: &str, hosted: &[(String, String)]) -> Result<(), HubError> {
    let klusterlet = hosted_klusterlet_work(cluster);
    let (last, first): (Vec<_>, Vec<_>) = hosted.iter().partition(|(_, name)| *name == klusterlet);
    for work in if first.is_empty() { last } else { first } {
        delete_work(ctx, work).await?;
    }
    Ok(())
}

/// The next step of a detach the agents take part in: addons, then other works, then
/// the klusterlet work, then the CRD work (whose removal removes the Klusterlet); for a
/// hosted cluster, once its own works are gone, its works on the hosting cluster — the one
/// of its Klusterlet last, whose cleanup needs the kubeconfig the other carried.
async fn graceful_step(ctx: &Ctx, cluster: &str, left: &Remaining) -> Result<(), HubError> {
    let addons: Api<ManagedClusterAddOn> = Api::namespaced(ctx.client.clone(), cluster);
    if !left.addons.is_empty() {
        for addon in &left.addons {
            delete(&addons, addon, &DeleteParams::background()).await?;
        }
        return Ok(());
    }
    if left.works.is_empty() {
        return release_hosted(ctx, cluster, &left.hosted).await;
    }
    let works_api: Api<ManifestWork> = Api::namespaced(ctx.client.clone(), cluster);
    let klusterlet = klusterlet_work(cluster);
    let crds = klusterlet_crds_work(cluster);
    let others: Vec<String> =
        left.works.iter().map(ResourceExt::name_any).filter(|n| *n != klusterlet && *n != crds).collect();
    let next = if !others.is_empty() {
        others
    } else if left.works.iter().any(|w| w.name_any() == klusterlet) {
        vec![klusterlet]
    } else {
        vec![crds]
    };
    for work in next {
        delete(&works_api, &work, &DeleteParams::background()).await?;
    }
    Ok(())
}

/// Removes everything of the cluster on the hub without waiting for agents (its agent's
/// rights and lease are the registration controller's to remove).
async fn force(ctx: &Ctx, cluster: &ManagedCluster, left: &Remaining) -> Result<(), HubError> {
    let name = cluster.name_any();
    let client = &ctx.client;
    let background = DeleteParams::background();
    let addons: Api<ManagedClusterAddOn> = Api::namespaced(client.clone(), &name);
    let works_api: Api<ManifestWork> = Api::namespaced(client.clone(), &name);
    let bootstrap_role = bootstrap_role(&name);
    let service_account = bootstrap_service_account(&name);
    let import_secret = import_secret(&name);
    let selector = format!("{LABEL_CLUSTER_NAME}={name}");
    let (csrs, cluster_roles, cluster_bindings) = (
        Api::<CertificateSigningRequest>::all(client.clone()),
        Api::<ClusterRole>::all(client.clone()),
        Api::<ClusterRoleBinding>::all(client.clone()),
    );
    let service_accounts = Api::<ServiceAccount>::namespaced(client.clone(), &name);
    let secrets = Api::<Secret>::namespaced(client.clone(), &name);
    let addon_configs = Api::<KlusterletAddonConfig>::namespaced(client.clone(), &name);
    // What remains of the cluster goes out together; its namespace last, once it is empty
    // of what the hub made there.
    futures::try_join!(
        futures::future::try_join_all(left.addons.iter().map(|addon| async {
            strip_finalizers(&addons, addon).await?;
            delete(&addons, addon, &background).await
        })),
        futures::future::try_join_all(left.works.iter().map(|work| async {
            strip_finalizers(&works_api, &work.name_any()).await?;
            delete(&works_api, &work.name_any(), &background).await
        })),
        // The cluster's CSRs, their certificates included, go with it.
        async {
            csrs.delete_collection(&background, &ListParams::default().labels(&selector))
                .await
                .map(drop)
                .map_err(kube_error(format!("deleting the CSRs of {name}")))
        },
        delete(&cluster_bindings, &bootstrap_role, &background),
        delete(&cluster_roles, &bootstrap_role, &background),
        delete(&service_accounts, &service_account, &background),
        delete(&secrets, &import_secret, &background),
        // The addon configuration goes with the cluster, also from a namespace that stays.
        delete(&addon_configs, &name, &background),
    )?;
    let namespaces = Api::<Namespace>::all(client.clone());
    let namespace = namespaces.get_opt(&name).await.map_err(kube_error(format!("reading namespace {name}")))?;
    if namespace.is_some_and(|ns| deletes_namespace(cluster, &ns)) {
        delete(&namespaces, &name, &background).await?;
    }
    Ok(())
}

/// Whether a detach deletes the cluster's namespace: only one the hub made for this very
/// cluster, never a protected one, and not when the cluster or the namespace asks to retain
/// it (the Namespace's annotation is the one ACM's import controller reads).
pub fn deletes_namespace(cluster: &ManagedCluster, namespace: &Namespace) -> bool {
    let name = cluster.name_any();
    let made_for_it = namespace.annotations().get(ANNOTATION_CREATED_FOR_CLUSTER) == Some(&name);
    let retained = cluster.annotations().contains_key(ANNOTATION_RETAIN_NAMESPACE)
        || namespace.annotations().contains_key(ANNOTATION_RETAIN_NAMESPACE);
    made_for_it && !is_protected_namespace(&name) && !retained
}

#[cfg(test)]
mod tests {
    use fleetctl_kube::objects::{MetaExt, labels, meta};

    use super::*;

    #[test]
    fn detach_deletes_only_a_namespace_the_hub_made_for_that_cluster() {
        let cluster = |name: &str| ManagedCluster::accepted(name);
        let namespace = |name: &str, made_for: Option<&str>| {
            let meta = meta(name);
            let meta = match made_for {
                Some(c) => meta.with_annotations(labels([(ANNOTATION_CREATED_FOR_CLUSTER, c)])),
                None => meta,
            };
            fleetctl_kube::objects::namespace(meta)
        };
        assert!(deletes_namespace(&cluster("c1"), &namespace("c1", Some("c1"))));
        assert!(!deletes_namespace(&cluster("c1"), &namespace("c1", None)), "a namespace that was there before");
        assert!(!deletes_namespace(&cluster("c1"), &namespace("c1", Some("c2"))), "made for another cluster");
        assert!(!deletes_namespace(&cluster("default"), &namespace("default", Some("default"))));
        assert!(!deletes_namespace(&cluster("kube-x"), &namespace("kube-x", Some("kube-x"))));
        let mut retained = cluster("c1");
        retained.metadata.annotations = Some(labels([(ANNOTATION_RETAIN_NAMESPACE, "")]));
        assert!(!deletes_namespace(&retained, &namespace("c1", Some("c1"))));
        // As ACM's import controller reads it: on the Namespace.
        let mut kept = namespace("c1", Some("c1"));
        kept.annotations_mut().insert(ANNOTATION_RETAIN_NAMESPACE.into(), "true".into());
        assert!(!deletes_namespace(&cluster("c1"), &kept));
    }
}
