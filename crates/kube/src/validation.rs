//! Kubernetes' rules for names, label keys and label values (apimachinery's
//! `IsDNS1123Label`, `IsDNS1123Subdomain`, `IsQualifiedName`, `IsValidLabelValue`), so
//! input is refused before it reaches a cluster, with the rule it broke.

/// The longest DNS-1123 label, label value, or name part of a qualified name.
const MAX_LABEL: usize = 63;
/// The longest DNS-1123 subdomain (a qualified name's prefix).
const MAX_SUBDOMAIN: usize = 253;

/// Checks a DNS-1123 label: a namespace name, and so a cluster name.
pub fn dns1123_label(text: &str) -> Result<(), String> {
    if text.is_empty() || text.len() > MAX_LABEL {
        return Err(format!("must be 1 to {MAX_LABEL} characters"));
    }
    let allowed = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-';
    if !text.bytes().all(allowed) || !ends_alphanumeric(text) {
        return Err("must be lower-case letters, digits and '-', starting and ending with a letter or digit".into());
    }
    Ok(())
}

/// Checks a DNS-1123 subdomain: dot-separated DNS-1123 labels, at most 253 characters.
pub fn dns1123_subdomain(text: &str) -> Result<(), String> {
    if text.is_empty() || text.len() > MAX_SUBDOMAIN {
        return Err(format!("must be 1 to {MAX_SUBDOMAIN} characters"));
    }
    if text.split('.').any(|part| dns1123_label(part).is_err()) {
        return Err(
            "must be lower-case letters, digits, '-' and '.', each part starting and ending with a letter or digit"
                .into(),
        );
    }
    Ok(())
}

/// Checks a label key: an optional DNS-subdomain prefix and `/`, then a name of at most
/// 63 letters, digits, `-`, `_` or `.`, starting and ending with a letter or digit.
pub fn label_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        dns1123_subdomain(prefix).map_err(|why| format!("the prefix {prefix:?} {why}"))?;
    }
    if name.is_empty() || name.len() > MAX_LABEL {
        return Err(format!("the name part must be 1 to {MAX_LABEL} characters"));
    }
    if !name.bytes().all(name_byte) || !ends_alphanumeric(name) {
        return Err(
            "the name part must be letters, digits, '-', '_' or '.', starting and ending with a letter or digit".into(),
        );
    }
    Ok(())
}

/// Checks a label value: empty, or at most 63 letters, digits, `-`, `_` or `.`, starting
/// and ending with a letter or digit.
pub fn label_value(value: &str) -> Result<(), String> {
    if value.is_empty() {
        return Ok(());
    }
    if value.len() > MAX_LABEL {
        return Err(format!("must be at most {MAX_LABEL} characters"));
    }
    if !value.bytes().all(name_byte) || !ends_alphanumeric(value) {
        return Err(
            "must be empty or letters, digits, '-', '_' or '.', starting and ending with a letter or digit".into()
        );
    }
    Ok(())
}

fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')
}

fn ends_alphanumeric(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.first().is_some_and(u8::is_ascii_alphanumeric) && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_labels_follow_apimachinery() {
        for good in ["cluster1", "a-b", "a", &"a".repeat(63)] {
            assert!(dns1123_label(good).is_ok(), "{good}");
        }
        for bad in ["", "Cluster", "-a", "a-", "a.b", "a_b", &"a".repeat(64)] {
            assert!(dns1123_label(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn label_keys_have_an_optional_subdomain_prefix() {
        for good in ["env", "app.kubernetes.io/name", "Team_A", "a.b-c", "example.com/X.y"] {
            assert!(label_key(good).is_ok(), "{good}");
        }
        for bad in
            ["", "/x", "x/", "-x", "x-", "a b", "Ex.com/x", "a/b/c", &"k".repeat(64), &format!("{}/x", "a".repeat(254))]
        {
            assert!(label_key(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn label_values_may_be_empty_but_not_long_or_odd() {
        for good in ["", "prod", "v1.2_3-x", &"v".repeat(63)] {
            assert!(label_value(good).is_ok(), "{good}");
        }
        for bad in ["-x", "x.", "a b", "a/b", "é", &"v".repeat(64)] {
            assert!(label_value(bad).is_err(), "{bad}");
        }
    }
}
