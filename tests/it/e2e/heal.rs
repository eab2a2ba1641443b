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
    .expect("the registration agent writes a new hub kubeconfig");

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
