//! Per-cluster settings of an addon: annotation `addon.open-cluster-management.io/values`
//! on its ManagedClusterAddOn, a JSON object as upstream's addon framework reads it. Each
//! known key becomes a flag of the addon agent:
//!
//! | addon | key | agent flag |
//! |---|---|---|
//! | `cert-policy-controller` | `minimumDuration` (`"720h"`, `"30d"`): expiring sooner is non-compliant | `--window` |
//! | `iam-policy-controller` | `maxClusterRoleBindingUsers` (a whole number) | `--max` |
//!
//! `global` (upstream's settings for every addon: node selector, tolerations, proxy) means
//! nothing to these agents and is ignored; any other key is refused, so a typo is reported
//! instead of silently doing nothing.

use serde_json::{Map, Value};

use fleetctl_api::addon::CERT_POLICY_CONTROLLER;
use fleetctl_api::addon::IAM_POLICY_CONTROLLER;
use fleetctl_api::conditions::ANNOTATION_ADDON_VALUES;

/// Upstream's key for the settings shared by all addons.
const GLOBAL: &str = "global";

/// How a setting's value is read.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// A duration string (`720h`, `30d`, `1h30m`).
    Duration,
    /// A whole number.
    Count,
}

/// `(addon, key, agent flag, kind)` of every setting.
const SETTINGS: [(&str, &str, &str, Kind); 2] = [
    (CERT_POLICY_CONTROLLER, "minimumDuration", "--window", Kind::Duration),
    (IAM_POLICY_CONTROLLER, "maxClusterRoleBindingUsers", "--max", Kind::Count),
];

/// Why an addon's values cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValuesError {
    /// The annotation does not hold a JSON object.
    #[error("annotation {} must hold a JSON object, like {{\"{}\": ...}}: {why}", ANNOTATION_ADDON_VALUES, .example)]
    NotAnObject {
        /// A key the addon knows, for the example.
        example: String,
        /// What the parser said.
        why: String,
    },
    /// A key the addon does not know.
    #[error(
        "{addon} has no setting {key:?} ({known}); fix or remove it in annotation {} or in the \
         customizedVariables of its AddOnDeploymentConfig",
        ANNOTATION_ADDON_VALUES
    )]
    UnknownKey {
        /// The addon.
        addon: String,
        /// The key.
        key: String,
        /// What it does know.
        known: String,
    },
    /// A known key with a value of the wrong shape.
    #[error("{key} of {addon} must be {expected}, not {value}")]
    BadValue {
        /// The addon.
        addon: String,
        /// The key.
        key: String,
        /// What it must be.
        expected: &'static str,
        /// What it is.
        value: String,
    },
}

/// The agent flags for an addon's values: `base` (its deployment config's variables) with
/// the annotation's on top (none without either).
pub fn agent_args(addon: &str, base: Map<String, Value>, annotation: Option<&str>) -> Result<Vec<String>, ValuesError> {
    let settings: Vec<_> = SETTINGS.iter().filter(|(a, ..)| *a == addon).collect();
    let mut values = base;
    if let Some(text) = annotation.map(str::trim).filter(|t| !t.is_empty()) {
        let example = settings.first().map_or(GLOBAL, |(_, key, ..)| key).to_string();
        let annotated: Map<String, Value> =
            serde_json::from_str(text).map_err(|e| ValuesError::NotAnObject { example, why: e.to_string() })?;
        values.extend(annotated);
    }
    let mut args = Vec::new();
    for (key, value) in &values {
        if key == GLOBAL {
            continue;
        }
        let Some((_, _, flag, kind)) = settings.iter().find(|(_, k, ..)| k == key) else {
            let known: Vec<&str> = settings.iter().map(|(_, k, ..)| *k).collect();
            let known =
                if known.is_empty() { "it takes none".to_string() } else { format!("known: {}", known.join(", ")) };
            return Err(ValuesError::UnknownKey { addon: addon.to_string(), key: key.clone(), known });
        };
        let bad = |expected| ValuesError::BadValue {
            addon: addon.to_string(),
            key: key.clone(),
            expected,
            value: value.to_string(),
        };
        let text = match kind {
            Kind::Duration => {
                let text = value.as_str().ok_or_else(|| bad("a duration like \"720h\" or \"30d\""))?;
                fleetctl_kube::duration::parse(text).map_err(|_| bad("a duration like \"720h\" or \"30d\""))?;
                text.to_string()
            }
            Kind::Count => value.as_u64().ok_or_else(|| bad("a whole number"))?.to_string(),
        };
        args.push(format!("{flag}={text}"));
    }
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fleetctl_api::addon::SEARCH_COLLECTOR;

    #[test]
    fn known_values_become_agent_flags() {
        assert_eq!(agent_args(CERT_POLICY_CONTROLLER, Map::new(), None).unwrap(), Vec::<String>::new());
        assert_eq!(agent_args(CERT_POLICY_CONTROLLER, Map::new(), Some(" ")).unwrap(), Vec::<String>::new());
        let cert =
            agent_args(CERT_POLICY_CONTROLLER, Map::new(), Some(r#"{"minimumDuration": "720h", "global": {"a": 1}}"#));
        assert_eq!(cert.unwrap(), ["--window=720h"]);
        let iam = agent_args(IAM_POLICY_CONTROLLER, Map::new(), Some(r#"{"maxClusterRoleBindingUsers": 5}"#));
        assert_eq!(iam.unwrap(), ["--max=5"]);
        assert_eq!(agent_args(SEARCH_COLLECTOR, Map::new(), Some(r#"{"global": {}}"#)).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn a_deployment_configs_variables_are_settings_and_the_annotation_wins_where_both_set_one() {
        let base: Map<String, Value> = serde_json::from_str(r#"{"minimumDuration": "720h"}"#).unwrap();
        assert_eq!(agent_args(CERT_POLICY_CONTROLLER, base.clone(), None).unwrap(), ["--window=720h"]);
        let over = agent_args(CERT_POLICY_CONTROLLER, base, Some(r#"{"minimumDuration": "48h"}"#));
        assert_eq!(over.unwrap(), ["--window=48h"]);
    }

    #[test]
    fn bad_values_say_what_to_fix() {
        let not_json = agent_args(CERT_POLICY_CONTROLLER, Map::new(), Some("minimumDuration: 7d")).unwrap_err();
        assert!(matches!(not_json, ValuesError::NotAnObject { .. }));
        assert!(not_json.to_string().contains(r#"{"minimumDuration": ...}"#), "{not_json}");
        let typo = agent_args(IAM_POLICY_CONTROLLER, Map::new(), Some(r#"{"maxClusterAdmins": 5}"#)).unwrap_err();
        assert_eq!(
            typo.to_string(),
            "iam-policy-controller has no setting \"maxClusterAdmins\" \
            (known: maxClusterRoleBindingUsers); fix or remove it in annotation addon.open-cluster-management.io/values \
            or in the customizedVariables of its AddOnDeploymentConfig"
        );
        let none = agent_args(SEARCH_COLLECTOR, Map::new(), Some(r#"{"x": 1}"#)).unwrap_err();
        assert!(none.to_string().contains("(it takes none)"), "{none}");
        for (addon, values) in [
            (IAM_POLICY_CONTROLLER, r#"{"maxClusterRoleBindingUsers": -1}"#),
            (IAM_POLICY_CONTROLLER, r#"{"maxClusterRoleBindingUsers": "5"}"#),
            (CERT_POLICY_CONTROLLER, r#"{"minimumDuration": 7}"#),
            (CERT_POLICY_CONTROLLER, r#"{"minimumDuration": "a week"}"#),
        ] {
            assert!(
                matches!(agent_args(addon, Map::new(), Some(values)), Err(ValuesError::BadValue { .. })),
                "{values}"
            );
        }
    }
}
