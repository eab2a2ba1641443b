//! The bootstrap identity of a cluster: ServiceAccount `<c>-bootstrap-sa`, a ClusterRole
//! that may only ask for a certificate and read (or create) its own ManagedCluster, and
//! a TokenRequest token refreshed when a fifth of its life is left.

use std::time::Duration;

use k8s_openapi::api::authentication::v1::TokenRequest;
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::api::{Api, PostParams};
use serde_json::json;

use super::context::{HubError, apply, kube_error};
use fleetctl_api::CLUSTER_GROUP;

/// The bootstrap ServiceAccount of a cluster (upstream truncates names over 63).
pub fn service_account_name(cluster: &str) -> String {
    let mut name = format!("{cluster}-bootstrap-sa");
    name.truncate(63);
    name
}

/// The bootstrap ClusterRole and ClusterRoleBinding of a cluster.
pub fn role_name(cluster: &str) -> String {
    format!("system:open-cluster-management:managedcluster:bootstrap:{cluster}")
}

/// The ServiceAccount, ClusterRole and ClusterRoleBinding, as objects.
pub fn objects(cluster: &str) -> Result<(ServiceAccount, ClusterRole, ClusterRoleBinding), serde_json::Error> {
    let sa = service_account_name(cluster);
    let role = role_name(cluster);
    let labels = json!({fleetctl_api::conditions::LABEL_CLUSTER_NAME: cluster});
    Ok((
        serde_json::from_value(json!({"metadata": {"name": sa, "namespace": cluster, "labels": labels}}))?,
        serde_json::from_value(json!({
            "metadata": {"name": role, "labels": labels},
            "rules": [
                {"apiGroups": ["certificates.k8s.io"], "resources": ["certificatesigningrequests"], "verbs": ["create", "get", "list", "watch"]},
                {"apiGroups": [CLUSTER_GROUP], "resources": ["managedclusters"], "resourceNames": [cluster], "verbs": ["get"]},
                {"apiGroups": [CLUSTER_GROUP], "resources": ["managedclusters"], "verbs": ["create"]},
            ],
        }))?,
        serde_json::from_value(json!({
            "metadata": {"name": role, "labels": labels},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
            "subjects": [{"kind": "ServiceAccount", "name": sa, "namespace": cluster}],
        }))?,
    ))
}

/// Makes sure the bootstrap identity exists.
pub async fn ensure(client: &kube::Client, cluster: &str) -> Result<(), HubError> {
    let (sa, role, binding) = objects(cluster).map_err(|e| HubError::Render(format!("the bootstrap identity: {e}")))?;
    apply(&Api::<ServiceAccount>::namespaced(client.clone(), cluster), &sa).await?;
    apply(&Api::<ClusterRole>::all(client.clone()), &role).await?;
    apply(&Api::<ClusterRoleBinding>::all(client.clone()), &binding).await?;
    Ok(())
}

/// A token and its lifetime, as recorded in the import secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The JWT.
    pub token: String,
    /// When it was issued.
    pub creation: jiff::Timestamp,
    /// When it expires.
    pub expiration: jiff::Timestamp,
}

impl Token {
    /// When the token should be replaced: once a fifth of its life is left.
    pub fn refresh_at(&self) -> jiff::Timestamp {
        let life = self.expiration.duration_since(self.creation);
        self.expiration.checked_sub(life / 5).unwrap_or(self.creation)
    }

    /// Whether the token should be replaced now.
    pub fn needs_refresh(&self, now: jiff::Timestamp) -> bool {
        now >= self.refresh_at()
    }
}

/// Issues a new bootstrap token.
pub async fn issue(client: &kube::Client, cluster: &str, lifetime: Duration) -> Result<Token, HubError> {
    let seconds = i64::try_from(lifetime.as_secs()).unwrap_or(i64::MAX);
    let request: TokenRequest =
        serde_json::from_value(json!({"spec": {"audiences": [], "expirationSeconds": seconds}}))
            .map_err(|e| HubError::Render(format!("a token request: {e}")))?;
    let sa = service_account_name(cluster);
    let creation = jiff::Timestamp::now();
    let issued = Api::<ServiceAccount>::namespaced(client.clone(), cluster)
        .create_token_request(&sa, &PostParams::default(), &request)
        .await
        .map_err(kube_error(format!("requesting a token for {cluster}/{sa}")))?;
    let status = issued.status.ok_or_else(|| HubError::Render("a token request answered without a token".into()))?;
    Ok(Token {
        token: status.token,
        creation: jiff::Timestamp::from_second(creation.as_second()).unwrap_or(creation),
        expiration: status.expiration_timestamp.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_refreshed_when_a_fifth_of_its_life_is_left() {
        let creation = jiff::Timestamp::from_second(0).expect("t");
        let expiration = jiff::Timestamp::from_second(1000).expect("t");
        let token = Token { token: String::new(), creation, expiration };
        assert_eq!(token.refresh_at().as_second(), 800);
        assert!(!token.needs_refresh(jiff::Timestamp::from_second(799).expect("t")));
        assert!(token.needs_refresh(jiff::Timestamp::from_second(800).expect("t")));
    }

    #[test]
    fn the_bootstrap_role_may_only_ask_for_a_certificate_and_read_its_cluster() {
        let (_, role, binding) = objects("c1").expect("objects");
        assert_eq!(role.metadata.name.as_deref(), Some("system:open-cluster-management:managedcluster:bootstrap:c1"));
        let rules = role.rules.expect("rules");
        assert_eq!(rules.len(), 3);
        assert_eq!(rules[1].resource_names, Some(vec!["c1".to_string()]));
        assert_eq!(binding.subjects.expect("subjects")[0].name, "c1-bootstrap-sa");
    }
}
