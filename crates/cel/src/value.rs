//! JSON objects as CEL values and back.

use std::collections::HashMap;
use std::sync::Arc;

use cel::Value;
use cel::objects::Key;
use serde_json::Value as Json;

/// A JSON value as CEL sees it: integers as `int` (`uint` past `i64`), other numbers as
/// `double`, objects as maps with string keys.
pub fn from_json(json: &Json) -> Value {
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => Value::Int(i),
            (None, Some(u), _) => Value::UInt(u),
            (_, _, Some(f)) => Value::Float(f),
            _ => Value::Null,
        },
        Json::String(s) => Value::String(Arc::new(s.clone())),
        Json::Array(items) => Value::List(Arc::new(items.iter().map(from_json).collect())),
        Json::Object(map) => {
            let entries: HashMap<Key, Value> =
                map.iter().map(|(k, v)| (Key::String(Arc::new(k.clone())), from_json(v))).collect();
            Value::from(entries)
        }
    }
}

/// A CEL value as JSON, for values that have a JSON form; `None` for the others
/// (functions, opaque values, durations, timestamps, bytes).
pub fn to_json(value: &Value) -> Option<Json> {
    Some(match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::from(*i),
        Value::UInt(u) => Json::from(*u),
        Value::Float(f) => serde_json::Number::from_f64(*f).map(Json::Number)?,
        Value::String(s) => Json::String(s.to_string()),
        Value::List(items) => Json::Array(items.iter().map(to_json).collect::<Option<Vec<_>>>()?),
        Value::Map(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map.map.iter() {
                let key = match k {
                    Key::String(s) => s.to_string(),
                    Key::Int(i) => i.to_string(),
                    Key::Uint(u) => u.to_string(),
                    Key::Bool(b) => b.to_string(),
                };
                out.insert(key, to_json(v)?);
            }
            Json::Object(out)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn json_round_trips_through_cel() {
        let doc = json!({"a": [1, 2.5, "x", null, true], "b": {"c": 18446744073709551615u64}});
        assert_eq!(to_json(&from_json(&doc)), Some(doc));
    }
}
