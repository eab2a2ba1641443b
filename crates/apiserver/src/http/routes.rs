//! The non-resource paths: health, version, discovery and OpenAPI.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use serde_json::{Value, json};

use super::super::discovery;
use super::super::openapi;
use super::super::request::Query;
use super::super::status::ApiError;
use super::{Http, bytes_response, error_response, value_response};

type Router = axum::Router<Arc<Http>>;

/// Every non-resource route; anything else falls through to the resource handler.
pub fn routes() -> Router {
    let mut router = Router::new();
    for endpoint in [Health::Healthz, Health::Livez, Health::Readyz] {
        router = router
            .route(&format!("/{}", endpoint.name()), get(move |query: RawQuery| all_checks(endpoint, query)))
            .route(
                &format!("/{}/{{*check}}", endpoint.name()),
                get(move |Path(check): Path<String>| one_check(endpoint, check)),
            );
    }
    router
        .route("/metrics", get(metrics))
        .route("/version", get(version))
        .route("/version/", get(version))
        .route("/api", get(core_groups))
        .route("/apis", get(groups))
        .route("/api/{version}", get(core_resources))
        .route("/apis/{group}", get(group))
        .route("/apis/{group}/{version}", get(group_resources))
        .route("/openapi/v2", get(openapi_v2))
        .route("/openapi/v3", get(openapi_root))
        .route("/openapi/v3/api/{version}", get(openapi_core))
        .route("/openapi/v3/apis/{group}/{version}", get(openapi_group))
}

/// The health endpoints, each with the named checks kube-apiserver reports under it.
#[derive(Clone, Copy)]
enum Health {
    Healthz,
    Livez,
    Readyz,
}

impl Health {
    fn name(self) -> &'static str {
        match self {
            Self::Healthz => "healthz",
            Self::Livez => "livez",
            Self::Readyz => "readyz",
        }
    }

    /// The checks, in kube-apiserver's order (the store plays etcd; a server that answers
    /// has synced its informers and is not shutting down).
    fn checks(self) -> &'static [&'static str] {
        match self {
            Self::Healthz | Self::Livez => &["ping", "log", "etcd"],
            Self::Readyz => &["ping", "log", "etcd", "informer-sync", "shutdown"],
        }
    }
}

fn text(status: StatusCode, body: String) -> Response {
    let mut response = (status, body).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    response
}

/// `/healthz`, `/livez`, `/readyz`: `ok`, or with `?verbose` one line per check (those
/// named by `exclude` marked excluded) and the verdict, as kube-apiserver answers.
async fn all_checks(endpoint: Health, RawQuery(query): RawQuery) -> Response {
    let query = Query::parse(query.as_deref());
    if query.get("verbose").is_none() {
        return text(StatusCode::OK, "ok".into());
    }
    let excluded = query.get("exclude").unwrap_or_default();
    let mut body = String::new();
    for check in endpoint.checks() {
        let note = if excluded.split(',').any(|e| e == *check) { "excluded: ok" } else { "ok" };
        body.push_str(&format!("[+]{check} {note}\n"));
    }
    body.push_str(&format!("{} check passed\n", endpoint.name()));
    text(StatusCode::OK, body)
}

/// `/healthz/NAME`: `ok` for a check the endpoint has, 404 for any other.
async fn one_check(endpoint: Health, check: String) -> Response {
    if endpoint.checks().contains(&check.as_str()) {
        text(StatusCode::OK, "ok".into())
    } else {
        text(StatusCode::NOT_FOUND, "404 page not found\n".into())
    }
}

/// `/metrics`: requests answered and objects stored, by resource.
async fn metrics(State(http): State<Arc<Http>>) -> Response {
    let store = &http.state.store;
    let objects = http
        .state
        .registry
        .all_resources()
        .into_iter()
        .map(|r| {
            let name = if r.group.is_empty() { r.resource.clone() } else { format!("{}.{}", r.resource, r.group) };
            (name, store.keys(&r, None).len())
        })
        .filter(|(_, count)| *count > 0)
        .collect();
    let mut response = (StatusCode::OK, http.metrics.render(&objects)).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4"));
    response
}

fn accept(headers: &HeaderMap) -> &str {
    headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or_default()
}

async fn version(State(http): State<Arc<Http>>) -> Response {
    let git_version = &http.state.settings.git_version;
    let numbers: Vec<&str> = git_version.trim_start_matches('v').split(['.', '-']).collect();
    value_response(
        200,
        &json!({
            "major": numbers.first().copied().unwrap_or("1"),
            "minor": numbers.get(1).copied().unwrap_or("32"),
            "gitVersion": git_version,
            "gitCommit": "0000000000000000000000000000000000000000",
            "gitTreeState": "clean",
            "buildDate": "2026-01-01T00:00:00Z",
            "goVersion": "go1.23.0",
            "compiler": "gc",
            "platform": format!("{}/{}", std::env::consts::OS, go_arch()),
        }),
    )
}

fn go_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    }
}

/// Aggregated discovery when the client asks for it, else the legacy document.
fn discovery_response(http: &Http, headers: &HeaderMap, core: bool, legacy: impl FnOnce() -> Value) -> Response {
    match discovery::aggregated_version(accept(headers)) {
        Some(version) => {
            let content_type = if version == "v2" { discovery::AGGREGATED_V2 } else { discovery::AGGREGATED_V2BETA1 };
            match serde_json::to_vec(&discovery::aggregated(&http.state.registry, core, version)) {
                Ok(body) => bytes_response(200, Bytes::from(body), content_type),
                Err(e) => error_response(&ApiError::internal(format!("serializing discovery: {e}"))),
            }
        }
        None => value_response(200, &legacy()),
    }
}

async fn core_groups(State(http): State<Arc<Http>>, headers: HeaderMap) -> Response {
    discovery_response(&http, &headers, true, || discovery::legacy_core(&http.address))
}

async fn groups(State(http): State<Arc<Http>>, headers: HeaderMap) -> Response {
    discovery_response(&http, &headers, false, || discovery::legacy_groups(&http.state.registry))
}

fn found(doc: Option<Value>) -> Response {
    match doc {
        Some(doc) => value_response(200, &doc),
        None => error_response(&ApiError::no_route()),
    }
}

async fn core_resources(State(http): State<Arc<Http>>, Path(version): Path<String>) -> Response {
    found(discovery::legacy_resources(&http.state.registry, "", &version))
}

async fn group(State(http): State<Arc<Http>>, Path(group): Path<String>) -> Response {
    found(discovery::legacy_group(&http.state.registry, &group))
}

async fn group_resources(State(http): State<Arc<Http>>, Path((group, version)): Path<(String, String)>) -> Response {
    found(discovery::legacy_resources(&http.state.registry, &group, &version))
}

async fn openapi_v2(headers: HeaderMap) -> Response {
    let protobuf = accept(&headers).contains("protobuf");
    let content_type =
        if protobuf { "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" } else { "application/json" };
    bytes_response(200, Bytes::from(openapi::v2(protobuf)), content_type)
}

/// A served OpenAPI v3 document, `None` when the path names no group/version.
fn openapi_response(document: Result<Option<Bytes>, serde_json::Error>) -> Response {
    match document {
        Ok(Some(body)) => bytes_response(200, body, "application/json"),
        Ok(None) => error_response(&ApiError::no_route()),
        Err(e) => error_response(&ApiError::internal(format!("serializing the OpenAPI document: {e}"))),
    }
}

async fn openapi_root(State(http): State<Arc<Http>>) -> Response {
    openapi_response(http.openapi.root(&http.state.registry).map(Some))
}

async fn openapi_core(State(http): State<Arc<Http>>, Path(version): Path<String>) -> Response {
    openapi_response(http.openapi.group_version(&http.state.registry, "", &version))
}

async fn openapi_group(State(http): State<Arc<Http>>, Path((group, version)): Path<(String, String)>) -> Response {
    openapi_response(http.openapi.group_version(&http.state.registry, &group, &version))
}
