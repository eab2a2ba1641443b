//! The agents' view of the hub: kubeconfigs kept in Secrets on the managed cluster and
//! read through the API (no volumes), turned into hub clients.

use std::collections::BTreeMap;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::Client;
use kube::api::Api;
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::{Value, json};

/// Why a hub client could not be made from a secret.
#[derive(Debug, thiserror::Error)]
pub enum HubClientError {
    /// Reading the secret failed.
    #[error("reading secret {namespace}/{name}")]
    Read {
        /// Namespace.
        namespace: String,
        /// Name.
        name: String,
        /// The cause.
        #[source]
        source: kube::Error,
    },
    /// The secret has no usable `kubeconfig`.
    #[error("secret {namespace}/{name} holds no usable kubeconfig: {why}")]
    Invalid {
        /// Namespace.
        namespace: String,
        /// Name.
        name: String,
        /// What is wrong.
        why: String,
    },
}

/// A hub client and what it was made from.
#[derive(Clone)]
pub struct HubConnection {
    /// The client.
    pub client: Client,
    /// The hub API server URL.
    pub server: String,
    /// The hub CA bundle, PEM.
    pub ca_pem: String,
    /// The resourceVersion of the secret it came from (a change means new credentials).
    pub secret_version: String,
}

/// A self-contained kubeconfig for the hub: the CA and the client certificate embedded,
/// so it works wherever it is read (upstream's refers to mounted files instead).
pub fn certificate_kubeconfig(server: &str, ca_pem: &str, cert_pem: &str, key_pem: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "hub", "cluster": {"server": server, "certificate-authority-data": BASE64.encode(ca_pem)}}],
        "users": [{"name": "agent", "user": {"client-certificate-data": BASE64.encode(cert_pem), "client-key-data": BASE64.encode(key_pem)}}],
        "contexts": [{"name": "hub", "context": {"cluster": "hub", "user": "agent"}}],
        "current-context": "hub",
    })
}

/// The text values of a secret.
pub fn secret_text(secret: &Secret) -> BTreeMap<String, String> {
    secret.data.iter().flatten().map(|(k, v)| (k.clone(), String::from_utf8_lossy(&v.0).into_owned())).collect()
}

/// Secret data from text values.
pub fn secret_data(values: BTreeMap<String, String>) -> BTreeMap<String, ByteString> {
    values.into_iter().map(|(k, v)| (k, ByteString(v.into_bytes()))).collect()
}

/// A hub client from the `kubeconfig` key of `namespace/name`; `Ok(None)` if the secret
/// does not exist (yet).
pub async fn connect(local: &Client, namespace: &str, name: &str) -> Result<Option<HubConnection>, HubClientError> {
    let secrets: Api<Secret> = Api::namespaced(local.clone(), namespace);
    let read_error = |source| HubClientError::Read { namespace: namespace.into(), name: name.into(), source };
    let Some(secret) = secrets.get_opt(name).await.map_err(read_error)? else { return Ok(None) };
    let invalid = |why: String| HubClientError::Invalid { namespace: namespace.into(), name: name.into(), why };
    let text = secret_text(&secret);
    let kubeconfig = text.get("kubeconfig").ok_or_else(|| invalid("no kubeconfig key".into()))?;
    let parsed: Kubeconfig = serde_yaml::from_str(kubeconfig).map_err(|e| invalid(e.to_string()))?;
    let cluster =
        parsed.clusters.first().and_then(|c| c.cluster.clone()).ok_or_else(|| invalid("no cluster".into()))?;
    let server = cluster.server.clone().unwrap_or_default();
    let ca_pem = cluster
        .certificate_authority_data
        .as_ref()
        .and_then(|d| BASE64.decode(d).ok())
        .map(|d| String::from_utf8_lossy(&d).into_owned())
        .unwrap_or_default();
    let config = kube::Config::from_custom_kubeconfig(parsed, &KubeConfigOptions::default())
        .await
        .map_err(|e| invalid(e.to_string()))?;
    let client = Client::try_from(config).map_err(|e| invalid(e.to_string()))?;
    let secret_version = secret.metadata.resource_version.clone().unwrap_or_default();
    Ok(Some(HubConnection { client, server, ca_pem, secret_version }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_kubeconfig_embeds_everything() {
        let config = certificate_kubeconfig("https://hub:6443", "CA", "CERT", "KEY");
        let parsed: Kubeconfig = serde_json::from_value(config).expect("kubeconfig");
        let user = parsed.auth_infos[0].auth_info.as_ref().expect("user");
        assert!(user.client_certificate_data.is_some() && user.client_key.is_none());
        assert_eq!(parsed.clusters[0].cluster.as_ref().expect("cluster").server.as_deref(), Some("https://hub:6443"));
    }
}
