//! Waiting on an object's state with a watch and a deadline.

use std::fmt::Debug;
use std::time::Duration;

use kube::Resource;
use kube::api::Api;
use kube::runtime::wait::await_condition;
use serde::de::DeserializeOwned;

use super::LifecycleError;

/// Waits until `check` holds for object `name` (or its absence), at most `timeout`.
pub async fn wait_for<K>(
    api: Api<K>,
    name: &str,
    what: &str,
    timeout: Duration,
    check: impl Fn(Option<&K>) -> bool + Send + 'static,
) -> Result<Option<K>, LifecycleError>
where
    K: Resource + Clone + Debug + DeserializeOwned + Send + 'static,
{
    let ready = await_condition(api, name, move |o: Option<&K>| check(o));
    match tokio::time::timeout(timeout, ready).await {
        Ok(Ok(object)) => Ok(object),
        Ok(Err(source)) => Err(LifecycleError::Watch { what: what.to_string(), source }),
        Err(_) => Err(LifecycleError::Timeout { what: what.to_string(), after: timeout }),
    }
}
