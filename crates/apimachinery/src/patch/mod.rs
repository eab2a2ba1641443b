//! The four patch types the API server accepts: JSON merge (RFC 7386), JSON patch
//! (RFC 6902), strategic merge (built-ins only) and server-side apply.

mod apply;
mod fields;
mod json;
mod merge;
mod strategic;
mod types;

pub use apply::{record_update, server_side_apply};
pub use json::json_patch;
pub use merge::merge_patch;
pub use strategic::{builtin_strategy, strategic_merge_patch};
pub use types::{ListStrategy, PatchError, Strategies};
