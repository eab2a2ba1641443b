//! Types shared by every patch strategy.

/// How a list field merges in a strategic merge patch or a server-side apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListStrategy {
    /// The list is replaced whole (the default for any list nobody describes).
    Atomic,
    /// Elements are objects identified by these key fields
    /// (`patchMergeKey` of built-ins, `x-kubernetes-list-map-keys` of CRDs).
    Map(Vec<String>),
    /// Elements are scalars merged as a set (`finalizers`, `x-kubernetes-list-type: set`).
    Set,
}

/// Answers the strategy of the list at a field path such as
/// `spec.template.spec.containers` (field names joined by `.`, list positions left out).
pub type Strategies<'a> = &'a dyn Fn(&str) -> ListStrategy;

/// Why a patch could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The patch document itself is malformed (answered as 400 BadRequest).
    #[error("{0}")]
    BadRequest(String),
    /// The patch is well formed but cannot be applied to this object
    /// (a failed JSON-patch `test`, a missing path; answered as 422).
    #[error("{0}")]
    Unprocessable(String),
    /// A server-side apply met fields owned by other managers and `force` was not set
    /// (answered as 409 Conflict); each entry is `(manager, field path)`.
    #[error("Apply failed with {} conflict(s)", .0.len())]
    Conflicts(Vec<(String, String)>),
}
