//! What an API verb is asked to do besides its object — who asks and how
//! ([`Caller`], [`WriteOptions`], [`DeleteOptions`], a [`Patch`]) — and what a write
//! answers ([`Written`]).

use std::sync::Arc;
use std::sync::LazyLock;

use serde_json::Value;

use super::admission::Admitted;
use super::auth::User;
use super::registry::ResourceType;
use super::status::ApiError;

/// Who writes, and as what: what admission sees of a write besides its objects.
#[derive(Debug, Clone, Default)]
pub struct Caller {
    /// Who is writing (CSRs record their requester); `None` for the built-in controllers.
    pub user: Option<User>,
    /// The resource the client named, when another resource's store serves it
    /// (`events.k8s.io` Events): admission sees the write as named.
    pub requested: Option<Arc<ResourceType>>,
    /// `dryRun=All`: everything but the commit.
    pub dry_run: bool,
}

/// The identity of the server's own built-in controllers, for the writes that name none.
static CONTROLLERS: LazyLock<User> = LazyLock::new(User::controllers);

impl Caller {
    /// Who admission sees writing.
    pub fn user(&self) -> &User {
        self.user.as_ref().unwrap_or(&CONTROLLERS)
    }
}

/// How a write should be carried out.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// Who writes, and as what.
    pub caller: Caller,
    /// `fieldManager`: who is writing (recorded in managedFields).
    pub field_manager: Option<String>,
    /// `force` for server-side apply.
    pub force: bool,
    /// `fieldValidation=Strict`: unknown fields of custom resources are an error.
    pub strict: bool,
}

/// The patch formats of `Content-Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    /// `application/merge-patch+json`
    Merge,
    /// `application/json-patch+json`
    Json,
    /// `application/strategic-merge-patch+json`
    Strategic,
    /// `application/apply-patch+yaml`
    Apply,
}

impl PatchType {
    /// From a Content-Type header value.
    pub fn from_content_type(content_type: &str) -> Option<Self> {
        match content_type.split(';').next().unwrap_or("").trim() {
            "application/merge-patch+json" => Some(Self::Merge),
            "application/json-patch+json" => Some(Self::Json),
            "application/strategic-merge-patch+json" => Some(Self::Strategic),
            "application/apply-patch+yaml" | "application/apply-patch+json" => Some(Self::Apply),
            _ => None,
        }
    }
}

/// Deletion options (`DeleteOptions` body and query).
#[derive(Debug, Clone, Default)]
pub struct DeleteOptions {
    /// Who deletes, and as what.
    pub caller: Caller,
    /// `propagationPolicy`.
    pub propagation: Option<Propagation>,
    /// `preconditions.uid`.
    pub uid: Option<String>,
    /// `preconditions.resourceVersion`.
    pub resource_version: Option<String>,
    /// `gracePeriodSeconds`: how long a Pod's containers have to stop (see
    /// [`Strategy::deletion_grace`](super::strategy::Strategy::deletion_grace)).
    pub grace_period: Option<i64>,
}

/// A PATCH body, in the format its `Content-Type` names.
#[derive(Debug, Clone, Copy)]
pub struct Patch<'a> {
    /// The format.
    pub kind: PatchType,
    /// The body.
    pub body: &'a [u8],
}

/// Garbage-collection policy for dependents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Propagation {
    /// Delete the owner now, dependents afterwards.
    Background,
    /// Delete dependents first, then the owner.
    Foreground,
    /// Keep dependents, dropping their reference to the owner.
    Orphan,
}

impl Propagation {
    /// From the wire value.
    pub fn parse(value: &str) -> Result<Self, ApiError> {
        match value {
            "Background" => Ok(Self::Background),
            "Foreground" => Ok(Self::Foreground),
            "Orphan" => Ok(Self::Orphan),
            other => Err(ApiError::bad_request(format!(
                "propagationPolicy {other:?} is not supported: use Background, Foreground or Orphan"
            ))),
        }
    }
}

/// The answer of a write: an HTTP status and the object (or Status) to return.
#[derive(Debug)]
pub struct Written {
    /// 200 or 201.
    pub code: u16,
    /// The body.
    pub body: Value,
    /// Warnings for the client (`Warning` headers).
    pub warnings: Vec<String>,
}

impl Written {
    pub(crate) fn new(code: u16, body: Value) -> Self {
        Self { code, body, warnings: Vec::new() }
    }

    pub(crate) fn warned(mut self, admitted: Admitted) -> Self {
        self.warnings = admitted.warnings;
        self
    }
}
