//! What every controller of fleetctl shares — the hub's, the klusterlet operator's and the
//! work agent's: one error for a failed API call (with what was being done), writes that
//! make no change when nothing changed, and the classes of failure the error policy of
//! [`controller`](crate::controller) tells apart.

use std::fmt::Debug;
use std::time::Duration;

use kube::api::{Api, DeleteParams, Patch, PatchParams};
use kube::runtime::finalizer;
use kube::{Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A Kubernetes API call that failed, and what was being done (in lower case).
#[derive(Debug, thiserror::Error)]
#[error("{action}")]
pub struct KubeError {
    /// What was being done.
    pub action: String,
    /// The cause.
    #[source]
    pub source: kube::Error,
}

impl KubeError {
    /// The HTTP status the API server answered with, if it answered.
    pub fn code(&self) -> Option<u16> {
        match &self.source {
            kube::Error::Api(status) => Some(status.code),
            _ => None,
        }
    }
}

/// Wraps a kube error with what was being done: `.map_err(kube_error("reading x"))`.
pub fn kube_error(action: impl Into<String>) -> impl FnOnce(kube::Error) -> KubeError {
    let action = action.into();
    move |source| KubeError { action, source }
}

/// The kind of `K`, for messages.
pub(crate) fn kind<K: Resource>() -> String
where
    K::DynamicType: Default,
{
    K::kind(&K::DynamicType::default()).into_owned()
}

/// The field manager a component writes as: the fields it server-side applies stay its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldManager(pub &'static str);

impl FieldManager {
    /// Server-side applies `object`, forcing ownership of the fields it sets; the server
    /// writes nothing when nothing changed.
    pub async fn apply<K>(self, api: &Api<K>, object: &K) -> Result<K, KubeError>
    where
        K: Resource + Serialize + DeserializeOwned + Clone + Debug,
        K::DynamicType: Default,
    {
        let name = object.name_any();
        api.patch(&name, &PatchParams::apply(self.0).force(), &Patch::Apply(object))
            .await
            .map_err(kube_error(format!("applying {} {name}", kind::<K>())))
    }
}

/// Deletes an object; one that is already gone is fine.
pub async fn delete<K>(api: &Api<K>, name: &str, params: &DeleteParams) -> Result<(), KubeError>
where
    K: Resource + Clone + DeserializeOwned + Debug,
    K::DynamicType: Default,
{
    match api.delete(name, params).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
        Err(e) => Err(kube_error(format!("deleting {} {name}", kind::<K>()))(e)),
    }
}

/// Removes every finalizer of an object that is going (a force path); one that is already
/// gone is fine.
pub async fn strip_finalizers<K>(api: &Api<K>, name: &str) -> Result<(), KubeError>
where
    K: Resource + Clone + DeserializeOwned + Debug,
    K::DynamicType: Default,
{
    let patch = Patch::Merge(serde_json::json!({"metadata": {"finalizers": null}}));
    match api.patch(name, &PatchParams::default(), &patch).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
        Err(e) => Err(kube_error(format!("removing the finalizers of {} {name}", kind::<K>()))(e)),
    }
}

/// How the error policy treats a failed reconcile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Someone else wrote first (409): the next pass starts from the newer object.
    Conflict,
    /// Not a failure: the reconcile waits for something that is on its way (a deletion
    /// waiting for agents to leave), and its watches bring it back.
    Waiting,
    /// Anything else: worth a warning, retried.
    Failed,
}

/// A controller's reconcile error, classified for the error policy of
/// [`controller`](crate::controller).
pub trait ReconcileError: std::error::Error {
    /// The class of this error.
    fn failure(&self) -> Failure;

    /// When to look again, if this error knows better than the object's back-off (a wait
    /// with a deadline).
    fn retry_after(&self) -> Option<Duration> {
        None
    }
}

impl ReconcileError for KubeError {
    fn failure(&self) -> Failure {
        if self.code() == Some(409) { Failure::Conflict } else { Failure::Failed }
    }
}

/// A reconcile that ran under kube-runtime's [`finalizer()`](finalizer::finalizer): its own
/// error inside, or a finalizer write that failed.
impl<E: ReconcileError + 'static> ReconcileError for finalizer::Error<E> {
    fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::ApplyFailed(e) | Self::CleanupFailed(e) => e.retry_after(),
            _ => None,
        }
    }

    fn failure(&self) -> Failure {
        match self {
            Self::ApplyFailed(e) | Self::CleanupFailed(e) => e.failure(),
            // kube-runtime writes a finalizer with a JSON patch that first tests the list
            // it read: a list another writer changed meanwhile fails the test, which the
            // API server answers 422 Invalid.
            Self::AddFinalizer(kube::Error::Api(status)) | Self::RemoveFinalizer(kube::Error::Api(status))
                if status.code == 409 || status.code == 422 =>
            {
                Failure::Conflict
            }
            // Another writer removed the last finalizer first (a hub's cleanup of a detached
            // cluster's works): the object is gone, which is what the removal was for.
            Self::RemoveFinalizer(kube::Error::Api(status)) if status.code == 404 => Failure::Conflict,
            _ => Failure::Failed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::core::Status;

    fn api_error(code: u16) -> kube::Error {
        kube::Error::Api(Status::failure("refused", "Invalid").with_code(code).boxed())
    }

    #[test]
    fn a_finalizer_write_that_lost_a_race_is_a_conflict_and_other_refusals_are_failures() {
        let lost: finalizer::Error<KubeError> = finalizer::Error::AddFinalizer(api_error(422));
        assert_eq!(lost.failure(), Failure::Conflict, "the JSON patch's test of the list failed");
        let removed: finalizer::Error<KubeError> = finalizer::Error::RemoveFinalizer(api_error(409));
        assert_eq!(removed.failure(), Failure::Conflict);
        let gone: finalizer::Error<KubeError> = finalizer::Error::RemoveFinalizer(api_error(404));
        assert_eq!(gone.failure(), Failure::Conflict, "removed by another writer, object and all");
        let forbidden: finalizer::Error<KubeError> = finalizer::Error::AddFinalizer(api_error(403));
        assert_eq!(forbidden.failure(), Failure::Failed);
        let applied = KubeError { action: "applying".into(), source: api_error(422) };
        assert_eq!(applied.failure(), Failure::Failed, "a 422 of an apply is invalid input, not a race");
    }
}
