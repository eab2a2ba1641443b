//! The filters in front of every handler: what the request asks for, who sends it,
//! whom they act as, and whether they may.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;

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
