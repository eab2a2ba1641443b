//! The filters in front of every handler: what the request asks for, who sends it,
//! whom they act as, and whether they may.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;

use super::super::auth::{self, Peer, User};
use super::super::rbac::{self, Attributes, Target};
use super::super::request::{Query, ResourcePath};
use super::super::state::ApiState;
use super::super::status::ApiError;
use super::{Http, error_response};

/// What a request asks for, as kube-apiserver's RequestInfo resolves it from the
/// method, path and query before anything else looks at the request.
#[derive(Debug, Clone)]
pub struct RequestInfo {
    /// The path.
    pub path: String,
    /// The authorization verb: get, list, watch, create, update, patch, delete,
    /// deletecollection for resources; the method in lower case for other paths.
    pub verb: String,
    /// The resource addressed, for `/api/...` and `/apis/...` resource paths.
    pub resource: Option<ResourcePath>,
}

impl RequestInfo {
    fn of(request: &Request) -> Self {
        let path = request.uri().path().to_string();
        let resource = ResourcePath::parse(&path);
        let verb = match &resource {
            Some(target) => {
                let watch = Query::parse(request.uri().query()).flag("watch");
                resource_verb(request.method(), target.name.is_some(), watch).to_string()
            }
            None => request.method().as_str().to_ascii_lowercase(),
        };
        Self { path, verb, resource }
    }

    /// The question the authorizer answers for this request.
    pub fn attributes(&self) -> Attributes {
        let target = match &self.resource {
            Some(r) => Target::Resource {
                group: r.group.clone(),
                resource: r.resource.clone(),
                subresource: r.subresource.clone(),
                namespace: r.namespace.clone(),
                name: r.name.clone(),
            },
            None => Target::NonResource { path: self.path.clone() },
        };
        Attributes { verb: self.verb.clone(), target }
    }
}

/// The authorization verb of a resource request.
fn resource_verb(method: &Method, named: bool, watch: bool) -> &'static str {
    match (method.as_str(), named, watch) {
        ("GET" | "HEAD", _, true) => "watch",
        ("GET" | "HEAD", true, false) => "get",
        ("GET" | "HEAD", false, false) => "list",
        ("POST", _, _) => "create",
        ("PUT", _, _) => "update",
        ("PATCH", _, _) => "patch",
        ("DELETE", true, _) => "delete",
        ("DELETE", false, _) => "deletecollection",
        _ => "unknown",
    }
}

/// Logs every request with its outcome.
pub async fn log(request: Request, next: Next) -> Response {
    let (method, uri) = (request.method().clone(), request.uri().clone());
    let response = next.run(request).await;
    tracing::debug!(%method, %uri, status = response.status().as_u16(), "request");
    response
}

/// Resolves the [`RequestInfo`].
pub async fn request_info(mut request: Request, next: Next) -> Response {
    let info = RequestInfo::of(&request);
    request.extensions_mut().insert(info);
    next.run(request).await
}

/// Finds the [`User`]: a bearer token, else the connection's client certificate;
/// anonymous only on the public paths.
pub async fn authentication(State(http): State<Arc<Http>>, mut request: Request, next: Next) -> Response {
    let peer = request.extensions().get::<Peer>().cloned().unwrap_or_default();
    let user = match http.state.authenticate(request.headers(), &peer) {
        Ok(Some(user)) => user,
        Ok(None) if auth::is_public(request.uri().path()) => {
            User { name: "system:anonymous".into(), uid: String::new(), groups: vec!["system:unauthenticated".into()] }
        }
        Ok(None) => return error_response(&ApiError::unauthorized()),
        Err(e) => return error_response(&e),
    };
    request.extensions_mut().insert(user);
    next.run(request).await
}

/// Replaces the user with the one `Impersonate-*` headers name, if the user may act as them.
pub async fn impersonation(State(http): State<Arc<Http>>, mut request: Request, next: Next) -> Response {
    if let Some(target) = auth::impersonated(request.headers()) {
        let Some(requester) = request.extensions().get::<User>().cloned() else {
            return error_response(&ApiError::unauthorized());
        };
        match impersonate(&http.state, &requester, target) {
            Ok(user) => {
                request.extensions_mut().insert(user);
            }
            Err(e) => return error_response(&e),
        }
    }
    next.run(request).await
}

/// Lets the request on only if the user may do what its [`RequestInfo`] says.
pub async fn authorization(State(http): State<Arc<Http>>, request: Request, next: Next) -> Response {
    let (Some(info), Some(user)) = (request.extensions().get::<RequestInfo>(), request.extensions().get::<User>())
    else {
        return error_response(&ApiError::internal("the request reached authorization unidentified"));
    };
    let attributes = info.attributes();
    let public = info.resource.is_none() && auth::is_public(&info.path);
    if !public && !http.state.allowed(user, &attributes) {
        return error_response(&rbac::forbidden(user, &attributes));
    }
    next.run(request).await
}

/// Acting as another identity needs `impersonate` on its user (or ServiceAccount) and
/// on each group, as kube-apiserver checks.
fn impersonate(state: &ApiState, requester: &User, target: User) -> Result<User, ApiError> {
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
