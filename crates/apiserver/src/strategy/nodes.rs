//! Nodes: a kubelet registers its Node with its status (upstream's node strategy lets a
//! create set every field, status included).

use super::Strategy;

/// The Node strategy.
pub struct Nodes;

impl Strategy for Nodes {
    fn keeps_status_on_create(&self) -> bool {
        true
    }
}
