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

use std::sync::Arc;

use serde_json::Value;

use super::auth::User;
use super::context::Context;
use super::event_versions;
use super::key::ObjectKey;
use super::options::Caller;
use super::registry::{Registry, ResourceType};
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
    /// The resource whose store is written (and whose version the objects are in).
    pub rt: &'a ResourceType,
    /// The resource the client named: `rt`, or one that `rt`'s store serves
    /// (`events.k8s.io` Events are the core Events stored).
    pub requested: &'a ResourceType,
    /// The subresource (`status`, …), if any.
    pub subresource: Option<&'a str>,
    /// The object's namespace and name.
    pub key: ObjectKey<'a>,
    /// The object as it would be stored (`None` for DELETE).
    pub object: Option<&'a Value>,
    /// The object as stored before (`None` for CREATE).
    pub old_object: Option<&'a Value>,
    /// Who asks.
    pub user: &'a User,
    /// `dryRun=All`.
    pub dry_run: bool,
}

impl<'a> Request<'a> {
    /// `operation` on the object `key` of `rt` by `caller`, of the main resource and with
    /// no objects: a write sets those it has (`Request { object, ..Request::new(…) }`).
    pub fn new(operation: Operation, rt: &'a ResourceType, key: ObjectKey<'a>, caller: &'a Caller) -> Self {
        Self {
            operation,
            rt,
            requested: caller.requested.as_deref().unwrap_or(rt),
            subresource: None,
            key,
            object: None,
            old_object: None,
            user: caller.user(),
            dry_run: caller.dry_run,
        }
    }
}

/// A request as a policy or webhook sees it once matched: under the resource it matched,
/// with its objects in that resource's version.
pub struct Seen<'a> {
    request: Request<'a>,
    /// The resource it is seen as and the objects in its version, when that is not the
    /// stored resource.
    converted: Option<Converted>,
}

/// A request's objects in the version of another resource served from the same store.
struct Converted {
    rt: Arc<ResourceType>,
    object: Option<Value>,
    old_object: Option<Value>,
}

impl Seen<'_> {
    /// The request as this view shows it.
    pub fn request(&self) -> Request<'_> {
        match &self.converted {
            None => self.request,
            Some(converted) => Request {
                rt: &converted.rt,
                object: converted.object.as_ref(),
                old_object: converted.old_object.as_ref(),
                ..self.request
            },
        }
    }

    /// A stored-form object as this view shows it.
    pub fn shown(&self, stored: &Value) -> Value {
        match &self.converted {
            None => stored.clone(),
            Some(converted) => event_versions::from_core(stored.clone(), &converted.rt.api_version()),
        }
    }

    /// An object this view shows, in the stored form.
    pub fn stored(&self, shown: Value) -> Value {
        match self.converted {
            None => shown,
            Some(_) => event_versions::to_core(shown),
        }
    }
}

/// The views a policy or webhook may match `request` under, in the order upstream tries
/// them: the resource the client named, then — unless it matches `Exact`ly — the other
/// resource served from the same store (matchPolicy `Equivalent`, the default:
/// `events.k8s.io` Events and core Events are one store).
pub fn views<'a>(registry: &Registry, request: &Request<'a>, exact: bool) -> Vec<Seen<'a>> {
    let as_stored = || Seen { request: *request, converted: None };
    let Some(converted_rt) = event_versions::converted_resource(registry, request.rt) else {
        return vec![as_stored()];
    };
    let as_converted = || {
        let api_version = converted_rt.api_version();
        let convert = |object: Option<&Value>| object.map(|o| event_versions::from_core(o.clone(), &api_version));
        let converted = Converted {
            object: convert(request.object),
            old_object: convert(request.old_object),
            rt: converted_rt.clone(),
        };
        Seen { request: *request, converted: Some(converted) }
    };
    let named_converted = request.requested.group_resource() == converted_rt.group_resource();
    match (named_converted, exact) {
        (true, true) => vec![as_converted()],
        (true, false) => vec![as_converted(), as_stored()],
        (false, true) => vec![as_stored()],
        (false, false) => vec![as_stored(), as_converted()],
    }
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
    fn validate(&self, context: &Context<'_>, request: &Request<'_>, admitted: &mut Admitted) -> Result<(), ApiError>;
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
    pub fn validate(&self, context: &Context<'_>, request: &Request<'_>) -> Result<Admitted, ApiError> {
        let mut admitted = Admitted::default();
        for plugin in &self.plugins {
            plugin.validate(context, request, &mut admitted)?;
        }
        Ok(admitted)
    }
}
