//! A worst-case cost of a CRD rule, estimated before it ever runs, as kube-apiserver
//! estimates one when a CRD is written: apiextensions-apiserver refuses a rule whose estimate,
//! times how many times the rule may run in one object, passes [`RULE_LIMIT`], and a schema
//! whose rules pass [`SCHEMA_LIMIT`] together.
//!
//! Sizes come from the schema — `maxLength`, `maxItems`, `maxProperties` — and where one is
//! absent, from what fits in the largest request kube-apiserver takes (3 MiB). The model is
//! simpler than cel-go's checker but charges the same things: a unit per operation, a tenth
//! of a unit per byte a string function reads, a regular expression by the string's size
//! times the pattern's, a list scan by its length, and a comprehension's body once per element
//! of its range. So a rule over an unbounded list of unbounded strings is refused and the same
//! rule with `maxItems` and `maxLength` set passes, which is the advice upstream's message
//! gives.

use cel::IdedExpr;
use cel::common::ast::{EntryExpr, Expr, LiteralValue};
use serde_json::Value;

/// The largest estimated cost of one rule (apiextensions' `StaticEstimatedCostLimit`).
pub const RULE_LIMIT: u64 = 10_000_000;
/// The largest estimated cost of all the rules of one schema (`StaticEstimatedCRDCostLimit`).
pub const SCHEMA_LIMIT: u64 = 100_000_000;
/// The largest request body kube-apiserver accepts: what bounds a value the schema does not.
const MAX_REQUEST_BYTES: u64 = 3 * 1024 * 1024;

/// The message upstream gives for an estimate over its limit.
pub fn over_budget(what: &str, cost: u64, limit: u64) -> String {
    let factor = cost as f64 / limit as f64;
    let factor = match factor {
        f if f > 100.0 => "more than 100x".to_string(),
        f if f < 1.5 => format!("{f:.6}x"),
        f => format!("{f:.1}x"),
    };
    format!(
        "{what} exceeds budget by factor of {factor} (try simplifying the rule, or adding maxItems, maxProperties, \
         and maxLength where arrays, maps, and strings are declared)"
    )
}

/// The largest size a value of `schema` may have: bytes of a string, elements of a list,
/// entries of a map, fields of an object.
pub fn max_size(schema: &Value) -> u64 {
    let bound = |key: &str| schema.get(key).and_then(Value::as_u64);
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => bound("maxLength").unwrap_or(MAX_REQUEST_BYTES - 2),
        Some("array") => {
            let item = schema.get("items").map_or(1, min_encoded);
            bound("maxItems").unwrap_or((MAX_REQUEST_BYTES - 2) / (item + 1))
        }
        Some("object") => match schema.get("additionalProperties").filter(|v| v.is_object()) {
            // `"":` and a comma around the smallest value.
            Some(values) => bound("maxProperties").unwrap_or((MAX_REQUEST_BYTES - 2) / (min_encoded(values) + 4)),
            None => schema.get("properties").and_then(Value::as_object).map_or(0, |p| p.len() as u64),
        },
        Some(_) => 1,
        // Int-or-string, or kept unknown: anything the request may hold.
        None => MAX_REQUEST_BYTES,
    }
}

/// How many times a rule at a node of `schema` may run in one object: `bounded` when every
/// list and map above it has a maximum (their product), else as many of the node's smallest
/// value as fit in the largest request, as upstream estimates an unbounded cardinality.
pub fn cardinality(schema: &Value, bounded: Option<u64>) -> u64 {
    bounded.unwrap_or_else(|| MAX_REQUEST_BYTES / (min_encoded(schema) + 1))
}

/// Bytes of the smallest JSON value of `schema`: an object holds its required fields.
fn min_encoded(schema: &Value) -> u64 {
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {
            let properties = schema.get("properties");
            let required = schema.get("required").and_then(Value::as_array).into_iter().flatten();
            required.filter_map(Value::as_str).fold(2, |sum, name| {
                let value = properties.and_then(|p| p.get(name)).map_or(1, min_encoded);
                // `"name":value,`
                sum + name.len() as u64 + 4 + value
            })
        }
        Some("string" | "array") => 2,
        Some("boolean") => 4,
        _ => 1,
    }
}

/// What the estimate knows of a value: its schema node, if any, and its largest size.
#[derive(Clone, Copy)]
struct Shape<'s> {
    schema: Option<&'s Value>,
    size: u64,
}

impl<'s> Shape<'s> {
    const SCALAR: Self = Self { schema: None, size: 1 };

    fn of(schema: Option<&'s Value>) -> Self {
        Self { schema, size: schema.map_or(1, max_size) }
    }

    /// The node of field `name` (a property, or a value of a map).
    fn field(self, name: &str) -> Self {
        let schema = self.schema.and_then(|s| {
            s.get("properties")
                .and_then(|p| p.get(name))
                .or_else(|| s.get("additionalProperties").filter(|v| v.is_object()))
        });
        Self::of(schema)
    }

    /// The node of an element (a list's item, or a map's value).
    fn element(self) -> Self {
        let schema = self.schema.and_then(|s| s.get("items").or_else(|| s.get("additionalProperties")));
        Self::of(schema.filter(|v| v.is_object()))
    }

    /// What a comprehension's variable holds: a list's items, or a map's keys.
    fn iterated(self) -> Self {
        match self.schema.and_then(|s| s.get("type")).and_then(Value::as_str) {
            Some("object") => Self { schema: None, size: MAX_REQUEST_BYTES },
            _ => self.element(),
        }
    }
}

/// The names an expression sees, innermost last.
struct Scope<'s> {
    bindings: Vec<(String, Shape<'s>)>,
}

impl<'s> Scope<'s> {
    fn get(&self, name: &str) -> Shape<'s> {
        self.bindings.iter().rev().find(|(n, _)| n == name).map_or(Shape::SCALAR, |(_, shape)| *shape)
    }
}

/// The estimated cost of one run of `expression` with `self` (and `oldSelf`) a value of `schema`.
pub fn estimate(expression: &IdedExpr, schema: &Value) -> u64 {
    let me = Shape::of(Some(schema));
    let mut scope = Scope { bindings: vec![("self".into(), me), ("oldSelf".into(), me)] };
    walk(expression, &mut scope).0
}

/// The cost of `expr` and the shape of its value.
fn walk<'s>(expr: &IdedExpr, scope: &mut Scope<'s>) -> (u64, Shape<'s>) {
    match &expr.expr {
        Expr::Unspecified => (0, Shape::SCALAR),
        Expr::Ident(name) => (1, scope.get(name)),
        Expr::Literal(literal) => {
            let size = match literal {
                LiteralValue::String(s) => s.inner().len() as u64,
                LiteralValue::Bytes(b) => b.inner().len() as u64,
                _ => 1,
            };
            (0, Shape { schema: None, size })
        }
        Expr::Select(select) => {
            let (cost, operand) = walk(&select.operand, scope);
            let shape = if select.test { Shape::SCALAR } else { operand.field(&select.field) };
            (cost.saturating_add(1), shape)
        }
        Expr::List(list) => {
            let cost = list.elements.iter().fold(10u64, |sum, e| sum.saturating_add(walk(e, scope).0));
            (cost, Shape { schema: None, size: list.elements.len() as u64 })
        }
        Expr::Map(map) => entries(map.entries.iter().map(|e| &e.expr), scope, 30),
        Expr::Struct(object) => entries(object.entries.iter().map(|e| &e.expr), scope, 40),
        Expr::Call(call) => {
            let mut cost = 0u64;
            let mut operands = Vec::with_capacity(call.args.len() + 1);
            for operand in call.target.iter().map(|t| t.as_ref()).chain(&call.args) {
                let (c, shape) = walk(operand, scope);
                cost = cost.saturating_add(c);
                operands.push(shape);
            }
            let (own, shape) = call_cost(&call.func_name, &operands);
            (cost.saturating_add(own), shape)
        }
        Expr::Comprehension(c) => {
            let (range_cost, range) = walk(&c.iter_range, scope);
            let (init_cost, init) = walk(&c.accu_init, scope);
            let iterated = range.iterated();
            let pushed = 2 + usize::from(c.iter_var2.is_some());
            scope.bindings.push((c.iter_var.clone(), iterated));
            if let Some(second) = &c.iter_var2 {
                scope.bindings.push((second.clone(), range.element()));
            }
            // A map or filter builds a list as long as its range.
            let accumulated = if init.size == 0 { Shape { schema: None, size: range.size } } else { init };
            scope.bindings.push((c.accu_var.clone(), accumulated));
            let per_element = walk(&c.loop_cond, scope).0.saturating_add(walk(&c.loop_step, scope).0);
            let (result_cost, result) = walk(&c.result, scope);
            scope.bindings.truncate(scope.bindings.len() - pushed);
            let cost = range_cost
                .saturating_add(init_cost)
                .saturating_add(range.size.saturating_mul(per_element))
                .saturating_add(result_cost);
            (cost, result)
        }
    }
}

/// A map or struct literal: `base`, and what its keys and values cost.
fn entries<'e, 's>(entries: impl Iterator<Item = &'e EntryExpr>, scope: &mut Scope<'s>, base: u64) -> (u64, Shape<'s>) {
    let mut cost = base;
    let mut size = 0;
    for entry in entries {
        size += 1;
        let (key, value) = match entry {
            EntryExpr::MapEntry(e) => (Some(&e.key), &e.value),
            EntryExpr::StructField(f) => (None, &f.value),
        };
        for part in key.into_iter().chain([value]) {
            cost = cost.saturating_add(walk(part, scope).0);
        }
    }
    (cost, Shape { schema: None, size })
}

/// The cost of calling `name` on `operands` (the target first), and the shape of its result.
fn call_cost<'s>(name: &str, operands: &[Shape<'s>]) -> (u64, Shape<'s>) {
    let largest = operands.iter().map(|o| o.size).max().unwrap_or(1);
    // A tenth of a unit per byte read, as cel-go charges string traversal.
    let traversal = 1 + largest / 10;
    match name {
        "matches" => {
            let (text, pattern) = match operands {
                [text, pattern, ..] => (text.size, pattern.size),
                [text] => (text.size, 1),
                [] => (1, 1),
            };
            ((1 + text / 10).saturating_mul(1 + pattern / 4), Shape::SCALAR)
        }
        "@in" => (operands.get(1).map_or(1, |list| list.size.max(1)), Shape::SCALAR),
        "_[_]" | "_[?_]" => (1, operands.first().map_or(Shape::SCALAR, |o| o.element())),
        "_+_" => (traversal, Shape { schema: None, size: operands.iter().fold(0u64, |s, o| s.saturating_add(o.size)) }),
        // A comparison stops at the end of the shorter operand.
        "_==_" | "_!=_" | "_<_" | "_<=_" | "_>_" | "_>=_" => {
            let shorter = operands.iter().map(|o| o.size).min().unwrap_or(1);
            (1 + shorter / 10, Shape::SCALAR)
        }
        "contains" | "startsWith" | "endsWith" | "indexOf" | "lastIndexOf" | "lowerAscii" | "upperAscii" | "trim"
        | "replace" | "split" | "substring" | "join" | "string" | "bytes" => {
            (traversal, Shape { schema: None, size: largest })
        }
        _ => (1, Shape::SCALAR),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn cost(rule: &str, schema: &Value) -> u64 {
        let program = crate::Expression::compile(rule).expect("compiles");
        estimate(program.ast(), schema)
    }

    #[test]
    fn a_rule_over_an_unbounded_list_of_unbounded_strings_is_over_budget_and_bounds_bring_it_under() {
        let unbounded = json!({"type": "array", "items": {"type": "string"}});
        let rule = "self.all(x, x.matches('^[a-z]+$'))";
        assert!(cost(rule, &unbounded) > RULE_LIMIT);
        let bounded = json!({"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 64}});
        assert!(cost(rule, &bounded) < 1_000, "{}", cost(rule, &bounded));
    }

    #[test]
    fn nested_comprehensions_multiply_and_field_comparisons_stay_cheap() {
        let list = json!({"type": "array", "maxItems": 1000, "items": {"type": "string", "maxLength": 10}});
        let once = cost("self.exists(x, x == 'a')", &list);
        let twice = cost("self.all(x, self.exists(y, x == y))", &list);
        assert!(twice > once * 500, "{once} then {twice}");
        let object = json!({"type": "object", "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}}});
        assert!(cost("self.min <= self.max", &object) < 10);
    }

    #[test]
    fn the_message_says_by_how_much_as_upstream_does() {
        let message = |cost| over_budget("estimated rule cost", cost, RULE_LIMIT);
        assert!(message(12_000_000).starts_with("estimated rule cost exceeds budget by factor of 1.200000x (try"));
        assert!(message(25_000_000).contains("factor of 2.5x"));
        assert!(message(u64::MAX).contains("factor of more than 100x"));
    }
}
