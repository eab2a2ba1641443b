//! The API machinery of the dev cluster, as k8s.io/apimachinery is kube-apiserver's: what
//! objects, patches, selectors, quantities, schedules, protobuf bodies, `metav1.Status`
//! errors and compiled schemas are, with no server behind them. The API server
//! (`fleetctl-apiserver`) and the node simulator build on it; it names neither.

pub mod cel;
pub mod compiled;
pub mod cron;
pub mod dial;
pub mod encoding;
pub mod object;
pub mod patch;
pub mod private_file;
pub mod protobuf;
pub mod quantity;
pub mod schema;
pub mod selector;
pub mod status;
