//! Leader election through a Lease, as client-go's leaderelection behaves: the first
//! candidate leads at once; another waits while the claim is fresh, leads right after a
//! release (not at the expiry), or after the expiry of a holder that went silent; and a
//! leader whose lease is taken over hears that it lost.

use std::time::Duration;

use fleetctl_kube::runner::leader::Candidate;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::wait::await_condition;

use crate::support::cluster::TestCluster;

const LEASE: &str = "fleetctl-test-leader";
const WAIT: Duration = Duration::from_secs(20);

fn candidate(c: &TestCluster, identity: &str, duration: Duration) -> Candidate {
    Candidate::new(Api::namespaced(c.client.clone(), "default"), LEASE, identity, duration)
}

fn leases(c: &TestCluster) -> Api<Lease> {
    Api::namespaced(c.client.clone(), "default")
}

fn holder(lease: &Lease) -> Option<&str> {
    lease.spec.as_ref().and_then(|s| s.holder_identity.as_deref())
}

async fn wait_holder(c: &TestCluster, identity: &'static str) -> Lease {
    let held = await_condition(leases(c), LEASE, move |l: Option<&Lease>| l.and_then(holder) == Some(identity));
    tokio::time::timeout(WAIT, held).await.expect("in time").expect("watch").expect("lease")
}

#[tokio::test]
async fn the_first_candidate_creates_the_lease_and_leads_at_once() {
    let c = TestCluster::start().await;
    let _leading = candidate(&c, "a", Duration::from_secs(15)).acquire().await.expect("leads");
    let lease = leases(&c).get(LEASE).await.expect("lease");
    let spec = lease.spec.expect("spec");
    assert_eq!(spec.holder_identity.as_deref(), Some("a"));
    assert_eq!(spec.lease_duration_seconds, Some(15));
    assert!(spec.acquire_time.is_some() && spec.renew_time.is_some());
}

/// The claim is 60 s long and the test waits at most 20 s: only a release lets `b` lead.
#[tokio::test]
async fn a_released_lease_is_taken_by_the_waiting_candidate_before_its_expiry() {
    let c = TestCluster::start().await;
    let a = candidate(&c, "a", Duration::from_secs(60)).acquire().await.expect("a leads");
    let b = tokio::spawn(candidate(&c, "b", Duration::from_secs(60)).acquire());
    a.release().await;
    let _b = tokio::time::timeout(WAIT, b).await.expect("b leads after the release").expect("task").expect("b");
    let lease = wait_holder(&c, "b").await;
    assert_eq!(lease.spec.and_then(|s| s.lease_transitions), Some(1), "one change of holder");
}

#[tokio::test]
async fn a_silent_holders_claim_is_taken_once_it_has_expired_and_not_before() {
    let c = TestCluster::start().await;
    // Held by a process that is gone, renewed just now for 2 s.
    let stale = Lease {
        metadata: ObjectMeta { name: Some(LEASE.into()), ..ObjectMeta::default() },
        spec: Some(k8s_openapi::api::coordination::v1::LeaseSpec {
            holder_identity: Some("gone".into()),
            lease_duration_seconds: Some(2),
            renew_time: Some(MicroTime(jiff::Timestamp::now())),
            ..Default::default()
        }),
    };
    let created = leases(&c).create(&PostParams::default(), &stale).await.expect("stale lease");
    // As stored (to the microsecond).
    let renewed = created.spec.and_then(|s| s.renew_time).expect("renewed").0;
    let _b = tokio::time::timeout(WAIT, candidate(&c, "b", Duration::from_secs(15)).acquire())
        .await
        .expect("b leads after the expiry")
        .expect("b");
    let lease = leases(&c).get(LEASE).await.expect("lease");
    let acquired = lease.spec.as_ref().and_then(|s| s.acquire_time.as_ref()).expect("acquired").0;
    assert_eq!(holder(&lease), Some("b"));
    assert!(
        acquired >= renewed + jiff::SignedDuration::from_secs(2),
        "taken at {acquired}, the claim ran to {renewed} + 2 s"
    );
}

#[tokio::test]
async fn a_leader_whose_lease_is_taken_over_hears_that_it_lost() {
    let c = TestCluster::start().await;
    let mut a = candidate(&c, "a", Duration::from_secs(3)).acquire().await.expect("a leads");
    // Unconditionally (no resourceVersion), as a usurper would, so a's renewals cannot race it.
    let usurped = serde_json::json!({"spec": {
        "holderIdentity": "usurper",
        "renewTime": MicroTime(jiff::Timestamp::now()),
        "leaseDurationSeconds": 60,
    }});
    leases(&c).patch(LEASE, &PatchParams::default(), &Patch::Merge(usurped)).await.expect("take over");
    tokio::time::timeout(WAIT, a.lost()).await.expect("a hears it lost");
    assert_eq!(holder(&leases(&c).get(LEASE).await.expect("lease")), Some("usurper"), "a does not take it back");
}
