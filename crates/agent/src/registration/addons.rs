//! The addon relay: the registration agent carries each addon's health and report to its
//! ManagedClusterAddOn on the hub, so addon agents need no hub credentials.
//!
//! Each addon agent renews Lease `<addon>` and writes ConfigMap `<addon>-status` in the
//! addon namespace of its own cluster (`crate::addon`). The relay watches those and the
//! cluster's ManagedClusterAddOns on the hub, and writes (only when something changed):
//! - `Available`: True `ManagedClusterAddOnLeaseUpdated` with the addon's summary while
//!   the lease is fresh; Unknown `ManagedClusterAddOnLeaseUpdateStopped` once it is older
//!   than [`GRACE_PERIODS`] lease durations; False `ManagedClusterAddOnLeaseNotFound`
//!   without a lease — as upstream's lease health check says;
//! - [`REPORT_CONDITION`]: the addon's JSON report, True (`Compliant`/`Reported`) or False
//!   (`NonCompliant`).
//!
//! Everything is driven by watch events, plus one timer for the earliest moment a fresh
//! lease turns stale, so a silent addon turns Unknown right after its grace.

use std::time::Duration;

use futures::StreamExt;
use futures::stream::BoxStream;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::api::Api;
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::watcher;
use kube::{Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;

use crate::addon::{GRACE_PERIODS, KEY_COMPLIANT, KEY_REPORT, KEY_SUMMARY};
use fleetctl_api::ManagedClusterAddOn;
use fleetctl_api::addon::status_name;
use fleetctl_api::conditions::{self as c, LABEL_ADDON_NAME};
use fleetctl_kube::backoff::{Backoff, Exponential};
use fleetctl_kube::watch::BackedOff as _;
use fleetctl_kube::{KubeError, update_conditions};

/// The condition carrying an addon's report (ours: upstream has no such condition).
pub const REPORT_CONDITION: &str = "fleetctl.io/Report";
/// Longest condition message the API accepts.
const MAX_MESSAGE: usize = 32_768;
/// Quiet time after an event before the statuses are compared, so a burst is one pass.
const DEBOUNCE: Duration = Duration::from_millis(50);

/// A watched kind, as one stream of "something changed" (true once the first list is in).
fn watched<K>(api: Api<K>, config: watcher::Config) -> (Store<K>, BoxStream<'static, bool>)
where
    K: Resource + Clone + DeserializeOwned + std::fmt::Debug + Send + Sync + 'static,
    K::DynamicType: Default + Eq + std::hash::Hash + Clone,
{
    let (reader, writer) = reflector::store();
    let stream = reflector::reflector(writer, watcher(api, config))
        .backed_off()
        .map(|event| matches!(event, Ok(watcher::Event::InitDone)))
        .boxed();
    (reader, stream)
}

/// Relays the addons of `cluster` until dropped. `addon_namespace` is where the addon
/// agents keep their leases and status ConfigMaps on the managed cluster.
pub async fn relay(local: Client, hub: Client, cluster: String, addon_namespace: String) {
    let addons_api: Api<ManagedClusterAddOn> = Api::namespaced(hub, &cluster);
    let labelled = || watcher::Config::default().labels(LABEL_ADDON_NAME);
    let (addons, addon_events) = watched(addons_api.clone(), watcher::Config::default());
    let (leases, lease_events) = watched(Api::<Lease>::namespaced(local.clone(), &addon_namespace), labelled());
    let (configmaps, configmap_events) = watched(Api::<ConfigMap>::namespaced(local, &addon_namespace), labelled());
    let tagged = [addon_events, lease_events, configmap_events]
        .into_iter()
        .enumerate()
        .map(|(i, s)| s.map(move |listed| (i, listed)).boxed());
    let mut events = futures::stream::select_all(tagged);
    let mut listed = [false; 3];
    let mut wake: Option<jiff::Timestamp> = None;
    // An addon whose status write failed is written again after its own back-off.
    let retries: Backoff<String> = Backoff::new(Exponential::CONTROLLER);
    loop {
        let timer = async {
            match wake {
                Some(at) => tokio::time::sleep(at.duration_since(jiff::Timestamp::now()).unsigned_abs()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            event = events.next() => match event {
                Some((i, done)) => listed[i] |= done,
                None => return,
            },
            () = timer => {}
        }
        // Deciding on half-loaded caches would flap addons to LeaseNotFound.
        if !listed.iter().all(|l| *l) {
            continue;
        }
        tokio::time::sleep(DEBOUNCE).await;
        let now = jiff::Timestamp::now();
        wake = None;
        for addon in addons.state() {
            if addon.meta().deletion_timestamp.is_some() {
                continue;
            }
            let name = addon.name_any();
            let lease = leases.get(&ObjectRef::new(&name).within(&addon_namespace));
            let status = configmaps.get(&ObjectRef::new(&status_name(&name)).within(&addon_namespace));
            let health = health(lease.as_deref(), now);
            if let Some(stale_at) = health.stale_at {
                wake = Some(wake.map_or(stale_at, |w| w.min(stale_at)));
            }
            let wanted = conditions(&name, &health, status.as_deref());
            match write(&addons_api, &addon, &wanted).await {
                Ok(()) => retries.succeeded(&name),
                Err(e) => {
                    let retry_in = retries.failed(&name);
                    tracing::warn!(addon = %name, error = %e, ?retry_in, "relaying the addon status failed");
                    let retry_at = jiff::SignedDuration::try_from(retry_in).ok().and_then(|d| now.checked_add(d).ok());
                    let retry_at = retry_at.unwrap_or(now);
                    wake = Some(wake.map_or(retry_at, |w| w.min(retry_at)));
                }
            }
        }
    }
}

/// What the lease says about an addon.
#[derive(Debug, Clone, PartialEq)]
pub struct Health {
    /// `Available` status.
    pub status: &'static str,
    /// Its reason.
    pub reason: &'static str,
    /// When a fresh lease turns stale (the relay wakes then).
    pub stale_at: Option<jiff::Timestamp>,
}

/// An addon's health at `now` from its lease: fresh within [`GRACE_PERIODS`] lease
/// durations of its last renewal.
pub fn health(lease: Option<&Lease>, now: jiff::Timestamp) -> Health {
    let Some(spec) = lease.and_then(|l| l.spec.as_ref()) else {
        return Health { status: c::FALSE, reason: c::REASON_ADDON_LEASE_NOT_FOUND, stale_at: None };
    };
    let period = spec.lease_duration_seconds.unwrap_or(i32::try_from(crate::addon::DEFAULT_LEASE_SECONDS).unwrap_or(5));
    let grace = jiff::SignedDuration::from_secs(i64::from(period.max(1)) * i64::from(GRACE_PERIODS));
    let stale_at = spec.renew_time.as_ref().and_then(|t| t.0.checked_add(grace).ok());
    match stale_at {
        Some(at) if at > now => Health { status: c::TRUE, reason: c::REASON_ADDON_LEASE_UPDATED, stale_at: Some(at) },
        _ => Health { status: c::UNKNOWN, reason: c::REASON_ADDON_LEASE_UPDATE_STOPPED, stale_at: None },
    }
}

/// The conditions the relay wants on an addon: Available, and the report if there is one.
pub fn conditions(addon: &str, health: &Health, status: Option<&ConfigMap>) -> Vec<Condition> {
    let data = status.and_then(|cm| cm.data.as_ref());
    let value = |key: &str| data.and_then(|d| d.get(key)).filter(|v| !v.is_empty());
    let message = match health.reason {
        c::REASON_ADDON_LEASE_UPDATED => {
            value(KEY_SUMMARY).cloned().unwrap_or_else(|| format!("{addon} add-on is available."))
        }
        c::REASON_ADDON_LEASE_UPDATE_STOPPED => format!("{addon} add-on is not available."),
        _ => format!("The status of {addon} add-on is unknown."),
    };
    let mut wanted = vec![c::new_condition(c::ADDON_AVAILABLE, health.status, health.reason, truncate(message))];
    if let Some(report) = value(KEY_REPORT) {
        let (status, reason) = match value(KEY_COMPLIANT).map(String::as_str) {
            Some("false") => (c::FALSE, "NonCompliant"),
            Some("true") => (c::TRUE, "Compliant"),
            _ => (c::TRUE, "Reported"),
        };
        // A report too long for a condition is replaced by its summary, never cut (cut
        // JSON would not parse).
        let message =
            if report.len() <= MAX_MESSAGE { report.clone() } else { value(KEY_SUMMARY).cloned().unwrap_or_default() };
        wanted.push(c::new_condition(REPORT_CONDITION, status, reason, truncate(message)));
    }
    wanted
}

fn truncate(mut message: String) -> String {
    if message.len() > MAX_MESSAGE {
        let mut end = MAX_MESSAGE;
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        message.truncate(end);
    }
    message
}

/// Writes the wanted conditions when they differ from the addon's (see
/// [`update_conditions`]: the hub's addon controller writes other conditions of it).
async fn write(
    api: &Api<ManagedClusterAddOn>,
    addon: &ManagedClusterAddOn,
    wanted: &[Condition],
) -> Result<(), KubeError> {
    match update_conditions(api, addon, |conditions| c::set_conditions(conditions, wanted)).await {
        Ok(_) => Ok(()),
        // Gone meanwhile: nothing to report on.
        Err(e) if e.code() == Some(404) => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::coordination::v1::LeaseSpec;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
    use std::collections::BTreeMap;

    fn lease(renewed: jiff::Timestamp, seconds: i32) -> Lease {
        Lease {
            spec: Some(LeaseSpec {
                renew_time: Some(MicroTime(renewed)),
                lease_duration_seconds: Some(seconds),
                ..LeaseSpec::default()
            }),
            ..Lease::default()
        }
    }

    #[test]
    fn a_lease_is_fresh_for_three_periods() {
        let now = jiff::Timestamp::from_second(1_000_000).unwrap();
        let fresh = health(Some(&lease(now - jiff::SignedDuration::from_secs(14), 5)), now);
        assert_eq!((fresh.status, fresh.reason), (c::TRUE, c::REASON_ADDON_LEASE_UPDATED));
        assert_eq!(fresh.stale_at, Some(now + jiff::SignedDuration::from_secs(1)));
        let stale = health(Some(&lease(now - jiff::SignedDuration::from_secs(16), 5)), now);
        assert_eq!((stale.status, stale.reason), (c::UNKNOWN, c::REASON_ADDON_LEASE_UPDATE_STOPPED));
        let none = health(None, now);
        assert_eq!((none.status, none.reason), (c::FALSE, c::REASON_ADDON_LEASE_NOT_FOUND));
    }

    #[test]
    fn the_summary_and_report_reach_the_conditions() {
        let now = jiff::Timestamp::now();
        let fresh = health(Some(&lease(now, 5)), now);
        let status = ConfigMap {
            data: Some(BTreeMap::from([
                ("summary".to_string(), "NonCompliant: expired: a/b".to_string()),
                ("report".to_string(), "{\"expired\":[\"a/b\"]}".to_string()),
                ("compliant".to_string(), "false".to_string()),
            ])),
            ..ConfigMap::default()
        };
        let wanted = conditions("cert-policy-controller", &fresh, Some(&status));
        assert_eq!(wanted[0].message, "NonCompliant: expired: a/b");
        assert_eq!(wanted[1].type_, REPORT_CONDITION);
        assert_eq!((wanted[1].status.as_str(), wanted[1].reason.as_str()), ("False", "NonCompliant"));
        let without = conditions("search-collector", &fresh, None);
        assert_eq!(without.len(), 1);
        assert_eq!(without[0].message, "search-collector add-on is available.");
    }
}
