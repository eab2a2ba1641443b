//! The filters in front of every handler: what the request asks for, who sends it,
//! whom they act as, and whether they may.

use std::convert::Infallible;
use std::future::{Future, Ready, ready};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::Method;
use axum::response::Response;
use futures::future::Either;

use super::super::auth::{self, Peer, User};
use super::super::object;
use super::super::rbac::{self, Attributes, Target};
use super::super::request::{Query, ResourcePath};
use super::super::selector::FieldSelector;
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
    /// The name a list or watch is authorized for: the one its field selector requires
    /// (`metadata.name=NAME`), so a role with `resourceNames` may watch that one object.
    selected_name: Option<String>,
}

impl RequestInfo {
    fn of(request: &Request) -> Self {
        let path = request.uri().path().to_string();
        let resource = ResourcePath::parse(&path);
        let query = Query::parse(request.uri().query());
        let verb = match &resource {
            Some(target) => resource_verb(request.method(), target.name.is_some(), query.flag("watch")).to_string(),
            None => request.method().as_str().to_ascii_lowercase(),
        };
        let selected_name = match verb.as_str() {
            "list" | "watch" => selected_name(query.get("fieldSelector")),
            _ => None,
        };
        Self { path, verb, resource, selected_name }
    }

    /// The question the authorizer answers for this request.
    pub fn attributes(&self) -> Attributes {
        let target = match &self.resource {
            Some(r) => Target::Resource {
                group: r.group.clone(),
                resource: r.resource.clone(),
                subresource: r.subresource.clone(),
                namespace: r.namespace.clone(),
                name: r.name.clone().or_else(|| self.selected_name.clone()),
            },
            None => Target::NonResource { path: self.path.clone() },
        };
        Attributes { verb: self.verb.clone(), target }
    }
}

/// The object name a list or watch selects exactly, as kube-apiserver's RequestInfo
/// takes it from `fieldSelector` (only a valid path segment counts; any field is
/// accepted here — whether the resource can select on it is the handler's answer).
fn selected_name(selector: Option<&str>) -> Option<String> {
    let fields = FieldSelector::parse(selector?, &|_| true).ok()?;
    let name = fields.exact_name()?;
    object::check_path_segment("metadata.name", name).is_none().then(|| name.to_string())
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

/// The first layer: resolves the [`RequestInfo`] (into the request's extensions), then
/// logs the request with its outcome and counts the answer for `/metrics`. It takes any
/// request body (hyper's, or an in-process client's) and hands on axum's.
#[derive(Clone)]
pub struct Counted<S> {
    inner: S,
    http: Arc<Http>,
}

impl<S> Counted<S> {
    /// `inner` behind the request info.
    pub fn new(http: Arc<Http>, inner: S) -> Self {
        Self { inner, http }
    }
}

impl<S, B> tower_service::Service<axum::http::Request<B>> for Counted<S>
where
    S: tower_service::Service<Request, Response = Response, Error = Infallible>,
    S::Future: Send + 'static,
    B: axum::body::HttpBody<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: axum::http::Request<B>) -> Self::Future {
        let mut request = request.map(axum::body::Body::new);
        let info = RequestInfo::of(&request);
        let method = request.method().clone();
        request.extensions_mut().insert(info.clone());
        let answered = self.inner.call(request);
        let http = self.http.clone();
        Box::pin(async move {
            let response = answered.await?;
            let status = response.status().as_u16();
            tracing::debug!(%method, path = %info.path, status, "request");
            http.metrics.record(&info, status);
            Ok(response)
        })
    }
}

/// One filter of the chain: it lets the request on (having added what it learned to the
/// request's extensions) or refuses it.
pub type Filter = fn(&Http, &mut Request) -> Result<(), ApiError>;

/// Finds the [`User`]: a bearer token, else the connection's client certificate, else
/// `system:anonymous` (kube-apiserver's `--anonymous-auth` default): a request without
/// credentials is then authorized like any other, so RBAC answers it with 403, and lets
/// it read only what `system:public-info-viewer` grants. Credentials that fail are 401.
pub fn authentication(http: &Http, request: &mut Request) -> Result<(), ApiError> {
    let peer = request.extensions().get::<Peer>().cloned().unwrap_or_default();
    let state = &http.state;
    let user = match auth::authenticate(&state.security.tokens, &state.reader(), request.headers(), &peer)? {
        Some(user) => user,
        None => {
            User { name: "system:anonymous".into(), uid: String::new(), groups: vec!["system:unauthenticated".into()] }
        }
    };
    request.extensions_mut().insert(user);
    Ok(())
}

/// Replaces the user with the one `Impersonate-*` headers name, if the user may act as them.
pub fn impersonation(http: &Http, request: &mut Request) -> Result<(), ApiError> {
    let Some(target) = auth::impersonated(request.headers()) else { return Ok(()) };
    let Some(requester) = request.extensions().get::<User>() else {
        return Err(ApiError::unauthorized());
    };
    let user = impersonate(&http.state, requester, target)?;
    request.extensions_mut().insert(user);
    Ok(())
}

/// Lets the request on only if the user may do what its [`RequestInfo`] says.
pub fn authorization(http: &Http, request: &mut Request) -> Result<(), ApiError> {
    let (Some(info), Some(user)) = (request.extensions().get::<RequestInfo>(), request.extensions().get::<User>())
    else {
        return Err(ApiError::internal("the request reached authorization unidentified"));
    };
    // The superusers' group may do anything: the authorizer's answer, without building its question.
    if user.is_superuser() || (info.resource.is_none() && auth::is_public(&info.path)) {
        return Ok(());
    }
    let attributes = info.attributes();
    if !http.state.allowed(user, &attributes) {
        return Err(rbac::forbidden(user, &attributes));
    }
    Ok(())
}

/// A [`Filter`] as a tower layer. The filters are synchronous, so the layer needs no
/// future of its own: the inner service's, or the filter's answer.
#[derive(Clone)]
pub struct FilterLayer {
    http: Arc<Http>,
    filter: Filter,
}

impl FilterLayer {
    /// The layer running `filter` with `http`.
    pub fn new(http: Arc<Http>, filter: Filter) -> Self {
        Self { http, filter }
    }
}

impl<S> tower_layer::Layer<S> for FilterLayer {
    type Service = Filtered<S>;

    fn layer(&self, inner: S) -> Filtered<S> {
        Filtered { inner, http: self.http.clone(), filter: self.filter }
    }
}

/// The service of a [`FilterLayer`].
#[derive(Clone)]
pub struct Filtered<S> {
    inner: S,
    http: Arc<Http>,
    filter: Filter,
}

impl<S> tower_service::Service<Request> for Filtered<S>
where
    S: tower_service::Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<Ready<Result<Response, Infallible>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        match (self.filter)(&self.http, &mut request) {
            Ok(()) => Either::Right(self.inner.call(request)),
            Err(refused) => Either::Left(ready(Ok(error_response(&refused)))),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn info(method: Method, uri: &str) -> RequestInfo {
        RequestInfo::of(&Request::builder().method(method).uri(uri).body(axum::body::Body::empty()).expect("request"))
    }

    #[test]
    fn a_list_or_watch_selecting_metadata_name_is_authorized_for_that_name_as_upstream_requestinfo() {
        let path = "/apis/cluster.open-cluster-management.io/v1/managedclusters";
        let watch = info(Method::GET, &format!("{path}?watch=true&fieldSelector=metadata.name%3Dc1"));
        assert_eq!(watch.verb, "watch");
        assert!(matches!(watch.attributes().target, Target::Resource { name: Some(n), .. } if n == "c1"));
        let list = info(Method::GET, &format!("{path}?fieldSelector=metadata.name%3D%3Dc1"));
        assert!(matches!(list.attributes().target, Target::Resource { name: Some(n), .. } if n == "c1"));
    }

    #[test]
    fn a_list_without_an_exact_name_or_with_an_invalid_one_is_authorized_as_a_plain_list() {
        let path = "/apis/cluster.open-cluster-management.io/v1/managedclusters";
        for query in
            ["", "?fieldSelector=metadata.name%21%3Dc1", "?fieldSelector=metadata.name%3D..", "?labelSelector=a%3Db"]
        {
            let list = info(Method::GET, &format!("{path}{query}"));
            assert!(matches!(list.attributes().target, Target::Resource { name: None, .. }), "{query}");
        }
        // A write names its object by path only.
        let delete = info(Method::DELETE, &format!("{path}?fieldSelector=metadata.name%3Dc1"));
        assert_eq!(delete.verb, "deletecollection");
        assert!(matches!(delete.attributes().target, Target::Resource { name: None, .. }));
    }
}
