//! Rendering of what fleetctl installs: the import manifests (`crds.yaml`,
//! `import.yaml`) a managed cluster applies, and the hub installation.
//!
//! Everything here is pure: objects in, objects or YAML out.

pub mod admission;
pub mod import;
pub mod install;

use serde_json::Value;

/// Documents joined as `kubectl apply -f` reads them.
pub fn to_yaml(objects: &[Value]) -> String {
    // JSON documents always have a YAML form: YAML is a superset of JSON.
    #[allow(clippy::expect_used)]
    let yaml = |object| serde_yaml::to_string(object).expect("a JSON document is representable as YAML");
    objects.iter().map(yaml).collect::<Vec<_>>().join("---\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_separated_for_kubectl() {
        let yaml = to_yaml(&[serde_json::json!({"a": 1}), serde_json::json!({"b": 2})]);
        assert_eq!(yaml, "a: 1\n---\nb: 2\n");
    }
}
