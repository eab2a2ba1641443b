//! The agents' hub connection: HTTP/2, so an agent's watches are streams of one
//! connection rather than a connection each (client-go offers `h2` by ALPN and does the
//! same); at thousands of clusters the hub's file descriptors depend on it.

use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret, ServiceAccount};
use kube::Client;
use kube::api::Api;
use kube::config::KubeConfigOptions;
use kube::runtime::watcher;

use crate::support::cluster::TestCluster;

/// Established TCP connections whose local port is `port` (the server's side of each
/// connection to it), from the network namespace's socket tables.
fn connections_to(port: u16) -> usize {
    let established = |table: &str| {
        std::fs::read_to_string(table)
            .map(|text| {
                text.lines()
                    .skip(1)
                    .filter(|line| {
                        let fields: Vec<&str> = line.split_whitespace().collect();
                        let local_port = fields[1].rsplit(':').next().and_then(|p| u16::from_str_radix(p, 16).ok());
                        local_port == Some(port) && fields[3] == "01"
                    })
                    .count()
            })
            .unwrap_or(0)
    };
    established("/proc/net/tcp") + established("/proc/net/tcp6")
}

/// A watch of `api`, through its first event, kept running until the handle is aborted.
async fn watching<K>(api: Api<K>) -> tokio::task::JoinHandle<()>
where
    K: kube::Resource<DynamicType = ()> + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + 'static,
{
    let mut watch = watcher(api, watcher::Config::default()).boxed();
    tokio::time::timeout(Duration::from_secs(10), watch.next())
        .await
        .expect("a first event")
        .expect("open")
        .expect("no watch error");
    tokio::spawn(async move { while watch.next().await.is_some() {} })
}

/// Four watches (each through its first event) and a request, then the number of
/// connections the server holds for them.
async fn connections_for_four_watches(cluster: &TestCluster, client: Client) -> usize {
    let port = cluster.server.addr().port();
    let before = connections_to(port);
    let running = [
        watching(Api::<ConfigMap>::all(client.clone())).await,
        watching(Api::<Secret>::all(client.clone())).await,
        watching(Api::<ServiceAccount>::all(client.clone())).await,
        watching(Api::<Namespace>::all(client.clone())).await,
    ];
    Api::<Namespace>::all(client).get("default").await.expect("a request beside the watches");
    let held = connections_to(port) - before;
    running.iter().for_each(tokio::task::JoinHandle::abort);
    held
}

#[tokio::test]
async fn an_agents_hub_client_carries_its_watches_on_one_http2_connection_where_kube_rs_default_needs_one_each() {
    let cluster = TestCluster::start().await;
    let config = kube::Config::from_custom_kubeconfig(cluster.server.kubeconfig("test"), &KubeConfigOptions::default())
        .await
        .expect("config");
    let multiplexed = fleetctl_kube::multiplexed::client(config.clone()).expect("client");
    assert_eq!(connections_for_four_watches(&cluster, multiplexed).await, 1, "one HTTP/2 connection");
    let default = Client::try_from(config).expect("client");
    assert!(
        connections_for_four_watches(&cluster, default).await >= 4,
        "kube-rs's default client speaks HTTP/1.1: a connection per watch (the control)"
    );
}
