//! The fleet simulator: simulated clusters join a hub whose controllers run in process,
//! each with the real klusterlet (operator, registration and work agents) on an API of
//! its own, take a ManifestWork, and leave again.

use std::collections::HashSet;
use std::num::NonZeroUsize;
use std::time::Duration;

use fleetctl::lifecycle::detach::{DetachOptions, detach};
use fleetctl::lifecycle::upgrade::{UpgradeOptions, upgrade};
use fleetctl::simulator::{SimulatedCluster, import_fleet, start_fleet};
use fleetctl_api::names::{AGENT_NAMESPACE, HUB_KUBECONFIG_SECRET, VERSION_CLAIM};
use fleetctl_api::work::Manifest;
use fleetctl_api::{ManagedCluster, ManifestWork};
use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, ListParams, PostParams};
use kube::runtime::{WatchStreamExt, watcher};

use crate::hub::Hub;

const CLUSTERS: usize = 8;
/// Each of the three steps (import, work, detach) waits at most this long (2–5 s is usual
/// under the whole suite), so a stuck step fails naming itself before nextest's kill at 120 s.
const WAIT: Duration = Duration::from_secs(30);

fn config_map() -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some("fleet-note".into()),
            namespace: Some("default".into()),
            ..ObjectMeta::default()
        },
        data: Some([("note".to_string(), "to every cluster".to_string())].into()),
        ..ConfigMap::default()
    }
}

/// Waits until `done` holds for the work `name` of every cluster (one watch for all).
async fn wait_works(hub: &kube::Client, name: &str, clusters: &[SimulatedCluster], done: fn(&ManifestWork) -> bool) {
    let mut waiting: HashSet<String> = clusters.iter().map(|c| c.name().to_string()).collect();
    let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
    let mut events = watcher(Api::<ManifestWork>::all(hub.clone()), config).applied_objects().boxed();
    let all = async {
        while !waiting.is_empty() {
            let work = events.next().await.expect("watch ends").expect("watch");
            if done(&work) {
                waiting.remove(&work.metadata.namespace.clone().unwrap_or_default());
            }
        }
    };
    tokio::time::timeout(WAIT, all).await.expect("every cluster's work");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simulated_clusters_join_with_their_own_certificates_apply_a_work_upgrade_and_detach() {
    let hub = Hub::start().await;
    let client = hub.cluster.client.clone();
    let fleet = start_fleet("sim", CLUSTERS).expect("fleet");
    let parallel = NonZeroUsize::new(16).expect("16");
    let imported = import_fleet(&client, &hub.cluster.server.url(), &fleet, parallel, WAIT).await.expect("import");
    assert_eq!(imported.per_cluster.len(), CLUSTERS);

    // Each cluster earned a certificate of its own (the agent ran, not a shortcut), and
    // reports the klusterlet version it runs.
    let clusters = Api::<ManagedCluster>::all(client.clone()).list(&ListParams::default()).await.expect("clusters");
    assert_eq!(clusters.items.len(), CLUSTERS);
    assert!(clusters.items.iter().all(|c| c.is_available()));
    let claims = |c: &ManagedCluster| c.status.as_ref().map(|s| s.cluster_claims.clone()).unwrap_or_default();
    assert!(clusters.items.iter().all(|c| claims(c).iter().any(|claim| claim.name == VERSION_CLAIM)));
    let mut certificates = HashSet::new();
    for cluster in &fleet {
        let secret = Api::<Secret>::namespaced(cluster.client().clone(), AGENT_NAMESPACE)
            .get(HUB_KUBECONFIG_SECRET)
            .await
            .expect("hub kubeconfig secret");
        certificates.insert(secret.data.expect("data")["tls.crt"].0.clone());
    }
    assert_eq!(certificates.len(), CLUSTERS, "one certificate per cluster");

    // A ManifestWork to every cluster lands on that cluster only.
    let manifest = Manifest::from_object(&config_map()).expect("manifest");
    for cluster in &fleet {
        let work = ManifestWork::for_cluster(cluster.name(), "fleet-note", vec![manifest.clone()]);
        Api::<ManifestWork>::namespaced(client.clone(), cluster.name())
            .create(&PostParams::default(), &work)
            .await
            .expect("work");
    }
    wait_works(&client, "fleet-note", &fleet, ManifestWork::is_applied).await;
    for cluster in &fleet {
        let note = Api::<ConfigMap>::namespaced(cluster.client().clone(), "default").get("fleet-note").await;
        assert!(note.is_ok(), "{} has the ConfigMap", cluster.name());
    }

    // Upgraded, as `upgrade --all` does: no Pod runs the simulated agents, so they say the
    // version their Deployment's image names — the new one once the operator rolled them.
    let upgrades = futures::stream::iter(&fleet)
        .map(|cluster| {
            let options = UpgradeOptions::waiting("0.2.0", WAIT);
            let client = client.clone();
            async move { upgrade(&client, cluster.name(), &options, &|_| {}).await }
        })
        .buffer_unordered(16)
        .collect::<Vec<_>>()
        .await;
    for result in upgrades {
        assert_eq!(result.expect("upgrade").result, "running 0.2.0");
    }

    // Detached from the hub alone, as `detach --all` does: the agents take part and the hub is clean.
    let detaches = futures::stream::iter(&fleet)
        .map(|cluster| {
            let options = DetachOptions {
                name: cluster.name().to_string(),
                wait: true,
                force: false,
                timeout: WAIT,
                dry_run: None,
            };
            let client = client.clone();
            async move { detach(&client, None, &options, &|_| {}).await }
        })
        .buffer_unordered(16)
        .collect::<Vec<_>>()
        .await;
    for result in detaches {
        result.expect("detach");
    }
    let left = Api::<ManagedCluster>::all(client.clone()).list(&ListParams::default()).await.expect("clusters");
    assert!(left.items.is_empty());
    let namespaces = Api::<Namespace>::all(client.clone()).list(&ListParams::default()).await.expect("namespaces");
    assert!(!namespaces.items.iter().any(|n| n.metadata.name.as_deref().is_some_and(|n| n.starts_with("sim-"))));
    for cluster in &fleet {
        let agents = Api::<Namespace>::all(cluster.client().clone()).get_opt(AGENT_NAMESPACE).await.expect("read");
        assert!(agents.is_none_or(|n| n.metadata.deletion_timestamp.is_some()), "{} let its agents go", cluster.name());
    }
}
