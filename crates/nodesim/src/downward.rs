//! The downward API: what a container can read of its own Pod, through env
//! (`valueFrom.fieldRef`, `resourceFieldRef`) and through `downwardAPI` volumes and
//! projections, with the field paths and resources kubelet accepts.

use std::collections::BTreeMap;

use fleetctl_apimachinery::quantity::Quantity;
use k8s_openapi::api::core::v1::{Container, ResourceFieldSelector};

use super::status::HOST_IP;

/// What a Pod's downward API can read.
#[derive(Debug, Clone)]
pub struct PodFields {
    /// `metadata.namespace`.
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.uid`.
    pub uid: String,
    /// `spec.serviceAccountName`.
    pub service_account: String,
    /// `spec.nodeName`.
    pub node: String,
    /// `metadata.labels`.
    pub labels: BTreeMap<String, String>,
    /// `metadata.annotations`.
    pub annotations: BTreeMap<String, String>,
    /// `status.podIP`.
    pub pod_ip: String,
}

/// A field or resource the downward API cannot give.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    /// The field path is not one kubelet supports.
    #[error("unsupported fieldPath {0:?}")]
    Field(String),
    /// The resource is not one kubelet supports.
    #[error("unsupported resource {0:?}")]
    Resource(String),
    /// The container the reference names is not in the Pod.
    #[error("container {0:?} not found in the pod")]
    Container(String),
    /// A quantity (a request, limit or divisor) could not be read.
    #[error("invalid quantity {0:?}")]
    Quantity(String),
}

/// `metadata.labels` and `metadata.annotations` printed as a volume file shows them:
/// `key="value"` lines, sorted, values quoted as Go's `%q` does.
fn format_map(map: &BTreeMap<String, String>) -> String {
    map.iter().map(|(k, v)| format!("{k}={v:?}")).collect::<Vec<_>>().join("\n")
}

impl PodFields {
    /// A Pod `p` (uid `u`, ServiceAccount `sa`) in `ns1` on node `n`, labelled `app=web`
    /// and annotated `note=hi`, at 10.244.0.7: the unit tests' fixture.
    #[cfg(test)]
    pub fn test() -> Self {
        Self {
            namespace: "ns1".into(),
            name: "p".into(),
            uid: "u".into(),
            service_account: "sa".into(),
            node: "n".into(),
            labels: [("app".to_string(), "web".to_string())].into(),
            annotations: [("note".to_string(), "hi".to_string())].into(),
            pod_ip: "10.244.0.7".to_string(),
        }
    }

    /// The value of a `fieldRef` path, as env (`metadata.labels` alone is for volumes).
    pub fn field(&self, path: &str) -> Result<String, FieldError> {
        let key_of = |prefix: &str| path.strip_prefix(prefix).and_then(|r| r.strip_suffix("']"));
        let value = match path {
            "metadata.namespace" => self.namespace.clone(),
            "metadata.name" => self.name.clone(),
            "metadata.uid" => self.uid.clone(),
            "metadata.labels" => format_map(&self.labels),
            "metadata.annotations" => format_map(&self.annotations),
            "spec.serviceAccountName" => self.service_account.clone(),
            "spec.nodeName" => self.node.clone(),
            "status.podIP" | "status.podIPs" => self.pod_ip.clone(),
            "status.hostIP" | "status.hostIPs" => HOST_IP.to_string(),
            _ => {
                if let Some(key) = key_of("metadata.labels['") {
                    self.labels.get(key).cloned().unwrap_or_default()
                } else if let Some(key) = key_of("metadata.annotations['") {
                    self.annotations.get(key).cloned().unwrap_or_default()
                } else {
                    return Err(FieldError::Field(path.to_string()));
                }
            }
        };
        Ok(value)
    }
}

/// The value of a `resourceFieldRef` for `container` (the one the reference names, if it
/// names one, among `containers`): its limit or request divided by the divisor, rounded
/// up; a limit it does not set is the node's allocatable amount, as kubelet does.
pub fn resource(
    selector: &ResourceFieldSelector,
    container: &Container,
    containers: &[Container],
) -> Result<String, FieldError> {
    let container = match selector.container_name.as_deref().filter(|n| !n.is_empty()) {
        Some(name) => {
            containers.iter().find(|c| c.name == name).ok_or_else(|| FieldError::Container(name.to_string()))?
        }
        None => container,
    };
    let (kind, name) =
        selector.resource.split_once('.').ok_or_else(|| FieldError::Resource(selector.resource.clone()))?;
    if !matches!(name, "cpu" | "memory" | "ephemeral-storage") {
        return Err(FieldError::Resource(selector.resource.clone()));
    }
    let resources = container.resources.as_ref();
    let set = match kind {
        "limits" => resources.and_then(|r| r.limits.as_ref()),
        "requests" => resources.and_then(|r| r.requests.as_ref()),
        _ => return Err(FieldError::Resource(selector.resource.clone())),
    };
    let text = match set.and_then(|s| s.get(name)) {
        Some(quantity) => quantity.0.clone(),
        None if kind == "limits" => {
            let allocatable = super::register::machine_resources();
            allocatable.get(name).map(|q| q.0.clone()).unwrap_or_else(|| "0".to_string())
        }
        None => "0".to_string(),
    };
    let quantity = Quantity::parse(&text).map_err(|_| FieldError::Quantity(text.clone()))?;
    let divisor_text = selector.divisor.as_ref().map_or("1", |d| d.0.as_str());
    let divisor = Quantity::parse(divisor_text).map_err(|_| FieldError::Quantity(divisor_text.to_string()))?;
    let value = quantity.divided_up(divisor).ok_or_else(|| FieldError::Quantity(divisor_text.to_string()))?;
    Ok(value.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn field_refs_read_the_pods_metadata_spec_and_status_as_kubelet_does() {
        let mut pod = PodFields::test();
        pod.labels.insert("tier".into(), "a\"b".into());
        let cases = [
            ("metadata.name", "p"),
            ("metadata.namespace", "ns1"),
            ("metadata.uid", "u"),
            ("metadata.labels['app']", "web"),
            ("metadata.labels['missing']", ""),
            ("metadata.annotations['note']", "hi"),
            ("spec.nodeName", "n"),
            ("spec.serviceAccountName", "sa"),
            ("status.podIP", "10.244.0.7"),
            ("status.hostIP", HOST_IP),
            ("metadata.labels", "app=\"web\"\ntier=\"a\\\"b\""),
        ];
        for (path, value) in cases {
            assert_eq!(pod.field(path).unwrap(), value, "{path}");
        }
        assert_eq!(pod.field("spec.nope"), Err(FieldError::Field("spec.nope".into())));
    }

    #[test]
    fn resource_field_refs_divide_limits_and_requests_rounding_up() {
        let container: Container = serde_json::from_value(json!({"name": "c", "resources": {
            "limits": {"cpu": "1500m", "memory": "128Mi"}, "requests": {"cpu": "250m"}}}))
        .unwrap();
        let selector = |resource: &str, divisor: Option<&str>| ResourceFieldSelector {
            resource: resource.into(),
            divisor: divisor.map(|d| k8s_openapi::apimachinery::pkg::api::resource::Quantity(d.into())),
            container_name: None,
        };
        let read = |resource, divisor| resource_of(&selector(resource, divisor), &container);
        assert_eq!(read("limits.cpu", None).unwrap(), "2", "1.5 cores round up to 2");
        assert_eq!(read("limits.cpu", Some("1m")).unwrap(), "1500");
        assert_eq!(read("requests.cpu", Some("1m")).unwrap(), "250");
        assert_eq!(read("limits.memory", Some("1Mi")).unwrap(), "128");
        assert_eq!(read("requests.memory", None).unwrap(), "0");
        assert!(read("limits.memory", None).unwrap().parse::<u64>().unwrap() > 0);
        assert!(read("limits.gpu", None).is_err());
        let other = ResourceFieldSelector { container_name: Some("x".into()), ..selector("limits.cpu", None) };
        assert_eq!(resource_of(&other, &container), Err(FieldError::Container("x".into())));
    }

    fn resource_of(selector: &ResourceFieldSelector, container: &Container) -> Result<String, FieldError> {
        resource(selector, container, std::slice::from_ref(container))
    }
}
