//! The built-in kinds a kube-apiserver 1.32 serves by default (GA versions; its beta and
//! alpha APIs are off unless turned on), in one table.

use k8s_openapi::api::{
    admissionregistration::v1 as admission, apps::v1 as apps, authentication::v1 as authn, authorization::v1 as authz,
    autoscaling::v2 as autoscaling, batch::v1 as batch, certificates::v1 as certificates,
    coordination::v1 as coordination, core::v1 as core, discovery::v1 as discovery, events::v1 as events,
    flowcontrol::v1 as flowcontrol, networking::v1 as networking, node::v1 as node, policy::v1 as policy,
    rbac::v1 as rbac_v1, scheduling::v1 as scheduling, storage::v1 as storage,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;

use super::super::columns as cols;
use super::super::rbac;
use super::super::registry::Subresources;
use super::super::services;
use super::super::strategy as s;
use super::Kind;

const EVENT_FIELDS: &[&str] = &[
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
];
const EVENTS_V1_FIELDS: &[&str] =
    &["regarding.kind", "regarding.name", "regarding.namespace", "regarding.uid", "reason", "type"];
const POD_FIELDS: &[&str] = &["spec.nodeName", "spec.serviceAccountName", "status.phase"];

const FINALIZE: Subresources =
    Subresources { status: true, scale: false, approval: false, token: false, finalize: true };
const APPROVAL: Subresources =
    Subresources { status: true, scale: false, approval: true, token: false, finalize: false };
const TOKEN: Subresources = Subresources { status: false, scale: false, approval: false, token: true, finalize: false };

/// Every built-in kind; the registry serves each at start.
#[rustfmt::skip]
pub static BUILTIN: &[Kind] = &[
    // core/v1
    Kind::of::<core::Namespace>().short(&["ns"]).subresources(FINALIZE).fields(&["status.phase"]).strategy(&s::namespaces::Namespaces).columns(cols::NAMESPACES),
    Kind::of::<core::ConfigMap>().short(&["cm"]).strategy(&s::config::ConfigMaps).columns(cols::CONFIG_MAPS),
    Kind::of::<core::Secret>().fields(&["type"]).strategy(&s::config::Secrets).columns(cols::SECRETS),
    Kind::of::<core::ServiceAccount>().short(&["sa"]).subresources(TOKEN).columns(cols::SERVICE_ACCOUNTS),
    Kind::of::<core::Event>().short(&["ev"]).fields(EVENT_FIELDS).columns(cols::EVENTS),
    Kind::of::<core::Node>().short(&["no"]).status().fields(&["spec.unschedulable"]).strategy(&s::nodes::Nodes).columns(cols::NODES),
    Kind::of::<core::Pod>().short(&["po"]).in_all().status().fields(POD_FIELDS).strategy(&s::pods::Pods).columns(cols::PODS),
    Kind::of::<core::Service>().short(&["svc"]).in_all().status().strategy(&s::services::Services).columns(cols::SERVICES).allocating(services::allocate),
    Kind::of::<core::ResourceQuota>().short(&["quota"]).status().strategy(&s::quotas::ResourceQuotas).columns(cols::RESOURCE_QUOTAS),
    Kind::of::<core::Endpoints>().short(&["ep"]).columns(cols::ENDPOINTS),
    Kind::of::<core::LimitRange>().short(&["limits"]),
    Kind::of::<core::PersistentVolume>().short(&["pv"]).status(),
    Kind::of::<core::PersistentVolumeClaim>().short(&["pvc"]).status(),
    Kind::of::<core::PodTemplate>(),
    Kind::of::<core::ReplicationController>().short(&["rc"]).in_all().scale().generation(),
    // discovery.k8s.io/v1, events.k8s.io/v1
    Kind::of::<discovery::EndpointSlice>(),
    Kind::of::<events::Event>().short(&["ev"]).fields(EVENTS_V1_FIELDS),
    // apps/v1
    Kind::of::<apps::Deployment>().short(&["deploy"]).in_all().scale().generation().strategy(&s::workloads::Deployments).columns(cols::DEPLOYMENTS),
    Kind::of::<apps::ReplicaSet>().short(&["rs"]).in_all().scale().generation().columns(cols::REPLICA_SETS),
    Kind::of::<apps::StatefulSet>().short(&["sts"]).in_all().scale().generation().columns(cols::STATEFUL_SETS),
    Kind::of::<apps::DaemonSet>().short(&["ds"]).in_all().status().generation(),
    Kind::of::<apps::ControllerRevision>(),
    // batch/v1
    Kind::of::<batch::Job>().in_all().status().generation().fields(&["status.successful"]).strategy(&s::jobs::Jobs).columns(cols::JOBS),
    Kind::of::<batch::CronJob>().short(&["cj"]).in_all().status().generation().strategy(&s::cronjobs::CronJobs).columns(cols::CRON_JOBS),
    // autoscaling/v2, policy/v1
    Kind::of::<autoscaling::HorizontalPodAutoscaler>().short(&["hpa"]).in_all().status(),
    Kind::of::<policy::PodDisruptionBudget>().short(&["pdb"]).status().generation(),
    // networking.k8s.io/v1, node.k8s.io/v1
    Kind::of::<networking::NetworkPolicy>().short(&["netpol"]).generation(),
    Kind::of::<networking::Ingress>().short(&["ing"]).status().generation(),
    Kind::of::<networking::IngressClass>(),
    Kind::of::<node::RuntimeClass>(),
    // storage.k8s.io/v1
    Kind::of::<storage::StorageClass>().short(&["sc"]),
    Kind::of::<storage::CSIDriver>(),
    Kind::of::<storage::CSINode>(),
    Kind::of::<storage::CSIStorageCapacity>(),
    Kind::of::<storage::VolumeAttachment>().status(),
    // apiextensions.k8s.io/v1, apiregistration.k8s.io/v1
    Kind::of::<CustomResourceDefinition>().short(&["crd", "crds"]).status().generation().strategy(&s::crds::CustomResourceDefinitions).columns(cols::CREATED_AT),
    Kind::of::<APIService>().status(),
    // coordination.k8s.io/v1, certificates.k8s.io/v1
    Kind::of::<coordination::Lease>().columns(cols::LEASES),
    Kind::of::<certificates::CertificateSigningRequest>().short(&["csr"]).subresources(APPROVAL).fields(&["spec.signerName"]).strategy(&s::certificates::CertificateSigningRequests).columns(cols::CSRS),
    // rbac.authorization.k8s.io/v1
    Kind::of::<rbac_v1::Role>().strategy(&s::rbac::Roles { namespaced: true }).columns(cols::CREATED_AT).confirming(rbac::confirm_role),
    Kind::of::<rbac_v1::ClusterRole>().strategy(&s::rbac::Roles { namespaced: false }).columns(cols::CREATED_AT).confirming(rbac::confirm_role),
    Kind::of::<rbac_v1::RoleBinding>().strategy(&s::rbac::Bindings { namespaced: true }).columns(cols::BINDINGS).confirming(rbac::confirm_binding),
    Kind::of::<rbac_v1::ClusterRoleBinding>().strategy(&s::rbac::Bindings { namespaced: false }).columns(cols::BINDINGS).confirming(rbac::confirm_binding),
    // admissionregistration.k8s.io/v1
    Kind::of::<admission::ValidatingAdmissionPolicy>().status().generation(),
    Kind::of::<admission::ValidatingAdmissionPolicyBinding>().generation(),
    Kind::of::<admission::MutatingWebhookConfiguration>().generation(),
    Kind::of::<admission::ValidatingWebhookConfiguration>().generation(),
    // scheduling.k8s.io/v1, flowcontrol.apiserver.k8s.io/v1
    Kind::of::<scheduling::PriorityClass>().short(&["pc"]).strategy(&s::scheduling::PriorityClasses),
    Kind::of::<flowcontrol::FlowSchema>().status().generation(),
    Kind::of::<flowcontrol::PriorityLevelConfiguration>().status().generation(),
    // Answered, never stored.
    Kind::of::<authz::SubjectAccessReview>().review(),
    Kind::of::<authz::SelfSubjectAccessReview>().review(),
    Kind::of::<authz::SelfSubjectRulesReview>().review(),
    Kind::of::<authz::LocalSubjectAccessReview>().review(),
    Kind::of::<authn::SelfSubjectReview>().review(),
    Kind::of::<authn::TokenReview>().review(),
];
