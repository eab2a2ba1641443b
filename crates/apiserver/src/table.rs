//! Server-side printing, which `kubectl get` asks for with
//! `Accept: application/json;as=Table;v=v1;g=meta.k8s.io, …, application/json`: a custom
//! resource comes back as a `meta.k8s.io` Table whose columns are Name and its CRD's
//! `additionalPrinterColumns` (Age when it declares none), so `kubectl get
//! managedclusters` shows HUB ACCEPTED, JOINED and AVAILABLE as against a real hub.
//! Built-in kinds print upstream's columns ([`super::columns`]); the others Name and Age.
//!
//! Column paths are the JSONPath subset CRDs use: `.field`, `['field']`, `[n]`, `[*]` and
//! `[?(@.path=="value")]` (or `!=`). A path outside it, or one that finds nothing, gives
//! an empty cell, as upstream does for a path that finds nothing.

use serde_json::{Value, json};

use super::registry::{Origin, ResourceType};
use super::request::Query;

/// The Table API versions kubectl accepts, in its order of preference.
const VERSIONS: [&str; 2] = ["v1", "v1beta1"];

/// The Table `apiVersion` an Accept header asks for, if any.
pub fn requested(accept: &str) -> Option<&'static str> {
    accept.split(',').find_map(|part| {
        let mut params = part.split(';').map(str::trim);
        if params.next() != Some("application/json") {
            return None;
        }
        let params: Vec<&str> = params.collect();
        if !params.contains(&"as=Table") || !params.contains(&"g=meta.k8s.io") {
            return None;
        }
        let version = params.iter().find_map(|p| p.strip_prefix("v="))?;
        VERSIONS
            .iter()
            .find(|v| **v == version)
            .map(|v| if *v == "v1" { "meta.k8s.io/v1" } else { "meta.k8s.io/v1beta1" })
    })
}

/// What each row carries besides its cells (`?includeObject=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Include {
    None,
    Metadata,
    Object,
}

/// How a resource type is printed, and in which Table version.
#[derive(Debug, Clone)]
pub struct Printer {
    api_version: &'static str,
    include: Include,
    columns: Vec<Column>,
}

#[derive(Debug, Clone)]
struct Column {
    /// Its `columnDefinitions` entry.
    definition: Value,
    /// `string`, `integer`, `number`, `boolean` or `date`.
    type_: String,
    source: Source,
}

/// Where a column's cells come from.
#[derive(Debug, Clone)]
enum Source {
    /// `metadata.name`.
    Name,
    /// A column path (`None`: outside the subset, so always empty).
    Path(Option<Vec<Step>>),
    /// A built-in kind's computed cell.
    Builtin(super::columns::Cell),
}

impl Printer {
    /// The printer for a Table request of `rt`; `None` for built-in kinds without
    /// columns of their own (plain JSON, from which kubectl prints Name and Age).
    pub fn new(rt: &ResourceType, api_version: &'static str, query: &Query) -> Option<Self> {
        let include = match query.get("includeObject") {
            Some("None") => Include::None,
            Some("Object") => Include::Object,
            _ => Include::Metadata,
        };
        let columns = match &rt.origin {
            Origin::Builtin(kind) if kind.columns.is_empty() => return None,
            Origin::Builtin(kind) => kind.columns,
            Origin::Custom { columns, .. } => return Some(Self::custom(api_version, include, columns)),
        };
        let columns = columns
            .iter()
            .map(|c| Column { definition: c.definition(), type_: c.type_.to_string(), source: Source::Builtin(c.cell) })
            .collect();
        Some(Self { api_version, include, columns })
    }

    /// The printer of a custom resource: Name, then its declared columns (Age if none).
    fn custom(api_version: &'static str, include: Include, columns: &[Value]) -> Self {
        let age = [json!({"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"})];
        let declared = if columns.is_empty() { &age[..] } else { columns };
        let name = Column {
            definition: json!({"name": "Name", "type": "string", "format": "name", "description": "Name of the object.", "priority": 0}),
            type_: "string".into(),
            source: Source::Name,
        };
        let columns = std::iter::once(name)
            .chain(declared.iter().map(|c| Column {
                definition: json!({
                    "name": c["name"], "type": c["type"], "format": c.get("format").cloned().unwrap_or(json!("")),
                    "description": c.get("description").cloned().unwrap_or(json!("")),
                    "priority": c.get("priority").cloned().unwrap_or(json!(0)),
                }),
                type_: c["type"].as_str().unwrap_or("string").to_string(),
                source: Source::Path(parse(c["jsonPath"].as_str().unwrap_or_default())),
            }))
            .collect();
        Self { api_version, include, columns }
    }

    /// A list (`items`, `metadata`) as a Table.
    pub fn list(&self, list: &Value, now: jiff::Timestamp) -> Value {
        let rows = list["items"].as_array().into_iter().flatten().map(|item| self.row(item, now)).collect();
        self.table(list["metadata"].clone(), rows)
    }

    /// One object as a Table of one row.
    pub fn object(&self, object: &Value, now: jiff::Timestamp) -> Value {
        let metadata = json!({"resourceVersion": object["metadata"]["resourceVersion"]});
        self.table(metadata, vec![self.row(object, now)])
    }

    fn table(&self, metadata: Value, rows: Vec<Value>) -> Value {
        let definitions: Vec<&Value> = self.columns.iter().map(|c| &c.definition).collect();
        json!({"kind": "Table", "apiVersion": self.api_version, "metadata": metadata,
               "columnDefinitions": definitions, "rows": rows})
    }

    fn row(&self, object: &Value, now: jiff::Timestamp) -> Value {
        let cells: Vec<Value> = self.columns.iter().map(|c| c.cell(object, now)).collect();
        let mut row = json!({"cells": cells});
        match self.include {
            Include::None => {}
            Include::Object => row["object"] = object.clone(),
            Include::Metadata => {
                row["object"] = json!({"kind": "PartialObjectMetadata", "apiVersion": self.api_version,
                                       "metadata": object["metadata"]});
            }
        }
        row
    }
}

impl Column {
    /// The cell of this column for `object`: the first value its path finds, typed as the
    /// column says (a date as an age), or null.
    fn cell(&self, object: &Value, now: jiff::Timestamp) -> Value {
        let path = match &self.source {
            Source::Name => return object["metadata"]["name"].clone(),
            Source::Builtin(cell) => return cell(object, now),
            Source::Path(None) => return Value::Null,
            Source::Path(Some(path)) => path,
        };
        let Some(value) = evaluate(path, object).into_iter().next() else { return Value::Null };
        match self.type_.as_str() {
            "integer" => value.as_i64().map_or(Value::Null, Value::from),
            "number" => value.as_f64().map_or(Value::Null, Value::from),
            "boolean" => value.as_bool().map_or(Value::Null, Value::from),
            "date" => value
                .as_str()
                .and_then(|t| t.parse::<jiff::Timestamp>().ok())
                .map_or(Value::Null, |t| Value::from(fleetctl_kube::duration::human(now.as_second() - t.as_second()))),
            _ => match value {
                Value::String(s) => Value::from(s.as_str()),
                other => Value::from(other.to_string()),
            },
        }
    }
}

/// One step of a column path.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    /// `.name` or `['name']`.
    Field(String),
    /// `[n]`.
    Index(usize),
    /// `[*]`.
    All,
    /// `[?(@.path == literal)]` (or `!=`).
    Filter { path: Vec<String>, equal: bool, literal: Value },
}

/// Parses a column path (`None` for syntax outside the subset).
fn parse(path: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    let mut rest = path.trim().trim_start_matches('{').trim_end_matches('}');
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            steps.push(Step::Field(after[..end].to_string()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = bracket_end(after)?;
            steps.push(bracket(after[..end].trim())?);
            rest = &after[end + 1..];
        } else {
            return None;
        }
    }
    Some(steps)
}

/// Where the `]` closing a bracket is, skipping quoted text.
fn bracket_end(text: &str) -> Option<usize> {
    let mut quote = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, ']') => return Some(i),
            _ => {}
        }
    }
    None
}

fn bracket(inner: &str) -> Option<Step> {
    if inner == "*" {
        return Some(Step::All);
    }
    if let Ok(index) = inner.parse::<usize>() {
        return Some(Step::Index(index));
    }
    if let Some(name) = quoted(inner) {
        return Some(Step::Field(name));
    }
    let condition = inner.strip_prefix("?(")?.strip_suffix(')')?.trim();
    let (left, right, equal) = match (condition.split_once("=="), condition.split_once("!=")) {
        (Some((l, r)), _) => (l, r, true),
        (None, Some((l, r))) => (l, r, false),
        (None, None) => return None,
    };
    let path = left.trim().strip_prefix("@.")?.split('.').map(str::to_string).collect();
    let right = right.trim();
    let literal = match quoted(right) {
        Some(text) => Value::String(text),
        None => serde_json::from_str(right).ok()?,
    };
    Some(Step::Filter { path, equal, literal })
}

fn quoted(text: &str) -> Option<String> {
    ['"', '\''].iter().find_map(|q| text.strip_prefix(*q)?.strip_suffix(*q).map(str::to_string))
}

/// Every value `steps` reach from `root`, in order.
fn evaluate<'a>(steps: &[Step], root: &'a Value) -> Vec<&'a Value> {
    let mut current = vec![root];
    for step in steps {
        current = current
            .into_iter()
            .flat_map(|value| -> Vec<&'a Value> {
                match step {
                    Step::Field(name) => value.get(name).into_iter().collect(),
                    Step::Index(i) => value.get(*i).into_iter().collect(),
                    Step::All => match value {
                        Value::Array(items) => items.iter().collect(),
                        Value::Object(map) => map.values().collect(),
                        _ => Vec::new(),
                    },
                    Step::Filter { path, equal, literal } => value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|item| {
                            let found = path.iter().try_fold(*item, |v, name| v.get(name));
                            (found == Some(literal)) == *equal
                        })
                        .collect(),
                }
            })
            .collect();
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object() -> Value {
        json!({
            "metadata": {"name": "c1", "resourceVersion": "7", "creationTimestamp": "2026-01-01T00:00:00Z",
                         "labels": {"a": "b"}},
            "spec": {"hubAcceptsClient": true, "urls": [{"url": "https://a"}, {"url": "https://b"}], "n": 3},
            "status": {"conditions": [
                {"type": "Joined", "status": "True"},
                {"type": "Available", "status": "Unknown"},
            ]},
        })
    }

    fn first<'a>(path: &str, value: &'a Value) -> Option<&'a Value> {
        evaluate(&parse(path).unwrap(), value).into_iter().next()
    }

    #[test]
    fn column_paths_find_fields_items_and_filtered_conditions() {
        let o = object();
        assert_eq!(first(".spec.hubAcceptsClient", &o), Some(&json!(true)));
        assert_eq!(first(".spec.urls[*].url", &o), Some(&json!("https://a")));
        assert_eq!(first(".spec.urls[1].url", &o), Some(&json!("https://b")));
        assert_eq!(first(r#".status.conditions[?(@.type=="Available")].status"#, &o), Some(&json!("Unknown")));
        assert_eq!(first(".status.conditions[?(@.type!='Joined')].type", &o), Some(&json!("Available")));
        assert_eq!(first(".metadata.labels['a']", &o), Some(&json!("b")));
        assert_eq!(first("{.spec.n}", &o), Some(&json!(3)));
        assert_eq!(first(r#".status.conditions[?(@.type=="Gone")].status"#, &o), None);
        assert_eq!(first(".spec.missing", &o), None);
        for bad in ["spec", ".spec..x", ".spec[", ".a[?(@.b)]", ".a[?(x==1)]"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn accept_headers_choose_the_table_version() {
        let kubectl = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
        assert_eq!(requested(kubectl), Some("meta.k8s.io/v1"));
        assert_eq!(requested("application/json;as=Table;v=v1beta1;g=meta.k8s.io"), Some("meta.k8s.io/v1beta1"));
        assert_eq!(requested("application/json"), None);
        assert_eq!(requested("application/json;as=Table;v=v2;g=meta.k8s.io"), None);
        assert_eq!(requested("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io"), None);
    }

    fn printer(columns: Value, query: &str) -> Printer {
        let crd = json!({
            "metadata": {"name": "things.example.com"},
            "spec": {"group": "example.com", "scope": "Cluster", "names": {"plural": "things", "kind": "Thing"},
                     "versions": [{"name": "v1", "served": true, "storage": true, "additionalPrinterColumns": columns}]},
        });
        let rt = &super::super::crd::resource_types(&crd)[0];
        Printer::new(rt, "meta.k8s.io/v1", &Query::parse(Some(query))).unwrap()
    }

    #[test]
    fn rows_hold_typed_cells_and_what_includeobject_asks_for() {
        let columns = json!([
            {"name": "Hub Accepted", "type": "boolean", "jsonPath": ".spec.hubAcceptsClient"},
            {"name": "URLs", "type": "string", "jsonPath": ".spec.urls[*].url", "priority": 1},
            {"name": "N", "type": "integer", "jsonPath": ".spec.n"},
            {"name": "Available", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Available\")].status"},
            {"name": "Missing", "type": "string", "jsonPath": ".status.nothing"},
            {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
        ]);
        let now: jiff::Timestamp = "2026-01-03T04:00:00Z".parse().unwrap();
        let table =
            printer(columns.clone(), "").list(&json!({"metadata": {"resourceVersion": "9"}, "items": [object()]}), now);
        assert_eq!((table["kind"].as_str(), table["apiVersion"].as_str()), (Some("Table"), Some("meta.k8s.io/v1")));
        assert_eq!(table["metadata"]["resourceVersion"], "9");
        let names: Vec<&str> =
            table["columnDefinitions"].as_array().unwrap().iter().filter_map(|c| c["name"].as_str()).collect();
        assert_eq!(names, ["Name", "Hub Accepted", "URLs", "N", "Available", "Missing", "Age"]);
        assert_eq!(table["columnDefinitions"][2]["priority"], 1);
        let row = &table["rows"][0];
        assert_eq!(row["cells"], json!(["c1", true, "https://a", 3, "Unknown", null, "2d4h"]));
        assert_eq!(row["object"]["kind"], "PartialObjectMetadata");
        assert_eq!(row["object"]["metadata"]["labels"]["a"], "b");
        assert!(row["object"].get("spec").is_none());

        let whole = printer(columns.clone(), "includeObject=Object").object(&object(), now);
        assert_eq!(whole["rows"][0]["object"], object());
        assert_eq!(whole["metadata"]["resourceVersion"], "7");
        let bare = printer(columns, "includeObject=None").object(&object(), now);
        assert!(bare["rows"][0].get("object").is_none());
    }

    #[test]
    fn a_crd_without_columns_prints_name_and_age() {
        let now: jiff::Timestamp = "2026-01-01T00:05:00Z".parse().unwrap();
        let table = printer(json!([]), "").object(&object(), now);
        let names: Vec<&str> =
            table["columnDefinitions"].as_array().unwrap().iter().filter_map(|c| c["name"].as_str()).collect();
        assert_eq!(names, ["Name", "Age"]);
        assert_eq!(table["rows"][0]["cells"], json!(["c1", "5m"]));
    }
}
