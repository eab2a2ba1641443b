//! Label selectors as the OCM APIs carry them (`metav1.LabelSelector`, and the claim
//! selector of a Placement), with the matching rules of `metav1.LabelSelectorAsSelector`.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::fields::string_enum;

/// Selects objects by their labels: every `matchLabels` pair and every expression must hold.
/// An empty selector selects everything.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-kubernetes-map-type" = "atomic"))]
pub struct LabelSelector {
    /// Label requirements.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub match_expressions: Vec<SelectorRequirement>,

    /// Labels that must be present with exactly these values.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub match_labels: BTreeMap<String, String>,
}

/// Selects objects by requirements only (a Placement's claim selector).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExpressionSelector {
    /// Requirements, all of which must hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<SelectorRequirement>,
}

/// One requirement of a selector.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectorRequirement {
    /// The label key.
    pub key: String,

    /// How the key relates to the values.
    pub operator: SelectorOperator,

    /// The values: non-empty for In and NotIn, empty for Exists and DoesNotExist.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub values: Vec<String>,
}

string_enum! {
    /// The operator of a selector requirement.
    pub enum SelectorOperator(open) {
        /// The label's value is one of the values.
        In = "In",
        /// The label is absent or its value is none of the values.
        NotIn = "NotIn",
        /// The label is present.
        Exists = "Exists",
        /// The label is absent.
        DoesNotExist = "DoesNotExist",
    }
    default = In;
}

/// A selector that cannot select anything as written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    /// An operator that is not one of the four.
    #[error("{0:?} is not a valid label selector operator")]
    Operator(String),
    /// In or NotIn without values.
    #[error("values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty")]
    NoValues,
    /// Exists or DoesNotExist with values.
    #[error("values: Invalid value: {0:?}: values set must be empty for exists and does not exist")]
    UnexpectedValues(Vec<String>),
}

impl SelectorRequirement {
    /// Checks the requirement as the API machinery does before it matches.
    pub fn validate(&self) -> Result<(), SelectorError> {
        match &self.operator {
            SelectorOperator::In | SelectorOperator::NotIn if self.values.is_empty() => Err(SelectorError::NoValues),
            SelectorOperator::Exists | SelectorOperator::DoesNotExist if !self.values.is_empty() => {
                Err(SelectorError::UnexpectedValues(self.values.clone()))
            }
            SelectorOperator::Other(other) => Err(SelectorError::Operator(other.clone())),
            _ => Ok(()),
        }
    }

    /// Whether `labels` satisfy the requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let value = labels.get(&self.key);
        match &self.operator {
            SelectorOperator::In => value.is_some_and(|v| self.values.contains(v)),
            SelectorOperator::NotIn => value.is_none_or(|v| !self.values.contains(v)),
            SelectorOperator::Exists => value.is_some(),
            SelectorOperator::DoesNotExist => value.is_none(),
            SelectorOperator::Other(_) => false,
        }
    }
}

impl LabelSelector {
    /// Checks every requirement.
    pub fn validate(&self) -> Result<(), SelectorError> {
        self.match_expressions.iter().try_for_each(SelectorRequirement::validate)
    }

    /// Whether `labels` satisfy the selector (an invalid requirement matches nothing).
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.match_labels.iter().all(|(k, v)| labels.get(k) == Some(v))
            && self.match_expressions.iter().all(|r| r.validate().is_ok() && r.matches(labels))
    }
}

impl ExpressionSelector {
    /// Checks every requirement.
    pub fn validate(&self) -> Result<(), SelectorError> {
        self.match_expressions.iter().try_for_each(SelectorRequirement::validate)
    }

    /// Whether `labels` satisfy every requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.match_expressions.iter().all(|r| r.validate().is_ok() && r.matches(labels))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect()
    }

    fn requirement(key: &str, operator: SelectorOperator, values: &[&str]) -> SelectorRequirement {
        SelectorRequirement { key: key.into(), operator, values: values.iter().map(|v| (*v).into()).collect() }
    }

    #[test]
    fn an_empty_selector_selects_everything() {
        assert!(LabelSelector::default().matches(&labels(&[])));
        assert!(LabelSelector::default().matches(&labels(&[("a", "b")])));
    }

    #[test]
    fn match_labels_and_expressions_must_all_hold() {
        let selector = LabelSelector {
            match_labels: labels(&[("vendor", "OpenShift")]),
            match_expressions: vec![
                requirement("env", SelectorOperator::In, &["prod", "dev"]),
                requirement("legacy", SelectorOperator::DoesNotExist, &[]),
            ],
        };
        assert!(selector.matches(&labels(&[("vendor", "OpenShift"), ("env", "dev")])));
        assert!(!selector.matches(&labels(&[("vendor", "OpenShift"), ("env", "qa")])));
        assert!(!selector.matches(&labels(&[("vendor", "OpenShift"), ("env", "dev"), ("legacy", "")])));
        assert!(!selector.matches(&labels(&[("env", "dev")])));
    }

    #[test]
    fn not_in_matches_an_absent_label() {
        let req = requirement("env", SelectorOperator::NotIn, &["prod"]);
        assert!(req.matches(&labels(&[])));
        assert!(!req.matches(&labels(&[("env", "prod")])));
    }

    #[test]
    fn invalid_requirements_are_reported_and_match_nothing() {
        let bad = requirement("env", SelectorOperator::In, &[]);
        assert_eq!(bad.validate(), Err(SelectorError::NoValues));
        let selector = LabelSelector { match_expressions: vec![bad], ..LabelSelector::default() };
        assert!(!selector.matches(&labels(&[("env", "x")])));
        assert!(requirement("k", SelectorOperator::Other("Like".into()), &[]).validate().is_err());
        assert!(requirement("k", SelectorOperator::Exists, &["v"]).validate().is_err());
    }
}
