//! The work agent between two in-process dev clusters: a hub holding ManifestWorks in the
//! cluster namespace `c1`, and a managed cluster where the agent runs with the
//! confined hub identity the registration agent would have earned.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::time::Duration;

use fleetctl_agent::Clusters;
use fleetctl_agent::work::{CONTROLLER, Settings, agent};
use fleetctl_api::conditions::{
    self, FINALIZER_APPLIED_MANIFEST_WORK_CLEANUP, FINALIZER_MANIFEST_WORK_CLEANUP, TRUE, find,
};
use fleetctl_api::names::{AGENT_NAMESPACE, HUB_KUBECONFIG_SECRET};
use fleetctl_api::work::{DeleteOption, DeletePropagationPolicy, OrphaningRule, SelectivelyOrphan, hub_hash};
use fleetctl_api::{AppliedManifestWork, Manifest, ManifestWork, crds};
use fleetctl_hub::registration::agent_rbac;
use fleetctl_kube::kubeconfig::{self, Credentials, Names};
use fleetctl_kube::runner::health::Health;
use k8s_openapi::ByteString;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams};
use kube::runtime::wait::{await_condition, conditions::is_deleted};
use kube::{Client, CustomResourceExt, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::support::cluster::TestCluster;
use crate::support::{Restartable, assert_a_fresh_pass_writes_nothing, until};

const WAIT: Duration = Duration::from_secs(20);
const CLUSTER: &str = "c1";
const AGENT_ID: &str = "agent1";
const AGENT_USER: &str = "system:open-cluster-management:c1:agent1";
const AGENT_GROUPS: [&str; 2] =
    ["system:open-cluster-management:c1", "system:open-cluster-management:managed-clusters"];

/// A hub and a managed cluster, and the work agent between them.
struct Fleet {
    hub: TestCluster,
    managed: TestCluster,
    /// Where the agent runs and keeps its secret when not on the managed cluster
    /// (`--spoke-kubeconfig`).
    management: Option<TestCluster>,
    health: Health,
    settings: Settings,
    agent: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for Fleet {
    fn drop(&mut self) {
        if let Some(agent) = self.agent.take() {
            agent.abort();
        }
    }
}

impl Restartable for Fleet {
    async fn restart_and_reconcile(&mut self) {
        let metrics = self.health.metrics.controller(CONTROLLER);
        let before = metrics.reconciles();
        self.start_agent();
        until("a fresh agent reconciles", || metrics.reconciles() > before && metrics.in_flight() == 0).await;
    }

    fn writes(&self) -> Vec<u64> {
        vec![self.hub.server.state().store.rv(), self.managed.server.state().store.rv()]
    }
}

impl Fleet {
    /// Both clusters with their CRDs, namespaces and the agent's hub RBAC; no secret, no agent.
    async fn bare() -> Self {
        let hub = hub().await;
        let managed = TestCluster::start().await;
        let managed_crds: Api<CustomResourceDefinition> = Api::all(managed.client.clone());
        managed_crds.create(&PostParams::default(), &AppliedManifestWork::crd()).await.expect("managed crd");
        create_namespace(&managed.client, AGENT_NAMESPACE).await;
        Self { hub, managed, management: None, health: Health::default(), settings: Settings::default(), agent: None }
    }

    /// Everything, with the agent running and evicting orphaned records after `grace`.
    async fn evicting_after(grace: Duration) -> Self {
        let mut fleet = Self::bare().await;
        fleet.settings = Settings { eviction_grace_period: grace, ..Settings::default() };
        fleet.write_secret(&AGENT_GROUPS).await;
        fleet.start_agent();
        fleet
    }

    /// Everything, with the agent running on its real identity.
    async fn start() -> Self {
        let mut fleet = Self::bare().await;
        fleet.write_secret(&AGENT_GROUPS).await;
        fleet.start_agent();
        fleet
    }

    /// Writes `hub-kubeconfig-secret` with a fresh certificate of the agent user in `groups`.
    async fn write_secret(&self, groups: &[&str]) {
        self.write_secret_signed_by(&self.hub, groups).await;
    }

    /// Writes `hub-kubeconfig-secret` for the hub with a certificate `signer`'s CA issued.
    async fn write_secret_signed_by(&self, signer: &TestCluster, groups: &[&str]) {
        self.write_secret_for(&self.hub, signer, groups).await;
    }

    /// Writes `hub-kubeconfig-secret` for `hub` with a certificate `signer`'s CA issued.
    async fn write_secret_for(&self, hub: &TestCluster, signer: &TestCluster, groups: &[&str]) {
        let cert = signer.server.client_certificate(AGENT_USER, groups).expect("certificate");
        let credentials = Credentials::Certificate { cert_pem: cert.cert_pem.clone(), key_pem: cert.key_pem.clone() };
        let kubeconfig = kubeconfig::single(Names::same("hub"), &hub.server.url(), hub.server.ca_pem(), credentials);
        let mut secret = Secret::default();
        secret.metadata.name = Some(HUB_KUBECONFIG_SECRET.into());
        secret.data = Some(BTreeMap::from([(
            "kubeconfig".to_string(),
            ByteString(kubeconfig::to_yaml(&kubeconfig).into_bytes()),
        )]));
        Api::<Secret>::namespaced(self.clusters().management, AGENT_NAMESPACE)
            .patch(HUB_KUBECONFIG_SECRET, &PatchParams::apply("test").force(), &Patch::Apply(&secret))
            .await
            .expect("write secret");
    }

    /// The agent's clusters: the managed one, and where it runs if elsewhere.
    fn clusters(&self) -> Clusters {
        let management = self.management.as_ref().unwrap_or(&self.managed).client.clone();
        Clusters { management, spoke: self.managed.client.clone(), hosted: true }
    }

    /// Starts the agent (again), as a fresh process would.
    fn start_agent(&mut self) {
        if let Some(agent) = self.agent.take() {
            agent.abort();
        }
        self.agent = Some(tokio::spawn(agent(
            self.clusters(),
            CLUSTER.into(),
            AGENT_ID.into(),
            AGENT_NAMESPACE.into(),
            self.health.clone(),
            self.settings,
        )));
    }

    fn works(&self) -> Api<ManifestWork> {
        Api::namespaced(self.hub.client.clone(), CLUSTER)
    }

    fn records(&self) -> Api<AppliedManifestWork> {
        Api::all(self.managed.client.clone())
    }

    fn record_name(&self, work: &str) -> String {
        format!("{}-{work}", hub_hash(&self.hub.server.url()))
    }

    fn config_maps(&self) -> Api<ConfigMap> {
        Api::namespaced(self.managed.client.clone(), "default")
    }

    fn deployments(&self) -> Api<Deployment> {
        Api::namespaced(self.managed.client.clone(), "default")
    }

    async fn create_work(
        &self,
        name: &str,
        manifests: Vec<Value>,
        delete_option: Option<DeleteOption>,
    ) -> ManifestWork {
        let mut work = ManifestWork::for_cluster(CLUSTER, name, manifests.into_iter().map(Manifest).collect());
        work.spec.delete_option = delete_option;
        self.works().create(&PostParams::default(), &work).await.expect("create work")
    }

    /// Waits until the work is Applied and Available at its current generation.
    async fn wait_applied(&self, name: &str) -> ManifestWork {
        wait_for(self.works(), name, |w: &ManifestWork| w.is_applied() && w.is_available()).await
    }

    async fn delete_work(&self, name: &str) {
        self.works().delete(name, &DeleteParams::default()).await.expect("delete work");
    }
}

/// A hub with the CRDs, the cluster namespace and the agent's RBAC.
async fn hub() -> TestCluster {
    let hub = TestCluster::start().await;
    let hub_crds: Api<CustomResourceDefinition> = Api::all(hub.client.clone());
    for crd in crds::all() {
        hub_crds.create(&PostParams::default(), &crd).await.expect("hub crd");
    }
    create_namespace(&hub.client, CLUSTER).await;
    let rbac = agent_rbac(CLUSTER);
    let pp = PostParams::default();
    Api::<ClusterRole>::all(hub.client.clone()).create(&pp, &rbac.cluster_role).await.expect("cluster role");
    Api::<ClusterRoleBinding>::all(hub.client.clone()).create(&pp, &rbac.cluster_binding).await.expect("binding");
    for (role, binding) in &rbac.roles {
        Api::<Role>::namespaced(hub.client.clone(), CLUSTER).create(&pp, role).await.expect("role");
        Api::<RoleBinding>::namespaced(hub.client.clone(), CLUSTER).create(&pp, binding).await.expect("binding");
    }
    hub
}

async fn create_namespace(client: &Client, name: &str) {
    let mut namespace = Namespace::default();
    namespace.metadata.name = Some(name.into());
    Api::<Namespace>::all(client.clone()).create(&PostParams::default(), &namespace).await.expect("namespace");
}

/// Waits until `check` holds for the object.
async fn wait_for<K>(api: Api<K>, name: &str, check: impl Fn(&K) -> bool + Send + 'static) -> K
where
    K: Resource + Clone + Debug + DeserializeOwned + Send + 'static,
{
    let ready = await_condition(api, name, move |o: Option<&K>| o.is_some_and(&check));
    tokio::time::timeout(WAIT, ready)
        .await
        .unwrap_or_else(|_| panic!("{name}: condition in time"))
        .expect("watch")
        .expect("object")
}

/// Waits until the object is gone.
async fn wait_gone<K>(api: Api<K>, name: &str)
where
    K: Resource + Clone + Debug + DeserializeOwned + Send + 'static,
{
    let Some(object) = api.get_opt(name).await.expect("read") else { return };
    let uid = object.meta().uid.clone().unwrap_or_default();
    let gone = await_condition(api, name, is_deleted(&uid));
    tokio::time::timeout(WAIT, gone).await.unwrap_or_else(|_| panic!("{name}: gone in time")).expect("watch");
}

fn config_map(name: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "default"},
        "data": {"k": "v"}
    })
}

fn deployment(name: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]}
            }
        }
    })
}

fn policy(policy: DeletePropagationPolicy) -> Option<DeleteOption> {
    Some(DeleteOption { propagation_policy: policy, ..DeleteOption::default() })
}

#[tokio::test]
async fn a_work_is_applied_tracked_and_reported() {
    let fleet = Fleet::start().await;
    fleet.create_work("w1", vec![config_map("cm1"), deployment("d1")], None).await;
    let work = fleet.wait_applied("w1").await;

    let cm = fleet.config_maps().get("cm1").await.expect("config map applied");
    let deploy = fleet.deployments().get("d1").await.expect("deployment applied");
    assert_eq!(cm.data.as_ref().and_then(|d| d.get("k")).map(String::as_str), Some("v"));
    assert!(
        cm.managed_fields().iter().any(|f| f.manager.as_deref() == Some("work-agent")),
        "applied as the work agent: {:?}",
        cm.managed_fields()
    );

    assert!(work.finalizers().iter().any(|f| f == FINALIZER_MANIFEST_WORK_CLEANUP));
    let applied = find(work.conditions(), conditions::WORK_APPLIED).expect("applied");
    assert_eq!(applied.reason, conditions::REASON_APPLIED_MANIFEST_WORK_COMPLETE);
    assert_eq!(applied.observed_generation, work.metadata.generation);
    let available = find(work.conditions(), conditions::WORK_AVAILABLE).expect("available");
    assert_eq!(available.reason, conditions::REASON_RESOURCES_AVAILABLE);
    assert!(conditions::is_false(work.conditions(), conditions::WORK_DEGRADED));

    let manifests = &work.status.as_ref().expect("status").resource_status.manifests;
    assert_eq!(manifests.len(), 2);
    let metas: Vec<_> = manifests
        .iter()
        .map(|m| {
            let r = &m.resource_meta;
            (r.ordinal, r.group.as_str(), r.version.as_str(), r.kind.as_str(), r.resource.as_str(), r.name.as_str())
        })
        .collect();
    assert_eq!(
        metas,
        [(0, "", "v1", "ConfigMap", "configmaps", "cm1"), (1, "apps", "v1", "Deployment", "deployments", "d1")]
    );
    for manifest in manifests {
        assert_eq!(manifest.resource_meta.namespace, "default");
        let applied = find(&manifest.conditions, conditions::WORK_APPLIED).expect("manifest applied");
        assert_eq!((applied.status.as_str(), applied.reason.as_str()), (TRUE, "AppliedManifestComplete"));
        let available = find(&manifest.conditions, conditions::WORK_AVAILABLE).expect("manifest available");
        assert_eq!((available.status.as_str(), available.reason.as_str()), (TRUE, "ResourceAvailable"));
    }

    let record = fleet.records().get(&fleet.record_name("w1")).await.expect("appliedmanifestwork");
    assert_eq!(record.spec.hub_hash, hub_hash(&fleet.hub.server.url()));
    assert_eq!((record.spec.agent_id.as_str(), record.spec.manifest_work_name.as_str()), (AGENT_ID, "w1"));
    assert!(record.finalizers().iter().any(|f| f == FINALIZER_APPLIED_MANIFEST_WORK_CLEANUP));
    let resources: Vec<_> = record
        .status
        .as_ref()
        .expect("record status")
        .applied_resources
        .iter()
        .map(|r| {
            (
                r.group.as_str(),
                r.version.as_str(),
                r.resource.as_str(),
                r.namespace.as_str(),
                r.name.as_str(),
                r.uid.clone(),
            )
        })
        .collect();
    assert_eq!(
        resources,
        [
            ("", "v1", "configmaps", "default", "cm1", cm.uid().expect("uid")),
            ("apps", "v1", "deployments", "default", "d1", deploy.uid().expect("uid")),
        ]
    );
}

/// Upstream's `--spoke-kubeconfig` (Hosted mode): the agent keeps its hub kubeconfig secret on
/// the cluster it runs on, and applies works — and records them — on the managed cluster.
#[tokio::test]
async fn an_agent_running_outside_its_cluster_applies_there_as_upstreams_spoke_kubeconfig_has_it() {
    let mut fleet = Fleet::bare().await;
    let management = TestCluster::start().await;
    create_namespace(&management.client, AGENT_NAMESPACE).await;
    fleet.management = Some(management);
    fleet.write_secret(&AGENT_GROUPS).await;
    fleet.start_agent();
    fleet.create_work("w1", vec![config_map("cm1")], None).await;
    fleet.wait_applied("w1").await;
    fleet.config_maps().get("cm1").await.expect("applied on the managed cluster");
    let management = fleet.management.as_ref().expect("management").client.clone();
    let elsewhere = Api::<ConfigMap>::namespaced(management.clone(), "default").get_opt("cm1").await.expect("read");
    assert!(elsewhere.is_none(), "nothing applied where the agent runs");
    let records = Api::<AppliedManifestWork>::all(fleet.managed.client.clone());
    assert_eq!(records.list(&Default::default()).await.expect("records").items.len(), 1, "its record is there too");
    let secrets = Api::<Secret>::namespaced(fleet.managed.client.clone(), AGENT_NAMESPACE);
    let secret = secrets.get_opt(HUB_KUBECONFIG_SECRET).await.expect("read");
    assert!(secret.is_none(), "no credentials on the managed cluster");
}

#[tokio::test]
async fn a_manifest_removed_from_a_work_is_deleted() {
    let fleet = Fleet::start().await;
    fleet.create_work("w1", vec![config_map("cm1"), deployment("d1")], None).await;
    let first = fleet.wait_applied("w1").await;

    let patch = json!({"spec": {"workload": {"manifests": [deployment("d1")]}}});
    fleet.works().patch("w1", &PatchParams::default(), &Patch::Merge(patch)).await.expect("edit work");
    wait_gone(fleet.config_maps(), "cm1").await;
    let generation = first.metadata.generation.map(|g| g + 1);
    let work = wait_for(fleet.works(), "w1", move |w: &ManifestWork| {
        w.is_applied() && w.is_available() && w.metadata.generation == generation
    })
    .await;
    assert_eq!(work.status.expect("status").resource_status.manifests.len(), 1);
    assert!(fleet.deployments().get_opt("d1").await.expect("read").is_some(), "the kept manifest stays");
    let record = wait_for(fleet.records(), &fleet.record_name("w1"), |r: &AppliedManifestWork| {
        r.status.as_ref().is_some_and(|s| s.applied_resources.len() == 1)
    })
    .await;
    assert_eq!(record.status.expect("status").applied_resources[0].name, "d1");
}

#[tokio::test]
async fn a_deleted_work_goes_only_after_its_resources() {
    let fleet = Fleet::start().await;
    // The config map holds its own deletion until the test lets go, so the agent must wait.
    let mut held = config_map("cm1");
    held["metadata"]["finalizers"] = json!(["example.com/hold"]);
    fleet.create_work("w1", vec![held, deployment("d1")], None).await;
    fleet.wait_applied("w1").await;

    fleet.delete_work("w1").await;
    wait_for(fleet.config_maps(), "cm1", |c: &ConfigMap| c.metadata.deletion_timestamp.is_some()).await;
    wait_gone(fleet.deployments(), "d1").await;
    let work = fleet.works().get("w1").await.expect("the work waits for its resources");
    assert!(work.finalizers().iter().any(|f| f == FINALIZER_MANIFEST_WORK_CLEANUP));
    assert!(fleet.records().get_opt(&fleet.record_name("w1")).await.expect("read").is_some(), "record kept");

    let release = Patch::Merge(json!({"metadata": {"finalizers": null}}));
    fleet.config_maps().patch("cm1", &PatchParams::default(), &release).await.expect("release");
    wait_gone(fleet.works(), "w1").await;
    assert!(fleet.config_maps().get_opt("cm1").await.expect("read").is_none());
    assert!(fleet.records().get_opt(&fleet.record_name("w1")).await.expect("read").is_none(), "record removed");
}

#[tokio::test]
async fn an_orphaning_work_leaves_its_resources() {
    let fleet = Fleet::start().await;
    fleet.create_work("w1", vec![config_map("cm1"), deployment("d1")], policy(DeletePropagationPolicy::Orphan)).await;
    fleet.wait_applied("w1").await;

    fleet.delete_work("w1").await;
    wait_gone(fleet.works(), "w1").await;
    assert!(fleet.records().get_opt(&fleet.record_name("w1")).await.expect("read").is_none(), "record removed");
    assert!(fleet.config_maps().get_opt("cm1").await.expect("read").is_some(), "config map orphaned");
    assert!(fleet.deployments().get_opt("d1").await.expect("read").is_some(), "deployment orphaned");
}

#[tokio::test]
async fn selectively_orphan_keeps_only_the_listed_resources() {
    let fleet = Fleet::start().await;
    let mut option = policy(DeletePropagationPolicy::SelectivelyOrphan).expect("option");
    option.selectively_orphans = Some(SelectivelyOrphan {
        orphaning_rules: vec![OrphaningRule {
            group: String::new(),
            resource: "configmaps".into(),
            name: "cm1".into(),
            namespace: "default".into(),
        }],
    });
    fleet.create_work("w1", vec![config_map("cm1"), deployment("d1")], Some(option)).await;
    fleet.wait_applied("w1").await;

    fleet.delete_work("w1").await;
    wait_gone(fleet.works(), "w1").await;
    assert!(fleet.config_maps().get_opt("cm1").await.expect("read").is_some(), "listed config map kept");
    assert!(fleet.deployments().get_opt("d1").await.expect("read").is_none(), "deployment deleted");
    assert!(fleet.records().get_opt(&fleet.record_name("w1")).await.expect("read").is_none(), "record removed");
}

#[tokio::test]
async fn an_unknown_kind_fails_only_its_manifest() {
    let fleet = Fleet::start().await;
    let widget =
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"}});
    fleet.create_work("w1", vec![config_map("cm1"), widget, deployment("d1")], None).await;
    let work = wait_for(fleet.works(), "w1", |w: &ManifestWork| {
        find(w.conditions(), conditions::WORK_APPLIED)
            .is_some_and(|c| c.status == conditions::FALSE && c.observed_generation == w.metadata.generation)
    })
    .await;

    let applied = find(work.conditions(), conditions::WORK_APPLIED).expect("applied");
    assert_eq!(applied.reason, conditions::REASON_APPLIED_MANIFEST_WORK_FAILED);
    assert!(
        applied.message.contains("the cluster does not serve kind Widget in example.com/v1"),
        "{}",
        applied.message
    );
    assert!(conditions::is_true(work.conditions(), conditions::WORK_DEGRADED));
    let manifests = &work.status.as_ref().expect("status").resource_status.manifests;
    assert_eq!(manifests.len(), 3);
    let widget = find(&manifests[1].conditions, conditions::WORK_APPLIED).expect("widget applied condition");
    assert_eq!((widget.status.as_str(), widget.reason.as_str()), (conditions::FALSE, "AppliedManifestFailed"));
    assert!(conditions::is_true(&manifests[2].conditions, conditions::WORK_APPLIED));

    assert!(fleet.config_maps().get_opt("cm1").await.expect("read").is_some(), "the others are applied");
    assert!(fleet.deployments().get_opt("d1").await.expect("read").is_some(), "the others are applied");
    let record = fleet.records().get(&fleet.record_name("w1")).await.expect("record");
    assert_eq!(record.status.expect("status").applied_resources.len(), 2);
}

#[tokio::test]
async fn a_crd_and_its_objects_apply_in_one_work() {
    let fleet = Fleet::start().await;
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]
        }
    });
    let gadget = json!({
        "apiVersion": "example.com/v1", "kind": "Gadget",
        "metadata": {"name": "g1", "namespace": "default"},
        "spec": {"size": 3}
    });
    fleet.create_work("w1", vec![crd, gadget], None).await;
    let work = fleet.wait_applied("w1").await;
    assert_eq!(work.status.expect("status").resource_status.manifests[1].resource_meta.resource, "gadgets");
    let gvk = GroupVersionKind::gvk("example.com", "v1", "Gadget");
    let resource = kube::api::ApiResource::from_gvk_with_plural(&gvk, "gadgets");
    let gadgets: Api<DynamicObject> = Api::namespaced_with(fleet.managed.client.clone(), "default", &resource);
    assert!(gadgets.get_opt("g1").await.expect("read").is_some());
}

#[tokio::test]
async fn an_unchanged_work_is_not_written_again() {
    let mut fleet = Fleet::start().await;
    fleet.create_work("w1", vec![config_map("cm1"), deployment("d1")], None).await;
    fleet.wait_applied("w1").await;
    assert_a_fresh_pass_writes_nothing(&mut fleet).await;
}

#[tokio::test]
async fn the_agent_waits_for_its_secret_and_follows_its_rotation() {
    let mut fleet = Fleet::bare().await;
    // A first identity whose rights the test can take away again: the agent roles bound
    // to a group of its own.
    const OLD_GROUP: &str = "test:old-agent";
    let bindings: Api<RoleBinding> = Api::namespaced(fleet.hub.client.clone(), CLUSTER);
    for (role, _) in agent_rbac(CLUSTER).roles {
        let binding: RoleBinding = serde_json::from_value(json!({
            "metadata": {"name": format!("old-{}", role.name_any())},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role.name_any()},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": OLD_GROUP}],
        }))
        .expect("binding");
        bindings.create(&PostParams::default(), &binding).await.expect("old binding");
    }

    // No secret yet: the agent waits for one.
    fleet.start_agent();
    fleet.create_work("w1", vec![config_map("cm1")], None).await;
    fleet.write_secret(&[OLD_GROUP]).await;
    fleet.wait_applied("w1").await;

    // The old identity loses its rights and the secret gets a certificate of the new one:
    // the second work can only be applied and reported with the rotated credential.
    for (role, _) in agent_rbac(CLUSTER).roles {
        bindings.delete(&format!("old-{}", role.name_any()), &DeleteParams::default()).await.expect("revoke");
    }
    fleet.write_secret(&AGENT_GROUPS).await;
    fleet.create_work("w2", vec![config_map("cm2")], None).await;
    fleet.wait_applied("w2").await;
    assert!(fleet.config_maps().get_opt("cm2").await.expect("read").is_some());
}

#[tokio::test]
async fn a_work_agent_the_hub_refuses_is_not_ready_until_its_secret_is_rewritten_without_a_restart() {
    let mut fleet = Fleet::bare().await;
    fleet.start_agent();
    assert!(!fleet.health.is_ready(), "not ready without a hub kubeconfig");
    fleet.create_work("w1", vec![config_map("cm1")], None).await;
    fleet.write_secret(&AGENT_GROUPS).await;
    fleet.wait_applied("w1").await;
    in_time(fleet.health.until_ready(true)).await;

    // A certificate of a CA the hub does not trust: the hub answers every watch with 401.
    fleet.write_secret_signed_by(&fleet.managed, &AGENT_GROUPS).await;
    in_time(fleet.health.until_ready(false)).await;

    // The same agent takes the rewritten secret and serves again.
    fleet.write_secret(&AGENT_GROUPS).await;
    fleet.create_work("w2", vec![config_map("cm2")], None).await;
    fleet.wait_applied("w2").await;
    in_time(fleet.health.until_ready(true)).await;
}

async fn in_time(wait: impl std::future::Future<Output = ()>) {
    tokio::time::timeout(WAIT, wait).await.expect("in time");
}

#[tokio::test]
async fn a_record_deleted_on_the_managed_cluster_is_finished_and_made_again() {
    let fleet = Fleet::start().await;
    fleet.create_work("w1", vec![config_map("cm1")], None).await;
    fleet.wait_applied("w1").await;
    let record_name = fleet.record_name("w1");
    let old_record = fleet.records().get(&record_name).await.expect("record").uid().expect("uid");
    let old_cm = fleet.config_maps().get("cm1").await.expect("config map").uid().expect("uid");

    // As upstream: the record's resources go with it, then the work is applied afresh.
    fleet.records().delete(&record_name, &DeleteParams::default()).await.expect("delete record");
    let record = wait_for(fleet.records(), &record_name, move |r: &AppliedManifestWork| {
        r.uid().is_some_and(|u| u != old_record) && r.status.as_ref().is_some_and(|s| !s.applied_resources.is_empty())
    })
    .await;
    let cm = fleet.config_maps().get("cm1").await.expect("config map applied again");
    assert_ne!(cm.uid(), Some(old_cm), "the old config map went with its record");
    assert_eq!(record.status.expect("status").applied_resources[0].uid, cm.uid().expect("uid"));
}

/// Status feedback as upstream's work agent reports it: the values a manifest config's
/// JSONPaths read from the applied object, and WellKnownStatus (nothing for a kind upstream
/// knows none of); read again at the status sync interval, so a change on the managed
/// cluster (a label another manager set) reaches the hub without a change of the work.
#[tokio::test]
async fn feedback_rules_report_the_objects_values_and_follow_them_at_the_status_sync_interval() {
    use fleetctl_api::work::{
        FeedbackRule, FeedbackType, JsonPath as FeedbackPath, ManifestConfigOption, ResourceIdentifier,
    };
    let fleet = Fleet::start().await;
    let mut work = ManifestWork::for_cluster(CLUSTER, "fed", vec![Manifest(config_map("fed"))]);
    let path = |name: &str, path: &str| FeedbackPath { name: name.into(), path: path.into(), version: String::new() };
    work.spec.manifest_configs = vec![ManifestConfigOption {
        resource_identifier: ResourceIdentifier {
            resource: "configmaps".into(),
            name: "fed".into(),
            namespace: "default".into(),
            ..ResourceIdentifier::default()
        },
        feedback_rules: vec![
            FeedbackRule {
                type_: FeedbackType::JsonPaths,
                json_paths: vec![path("k", ".data.k"), path("extra", ".metadata.labels.extra")],
            },
            FeedbackRule { type_: FeedbackType::WellKnownStatus, json_paths: Vec::new() },
        ],
        ..ManifestConfigOption::default()
    }];
    fleet.works().create(&PostParams::default(), &work).await.expect("create work");
    let value = |work: &ManifestWork, name: &str| -> Option<String> {
        let manifests = &work.status.as_ref()?.resource_status.manifests;
        let values = &manifests.first()?.status_feedback.values;
        values.iter().find(|v| v.name == name).and_then(|v| v.value.string.clone())
    };
    let fed = wait_for(fleet.works(), "fed", move |w: &ManifestWork| value(w, "k").as_deref() == Some("v")).await;
    let names: Vec<&str> = fed.status.as_ref().expect("status").resource_status.manifests[0]
        .status_feedback
        .values
        .iter()
        .map(|v| v.name.as_str())
        .collect();
    assert_eq!(names, ["k"], "no label yet, and no well-known statuses of a ConfigMap");

    let label = json!({"metadata": {"labels": {"extra": "set-there"}}});
    fleet.config_maps().patch("fed", &PatchParams::default(), &Patch::Merge(&label)).await.expect("label");
    let started = std::time::Instant::now();
    wait_for(fleet.works(), "fed", move |w: &ManifestWork| value(w, "extra").as_deref() == Some("set-there")).await;
    eprintln!("the label reached the hub's feedback in {:.2?}", started.elapsed());
}

/// Two works applying one ConfigMap: deleting one removes its record and its own resources,
/// and keeps the shared ConfigMap (same uid), still on the other work's record — upstream's
/// shared ownership (`deleteoption_test.go`, "resource sharing").
#[tokio::test]
async fn a_resource_two_works_apply_stays_when_one_of_them_is_deleted() {
    let fleet = Fleet::start().await;
    fleet.create_work("first", vec![config_map("shared"), config_map("own")], None).await;
    fleet.create_work("second", vec![config_map("shared")], None).await;
    fleet.wait_applied("first").await;
    fleet.wait_applied("second").await;
    let uid = fleet.config_maps().get("shared").await.expect("shared").uid();
    fleet.delete_work("first").await;
    wait_gone(fleet.records(), &fleet.record_name("first")).await;
    wait_gone(fleet.config_maps(), "own").await;
    let kept = fleet.config_maps().get("shared").await.expect("the shared ConfigMap stays");
    assert_eq!(kept.uid(), uid, "the same object");
    let record = fleet.records().get(&fleet.record_name("second")).await.expect("second's record");
    let listed = record.status.expect("status").applied_resources;
    assert!(listed.iter().any(|r| r.name == "shared" && Some(&r.uid) == uid.as_ref()), "{listed:?}");
}

/// A manifest whose namespace does not exist fails alone, as upstream's (OCM's work suite,
/// "With multiple manifests"): its 404 names the namespace, so the kind stays known and the
/// next manifest of the same kind applies.
#[tokio::test]
async fn a_manifest_in_a_missing_namespace_fails_alone_and_its_kind_stays_known() {
    let fleet = Fleet::start().await;
    let mut missing = config_map("lost");
    missing["metadata"]["namespace"] = json!("no-such-namespace");
    fleet.create_work("mixed", vec![missing, config_map("kept")], None).await;
    let work = wait_for(fleet.works(), "mixed", |w: &ManifestWork| {
        w.status.as_ref().is_some_and(|s| s.resource_status.manifests.len() == 2)
    })
    .await;
    let manifests = &work.status.as_ref().expect("status").resource_status.manifests;
    let applied = |i: usize| find(&manifests[i].conditions, conditions::WORK_APPLIED).map(|c| c.status.clone());
    assert_eq!((applied(0).as_deref(), applied(1).as_deref()), (Some("False"), Some(TRUE)), "{manifests:?}");
    fleet.config_maps().get("kept").await.expect("the other ConfigMap applied");
}

/// How long the eviction tests give a record whose work is gone.
const SHORT_GRACE: Duration = Duration::from_secs(2);

/// A work forced off the hub while the agent was away (its finalizer stripped) leaves a record
/// nobody owns: the agent marks its eviction start, and once the grace period has passed deletes
/// the record and what it applied — upstream's unmanaged-AppliedManifestWork controller (OCM's
/// work suite, "Should evict applied work when its manifestwork is missing on the hub").
#[tokio::test]
async fn a_record_whose_work_was_forced_off_the_hub_is_evicted_after_the_grace_period() {
    let mut fleet = Fleet::evicting_after(SHORT_GRACE).await;
    fleet.create_work("forced", vec![config_map("left")], None).await;
    fleet.wait_applied("forced").await;
    fleet.agent.take().expect("agent").abort();
    fleet.delete_work("forced").await;
    let strip = json!({"metadata": {"finalizers": null}});
    fleet.works().patch("forced", &PatchParams::default(), &Patch::Merge(&strip)).await.expect("strip finalizer");
    fleet.start_agent();
    let record = fleet.record_name("forced");
    wait_for(fleet.records(), &record, |r: &AppliedManifestWork| {
        r.status.as_ref().is_some_and(|s| s.eviction_start_time.is_some())
    })
    .await;
    fleet.config_maps().get("left").await.expect("kept during the grace period");
    wait_gone(fleet.records(), &record).await;
    wait_gone(fleet.config_maps(), "left").await;
}

/// The agent moved to another hub (its hub kubeconfig now names it) that has the same work:
/// the new hub's record adopts the applied ConfigMap (same uid: nothing deleted or made again),
/// and the old hub's record, whose hash is not the current hub's, is evicted after the grace
/// period taking only its owner reference away — upstream's hub switch (OCM's work suite,
/// "should remove old appliemanifestwork if applied again on new hub").
#[tokio::test]
async fn an_agent_moved_to_another_hub_keeps_what_it_applied_and_evicts_the_old_hubs_record() {
    let fleet = Fleet::evicting_after(SHORT_GRACE).await;
    fleet.create_work("moving", vec![config_map("workload")], None).await;
    fleet.wait_applied("moving").await;
    let before = fleet.config_maps().get("workload").await.expect("applied");
    let old_record = fleet.record_name("moving");
    let owners = |cm: &ConfigMap| cm.owner_references().iter().map(|o| o.name.clone()).collect::<Vec<_>>();
    assert_eq!(owners(&before), std::slice::from_ref(&old_record), "the applied object names its record");

    let new_hub = hub().await;
    let mut work = ManifestWork::for_cluster(CLUSTER, "moving", vec![Manifest(config_map("workload"))]);
    work.metadata.labels = Some(BTreeMap::from([("moved".to_owned(), "yes".to_owned())]));
    let new_works: Api<ManifestWork> = Api::namespaced(new_hub.client.clone(), CLUSTER);
    new_works.create(&PostParams::default(), &work).await.expect("the work on the new hub");
    fleet.write_secret_for(&new_hub, &new_hub, &AGENT_GROUPS).await;
    wait_for(new_works, "moving", |w: &ManifestWork| w.is_applied() && w.is_available()).await;
    let new_record = format!("{}-moving", hub_hash(&new_hub.server.url()));
    let record = fleet.records().get(&new_record).await.expect("the new hub's record");
    assert_eq!(record.labels().get("moved").map(String::as_str), Some("yes"), "the work's labels on its record");

    wait_gone(fleet.records(), &old_record).await;
    let after = fleet.config_maps().get("workload").await.expect("still there");
    assert_eq!(after.uid(), before.uid(), "the same object: nothing was deleted or made again");
    assert_eq!(owners(&after), [new_record], "only the new hub's record holds it");
}

/// A work whose executor ServiceAccount may not write its object is not applied (Applied
/// False, nothing made), and applies once the ServiceAccount is granted what an apply needs —
/// upstream's executor review (OCM's work suite, "Executor Subject").
#[tokio::test]
async fn a_work_applies_only_what_its_executor_may_write() {
    let fleet = Fleet::start().await;
    let mut work = ManifestWork::for_cluster(CLUSTER, "executed", vec![Manifest(config_map("guarded"))]);
    work.spec.executor = Some(
        serde_json::from_value(json!({
            "subject": {"type": "ServiceAccount", "serviceAccount": {"namespace": "default", "name": "deployer"}}
        }))
        .expect("executor"),
    );
    fleet.works().create(&PostParams::default(), &work).await.expect("create work");
    let refused = wait_for(fleet.works(), "executed", |w: &ManifestWork| {
        w.status.as_ref().is_some_and(|s| {
            s.resource_status.manifests.first().and_then(|m| find(&m.conditions, conditions::WORK_APPLIED)).is_some()
        })
    })
    .await;
    let manifest = &refused.status.as_ref().expect("status").resource_status.manifests[0];
    let applied = find(&manifest.conditions, conditions::WORK_APPLIED).expect("Applied");
    assert_eq!(applied.status, "False");
    assert!(applied.message.contains("not allowed to apply the resource  configmaps, default guarded"), "{applied:?}");
    assert!(fleet.config_maps().get_opt("guarded").await.expect("read").is_none(), "nothing applied");

    let pp = PostParams::default();
    let role: Role = serde_json::from_value(json!({
        "metadata": {"name": "deployer", "namespace": "default"},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"],
                   "verbs": ["create", "update", "patch", "get", "delete"]}]
    }))
    .expect("role");
    let binding: RoleBinding = serde_json::from_value(json!({
        "metadata": {"name": "deployer", "namespace": "default"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "deployer"},
        "subjects": [{"kind": "ServiceAccount", "namespace": "default", "name": "deployer"}]
    }))
    .expect("binding");
    Api::<Role>::namespaced(fleet.managed.client.clone(), "default").create(&pp, &role).await.expect("role");
    Api::<RoleBinding>::namespaced(fleet.managed.client.clone(), "default").create(&pp, &binding).await.expect("bind");
    let touch = json!({"metadata": {"labels": {"granted": "yes"}}});
    fleet.works().patch("executed", &PatchParams::default(), &Patch::Merge(&touch)).await.expect("touch");
    fleet.wait_applied("executed").await;
    fleet.config_maps().get("guarded").await.expect("applied once allowed");
}

/// ServerSideApply with `ignoreFields` (`OnSpokePresent`, `.data.tuned`): a value the managed
/// cluster set stays when the hub changes it, while the rest of the manifest follows the hub —
/// upstream's SSA applier (OCM's work suite, "IgnoreField with onSpokePresent").
#[tokio::test]
async fn a_field_left_to_the_managed_cluster_keeps_its_value_when_the_hub_changes_it() {
    let fleet = Fleet::start().await;
    let manifest = |tuned: &str, other: &str| {
        json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "tuned", "namespace": "default"},
            "data": {"tuned": tuned, "other": other}
        })
    };
    let mut work = ManifestWork::for_cluster(CLUSTER, "tuning", vec![Manifest(manifest("hub", "hub"))]);
    work.spec.manifest_configs = vec![
        serde_json::from_value(json!({
            "resourceIdentifier": {"resource": "configmaps", "namespace": "default", "name": "tuned"},
            "updateStrategy": {"type": "ServerSideApply", "serverSideApply": {
                "ignoreFields": [{"condition": "OnSpokePresent", "jsonPaths": [".data.tuned"]}]
            }}
        }))
        .expect("config"),
    ];
    fleet.works().create(&PostParams::default(), &work).await.expect("create work");
    fleet.wait_applied("tuning").await;
    let made = fleet.config_maps().get("tuned").await.expect("made");
    assert_eq!(made.data.as_ref().and_then(|d| d.get("tuned")).map(String::as_str), Some("hub"), "made whole");

    let local = json!({"data": {"tuned": "local"}});
    fleet.config_maps().patch("tuned", &PatchParams::default(), &Patch::Merge(&local)).await.expect("tune locally");
    let update = json!({"spec": {"workload": {"manifests": [manifest("hub2", "hub2")]}}});
    fleet.works().patch("tuning", &PatchParams::default(), &Patch::Merge(&update)).await.expect("change on the hub");
    let followed = wait_for(fleet.config_maps(), "tuned", |c: &ConfigMap| {
        c.data.as_ref().and_then(|d| d.get("other")).map(String::as_str) == Some("hub2")
    })
    .await;
    assert_eq!(followed.data.as_ref().and_then(|d| d.get("tuned")).map(String::as_str), Some("local"));
}
