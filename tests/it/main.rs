//! The integration tests: one binary (linking dominates build time), one module per area.

mod apiserver;
mod kubectl;
mod support;
