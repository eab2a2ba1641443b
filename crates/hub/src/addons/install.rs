//! The addons' install strategies, as upstream's addon manager applies them: a
//! ClusterManagementAddOn whose `installStrategy` is `Placements` gets its ManagedClusterAddOn
//! (named after the addon) in the namespace of every cluster that the PlacementDecisions of
//! its Placements name, controlled by it; a cluster no Placement names any more loses it.
//! `Manual` leaves the addon's ManagedClusterAddOns to whoever writes them (for fleetctl's
//! addons, the KlusterletAddonConfig). What an addon's ManagedClusterAddOn brings onto the
//! cluster is the addon's business (fleetctl's three: [`super`]).
//!
//! Where upstream deletes every ManagedClusterAddOn of the addon on a cluster no Placement
//! names — one written by hand too — this deletes only those it made (controlled by the
//! ClusterManagementAddOn): the hub deletes only what it created. A cluster being deleted gets
//! none (its addons go with it).

use std::collections::BTreeSet;
use std::sync::Arc;

use fleetctl_api::addon::v1alpha1::InstallStrategyType;
use fleetctl_api::addon_management::ClusterManagementAddOn;
use fleetctl_api::placement::{PLACEMENT_LABEL, PlacementDecision};
use fleetctl_api::{ManagedCluster, ManagedClusterAddOn};
use fleetctl_kube::{controller, kube_error};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Api, DeleteParams, PostParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::runtime::watcher;
use kube::{Resource, ResourceExt};

use crate::context::{Ctx, HubError};
use crate::watches::{Followed, Listed, known, stored};

/// The name the controller's metrics and logs go by.
pub const CONTROLLER: &str = "addon-install";

/// What a pass reads.
struct Stores {
    clusters: Store<ManagedCluster>,
    addons: Store<ManagedClusterAddOn>,
    decisions: Store<PlacementDecision>,
}

/// Runs the controller until the returned future is dropped.
pub async fn controller(ctx: Ctx, clusters: Followed) {
    let client = ctx.client.clone();
    let (addons, addon_changes) = stored(Api::<ManagedClusterAddOn>::all(client.clone()), watcher::Config::default());
    let (decisions, decision_changes) =
        stored(Api::<PlacementDecision>::all(client.clone()), watcher::Config::default().labels(PLACEMENT_LABEL));
    let controller = Controller::new(Api::<ClusterManagementAddOn>::all(client), watcher::Config::default());
    let strategies = controller.store();
    let controller = controller
        // An addon's ManagedClusterAddOn made, changed or gone: its ClusterManagementAddOn.
        .watches_stream(addon_changes, |addon: ManagedClusterAddOn| Some(ObjectRef::new(&addon.name_any())))
        // A Placement decided again: every addon installed by it.
        .watches_stream(decision_changes, move |decision: PlacementDecision| {
            let placement = (decision.namespace(), decision.labels().get(PLACEMENT_LABEL).cloned());
            strategies
                .state()
                .into_iter()
                .filter(|addon| {
                    addon
                        .spec
                        .install_strategy
                        .placements
                        .iter()
                        .any(|p| (Some(p.placement.namespace.clone()), Some(p.placement.name.clone())) == placement)
                })
                .map(|addon| ObjectRef::from_obj(addon.as_ref()))
                .collect::<Vec<_>>()
        });
    let stores = Arc::new(Stores { clusters: clusters.store, addons, decisions });
    let (listed, listing) = Listed::after({
        let stores = stores.clone();
        async move {
            tokio::join!(known(&stores.clusters), known(&stores.addons), known(&stores.decisions));
            true
        }
    });
    let reconcile = move |addon, ctx| reconcile(addon, ctx, stores.clone(), listed.clone());
    tokio::join!(controller::run(controller, CONTROLLER, &ctx.metrics, reconcile, ctx.clone()), listing);
}

/// The clusters the addon's Placements decide, of those that exist and are not being deleted.
fn decided(addon: &ClusterManagementAddOn, stores: &Stores) -> BTreeSet<String> {
    let strategy = &addon.spec.install_strategy;
    let decisions = stores.decisions.state();
    strategy
        .placements
        .iter()
        .flat_map(|p| {
            decisions.iter().filter(move |d| {
                d.namespace().as_deref() == Some(p.placement.namespace.as_str())
                    && d.labels().get(PLACEMENT_LABEL) == Some(&p.placement.name)
            })
        })
        .flat_map(|d| d.cluster_names().map(str::to_owned).collect::<Vec<_>>())
        .filter(|cluster| {
            stores.clusters.get(&ObjectRef::new(cluster)).is_some_and(|c| c.meta().deletion_timestamp.is_none())
        })
        .collect()
}

/// Whether `addon` is controlled by the ClusterManagementAddOn of uid `uid`.
fn made_by(addon: &ManagedClusterAddOn, uid: &str) -> bool {
    addon.owner_references().iter().any(|o| o.controller == Some(true) && o.uid == uid)
}

/// The reference a ManagedClusterAddOn made here names its ClusterManagementAddOn by (no
/// `blockOwnerDeletion`, which would take `update` on its finalizers).
fn owner(addon: &ClusterManagementAddOn) -> Option<OwnerReference> {
    Some(OwnerReference { block_owner_deletion: None, ..addon.controller_owner_ref(&())? })
}

/// One pass over one addon.
async fn reconcile(
    addon: Arc<ClusterManagementAddOn>,
    ctx: Ctx,
    stores: Arc<Stores>,
    listed: Listed,
) -> Result<Action, HubError> {
    if addon.spec.install_strategy.type_ != InstallStrategyType::Placements || addon.meta().deletion_timestamp.is_some()
    {
        return Ok(Action::await_change());
    }
    if !listed.wait().await {
        return Ok(Action::await_change());
    }
    let (name, uid) = (addon.name_any(), addon.uid().unwrap_or_default());
    let wanted = decided(&addon, &stores);
    let existing: Vec<Arc<ManagedClusterAddOn>> =
        stores.addons.state().into_iter().filter(|a| a.name_any() == name).collect();
    let present: BTreeSet<String> = existing.iter().filter_map(|a| a.namespace()).collect();
    let Some(owner) = owner(&addon) else { return Ok(Action::await_change()) };
    for cluster in wanted.difference(&present) {
        let mut object = ManagedClusterAddOn::for_cluster(cluster, &name);
        object.metadata.owner_references = Some(vec![owner.clone()]);
        let api = Api::<ManagedClusterAddOn>::namespaced(ctx.client.clone(), cluster);
        match api.create(&PostParams::default(), &object).await {
            Ok(_) => tracing::info!(addon = %name, %cluster, "installed by its placements"),
            Err(kube::Error::Api(status)) if status.code == 409 => {}
            Err(e) => return Err(kube_error(format!("installing addon {name} on cluster {cluster}"))(e).into()),
        }
    }
    for gone in existing.iter().filter(|a| made_by(a, &uid)) {
        let Some(cluster) = gone.namespace().filter(|c| !wanted.contains(c)) else { continue };
        let api = Api::<ManagedClusterAddOn>::namespaced(ctx.client.clone(), &cluster);
        match api.delete(&name, &DeleteParams::background()).await {
            Ok(_) => tracing::info!(addon = %name, %cluster, "no placement decides the cluster: uninstalled"),
            Err(kube::Error::Api(status)) if status.code == 404 => {}
            Err(e) => return Err(kube_error(format!("uninstalling addon {name} from cluster {cluster}"))(e).into()),
        }
    }
    Ok(Action::await_change())
}
