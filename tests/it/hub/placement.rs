//! Cluster sets and placement on the hub, against upstream's rules: the default and global
//! sets, the default set label, the sets' and bindings' status, and the scheduler's
//! decisions (only clusters of sets bound into the Placement's namespace, taints, paging),
//! and the join/bind admission rules.

use std::time::Duration;

use fleetctl_api::cluster::{Taint, TaintEffect};
use fleetctl_api::clusterset::CLUSTER_SET_LABEL;
use fleetctl_api::conditions as c;
use fleetctl_api::placement::{PLACEMENT_LABEL, PlacementSpec, Toleration, TolerationOperator};
use fleetctl_api::{ManagedCluster, ManagedClusterSet, ManagedClusterSetBinding, Placement, PlacementDecision};
use k8s_openapi::api::core::v1::Namespace;
use kube::ResourceExt;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::wait::await_condition;
use serde_json::json;

use super::Hub;

const WAIT: Duration = Duration::from_secs(20);

pub(crate) async fn namespace(hub: &Hub, name: &str) {
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    Api::<Namespace>::all(hub.cluster.client.clone()).create(&PostParams::default(), &ns).await.unwrap();
}

/// A set of the clusters labelled with its name, bound into `namespace`.
pub(crate) async fn bound_set(hub: &Hub, set: &str, namespace: &str) {
    let sets: Api<ManagedClusterSet> = Api::all(hub.cluster.client.clone());
    sets.create(&PostParams::default(), &ManagedClusterSet::exclusive(set)).await.unwrap();
    let bindings: Api<ManagedClusterSetBinding> = Api::namespaced(hub.cluster.client.clone(), namespace);
    bindings.create(&PostParams::default(), &ManagedClusterSetBinding::of(namespace, set)).await.unwrap();
}

/// Clusters `names` in `set` (not accepted: nothing is imported, only placed).
pub(crate) async fn clusters_in(hub: &Hub, set: &str, names: impl IntoIterator<Item = String>) {
    for name in names {
        let mut cluster = ManagedCluster::accepted(&name);
        cluster.spec.hub_accepts_client = false;
        cluster.metadata.labels = Some([(CLUSTER_SET_LABEL.to_owned(), set.to_owned())].into());
        hub.clusters().create(&PostParams::default(), &cluster).await.unwrap();
    }
}

pub(crate) async fn placement(hub: &Hub, namespace: &str, name: &str, spec: PlacementSpec) {
    let mut placement = Placement::new(name, spec);
    placement.metadata.namespace = Some(namespace.to_owned());
    Api::<Placement>::namespaced(hub.cluster.client.clone(), namespace)
        .create(&PostParams::default(), &placement)
        .await
        .unwrap();
}

/// The PlacementDecisions of a Placement, by name, once `check` holds for them.
pub(crate) async fn decisions_when(
    hub: &Hub,
    namespace: &str,
    placement: &str,
    check: impl Fn(&[PlacementDecision]) -> bool,
) -> Vec<PlacementDecision> {
    let api: Api<PlacementDecision> = Api::namespaced(hub.cluster.client.clone(), namespace);
    let params = ListParams::default().labels(&format!("{PLACEMENT_LABEL}={placement}"));
    let polled = async {
        loop {
            let mut items = api.list(&params).await.unwrap().items;
            items.sort_by_key(|d| d.metadata.name.clone());
            if check(&items) {
                return items;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(WAIT, polled).await.expect("the decisions in time")
}

pub(crate) fn decided(decisions: &[PlacementDecision]) -> Vec<String> {
    let mut names: Vec<String> = decisions.iter().flat_map(|d| d.cluster_names().map(str::to_owned)).collect();
    names.sort();
    names
}

#[tokio::test]
async fn the_default_and_global_sets_are_created_and_a_cluster_without_a_set_joins_default() {
    let hub = Hub::start().await;
    let sets: Api<ManagedClusterSet> = Api::all(hub.cluster.client.clone());
    for name in ["default", "global"] {
        let ready = await_condition(sets.clone(), name, |s: Option<&ManagedClusterSet>| s.is_some());
        tokio::time::timeout(WAIT, ready).await.expect("in time").expect("watch");
    }
    let global = sets.get("global").await.unwrap();
    assert_eq!(
        serde_json::to_value(&global.spec).unwrap(),
        json!({"clusterSelector": {"selectorType": "LabelSelector", "labelSelector": {}}})
    );
    hub.create_cluster("c1", false).await;
    let labelled = hub.wait_cluster("c1", |c| c.labels().get(CLUSTER_SET_LABEL).is_some()).await;
    assert_eq!(labelled.labels()[CLUSTER_SET_LABEL], "default");
    let not_empty = await_condition(sets.clone(), "default", |s: Option<&ManagedClusterSet>| {
        s.is_some_and(|s| c::is_false(s.conditions(), c::CLUSTER_SET_EMPTY))
    });
    tokio::time::timeout(WAIT, not_empty).await.expect("ClusterSetEmpty=False in time").expect("watch");

    // A deleted default set comes back, as upstream's default-clusterset controller keeps it.
    sets.delete("global", &Default::default()).await.unwrap();
    let back = await_condition(sets, "global", |s: Option<&ManagedClusterSet>| s.is_some());
    tokio::time::timeout(WAIT, back).await.expect("global back in time").expect("watch");
}

#[tokio::test]
async fn a_binding_is_bound_only_while_its_set_exists() {
    let hub = Hub::start().await;
    namespace(&hub, "apps").await;
    let bindings: Api<ManagedClusterSetBinding> = Api::namespaced(hub.cluster.client.clone(), "apps");
    bindings.create(&PostParams::default(), &ManagedClusterSetBinding::of("apps", "later")).await.unwrap();
    let status = |status: &'static str| {
        await_condition(bindings.clone(), "later", move |b: Option<&ManagedClusterSetBinding>| {
            b.is_some_and(|b| c::has_status(b.conditions(), c::CLUSTER_SET_BINDING_BOUND, status))
        })
    };
    tokio::time::timeout(WAIT, status(c::FALSE)).await.expect("Bound=False in time").expect("watch");
    Api::<ManagedClusterSet>::all(hub.cluster.client.clone())
        .create(&PostParams::default(), &ManagedClusterSet::exclusive("later"))
        .await
        .unwrap();
    tokio::time::timeout(WAIT, status(c::TRUE)).await.expect("Bound=True in time").expect("watch");
}

#[tokio::test]
async fn a_placement_selects_only_clusters_of_sets_bound_to_its_namespace() {
    let hub = Hub::start().await;
    namespace(&hub, "apps").await;
    namespace(&hub, "ops").await;
    bound_set(&hub, "apps-set", "apps").await;
    bound_set(&hub, "ops-set", "ops").await;
    clusters_in(&hub, "apps-set", ["a1".to_owned(), "a2".to_owned()]).await;
    clusters_in(&hub, "ops-set", ["o1".to_owned()]).await;
    placement(&hub, "apps", "p", PlacementSpec::default()).await;
    let decisions = decisions_when(&hub, "apps", "p", |d| decided(d).len() == 2).await;
    assert_eq!(decided(&decisions), ["a1", "a2"]);
    assert_eq!(decisions[0].metadata.name.as_deref(), Some("p-decision-1"));
    let owner = &decisions[0].metadata.owner_references.as_ref().expect("owned")[0];
    assert_eq!((owner.kind.as_str(), owner.name.as_str(), owner.controller), ("Placement", "p", Some(true)));

    let placements: Api<Placement> = Api::namespaced(hub.cluster.client.clone(), "apps");
    let satisfied = await_condition(placements.clone(), "p", |p: Option<&Placement>| {
        p.is_some_and(|p| {
            c::find(p.conditions(), c::PLACEMENT_SATISFIED).is_some_and(|c| c.reason == "AllDecisionsScheduled")
        })
    });
    tokio::time::timeout(WAIT, satisfied).await.expect("satisfied in time").expect("watch");
    let status = placements.get("p").await.unwrap().status.expect("status");
    assert_eq!(status.number_of_selected_clusters, 2);
    assert_eq!(status.decision_groups[0].decisions, ["p-decision-1"]);

    // A set named in spec.clusterSets but not bound here selects nothing.
    placement(&hub, "apps", "q", PlacementSpec { cluster_sets: vec!["ops-set".into()], ..PlacementSpec::default() })
        .await;
    let not_bound = await_condition(placements, "q", |p: Option<&Placement>| {
        p.is_some_and(|p| c::find(p.conditions(), c::PLACEMENT_SATISFIED).is_some_and(|c| c.reason == "NoIntersection"))
    });
    tokio::time::timeout(WAIT, not_bound).await.expect("NoIntersection in time").expect("watch");
    assert!(decided(&decisions_when(&hub, "apps", "q", |d| !d.is_empty()).await).is_empty());
}

#[tokio::test]
async fn a_no_select_taint_keeps_a_cluster_out_unless_the_placement_tolerates_it() {
    let hub = Hub::start().await;
    namespace(&hub, "apps").await;
    bound_set(&hub, "s", "apps").await;
    clusters_in(&hub, "s", ["t1".to_owned(), "t2".to_owned()]).await;
    let taint = Taint { key: "gpu".into(), value: String::new(), effect: TaintEffect::NoSelect, time_added: None };
    let taints = json!({"spec": {"taints": [serde_json::to_value(&taint).unwrap()]}});
    hub.clusters().patch("t2", &PatchParams::default(), &Patch::Merge(taints)).await.unwrap();
    placement(&hub, "apps", "plain", PlacementSpec::default()).await;
    let tolerating = PlacementSpec {
        tolerations: vec![Toleration {
            key: "gpu".into(),
            operator: Some(TolerationOperator::Exists),
            ..Toleration::default()
        }],
        ..PlacementSpec::default()
    };
    placement(&hub, "apps", "tolerant", tolerating).await;
    assert_eq!(decided(&decisions_when(&hub, "apps", "plain", |d| decided(d).len() == 1).await), ["t1"]);
    assert_eq!(decided(&decisions_when(&hub, "apps", "tolerant", |d| decided(d).len() == 2).await), ["t1", "t2"]);
}

#[tokio::test]
async fn decisions_are_paged_at_100_per_placementdecision_as_upstream() {
    let hub = Hub::start().await;
    namespace(&hub, "apps").await;
    bound_set(&hub, "big", "apps").await;
    clusters_in(&hub, "big", (0..101).map(|i| format!("c{i:03}"))).await;
    placement(&hub, "apps", "wide", PlacementSpec::default()).await;
    let decisions = decisions_when(&hub, "apps", "wide", |d| decided(d).len() == 101).await;
    let pages: Vec<(Option<&str>, usize)> =
        decisions.iter().map(|d| (d.metadata.name.as_deref(), d.cluster_names().count())).collect();
    assert_eq!(pages, [(Some("wide-decision-1"), 100), (Some("wide-decision-2"), 1)]);
}

/// A user who may write ManagedClusters and bindings, but join or bind no set.
async fn user_without_set_rights(hub: &Hub, user: &str) -> kube::Client {
    let rules = vec![json!({"apiGroups": ["cluster.open-cluster-management.io"],
        "resources": ["managedclusters", "managedclustersetbindings"], "verbs": ["create", "get", "update", "patch"]})];
    hub.client_with_rules(user, rules).await
}

#[tokio::test]
async fn joining_or_binding_a_set_needs_managedclustersets_join_or_bind_as_upstream() {
    let hub = Hub::start().await;
    namespace(&hub, "apps").await;
    let carol = user_without_set_rights(&hub, "carol").await;
    let mut joining = ManagedCluster::accepted("j1");
    joining.spec.hub_accepts_client = false;
    joining.metadata.labels = Some([(CLUSTER_SET_LABEL.to_owned(), "prod".to_owned())].into());
    match Api::<ManagedCluster>::all(carol.clone()).create(&PostParams::default(), &joining).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 403, "{}", status.message);
            assert!(status.message.contains("managedclustersets/join"), "{}", status.message);
        }
        other => panic!("joining prod without the right was not refused: {other:?}"),
    }
    let bindings: Api<ManagedClusterSetBinding> = Api::namespaced(carol, "apps");
    match bindings.create(&PostParams::default(), &ManagedClusterSetBinding::of("apps", "prod")).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 403, "{}", status.message);
            assert!(status.message.contains("managedclustersets/bind"), "{}", status.message);
        }
        other => panic!("binding prod without the right was not refused: {other:?}"),
    }
}
