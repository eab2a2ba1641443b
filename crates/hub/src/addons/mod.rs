//! The addon controller: KlusterletAddonConfig `<c>` → ManagedClusterAddOn `<addon>` in
//! `<c>` → ManifestWork `addon-<addon>-deploy-0`, which deploys the addon agent
//! (`fleetctld addon <addon>`, the cluster's klusterlet image) into
//! `open-cluster-management-agent-addon` with only the rights that addon needs and the
//! settings of the addon's values annotation (`values`).
//!
//! Disabling an addon deletes its work first and, once the work is gone (so the work
//! agent has removed the agent from the cluster), its ManagedClusterAddOn. The work is
//! owned by the ManagedClusterAddOn, so deleting the addon (as detach does) removes the
//! work too. The hub sets `ManifestApplied` and `Progressing` from the work (`status`);
//! availability is not decided here: the registration agent relays the addon's lease and
//! report to the ManagedClusterAddOn status.
//!
//! A ManagedClusterAddOn someone else wrote — by hand, `clusteradm addon enable`, the addon's
//! install strategy ([`install`]) — is deployed as one the config enables, as upstream's
//! Manual and Placements strategies install an addon; the config disabling the addon takes
//! away only the ManagedClusterAddOns it made (marked [`LABEL_ADDON_ENABLED_BY_CONFIG`]).
//!
//! The controller follows the configs, their addons and addon works, and their clusters
//! (joined, image version), the last three kept in stores: a pass reads what it decides on
//! there, and writes (or deletes) only what is to change — a fresh hub controller's pass
//! over a fleet whose addons are disabled asks the hub nothing.

mod deployment_config;
pub(crate) mod install;
mod manifests;
mod status;
mod values;

use std::sync::Arc;

use fleetctl_kube::reconcile::delete;
use fleetctl_kube::{controller, update_conditions};
use kube::api::{Api, DeleteParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::runtime::watcher;
use kube::{Resource, ResourceExt};

use manifests::{Agent, work, work_name};

use super::context::{Ctx, HUB, HubError};
use super::import::desired_version;
use super::watches::{Followed, Listed, bounded, known, stored};
use fleetctl_api::addon::IAM_POLICY_CONTROLLER;
use fleetctl_api::addon::KlusterletAddonConfigSpec;
use fleetctl_api::addon::v1alpha1::AddOnDeploymentConfig;
use fleetctl_api::addon::{CERT_POLICY_CONTROLLER, DEFAULT_ADDON_INSTALL_NAMESPACE, SEARCH_COLLECTOR};
use fleetctl_api::addon_management::ClusterManagementAddOn;
use fleetctl_api::conditions::{
    ANNOTATION_ADDON_VALUES, LABEL_ADDON_ENABLED_BY_CONFIG, LABEL_ADDON_NAME, set_condition, set_conditions,
};
use fleetctl_api::{KlusterletAddonConfig, ManagedCluster, ManagedClusterAddOn, ManagedClusterAddOnSpec, ManifestWork};

/// The name the controller's metrics and logs go by.
pub const CONTROLLER: &str = "addon";

/// The KlusterletAddonConfig of the cluster a namespaced object belongs to (named after
/// the cluster, in its namespace).
fn config_of<K: ResourceExt>(object: K) -> Option<ObjectRef<KlusterletAddonConfig>> {
    object.namespace().map(|ns| ObjectRef::new(&ns).within(&ns))
}

/// What a pass reads: the clusters, the addons and the addon works, the addons'
/// ClusterManagementAddOns and deployment configs, as watched.
struct Stores {
    clusters: Store<ManagedCluster>,
    addons: Store<ManagedClusterAddOn>,
    works: Store<ManifestWork>,
    managements: Store<ClusterManagementAddOn>,
    configs: Store<AddOnDeploymentConfig>,
}

impl Stores {
    /// The ClusterManagementAddOn of `addon`.
    fn management(&self, addon: &str) -> Option<Arc<ClusterManagementAddOn>> {
        self.managements.get(&ObjectRef::new(addon))
    }

    /// The KlusterletAddonConfigs of the clusters whose ManagedClusterAddOn `concerns` picks
    /// out (an addon whose ClusterManagementAddOn changed, one using a deployment config that did).
    fn configs_of(&self, concerns: impl Fn(&ManagedClusterAddOn) -> bool) -> Vec<ObjectRef<KlusterletAddonConfig>> {
        self.addons.state().iter().filter(|a| concerns(a)).filter_map(|a| config_of(a.as_ref().clone())).collect()
    }
}

/// Runs the addon controller until the returned future is dropped.
pub async fn controller(ctx: Ctx, clusters: Followed) {
    let all = watcher::Config::default;
    let client = ctx.client.clone();
    let (addons, addon_changes) = stored(Api::<ManagedClusterAddOn>::all(client.clone()), all());
    let (works, work_changes) = stored(Api::<ManifestWork>::all(client.clone()), all().labels(LABEL_ADDON_NAME));
    let (managements, management_changes) = stored(Api::<ClusterManagementAddOn>::all(client.clone()), all());
    let (configs, config_changes) = stored(Api::<AddOnDeploymentConfig>::all(client.clone()), all());
    let stores = Arc::new(Stores { clusters: clusters.store, addons, works, managements, configs });
    let (by_management, by_config) = (stores.clone(), stores.clone());
    let controller = Controller::new(Api::<KlusterletAddonConfig>::all(client), all())
        .with_config(bounded())
        .watches_stream(addon_changes, config_of)
        .watches_stream(work_changes, config_of)
        .watches_stream(clusters.changes, |cluster: ManagedCluster| {
            let name = cluster.name_any();
            Some(ObjectRef::new(&name).within(&name))
        })
        // A default config changed: every cluster with the addon.
        .watches_stream(management_changes, move |management: ClusterManagementAddOn| {
            by_management.configs_of(|a| a.name_any() == management.name_any())
        })
        // A deployment config changed: every cluster whose addon uses it.
        .watches_stream(config_changes, move |config: AddOnDeploymentConfig| {
            by_config
                .configs_of(|a| deployment_config::uses(a, by_config.management(&a.name_any()).as_deref(), &config))
        });
    // The stores fill as the controller runs their watches: a pass decides on full ones.
    let (listed, listing) = Listed::after({
        let stores = stores.clone();
        async move {
            tokio::join!(
                known(&stores.clusters),
                known(&stores.addons),
                known(&stores.works),
                known(&stores.managements),
                known(&stores.configs)
            );
            true
        }
    });
    let reconcile = move |config, ctx| reconcile(config, ctx, stores.clone(), listed.clone());
    tokio::join!(controller::run(controller, CONTROLLER, &ctx.metrics, reconcile, ctx.clone()), listing);
}

/// The addons with an agent, and whether the config enables each.
pub fn wanted(spec: &KlusterletAddonConfigSpec) -> [(&'static str, bool); 3] {
    [
        (SEARCH_COLLECTOR, spec.search_collector.enabled),
        (CERT_POLICY_CONTROLLER, spec.cert_policy_controller.enabled),
        (IAM_POLICY_CONTROLLER, spec.iam_policy_controller.enabled),
    ]
}

/// One pass over one cluster's KlusterletAddonConfig.
async fn reconcile(
    config: Arc<KlusterletAddonConfig>,
    ctx: Ctx,
    stores: Arc<Stores>,
    listed: Listed,
) -> Result<Action, HubError> {
    let Some(cluster_name) = config.namespace() else { return Ok(Action::await_change()) };
    if !listed.wait().await {
        return Ok(Action::await_change());
    }
    let cluster = stores.clusters.get(&ObjectRef::new(&cluster_name));
    // Nothing is installed before the cluster joins, and nothing is recreated while it
    // is detached (the cleanup controller removes the addons then).
    let Some(cluster) = cluster.filter(|c| c.meta().deletion_timestamp.is_none() && c.is_joined()) else {
        return Ok(Action::await_change());
    };
    let addons: Api<ManagedClusterAddOn> = Api::namespaced(ctx.client.clone(), &cluster_name);
    let works: Api<ManifestWork> = Api::namespaced(ctx.client.clone(), &cluster_name);
    let image = ctx.config.image(desired_version(&cluster, &ctx.config.default_version));
    for (addon, enabled) in wanted(&config.spec) {
        let existing = stores.addons.get(&ObjectRef::new(addon).within(&cluster_name));
        let by_config = |a: &ManagedClusterAddOn| a.labels().contains_key(LABEL_ADDON_ENABLED_BY_CONFIG);
        // Enabled by the cluster's config, or asked for by anyone else (a ManagedClusterAddOn
        // written by hand, by `clusteradm addon enable` or by the addon's install strategy,
        // as upstream's Manual and Placements strategies install an addon).
        let requested = existing.as_ref().is_some_and(|a| a.meta().deletion_timestamp.is_none() && !by_config(a));
        if enabled || requested {
            install(&addons, &works, &cluster_name, addon, &image, enabled, &stores).await?;
        } else if stores.works.get(&ObjectRef::new(&work_name(addon)).within(&cluster_name)).is_some() {
            // The addon object goes only after the agent is gone from the cluster; the
            // work's removal brings us back here.
            delete(&works, &work_name(addon), &DeleteParams::background()).await?;
        } else if existing.is_some_and(|a| by_config(&a)) {
            delete(&addons, addon, &DeleteParams::background()).await?;
        }
    }
    Ok(Action::await_change())
}

/// Applies an enabled addon's ManagedClusterAddOn (marked as the config's when the config
/// enables it, `by_config`: the config disabling it later takes it away)
/// and, with the settings of its values annotation, its work; then sets `ManifestApplied`
/// and `Progressing` from the work.
async fn install(
    addons: &Api<ManagedClusterAddOn>,
    works: &Api<ManifestWork>,
    cluster: &str,
    addon: &str,
    image: &str,
    by_config: bool,
    stores: &Stores,
) -> Result<(), HubError> {
    let mut object = ManagedClusterAddOn::for_cluster(cluster, addon);
    if by_config {
        object.metadata.labels = Some([(LABEL_ADDON_ENABLED_BY_CONFIG.to_string(), "true".to_string())].into());
    }
    object.spec = ManagedClusterAddOnSpec {
        install_namespace: DEFAULT_ADDON_INSTALL_NAMESPACE.to_string(),
        ..ManagedClusterAddOnSpec::default()
    };
    let applied = HUB.apply(addons, &object).await?;
    // Re-enabled while going: built again once it is gone.
    if applied.meta().deletion_timestamp.is_some() {
        return Ok(());
    }
    let Some(owner) = applied.controller_owner_ref(&()) else { return Ok(()) };
    let settings = applied.annotations().get(ANNOTATION_ADDON_VALUES).map(String::as_str);
    let config = match deployment_config::reference(&applied, stores.management(addon).as_deref()) {
        Some(reference) => match stores.configs.get(&reference) {
            Some(config) => Some(config),
            None => {
                // What runs keeps running as it is until the config it names is there.
                let missing = format!(
                    "AddOnDeploymentConfig {}/{} is not found",
                    reference.namespace.as_deref().unwrap_or_default(),
                    reference.name
                );
                let condition = status::unsupported(&missing);
                update_conditions(addons, &applied, |conditions| set_condition(conditions, condition.clone())).await?;
                return Ok(());
            }
        },
        None => None,
    };
    let variables = config.as_deref().map_or_else(serde_json::Map::new, deployment_config::variables);
    let args = match values::agent_args(addon, variables, settings) {
        Ok(args) => args,
        Err(e) => {
            // What runs keeps running with the settings it had; the fix is the annotation's.
            let condition = status::unsupported(&e.to_string());
            update_conditions(addons, &applied, |conditions| set_condition(conditions, condition.clone())).await?;
            return Ok(());
        }
    };
    let placement = config.as_deref().and_then(|c| c.spec.node_placement.as_ref());
    let agent = Agent { image, settings: args, placement };
    let work = match HUB.apply(works, &work(cluster, addon, &agent, owner)).await {
        Ok(work) => work,
        Err(e) => {
            let condition = status::work_not_written(&fleetctl_kube::errors::chain(&e));
            update_conditions(addons, &applied, |conditions| set_condition(conditions, condition.clone())).await?;
            return Err(e.into());
        }
    };
    let wanted = status::from_work(&work);
    update_conditions(addons, &applied, |conditions| set_conditions(conditions, &wanted)).await?;
    Ok(())
}
