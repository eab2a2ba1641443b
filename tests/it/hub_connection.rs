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

/// A client config of `cluster`'s server, as its admin (a client certificate).
async fn config_of(cluster: &TestCluster) -> kube::Config {
    kube::Config::from_custom_kubeconfig(cluster.server.kubeconfig("test"), &KubeConfigOptions::default())
        .await
        .expect("config")
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

/// Four watches (each through its first event, two by each client when given two) and a
/// request, then the number of connections the server holds for them.
async fn connections_for_four_watches(cluster: &TestCluster, client: Client, other: Option<Client>) -> usize {
    let port = cluster.server.addr().port();
    let before = connections_to(port);
    let second = other.unwrap_or_else(|| client.clone());
    let running = [
        watching(Api::<ConfigMap>::all(client.clone())).await,
        watching(Api::<Secret>::all(client.clone())).await,
        watching(Api::<ServiceAccount>::all(second.clone())).await,
        watching(Api::<Namespace>::all(second)).await,
    ];
    Api::<Namespace>::all(client).get("default").await.expect("a request beside the watches");
    let held = connections_to(port) - before;
    running.iter().for_each(tokio::task::JoinHandle::abort);
    held
}

#[tokio::test]
async fn an_agents_hub_client_carries_its_watches_on_one_http2_connection_where_kube_rs_default_needs_one_each() {
    let cluster = TestCluster::start().await;
    let config = config_of(&cluster).await;
    let multiplexed = fleetctl_kube::multiplexed::client(config.clone()).expect("client");
    assert_eq!(connections_for_four_watches(&cluster, multiplexed, None).await, 1, "one HTTP/2 connection");
    let default = Client::try_from(config).expect("client");
    assert!(
        connections_for_four_watches(&cluster, default, None).await >= 4,
        "kube-rs's default client speaks HTTP/1.1: a connection per watch (the control)"
    );
}

#[tokio::test]
async fn two_agents_with_one_hub_identity_in_one_process_share_a_connection_as_client_gos_transport_cache_does() {
    let cluster = TestCluster::start().await;
    let config = config_of(&cluster).await;
    // Two clients made apart, as the registration and the work agent make theirs.
    let registration = fleetctl_kube::multiplexed::client(config.clone()).expect("client");
    let work = fleetctl_kube::multiplexed::client(config.clone()).expect("client");
    assert_eq!(connections_for_four_watches(&cluster, registration, Some(work)).await, 1, "one connection for both");
    // Another server name is another TLS identity: a connection of its own. (On a server of
    // its own: the pool above closes its connection once its last client is gone, which
    // would blur the count.)
    let cluster = TestCluster::start().await;
    let config = config_of(&cluster).await;
    let named = |name: &str| {
        let mut config = config.clone();
        config.tls_server_name = Some(name.into());
        fleetctl_kube::multiplexed::client(config).expect("client")
    };
    let (first, second) = (named("localhost"), named("127.0.0.1"));
    assert_eq!(connections_for_four_watches(&cluster, first, Some(second)).await, 2, "one connection per identity");
}
