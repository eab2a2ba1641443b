//! The node's kubelet endpoint (the Node's `status.daemonEndpoints.kubeletEndpoint`),
//! through which the API server answers `pods/log` as kube-apiserver proxies it to a
//! kubelet: `GET /containerLogs/<namespace>/<pod>/<container>` with the log options as
//! the query. Plain HTTP on 127.0.0.1; errors are `metav1.Status` bodies the API server
//! passes on.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;

use super::logs::{LogError, LogOptions, Logs};

/// Serves the endpoint on `listener` until the task is dropped.
pub async fn serve(listener: tokio::net::TcpListener, logs: Arc<Logs>) {
    let app =
        axum::Router::new().route("/containerLogs/{namespace}/{pod}/{container}", get(container_logs)).with_state(logs);
    if let Err(e) = axum::serve(listener, app).await {
        tracing::warn!(error = %e, "the kubelet endpoint stopped");
    }
}

async fn container_logs(
    State(logs): State<Arc<Logs>>,
    Path((namespace, pod, container)): Path<(String, String, String)>,
    RawQuery(query): RawQuery,
) -> Response {
    let options = LogOptions::parse(query.as_deref().unwrap_or_default());
    match logs.read(&namespace, &pod, &container, &options) {
        Ok(stream) => {
            let mut response = Response::new(Body::from_stream(stream));
            response.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static("text/plain"));
            response
        }
        Err(e) => {
            let (code, reason) = match e {
                LogError::NotFound(_) => (StatusCode::NOT_FOUND, "NotFound"),
                LogError::BadRequest(_) => (StatusCode::BAD_REQUEST, "BadRequest"),
            };
            let status = Status {
                code: Some(i32::from(code.as_u16())),
                message: Some(e.to_string()),
                reason: Some(reason.to_string()),
                status: Some("Failure".to_string()),
                ..Status::default()
            };
            let mut body = fleetctl_kube::objects::document(&status);
            body["kind"] = "Status".into();
            body["apiVersion"] = "v1".into();
            (code, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
        }
    }
}
