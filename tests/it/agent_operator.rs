//! The klusterlet operator against an in-process dev cluster: the tests apply the import
//! manifests, run the controller in-process, and play the node simulator (Deployment
//! status) and the registration agent (the hub-notified annotation).

use std::fmt::Debug;
use std::time::Duration;

use fleetctl_agent::operator::render::{
    APPLIED_MANIFEST_WORK_CRD, REGISTRATION_CLUSTER_ROLE, REGISTRATION_ROLE, REGISTRATION_SERVICE_ACCOUNT, WORK_ROLE,
    WORK_SERVICE_ACCOUNT,
};
use fleetctl_agent::operator::{CONTROLLER_NAME, OperatorSettings, controller};
use fleetctl_api::conditions::{self as c, FINALIZER_APPLIED_MANIFEST_WORK_CLEANUP, FINALIZER_KLUSTERLET_CLEANUP};
use fleetctl_api::names::{AGENT_NAMESPACE, REGISTRATION_DEPLOYMENT, WORK_DEPLOYMENT};
use fleetctl_api::names::{ANNOTATION_HUB_NOTIFIED, IMAGE_PULL_SECRET};
use fleetctl_api::{AppliedManifestWork, Klusterlet, crds};
use fleetctl_apiserver::Settings;
use fleetctl_hub::manifests::import::{self, ImportInputs};
use fleetctl_kube::ApplyOptions;
use fleetctl_kube::runner::metrics::Registry;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::runtime::wait::await_condition;
use kube::{Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use serde_json::json;

use crate::support::cluster::TestCluster;
use crate::support::{Restartable, assert_a_fresh_pass_writes_nothing, until};

const WAIT: Duration = Duration::from_secs(10);
const IMAGE: &str = "quay.io/fleetctl/fleetctl:0.1.0";
const ADDON_NAMESPACE: &str = "open-cluster-management-agent-addon";

/// A managed cluster with the Klusterlet CRD, the import manifests applied and the operator
/// running in-process.
struct Managed {
    cluster: TestCluster,
    metrics: Registry,
    timeout: Duration,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Managed {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Restartable for Managed {
    async fn restart_and_reconcile(&mut self) {
        let before = self.reconciles();
        self.restart();
        let metrics = self.metrics.controller(CONTROLLER_NAME);
        until("a fresh operator reconciles", || metrics.reconciles() > before && metrics.in_flight() == 0).await;
    }

    fn writes(&self) -> Vec<u64> {
        vec![self.cluster.server.state().store.rv()]
    }
}

impl Managed {
    async fn start() -> Self {
        Self::with_timeout(Duration::from_secs(60)).await
    }

    /// `timeout`: how long cleanup waits for the registration agent's word.
    async fn with_timeout(timeout: Duration) -> Self {
        // The test plays the node and the deployment controller (`set_available`).
        let server_settings = Settings { workload_controllers: false, ..Settings::default() };
        let cluster = TestCluster::with_settings(server_settings).await;
        // What `crds.yaml` brings: the Klusterlet CRD only; the operator installs the
        // AppliedManifestWork CRD itself.
        let crd_api: Api<CustomResourceDefinition> = Api::all(cluster.client.clone());
        crd_api.create(&PostParams::default(), &crds::klusterlet()).await.expect("klusterlet crd");
        let inputs = ImportInputs {
            cluster: "c1",
            hub_url: "https://hub.example:6443",
            hub_ca_pem: "CA",
            token: "t0k",
            image: IMAGE,
            image_pull_secret: None,
            mode: fleetctl_api::operator::InstallMode::Default,
            recovery: None,
        };
        fleetctl_kube::apply(&cluster.client, &import::objects(&inputs), &ApplyOptions::default())
            .await
            .expect("import manifests");
        let metrics = Registry::default();
        let task = tokio::spawn(controller(cluster.client.clone(), settings(&metrics, timeout)));
        Self { cluster, metrics, timeout, task }
    }

    /// Stops the controller and starts a fresh one (which reconciles everything once).
    fn restart(&mut self) {
        self.task.abort();
        self.task = tokio::spawn(controller(self.cluster.client.clone(), settings(&self.metrics, self.timeout)));
    }

    fn client(&self) -> Client {
        self.cluster.client.clone()
    }

    fn klusterlets(&self) -> Api<Klusterlet> {
        Api::all(self.client())
    }

    fn deployments(&self) -> Api<Deployment> {
        Api::namespaced(self.client(), AGENT_NAMESPACE)
    }

    fn reconciles(&self) -> u64 {
        self.metrics.controller(CONTROLLER_NAME).reconciles()
    }

    fn waits(&self) -> u64 {
        self.metrics.controller(CONTROLLER_NAME).waits()
    }

    /// Waits until the Klusterlet satisfies `check`.
    async fn wait_klusterlet(&self, check: impl Fn(&Klusterlet) -> bool) -> Klusterlet {
        wait_for(&self.klusterlets(), "klusterlet", check).await
    }

    /// Waits until both agent Deployments exist; returns (registration, work).
    async fn agents(&self) -> (Deployment, Deployment) {
        let registration = wait_for(&self.deployments(), REGISTRATION_DEPLOYMENT, |_| true).await;
        let work = wait_for(&self.deployments(), WORK_DEPLOYMENT, |_| true).await;
        (registration, work)
    }

    /// Plays the node simulator: `available` pods of the Deployment serve.
    async fn set_available(&self, name: &str, available: i32) {
        let status = json!({"status": {
            "replicas": 1, "updatedReplicas": 1, "readyReplicas": available, "availableReplicas": available,
        }});
        self.deployments().patch_status(name, &PatchParams::default(), &Patch::Merge(status)).await.expect("status");
    }

    /// Both agents up and the Klusterlet reporting it.
    async fn running(&self) -> Klusterlet {
        self.agents().await;
        self.set_available(REGISTRATION_DEPLOYMENT, 1).await;
        self.set_available(WORK_DEPLOYMENT, 1).await;
        self.wait_klusterlet(|k| c::is_true(k.conditions(), c::KLUSTERLET_AVAILABLE)).await
    }
}

fn settings(metrics: &Registry, timeout: Duration) -> OperatorSettings {
    OperatorSettings { hub_notify_timeout: timeout, metrics: metrics.clone(), ..OperatorSettings::default() }
}

/// Waits until object `name` exists and satisfies `check`.
async fn wait_for<K>(api: &Api<K>, name: &str, check: impl Fn(&K) -> bool) -> K
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + 'static,
{
    let ready = await_condition(api.clone(), name, move |o: Option<&K>| o.is_some_and(&check));
    tokio::time::timeout(WAIT, ready)
        .await
        .unwrap_or_else(|_| panic!("{name} in time"))
        .expect("watch")
        .expect("object")
}

/// Waits until object `name` is gone.
async fn wait_gone<K>(api: &Api<K>, name: &str)
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + 'static,
{
    let gone = await_condition(api.clone(), name, |o: Option<&K>| o.is_none());
    tokio::time::timeout(WAIT, gone).await.unwrap_or_else(|_| panic!("{name} gone in time")).expect("watch");
}

async fn exists<K>(api: &Api<K>, name: &str) -> bool
where
    K: Resource + Clone + DeserializeOwned + Debug,
{
    api.get_opt(name).await.expect("read").is_some()
}

fn container(deployment: &Deployment) -> k8s_openapi::api::core::v1::Container {
    deployment.spec.clone().unwrap().template.spec.unwrap().containers.remove(0)
}

/// An AppliedManifestWork of `agent_id`, held by the work agent's finalizer.
async fn applied_work(client: &Client, name: &str, agent_id: &str) -> AppliedManifestWork {
    let api: Api<AppliedManifestWork> = Api::all(client.clone());
    let work: AppliedManifestWork = serde_json::from_value(json!({
        "apiVersion": "work.open-cluster-management.io/v1", "kind": "AppliedManifestWork",
        "metadata": {"name": name, "finalizers": [FINALIZER_APPLIED_MANIFEST_WORK_CLEANUP]},
        "spec": {"hubHash": "abc", "agentID": agent_id, "manifestWorkName": "w1"},
    }))
    .unwrap();
    api.create(&PostParams::default(), &work).await.expect("applied work")
}

#[tokio::test]
async fn the_operator_installs_the_agents_from_the_klusterlet() {
    let managed = Managed::start().await;
    let klusterlet =
        managed.wait_klusterlet(|k| k.finalizers().iter().any(|f| f == FINALIZER_KLUSTERLET_CLEANUP)).await;
    let uid = klusterlet.uid().unwrap();

    let (registration, work) = managed.agents().await;
    let registration_container = container(&registration);
    assert_eq!(registration_container.image.as_deref(), Some(IMAGE));
    // No id: as upstream's, the agent keeps its hub kubeconfig secret's.
    assert_eq!(registration_container.args.unwrap(), ["agent", "registration", "--cluster-name", "c1"]);
    let registration_pod = registration.spec.clone().unwrap().template.spec.unwrap();
    assert_eq!(registration_pod.service_account_name.as_deref(), Some(REGISTRATION_SERVICE_ACCOUNT));
    assert_eq!(registration.labels()["app"], REGISTRATION_DEPLOYMENT);
    let work_container = container(&work);
    assert_eq!(work_container.image.as_deref(), Some(IMAGE));
    assert_eq!(work_container.args.unwrap(), ["agent", "work", "--cluster-name", "c1", "--agent-id", uid.as_str()]);
    assert_eq!(
        work.spec.clone().unwrap().template.spec.unwrap().service_account_name.as_deref(),
        Some(WORK_SERVICE_ACCOUNT)
    );

    let client = managed.client();
    let namespaces: Api<Namespace> = Api::all(client.clone());
    assert!(exists(&namespaces, AGENT_NAMESPACE).await);
    assert!(exists(&namespaces, ADDON_NAMESPACE).await);
    let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), AGENT_NAMESPACE);
    assert!(exists(&accounts, REGISTRATION_SERVICE_ACCOUNT).await);
    assert!(exists(&accounts, WORK_SERVICE_ACCOUNT).await);
    let cluster_roles: Api<ClusterRole> = Api::all(client.clone());
    let work_role = cluster_roles.get(WORK_ROLE).await.expect("work cluster role");
    assert_eq!(work_role.rules.unwrap()[0].verbs, ["*"]);
    assert!(exists(&cluster_roles, REGISTRATION_CLUSTER_ROLE).await);
    let bindings: Api<ClusterRoleBinding> = Api::all(client.clone());
    let work_binding = bindings.get(WORK_ROLE).await.expect("work binding");
    assert_eq!(work_binding.subjects.unwrap()[0].name, WORK_SERVICE_ACCOUNT);
    assert!(exists(&bindings, REGISTRATION_CLUSTER_ROLE).await);
    assert!(exists(&Api::<Role>::namespaced(client.clone(), AGENT_NAMESPACE), REGISTRATION_ROLE).await);
    assert!(exists(&Api::<RoleBinding>::namespaced(client.clone(), AGENT_NAMESPACE), REGISTRATION_ROLE).await);

    let crd_api: Api<CustomResourceDefinition> = Api::all(client.clone());
    wait_for(&crd_api, APPLIED_MANIFEST_WORK_CRD, |crd| {
        crd.status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|conditions| conditions.iter().any(|c| c.type_ == "Established" && c.status == "True"))
    })
    .await;

    // Nothing runs the agents here, so the Klusterlet is applied but not available.
    let klusterlet = managed
        .wait_klusterlet(|k| {
            c::is_true(k.conditions(), c::KLUSTERLET_APPLIED)
                && c::find(k.conditions(), c::KLUSTERLET_AVAILABLE).is_some()
        })
        .await;
    let available = c::find(klusterlet.conditions(), c::KLUSTERLET_AVAILABLE).unwrap();
    assert_eq!((available.status.as_str(), available.reason.as_str()), (c::FALSE, c::REASON_NO_AVAILABLE_PODS));
    assert!(c::is_true(klusterlet.conditions(), c::KLUSTERLET_REGISTRATION_DESIRED_DEGRADED));
    assert_eq!(klusterlet.status.unwrap().observed_generation, klusterlet.metadata.generation.unwrap());
}

#[tokio::test]
async fn the_conditions_follow_the_agent_deployments() {
    let managed = Managed::start().await;
    let klusterlet = managed.running().await;
    let conditions = klusterlet.conditions();
    assert_eq!(c::find(conditions, c::KLUSTERLET_AVAILABLE).unwrap().reason, c::REASON_KLUSTERLET_AVAILABLE);
    assert_eq!(c::find(conditions, c::KLUSTERLET_APPLIED).unwrap().reason, c::REASON_KLUSTERLET_APPLIED);
    for type_ in [c::KLUSTERLET_REGISTRATION_DESIRED_DEGRADED, c::KLUSTERLET_WORK_DESIRED_DEGRADED] {
        let condition = c::find(conditions, type_).unwrap();
        assert_eq!(
            (condition.status.as_str(), condition.reason.as_str()),
            (c::FALSE, c::REASON_DEPLOYMENTS_FUNCTIONAL)
        );
    }

    managed.set_available(WORK_DEPLOYMENT, 0).await;
    let klusterlet = managed.wait_klusterlet(|k| c::is_false(k.conditions(), c::KLUSTERLET_AVAILABLE)).await;
    let conditions = klusterlet.conditions();
    assert_eq!(c::find(conditions, c::KLUSTERLET_AVAILABLE).unwrap().reason, c::REASON_UNAVAILABLE_PODS);
    let work = c::find(conditions, c::KLUSTERLET_WORK_DESIRED_DEGRADED).unwrap();
    assert_eq!((work.status.as_str(), work.reason.as_str()), (c::TRUE, c::REASON_UNAVAILABLE_PODS));
    assert!(c::is_false(conditions, c::KLUSTERLET_REGISTRATION_DESIRED_DEGRADED));
}

#[tokio::test]
async fn an_image_change_rolls_the_agents() {
    let managed = Managed::start().await;
    managed.running().await;
    let patch = json!({"spec": {"registrationImagePullSpec": "quay.io/fleetctl/fleetctl:0.2.0"}});
    managed.klusterlets().patch("klusterlet", &PatchParams::default(), &Patch::Merge(patch)).await.expect("patch");
    let registration = wait_for(&managed.deployments(), REGISTRATION_DEPLOYMENT, |d| {
        container(d).image.as_deref() == Some("quay.io/fleetctl/fleetctl:0.2.0")
    })
    .await;
    assert_eq!(container(&registration).args.unwrap()[1], "registration");
    let work = managed.deployments().get(WORK_DEPLOYMENT).await.expect("work agent");
    assert_eq!(container(&work).image.as_deref(), Some(IMAGE), "only the registration agent rolls");
    let klusterlet = managed
        .wait_klusterlet(|k| k.status.as_ref().is_some_and(|s| Some(s.observed_generation) == k.metadata.generation))
        .await;
    assert!(c::is_true(klusterlet.conditions(), c::KLUSTERLET_APPLIED));
}

#[tokio::test]
async fn the_agents_pull_with_the_registry_credentials_the_import_manifests_brought() {
    let managed = Managed::start().await;
    managed.running().await;
    let accounts: Api<ServiceAccount> = Api::namespaced(managed.cluster.client.clone(), AGENT_NAMESPACE);
    let before = accounts.get(REGISTRATION_SERVICE_ACCOUNT).await.expect("account");
    assert!(before.image_pull_secrets.is_none(), "no reference to credentials that do not exist");
    let credentials = k8s_openapi::api::core::v1::Secret {
        metadata: fleetctl_kube::objects::namespaced_meta(AGENT_NAMESPACE, IMAGE_PULL_SECRET),
        type_: Some("kubernetes.io/dockerconfigjson".into()),
        data: Some([(".dockerconfigjson".to_string(), k8s_openapi::ByteString(b"{}".to_vec()))].into()),
        ..Default::default()
    };
    Api::namespaced(managed.cluster.client.clone(), AGENT_NAMESPACE)
        .create(&PostParams::default(), &credentials)
        .await
        .expect("credentials");
    // A change of the Klusterlet makes the operator render again.
    let patch = json!({"spec": {"workImagePullSpec": "quay.io/fleetctl/fleetctl:0.2.0"}});
    managed.klusterlets().patch("klusterlet", &PatchParams::default(), &Patch::Merge(patch)).await.expect("patch");
    for account in [REGISTRATION_SERVICE_ACCOUNT, WORK_SERVICE_ACCOUNT] {
        wait_for(&accounts, account, |a| {
            a.image_pull_secrets.as_ref().is_some_and(|p| p.iter().any(|r| r.name == IMAGE_PULL_SECRET))
        })
        .await;
    }
}

#[tokio::test]
async fn a_second_reconcile_of_an_unchanged_klusterlet_writes_nothing() {
    let mut managed = Managed::start().await;
    managed.running().await;
    assert_a_fresh_pass_writes_nothing(&mut managed).await;
}

#[tokio::test]
async fn deletion_waits_for_the_hub_notification_then_removes_everything() {
    let managed = Managed::start().await;
    let klusterlet = managed.running().await;
    let client = managed.client();
    let uid = klusterlet.uid().unwrap();
    applied_work(&client, "abc-w1", &uid).await;
    applied_work(&client, "abc-other", "another-agent").await;

    let waits_before = managed.waits();
    managed.klusterlets().delete("klusterlet", &DeleteParams::default()).await.expect("delete");
    // The registration agent runs, so the operator's pass over the deletion waits for its
    // word (counted as a wait) and leaves everything in place.
    until("the deletion is reconciled and waits", || managed.waits() > waits_before).await;
    assert!(exists(&managed.klusterlets(), "klusterlet").await, "held by the finalizer");
    assert!(exists(&managed.deployments(), REGISTRATION_DEPLOYMENT).await, "agents kept until the hub is told");

    let notified = json!({"metadata": {"annotations": {ANNOTATION_HUB_NOTIFIED: "true"}}});
    managed
        .klusterlets()
        .patch("klusterlet", &PatchParams::default(), &Patch::Merge(notified))
        .await
        .expect("annotate");
    wait_gone(&managed.klusterlets(), "klusterlet").await;

    assert!(!exists(&managed.deployments(), REGISTRATION_DEPLOYMENT).await);
    assert!(!exists(&managed.deployments(), WORK_DEPLOYMENT).await);
    let works: Api<AppliedManifestWork> = Api::all(client.clone());
    wait_gone(&works, "abc-w1").await;
    let other = works.get("abc-other").await.expect("another agent's work stays");
    assert_eq!(other.finalizers(), [FINALIZER_APPLIED_MANIFEST_WORK_CLEANUP]);
    let crd_api: Api<CustomResourceDefinition> = Api::all(client.clone());
    assert!(exists(&crd_api, APPLIED_MANIFEST_WORK_CRD).await, "the CRD stays while other agents' works exist");

    let cluster_roles: Api<ClusterRole> = Api::all(client.clone());
    let bindings: Api<ClusterRoleBinding> = Api::all(client.clone());
    for name in [REGISTRATION_CLUSTER_ROLE, WORK_ROLE, "klusterlet", "klusterlet-bootstrap-kubeconfig"] {
        wait_gone(&cluster_roles, name).await;
    }
    for name in [REGISTRATION_CLUSTER_ROLE, WORK_ROLE, "klusterlet"] {
        wait_gone(&bindings, name).await;
    }
    let namespaces: Api<Namespace> = Api::all(client.clone());
    wait_gone(&namespaces, ADDON_NAMESPACE).await;
    wait_gone(&namespaces, AGENT_NAMESPACE).await;
    let operator: Api<Deployment> = Api::namespaced(client.clone(), AGENT_NAMESPACE);
    assert!(!exists(&operator, "klusterlet").await, "the operator's own Deployment went with its namespace");
}

#[tokio::test]
async fn deletion_without_the_notification_proceeds_after_the_timeout() {
    let managed = Managed::with_timeout(Duration::from_secs(2)).await;
    managed.running().await;
    let waits_before = managed.waits();
    managed.klusterlets().delete("klusterlet", &DeleteParams::default()).await.expect("delete");
    wait_gone(&managed.klusterlets(), "klusterlet").await;
    assert!(managed.waits() > waits_before, "a pass waited for the registration agent before the timeout");
    let client = managed.client();
    assert!(!exists(&managed.deployments(), REGISTRATION_DEPLOYMENT).await);
    let crd_api: Api<CustomResourceDefinition> = Api::all(client.clone());
    wait_gone(&crd_api, APPLIED_MANIFEST_WORK_CRD).await;
    wait_gone(&Api::<Namespace>::all(client), AGENT_NAMESPACE).await;
}

#[tokio::test]
async fn deletion_does_not_wait_when_the_registration_agent_is_down() {
    let managed = Managed::start().await;
    managed.agents().await;
    managed.wait_klusterlet(|k| c::is_true(k.conditions(), c::KLUSTERLET_APPLIED)).await;
    let waits_before = managed.waits();
    managed.klusterlets().delete("klusterlet", &DeleteParams::default()).await.expect("delete");
    wait_gone(&managed.klusterlets(), "klusterlet").await;
    assert_eq!(managed.waits(), waits_before, "no pass waited for an agent that is not running");
    assert!(!exists(&managed.deployments(), WORK_DEPLOYMENT).await);
}

/// A registration agent whose pod is still starting (running, its readiness probe not yet
/// passed — seconds after an import) is waited for, up to the timeout, as a ready one is:
/// otherwise the hub would hear of the detach only when the cluster's lease runs out.
#[tokio::test]
async fn deletion_waits_for_a_registration_agent_that_is_still_starting() {
    let managed = Managed::with_timeout(Duration::from_secs(2)).await;
    managed.running().await;
    managed.set_available(REGISTRATION_DEPLOYMENT, 0).await;
    let waits_before = managed.waits();
    managed.klusterlets().delete("klusterlet", &DeleteParams::default()).await.expect("delete");
    wait_gone(&managed.klusterlets(), "klusterlet").await;
    assert!(managed.waits() > waits_before, "a pass waited for the starting registration agent");
}

#[tokio::test]
async fn the_operator_needs_no_more_than_the_import_manifests_grant() {
    let mut managed = Managed::start().await;
    managed.task.abort();
    // The operator's own identity: ServiceAccount `klusterlet`, bound by the import manifests.
    let operator =
        managed.cluster.client_as("system:serviceaccount:open-cluster-management-agent:klusterlet", &[]).await;
    managed.task = tokio::spawn(controller(operator, settings(&managed.metrics, Duration::from_secs(60))));
    managed.running().await;
    let klusterlet = managed.wait_klusterlet(|k| c::is_true(k.conditions(), c::KLUSTERLET_APPLIED)).await;
    applied_work(&managed.client(), "abc-w1", &klusterlet.uid().unwrap()).await;
    managed.klusterlets().delete("klusterlet", &DeleteParams::default()).await.expect("delete");
    let notified = json!({"metadata": {"annotations": {ANNOTATION_HUB_NOTIFIED: "true"}}});
    managed
        .klusterlets()
        .patch("klusterlet", &PatchParams::default(), &Patch::Merge(notified))
        .await
        .expect("annotate");
    wait_gone(&managed.klusterlets(), "klusterlet").await;
    let client = managed.client();
    // The released work was the last one, so its CRD went too (and the work with it).
    wait_gone(&Api::<CustomResourceDefinition>::all(client.clone()), APPLIED_MANIFEST_WORK_CRD).await;
    wait_gone(&Api::<ClusterRole>::all(client.clone()), WORK_ROLE).await;
    // What the operator cannot remove itself, the garbage collector does.
    wait_gone(&Api::<ClusterRole>::all(client.clone()), "klusterlet").await;
    wait_gone(&Api::<ClusterRoleBinding>::all(client.clone()), "klusterlet").await;
    wait_gone(&Api::<Namespace>::all(client), AGENT_NAMESPACE).await;
}

/// An agent Deployment selected by other labels — fleetctl's work agent before it took
/// upstream's `app: klusterlet-manifestwork-agent`, or another operator's — cannot be updated
/// (a selector is immutable): the operator makes it again with its own.
#[tokio::test]
async fn a_work_agent_deployment_with_another_selector_is_made_again_with_upstreams() {
    let mut managed = Managed::start().await;
    managed.running().await;
    managed.task.abort();
    let deployments = managed.deployments();
    deployments.delete(WORK_DEPLOYMENT, &DeleteParams::default()).await.expect("delete");
    wait_gone(&deployments, WORK_DEPLOYMENT).await;
    let old: Deployment = serde_json::from_value(json!({
        "metadata": {"name": WORK_DEPLOYMENT, "namespace": AGENT_NAMESPACE, "labels": {"app": "klusterlet-work-agent"}},
        "spec": {"selector": {"matchLabels": {"app": "klusterlet-work-agent"}},
                 "template": {"metadata": {"labels": {"app": "klusterlet-work-agent"}},
                              "spec": {"containers": [{"name": "klusterlet-manifestwork-agent", "image": IMAGE}]}}},
    }))
    .expect("a deployment");
    deployments.create(&PostParams::default(), &old).await.expect("the old work agent");
    managed.restart();
    let work = wait_for(&deployments, WORK_DEPLOYMENT, |d| {
        d.spec.as_ref().and_then(|s| s.selector.match_labels.as_ref()).and_then(|l| l.get("app")).map(String::as_str)
            == Some("klusterlet-manifestwork-agent")
    })
    .await;
    assert_eq!(container(&work).args.unwrap()[1], "work", "the operator's own work agent");
}

/// A klusterlet operator Deployment (`klusterlet`, `app: klusterlet`).
fn operator_deployment(namespace: &str) -> Deployment {
    serde_json::from_value(json!({
        "metadata": {"name": "klusterlet", "namespace": namespace, "labels": {"app": "klusterlet"}},
        "spec": {"selector": {"matchLabels": {"app": "klusterlet"}},
                 "template": {"metadata": {"labels": {"app": "klusterlet"}},
                              "spec": {"containers": [{"name": "klusterlet", "image": IMAGE}]}}},
    }))
    .expect("a deployment")
}

/// One operator per Klusterlet: `clusteradm join`'s operator (in `open-cluster-management`),
/// older than this one, is retired when this one takes the Klusterlet over; and what an
/// earlier fleetctl operator rendered under the names it had before it took upstream's is
/// deleted — only what carries the operator's label.
#[tokio::test]
async fn the_newest_operator_of_a_klusterlet_retires_the_older_and_prunes_rbac_under_fleetctls_former_names() {
    let mut managed = Managed::start().await;
    managed.running().await;
    managed.task.abort();
    let client = managed.client();
    let namespace: Namespace =
        serde_json::from_value(json!({"metadata": {"name": "open-cluster-management"}})).expect("ns");
    Api::<Namespace>::all(client.clone()).create(&PostParams::default(), &namespace).await.expect("namespace");
    let theirs: Api<Deployment> = Api::namespaced(client.clone(), "open-cluster-management");
    theirs.create(&PostParams::default(), &operator_deployment("open-cluster-management")).await.expect("theirs");
    // This operator's Deployment made again after it: the newer (in the same second, its
    // namespace's name decides, and decides the same).
    let ours = managed.deployments();
    ours.delete("klusterlet", &DeleteParams::default()).await.expect("delete ours");
    wait_gone(&ours, "klusterlet").await;
    ours.create(&PostParams::default(), &operator_deployment(AGENT_NAMESPACE)).await.expect("ours again");
    let roles: Api<ClusterRole> = Api::all(client.clone());
    let former = |name: &str, label: bool| -> ClusterRole {
        let labels = if label { json!({"fleetctl.io/klusterlet": "klusterlet"}) } else { json!({}) };
        serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}, "rules": []})).expect("a role")
    };
    roles.create(&PostParams::default(), &former("open-cluster-management:klusterlet-work", true)).await.expect("old");
    roles.create(&PostParams::default(), &former("someone-elses", false)).await.expect("unlabelled");

    managed.restart();
    wait_gone(&theirs, "klusterlet").await;
    wait_gone(&roles, "open-cluster-management:klusterlet-work").await;
    assert!(exists(&roles, WORK_ROLE).await, "the role under upstream's name stays");
    assert!(exists(&roles, "someone-elses").await, "what the operator did not label is not its to delete");
    assert!(exists(&ours, "klusterlet").await, "this operator stays");
}

/// A Klusterlet switched to Singleton mode, as upstream's operator switches it: one agent,
/// `klusterlet-agent`, as the work agent's ServiceAccount; the two agents retired; the
/// Klusterlet Available from the one Deployment.
#[tokio::test]
async fn a_klusterlet_switched_to_singleton_runs_one_agent_and_retires_the_two_as_upstreams_operator() {
    let managed = Managed::start().await;
    managed.running().await;
    let singleton = json!({"spec": {"deployOption": {"mode": "Singleton"}}});
    managed.klusterlets().patch("klusterlet", &PatchParams::default(), &Patch::Merge(&singleton)).await.expect("mode");
    let deployments = managed.deployments();
    let agent = wait_for(&deployments, "klusterlet-agent", |_| true).await;
    assert_eq!(container(&agent).args.unwrap()[..2], ["agent", "singleton"]);
    let pod = agent.spec.clone().unwrap().template.spec.unwrap();
    assert_eq!(pod.service_account_name.as_deref(), Some(WORK_SERVICE_ACCOUNT));
    wait_gone(&deployments, REGISTRATION_DEPLOYMENT).await;
    wait_gone(&deployments, WORK_DEPLOYMENT).await;
    managed.set_available("klusterlet-agent", 1).await;
    let klusterlet = managed.wait_klusterlet(|k| c::is_true(k.conditions(), c::KLUSTERLET_AVAILABLE)).await;
    let available = c::find(klusterlet.conditions(), c::KLUSTERLET_AVAILABLE).unwrap();
    assert_eq!(available.message, "deployments are ready");
}

/// A Hosted Klusterlet, as upstream's operator keeps one: its agents run here, in the
/// namespace of its name, with kubeconfigs of ServiceAccounts the operator makes on the managed
/// cluster (reached through the `external-managed-kubeconfig` its owner wrote); deleted, it
/// takes what it made on both clusters with it and leaves the operator serving.
#[tokio::test]
async fn a_hosted_klusterlet_runs_its_agents_here_with_tokens_of_the_managed_cluster_as_upstreams_operator() {
    use fleetctl_kube::kubeconfig::{self, Credentials, Names};
    use k8s_openapi::api::core::v1::{Node, Secret};
    let managed = Managed::start().await;
    let spoke = TestCluster::start().await;
    let client = managed.client();
    const NAME: &str = "klusterlet-c2";
    // Its owner (the hub's hosted work) writes the managed cluster's kubeconfig.
    let admin = spoke.server.client_certificate("admin", &["system:masters"]).expect("certificate");
    let credentials = Credentials::Certificate { cert_pem: admin.cert_pem, key_pem: admin.key_pem };
    let config = kubeconfig::single(Names::same("c2"), &spoke.server.url(), spoke.server.ca_pem(), credentials);
    let external: Secret = serde_json::from_value(json!({
        "metadata": {"name": "external-managed-kubeconfig", "namespace": NAME},
        "stringData": {"kubeconfig": kubeconfig::to_yaml(&config)},
    }))
    .expect("a secret");
    let hosted: Klusterlet = serde_json::from_value(json!({
        "apiVersion": "operator.open-cluster-management.io/v1", "kind": "Klusterlet",
        "metadata": {"name": NAME},
        "spec": {"clusterName": "c2", "namespace": "open-cluster-management-c2", "deployOption": {"mode": "Hosted"},
                 "imagePullSpec": IMAGE},
    }))
    .expect("a Klusterlet");
    managed.klusterlets().create(&PostParams::default(), &hosted).await.expect("the Hosted Klusterlet");
    // The operator makes the agents' namespace; without the kubeconfig the Klusterlet is not
    // ReadyToApply and says what is missing; with it, it deploys.
    wait_for(&Api::<Namespace>::all(client.clone()), NAME, |_| true).await;
    let missing = wait_for(&managed.klusterlets(), NAME, |k| {
        c::is_false(k.conditions(), c::KLUSTERLET_READY_TO_APPLY) && c::is_false(k.conditions(), c::KLUSTERLET_APPLIED)
    })
    .await;
    let applied = c::find(missing.conditions(), c::KLUSTERLET_APPLIED).expect("Applied");
    assert!(applied.message.contains("external-managed-kubeconfig is missing"), "{}", applied.message);
    Api::<Secret>::namespaced(client.clone(), NAME).create(&PostParams::default(), &external).await.expect("secret");
    wait_for(&managed.klusterlets(), NAME, |k| c::is_true(k.conditions(), c::KLUSTERLET_READY_TO_APPLY)).await;

    let deployments: Api<Deployment> = Api::namespaced(client.clone(), NAME);
    let registration = wait_for(&deployments, "klusterlet-c2-registration-agent", |_| true).await;
    let args = container(&registration).args.expect("args");
    assert_eq!(
        args,
        [
            "agent",
            "registration",
            "--cluster-name",
            "c2",
            "--klusterlet",
            NAME,
            "--spoke-kubeconfig",
            "/spoke/config/kubeconfig"
        ]
    );
    let pod = registration.spec.clone().unwrap().template.spec.unwrap();
    assert_eq!(pod.service_account_name.as_deref(), Some("klusterlet-c2-registration-sa"));
    let volume = &pod.volumes.expect("volumes")[0];
    assert_eq!(
        volume.secret.as_ref().and_then(|s| s.secret_name.as_deref()),
        Some("external-managed-kubeconfig-registration")
    );
    wait_for(&deployments, "klusterlet-c2-work-agent", |_| true).await;

    // On the managed cluster: the klusterlet namespace (`spec.namespace`), the agents'
    // accounts, their rules.
    let spoke_client = spoke.client.clone();
    let spoke_namespace = "open-cluster-management-c2";
    wait_for(&Api::<Namespace>::all(spoke_client.clone()), spoke_namespace, |_| true).await;
    wait_for(&Api::<CustomResourceDefinition>::all(spoke_client.clone()), APPLIED_MANIFEST_WORK_CRD, |_| true).await;
    let roles: Api<ClusterRole> = Api::all(spoke_client.clone());
    wait_for(&roles, "open-cluster-management:klusterlet-c2-work:agent", |_| true).await;
    // The agents' kubeconfigs hold tokens the managed cluster honours with those rules.
    let secrets: Api<Secret> = Api::namespaced(client.clone(), NAME);
    let written = wait_for(&secrets, "external-managed-kubeconfig-registration", |_| true).await;
    let text = String::from_utf8(written.data.expect("data")["kubeconfig"].0.clone()).expect("text");
    let (_, config) = kubeconfig::from_text(&text).await.expect("a kubeconfig");
    let as_agent = Client::try_from(config).expect("a client");
    Api::<Node>::all(as_agent).list(&Default::default()).await.expect("the registration agent lists the nodes");
    let serving = json!({"status": {"replicas": 1, "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1}});
    for agent in ["klusterlet-c2-registration-agent", "klusterlet-c2-work-agent"] {
        deployments.patch_status(agent, &PatchParams::default(), &Patch::Merge(&serving)).await.expect("status");
    }
    wait_for(&managed.klusterlets(), NAME, |k| c::is_true(k.conditions(), c::KLUSTERLET_AVAILABLE)).await;

    // Deleted: once the registration agent has told the hub (as in the Default mode), the
    // agents, what was made on both clusters; the operator stays.
    let waits_before = managed.waits();
    managed.klusterlets().delete(NAME, &DeleteParams::default()).await.expect("delete");
    until("the deletion waits for the hub to be told", || managed.waits() > waits_before).await;
    assert!(exists(&deployments, "klusterlet-c2-registration-agent").await, "agents kept until the hub is told");
    let notified = json!({"metadata": {"annotations": {ANNOTATION_HUB_NOTIFIED: "true"}}});
    managed.klusterlets().patch(NAME, &PatchParams::default(), &Patch::Merge(notified)).await.expect("annotate");
    wait_gone(&managed.klusterlets(), NAME).await;
    wait_gone(&deployments, "klusterlet-c2-registration-agent").await;
    wait_gone(&secrets, "external-managed-kubeconfig-work").await;
    wait_gone(&roles, "open-cluster-management:klusterlet-c2-work:agent").await;
    wait_gone(&Api::<ServiceAccount>::namespaced(spoke_client, spoke_namespace), "klusterlet-c2-work-sa").await;
    wait_gone(&Api::<Namespace>::all(client.clone()), NAME).await;
    assert!(exists(&managed.deployments(), "klusterlet").await, "the operator serves on");
    assert!(exists(&managed.klusterlets(), "klusterlet").await, "and the Klusterlet klusterlet is untouched");
}

/// The Default and Singleton modes are the Klusterlet `klusterlet`'s, as the import manifests
/// name it: another in those modes is refused, saying so, and deploys nothing.
#[tokio::test]
async fn a_default_mode_klusterlet_of_another_name_is_refused_and_deploys_nothing() {
    let managed = Managed::start().await;
    managed.running().await;
    let other: Klusterlet = serde_json::from_value(json!({
        "apiVersion": "operator.open-cluster-management.io/v1", "kind": "Klusterlet",
        "metadata": {"name": "other"}, "spec": {"clusterName": "c9"},
    }))
    .expect("a Klusterlet");
    managed.klusterlets().create(&PostParams::default(), &other).await.expect("created");
    let refused =
        wait_for(&managed.klusterlets(), "other", |k| c::is_false(k.conditions(), c::KLUSTERLET_APPLIED)).await;
    let applied = c::find(refused.conditions(), c::KLUSTERLET_APPLIED).expect("Applied");
    assert!(applied.message.contains("for the Klusterlet klusterlet only"), "{}", applied.message);
    assert!(refused.finalizers().is_empty(), "nothing to clean up: {:?}", refused.finalizers());
    let registration = managed.deployments().get(REGISTRATION_DEPLOYMENT).await.expect("klusterlet's agent");
    assert_eq!(container(&registration).args.unwrap()[3], "c1", "klusterlet's agents untouched");
}
