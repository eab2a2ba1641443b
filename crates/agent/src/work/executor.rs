//! A work's executor: the ServiceAccount on the managed cluster whose permissions bound what
//! the work may apply, as upstream's work agent checks them before each manifest — a
//! SubjectAccessReview per verb the apply needs (`create`, `update`, `patch`, `get`, and
//! `delete` when the work owns the object, i.e. its deleteOption does not orphan it), and for
//! RBAC objects a dry-run create impersonating the ServiceAccount, so an executor cannot grant
//! (escalate to, or bind) more than it holds. Nothing is cached: every pass asks again, so a
//! permission granted or revoked counts from the next pass.

use http::HeaderValue;
use k8s_openapi::api::authorization::v1::{ResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec};
use kube::Client;
use kube::api::{Api, DynamicObject, PostParams};
use serde_json::Value;

use fleetctl_api::ManifestWork;
use fleetctl_kube::resolve::Resolved;

use super::apply::ManifestError;

/// The verbs an apply needs on its object.
const APPLY_VERBS: [&str; 4] = ["create", "update", "patch", "get"];
/// The RBAC resources whose writes are checked for escalation.
const RBAC_GROUP: &str = "rbac.authorization.k8s.io";
const RBAC_RESOURCES: [&str; 4] = ["roles", "rolebindings", "clusterroles", "clusterrolebindings"];

/// The identity a work's manifests are applied as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Executor {
    user: String,
    groups: Vec<String>,
}

impl Executor {
    /// The executor `work` names; `None` when it names none (the agent's own identity applies).
    pub fn of(work: &ManifestWork) -> Result<Option<Self>, ManifestError> {
        let Some(executor) = &work.spec.executor else {
            return Ok(None);
        };
        let account = executor.subject.service_account.as_ref().ok_or_else(|| {
            ManifestError::Executor(
                "the executor service account is nil: spec.executor.subject.serviceAccount names the identity to \
                 apply as"
                    .to_owned(),
            )
        })?;
        Ok(Some(Self {
            user: format!("system:serviceaccount:{}:{}", account.namespace, account.name),
            groups: vec![
                "system:serviceaccounts".to_owned(),
                "system:authenticated".to_owned(),
                format!("system:serviceaccounts:{}", account.namespace),
            ],
        }))
    }

    /// Whether the executor may apply `body` as the object `resolved` names, `held` saying
    /// whether the work owns it (then deleting it must be allowed too).
    pub async fn may_apply(
        &self,
        client: &Client,
        resolved: &Resolved,
        held: bool,
        body: &Value,
    ) -> Result<(), ManifestError> {
        let verbs = APPLY_VERBS.iter().copied().chain(held.then_some("delete"));
        let reviews: Api<SubjectAccessReview> = Api::all(client.clone());
        for verb in verbs {
            let review = self.review(resolved, verb);
            let answer = reviews.create(&PostParams::default(), &review).await?;
            if !answer.status.is_some_and(|s| s.allowed) {
                return Err(ManifestError::NotAllowed(format!(
                    "not allowed to apply the resource {} {}, {} {}",
                    resolved.resource.group,
                    resolved.resource.plural,
                    resolved.namespace.as_deref().unwrap_or_default(),
                    resolved.name
                )));
            }
        }
        if resolved.resource.group == RBAC_GROUP && RBAC_RESOURCES.contains(&resolved.resource.plural.as_str()) {
            self.may_grant(client, resolved, body).await?;
        }
        Ok(())
    }

    fn review(&self, resolved: &Resolved, verb: &str) -> SubjectAccessReview {
        SubjectAccessReview {
            spec: SubjectAccessReviewSpec {
                resource_attributes: Some(ResourceAttributes {
                    group: Some(resolved.resource.group.clone()),
                    version: Some(resolved.resource.version.clone()),
                    resource: Some(resolved.resource.plural.clone()),
                    namespace: resolved.namespace.clone(),
                    name: Some(resolved.name.clone()),
                    verb: Some(verb.to_owned()),
                    ..ResourceAttributes::default()
                }),
                user: Some(self.user.clone()),
                groups: Some(self.groups.clone()),
                ..SubjectAccessReviewSpec::default()
            },
            ..SubjectAccessReview::default()
        }
    }

    /// A dry-run create of the RBAC object as the executor: the API server's escalation
    /// check refuses a Role granting, or a binding to, more than the executor holds. An
    /// object that exists already passes (as upstream: its update was reviewed above).
    async fn may_grant(&self, client: &Client, resolved: &Resolved, body: &Value) -> Result<(), ManifestError> {
        let api = resolved.api(client);
        let params = PostParams { dry_run: true, ..PostParams::default() };
        let unsent = |error: String| ManifestError::Executor(format!("checking the executor's grants: {error}"));
        let bytes = serde_json::to_vec(body).map_err(|e| unsent(e.to_string()))?;
        let mut request =
            kube::core::Request::new(api.resource_url()).create(&params, bytes).map_err(|e| unsent(e.to_string()))?;
        let header = |value: &str| HeaderValue::from_str(value).map_err(|e| unsent(e.to_string()));
        let headers = request.headers_mut();
        headers.insert("Impersonate-User", header(&self.user)?);
        for group in &self.groups {
            headers.append("Impersonate-Group", header(group)?);
        }
        match client.request::<DynamicObject>(request).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(status)) if status.code == 403 => Err(ManifestError::NotAllowed(format!(
                "not allowed to apply the resource {} {}, {} {}, error: permission escalation",
                resolved.resource.group,
                resolved.resource.plural,
                resolved.namespace.as_deref().unwrap_or_default(),
                resolved.name
            ))),
            Err(kube::Error::Api(status)) if status.code == 409 => Ok(()),
            Err(error) => Err(error.into()),
        }
    }
}
