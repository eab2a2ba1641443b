//! `-o jsonpath=TEMPLATE` and `-o custom-columns=SPEC`, as kubectl reads them: a template is
//! text with `{…}` expressions — a JSONPath relative to the document (`{.items[*].metadata.name}`),
//! a quoted string (`{"\n"}`), or `{range PATH}…{end}` over each result — and a column is
//! `HEADER:PATH`. The paths are RFC 9535 JSONPath (what kubectl's paths are written in, with
//! the leading `$` left out), evaluated by `jsonpath-rust`.

use jsonpath_rust::JsonPath;
use serde_json::Value;

/// A parsed `jsonpath=` template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    segments: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// Text printed as it is.
    Text(String),
    /// A path whose results are printed, separated by spaces.
    Path(String),
    /// The segments printed once for each result of the path, with that result as `@`.
    Range(String, Vec<Segment>),
}

/// The `{…}` pieces of a template: text and expressions, in order.
fn pieces(template: &str) -> Result<Vec<(bool, String)>, String> {
    let mut pieces = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            pieces.push((false, rest[..open].to_string()));
        }
        let after = &rest[open + 1..];
        let close = closing(after).ok_or_else(|| format!("unclosed '{{' in template {template:?}"))?;
        pieces.push((true, after[..close].trim().to_string()));
        rest = &after[close + 1..];
    }
    if !rest.is_empty() {
        pieces.push((false, rest.to_string()));
    }
    Ok(pieces)
}

/// Where the expression that starts `text` ends: the first `}` outside a quoted string.
fn closing(text: &str) -> Option<usize> {
    let mut quote = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(_), '\\') if !escaped => escaped = true,
            (Some(q), c) if c == q && !escaped => quote = None,
            (Some(_), _) => escaped = false,
            (None, '"' | '\'') => quote = Some(c),
            (None, '}') => return Some(i),
            (None, _) => {}
        }
    }
    None
}

/// A kubectl path as RFC 9535 JSONPath: `.a.b` and `[0]` are relative to the document (`$`),
/// a path given with `$` or `@` keeps it.
fn absolute(path: &str) -> String {
    match path.chars().next() {
        Some('$' | '@') => format!("${}", &path[1..]),
        _ => format!("${path}"),
    }
}

/// Checks a path by running it on nothing (a syntax error is found either way).
fn check_path(path: &str) -> Result<String, String> {
    let absolute = absolute(path);
    Value::Null.query(&absolute).map_err(|e| format!("invalid JSONPath {path:?}: {e}"))?;
    Ok(absolute)
}

/// A quoted string of a template (`"\n"`), unquoted.
fn literal(expression: &str) -> Option<String> {
    let inner = expression.strip_prefix('"').and_then(|e| e.strip_suffix('"'))?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    Some(out)
}

impl Template {
    /// Parses a template; an unclosed brace, a `range` without its `end` or a bad path is an
    /// error naming it.
    pub fn parse(template: &str) -> Result<Self, String> {
        let pieces = pieces(template)?;
        let mut stack: Vec<(String, Vec<Segment>)> = Vec::new();
        let mut top = Vec::new();
        for (expression, text) in pieces {
            let current = match stack.last_mut() {
                Some((_, segments)) => segments,
                None => &mut top,
            };
            if !expression {
                current.push(Segment::Text(text));
            } else if let Some(path) = text.strip_prefix("range ") {
                stack.push((check_path(path.trim())?, Vec::new()));
            } else if text == "end" {
                let (path, segments) =
                    stack.pop().ok_or_else(|| format!("{{end}} without a {{range}} in template {template:?}"))?;
                let parent = match stack.last_mut() {
                    Some((_, segments)) => segments,
                    None => &mut top,
                };
                parent.push(Segment::Range(path, segments));
            } else if let Some(text) = literal(&text) {
                current.push(Segment::Text(text));
            } else {
                current.push(Segment::Path(check_path(&text)?));
            }
        }
        if !stack.is_empty() {
            return Err(format!("{{range}} without its {{end}} in template {template:?}"));
        }
        Ok(Self { segments: top })
    }

    /// The template filled from `document`.
    pub fn render(&self, document: &Value) -> String {
        let mut out = String::new();
        render(&self.segments, document, &mut out);
        out
    }
}

fn render(segments: &[Segment], at: &Value, out: &mut String) {
    for segment in segments {
        match segment {
            Segment::Text(text) => out.push_str(text),
            Segment::Path(path) => {
                let values: Vec<String> = results(at, path).into_iter().map(text).collect();
                out.push_str(&values.join(" "));
            }
            Segment::Range(path, inner) => {
                for value in results(at, path) {
                    render(inner, value, out);
                }
            }
        }
    }
}

/// The results of a path checked when the template was parsed (a query fails only on a path
/// it cannot parse), none when it matches nothing.
fn results<'a>(at: &'a Value, path: &str) -> Vec<&'a Value> {
    match at.query(path) {
        Ok(found) => found,
        Err(error) => {
            tracing::debug!(%error, "JSONPath {path}: no results");
            Vec::new()
        }
    }
}

/// A value as a template prints it: a string as it is, anything else as JSON.
fn text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// A parsed `custom-columns=` specification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomColumns {
    columns: Vec<(String, String)>,
}

impl CustomColumns {
    /// Parses `HEADER:PATH,HEADER:PATH` (a path with or without its braces).
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut columns = Vec::new();
        for column in split_columns(spec) {
            let (header, path) =
                column.split_once(':').filter(|(header, path)| !header.is_empty() && !path.is_empty()).ok_or_else(
                    || format!("invalid custom column {column:?}: write it as HEADER:PATH, e.g. NAME:.metadata.name"),
                )?;
            let path = path.trim().trim_start_matches('{').trim_end_matches('}');
            columns.push((header.to_string(), check_path(path)?));
        }
        if columns.is_empty() {
            return Err("custom-columns needs at least one HEADER:PATH".into());
        }
        Ok(Self { columns })
    }

    /// The headers, in order.
    pub fn headers(&self) -> Vec<&str> {
        self.columns.iter().map(|(header, _)| header.as_str()).collect()
    }

    /// One row of cells for `object`: each column's results joined by commas, `<none>` when
    /// there is none (as kubectl).
    pub fn row(&self, object: &Value) -> Vec<String> {
        self.columns
            .iter()
            .map(|(_, path)| {
                let values: Vec<String> = results(object, path).into_iter().map(text).collect();
                if values.is_empty() { "<none>".to_string() } else { values.join(",") }
            })
            .collect()
    }
}

/// The columns of a specification: split at commas outside brackets and quotes (a filter
/// may hold one).
fn split_columns(spec: &str) -> Vec<&str> {
    let mut columns = Vec::new();
    let (mut depth, mut quote, mut start) = (0usize, None, 0);
    for (i, c) in spec.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '(' | '{') => depth += 1,
            (None, ']' | ')' | '}') => depth = depth.saturating_sub(1),
            (None, ',') if depth == 0 => {
                columns.push(&spec[start..i]);
                start = i + 1;
            }
            (None, _) => {}
        }
    }
    columns.push(&spec[start..]);
    columns.into_iter().filter(|c| !c.is_empty()).collect()
}

/// The objects a document's rows are: a list's `items`, a report's `clusters`, a plan's
/// `changes`, else the document itself.
pub fn rows_of(document: &Value) -> Vec<&Value> {
    for key in ["items", "clusters", "changes"] {
        if let Some(Value::Array(items)) = document.get(key) {
            return items.iter().collect();
        }
    }
    vec![document]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn list() -> Value {
        json!({"kind": "List", "items": [
            {"metadata": {"name": "c1", "labels": {"env": "prod"}},
             "status": {"conditions": [{"type": "Joined", "status": "True"}, {"type": "Available", "status": "False"}]}},
            {"metadata": {"name": "c2"}, "status": {"conditions": []}}
        ]})
    }

    #[test]
    fn a_template_prints_paths_text_and_ranges_as_kubectl() {
        let names = Template::parse("{.items[*].metadata.name}").unwrap();
        assert_eq!(names.render(&list()), "c1 c2");
        let lines =
            Template::parse(r#"{range .items[*]}{.metadata.name}{"\t"}{.metadata.labels.env}{"\n"}{end}"#).unwrap();
        assert_eq!(lines.render(&list()), "c1\tprod\nc2\t\n");
        let filter = Template::parse(r#"{.items[0].status.conditions[?(@.type=="Available")].status}"#).unwrap();
        assert_eq!(filter.render(&list()), "False");
        assert_eq!(Template::parse("kind: {.kind}").unwrap().render(&list()), "kind: List");
    }

    #[test]
    fn a_bad_template_is_refused_naming_what_is_wrong() {
        assert!(Template::parse("{.items").unwrap_err().contains("unclosed"));
        assert!(Template::parse("{range .items[*]}{.x}").unwrap_err().contains("without its {end}"));
        assert!(Template::parse("{end}").unwrap_err().contains("without a {range}"));
        assert!(Template::parse("{.items[}").unwrap_err().contains("invalid JSONPath"));
    }

    #[test]
    fn custom_columns_make_a_row_per_object_with_none_for_what_is_missing() {
        let spec = r#"NAME:.metadata.name,ENV:{.metadata.labels.env},AVAILABLE:.status.conditions[?(@.type=="Available")].status"#;
        let columns = CustomColumns::parse(spec).unwrap();
        assert_eq!(columns.headers(), ["NAME", "ENV", "AVAILABLE"]);
        let rows: Vec<Vec<String>> = rows_of(&list()).into_iter().map(|o| columns.row(o)).collect();
        assert_eq!(rows, [["c1", "prod", "False"], ["c2", "<none>", "<none>"]]);
        assert!(CustomColumns::parse("NAME").unwrap_err().contains("HEADER:PATH"));
        assert!(CustomColumns::parse("").unwrap_err().contains("at least one"));
    }
}
