//! Applied resources name their AppliedManifestWork in `ownerReferences`, as upstream's work
//! agent does: the owner reference says which records hold a resource, so a resource two works
//! (or two agents, or the records of two hubs) apply is only let go of, never deleted, while
//! another still holds it; a resource the work's deleteOption orphans carries no reference of
//! its record, so nothing removes it behind the work's back when the record goes.
//!
//! The reference is written by a merge patch guarded by the object's resourceVersion, never by
//! the manifest's server-side apply: a second applier under the same field manager (another
//! agent's record of the same object) would otherwise take the first one's reference away.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kube::{Resource, ResourceExt};
use serde_json::json;

use fleetctl_api::AppliedManifestWork;
use fleetctl_api::work::DEFAULT_FIELD_MANAGER;

/// The owner reference a record's resources carry.
pub fn owner_of(record: &AppliedManifestWork) -> OwnerReference {
    OwnerReference {
        api_version: AppliedManifestWork::api_version(&()).into_owned(),
        kind: AppliedManifestWork::kind(&()).into_owned(),
        name: record.name_any(),
        uid: record.uid().unwrap_or_default(),
        ..OwnerReference::default()
    }
}

/// Who holds a resource, by its owner references.
#[derive(Debug, PartialEq, Eq)]
pub enum Holders {
    /// No AppliedManifestWork names it (applied before owner references were written, or
    /// someone removed them): the records' lists decide.
    Unmarked,
    /// `owner` names it, and `others` other AppliedManifestWorks do too.
    Ours { others: usize },
    /// Only other AppliedManifestWorks name it: it is not this record's to delete.
    Others,
}

/// Who holds `object`, `owner` being this record's reference.
pub fn holders(object: &DynamicObject, owner: &OwnerReference) -> Holders {
    let records: Vec<&OwnerReference> = object
        .owner_references()
        .iter()
        .filter(|r| r.kind == owner.kind && r.api_version == owner.api_version)
        .collect();
    let ours = records.iter().any(|r| r.uid == owner.uid);
    match (records.is_empty(), ours) {
        (true, _) => Holders::Unmarked,
        (false, true) => Holders::Ours { others: records.len() - 1 },
        (false, false) => Holders::Others,
    }
}

/// `object`'s owner references with `owner` present (`held`) or absent; `None` when they
/// already are.
fn marked(object: &DynamicObject, owner: &OwnerReference, held: bool) -> Option<Vec<OwnerReference>> {
    let references = object.owner_references();
    let present = references.iter().any(|r| r.uid == owner.uid);
    match (held, present) {
        (true, false) => Some(references.iter().cloned().chain([owner.clone()]).collect()),
        (false, true) => Some(references.iter().filter(|r| r.uid != owner.uid).cloned().collect()),
        _ => None,
    }
}

/// How many times a reference write that lost a race (another writer moved the object: a
/// Deployment's controller writes its status right after it is made) reads again and retries.
const CONFLICT_RETRIES: usize = 4;

/// Makes `object` name `owner` among its owners (`held`) or not, writing only when that
/// changes; answers the object as it is then.
pub async fn mark(
    api: &Api<DynamicObject>,
    mut object: DynamicObject,
    owner: &OwnerReference,
    held: bool,
) -> Result<DynamicObject, kube::Error> {
    let name = object.name_any();
    let mut attempt = 0;
    loop {
        let Some(references) = marked(&object, owner, held) else {
            return Ok(object);
        };
        let patch = json!({"metadata": {
            "ownerReferences": references,
            "resourceVersion": object.resource_version(),
        }});
        let params = PatchParams { field_manager: Some(DEFAULT_FIELD_MANAGER.to_owned()), ..PatchParams::default() };
        match api.patch(&name, &params, &Patch::Merge(patch)).await {
            Err(kube::Error::Api(status)) if status.code == 409 && attempt < CONFLICT_RETRIES => {
                attempt += 1;
                object = api.get(&name).await?;
            }
            answer => return answer,
        }
    }
}

#[cfg(test)]
mod tests {
    use kube::api::ObjectMeta;

    use super::*;

    fn reference(uid: &str) -> OwnerReference {
        OwnerReference {
            api_version: "work.open-cluster-management.io/v1".into(),
            kind: "AppliedManifestWork".into(),
            name: format!("hash-{uid}"),
            uid: uid.into(),
            ..OwnerReference::default()
        }
    }

    fn object(owners: Vec<OwnerReference>) -> DynamicObject {
        let mut object =
            DynamicObject::new("cm", &kube::api::ApiResource::erase::<k8s_openapi::api::core::v1::ConfigMap>(&()));
        object.metadata =
            ObjectMeta { name: Some("cm".into()), owner_references: Some(owners), ..ObjectMeta::default() };
        object
    }

    #[test]
    fn an_applied_resource_gains_its_records_reference_beside_others_as_upstreams_merge_of_owner_references() {
        let deployment = OwnerReference { kind: "Deployment".into(), uid: "d".into(), ..reference("d") };
        let existing = object(vec![deployment.clone(), reference("a")]);
        assert_eq!(
            marked(&existing, &reference("b"), true),
            Some(vec![deployment.clone(), reference("a"), reference("b")])
        );
        assert_eq!(marked(&existing, &reference("a"), true), None);
        assert_eq!(marked(&existing, &reference("a"), false), Some(vec![deployment]));
        assert_eq!(marked(&existing, &reference("b"), false), None);
    }

    #[test]
    fn only_applied_manifest_work_references_count_as_holders_as_upstreams_other_owners_check() {
        let deployment = OwnerReference { kind: "Deployment".into(), uid: "d".into(), ..reference("d") };
        assert_eq!(holders(&object(vec![deployment.clone()]), &reference("a")), Holders::Unmarked);
        assert_eq!(holders(&object(vec![deployment, reference("a")]), &reference("a")), Holders::Ours { others: 0 });
        assert_eq!(
            holders(&object(vec![reference("a"), reference("b")]), &reference("a")),
            Holders::Ours { others: 1 }
        );
        assert_eq!(holders(&object(vec![reference("b")]), &reference("a")), Holders::Others);
    }
}
