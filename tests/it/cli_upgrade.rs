//! `fleetctl upgrade` of a cluster whose klusterlet is not fleetctl's: the built binary
//! against a hub where upstream's registration agent reports the cluster.

use fleetctl::lifecycle::upgrade::desired_version;
use fleetctl_api::names::ANNOTATION_KLUSTERLET_VERSION_FROM;
use kube::ResourceExt;
use serde_json::json;

use crate::cli_read::{fleetctl, stderr, write_kubeconfig};
use crate::hub::{Hub, report};

/// Upstream's klusterlet (ACM renders it, `clusteradm join` installs it) follows its own
/// hub: fleetctl's version annotation would move nothing. The upgrade is refused before any
/// write, with the way its hub upgrades it, and nothing is rolled back since nothing changed.
#[tokio::test]
async fn an_upgrade_of_a_cluster_running_upstreams_klusterlet_is_refused_before_any_write() {
    let hub = Hub::start().await;
    hub.create_cluster("acm1", true).await;
    hub.wait_cluster("acm1", |c| c.is_hub_accepted()).await;
    report(
        &hub,
        "acm1",
        json!([{"type": "ManagedClusterConditionAvailable", "status": "True", "reason": "ManagedClusterAvailable",
                "message": "available"}]),
    )
    .await;
    // What upstream's registration agent reports: the Kubernetes version, no fleetctl claim.
    let status = json!({"status": {"version": {"kubernetes": "v1.32.0"}}});
    hub.clusters().patch_status("acm1", &Default::default(), &kube::api::Patch::Merge(status)).await.expect("status");
    let (_dir, kubeconfig) = write_kubeconfig(&hub.cluster);
    let output = fleetctl(&kubeconfig, &["upgrade", "acm1", "--to", "0.2.0"]).await;
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(4), "{said}");
    assert!(said.contains("not fleetctl's") && said.contains("clusteradm upgrade klusterlet"), "{said}");
    assert!(!said.contains("rolled back"), "nothing to roll back: {said}");
    // (The hub's own controllers write the cluster meanwhile: the set label, ClockSynced.)
    let after = hub.clusters().get("acm1").await.expect("cluster");
    assert!(desired_version(&after).is_none(), "no version recorded: {:?}", after.annotations());
    assert!(!after.annotations().contains_key(ANNOTATION_KLUSTERLET_VERSION_FROM), "{:?}", after.annotations());
}
