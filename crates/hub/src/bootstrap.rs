//! The bootstrap identity of a cluster: ServiceAccount `<c>-bootstrap-sa`, a ClusterRole
//! that may only ask for a certificate and read (or create) its own ManagedCluster, and
//! a TokenRequest token refreshed when a fifth of its life is left.

use fleetctl_api::CLUSTER_GROUP;
use fleetctl_api::conditions::LABEL_CLUSTER_NAME;
use fleetctl_api::names::{bootstrap_role, bootstrap_service_account};
use fleetctl_kube::kube_error;
use fleetctl_kube::objects::{self, MetaExt, labels, meta, named_rule, namespaced_meta, rule};
use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::api::{Api, PostParams};

use super::context::{Ctx, HUB, HubError};

/// The ServiceAccount, ClusterRole and ClusterRoleBinding, as objects.
pub fn objects(cluster: &str) -> (ServiceAccount, ClusterRole, ClusterRoleBinding) {
    let sa = bootstrap_service_account(cluster);
    let role = bootstrap_role(cluster);
    let ours = || labels([(LABEL_CLUSTER_NAME, cluster)]);
    let rules = vec![
        rule(&["certificates.k8s.io"], &["certificatesigningrequests"], &["create", "get", "list", "watch"]),
        named_rule(&[CLUSTER_GROUP], &["managedclusters"], &[cluster], &["get"]),
        rule(&[CLUSTER_GROUP], &["managedclusters"], &["create"]),
    ];
    (
        objects::service_account(namespaced_meta(cluster, &sa).with_labels(ours())),
        objects::cluster_role(meta(&role).with_labels(ours()), rules),
        objects::cluster_role_binding(
            meta(&role).with_labels(ours()),
            &role,
            vec![objects::service_account_subject(cluster, &sa)],
        ),
    )
}

/// Makes sure the bootstrap identity exists.
pub async fn ensure(ctx: &Ctx, cluster: &str) -> Result<(), HubError> {
    let (sa, role, binding) = objects(cluster);
    let client = &ctx.client;
    // Independent writes go out together: RBAC resolves the binding's role and subject
    // when it authorizes, not when the binding is written.
    let service_accounts = Api::<ServiceAccount>::namespaced(client.clone(), cluster);
    let (roles, bindings) = (Api::<ClusterRole>::all(client.clone()), Api::<ClusterRoleBinding>::all(client.clone()));
    futures::try_join!(
        ctx.written.apply(HUB, &service_accounts, &sa),
        ctx.written.apply(HUB, &roles, &role),
        ctx.written.apply(HUB, &bindings, &binding),
    )?;
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

/// Issues a new bootstrap token. A ServiceAccount that is not there (deleted behind the
/// hub's back, or with a namespace that was being deleted when it was written) is
/// forgotten as written, so the next pass writes it again.
pub async fn issue(ctx: &Ctx, cluster: &str) -> Result<Token, HubError> {
    let seconds = i64::try_from(ctx.config.token_lifetime.as_secs()).unwrap_or(i64::MAX);
    let request = TokenRequest {
        spec: TokenRequestSpec {
            audiences: Vec::new(),
            expiration_seconds: Some(seconds),
            ..TokenRequestSpec::default()
        },
        ..TokenRequest::default()
    };
    let sa = bootstrap_service_account(cluster);
    let creation = jiff::Timestamp::now();
    let issued = Api::<ServiceAccount>::namespaced(ctx.client.clone(), cluster)
        .create_token_request(&sa, &PostParams::default(), &request)
        .await
        .map_err(kube_error(format!("requesting a token for {cluster}/{sa}")))
        .inspect_err(|error| {
            if error.code() == Some(404) {
                ctx.written.forget_object::<ServiceAccount>(Some(cluster), &sa);
            }
        })?;
    let status = issued.status.ok_or_else(|| HubError::NoToken(format!("{cluster}/{sa}")))?;
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
        let (_, role, binding) = objects("c1");
        assert_eq!(role.metadata.name.as_deref(), Some("system:open-cluster-management:managedcluster:bootstrap:c1"));
        let rules = role.rules.expect("rules");
        assert_eq!(rules.len(), 3);
        assert_eq!(rules[1].resource_names, Some(vec!["c1".to_string()]));
        assert_eq!(binding.subjects.expect("subjects")[0].name, "c1-bootstrap-sa");
    }
}
