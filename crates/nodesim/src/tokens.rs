//! ServiceAccount tokens for a Pod, through the TokenRequest API as kubelet asks for them:
//! bound to the Pod, with the audience and lifetime asked for; a ServiceAccount that does
//! not exist yet is waited for through a watch.

use std::path::Path;

use k8s_openapi::api::authentication::v1::{BoundObjectReference, TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::ServiceAccount;
use kube::api::{Api, PostParams};
use kube::runtime::wait::await_condition;

use super::process;

/// Why a token could not be had.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// The request failed.
    #[error("requesting a token")]
    Request(#[source] kube::Error),
    /// The watch of the missing ServiceAccount failed.
    #[error("waiting for the service account")]
    Wait(#[source] kube::runtime::wait::Error),
    /// The answer held no token.
    #[error("the token request was answered without a token")]
    NoToken,
}

/// What a token is asked for.
pub struct Ask<'a> {
    /// The Pod's namespace.
    pub namespace: &'a str,
    /// Its ServiceAccount.
    pub service_account: &'a str,
    /// The Pod (name and uid) the token is bound to, if any.
    pub pod: Option<(&'a str, &'a str)>,
    /// The audience (`None`: the API server's).
    pub audience: Option<&'a str>,
    /// Its lifetime.
    pub seconds: i64,
    /// The Pod's log, where waiting for the ServiceAccount is noted.
    pub log: &'a Path,
}

/// Requests a token, waiting for the ServiceAccount if it does not exist yet.
pub async fn request(client: kube::Client, ask: &Ask<'_>) -> Result<String, TokenError> {
    let api: Api<ServiceAccount> = Api::namespaced(client, ask.namespace);
    let request = TokenRequest {
        spec: TokenRequestSpec {
            audiences: ask.audience.map(|a| vec![a.to_string()]).unwrap_or_default(),
            expiration_seconds: Some(ask.seconds),
            bound_object_ref: ask.pod.map(|(name, uid)| BoundObjectReference {
                api_version: Some("v1".into()),
                kind: Some("Pod".into()),
                name: Some(name.into()),
                uid: Some(uid.into()),
            }),
        },
        ..TokenRequest::default()
    };
    let sa = ask.service_account;
    loop {
        match api.create_token_request(sa, &PostParams::default(), &request).await {
            Ok(issued) => {
                return issued.status.map(|s| s.token).filter(|t| !t.is_empty()).ok_or(TokenError::NoToken);
            }
            // The Pod the token would be bound to is gone: nothing to wait for (the node
            // stops the Pod).
            Err(kube::Error::Api(status)) if status.code == 404 && status.message.starts_with("pods ") => {
                return Err(TokenError::Request(kube::Error::Api(status)));
            }
            Err(kube::Error::Api(status)) if status.code == 404 => {
                let pod = ask.pod.map_or("", |p| p.0);
                process::log_line(ask.log, &format!("pod {pod}: waiting for service account {}/{sa}", ask.namespace));
                await_condition(api.clone(), sa, |sa: Option<&ServiceAccount>| sa.is_some())
                    .await
                    .map_err(TokenError::Wait)?;
            }
            Err(e) => return Err(TokenError::Request(e)),
        }
    }
}
