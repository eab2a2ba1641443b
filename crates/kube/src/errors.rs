//! Error helpers shared by every role.

/// An error and its causes on one line (`outer: inner: root`), for conditions, Status
/// messages and logs.
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
