//! The subresources that are not object writes: `pods/log` (passed to the node's
//! kubelet), `pods/eviction`, `/scale`, and `pods/exec|attach|portforward`, which the
//! dev cluster answers with a Status saying it does not run them.

use axum::extract::Request;
use axum::http::Method;
use axum::response::Response;

use super::super::key::ObjectKey;
use super::super::options::{Caller, DeleteOptions, Patch, PatchType, WriteOptions};
use super::super::pod_log;
use super::super::registry::ResourceType;
use super::super::request::{Query, ResourcePath};
use super::super::scale::ScaleChange;
use super::super::status::ApiError;
use super::body::{read_body, read_object};
use super::{Http, value_response};

/// The subresources served here.
pub fn serves(rt: &ResourceType, sub: Option<&str>) -> bool {
    let pods = rt.group.is_empty() && rt.plural == "pods";
    match sub {
        Some("log" | "exec" | "attach" | "portforward" | "eviction") => pods,
        Some("scale") => rt.subresources.scale,
        _ => false,
    }
}

/// Serves one of them (`serves` said yes).
pub async fn serve(
    http: &Http,
    rt: &ResourceType,
    target: &ResourcePath,
    request: Request,
    opts: WriteOptions,
) -> Result<Response, ApiError> {
    let state = &http.state;
    let name = target.name.clone().ok_or_else(ApiError::no_route)?;
    let namespace = target.namespace.as_deref();
    let key = ObjectKey::new(namespace, &name);
    let query = Query::parse(request.uri().query());
    let method = request.method().clone();
    let sub = target.subresource.as_deref().unwrap_or_default();
    let not_allowed = || ApiError::method_not_allowed(method.as_str(), &format!("{}/{sub}", rt.plural));
    match sub {
        "log" if method == Method::GET => pod_log::serve(state, namespace.unwrap_or_default(), &name, &query).await,
        "exec" | "attach" | "portforward" => Err(ApiError::bad_request(format!(
            "pods/{sub} is not supported by the dev cluster: its containers are processes of the machine it runs on \
             (see `fleetctl dev status`); read a container's output with `kubectl logs`"
        ))),
        "eviction" if method == Method::POST => {
            // No PodDisruptionBudgets: every eviction is allowed and deletes the Pod.
            read_body(request).await?;
            let caller = Caller { user: opts.caller.user.clone(), ..Caller::default() };
            state.resource(rt).delete(key, &DeleteOptions { caller, ..DeleteOptions::default() })?;
            let status = super::super::status::deleted_status(&rt.plural, &rt.group, &name, "");
            Ok(value_response(201, &status))
        }
        "scale" => {
            let content_type = request
                .headers()
                .get(axum::http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            let scale = match method {
                Method::GET => state.resource(rt).get_scale(key)?,
                Method::PUT => {
                    let body = read_object(request, &content_type).await?;
                    state.resource(rt).write_scale(key, &ScaleChange::Replace(body), &opts)?
                }
                Method::PATCH => {
                    let kind = PatchType::from_content_type(&content_type).ok_or_else(|| {
                        ApiError::unsupported_media_type(format!(
                            "the body of the request was in an unknown format ({content_type})"
                        ))
                    })?;
                    let body = read_body(request).await?;
                    state.resource(rt).write_scale(key, &ScaleChange::Patch(Patch { kind, body: &body }), &opts)?
                }
                _ => return Err(not_allowed()),
            };
            Ok(value_response(200, &scale))
        }
        _ => Err(not_allowed()),
    }
}
