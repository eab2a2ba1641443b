//! Admission: what a write passes after it is authorized and before it is stored, as
//! kube-apiserver's admission chain runs it — first mutating webhooks ([`Chain::mutating`],
//! before the kind's strategy validates the object), then the ordered checks: namespace
//! lifecycle, ValidatingAdmissionPolicies, validating webhooks, and ResourceQuota (last,
//! as upstream runs it).
//!
//! Every write goes through [`Chain::validate`] once the object it would store is
//! complete (defaulted and validated by its strategy), so policies see what would be
//! persisted, and the built-in controllers' writes are admitted like any client's.

mod matching;
mod namespace;
mod policy;
mod quota;
mod webhook;

use serde_json::Value;

use super::auth::User;
use super::registry::ResourceType;
use super::state::ApiState;
use super::status::ApiError;

pub use policy::Policies;
pub use webhook::MutatingWebhooks;

/// The operation being admitted, as admission names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// POST, or an apply that creates.
    Create,
    /// PUT and PATCH.
    Update,
    /// DELETE.
    Delete,
}

impl Operation {
    /// `CREATE`, `UPDATE` or `DELETE`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Create => "CREATE",
            Self::Update => "UPDATE",
            Self::Delete => "DELETE",
        }
    }
}

/// One write, as admission sees it.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// What is done.
    pub operation: Operation,
    /// The resource.
    pub rt: &'a ResourceType,
    /// The subresource (`status`, …), if any.
    pub subresource: Option<&'a str>,
    /// The namespace, for namespaced resources.
    pub namespace: Option<&'a str>,
    /// The object's name.
    pub name: &'a str,
    /// The object as it would be stored (`None` for DELETE).
    pub object: Option<&'a Value>,
    /// The object as stored before (`None` for CREATE).
    pub old_object: Option<&'a Value>,
    /// Who asks.
    pub user: &'a User,
    /// `dryRun=All`.
    pub dry_run: bool,
}

/// What admission adds to an allowed write: warnings for the client.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Admitted {
    /// `Warning` headers (policy bindings with the `Warn` action).
    pub warnings: Vec<String>,
}

/// One admission check.
pub trait Plugin: Send + Sync {
    /// Lets the write through (recording warnings in `admitted`), or refuses it.
    fn validate(&self, state: &ApiState, request: &Request<'_>, admitted: &mut Admitted) -> Result<(), ApiError>;
}

/// The admission plugins in the order they run.
pub struct Chain {
    /// The mutating webhooks, which run before the kind's strategy validates the object.
    pub mutating: MutatingWebhooks,
    plugins: Vec<Box<dyn Plugin>>,
}

impl Default for Chain {
    /// kube-apiserver's order, reduced to the plugins this server has.
    fn default() -> Self {
        Self {
            mutating: MutatingWebhooks::default(),
            plugins: vec![
                Box::new(namespace::NamespaceLifecycle),
                Box::new(Policies::default()),
                Box::new(webhook::Webhooks::default()),
                Box::new(quota::ResourceQuota),
            ],
        }
    }
}

impl Chain {
    /// Runs every plugin; the first refusal ends the request.
    pub fn validate(&self, state: &ApiState, request: &Request<'_>) -> Result<Admitted, ApiError> {
        let mut admitted = Admitted::default();
        for plugin in &self.plugins {
            plugin.validate(state, request, &mut admitted)?;
        }
        Ok(admitted)
    }
}
