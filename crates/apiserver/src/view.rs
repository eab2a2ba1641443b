//! The alternative forms a client may ask a read for in its `Accept` header: a `meta.k8s.io`
//! Table (`as=Table`, see [`super::table`]) or metadata only (`as=PartialObjectMetadata` and
//! `as=PartialObjectMetadataList`, what metadata-only informers ask for), for every kind.

use serde::Deserialize;
use serde_json::{Value, json};

use super::encoding;
use super::object::MetadataOnly;
use super::registry::ResourceType;
use super::request::Query;
use super::table::{self, Printer};

const META_V1: &str = "meta.k8s.io/v1";

/// How the objects of a read are shown.
#[derive(Debug, Clone)]
pub enum View {
    Table(Printer),
    /// `PartialObjectMetadata(List)`: each object's `metadata` only.
    Metadata,
}

impl View {
    /// The view an Accept header asks for (`None`: the objects themselves). A part that asks for
    /// protobuf is passed over for the JSON parts after it, as client-go lists both.
    pub fn requested(rt: &ResourceType, accept: &str, query: &Query) -> Option<Self> {
        if asks_for_metadata(accept) {
            return Some(Self::Metadata);
        }
        table::requested(accept).and_then(|version| Printer::new(rt, version, query)).map(Self::Table)
    }

    /// A list (`items`, `metadata`) this server serialized, in this view. For metadata only,
    /// only the metadata of each item is parsed: a hub's import secrets or works listed for
    /// their metadata (a metadata informer's list) are several times their JSON's size as
    /// parsed objects.
    pub fn list(&self, list: &[u8], now: jiff::Timestamp) -> Value {
        match self {
            Self::Table(printer) => printer.list(&encoding::parse_own(list), now),
            Self::Metadata => {
                let list: MetadataList = encoding::parse_own(list);
                let items: Vec<Value> = list.items.into_iter().map(|item| partial(item.metadata)).collect();
                json!({"kind": "PartialObjectMetadataList", "apiVersion": META_V1, "metadata": list.metadata, "items": items})
            }
        }
    }

    /// One object this server serialized, in this view (for metadata only, its metadata
    /// alone parsed).
    pub fn object(&self, object: &[u8], now: jiff::Timestamp) -> Value {
        match self {
            Self::Table(printer) => printer.object(&encoding::parse_own(object), now),
            Self::Metadata => partial(encoding::parse_own::<MetadataOnly>(object).metadata),
        }
    }
}

/// A list as metadata only reads it: the other fields of its items are skipped unbuilt.
#[derive(Deserialize)]
struct MetadataList {
    metadata: Value,
    items: Vec<MetadataOnly>,
}

/// An object's metadata as a `PartialObjectMetadata`.
pub fn partial(metadata: Value) -> Value {
    json!({"kind": "PartialObjectMetadata", "apiVersion": META_V1, "metadata": metadata})
}

/// Whether the first JSON part of the header that names a form asks for metadata only.
fn asks_for_metadata(accept: &str) -> bool {
    accept.split(',').any(|part| {
        let mut params = part.split(';').map(str::trim);
        if params.next() != Some("application/json") {
            return false;
        }
        let params: Vec<&str> = params.collect();
        params.contains(&"g=meta.k8s.io")
            && params.contains(&"v=v1")
            && (params.contains(&"as=PartialObjectMetadata") || params.contains(&"as=PartialObjectMetadataList"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_informers_ask_for_partial_object_metadata_in_json_after_protobuf() {
        let client_go = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,\
                         application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
        assert!(asks_for_metadata(client_go));
        assert!(asks_for_metadata("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"));
        assert!(!asks_for_metadata("application/json;as=Table;g=meta.k8s.io;v=v1"));
        assert!(!asks_for_metadata("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta2"));
    }

    #[test]
    fn lists_and_objects_keep_only_metadata() {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "resourceVersion": "5"}, "data": {"k": "v"}});
        let list =
            json!({"kind": "ConfigMapList", "metadata": {"resourceVersion": "7", "continue": "t"}, "items": [cm]});
        let now = jiff::Timestamp::UNIX_EPOCH;
        assert_eq!(
            View::Metadata.list(&encoding::to_bytes(&list), now),
            json!({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
                   "metadata": {"resourceVersion": "7", "continue": "t"},
                   "items": [{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": {"name": "a", "resourceVersion": "5"}}]})
        );
        assert_eq!(View::Metadata.object(&encoding::to_bytes(&cm), now)["metadata"], cm["metadata"]);
    }
}
