//! Healing on `dev up`, with the agents as processes: the operator's report of the accident
//! in the issue — a deleted `hub-kubeconfig-secret` — is noticed by the registration agent,
//! which bootstraps again with one CSR, and a ManifestWork created afterwards reaches the
//! cluster without any agent restarting.

use fleetctl::lifecycle::wait_for;
use fleetctl_api::conditions::LABEL_CLUSTER_NAME;
use fleetctl_api::names::{AGENT_NAMESPACE, HUB_KUBECONFIG_SECRET};
use fleetctl_api::{Manifest, ManifestWork};
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use serde_json::json;

use super::{DevUp, WAIT};

#[tokio::test]
async fn a_deleted_hub_kubeconfig_secret_heals_with_one_csr_and_works_reach_the_cluster_again() {
    let env = DevUp::start(1);
    let output = env.fleetctl(&["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"]);
    assert!(output.status.success(), "import: {}", String::from_utf8_lossy(&output.stderr));
    let hub = env.client("hub").await;
    let target = env.client("cluster1").await;
    let csrs: Api<CertificateSigningRequest> = Api::all(hub.clone());
    let ours = ListParams::default().labels(&format!("{LABEL_CLUSTER_NAME}=cluster1"));
    let before = csrs.list(&ours).await.expect("csrs").items.len();
    let agents = env.pids(&["agent", "cluster1"]);

    let secrets: Api<Secret> = Api::namespaced(target.clone(), AGENT_NAMESPACE);
    let old = secrets.get(HUB_KUBECONFIG_SECRET).await.expect("secret").metadata.uid;
    secrets.delete(HUB_KUBECONFIG_SECRET, &DeleteParams::default()).await.expect("delete");
    wait_for(secrets.clone(), HUB_KUBECONFIG_SECRET, "a new hub kubeconfig", WAIT, move |s: Option<&Secret>| {
        s.is_some_and(|s| s.metadata.uid != old)
    })
    .await
    .unwrap_or_else(|e| panic!("no new hub kubeconfig ({e}):\n{}", super::logs(&env.dir.path().join("logs/cluster1"))));

    let manifest = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "after-heal", "namespace": "default"}, "data": {"a": "1"}});
    let works: Api<ManifestWork> = Api::namespaced(hub.clone(), "cluster1");
    let work = ManifestWork::for_cluster("cluster1", "after-heal", vec![Manifest(manifest)]);
    works.create(&PostParams::default(), &work).await.expect("work");
    wait_for(works, "after-heal", "the work to apply", WAIT, |w: Option<&ManifestWork>| {
        w.is_some_and(|w| w.is_applied() && w.is_available())
    })
    .await
    .expect("applied with the new credentials");
    Api::<ConfigMap>::namespaced(target, "default").get("after-heal").await.expect("on the cluster");
    assert_eq!(csrs.list(&ours).await.expect("csrs").items.len(), before + 1, "one new CSR");
    assert_eq!(env.pids(&["agent", "cluster1"]), agents, "no agent restarted");
}

/// The CA bundle a kubeconfig file's context trusts.
fn bundle_of(path: &std::path::Path) -> String {
    let config = kube::config::Kubeconfig::read_from(path).expect("kubeconfig");
    fleetctl_kube::kubeconfig::endpoint(&config).expect("endpoint").ca_pem
}

/// The hub's CA rotated on `dev up --durable`, the agents running as processes: a restart
/// of the hub per step of Kubernetes' manual CA rotation (`dev restart hub --rotate-ca
/// trust|serve|retire`). The hub controller follows the bundle the hub publishes into the
/// klusterlet work, the work agent applies it, and the registration agent bootstraps again
/// whenever the bundle changed (upstream's klusterlet rule) — one CSR for trust and one for
/// retire, none for serve — so the agents trust the new serving certificate before it
/// serves, and a ManifestWork created after each step reaches the cluster. The figures of
/// issue 18 are printed (`--no-capture`).
#[tokio::test]
async fn a_hub_ca_rotated_by_restarts_reaches_the_agent_processes_before_it_serves() {
    use fleetctl_kube::certs::same_bundle;
    use kube::runtime::wait::await_condition;

    let env = DevUp::start_args(1, &["--durable"]);
    let output = env.fleetctl(&["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"]);
    assert!(output.status.success(), "import: {}", String::from_utf8_lossy(&output.stderr));
    let target = env.client("cluster1").await;
    let dir = env.dir.path().to_string_lossy().into_owned();
    let ours = ListParams::default().labels(&format!("{LABEL_CLUSTER_NAME}=cluster1"));
    let mut csrs = Api::<CertificateSigningRequest>::all(env.client("hub").await).list(&ours).await.expect("csrs");
    eprintln!("hub CA rotation on dev up --durable, cluster1's agents as processes (figures of issue 18):");
    for (step, expected) in [("trust", 1), ("serve", 0), ("retire", 1)] {
        let started = std::time::Instant::now();
        let restarted = env.fleetctl(&["dev", "restart", "hub", "--rotate-ca", step, "--dir", &dir]);
        assert!(restarted.status.success(), "restart: {}", String::from_utf8_lossy(&restarted.stderr));
        let restart = started.elapsed().as_secs_f64();
        let hub = env.client("hub").await;
        let bundle = bundle_of(&env.dir.path().join("hub.kubeconfig"));
        let describe = ["describe", "cluster", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"];
        let described = String::from_utf8_lossy(&env.fleetctl(&describe).stdout).into_owned();

        let secrets: Api<Secret> = Api::namespaced(target.clone(), AGENT_NAMESPACE);
        for name in [fleetctl_api::names::BOOTSTRAP_SECRET, HUB_KUBECONFIG_SECRET] {
            let bundle = bundle.clone();
            let trusts = move |s: Option<&Secret>| {
                s.and_then(|s| {
                    let text = fleetctl_kube::kubeconfig::secret_text(s);
                    let config = kube::config::Kubeconfig::from_yaml(text.get("kubeconfig")?).ok()?;
                    fleetctl_kube::kubeconfig::endpoint(&config).ok()
                })
                .is_some_and(|e| same_bundle(&e.ca_pem, &bundle))
            };
            tokio::time::timeout(WAIT, await_condition(secrets.clone(), name, trusts))
                .await
                .unwrap_or_else(|_| {
                    panic!("{step}: {name} follows the hub's CA bundle:\n{}", super::logs(&env.dir.path().join("logs")))
                })
                .expect("watch");
        }
        let work_name = format!("after-{step}");
        let manifest = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": work_name, "namespace": "default"}, "data": {"a": "1"}});
        let works: Api<ManifestWork> = Api::namespaced(hub.clone(), "cluster1");
        let work = ManifestWork::for_cluster("cluster1", &work_name, vec![Manifest(manifest)]);
        works.create(&PostParams::default(), &work).await.expect("work");
        wait_for(works, &work_name, "the work to apply", WAIT, |w: Option<&ManifestWork>| {
            w.is_some_and(|w| w.is_applied() && w.is_available())
        })
        .await
        .unwrap_or_else(|e| panic!("{step}: the work applies ({e})"));
        Api::<ConfigMap>::namespaced(target.clone(), "default").get(&work_name).await.expect("on the cluster");
        let clusters: Api<fleetctl_api::ManagedCluster> = Api::all(hub.clone());
        wait_for(clusters, "cluster1", "available", WAIT, |c: Option<&fleetctl_api::ManagedCluster>| {
            c.is_some_and(|c| c.is_available())
        })
        .await
        .expect("available");
        let seconds = started.elapsed().as_secs_f64();
        let now = Api::<CertificateSigningRequest>::all(hub.clone()).list(&ours).await.expect("csrs");
        let created = now.items.len() - csrs.items.len();
        let shown: Vec<String> = described
            .lines()
            .filter(|l| ["ConditionAvailable", "HubConnectionDegraded", "Lease:"].iter().any(|k| l.contains(k)))
            .map(|l| format!("      {}", l.trim()))
            .collect();
        eprintln!(
            "  {step}: hub restarted in {restart:.2}s; cluster1 fully working {seconds:.2}s after the restart began, \
             {created} CSR(s); `fleetctl describe cluster cluster1` right after the restart:\n{}",
            shown.join("\n")
        );
        assert_eq!(created, expected, "{step}: CSRs");
        csrs = now;
    }
}
