//! The klusterlet end to end, driven through the library: import, a ManifestWork,
//! an upgrade, a killed agent, and removal.

use std::time::Duration;

use fleetctl::lifecycle::LifecycleError;
use fleetctl::lifecycle::detach::{DetachOptions, detach};
use fleetctl::lifecycle::import::{ImportOptions, Imported, import};
use fleetctl::lifecycle::upgrade::{UpgradeOptions, running_version, upgrade};
use fleetctl::lifecycle::wait_for;
use fleetctl_api::conditions as c;
use fleetctl_api::{AppliedManifestWork, Klusterlet, ManagedCluster, Manifest, ManifestWork};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use kube::{Client, CustomResourceExt, ResourceExt};
use serde_json::json;

use super::{DevUp, WAIT};

fn quiet(_: fleetctl::lifecycle::Progress) {}

fn import_options(name: &str) -> ImportOptions {
    ImportOptions::new(name, WAIT)
}

async fn import_cluster(env: &DevUp, hub: &Client, name: &str) -> Client {
    let target = env.client(name).await;
    let hub_url = env.fleetctl_hub_url().await;
    let imported = import(hub, &hub_url, Some(&target), &import_options(name), &quiet).await.expect("import");
    assert!(matches!(imported, Imported::Done(_)), "{imported:?}");
    target
}

impl DevUp {
    async fn fleetctl_hub_url(&self) -> String {
        let kubeconfig = kube::config::Kubeconfig::read_from(self.kubeconfig()).expect("kubeconfig");
        let cluster = kubeconfig.clusters.iter().find(|c| c.name == "hub").expect("hub cluster");
        cluster.cluster.as_ref().and_then(|c| c.server.clone()).expect("server")
    }
}

#[tokio::test]
async fn the_klusterlet_imports_applies_work_upgrades_recovers_and_leaves_cleanly() {
    let env = DevUp::start(2);
    let hub = env.client("hub").await;
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());

    // Act I: accept, apply the import secret → Joined and Available.
    let target = import_cluster(&env, &hub, "cluster1").await;
    let cluster = clusters.get("cluster1").await.expect("cluster");
    assert!(cluster.is_joined() && cluster.is_available());
    // The operator and both agents pass their readiness probes (the kubelet's rule: a
    // container is ready only once its probe passes).
    let deployments: Api<Deployment> = Api::namespaced(target.clone(), fleetctl_api::names::AGENT_NAMESPACE);
    for name in ["klusterlet", "klusterlet-registration-agent", "klusterlet-work-agent"] {
        let ready = |d: Option<&Deployment>| d.and_then(|d| d.status.as_ref()?.ready_replicas) == Some(1);
        wait_for(deployments.clone(), name, &format!("deployment {name} ready"), WAIT, ready).await.expect("ready");
    }

    // A ManifestWork with a ConfigMap and a Deployment is applied and reports status.
    let work = ManifestWork::for_cluster(
        "cluster1",
        "sample",
        vec![
            Manifest(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "hello", "namespace": "default"}, "data": {"a": "1"}}),
            ),
            Manifest(
                json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
                "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                         "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}}),
            ),
        ],
    );
    let works: Api<ManifestWork> = Api::namespaced(hub.clone(), "cluster1");
    works.create(&PostParams::default(), &work).await.expect("work");
    wait_for(works.clone(), "sample", "the sample work to apply", WAIT, |w: Option<&ManifestWork>| {
        w.is_some_and(|w| w.is_applied() && w.is_available())
    })
    .await
    .expect("applied");
    let configmaps: Api<ConfigMap> = Api::namespaced(target.clone(), "default");
    configmaps.get("hello").await.expect("the ConfigMap is on the target");
    Api::<Deployment>::namespaced(target.clone(), "default").get("web").await.expect("the Deployment is on the target");
    let status = works.get("sample").await.expect("work").status.expect("status");
    assert_eq!(status.resource_status.manifests.len(), 2);

    // Removing the work removes what it applied.
    works.delete("sample", &DeleteParams::default()).await.expect("delete work");
    wait_for(configmaps.clone(), "hello", "the ConfigMap to go", WAIT, |c: Option<&ConfigMap>| c.is_none())
        .await
        .expect("removed");
    wait_for(works.clone(), "sample", "the sample work to go", WAIT, |w: Option<&ManifestWork>| w.is_none())
        .await
        .expect("work gone");

    // A killed agent comes back, and the cluster returns to Available with nothing doubled.
    let works_before = works.list(&ListParams::default()).await.expect("works").items.len();
    let pids = env.pids(&["agent", "registration", "cluster1"]);
    assert_eq!(pids.len(), 1, "one registration agent for cluster1: {pids:?}");
    let _ = std::process::Command::new("kill").args(["-9", &pids[0].to_string()]).status();
    let restarted = async {
        loop {
            let now = env.pids(&["agent", "registration", "cluster1"]);
            if !now.is_empty() && now != pids {
                return now;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(WAIT, restarted).await.expect("the simulator restarts the agent");
    wait_for(clusters.clone(), "cluster1", "cluster1 available again", WAIT, |c: Option<&ManagedCluster>| {
        c.is_some_and(|c| c.is_available())
    })
    .await
    .expect("available");
    assert_eq!(
        works.list(&ListParams::default()).await.expect("works").items.len(),
        works_before,
        "no duplicate works"
    );
    let applied: Api<AppliedManifestWork> = Api::all(target.clone());
    let applied_names: Vec<String> =
        applied.list(&ListParams::default()).await.expect("applied").items.iter().map(|a| a.name_any()).collect();
    assert_eq!(applied_names.len(), 2, "one AppliedManifestWork per klusterlet work: {applied_names:?}");

    // Act II: an image change in the klusterlet work rolls the agents; the new version is reported.
    let options = UpgradeOptions::waiting("0.2.0", WAIT);
    upgrade(&hub, "cluster1", &options, &quiet).await.expect("upgrade");
    let upgraded = clusters.get("cluster1").await.expect("cluster");
    assert_eq!(running_version(&upgraded), Some("0.2.0"));

    // Deleting the Klusterlet leaves nothing of it on the target; the hub hears it from the
    // agent (its reason), not from a lease running out.
    let klusterlets: Api<Klusterlet> = Api::all(target.clone());
    klusterlets.delete("klusterlet", &DeleteParams::default()).await.expect("delete klusterlet");
    let left =
        wait_for(clusters.clone(), "cluster1", "the hub to see cluster1 leave", WAIT, |m: Option<&ManagedCluster>| {
            m.is_some_and(|m| c::is_false(m.conditions(), c::MANAGED_CLUSTER_AVAILABLE))
        })
        .await
        .expect("the hub sees Available=False")
        .expect("cluster");
    let available = c::find(left.conditions(), c::MANAGED_CLUSTER_AVAILABLE).expect("Available");
    assert_eq!(available.reason, c::REASON_KLUSTERLET_REMOVED, "told by the agent: {available:?}");
    let namespaces: Api<Namespace> = Api::all(target.clone());
    wait_for(
        namespaces,
        "open-cluster-management-agent",
        "the agent namespace to go",
        WAIT,
        |n: Option<&Namespace>| n.is_none(),
    )
    .await
    .expect("no agent namespace");
    // The Klusterlet goes, and its CRD with it: the operator let go of the work agent's records
    // (as upstream's cleanup does), and the CRD work's record held the CRD.
    let crds: Api<CustomResourceDefinition> = Api::all(target.clone());
    wait_for(crds, Klusterlet::crd_name(), "the Klusterlet CRD to go", WAIT, |c: Option<&CustomResourceDefinition>| {
        c.is_none()
    })
    .await
    .expect("no Klusterlet CRD");
    assert!(klusterlets.get_opt("klusterlet").await.expect("read").is_none(), "no klusterlet");
    // None left, or their CRD gone with them (then the list is NotFound).
    match applied.list(&ListParams::default()).await {
        Ok(list) => assert!(list.items.is_empty(), "no AppliedManifestWork: {:?}", list.items),
        Err(kube::Error::Api(status)) => assert_eq!(status.code, 404, "{status:?}"),
        Err(e) => panic!("listing AppliedManifestWorks: {e}"),
    }
    let operators = async {
        while !env.pids(&["agent", "operator"]).is_empty() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(WAIT, operators).await.expect("no operator process");
}

#[tokio::test]
async fn a_detached_cluster_imports_again_but_not_while_it_is_being_detached() {
    let env = DevUp::start(1);
    let hub = env.client("hub").await;
    let detach_options =
        DetachOptions { name: "cluster1".into(), wait: true, force: false, timeout: WAIT, dry_run: None };
    // Two full rounds: the first detach must leave nothing that blocks the second.
    for round in 1..=2 {
        let target = import_cluster(&env, &hub, "cluster1").await;
        let outcome = detach(&hub, Some(&target), &detach_options, &quiet).await;
        assert!(outcome.is_ok(), "round {round}: {outcome:?}");
    }

    // A cluster held in deletion (by someone else's finalizer): import and upgrade are refused.
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());
    let held: ManagedCluster = serde_json::from_value(json!({
        "metadata": {"name": "cluster1", "finalizers": ["example.com/hold"]},
        "spec": {"hubAcceptsClient": false}
    }))
    .expect("cluster");
    clusters.create(&PostParams::default(), &held).await.expect("create");
    clusters.delete("cluster1", &DeleteParams::default()).await.expect("delete");
    let target = env.client("cluster1").await;
    let hub_url = env.fleetctl_hub_url().await;
    let refused = import(&hub, &hub_url, Some(&target), &import_options("cluster1"), &quiet).await;
    assert!(matches!(&refused, Err(LifecycleError::Refused(why)) if why.contains("is being detached")), "{refused:?}");
    let options = UpgradeOptions::waiting("0.2.0", WAIT);
    let refused = upgrade(&hub, "cluster1", &options, &quiet).await;
    assert!(matches!(&refused, Err(LifecycleError::Refused(why)) if why.contains("is being detached")), "{refused:?}");
    let after = clusters.get("cluster1").await.expect("held");
    assert!(!after.spec.hub_accepts_client, "import must not accept a cluster that is leaving");
}

/// Upstream's Singleton mode (`fleetctl import --klusterlet-mode singleton`: ACM's deploy-mode
/// annotation on the ManagedCluster): one agent, `klusterlet-agent`, registers the cluster and
/// applies its works; detach removes it as it removes the two.
#[tokio::test]
async fn a_cluster_imported_in_singleton_mode_runs_one_agent_that_registers_and_applies_work_as_upstreams_klusterlet_agent()
 {
    let env = DevUp::start(1);
    let hub = env.client("hub").await;
    let target = env.client("cluster1").await;
    let import = ["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"];
    let imported = env.fleetctl(&[&import[..], &["--klusterlet-mode", "singleton"]].concat());
    assert!(imported.status.success(), "{}\n{}", String::from_utf8_lossy(&imported.stderr), env.logs());
    let cluster = Api::<ManagedCluster>::all(hub.clone()).get("cluster1").await.expect("cluster");
    assert!(cluster.is_available(), "{cluster:?}");
    let deployments: Api<Deployment> = Api::namespaced(target.clone(), fleetctl_api::names::AGENT_NAMESPACE);
    let ready = |d: Option<&Deployment>| d.and_then(|d| d.status.as_ref()?.ready_replicas) == Some(1);
    wait_for(deployments.clone(), "klusterlet-agent", "the singleton agent ready", WAIT, ready).await.expect("ready");
    for two in ["klusterlet-registration-agent", "klusterlet-work-agent"] {
        assert!(deployments.get_opt(two).await.expect("read").is_none(), "{two} is not run");
    }
    assert_eq!(env.pids(&["agent", "singleton", "cluster1"]).len(), 1, "one process does both");

    let work = ManifestWork::for_cluster(
        "cluster1",
        "hello",
        vec![Manifest(json!({"apiVersion": "v1", "kind": "ConfigMap",
                              "metadata": {"name": "hello", "namespace": "default"}, "data": {"a": "1"}}))],
    );
    let works: Api<ManifestWork> = Api::namespaced(hub.clone(), "cluster1");
    works.create(&PostParams::default(), &work).await.expect("work");
    wait_for(works, "hello", "the work applied by the singleton agent", WAIT, |w: Option<&ManifestWork>| {
        w.is_some_and(ManifestWork::is_applied)
    })
    .await
    .expect("applied");
    Api::<ConfigMap>::namespaced(target.clone(), "default").get("hello").await.expect("the ConfigMap on the target");

    let detach =
        env.fleetctl(&["detach", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1", "--yes"]);
    assert!(detach.status.success(), "{}\n{}", String::from_utf8_lossy(&detach.stderr), env.logs());
    assert!(deployments.get_opt("klusterlet-agent").await.expect("read").is_none(), "the agent is gone");
}

/// Upstream's Hosted mode (`fleetctl import --hosting-cluster`: ACM's deploy-mode and
/// hosting-cluster annotations): the cluster's agents run on another managed cluster of the hub,
/// reach it with the kubeconfig the hub hands the hosting cluster, apply its works there, are
/// upgraded through the hosting cluster's work, and detach leaves nothing on either cluster.
#[tokio::test]
async fn a_cluster_imported_in_hosted_mode_runs_its_agents_on_the_hosting_cluster_through_upgrade_and_detach() {
    use fleetctl_api::names::{hosted_klusterlet, hosted_klusterlet_namespace};
    use k8s_openapi::api::core::v1::ServiceAccount;
    use k8s_openapi::api::rbac::v1::ClusterRoleBinding;
    let env = DevUp::start(2);
    let hub = env.client("hub").await;
    let hosting = env.client("cluster1").await;
    let managed = env.client("cluster2").await;
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());
    let ok = |output: std::process::Output| {
        assert!(output.status.success(), "{}\n{}", String::from_utf8_lossy(&output.stderr), env.logs());
        output
    };
    ok(env.fleetctl(&["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"]));
    let import = ["import", "cluster2", "--hub-context", "hub", "--cluster-context", "cluster2"];
    ok(env.fleetctl(&[&import[..], &["--hosting-cluster", "cluster1"]].concat()));
    let cluster = clusters.get("cluster2").await.expect("cluster");
    assert!(cluster.is_available(), "{cluster:?}");
    assert_eq!(cluster.hosting_cluster(), Some("cluster1"));
    // The agents run on the hosting cluster, in the Klusterlet's namespace; none on the cluster.
    let agents_namespace = hosted_klusterlet("cluster2");
    let deployments: Api<Deployment> = Api::namespaced(hosting.clone(), &agents_namespace);
    let ready = |d: Option<&Deployment>| d.and_then(|d| d.status.as_ref()?.ready_replicas) == Some(1);
    for agent in ["registration-agent", "work-agent"] {
        let name = format!("{agents_namespace}-{agent}");
        wait_for(deployments.clone(), &name, "the hosted agent ready", WAIT, ready).await.expect("ready");
    }
    let namespaces: Api<Namespace> = Api::all(managed.clone());
    assert!(namespaces.get_opt(fleetctl_api::names::AGENT_NAMESPACE).await.expect("read").is_none());
    // The hub imported it without applying anything to it: the auto-import secret is gone.
    let secrets: Api<k8s_openapi::api::core::v1::Secret> = Api::namespaced(hub.clone(), "cluster2");
    assert!(secrets.get_opt("auto-import-secret").await.expect("read").is_none(), "handed on, then deleted");

    // A work of the cluster is applied on the cluster by the agent on the hosting cluster.
    let work = ManifestWork::for_cluster(
        "cluster2",
        "hello",
        vec![Manifest(json!({"apiVersion": "v1", "kind": "ConfigMap",
                              "metadata": {"name": "hello", "namespace": "default"}, "data": {"a": "1"}}))],
    );
    let works: Api<ManifestWork> = Api::namespaced(hub.clone(), "cluster2");
    works.create(&PostParams::default(), &work).await.expect("work");
    wait_for(works, "hello", "the work applied by the hosted agent", WAIT, |w: Option<&ManifestWork>| {
        w.is_some_and(ManifestWork::is_applied)
    })
    .await
    .expect("applied");
    let config_maps: Api<ConfigMap> = Api::namespaced(managed.clone(), "default");
    config_maps.get("hello").await.expect("the ConfigMap on the managed cluster");

    // Upgraded through the hosting cluster's work: the agents there run the new version.
    ok(env.fleetctl(&["upgrade", "cluster2", "--to", "0.2.0", "--hub-context", "hub", "--timeout", "40s"]));
    let cluster = clusters.get("cluster2").await.expect("cluster");
    assert_eq!(running_version(&cluster), Some("0.2.0"));
    let registration = deployments.get(&format!("{agents_namespace}-registration-agent")).await.expect("agent");
    let image = registration.spec.and_then(|s| s.template.spec).map(|p| p.containers[0].image.clone());
    assert!(image.flatten().is_some_and(|i| i.ends_with(":0.2.0")), "the hosted agents run 0.2.0");

    // Detached with the target: nothing left on either cluster; the hosting cluster serves on.
    let detach = ["detach", "cluster2", "--hub-context", "hub", "--cluster-context", "cluster2", "--yes"];
    ok(env.fleetctl(&[&detach[..], &["--timeout", "40s"]].concat()));
    assert!(clusters.get_opt("cluster2").await.expect("read").is_none());
    let klusterlets: Api<Klusterlet> = Api::all(hosting.clone());
    assert!(klusterlets.get_opt(&agents_namespace).await.expect("read").is_none(), "the hosted Klusterlet is gone");
    let hosting_namespaces: Api<Namespace> = Api::all(hosting.clone());
    wait_for(hosting_namespaces, &agents_namespace, "the agents' namespace gone", WAIT, |n: Option<&Namespace>| {
        n.is_none()
    })
    .await
    .expect("gone");
    assert!(namespaces.get_opt(&hosted_klusterlet_namespace("cluster2")).await.expect("read").is_none());
    let access = "fleetctl-hosted-klusterlet";
    let bindings: Api<ClusterRoleBinding> = Api::all(managed.clone());
    assert!(bindings.get_opt(access).await.expect("read").is_none(), "the hosting cluster's access is removed");
    let accounts: Api<ServiceAccount> = Api::namespaced(managed.clone(), "kube-system");
    assert!(accounts.get_opt(access).await.expect("read").is_none());
    assert!(config_maps.get_opt("hello").await.expect("read").is_none(), "the work's ConfigMap went with it");
    assert!(clusters.get("cluster1").await.expect("hosting").is_available(), "the hosting cluster serves on");
}
