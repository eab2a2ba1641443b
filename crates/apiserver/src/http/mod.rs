//! HTTP: kube-apiserver's handler chain as tower layers — request info →
//! authentication → impersonation → authorization — in front of the non-resource
//! routes (health, version, discovery, OpenAPI) and the resource handler.
//!
//! Each filter leaves what it learned in the request's extensions ([`RequestInfo`],
//! the [`User`](super::auth::User)) for the ones after it.

mod body;
mod filters;
mod metrics;
mod negotiated;
mod resource;
mod routes;
mod served;
mod subresources;

use std::sync::Arc;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::Value;
use tower_layer::Layer as _;

use super::options::Written;
use super::state::Shared;
use super::status::ApiError;
use filters::{FilterLayer, Filtered};

/// What every layer and handler of one server shares.
pub struct Http {
    /// The server state.
    pub state: Shared,
    /// `host:port` clients reach the server at (legacy discovery reports it).
    pub address: String,
    /// Requests answered, for `/metrics`.
    pub metrics: metrics::RequestMetrics,
    /// The OpenAPI v3 documents, built on first request.
    pub openapi: super::openapi::Documents,
}

impl Http {
    /// The shared part of a server listening at `address`.
    pub fn new(state: Shared, address: String) -> Self {
        Self { state, address, metrics: metrics::RequestMetrics::default(), openapi: Default::default() }
    }
}

/// The service of one API server: the filter chain, as tower layers, in front of the
/// router (the non-resource routes, and the resource handler for every other path).
pub type Service = filters::Counted<Filtered<Filtered<Filtered<axum::Router>>>>;

/// The [`Service`] of one API server.
pub fn service(http: Http) -> Service {
    let http = Arc::new(http);
    let router = routes::routes().fallback(resource::handle).with_state(http.clone());
    let filter = |f: filters::Filter| FilterLayer::new(http.clone(), f);
    let authorized = filter(filters::authorization).layer(router);
    let impersonated = filter(filters::impersonation).layer(authorized);
    let authenticated = filter(filters::authentication).layer(impersonated);
    filters::Counted::new(http, authenticated)
}

fn bytes_response(code: u16, body: Bytes, content_type: &'static str) -> Response {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, body).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// A JSON response; a value that cannot be serialized is a 500, never an empty body.
fn value_response(code: u16, value: &Value) -> Response {
    match serde_json::to_vec(value) {
        Ok(body) => bytes_response(code, Bytes::from(body), "application/json"),
        Err(e) => error_response(&ApiError::internal(format!("serializing the response: {e}"))),
    }
}

/// The response of a write: its object, with admission's warnings as `Warning` headers.
fn written_response(written: Written) -> Response {
    let mut response = value_response(written.code, &written.body);
    for warning in &written.warnings {
        // Header values must be visible ASCII; the text is quoted as RFC 7234 warn-text.
        let text = warning.replace(['"', '\\'], "'").replace(|c: char| !c.is_ascii() || c.is_ascii_control(), " ");
        if let Ok(value) = HeaderValue::from_str(&format!("299 - \"{text}\"")) {
            response.headers_mut().append(header::WARNING, value);
        }
    }
    response
}

/// The `metav1.Status` response of an error.
pub fn error_response(error: &ApiError) -> Response {
    match serde_json::to_vec(&error.to_status()) {
        Ok(body) => bytes_response(error.code, Bytes::from(body), "application/json"),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "the error status could not be serialized").into_response(),
    }
}
