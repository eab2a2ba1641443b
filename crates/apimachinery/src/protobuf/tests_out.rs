//! The encoder and the forms added with it: option bodies in every group version, the special
//! JSON forms of JSONSchemaProps, lists, Status and watch frames, read back with k8s-pb.

use prost::Message as _;
use serde_json::json;

use super::tests::{body_of, double, int, len, message, string};
use super::*;

#[test]
fn delete_options_are_read_in_any_served_group_version_and_in_meta_v1() {
    let raw = [int(1, 30), string(4, "Foreground"), string(5, "All")].concat();
    for api_version in ["v1", "apps/v1", "meta.k8s.io/v1"] {
        let options = decode(&body_of(api_version, "DeleteOptions", &raw)).unwrap();
        assert_eq!(options["gracePeriodSeconds"], 30, "{api_version}");
        assert_eq!(options["propagationPolicy"], "Foreground");
        assert_eq!(options["dryRun"], json!(["All"]));
    }
    assert!(decode(&body_of("example.com/v1", "DeleteOptions", &raw)).is_err(), "no such group version is served");
}

/// A JSONSchemaProps message with the given fields, inside a CRD's spec.versions[0].schema.
fn crd_with_schema(schema: &[Vec<u8>]) -> Value {
    let validation = message(1, schema);
    let version = [string(1, "v1"), int(2, 1), int(3, 1), len(4, &validation)].concat();
    let spec = [string(1, "example.com"), len(7, &version)].concat();
    let raw = [message(1, &[string(1, "gadgets.example.com")]), len(2, &spec)].concat();
    decode(&body_of("apiextensions.k8s.io/v1", "CustomResourceDefinition", &raw)).unwrap()
}

#[test]
fn json_schema_props_read_as_the_json_forms_go_writes() {
    let string_schema = [string(5, "string")].concat();
    let crd = crd_with_schema(&[
        string(5, "object"),
        string(3, "#/definitions/x"),
        // default and example: raw JSON of any type.
        message(8, &[string(1, r#"{"a":[1,2]}"#)]),
        message(36, &[string(1, "\"text\"")]),
        double(9, 10.0),
        double(19, 2.5),
        message(20, &[string(1, "1")]),
        message(20, &[string(1, "\"b\"")]),
        // items: one schema; additionalProperties: false, then additionalItems: a schema.
        message(24, &[len(1, &string_schema)]),
        message(30, &[int(1, 0)]),
        message(33, &[int(1, 1), len(2, &string_schema)]),
        // dependencies: a list of property names.
        message(32, &[string(1, "p"), message(2, &[string(2, "q"), string(2, "r")])]),
        int(38, 1),
        string(42, "map"),
    ]);
    let schema = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    assert_eq!(
        schema,
        &json!({
            "type": "object", "$ref": "#/definitions/x",
            "default": {"a": [1, 2]}, "example": "text",
            "maximum": 10, "multipleOf": 2.5, "enum": [1, "b"],
            "items": {"type": "string"}, "additionalProperties": false,
            "additionalItems": {"type": "string"}, "dependencies": {"p": ["q", "r"]},
            "x-kubernetes-preserve-unknown-fields": true, "x-kubernetes-list-type": "map",
        })
    );
    // An array of schemas for items, and the same JSON back through the encoder.
    let crd = crd_with_schema(&[message(24, &[len(2, &string_schema), len(2, &string_schema)])]);
    assert_eq!(
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["items"],
        json!([{"type": "string"}, {"type": "string"}])
    );
    assert_eq!(decode(&encode(&crd).unwrap()).unwrap(), crd);
}

#[test]
fn lists_encode_as_kind_list_with_list_meta_and_items_without_type_metadata() {
    let list = json!({
        "apiVersion": "v1", "kind": "ConfigMapList", "metadata": {"resourceVersion": "42"},
        "items": [{"metadata": {"name": "a", "creationTimestamp": "2024-01-02T03:04:05Z"}, "data": {"k": "v"}}],
    });
    let body = encode(&list).unwrap();
    let unknown = k8s_pb::apimachinery::pkg::runtime::Unknown::decode(&body[MAGIC.len()..]).unwrap();
    assert_eq!(unknown.type_meta.unwrap().kind.as_deref(), Some("ConfigMapList"));
    let list = k8s_pb::api::core::v1::ConfigMapList::decode(unknown.raw.unwrap().as_slice()).unwrap();
    assert_eq!(list.metadata.unwrap().resource_version.as_deref(), Some("42"));
    let meta = list.items[0].metadata.clone().unwrap();
    assert_eq!(meta.name.as_deref(), Some("a"));
    assert_eq!(meta.creation_timestamp.unwrap().seconds, Some(1_704_164_645));
    assert_eq!(list.items[0].data.get("k").map(String::as_str), Some("v"));
}

#[test]
fn errors_encode_as_a_v1_status() {
    let status = json!({"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure",
                        "reason": "NotFound", "code": 404, "details": {"name": "x", "kind": "configmaps"}});
    let body = encode(&status).unwrap();
    assert_eq!(decode(&body).unwrap(), status);
}

#[test]
fn watch_events_are_length_prefixed_watch_event_messages_around_protobuf_objects() {
    let event =
        json!({"type": "ADDED", "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}});
    let frame = encode_watch_event(&event).unwrap();
    let length = u32::from_be_bytes(frame[..4].try_into().unwrap()) as usize;
    assert_eq!(length, frame.len() - 4);
    let event = k8s_pb::apimachinery::pkg::apis::meta::v1::WatchEvent::decode(&frame[4..]).unwrap();
    assert_eq!(event.r#type.as_deref(), Some("ADDED"));
    let object = decode(&event.object.unwrap().raw.unwrap()).unwrap();
    assert_eq!(object, json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}));
}

#[test]
fn custom_resources_have_no_protobuf_form() {
    assert!(super::message("example.com/v1", "Widget").is_none());
    let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
    assert!(matches!(encode(&widget), Err(EncodeError::NoForm { .. })));
    assert!(super::message("apps/v1", "Deployment").is_some());
    assert!(super::message("apiregistration.k8s.io/v1", "APIService").is_some());
}
