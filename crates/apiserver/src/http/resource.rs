//! The resource handler: the verbs on collections, objects and subresources, after
//! the filters have identified and authorized the request.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::response::Response;
use bytes::Bytes;
use serde_json::{Value, json};

use futures::StreamExt;

use super::super::auth::User;
use super::super::encoding;
use super::super::key::ObjectKey;
use super::super::options::{Caller, DeleteOptions, Patch, PatchType, Propagation, WriteOptions};
use super::super::protobuf;
use super::super::registry::ResourceType;
use super::super::request::Query;
use super::super::reviews;
use super::super::status::ApiError;
use super::super::view::View;
use super::super::watch;
use super::body::{decode_protobuf, is_protobuf, read_body, read_object};
use super::filters::RequestInfo;
use super::negotiated;
use super::served::Served;
use super::{Http, bytes_response, error_response, value_response, written_response};

/// Serves one resource request.
pub async fn handle(State(http): State<Arc<Http>>, mut request: Request) -> Response {
    let info = request.extensions_mut().remove::<RequestInfo>();
    let user = request.extensions_mut().remove::<User>();
    let (Some(info), Some(user)) = (info, user) else {
        return error_response(&ApiError::internal("the request reached its handler unidentified"));
    };
    // Negotiated before the request runs, as kube-apiserver does: a 406 changes nothing. A JSON
    // client (the common case) costs one scan of its Accept header.
    let form = match protobuf::accepted(&header_str(request.headers(), header::ACCEPT)) {
        protobuf::Accepted::Json => Ok(protobuf::Accepted::Json),
        accepted => {
            let target = info.resource.as_ref();
            match target.and_then(|t| http.state.registry.get(&t.group, &t.version, &t.resource)) {
                Some(rt) => negotiated::form(accepted, &rt.api_version(), &rt.kind),
                None => Ok(accepted),
            }
        }
    };
    let watch =
        matches!(form, Ok(protobuf::Accepted::Protobuf { .. })) && Query::parse(request.uri().query()).flag("watch");
    match form {
        Ok(form) => match resource(&http, request, &info, &user).await {
            Ok(response) => negotiated::answer(response, form, watch).await,
            Err(error) => negotiated::answer(error_response(&error), form, false).await,
        },
        Err(error) => error_response(&error),
    }
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> String {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string()
}

async fn resource(http: &Http, request: Request, info: &RequestInfo, user: &User) -> Result<Response, ApiError> {
    let target = info.resource.as_ref().ok_or_else(ApiError::no_route)?;
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
    if rt.create_only {
        if method != Method::POST || target.name.is_some() {
            return Err(ApiError::method_not_allowed(method.as_str(), &rt.plural));
        }
        let body = read_object(request, &content_type).await?;
        return Ok(value_response(201, &reviews::review(&state, &rt, namespace, body, user)?));
    }
    if let (&Method::POST, Some(name), Some("token")) = (&method, target.name.as_deref(), sub) {
        if !rt.subresources.token {
            return Err(ApiError::no_route());
        }
        let body = read_object(request, &content_type).await?;
        return Ok(value_response(201, &reviews::token_request(&state, namespace.unwrap_or_default(), name, body)?));
    }
    let mut opts = write_options(&query)?;
    opts.caller.user = Some(user.clone());
    // A write without a fieldManager is recorded under its client's name, as kube-apiserver
    // takes it from the User-Agent (up to its first '/'; unnamed without one): a field it
    // changes is its own from then on, and an applier that did not set it does not take it
    // back. An apply must name its manager.
    if opts.field_manager.is_none() && PatchType::from_content_type(&content_type) != Some(PatchType::Apply) {
        opts.field_manager = Some(user_agent_manager(&header_str(request.headers(), header::USER_AGENT)));
    }
    if super::subresources::serves(&rt, sub) {
        return super::subresources::serve(http, &rt, target, request, opts).await;
    }
    check_subresource(&rt, sub, &method)?;
    let served = Served::new(&state.registry, rt.clone())?;
    opts.caller.requested = served.converted_from();
    let storage = state.resource(&served.storage);
    let query = served.query(&query);
    // `kubectl get` asks for a Table, metadata informers for metadata; only for the main
    // resource. A Table is printed from the stored object, by the stored kind's columns.
    let view = View::requested(&served.storage, &header_str(request.headers(), header::ACCEPT), &query)
        .filter(|_| sub.is_none());
    let read = |bytes: Bytes, view: Option<&View>, print| match view {
        Some(view) => printed(bytes, view, print),
        None => Ok(served.bytes_out(bytes)),
    };
    match (&method, target.name.as_deref()) {
        (&Method::GET, None) if query.flag("watch") => watch_response(http, &served, namespace, &query, view),
        (&Method::GET, None) => {
            let list = storage.list(namespace, &query)?;
            Ok(bytes_response(200, read(list, view.as_ref(), View::list)?, "application/json"))
        }
        (&Method::GET, Some(name)) if query.flag("watch") => {
            let mut query = query.clone();
            query.set("fieldSelector", &format!("metadata.name={name}"));
            watch_response(http, &served, namespace, &query, view)
        }
        (&Method::GET, Some(name)) => {
            let object = storage.get(ObjectKey::new(namespace, name))?;
            Ok(bytes_response(200, read(object, view.as_ref(), View::object)?, "application/json"))
        }
        (&Method::POST, None) => {
            let body = served.body_in(read_object(request, &content_type).await?)?;
            Ok(written_response(served.written_out(storage.create(namespace, body, &opts)?)))
        }
        (&Method::PUT, Some(name)) => {
            let body = served.body_in(read_object(request, &content_type).await?)?;
            Ok(written_response(served.written_out(storage.update(
                ObjectKey::new(namespace, name),
                sub,
                body,
                &opts,
            )?)))
        }
        (&Method::PATCH, Some(name)) => {
            let kind = PatchType::from_content_type(&content_type).ok_or_else(|| {
                ApiError::unsupported_media_type(format!(
                    "the body of the request was in an unknown format ({content_type}) - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml{}",
                    if rt.is_builtin() { ", application/strategic-merge-patch+json" } else { "" }
                ))
            })?;
            let body = read_body(request).await?;
            Ok(written_response(served.patch(
                &state,
                ObjectKey::new(namespace, name),
                sub,
                Patch { kind, body: &body },
                &opts,
            )?))
        }
        (&Method::DELETE, Some(name)) => {
            let mut opts = delete_options(&query, &read_body(request).await?, &content_type)?;
            opts.caller = Caller { user: Some(user.clone()), requested: served.converted_from(), ..opts.caller };
            Ok(written_response(served.written_out(storage.delete(ObjectKey::new(namespace, name), &opts)?)))
        }
        (&Method::DELETE, None) => {
            let mut opts = delete_options(&query, &read_body(request).await?, &content_type)?;
            opts.caller = Caller { user: Some(user.clone()), requested: served.converted_from(), ..opts.caller };
            let deleted = storage.delete_collection(namespace, &query, &opts)?;
            Ok(bytes_response(200, served.bytes_out(deleted), "application/json"))
        }
        (verb, _) => Err(ApiError::method_not_allowed(verb.as_str(), &rt.plural)),
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

/// A response body in the `view` the client asked for.
fn printed(body: Bytes, view: &View, print: fn(&View, &[u8], jiff::Timestamp) -> Value) -> Result<Bytes, ApiError> {
    Ok(encoding::to_bytes(&print(view, &body, jiff::Timestamp::now())))
}

fn watch_response(
    http: &Http,
    served: &Served,
    namespace: Option<&str>,
    query: &Query,
    view: Option<View>,
) -> Result<Response, ApiError> {
    // A Table is printed from the stored objects (see `resource`).
    let printed = view.is_some();
    let events = watch::start(http.state.clone(), served.storage.clone(), namespace.map(str::to_string), query, view)?;
    let stream = if printed { events.boxed() } else { served.watch_out(events).boxed() };
    let mut response = Response::new(Body::from_stream(stream));
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache, private"));
    Ok(response)
}

/// The field manager kube-apiserver names a client by: its User-Agent up to the first '/',
/// at most 128 characters (the longest manager name it accepts); empty without one.
fn user_agent_manager(user_agent: &str) -> String {
    let prefix = user_agent.split('/').next().unwrap_or_default().trim();
    prefix.chars().take(128).collect()
}

fn write_options(query: &Query) -> Result<WriteOptions, ApiError> {
    Ok(WriteOptions {
        caller: Caller { dry_run: query.dry_run()?, ..Caller::default() },
        field_manager: query.non_empty("fieldManager").map(str::to_string),
        force: query.flag("force"),
        strict: query.get("fieldValidation") == Some("Strict"),
    })
}

/// The options of a DELETE: its body (JSON, or protobuf as client-go's typed clients send it)
/// over its query.
fn delete_options(query: &Query, body: &[u8], content_type: &str) -> Result<DeleteOptions, ApiError> {
    let body: Value = if body.iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else if is_protobuf(content_type) {
        decode_protobuf(body)?
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
    let grace_period = match (body["gracePeriodSeconds"].as_i64(), query.non_empty("gracePeriodSeconds")) {
        (Some(seconds), _) => Some(seconds),
        (None, Some(text)) => Some(text.parse().map_err(|_| {
            ApiError::bad_request(format!("gracePeriodSeconds must be a number of seconds, not {text:?}"))
        })?),
        (None, None) => None,
    };
    Ok(DeleteOptions {
        propagation,
        uid: body["preconditions"]["uid"].as_str().map(str::to_string),
        resource_version: body["preconditions"]["resourceVersion"].as_str().map(str::to_string),
        grace_period,
        caller: Caller { dry_run, ..Caller::default() },
    })
}

#[cfg(test)]
mod tests {
    use super::user_agent_manager;

    #[test]
    fn a_write_without_a_field_manager_is_recorded_under_its_user_agent_prefix_as_kube_apiserver_names_it() {
        assert_eq!(user_agent_manager("kubectl/v1.32.0 (linux/amd64) kubernetes/abc"), "kubectl");
        assert_eq!(user_agent_manager("work.test"), "work.test");
        assert_eq!(user_agent_manager(""), "");
        assert_eq!(user_agent_manager(&"a".repeat(200)).len(), 128);
    }
}
