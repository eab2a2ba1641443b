//! The hub controllers against an in-process dev cluster; the tests play the agent.

mod addon_install;
mod admission;
mod approval;
mod detach;
mod import;
pub(crate) mod placement;
mod work_replica_set;
mod work_ttl;

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use fleetctl_api::{ManagedCluster, crds};
use fleetctl_hub::{Controllers, HubAddress, HubConfig, controllers};
use fleetctl_kube::runner::metrics::Registry;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use kube::runtime::wait::await_condition;
use serde_json::{Value, json};

use crate::support::cluster::TestCluster;
use crate::support::{Restartable, until};

const WAIT: Duration = Duration::from_secs(10);

/// A dev cluster with the OCM CRDs and the hub controllers running in-process.
pub struct Hub {
    pub cluster: TestCluster,
    pub metrics: Registry,
    task: tokio::task::JoinHandle<()>,
}

impl Restartable for Hub {
    /// A fresh hub controller reconciles every cluster once in its import and registration
    /// controllers.
    async fn restart_and_reconcile(&mut self) {
        let controllers = ["import", "registration"].map(|name| self.metrics.controller(name));
        let before = controllers.each_ref().map(|c| c.reconciles());
        self.restart();
        until("a fresh hub controller reconciles", || {
            controllers.iter().zip(before).all(|(c, before)| c.reconciles() > before && c.in_flight() == 0)
        })
        .await;
    }

    fn writes(&self) -> Vec<u64> {
        vec![self.cluster.server.state().store.rv()]
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.task.abort();
    }
}

pub fn config(c: &TestCluster) -> HubConfig {
    HubConfig {
        address: HubAddress::External { url: c.server.url(), ca_pem: c.server.ca_pem().to_string() },
        repository: "quay.io/fleetctl/fleetctl".into(),
        default_version: "0.1.0".into(),
        token_lifetime: Duration::from_secs(3600),
        lease_grace: 5,
        image_pull_secret: None,
        root_ca_namespace: None,
    }
}

impl Hub {
    /// A client of `user`, who may do what `rules` (RBAC rules, as JSON) say, cluster-wide.
    pub async fn client_with_rules(&self, user: &str, rules: Vec<Value>) -> kube::Client {
        use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
        let role: ClusterRole = serde_json::from_value(json!({"metadata": {"name": user}, "rules": rules})).unwrap();
        let binding: ClusterRoleBinding = serde_json::from_value(json!({"metadata": {"name": user},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": user},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]}))
        .unwrap();
        Api::<ClusterRole>::all(self.cluster.client.clone()).create(&PostParams::default(), &role).await.unwrap();
        Api::<ClusterRoleBinding>::all(self.cluster.client.clone())
            .create(&PostParams::default(), &binding)
            .await
            .unwrap();
        self.cluster.client_as(user, &[]).await
    }

    pub async fn start() -> Self {
        Self::with(|_| {}).await
    }

    pub async fn with(adjust: impl FnOnce(&mut HubConfig)) -> Self {
        let cluster = TestCluster::start().await;
        install(&cluster.client).await;
        let mut hub_config = config(&cluster);
        adjust(&mut hub_config);
        let metrics = Registry::default();
        let task = tokio::spawn(controllers(cluster.client.clone(), hub_config, metrics.clone(), Controllers::All));
        Self { cluster, metrics, task }
    }

    /// Restarts the controllers (a fresh start reconciles everything once).
    pub fn restart(&mut self) {
        self.task.abort();
        let task = tokio::spawn(controllers(
            self.cluster.client.clone(),
            config(&self.cluster),
            self.metrics.clone(),
            Controllers::All,
        ));
        self.task = task;
    }

    pub fn clusters(&self) -> Api<ManagedCluster> {
        Api::all(self.cluster.client.clone())
    }

    /// Creates ManagedCluster `name` with `hubAcceptsClient` as given.
    pub async fn create_cluster(&self, name: &str, accepted: bool) -> ManagedCluster {
        let mut cluster = ManagedCluster::accepted(name);
        cluster.spec.hub_accepts_client = accepted;
        self.clusters().create(&PostParams::default(), &cluster).await.expect("create cluster")
    }

    /// Waits for `<name>-import` and returns its data as text.
    pub async fn import_secret(&self, name: &str) -> std::collections::BTreeMap<String, String> {
        let secrets: Api<Secret> = Api::namespaced(self.cluster.client.clone(), name);
        let secret_name = format!("{name}-import");
        let ready = await_condition(secrets, &secret_name, |s: Option<&Secret>| s.is_some());
        let secret =
            tokio::time::timeout(WAIT, ready).await.expect("import secret in time").expect("watch").expect("secret");
        secret
            .data
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k, String::from_utf8_lossy(&v.0).into_owned()))
            .collect()
    }

    /// Waits until `check` holds for the cluster.
    pub async fn wait_cluster(&self, name: &str, check: impl Fn(&ManagedCluster) -> bool) -> ManagedCluster {
        let ready = await_condition(self.clusters(), name, move |c: Option<&ManagedCluster>| c.is_some_and(&check));
        tokio::time::timeout(WAIT, ready).await.expect("cluster condition in time").expect("watch").expect("cluster")
    }
}

/// What `hub install` applies before the controller: the OCM CRDs and the admission rules.
pub async fn install(client: &kube::Client) {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for crd in crds::hub() {
        api.create(&PostParams::default(), &crd).await.expect("crd");
    }
    let (policies, bindings) = fleetctl_hub::manifests::admission::objects();
    for policy in policies {
        Api::all(client.clone()).create(&PostParams::default(), &policy).await.expect("policy");
    }
    for binding in bindings {
        Api::all(client.clone()).create(&PostParams::default(), &binding).await.expect("binding");
    }
}

/// The bootstrap token inside an import secret's `import.yaml`.
pub fn bootstrap_token(import_yaml: &str) -> String {
    bootstrap_kubeconfig(import_yaml)["users"][0]["user"]["token"].as_str().expect("token").to_string()
}

/// The CA bundle the bootstrap kubeconfig inside an import secret's `import.yaml` trusts.
pub fn bootstrap_ca(import_yaml: &str) -> String {
    let data = bootstrap_kubeconfig(import_yaml)["clusters"][0]["cluster"]["certificate-authority-data"].clone();
    String::from_utf8(BASE64.decode(data.as_str().expect("ca data")).expect("b64")).expect("pem")
}

fn bootstrap_kubeconfig(import_yaml: &str) -> Value {
    let docs: Vec<Value> = serde_yaml::Deserializer::from_str(import_yaml)
        .map(|d| serde::Deserialize::deserialize(d).expect("yaml"))
        .collect();
    let secret = docs.iter().find(|d| d["metadata"]["name"] == "bootstrap-hub-kubeconfig").expect("bootstrap secret");
    serde_yaml::from_slice(&BASE64.decode(secret["data"]["kubeconfig"].as_str().expect("data")).expect("b64"))
        .expect("yaml")
}

/// Sets conditions on a cluster's status as the agent would.
pub async fn report(hub: &Hub, name: &str, conditions: Value) {
    let current = hub.clusters().get(name).await.expect("cluster");
    let mut list: Vec<Value> =
        serde_json::to_value(current.conditions()).expect("json").as_array().cloned().unwrap_or_default();
    for condition in conditions.as_array().expect("array") {
        list.retain(|c| c["type"] != condition["type"]);
        let mut condition = condition.clone();
        condition["lastTransitionTime"] = json!(jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string());
        list.push(condition);
    }
    hub.clusters()
        .patch_status(name, &Default::default(), &kube::api::Patch::Merge(json!({"status": {"conditions": list}})))
        .await
        .expect("report status");
}
