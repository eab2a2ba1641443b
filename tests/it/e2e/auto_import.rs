//! Hub-side auto-import on `dev up`, as upstream's managedcluster-import-controller: the
//! hub imports a cluster from the `auto-import-secret` in its namespace with nobody else
//! applying anything, deletes the secret afterwards unless it is to be kept, says on
//! `ManagedClusterImportSucceeded` why a secret cannot be used, and never writes its
//! credentials into a condition or an Event.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Namespace, Secret};
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, DeleteParams, PostParams};
use serde_json::Value;

use super::{DevUp, WAIT};
use fleetctl::lifecycle::wait_for;
use fleetctl_api::ManagedCluster;
use fleetctl_api::conditions as c;
use fleetctl_api::names::{ANNOTATION_KEEPING_AUTO_IMPORT_SECRET, AUTO_IMPORT_SECRET, AUTO_IMPORT_TYPE_KUBECONFIG};
use fleetctl_kube::kubeconfig::{secret_data, to_yaml};
use fleetctl_kube::{Selection, standalone};

/// The context's own kubeconfig, as a person would put it into the secret.
fn kubeconfig_of(env: &DevUp, context: &str) -> String {
    to_yaml(&standalone(&Selection::new(Some(env.kubeconfig()), Some(context.into()))).expect("standalone kubeconfig"))
}

fn auto_import_secret(cluster: &str, type_: &str, data: &[(&str, &str)], keep: bool) -> Secret {
    let values: BTreeMap<String, String> = data.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let annotations =
        keep.then(|| BTreeMap::from([(ANNOTATION_KEEPING_AUTO_IMPORT_SECRET.to_string(), String::new())]));
    Secret {
        metadata: ObjectMeta {
            name: Some(AUTO_IMPORT_SECRET.into()),
            namespace: Some(cluster.into()),
            annotations,
            ..ObjectMeta::default()
        },
        type_: Some(type_.into()),
        data: Some(secret_data(values)),
        ..Secret::default()
    }
}

/// The namespace and the accepted ManagedCluster, as a GitOps tool writes them.
async fn hub_objects(hub: &kube::Client, cluster: &str) {
    let namespace = Namespace {
        metadata: ObjectMeta { name: Some(cluster.into()), ..ObjectMeta::default() },
        ..Namespace::default()
    };
    Api::<Namespace>::all(hub.clone()).create(&PostParams::default(), &namespace).await.expect("namespace");
    Api::<ManagedCluster>::all(hub.clone())
        .create(&PostParams::default(), &ManagedCluster::accepted(cluster))
        .await
        .expect("cluster");
}

async fn available(hub: &kube::Client, cluster: &str) -> ManagedCluster {
    let clusters = Api::<ManagedCluster>::all(hub.clone());
    let what = format!("{cluster} to be available");
    wait_for(clusters, cluster, &what, WAIT, |c: Option<&ManagedCluster>| {
        c.is_some_and(|c| c.is_available() && c::is_true(c.conditions(), c::MANAGED_CLUSTER_IMPORT_SUCCEEDED))
    })
    .await
    .expect("available")
    .expect("the cluster")
}

/// The notes of the Events about a cluster.
async fn event_notes(hub: &kube::Client, cluster: &str) -> Vec<String> {
    let events = Api::<Event>::all(hub.clone()).list(&Default::default()).await.expect("events");
    events
        .items
        .into_iter()
        .filter(|e| e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(cluster))
        .map(|e| format!("{}: {}", e.reason.unwrap_or_default(), e.note.unwrap_or_default()))
        .collect()
}

#[tokio::test]
async fn the_hub_imports_a_cluster_from_its_auto_import_secret_and_deletes_the_secret_unless_kept() {
    let env = DevUp::start(3);
    let hub = env.client("hub").await;
    let secrets = |cluster: &str| Api::<Secret>::namespaced(hub.clone(), cluster);

    // No CLI at all: the objects a GitOps tool would write, and the secret.
    let kubeconfig = kubeconfig_of(&env, "cluster1");
    hub_objects(&hub, "cluster1").await;
    let secret = auto_import_secret("cluster1", AUTO_IMPORT_TYPE_KUBECONFIG, &[("kubeconfig", &kubeconfig)], false);
    secrets("cluster1").create(&PostParams::default(), &secret).await.expect("secret");
    let cluster1 = available(&hub, "cluster1").await;
    let imported = c::find(cluster1.conditions(), c::MANAGED_CLUSTER_IMPORT_SUCCEEDED).expect("condition");
    assert_eq!(imported.reason, c::REASON_IMPORTED);
    wait_for(secrets("cluster1"), AUTO_IMPORT_SECRET, "the secret to go", WAIT, |s: Option<&Secret>| s.is_none())
        .await
        .expect("the hub deleted the auto-import secret");
    let notes = event_notes(&hub, "cluster1").await;
    assert!(notes.iter().any(|n| n.starts_with("AutoImportSecretDeleted: ")), "{notes:?}");

    // A token secret that does not say how to trust its server is refused, naming what is
    // missing and not what it holds.
    hub_objects(&hub, "cluster3").await;
    let unverified = auto_import_secret(
        "cluster3",
        fleetctl_api::names::AUTO_IMPORT_TYPE_KUBETOKEN,
        &[("server", &env.server("cluster3")), ("token", "tok-not-for-logs")],
        false,
    );
    secrets("cluster3").create(&PostParams::default(), &unverified).await.expect("secret");
    let clusters = Api::<ManagedCluster>::all(hub.clone());
    let refused = wait_for(clusters.clone(), "cluster3", "the refusal", WAIT, |c: Option<&ManagedCluster>| {
        c.and_then(|c| c::find(c.conditions(), c::MANAGED_CLUSTER_IMPORT_SUCCEEDED))
            .is_some_and(|c| c.reason == c::REASON_IMPORT_FAILED)
    })
    .await
    .expect("refused")
    .expect("cluster3");
    let condition = c::find(refused.conditions(), c::MANAGED_CLUSTER_IMPORT_SUCCEEDED).expect("condition");
    assert!(
        condition.message.starts_with(
            "AutoImportSecretInvalid cluster3/auto-import-secret; the server of a token secret is verified with ca.crt"
        ),
        "{}",
        condition.message
    );
    // A usable secret in its place, to be kept: the cluster is imported and the secret stays.
    secrets("cluster3").delete(AUTO_IMPORT_SECRET, &DeleteParams::default()).await.expect("delete");
    let kubeconfig3 = kubeconfig_of(&env, "cluster3");
    let kept = auto_import_secret("cluster3", AUTO_IMPORT_TYPE_KUBECONFIG, &[("kubeconfig", &kubeconfig3)], true);
    secrets("cluster3").create(&PostParams::default(), &kept).await.expect("secret");
    available(&hub, "cluster3").await;
    assert!(secrets("cluster3").get_opt(AUTO_IMPORT_SECRET).await.expect("read").is_some(), "kept as annotated");
    let notes = event_notes(&hub, "cluster3").await;
    assert!(notes.iter().any(|n| n.starts_with("AutoImportSecretSaved: ")), "{notes:?}");
    let everything = [notes, event_notes(&hub, "cluster1").await].concat().join("\n");
    for credential in ["tok-not-for-logs", "client-key-data", "BEGIN"] {
        assert!(!everything.contains(credential), "an Event quotes a credential: {everything}");
    }

    // `import --auto`: the CLI writes the secret and waits; the hub applies the manifests.
    let output = env.fleetctl(&[
        "import",
        "cluster2",
        "--auto",
        "--cluster-context",
        "cluster2",
        "--hub-context",
        "hub",
        "-o",
        "json",
    ]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(report["clusters"][0]["result"], "imported", "{report}");
    let steps: Vec<&str> =
        report["clusters"][0]["steps"].as_array().expect("steps").iter().filter_map(|s| s["step"].as_str()).collect();
    assert!(steps.contains(&"hub: auto-import secret written"), "{steps:?}");
    assert!(!steps.iter().any(|s| s.starts_with("target:")), "the CLI applied nothing to the target: {steps:?}");
    wait_for(secrets("cluster2"), AUTO_IMPORT_SECRET, "the secret to go", WAIT, |s: Option<&Secret>| s.is_none())
        .await
        .expect("the hub deleted the auto-import secret");
}
