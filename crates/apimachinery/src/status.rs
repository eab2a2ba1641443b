//! `metav1.Status` errors, shaped exactly as kube-apiserver writes them.

use serde_json::{Value, json};

/// One field-level cause of an `Invalid` error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    /// Upstream cause reason, such as `FieldValueInvalid` or `FieldValueRequired`.
    pub reason: &'static str,
    /// The field path, such as `metadata.name`.
    pub field: String,
    /// Human text, without the field path.
    pub message: String,
}

impl Cause {
    /// A cause with the given reason on `field`.
    pub fn new(reason: &'static str, field: impl Into<String>, message: impl Into<String>) -> Self {
        Self { reason, field: field.into(), message: message.into() }
    }
}

/// An API error: an HTTP status code plus the `metav1.Status` body the client parses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// HTTP status code.
    pub code: u16,
    /// `metav1.StatusReason`, such as `NotFound`.
    pub reason: &'static str,
    /// Human-readable message.
    pub message: String,
    /// `details`, boxed so results stay small.
    pub details: Box<Details>,
}

/// `metav1.StatusDetails`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Details {
    /// `details.name`.
    pub name: Option<String>,
    /// `details.group`.
    pub group: Option<String>,
    /// `details.kind` (the plural resource for most errors, the Kind for `Invalid`).
    pub kind: Option<String>,
    /// `details.causes`.
    pub causes: Vec<Cause>,
    /// `details.retryAfterSeconds`, when the client should come back later.
    pub retry_after: Option<u32>,
}

/// `deployments.apps` or `configmaps`: how upstream names a resource in messages.
pub fn qualified(resource: &str, group: &str) -> String {
    if group.is_empty() { resource.to_string() } else { format!("{resource}.{group}") }
}

impl ApiError {
    fn plain(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        Self { code, reason, message: message.into(), details: Box::default() }
    }

    fn about(mut self, resource: &str, group: &str, name: &str) -> Self {
        self.details.kind = Some(resource.to_string());
        self.details.group = (!group.is_empty()).then(|| group.to_string());
        self.details.name = (!name.is_empty()).then(|| name.to_string());
        self
    }

    /// 404 for an object that does not exist.
    pub fn not_found(resource: &str, group: &str, name: &str) -> Self {
        let message = format!("{} \"{name}\" not found", qualified(resource, group));
        Self::plain(404, "NotFound", message).about(resource, group, name)
    }

    /// 404 for a path the server does not serve.
    pub fn no_route() -> Self {
        Self::plain(404, "NotFound", "the server could not find the requested resource")
    }

    /// 409 on create when the name is taken.
    pub fn already_exists(resource: &str, group: &str, name: &str) -> Self {
        let message = format!("{} \"{name}\" already exists", qualified(resource, group));
        Self::plain(409, "AlreadyExists", message).about(resource, group, name)
    }

    /// 409 when a write carries a stale resourceVersion.
    pub fn conflict(resource: &str, group: &str, name: &str, why: &str) -> Self {
        let message = format!("Operation cannot be fulfilled on {} \"{name}\": {why}", qualified(resource, group));
        Self::plain(409, "Conflict", message).about(resource, group, name)
    }

    /// 409 for the stale-resourceVersion case, with upstream's wording.
    pub fn modified(resource: &str, group: &str, name: &str) -> Self {
        Self::conflict(
            resource,
            group,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        )
    }

    /// 422 with field causes; `kind` is the object's Kind, as upstream reports it.
    pub fn invalid(kind: &str, group: &str, name: &str, causes: Vec<Cause>) -> Self {
        let summary: Vec<String> = causes
            .iter()
            .map(|c| if c.field.is_empty() { c.message.clone() } else { format!("{}: {}", c.field, c.message) })
            .collect();
        let subject = qualified(kind, group);
        let message = match summary.len() {
            1 => format!("{subject} \"{name}\" is invalid: {}", summary[0]),
            _ => format!("{subject} \"{name}\" is invalid: [{}]", summary.join(", ")),
        };
        let mut err = Self::plain(422, "Invalid", message).about(kind, group, name);
        err.details.causes = causes;
        err
    }

    /// 422 without an object kind (patch application failures).
    pub fn unprocessable(message: impl Into<String>) -> Self {
        Self::plain(422, "Invalid", message)
    }

    /// An error with a code chosen elsewhere (a webhook's) and the reason upstream gives it.
    pub fn with_code(code: u16, message: &str) -> Self {
        let reason = match code {
            400 => "BadRequest",
            401 => "Unauthorized",
            403 => "Forbidden",
            404 => "NotFound",
            405 => "MethodNotAllowed",
            409 => "Conflict",
            410 => "Expired",
            413 => "RequestEntityTooLarge",
            415 => "UnsupportedMediaType",
            422 => "Invalid",
            429 => "TooManyRequests",
            500 => "InternalError",
            503 => "ServiceUnavailable",
            504 => "Timeout",
            _ => "",
        };
        Self::plain(code, reason, message)
    }

    /// 400 for malformed requests.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::plain(400, "BadRequest", message)
    }

    /// 403 with upstream's `... is forbidden: why` wording.
    pub fn forbidden(resource: &str, group: &str, name: &str, why: &str) -> Self {
        let subject = if name.is_empty() {
            qualified(resource, group)
        } else {
            format!("{} \"{name}\"", qualified(resource, group))
        };
        Self::plain(403, "Forbidden", format!("{subject} is forbidden: {why}")).about(resource, group, name)
    }

    /// 405 for a verb the resource does not support.
    pub fn method_not_allowed(verb: &str, resource: &str) -> Self {
        Self::plain(
            405,
            "MethodNotAllowed",
            format!("the server does not allow this method on the requested resource ({verb} {resource})"),
        )
    }

    /// 415 for a body or patch type the server cannot read.
    pub fn unsupported_media_type(message: impl Into<String>) -> Self {
        Self::plain(415, "UnsupportedMediaType", message)
    }

    /// 406 when no form the client accepts can carry the answer.
    pub fn not_acceptable(accepted: &str) -> Self {
        Self::plain(406, "NotAcceptable", format!("only the following media types are accepted: {accepted}"))
    }

    /// 413 for a body over the server's limit.
    pub fn too_large(limit: usize) -> Self {
        Self::plain(413, "RequestEntityTooLarge", format!("Request entity too large: limit is {limit}"))
    }

    /// 410 for a resourceVersion or continue token the server no longer holds.
    pub fn expired(message: impl Into<String>) -> Self {
        Self::plain(410, "Expired", message)
    }

    /// 500 for a failure of the server itself.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::plain(500, "InternalError", format!("Internal error occurred: {}", message.into()))
    }

    /// 401 for a request without valid credentials.
    pub fn unauthorized() -> Self {
        Self::plain(401, "Unauthorized", "Unauthorized")
    }

    /// The `metav1.Status` body.
    pub fn to_status(&self) -> Value {
        let d = &self.details;
        let mut details = serde_json::Map::new();
        if let Some(name) = &d.name {
            details.insert("name".into(), json!(name));
        }
        if let Some(group) = &d.group {
            details.insert("group".into(), json!(group));
        }
        if let Some(kind) = &d.kind {
            details.insert("kind".into(), json!(kind));
        }
        if !d.causes.is_empty() {
            // Empty members are left out, as Go's `omitempty` does.
            let causes: Vec<Value> = d
                .causes
                .iter()
                .map(|c| {
                    let mut cause = json!({"message": c.message});
                    if !c.reason.is_empty() {
                        cause["reason"] = json!(c.reason);
                    }
                    if !c.field.is_empty() {
                        cause["field"] = json!(c.field);
                    }
                    cause
                })
                .collect();
            details.insert("causes".into(), Value::Array(causes));
        }
        if let Some(seconds) = d.retry_after {
            details.insert("retryAfterSeconds".into(), json!(seconds));
        }
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if !details.is_empty() {
            status["details"] = Value::Object(details);
        }
        status
    }
}

/// The `Success` Status a plain delete answers with.
pub fn deleted_status(resource: &str, group: &str, name: &str, uid: &str) -> Value {
    let mut details = json!({"name": name, "kind": resource, "uid": uid});
    if !group.is_empty() {
        details["group"] = json!(group);
    }
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_names_the_grouped_resource() {
        let status = ApiError::not_found("deployments", "apps", "web").to_status();
        assert_eq!(status["message"], "deployments.apps \"web\" not found");
        assert_eq!(status["details"], json!({"name": "web", "group": "apps", "kind": "deployments"}));
        assert_eq!(status["code"], 404);
    }

    #[test]
    fn invalid_lists_every_cause() {
        let err = ApiError::invalid(
            "ConfigMap",
            "",
            "x",
            vec![
                Cause::new("FieldValueRequired", "metadata.name", "Required value"),
                Cause::new("FieldValueInvalid", "data", "bad"),
            ],
        );
        assert_eq!(err.message, "ConfigMap \"x\" is invalid: [metadata.name: Required value, data: bad]");
        assert_eq!(err.to_status()["details"]["causes"][1]["field"], "data");
    }
}
