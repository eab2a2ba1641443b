//! `-l/--selector`: a label selector in kubectl's syntax, checked here before any request,
//! so that a bad one is a usage error (exit 2) naming what is wrong rather than the API
//! server's 400.

use fleetctl_kube::validation;

/// Checks a label selector — terms separated by commas: `key`, `!key`, `key=value`,
/// `key==value`, `key!=value`, `key in (a,b)`, `key notin (a,b)` — and returns it as given.
pub fn parse(text: &str) -> Result<String, String> {
    let bad = |why: String| format!("invalid label selector {text:?}: {why}");
    if text.trim().is_empty() {
        return Err(bad("it is empty: give terms such as env=prod,tier!=edge".into()));
    }
    for term in terms(text) {
        term_ok(term.trim()).map_err(bad)?;
    }
    Ok(text.to_string())
}

/// The terms of a selector: split at commas outside parentheses.
fn terms(text: &str) -> Vec<&str> {
    let mut terms = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                terms.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(&text[start..]);
    terms
}

fn key_ok(key: &str) -> Result<(), String> {
    validation::label_key(key).map_err(|why| format!("key {key:?}: {why}"))
}

fn value_ok(key: &str, value: &str) -> Result<(), String> {
    validation::label_value(value).map_err(|why| format!("value {value:?} of {key}: it {why}"))
}

fn term_ok(term: &str) -> Result<(), String> {
    if term.is_empty() {
        return Err("an empty term (two commas, or one at an end)".into());
    }
    if let Some(key) = term.strip_prefix('!') {
        return key_ok(key.trim());
    }
    for operator in ["==", "!=", "="] {
        if let Some((key, value)) = term.split_once(operator) {
            let (key, value) = (key.trim(), value.trim());
            key_ok(key)?;
            return value_ok(key, value);
        }
    }
    for operator in [" notin ", " in "] {
        if let Some((key, values)) = term.split_once(operator) {
            let key = key.trim();
            key_ok(key)?;
            let values = values
                .trim()
                .strip_prefix('(')
                .and_then(|v| v.strip_suffix(')'))
                .ok_or_else(|| format!("the values of {key}{operator}must be in parentheses: (a,b)"))?;
            return values.split(',').try_for_each(|value| value_ok(key, value.trim()));
        }
    }
    key_ok(term)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubectl_selectors_are_accepted_as_given() {
        for good in
            ["env=prod", "env==prod,tier!=edge", "!canary", "env in (prod, staging),team", "x notin (a)", "env="]
        {
            assert_eq!(parse(good).as_deref(), Ok(good), "{good}");
        }
    }

    #[test]
    fn a_bad_selector_is_refused_here_naming_what_is_wrong() {
        for (bad, why) in [
            ("!!!", "key \"!!\""),
            ("", "empty"),
            ("env=prod,,x", "empty term"),
            ("bad key=x", "key \"bad key\""),
            ("env=two words", "value \"two words\""),
            ("env in prod", "parentheses"),
        ] {
            let error = parse(bad).expect_err(bad);
            assert!(error.starts_with(&format!("invalid label selector {bad:?}")), "{error}");
            assert!(error.contains(why), "{bad}: {error}");
        }
    }
}
