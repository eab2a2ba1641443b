//! The `/scale` subresource: an `autoscaling/v1` Scale view of an object's replicas.
//! Built-in workloads read `spec.replicas`, `status.replicas` and their selector; a
//! custom resource the paths its CRD's `subresources.scale` names (`specReplicasPath`,
//! `statusReplicasPath`, `labelSelectorPath`). Writes (PUT, or a merge/JSON/strategic
//! patch of the Scale) change only the replicas.

use k8s_openapi::api::autoscaling::v1::{Scale, ScaleSpec, ScaleStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde_json::Value;

use super::key::ObjectKey;
use super::kinds;
use super::options::{Patch, PatchType, WriteOptions};
use super::patch;
use super::registry::{Origin, ResourceType};
use super::status::ApiError;
use super::storage::Storage;
use super::store::Store;

/// Where an object keeps what its Scale shows (dotted paths below the object).
struct Paths {
    spec: String,
    status: String,
    selector: Option<String>,
}

impl Paths {
    fn of(store: &Store, rt: &ResourceType) -> Result<Self, ApiError> {
        let Origin::Custom { crd, .. } = &rt.origin else {
            return Ok(Self { spec: ".spec.replicas".into(), status: ".status.replicas".into(), selector: None });
        };
        let stored = store.get(&kinds::custom_resource_definitions(), crd).ok_or_else(ApiError::no_route)?;
        let definition = stored.value();
        let version = definition["spec"]["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|v| v["name"] == rt.version.as_str())
            .ok_or_else(ApiError::no_route)?;
        let scale = &version["subresources"]["scale"];
        let text = |field: &str| scale[field].as_str().map(str::to_string);
        Ok(Self {
            spec: text("specReplicasPath").ok_or_else(ApiError::no_route)?,
            status: text("statusReplicasPath").unwrap_or_else(|| ".status.replicas".into()),
            selector: text("labelSelectorPath"),
        })
    }
}

fn steps(path: &str) -> Vec<&str> {
    path.trim_start_matches('.').split('.').filter(|s| !s.is_empty()).collect()
}

fn lookup<'a>(object: &'a Value, path: &str) -> Option<&'a Value> {
    steps(path).iter().try_fold(object, |v, step| v.get(*step))
}

fn set(object: &mut Value, path: &str, value: Value) {
    let steps = steps(path);
    let Some((last, parents)) = steps.split_last() else { return };
    let mut at = object;
    for step in parents {
        at = super::object::ensure_object(at).entry(step.to_string()).or_insert(Value::Null);
    }
    super::object::ensure_object(at).insert(last.to_string(), value);
}

/// The selector of a built-in workload as the Scale's string form.
fn selector_string(selector: &Value) -> String {
    let mut parts: Vec<String> = selector["matchLabels"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    for expression in selector["matchExpressions"].as_array().into_iter().flatten() {
        let key = expression["key"].as_str().unwrap_or_default();
        let values: Vec<&str> =
            expression["values"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        parts.push(match expression["operator"].as_str() {
            Some("In") => format!("{key} in ({})", values.join(",")),
            Some("NotIn") => format!("{key} notin ({})", values.join(",")),
            Some("DoesNotExist") => format!("!{key}"),
            _ => key.to_string(),
        });
    }
    parts.join(",")
}

fn view(object: &Value, paths: &Paths) -> Scale {
    let replicas = |path: &str| lookup(object, path).and_then(Value::as_i64).and_then(|n| i32::try_from(n).ok());
    let selector = match &paths.selector {
        Some(path) => lookup(object, path).and_then(Value::as_str).map(str::to_string),
        None => Some(selector_string(&object["spec"]["selector"])).filter(|s| !s.is_empty()),
    };
    let meta = &object["metadata"];
    let text = |field: &str| meta[field].as_str().map(str::to_string);
    Scale {
        metadata: ObjectMeta {
            name: text("name"),
            namespace: text("namespace"),
            uid: text("uid"),
            resource_version: text("resourceVersion"),
            creation_timestamp: serde_json::from_value(meta["creationTimestamp"].clone()).ok(),
            ..ObjectMeta::default()
        },
        spec: Some(ScaleSpec { replicas: replicas(&paths.spec) }),
        status: Some(ScaleStatus { replicas: replicas(&paths.status).unwrap_or(0), selector }),
    }
}

fn scale_value(scale: &Scale) -> Result<Value, ApiError> {
    serde_json::to_value(scale).map_err(|e| ApiError::internal(format!("serializing the scale: {e}")))
}

/// How a write asks to change the Scale.
pub enum ScaleChange<'a> {
    /// PUT of a whole Scale.
    Replace(Value),
    /// PATCH of the Scale.
    Patch(Patch<'a>),
}

impl Storage<'_> {
    /// GET of `/scale`.
    pub fn get_scale(&self, key: ObjectKey<'_>) -> Result<Value, ApiError> {
        let paths = Paths::of(&self.state.store, self.rt)?;
        let stored = self.load(key)?;
        scale_value(&view(&stored.value(), &paths))
    }

    /// PUT or PATCH of `/scale`: the object's replicas become the Scale's.
    pub fn write_scale(
        &self,
        key: ObjectKey<'_>,
        change: &ScaleChange<'_>,
        opts: &WriteOptions,
    ) -> Result<Value, ApiError> {
        let paths = Paths::of(&self.state.store, self.rt)?;
        let name = key.name;
        let written = self.write(key, None, opts, None, &mut |current| {
            let mut scale = scale_value(&view(current, &paths))?;
            match change {
                ScaleChange::Replace(body) => scale["spec"] = body["spec"].clone(),
                ScaleChange::Patch(Patch { kind, body }) => {
                    let document: Value = serde_json::from_slice(body)
                        .map_err(|e| ApiError::bad_request(format!("the patch is not valid: {e}")))?;
                    match kind {
                        PatchType::Json => patch::json_patch(&mut scale, &document)
                            .map_err(|e| ApiError::unprocessable(format!("the patch cannot be applied: {e:?}")))?,
                        PatchType::Merge | PatchType::Strategic => patch::merge_patch(&mut scale, &document),
                        PatchType::Apply => {
                            return Err(ApiError::unsupported_media_type("apply patches of /scale are not supported"));
                        }
                    }
                }
            }
            let replicas = scale["spec"]["replicas"].as_i64().unwrap_or(0);
            if replicas < 0 {
                return Err(ApiError::unprocessable(format!(
                    "Scale.autoscaling \"{name}\" is invalid: spec.replicas: Invalid value: {replicas}: must be greater than or equal to 0"
                )));
            }
            let mut next = current.clone();
            set(&mut next, &paths.spec, Value::from(replicas));
            Ok(next)
        })?;
        scale_value(&view(&written.body, &paths))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_scale_shows_replicas_and_the_selector_in_string_form() {
        let deployment = json!({
            "metadata": {"name": "web", "namespace": "ns", "resourceVersion": "7"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"},
                "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]}},
            "status": {"replicas": 2},
        });
        let paths = Paths { spec: ".spec.replicas".into(), status: ".status.replicas".into(), selector: None };
        let scale = view(&deployment, &paths);
        assert_eq!(scale.spec.unwrap().replicas, Some(3));
        let status = scale.status.unwrap();
        assert_eq!((status.replicas, status.selector.as_deref()), (2, Some("app=web,tier in (a,b)")));
        assert_eq!(scale.metadata.resource_version.as_deref(), Some("7"));

        let custom = json!({"metadata": {"name": "c"}, "spec": {"size": 4}, "status": {"count": 1, "sel": "x=y"}});
        let paths =
            Paths { spec: ".spec.size".into(), status: ".status.count".into(), selector: Some(".status.sel".into()) };
        let scale = view(&custom, &paths);
        assert_eq!(scale.spec.unwrap().replicas, Some(4));
        assert_eq!(scale.status.unwrap().selector.as_deref(), Some("x=y"));
        let mut written = custom.clone();
        set(&mut written, ".spec.size", json!(6));
        assert_eq!(written["spec"]["size"], 6);
    }
}
