//! One store of Events served under two APIs, as kube-apiserver does: `events.k8s.io/v1`
//! Events are the core/v1 Events stored, with some fields under other names (upstream's
//! conversion in `pkg/apis/events/v1`). So an event a controller records through
//! `events.k8s.io` shows in `kubectl get events` and `kubectl describe`, and the other way
//! round.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::registry::{Registry, ResourceType};

/// The group whose Events are the core ones renamed.
const GROUP: &str = "events.k8s.io";

/// `events.k8s.io/v1` field → core/v1 field; the other fields have one name in both.
const RENAMES: [(&str, &str); 7] = [
    ("regarding", "involvedObject"),
    ("note", "message"),
    ("reportingController", "reportingComponent"),
    ("deprecatedSource", "source"),
    ("deprecatedFirstTimestamp", "firstTimestamp"),
    ("deprecatedLastTimestamp", "lastTimestamp"),
    ("deprecatedCount", "count"),
];

/// Whether requests for `rt` are served from the core Events.
pub fn is_converted(rt: &ResourceType) -> bool {
    rt.group == GROUP && rt.plural == "events"
}

/// The resource served converted from `stored`'s store, if any: `events.k8s.io/v1` Events
/// for the core Events.
pub fn converted_resource(registry: &Registry, stored: &ResourceType) -> Option<Arc<ResourceType>> {
    (stored.group.is_empty() && stored.plural == "events").then(|| registry.get(GROUP, "v1", "events")).flatten()
}

/// An `events.k8s.io/v1` Event as the core/v1 Event that stores it.
pub fn to_core(event: Value) -> Value {
    renamed(event, "v1", Direction::ToCore)
}

/// A stored core/v1 Event as `api_version` (`events.k8s.io/v1`) shows it.
pub fn from_core(event: Value, api_version: &str) -> Value {
    renamed(event, api_version, Direction::FromCore)
}

/// A core `…List` of Events (or a single Event, or a Status) as `api_version` shows it.
pub fn list_from_core(mut list: Value, api_version: &str) -> Value {
    if let Some(items) = list.get_mut("items").and_then(Value::as_array_mut) {
        for item in items {
            *item = from_core(std::mem::take(item), api_version);
        }
        list["apiVersion"] = Value::from(api_version);
        list
    } else if list["kind"] == "Event" {
        from_core(list, api_version)
    } else {
        list
    }
}

/// A field selector's field of an `events.k8s.io/v1` Event (`regarding.name`) as the
/// stored Event names it (`involvedObject.name`).
pub fn core_field(field: &str) -> String {
    let (head, rest) = field.split_once('.').map_or((field, None), |(h, r)| (h, Some(r)));
    let head = RENAMES.iter().find(|(new, _)| *new == head).map_or(head, |(_, old)| old);
    match rest {
        Some(rest) => format!("{head}.{rest}"),
        None => head.to_string(),
    }
}

#[derive(Clone, Copy)]
enum Direction {
    ToCore,
    FromCore,
}

/// `event` with its top-level fields renamed and its apiVersion set.
fn renamed(event: Value, api_version: &str, direction: Direction) -> Value {
    let Value::Object(fields) = event else { return event };
    let mut out = Map::with_capacity(fields.len());
    for (name, value) in fields {
        let to = RENAMES.iter().find_map(|&(new, old)| match direction {
            Direction::ToCore => (new == name).then_some(old),
            Direction::FromCore => (old == name).then_some(new),
        });
        out.insert(to.map_or(name, str::to_string), value);
    }
    out.insert("apiVersion".into(), Value::from(api_version));
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn events_v1() -> Value {
        json!({
            "apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": "e1", "namespace": "ns"},
            "regarding": {"kind": "Pod", "name": "p"}, "note": "pulled", "reason": "Pulled", "type": "Normal",
            "action": "Pull", "reportingController": "kubelet", "reportingInstance": "node-1",
            "eventTime": "2026-12-01T00:00:00.000000Z", "deprecatedCount": 3,
            "deprecatedSource": {"component": "kubelet"},
            "deprecatedFirstTimestamp": "2026-12-01T00:00:00Z", "deprecatedLastTimestamp": "2026-12-01T00:01:00Z",
        })
    }

    #[test]
    fn an_events_v1_event_is_stored_as_the_core_event_upstream_converts_it_to() {
        let core = to_core(events_v1());
        assert_eq!(core["apiVersion"], "v1");
        assert_eq!(core["involvedObject"], json!({"kind": "Pod", "name": "p"}));
        assert_eq!(core["message"], "pulled");
        assert_eq!(core["reportingComponent"], "kubelet");
        assert_eq!(core["source"], json!({"component": "kubelet"}));
        assert_eq!(
            (core["firstTimestamp"].clone(), core["lastTimestamp"].clone(), core["count"].clone()),
            (json!("2026-12-01T00:00:00Z"), json!("2026-12-01T00:01:00Z"), json!(3))
        );
        for kept in ["reason", "type", "action", "reportingInstance", "eventTime", "metadata", "kind"] {
            assert_eq!(core[kept], events_v1()[kept], "{kept}");
        }
        for renamed in ["regarding", "note", "reportingController", "deprecatedCount"] {
            assert!(core.get(renamed).is_none(), "{renamed} is not a core field");
        }
    }

    #[test]
    fn the_conversion_round_trips() {
        assert_eq!(from_core(to_core(events_v1()), "events.k8s.io/v1"), events_v1());
    }

    #[test]
    fn lists_convert_every_item_and_statuses_pass_through() {
        let list = json!({"apiVersion": "v1", "kind": "EventList", "items": [to_core(events_v1())]});
        let shown = list_from_core(list, "events.k8s.io/v1");
        assert_eq!(shown["apiVersion"], "events.k8s.io/v1");
        assert_eq!(shown["items"][0], events_v1());
        let status = json!({"kind": "Status", "apiVersion": "v1", "status": "Success"});
        assert_eq!(list_from_core(status.clone(), "events.k8s.io/v1"), status);
    }

    #[test]
    fn field_selectors_name_the_stored_fields() {
        assert_eq!(core_field("regarding.name"), "involvedObject.name");
        assert_eq!(core_field("reportingController"), "reportingComponent");
        assert_eq!(core_field("reason"), "reason");
        assert_eq!(core_field("metadata.name"), "metadata.name");
    }
}
