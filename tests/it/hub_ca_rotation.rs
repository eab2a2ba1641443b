//! The hub's serving CA rotated under an imported cluster, in the steps a kube-apiserver's
//! CA is rotated by hand: the hub first trusts (and signs with) a new CA beside the old
//! one, then serves by the new one, then retires the old one — a restart each. The import
//! controller follows the CA bundle the hub publishes (`kube-root-ca.crt`, as upstream's
//! import controller auto-detects it) into the bootstrap kubeconfig of the klusterlet work;
//! the work agent applies it on the cluster; the registration agent, finding that its
//! bootstrap kubeconfig trusts other CAs than its hub kubeconfig, bootstraps again
//! (upstream's klusterlet rule) — so when the hub switches its serving certificate every
//! agent already trusts it. Nobody touches the managed cluster.
//!
//! The test prints the figures of issue 18 (`--no-capture`): seconds until the cluster is
//! fully working again after each step, CSRs created, and what `fleetctl describe cluster`
//! showed right after the restart.

use std::time::{Duration, Instant};

use fleetctl::simulator::{SimulatedCluster, import_fleet};
use fleetctl_api::conditions::LABEL_CLUSTER_NAME;
use fleetctl_api::names::{AGENT_NAMESPACE, BOOTSTRAP_SECRET, CLUSTER_LEASE, HUB_KUBECONFIG_SECRET};
use fleetctl_api::{ManagedCluster, Manifest, ManifestWork};
use fleetctl_apiserver::{CaRotation, ServerConfig, Settings, rotate_ca};
use fleetctl_hub::{Controllers, HubConfig, controllers};
use fleetctl_kube::certs::same_bundle;
use fleetctl_kube::kubeconfig;
use fleetctl_kube::runner::metrics::Registry;
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::wait::await_condition;
use serde_json::json;

use crate::support::cluster::TestCluster;

const CLUSTER: &str = "edge";
const HUB: &str = "hub";
const KUBECONFIG: &str = "hub.kubeconfig";
const WAIT: Duration = Duration::from_secs(60);
/// The lease period the agent is given, so that a renewal after each restart comes soon.
const LEASE_SECONDS: i32 = 3;

/// A hub whose API server can be stopped, its CA rotated on its store, and started again
/// on the same port; its controllers run in process.
struct RotatingHub {
    dir: tempfile::TempDir,
    port: u16,
    cluster: Option<TestCluster>,
    config: HubConfig,
    controllers: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for RotatingHub {
    fn drop(&mut self) {
        if let Some(task) = self.controllers.take() {
            task.abort();
        }
    }
}

impl RotatingHub {
    async fn start() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let cluster = serve(dir.path(), 0).await;
        crate::hub::install(&cluster.client).await;
        let config = HubConfig {
            // Bootstrap kubeconfigs follow what the hub publishes; the CA the controller
            // was started with is the old one throughout.
            root_ca_namespace: Some("default".into()),
            ..crate::hub::config(&cluster)
        };
        let port = cluster.server.addr().port();
        let mut hub = Self { dir, port, cluster: Some(cluster), config, controllers: None };
        hub.restart_controllers();
        hub
    }

    fn store(&self) -> std::path::PathBuf {
        self.dir.path().join("store")
    }

    fn cluster(&self) -> &TestCluster {
        self.cluster.as_ref().expect("the hub serves")
    }

    fn client(&self) -> kube::Client {
        self.cluster().client.clone()
    }

    /// Restarts the controllers on a client of the current server (as an in-cluster pod is
    /// restarted to read a new CA bundle).
    fn restart_controllers(&mut self) {
        if let Some(task) = self.controllers.take() {
            task.abort();
        }
        self.controllers =
            Some(tokio::spawn(controllers(self.client(), self.config.clone(), Registry::default(), Controllers::All)));
    }

    /// Stops the API server, takes one rotation step on its store and starts it again.
    async fn rotate(&mut self, step: CaRotation) {
        if let Some(cluster) = self.cluster.take() {
            cluster.server.shutdown().await;
        }
        rotate_ca(&self.store(), HUB, step).expect("rotation step");
        self.cluster = Some(serve(self.dir.path(), self.port).await);
    }

    async fn csrs(&self) -> usize {
        let ours = ListParams::default().labels(&format!("{LABEL_CLUSTER_NAME}={CLUSTER}"));
        Api::<CertificateSigningRequest>::all(self.client()).list(&ours).await.expect("csrs").items.len()
    }

    /// What `fleetctl describe cluster` shows now.
    async fn describe(&self) -> String {
        let kubeconfig = self.dir.path().join(KUBECONFIG);
        let output = tokio::task::spawn_blocking(move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_fleetctl"))
                .args(["describe", "cluster", CLUSTER, "--hub-kubeconfig"])
                .arg(kubeconfig)
                .env("NO_COLOR", "1")
                .output()
                .expect("fleetctl runs")
        })
        .await
        .expect("describe");
        format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
    }
}

/// The hub's API server on its durable store in `dir` (0: any free port); it also writes
/// the admin kubeconfig, trusting the current bundle, for `fleetctl describe`.
async fn serve(dir: &std::path::Path, port: u16) -> TestCluster {
    let settings = Settings { store: Some(dir.join("store")), ..Settings::default() };
    let cluster =
        TestCluster::with_config(ServerConfig { name: HUB.into(), port, settings, ..ServerConfig::default() }).await;
    let text = kubeconfig::to_yaml(&cluster.server.kubeconfig(HUB));
    std::fs::write(dir.join(KUBECONFIG), text).expect("hub kubeconfig");
    cluster
}

/// The CA bundle a secret's kubeconfig trusts.
fn trusted(secret: &Secret) -> String {
    let text = kubeconfig::secret_text(secret);
    let parsed = kube::config::Kubeconfig::from_yaml(text.get("kubeconfig").map_or("", String::as_str));
    parsed.ok().and_then(|config| kubeconfig::endpoint(&config).ok()).map(|e| e.ca_pem).unwrap_or_default()
}

/// Waits until both of the agents' secrets on the cluster trust `bundle`.
async fn agents_trust(managed: &kube::Client, bundle: &str) {
    let secrets: Api<Secret> = Api::namespaced(managed.clone(), AGENT_NAMESPACE);
    for name in [BOOTSTRAP_SECRET, HUB_KUBECONFIG_SECRET] {
        let bundle = bundle.to_string();
        let fits = move |s: Option<&Secret>| s.is_some_and(|s| same_bundle(&trusted(s), &bundle));
        tokio::time::timeout(WAIT, await_condition(secrets.clone(), name, fits))
            .await
            .unwrap_or_else(|_| panic!("{name} trusts the hub's new CA bundle in time"))
            .expect("watch");
    }
}

/// Waits until the cluster works with the hub again: a ManifestWork created now is
/// applied, the lease is renewed after `since`, and the hub sees the cluster Available.
async fn fully_working(hub: &kube::Client, managed: &kube::Client, work: &str, since: jiff::Timestamp) {
    let manifest = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": work, "namespace": "default"}, "data": {"after": work}});
    let works: Api<ManifestWork> = Api::namespaced(hub.clone(), CLUSTER);
    works
        .create(&PostParams::default(), &ManifestWork::for_cluster(CLUSTER, work, vec![Manifest(manifest)]))
        .await
        .expect("work");
    let applied =
        await_condition(works, work, |w: Option<&ManifestWork>| w.is_some_and(|w| w.is_applied() && w.is_available()));
    tokio::time::timeout(WAIT, applied).await.expect("the work applies in time").expect("watch");
    let renewed =
        await_condition(Api::<Lease>::namespaced(hub.clone(), CLUSTER), CLUSTER_LEASE, move |l: Option<&Lease>| {
            l.and_then(|l| l.spec.as_ref()?.renew_time.as_ref()).is_some_and(|t| t.0 > since)
        });
    tokio::time::timeout(WAIT, renewed).await.expect("the lease is renewed in time").expect("watch");
    let available = await_condition(Api::<ManagedCluster>::all(hub.clone()), CLUSTER, |c: Option<&ManagedCluster>| {
        c.is_some_and(|c| c.is_joined() && c.is_available())
    });
    tokio::time::timeout(WAIT, available).await.expect("available in time").expect("watch");
    kube::Api::<k8s_openapi::api::core::v1::ConfigMap>::namespaced(managed.clone(), "default")
        .get(work)
        .await
        .expect("the work's ConfigMap is on the cluster");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_hub_ca_reaches_the_agents_through_the_klusterlet_work_and_they_bootstrap_again_before_it_serves() {
    let mut hub = RotatingHub::start().await;
    let edge = SimulatedCluster::start(CLUSTER).expect("cluster");
    let one = std::num::NonZeroUsize::MIN;
    import_fleet(&hub.client(), &hub.cluster().server.url(), std::slice::from_ref(&edge), one, WAIT)
        .await
        .expect("import");
    let lease = json!({"spec": {"leaseDurationSeconds": LEASE_SECONDS}});
    Api::<ManagedCluster>::all(hub.client())
        .patch(CLUSTER, &PatchParams::default(), &Patch::Merge(lease))
        .await
        .expect("a short lease");
    let managed = edge.client().clone();
    let old = hub.cluster().server.ca_pem().to_string();
    fully_working(&hub.client(), &managed, "before", jiff::Timestamp::now()).await;
    let mut csrs = hub.csrs().await;
    eprintln!("hub CA rotation under cluster {CLUSTER} (figures of issue 18):");

    for (step, work) in
        [(CaRotation::Trust, "after-trust"), (CaRotation::Serve, "after-serve"), (CaRotation::Retire, "after-retire")]
    {
        let since = jiff::Timestamp::now();
        let started = Instant::now();
        hub.rotate(step).await;
        let bundle = hub.cluster().server.ca_pem().to_string();
        if step == CaRotation::Serve {
            // The hub's own clients learn the bundle by a restart (upstream's step 4).
            hub.restart_controllers();
        }
        let described = hub.describe().await;
        agents_trust(&managed, &bundle).await;
        fully_working(&hub.client(), &managed, work, since).await;
        let seconds = started.elapsed().as_secs_f64();
        let now = hub.csrs().await;
        // What the hub said of the cluster meanwhile: its availability, lease and Events.
        let shown: Vec<String> = described
            .lines()
            .filter(|l| ["Lease:", "ConditionAvailable", "Warning"].iter().any(|k| l.contains(k)))
            .map(|l| format!("      {}", l.trim()))
            .collect();
        eprintln!(
            "  {step:?}: fully working again {seconds:.2}s after the restart, {} CSR(s) created; \
             `fleetctl describe cluster {CLUSTER}` right after the restart showed:\n{}",
            now - csrs,
            shown.join("\n"),
        );
        let expected = match step {
            // The bundle changed: the agents bootstrap again, once.
            CaRotation::Trust | CaRotation::Retire => 1,
            // Only the serving certificate changed, which the agents already trust.
            CaRotation::Serve => 0,
        };
        assert_eq!(now - csrs, expected, "{step:?}: CSRs");
        csrs = now;
    }
    // The old CA is gone from everything the agents trust.
    let bundle = hub.cluster().server.ca_pem().to_string();
    assert!(!same_bundle(&bundle, &old));
    let secrets: Api<Secret> = Api::namespaced(managed, AGENT_NAMESPACE);
    let hub_secret = secrets.get(HUB_KUBECONFIG_SECRET).await.expect("hub kubeconfig secret");
    assert!(same_bundle(&trusted(&hub_secret), &bundle), "the hub kubeconfig trusts the new CA alone");
}
