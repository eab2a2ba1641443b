//! `zero_values.txt`: for each scalar field of the tables, whether Go writes it to JSON even when
//! it holds its zero value. That is Go's pointer-ness and `omitempty`, which neither input keeps:
//! k8s-pb's proto2 fields are all `optional`, and OpenAPI marks pointers and `omitempty` values
//! alike as optional (and requires some `omitempty` fields that have a `+default`, such as
//! LocalObjectReference's `name`). Go's protobuf encoder writes every value field, zero or not,
//! and a pointer only when set, so a decoder without this fact would either drop an explicit
//! `replicas: 0` or add `uid: ""` to every object.
//!
//! One line per message: `api.apps.v1.DeploymentSpec *replicas minReadySeconds …`, the JSON names
//! of its scalar fields, `*` marking those Go writes when zero (a pointer, or a value without
//! `omitempty`).

use std::collections::{BTreeMap, BTreeSet};

use super::GenerateError;
use super::prost::MessageName;

pub struct ZeroValues {
    /// `module.Message` (with `.` for `::`) → JSON name → written when zero.
    messages: BTreeMap<String, BTreeMap<String, bool>>,
}

impl ZeroValues {
    pub fn parse(text: &str) -> Result<Self, GenerateError> {
        let mut messages = BTreeMap::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut words = line.split_whitespace();
            let Some(message) = words.next() else { continue };
            let fields = words
                .map(|word| match word.strip_prefix('*') {
                    Some(name) => (name.to_string(), true),
                    None => (word.to_string(), false),
                })
                .collect();
            if messages.insert(message.to_string(), fields).is_some() {
                return Err(GenerateError::ZeroValues(format!("line {}: {message} is listed twice", number + 1)));
            }
        }
        Ok(Self { messages })
    }

    /// Whether Go writes `owner`'s scalar `json` field even when it is zero.
    pub fn written_when_zero(&self, owner: &MessageName, json: &str) -> Result<bool, GenerateError> {
        self.messages.get(&key(owner)).and_then(|fields| fields.get(json)).copied().ok_or_else(|| {
            GenerateError::ZeroValues(format!(
                "{} {json} is not classified: read its Go type and add `*{json}` (a pointer, or no omitempty) \
                 or `{json}` (an omitempty value) to its line",
                key(owner)
            ))
        })
    }

    /// Fails on entries no table consulted: a field k8s-pb or k8s-openapi no longer has.
    pub fn check_all_used(&self, used: &BTreeSet<(String, String)>) -> Result<(), GenerateError> {
        let used: BTreeSet<(String, &str)> =
            used.iter().map(|(owner, json)| (owner.replace("::", "."), json.as_str())).collect();
        let stale: Vec<String> = self
            .messages
            .iter()
            .flat_map(|(message, fields)| fields.keys().map(move |json| (message, json)))
            .filter(|(message, json)| !used.contains(&((*message).clone(), json.as_str())))
            .map(|(message, json)| format!("{message} {json}"))
            .collect();
        if stale.is_empty() {
            return Ok(());
        }
        Err(GenerateError::ZeroValues(format!("entries that no table has: {}", stale.join(", "))))
    }
}

fn key(message: &MessageName) -> String {
    format!("{message}").replace("::", ".")
}
