//! The controller runtime every controller of fleetctl runs on — the hub's, the klusterlet
//! operator's and the work agent's: kube-runtime's [`Controller`] (watches, queue,
//! concurrency, requeues) with one error policy, each object retried after a back-off of
//! its own ([`Backoff`]: one second doubling to five minutes, which a success resets), and
//! every reconcile counted in the controller's metrics.
//!
//! A controller module builds its [`Controller`] — what it watches and how a watched object
//! maps to what it reconciles — and hands it to [`run`] with its reconcile; the process that
//! hosts it only runs it (OCM's hub manager shape: the manager instantiates, each controller
//! names its informers).

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;

use futures::{Stream, StreamExt};
use kube::Resource;
use kube::runtime::controller::{self, Action, Controller};
use kube::runtime::reflector::ObjectRef;
use kube::runtime::watcher;
use serde::de::DeserializeOwned;

use crate::backoff::{Backoff, Exponential};
use crate::errors::chain;
use crate::reconcile::{Failure, ReconcileError};
use crate::runner::metrics::{ControllerMetrics, Outcome, Registry};

/// What a controller's stream of results yields: the object reconciled and what came of
/// it, or an error of the queue or of a reconcile.
pub type Reconciled<K, E> = Result<(ObjectRef<K>, Action), controller::Error<E, watcher::Error>>;

/// A controller's name, counters and back-off, shared by its reconciles and its error policy.
struct Runtime<K: Resource<DynamicType = ()>> {
    name: &'static str,
    metrics: Arc<ControllerMetrics>,
    backoff: Backoff<ObjectRef<K>>,
}

impl<K: Resource<DynamicType = ()>> Runtime<K> {
    /// One reconcile, counted; a success resets the object's back-off.
    async fn reconcile<E: ReconcileError>(
        &self,
        object: &K,
        pass: impl Future<Output = Result<Action, E>>,
    ) -> Result<Action, E> {
        let result = measured(&self.metrics, pass).await;
        if result.is_ok() {
            self.backoff.succeeded(&ObjectRef::from_obj(object));
        }
        result
    }

    /// The error policy: when the error names a time to look again (a wait with a
    /// deadline), then; otherwise after the object's next back-off. Logged by class: a
    /// conflict or a wait at debug level, anything else as a warning.
    fn error_policy<E: ReconcileError>(&self, object: &K, error: &E) -> Action {
        let delay = self.retry_in(object, error);
        let controller = self.name;
        match error.failure() {
            Failure::Conflict => {
                tracing::debug!(controller, error = %chain(error), retry_in = ?delay, "write conflict")
            }
            Failure::Waiting => tracing::debug!(controller, reason = %chain(error), retry_in = ?delay, "waiting"),
            Failure::Failed => tracing::warn!(controller, error = %chain(error), retry_in = ?delay, "reconcile failed"),
        }
        Action::requeue(delay)
    }

    /// How long the error policy waits before `object` is reconciled again after `error`.
    fn retry_in<E: ReconcileError>(&self, object: &K, error: &E) -> std::time::Duration {
        error.retry_after().unwrap_or_else(|| self.backoff.failed(&ObjectRef::from_obj(object)))
    }
}

/// Runs `controller` with `reconcile` under the runtime, named `name` in logs and in
/// `metrics`; the stream of what each reconcile did (see [`run`] for a controller whose
/// results nobody reads).
pub fn results<K, C, E, Fut>(
    controller: Controller<K>,
    name: &'static str,
    metrics: &Registry,
    mut reconcile: impl FnMut(Arc<K>, Arc<C>) -> Fut + Send,
    ctx: Arc<C>,
) -> impl Stream<Item = Reconciled<K, E>> + Send
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    C: Send + Sync + 'static,
    E: ReconcileError + Send + 'static,
    Fut: Future<Output = Result<Action, E>> + Send + 'static,
{
    let runtime: Arc<Runtime<K>> =
        Arc::new(Runtime { name, metrics: metrics.controller(name), backoff: Backoff::new(Exponential::CONTROLLER) });
    let policy = runtime.clone();
    controller.run(
        move |object, ctx| {
            let pass = reconcile(object.clone(), ctx);
            let runtime = runtime.clone();
            async move { runtime.reconcile(object.as_ref(), pass).await }
        },
        move |object, error, _| policy.error_policy(object.as_ref(), error),
        ctx,
    )
}

/// Runs `controller` as [`results`] does, until the returned future is dropped or the
/// controller's watches end.
pub async fn run<K, C, E, Fut>(
    controller: Controller<K>,
    name: &'static str,
    metrics: &Registry,
    reconcile: impl FnMut(Arc<K>, Arc<C>) -> Fut + Send,
    ctx: Arc<C>,
) where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    C: Send + Sync + 'static,
    E: ReconcileError + Send + 'static,
    Fut: Future<Output = Result<Action, E>> + Send + 'static,
{
    results(controller, name, metrics, reconcile, ctx)
        .for_each(|result| async move {
            if let Err(error) = result {
                // Failed reconciles were logged by the error policy; what is left is the
                // queue's own news, such as an object that went away before its turn.
                tracing::debug!(controller = name, error = %chain(&error), "controller");
            }
        })
        .await;
}

/// Runs one reconcile counted in `metrics`: in flight while it runs (even if it is
/// cancelled, the gauge comes down), then its [`Outcome`].
async fn measured<T, E: ReconcileError>(
    metrics: &ControllerMetrics,
    reconcile: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    let in_flight = metrics.start();
    let result = reconcile.await;
    drop(in_flight);
    metrics.reconciled(match &result {
        Ok(_) => Outcome::Done,
        Err(e) if e.failure() == Failure::Waiting => Outcome::Waiting,
        Err(_) => Outcome::Failed,
    });
    result
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use k8s_openapi::api::core::v1::ConfigMap;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("{failure:?}")]
    struct Failed {
        failure: Failure,
        retry_after: Option<Duration>,
    }

    impl ReconcileError for Failed {
        fn failure(&self) -> Failure {
            self.failure
        }

        fn retry_after(&self) -> Option<Duration> {
            self.retry_after
        }
    }

    fn object(name: &str) -> ConfigMap {
        ConfigMap { metadata: ObjectMeta { name: Some(name.into()), ..ObjectMeta::default() }, ..ConfigMap::default() }
    }

    fn runtime() -> Runtime<ConfigMap> {
        Runtime {
            name: "test",
            metrics: Arc::new(ControllerMetrics::default()),
            backoff: Backoff::new(Exponential::CONTROLLER),
        }
    }

    /// Whether `delay` is `seconds`, give or take the back-off's jitter (up to a quarter more).
    fn about(delay: Duration, seconds: u64) -> bool {
        let expected = Duration::from_secs(seconds);
        delay >= expected && delay <= expected + expected / 4
    }

    #[tokio::test]
    async fn a_failing_reconcile_backs_off_exponentially_per_object_and_resets_on_success() {
        let runtime = runtime();
        let (broken, healthy) = (object("broken"), object("healthy"));
        let error = || Failed { failure: Failure::Failed, retry_after: None };
        for seconds in [1, 2, 4, 8] {
            let delay = runtime.retry_in(&broken, &error());
            assert!(about(delay, seconds), "{delay:?} instead of {seconds} s");
        }
        assert!(about(runtime.retry_in(&healthy, &error()), 1), "each object backs off on its own");

        let passed = runtime.reconcile(&broken, async { Ok::<_, Failed>(Action::await_change()) }).await;
        assert!(passed.is_ok());
        assert!(about(runtime.retry_in(&broken, &error()), 1), "a success starts the back-off over");
        assert_eq!(runtime.metrics.reconciles(), 1);
    }

    #[test]
    fn a_wait_that_names_its_time_is_not_backed_off() {
        let runtime = runtime();
        let waiting = Failed { failure: Failure::Waiting, retry_after: Some(Duration::from_millis(100)) };
        for _ in 0..3 {
            assert_eq!(runtime.retry_in(&object("going"), &waiting), Duration::from_millis(100));
        }
        assert_eq!(runtime.backoff.failures(&ObjectRef::from_obj(&object("going"))), 0);
    }
}
