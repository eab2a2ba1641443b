//! The cluster-set controllers, as upstream's hub runs them: the `default` set (of the clusters
//! labelled `cluster.open-cluster-management.io/clusterset=default`) and the `global` set (an
//! empty LabelSelector: every cluster) kept in place; a cluster without a set label joins
//! `default`; each set reports ClusterSetEmpty; each ManagedClusterSetBinding reports Bound
//! while its set exists.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::runtime::watcher;
use kube::{Resource, ResourceExt};

use fleetctl_api::clusterset::{CLUSTER_SET_LABEL, DEFAULT_CLUSTER_SET, GLOBAL_CLUSTER_SET};
use fleetctl_api::conditions as c;
use fleetctl_api::selector::LabelSelector;
use fleetctl_api::{ManagedCluster, ManagedClusterSet, ManagedClusterSetBinding};
use fleetctl_kube::{controller, kube_error, update_conditions};

use super::context::{Ctx, HUB, HubError, set};
use super::watches::{Followed, Listed, bounded, coalesced, stored};

/// The name the set controller's metrics and logs go by.
pub const SETS: &str = "clustersets";
/// The name the binding controller's metrics and logs go by.
pub const BINDINGS: &str = "clustersetbindings";
/// The name the default-set-label controller's metrics and logs go by.
pub const DEFAULT_LABEL: &str = "default-clusterset";

/// The annotation that, set to "false", leaves a changed `default` or `global` set as it is.
const AUTO_UPDATE: &str = "cluster.open-cluster-management.io/autoupdate";
/// How long to wait before trying again to write the default sets after a failure.
const RETRY_DEFAULTS: Duration = Duration::from_secs(5);

/// Runs the cluster-set controllers until the returned future is dropped: `labelled` and
/// `members` are two follows of the hub's cluster watch.
pub async fn controller(ctx: Ctx, labelled: Followed, members: Followed) {
    tokio::join!(
        keep_default_sets(ctx.clone()),
        default_label(ctx.clone(), labelled),
        set_status(ctx.clone(), members),
        binding_status(ctx),
    );
}

/// The `default` and `global` sets as upstream creates them.
pub fn default_sets() -> [ManagedClusterSet; 2] {
    [
        ManagedClusterSet::exclusive(DEFAULT_CLUSTER_SET),
        ManagedClusterSet::selecting(GLOBAL_CLUSTER_SET, LabelSelector::default()),
    ]
}

/// Keeps the default sets: written at start and whenever a set changes (a deleted default
/// set comes back; a changed one is set back, unless annotated autoupdate=false).
async fn keep_default_sets(ctx: Ctx) {
    let api: Api<ManagedClusterSet> = Api::all(ctx.client.clone());
    let (sets, changes) = stored(api.clone(), watcher::Config::default());
    let (watch, changed) = coalesced(changes);
    let keep = async {
        if sets.wait_until_ready().await.is_err() {
            return;
        }
        let mut changed = std::pin::pin!(futures::stream::once(async {}).chain(changed));
        while changed.next().await.is_some() {
            while let Err(error) = ensure_default_sets(&api, &sets).await {
                tracing::warn!(error = %fleetctl_kube::errors::chain(&error), "writing the default cluster sets");
                tokio::time::sleep(RETRY_DEFAULTS).await;
            }
        }
    };
    tokio::join!(watch, keep);
}

async fn ensure_default_sets(api: &Api<ManagedClusterSet>, sets: &Store<ManagedClusterSet>) -> Result<(), HubError> {
    for wanted in default_sets() {
        let name = wanted.name_any();
        let current = sets.get(&ObjectRef::new(&name));
        let keep_as_is = current.as_ref().is_some_and(|set| {
            set.spec.cluster_selector == wanted.spec.cluster_selector
                || set.annotations().get(AUTO_UPDATE).is_some_and(|v| v == "false")
        });
        if !keep_as_is {
            api.patch(&name, &PatchParams::apply(HUB.0).force(), &Patch::Apply(&wanted))
                .await
                .map_err(kube_error(format!("writing the {name} cluster set")))?;
            tracing::info!(set = %name, "default cluster set written");
        }
    }
    Ok(())
}

/// A cluster without a set label (or with an empty one) gets `default`.
async fn default_label(ctx: Ctx, clusters: Followed) {
    let controller = Controller::for_stream(clusters.changes, clusters.store).with_config(bounded());
    controller::run(controller, DEFAULT_LABEL, &ctx.metrics, label_cluster, ctx.clone()).await;
}

/// Whether a cluster needs the default set label.
pub fn needs_default_label(cluster: &ManagedCluster) -> bool {
    cluster.labels().get(CLUSTER_SET_LABEL).is_none_or(String::is_empty)
}

async fn label_cluster(cluster: Arc<ManagedCluster>, ctx: Ctx) -> Result<Action, HubError> {
    if !needs_default_label(&cluster) || cluster.meta().deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }
    let name = cluster.name_any();
    let mut labelled = ManagedCluster::clone(&cluster);
    labelled.labels_mut().insert(CLUSTER_SET_LABEL.into(), DEFAULT_CLUSTER_SET.into());
    // A replace at the read resourceVersion: a concurrent change conflicts and comes back.
    Api::<ManagedCluster>::all(ctx.client.clone())
        .replace(&name, &Default::default(), &labelled)
        .await
        .map_err(kube_error(format!("labelling cluster {name} into the default cluster set")))?;
    Ok(Action::await_change())
}

/// Each set's ClusterSetEmpty condition, judged again whenever a cluster changes.
async fn set_status(ctx: Ctx, clusters: Followed) {
    let (watch, changed) = coalesced(clusters.changes);
    let store = clusters.store;
    let (listed, listing) = Listed::after(ready(store.clone()));
    let controller = Controller::new(Api::<ManagedClusterSet>::all(ctx.client.clone()), watcher::Config::default())
        .with_config(bounded())
        .reconcile_all_on(changed);
    let reconcile = move |set, ctx| report_members(set, ctx, store.clone(), listed.clone());
    tokio::join!(controller::run(controller, SETS, &ctx.metrics, reconcile, ctx.clone()), watch, listing);
}

/// Waits (in one task only, see [`Listed`]) until `store` has listed.
async fn ready<K>(store: Store<K>) -> bool
where
    K: Resource + Clone + 'static,
    K::DynamicType: Eq + std::hash::Hash + Clone,
{
    store.wait_until_ready().await.is_ok()
}

/// The ClusterSetEmpty condition of a set with `members` clusters, as upstream words it.
pub fn empty_condition(members: usize) -> (&'static str, &'static str, String) {
    if members == 0 {
        (c::TRUE, c::REASON_NO_CLUSTER_MATCHED, "No ManagedCluster selected".into())
    } else {
        (c::FALSE, c::REASON_CLUSTERS_SELECTED, format!("{members} ManagedClusters selected"))
    }
}

async fn report_members(
    cluster_set: Arc<ManagedClusterSet>,
    ctx: Ctx,
    clusters: Store<ManagedCluster>,
    listed: Listed,
) -> Result<Action, HubError> {
    if !listed.wait().await {
        return Ok(Action::await_change());
    }
    let members = clusters.state().iter().filter(|cluster| cluster_set.contains(cluster)).count();
    let (status, reason, message) = empty_condition(members);
    let api: Api<ManagedClusterSet> = Api::all(ctx.client.clone());
    update_conditions(&api, &cluster_set, |conditions| set(conditions, c::CLUSTER_SET_EMPTY, status, reason, &message))
        .await?;
    Ok(Action::await_change())
}

/// Each binding's Bound condition, judged again whenever a set changes.
async fn binding_status(ctx: Ctx) {
    let (sets, set_changes) = stored(Api::<ManagedClusterSet>::all(ctx.client.clone()), watcher::Config::default());
    let (watch, changed) = coalesced(set_changes);
    let (listed, listing) = Listed::after(ready(sets.clone()));
    let controller =
        Controller::new(Api::<ManagedClusterSetBinding>::all(ctx.client.clone()), watcher::Config::default())
            .with_config(bounded())
            .reconcile_all_on(changed);
    let reconcile = move |binding, ctx| report_bound(binding, ctx, sets.clone(), listed.clone());
    tokio::join!(controller::run(controller, BINDINGS, &ctx.metrics, reconcile, ctx.clone()), watch, listing);
}

async fn report_bound(
    binding: Arc<ManagedClusterSetBinding>,
    ctx: Ctx,
    sets: Store<ManagedClusterSet>,
    listed: Listed,
) -> Result<Action, HubError> {
    if !listed.wait().await {
        return Ok(Action::await_change());
    }
    let Some(namespace) = binding.namespace() else { return Ok(Action::await_change()) };
    let exists = sets.get(&ObjectRef::new(&binding.spec.cluster_set)).is_some();
    let (status, reason) =
        if exists { (c::TRUE, c::REASON_CLUSTER_SET_BOUND) } else { (c::FALSE, c::REASON_CLUSTER_SET_NOT_FOUND) };
    let api: Api<ManagedClusterSetBinding> = Api::namespaced(ctx.client.clone(), &namespace);
    update_conditions(&api, &binding, |conditions| set(conditions, c::CLUSTER_SET_BINDING_BOUND, status, reason, ""))
        .await?;
    Ok(Action::await_change())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_without_a_set_label_joins_default_as_upstream() {
        let mut cluster = ManagedCluster::accepted("c1");
        assert!(needs_default_label(&cluster));
        cluster.labels_mut().insert(CLUSTER_SET_LABEL.into(), String::new());
        assert!(needs_default_label(&cluster));
        cluster.labels_mut().insert(CLUSTER_SET_LABEL.into(), "prod".into());
        assert!(!needs_default_label(&cluster));
    }

    #[test]
    fn the_default_sets_are_upstreams() {
        let [default, global] = default_sets();
        assert_eq!(default.name_any(), "default");
        assert_eq!(
            serde_json::to_value(&default.spec).unwrap(),
            serde_json::json!({"clusterSelector": {"selectorType": "ExclusiveClusterSetLabel"}})
        );
        assert_eq!(
            serde_json::to_value(&global.spec).unwrap(),
            serde_json::json!({"clusterSelector": {"selectorType": "LabelSelector", "labelSelector": {}}})
        );
    }

    #[test]
    fn cluster_set_empty_has_upstreams_reasons() {
        assert_eq!(empty_condition(0).1, "NoClusterMatched");
        assert_eq!(empty_condition(2), ("False", "ClustersSelected", "2 ManagedClusters selected".into()));
    }
}
