//! HTTP: routing of paths to discovery, OpenAPI, health and the resource verbs;
//! body decoding and limits; Status responses.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde_json::{Value, json};

use super::auth::{self, Peer, User};
use super::discovery;
use super::openapi;
use super::protobuf;
use super::rbac::{self, Attributes, Target};
use super::registry::ResourceType;
use super::request::{Query, ResourcePath};
use super::resource::{DeleteOptions, PatchType, Propagation, WriteOptions};
use super::state::Shared;
use super::status::ApiError;
use super::table::{self, Printer};
use super::watch;

/// The largest request body accepted, as kube-apiserver's limit.
pub const MAX_BODY: usize = 3 * 1024 * 1024;

/// What the router hands every request.
#[derive(Clone)]
pub struct Http {
    /// The server state.
    pub state: Shared,
    /// `host:port` clients reach the server at (legacy discovery reports it).
    pub address: String,
}

/// The router of one API server.
pub fn router(http: Http) -> axum::Router {
    axum::Router::new().fallback(dispatch).with_state(Arc::new(http))
}

async fn dispatch(State(http): State<Arc<Http>>, request: Request) -> Response {
    let method = request.method().clone();
    let uri = request.uri().clone();
    let response = match route(&http, request).await {
        Ok(response) => response,
        Err(error) => error_response(&error),
    };
    tracing::debug!(%method, %uri, status = response.status().as_u16(), "request");
    response
}

fn json_response(code: u16, body: Bytes, content_type: &'static str) -> Response {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::OK);
    let mut response = (status, body).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

fn value_response(code: u16, value: &Value) -> Response {
    json_response(code, Bytes::from(serde_json::to_vec(value).unwrap_or_default()), "application/json")
}

/// The `metav1.Status` response of an error.
pub fn error_response(error: &ApiError) -> Response {
    value_response(error.code, &error.to_status())
}

fn text(body: &'static str) -> Response {
    let mut response = (StatusCode::OK, body).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    response
}

async fn route(http: &Http, request: Request) -> Result<Response, ApiError> {
    let path = request.uri().path().to_string();
    let get = request.method() == Method::GET;
    let accept = header_str(request.headers(), header::ACCEPT);
    let state = &http.state;
    let peer = request.extensions().get::<Peer>().cloned().unwrap_or_default();
    let user = state.authenticate(request.headers(), &peer)?;
    let public = auth::is_public(&path);
    let user = match user {
        Some(user) => user,
        None if public => {
            User { name: "system:anonymous".into(), uid: String::new(), groups: vec!["system:unauthenticated".into()] }
        }
        None => return Err(ApiError::unauthorized()),
    };
    let user = match auth::impersonated(request.headers()) {
        Some(target) => impersonate(state, &user, target)?,
        None => user,
    };
    if ResourcePath::parse(&path).is_none() {
        let attributes = Attributes {
            verb: request.method().as_str().to_ascii_lowercase(),
            target: Target::NonResource { path: path.clone() },
        };
        if !public && !state.allowed(&user, &attributes) {
            return Err(rbac::forbidden(&user, &attributes));
        }
    }
    match path.trim_end_matches('/') {
        "/healthz" | "/livez" | "/readyz" if get => return Ok(text("ok")),
        p if get && (p.starts_with("/healthz/") || p.starts_with("/livez/") || p.starts_with("/readyz/")) => {
            return Ok(text("ok"));
        }
        "/version" if get => return Ok(value_response(200, &version(&state.settings.git_version))),
        "/api" if get => {
            return Ok(match discovery::aggregated_version(&accept) {
                Some(v) => aggregated(discovery::aggregated(&state.registry, true, v), v),
                None => value_response(200, &discovery::legacy_core(&http.address)),
            });
        }
        "/apis" if get => {
            return Ok(match discovery::aggregated_version(&accept) {
                Some(v) => aggregated(discovery::aggregated(&state.registry, false, v), v),
                None => value_response(200, &discovery::legacy_groups(&state.registry)),
            });
        }
        "/openapi/v2" if get => {
            let protobuf = accept.contains("protobuf");
            let content_type = if protobuf {
                "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
            } else {
                "application/json"
            };
            return Ok(json_response(200, Bytes::from(openapi::v2(protobuf)), content_type));
        }
        "/openapi/v3" if get => return Ok(value_response(200, &openapi::root(&state.registry))),
        p if get && p.starts_with("/openapi/v3/") => {
            let gv = &p["/openapi/v3/".len()..];
            let doc = match gv.split('/').collect::<Vec<_>>().as_slice() {
                ["api", v] => openapi::group_version(&state.registry, "", v),
                ["apis", g, v] => openapi::group_version(&state.registry, g, v),
                _ => None,
            };
            return doc.map(|d| value_response(200, &d)).ok_or_else(ApiError::no_route);
        }
        p if get => {
            let parts: Vec<&str> = p.trim_matches('/').split('/').collect();
            let doc = match parts.as_slice() {
                ["api", v] => discovery::legacy_resources(&state.registry, "", v),
                ["apis", g] => discovery::legacy_group(&state.registry, g),
                ["apis", g, v] => discovery::legacy_resources(&state.registry, g, v),
                _ => None,
            };
            if let Some(doc) = doc {
                return Ok(value_response(200, &doc));
            }
        }
        _ => {}
    }
    resource(http, request, &user).await
}

fn aggregated(doc: Value, version: &str) -> Response {
    let content_type = if version == "v2" { discovery::AGGREGATED_V2 } else { discovery::AGGREGATED_V2BETA1 };
    json_response(200, Bytes::from(serde_json::to_vec(&doc).unwrap_or_default()), content_type)
}

fn version(git_version: &str) -> Value {
    let numbers: Vec<&str> = git_version.trim_start_matches('v').split(['.', '-']).collect();
    json!({
        "major": numbers.first().copied().unwrap_or("1"),
        "minor": numbers.get(1).copied().unwrap_or("32"),
        "gitVersion": git_version,
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "go1.23.0",
        "compiler": "gc",
        "platform": format!("{}/{}", std::env::consts::OS, go_arch()),
    })
}

fn go_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    }
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> String {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string()
}

async fn resource(http: &Http, request: Request, user: &User) -> Result<Response, ApiError> {
    let target = ResourcePath::parse(request.uri().path()).ok_or_else(ApiError::no_route)?;
    let state = http.state.clone();
    let rt = state.registry.get(&target.group, &target.version, &target.resource).ok_or_else(ApiError::no_route)?;
    if target.namespace.is_some() && !rt.namespaced {
        return Err(ApiError::no_route());
    }
    let query = Query::parse(request.uri().query());
    let method = request.method().clone();
    let content_type = header_str(request.headers(), header::CONTENT_TYPE);
    let namespace = target.namespace.as_deref();
    let sub = target.subresource.as_deref();
    let attributes = Attributes {
        verb: verb(&method, target.name.is_some(), query.flag("watch")).to_string(),
        target: Target::Resource {
            group: rt.group.clone(),
            resource: rt.plural.clone(),
            subresource: target.subresource.clone(),
            namespace: target.namespace.clone(),
            name: target.name.clone(),
        },
    };
    if !state.allowed(user, &attributes) {
        return Err(rbac::forbidden(user, &attributes));
    }
    if rt.create_only {
        if method != Method::POST || target.name.is_some() {
            return Err(ApiError::method_not_allowed(method.as_str(), &rt.plural));
        }
        let body = read_object(request, &content_type).await?;
        return Ok(value_response(201, &state.review(&rt, namespace, body, user)?));
    }
    if let (&Method::POST, Some(name), Some("token")) = (&method, target.name.as_deref(), sub) {
        if !rt.subresources.token {
            return Err(ApiError::no_route());
        }
        let body = read_object(request, &content_type).await?;
        return Ok(value_response(201, &state.token_request(namespace.unwrap_or_default(), name, body)?));
    }
    check_subresource(&rt, sub, &method)?;
    let mut opts = write_options(&query)?;
    opts.user = Some(user.clone());
    // `kubectl get` asks for a Table; only the main resource prints as one.
    let printer = table::requested(&header_str(request.headers(), header::ACCEPT))
        .filter(|_| sub.is_none())
        .and_then(|version| Printer::new(&rt, version, &query));
    match (&method, target.name.as_deref()) {
        (&Method::GET, None) if query.flag("watch") => {
            watch_response(http, rt.clone(), target.namespace.clone(), &query, printer)
        }
        (&Method::GET, None) => {
            let list = state.list(&rt, namespace, &query)?;
            Ok(json_response(200, printed(list, printer.as_ref(), Printer::list)?, "application/json"))
        }
        (&Method::GET, Some(name)) if query.flag("watch") => {
            let mut query = query.clone();
            query.set("fieldSelector", &format!("metadata.name={name}"));
            watch_response(http, rt.clone(), target.namespace.clone(), &query, printer)
        }
        (&Method::GET, Some(name)) => {
            let object = state.get(&rt, namespace, name)?;
            Ok(json_response(200, printed(object, printer.as_ref(), Printer::object)?, "application/json"))
        }
        (&Method::POST, None) => {
            let body = read_object(request, &content_type).await?;
            let written = state.create(&rt, namespace, body, &opts)?;
            Ok(value_response(written.code, &written.body))
        }
        (&Method::PUT, Some(name)) => {
            let body = read_object(request, &content_type).await?;
            let written = state.update(&rt, namespace, name, sub, body, &opts)?;
            Ok(value_response(written.code, &written.body))
        }
        (&Method::PATCH, Some(name)) => {
            let kind = PatchType::from_content_type(&content_type).ok_or_else(|| {
                ApiError::unsupported_media_type(format!(
                    "the body of the request was in an unknown format ({content_type}) - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml{}",
                    if rt.is_builtin() { ", application/strategic-merge-patch+json" } else { "" }
                ))
            })?;
            let body = read_body(request).await?;
            let written = state.patch(&rt, namespace, name, sub, kind, &body, &opts)?;
            Ok(value_response(written.code, &written.body))
        }
        (&Method::DELETE, Some(name)) => {
            let opts = delete_options(&query, &read_body(request).await?)?;
            let written = state.delete(&rt, namespace, name, &opts)?;
            Ok(value_response(written.code, &written.body))
        }
        (&Method::DELETE, None) => {
            let opts = delete_options(&query, &read_body(request).await?)?;
            Ok(json_response(200, state.delete_collection(&rt, namespace, &query, &opts)?, "application/json"))
        }
        (verb, _) => Err(ApiError::method_not_allowed(verb.as_str(), &rt.plural)),
    }
}

/// Acting as another identity needs `impersonate` on its user (or ServiceAccount) and
/// on each group, as kube-apiserver checks.
fn impersonate(state: &super::state::ApiState, requester: &User, target: User) -> Result<User, ApiError> {
    let mut asks = Vec::new();
    match target.service_account() {
        Some((namespace, name)) => asks.push(("serviceaccounts", Some(namespace.to_string()), name.to_string())),
        None => asks.push(("users", None, target.name.clone())),
    }
    for group in target.groups.iter().filter(|g| !g.starts_with("system:serviceaccounts") && *g != auth::AUTHENTICATED)
    {
        asks.push(("groups", None, group.clone()));
    }
    for (resource, namespace, name) in asks {
        let attributes = Attributes {
            verb: "impersonate".into(),
            target: Target::Resource {
                group: String::new(),
                resource: resource.into(),
                subresource: None,
                namespace,
                name: Some(name),
            },
        };
        if !state.allowed(requester, &attributes) {
            return Err(rbac::forbidden(requester, &attributes));
        }
    }
    Ok(target)
}

/// The RBAC verb of a resource request.
fn verb(method: &Method, named: bool, watch: bool) -> &'static str {
    match (method.as_str(), named, watch) {
        ("GET", _, true) => "watch",
        ("GET", true, false) => "get",
        ("GET", false, false) => "list",
        ("POST", _, _) => "create",
        ("PUT", _, _) => "update",
        ("PATCH", _, _) => "patch",
        ("DELETE", true, _) => "delete",
        ("DELETE", false, _) => "deletecollection",
        _ => "unknown",
    }
}

/// Subresources exist only where the type declares them, and only for some verbs.
fn check_subresource(rt: &ResourceType, sub: Option<&str>, method: &Method) -> Result<(), ApiError> {
    let Some(sub) = sub else { return Ok(()) };
    let s = rt.subresources;
    let served = match sub {
        "status" => s.status,
        "approval" => s.approval,
        "finalize" => s.finalize && method == Method::PUT,
        _ => false,
    };
    if !served {
        return Err(ApiError::no_route());
    }
    if !matches!(*method, Method::GET | Method::PUT | Method::PATCH) {
        return Err(ApiError::method_not_allowed(method.as_str(), &format!("{}/{sub}", rt.plural)));
    }
    Ok(())
}

/// A response body as JSON, or as the Table `printer` makes of it.
fn printed(
    body: Bytes,
    printer: Option<&Printer>,
    print: fn(&Printer, &Value, jiff::Timestamp) -> Value,
) -> Result<Bytes, ApiError> {
    let Some(printer) = printer else { return Ok(body) };
    let value: Value = serde_json::from_slice(&body).map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(Bytes::from(serde_json::to_vec(&print(printer, &value, jiff::Timestamp::now())).unwrap_or_default()))
}

fn watch_response(
    http: &Http,
    rt: Arc<ResourceType>,
    namespace: Option<String>,
    query: &Query,
    printer: Option<Printer>,
) -> Result<Response, ApiError> {
    let stream = watch::start(http.state.clone(), rt, namespace, query, printer)?;
    let mut response = Response::new(Body::from_stream(stream));
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache, private"));
    Ok(response)
}

fn write_options(query: &Query) -> Result<WriteOptions, ApiError> {
    Ok(WriteOptions {
        dry_run: query.dry_run()?,
        field_manager: query.non_empty("fieldManager").map(str::to_string),
        force: query.flag("force"),
        strict: query.get("fieldValidation") == Some("Strict"),
        user: None,
    })
}

fn delete_options(query: &Query, body: &[u8]) -> Result<DeleteOptions, ApiError> {
    let body: Value = if body.iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else {
        serde_json::from_slice(body)
            .map_err(|e| ApiError::bad_request(format!("the DeleteOptions body is not valid JSON: {e}")))?
    };
    let policy = body["propagationPolicy"].as_str().or_else(|| query.non_empty("propagationPolicy"));
    let orphan = body["orphanDependents"].as_bool().or_else(|| query.get("orphanDependents").map(|v| v == "true"));
    let propagation = match (policy, orphan) {
        (Some(p), _) => Some(Propagation::parse(p)?),
        (None, Some(true)) => Some(Propagation::Orphan),
        (None, Some(false)) => Some(Propagation::Background),
        (None, None) => None,
    };
    let dry_run = query.dry_run()? || body["dryRun"].as_array().is_some_and(|a| a.iter().any(|v| v == "All"));
    Ok(DeleteOptions {
        propagation,
        uid: body["preconditions"]["uid"].as_str().map(str::to_string),
        resource_version: body["preconditions"]["resourceVersion"].as_str().map(str::to_string),
        dry_run,
    })
}

async fn read_body(request: Request) -> Result<Bytes, ApiError> {
    match Limited::new(request.into_body(), MAX_BODY).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<LengthLimitError>() => Err(ApiError::too_large(MAX_BODY)),
        Err(e) => Err(ApiError::bad_request(format!("reading the request body failed: {e}"))),
    }
}

/// Reads a JSON, YAML or (for the kinds kubectl sends that way) protobuf object body.
async fn read_object(request: Request, content_type: &str) -> Result<Value, ApiError> {
    let media = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let body = read_body(request).await?;
    let value: Value = match media.as_str() {
        "application/vnd.kubernetes.protobuf" => protobuf::decode(&body).map_err(|e| {
            if e.is_unsupported() {
                ApiError::unsupported_media_type(e.to_string())
            } else {
                ApiError::bad_request(e.to_string())
            }
        })?,
        "application/yaml" | "application/x-yaml" => serde_yaml::from_slice(&body)
            .map_err(|e| ApiError::bad_request(format!("the request body is not valid YAML: {e}")))?,
        "" | "application/json" | "*/*" => serde_json::from_slice(&body)
            .map_err(|e| ApiError::bad_request(format!("the request body is not valid JSON: {e}")))?,
        other => {
            return Err(ApiError::unsupported_media_type(format!(
                "the body of the request was in an unknown format ({other}) - accepted media types include: application/json, application/yaml"
            )));
        }
    };
    if !value.is_object() {
        return Err(ApiError::bad_request("the request body must be a JSON object"));
    }
    Ok(value)
}
