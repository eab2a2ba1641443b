//! Turning a request path and query into what it asks for.

use std::collections::HashMap;

use super::status::ApiError;

/// What a resource path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourcePath {
    /// API group, `""` for core.
    pub group: String,
    /// API version.
    pub version: String,
    /// Namespace from the path, if any.
    pub namespace: Option<String>,
    /// Plural resource name.
    pub resource: String,
    /// Object name, if the path names one.
    pub name: Option<String>,
    /// Subresource (`status`, `approval`, `token`, `scale`, `finalize`).
    pub subresource: Option<String>,
}

impl ResourcePath {
    /// Parses `/api/v1/...` or `/apis/<g>/<v>/...`; `None` when it is not a resource path.
    pub fn parse(path: &str) -> Option<Self> {
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        let (group, version, rest) = match parts.as_slice() {
            ["api", version, rest @ ..] => ("", *version, rest),
            ["apis", group, version, rest @ ..] => (*group, *version, rest),
            _ => return None,
        };
        let (namespace, rest) = match rest {
            // `namespaces/<ns>/<resource>...` addresses namespaced content; `namespaces/<ns>`
            // and `namespaces/<ns>/{status,finalize}` address the Namespace itself.
            ["namespaces", ns, resource, tail @ ..]
                if !(group.is_empty() && tail.is_empty() && matches!(*resource, "status" | "finalize")) =>
            {
                (Some(ns.to_string()), [&[*resource][..], tail].concat())
            }
            _ => (None, rest.to_vec()),
        };
        let mut segments = rest.into_iter();
        let resource = segments.next().filter(|s| !s.is_empty())?.to_string();
        let name = segments.next().map(str::to_string);
        let subresource = segments.next().map(str::to_string);
        if segments.next().is_some() || [&namespace, &name, &subresource].iter().any(|s| s.as_deref() == Some("")) {
            return None;
        }
        Some(Self { group: group.to_string(), version: version.to_string(), namespace, resource, name, subresource })
    }
}

/// Decoded query parameters.
#[derive(Debug, Clone, Default)]
pub struct Query(HashMap<String, String>);

impl Query {
    /// Parses a raw query string (`a=1&b=2`), percent-decoding names and values.
    pub fn parse(raw: Option<&str>) -> Self {
        let mut map = HashMap::new();
        for pair in raw.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            map.insert(decode(k), decode(v));
        }
        Self(map)
    }

    /// A parameter's value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// Sets a parameter.
    pub fn set(&mut self, key: &str, value: &str) {
        self.0.insert(key.to_string(), value.to_string());
    }

    /// A boolean parameter (`true`/`1`).
    pub fn flag(&self, key: &str) -> bool {
        matches!(self.get(key), Some("true" | "1"))
    }

    /// A non-empty parameter.
    pub fn non_empty(&self, key: &str) -> Option<&str> {
        self.get(key).filter(|v| !v.is_empty())
    }

    /// A numeric parameter; a malformed one is a 400.
    pub fn number(&self, key: &str) -> Result<Option<u64>, ApiError> {
        match self.non_empty(key) {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| {
                ApiError::bad_request(format!(
                    "invalid value {v:?} for query parameter {key}: expected a non-negative integer"
                ))
            }),
        }
    }

    /// `dryRun=All`.
    pub fn dry_run(&self) -> Result<bool, ApiError> {
        match self.get("dryRun") {
            None | Some("") => Ok(false),
            Some("All") => Ok(true),
            Some(other) => {
                Err(ApiError::bad_request(format!("unsupported dry run option {other:?}: only \"All\" is supported")))
            }
        }
    }
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(hi), Some(lo)) => {
                // Both digits are below 16, so the byte fits.
                out.push(u8::try_from(hi * 16 + lo).unwrap_or(b'?'));
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(path: &str) -> ResourcePath {
        ResourcePath::parse(path).expect(path)
    }

    #[test]
    fn paths_name_group_namespace_resource_and_subresource() {
        let r = p("/apis/apps/v1/namespaces/ns/deployments/web/status");
        assert_eq!(
            (r.group.as_str(), r.namespace.as_deref(), r.resource.as_str()),
            ("apps", Some("ns"), "deployments")
        );
        assert_eq!((r.name.as_deref(), r.subresource.as_deref()), (Some("web"), Some("status")));
        let ns = p("/api/v1/namespaces/x");
        assert_eq!((ns.resource.as_str(), ns.name.as_deref(), ns.namespace), ("namespaces", Some("x"), None));
        let fin = p("/api/v1/namespaces/x/finalize");
        assert_eq!((fin.name.as_deref(), fin.subresource.as_deref()), (Some("x"), Some("finalize")));
        let list = p("/api/v1/namespaces/x/configmaps");
        assert_eq!((list.namespace.as_deref(), list.name), (Some("x"), None));
        assert_eq!(p("/api/v1/configmaps").namespace, None);
        assert!(ResourcePath::parse("/api/v1").is_none());
        assert!(ResourcePath::parse("/apis/g/v/a/b/c/d").is_none());
    }

    #[test]
    fn query_values_are_decoded() {
        let q = Query::parse(Some("&labelSelector=app%3Dweb%2Ctier+in+(a)&watch=1&limit=5"));
        assert_eq!(q.get("labelSelector"), Some("app=web,tier in (a)"));
        assert!(q.flag("watch"));
        assert_eq!(q.number("limit").expect("limit"), Some(5));
        assert!(Query::parse(Some("limit=x")).number("limit").is_err());
    }
}
