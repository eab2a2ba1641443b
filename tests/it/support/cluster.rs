//! An in-process dev-cluster API server and a kube-rs client for it.

use fleetctl::devcluster::apiserver::{ApiServer, ServerConfig, Settings};
use kube::Client;

/// One API server plus a client, dropped together.
pub struct TestCluster {
    pub server: ApiServer,
    pub client: Client,
}

impl TestCluster {
    /// A fresh cluster with default settings.
    pub async fn start() -> Self {
        Self::with_settings(Settings::default()).await
    }

    /// A fresh cluster with the given settings.
    pub async fn with_settings(settings: Settings) -> Self {
        let server = ApiServer::start(ServerConfig { port: 0, settings }).await.expect("server starts");
        let config = kube::Config::new(server.url().parse().expect("url"));
        let client = Client::try_from(config).expect("client");
        Self { server, client }
    }
}

/// A raw request's status code and JSON body (for the cases kube-rs would not send).
pub async fn raw(
    client: &Client,
    method: &str,
    path: &str,
    content_type: &str,
    body: Vec<u8>,
) -> (u16, serde_json::Value) {
    let request = axum::http::Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", content_type)
        .body(body)
        .expect("request");
    let response = client.send(request.map(kube::client::Body::from)).await.expect("response");
    let status = response.status().as_u16();
    let bytes = http_body_util::BodyExt::collect(response.into_body()).await.expect("body").to_bytes();
    let value = serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null);
    (status, value)
}
