//! An in-process dev-cluster API server and a kube-rs client for it.

use fleetctl_apiserver::{ApiServer, ServerConfig, Settings};
use fleetctl_kube::kubeconfig::Credentials;
use kube::Client;
use kube::config::{KubeConfigOptions, Kubeconfig};

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

    /// A fresh cluster with the given settings; the client is the admin (`system:masters`).
    pub async fn with_settings(settings: Settings) -> Self {
        Self::with_config(ServerConfig { name: "test".into(), port: 0, settings, ..ServerConfig::default() }).await
    }

    /// A cluster started as `config` says (a durable store and a port: a restart).
    pub async fn with_config(config: ServerConfig) -> Self {
        let server = ApiServer::start(config).await.expect("server starts");
        let client = client_from(&server.kubeconfig("test")).await;
        Self { server, client }
    }

    /// A client authenticating with a certificate for `user` in `groups`.
    pub async fn client_as(&self, user: &str, groups: &[&str]) -> Client {
        let cert = self.server.client_certificate(user, groups).expect("client certificate");
        let credentials = Credentials::Certificate { cert_pem: cert.cert_pem, key_pem: cert.key_pem };
        client_from(&self.server.kubeconfig_as("test", credentials)).await
    }

    /// A client authenticating with a bearer token.
    pub async fn client_with_token(&self, token: &str) -> Client {
        client_from(&self.server.kubeconfig_as("test", Credentials::Token(token.to_string()))).await
    }
}

/// A kube client from a kubeconfig document.
pub async fn client_from(kubeconfig: &Kubeconfig) -> Client {
    let config =
        kube::Config::from_custom_kubeconfig(kubeconfig.clone(), &KubeConfigOptions::default()).await.expect("config");
    Client::try_from(config).expect("client")
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

/// The first certificate of a PEM bundle, DER-encoded (for `kube::Config::root_cert`).
pub fn der_of(pem: &str) -> Vec<u8> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    CertificateDer::pem_slice_iter(pem.as_bytes()).next().expect("a certificate").expect("pem").to_vec()
}
