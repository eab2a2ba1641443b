//! Label and field selectors (`?labelSelector=` and `?fieldSelector=`) for list and watch,
//! with the grammar, matching rules and error messages of the Kubernetes API server.

use serde_json::{Map, Value};

/// Why a selector could not be parsed (answered as 400 BadRequest with this message).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    /// One label requirement is malformed or names an invalid key or value.
    #[error("unable to parse requirement: {0}")]
    Requirement(String),
    /// The separators between label requirements are malformed.
    #[error("{0}")]
    Syntax(String),
    /// A field selector term has no `=`, `==` or `!=` operator.
    #[error("invalid selector: '{selector}'; can't understand '{term}'")]
    FieldTerm {
        /// The whole selector as sent.
        selector: String,
        /// The term that has no operator.
        term: String,
    },
    /// A field selector value holds a bad escape or an unescaped `,` or `=`.
    #[error("invalid field selector: {0}")]
    FieldValue(String),
    /// A field selector names a field this resource cannot be selected by.
    #[error("field label not supported: {0}")]
    UnsupportedField(String),
}

// ---------------------------------------------------------------------------------------------
// Label selectors
// ---------------------------------------------------------------------------------------------

/// A parsed label selector: every requirement must hold for an object to match.
#[derive(Debug, Clone, Default)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

#[derive(Debug, Clone)]
struct Requirement {
    key: String,
    operator: Operator,
}

#[derive(Debug, Clone)]
enum Operator {
    /// `=`, `==` and `in`: the label is present with one of these values.
    In(Vec<String>),
    /// `!=` and `notin`: the label is absent or has none of these values.
    NotIn(Vec<String>),
    Exists,
    DoesNotExist,
    /// `>`: the label is present and is an integer greater than this.
    GreaterThan(i64),
    /// `<`: the label is present and is an integer less than this.
    LessThan(i64),
}

impl LabelSelector {
    /// Parses the Kubernetes label selector grammar; an empty string selects everything.
    pub fn parse(s: &str) -> Result<Self, SelectorError> {
        let tokens = lex(s);
        let requirements = Parser { tokens, pos: 0 }.parse()?;
        Ok(Self { requirements })
    }

    /// The selector a `metav1.LabelSelector` (matchLabels and matchExpressions) describes.
    pub fn from_typed(
        selector: &k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector,
    ) -> Result<Self, SelectorError> {
        let mut requirements = Vec::new();
        for (key, value) in selector.match_labels.iter().flatten() {
            requirements.push(Requirement { key: key.clone(), operator: Operator::In(vec![value.clone()]) });
        }
        for expression in selector.match_expressions.iter().flatten() {
            let values = expression.values.clone().unwrap_or_default();
            let operator = match expression.operator.as_str() {
                "In" => Operator::In(values),
                "NotIn" => Operator::NotIn(values),
                "Exists" => Operator::Exists,
                "DoesNotExist" => Operator::DoesNotExist,
                other => {
                    return Err(SelectorError::Requirement(format!(
                        "{other:?} is not a valid label selector operator"
                    )));
                }
            };
            requirements.push(Requirement { key: expression.key.clone(), operator });
        }
        Ok(Self { requirements })
    }

    /// Whether an object with these `metadata.labels` is selected (`None` = no labels).
    pub fn matches(&self, labels: Option<&Map<String, Value>>) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
    }

    /// Whether the selector has no requirements and so selects everything.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether an object serialized as `json` may match, known without parsing it: one
    /// that holds none of a required label's values as a JSON string cannot carry that
    /// label (a selector's values are letters, digits, `-`, `_` and `.`, which JSON never
    /// escapes).
    /// A cluster's CSRs selected by label are found so among every CSR of the hub.
    pub fn may_match_json(&self, json: &[u8]) -> bool {
        self.requirements.iter().all(|r| match &r.operator {
            Operator::In(values) => values.iter().any(|v| holds_string(json, v)),
            _ => true,
        })
    }
}

/// Whether `json` holds the string `value` (between quotes) anywhere.
fn holds_string(json: &[u8], value: &str) -> bool {
    memchr::memmem::find_iter(json, value.as_bytes()).any(|at| {
        let end = at + value.len();
        at > 0 && json[at - 1] == b'"' && json.get(end) == Some(&b'"')
    })
}

impl Requirement {
    fn matches(&self, labels: Option<&Map<String, Value>>) -> bool {
        let present = labels.is_some_and(|l| l.contains_key(&self.key));
        // A label that is not a string cannot equal any selector value; objects with such
        // labels are rejected on write anyway.
        let value = labels.and_then(|l| l.get(&self.key)).and_then(Value::as_str);
        match &self.operator {
            Operator::In(values) => value.is_some_and(|v| values.iter().any(|x| x == v)),
            Operator::NotIn(values) => !value.is_some_and(|v| values.iter().any(|x| x == v)),
            Operator::Exists => present,
            Operator::DoesNotExist => !present,
            Operator::GreaterThan(bound) => as_integer(value).is_some_and(|n| n > *bound),
            Operator::LessThan(bound) => as_integer(value).is_some_and(|n| n < *bound),
        }
    }
}

/// A label value read as an integer for `>`/`<`; values that are not integers never match.
fn as_integer(value: Option<&str>) -> Option<i64> {
    value.and_then(|v| v.parse().ok())
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Identifier(String),
    /// `!` (does not exist)
    Not,
    /// `=`
    Equals,
    /// `==`
    DoubleEquals,
    /// `!=`
    NotEquals,
    /// `>`
    Greater,
    /// `<`
    Less,
    OpenParen,
    CloseParen,
    Comma,
    End,
}

impl Token {
    /// The token as the user wrote it, for error messages.
    fn literal(&self) -> &str {
        match self {
            Token::Identifier(s) => s,
            Token::Not => "!",
            Token::Equals => "=",
            Token::DoubleEquals => "==",
            Token::NotEquals => "!=",
            Token::Greater => ">",
            Token::Less => "<",
            Token::OpenParen => "(",
            Token::CloseParen => ")",
            Token::Comma => ",",
            Token::End => "end of string",
        }
    }
}

fn is_special(c: char) -> bool {
    matches!(c, '!' | '=' | '(' | ')' | ',' | '>' | '<')
}

/// Splits a label selector into tokens; always ends with `Token::End`.
///
/// `in` and `notin` stay identifiers here: they are operators only where an operator is
/// expected, so `in=notin` is a valid requirement as it is upstream.
fn lex(s: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        if is_special(c) {
            chars.next();
            let doubled = chars.peek() == Some(&'=');
            let token = match c {
                '!' if doubled => Token::NotEquals,
                '=' if doubled => Token::DoubleEquals,
                '!' => Token::Not,
                '=' => Token::Equals,
                '(' => Token::OpenParen,
                ')' => Token::CloseParen,
                ',' => Token::Comma,
                '>' => Token::Greater,
                _ => Token::Less,
            };
            if matches!(token, Token::NotEquals | Token::DoubleEquals) {
                chars.next();
            }
            tokens.push(token);
            continue;
        }
        let mut word = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() || is_special(c) {
                break;
            }
            word.push(c);
            chars.next();
        }
        tokens.push(Token::Identifier(word));
    }
    tokens.push(Token::End);
    tokens
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        self.tokens.get(self.pos).unwrap_or(&Token::End)
    }

    fn next(&mut self) -> Token {
        let token = self.peek().clone();
        self.pos += 1;
        token
    }

    fn parse(mut self) -> Result<Vec<Requirement>, SelectorError> {
        let mut requirements = Vec::new();
        loop {
            match self.peek() {
                Token::Identifier(_) | Token::Not => {}
                Token::End if requirements.is_empty() => return Ok(requirements),
                other => {
                    return Err(SelectorError::Syntax(format!(
                        "found '{}', expected: !, identifier, or 'end of string'",
                        other.literal()
                    )));
                }
            }
            requirements.push(self.requirement().map_err(SelectorError::Requirement)?);
            match self.next() {
                Token::End => return Ok(requirements),
                Token::Comma => {
                    let after = self.peek();
                    if !matches!(after, Token::Identifier(_) | Token::Not) {
                        return Err(SelectorError::Syntax(format!(
                            "found '{}', expected: identifier after ','",
                            after.literal()
                        )));
                    }
                }
                other => {
                    return Err(SelectorError::Syntax(format!(
                        "found '{}', expected: ',' or 'end of string'",
                        other.literal()
                    )));
                }
            }
        }
    }

    fn requirement(&mut self) -> Result<Requirement, String> {
        let negated = self.peek() == &Token::Not;
        if negated {
            self.next();
        }
        let key = match self.next() {
            Token::Identifier(key) => key,
            other => return Err(expected(&other, "identifier")),
        };
        validate_key(&key)?;
        // A key alone is a unary requirement; `!key` is always one, so anything after it
        // is reported by the caller as a misplaced token.
        if negated || matches!(self.peek(), Token::End | Token::Comma) {
            let operator = if negated { Operator::DoesNotExist } else { Operator::Exists };
            return Ok(Requirement { key, operator });
        }
        let operator = self.binary_operator(&key)?;
        Ok(Requirement { key, operator })
    }

    fn binary_operator(&mut self, key: &str) -> Result<Operator, String> {
        let token = self.next();
        match &token {
            Token::Identifier(word) if word == "in" => Ok(Operator::In(self.value_list(key)?)),
            Token::Identifier(word) if word == "notin" => Ok(Operator::NotIn(self.value_list(key)?)),
            Token::Equals | Token::DoubleEquals => Ok(Operator::In(vec![self.exact_value(key)?])),
            Token::NotEquals => Ok(Operator::NotIn(vec![self.exact_value(key)?])),
            Token::Greater => Ok(Operator::GreaterThan(self.integer_value()?)),
            Token::Less => Ok(Operator::LessThan(self.integer_value()?)),
            other => Err(expected(other, "in, notin, =, ==, !=, >, <")),
        }
    }

    /// The value after `=`, `==` or `!=`; nothing before `,` or the end is the empty value.
    fn raw_value(&mut self) -> Result<String, String> {
        if matches!(self.peek(), Token::End | Token::Comma) {
            return Ok(String::new());
        }
        match self.next() {
            Token::Identifier(value) => Ok(value),
            other => Err(expected(&other, "identifier")),
        }
    }

    fn exact_value(&mut self, key: &str) -> Result<String, String> {
        let value = self.raw_value()?;
        validate_value(key, &value)?;
        Ok(value)
    }

    fn integer_value(&mut self) -> Result<i64, String> {
        let value = self.raw_value()?;
        value.parse().map_err(|_| format!("for '>' and '<' operators, the value must be an integer: \"{value}\""))
    }

    /// `(a, b, c)`; an empty entry (as in `()` or `(a,)`) is the empty value, as upstream.
    fn value_list(&mut self, key: &str) -> Result<Vec<String>, String> {
        let open = self.next();
        if open != Token::OpenParen {
            return Err(expected(&open, "'('"));
        }
        let mut values = Vec::new();
        loop {
            let value = match self.peek() {
                Token::Identifier(value) => {
                    let value = value.clone();
                    self.next();
                    value
                }
                Token::Comma | Token::CloseParen => String::new(),
                other => return Err(expected(other, "',', ')' or identifier")),
            };
            validate_value(key, &value)?;
            values.push(value);
            match self.next() {
                Token::Comma => {}
                Token::CloseParen => return Ok(values),
                other => return Err(expected(&other, "',' or ')'")),
            }
        }
    }
}

fn expected(found: &Token, what: &str) -> String {
    format!("found '{}', expected: {what}", found.literal())
}

const NAME_RULE: &str = "consist of alphanumeric characters, '-', '_' or '.', \
                         and must start and end with an alphanumeric character";

/// Checks a label key: an optional DNS subdomain prefix and `/`, then a name of at most
/// 63 characters.
fn validate_key(key: &str) -> Result<(), String> {
    let problem = match key.split_once('/') {
        Some((prefix, name)) => prefix_problem(prefix).or_else(|| name_problem(name)),
        None => name_problem(key),
    };
    match problem {
        Some(problem) => Err(format!("invalid label key \"{key}\": {problem}")),
        None => Ok(()),
    }
}

fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        Some("name part must be non-empty".to_owned())
    } else if name.len() > 63 {
        Some("name part must be no more than 63 characters".to_owned())
    } else if !is_label_word(name) {
        Some(format!("name part must {NAME_RULE}"))
    } else {
        None
    }
}

fn prefix_problem(prefix: &str) -> Option<String> {
    if prefix.is_empty() {
        Some("prefix part must be non-empty".to_owned())
    } else if prefix.len() > 253 {
        Some("prefix part must be no more than 253 characters".to_owned())
    } else if !prefix.split('.').all(is_dns_label) {
        Some(
            "prefix part must be a lowercase RFC 1123 subdomain: lower case alphanumeric \
             characters, '-' or '.', starting and ending with an alphanumeric character"
                .to_owned(),
        )
    } else {
        None
    }
}

fn validate_value(key: &str, value: &str) -> Result<(), String> {
    let problem = if value.len() > 63 {
        "must be no more than 63 characters".to_owned()
    } else if !value.is_empty() && !is_label_word(value) {
        format!("a valid label must be an empty string or {NAME_RULE}")
    } else {
        return Ok(());
    };
    Err(format!("invalid label value: \"{value}\": at key: \"{key}\": {problem}"))
}

/// `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`
fn is_label_word(s: &str) -> bool {
    let inner_ok = s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    inner_ok && starts_and_ends_alphanumeric(s)
}

/// One dot-separated part of an RFC 1123 subdomain: `[a-z0-9]([-a-z0-9]*[a-z0-9])?`.
fn is_dns_label(s: &str) -> bool {
    let inner_ok = s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    inner_ok && starts_and_ends_alphanumeric(s)
}

fn starts_and_ends_alphanumeric(s: &str) -> bool {
    let first = s.chars().next();
    let last = s.chars().next_back();
    first.is_some_and(|c| c.is_ascii_alphanumeric()) && last.is_some_and(|c| c.is_ascii_alphanumeric())
}

// ---------------------------------------------------------------------------------------------
// Field selectors
// ---------------------------------------------------------------------------------------------

/// A parsed field selector: every term must hold for an object to match.
#[derive(Debug, Clone, Default)]
pub struct FieldSelector {
    terms: Vec<FieldTerm>,
}

#[derive(Debug, Clone)]
struct FieldTerm {
    field: String,
    equal: bool,
    value: String,
}

impl FieldSelector {
    /// Parses `field=value,field!=value,...`; `supported` says whether a field name is
    /// selectable for this resource.
    pub fn parse(s: &str, supported: &dyn Fn(&str) -> bool) -> Result<Self, SelectorError> {
        let mut terms = Vec::new();
        for raw in split_unescaped_commas(s) {
            if raw.trim().is_empty() {
                continue;
            }
            let Some((field, equal, value)) = split_term(raw) else {
                return Err(SelectorError::FieldTerm { selector: s.to_owned(), term: raw.to_owned() });
            };
            if !supported(field) {
                return Err(SelectorError::UnsupportedField(field.to_owned()));
            }
            terms.push(FieldTerm { field: field.to_owned(), equal, value: unescape(value)? });
        }
        Ok(Self { terms })
    }

    /// Whether the object is selected; a missing field reads as the empty string.
    pub fn matches(&self, object: &Value) -> bool {
        self.terms.iter().all(|t| (field_text(object, &t.field) == t.value) == t.equal)
    }

    /// Whether the selector has no terms and so selects everything.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Whether every term is on a `metadata.` field.
    pub fn reads_only_metadata(&self) -> bool {
        self.terms.iter().all(|t| t.field.starts_with("metadata."))
    }

    /// The value required for `metadata.name` by an `=`/`==` term, if any (lets the store do
    /// a point lookup).
    pub fn exact_name(&self) -> Option<&str> {
        self.terms.iter().find(|t| t.equal && t.field == "metadata.name").map(|t| t.value.as_str())
    }
}

/// Splits on commas that are not escaped with a backslash, leaving escapes in place.
fn split_unescaped_commas(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            ',' => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// Splits a term at its first operator into (field, is-equality, raw value), trimmed.
fn split_term(term: &str) -> Option<(&str, bool, &str)> {
    // The first operator wins, and at one position `!=`/`==` win over `=`, so
    // `a==b` is `a` `==` `b` and never `a` `=` `=b`.
    for (i, _) in term.char_indices() {
        let rest = &term[i..];
        let found = if rest.starts_with("!=") {
            Some((false, 2))
        } else if rest.starts_with("==") {
            Some((true, 2))
        } else if rest.starts_with('=') {
            Some((true, 1))
        } else {
            None
        };
        if let Some((equal, width)) = found {
            return Some((term[..i].trim(), equal, term[i + width..].trim()));
        }
    }
    None
}

/// Resolves `\\`, `\,` and `\=`; any other escape, or a bare `,` or `=`, is an error so
/// that ambiguous selectors are refused rather than guessed at.
fn unescape(raw: &str) -> Result<String, SelectorError> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('\\' | ',' | '=')) => out.push(e),
                Some(e) => {
                    return Err(SelectorError::FieldValue(format!("invalid escape sequence: \\{e}")));
                }
                None => {
                    return Err(SelectorError::FieldValue("invalid escape sequence: \\".to_owned()));
                }
            },
            ',' | '=' => {
                return Err(SelectorError::FieldValue(format!("unescaped character in value: {c}")));
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

/// The text of a dotted field: strings as they are, numbers and booleans in JSON form,
/// anything else (missing, null, objects, arrays) as the empty string.
fn field_text(object: &Value, path: &str) -> String {
    let found = path.split('.').try_fold(object, |node, part| node.as_object()?.get(part));
    match found {
        Some(Value::String(s)) => s.clone(),
        Some(v @ (Value::Number(_) | Value::Bool(_))) => v.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => panic!("labels must be an object"),
        }
    }

    fn parsed(selector: &str) -> LabelSelector {
        match LabelSelector::parse(selector) {
            Ok(s) => s,
            Err(e) => panic!("{selector:?} should parse: {e}"),
        }
    }

    /// Whether `selector` selects an object with these labels.
    fn sel(selector: &str, l: Value) -> bool {
        parsed(selector).matches(Some(&labels(l)))
    }

    fn label_err(selector: &str) -> String {
        match LabelSelector::parse(selector) {
            Ok(s) => panic!("{selector:?} should fail, got {s:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn empty_selector_matches_everything() {
        let s = parsed("");
        assert!(s.is_empty());
        assert!(s.matches(None));
        assert!(s.matches(Some(&labels(json!({"a": "b"})))));
        assert!(parsed("   ").is_empty());
        assert!(LabelSelector::default().matches(None));
    }

    #[test]
    fn equality_operators() {
        for op in ["=", "=="] {
            let s = format!("app{op}web");
            assert!(sel(&s, json!({"app": "web"})));
            assert!(!sel(&s, json!({"app": "db"})));
            assert!(!sel(&s, json!({})));
        }
        assert!(!parsed("app=web").is_empty());
        assert!(!parsed("app=web").matches(None));
    }

    #[test]
    fn not_equals_matches_missing_key() {
        assert!(!sel("app!=web", json!({"app": "web"})));
        assert!(sel("app!=web", json!({"app": "db"})));
        assert!(sel("app!=web", json!({})));
        assert!(parsed("app!=web").matches(None));
    }

    #[test]
    fn set_operators() {
        let s = "env in (prod, staging)";
        assert!(sel(s, json!({"env": "prod"})));
        assert!(sel(s, json!({"env": "staging"})));
        assert!(!sel(s, json!({"env": "dev"})));
        assert!(!sel(s, json!({})));
        let s = "env notin (prod,staging)";
        assert!(!sel(s, json!({"env": "prod"})));
        assert!(sel(s, json!({"env": "dev"})));
        assert!(sel(s, json!({})));
    }

    #[test]
    fn existence_operators() {
        assert!(sel("app", json!({"app": ""})));
        assert!(!sel("app", json!({"other": "x"})));
        assert!(sel("!app", json!({"other": "x"})));
        assert!(!sel("!app", json!({"app": "x"})));
        assert!(parsed("!app").matches(None));
        assert!(!parsed("app").matches(None));
    }

    #[test]
    fn numeric_comparisons() {
        assert!(sel("tier>2", json!({"tier": "3"})));
        assert!(!sel("tier>2", json!({"tier": "2"})));
        assert!(!sel("tier>2", json!({"tier": "x"})));
        assert!(!sel("tier>2", json!({})));
        assert!(sel("tier < -1", json!({"tier": "-5"})));
        assert_eq!(
            label_err("tier>x"),
            "unable to parse requirement: for '>' and '<' operators, the value must be an \
             integer: \"x\""
        );
    }

    #[test]
    fn several_requirements_all_must_hold() {
        let s = "app=web,env in (prod),!legacy,tier";
        assert!(sel(s, json!({"app": "web", "env": "prod", "tier": "1"})));
        assert!(!sel(s, json!({"app": "web", "env": "prod"})));
        assert!(!sel(s, json!({"app": "web", "env": "prod", "tier": "1", "legacy": "y"})));
    }

    #[test]
    fn whitespace_around_tokens() {
        let s = "  app  ==  web ,  env   notin   (  a  ,  b  ) , ! old ,new  ";
        assert!(sel(s, json!({"app": "web", "env": "c", "new": ""})));
        assert!(!sel(s, json!({"app": "web", "env": "a", "new": ""})));
        assert!(sel("env in(a,b)", json!({"env": "b"})));
    }

    #[test]
    fn prefixed_keys() {
        let s = "app.kubernetes.io/name=web,example.com/x-y_z.1";
        assert!(sel(s, json!({"app.kubernetes.io/name": "web", "example.com/x-y_z.1": "v"})));
        assert!(!sel(s, json!({"name": "web", "example.com/x-y_z.1": "v"})));
    }

    #[test]
    fn empty_values() {
        assert!(sel("a=", json!({"a": ""})));
        assert!(!sel("a=", json!({"a": "x"})));
        assert!(!sel("a=", json!({})));
        assert!(sel("a==,b", json!({"a": "", "b": "1"})));
        assert!(sel("a!=", json!({"a": "x"})));
        assert!(!sel("a!=", json!({"a": ""})));
        assert!(sel("a in ()", json!({"a": ""})));
        assert!(sel("a in (x,)", json!({"a": ""})));
        assert!(sel("a in (,x)", json!({"a": "x"})));
        assert!(!sel("a notin (x,)", json!({"a": ""})));
    }

    #[test]
    fn keywords_are_plain_words_outside_operator_position() {
        assert!(sel("in=notin", json!({"in": "notin"})));
        assert!(sel("notin in (in)", json!({"notin": "in"})));
    }

    #[test]
    fn non_string_label_values_never_equal() {
        assert!(!sel("a=1", json!({"a": 1})));
        assert!(sel("a", json!({"a": 1})));
    }

    #[test]
    fn syntax_errors_name_the_token() {
        assert_eq!(label_err("a=b c"), "found 'c', expected: ',' or 'end of string'");
        assert_eq!(label_err("a=b,"), "found 'end of string', expected: identifier after ','");
        assert_eq!(label_err("a,,b"), "found ',', expected: identifier after ','");
        assert_eq!(label_err("=a"), "found '=', expected: !, identifier, or 'end of string'");
        assert_eq!(label_err(",a"), "found ',', expected: !, identifier, or 'end of string'");
        assert_eq!(label_err("a b"), "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, >, <");
        assert_eq!(label_err("a=(b)"), "unable to parse requirement: found '(', expected: identifier");
        assert_eq!(label_err("a in b"), "unable to parse requirement: found 'b', expected: '('");
        assert_eq!(label_err("a in (b c)"), "unable to parse requirement: found 'c', expected: ',' or ')'");
        assert_eq!(label_err("a in (b"), "unable to parse requirement: found 'end of string', expected: ',' or ')'");
        assert_eq!(label_err("a in (=)"), "unable to parse requirement: found '=', expected: ',', ')' or identifier");
        assert_eq!(label_err("!=a"), "found '!=', expected: !, identifier, or 'end of string'");
        assert_eq!(label_err("! =a"), "unable to parse requirement: found '=', expected: identifier");
        assert_eq!(label_err("!a=b"), "found '=', expected: ',' or 'end of string'");
        assert_eq!(label_err("!"), "unable to parse requirement: found 'end of string', expected: identifier");
    }

    #[test]
    fn invalid_keys_are_named() {
        assert_eq!(
            label_err("-a=b"),
            "unable to parse requirement: invalid label key \"-a\": name part must consist \
             of alphanumeric characters, '-', '_' or '.', and must start and end with an \
             alphanumeric character"
        );
        let long = "k".repeat(64);
        assert_eq!(
            label_err(&long),
            format!(
                "unable to parse requirement: invalid label key \"{long}\": name part must \
                 be no more than 63 characters"
            )
        );
        assert!(LabelSelector::parse(&"k".repeat(63)).is_ok());
        assert_eq!(
            label_err("Example.com/a"),
            "unable to parse requirement: invalid label key \"Example.com/a\": prefix part \
             must be a lowercase RFC 1123 subdomain: lower case alphanumeric characters, \
             '-' or '.', starting and ending with an alphanumeric character"
        );
        assert_eq!(
            label_err("/a"),
            "unable to parse requirement: invalid label key \"/a\": prefix part must be \
             non-empty"
        );
        assert_eq!(
            label_err("example.com/"),
            "unable to parse requirement: invalid label key \"example.com/\": name part \
             must be non-empty"
        );
        assert_eq!(
            label_err("a/b/c"),
            "unable to parse requirement: invalid label key \"a/b/c\": name part must \
             consist of alphanumeric characters, '-', '_' or '.', and must start and end \
             with an alphanumeric character"
        );
        let prefix = format!("{}.com", "a".repeat(250));
        assert_eq!(
            label_err(&format!("{prefix}/a")),
            format!(
                "unable to parse requirement: invalid label key \"{prefix}/a\": prefix part \
                 must be no more than 253 characters"
            )
        );
    }

    #[test]
    fn invalid_values_are_named() {
        assert_eq!(
            label_err("a=b_"),
            "unable to parse requirement: invalid label value: \"b_\": at key: \"a\": a \
             valid label must be an empty string or consist of alphanumeric \
             characters, '-', '_' or '.', and must start and end with an alphanumeric \
             character"
        );
        let long = "v".repeat(64);
        assert_eq!(
            label_err(&format!("a in (x, {long})")),
            format!(
                "unable to parse requirement: invalid label value: \"{long}\": at key: \
                 \"a\": must be no more than 63 characters"
            )
        );
        assert!(LabelSelector::parse(&format!("a={}", "v".repeat(63))).is_ok());
        assert!(LabelSelector::parse("a=A.b-c_9").is_ok());
    }

    fn any_field(_: &str) -> bool {
        true
    }

    fn field(selector: &str) -> FieldSelector {
        match FieldSelector::parse(selector, &any_field) {
            Ok(s) => s,
            Err(e) => panic!("{selector:?} should parse: {e}"),
        }
    }

    fn field_err(selector: &str) -> String {
        match FieldSelector::parse(selector, &any_field) {
            Ok(s) => panic!("{selector:?} should fail, got {s:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn field_operators() {
        let pod = json!({"metadata": {"name": "web", "namespace": "prod"},
                         "spec": {"nodeName": "n1", "replicas": 3, "paused": false}});
        assert!(field("metadata.name=web").matches(&pod));
        assert!(field("metadata.name==web").matches(&pod));
        assert!(!field("metadata.name=db").matches(&pod));
        assert!(field("metadata.name!=db").matches(&pod));
        assert!(!field("metadata.name!=web").matches(&pod));
        assert!(field("metadata.name=web,metadata.namespace=prod").matches(&pod));
        assert!(!field("metadata.name=web,metadata.namespace!=prod").matches(&pod));
        assert!(field("spec.replicas=3,spec.paused=false").matches(&pod));
        assert!(field(" spec.nodeName = n1 ").matches(&pod));
    }

    #[test]
    fn missing_field_reads_as_empty() {
        let obj = json!({"metadata": {"name": "a"}, "spec": {"list": [1]}});
        assert!(field("spec.nodeName=").matches(&obj));
        assert!(field("spec.nodeName!=n1").matches(&obj));
        assert!(!field("spec.nodeName=n1").matches(&obj));
        assert!(field("spec.list=").matches(&obj));
        assert!(field("metadata.name.deeper=").matches(&obj));
    }

    #[test]
    fn empty_field_selector() {
        let s = field("");
        assert!(s.is_empty());
        assert!(s.matches(&json!({})));
        assert_eq!(s.exact_name(), None);
        assert!(FieldSelector::default().is_empty());
        assert!(!field("a=b").is_empty());
    }

    #[test]
    fn field_escapes() {
        let s = field(r"metadata.name=a\,b\=c\\d,spec.x=y");
        assert_eq!(s.exact_name(), Some(r"a,b=c\d"));
        assert!(s.matches(&json!({"metadata": {"name": r"a,b=c\d"}, "spec": {"x": "y"}})));
        assert_eq!(field_err(r"a=b\x"), r"invalid field selector: invalid escape sequence: \x");
        assert_eq!(field_err(r"a=b\"), r"invalid field selector: invalid escape sequence: \");
        assert_eq!(field_err("a=b=c"), "invalid field selector: unescaped character in value: =");
    }

    #[test]
    fn field_term_without_operator() {
        assert_eq!(
            field_err("a=b,metadata.name"),
            "invalid selector: 'a=b,metadata.name'; can't understand 'metadata.name'"
        );
    }

    #[test]
    fn unsupported_field() {
        let supported = |f: &str| f == "metadata.name";
        let result = FieldSelector::parse("metadata.name=a,spec.foo=b", &supported);
        let Err(err) = result else {
            panic!("spec.foo is not selectable");
        };
        assert_eq!(err.to_string(), "field label not supported: spec.foo");
        assert_eq!(err, SelectorError::UnsupportedField("spec.foo".to_owned()));
        assert!(FieldSelector::parse("metadata.name=a", &supported).is_ok());
    }

    #[test]
    fn exact_name_only_for_equality() {
        assert_eq!(field("metadata.name=web").exact_name(), Some("web"));
        assert_eq!(field("metadata.namespace=x,metadata.name==web").exact_name(), Some("web"));
        assert_eq!(field("metadata.name!=web").exact_name(), None);
        assert_eq!(field("metadata.namespace=web").exact_name(), None);
        assert_eq!(field("metadata.name=").exact_name(), Some(""));
    }
}
