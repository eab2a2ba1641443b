//! Adoption both ways, on a fleetctl hub, with upstream's klusterlet as Pods: a cluster that
//! joined with `clusteradm join` taken over by fleetctl's operator (`fleetctl upgrade
//! --adopt-klusterlet`), and a cluster fleetctl imported handed back (`fleetctl.io/own-klusterlet:
//! "true"`) and taken over by upstream's operator (`clusteradm join`). Either way the cluster
//! keeps its registration — the same ManagedCluster, the same agent identity — and what its
//! works applied: the same objects, no Pod made again. fleetctl's agent also keeps the
//! certificate it finds (no CSR); upstream's asks for a new one of the same identity, as it does
//! whenever `clusteradm join` hands it another bootstrap kubeconfig.

use std::collections::BTreeSet;
use std::time::Instant;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::core::v1::{Pod, Secret};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::wait::conditions;
use serde_json::json;

use super::{DevUp, clusteradm, dynamic, gone, has_true, registration_images, upstream_env, wait};

/// What must not change when another operator takes a klusterlet over.
#[derive(Debug, PartialEq)]
struct Kept {
    /// The ManagedCluster's uid: the same registration.
    cluster_uid: Option<String>,
    /// The agent's identity: the id its secret names, and the subject of its certificate.
    agent_name: String,
    subject: String,
    /// The cluster's workload: its Deployment and Pods, none made again.
    workload: Workload,
}

/// The agent's certificate and the cluster's CSRs on the hub: unchanged when the new agent
/// keeps the certificate it finds.
#[derive(Debug, PartialEq)]
struct Certificate {
    pem: Vec<u8>,
    csrs: BTreeSet<String>,
}

/// What a work applied.
#[derive(Debug, PartialEq)]
struct Workload {
    deployment_uid: Option<String>,
    deployment_generation: Option<i64>,
    pods: BTreeSet<String>,
}

impl Kept {
    async fn read(hub: &kube::Client, cluster: &kube::Client, name: &str) -> (Self, Certificate) {
        let clusters = dynamic(hub, "cluster.open-cluster-management.io", "v1", "ManagedCluster", None);
        let registered = clusters.get(name).await.expect("the ManagedCluster");
        let secret = Api::<Secret>::namespaced(cluster.clone(), "open-cluster-management-agent")
            .get("hub-kubeconfig-secret")
            .await
            .expect("the hub kubeconfig secret");
        let data = secret.data.unwrap_or_default();
        let csrs = Api::<CertificateSigningRequest>::all(hub.clone())
            .list(&ListParams::default().labels(&format!("open-cluster-management.io/cluster-name={name}")))
            .await
            .expect("CSRs");
        let deployment = Api::<Deployment>::namespaced(cluster.clone(), "default").get("hello").await.expect("hello");
        let pods = Api::<Pod>::namespaced(cluster.clone(), "default")
            .list(&ListParams::default().labels("app=hello"))
            .await
            .expect("hello's Pods");
        let pem = data.get("tls.crt").map(|b| b.0.clone()).expect("a certificate");
        let (_, block) = x509_parser::pem::parse_x509_pem(&pem).expect("PEM");
        let (_, certificate) = x509_parser::parse_x509_certificate(&block.contents).expect("a certificate");
        let kept = Self {
            cluster_uid: registered.metadata.uid,
            agent_name: String::from_utf8_lossy(&data.get("agent-name").expect("agent-name").0).into_owned(),
            subject: certificate.subject().to_string(),
            workload: Workload {
                deployment_uid: deployment.metadata.uid,
                deployment_generation: deployment.metadata.generation,
                pods: pods.items.into_iter().filter_map(|p| p.metadata.uid).collect(),
            },
        };
        (kept, Certificate { pem, csrs: csrs.items.into_iter().filter_map(|c| c.metadata.name).collect() })
    }
}

/// A ManifestWork with a Deployment, applied and Available on `name`.
async fn hello_work(env: &DevUp, hub: &kube::Client, cluster: &kube::Client, name: &str) {
    let works = dynamic(hub, "work.open-cluster-management.io", "v1", "ManifestWork", Some(name));
    let work = serde_json::from_value(json!({
        "apiVersion": "work.open-cluster-management.io/v1", "kind": "ManifestWork",
        "metadata": {"name": "hello", "namespace": name},
        "spec": {"workload": {"manifests": [{
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "hello", "namespace": "default"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "hello"}},
                     "template": {"metadata": {"labels": {"app": "hello"}},
                                  "spec": {"containers": [{"name": "hello", "image": "example.com/hello:1"}]}}}
        }]}}
    }))
    .expect("a ManifestWork");
    works.create(&PostParams::default(), &work).await.expect("the ManifestWork");
    wait(env, works, "hello", "the work Applied", has_true("Applied")).await;
    let deployments: Api<Deployment> = Api::namespaced(cluster.clone(), "default");
    wait(env, deployments, "hello", "the work's Deployment Available", conditions::is_deployment_completed()).await;
}

/// After a takeover: the agents rolled out (their new Pods Ready), the cluster's lease renewed
/// on the hub since — the new registration agent is connected —, the same registration and
/// workload, the cluster Available, the work Applied.
async fn kept(env: &DevUp, hub: &kube::Client, cluster: &kube::Client, name: &str, before: &Kept) -> Certificate {
    let since = jiff::Timestamp::now();
    let agents: Api<Deployment> = Api::namespaced(cluster.clone(), "open-cluster-management-agent");
    let rolled_out = |d: Option<&Deployment>| {
        d.is_some_and(|d| {
            let status = d.status.clone().unwrap_or_default();
            let wanted = d.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
            status.observed_generation == d.metadata.generation
                && status.updated_replicas == Some(wanted)
                && status.ready_replicas == Some(wanted)
                && status.replicas == Some(wanted)
        })
    };
    for agent in ["klusterlet-registration-agent", "klusterlet-work-agent"] {
        wait(env, agents.clone(), agent, &format!("{agent} rolled out"), rolled_out).await;
    }
    let leases: Api<k8s_openapi::api::coordination::v1::Lease> = Api::namespaced(hub.clone(), name);
    let renewed = move |lease: Option<&k8s_openapi::api::coordination::v1::Lease>| {
        lease.and_then(|l| l.spec.as_ref()?.renew_time.as_ref()).is_some_and(|t| t.0 > since)
    };
    wait(env, leases, "managed-cluster-lease", "the cluster's lease renewed by the new agent", renewed).await;
    let clusters = dynamic(hub, "cluster.open-cluster-management.io", "v1", "ManagedCluster", None);
    wait(env, clusters, name, "the cluster Available", has_true("ManagedClusterConditionAvailable")).await;
    let works = dynamic(hub, "work.open-cluster-management.io", "v1", "ManifestWork", Some(name));
    wait(env, works, "hello", "the work Applied", has_true("Applied")).await;
    let (after, certificate) = Kept::read(hub, cluster, name).await;
    assert_eq!(&after, before, "the registration and the workload are kept\n{}", env.logs());
    certificate
}

#[tokio::test]
async fn a_klusterlet_joined_with_clusteradm_is_adopted_by_fleetctls_operator_keeping_registration_and_workloads() {
    let Some((bin, env)) = upstream_env(1, &["--podman"]) else { return };
    let hub = env.client("hub").await;
    let cluster = env.client("cluster1").await;
    super::join_with_clusteradm(&bin, &env, "cluster1").await;
    let clusters = dynamic(&hub, "cluster.open-cluster-management.io", "v1", "ManagedCluster", None);
    wait(&env, clusters.clone(), "cluster1", "cluster1 Available", has_true("ManagedClusterConditionAvailable")).await;
    hello_work(&env, &hub, &cluster, "cluster1").await;
    let (before, certificate) = Kept::read(&hub, &cluster, "cluster1").await;

    // Refused without being told: the hub did not install this klusterlet.
    let version = fleetctl_api::names::VERSION;
    let refused = env.fleetctl(&["upgrade", "cluster1", "--to", version, "--hub-context", "hub"]);
    assert_eq!(refused.status.code(), Some(4), "{}", String::from_utf8_lossy(&refused.stderr));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--adopt-klusterlet"));

    let started = Instant::now();
    let adopt = env.fleetctl(&["upgrade", "cluster1", "--to", version, "--adopt-klusterlet", "--hub-context", "hub"]);
    let said = String::from_utf8_lossy(&adopt.stderr).into_owned();
    assert!(adopt.status.success(), "adopt: {said}\n{}", env.logs());
    eprintln!("fleetctl upgrade --adopt-klusterlet: exit 0 in {:.2?}", started.elapsed());

    let images = registration_images(cluster.clone()).await;
    assert!(images.iter().all(|i| i.starts_with("quay.io/fleetctl/fleetctl:")), "fleetctl's agents: {images:?}");
    let theirs: Api<Deployment> = Api::namespaced(cluster.clone(), "open-cluster-management");
    wait(&env, theirs, "klusterlet", "clusteradm's operator retired", gone).await;
    let after = kept(&env, &hub, &cluster, "cluster1", &before).await;
    assert_eq!(after, certificate, "fleetctl's agent keeps upstream's certificate: no CSR");
}

#[tokio::test]
async fn fleetctls_klusterlet_handed_back_is_taken_over_by_upstreams_operator_keeping_registration_and_workloads() {
    let Some((bin, env)) = upstream_env(1, &["--podman"]) else { return };
    let hub = env.client("hub").await;
    let cluster = env.client("cluster1").await;
    let import = env.fleetctl(&["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"]);
    assert!(import.status.success(), "import: {}\n{}", String::from_utf8_lossy(&import.stderr), env.logs());
    hello_work(&env, &hub, &cluster, "cluster1").await;
    let (before, certificate) = Kept::read(&hub, &cluster, "cluster1").await;

    // The hub lets go: its klusterlet works orphan everything but the operator.
    let started = Instant::now();
    let clusters = dynamic(&hub, "cluster.open-cluster-management.io", "v1", "ManagedCluster", None);
    let hand_back = json!({"metadata": {"annotations": {"fleetctl.io/own-klusterlet": "true"}}});
    clusters.patch("cluster1", &PatchParams::default(), &Patch::Merge(&hand_back)).await.expect("handed back");
    let ours: Api<Deployment> = Api::namespaced(cluster.clone(), "open-cluster-management-agent");
    wait(&env, ours.clone(), "klusterlet", "fleetctl's operator removed", gone).await;
    let released = |c: Option<&kube::api::DynamicObject>| {
        c.is_some_and(|c| {
            !c.metadata.finalizers.iter().flatten().any(|f| f.starts_with("managedcluster-import-controller"))
        })
    };
    wait(&env, clusters.clone(), "cluster1", "the hub let go", released).await;
    eprintln!("handed back: {:.2?}", started.elapsed());
    assert!(ours.get_opt("klusterlet-registration-agent").await.expect("read").is_some(), "the agents stay");

    // `clusteradm join` with the hub's token: upstream's operator takes the Klusterlet over.
    let started = Instant::now();
    let token = clusteradm(&bin, &env, &["get", "token", "--context", "hub", "--output", "json"]).await;
    let token: serde_json::Value = serde_json::from_slice(&token.stdout).expect("token as JSON");
    let token = token["hub-token"].as_str().expect("hub-token");
    let hub_url = env.server("hub");
    let join = ["join", "--hub-token", token, "--hub-apiserver", &hub_url, "--cluster-name", "cluster1"];
    clusteradm(&bin, &env, &[&join[..], &["--context", "cluster1", "--wait"]].concat()).await;
    let upstreams = |d: Option<&Deployment>| {
        d.and_then(|d| d.spec.as_ref()?.template.spec.as_ref()?.containers.first()?.image.clone())
            .is_some_and(|image| image.starts_with("quay.io/open-cluster-management/"))
    };
    wait(&env, ours.clone(), "klusterlet-registration-agent", "upstream's registration agent", upstreams).await;
    wait(&env, ours.clone(), "klusterlet-work-agent", "upstream's work agent", upstreams).await;
    eprintln!("taken over by upstream's operator: {:.2?}", started.elapsed());
    let fleetctls_operator = ours.get_opt("klusterlet").await.expect("read");
    assert!(fleetctls_operator.is_none(), "fleetctl's operator is not back: {fleetctls_operator:?}");
    // Upstream's agent ties its hub kubeconfig to the bootstrap kubeconfig it is given, byte for
    // byte (`hasAdditionalSecretData`), and `clusteradm join` gives it its own: it asks for a new
    // certificate of the same identity — one CSR, approved without `clusteradm accept`.
    let after = kept(&env, &hub, &cluster, "cluster1", &before).await;
    let new_csrs: Vec<&String> = after.csrs.difference(&certificate.csrs).collect();
    eprintln!("upstream's agent: certificate kept: {}, CSRs since: {new_csrs:?}", after.pem == certificate.pem);
    assert!(new_csrs.len() <= 1, "at most one certificate asked for: {new_csrs:?}");
}
