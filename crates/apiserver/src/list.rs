//! Lists: selectors, pages and continue tokens, and delete-collection.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::{BufMut, Bytes, BytesMut};
use serde_json::{Value, json};

use super::key::ObjectKey;
use super::options::DeleteOptions;
use super::registry::ResourceType;
use super::request::Query;
use super::selector::{FieldSelector, LabelSelector};
use super::status::ApiError;
use super::storage::Storage;
use super::store::Stored;
use super::{encoding, object};

/// Which objects a list or watch wants.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// `labelSelector`.
    pub labels: LabelSelector,
    /// `fieldSelector`.
    pub fields: FieldSelector,
}

impl Filter {
    /// From the query of a list or watch.
    pub fn from_query(rt: &ResourceType, query: &Query) -> Result<Self, ApiError> {
        let labels = LabelSelector::parse(query.get("labelSelector").unwrap_or(""))
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        let fields = FieldSelector::parse(query.get("fieldSelector").unwrap_or(""), &|f| rt.selectable(f))
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        Ok(Self { labels, fields })
    }

    /// Whether nothing is filtered.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty() && self.fields.is_empty()
    }

    /// Whether the object matches.
    pub fn matches(&self, object: &Value) -> bool {
        (self.labels.is_empty() || self.labels.matches(object::labels(object)))
            && (self.fields.is_empty() || self.fields.matches(object))
    }

    /// Whether the stored object matches, parsing it only when a selector needs to, and
    /// only its metadata when that is all the selectors read: a detach's delete of its
    /// cluster's CSRs by label reads every CSR of the hub, and a watch of the import
    /// secrets by label every secret written.
    pub fn matches_stored(&self, stored: &Stored) -> bool {
        // Without selectors a compressed object is not decompressed to be let through.
        self.is_empty() || self.matches_json(&stored.json())
    }

    /// Whether the object this server serialized matches, parsed as
    /// [`Self::matches_stored`] says.
    pub fn matches_json(&self, json: &[u8]) -> bool {
        if self.is_empty() {
            return true;
        }
        if !self.labels.may_match_json(json) {
            return false;
        }
        if self.fields.reads_only_metadata() {
            return self.matches(&object::metadata_only(json));
        }
        self.matches(&encoding::parse_own(json))
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
struct ContinueToken {
    rv: u64,
    start: String,
}

/// Upstream's answer to a continue token whose snapshot has been compacted away.
const CONTINUE_EXPIRED: &str = "The provided continue parameter is too old to display a consistent list result. \
     You can start a new list without the continue parameter.";

fn decode_continue(token: &str) -> Result<ContinueToken, ApiError> {
    URL_SAFE_NO_PAD.decode(token).ok().and_then(|raw| serde_json::from_slice(&raw).ok()).ok_or_else(|| {
        ApiError::bad_request("invalid continue token: pass back the token of the previous page unchanged")
    })
}

fn encode_continue(rv: u64, start: String) -> String {
    URL_SAFE_NO_PAD.encode(encoding::to_bytes(&ContinueToken { rv, start }))
}

impl Storage<'_> {
    /// Lists objects as a `<Kind>List`, serialized.
    pub fn list(&self, namespace: Option<&str>, query: &Query) -> Result<Bytes, ApiError> {
        let (rt, store) = (self.rt, &self.state.store);
        let filter = Filter::from_query(rt, query)?;
        let limit = usize::try_from(query.number("limit")?.unwrap_or(0)).unwrap_or(usize::MAX);
        let token = query.non_empty("continue").map(decode_continue).transpose()?;
        validate_list_options(query)?;
        if let (Some("Exact"), Some(rv)) = (query.get("resourceVersionMatch"), query.number("resourceVersion")?)
            && rv != store.rv()
        {
            return Err(ApiError::expired(format!(
                "too old resource version: {rv} ({}): this server lists only its latest state",
                store.rv()
            )));
        }
        let gr = rt.group_resource();
        let page = match filter.fields.exact_name() {
            // A name selector is a point lookup, not a scan.
            Some(name) if token.is_none() => {
                let mut page = match namespace {
                    Some(ns) => store.list_one(&gr, &ObjectKey::namespaced(ns, name).stored()),
                    None if !rt.namespaced => store.list_one(&gr, name),
                    None => self.scan(None, None, 0, &filter),
                };
                page.items.retain(|s| filter.matches_stored(s));
                page
            }
            _ => match &token {
                // A later page shows the objects as they were at the first page's resourceVersion.
                Some(token) => store
                    .list_at(&gr, namespace, Some(&token.start), limit, &|s| filter.matches_stored(s), token.rv)
                    .map_err(|_| ApiError::expired(CONTINUE_EXPIRED))?,
                None => self.scan(namespace, None, limit, &filter),
            },
        };
        let rv = token.map_or(page.rv, |t| t.rv);
        // Only an unfiltered list says how much is left, as upstream: counting what a
        // selector matches would cost a scan.
        let remaining = match &page.next {
            Some(last) if filter.is_empty() => Some(store.count_after(&gr, namespace, last)),
            _ => None,
        };
        let continue_token = page.next.map(|start| encode_continue(rv, start));
        self.render_list(&page.items, rv, continue_token.as_deref(), remaining)
    }

    fn scan(&self, namespace: Option<&str>, after: Option<&str>, limit: usize, filter: &Filter) -> super::store::Page {
        self.state.store.list(&self.rt.group_resource(), namespace, after, limit, &|s| filter.matches_stored(s))
    }

    /// Deletes every matching object in a collection; answers the list of what was deleted.
    pub fn delete_collection(
        &self,
        namespace: Option<&str>,
        query: &Query,
        opts: &DeleteOptions,
    ) -> Result<Bytes, ApiError> {
        let filter = Filter::from_query(self.rt, query)?;
        let page = self.scan(namespace, None, 0, &filter);
        let mut deleted = Vec::new();
        for stored in page.items {
            let object = stored.value();
            match self.delete(ObjectKey::of(&object), opts) {
                Ok(_) => deleted.push(stored),
                Err(e) if e.code == 404 => {}
                Err(e) => return Err(e),
            }
        }
        self.render_list(&deleted, self.state.store.rv(), None, None)
    }

    /// Serializes a list by splicing the stored JSON of its items.
    fn render_list(
        &self,
        items: &[Stored],
        rv: u64,
        continue_token: Option<&str>,
        remaining: Option<usize>,
    ) -> Result<Bytes, ApiError> {
        let rt = self.rt;
        let api_version = rt.api_version();
        let mut metadata = json!({"resourceVersion": rv.to_string()});
        if let Some(token) = continue_token {
            metadata["continue"] = json!(token);
        }
        if let Some(remaining) = remaining {
            metadata["remainingItemCount"] = json!(remaining);
        }
        let head = json!({"kind": rt.list_kind(), "apiVersion": api_version, "metadata": metadata}).to_string();
        let size: usize = items.iter().map(|s| s.packed.size() + 1).sum();
        let mut out = BytesMut::with_capacity(head.len() + size + 16);
        out.put_slice(&head.as_bytes()[..head.len() - 1]);
        out.put_slice(b",\"items\":[");
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.put_u8(b',');
            }
            out.put_slice(&self.presented(&item.packed.to_bytes())?);
        }
        out.put_slice(b"]}");
        Ok(out.freeze())
    }
}

/// Checks the list options that only make sense together, with upstream's wording.
fn validate_list_options(query: &Query) -> Result<(), ApiError> {
    let Some(matching) = query.non_empty("resourceVersionMatch") else { return Ok(()) };
    let invalid = |message: String| {
        ApiError::invalid(
            "ListOptions",
            "meta.k8s.io",
            "",
            vec![super::status::Cause::new("FieldValueForbidden", "resourceVersionMatch", message)],
        )
    };
    let rv = query.non_empty("resourceVersion");
    match (matching, rv) {
        (_, None) => {
            Err(invalid("Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided".into()))
        }
        ("Exact", Some("0")) => {
            Err(invalid("Forbidden: resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"".into()))
        }
        ("Exact" | "NotOlderThan", _) => Ok(()),
        (other, _) => {
            Err(invalid(format!("Unsupported value: \"{other}\": supported values: \"Exact\", \"NotOlderThan\"")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(labels: &str, fields: &str) -> Filter {
        Filter {
            labels: LabelSelector::parse(labels).expect("labels"),
            fields: FieldSelector::parse(fields, &|_| true).expect("fields"),
        }
    }

    /// Selectors on labels and `metadata.` fields are answered from the metadata alone;
    /// one on any other field still sees the whole object.
    #[test]
    fn selectors_match_serialized_objects_by_their_metadata_or_whole() {
        let pod = encoding::to_bytes(&json!({
            "metadata": {"name": "web", "namespace": "prod", "labels": {"app": "web"}},
            "spec": {"nodeName": "n1"},
        }));
        assert!(filter("", "").matches_json(&pod));
        assert!(filter("app=web", "metadata.namespace=prod").matches_json(&pod));
        assert!(!filter("app=db", "").matches_json(&pod));
        assert!(!filter("", "metadata.name=db").matches_json(&pod));
        assert!(filter("app=web", "spec.nodeName=n1").matches_json(&pod));
        assert!(!filter("app=web", "spec.nodeName=n2").matches_json(&pod));
        // A required value found elsewhere in the object, or in no string, is read from
        // the labels all the same.
        assert!(!filter("app=prod", "").matches_json(&pod));
        assert!(!filter("app=we", "").matches_json(&pod));
        assert!(filter("app in (db, web)", "").matches_json(&pod));
        assert!(filter("app!=prod,tier notin (web)", "").matches_json(&pod));
    }
}
