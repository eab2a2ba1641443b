//! A minimal `/openapi/v3`: enough for client-side `kubectl apply` to find each
//! kind's group/version/kind and the `fieldValidation` parameter. URLs carry a
//! content hash so kubectl's cache never serves a stale document.

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::registry::{Registry, ResourceType};

/// `apis/apps/v1` or `api/v1`.
fn gv_path(group: &str, version: &str) -> String {
    if group.is_empty() { format!("api/{version}") } else { format!("apis/{group}/{version}") }
}

/// The document of one group/version.
pub fn group_version(registry: &Registry, group: &str, version: &str) -> Option<Value> {
    let (_, groups) = registry.snapshot();
    let (_, versions) = groups.iter().find(|(g, _)| g == group)?;
    let (_, resources) = versions.iter().find(|(v, _)| v == version)?;
    let mut paths = Map::new();
    for rt in resources {
        for path in object_paths(rt) {
            let operation = json!({
                "x-kubernetes-group-version-kind": {"group": rt.group, "version": rt.version, "kind": rt.kind},
                "parameters": [{"name": "fieldValidation", "in": "query", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "OK"}},
            });
            paths.insert(path, json!({"patch": operation}));
        }
    }
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.32.0"},
        "paths": paths,
    }))
}

fn object_paths(rt: &ResourceType) -> Vec<String> {
    let base = format!("/{}", gv_path(&rt.group, &rt.version));
    if rt.namespaced {
        vec![format!("{base}/namespaces/{{namespace}}/{}/{{name}}", rt.plural)]
    } else {
        vec![format!("{base}/{}/{{name}}", rt.plural)]
    }
}

/// The root document: one content-hashed URL per group/version.
pub fn root(registry: &Registry) -> Value {
    let (_, groups) = registry.snapshot();
    let mut paths = Map::new();
    for (group, versions) in &groups {
        for (version, _) in versions {
            let Some(doc) = group_version(registry, group, version) else {
                continue;
            };
            let hash = hex(&Sha256::digest(doc.to_string().as_bytes()));
            let path = gv_path(group, version);
            paths.insert(path.clone(), json!({"serverRelativeURL": format!("/openapi/v3/{path}?hash={hash}")}));
        }
    }
    json!({"paths": paths})
}

/// A minimal OpenAPI v2 document (no definitions): kubectl's validation then treats
/// kinds it cannot find as unknown instead of failing on a 404, as against a real
/// server. kubectl asks for the gnostic protobuf form; others get JSON.
pub fn v2(protobuf: bool) -> Vec<u8> {
    if !protobuf {
        return json!({"swagger": "2.0", "info": {"title": "Kubernetes", "version": "v1.32.0"}, "paths": {}})
            .to_string()
            .into_bytes();
    }
    // openapi_v2.Document { swagger = 1; info = 2 { title = 1; version = 2 } }
    let info = [field(1, b"Kubernetes"), field(2, b"v1.32.0")].concat();
    [field(1, b"2.0"), field(2, &info)].concat()
}

/// One length-delimited protobuf field.
fn field(number: u8, bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![(number << 3) | 2];
    let mut len = bytes.len();
    while len >= 0x80 {
        out.push(u8::try_from(len & 0x7f).unwrap_or(0) | 0x80);
        len >>= 7;
    }
    out.push(u8::try_from(len).unwrap_or(0));
    out.extend_from_slice(bytes);
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_points_at_hashed_group_version_documents() {
        let registry = Registry::with_builtins();
        let root = root(&registry);
        let url = root["paths"]["apis/apps/v1"]["serverRelativeURL"].as_str().expect("apps/v1");
        assert!(url.starts_with("/openapi/v3/apis/apps/v1?hash="));
        let doc = group_version(&registry, "apps", "v1").expect("doc");
        let op = &doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"];
        assert_eq!(op["x-kubernetes-group-version-kind"]["kind"], "Deployment");
    }
}
