// @generated with generated.rs: one check per kind, pairing the k8s-pb and k8s-openapi types.

use super::check::check_kind;

#[test]
fn every_generated_kind_matches_k8s_pb_and_k8s_openapi() {
    check_kind::<k8s_pb::api::core::v1::Binding, k8s_openapi::api::core::v1::Binding>("v1", "Binding");
    check_kind::<k8s_pb::api::core::v1::ComponentStatus, k8s_openapi::api::core::v1::ComponentStatus>(
        "v1",
        "ComponentStatus",
    );
    check_kind::<k8s_pb::api::core::v1::ConfigMap, k8s_openapi::api::core::v1::ConfigMap>("v1", "ConfigMap");
    check_kind::<k8s_pb::api::core::v1::Endpoints, k8s_openapi::api::core::v1::Endpoints>("v1", "Endpoints");
    check_kind::<k8s_pb::api::core::v1::Event, k8s_openapi::api::core::v1::Event>("v1", "Event");
    check_kind::<k8s_pb::api::core::v1::LimitRange, k8s_openapi::api::core::v1::LimitRange>("v1", "LimitRange");
    check_kind::<k8s_pb::api::core::v1::Namespace, k8s_openapi::api::core::v1::Namespace>("v1", "Namespace");
    check_kind::<k8s_pb::api::core::v1::Node, k8s_openapi::api::core::v1::Node>("v1", "Node");
    check_kind::<k8s_pb::api::core::v1::PersistentVolume, k8s_openapi::api::core::v1::PersistentVolume>(
        "v1",
        "PersistentVolume",
    );
    check_kind::<k8s_pb::api::core::v1::PersistentVolumeClaim, k8s_openapi::api::core::v1::PersistentVolumeClaim>(
        "v1",
        "PersistentVolumeClaim",
    );
    check_kind::<k8s_pb::api::core::v1::Pod, k8s_openapi::api::core::v1::Pod>("v1", "Pod");
    check_kind::<k8s_pb::api::core::v1::PodTemplate, k8s_openapi::api::core::v1::PodTemplate>("v1", "PodTemplate");
    check_kind::<k8s_pb::api::core::v1::ReplicationController, k8s_openapi::api::core::v1::ReplicationController>(
        "v1",
        "ReplicationController",
    );
    check_kind::<k8s_pb::api::core::v1::ResourceQuota, k8s_openapi::api::core::v1::ResourceQuota>(
        "v1",
        "ResourceQuota",
    );
    check_kind::<k8s_pb::api::core::v1::Secret, k8s_openapi::api::core::v1::Secret>("v1", "Secret");
    check_kind::<k8s_pb::api::core::v1::Service, k8s_openapi::api::core::v1::Service>("v1", "Service");
    check_kind::<k8s_pb::api::core::v1::ServiceAccount, k8s_openapi::api::core::v1::ServiceAccount>(
        "v1",
        "ServiceAccount",
    );
    check_kind::<k8s_pb::api::apps::v1::ControllerRevision, k8s_openapi::api::apps::v1::ControllerRevision>(
        "apps/v1",
        "ControllerRevision",
    );
    check_kind::<k8s_pb::api::apps::v1::DaemonSet, k8s_openapi::api::apps::v1::DaemonSet>("apps/v1", "DaemonSet");
    check_kind::<k8s_pb::api::apps::v1::Deployment, k8s_openapi::api::apps::v1::Deployment>("apps/v1", "Deployment");
    check_kind::<k8s_pb::api::apps::v1::ReplicaSet, k8s_openapi::api::apps::v1::ReplicaSet>("apps/v1", "ReplicaSet");
    check_kind::<k8s_pb::api::apps::v1::StatefulSet, k8s_openapi::api::apps::v1::StatefulSet>("apps/v1", "StatefulSet");
    check_kind::<k8s_pb::api::batch::v1::CronJob, k8s_openapi::api::batch::v1::CronJob>("batch/v1", "CronJob");
    check_kind::<k8s_pb::api::batch::v1::Job, k8s_openapi::api::batch::v1::Job>("batch/v1", "Job");
    check_kind::<k8s_pb::api::rbac::v1::ClusterRole, k8s_openapi::api::rbac::v1::ClusterRole>(
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
    );
    check_kind::<k8s_pb::api::rbac::v1::ClusterRoleBinding, k8s_openapi::api::rbac::v1::ClusterRoleBinding>(
        "rbac.authorization.k8s.io/v1",
        "ClusterRoleBinding",
    );
    check_kind::<k8s_pb::api::rbac::v1::Role, k8s_openapi::api::rbac::v1::Role>("rbac.authorization.k8s.io/v1", "Role");
    check_kind::<k8s_pb::api::rbac::v1::RoleBinding, k8s_openapi::api::rbac::v1::RoleBinding>(
        "rbac.authorization.k8s.io/v1",
        "RoleBinding",
    );
    check_kind::<k8s_pb::api::scheduling::v1::PriorityClass, k8s_openapi::api::scheduling::v1::PriorityClass>(
        "scheduling.k8s.io/v1",
        "PriorityClass",
    );
    check_kind::<k8s_pb::api::coordination::v1::Lease, k8s_openapi::api::coordination::v1::Lease>(
        "coordination.k8s.io/v1",
        "Lease",
    );
    check_kind::<
        k8s_pb::api::certificates::v1::CertificateSigningRequest,
        k8s_openapi::api::certificates::v1::CertificateSigningRequest,
    >("certificates.k8s.io/v1", "CertificateSigningRequest");
    check_kind::<
        k8s_pb::api::authentication::v1::SelfSubjectReview,
        k8s_openapi::api::authentication::v1::SelfSubjectReview,
    >("authentication.k8s.io/v1", "SelfSubjectReview");
    check_kind::<k8s_pb::api::authentication::v1::TokenRequest, k8s_openapi::api::authentication::v1::TokenRequest>(
        "authentication.k8s.io/v1",
        "TokenRequest",
    );
    check_kind::<k8s_pb::api::authentication::v1::TokenReview, k8s_openapi::api::authentication::v1::TokenReview>(
        "authentication.k8s.io/v1",
        "TokenReview",
    );
    check_kind::<
        k8s_pb::api::authorization::v1::LocalSubjectAccessReview,
        k8s_openapi::api::authorization::v1::LocalSubjectAccessReview,
    >("authorization.k8s.io/v1", "LocalSubjectAccessReview");
    check_kind::<
        k8s_pb::api::authorization::v1::SelfSubjectAccessReview,
        k8s_openapi::api::authorization::v1::SelfSubjectAccessReview,
    >("authorization.k8s.io/v1", "SelfSubjectAccessReview");
    check_kind::<
        k8s_pb::api::authorization::v1::SelfSubjectRulesReview,
        k8s_openapi::api::authorization::v1::SelfSubjectRulesReview,
    >("authorization.k8s.io/v1", "SelfSubjectRulesReview");
    check_kind::<
        k8s_pb::api::authorization::v1::SubjectAccessReview,
        k8s_openapi::api::authorization::v1::SubjectAccessReview,
    >("authorization.k8s.io/v1", "SubjectAccessReview");
    check_kind::<k8s_pb::api::events::v1::Event, k8s_openapi::api::events::v1::Event>("events.k8s.io/v1", "Event");
    check_kind::<k8s_pb::api::networking::v1::IPAddress, k8s_openapi::api::networking::v1::IPAddress>(
        "networking.k8s.io/v1",
        "IPAddress",
    );
    check_kind::<k8s_pb::api::networking::v1::Ingress, k8s_openapi::api::networking::v1::Ingress>(
        "networking.k8s.io/v1",
        "Ingress",
    );
    check_kind::<k8s_pb::api::networking::v1::IngressClass, k8s_openapi::api::networking::v1::IngressClass>(
        "networking.k8s.io/v1",
        "IngressClass",
    );
    check_kind::<k8s_pb::api::networking::v1::NetworkPolicy, k8s_openapi::api::networking::v1::NetworkPolicy>(
        "networking.k8s.io/v1",
        "NetworkPolicy",
    );
    check_kind::<k8s_pb::api::networking::v1::ServiceCIDR, k8s_openapi::api::networking::v1::ServiceCIDR>(
        "networking.k8s.io/v1",
        "ServiceCIDR",
    );
    check_kind::<k8s_pb::api::policy::v1::Eviction, k8s_openapi::api::policy::v1::Eviction>("policy/v1", "Eviction");
    check_kind::<k8s_pb::api::policy::v1::PodDisruptionBudget, k8s_openapi::api::policy::v1::PodDisruptionBudget>(
        "policy/v1",
        "PodDisruptionBudget",
    );
    check_kind::<k8s_pb::api::discovery::v1::EndpointSlice, k8s_openapi::api::discovery::v1::EndpointSlice>(
        "discovery.k8s.io/v1",
        "EndpointSlice",
    );
    check_kind::<
        k8s_pb::api::admissionregistration::v1::MutatingWebhookConfiguration,
        k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration,
    >("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration");
    check_kind::<
        k8s_pb::api::admissionregistration::v1::ValidatingAdmissionPolicy,
        k8s_openapi::api::admissionregistration::v1::ValidatingAdmissionPolicy,
    >("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy");
    check_kind::<
        k8s_pb::api::admissionregistration::v1::ValidatingAdmissionPolicyBinding,
        k8s_openapi::api::admissionregistration::v1::ValidatingAdmissionPolicyBinding,
    >("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding");
    check_kind::<
        k8s_pb::api::admissionregistration::v1::ValidatingWebhookConfiguration,
        k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration,
    >("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration");
    check_kind::<
        k8s_pb::api::autoscaling::v1::HorizontalPodAutoscaler,
        k8s_openapi::api::autoscaling::v1::HorizontalPodAutoscaler,
    >("autoscaling/v1", "HorizontalPodAutoscaler");
    check_kind::<k8s_pb::api::autoscaling::v1::Scale, k8s_openapi::api::autoscaling::v1::Scale>(
        "autoscaling/v1",
        "Scale",
    );
    check_kind::<
        k8s_pb::api::autoscaling::v2::HorizontalPodAutoscaler,
        k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler,
    >("autoscaling/v2", "HorizontalPodAutoscaler");
    check_kind::<k8s_pb::api::storage::v1::CSIDriver, k8s_openapi::api::storage::v1::CSIDriver>(
        "storage.k8s.io/v1",
        "CSIDriver",
    );
    check_kind::<k8s_pb::api::storage::v1::CSINode, k8s_openapi::api::storage::v1::CSINode>(
        "storage.k8s.io/v1",
        "CSINode",
    );
    check_kind::<k8s_pb::api::storage::v1::CSIStorageCapacity, k8s_openapi::api::storage::v1::CSIStorageCapacity>(
        "storage.k8s.io/v1",
        "CSIStorageCapacity",
    );
    check_kind::<k8s_pb::api::storage::v1::StorageClass, k8s_openapi::api::storage::v1::StorageClass>(
        "storage.k8s.io/v1",
        "StorageClass",
    );
    check_kind::<k8s_pb::api::storage::v1::VolumeAttachment, k8s_openapi::api::storage::v1::VolumeAttachment>(
        "storage.k8s.io/v1",
        "VolumeAttachment",
    );
    check_kind::<k8s_pb::api::node::v1::RuntimeClass, k8s_openapi::api::node::v1::RuntimeClass>(
        "node.k8s.io/v1",
        "RuntimeClass",
    );
    check_kind::<k8s_pb::api::flowcontrol::v1::FlowSchema, k8s_openapi::api::flowcontrol::v1::FlowSchema>(
        "flowcontrol.apiserver.k8s.io/v1",
        "FlowSchema",
    );
    check_kind::<
        k8s_pb::api::flowcontrol::v1::PriorityLevelConfiguration,
        k8s_openapi::api::flowcontrol::v1::PriorityLevelConfiguration,
    >("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration");
}
