//! Converts ManagedClusterAddOn and ClusterManagementAddOn between v1alpha1 and v1beta1 as
//! upstream OCM's hub does (its conversion webhook, `pkg/addon/webhook/v1beta1`, over the
//! conversion functions of `open-cluster-management.io/api/addon/v1beta1`):
//!
//! - v1alpha1's `spec.installNamespace` travels in v1beta1 as the annotation
//!   [`ANNOTATION_V1ALPHA1_INSTALL_NAMESPACE`], which the way back removes again;
//! - a registration for the `kubernetes.io/kube-apiserver-client` signer is a `kubeClient`
//!   registration in v1beta1, any other a `customSigner` one; v1alpha1's status-level
//!   `kubeClientDriver` is the driver of every v1beta1 `kubeClient` registration, and the first
//!   one's on the way back;
//! - the deprecated namespace and name of a v1alpha1 config reference are its desired
//!   configuration's;
//! - a v1alpha1 supported configuration without a default is a v1beta1 default configuration
//!   named [`RESERVED_NO_DEFAULT_CONFIG_NAME`];
//! - v1alpha1's deprecated `addOnConfiguration` has no v1beta1 counterpart, and upstream drops
//!   it, as this does.
//!
//! The `From` impls between the two versions' kinds convert typed objects; [`convert`] converts
//! one object as JSON, as a conversion webhook receives it.

mod cluster_management_addon;
mod managed_cluster_addon;

use kube::Resource;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub use crate::conditions::ANNOTATION_V1ALPHA1_INSTALL_NAMESPACE;

use super::{v1alpha1, v1beta1};

/// The default configuration name that stands, in v1beta1, for a v1alpha1 supported
/// configuration without a default; no object can have it.
pub const RESERVED_NO_DEFAULT_CONFIG_NAME: &str = "__reserved_no_default__";

/// The apiVersion of the addon kinds' stored version.
pub const V1ALPHA1: &str = "addon.open-cluster-management.io/v1alpha1";
/// The apiVersion of the addon kinds' other served version.
pub const V1BETA1: &str = "addon.open-cluster-management.io/v1beta1";

/// Why an object could not be converted.
#[derive(Debug, thiserror::Error)]
pub enum ConversionError {
    /// The object is not a JSON object.
    #[error("the object to convert is not a JSON object")]
    NotAnObject,
    /// The object lacks `apiVersion` or `kind`.
    #[error("the object to convert has no {0}")]
    Missing(&'static str),
    /// The object is of a kind that has no versions to convert between.
    #[error("cannot convert kind {0:?}: only ManagedClusterAddOn and ClusterManagementAddOn convert")]
    UnknownKind(String),
    /// The object's apiVersion, or the one asked for, is neither served version.
    #[error("unknown apiVersion {0:?}: the addon kinds are served as {V1ALPHA1} and {V1BETA1}")]
    UnknownVersion(String),
    /// The object does not read as its kind in its version.
    #[error("cannot read the {kind} as {api_version}")]
    Undecodable {
        /// The object's kind.
        kind: String,
        /// The object's apiVersion.
        api_version: String,
        /// What did not read.
        #[source]
        source: serde_json::Error,
    },
    /// The converted object does not write as JSON.
    #[error("cannot write the {kind} as {api_version}")]
    Unencodable {
        /// The object's kind.
        kind: String,
        /// The apiVersion it was converted to.
        api_version: String,
        /// What did not write.
        #[source]
        source: serde_json::Error,
    },
}

/// Returns `object` — a whole ManagedClusterAddOn or ClusterManagementAddOn, metadata and
/// status included, in v1alpha1 or v1beta1 — in `api_version` ([`V1ALPHA1`] or [`V1BETA1`]),
/// unchanged when it is in that version already.
///
/// Its metadata stays as it came, but for the install namespace annotation: the API server
/// refuses a conversion that changes anything else of it.
pub fn convert(object: Value, api_version: &str) -> Result<Value, ConversionError> {
    let target = Version::parse(api_version)?;
    let Value::Object(fields) = object else {
        return Err(ConversionError::NotAnObject);
    };
    let text = |key: &'static str| fields.get(key).and_then(Value::as_str).ok_or(ConversionError::Missing(key));
    let kind = Kind::parse(text("kind")?)?;
    if Version::parse(text("apiVersion")?)? == target {
        return Ok(Value::Object(fields));
    }
    match (kind, target) {
        (Kind::ManagedClusterAddOn, Version::V1beta1) => {
            retype::<v1alpha1::ManagedClusterAddOn, v1beta1::ManagedClusterAddOn>(fields)
        }
        (Kind::ManagedClusterAddOn, Version::V1alpha1) => {
            retype::<v1beta1::ManagedClusterAddOn, v1alpha1::ManagedClusterAddOn>(fields)
        }
        (Kind::ClusterManagementAddOn, Version::V1beta1) => {
            retype::<v1alpha1::ClusterManagementAddOn, v1beta1::ClusterManagementAddOn>(fields)
        }
        (Kind::ClusterManagementAddOn, Version::V1alpha1) => {
            retype::<v1beta1::ClusterManagementAddOn, v1alpha1::ClusterManagementAddOn>(fields)
        }
    }
}

/// The kinds that convert.
#[derive(Clone, Copy)]
enum Kind {
    ManagedClusterAddOn,
    ClusterManagementAddOn,
}

impl Kind {
    fn parse(kind: &str) -> Result<Self, ConversionError> {
        match kind {
            "ManagedClusterAddOn" => Ok(Self::ManagedClusterAddOn),
            "ClusterManagementAddOn" => Ok(Self::ClusterManagementAddOn),
            other => Err(ConversionError::UnknownKind(other.to_owned())),
        }
    }
}

/// The served versions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Version {
    V1alpha1,
    V1beta1,
}

impl Version {
    fn parse(api_version: &str) -> Result<Self, ConversionError> {
        match api_version {
            V1ALPHA1 => Ok(Self::V1alpha1),
            V1BETA1 => Ok(Self::V1beta1),
            other => Err(ConversionError::UnknownVersion(other.to_owned())),
        }
    }
}

/// Converts an object through the types of its version (`S`) and the target's (`T`), then
/// puts its metadata back as it came, with the annotations the conversion left.
fn retype<S, T>(fields: Map<String, Value>) -> Result<Value, ConversionError>
where
    S: DeserializeOwned + Resource<DynamicType = ()>,
    T: From<S> + Serialize + Resource<DynamicType = ()>,
{
    let metadata = fields.get("metadata").cloned();
    let source: S = serde_json::from_value(Value::Object(fields)).map_err(|source| ConversionError::Undecodable {
        kind: S::kind(&()).into(),
        api_version: S::api_version(&()).into(),
        source,
    })?;
    let converted = T::from(source);
    let unencodable = |source| ConversionError::Unencodable {
        kind: T::kind(&()).into(),
        api_version: T::api_version(&()).into(),
        source,
    };
    let annotations = serde_json::to_value(&converted.meta().annotations).map_err(unencodable)?;
    let mut object = serde_json::to_value(&converted).map_err(unencodable)?;
    if let (Some(Value::Object(mut metadata)), Some(converted)) = (metadata, object.as_object_mut()) {
        if annotations.is_null() {
            metadata.remove("annotations");
        } else {
            metadata.insert("annotations".into(), annotations);
        }
        converted.insert("metadata".into(), Value::Object(metadata));
    }
    Ok(object)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A v1alpha1 ManagedClusterAddOn with metadata as the API server sends it.
    fn stored_addon() -> Value {
        json!({
            "apiVersion": V1ALPHA1,
            "kind": "ManagedClusterAddOn",
            "metadata": {
                "name": "search-collector",
                "namespace": "cluster1",
                "uid": "6f1c2b1e-2f55-4a59-9d1b-3d4b1a2c9e10",
                "resourceVersion": "4711",
                "generation": 2,
                "creationTimestamp": "2025-10-17T00:07:00Z",
                "deletionTimestamp": "2025-10-17T00:09:00.250Z",
                "labels": {"open-cluster-management.io/addon-name": "search-collector"},
                "annotations": {"addon.open-cluster-management.io/values": "{}"},
                "finalizers": ["addon.open-cluster-management.io/addon-pre-delete"],
                "managedFields": [{"manager": "fleetctld", "operation": "Apply", "apiVersion": V1ALPHA1,
                                   "time": "2025-10-17T00:07:00Z", "fieldsType": "FieldsV1",
                                   "fieldsV1": {"f:spec": {"f:installNamespace": {}}}}]
            },
            "spec": {"installNamespace": "open-cluster-management-agent-addon"},
            "status": {"namespace": "open-cluster-management-agent-addon", "healthCheck": {"mode": "Customized"}}
        })
    }

    #[test]
    fn an_install_namespace_travels_in_upstreams_v1alpha1_install_namespace_annotation() {
        let stored = stored_addon();
        let served = convert(stored.clone(), V1BETA1).unwrap();
        assert_eq!(served["apiVersion"], V1BETA1);
        assert_eq!(served["spec"], json!({}));
        assert_eq!(
            served["metadata"]["annotations"],
            json!({
                "addon.open-cluster-management.io/values": "{}",
                "addon.open-cluster-management.io/v1alpha1-install-namespace": "open-cluster-management-agent-addon"
            })
        );
        assert_eq!(convert(served, V1ALPHA1).unwrap(), stored);
    }

    #[test]
    fn metadata_is_kept_as_the_api_server_sent_it_but_for_the_install_namespace_annotation() {
        let mut stored = stored_addon();
        // A field this build's ObjectMeta does not know, and an annotation map the way back empties.
        stored["metadata"]["annotations"] = json!({});
        stored["metadata"]["futureField"] = json!("kept");
        let served = convert(stored.clone(), V1BETA1).unwrap();
        let mut expected = stored["metadata"].clone();
        expected["annotations"] = json!({"addon.open-cluster-management.io/v1alpha1-install-namespace":
                                         "open-cluster-management-agent-addon"});
        assert_eq!(served["metadata"], expected);
        let back = convert(served, V1ALPHA1).unwrap();
        let mut expected = stored["metadata"].clone();
        expected.as_object_mut().unwrap().remove("annotations");
        assert_eq!(back["metadata"], expected, "an emptied annotation map is left out, as Go leaves it out");
    }

    #[test]
    fn a_cluster_management_addon_converts_both_ways_through_json() {
        let stored = json!({
            "apiVersion": V1ALPHA1,
            "kind": "ClusterManagementAddOn",
            "metadata": {"name": "search-collector", "uid": "u1", "resourceVersion": "7"},
            "spec": {
                "addOnMeta": {"displayName": "Search"},
                "supportedConfigs": [{"group": "", "resource": "configmaps"}],
                "installStrategy": {"type": "Manual"}
            }
        });
        let served = convert(stored.clone(), V1BETA1).unwrap();
        assert_eq!(
            served,
            json!({
                "apiVersion": V1BETA1,
                "kind": "ClusterManagementAddOn",
                "metadata": {"name": "search-collector", "uid": "u1", "resourceVersion": "7"},
                "spec": {
                    "addOnMeta": {"displayName": "Search"},
                    "defaultConfigs": [{"group": "", "resource": "configmaps", "name": RESERVED_NO_DEFAULT_CONFIG_NAME}],
                    "installStrategy": {"type": "Manual"}
                }
            })
        );
        assert_eq!(convert(served, V1ALPHA1).unwrap(), stored);
    }

    #[test]
    fn an_object_already_in_the_asked_version_is_returned_unchanged() {
        // Not even read: a field no type knows stays, as the API server stored it.
        let mut stored = stored_addon();
        stored["spec"]["unknown"] = json!(true);
        assert_eq!(convert(stored.clone(), V1ALPHA1).unwrap(), stored);
        let served = json!({"apiVersion": V1BETA1, "kind": "ClusterManagementAddOn", "metadata": {"name": "x"},
                            "spec": {"defaultConfigs": "not even a list"}});
        assert_eq!(convert(served.clone(), V1BETA1).unwrap(), served);
    }

    #[test]
    fn an_unknown_kind_or_version_is_refused_and_the_message_names_it() {
        let deployment_config =
            json!({"apiVersion": V1ALPHA1, "kind": "AddOnDeploymentConfig", "metadata": {"name": "x"}, "spec": {}});
        let error = convert(deployment_config, V1BETA1).unwrap_err();
        assert!(matches!(&error, ConversionError::UnknownKind(kind) if kind == "AddOnDeploymentConfig"), "{error}");
        assert!(error.to_string().contains("\"AddOnDeploymentConfig\""), "{error}");

        let error = convert(stored_addon(), "addon.open-cluster-management.io/v1").unwrap_err();
        assert!(matches!(&error, ConversionError::UnknownVersion(v) if v == "addon.open-cluster-management.io/v1"));
        assert!(error.to_string().contains("v1alpha1") && error.to_string().contains("v1beta1"), "{error}");

        let mut foreign = stored_addon();
        foreign["apiVersion"] = json!("cluster.open-cluster-management.io/v1alpha1");
        assert!(matches!(convert(foreign, V1BETA1), Err(ConversionError::UnknownVersion(_))));

        let mut kindless = stored_addon();
        kindless.as_object_mut().unwrap().remove("kind");
        assert!(matches!(convert(kindless, V1BETA1), Err(ConversionError::Missing("kind"))));
        assert!(matches!(convert(json!([1]), V1BETA1), Err(ConversionError::NotAnObject)));
    }

    #[test]
    fn an_object_that_does_not_read_as_its_version_is_refused() {
        let mut broken = stored_addon();
        broken["spec"]["configs"] = json!("not a list");
        let error = convert(broken, V1BETA1).unwrap_err();
        assert!(matches!(error, ConversionError::Undecodable { .. }), "{error}");
        assert_eq!(error.to_string(), format!("cannot read the ManagedClusterAddOn as {V1ALPHA1}"));
    }
}
