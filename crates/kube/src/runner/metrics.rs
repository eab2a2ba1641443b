//! Controller metrics in the Prometheus text format: reconciles, errors and reconciles in flight
//! per controller.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use parking_lot::RwLock;

/// How a reconcile ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It did what it had to.
    Done,
    /// It waits for something on its way (a deletion waiting for agents to leave).
    Waiting,
    /// It failed and is retried.
    Failed,
}

/// Counters of one controller.
#[derive(Debug, Default)]
pub struct ControllerMetrics {
    reconciles: AtomicU64,
    errors: AtomicU64,
    waits: AtomicU64,
    in_flight: AtomicI64,
}

impl ControllerMetrics {
    /// One reconcile finished.
    pub fn reconciled(&self, outcome: Outcome) {
        self.reconciles.fetch_add(1, Ordering::Relaxed);
        let counter = match outcome {
            Outcome::Done => return,
            Outcome::Waiting => &self.waits,
            Outcome::Failed => &self.errors,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// A reconcile starts: it counts as in flight until the guard is dropped, which a
    /// cancelled reconcile does too.
    pub fn start(&self) -> InFlight<'_> {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(self)
    }

    /// Reconciles in flight now.
    pub fn in_flight(&self) -> i64 {
        self.in_flight.load(Ordering::Relaxed)
    }

    /// Reconciles so far.
    pub fn reconciles(&self) -> u64 {
        self.reconciles.load(Ordering::Relaxed)
    }

    /// Reconciles so far that ended waiting.
    pub fn waits(&self) -> u64 {
        self.waits.load(Ordering::Relaxed)
    }
}

/// A reconcile in flight (see [`ControllerMetrics::start`]).
#[derive(Debug)]
pub struct InFlight<'a>(&'a ControllerMetrics);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// One metric family and how to read it from a controller's counters.
struct Family {
    name: &'static str,
    kind: &'static str,
    help: &'static str,
    value: fn(&ControllerMetrics) -> i64,
}

/// Every controller's metrics, by name.
#[derive(Debug, Default, Clone)]
pub struct Registry {
    controllers: Arc<RwLock<BTreeMap<String, Arc<ControllerMetrics>>>>,
}

impl Registry {
    /// The metrics of controller `name`, created on first use.
    pub fn controller(&self, name: &str) -> Arc<ControllerMetrics> {
        if let Some(found) = self.controllers.read().get(name) {
            return found.clone();
        }
        self.controllers.write().entry(name.to_string()).or_default().clone()
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        let controllers = self.controllers.read();
        let mut out = String::new();
        let families = [
            Family {
                name: "fleetctl_reconcile_total",
                kind: "counter",
                help: "Reconciles run, by controller.",
                value: |m| i64::try_from(m.reconciles.load(Ordering::Relaxed)).unwrap_or(i64::MAX),
            },
            Family {
                name: "fleetctl_reconcile_errors_total",
                kind: "counter",
                help: "Reconciles that failed, by controller.",
                value: |m| i64::try_from(m.errors.load(Ordering::Relaxed)).unwrap_or(i64::MAX),
            },
            Family {
                name: "fleetctl_reconcile_waits_total",
                kind: "counter",
                help: "Reconciles that ended waiting for something on its way, by controller.",
                value: |m| i64::try_from(m.waits.load(Ordering::Relaxed)).unwrap_or(i64::MAX),
            },
            Family {
                name: "fleetctl_reconciles_in_flight",
                kind: "gauge",
                help: "Reconciles running now, by controller.",
                value: |m| m.in_flight.load(Ordering::Relaxed).max(0),
            },
        ];
        for Family { name, kind, help, value } in families {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
            for (controller, metrics) in controllers.iter() {
                let _ = writeln!(out, "{name}{{controller=\"{controller}\"}} {}", value(metrics));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_render_in_the_prometheus_text_format() {
        let registry = Registry::default();
        let import = registry.controller("import");
        import.reconciled(Outcome::Done);
        import.reconciled(Outcome::Failed);
        import.reconciled(Outcome::Waiting);
        let (_one, two) = (import.start(), import.start());
        drop(two);
        let text = registry.render();
        assert!(text.contains("fleetctl_reconcile_total{controller=\"import\"} 3"), "{text}");
        assert!(text.contains("fleetctl_reconcile_errors_total{controller=\"import\"} 1"), "{text}");
        assert!(text.contains("fleetctl_reconcile_waits_total{controller=\"import\"} 1"), "{text}");
        assert!(text.contains("fleetctl_reconciles_in_flight{controller=\"import\"} 1"), "{text}");
        assert!(text.contains("# TYPE fleetctl_reconciles_in_flight gauge"));
    }
}
