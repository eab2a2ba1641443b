//! Which store serves a request, and how its objects look on the way in and out: the
//! requested resource's own store, or — for `events.k8s.io/v1` Events — the core Events,
//! converted (see `event_versions`).

use std::sync::Arc;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use serde_json::Value;

use super::super::encoding;
use super::super::event_versions;
use super::super::key::ObjectKey;
use super::super::object;
use super::super::options::{Patch, PatchType, WriteOptions, Written};
use super::super::patch_body::{parse_patch, patched, strategies};
use super::super::registry::{Registry, ResourceType};
use super::super::request::Query;
use super::super::state::ApiState;
use super::super::status::ApiError;
use super::super::storage::check_type;

/// The resource a request names and the one whose store serves it.
pub struct Served {
    /// The resource the request names.
    pub requested: Arc<ResourceType>,
    /// The resource whose store (strategy, columns, selectable fields) serves it.
    pub storage: Arc<ResourceType>,
}

impl Served {
    /// How `requested` is served.
    pub fn new(registry: &Registry, requested: Arc<ResourceType>) -> Result<Self, ApiError> {
        let storage = if event_versions::is_converted(&requested) {
            registry.get("", "v1", "events").ok_or_else(|| ApiError::internal("core/v1 events are not registered"))?
        } else {
            requested.clone()
        };
        Ok(Self { requested, storage })
    }

    fn converts(&self) -> bool {
        !Arc::ptr_eq(&self.requested, &self.storage)
    }

    /// The requested resource, when another's store serves it.
    pub fn converted_from(&self) -> Option<Arc<ResourceType>> {
        self.converts().then(|| self.requested.clone())
    }

    /// The query with field selectors naming the stored fields.
    pub fn query(&self, query: &Query) -> Query {
        let mut query = query.clone();
        if self.converts()
            && let Some(selector) = query.get("fieldSelector").map(core_selector)
        {
            query.set("fieldSelector", &selector);
        }
        query
    }

    /// A request body (type-checked as the requested kind) as the store keeps it.
    pub fn body_in(&self, mut body: Value) -> Result<Value, ApiError> {
        if !self.converts() {
            return Ok(body);
        }
        check_type(&self.requested, &mut body)?;
        Ok(event_versions::to_core(body))
    }

    /// A JSON answer (object, list or Status) as the requested version shows it.
    pub fn bytes_out(&self, bytes: Bytes) -> Bytes {
        if !self.converts() {
            return bytes;
        }
        encoding::to_bytes(&self.value_out(encoding::parse_own(&bytes)))
    }

    /// A write's answer as the requested version shows it.
    pub fn written_out(&self, mut written: Written) -> Written {
        if self.converts() {
            written.body = self.value_out(written.body);
        }
        written
    }

    fn value_out(&self, value: Value) -> Value {
        event_versions::list_from_core(value, &self.requested.api_version())
    }

    /// Watch events (lines of JSON) as the requested version shows their objects.
    pub fn watch_out<S>(&self, lines: S) -> impl Stream<Item = S::Item> + use<S>
    where
        S: Stream<Item = Result<Bytes, std::convert::Infallible>>,
    {
        let api_version = self.converts().then(|| self.requested.api_version());
        lines.map(move |line| {
            let Some(api_version) = &api_version else { return line };
            // One write may carry several events, one per line.
            line.map(|bytes| {
                let mut out = Vec::with_capacity(bytes.len() + 64);
                for line in bytes.split(|b| *b == b'\n').filter(|line| !line.is_empty()) {
                    let mut event: Value = encoding::parse_own(line);
                    let object = std::mem::take(&mut event["object"]);
                    event["object"] = event_versions::list_from_core(object, api_version);
                    out.extend_from_slice(&encoding::to_bytes(&event));
                    out.push(b'\n');
                }
                Bytes::from(out)
            })
        })
    }

    /// A PATCH: applied to the object as the requested version shows it.
    pub fn patch(
        &self,
        state: &ApiState,
        key: ObjectKey<'_>,
        subresource: Option<&str>,
        patch: Patch<'_>,
        opts: &WriteOptions,
    ) -> Result<Written, ApiError> {
        let storage = state.resource(&self.storage);
        if !self.converts() {
            return storage.patch(key, subresource, patch, opts);
        }
        let Patch { kind, body } = patch;
        let document = parse_patch(kind, body)?;
        if kind == PatchType::Apply {
            // Applied as the stored kind: ownership is recorded in the stored fields.
            let stored = encoding::to_bytes(&self.body_in(document)?);
            let written = storage.patch(key, subresource, Patch { kind, body: &stored }, opts)?;
            return Ok(self.written_out(written));
        }
        let api_version = self.requested.api_version();
        let strategies = strategies(&self.requested);
        let wanted = object::resource_version(&document).ok().flatten();
        let written = storage.write(key, subresource, opts, wanted, &mut |current| {
            let shown = event_versions::from_core(current.clone(), &api_version);
            Ok(event_versions::to_core(patched(&shown, kind, &document, &strategies)?))
        })?;
        Ok(self.written_out(written))
    }
}

/// A field selector (`regarding.name=p,type!=Normal`) naming the stored fields.
fn core_selector(selector: &str) -> String {
    let term = |term: &str| match term.find(['=', '!']) {
        Some(at) => format!("{}{}", event_versions::core_field(&term[..at]), &term[at..]),
        None => term.to_string(),
    };
    selector.split(',').map(term).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_keep_operators_and_values() {
        assert_eq!(core_selector("regarding.name=p,type!=Normal"), "involvedObject.name=p,type!=Normal");
        assert_eq!(core_selector("reportingController==kubelet"), "reportingComponent==kubelet");
        assert_eq!(core_selector(""), "");
    }
}
