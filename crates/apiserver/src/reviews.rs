//! Create-only review resources (access reviews, self-subject and token reviews) and
//! TokenRequest (`serviceaccounts/<name>/token`).

use k8s_openapi::api::core::v1::Pod;
use serde_json::{Value, json};

use super::auth::{self, User};
use super::kinds;
use super::object;
use super::rbac::{Attributes, Target};
use super::registry::ResourceType;
use super::state::ApiState;
use super::status::{ApiError, Cause};
use super::store::key;
use super::token::{BoundRef, ISSUER, ServiceAccountRef};

/// Token lifetime when a TokenRequest names none.
const DEFAULT_TOKEN_SECONDS: i64 = 3600;
/// The shortest lifetime upstream allows.
const MIN_TOKEN_SECONDS: i64 = 600;
/// The longest lifetime this server grants (upstream's max is configurable; agents ask for a year).
const MAX_TOKEN_SECONDS: i64 = 2 * 365 * 24 * 3600;

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_string()
}

fn non_empty(value: &Value) -> Option<String> {
    value.as_str().filter(|s| !s.is_empty()).map(str::to_string)
}

/// The attributes an access review asks about.
fn review_attributes(spec: &Value) -> Result<Attributes, ApiError> {
    if let Some(r) = spec["resourceAttributes"].as_object() {
        let field = |k: &str| r.get(k).cloned().unwrap_or(Value::Null);
        return Ok(Attributes {
            verb: text(&field("verb")),
            target: Target::Resource {
                group: text(&field("group")),
                resource: text(&field("resource")),
                subresource: non_empty(&field("subresource")),
                namespace: non_empty(&field("namespace")),
                name: non_empty(&field("name")),
            },
        });
    }
    if let Some(n) = spec["nonResourceAttributes"].as_object() {
        let path = n.get("path").map(text).unwrap_or_default();
        let verb = n.get("verb").map(text).unwrap_or_default();
        return Ok(Attributes { verb, target: Target::NonResource { path } });
    }
    Err(ApiError::invalid(
        "SubjectAccessReview",
        "authorization.k8s.io",
        "",
        vec![Cause::new(
            "FieldValueRequired",
            "spec.resourceAttributes",
            "Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified",
        )],
    ))
}

/// Answers a POST to a review resource for `requester`.
pub fn review(
    state: &ApiState,
    rt: &ResourceType,
    namespace: Option<&str>,
    mut body: Value,
    requester: &User,
) -> Result<Value, ApiError> {
    super::storage::check_type(rt, &mut body)?;
    let spec = body["spec"].clone();
    let status = match rt.plural.as_str() {
        "selfsubjectaccessreviews" => json!({"allowed": state.allowed(requester, &review_attributes(&spec)?)}),
        "subjectaccessreviews" | "localsubjectaccessreviews" => {
            let attributes = review_attributes(&spec)?;
            if let (Some(ns), Target::Resource { namespace: asked, .. }) = (namespace, &attributes.target)
                && asked.as_deref() != Some(ns)
            {
                return Err(ApiError::bad_request(format!(
                    "spec.resourceAttributes.namespace must match the namespace of the request ({ns})"
                )));
            }
            let subject = User {
                name: text(&spec["user"]),
                uid: text(&spec["uid"]),
                groups: spec["groups"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
            };
            json!({"allowed": state.allowed(&subject, &attributes)})
        }
        "selfsubjectrulesreviews" => {
            let Some(namespace) = non_empty(&spec["namespace"]) else {
                return Err(ApiError::bad_request("no namespace on request"));
            };
            let (resource_rules, non_resource_rules) =
                state.security.authorizer.rules(&state.reader(), requester, &namespace);
            json!({"resourceRules": resource_rules, "nonResourceRules": non_resource_rules, "incomplete": false})
        }
        "selfsubjectreviews" => json!({"userInfo": user_info(requester)}),
        "tokenreviews" => {
            let headers = bearer_headers(&text(&spec["token"]));
            match auth::authenticate(&state.security.tokens, &state.reader(), &headers, &auth::Peer::default()) {
                Ok(Some(user)) => json!({"authenticated": true, "user": user_info(&user), "audiences": [ISSUER]}),
                _ => json!({"authenticated": false, "error": "the token is not valid"}),
            }
        }
        other => return Err(ApiError::method_not_allowed("create", other)),
    };
    body["status"] = status;
    object::metadata_mut(&mut body).insert("creationTimestamp".into(), Value::Null);
    Ok(body)
}

/// Issues a ServiceAccount token (`POST serviceaccounts/<name>/token`).
pub fn token_request(state: &ApiState, namespace: &str, name: &str, mut body: Value) -> Result<Value, ApiError> {
    let sa = state
        .store
        .get(&kinds::service_accounts(), &key(Some(namespace), name))
        .ok_or_else(|| ApiError::not_found("serviceaccounts", "", name))?
        .value();
    let seconds = body["spec"]["expirationSeconds"].as_i64().unwrap_or(DEFAULT_TOKEN_SECONDS);
    if seconds < MIN_TOKEN_SECONDS {
        return Err(ApiError::invalid(
            "TokenRequest",
            "authentication.k8s.io",
            name,
            vec![Cause::new(
                "FieldValueInvalid",
                "spec.expirationSeconds",
                "Invalid value: may not specify a duration less than 10 minutes",
            )],
        ));
    }
    let seconds = seconds.min(MAX_TOKEN_SECONDS);
    let mut audiences: Vec<String> = body["spec"]["audiences"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    if audiences.is_empty() {
        audiences.push(ISSUER.to_string());
    }
    let pod = bound_pod(state, namespace, name, &body["spec"]["boundObjectRef"])?;
    if let Some(pod) = &pod {
        body["spec"]["boundObjectRef"]["uid"] = json!(pod.uid);
    }
    let uid = object::uid(&sa).unwrap_or_default().to_string();
    let now = jiff::Timestamp::now().as_second();
    let (token, claims) = state
        .security
        .tokens
        .issue(namespace, ServiceAccountRef { name: name.to_string(), uid }, pod, audiences.clone(), now, seconds)
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let expires = jiff::Timestamp::from_second(claims.exp).map(object::time).unwrap_or_default();
    body["apiVersion"] = json!("authentication.k8s.io/v1");
    body["kind"] = json!("TokenRequest");
    // Stamped with the time the token's life is counted from, as upstream's TokenREST
    // does (ACM's import controller renews a token a fraction of its life after it).
    let created = jiff::Timestamp::from_second(now).map(object::time).unwrap_or_default();
    body["metadata"] = json!({"name": name, "namespace": namespace, "creationTimestamp": created});
    body["spec"]["audiences"] = json!(audiences);
    body["spec"]["expirationSeconds"] = json!(seconds);
    body["status"] = json!({"token": token, "expirationTimestamp": expires});
    Ok(body)
}

/// The Pod a TokenRequest binds its token to (`spec.boundObjectRef` of kind Pod), checked
/// as upstream's TokenREST does: it exists, under the uid named if one is, and runs as the
/// ServiceAccount. References of other kinds (Secret, Node) bind nothing here: their tokens
/// live as unbound ones do.
fn bound_pod(state: &ApiState, namespace: &str, sa: &str, reference: &Value) -> Result<Option<BoundRef>, ApiError> {
    if reference["kind"] != "Pod" {
        return Ok(None);
    }
    let name = text(&reference["name"]);
    let pod = state
        .store
        .get(&kinds::key_of::<Pod>(), &key(Some(namespace), &name))
        .ok_or_else(|| ApiError::not_found("pods", "", &name))?
        .value();
    let uid =
        object::uid(&pod).ok_or_else(|| ApiError::internal(format!("the stored Pod {name} has no uid")))?.to_string();
    if let Some(asked) = non_empty(&reference["uid"])
        && asked != uid
    {
        return Err(ApiError::bad_request(format!(
            "the UID in the bound object reference ({asked}) does not match the UID in record. The object might have been deleted and then recreated"
        )));
    }
    let runs_as = pod["spec"]["serviceAccountName"].as_str().filter(|s| !s.is_empty()).unwrap_or("default");
    if runs_as != sa {
        return Err(ApiError::bad_request(format!(
            "cannot bind token for serviceaccount {sa:?} to pod running with different serviceaccount name."
        )));
    }
    Ok(Some(BoundRef { name, uid }))
}

fn user_info(user: &User) -> Value {
    let mut info = json!({"username": user.name, "groups": user.groups});
    if !user.uid.is_empty() {
        info["uid"] = json!(user.uid);
    }
    info
}

fn bearer_headers(token: &str) -> axum::http::HeaderMap {
    let mut headers = axum::http::HeaderMap::new();
    if let Ok(value) = axum::http::HeaderValue::from_str(&format!("Bearer {token}")) {
        headers.insert(axum::http::header::AUTHORIZATION, value);
    }
    headers
}
