//! Connection errors worded as Go's net package words them (`dial tcp ADDR: connect:
//! connection refused`), so what the dev cluster's kubelet and webhook client report reads
//! as a real cluster's does.

use std::fmt::Display;

/// The error of connecting to `addr`.
pub(crate) fn connect_error(addr: impl Display, error: &std::io::Error) -> String {
    format!("dial tcp {addr}: connect: {}", os_text(error))
}

/// An I/O error's text without Rust's ` (os error N)` suffix, lower-cased as Go's.
fn os_text(error: &std::io::Error) -> String {
    let text = error.to_string();
    let text = match (error.raw_os_error(), text.rfind(" (os error ")) {
        (Some(_), Some(at)) => &text[..at],
        _ => &text,
    };
    let mut chars = text.chars();
    chars.next().map(|first| first.to_lowercase().chain(chars).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_connection_reads_as_gos() {
        let refused = std::io::Error::from_raw_os_error(111);
        assert_eq!(connect_error("127.0.0.1:1", &refused), "dial tcp 127.0.0.1:1: connect: connection refused");
        let other = std::io::Error::other("Boom");
        assert_eq!(connect_error("h:1", &other), "dial tcp h:1: connect: boom");
    }
}
