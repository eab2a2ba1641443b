//! The integration tests: one binary (linking dominates build time), one module per area.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod agent_operator;
mod agent_registration;
mod agent_work;
mod apiserver;
mod architecture;
mod cli_placement;
mod cli_read;
mod cli_upgrade;
mod dev_env;
mod durable;
mod e2e;
mod fleet_sim;
mod hub;
mod hub_ca_rotation;
mod hub_connection;
mod kube_ops;
mod kubectl;
mod kubectl_auth;
mod kubectl_explain;
mod kubectl_workloads;
mod kubelet;
mod leader;
mod pod_volumes;
mod support;
mod tools;
mod upstream;
