//! A container's environment as kubelet makes it (`makeEnvironmentVariables`): `envFrom`
//! first (ConfigMaps and Secrets, each key under the source's prefix), then `env` in order,
//! each literal value with `$(VAR)` references to what is defined so far expanded, and each
//! `valueFrom` read from a Secret, a ConfigMap, the Pod's fields or the container's
//! resources. A missing Secret or ConfigMap (or key) that is not `optional` fails the
//! whole environment: the container is not started (`CreateContainerConfigError`).

use k8s_openapi::api::core::v1::{Container, EnvVar};

use super::downward::{self, FieldError, PodFields};
use super::sources::{Kind, SourceError, Sources};

/// Why a container's environment cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvError {
    /// A Secret or ConfigMap (or one of its keys) is missing.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// A downward API reference cannot be read.
    #[error("variable {name}")]
    Field {
        /// The variable.
        name: String,
        /// The cause.
        #[source]
        source: FieldError,
    },
}

/// What a container's environment is made from.
pub struct EnvContext<'a> {
    /// The Pod's fields.
    pub pod: &'a PodFields,
    /// The Pod's containers (a `resourceFieldRef` may name another one).
    pub containers: &'a [Container],
    /// The Secrets and ConfigMaps the Pod reads.
    pub sources: &'a Sources,
}

/// A key of a Secret or ConfigMap, or `None` when it may be missing (`optional`) and is.
fn key_of(
    sources: &Sources,
    namespace: &str,
    kind: Kind,
    name: &str,
    key: &str,
    optional: bool,
) -> Result<Option<String>, SourceError> {
    let Some(data) = sources.get(kind, name) else {
        return if optional { Ok(None) } else { Err(SourceError::NotFound { kind, name: name.to_string() }) };
    };
    match data.get(key) {
        Some(value) => Ok(Some(String::from_utf8_lossy(value).into_owned())),
        None if optional => Ok(None),
        None => Err(SourceError::NoKey {
            kind,
            namespace: namespace.to_string(),
            name: name.to_string(),
            key: key.to_string(),
        }),
    }
}

/// The environment of `container`, in the order kubelet passes it (a later definition of
/// a name replaces an earlier one in place of the earlier).
pub fn container_env(container: &Container, context: &EnvContext<'_>) -> Result<Vec<(String, String)>, EnvError> {
    let mut env: Vec<(String, String)> = Vec::new();
    let set = |env: &mut Vec<(String, String)>, name: String, value: String| {
        env.retain(|(n, _)| *n != name);
        env.push((name, value));
    };
    for from in container.env_from.iter().flatten() {
        let prefix = from.prefix.as_deref().unwrap_or_default();
        let (kind, name, optional) = match (&from.config_map_ref, &from.secret_ref) {
            (Some(c), _) => (Kind::ConfigMap, c.name.as_str(), c.optional == Some(true)),
            (None, Some(s)) => (Kind::Secret, s.name.as_str(), s.optional == Some(true)),
            (None, None) => continue,
        };
        let data = match context.sources.require(kind, name) {
            Ok(data) => data,
            Err(_) if optional => continue,
            Err(e) => return Err(e.into()),
        };
        // A key that cannot be a variable name is left out, as kubelet does.
        for (key, value) in data.iter().filter(|(key, _)| !key.is_empty() && !key.contains('=')) {
            set(&mut env, format!("{prefix}{key}"), String::from_utf8_lossy(value).into_owned());
        }
    }
    for var in container.env.iter().flatten() {
        if let Some(value) = value_of(var, container, context, &env)? {
            set(&mut env, var.name.clone(), value);
        }
    }
    Ok(env)
}

/// One `env` entry's value; `None` for an optional source that is missing.
fn value_of(
    var: &EnvVar,
    container: &Container,
    context: &EnvContext<'_>,
    defined: &[(String, String)],
) -> Result<Option<String>, EnvError> {
    let namespace = context.pod.namespace.as_str();
    let field_error = |source| EnvError::Field { name: var.name.clone(), source };
    match (&var.value, &var.value_from) {
        (Some(value), _) if !value.is_empty() => Ok(Some(expand(value, defined))),
        (_, Some(from)) => {
            if let Some(s) = &from.secret_key_ref {
                Ok(key_of(context.sources, namespace, Kind::Secret, &s.name, &s.key, s.optional == Some(true))?)
            } else if let Some(c) = &from.config_map_key_ref {
                Ok(key_of(context.sources, namespace, Kind::ConfigMap, &c.name, &c.key, c.optional == Some(true))?)
            } else if let Some(f) = &from.field_ref {
                context.pod.field(&f.field_path).map(Some).map_err(field_error)
            } else if let Some(r) = &from.resource_field_ref {
                downward::resource(r, container, context.containers).map(Some).map_err(field_error)
            } else {
                Ok(Some(String::new()))
            }
        }
        _ => Ok(Some(String::new())),
    }
}

/// Expands `$(NAME)` with the given variables as kubelet does (`third_party/forked/golang/
/// expansion`): `$$` is a literal `$`, a reference to an unknown variable stays as written,
/// and any other `$` is itself.
pub fn expand(text: &str, vars: &[(String, String)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(escaped) = after.strip_prefix('$') {
            out.push('$');
            rest = escaped;
        } else if let Some(reference) = after.strip_prefix('(')
            && let Some(end) = reference.find(')')
        {
            let name = &reference[..end];
            match vars.iter().rev().find(|(n, _)| n == name) {
                Some((_, value)) => out.push_str(value),
                None => {
                    out.push_str("$(");
                    out.push_str(name);
                    out.push(')');
                }
            }
            rest = &reference[end + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn expansion_replaces_known_references_keeps_unknown_ones_and_unescapes_double_dollars() {
        let defined = vars(&[("A", "a"), ("B", "b")]);
        let cases = [
            ("$(A)-$(B)", "a-b"),
            ("$(NOPE)", "$(NOPE)"),
            ("$$(A)", "$(A)"),
            ("$$", "$"),
            ("$$$(A)", "$a"),
            ("cost: $5", "cost: $5"),
            ("$(A", "$(A"),
            ("tail$", "tail$"),
            ("$()", "$()"),
        ];
        for (text, expanded) in cases {
            assert_eq!(expand(text, &defined), expanded, "{text}");
        }
    }

    fn container(value: serde_json::Value) -> Container {
        serde_json::from_value(value).unwrap()
    }

    fn data(pairs: &[(&str, &str)]) -> Option<crate::sources::Data> {
        Some(pairs.iter().map(|(k, v)| (k.to_string(), v.as_bytes().to_vec())).collect())
    }

    #[test]
    fn env_from_comes_first_then_env_with_secrets_config_maps_fields_and_references() {
        let sources = Sources::of([
            ((Kind::Secret, "creds".to_string()), data(&[("user", "admin"), ("pass", "s3cret")])),
            ((Kind::ConfigMap, "settings".to_string()), data(&[("mode", "fast"), ("user", "ignored")])),
            ((Kind::Secret, "absent".to_string()), None),
        ]);
        let c = container(json!({"name": "c", "envFrom": [
            {"configMapRef": {"name": "settings"}, "prefix": "CFG_"},
            {"secretRef": {"name": "creds"}},
            {"secretRef": {"name": "absent", "optional": true}},
        ], "env": [
            {"name": "NS", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
            {"name": "PASS", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "pass"}}},
            {"name": "MODE", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "mode"}}},
            {"name": "GONE", "valueFrom": {"secretKeyRef": {"name": "absent", "key": "k", "optional": true}}},
            {"name": "NOKEY", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "x", "optional": true}}},
            {"name": "URL", "value": "http://$(user)@$(NS):$(NOPE)"},
            {"name": "IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
            {"name": "user", "value": "override"},
        ]}));
        let pod = PodFields::test();
        let context = EnvContext { pod: &pod, containers: std::slice::from_ref(&c), sources: &sources };
        let env = container_env(&c, &context).unwrap();
        assert_eq!(
            env,
            vars(&[
                ("CFG_mode", "fast"),
                ("CFG_user", "ignored"),
                ("pass", "s3cret"),
                ("NS", "ns1"),
                ("PASS", "s3cret"),
                ("MODE", "fast"),
                ("URL", "http://admin@ns1:$(NOPE)"),
                ("IP", "10.244.0.7"),
                ("user", "override"),
            ])
        );
    }

    #[test]
    fn a_missing_secret_or_key_that_is_not_optional_fails_the_environment_as_kubelet_words_it() {
        let sources = Sources::of([((Kind::ConfigMap, "settings".to_string()), data(&[("mode", "fast")]))]);
        let pod = PodFields::test();
        let fails = |c: Container| {
            let context = EnvContext { pod: &pod, containers: std::slice::from_ref(&c), sources: &sources };
            container_env(&c, &context).unwrap_err().to_string()
        };
        let secret = container(json!({"name": "c", "env": [
            {"name": "X", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "k"}}}]}));
        assert_eq!(fails(secret), "secret \"creds\" not found");
        let key = container(json!({"name": "c", "env": [
            {"name": "X", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "k"}}}]}));
        assert_eq!(fails(key), "couldn't find key k in ConfigMap ns1/settings");
        let from = container(json!({"name": "c", "envFrom": [{"configMapRef": {"name": "other"}}]}));
        assert_eq!(fails(from), "configmap \"other\" not found");
    }
}
