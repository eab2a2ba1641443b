//! Builds the field tables: for each message reachable from the served kinds, how each of its
//! protobuf fields maps onto JSON, and how a strategic merge patch treats it. Numbers, wire
//! types, `repeated`, `map` and the Go tags' patch markers come from k8s-pb;
//! the kinds, JSON names and inlined structs from k8s-openapi; whether Go writes a scalar even at
//! its zero value from `zero_values.txt` (neither crate keeps Go's pointer-ness and `omitempty`).

use std::collections::{BTreeMap, BTreeSet};

use super::GenerateError;
use super::openapi::OpenApi;
use super::prost::{Field, MessageName, PatchMarkers, Prost, Scalar, Shape};
use super::zero_values::ZeroValues;

/// The transcoder's value types (`table::Type` in the server).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueType {
    Str,
    Bytes,
    Bool,
    Int,
    Double,
    Time,
    MicroTime,
    Quantity,
    IntOrString,
    RawJson,
    Items,
    SchemaOrArray(MessageName),
    SchemaOrBool(MessageName),
    SchemaOrStringArray(MessageName),
    Message(MessageName),
}

/// The table rules (`table::Rule` in the server, by their constructor names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// `omit`: an `omitempty` value, left out when zero.
    Omit,
    /// `keep`: a pointer, a struct, or a field without `omitempty`.
    Keep,
    List,
    Map,
    /// `merge`: a struct embedded with `json:",inline"`.
    Merge,
}

/// A field's strategic-merge-patch rule from its Go tags (`table::Patch` in the server, by its
/// variant names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchRule {
    /// No `patchStrategy`.
    Plain,
    /// `merge` without a key: a list of scalars merged as a set.
    Merge,
    /// `merge` with `patchMergeKey`: a list of objects merged by that field.
    MergeKey(String),
    /// `merge,retainKeys` with `patchMergeKey`.
    MergeKeyRetainKeys(String),
    /// `retainKeys` on a struct.
    RetainKeys,
    /// `replace`.
    Replace,
}

impl PatchRule {
    /// The rule the markers of `field` state, if they fit its shape.
    fn of(field: &Field) -> Result<Self, String> {
        let PatchMarkers { strategy, merge_key } = &field.markers;
        let list = field.shape == Shape::Repeated;
        let of_objects = matches!(field.value, Scalar::Message(_));
        Ok(match (strategy.as_deref(), merge_key) {
            (None, None) => Self::Plain,
            (Some("merge"), None) if list && !of_objects => Self::Merge,
            (Some("merge"), Some(key)) if list && of_objects => Self::MergeKey(key.clone()),
            (Some("merge,retainKeys"), Some(key)) if list && of_objects => Self::MergeKeyRetainKeys(key.clone()),
            (Some("retainKeys"), None) if !list && of_objects => Self::RetainKeys,
            (Some("replace"), None) => Self::Replace,
            (strategy, key) => {
                return Err(format!(
                    "patchStrategy {strategy:?} with patchMergeKey {key:?} on a {} of {}",
                    if list { "list" } else { "field" },
                    if of_objects { "messages" } else { "scalars" }
                ));
            }
        })
    }

    /// The key its list merges by.
    pub fn merge_key(&self) -> Option<&str> {
        match self {
            Self::MergeKey(key) | Self::MergeKeyRetainKeys(key) => Some(key),
            Self::Plain | Self::Merge | Self::RetainKeys | Self::Replace => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub number: u32,
    pub json: String,
    pub ty: ValueType,
    pub rule: Rule,
    pub patch: PatchRule,
}

/// A kind with a protobuf form: its envelope's apiVersion and kind, and its message.
#[derive(Debug, Clone)]
pub struct Kind {
    pub api_version: String,
    pub kind: String,
    pub message: MessageName,
    /// k8s-openapi's name for it, which the cross-check test pairs with k8s-pb's (none for the
    /// kinds OpenAPI does not describe).
    pub openapi_name: Option<String>,
}

pub struct Tables {
    pub kinds: Vec<Kind>,
    pub messages: BTreeMap<MessageName, Vec<Entry>>,
    /// `ListMeta`, which every `<Kind>List` carries.
    pub list_meta: MessageName,
    /// `ObjectMeta`, every object's metadata (a custom resource's too).
    pub object_meta: MessageName,
    /// The k8s-pb fields left out: newer than k8s-openapi's Kubernetes version.
    pub newer: Vec<String>,
}

const META_V1: &str = "apimachinery::pkg::apis::meta::v1";

fn meta(name: &str) -> MessageName {
    MessageName { module: META_V1.into(), name: name.into() }
}

/// apimachinery's types whose JSON form is not their message form, handled by the transcoder.
fn special(message: &MessageName) -> Option<ValueType> {
    let ty = match (message.module.as_str(), message.name.as_str()) {
        (META_V1, "Time") => ValueType::Time,
        (META_V1, "MicroTime") => ValueType::MicroTime,
        ("apimachinery::pkg::api::resource", "Quantity") => ValueType::Quantity,
        ("apimachinery::pkg::util::intstr", "IntOrString") => ValueType::IntOrString,
        ("apimachinery::pkg::runtime", "RawExtension") | (META_V1, "FieldsV1") => ValueType::RawJson,
        // apiextensions' JSON (k8s-pb spells Go's acronyms as words).
        (module, "Json") if module.starts_with("apiextensions_apiserver::") => ValueType::RawJson,
        // A named `[]string`: the user's extra attributes (a map value), an APIResource's verbs.
        (_, "ExtraValue") | (META_V1, "Verbs") => ValueType::Items,
        (module, "JsonSchemaPropsOrArray") => ValueType::SchemaOrArray(schema(module)),
        (module, "JsonSchemaPropsOrBool") => ValueType::SchemaOrBool(schema(module)),
        (module, "JsonSchemaPropsOrStringArray") => ValueType::SchemaOrStringArray(schema(module)),
        _ => return None,
    };
    Some(ty)
}

fn schema(module: &str) -> MessageName {
    MessageName { module: module.into(), name: "JsonSchemaProps".into() }
}

/// The kinds outside the resources that travel as protobuf: the one option body client-go
/// sends, the error Status, and the metadata-only views.
fn extra_kinds() -> Vec<Kind> {
    let kind = |api_version: &str, kind: &str, in_openapi: bool| Kind {
        api_version: api_version.into(),
        kind: kind.into(),
        message: meta(kind),
        openapi_name: in_openapi.then(|| kind.to_string()),
    };
    vec![
        kind("meta.k8s.io/v1", "DeleteOptions", true),
        // metav1.Status is registered unversioned, as `v1`, in every group (k8s-openapi lists it).
        kind("v1", "Status", true),
        kind("meta.k8s.io/v1", "PartialObjectMetadata", false),
        kind("meta.k8s.io/v1", "PartialObjectMetadataList", false),
    ]
}

/// kube-apiserver serves the GA versions by default: betas introduced since 1.24 are off by
/// default (KEP-3136), and the last older one, flowcontrol v1beta3, was removed in 1.32.
fn served_by_default(api_version: &str) -> bool {
    let version = api_version.rsplit('/').next().unwrap_or_default();
    version.strip_prefix('v').is_some_and(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
}

/// The tables of every GA kind that both crates carry, and of the messages they reach.
pub fn build(prost: &Prost, openapi: &OpenApi, zero_values: &ZeroValues) -> Result<Tables, GenerateError> {
    let mut kinds: Vec<Kind> = openapi
        .kinds
        .iter()
        .filter(|kind| served_by_default(&kind.api_version))
        .filter_map(|kind| {
            Some(Kind {
                api_version: kind.api_version.clone(),
                kind: kind.kind.clone(),
                message: prost.find(&kind.name)?.clone(),
                openapi_name: Some(kind.name.name.clone()),
            })
        })
        .collect();
    kinds.sort_by(|a, b| {
        (group(&a.api_version), &a.api_version, &a.kind).cmp(&(group(&b.api_version), &b.api_version, &b.kind))
    });
    for extra in extra_kinds() {
        if !kinds.iter().any(|kind| kind.api_version == extra.api_version && kind.kind == extra.kind) {
            kinds.push(extra);
        }
    }
    let list_meta = meta("ListMeta");
    let mut builder =
        Builder { prost, openapi, zero_values, messages: BTreeMap::new(), used: BTreeSet::new(), newer: Vec::new() };
    for kind in &kinds {
        builder.message(&kind.message, None)?;
    }
    builder.message(&list_meta, None)?;
    let object_meta = meta("ObjectMeta");
    builder.message(&object_meta, None)?;
    zero_values.check_all_used(&builder.used)?;
    check_merge_keys(&builder.messages)?;
    Ok(Tables { kinds, messages: builder.messages, list_meta, object_meta, newer: builder.newer })
}

/// Every merge key names a JSON field of the list's elements, or the server could not merge by it.
fn check_merge_keys(messages: &BTreeMap<MessageName, Vec<Entry>>) -> Result<(), GenerateError> {
    for (owner, entries) in messages {
        for entry in entries {
            let (Some(key), ValueType::Message(element)) = (entry.patch.merge_key(), &entry.ty) else { continue };
            if !has_json_field(messages, element, key) {
                return Err(GenerateError::Patch(format!(
                    "{owner}.{}: merge key {key} is no field of {element}",
                    entry.json
                )));
            }
        }
    }
    Ok(())
}

/// Whether `message` (or a struct it inlines) has the JSON field `name`.
fn has_json_field(messages: &BTreeMap<MessageName, Vec<Entry>>, message: &MessageName, name: &str) -> bool {
    messages.get(message).into_iter().flatten().any(|field| match (&field.rule, &field.ty) {
        (Rule::Merge, ValueType::Message(inlined)) => has_json_field(messages, inlined, name),
        _ => field.json == name,
    })
}

/// The group of an apiVersion (`""` for core), so that core sorts first.
fn group(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

struct Builder<'a> {
    prost: &'a Prost,
    openapi: &'a OpenApi,
    zero_values: &'a ZeroValues,
    messages: BTreeMap<MessageName, Vec<Entry>>,
    /// The `zero_values.txt` entries consulted, so that stale ones are reported.
    used: BTreeSet<(String, String)>,
    /// The k8s-pb fields that k8s-openapi's Kubernetes version does not have.
    newer: Vec<String>,
}

impl Builder<'_> {
    /// Builds the table of `name` and of every message it reaches. `inlined_into` is the
    /// k8s-openapi struct of the message that inlines this one, whose JSON fields include its own.
    fn message(&mut self, name: &MessageName, inlined_into: Option<&[String]>) -> Result<(), GenerateError> {
        if self.messages.contains_key(name) {
            return Ok(());
        }
        // A placeholder first: recursive messages (JSONSchemaProps) reach themselves.
        self.messages.insert(name.clone(), Vec::new());
        let fields = self.prost.messages.get(name).ok_or_else(|| GenerateError::Missing(name.to_string()))?;
        let json: Vec<String> = match self.openapi.get(name) {
            Some(fields) => fields.clone(),
            None => match inlined_into {
                Some(json) => json.to_vec(),
                None => without_schema(name, fields)?,
            },
        };
        let mut entries = Vec::new();
        for field in fields {
            if let Some(entry) = self.entry(name, field, &json)? {
                entries.push(entry);
            }
        }
        self.messages.insert(name.clone(), entries);
        Ok(())
    }

    fn entry(&mut self, owner: &MessageName, field: &Field, json: &[String]) -> Result<Option<Entry>, GenerateError> {
        let key = normalize(&field.ident);
        let named = json.iter().find(|json| normalize(json) == key);
        let ty = match &field.value {
            Scalar::String => ValueType::Str,
            Scalar::Bytes => ValueType::Bytes,
            Scalar::Bool => ValueType::Bool,
            Scalar::Int => ValueType::Int,
            Scalar::Double => ValueType::Double,
            Scalar::Message(message) => match special(message) {
                Some(ty) => ty,
                None => ValueType::Message(message.clone()),
            },
        };
        let inlined = match (&ty, &field.shape, named) {
            (ValueType::Message(message), Shape::Single, None) => self.inlines(message, json),
            _ => false,
        };
        if named.is_none() && !inlined {
            // A field newer than the Kubernetes version of k8s-openapi: that server drops it too.
            self.newer.push(format!("{owner}.{}", field.ident));
            return Ok(None);
        }
        let patch = PatchRule::of(field).map_err(|e| GenerateError::Patch(format!("{owner}.{}: {e}", field.ident)))?;
        for reached in reached_messages(&ty) {
            // An inlined message has no JSON name of its own: its fields are the owner's.
            self.message(&reached, inlined.then_some(json))?;
        }
        let Some(named) = named else {
            // A struct embedded with `json:",inline"`: a nested message on the wire, its
            // fields flattened into the owner's JSON (and into its k8s-openapi struct).
            return Ok(Some(Entry { number: field.number, json: String::new(), ty, rule: Rule::Merge, patch }));
        };
        let rule = match field.shape {
            Shape::Repeated => Rule::List,
            Shape::Map => Rule::Map,
            // Go writes a struct in JSON whatever its `omitempty` (encoding/json never finds one
            // empty): apimachinery's Time, MicroTime, Quantity, IntOrString and RawExtension are
            // structs too, so a zero one on the wire is written (a zero Time as null).
            Shape::Single
                if matches!(
                    ty,
                    ValueType::Message(_)
                        | ValueType::Time
                        | ValueType::MicroTime
                        | ValueType::Quantity
                        | ValueType::IntOrString
                        | ValueType::RawJson
                ) =>
            {
                Rule::Keep
            }
            Shape::Single => {
                self.used.insert((owner.to_string(), named.clone()));
                if self.zero_values.written_when_zero(owner, named)? { Rule::Keep } else { Rule::Omit }
            }
        };
        Ok(Some(Entry { number: field.number, json: named.clone(), ty, rule, patch }))
    }

    /// Whether `message` is a struct inlined into the owner whose JSON fields are `json`: it has
    /// no JSON name of its own, and its fields (or its own inlined struct's) are the owner's.
    fn inlines(&self, message: &MessageName, json: &[String]) -> bool {
        self.prost.messages.get(message).is_some_and(|fields| {
            fields.iter().any(|field| {
                let key = normalize(&field.ident);
                json.iter().any(|json| normalize(json) == key)
                    || matches!(&field.value, Scalar::Message(inner) if field.shape == Shape::Single && self.inlines(inner, json))
            })
        })
    }
}

/// The messages a value type holds, which need tables of their own.
fn reached_messages(ty: &ValueType) -> Vec<MessageName> {
    match ty {
        ValueType::Message(message)
        | ValueType::SchemaOrArray(message)
        | ValueType::SchemaOrBool(message)
        | ValueType::SchemaOrStringArray(message) => vec![message.clone()],
        _ => Vec::new(),
    }
}

/// The JSON fields of a message k8s-openapi has no type for (apimachinery's
/// PartialObjectMetadata and its list, which OpenAPI does not describe): their names are
/// single lower-case words, the same in protobuf and JSON.
fn without_schema(name: &MessageName, fields: &[Field]) -> Result<Vec<String>, GenerateError> {
    fields
        .iter()
        .map(|field| {
            if field.ident.bytes().all(|b| b.is_ascii_lowercase()) {
                Ok(field.ident.clone())
            } else {
                Err(GenerateError::Unnamed(format!("{name}.{} (k8s-openapi has no type {name})", field.ident)))
            }
        })
        .collect()
}

/// Compares a prost identifier (`external_i_ps`, `ref`) with a JSON name (`externalIPs`,
/// `$ref`): the two case conventions and JSON's punctuation fall away.
fn normalize(name: &str) -> String {
    name.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(shape: Shape, value: Scalar, strategy: Option<&str>, merge_key: Option<&str>) -> Field {
        let markers = PatchMarkers { strategy: strategy.map(str::to_string), merge_key: merge_key.map(str::to_string) };
        Field { ident: "f".into(), number: 1, value, shape, markers }
    }

    fn message() -> Scalar {
        Scalar::Message(MessageName { module: "api::core::v1".into(), name: "Container".into() })
    }

    #[test]
    fn patch_markers_become_the_rule_go_merges_by_and_must_fit_the_field() {
        use Shape::{Repeated, Single};
        let rule = |shape, value, strategy, key| PatchRule::of(&field(shape, value, strategy, key));
        assert_eq!(rule(Repeated, message(), None, None), Ok(PatchRule::Plain));
        assert_eq!(rule(Repeated, Scalar::String, Some("merge"), None), Ok(PatchRule::Merge));
        assert_eq!(rule(Repeated, message(), Some("merge"), Some("name")), Ok(PatchRule::MergeKey("name".into())));
        assert_eq!(
            rule(Repeated, message(), Some("merge,retainKeys"), Some("name")),
            Ok(PatchRule::MergeKeyRetainKeys("name".into()))
        );
        assert_eq!(rule(Single, message(), Some("retainKeys"), None), Ok(PatchRule::RetainKeys));
        assert_eq!(rule(Single, message(), Some("replace"), None), Ok(PatchRule::Replace));
        // A key on scalars, a keyless merge of objects, a key without a strategy: not Go's tags.
        assert!(rule(Repeated, Scalar::String, Some("merge"), Some("name")).is_err());
        assert!(rule(Repeated, message(), Some("merge"), None).is_err());
        assert!(rule(Repeated, message(), None, Some("name")).is_err());
        assert!(rule(Single, message(), Some("merge"), Some("name")).is_err());
    }
}
