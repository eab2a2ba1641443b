//! Events the built-in controllers record about the objects they act on, as client-go's
//! event recorder writes them (core/v1 Events named `<object>.<nanoseconds in hex>`, in
//! the object's namespace); like the recorder's, a failure to record is only logged.

use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};

use super::super::options::WriteOptions;
use super::super::registry::GroupResource;
use super::super::state::Shared;
use super::resource_type;

/// `Normal` or `Warning`.
#[derive(Debug, Clone, Copy)]
pub(super) enum Kind {
    Normal,
    Warning,
}

/// Records an Event about `regarding` from `component`.
pub(super) fn record(
    state: &Shared,
    component: &str,
    regarding: &ObjectReference,
    kind: Kind,
    reason: &str,
    message: String,
) {
    let Some(rt) = resource_type(state, &GroupResource::new("", "events")) else { return };
    let now = jiff::Timestamp::now();
    let name = format!("{}.{:x}", regarding.name.as_deref().unwrap_or_default(), now.as_nanosecond());
    let event = Event {
        metadata: ObjectMeta { name: Some(name), namespace: regarding.namespace.clone(), ..ObjectMeta::default() },
        involved_object: regarding.clone(),
        reason: Some(reason.to_string()),
        message: Some(message),
        type_: Some(format!("{kind:?}")),
        source: Some(EventSource { component: Some(component.to_string()), host: None }),
        reporting_component: Some(component.to_string()),
        reporting_instance: Some(String::new()),
        first_timestamp: Some(Time(now)),
        last_timestamp: Some(Time(now)),
        count: Some(1),
        ..Event::default()
    };
    let recorded = serde_json::to_value(&event).map_err(|e| e.to_string()).and_then(|body| {
        state
            .resource(&rt)
            .create(regarding.namespace.as_deref(), body, &WriteOptions::default())
            .map_err(|e| e.message)
    });
    if let Err(why) = recorded {
        tracing::debug!(reason, error = %why, "an event could not be recorded");
    }
}
