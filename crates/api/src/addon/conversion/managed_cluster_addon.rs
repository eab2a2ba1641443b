//! ManagedClusterAddOn between v1alpha1 and v1beta1. Every field of either version is named
//! here, so a field added to one of them does not build until it is given its conversion.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::addon::{v1alpha1, v1beta1};
use crate::names::AGENT_SIGNER as KUBE_APISERVER_CLIENT_SIGNER;

use super::ANNOTATION_V1ALPHA1_INSTALL_NAMESPACE;

impl From<v1alpha1::ManagedClusterAddOn> for v1beta1::ManagedClusterAddOn {
    fn from(addon: v1alpha1::ManagedClusterAddOn) -> Self {
        let v1alpha1::ManagedClusterAddOn { mut metadata, spec, status } = addon;
        let v1alpha1::ManagedClusterAddOnSpec { install_namespace, configs } = spec;
        if !install_namespace.is_empty() {
            metadata
                .annotations
                .get_or_insert_default()
                .insert(ANNOTATION_V1ALPHA1_INSTALL_NAMESPACE.into(), install_namespace);
        }
        Self { metadata, spec: v1beta1::ManagedClusterAddOnSpec { configs }, status: status.map(status_to_v1beta1) }
    }
}

impl From<v1beta1::ManagedClusterAddOn> for v1alpha1::ManagedClusterAddOn {
    fn from(addon: v1beta1::ManagedClusterAddOn) -> Self {
        let v1beta1::ManagedClusterAddOn { mut metadata, spec, status } = addon;
        let v1beta1::ManagedClusterAddOnSpec { configs } = spec;
        // Without the annotation the install namespace is unset: empty, as in v1alpha1.
        let install_namespace =
            take_annotation(&mut metadata, ANNOTATION_V1ALPHA1_INSTALL_NAMESPACE).unwrap_or_default();
        Self {
            metadata,
            spec: v1alpha1::ManagedClusterAddOnSpec { install_namespace, configs },
            status: status.map(status_to_v1alpha1),
        }
    }
}

/// Removes an annotation, and the annotations with it when it was the last one: Go leaves an
/// empty map out of the object.
fn take_annotation(metadata: &mut ObjectMeta, key: &str) -> Option<String> {
    let annotations = metadata.annotations.as_mut()?;
    let value = annotations.remove(key)?;
    if annotations.is_empty() {
        metadata.annotations = None;
    }
    Some(value)
}

fn status_to_v1beta1(status: v1alpha1::ManagedClusterAddOnStatus) -> v1beta1::ManagedClusterAddOnStatus {
    let v1alpha1::ManagedClusterAddOnStatus {
        conditions,
        related_objects,
        add_on_meta,
        add_on_configuration: _,
        supported_configs,
        config_references,
        namespace,
        registrations,
        health_check,
        kube_client_driver,
    } = status;
    v1beta1::ManagedClusterAddOnStatus {
        conditions,
        related_objects,
        add_on_meta,
        supported_configs,
        config_references: config_references.into_iter().map(config_reference_to_v1beta1).collect(),
        namespace,
        registrations: registrations
            .into_iter()
            .map(|registration| registration_to_v1beta1(registration, kube_client_driver.as_ref()))
            .collect(),
        health_check,
    }
}

fn status_to_v1alpha1(status: v1beta1::ManagedClusterAddOnStatus) -> v1alpha1::ManagedClusterAddOnStatus {
    let v1beta1::ManagedClusterAddOnStatus {
        conditions,
        related_objects,
        add_on_meta,
        supported_configs,
        config_references,
        namespace,
        registrations,
        health_check,
    } = status;
    // The first kube client registration says the driver, even when it says none.
    let kube_client_driver = registrations
        .iter()
        .find(|r| r.type_ == v1beta1::RegistrationType::KubeClient && r.kube_client.is_some())
        .and_then(|r| r.kube_client.as_ref()?.driver.clone());
    v1alpha1::ManagedClusterAddOnStatus {
        conditions,
        related_objects,
        add_on_meta,
        add_on_configuration: v1alpha1::ConfigCoordinates::default(),
        supported_configs,
        config_references: config_references.into_iter().map(config_reference_to_v1alpha1).collect(),
        namespace,
        registrations: registrations.into_iter().map(registration_to_v1alpha1).collect(),
        health_check,
        kube_client_driver,
    }
}

fn config_reference_to_v1beta1(reference: v1alpha1::ConfigReference) -> v1beta1::ConfigReference {
    let v1alpha1::ConfigReference {
        group,
        resource,
        namespace: _,
        name: _,
        last_observed_generation,
        desired_config,
        last_applied_config,
    } = reference;
    v1beta1::ConfigReference { group, resource, last_observed_generation, desired_config, last_applied_config }
}

/// The deprecated namespace and name of a v1alpha1 reference are its desired configuration's.
fn config_reference_to_v1alpha1(reference: v1beta1::ConfigReference) -> v1alpha1::ConfigReference {
    let v1beta1::ConfigReference { group, resource, last_observed_generation, desired_config, last_applied_config } =
        reference;
    let (namespace, name) =
        desired_config.as_ref().map(|desired| (desired.namespace.clone(), desired.name.clone())).unwrap_or_default();
    v1alpha1::ConfigReference {
        group,
        resource,
        namespace,
        name,
        last_observed_generation,
        desired_config,
        last_applied_config,
    }
}

/// A registration for the kube-apiserver-client signer is a kube client (whose certificate
/// carries no organizational units), any other a custom signer.
fn registration_to_v1beta1(
    registration: v1alpha1::RegistrationConfig,
    driver: Option<&v1alpha1::KubeClientDriver>,
) -> v1beta1::RegistrationConfig {
    let v1alpha1::RegistrationConfig { signer_name, subject } = registration;
    let v1alpha1::Subject { user, groups, organization_unit } = subject;
    if signer_name == KUBE_APISERVER_CLIENT_SIGNER {
        v1beta1::RegistrationConfig {
            type_: v1beta1::RegistrationType::KubeClient,
            kube_client: Some(v1beta1::KubeClientConfig {
                subject: v1beta1::KubeClientSubject { user, groups },
                driver: driver.cloned(),
            }),
            custom_signer: None,
        }
    } else {
        v1beta1::RegistrationConfig {
            type_: v1beta1::RegistrationType::CustomSigner,
            kube_client: None,
            custom_signer: Some(v1beta1::CustomSignerConfig {
                signer_name,
                subject: v1beta1::Subject { user, groups, organization_units: organization_unit },
            }),
        }
    }
}

/// A kube client registers for the kube-apiserver-client signer (its driver goes to the
/// status); anything else for its custom signer, none when it names none.
fn registration_to_v1alpha1(registration: v1beta1::RegistrationConfig) -> v1alpha1::RegistrationConfig {
    let v1beta1::RegistrationConfig { type_, kube_client, custom_signer } = registration;
    match (type_, kube_client, custom_signer) {
        (v1beta1::RegistrationType::KubeClient, kube_client, _) => {
            let subject = kube_client.map(|client| client.subject).unwrap_or_default();
            v1alpha1::RegistrationConfig {
                signer_name: KUBE_APISERVER_CLIENT_SIGNER.into(),
                subject: v1alpha1::Subject {
                    user: subject.user,
                    groups: subject.groups,
                    organization_unit: Vec::new(),
                },
            }
        }
        (_, _, Some(signer)) => {
            let v1beta1::Subject { user, groups, organization_units } = signer.subject;
            v1alpha1::RegistrationConfig {
                signer_name: signer.signer_name,
                subject: v1alpha1::Subject { user, groups, organization_unit: organization_units },
            }
        }
        (_, _, None) => v1alpha1::RegistrationConfig::default(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn v1alpha1_addon(value: serde_json::Value) -> v1alpha1::ManagedClusterAddOn {
        serde_json::from_value(value).unwrap()
    }

    fn v1beta1_addon(value: serde_json::Value) -> v1beta1::ManagedClusterAddOn {
        serde_json::from_value(value).unwrap()
    }

    /// A v1alpha1 addon using every field v1beta1 also expresses.
    fn full_v1alpha1() -> v1alpha1::ManagedClusterAddOn {
        v1alpha1_addon(json!({
            "apiVersion": "addon.open-cluster-management.io/v1alpha1",
            "kind": "ManagedClusterAddOn",
            "metadata": {"name": "test-addon", "namespace": "cluster1", "annotations": {"user.annotation": "kept"}},
            "spec": {
                "installNamespace": "test-namespace",
                "configs": [{"group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs",
                             "namespace": "default", "name": "config1"}]
            },
            "status": {
                "conditions": [{"type": "Available", "status": "True", "reason": "ManagedClusterAddOnLeaseUpdated",
                                "message": "available", "lastTransitionTime": "2025-10-17T00:07:00Z"}],
                "relatedObjects": [{"group": "apps", "resource": "deployments", "name": "test-deployment"}],
                "addOnMeta": {"displayName": "Test AddOn", "description": "Test description"},
                "supportedConfigs": [{"group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs"}],
                "configReferences": [{
                    "group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs",
                    "namespace": "default", "name": "config1", "lastObservedGeneration": 3,
                    "desiredConfig": {"namespace": "default", "name": "config1", "specHash": "hash123"},
                    "lastAppliedConfig": {"namespace": "default", "name": "config1", "specHash": "hash122"}
                }],
                "namespace": "open-cluster-management-agent-addon",
                "registrations": [
                    {"signerName": "kubernetes.io/kube-apiserver-client",
                     "subject": {"user": "kube-user", "groups": ["kube-group"]}},
                    {"signerName": "custom.signer.io/custom",
                     "subject": {"user": "custom-user", "groups": ["custom-group"], "organizationUnit": ["ou"]}}
                ],
                "healthCheck": {"mode": "Customized"},
                "kubeClientDriver": "token"
            }
        }))
    }

    #[test]
    fn a_v1alpha1_addon_round_trips_through_v1beta1() {
        let addon = full_v1alpha1();
        let served = v1beta1::ManagedClusterAddOn::from(addon.clone());
        assert_eq!(v1alpha1::ManagedClusterAddOn::from(served), addon);
    }

    #[test]
    fn a_v1beta1_addon_round_trips_through_v1alpha1() {
        let addon = v1beta1::ManagedClusterAddOn::from(full_v1alpha1());
        assert_eq!(v1beta1::ManagedClusterAddOn::from(v1alpha1::ManagedClusterAddOn::from(addon.clone())), addon);
    }

    #[test]
    fn a_v1alpha1_addon_reads_in_v1beta1_as_upstreams_webhook_converts_it() {
        let served = serde_json::to_value(v1beta1::ManagedClusterAddOn::from(full_v1alpha1())).unwrap();
        assert_eq!(
            served,
            json!({
                "apiVersion": "addon.open-cluster-management.io/v1beta1",
                "kind": "ManagedClusterAddOn",
                "metadata": {"name": "test-addon", "namespace": "cluster1", "annotations": {
                    "user.annotation": "kept",
                    "addon.open-cluster-management.io/v1alpha1-install-namespace": "test-namespace"
                }},
                "spec": {"configs": [{"group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs",
                                      "namespace": "default", "name": "config1"}]},
                "status": {
                    "conditions": [{"type": "Available", "status": "True", "reason": "ManagedClusterAddOnLeaseUpdated",
                                    "message": "available", "lastTransitionTime": "2025-10-17T00:07:00Z"}],
                    "relatedObjects": [{"group": "apps", "resource": "deployments", "name": "test-deployment"}],
                    "addOnMeta": {"displayName": "Test AddOn", "description": "Test description"},
                    "supportedConfigs": [{"group": "addon.open-cluster-management.io",
                                          "resource": "addondeploymentconfigs"}],
                    "configReferences": [{
                        "group": "addon.open-cluster-management.io", "resource": "addondeploymentconfigs",
                        "lastObservedGeneration": 3,
                        "desiredConfig": {"namespace": "default", "name": "config1", "specHash": "hash123"},
                        "lastAppliedConfig": {"namespace": "default", "name": "config1", "specHash": "hash122"}
                    }],
                    "namespace": "open-cluster-management-agent-addon",
                    "registrations": [
                        {"type": "kubeClient",
                         "kubeClient": {"subject": {"user": "kube-user", "groups": ["kube-group"]}, "driver": "token"}},
                        {"type": "customSigner", "customSigner": {
                            "signerName": "custom.signer.io/custom",
                            "subject": {"user": "custom-user", "groups": ["custom-group"], "organizationUnits": ["ou"]}
                        }}
                    ],
                    "healthCheck": {"mode": "Customized"}
                }
            })
        );
    }

    #[test]
    fn the_install_namespace_annotation_becomes_the_install_namespace_and_other_annotations_stay() {
        let addon = v1alpha1::ManagedClusterAddOn::from(v1beta1_addon(json!({
            "apiVersion": "addon.open-cluster-management.io/v1beta1",
            "kind": "ManagedClusterAddOn",
            "metadata": {"name": "test-addon", "namespace": "cluster1", "annotations": {
                "addon.open-cluster-management.io/v1alpha1-install-namespace": "test-namespace",
                "abc.def": "hahaha"
            }},
            "spec": {}
        })));
        assert_eq!(addon.spec.install_namespace, "test-namespace");
        assert_eq!(addon.metadata.annotations, Some([("abc.def".into(), "hahaha".into())].into()));

        let alone = v1alpha1::ManagedClusterAddOn::from(v1beta1_addon(json!({
            "apiVersion": "addon.open-cluster-management.io/v1beta1",
            "kind": "ManagedClusterAddOn",
            "metadata": {"name": "a", "namespace": "c", "annotations": {
                "addon.open-cluster-management.io/v1alpha1-install-namespace": "ns"
            }},
            "spec": {}
        })));
        assert_eq!(alone.metadata.annotations, None, "no empty annotation map is left behind");

        let unset = v1beta1::ManagedClusterAddOn::from(v1alpha1::ManagedClusterAddOn::for_cluster("c", "a"));
        assert_eq!(unset.metadata.annotations, None, "an unset install namespace writes no annotation");
    }

    #[test]
    fn a_kube_apiserver_client_registration_is_kube_client_in_v1beta1_with_its_driver() {
        for driver in ["csr", "token"] {
            let addon = v1beta1::ManagedClusterAddOn::from(v1alpha1_addon(json!({
                "apiVersion": "addon.open-cluster-management.io/v1alpha1",
                "kind": "ManagedClusterAddOn",
                "metadata": {"name": "a", "namespace": "c"},
                "spec": {},
                "status": {
                    "registrations": [{"signerName": "kubernetes.io/kube-apiserver-client",
                                       "subject": {"user": "u", "groups": ["g"], "organizationUnit": ["dropped"]}}],
                    "kubeClientDriver": driver
                }
            })));
            let registrations = &addon.status.unwrap().registrations;
            assert_eq!(
                serde_json::to_value(registrations).unwrap(),
                json!([{"type": "kubeClient", "kubeClient": {"subject": {"user": "u", "groups": ["g"]}, "driver": driver}}])
            );
        }
    }

    #[test]
    fn another_signers_registration_is_a_custom_signer_in_v1beta1() {
        let addon = v1beta1::ManagedClusterAddOn::from(v1alpha1_addon(json!({
            "apiVersion": "addon.open-cluster-management.io/v1alpha1",
            "kind": "ManagedClusterAddOn",
            "metadata": {"name": "a", "namespace": "c"},
            "spec": {},
            "status": {"registrations": [{"signerName": "custom.signer.io/custom",
                                          "subject": {"user": "u", "groups": ["g"], "organizationUnit": ["ou"]}}],
                       "kubeClientDriver": "csr"}
        })));
        let registration = &addon.status.unwrap().registrations[0];
        assert_eq!(registration.type_, v1beta1::RegistrationType::CustomSigner);
        assert_eq!(
            serde_json::to_value(registration).unwrap(),
            json!({"type": "customSigner", "customSigner": {"signerName": "custom.signer.io/custom",
                                                            "subject": {"user": "u", "groups": ["g"], "organizationUnits": ["ou"]}}})
        );
    }

    #[test]
    fn the_first_kube_client_registrations_driver_is_v1alpha1s_kube_client_driver() {
        let addon = v1alpha1::ManagedClusterAddOn::from(v1beta1_addon(json!({
            "apiVersion": "addon.open-cluster-management.io/v1beta1",
            "kind": "ManagedClusterAddOn",
            "metadata": {"name": "a", "namespace": "c"},
            "spec": {},
            "status": {"registrations": [
                {"type": "customSigner", "customSigner": {"signerName": "custom.signer.io/custom"}},
                {"type": "kubeClient", "kubeClient": {"subject": {"user": "u"}, "driver": "token"}},
                {"type": "kubeClient", "kubeClient": {"driver": "csr"}}
            ]}
        })));
        let status = addon.status.unwrap();
        assert_eq!(status.kube_client_driver, Some(v1alpha1::KubeClientDriver::Token));
        let signers: Vec<_> = status.registrations.iter().map(|r| r.signer_name.as_str()).collect();
        assert_eq!(signers, ["custom.signer.io/custom", KUBE_APISERVER_CLIENT_SIGNER, KUBE_APISERVER_CLIENT_SIGNER]);
        assert_eq!(status.registrations[1].subject.user, "u");
    }

    #[test]
    fn a_config_references_v1alpha1_namespace_and_name_are_its_desired_configs() {
        let addon = v1alpha1::ManagedClusterAddOn::from(v1beta1_addon(json!({
            "apiVersion": "addon.open-cluster-management.io/v1beta1",
            "kind": "ManagedClusterAddOn",
            "metadata": {"name": "a", "namespace": "c"},
            "spec": {},
            "status": {"configReferences": [
                {"group": "", "resource": "configmaps", "lastObservedGeneration": 1,
                 "desiredConfig": {"namespace": "default", "name": "wanted", "specHash": "h"}},
                {"group": "", "resource": "secrets", "lastObservedGeneration": 0}
            ]}
        })));
        let references = &addon.status.unwrap().config_references;
        assert_eq!((references[0].namespace.as_str(), references[0].name.as_str()), ("default", "wanted"));
        assert_eq!((references[1].namespace.as_str(), references[1].name.as_str()), ("", ""));
    }

    #[test]
    fn the_deprecated_add_on_configuration_has_no_v1beta1_counterpart_and_is_dropped_as_upstream_drops_it() {
        let mut addon = full_v1alpha1();
        let status = addon.status.as_mut().unwrap();
        status.add_on_configuration.crd_name = "klusterletaddonconfigs.agent.open-cluster-management.io".into();
        let back = v1alpha1::ManagedClusterAddOn::from(v1beta1::ManagedClusterAddOn::from(addon));
        assert_eq!(back.status.unwrap().add_on_configuration, v1alpha1::ConfigCoordinates::default());
    }
}
