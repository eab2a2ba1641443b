//! A manifest's options from the work's `manifestConfigs`, found as upstream's work agent
//! finds them: every config whose resource identifier names the object counts — its name
//! and namespace are patterns, `*` matching any run of characters — and of those, the first
//! with an update strategy, the first with feedback rules and the first with condition rules
//! each give theirs.

use fleetctl_api::work::{ConditionRule, FeedbackRule, ManifestConfigOption, ResourceIdentifier, UpdateStrategy};

use super::apply::Identity;

/// What the configs say of one object.
#[derive(Debug, Default, Clone, Copy)]
pub struct Options<'c> {
    /// How it is written (none: the default).
    pub update_strategy: Option<&'c UpdateStrategy>,
    /// What of it is reported back.
    pub feedback_rules: &'c [FeedbackRule],
    /// Which conditions are computed from it.
    pub condition_rules: &'c [ConditionRule],
}

impl<'c> Options<'c> {
    /// The options of the object `identity` names.
    pub fn of(configs: &'c [ManifestConfigOption], identity: &Identity) -> Self {
        let mut options = Self::default();
        for config in configs.iter().filter(|c| names(&c.resource_identifier, identity)) {
            if options.update_strategy.is_none() {
                options.update_strategy = config.update_strategy.as_ref();
            }
            if options.feedback_rules.is_empty() {
                options.feedback_rules = &config.feedback_rules;
            }
            if options.condition_rules.is_empty() {
                options.condition_rules = &config.condition_rules;
            }
        }
        options
    }
}

/// Whether a config's identifier names the object.
fn names(id: &ResourceIdentifier, identity: &Identity) -> bool {
    id.group == identity.group
        && id.resource == identity.resource
        && matches(&id.name, &identity.name)
        && matches(&id.namespace, &identity.namespace)
}

/// Whether `value` matches `pattern`, whose `*` stand for any run of characters.
fn matches(pattern: &str, value: &str) -> bool {
    let mut parts = pattern.split('*');
    let Some(first) = parts.next() else { return value.is_empty() };
    let Some(mut rest) = value.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use fleetctl_api::work::{FeedbackType, UpdateStrategyType};

    use super::*;

    fn identity(name: &str) -> Identity {
        Identity { group: "batch".into(), resource: "jobs".into(), namespace: "ns".into(), name: name.into() }
    }

    fn config(name: &str) -> ManifestConfigOption {
        ManifestConfigOption {
            resource_identifier: ResourceIdentifier {
                group: "batch".into(),
                resource: "jobs".into(),
                namespace: "*".into(),
                name: name.into(),
            },
            ..ManifestConfigOption::default()
        }
    }

    #[test]
    fn names_and_namespaces_are_patterns_whose_stars_match_any_run_as_upstreams_wildcard_match() {
        for (pattern, value, expected) in [
            ("*", "job1", true),
            ("*1", "job1", true),
            ("*1", "job2", false),
            ("job*", "job1", true),
            ("j*b*1", "job1", true),
            ("j*b*2", "job1", false),
            ("job1", "job1", true),
            ("job1", "job10", false),
            ("*b1*", "job1", true),
            ("a*a", "a", false),
        ] {
            assert_eq!(matches(pattern, value), expected, "{pattern} ~ {value}");
        }
    }

    #[test]
    fn of_the_configs_naming_an_object_the_first_with_each_option_gives_it() {
        let strategy = UpdateStrategy { type_: UpdateStrategyType::ReadOnly, server_side_apply: None };
        let feedback = vec![FeedbackRule { type_: FeedbackType::WellKnownStatus, json_paths: Vec::new() }];
        let configs = [
            ManifestConfigOption { update_strategy: Some(strategy.clone()), ..config("*1") },
            ManifestConfigOption { feedback_rules: feedback.clone(), ..config("job*") },
            ManifestConfigOption {
                update_strategy: Some(UpdateStrategy {
                    type_: UpdateStrategyType::CreateOnly,
                    server_side_apply: None,
                }),
                ..config("*")
            },
        ];
        let options = Options::of(&configs, &identity("job1"));
        assert_eq!(options.update_strategy, Some(&strategy));
        assert_eq!(options.feedback_rules, &feedback[..]);
        let other = Options::of(&configs, &identity("other"));
        assert_eq!(other.update_strategy.map(|s| &s.type_), Some(&UpdateStrategyType::CreateOnly));
        assert!(other.feedback_rules.is_empty());
    }
}
