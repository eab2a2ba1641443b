//! Detach on the hub, normal and forced: nothing of the cluster remains.

use std::time::Duration;

use fleetctl::lifecycle::detach::DetachOptions;
use fleetctl_api::names::AGENT_NAMESPACE;
use fleetctl_api::{Klusterlet, KlusterletSpec, ManagedCluster, ManifestWork};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, WatchEvent, WatchParams};
use kube::runtime::conditions;
use kube::runtime::wait::await_condition;
use serde_json::json;

use super::approval::{agent_request, approved_certificate, bootstrap_client, submit};
use super::{Hub, report};
use crate::support::cluster::TestCluster;

const AVAILABLE: &str = "ManagedClusterConditionAvailable";
/// Upstream's klusterlet operator's finalizer on the Klusterlet.
const CLEANUP_FINALIZER: &str = "operator.open-cluster-management.io/klusterlet-cleanup";

async fn joined_and_available(hub: &Hub, name: &str) {
    hub.create_cluster(name, true).await;
    hub.import_secret(name).await;
    hub.wait_cluster(name, |c| c.is_hub_accepted()).await;
    report(
        hub,
        name,
        json!([
            {"type": "ManagedClusterJoined", "status": "True", "reason": "ManagedClusterJoined", "message": "joined"},
            {"type": AVAILABLE, "status": "True", "reason": "ManagedClusterAvailable", "message": "available"},
        ]),
    )
    .await;
    let works: Api<ManifestWork> = Api::namespaced(hub.cluster.client.clone(), name);
    let work_name = format!("{name}-klusterlet-crds");
    let ready = await_condition(works, &work_name, |w: Option<&ManifestWork>| w.is_some());
    tokio::time::timeout(Duration::from_secs(10), ready).await.expect("works in time").expect("watch");
}

/// Asserts no object of `name` is left on the hub.
async fn nothing_left(hub: &Hub, name: &str, uid: &str, namespace_uid: &str) {
    let gone = await_condition(hub.clusters(), name, conditions::is_deleted(uid));
    tokio::time::timeout(Duration::from_secs(10), gone).await.expect("cluster gone in time").expect("watch");
    let namespaces: Api<Namespace> = Api::all(hub.cluster.client.clone());
    let ns_gone = await_condition(namespaces, name, conditions::is_deleted(namespace_uid));
    tokio::time::timeout(Duration::from_secs(10), ns_gone).await.expect("namespace gone in time").expect("watch");
    let roles = Api::<ClusterRole>::all(hub.cluster.client.clone()).list(&ListParams::default()).await.expect("roles");
    let bindings = Api::<ClusterRoleBinding>::all(hub.cluster.client.clone())
        .list(&ListParams::default())
        .await
        .expect("bindings");
    let leftovers: Vec<String> = roles
        .items
        .iter()
        .map(|r| r.name_any())
        .chain(bindings.items.iter().map(|b| b.name_any()))
        .filter(|n| n.ends_with(&format!(":{name}")))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[tokio::test]
async fn a_detach_with_the_agent_present_removes_works_in_order_then_everything() {
    let hub = Hub::start().await;
    joined_and_available(&hub, "c1").await;
    // The certificates the hub issued to c1's agent, and to another cluster's.
    joined_and_available(&hub, "c2").await;
    for (csr, cluster) in [("c1-agent", "c1"), ("c2-agent", "c2")] {
        submit(&bootstrap_client(&hub, cluster).await, &agent_request(csr, cluster)).await;
        approved_certificate(&hub, csr).await;
    }
    let cluster = hub.clusters().get("c1").await.expect("cluster");
    let ns_uid = Api::<Namespace>::all(hub.cluster.client.clone()).get("c1").await.expect("ns").uid().expect("uid");
    // Every deletion of a work from here on, in the order the server made them.
    let works: Api<ManifestWork> = Api::namespaced(hub.cluster.client.clone(), "c1");
    let listed = works.list(&ListParams::default()).await.expect("works");
    assert_eq!(listed.items.len(), 2, "both klusterlet works exist before the detach");
    let from = listed.metadata.resource_version.expect("resourceVersion");
    let mut events = works.watch(&WatchParams::default(), &from).await.expect("watch").boxed();
    hub.clusters().delete("c1", &DeleteParams::default()).await.expect("delete");
    let detaching = hub
        .wait_cluster("c1", |c| {
            fleetctl_api::conditions::find(c.conditions(), "ManagedClusterImportSucceeded")
                .is_some_and(|c| c.reason == "ManagedClusterDetaching")
        })
        .await;
    assert!(fleetctl_api::conditions::find(detaching.conditions(), "Deleting").is_some());
    // The agent tells the hub it is going.
    report(
        &hub,
        "c1",
        json!([{"type": AVAILABLE, "status": "False", "reason": "Detached", "message": "klusterlet removed"}]),
    )
    .await;
    nothing_left(&hub, "c1", &cluster.uid().expect("uid"), &ns_uid).await;
    // The klusterlet work went first; the CRD work stayed until then (upstream's order:
    // the agents must be gone before the CRD their Klusterlet needs).
    let mut deleted = Vec::new();
    while deleted.len() < 2 {
        let next = tokio::time::timeout(Duration::from_secs(10), events.try_next()).await.expect("in time");
        if let Some(WatchEvent::Deleted(work)) = next.expect("watch") {
            deleted.push(work.name_any());
        }
    }
    assert_eq!(deleted, ["c1-klusterlet", "c1-klusterlet-crds"]);
    // c1's approved CSRs, certificates included, went with it; c2's stay.
    let csrs = Api::<CertificateSigningRequest>::all(hub.cluster.client.clone());
    assert!(csrs.get_opt("c1-agent").await.expect("get").is_none(), "c1's CSRs do not pile up");
    assert!(csrs.get_opt("c2-agent").await.expect("get").is_some(), "another cluster's stay");
}

#[tokio::test]
async fn a_forced_detach_of_an_unavailable_cluster_cleans_the_hub_at_once() {
    let hub = Hub::start().await;
    joined_and_available(&hub, "c1").await;
    // The work agent's finalizer would hold the works; the force path strips it.
    let works: Api<ManifestWork> = Api::namespaced(hub.cluster.client.clone(), "c1");
    let finalizer = json!({"metadata": {"finalizers": ["cluster.open-cluster-management.io/manifest-work-cleanup"]}});
    works.patch("c1-klusterlet", &PatchParams::default(), &Patch::Merge(finalizer)).await.expect("finalizer");
    report(&hub, "c1", json!([{"type": AVAILABLE, "status": "Unknown", "reason": "ManagedClusterLeaseUpdateStopped", "message": "gone"}])).await;
    let cluster: ManagedCluster = hub.clusters().get("c1").await.expect("cluster");
    let ns_uid = Api::<Namespace>::all(hub.cluster.client.clone()).get("c1").await.expect("ns").uid().expect("uid");
    hub.clusters().delete("c1", &DeleteParams::default()).await.expect("delete");
    nothing_left(&hub, "c1", &cluster.uid().expect("uid"), &ns_uid).await;
}

#[tokio::test]
async fn a_detach_keeps_a_namespace_that_existed_before_the_cluster_and_what_it_holds() {
    let hub = Hub::start().await;
    let namespaces: Api<Namespace> = Api::all(hub.cluster.client.clone());
    let team: Namespace = serde_json::from_value(json!({"metadata": {"name": "team-data"}})).expect("namespace");
    namespaces.create(&Default::default(), &team).await.expect("team-data");
    let data: k8s_openapi::api::core::v1::ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "precious"}, "data": {"k": "v"}})).expect("configmap");
    let configmaps = Api::namespaced(hub.cluster.client.clone(), "team-data");
    configmaps.create(&Default::default(), &data).await.expect("data");
    joined_and_available(&hub, "team-data").await;
    let namespace = namespaces.get("team-data").await.expect("namespace");
    assert!(!namespace.annotations().contains_key("fleetctl.io/created-for-cluster"), "only labelled: {namespace:?}");
    assert_eq!(
        namespace.labels().get("open-cluster-management.io/cluster-name").map(String::as_str),
        Some("team-data")
    );
    report(&hub, "team-data", json!([{"type": AVAILABLE, "status": "Unknown", "reason": "ManagedClusterLeaseUpdateStopped", "message": "gone"}])).await;
    let cluster: ManagedCluster = hub.clusters().get("team-data").await.expect("cluster");
    hub.clusters().delete("team-data", &DeleteParams::default()).await.expect("delete");
    let uid = cluster.uid().expect("uid");
    let gone = await_condition(hub.clusters(), "team-data", conditions::is_deleted(&uid));
    tokio::time::timeout(Duration::from_secs(10), gone).await.expect("cluster gone in time").expect("watch");
    // The hub's own objects in it are gone; the namespace and the data stay.
    let secrets = Api::<k8s_openapi::api::core::v1::Secret>::namespaced(hub.cluster.client.clone(), "team-data");
    assert!(secrets.get_opt("team-data-import").await.expect("get").is_none(), "the import secret is removed");
    let kept = namespaces.get("team-data").await.expect("the namespace stays");
    assert!(kept.metadata.deletion_timestamp.is_none());
    assert!(configmaps.get_opt("precious").await.expect("get").is_some(), "its data stays");
}

/// The target's Klusterlet, given its operator's cleanup finalizer (which no operator here
/// will release).
async fn held_by_its_cleanup_finalizer(target: &TestCluster) -> Api<Klusterlet> {
    let klusterlets: Api<Klusterlet> = Api::all(target.client.clone());
    let held = json!({"metadata": {"finalizers": [CLEANUP_FINALIZER]}});
    klusterlets.patch("klusterlet", &PatchParams::default(), &Patch::Merge(held)).await.expect("finalizer");
    klusterlets
}

/// A target that holds the klusterlet of `name`: its CRD, the Klusterlet and the agent namespace.
async fn target_with_klusterlet(name: &str) -> TestCluster {
    let target = TestCluster::start().await;
    let crds: Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
        Api::all(target.client.clone());
    crds.create(&Default::default(), &fleetctl_api::crds::klusterlet()).await.expect("crd");
    let klusterlets: Api<Klusterlet> = Api::all(target.client.clone());
    let klusterlet =
        Klusterlet::new("klusterlet", KlusterletSpec { cluster_name: name.into(), ..KlusterletSpec::default() });
    // The CRD is served a moment after it is created.
    let created = async {
        loop {
            match klusterlets.create(&Default::default(), &klusterlet).await {
                Ok(_) => break,
                Err(kube::Error::Api(status)) if status.code == 404 => tokio::task::yield_now().await,
                Err(e) => panic!("klusterlet: {e}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), created).await.expect("klusterlet in time");
    let namespace: Namespace =
        serde_json::from_value(json!({"metadata": {"name": "open-cluster-management-agent"}})).expect("namespace");
    Api::<Namespace>::all(target.client.clone()).create(&Default::default(), &namespace).await.expect("namespace");
    target
}

#[tokio::test]
async fn a_detach_that_sees_the_target_clean_itself_tells_the_hub_then_removes_only_what_the_import_applied_there() {
    let hub = Hub::start().await;
    joined_and_available(&hub, "c1").await;
    // The registration agent is dead: nobody will tell the hub that the klusterlet left,
    // and the lease grace is 5 × 60 s. The work agent still removes the klusterlet.
    let target = target_with_klusterlet("c1").await;
    // A ClusterRole the import applied (named in the import secret's import.yaml), and one of
    // the cluster's own.
    let roles: Api<ClusterRole> = Api::all(target.client.clone());
    for name in ["klusterlet", "team-reader"] {
        let role: ClusterRole = serde_json::from_value(json!({"metadata": {"name": name}})).expect("role");
        roles.create(&Default::default(), &role).await.expect("role");
    }
    // What the hub hears of c1 from here on.
    let from = hub.clusters().get("c1").await.expect("cluster").resource_version().expect("resourceVersion");
    let mut heard =
        hub.clusters().watch(&WatchParams::default().fields("metadata.name=c1"), &from).await.expect("watch").boxed();
    let options =
        DetachOptions { name: "c1".into(), wait: true, force: false, timeout: Duration::from_secs(20), dry_run: None };
    let detach = fleetctl::lifecycle::detach::detach(&hub.cluster.client, Some(&target.client), &options, &|_| {});
    let remove_klusterlet = async {
        hub.wait_cluster("c1", |c| c.metadata.deletion_timestamp.is_some()).await;
        Api::<Klusterlet>::all(target.client.clone())
            .delete("klusterlet", &DeleteParams::default())
            .await
            .expect("delete");
        let namespaces = Api::<Namespace>::all(target.client.clone());
        namespaces.delete("open-cluster-management-agent", &DeleteParams::default()).await.expect("delete");
    };
    let (outcome, ()) = tokio::join!(detach, remove_klusterlet);
    assert_eq!(outcome.expect("detached well within the lease grace").result, "detached");
    // How: detach itself said the klusterlet was gone (Available=False, KlusterletRemoved),
    // as the dead agent would have; the hub then cleaned up without waiting for the lease.
    let mut told = false;
    loop {
        let event = tokio::time::timeout(crate::support::PATIENCE, heard.try_next()).await.expect("in time");
        match event.expect("watch").expect("open until the cluster is gone") {
            WatchEvent::Modified(cluster) => {
                told |= fleetctl_api::conditions::find(cluster.conditions(), AVAILABLE).is_some_and(|c| {
                    c.status == "False"
                        && c.reason == fleetctl_api::conditions::REASON_KLUSTERLET_REMOVED
                        && c.message.contains("seen by fleetctl detach")
                });
            }
            WatchEvent::Deleted(_) => break,
            _ => {}
        }
    }
    assert!(told, "detach told the hub that the target is clean");
    // Then it removed what the import applied there, and only that.
    assert!(roles.get_opt("klusterlet").await.expect("get").is_none(), "the import's ClusterRole is removed");
    assert!(roles.get_opt("team-reader").await.expect("get").is_some(), "the cluster's own stays");
}

#[tokio::test]
async fn a_detach_does_not_take_a_target_without_that_clusters_klusterlet_for_a_clean_one() {
    let hub = Hub::start().await;
    joined_and_available(&hub, "c1").await;
    // The wrong kubeconfig: another cluster's klusterlet, which never goes.
    let other = target_with_klusterlet("c2").await;
    let options =
        DetachOptions { name: "c1".into(), wait: true, force: false, timeout: Duration::from_secs(2), dry_run: None };
    let result = fleetctl::lifecycle::detach::detach(&hub.cluster.client, Some(&other.client), &options, &|_| {}).await;
    assert!(matches!(result, Err(fleetctl::lifecycle::LifecycleError::Timeout { .. })), "{result:?}");
    let cluster = hub.clusters().get("c1").await.expect("still there");
    assert!(cluster.is_available(), "the hub was not told anything");
}

#[tokio::test]
async fn after_a_forced_detach_the_command_it_recommends_removes_the_klusterlet_from_the_target() {
    let hub = Hub::start().await;
    joined_and_available(&hub, "c1").await;
    let target = target_with_klusterlet("c1").await;
    // The target does not answer: the hub is cleaned by force, and the leftovers named. (The
    // wait covers the cluster namespace's 5 s deletion grace.)
    let options =
        DetachOptions { name: "c1".into(), wait: true, force: true, timeout: Duration::from_secs(7), dry_run: None };
    let detach = |target| fleetctl::lifecycle::detach::detach(&hub.cluster.client, target, &options, &|_| {});
    let forced = detach(None).await.expect("forced");
    for named in [
        "open-cluster-management-agent",
        "klusterlets.operator.open-cluster-management.io",
        "`fleetctl detach c1 --cluster-kubeconfig FILE`",
    ] {
        assert!(forced.result.contains(named), "{named} in {}", forced.result);
    }
    assert!(hub.clusters().get_opt("c1").await.expect("get").is_none());
    // A target joined as another cluster is refused, and keeps its klusterlet.
    let other = target_with_klusterlet("c2").await;
    let refused = detach(Some(&other.client)).await.expect_err("the wrong target");
    assert!(refused.to_string().contains("joined as cluster \"c2\""), "{refused}");
    assert!(Api::<Klusterlet>::all(other.client.clone()).get_opt("klusterlet").await.expect("get").is_some());
    // The recommended command, although the hub no longer knows the cluster.
    let removed = detach(Some(&target.client)).await.expect("removed from the target");
    assert!(removed.result.starts_with("removed from the target"), "{}", removed.result);
    let crds = Api::<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition>::all(
        target.client.clone(),
    );
    assert!(crds.get_opt("klusterlets.operator.open-cluster-management.io").await.expect("get").is_none());
    let namespaces = Api::<Namespace>::all(target.client.clone());
    let agent = namespaces.get_opt("open-cluster-management-agent").await.expect("get");
    assert!(agent.is_none_or(|ns| ns.metadata.deletion_timestamp.is_some()), "the agent namespace goes");
    // Run again, it finds nothing left and says so without failing.
    let again = detach(Some(&target.client)).await.expect("idempotent");
    assert!(again.result.starts_with("removed from the target"), "{}", again.result);
}

/// `detach --force` with the target's kubeconfig, while the hub still knows the cluster and
/// its agents do not answer: the klusterlet is removed from the target directly (its
/// finalizer released, as no operator runs to do it), then the hub is cleaned by force —
/// and nothing is left on either side to name.
#[tokio::test]
async fn a_forced_detach_with_the_target_removes_the_klusterlet_there_then_cleans_the_hub() {
    let hub = Hub::start().await;
    joined_and_available(&hub, "c1").await;
    let cluster = hub.clusters().get("c1").await.expect("cluster");
    let ns_uid = Api::<Namespace>::all(hub.cluster.client.clone()).get("c1").await.expect("ns").uid().expect("uid");
    let target = target_with_klusterlet("c1").await;
    let klusterlets = held_by_its_cleanup_finalizer(&target).await;
    let options =
        DetachOptions { name: "c1".into(), wait: true, force: true, timeout: Duration::from_secs(7), dry_run: None };
    let detached = fleetctl::lifecycle::detach::detach(&hub.cluster.client, Some(&target.client), &options, &|_| {})
        .await
        .expect("detached by force");
    assert_eq!(detached.result, "detached", "nothing left to name: {}", detached.result);
    let steps: Vec<&str> = detached.steps.iter().map(|s| s.step.as_str()).collect();
    assert!(steps.contains(&"target: klusterlet removed directly"), "{steps:?}");
    assert!(steps.contains(&"hub: cleaned by force"), "{steps:?}");
    nothing_left(&hub, "c1", &cluster.uid().expect("uid"), &ns_uid).await;
    assert!(klusterlets.get_opt("klusterlet").await.expect("get").is_none(), "the Klusterlet is gone");
    let crds = Api::<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition>::all(
        target.client.clone(),
    );
    assert!(crds.get_opt("klusterlets.operator.open-cluster-management.io").await.expect("get").is_none());
    let agent =
        Api::<Namespace>::all(target.client.clone()).get_opt("open-cluster-management-agent").await.expect("get");
    assert!(agent.is_none_or(|ns| ns.metadata.deletion_timestamp.is_some()), "the agent namespace goes");
}

/// As upstream's klusterlet operator when its own Deployment goes before it has cleaned up
/// (seen on ACM's hub): the hub lets go of the cluster, but the Klusterlet stays on its
/// cleanup finalizer. Detach with the target does not say "detached" then: it names what is
/// left and ends with a timeout, and the same command run again removes it.
#[tokio::test]
async fn a_detach_with_the_target_names_what_the_target_still_holds_after_the_hub_let_go_and_a_rerun_removes_it() {
    let hub = Hub::start().await;
    joined_and_available(&hub, "c1").await;
    let target = target_with_klusterlet("c1").await;
    let klusterlets = held_by_its_cleanup_finalizer(&target).await;
    let options =
        DetachOptions { name: "c1".into(), wait: true, force: false, timeout: Duration::from_secs(2), dry_run: None };
    let detach = || fleetctl::lifecycle::detach::detach(&hub.cluster.client, Some(&target.client), &options, &|_| {});
    // The agent tells the hub it is leaving, as upstream's registration agent does, and the
    // hub finishes on its own.
    let agent_leaves = async {
        hub.wait_cluster("c1", |c| c.metadata.deletion_timestamp.is_some()).await;
        report(
            &hub,
            "c1",
            json!([{"type": AVAILABLE, "status": "False", "reason": "KlusterletRemoved", "message": "gone"}]),
        )
        .await;
    };
    let (first, ()) = tokio::join!(detach(), agent_leaves);
    let error = first.expect_err("the target is not clean");
    assert!(
        matches!(&error, fleetctl::lifecycle::LifecycleError::LeftOnTarget { left, .. }
            if left.iter().any(|l| l.contains(CLEANUP_FINALIZER))),
        "{error}"
    );
    assert!(hub.clusters().get_opt("c1").await.expect("get").is_none(), "the hub let go");
    let again = detach().await.expect("the rerun finishes");
    assert!(again.result.starts_with("removed from the target"), "{}", again.result);
    assert!(klusterlets.get_opt("klusterlet").await.expect("get").is_none(), "the Klusterlet is gone");
}

#[tokio::test]
async fn a_silent_lease_turns_the_cluster_unknown() {
    let hub = Hub::with(|config| config.lease_grace = 1).await;
    hub.create_cluster("c1", true).await;
    hub.clusters()
        .patch("c1", &PatchParams::default(), &Patch::Merge(json!({"spec": {"leaseDurationSeconds": 1}})))
        .await
        .expect("lease");
    hub.wait_cluster("c1", |c| c.is_hub_accepted()).await;
    report(
        &hub,
        "c1",
        json!([
            {"type": "ManagedClusterJoined", "status": "True", "reason": "ManagedClusterJoined", "message": "joined"},
            {"type": AVAILABLE, "status": "True", "reason": "ManagedClusterAvailable", "message": "available"},
        ]),
    )
    .await;
    let unknown =
        hub.wait_cluster("c1", |c| fleetctl_api::conditions::has_status(c.conditions(), AVAILABLE, "Unknown")).await;
    let condition = fleetctl_api::conditions::find(unknown.conditions(), AVAILABLE).expect("available");
    assert_eq!(condition.reason, "ManagedClusterLeaseUpdateStopped");
    assert_eq!(condition.message, "Registration agent stopped updating its lease.");
}

/// A detach returns once the hub is clean, while the leaving klusterlet operator may still
/// be finishing on the target (its Klusterlet held by its finalizer, then what it handed to
/// the garbage collector going). An import meanwhile waits until it is gone rather than
/// applying into a terminating namespace or beside a CRD being deleted.
#[tokio::test]
async fn an_import_onto_a_target_whose_klusterlet_is_still_leaving_waits_until_it_is_gone() {
    use fleetctl::lifecycle::Progress;
    use fleetctl::lifecycle::import::{ImportOptions, import};
    const LEAVING_STEP: &str = "target: the klusterlet that was leaving is gone";
    let hub = Hub::start().await;
    let target = target_with_klusterlet("c1").await;
    let klusterlets: Api<Klusterlet> = Api::all(target.client.clone());
    let hold = json!({"metadata": {"finalizers": ["example.com/hold"]}});
    klusterlets.patch("klusterlet", &PatchParams::default(), &Patch::Merge(hold)).await.expect("hold");
    klusterlets.delete("klusterlet", &DeleteParams::default()).await.expect("delete");

    let options = ImportOptions { wait: false, ..ImportOptions::new("c1", Duration::from_secs(20)) };
    let (waiting, mut waiting_seen) = tokio::sync::watch::channel(false);
    let observer = move |progress: Progress| {
        if matches!(&progress, Progress::Started { step, .. } if step == LEAVING_STEP) {
            waiting.send_replace(true);
        }
    };
    let hub_url = hub.cluster.server.url();
    let imported = import(&hub.cluster.client, &hub_url, Some(&target.client), &options, &observer);
    let secrets = Api::<k8s_openapi::api::core::v1::Secret>::namespaced(target.client.clone(), AGENT_NAMESPACE);
    tokio::pin!(imported);
    tokio::select! {
        done = &mut imported => panic!("the import did not wait for the leaving klusterlet: {done:?}"),
        seen = waiting_seen.wait_for(|waiting| *waiting) => seen.expect("the observer"),
    };
    assert!(secrets.get_opt("bootstrap-hub-kubeconfig").await.expect("get").is_none(), "nothing applied yet");
    let release = json!({"metadata": {"finalizers": null}});
    klusterlets.patch("klusterlet", &PatchParams::default(), &Patch::Merge(release)).await.expect("release");
    let outcome = match imported.await.expect("imported once the klusterlet was gone") {
        fleetctl::lifecycle::import::Imported::Done(outcome) => outcome,
        other => panic!("{other:?}"),
    };
    assert!(outcome.steps.iter().any(|s| s.step == LEAVING_STEP), "{:?}", outcome.steps);
    assert!(secrets.get_opt("bootstrap-hub-kubeconfig").await.expect("get").is_some(), "then applied");
}
