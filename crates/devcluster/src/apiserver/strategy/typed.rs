//! Strict field validation of built-in kinds: a body must decode as its k8s-openapi
//! type without leaving anything behind.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::super::registry::ResourceType;

fn round_trip<T: DeserializeOwned + Serialize>(object: &Value) -> Result<Value, String> {
    let typed: T = serde_json::from_value(object.clone()).map_err(|e| e.to_string())?;
    serde_json::to_value(typed).map_err(|e| e.to_string())
}

/// The typed round trip of a built-in kind, for the kinds that have a k8s-openapi type.
fn typed_form(rt: &ResourceType, object: &Value) -> Option<Result<Value, String>> {
    use k8s_openapi::api::{admissionregistration, apps, certificates, coordination, core, rbac, scheduling};
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    Some(match (rt.group.as_str(), rt.plural.as_str()) {
        ("", "configmaps") => round_trip::<core::v1::ConfigMap>(object),
        ("", "secrets") => round_trip::<core::v1::Secret>(object),
        ("", "namespaces") => round_trip::<core::v1::Namespace>(object),
        ("", "serviceaccounts") => round_trip::<core::v1::ServiceAccount>(object),
        ("", "pods") => round_trip::<core::v1::Pod>(object),
        ("", "nodes") => round_trip::<core::v1::Node>(object),
        ("", "events") => round_trip::<core::v1::Event>(object),
        ("", "resourcequotas") => round_trip::<core::v1::ResourceQuota>(object),
        ("apps", "deployments") => round_trip::<apps::v1::Deployment>(object),
        ("coordination.k8s.io", "leases") => round_trip::<coordination::v1::Lease>(object),
        ("certificates.k8s.io", "certificatesigningrequests") => {
            round_trip::<certificates::v1::CertificateSigningRequest>(object)
        }
        ("rbac.authorization.k8s.io", "roles") => round_trip::<rbac::v1::Role>(object),
        ("rbac.authorization.k8s.io", "clusterroles") => round_trip::<rbac::v1::ClusterRole>(object),
        ("rbac.authorization.k8s.io", "rolebindings") => round_trip::<rbac::v1::RoleBinding>(object),
        ("rbac.authorization.k8s.io", "clusterrolebindings") => round_trip::<rbac::v1::ClusterRoleBinding>(object),
        ("scheduling.k8s.io", "priorityclasses") => round_trip::<scheduling::v1::PriorityClass>(object),
        ("apiextensions.k8s.io", "customresourcedefinitions") => round_trip::<CustomResourceDefinition>(object),
        ("admissionregistration.k8s.io", "validatingadmissionpolicies") => {
            round_trip::<admissionregistration::v1::ValidatingAdmissionPolicy>(object)
        }
        ("admissionregistration.k8s.io", "validatingadmissionpolicybindings") => {
            round_trip::<admissionregistration::v1::ValidatingAdmissionPolicyBinding>(object)
        }
        ("admissionregistration.k8s.io", "mutatingwebhookconfigurations") => {
            round_trip::<admissionregistration::v1::MutatingWebhookConfiguration>(object)
        }
        ("admissionregistration.k8s.io", "validatingwebhookconfigurations") => {
            round_trip::<admissionregistration::v1::ValidatingWebhookConfiguration>(object)
        }
        _ => return None,
    })
}

/// The first field of a built-in object its type does not declare (`Ok(None)`: none),
/// or why the object does not decode at all.
pub fn unknown_field(rt: &ResourceType, object: &Value) -> Result<Option<String>, String> {
    let Some(typed) = typed_form(rt, object) else { return Ok(None) };
    Ok(first_missing(object, &typed?, ""))
}

/// The first field of `a` that `b` lacks; nulls stand for absent fields.
fn first_missing(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => x.iter().filter(|(_, v)| !v.is_null()).find_map(|(k, v)| {
            let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
            match y.get(k) {
                None => Some(p),
                Some(w) => first_missing(v, w, &p),
            }
        }),
        (Value::Object(x), _) if x.values().all(Value::is_null) => None,
        (Value::Object(x), _) => {
            x.keys().next().map(|k| if path.is_empty() { k.clone() } else { format!("{path}.{k}") })
        }
        (Value::Array(x), Value::Array(y)) => {
            x.iter().zip(y).enumerate().find_map(|(i, (v, w))| first_missing(v, w, &format!("{path}[{i}]")))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::super::registry::Registry;
    use super::*;

    #[test]
    fn strict_decoding_names_the_first_undeclared_field_and_ignores_nulls() {
        let registry = Registry::with_builtins();
        let cm = registry.get("", "v1", "configmaps").expect("configmaps");
        let clean = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "creationTimestamp": null}, "data": {"a": "b"}});
        assert_eq!(unknown_field(&cm, &clean), Ok(None));
        let bogus = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "bogus": 1}});
        assert_eq!(unknown_field(&cm, &bogus), Ok(Some("metadata.bogus".to_string())));
        let deploy = registry.get("apps", "v1", "deployments").expect("deployments");
        let nested = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"selector": {}, "template": {"spec": {"containers": [{"name": "c", "image": "i", "bogus": 1}]}}}});
        assert_eq!(unknown_field(&deploy, &nested), Ok(Some("spec.template.spec.containers[0].bogus".to_string())));
    }
}
