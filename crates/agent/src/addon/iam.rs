//! `iam-policy-controller`: watches ClusterRoleBindings and reports the subjects bound to
//! `cluster-admin`, non-compliant when there are more than a maximum.

use std::collections::{BTreeMap, BTreeSet};

use futures::StreamExt;
use k8s_openapi::api::rbac::v1::ClusterRoleBinding;
use kube::api::Api;
use kube::runtime::watcher;
use kube::{Client, ResourceExt};
use serde_json::json;
use tokio::sync::watch;

use super::{Report, offer};
use fleetctl_kube::watch::BackedOff as _;

/// The role whose holders are counted.
pub const CLUSTER_ADMIN: &str = "cluster-admin";
/// Default maximum of `cluster-admin` subjects.
pub const DEFAULT_MAX: usize = 2;

/// Subjects (`Kind:name` or `ServiceAccount:namespace/name`) bound to cluster-admin, by
/// binding name.
pub type Bindings = BTreeMap<String, BTreeSet<String>>;

/// The cluster-admin subjects of a binding (none when it binds another role).
pub fn admin_subjects(binding: &ClusterRoleBinding) -> BTreeSet<String> {
    if binding.role_ref.kind != "ClusterRole" || binding.role_ref.name != CLUSTER_ADMIN {
        return BTreeSet::new();
    }
    binding
        .subjects
        .iter()
        .flatten()
        .map(|s| match s.namespace.as_deref().filter(|ns| !ns.is_empty()) {
            Some(ns) => format!("{}:{ns}/{}", s.kind, s.name),
            None => format!("{}:{}", s.kind, s.name),
        })
        .collect()
}

/// Watches ClusterRoleBindings forever, offering a report after every change.
pub async fn run(client: Client, max: usize, reports: watch::Sender<Option<Report>>) {
    let bindings: Api<ClusterRoleBinding> = Api::all(client);
    let mut events = watcher(bindings, watcher::Config::default()).backed_off().boxed();
    let mut known = Bindings::new();
    let mut relisting: Option<Bindings> = None;
    while let Some(event) = events.next().await {
        match event {
            Ok(watcher::Event::Init) => relisting = Some(Bindings::new()),
            Ok(watcher::Event::InitApply(b)) => {
                relisting.get_or_insert_with(Bindings::new).insert(b.name_any(), admin_subjects(&b));
            }
            Ok(watcher::Event::InitDone) => known = relisting.take().unwrap_or_default(),
            Ok(watcher::Event::Apply(b)) => {
                known.insert(b.name_any(), admin_subjects(&b));
            }
            Ok(watcher::Event::Delete(b)) => {
                known.remove(&b.name_any());
            }
            Err(e) => tracing::warn!(error = %e, "watching cluster role bindings"),
        }
        if relisting.is_none() {
            offer(&reports, report(&known, max));
        }
    }
}

/// The report on the bindings.
pub fn report(bindings: &Bindings, max: usize) -> Report {
    let subjects: BTreeSet<&String> = bindings.values().flatten().collect();
    let via: Vec<&String> = bindings.iter().filter(|(_, s)| !s.is_empty()).map(|(name, _)| name).collect();
    let compliant = subjects.len() <= max;
    let names = subjects.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
    let verdict = if compliant { "Compliant" } else { "NonCompliant" };
    Report {
        summary: format!("{verdict}: {} {CLUSTER_ADMIN} subjects (max {max}): {names}", subjects.len()),
        report: json!({"max": max, "count": subjects.len(), "subjects": subjects, "bindings": via}),
        compliant: Some(compliant),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(name: &str, role: &str, subjects: serde_json::Value) -> ClusterRoleBinding {
        serde_json::from_value(json!({
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
            "subjects": subjects,
        }))
        .unwrap()
    }

    #[test]
    fn only_cluster_admin_subjects_count() {
        let admin = binding(
            "a",
            "cluster-admin",
            json!([{"kind": "User", "name": "alice"}, {"kind": "ServiceAccount", "name": "sa", "namespace": "ns"}]),
        );
        let other = binding("b", "view", json!([{"kind": "User", "name": "bob"}]));
        let bindings = Bindings::from([
            ("a".to_string(), admin_subjects(&admin)),
            ("b".to_string(), admin_subjects(&other)),
            ("c".to_string(), BTreeSet::from(["User:alice".to_string()])),
        ]);
        let report = report(&bindings, 1);
        assert_eq!(report.compliant, Some(false));
        assert_eq!(report.report["subjects"], json!(["ServiceAccount:ns/sa", "User:alice"]));
        assert_eq!(report.report["bindings"], json!(["a", "c"]));
        assert_eq!(report.summary, "NonCompliant: 2 cluster-admin subjects (max 1): ServiceAccount:ns/sa, User:alice");
        assert_eq!(super::report(&bindings, 2).compliant, Some(true));
    }
}
