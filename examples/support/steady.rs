//! Figures of a fleet on a dev hub that more than one example takes: the hub's steady writes
//! and watch events over a window, and the time a ConfigMap work takes to reach every cluster.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use fleetctl::simulator::SimulatedCluster;
use fleetctl_api::ManagedCluster;
use fleetctl_api::ManifestWork;
use fleetctl_api::work::Manifest;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, ListParams, PostParams};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, ResourceExt};

use super::requests;

/// The name of the ConfigMap (and its work) [`work_to_all`] sends to every cluster.
#[allow(dead_code, reason = "not every example reads it back")]
pub const FLEET_NOTE: &str = "fleet-note";

/// The hub's resourceVersion: the dev server counts every write with it.
pub async fn hub_revision(hub: &Client) -> Result<u64> {
    let list = Api::<Namespace>::all(hub.clone()).list_metadata(&ListParams::default().limit(1)).await?;
    Ok(list.metadata.resource_version.context("a list without a resourceVersion")?.parse()?)
}

/// Writes per second on the hub (its resourceVersion's growth) and watch events per
/// second of the kinds the agents write (ManagedClusters, Leases, ManifestWorks), over `window`.
pub async fn steady_state(hub: &Client, window: Duration, n: usize) -> Result<(f64, f64)> {
    let config = watcher::Config::default();
    let mut clusters = watcher(Api::<ManagedCluster>::all(hub.clone()), config.clone()).boxed();
    let mut leases = watcher(Api::<Lease>::all(hub.clone()), config.clone()).boxed();
    let mut works = watcher(Api::<ManifestWork>::all(hub.clone()), config).boxed();
    // Only changes count: the watchers' initial lists are not events of the window.
    let from = hub_revision(hub).await?;
    let requests_before = requests::Requests::read(hub).await?;
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + window;
    let mut events = 0usize;
    let change = |applied: bool| usize::from(applied);
    loop {
        let counted = tokio::select! {
            () = tokio::time::sleep_until(deadline) => break,
            Some(e) = clusters.next() => change(matches!(e, Ok(watcher::Event::Apply(_) | watcher::Event::Delete(_)))),
            Some(e) = leases.next() => change(matches!(e, Ok(watcher::Event::Apply(_) | watcher::Event::Delete(_)))),
            Some(e) = works.next() => change(matches!(e, Ok(watcher::Event::Apply(_) | watcher::Event::Delete(_)))),
        };
        events += counted;
    }
    let to = hub_revision(hub).await?;
    let seconds = started.elapsed().as_secs_f64();
    let answered = requests::Requests::read(hub).await?.since(&requests_before);
    let writes = requests::Requests(
        answered
            .0
            .into_iter()
            .filter(|(key, _)| !key.starts_with("GET") && !key.starts_with("LIST") && !key.starts_with("WATCH"))
            .collect(),
    );
    println!("  the {} writes of the steady window, by verb and resource (count, per cluster):", writes.total());
    writes.print_top(8, n);
    Ok(((to - from) as f64 / seconds, events as f64 / seconds))
}

/// Seconds from creating a ConfigMap work for every cluster until all are Applied.
pub async fn work_to_all(hub: &Client, fleet: &[SimulatedCluster]) -> Result<f64> {
    let config_map = ConfigMap {
        metadata: ObjectMeta {
            name: Some(FLEET_NOTE.into()),
            namespace: Some("default".into()),
            ..ObjectMeta::default()
        },
        data: Some([("note".to_string(), "to every cluster".to_string())].into()),
        ..ConfigMap::default()
    };
    let manifest = Manifest::from_object(&config_map)?;
    let mut waiting: HashSet<String> = fleet.iter().map(|c| c.name().to_string()).collect();
    let only = watcher::Config::default().fields(&format!("metadata.name={FLEET_NOTE}"));
    let mut applied = watcher(Api::<ManifestWork>::all(hub.clone()), only).applied_objects().boxed();
    let started = Instant::now();
    let creates = futures::stream::iter(fleet)
        .map(|cluster| {
            let work = ManifestWork::for_cluster(cluster.name(), FLEET_NOTE, vec![manifest.clone()]);
            let api: Api<ManifestWork> = Api::namespaced(hub.clone(), cluster.name());
            async move { api.create(&PostParams::default(), &work).await.map(|_| ()) }
        })
        .buffer_unordered(32)
        .try_collect::<Vec<()>>();
    let watch = async {
        while !waiting.is_empty() {
            let work = applied.try_next().await?.context("the watch ended")?;
            if work.is_applied() {
                waiting.remove(&work.namespace().unwrap_or_default());
            }
        }
        anyhow::Ok(())
    };
    let (created, watched) = tokio::join!(creates, watch);
    created?;
    watched?;
    Ok(started.elapsed().as_secs_f64())
}
