use std::collections::BTreeSet;

use serde_json::json;

use super::super::registry::Registry;
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

#[test]
fn every_builtin_kind_is_served_once_at_its_group_version_and_plural() {
    let mut seen = BTreeSet::new();
    for kind in BUILTIN {
        assert!(seen.insert((kind.group, kind.version, kind.plural)), "{kind:?} is in the table twice");
    }
    let registry = Registry::with_builtins();
    for kind in BUILTIN {
        let rt = registry.get(kind.group, kind.version, kind.plural).unwrap_or_else(|| panic!("{kind:?} not served"));
        assert_eq!(rt.kind, kind.kind);
        assert!(matches!(rt.origin, Origin::Builtin(k) if std::ptr::eq(k, kind)));
    }
}

#[test]
fn every_builtin_kind_strictly_decodes_its_own_minimal_object() {
    for kind in BUILTIN {
        let api_version =
            if kind.group.is_empty() { kind.version.to_string() } else { format!("{}/{}", kind.group, kind.version) };
        let object = json!({"apiVersion": api_version, "kind": kind.kind, "metadata": {"name": "x"}});
        let typed = (kind.strict)(&object);
        // A kind with required fields refuses the bare object; it must say which.
        if let Err(why) = &typed {
            assert!(why.contains("missing field"), "{kind:?}: {why}");
            continue;
        }
        assert_eq!(unknown_field(&kind.resource_type(), &object), Ok(None), "{kind:?}");
    }
}

#[test]
fn kube_apiserver_1_32_serves_the_workload_network_storage_and_aggregation_apis() {
    let registry = Registry::with_builtins();
    for (group, version, plural) in [
        ("apps", "v1", "daemonsets"),
        ("apps", "v1", "controllerrevisions"),
        ("networking.k8s.io", "v1", "networkpolicies"),
        ("networking.k8s.io", "v1", "ingresses"),
        ("policy", "v1", "poddisruptionbudgets"),
        ("", "v1", "persistentvolumes"),
        ("", "v1", "persistentvolumeclaims"),
        ("storage.k8s.io", "v1", "storageclasses"),
        ("apiregistration.k8s.io", "v1", "apiservices"),
        ("autoscaling", "v2", "horizontalpodautoscalers"),
        ("flowcontrol.apiserver.k8s.io", "v1", "flowschemas"),
    ] {
        assert!(registry.get(group, version, plural).is_some(), "{group}/{version} {plural}");
    }
}

/// A built-in kind without a protobuf table would have no patch rules: a strategic merge patch
/// would replace every list of it whole, silently.
#[test]
fn every_builtin_kind_has_a_generated_table_for_its_patch_rules() {
    for kind in BUILTIN {
        let api_version =
            if kind.group.is_empty() { kind.version.to_string() } else { format!("{}/{}", kind.group, kind.version) };
        assert!(super::super::protobuf::message(&api_version, kind.kind).is_some(), "{api_version} {}", kind.kind);
    }
}
