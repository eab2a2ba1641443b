//! The agents' view of the hub: kubeconfigs kept in Secrets on the managed cluster and
//! read through the API (no volumes), turned into hub clients.

use fleetctl_kube::errors::chain;
use fleetctl_kube::kubeconfig;
use k8s_openapi::api::core::v1::Secret;
use kube::Client;
use kube::api::Api;

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

/// A hub client from the `kubeconfig` key of `namespace/name`; `Ok(None)` if the secret
/// does not exist (yet).
pub async fn connect(local: &Client, namespace: &str, name: &str) -> Result<Option<HubConnection>, HubClientError> {
    let secrets: Api<Secret> = Api::namespaced(local.clone(), namespace);
    let read_error = |source| HubClientError::Read { namespace: namespace.into(), name: name.into(), source };
    let Some(secret) = secrets.get_opt(name).await.map_err(read_error)? else { return Ok(None) };
    from_secret(&secret, namespace, name).await.map(Some)
}

/// A hub client from the `kubeconfig` key of a secret already read (`namespace/name`
/// name it in errors).
pub async fn from_secret(secret: &Secret, namespace: &str, name: &str) -> Result<HubConnection, HubClientError> {
    let invalid = |why: String| HubClientError::Invalid { namespace: namespace.into(), name: name.into(), why };
    let text = kubeconfig::secret_text(secret);
    let parsed = kubeconfig::in_secret(&text).map_err(|e| invalid(chain(&e)))?;
    let (endpoint, config) = kubeconfig::from_parsed(parsed).await.map_err(|e| invalid(chain(&e)))?;
    let client = fleetctl_kube::multiplexed::client(config).map_err(|e| invalid(chain(&e)))?;
    let secret_version = secret.metadata.resource_version.clone().unwrap_or_default();
    Ok(HubConnection { client, server: endpoint.server, ca_pem: endpoint.ca_pem, secret_version })
}
