//! Talking to clusters: choosing a kubeconfig (or the pod's service account) and
//! applying or deleting sets of manifests through discovery, updating status conditions.
//! Nothing here prints.

pub mod apply;
pub mod backoff;
pub mod certs;
pub mod conditions;
pub mod config;
pub mod controller;
pub mod duration;
pub mod errors;
pub mod kubeconfig;
pub mod multiplexed;
pub mod objects;
pub mod reconcile;
pub mod resolve;
pub mod runner;
pub mod validation;
pub mod watch;
pub mod written;

pub use apply::{
    ApplyAction, ApplyError, ApplyOptions, ApplyOutcome, DeleteAction, DeleteOutcome, ObjectKey, ParseError, apply,
    apply_yaml, delete_all, parse_documents,
};
pub use conditions::update_conditions;
pub use config::{ConfigError, KubeconfigPair, NamedContext, Selection, client, config, contexts, standalone};
pub use reconcile::{FieldManager, KubeError, kube_error};
pub use written::{Read, Watched, Written};

/// The field manager of every server-side apply fleetctl makes, so ownership of the
/// fields it writes stays with one name across the CLI, the hub and the agents.
pub const FIELD_MANAGER: &str = "fleetctl";
