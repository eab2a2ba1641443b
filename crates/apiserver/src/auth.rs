//! Authentication: client certificates signed by the cluster CA (CN → user, O →
//! groups) and ServiceAccount bearer tokens.

use axum::http::HeaderMap;
use k8s_openapi::api::core::v1::Pod;

use super::kinds;
use super::reader::Reader;
use super::status::ApiError;
use super::store::key;
use super::token::{TokenError, TokenSigner};

/// The group every authenticated user is in.
pub const AUTHENTICATED: &str = "system:authenticated";
/// The superuser group.
pub const MASTERS: &str = "system:masters";

/// Who is making a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// User name (`system:serviceaccount:<ns>:<name>` for ServiceAccounts).
    pub name: String,
    /// Uid (ServiceAccounts only).
    pub uid: String,
    /// Groups, `system:authenticated` included.
    pub groups: Vec<String>,
}

impl User {
    /// A user from a certificate's CN and O values.
    pub fn from_certificate(common_name: String, organizations: Vec<String>) -> Self {
        let mut groups = organizations;
        groups.push(AUTHENTICATED.to_string());
        Self { name: common_name, uid: String::new(), groups }
    }

    /// The identity of the server's own built-in controllers.
    pub fn controllers() -> Self {
        Self {
            name: "system:kube-controller-manager".to_string(),
            uid: String::new(),
            groups: vec![MASTERS.to_string(), AUTHENTICATED.to_string()],
        }
    }

    /// Whether the user is a superuser (`system:masters`).
    pub fn is_superuser(&self) -> bool {
        self.groups.iter().any(|g| g == MASTERS)
    }

    /// `(namespace, name)` when the user is a ServiceAccount.
    pub fn service_account(&self) -> Option<(&str, &str)> {
        self.name.strip_prefix("system:serviceaccount:")?.split_once(':')
    }
}

/// What the TLS layer learned from a connection's client certificate.
#[derive(Debug, Clone, Default)]
pub enum Peer {
    /// No certificate.
    #[default]
    Anonymous,
    /// A certificate from the cluster CA, valid now.
    User(User),
    /// A certificate from another CA, expired, or unreadable.
    Rejected,
}

/// Authenticates a request: a bearer token wins over the connection's certificate,
/// as kube-apiserver's union of authenticators does when the token is valid; an
/// invalid token is refused outright. `Ok(None)` means anonymous.
pub fn authenticate(
    tokens: &TokenSigner,
    store: &Reader,
    headers: &HeaderMap,
    peer: &Peer,
) -> Result<Option<User>, ApiError> {
    let bearer = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    match bearer {
        Some(token) => token_user(tokens, store, token).map(Some).map_err(|e| {
            tracing::debug!(error = %e, "bearer token refused");
            ApiError::unauthorized()
        }),
        None => match peer {
            Peer::Anonymous => Ok(None),
            Peer::User(user) => Ok(Some(user.clone())),
            Peer::Rejected => Err(ApiError::unauthorized()),
        },
    }
}

/// How long after its deletion time a Pod's bound tokens still pass (go-jose's
/// `DefaultLeeway`, which upstream's validator allows).
const LEEWAY_SECONDS: i64 = 60;

fn token_user(tokens: &TokenSigner, store: &Reader, token: &str) -> Result<User, TokenError> {
    let now = jiff::Timestamp::now().as_second();
    let claims = tokens.verify(token, now)?;
    let namespace = claims.namespace().to_string();
    let sa = claims.service_account();
    // A token dies with its ServiceAccount, as upstream's bound tokens do.
    let live = store
        .get(&kinds::service_accounts(), &key(Some(&namespace), &sa.name))
        .is_some_and(|stored| super::object::uid(&stored.value()) == Some(sa.uid.as_str()));
    if !live {
        return Err(TokenError::Audience);
    }
    // A token bound to a Pod dies with it (upstream's `validator.Validate`): once the Pod
    // object is gone or replaced, or its deletion time (the end of its grace period) is
    // more than the leeway ago. A terminating Pod's containers keep using it meanwhile.
    if let Some(pod) = claims.pod() {
        let live = store.get(&kinds::key_of::<Pod>(), &key(Some(&namespace), &pod.name)).is_some_and(|stored| {
            // Only its metadata is parsed: this runs on every request such a token makes.
            let stored = super::object::metadata_only(&stored.json());
            let deleted = super::object::deletion_timestamp(&stored).and_then(|t| t.parse::<jiff::Timestamp>().ok());
            super::object::uid(&stored) == Some(pod.uid.as_str())
                && deleted.is_none_or(|at| at.as_second() >= now - LEEWAY_SECONDS)
        });
        if !live {
            return Err(TokenError::Invalidated);
        }
    }
    Ok(User {
        name: claims.sub.clone(),
        uid: sa.uid.clone(),
        groups: vec![
            "system:serviceaccounts".into(),
            format!("system:serviceaccounts:{namespace}"),
            AUTHENTICATED.into(),
        ],
    })
}

/// Paths anyone may read without credentials.
pub fn is_public(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    ["/healthz", "/livez", "/readyz", "/version"].iter().any(|p| path == *p || path.starts_with(&format!("{p}/")))
}

/// The identity named by `Impersonate-User` / `Impersonate-Group` headers, if any.
pub fn impersonated(headers: &HeaderMap) -> Option<User> {
    let name = headers.get("impersonate-user")?.to_str().ok()?.to_string();
    let mut groups: Vec<String> =
        headers.get_all("impersonate-group").iter().filter_map(|v| v.to_str().ok()).map(str::to_string).collect();
    if let Some(rest) = name.strip_prefix("system:serviceaccount:")
        && let Some((namespace, _)) = rest.split_once(':')
    {
        groups.push("system:serviceaccounts".into());
        groups.push(format!("system:serviceaccounts:{namespace}"));
    }
    if !groups.iter().any(|g| g == AUTHENTICATED) {
        groups.push(AUTHENTICATED.into());
    }
    let uid = headers.get("impersonate-uid").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
    Some(User { name, uid, groups })
}
