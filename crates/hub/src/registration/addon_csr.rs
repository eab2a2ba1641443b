//! The CSRs of addon agents, which a cluster's registration agent asks for on their behalf
//! (upstream's addon registration: a `kubeClient` registration in the ManagedClusterAddOn's
//! status, a CSR labelled with the cluster and the addon): approved as the addon framework's
//! default approver approves them, and no wider —
//! - the hub's API server client signer, client usages only;
//! - CN `system:open-cluster-management:cluster:<cluster>:addon:<addon>:agent:<agent>`;
//! - O the addon's two default groups (`…:cluster:<cluster>:addon:<addon>` and
//!   `…:addon:<addon>`), and at most `system:authenticated` besides (upstream lets any third
//!   group through; here another group would be a way into any role bound to it);
//! - asked by the cluster's own agent (a user of the cluster's agent group — upstream checks
//!   only a prefix, which lets cluster `a`'s agent ask for cluster `ab`'s addons);
//! - for an addon the cluster has (its ManagedClusterAddOn exists), on a cluster the hub
//!   accepts.
//!
//! The identity gets no rights from this: whoever installs the addon binds its groups.

use fleetctl_kube::certs::CsrSubject;
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;

use fleetctl_api::names::{AGENT_SIGNER as SIGNER, agent_group};

/// The user of an addon's agent on the hub, as the addon framework names it.
fn user_prefix(cluster: &str, addon: &str) -> String {
    format!("system:open-cluster-management:cluster:{cluster}:addon:{addon}:agent:")
}

/// The groups of an addon's agent on the hub, as the addon framework names them.
fn default_groups(cluster: &str, addon: &str) -> [String; 2] {
    [
        format!("system:open-cluster-management:cluster:{cluster}:addon:{addon}"),
        format!("system:open-cluster-management:addon:{addon}"),
    ]
}

/// The group every authenticated user has, which older agents put in their requests.
const AUTHENTICATED: &str = "system:authenticated";

/// Checks that `csr` asks for the identity of an agent of `addon` on `cluster`, from that
/// cluster's agent.
pub fn addon_request(csr: &CertificateSigningRequest, cluster: &str, addon: &str) -> Result<(), String> {
    let spec = &csr.spec;
    if spec.signer_name != SIGNER {
        return Err(format!("signer {} is not {SIGNER}", spec.signer_name));
    }
    let pem = String::from_utf8(spec.request.0.clone()).map_err(|_| "the request is not PEM".to_string())?;
    let subject = fleetctl_kube::certs::parse_csr(&pem).map_err(|e| e.to_string())?;
    identity(&subject, cluster, addon)?;
    let usages = spec.usages.clone().unwrap_or_default();
    let allowed = ["digital signature", "key encipherment", "client auth"];
    if let Some(bad) = usages.iter().find(|u| !allowed.contains(&u.as_str())) {
        return Err(format!("usage {bad:?} is not allowed for an addon certificate"));
    }
    if !usages.iter().any(|u| u == "client auth") {
        return Err("the usages lack client auth".into());
    }
    let requester = spec.username.clone().unwrap_or_default();
    let agents = agent_group(cluster);
    let from_agent = requester.starts_with(&format!("{agents}:")) && spec.groups.iter().flatten().any(|g| *g == agents);
    if !from_agent {
        return Err(format!("requester {requester:?} is not the agent of managed cluster {cluster}"));
    }
    Ok(())
}

/// Checks that a subject is the identity of an agent of `addon` on `cluster`.
fn identity(subject: &CsrSubject, cluster: &str, addon: &str) -> Result<(), String> {
    let prefix = user_prefix(cluster, addon);
    let agent = subject.common_name.strip_prefix(&prefix).unwrap_or_default();
    if agent.is_empty() || agent.contains(':') {
        return Err(format!("common name {:?} is not {prefix}<agent>", subject.common_name));
    }
    let groups = default_groups(cluster, addon);
    if let Some(missing) = groups.iter().find(|g| !subject.organizations.contains(g)) {
        return Err(format!("organizations {:?} lack {missing}", subject.organizations));
    }
    if let Some(extra) = subject.organizations.iter().find(|o| !groups.contains(o) && o.as_str() != AUTHENTICATED) {
        return Err(format!("organization {extra:?} is not one of the addon's groups"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use k8s_openapi::ByteString;
    use k8s_openapi::api::certificates::v1::CertificateSigningRequestSpec;
    use rcgen::{CertificateParams, DistinguishedName, DnType, KeyPair};

    use super::*;

    fn csr(common_name: &str, organizations: &[&str], requester: &str, groups: &[&str]) -> CertificateSigningRequest {
        let mut params = CertificateParams::default();
        let mut name = DistinguishedName::new();
        name.push(DnType::CommonName, common_name);
        // rcgen keeps one value per type: the second O under its OID as a custom type.
        let o_types = [DnType::OrganizationName, DnType::CustomDnType(vec![2, 5, 4, 10])];
        for (ty, o) in o_types.into_iter().zip(organizations) {
            name.push(ty, *o);
        }
        params.distinguished_name = name;
        let request = params.serialize_request(&KeyPair::generate().unwrap()).unwrap().pem().unwrap();
        CertificateSigningRequest {
            spec: CertificateSigningRequestSpec {
                signer_name: SIGNER.into(),
                request: ByteString(request.into_bytes()),
                usages: Some(vec!["digital signature".into(), "key encipherment".into(), "client auth".into()]),
                username: Some(requester.into()),
                groups: Some(groups.iter().map(|g| g.to_string()).collect()),
                ..CertificateSigningRequestSpec::default()
            },
            ..CertificateSigningRequest::default()
        }
    }

    const CN: &str = "system:open-cluster-management:cluster:c1:addon:hello:agent:hello-agent";
    const GROUPS: [&str; 2] =
        ["system:open-cluster-management:cluster:c1:addon:hello", "system:open-cluster-management:addon:hello"];
    const AGENT: &str = "system:open-cluster-management:c1:agent1";
    const AGENT_GROUPS: [&str; 2] = ["system:open-cluster-management:c1", "system:authenticated"];

    fn subject(organizations: &[&str]) -> CsrSubject {
        CsrSubject {
            common_name: CN.into(),
            organizations: organizations.iter().map(|o| o.to_string()).collect(),
            public_key_der: Vec::new(),
        }
    }

    #[test]
    fn the_addon_frameworks_default_identity_asked_by_the_clusters_agent_is_approved() {
        assert_eq!(addon_request(&csr(CN, &GROUPS, AGENT, &AGENT_GROUPS), "c1", "hello"), Ok(()));
        let with_authenticated = [GROUPS[0], GROUPS[1], "system:authenticated"];
        assert_eq!(identity(&subject(&with_authenticated), "c1", "hello"), Ok(()));
    }

    #[test]
    fn another_identity_group_or_requester_is_refused_saying_why() {
        let other_addon = "system:open-cluster-management:cluster:c1:addon:other:agent:a";
        assert!(addon_request(&csr(other_addon, &GROUPS, AGENT, &AGENT_GROUPS), "c1", "hello").is_err());
        let masters = [GROUPS[0], GROUPS[1], "system:masters"];
        let refused = identity(&subject(&masters), "c1", "hello").unwrap_err();
        assert!(refused.contains("system:masters"), "a third group other than system:authenticated: {refused}");
        assert!(addon_request(&csr(CN, &GROUPS[..1], AGENT, &AGENT_GROUPS), "c1", "hello").is_err());
        // Cluster c1's agent asking for cluster c11's addon: upstream's prefix check lets it by.
        let cn = "system:open-cluster-management:cluster:c11:addon:hello:agent:a";
        let groups =
            ["system:open-cluster-management:cluster:c11:addon:hello", "system:open-cluster-management:addon:hello"];
        let refused = addon_request(&csr(cn, &groups, AGENT, &AGENT_GROUPS), "c11", "hello").unwrap_err();
        assert!(refused.contains("requester"), "{refused}");
        let bootstrap = "system:serviceaccount:c1:c1-bootstrap-sa";
        assert!(addon_request(&csr(CN, &GROUPS, bootstrap, &["system:serviceaccounts"]), "c1", "hello").is_err());
    }
}
