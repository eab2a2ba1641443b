//! `pods/log` as kube-apiserver serves it: the Pod's container is chosen (the one named,
//! the `kubectl.kubernetes.io/default-container`, or the only one), and the request is
//! passed to the kubelet of the Pod's node — the address and port its Node reports
//! (`InternalIP`, `daemonEndpoints.kubeletEndpoint`) — whose answer streams back.

use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use hyper_util::rt::TokioIo;
use k8s_openapi::api::core::v1::{Node, Pod};

use super::key::ObjectKey;
use super::request::Query;
use super::state::ApiState;
use super::status::ApiError;

/// The log options the kubelet understands, passed on as the client gave them.
const OPTIONS: [&str; 7] = ["tailLines", "sinceSeconds", "sinceTime", "timestamps", "limitBytes", "previous", "follow"];

/// The annotation naming the container `kubectl logs` and `exec` default to.
const DEFAULT_CONTAINER: &str = "kubectl.kubernetes.io/default-container";

fn typed<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(bytes).map_err(|e| ApiError::internal(format!("decoding a stored object: {e}")))
}

/// The container a log request is for.
fn container(pod: &Pod, query: &Query) -> Result<String, ApiError> {
    let name = pod.metadata.name.clone().unwrap_or_default();
    let names: Vec<String> = pod.spec.iter().flat_map(|s| s.containers.iter().map(|c| c.name.clone())).collect();
    let asked = query
        .non_empty("container")
        .map(str::to_string)
        .or_else(|| pod.metadata.annotations.as_ref().and_then(|a| a.get(DEFAULT_CONTAINER)).cloned());
    match (asked, names.as_slice()) {
        (Some(asked), _) if names.contains(&asked) => Ok(asked),
        (Some(asked), _) => Err(ApiError::bad_request(format!("container {asked} is not valid for pod {name}"))),
        (None, [only]) => Ok(only.clone()),
        (None, _) => Err(ApiError::bad_request(format!(
            "a container name must be specified for pod {name}, choose one of: [{}]",
            names.join(" ")
        ))),
    }
}

/// Where the kubelet of `node` listens.
fn kubelet(state: &ApiState, node_name: &str) -> Result<String, ApiError> {
    let nodes = state.registry.get("", "v1", "nodes").ok_or_else(ApiError::no_route)?;
    let node: Node = typed(&state.resource(&nodes).get(ObjectKey::cluster(node_name))?)?;
    let status = node.status.unwrap_or_default();
    let address = status.addresses.iter().flatten().find(|a| a.type_ == "InternalIP").map(|a| a.address.clone());
    let port = status.daemon_endpoints.and_then(|d| d.kubelet_endpoint).map(|e| e.port);
    match (address, port) {
        (Some(address), Some(port)) if port > 0 => Ok(format!("{address}:{port}")),
        _ => Err(ApiError::bad_request(format!("node {node_name} reports no kubelet endpoint"))),
    }
}

/// Serves `GET pods/<name>/log`.
pub async fn serve(state: &ApiState, namespace: &str, name: &str, query: &Query) -> Result<Response, ApiError> {
    let pods = state.registry.get("", "v1", "pods").ok_or_else(ApiError::no_route)?;
    let pod: Pod = typed(&state.resource(&pods).get(ObjectKey::namespaced(namespace, name))?)?;
    let container = container(&pod, query)?;
    let node = pod.spec.as_ref().and_then(|s| s.node_name.clone()).filter(|n| !n.is_empty());
    let node = node.ok_or_else(|| ApiError::bad_request(format!("pod {name} does not have a host assigned")))?;
    let address = kubelet(state, &node)?;
    let options: Vec<String> =
        OPTIONS.iter().filter_map(|option| query.get(option).map(|value| format!("{option}={value}"))).collect();
    let uri = format!("/containerLogs/{namespace}/{name}/{container}?{}", options.join("&"));
    let unreachable = |e: &dyn std::fmt::Display| ApiError::internal(format!("Get \"http://{address}{uri}\": {e}"));
    let stream = tokio::net::TcpStream::connect(&address).await.map_err(|e| unreachable(&e))?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| unreachable(&e))?;
    tokio::spawn(connection);
    let request = axum::http::Request::get(&uri)
        .header(header::HOST, &address)
        .body(Body::empty())
        .map_err(|e| ApiError::internal(format!("building the kubelet request: {e}")))?;
    let answer = sender.send_request(request).await.map_err(|e| unreachable(&e))?;
    let (parts, body) = answer.into_parts();
    let mut response = Response::new(Body::new(body));
    *response.status_mut() = parts.status;
    let content_type =
        parts.headers.get(header::CONTENT_TYPE).cloned().unwrap_or(HeaderValue::from_static("text/plain"));
    response.headers_mut().insert(header::CONTENT_TYPE, content_type);
    Ok(response)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod(containers: &[&str], default: Option<&str>) -> Pod {
        let containers: Vec<_> = containers.iter().map(|c| json!({"name": c})).collect();
        let annotations = default.map(|d| json!({DEFAULT_CONTAINER: d}));
        serde_json::from_value(json!({"metadata": {"name": "p", "annotations": annotations},
            "spec": {"containers": containers}}))
        .unwrap()
    }

    #[test]
    fn the_log_container_is_the_named_one_the_default_or_the_only_one() {
        let none = Query::parse(None);
        assert_eq!(container(&pod(&["a"], None), &none).unwrap(), "a");
        assert_eq!(container(&pod(&["a", "b"], Some("b")), &none).unwrap(), "b");
        assert_eq!(container(&pod(&["a", "b"], None), &Query::parse(Some("container=a"))).unwrap(), "a");
        let ambiguous = container(&pod(&["a", "b"], None), &none).unwrap_err();
        assert_eq!(
            (ambiguous.code, ambiguous.message.as_str()),
            (400, "a container name must be specified for pod p, choose one of: [a b]")
        );
        let unknown = container(&pod(&["a"], None), &Query::parse(Some("container=x"))).unwrap_err();
        assert_eq!(unknown.message, "container x is not valid for pod p");
    }
}
