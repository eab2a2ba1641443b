//! RBAC: the checks of `ValidateRole`/`ValidateClusterRole` (every rule names verbs, and either
//! resources with their groups or non-resource URLs, never both) and of `ValidateRoleBinding`/
//! `ValidateClusterRoleBinding` (a roleRef to a Role or ClusterRole of the RBAC group, subjects of a
//! known kind with the group their kind needs), and `ValidateRoleBindingUpdate`: roleRef never
//! changes.

use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject};
use serde_json::Value;

use super::super::object;
use super::super::status::Cause;
use super::Strategy;

const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

/// The Role and ClusterRole strategy; `namespaced` rules may not name non-resource URLs.
pub struct Roles {
    pub namespaced: bool,
}

/// The RoleBinding and ClusterRoleBinding strategy; a cluster binding may refer to ClusterRoles
/// only, and its ServiceAccount subjects need a namespace.
pub struct Bindings {
    pub namespaced: bool,
}

fn rules(object: &Value, namespaced: bool) -> Option<Vec<PolicyRule>> {
    if namespaced {
        serde_json::from_value::<Role>(object.clone()).ok().map(|role| role.rules.unwrap_or_default())
    } else {
        serde_json::from_value::<ClusterRole>(object.clone()).ok().map(|role| role.rules.unwrap_or_default())
    }
}

fn validate_rule(rule: &PolicyRule, path: &str, namespaced: bool) -> Vec<Cause> {
    let mut causes = Vec::new();
    let empty = |list: &Option<Vec<String>>| list.as_ref().is_none_or(Vec::is_empty);
    if rule.verbs.is_empty() {
        causes.push(Cause::new(
            "FieldValueRequired",
            format!("{path}.verbs"),
            "Required value: verbs must contain at least one value",
        ));
    }
    if !empty(&rule.non_resource_urls) {
        if namespaced {
            causes.push(Cause::new(
                "FieldValueInvalid",
                format!("{path}.nonResourceURLs"),
                format!(
                    "Invalid value: {:?}: namespaced rules cannot apply to non-resource URLs",
                    rule.non_resource_urls.as_deref().unwrap_or_default()
                ),
            ));
        }
        if !empty(&rule.api_groups) || !empty(&rule.resources) {
            causes.push(Cause::new(
                "FieldValueInvalid",
                format!("{path}.nonResourceURLs"),
                "Invalid value: rules cannot apply to both regular resources and non-resource URLs",
            ));
        }
        return causes;
    }
    if empty(&rule.api_groups) {
        causes.push(Cause::new(
            "FieldValueRequired",
            format!("{path}.apiGroups"),
            "Required value: resource rules must supply at least one api group",
        ));
    }
    if empty(&rule.resources) {
        causes.push(Cause::new(
            "FieldValueRequired",
            format!("{path}.resources"),
            "Required value: resource rules must supply at least one resource",
        ));
    }
    causes
}

impl Strategy for Roles {
    fn check_name(&self, name: &str) -> Option<Cause> {
        object::check_path_segment("metadata.name", name)
    }

    fn validate_create(&self, object: &Value) -> Vec<Cause> {
        let Some(rules) = rules(object, self.namespaced) else { return Vec::new() };
        rules
            .iter()
            .enumerate()
            .flat_map(|(i, rule)| validate_rule(rule, &format!("rules[{i}]"), self.namespaced))
            .collect()
    }

    fn validate_update(&self, _old: &Value, new: &Value) -> Vec<Cause> {
        self.validate_create(new)
    }
}

fn binding(object: &Value, namespaced: bool) -> Option<(RoleRef, Vec<Subject>)> {
    if namespaced {
        serde_json::from_value::<RoleBinding>(object.clone()).ok().map(|b| (b.role_ref, b.subjects.unwrap_or_default()))
    } else {
        serde_json::from_value::<ClusterRoleBinding>(object.clone())
            .ok()
            .map(|b| (b.role_ref, b.subjects.unwrap_or_default()))
    }
}

fn not_supported(field: String, value: &str, supported: &[&str]) -> Cause {
    let supported = supported.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ");
    Cause::new("FieldValueNotSupported", field, format!("Unsupported value: {value:?}: supported values: {supported}"))
}

fn validate_role_ref(role_ref: &RoleRef, namespaced: bool) -> Vec<Cause> {
    let mut causes = Vec::new();
    if role_ref.api_group != RBAC_GROUP {
        causes.push(not_supported("roleRef.apiGroup".into(), &role_ref.api_group, &[RBAC_GROUP]));
    }
    let kinds: &[&str] = if namespaced { &["Role", "ClusterRole"] } else { &["ClusterRole"] };
    if !kinds.contains(&role_ref.kind.as_str()) {
        causes.push(not_supported("roleRef.kind".into(), &role_ref.kind, kinds));
    }
    if role_ref.name.is_empty() {
        causes.push(Cause::new("FieldValueRequired", "roleRef.name", "Required value"));
    }
    causes
}

fn validate_subject(subject: &Subject, path: &str, namespaced: bool) -> Vec<Cause> {
    let mut causes = Vec::new();
    if subject.name.is_empty() {
        causes.push(Cause::new("FieldValueRequired", format!("{path}.name"), "Required value"));
    }
    let group = subject.api_group.as_deref().unwrap_or_default();
    match subject.kind.as_str() {
        "ServiceAccount" => {
            if !group.is_empty() {
                causes.push(not_supported(format!("{path}.apiGroup"), group, &[""]));
            }
            if !namespaced && subject.namespace.as_deref().is_none_or(str::is_empty) {
                causes.push(Cause::new("FieldValueRequired", format!("{path}.namespace"), "Required value"));
            }
        }
        "User" | "Group" => {
            if group != RBAC_GROUP {
                causes.push(not_supported(format!("{path}.apiGroup"), group, &[RBAC_GROUP]));
            }
        }
        other => causes.push(not_supported(format!("{path}.kind"), other, &["ServiceAccount", "User", "Group"])),
    }
    causes
}

/// `SetDefaults_Subject` and `SetDefaults_RoleBinding`: a User or Group subject and the roleRef
/// without an apiGroup are in the RBAC group (a ServiceAccount's group stays empty).
fn default_groups(binding: &mut Value) {
    if binding["roleRef"].is_object() && binding["roleRef"]["apiGroup"].as_str().is_none_or(str::is_empty) {
        binding["roleRef"]["apiGroup"] = Value::from(RBAC_GROUP);
    }
    for subject in binding.get_mut("subjects").and_then(Value::as_array_mut).into_iter().flatten() {
        let kind = subject["kind"].as_str().unwrap_or_default();
        if matches!(kind, "User" | "Group") && subject["apiGroup"].as_str().is_none_or(str::is_empty) {
            subject["apiGroup"] = Value::from(RBAC_GROUP);
        }
    }
}

impl Strategy for Bindings {
    fn check_name(&self, name: &str) -> Option<Cause> {
        object::check_path_segment("metadata.name", name)
    }

    fn prepare_create(&self, object: &mut Value) {
        default_groups(object);
    }

    fn prepare_update(&self, _old: &Value, new: &mut Value) {
        default_groups(new);
    }

    fn validate_create(&self, object: &Value) -> Vec<Cause> {
        let Some((role_ref, subjects)) = binding(object, self.namespaced) else { return Vec::new() };
        let mut causes = validate_role_ref(&role_ref, self.namespaced);
        for (i, subject) in subjects.iter().enumerate() {
            causes.extend(validate_subject(subject, &format!("subjects[{i}]"), self.namespaced));
        }
        causes
    }

    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        let mut causes = self.validate_create(new);
        if old["roleRef"] != new["roleRef"] {
            causes.push(Cause::new(
                "FieldValueInvalid",
                "roleRef",
                format!("Invalid value: {}: cannot change roleRef", new["roleRef"]),
            ));
        }
        causes
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fields(causes: &[Cause]) -> Vec<&str> {
        causes.iter().map(|cause| cause.field.as_str()).collect()
    }

    #[test]
    fn rules_name_verbs_and_either_resources_or_urls() {
        let role = |rule: Value| json!({"metadata": {"name": "r"}, "rules": [rule]});
        let ok = role(json!({"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}));
        assert!(Roles { namespaced: true }.validate_create(&ok).is_empty());
        let bare = role(json!({"verbs": []}));
        assert_eq!(
            fields(&Roles { namespaced: true }.validate_create(&bare)),
            ["rules[0].verbs", "rules[0].apiGroups", "rules[0].resources"]
        );
        let urls = role(json!({"nonResourceURLs": ["/healthz"], "verbs": ["get"]}));
        assert!(Roles { namespaced: false }.validate_create(&urls).is_empty());
        assert_eq!(fields(&Roles { namespaced: true }.validate_create(&urls)), ["rules[0].nonResourceURLs"]);
        let both = role(json!({"nonResourceURLs": ["/x"], "resources": ["pods"], "verbs": ["get"]}));
        assert_eq!(fields(&Roles { namespaced: false }.validate_create(&both)), ["rules[0].nonResourceURLs"]);
    }

    #[test]
    fn users_groups_and_the_role_ref_default_to_the_rbac_group() {
        let mut binding = json!({"roleRef": {"kind": "Role", "name": "r"}, "subjects": [
            {"kind": "User", "name": "bob"}, {"kind": "Group", "name": "devs"}, {"kind": "ServiceAccount", "name": "bot"},
        ]});
        Bindings { namespaced: true }.prepare_create(&mut binding);
        assert_eq!(binding["roleRef"]["apiGroup"], RBAC_GROUP);
        let groups: Vec<&Value> =
            binding["subjects"].as_array().into_iter().flatten().map(|s| &s["apiGroup"]).collect();
        assert_eq!(groups, [&json!(RBAC_GROUP), &json!(RBAC_GROUP), &Value::Null]);
        assert!(Bindings { namespaced: true }.validate_create(&binding).is_empty());
    }

    #[test]
    fn bindings_refer_to_rbac_roles_with_known_subjects_and_keep_their_role_ref() {
        let role_ref = json!({"apiGroup": RBAC_GROUP, "kind": "Role", "name": "r"});
        let binding = |subjects: Value| json!({"metadata": {"name": "b"}, "roleRef": role_ref, "subjects": subjects});
        let ok = binding(json!([
            {"kind": "User", "apiGroup": RBAC_GROUP, "name": "alice"},
            {"kind": "ServiceAccount", "name": "bot"},
        ]));
        assert!(Bindings { namespaced: true }.validate_create(&ok).is_empty());
        // A ClusterRoleBinding may not name a Role, and its ServiceAccounts need a namespace.
        assert_eq!(
            fields(&Bindings { namespaced: false }.validate_create(&ok)),
            ["roleRef.kind", "subjects[1].namespace"]
        );
        let bad = binding(json!([{"kind": "Robot", "name": "r2"}, {"kind": "Group", "name": "g"}]));
        assert_eq!(
            fields(&Bindings { namespaced: true }.validate_create(&bad)),
            ["subjects[0].kind", "subjects[1].apiGroup"]
        );
        let mut moved = ok.clone();
        moved["roleRef"]["name"] = json!("other");
        let causes = Bindings { namespaced: true }.validate_update(&ok, &moved);
        assert_eq!(fields(&causes), ["roleRef"]);
        assert!(causes[0].message.ends_with("cannot change roleRef"), "{}", causes[0].message);
    }
}
