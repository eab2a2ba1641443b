//! Upstream OCM installing itself on `fleetctl dev up` clusters the way its users do on kind:
//! `clusteradm init` on a bare hub, `clusteradm join` + `accept` for a managed cluster, its
//! images (built from its source by `.ci/upstream-images`) run as Pods by the node
//! simulator — each Pod in a network of its own, with its volumes, env and probes — with no
//! wrapper. Needs podman, the upstream executables ([`upstream::VARIABLE`]) and images,
//! and root (network namespaces); under CI a missing one fails the test.

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Pod};
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, ListParams, PostParams};
use kube::runtime::wait::{await_condition, conditions};
use serde_json::json;

use super::DevUp;
use crate::support::upstream;

mod adoption;

/// The mutating webhook of upstream's hub that puts a cluster without a set in `default`.
const MANAGED_CLUSTER_MUTATOR: &str = "managedclustermutators.admission.cluster.open-cluster-management.io";

/// The image `clusteradm init` deploys first (bundle 1.3.1).
const OPERATOR_IMAGE: &str = "quay.io/open-cluster-management/registration-operator:v1.3.1";

/// How long one step may take before the test fails with what it saw: upstream's klusterlet
/// operator starts the work agent at its 30 s status resync after a write conflict, and a
/// loaded machine stretches that.
const STEP: Duration = Duration::from_secs(150);

/// Why the test cannot run here, if it cannot.
fn missing() -> Option<String> {
    if let Some(why) = super::image::missing() {
        return Some(why);
    }
    if !nix::unistd::Uid::effective().is_root() {
        return Some("making a Pod's network namespace takes root".into());
    }
    let exists = super::image::podman(&["image", "exists", OPERATOR_IMAGE]).is_ok_and(|o| o.status.success());
    (!exists)
        .then(|| format!("the image {OPERATOR_IMAGE} is not in podman's storage (build it with .ci/upstream-images)"))
}

/// Runs `clusteradm` with `args` against the environment; its output, with the step's time.
async fn clusteradm(bin: &Path, env: &DevUp, args: &[&str]) -> Output {
    let started = Instant::now();
    let output = tokio::process::Command::new(bin.join("clusteradm"))
        .args(args)
        .env("KUBECONFIG", env.kubeconfig())
        .kill_on_drop(true)
        .output();
    let output =
        tokio::time::timeout(STEP, output).await.expect("clusteradm within the step's time").expect("clusteradm");
    eprintln!("clusteradm {}: exit {:?} in {:.2?}", args[0], output.status.code(), started.elapsed());
    assert!(
        output.status.success(),
        "clusteradm {}: {}{}\n{}",
        args.join(" "),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        env.logs()
    );
    output
}

/// Waits until `condition` holds for the object `name` of `api`, failing with the logs.
async fn wait<K, C>(env: &DevUp, api: Api<K>, name: &str, what: &str, condition: C)
where
    K: kube::Resource + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + 'static,
    C: kube::runtime::wait::Condition<K>,
{
    let started = Instant::now();
    if tokio::time::timeout(STEP, await_condition(api, name, condition)).await.is_err() {
        panic!("{what}: not within {STEP:?}\n{}", env.logs());
    }
    eprintln!("{what}: {:.2?}", started.elapsed());
}

/// Whether the object is gone.
fn gone<K>(object: Option<&K>) -> bool {
    object.is_none()
}

/// Whether a dynamic object has the condition `kind` with status True.
fn has_true(kind: &'static str) -> impl Fn(Option<&DynamicObject>) -> bool {
    move |object| {
        object
            .and_then(|o| o.data["status"]["conditions"].as_array())
            .is_some_and(|conditions| conditions.iter().any(|c| c["type"] == kind && c["status"] == "True"))
    }
}

fn dynamic(
    client: &kube::Client,
    group: &str,
    version: &str,
    kind: &str,
    namespace: Option<&str>,
) -> Api<DynamicObject> {
    let resource = ApiResource::from_gvk(&GroupVersionKind::gvk(group, version, kind));
    match namespace {
        Some(namespace) => Api::namespaced_with(client.clone(), namespace, &resource),
        None => Api::all_with(client.clone(), &resource),
    }
}

/// The upstream executables and a dev environment of `clusters` started with `args`, or
/// `None` (with a notice) where the test cannot run.
fn upstream_env(clusters: usize, args: &[&str]) -> Option<(std::path::PathBuf, DevUp)> {
    let bin = upstream::executables()?;
    if let Some(why) = missing() {
        crate::support::skip(&format!("upstream OCM as pods: {why}"));
        return None;
    }
    Some((bin, DevUp::start_args(clusters, args)))
}

/// The images of the registration agent's Deployment on a managed cluster.
async fn registration_images(cluster: kube::Client) -> Vec<String> {
    let agents: Api<Deployment> = Api::namespaced(cluster, "open-cluster-management-agent");
    let registration = agents.get("klusterlet-registration-agent").await.expect("the registration agent");
    let containers = registration.spec.and_then(|s| s.template.spec).map(|p| p.containers).unwrap_or_default();
    containers.into_iter().filter_map(|c| c.image).collect()
}

/// `clusteradm init` on the hub: the cluster-manager operator, the hub Deployments it applies,
/// and its webhooks registered.
async fn init_hub(bin: &Path, env: &DevUp, hub: &kube::Client) {
    // The hub: the cluster-manager operator, then the hub Deployments it applies.
    clusteradm(bin, env, &["init", "--wait", "--context", "hub"]).await;
    let hub_deployments: Api<Deployment> = Api::namespaced(hub.clone(), "open-cluster-management-hub");
    for name in [
        "cluster-manager-registration-controller",
        "cluster-manager-registration-webhook",
        "cluster-manager-work-webhook",
        "cluster-manager-placement-controller",
        "cluster-manager-addon-manager-controller",
    ] {
        wait(env, hub_deployments.clone(), name, &format!("{name} Available"), conditions::is_deployment_completed())
            .await;
    }
    let managers = dynamic(hub, "operator.open-cluster-management.io", "v1", "ClusterManager", None);
    wait(env, managers, "cluster-manager", "ClusterManager Applied", has_true("Applied")).await;
    // The operator registers the hub's webhooks once their Deployments serve, which can come
    // after `init --wait` returns. A cluster that joins before then misses the mutating
    // webhook's default cluster-set label, and upstream's validating webhook refuses every
    // later write that brings it back — the removal of upstream's own finalizers included —
    // so, as anyone scripting OCM, join only once they are registered.
    let mutating: Api<MutatingWebhookConfiguration> = Api::all(hub.clone());
    let registered = |w: Option<&MutatingWebhookConfiguration>| w.is_some();
    wait(env, mutating, MANAGED_CLUSTER_MUTATOR, "the ManagedCluster webhook registered", registered).await;
}

#[tokio::test]
async fn clusteradm_installs_upstream_ocm_as_pods_joins_a_cluster_applies_work_and_unjoins() {
    let Some((bin, env)) = upstream_env(1, &["--bare-hub", "--podman"]) else { return };
    let hub = env.client("hub").await;
    let cluster = env.client("cluster1").await;

    init_hub(&bin, &env, &hub).await;

    // Three replicas of the operator listen on the same ports, each in its network: all
    // Ready, each at an address of its own.
    let operators: Api<Pod> = Api::namespaced(hub.clone(), "open-cluster-management");
    let pods = operators.list(&ListParams::default().labels("app=cluster-manager")).await.expect("operator Pods");
    let mut addresses: Vec<String> = pods
        .items
        .iter()
        .filter(|p| {
            p.status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
        })
        .filter_map(|p| p.status.as_ref()?.pod_ip.clone())
        .collect();
    addresses.sort();
    addresses.dedup();
    assert_eq!(addresses.len(), 3, "3 Ready operator Pods at 3 addresses: {:#?}", pods.items);

    // The managed cluster joins with the hub's bootstrap token, and is accepted.
    join_with_clusteradm(&bin, &env, "cluster1").await;
    let clusters = dynamic(&hub, "cluster.open-cluster-management.io", "v1", "ManagedCluster", None);
    wait(&env, clusters.clone(), "cluster1", "ManagedCluster Joined", has_true("ManagedClusterJoined")).await;
    wait(&env, clusters.clone(), "cluster1", "ManagedCluster Available", has_true("ManagedClusterConditionAvailable"))
        .await;

    // A ManifestWork with feedback rules: applied by upstream's work agent, its status fed back.
    let works = dynamic(&hub, "work.open-cluster-management.io", "v1", "ManifestWork", Some("cluster1"));
    let work: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "work.open-cluster-management.io/v1",
        "kind": "ManifestWork",
        "metadata": {"name": "hello", "namespace": "cluster1"},
        "spec": {
            "workload": {"manifests": [{
                "apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "hello", "namespace": "default"},
                "spec": {
                    "replicas": 2,
                    "selector": {"matchLabels": {"app": "hello"}},
                    "template": {"metadata": {"labels": {"app": "hello"}},
                                 "spec": {"containers": [{"name": "hello", "image": "example.com/hello:1"}]}}
                }
            }]},
            "manifestConfigs": [{
                "resourceIdentifier": {"group": "apps", "resource": "deployments", "name": "hello", "namespace": "default"},
                "feedbackRules": [{"type": "WellKnownStatus"},
                                  {"type": "JSONPaths", "jsonPaths": [{"name": "replicas", "path": ".spec.replicas"}]}]
            }]
        }
    }))
    .expect("a ManifestWork");
    works.create(&PostParams::default(), &work).await.expect("the ManifestWork is created");
    wait(&env, works.clone(), "hello", "ManifestWork Applied", has_true("Applied")).await;
    let fed_back = |work: Option<&DynamicObject>| {
        work.and_then(|w| w.data["status"]["resourceStatus"]["manifests"][0]["statusFeedback"]["values"].as_array())
            .is_some_and(|values| values.iter().any(|v| v["name"] == "replicas" && v["fieldValue"]["integer"] == 2))
    };
    wait(&env, works.clone(), "hello", "ManifestWork status fed back", fed_back).await;
    let deployments: Api<Deployment> = Api::namespaced(cluster.clone(), "default");
    wait(&env, deployments.clone(), "hello", "the work's Deployment Available", conditions::is_deployment_completed())
        .await;
    works.delete("hello", &Default::default()).await.expect("the ManifestWork is deleted");
    wait(&env, deployments, "hello", "the work's Deployment deleted", gone).await;

    // Unjoin, once the work agent let go of the work (clusteradm refuses while an
    // AppliedManifestWork is left): the klusterlet and its agents' namespace go; upstream
    // leaves the operator's namespace and the AppliedManifestWork and ClusterClaim CRDs by
    // design.
    let applied = dynamic(&cluster, "work.open-cluster-management.io", "v1", "AppliedManifestWork", None);
    for left in applied.list(&ListParams::default()).await.expect("AppliedManifestWorks") {
        let name = left.metadata.name.clone().expect("a name");
        wait(&env, applied.clone(), &name, "the AppliedManifestWork deleted", gone).await;
    }
    let unjoin = clusteradm(&bin, &env, &["unjoin", "--cluster-name", "cluster1", "--context", "cluster1"]).await;
    eprintln!("clusteradm unjoin said: {}", String::from_utf8_lossy(&unjoin.stdout).trim());
    let namespaces: Api<Namespace> = Api::all(cluster.clone());
    wait(&env, namespaces, "open-cluster-management-agent", "the agents' namespace deleted", gone).await;
    // The operator's Pod, its Deployment deleted by unjoin, stops within its grace period.
    let operator: Api<Pod> = Api::namespaced(cluster.clone(), "open-cluster-management");
    for left in operator.list(&ListParams::default()).await.expect("Pods") {
        let name = left.metadata.name.clone().expect("a name");
        wait(&env, operator.clone(), &name, "the klusterlet operator's Pod gone", gone).await;
    }
    let pods: Api<Pod> = Api::all(cluster.clone());
    let left = pods.list(&ListParams::default()).await.expect("Pods");
    assert!(left.items.is_empty(), "Pods left on cluster1: {:?}", left.items);
    clusters.delete("cluster1", &Default::default()).await.expect("the ManagedCluster is deleted");
    wait(&env, clusters, "cluster1", "ManagedCluster deleted", gone).await;
}

/// `clusteradm join` to a fleetctl hub, beside a cluster `fleetctl import` imported: the
/// hub-wide bootstrap identity `hub install` makes (`clusteradm get token`), acceptance by
/// `clusteradm accept`, and then, as on an OCM hub, the cluster keeps upstream's klusterlet —
/// no import secret, klusterlet works or import condition — and is Joined, Available and
/// ClockSynced like the imported one.
#[tokio::test]
async fn a_cluster_joined_with_clusteradm_keeps_its_own_klusterlet_on_a_fleetctl_hub_as_on_ocms() {
    let Some((bin, env)) = upstream_env(2, &["--podman"]) else { return };
    let hub = env.client("hub").await;
    let imported = env.fleetctl(&["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"]);
    assert!(imported.status.success(), "import: {}\n{}", String::from_utf8_lossy(&imported.stderr), env.logs());

    join_with_clusteradm(&bin, &env, "cluster2").await;

    let clusters = dynamic(&hub, "cluster.open-cluster-management.io", "v1", "ManagedCluster", None);
    for name in ["cluster1", "cluster2"] {
        for condition in
            ["ManagedClusterJoined", "ManagedClusterConditionAvailable", "ManagedClusterConditionClockSynced"]
        {
            wait(&env, clusters.clone(), name, &format!("{name} {condition}"), has_true(condition)).await;
        }
    }
    let joined = clusters.get("cluster2").await.expect("cluster2");
    assert_eq!(
        joined.metadata.annotations.as_ref().and_then(|a| a.get("fleetctl.io/own-klusterlet")).map(String::as_str),
        Some("true"),
        "{joined:?}"
    );
    let conditions = joined.data["status"]["conditions"].as_array().cloned().unwrap_or_default();
    assert!(
        !conditions.iter().any(|c| c["type"] == "ManagedClusterImportSucceeded"),
        "nothing imports cluster2: {conditions:?}"
    );
    let works = dynamic(&hub, "work.open-cluster-management.io", "v1", "ManifestWork", Some("cluster2"));
    let written = works.list(&ListParams::default()).await.expect("cluster2's ManifestWorks");
    assert!(written.items.is_empty(), "no klusterlet works for cluster2: {:?}", written.items);
    let images = registration_images(env.client("cluster2").await).await;
    assert_eq!(images, ["quay.io/open-cluster-management/registration:v1.3.1"], "upstream's agent stays");

    // Side by side on this hub, the imported cluster says what the joined one says.
    let imported = clusters.get("cluster1").await.expect("cluster1");
    eprintln!("cluster2 (joined, upstream's klusterlet): {}", serde_yaml::to_string(&joined).expect("yaml"));
    eprintln!("cluster1 (imported, fleetctl's klusterlet): {}", serde_yaml::to_string(&imported).expect("yaml"));
    let missing = lacking(&joined, &imported);
    assert!(missing.is_empty(), "the imported cluster leaves out what the joined one reports: {missing:?}");

    an_addon_registers_through_upstreams_agent(&env, &hub, "cluster2").await;
}

/// An addon registered through upstream's registration agent on a fleetctl hub, the way an
/// addon manager has it registered: the ManagedClusterAddOn and its `kubeClient`
/// registration written in v1alpha1 (the stored version); upstream's agent reads it in
/// v1beta1 (converted by the hub's webhook), asks for the addon agent's certificate (approved
/// by fleetctl's hub as upstream's default approver does), writes the addon's hub kubeconfig
/// on the managed cluster, and reports the addon Available from its lease.
async fn an_addon_registers_through_upstreams_agent(env: &DevUp, hub: &kube::Client, cluster: &str) {
    use k8s_openapi::api::coordination::v1::Lease;
    use k8s_openapi::api::core::v1::Secret;
    use kube::api::{Patch, PatchParams};

    const INSTALL_NAMESPACE: &str = "open-cluster-management-agent-addon";
    let managed = env.client(cluster).await;
    // The addon's namespace, which its deployment would bring.
    let namespace: Namespace = serde_json::from_value(json!({"metadata": {"name": INSTALL_NAMESPACE}})).expect("ns");
    match Api::<Namespace>::all(managed.clone()).create(&PostParams::default(), &namespace).await {
        Ok(_) => {}
        Err(kube::Error::Api(status)) if status.code == 409 => {}
        Err(e) => panic!("the addon's namespace: {e}"),
    }
    let addons = dynamic(hub, "addon.open-cluster-management.io", "v1alpha1", "ManagedClusterAddOn", Some(cluster));
    let addon: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "addon.open-cluster-management.io/v1alpha1", "kind": "ManagedClusterAddOn",
        "metadata": {"name": "hello", "namespace": cluster}, "spec": {"installNamespace": INSTALL_NAMESPACE},
    }))
    .expect("an addon");
    addons.create(&PostParams::default(), &addon).await.expect("the ManagedClusterAddOn");
    let registration = json!({"status": {"registrations": [{
        "signerName": "kubernetes.io/kube-apiserver-client",
        "subject": {
            "user": format!("system:open-cluster-management:cluster:{cluster}:addon:hello:agent:hello-agent"),
            "groups": [format!("system:open-cluster-management:cluster:{cluster}:addon:hello"),
                       "system:open-cluster-management:addon:hello"],
        },
    }]}});
    addons
        .patch_status("hello", &PatchParams::default(), &Patch::Merge(&registration))
        .await
        .expect("its registration");
    let secrets: Api<Secret> = Api::namespaced(managed.clone(), INSTALL_NAMESPACE);
    let has_kubeconfig =
        |s: Option<&Secret>| s.and_then(|s| s.data.as_ref()).is_some_and(|d| d.contains_key("kubeconfig"));
    wait(env, secrets, "hello-hub-kubeconfig", "the addon's hub kubeconfig on the managed cluster", has_kubeconfig)
        .await;
    // The addon agent renews its lease.
    let lease: Lease = serde_json::from_value(json!({
        "metadata": {"name": "hello", "namespace": INSTALL_NAMESPACE},
        "spec": {"holderIdentity": "hello-agent", "leaseDurationSeconds": 60,
                 "renewTime": jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()},
    }))
    .expect("a lease");
    Api::<Lease>::namespaced(managed, INSTALL_NAMESPACE).create(&PostParams::default(), &lease).await.expect("lease");
    wait(env, addons, "hello", "the addon Available (upstream's agent, its lease)", has_true("Available")).await;
}

/// `fleetctl import` into an upstream OCM hub (`clusteradm init`: cluster-manager, no import
/// controller) joins the cluster the clusteradm way with fleetctl's klusterlet — a token of
/// the hub's bootstrap identity, the klusterlet applied, the first CSR approved as
/// `clusteradm accept` approves it — and the cluster is Joined, Available and ClockSynced
/// on upstream's hub, which applies a ManifestWork through fleetctl's work agent. `upgrade`
/// is refused before any write (nothing there renders a klusterlet), and `detach` ends as
/// `fleetctl import` of cluster1 into the upstream hub, labelled (the first run and its rerun).
const IMPORT_CLUSTER1: [&str; 8] =
    ["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1", "--label", "env=e2e"];

/// `clusteradm unjoin`: the works removed, then the klusterlet, then the ManagedCluster.
#[tokio::test]
async fn fleetctl_imports_into_an_upstream_ocm_hub_the_clusteradm_way_upgrade_is_refused_and_detach_unjoins() {
    let Some((bin, env)) = upstream_env(1, &["--bare-hub", "--podman"]) else { return };
    let hub = env.client("hub").await;
    let cluster = env.client("cluster1").await;
    init_hub(&bin, &env, &hub).await;

    let started = Instant::now();
    let import = env.fleetctl(&IMPORT_CLUSTER1);
    let said = String::from_utf8_lossy(&import.stderr).into_owned();
    assert!(import.status.success(), "import: {said}\n{}", env.logs());
    eprintln!("fleetctl import into an OCM hub: exit 0 in {:.2?}", started.elapsed());
    let result = String::from_utf8_lossy(&import.stdout).into_owned();
    assert!(result.contains("imported"), "{result}");
    let clusters = dynamic(&hub, "cluster.open-cluster-management.io", "v1", "ManagedCluster", None);
    for condition in ["ManagedClusterJoined", "ManagedClusterConditionAvailable", "ManagedClusterConditionClockSynced"]
    {
        wait(&env, clusters.clone(), "cluster1", &format!("cluster1 {condition}"), has_true(condition)).await;
    }
    let joined = clusters.get("cluster1").await.expect("cluster1");
    let labels = joined.metadata.labels.clone().unwrap_or_default();
    assert_eq!(labels.get("env").map(String::as_str), Some("e2e"), "{labels:?}");
    assert_eq!(
        labels.get("cluster.open-cluster-management.io/clusterset").map(String::as_str),
        Some("default"),
        "upstream's webhook put it in the default set: {labels:?}"
    );
    let images = registration_images(cluster.clone()).await;
    assert!(images.iter().all(|i| i.starts_with("quay.io/fleetctl/fleetctl:")), "fleetctl's agents: {images:?}");

    // A rerun finishes at once: the cluster namespace upstream's hub made is its own.
    let again = env.fleetctl(&IMPORT_CLUSTER1);
    let said = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(again.status.success(), "rerun: {said}{}", String::from_utf8_lossy(&again.stderr));
    assert!(said.contains("already imported"), "{said}");

    let get = env.fleetctl(&["get", "clusters", "--hub-context", "hub"]);
    let table = String::from_utf8_lossy(&get.stdout).into_owned();
    assert!(get.status.success(), "{}", String::from_utf8_lossy(&get.stderr));
    let row = table.lines().find(|l| l.starts_with("cluster1")).unwrap_or_else(|| panic!("{table}"));
    assert!(row.contains(fleetctl_api::names::VERSION), "the version fleetctl's agents run: {table}");

    // A ManifestWork of upstream's hub, applied by fleetctl's work agent.
    let works = dynamic(&hub, "work.open-cluster-management.io", "v1", "ManifestWork", Some("cluster1"));
    let work: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "work.open-cluster-management.io/v1", "kind": "ManifestWork",
        "metadata": {"name": "hello", "namespace": "cluster1"},
        "spec": {"workload": {"manifests": [{
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "hello", "namespace": "default"}, "data": {"from": "ocm"}
        }]}}
    }))
    .expect("a ManifestWork");
    works.create(&PostParams::default(), &work).await.expect("the ManifestWork is created");
    wait(&env, works.clone(), "hello", "ManifestWork Applied", has_true("Applied")).await;
    let maps: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(cluster.clone(), "default");
    maps.get("hello").await.expect("the work's ConfigMap on cluster1");

    let upgrade = env.fleetctl(&["upgrade", "cluster1", "--to", "9.9.9", "--hub-context", "hub"]);
    let said = String::from_utf8_lossy(&upgrade.stderr).into_owned();
    assert_eq!(upgrade.status.code(), Some(4), "refused, nothing changed: {said}");
    assert!(said.contains("no import controller"), "{said}");
    let after = clusters.get("cluster1").await.expect("cluster1");
    let version = fleetctl_api::names::ANNOTATION_KLUSTERLET_VERSION;
    assert!(!after.metadata.annotations.unwrap_or_default().contains_key(version), "no version recorded");

    let started = Instant::now();
    let detach =
        env.fleetctl(&["detach", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1", "--yes"]);
    let said = String::from_utf8_lossy(&detach.stderr).into_owned();
    assert!(detach.status.success(), "detach: {said}\n{}", env.logs());
    eprintln!("fleetctl detach from an OCM hub: exit 0 in {:.2?}", started.elapsed());
    assert!(clusters.get_opt("cluster1").await.expect("read").is_none(), "the ManagedCluster is gone");
    assert!(maps.get_opt("hello").await.expect("read").is_none(), "the work's ConfigMap went with its work");
    let namespaces: Api<Namespace> = Api::all(cluster.clone());
    for gone_namespace in ["open-cluster-management-agent", "open-cluster-management-agent-addon"] {
        let left = namespaces.get_opt(gone_namespace).await.expect("read");
        assert!(left.is_none_or(|n| n.metadata.deletion_timestamp.is_some()), "{gone_namespace} goes");
    }
}

/// Joins `name` to the hub with clusteradm (`get token`, `join --wait`, `accept --wait`).
async fn join_with_clusteradm(bin: &Path, env: &DevUp, name: &str) {
    let token = clusteradm(bin, env, &["get", "token", "--context", "hub", "--output", "json"]).await;
    let token: serde_json::Value = serde_json::from_slice(&token.stdout).expect("token as JSON");
    let token = token["hub-token"].as_str().expect("hub-token");
    let hub_url = env.server("hub");
    let join = ["join", "--hub-token", token, "--hub-apiserver", &hub_url, "--cluster-name", name];
    clusteradm(bin, env, &[&join[..], &["--context", name, "--wait"]].concat()).await;
    clusteradm(bin, env, &["accept", "--clusters", name, "--context", "hub", "--wait"]).await;
}

/// The keys of a JSON object at `path` (`/status/capacity`, say) whose values say something
/// (an empty list, map or null says nothing), sorted.
fn keys(object: &DynamicObject, path: &str) -> std::collections::BTreeSet<String> {
    let says = |v: &serde_json::Value| match v {
        serde_json::Value::Null => false,
        serde_json::Value::Array(items) => !items.is_empty(),
        serde_json::Value::Object(fields) => !fields.is_empty(),
        _ => true,
    };
    let value = serde_json::to_value(object).expect("JSON");
    let fields = value.pointer(path).and_then(|v| v.as_object()).cloned().unwrap_or_default();
    fields.into_iter().filter(|(_, v)| says(v)).map(|(k, _)| k).collect()
}

/// The values of `field` in the list at `path`, sorted.
fn listed(object: &DynamicObject, path: &str, field: &str) -> std::collections::BTreeSet<String> {
    let value = serde_json::to_value(object).expect("JSON");
    let items = value.pointer(path).and_then(|v| v.as_array()).cloned().unwrap_or_default();
    items.iter().filter_map(|i| i[field].as_str().map(str::to_owned)).collect()
}

/// What `theirs` (upstream's ManagedCluster) says that `ours` does not — condition types
/// with their statuses, labels, status and spec fields, capacity, allocatable and claims —
/// each comparison printed with what `ours` adds.
fn lacking(theirs: &DynamicObject, ours: &DynamicObject) -> Vec<String> {
    // Each condition as `type=status`.
    let conditions = |o: &DynamicObject| -> std::collections::BTreeSet<String> {
        let value = serde_json::to_value(o).expect("JSON");
        let conditions = value.pointer("/status/conditions").and_then(|c| c.as_array()).cloned().unwrap_or_default();
        conditions
            .iter()
            .map(|c| format!("{}={}", c["type"].as_str().unwrap_or(""), c["status"].as_str().unwrap_or("")))
            .collect()
    };
    let compared = [
        ("condition (type, status)", conditions(theirs), conditions(ours)),
        ("label", keys(theirs, "/metadata/labels"), keys(ours, "/metadata/labels")),
        ("status field", keys(theirs, "/status"), keys(ours, "/status")),
        ("capacity", keys(theirs, "/status/capacity"), keys(ours, "/status/capacity")),
        ("allocatable", keys(theirs, "/status/allocatable"), keys(ours, "/status/allocatable")),
        ("claim", listed(theirs, "/status/clusterClaims", "name"), listed(ours, "/status/clusterClaims", "name")),
        ("spec field", keys(theirs, "/spec"), keys(ours, "/spec")),
    ];
    let mut missing = Vec::new();
    for (what, upstreams, fleetctls) in &compared {
        let lacks: Vec<&String> = upstreams.difference(fleetctls).collect();
        let adds: Vec<&String> = fleetctls.difference(upstreams).collect();
        eprintln!("{what}: upstream's {upstreams:?}; fleetctl's lacks {lacks:?}, adds {adds:?}");
        missing.extend(lacks.into_iter().map(|l| format!("{what} {l}")));
    }
    missing
}

/// On upstream's hub, the ManagedCluster of a cluster fleetctl imported (fleetctl's
/// klusterlet) says what the one of a cluster clusteradm joined (upstream's) says: every
/// condition type, label, status field, capacity and claim upstream's has, fleetctl's has
/// too (with the same condition statuses). What fleetctl's adds is printed: its version
/// claims, the Klusterlet's HubConnectionDegraded (which fleetctl's registration agent
/// reports on purpose), and the target's URL the import records.
#[tokio::test]
async fn on_an_upstream_hub_fleetctls_klusterlet_keeps_its_managed_cluster_as_upstreams_does() {
    let Some((bin, env)) = upstream_env(2, &["--bare-hub", "--podman"]) else { return };
    let hub = env.client("hub").await;
    init_hub(&bin, &env, &hub).await;
    join_with_clusteradm(&bin, &env, "cluster1").await;
    let import = env.fleetctl(&["import", "cluster2", "--hub-context", "hub", "--cluster-context", "cluster2"]);
    assert!(import.status.success(), "import: {}\n{}", String::from_utf8_lossy(&import.stderr), env.logs());
    let clusters = dynamic(&hub, "cluster.open-cluster-management.io", "v1", "ManagedCluster", None);
    for name in ["cluster1", "cluster2"] {
        for condition in
            ["ManagedClusterJoined", "ManagedClusterConditionAvailable", "ManagedClusterConditionClockSynced"]
        {
            wait(&env, clusters.clone(), name, &format!("{name} {condition}"), has_true(condition)).await;
        }
    }
    let upstream = clusters.get("cluster1").await.expect("cluster1");
    let ours = clusters.get("cluster2").await.expect("cluster2");
    eprintln!("cluster1 (upstream's klusterlet): {}", serde_yaml::to_string(&upstream).expect("yaml"));
    eprintln!("cluster2 (fleetctl's klusterlet): {}", serde_yaml::to_string(&ours).expect("yaml"));
    let missing = lacking(&upstream, &ours);
    assert!(missing.is_empty(), "fleetctl's klusterlet leaves out what upstream's reports: {missing:?}");
}
