//! `fleetctl get clustersets|placements` and `--placement` on `upgrade` and `detach`: the
//! built binary against a hub whose placement controller has decided.

use fleetctl_api::placement::PlacementSpec;
use serde_json::Value;

use crate::cli_read::{fleetctl, stderr, succeeded, write_kubeconfig};
use crate::hub::Hub;
use crate::hub::placement::{bound_set, clusters_in, decided, decisions_when, namespace, placement};

/// A hub with set `prod` (p1, p2) bound into `apps`, and Placement `apps/canary` of one cluster.
async fn hub_with_a_placement() -> Hub {
    let hub = Hub::start().await;
    namespace(&hub, "apps").await;
    bound_set(&hub, "prod", "apps").await;
    clusters_in(&hub, "prod", ["p1".to_owned(), "p2".to_owned()]).await;
    placement(&hub, "apps", "canary", PlacementSpec { number_of_clusters: Some(1), ..PlacementSpec::default() }).await;
    decisions_when(&hub, "apps", "canary", |d| decided(d).len() == 1).await;
    hub
}

#[tokio::test]
async fn get_clustersets_and_placements_show_what_the_hub_decided() {
    let hub = hub_with_a_placement().await;
    let (_dir, kubeconfig) = write_kubeconfig(&hub.cluster);
    let sets = succeeded(&fleetctl(&kubeconfig, &["get", "clustersets", "-o", "wide"]).await);
    let prod = sets.lines().find(|l| l.starts_with("prod ")).unwrap_or_else(|| panic!("prod listed: {sets}"));
    assert!(prod.contains("ExclusiveClusterSetLabel") && prod.contains("apps"), "{prod}");
    assert!(sets.lines().any(|l| l.starts_with("global ")), "{sets}");
    let one: Value =
        serde_json::from_str(&succeeded(&fleetctl(&kubeconfig, &["get", "clustersets", "prod", "-o", "json"]).await))
            .expect("json");
    assert_eq!((one["kind"].as_str(), one["metadata"]["name"].as_str()), (Some("ManagedClusterSet"), Some("prod")));

    let table = succeeded(&fleetctl(&kubeconfig, &["get", "placements", "-n", "apps"]).await);
    let canary = table.lines().find(|l| l.contains("canary")).unwrap_or_else(|| panic!("canary listed: {table}"));
    assert!(canary.contains("AllDecisionsScheduled") && canary.contains(" 1 "), "{canary}");
    let wide = succeeded(&fleetctl(&kubeconfig, &["get", "placements", "-A", "-o", "wide"]).await);
    assert!(wide.contains("canary-decision-1"), "{wide}");
    let none = fleetctl(&kubeconfig, &["get", "placements", "nope", "-n", "apps"]).await;
    assert_eq!(none.status.code(), Some(4), "{}", stderr(&none));
}

#[tokio::test]
async fn upgrade_and_detach_take_the_clusters_a_placement_decided() {
    let hub = hub_with_a_placement().await;
    let (_dir, kubeconfig) = write_kubeconfig(&hub.cluster);
    let chosen = decided(&decisions_when(&hub, "apps", "canary", |d| !d.is_empty()).await);
    let other = if chosen == ["p1"] { "p2" } else { "p1" };
    let args = ["upgrade", "--placement", "canary", "-n", "apps", "--to", "0.2.0", "--dry-run", "-o", "json"];
    let output = fleetctl(&kubeconfig, &args).await;
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains(&format!("\"{}\"", chosen[0])), "names the decided cluster: {text} {}", stderr(&output));
    assert!(!text.contains(&format!("\"{other}\"")), "and no other: {text}");

    for conflicting in [&["p1"][..], &["-l", "env=prod"], &["--all"]] {
        let args = [&["upgrade", "--placement", "canary", "--to", "0.2.0"][..], conflicting].concat();
        let output = fleetctl(&kubeconfig, &args).await;
        assert_eq!(output.status.code(), Some(2), "{conflicting:?}: {}", stderr(&output));
        let args = [&["detach", "--placement", "canary", "--yes"][..], conflicting].concat();
        let output = fleetctl(&kubeconfig, &args).await;
        assert_eq!(output.status.code(), Some(2), "{conflicting:?}: {}", stderr(&output));
    }
    let missing = fleetctl(&kubeconfig, &["detach", "--placement", "nope", "-n", "apps", "--yes"]).await;
    assert_eq!(missing.status.code(), Some(4), "{}", stderr(&missing));
    assert!(stderr(&missing).contains("placement apps/nope not found"), "{}", stderr(&missing));
}
