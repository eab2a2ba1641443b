//! Field-level helpers shared by the API types: JSON Schema fragments for the k8s-openapi types
//! that carry no `JsonSchema` impl, serde predicates that mirror Go's `omitempty`, and the
//! `string_enum!` macro for the string enums of the OCM APIs.

use schemars::{Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer};

/// Declares a string enum as OCM writes them: the known values as variants, plus `Other` for a
/// value a newer upstream may send, so that reading an object never fails on it. An empty
/// string (Go's zero value, "not set") reads as the default variant. The schema lists the known
/// values as an `enum` (`closed`) or leaves the string free (`open`) as the upstream CRD does.
macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident ($schema:ident) {
            $( $(#[$vmeta:meta])* $variant:ident = $value:literal, )+
        }
        default = $default:ident;
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this version of fleetctl does not know, kept as it was sent.
            Other(String),
        }

        impl $name {
            /// The value as it is written on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => $value, )+
                    Self::Other(other) => other,
                }
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::$default
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                match value {
                    $( $value => Self::$variant, )+
                    "" => Self::$default,
                    other => Self::Other(other.to_owned()),
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <String as serde::Deserialize>::deserialize(deserializer)?;
                Ok(Self::from(text.as_str()))
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn inline_schema() -> bool {
                true
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                $crate::fields::string_enum!(@schema $schema [$($value),+])
            }
        }
    };
    (@schema closed [$($value:literal),+]) => {
        schemars::json_schema!({"type": "string", "enum": [$($value),+]})
    };
    (@schema open [$($value:literal),+]) => {
        schemars::json_schema!({"type": "string"})
    };
}

pub(crate) use string_enum;

// ---------------------------------------------------------------------------------------------
// serde helpers
// ---------------------------------------------------------------------------------------------

/// `omitempty` for a struct-valued field: skip it when it holds nothing.
pub(crate) fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// `omitempty` for a number.
pub(crate) fn is_zero<T: Default + PartialEq>(value: &T) -> bool {
    is_default(value)
}

/// Reads `null` as the empty value: Go writes a nil slice that has no `omitempty` as `null`.
pub(crate) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

// ---------------------------------------------------------------------------------------------
// Schemas of k8s-openapi types
// ---------------------------------------------------------------------------------------------

/// The schema of one `metav1.Condition`, with the limits the API server applies.
fn condition() -> Schema {
    json_schema!({
        "description": "One aspect of the current state of the object.",
        "type": "object",
        "required": ["lastTransitionTime", "message", "reason", "status", "type"],
        "properties": {
            "lastTransitionTime": {
                "description": "When the status last changed.",
                "type": "string",
                "format": "date-time"
            },
            "message": {
                "description": "Human-readable details of the last transition; may be empty.",
                "type": "string",
                "maxLength": 32768
            },
            "observedGeneration": {
                "description": "The metadata.generation the condition was computed from.",
                "type": "integer",
                "format": "int64",
                "minimum": 0
            },
            "reason": {
                "description": "CamelCase identifier of why the condition last changed.",
                "type": "string",
                "maxLength": 1024,
                "minLength": 1,
                "pattern": "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"
            },
            "status": {
                "description": "True, False or Unknown.",
                "type": "string",
                "enum": ["True", "False", "Unknown"]
            },
            "type": {
                "description": "The condition type, CamelCase or foo.example.com/CamelCase.",
                "type": "string",
                "maxLength": 316,
                "pattern": "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"
            }
        }
    })
}

/// A list of conditions keyed by `type` (`+listType=map`, `+listMapKey=type`).
pub(crate) fn conditions(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "array",
        "items": condition(),
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["type"]
    })
}

/// A plain list of conditions, for the upstream types that declare no list type.
pub(crate) fn condition_list(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "array", "items": condition()})
}

/// An RFC 3339 timestamp (`metav1.Time`).
pub(crate) fn date_time(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "format": "date-time"})
}

/// An RFC 3339 timestamp that Go writes as `null` when unset.
pub(crate) fn nullable_date_time(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "format": "date-time", "nullable": true})
}

/// Base64-encoded bytes (`[]byte`).
pub(crate) fn byte_string(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "format": "byte"})
}

/// A `resource.Quantity`: a number or a string such as `500m` or `4Gi`.
fn quantity() -> Schema {
    json_schema!({
        "x-kubernetes-int-or-string": true,
        "pattern": r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
    })
}

/// A resource name → quantity map (`corev1.ResourceList`).
pub(crate) fn resource_list(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "object", "additionalProperties": quantity()})
}

/// `[]corev1.Toleration`.
pub(crate) fn tolerations(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "array",
        "items": {
            "description": "Lets a pod schedule onto nodes with a matching taint.",
            "type": "object",
            "properties": {
                "effect": {"description": "The taint effect to match; empty matches all.", "type": "string"},
                "key": {"description": "The taint key; empty with Exists matches all.", "type": "string"},
                "operator": {"description": "Exists or Equal (the default).", "type": "string"},
                "tolerationSeconds": {
                    "description": "How long a NoExecute taint is tolerated.",
                    "type": "integer",
                    "format": "int64"
                },
                "value": {"description": "The taint value to match with Equal.", "type": "string"}
            }
        }
    })
}

/// `corev1.ResourceRequirements`.
pub(crate) fn resource_requirements(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "Compute resource requests and limits.",
        "type": "object",
        "properties": {
            "claims": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {
                        "name": {"type": "string"},
                        "request": {"type": "string"}
                    }
                },
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"]
            },
            "limits": {"type": "object", "additionalProperties": quantity()},
            "requests": {"type": "object", "additionalProperties": quantity()}
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    string_enum! {
        /// A test enum.
        enum Colour(closed) {
            /// Red.
            Red = "Red",
            /// Blue.
            Blue = "Blue",
        }
        default = Blue;
    }

    #[test]
    fn string_enums_keep_unknown_values_and_read_empty_as_the_default() {
        let read = |text: &str| serde_json::from_value::<Colour>(serde_json::json!(text)).unwrap();
        assert_eq!(read("Red"), Colour::Red);
        assert_eq!(read(""), Colour::Blue);
        assert_eq!(read("Green"), Colour::Other("Green".into()));
        assert_eq!(serde_json::to_value(Colour::Other("Green".into())).unwrap(), "Green");
        assert_eq!(Colour::Red.to_string(), "Red");
    }

    #[test]
    fn null_reads_as_an_empty_collection() {
        #[derive(Deserialize)]
        struct Holder {
            #[serde(deserialize_with = "null_as_default")]
            items: Vec<String>,
        }
        let holder: Holder = serde_json::from_str(r#"{"items": null}"#).unwrap();
        assert!(holder.items.is_empty());
    }
}
