//! Values made from the text that schemas carry, kept by that text: compiled `pattern`
//! regular expressions and CEL rules, and the parsed schemas themselves. A CRD's patterns
//! and rules are few and each is checked at every write of its objects — a ManagedCluster's
//! or a ManifestWork's status update checks its conditions' patterns — so compiling them
//! once per write was most of a write's cost; a schema served by thousands of in-process
//! servers (the fleet simulator's) is parsed once.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;

use parking_lot::RwLock;

/// Past this many sources the memo starts over: sources come from the CRDs installed, so a
/// server reaches it only by churning CRDs, and a full memo must not grow without end.
const CAPACITY: usize = 4096;

/// Compiled values by source text; failures are not kept (their sources were refused with
/// their CRD, so they are rare, and compiling them again gives the same error).
pub struct Memo<T> {
    compiled: RwLock<HashMap<Box<str>, Arc<T>>>,
}

impl<T> Default for Memo<T> {
    fn default() -> Self {
        Self { compiled: RwLock::new(HashMap::new()) }
    }
}

impl<T> Memo<T> {
    /// An empty memo.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value for `source`, made by `make` the first time it is asked for.
    pub fn get(&self, source: &str, make: impl FnOnce() -> T) -> Arc<T> {
        match self.try_get(source, |_| Ok::<_, Infallible>(make())) {
            Ok(value) => value,
            Err(never) => match never {},
        }
    }

    /// The compiled form of `source`, compiled by `compile` the first time it is asked for.
    pub fn try_get<E>(&self, source: &str, compile: impl FnOnce(&str) -> Result<T, E>) -> Result<Arc<T>, E> {
        if let Some(found) = self.compiled.read().get(source) {
            return Ok(found.clone());
        }
        let value = Arc::new(compile(source)?);
        let mut compiled = self.compiled.write();
        if compiled.len() >= CAPACITY {
            compiled.clear();
        }
        Ok(compiled.entry(source.into()).or_insert(value).clone())
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    #[test]
    fn a_source_is_compiled_once_and_a_failure_is_not_kept() {
        let memo = Memo::new();
        let calls = Cell::new(0);
        let compile = |source: &str| {
            calls.set(calls.get() + 1);
            source.parse::<u32>()
        };
        assert_eq!(*memo.try_get("7", compile).expect("parses"), 7);
        assert_eq!(*memo.try_get("7", compile).expect("parses"), 7);
        assert_eq!(calls.get(), 1);
        assert!(memo.try_get("x", compile).is_err());
        assert!(memo.try_get("x", compile).is_err());
        assert_eq!(calls.get(), 3);
        assert!(Arc::ptr_eq(&memo.get("7", || 8), &memo.get("7", || 9)), "one value per source");
    }

    #[test]
    fn a_full_memo_starts_over_rather_than_growing() {
        let memo = Memo::new();
        for n in 0..=CAPACITY {
            memo.get(&n.to_string(), || n);
        }
        assert_eq!(memo.compiled.read().len(), 1);
    }
}
