//! CEL as the API server evaluates it: `fleetctl-cel`, with every expression an object
//! carries compiled once per process.

use std::sync::{Arc, LazyLock};

pub use fleetctl_cel::*;

use super::compiled::Memo;

/// `source` compiled, once per process: for the expressions an object carries and every
/// write or request evaluates (CRD rules, webhook match conditions).
pub fn memoized(source: &str) -> Result<Arc<Expression>, CompileError> {
    static COMPILED: LazyLock<Memo<Expression>> = LazyLock::new(Memo::new);
    COMPILED.try_get(source, Expression::compile)
}
