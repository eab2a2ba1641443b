//! Fleets as code: a fleet file (`file`) says which clusters the hub manages and how; the
//! plan (`plan`) is what would change to make the hub match it, read from the hub and
//! changing nothing; `apply` carries the plan out with the three acts — imports, label and
//! addon updates, upgrades as a rollout, and (asked for) detaches of the clusters the file
//! no longer lists. Every step is one of the acts' idempotent steps, so an interrupted
//! apply is finished by running it again, and an apply that finished plans nothing.

pub mod apply;
pub mod file;
pub mod plan;
