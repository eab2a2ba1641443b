//! `dev up --bare-hub`: a hub that is a plain Kubernetes API, as `kind create cluster`
//! gives, with managed clusters as usual — for another hub (OCM's `clusteradm init`), or a
//! later `fleetctl hub install`; and `import` refusing hubs that would not import.

use std::process::Output;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ListParams};
use kube::{Client, ResourceExt};

use super::DevUp;

/// What kind's new cluster has.
const KIND_NAMESPACES: [&str; 4] = ["default", "kube-node-lease", "kube-public", "kube-system"];

const BARE_NOTE: &str = "the hub is bare";

fn text(output: &Output) -> (String, String) {
    (String::from_utf8_lossy(&output.stdout).into_owned(), String::from_utf8_lossy(&output.stderr).into_owned())
}

/// The hub has nothing of fleetctl: no OCM API group, no CRD, no Deployment, only kind's
/// namespaces.
async fn assert_bare(hub: &Client) {
    let groups = hub.list_api_groups().await.expect("discovery");
    let names: Vec<&str> = groups.groups.iter().map(|g| g.name.as_str()).collect();
    assert!(!names.contains(&"cluster.open-cluster-management.io"), "{names:?}");
    assert!(!names.iter().any(|n| n.ends_with("open-cluster-management.io")), "{names:?}");
    let crds = Api::<CustomResourceDefinition>::all(hub.clone()).list(&ListParams::default()).await.expect("crds");
    assert!(crds.items.is_empty(), "no CRDs: {:?}", crds.items.iter().map(ResourceExt::name_any).collect::<Vec<_>>());
    let deployments = Api::<Deployment>::all(hub.clone()).list(&ListParams::default()).await.expect("deployments");
    assert!(
        deployments.items.is_empty(),
        "no hub controller: {:?}",
        deployments.items.iter().map(ResourceExt::name_any).collect::<Vec<_>>()
    );
    let namespaces = Api::<Namespace>::all(hub.clone()).list(&ListParams::default()).await.expect("namespaces");
    let mut names: Vec<String> = namespaces.items.iter().map(ResourceExt::name_any).collect();
    names.sort();
    assert_eq!(names, KIND_NAMESPACES);
}

#[tokio::test]
async fn dev_up_with_a_bare_hub_serves_kubernetes_and_nothing_of_fleetctl() {
    let env = DevUp::start_args(1, &["--bare-hub", "--durable"]);
    assert!(env.stderr.contains(BARE_NOTE), "dev up says so: {}", env.stderr);
    let hub = env.client("hub").await;
    hub.apiserver_version().await.expect("the hub answers");
    assert_bare(&hub).await;
    // The managed clusters come up as usual.
    env.client("cluster1").await.apiserver_version().await.expect("cluster1 answers");

    let dir = env.dir.path().display().to_string();
    let status = env.fleetctl(&["dev", "status", "--dir", &dir]);
    let (table, stderr) = text(&status);
    assert!(status.status.success(), "{stderr}");
    for name in ["hub", "cluster1"] {
        let row =
            table.lines().find(|l| l.split_whitespace().next() == Some(name)).unwrap_or_else(|| panic!("{table}"));
        assert!(row.trim_end().ends_with("yes"), "{name} ready: {table}");
    }
    assert!(stderr.contains(BARE_NOTE) && stderr.contains("fleetctl hub install"), "{stderr}");

    // A restart keeps it bare: it runs as it ran, and nothing is installed on the way.
    let restart = env.fleetctl(&["dev", "restart", "hub", "--dir", &dir]);
    assert!(restart.status.success(), "{}\n{}", text(&restart).1, env.logs());
    assert_bare(&env.client("hub").await).await;
    let status = env.fleetctl(&["dev", "status", "--dir", &dir]);
    assert!(text(&status).1.contains(BARE_NOTE), "{}", text(&status).1);

    // The hub's own log is there; it runs no Deployment, so it has no Deployment log.
    let logs = env.fleetctl(&["dev", "logs", "hub", "--dir", &dir]);
    assert!(logs.status.success(), "{}", text(&logs).1);
    let logs = env.fleetctl(&["dev", "logs", "hub", "fleetctl-hub-controller", "--dir", &dir]);
    assert_eq!(logs.status.code(), Some(4), "{}", text(&logs).1);

    let down = env.fleetctl(&["dev", "down", "--dir", &dir]);
    assert!(down.status.success(), "{}", text(&down).1);
    assert!(!env.dir.path().join("state.json").exists());
}

#[tokio::test]
async fn import_into_a_bare_hub_or_one_nothing_imports_or_joins_is_refused_naming_the_way() {
    // (`dev fleet`'s imports too.)
    let env = DevUp::start_args(1, &["--bare-hub"]);
    let import = env.fleetctl(&["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"]);
    let (_, stderr) = text(&import);
    assert_eq!(import.status.code(), Some(4), "refused, nothing changed: {stderr}");
    assert!(stderr.contains("the hub is not initialised") && stderr.contains("fleetctl hub install"), "{stderr}");
    // Refused before any change, on either side.
    assert_bare(&env.client("hub").await).await;
    let namespaces =
        Api::<Namespace>::all(env.client("cluster1").await).list(&ListParams::default()).await.expect("namespaces");
    let mut names: Vec<String> = namespaces.items.iter().map(ResourceExt::name_any).collect();
    names.sort();
    assert_eq!(names, KIND_NAMESPACES, "nothing written on cluster1");

    // So is `dev fleet`, at once rather than at its timeout.
    let dir = env.dir.path().display().to_string();
    let fleet = env.fleetctl(&["dev", "fleet", "--clusters", "2", "--dir", &dir]);
    let (_, stderr) = text(&fleet);
    assert_eq!(fleet.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("fleetctl hub install"), "{stderr}");

    // A hub that serves ManagedClusters but runs no import controller and has no OCM
    // bootstrap identity to join with (OCM's CRDs without `clusteradm init`) is refused as
    // well, before any write, naming the OCM way and `hub install`. (With the identity,
    // import joins: `e2e::upstream_ocm`.)
    let hub = env.client("hub").await;
    let crds = Api::<CustomResourceDefinition>::all(hub.clone());
    crds.create(&Default::default(), &<fleetctl_api::ManagedCluster as kube::CustomResourceExt>::crd())
        .await
        .expect("the ManagedCluster CRD");
    let served = kube::runtime::wait::await_condition(
        crds,
        "managedclusters.cluster.open-cluster-management.io",
        kube::runtime::wait::conditions::is_crd_established(),
    );
    tokio::time::timeout(std::time::Duration::from_secs(30), served).await.expect("established").expect("watch");
    let import = env.fleetctl(&["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"]);
    let (_, stderr) = text(&import);
    assert_eq!(import.status.code(), Some(4), "refused, nothing changed: {stderr}");
    assert!(stderr.contains("no import controller") && stderr.contains("clusteradm join"), "{stderr}");
    assert!(stderr.contains("fleetctl hub install"), "{stderr}");
    let clusters = Api::<fleetctl_api::ManagedCluster>::all(hub.clone()).list(&ListParams::default()).await;
    assert!(clusters.expect("clusters").items.is_empty(), "no ManagedCluster written");
    assert!(Api::<Namespace>::all(hub).get_opt("cluster1").await.expect("get").is_none(), "no namespace written");
}

#[test]
fn a_bare_hub_with_a_hub_controller_image_is_a_usage_error_naming_the_conflict() {
    let up = std::process::Command::new(env!("CARGO_BIN_EXE_fleetctl"))
        .args(["dev", "up", "--bare-hub", "--image", "example.com/fleetctl:1", "--dir", "/nonexistent/env"])
        .output()
        .expect("fleetctl runs");
    let (_, stderr) = text(&up);
    assert_eq!(up.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--bare-hub") && stderr.contains("--image"), "{stderr}");
}
