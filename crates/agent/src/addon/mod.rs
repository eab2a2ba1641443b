//! The addon agents (`fleetctld addon <name>`), one Deployment each in
//! `open-cluster-management-agent-addon` on a managed cluster.
//!
//! An addon agent holds no hub credentials. It keeps two objects on its own cluster:
//! a Lease `<addon>` it renews every few seconds (its health) and a ConfigMap
//! `<addon>-status` with its report (`summary`, one line; `report`, JSON; `compliant`,
//! for the policy addons). The registration agent, which already talks to the hub,
//! relays both to the addon's ManagedClusterAddOn status
//! (`crate::registration::addons`).

pub mod cert;
pub mod iam;
pub mod search;

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::Client;
use kube::api::{Api, Patch, PatchParams};
use serde_json::{Value, json};
use tokio::sync::watch;

use fleetctl_api::addon::{CERT_POLICY_CONTROLLER, IAM_POLICY_CONTROLLER, SEARCH_COLLECTOR, status_name};
use fleetctl_api::conditions::LABEL_ADDON_NAME;
use fleetctl_kube::backoff::Exponential;
use fleetctl_kube::runner::shutdown_signal;
use fleetctl_kube::{ConfigError, Selection};

/// Key of the one-line summary in the status ConfigMap.
pub const KEY_SUMMARY: &str = "summary";
/// Key of the JSON report in the status ConfigMap.
pub const KEY_REPORT: &str = "report";
/// Key of `"true"`/`"false"` in the status ConfigMap of a policy addon.
pub const KEY_COMPLIANT: &str = "compliant";

/// Default renewal period of an addon's lease; the registration agent calls the addon
/// Unknown after [`GRACE_PERIODS`] of them without a renewal. Small, so a dead addon
/// shows within seconds on a dev environment.
pub const DEFAULT_LEASE_SECONDS: u64 = 5;
/// How many lease periods without a renewal make an addon Unknown.
pub const GRACE_PERIODS: u32 = 3;

/// Field manager of the addon agents' writes.
const FIELD_MANAGER: &str = "fleetctl-addon";
/// Quiet time before a changed report is written, so a burst of events makes one write.
const DEBOUNCE: Duration = Duration::from_millis(200);

/// What an addon found.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// One line for people (the ManagedClusterAddOn's Available message).
    pub summary: String,
    /// The details, as JSON.
    pub report: Value,
    /// For policy addons: whether the cluster complies.
    pub compliant: Option<bool>,
}

impl Report {
    /// The ConfigMap data of this report.
    pub fn data(&self) -> BTreeMap<String, String> {
        let mut data = BTreeMap::from([
            (KEY_SUMMARY.to_string(), self.summary.clone()),
            (KEY_REPORT.to_string(), self.report.to_string()),
        ]);
        if let Some(compliant) = self.compliant {
            data.insert(KEY_COMPLIANT.to_string(), compliant.to_string());
        }
        data
    }
}

/// Which addon to run, with its settings.
#[derive(Debug, Clone)]
pub enum AddonKind {
    /// Counts objects by kind and namespace.
    Search,
    /// Reports TLS certificates expiring within `window` (or expired).
    Cert {
        /// How far ahead an expiry makes a certificate non-compliant.
        window: Duration,
    },
    /// Reports the subjects bound to `cluster-admin`.
    Iam {
        /// More subjects than this is non-compliant.
        max: usize,
    },
}

impl AddonKind {
    /// The addon's name (its ManagedClusterAddOn, Deployment, Lease).
    pub fn name(&self) -> &'static str {
        match self {
            Self::Search => SEARCH_COLLECTOR,
            Self::Cert { .. } => CERT_POLICY_CONTROLLER,
            Self::Iam { .. } => IAM_POLICY_CONTROLLER,
        }
    }
}

/// What an addon agent needs.
#[derive(Debug, Clone)]
pub struct AddonOptions {
    /// The managed cluster (in-cluster config inside a pod).
    pub local: Selection,
    /// The addon namespace (the Pod's).
    pub namespace: String,
    /// How often the lease is renewed.
    pub lease_interval: Duration,
    /// The addon.
    pub kind: AddonKind,
}

/// Why an addon agent stopped.
#[derive(Debug, thiserror::Error)]
pub enum AddonError {
    /// No client for the managed cluster.
    #[error("connecting to the managed cluster")]
    Config(#[from] ConfigError),
}

/// Sends `report` to the publisher unless it is what was sent last.
pub(crate) fn offer(reports: &watch::Sender<Option<Report>>, report: Report) {
    reports.send_if_modified(|current| {
        if current.as_ref() == Some(&report) {
            return false;
        }
        *current = Some(report);
        true
    });
}

/// Runs an addon agent until SIGTERM. Failed writes are retried; they never end it.
pub async fn run(options: AddonOptions) -> Result<(), AddonError> {
    let (client, _) = fleetctl_kube::client(&options.local).await?;
    let name = options.kind.name();
    let (reports, published) = watch::channel(None);
    let scan = async {
        match &options.kind {
            AddonKind::Search => search::run(client.clone(), reports).await,
            AddonKind::Cert { window } => cert::run(client.clone(), *window, reports).await,
            AddonKind::Iam { max } => iam::run(client.clone(), *max, reports).await,
        }
    };
    tracing::info!(addon = name, namespace = %options.namespace, "addon agent started");
    tokio::select! {
        () = renew(&client, &options.namespace, name, options.lease_interval) => {}
        () = publish(&client, &options.namespace, name, published) => {}
        () = scan => {}
        _ = shutdown_signal() => {}
    }
    Ok(())
}

/// Renews Lease `<addon>` every `interval` (the addon's health).
async fn renew(client: &Client, namespace: &str, addon: &str, interval: Duration) {
    let leases: Api<Lease> = Api::namespaced(client.clone(), namespace);
    let seconds = i64::try_from(interval.as_secs().max(1)).unwrap_or(i64::MAX);
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S.%6fZ").to_string();
        let lease = json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": addon, "namespace": namespace, "labels": {LABEL_ADDON_NAME: addon}},
            "spec": {"holderIdentity": addon, "leaseDurationSeconds": seconds, "renewTime": now},
        });
        if let Err(e) = leases.patch(addon, &PatchParams::apply(FIELD_MANAGER).force(), &Patch::Apply(&lease)).await {
            tracing::warn!(error = %e, "renewing the addon lease failed");
        }
    }
}

/// Writes ConfigMap `<addon>-status` whenever the report changes (and again after a
/// failed write).
async fn publish(client: &Client, namespace: &str, addon: &str, mut reports: watch::Receiver<Option<Report>>) {
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), namespace);
    let name = status_name(addon);
    loop {
        if reports.changed().await.is_err() {
            // The scanner is gone; the select in `run` ends the agent.
            return std::future::pending().await;
        }
        tokio::time::sleep(DEBOUNCE).await;
        let Some(report) = reports.borrow_and_update().clone() else { continue };
        let object = json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace, "labels": {LABEL_ADDON_NAME: addon}},
            "data": report.data(),
        });
        let mut failures = 0;
        loop {
            match configmaps.patch(&name, &PatchParams::apply(FIELD_MANAGER).force(), &Patch::Apply(&object)).await {
                Ok(_) => {
                    tracing::info!(summary = %report.summary, "report written");
                    break;
                }
                Err(e) => {
                    failures += 1;
                    let retry_in = Exponential::CONTROLLER.delay(failures);
                    tracing::warn!(error = %e, ?retry_in, "writing the addon status failed");
                    tokio::time::sleep(retry_in).await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_becomes_configmap_data() {
        let report = Report { summary: "ok".into(), report: json!({"a": 1}), compliant: Some(false) };
        let data = report.data();
        assert_eq!(data["summary"], "ok");
        assert_eq!(data["report"], r#"{"a":1}"#);
        assert_eq!(data["compliant"], "false");
        let search = Report { compliant: None, ..report };
        assert!(!search.data().contains_key("compliant"));
    }

    #[test]
    fn an_unchanged_report_is_not_sent_again() {
        let (tx, mut rx) = watch::channel(None);
        let report = Report { summary: "s".into(), report: json!({}), compliant: None };
        offer(&tx, report.clone());
        assert!(rx.has_changed().unwrap());
        rx.borrow_and_update();
        offer(&tx, report);
        assert!(!rx.has_changed().unwrap());
    }
}
