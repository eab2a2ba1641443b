//! Condition rules, as upstream's condition reader evaluates them: a manifest config's
//! `conditionRules` set conditions on the manifest from its object — `CEL`, the rule's
//! expressions over `object`, all of which must answer true (with upstream's
//! `hasConditions(object.status)`); `WellKnownConditions`, upstream's own rules (`Complete`
//! of a Job and of a Pod). The message is the rule's `messageExpression` (over `object` and
//! `result`), else its `message`, else "Manifest is [not] <condition>". The work then
//! carries each such condition type, aggregated over its manifests.

use std::collections::BTreeMap;

use cel::extractors::Arguments;
use cel::objects::Key;
use cel::{Context, DeclarationError, Value as Cel};
use fleetctl_api::conditions::{FALSE, TRUE, UNKNOWN, new_condition};
use fleetctl_api::work::{ConditionRule, ConditionRuleType};
use fleetctl_cel::{Expression, Variables, from_json};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use serde_json::Value;

/// A condition a rule evaluated.
pub const REASON_EVALUATED: &str = "ConditionRuleEvaluated";
/// A rule whose expression did not compile, failed or answered no bool.
pub const REASON_EXPRESSION_ERROR: &str = "ConditionRuleExpressionError";
/// A rule of a type this agent does not know.
pub const REASON_INVALID: &str = "ConditionRuleInvalid";
/// A work's condition aggregated from its manifests' rule conditions.
pub const REASON_AGGREGATED: &str = "ConditionRulesAggregated";
/// How the reason of every condition rules make begins.
const REASON_PREFIX: &str = "ConditionRule";
/// The condition upstream's well-known rules set.
const COMPLETE: &str = "Complete";
/// The one condition type whose aggregate is True when any manifest's is.
const PROGRESSING: &str = "Progressing";

/// Whether rules made the condition (it goes when no rule makes it any more).
pub fn made_by_rules(condition: &Condition) -> bool {
    condition.reason.starts_with(REASON_PREFIX)
}

/// Upstream's well-known rule of `condition` for a kind: its expressions and message
/// expression.
fn well_known(group: &str, kind: &str, condition: &str) -> Option<(&'static [&'static str], &'static str)> {
    match (group, kind, condition) {
        ("batch", "Job", COMPLETE) => Some((
            &["hasConditions(object.status) ? object.status.conditions.filter(c, c.type == 'Complete' || c.type == \
               'Failed').exists(c, c.status == 'True') : false"],
            "result ? \"Job is finished\" : \"Job is not finished\"",
        )),
        ("", "Pod", COMPLETE) => {
            Some((&["object.status.phase in ['Succeeded', 'Failed']"], "\"Pod is in phase \" + object.status.phase"))
        }
        _ => None,
    }
}

/// The conditions `rules` set on the manifest whose object is `object` (of API group
/// `group`), without their generation.
pub fn evaluate(rules: &[ConditionRule], object: &Value, group: &str) -> Vec<Condition> {
    let kind = object["kind"].as_str().unwrap_or_default();
    let mut variables = Variables::default();
    variables.set_library("object", from_json(object), register);
    rules
        .iter()
        .filter_map(|rule| match &rule.type_ {
            ConditionRuleType::Cel => {
                let expressions: Vec<&str> = rule.cel_expressions.iter().map(String::as_str).collect();
                Some(condition(rule, &expressions, &rule.message_expression, &variables))
            }
            ConditionRuleType::WellKnownConditions => {
                let (expressions, message_expression) = well_known(group, kind, &rule.condition)?;
                let message_expression =
                    if rule.message_expression.is_empty() { message_expression } else { &rule.message_expression };
                Some(condition(rule, expressions, message_expression, &variables))
            }
            ConditionRuleType::Other(other) => Some(new_condition(
                &rule.condition,
                UNKNOWN,
                REASON_INVALID,
                format!("unrecognized condition rule type {other}"),
            )),
        })
        .collect()
}

/// The condition of one rule: True when every expression answers true.
fn condition(rule: &ConditionRule, expressions: &[&str], message_expression: &str, variables: &Variables) -> Condition {
    let mut result = true;
    for source in expressions {
        let answer = Expression::compile_declaring(source, &["object"])
            .map_err(|e| e.to_string())
            .and_then(|e| e.eval_bool(variables).map_err(|e| e.to_string()));
        match answer {
            Ok(true) => {}
            Ok(false) => {
                result = false;
                break;
            }
            Err(error) => return new_condition(&rule.condition, FALSE, REASON_EXPRESSION_ERROR, error),
        }
    }
    let status = if result { TRUE } else { FALSE };
    new_condition(&rule.condition, status, REASON_EVALUATED, message(rule, message_expression, variables, result))
}

/// The message of a rule's condition.
fn message(rule: &ConditionRule, message_expression: &str, variables: &Variables, result: bool) -> String {
    if !message_expression.is_empty() {
        let mut variables = variables.clone();
        variables.set("result", Cel::Bool(result));
        let rendered = Expression::compile_declaring(message_expression, &["object", "result"])
            .map_err(|e| e.to_string())
            .and_then(|e| e.eval_string(&variables).map_err(|e| e.to_string()));
        match rendered {
            Ok(text) if !text.is_empty() => return text,
            Ok(_) => {}
            Err(error) => return error,
        }
    }
    if !rule.message.is_empty() {
        return rule.message.clone();
    }
    let not = if result { "" } else { "not " };
    format!("Manifest is {not}{}", rule.condition)
}

/// Declares upstream's `hasConditions(status)`: whether a status holds a non-empty list of
/// conditions.
fn register(context: &mut Context<'_, '_>) -> Result<(), DeclarationError> {
    context.add_function("hasConditions", |Arguments(arguments): Arguments| {
        let conditions = match arguments.first() {
            Some(Cel::Map(status)) => status.map.get(&Key::String("conditions".to_owned().into())).cloned(),
            _ => None,
        };
        matches!(conditions, Some(Cel::List(list)) if !list.is_empty())
    })
}

/// The work's conditions from its manifests' rule conditions: per type, False when any is
/// False, else Unknown when any is Unknown (or none is True), else True — Progressing True
/// when any is True — with the one manifest's message, or how many were aggregated.
pub fn aggregate<'c>(manifests: impl Iterator<Item = &'c Condition>) -> Vec<Condition> {
    #[derive(Default)]
    struct Count {
        true_: usize,
        false_: usize,
        unknown: usize,
        message: String,
    }
    let mut counts: BTreeMap<&str, Count> = BTreeMap::new();
    for condition in manifests.filter(|c| made_by_rules(c)) {
        let count = counts.entry(&condition.type_).or_default();
        match condition.status.as_str() {
            TRUE => count.true_ += 1,
            FALSE => count.false_ += 1,
            _ => count.unknown += 1,
        }
        if !condition.message.is_empty() {
            count.message.clone_from(&condition.message);
        }
    }
    counts
        .into_iter()
        .map(|(type_, count)| {
            let status = match (type_ == PROGRESSING, &count) {
                (true, c) if c.true_ > 0 => TRUE,
                (true, c) if c.unknown > 0 => UNKNOWN,
                (true, _) => FALSE,
                (false, c) if c.false_ > 0 => FALSE,
                (false, c) if c.unknown > 0 || c.true_ == 0 => UNKNOWN,
                (false, _) => TRUE,
            };
            let total = count.true_ + count.false_ + count.unknown;
            let message = if total == 1 && !count.message.is_empty() {
                count.message
            } else {
                format!("Aggregated from {total} manifest conditions")
            };
            new_condition(type_, status, REASON_AGGREGATED, message)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn job(conditions: Value, active: i64) -> Value {
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job1"},
               "status": {"active": active, "conditions": conditions}})
    }

    fn rule(type_: ConditionRuleType, condition: &str) -> ConditionRule {
        ConditionRule { condition: condition.into(), type_, ..ConditionRule::default() }
    }

    fn seen(conditions: &[Condition]) -> Vec<(&str, &str, &str, &str)> {
        conditions
            .iter()
            .map(|c| (c.type_.as_str(), c.status.as_str(), c.reason.as_str(), c.message.as_str()))
            .collect()
    }

    #[test]
    fn a_jobs_well_known_complete_follows_its_complete_or_failed_condition_as_upstreams_rule() {
        let rules = [rule(ConditionRuleType::WellKnownConditions, COMPLETE)];
        let running = evaluate(&rules, &job(json!([]), 1), "batch");
        assert_eq!(seen(&running), [(COMPLETE, FALSE, REASON_EVALUATED, "Job is not finished")]);
        let done = evaluate(&rules, &job(json!([{"type": "Complete", "status": "True"}]), 0), "batch");
        assert_eq!(seen(&done), [(COMPLETE, TRUE, REASON_EVALUATED, "Job is finished")]);
        // A kind upstream has no rule for gets no condition.
        let map = json!({"apiVersion": "v1", "kind": "ConfigMap"});
        assert!(evaluate(&rules, &map, "").is_empty());
    }

    #[test]
    fn cel_rules_answer_with_their_message_expression_and_a_bad_expression_is_an_expression_error() {
        let one_active = ConditionRule {
            cel_expressions: vec!["object.status.active == 1".into()],
            message_expression: "result ? 'One pod is active' : 'There is not only one pod active'".into(),
            ..rule(ConditionRuleType::Cel, "OneActive")
        };
        assert_eq!(
            seen(&evaluate(std::slice::from_ref(&one_active), &job(json!([]), 3), "batch")),
            [("OneActive", FALSE, REASON_EVALUATED, "There is not only one pod active")]
        );
        assert_eq!(
            seen(&evaluate(&[one_active], &job(json!([]), 1), "batch")),
            [("OneActive", TRUE, REASON_EVALUATED, "One pod is active")]
        );
        let plain = ConditionRule { cel_expressions: vec!["true".into()], ..rule(ConditionRuleType::Cel, "Ready") };
        assert_eq!(seen(&evaluate(&[plain], &job(json!([]), 1), "batch"))[0].3, "Manifest is Ready");
        let bad = ConditionRule { cel_expressions: vec!["other.status".into()], ..rule(ConditionRuleType::Cel, "Bad") };
        let conditions = evaluate(&[bad], &job(json!([]), 1), "batch");
        assert_eq!((conditions[0].status.as_str(), conditions[0].reason.as_str()), (FALSE, REASON_EXPRESSION_ERROR));
    }

    #[test]
    fn the_works_condition_aggregates_its_manifests_as_upstream_does() {
        let made =
            |type_: &str, status: &str| new_condition(type_, status, REASON_EVALUATED, format!("{type_} {status}"));
        let manifests = [made(COMPLETE, TRUE), made(COMPLETE, FALSE), made("Ready", TRUE), made(PROGRESSING, FALSE)];
        let mut others = manifests.to_vec();
        others.push(made(PROGRESSING, TRUE));
        // Conditions rules did not make are not aggregated.
        others.push(new_condition("Applied", TRUE, "AppliedManifestComplete", ""));
        assert_eq!(
            seen(&aggregate(others.iter())),
            [
                (COMPLETE, FALSE, REASON_AGGREGATED, "Aggregated from 2 manifest conditions"),
                (PROGRESSING, TRUE, REASON_AGGREGATED, "Aggregated from 2 manifest conditions"),
                ("Ready", TRUE, REASON_AGGREGATED, "Ready True"),
            ]
        );
    }
}
