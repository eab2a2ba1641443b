//! The integration tests: one binary (linking dominates build time), one module per area.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod apiserver;
mod durable;
mod hub;
mod kube_ops;
mod kubectl;
mod kubectl_auth;
mod support;
