//! What a work stops owning and how it goes: the AppliedManifestWork's record after a
//! pass (and the resources it no longer lists), what a deleted work's `deleteOption`
//! orphans, and letting go of the rest — deleting what only this record holds (see
//! [`super::owners`]) and waiting on watches until it is gone. Every deletion is explicit,
//! made before the record goes; the owner references only tell whose a resource is.

use std::collections::HashSet;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, Preconditions};
use kube::runtime::wait::{await_condition, conditions};
use kube::{Client, ResourceExt};
use tokio::time::Instant;

use fleetctl_kube::kube_error;

use super::WorkReconcileError;
use super::apply::{Identity, Tracking};
use super::owners::{self, Holders, holders};
use fleetctl_api::AppliedManifestWork;
use fleetctl_api::work::{AppliedManifestResourceMeta, DeleteOption, DeletePropagationPolicy};

/// The AppliedManifestWork's record after a pass, and what dropped out of it.
#[derive(Debug, Default, PartialEq)]
pub struct Plan {
    /// The resources the work owns now, in manifest order.
    pub applied: Vec<AppliedManifestResourceMeta>,
    /// Resources recorded before that no manifest of the work names any more: delete them.
    pub stale: Vec<AppliedManifestResourceMeta>,
}

/// The new record from the old one and how this pass tracks each manifest. A manifest
/// that failed keeps its old record (its object is still wanted); a ReadOnly one releases
/// its record without deleting the object; every other old record is stale.
pub fn plan(recorded: &[AppliedManifestResourceMeta], tracking: &[Tracking]) -> Plan {
    let mut applied: Vec<AppliedManifestResourceMeta> = Vec::new();
    let mut seen: HashSet<Identity> = HashSet::new();
    let mut released: HashSet<Identity> = HashSet::new();
    let mut push = |meta: &AppliedManifestResourceMeta, applied: &mut Vec<_>| {
        if seen.insert(Identity::of(meta)) {
            applied.push(meta.clone());
        }
    };
    for track in tracking {
        match track {
            Tracking::Owned(meta) => push(meta, &mut applied),
            Tracking::Keep(identity) => {
                recorded.iter().filter(|r| Identity::of(r) == *identity).for_each(|r| push(r, &mut applied));
            }
            Tracking::KeepLoose { group, name } => {
                recorded.iter().filter(|r| r.group == *group && r.name == *name).for_each(|r| push(r, &mut applied));
            }
            Tracking::Release(identity) => {
                released.insert(identity.clone());
            }
        }
    }
    let kept: HashSet<Identity> = applied.iter().map(Identity::of).collect();
    let stale = recorded
        .iter()
        .filter(|r| {
            let identity = Identity::of(r);
            !kept.contains(&identity) && !released.contains(&identity)
        })
        .cloned()
        .collect();
    Plan { applied, stale }
}

/// A record's listing of `resources`, ordered by group, version, resource, namespace and name
/// as upstream's work agent orders it (readers compare listings as lists).
pub fn listing<'a>(
    resources: impl Iterator<Item = &'a AppliedManifestResourceMeta>,
) -> Vec<AppliedManifestResourceMeta> {
    let mut listed: Vec<AppliedManifestResourceMeta> = resources.cloned().collect();
    listed.sort_by(|a, b| {
        (&a.group, &a.version, &a.resource, &a.namespace, &a.name).cmp(&(
            &b.group,
            &b.version,
            &b.resource,
            &b.namespace,
            &b.name,
        ))
    });
    listed
}

/// Whether a work's deleteOption leaves this resource behind when the work lets go of it
/// (deleted, or no longer listing it) — upstream's `OwnedByTheWork`, negated: every
/// resource under Orphan (and under a policy this agent does not know: a leftover can be
/// removed later, a wrongly deleted resource cannot be brought back), those an orphaning
/// rule names under SelectivelyOrphan, none under Foreground (the default).
pub fn orphaned(option: Option<&DeleteOption>, identity: &Identity) -> bool {
    let policy = option.map(|o| o.propagation_policy.clone()).unwrap_or_default();
    match policy {
        DeletePropagationPolicy::Orphan | DeletePropagationPolicy::Other(_) => true,
        DeletePropagationPolicy::SelectivelyOrphan => {
            let rules = option.and_then(|o| o.selectively_orphans.as_ref()).map(|s| s.orphaning_rules.as_slice());
            rules.unwrap_or_default().iter().any(|rule| {
                rule.group == identity.group
                    && rule.resource == identity.resource
                    && rule.namespace == identity.namespace
                    && rule.name == identity.name
            })
        }
        DeletePropagationPolicy::Foreground => false,
    }
}

/// Lets go of `resources`, which the record `owner` names, as upstream's work agent does:
/// one the deleteOption orphans, or another record holds too, loses the record's owner
/// reference and stays; one only this record holds is deleted; one only other records hold,
/// or replaced by a newcomer of the same name, is left alone. One that names no record (applied
/// before references were written) is deleted unless another record lists it. Waits on
/// watches, up to `wait`, for the deleted ones to go, and returns those still there.
pub async fn let_go(
    client: &Client,
    records: &Api<AppliedManifestWork>,
    owner: &OwnerReference,
    resources: &[AppliedManifestResourceMeta],
    option: Option<&DeleteOption>,
    wait: Duration,
) -> Result<Vec<AppliedManifestResourceMeta>, WorkReconcileError> {
    let mut doomed = Vec::new();
    let mut unmarked = Vec::new();
    for meta in resources {
        let api = api_of(client, meta);
        let reading = || kube_error(format!("reading {}", describe(meta)));
        let Some(object) = api.get_opt(&meta.name).await.map_err(reading())? else {
            continue;
        };
        if !meta.uid.is_empty() && object.uid().as_deref() != Some(meta.uid.as_str()) {
            continue;
        }
        let kept = orphaned(option, &Identity::of(meta));
        match holders(&object, owner) {
            Holders::Ours { others } if kept || others > 0 => {
                let releasing = kube_error(format!("releasing {}", describe(meta)));
                owners::mark(&api, object, owner, false).await.map_err(releasing)?;
            }
            Holders::Ours { .. } => doomed.push(meta.clone()),
            Holders::Unmarked if !kept => unmarked.push(meta.clone()),
            Holders::Unmarked | Holders::Others => {}
        }
    }
    if !unmarked.is_empty() {
        let listed = records.list(&Default::default()).await.map_err(kube_error("listing appliedmanifestworks"))?;
        doomed.extend(not_shared(unmarked, &owner.name, &listed.items));
    }
    delete_and_wait(client, &doomed, wait).await
}

/// Of the resources a record would delete, those no other record lists (by uid, or by
/// identity for a record without one): a resource two works apply stays while either
/// does, as upstream keeps an object another AppliedManifestWork still owns.
fn not_shared(
    resources: Vec<AppliedManifestResourceMeta>,
    record: &str,
    records: &[AppliedManifestWork],
) -> Vec<AppliedManifestResourceMeta> {
    let others: Vec<&AppliedManifestResourceMeta> = records
        .iter()
        .filter(|r| r.metadata.name.as_deref() != Some(record))
        .flat_map(|r| r.status.iter().flat_map(|s| s.applied_resources.iter()))
        .collect();
    let listed_elsewhere = |meta: &AppliedManifestResourceMeta| {
        others.iter().any(|other| {
            if meta.uid.is_empty() || other.uid.is_empty() {
                Identity::of(other) == Identity::of(meta)
            } else {
                other.uid == meta.uid
            }
        })
    };
    resources.into_iter().filter(|meta| !listed_elsewhere(meta)).collect()
}

/// The API of a recorded resource (its kind is not recorded and not needed: requests
/// go by resource).
fn api_of(client: &Client, meta: &AppliedManifestResourceMeta) -> Api<DynamicObject> {
    let api_version =
        if meta.group.is_empty() { meta.version.clone() } else { format!("{}/{}", meta.group, meta.version) };
    let resource = ApiResource {
        group: meta.group.clone(),
        version: meta.version.clone(),
        api_version,
        kind: String::new(),
        plural: meta.resource.clone(),
    };
    if meta.namespace.is_empty() {
        Api::all_with(client.clone(), &resource)
    } else {
        Api::namespaced_with(client.clone(), &meta.namespace, &resource)
    }
}

fn describe(meta: &AppliedManifestResourceMeta) -> String {
    let resource =
        if meta.group.is_empty() { meta.resource.clone() } else { format!("{}.{}", meta.resource, meta.group) };
    if meta.namespace.is_empty() {
        format!("{resource} {}", meta.name)
    } else {
        format!("{resource} {}/{}", meta.namespace, meta.name)
    }
}

/// Deletes the resources (in the background, as upstream's work agent does — its
/// dependents are the garbage collector's, and the object goes at once where no
/// garbage collector runs — and only the very object that was applied: a uid
/// precondition leaves a same-named newcomer alone), then waits on watches, up to `wait`
/// in all, until they are gone (their own finalizers done). Returns those still there.
async fn delete_and_wait(
    client: &Client,
    resources: &[AppliedManifestResourceMeta],
    wait: Duration,
) -> Result<Vec<AppliedManifestResourceMeta>, WorkReconcileError> {
    let mut remaining = Vec::new();
    for meta in resources {
        let api = api_of(client, meta);
        let mut params = DeleteParams::background();
        if !meta.uid.is_empty() {
            params.preconditions = Some(Preconditions { uid: Some(meta.uid.clone()), resource_version: None });
        }
        match api.delete(&meta.name, &params).await {
            // The object back means it is marked for deletion but still there (finalizers
            // or dependents hold it); a Status back means it is gone.
            Ok(answer) => {
                if let Some(object) = answer.left() {
                    remaining.push((meta.clone(), object.uid().unwrap_or_default()));
                }
            }
            // Gone already, its kind no longer served, or replaced by an object that is
            // not ours (the uid precondition failed): nothing of ours is left.
            Err(kube::Error::Api(status)) if status.is_not_found() || status.code == 409 => {}
            Err(source) => {
                return Err(kube_error(format!("deleting {}", describe(meta)))(source).into());
            }
        }
    }
    let deadline = Instant::now() + wait;
    let mut left = Vec::new();
    for (meta, uid) in remaining {
        let gone = await_condition(api_of(client, &meta), &meta.name, conditions::is_deleted(&uid));
        match tokio::time::timeout_at(deadline, gone).await {
            Ok(Ok(_)) => {}
            Ok(Err(source)) => {
                return Err(WorkReconcileError::Wait { what: format!("deletion of {}", describe(&meta)), source });
            }
            Err(_) => left.push(meta),
        }
    }
    Ok(left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fleetctl_api::work::{OrphaningRule, SelectivelyOrphan};

    fn meta(resource: &str, name: &str, uid: &str) -> AppliedManifestResourceMeta {
        AppliedManifestResourceMeta {
            group: String::new(),
            version: "v1".into(),
            resource: resource.into(),
            namespace: "default".into(),
            name: name.into(),
            uid: uid.into(),
        }
    }

    #[test]
    fn a_record_lists_its_resources_by_group_version_resource_namespace_and_name_as_upstreams_reconciler_sorts_them() {
        let mut role = meta("roles", "r", "1");
        role.group = "rbac.authorization.k8s.io".into();
        let mut binding = meta("rolebindings", "b", "2");
        binding.group = role.group.clone();
        let mut deployment = meta("deployments", "d", "3");
        deployment.group = "apps".into();
        let account = meta("serviceaccounts", "sa", "4");
        let listed = listing([&account, &role, &binding, &deployment].into_iter());
        assert_eq!(listed, [account.clone(), deployment.clone(), binding.clone(), role.clone()]);
    }

    #[test]
    fn a_manifest_no_longer_listed_is_stale() {
        let recorded = [meta("configmaps", "a", "1"), meta("configmaps", "b", "2")];
        let plan = plan(&recorded, &[Tracking::Owned(meta("configmaps", "a", "1"))]);
        assert_eq!(plan.applied, [meta("configmaps", "a", "1")]);
        assert_eq!(plan.stale, [meta("configmaps", "b", "2")]);
    }

    #[test]
    fn a_recreated_object_replaces_its_record_without_being_stale() {
        let plan = plan(&[meta("configmaps", "a", "old")], &[Tracking::Owned(meta("configmaps", "a", "new"))]);
        assert_eq!(plan, Plan { applied: vec![meta("configmaps", "a", "new")], stale: vec![] });
    }

    #[test]
    fn a_failed_manifest_keeps_its_record() {
        let recorded = [meta("configmaps", "a", "1"), meta("widgets", "w", "2")];
        let tracking = [
            Tracking::Keep(Identity::of(&meta("configmaps", "a", ""))),
            Tracking::KeepLoose { group: String::new(), name: "w".into() },
        ];
        let plan = plan(&recorded, &tracking);
        assert_eq!(plan.applied, recorded);
        assert!(plan.stale.is_empty());
    }

    #[test]
    fn a_read_only_manifest_releases_its_record() {
        let plan =
            plan(&[meta("configmaps", "a", "1")], &[Tracking::Release(Identity::of(&meta("configmaps", "a", "")))]);
        assert_eq!(plan, Plan::default());
    }

    #[test]
    fn delete_options_choose_what_is_orphaned_as_upstreams_owned_by_the_work() {
        let (configmap, secret) =
            (Identity::of(&meta("configmaps", "a", "1")), Identity::of(&meta("secrets", "b", "2")));
        assert!(!orphaned(None, &configmap));
        let orphan = DeleteOption { propagation_policy: DeletePropagationPolicy::Orphan, ..DeleteOption::default() };
        assert!(orphaned(Some(&orphan), &configmap) && orphaned(Some(&orphan), &secret));
        let selective = DeleteOption {
            propagation_policy: DeletePropagationPolicy::SelectivelyOrphan,
            selectively_orphans: Some(SelectivelyOrphan {
                orphaning_rules: vec![OrphaningRule {
                    group: String::new(),
                    resource: "secrets".into(),
                    name: "b".into(),
                    namespace: "default".into(),
                }],
            }),
            ..DeleteOption::default()
        };
        assert!(!orphaned(Some(&selective), &configmap));
        assert!(orphaned(Some(&selective), &secret));
    }

    #[test]
    fn a_resource_another_record_lists_is_not_deleted_with_this_one_as_upstream_keeps_shared_resources() {
        let shared = meta("configmaps", "shared", "u1");
        let own = meta("configmaps", "own", "u2");
        let mut other = AppliedManifestWork::new("hub-other", Default::default());
        other.status = Some(fleetctl_api::work::AppliedManifestWorkStatus {
            applied_resources: vec![shared.clone()],
            ..Default::default()
        });
        let mut this = AppliedManifestWork::new("hub-this", Default::default());
        this.status = Some(fleetctl_api::work::AppliedManifestWorkStatus {
            applied_resources: vec![shared.clone(), own.clone()],
            ..Default::default()
        });
        let records = [other, this];
        let kept = not_shared(vec![shared.clone(), own.clone()], "hub-this", &records);
        assert_eq!(kept, std::slice::from_ref(&own));
        // Its own listing does not keep it.
        assert_eq!(not_shared(vec![own.clone()], "hub-this", &records[1..]), [own]);
    }

    #[test]
    fn a_resource_is_described_by_resource_group_and_place() {
        let mut deployment = meta("deployments", "d", "");
        deployment.group = "apps".into();
        assert_eq!(describe(&deployment), "deployments.apps default/d");
        deployment.namespace.clear();
        assert_eq!(describe(&deployment), "deployments.apps d");
    }
}
