//! Rendering of what fleetctl installs: the import manifests (`crds.yaml`,
//! `import.yaml`) a managed cluster applies, and the hub installation.
//!
//! Everything here is pure: objects in, objects or YAML out.

pub mod import;
pub mod install;

use serde_json::Value;

/// Documents joined as `kubectl apply -f` reads them.
pub fn to_yaml(objects: &[Value]) -> String {
    objects.iter().map(|o| serde_yaml::to_string(o).unwrap_or_default()).collect::<Vec<_>>().join("---\n")
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
