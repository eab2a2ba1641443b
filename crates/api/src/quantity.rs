//! Kubernetes quantities (`500m`, `4Gi`, `1e3`, `16`) read as numbers: what the placement
//! scheduler's resource prioritizers compare (upstream's `Quantity.AsApproximateFloat64`) and
//! what the CLI shows in binary units.

/// The value of a Kubernetes quantity (`500m`, `4Gi`, `1e3`, `16`) as a float.
pub fn approximate(quantity: &str) -> Option<f64> {
    let quantity = quantity.trim();
    let split =
        quantity.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-')).unwrap_or(quantity.len());
    let (number, suffix) = quantity.split_at(split);
    let number: f64 = number.parse().ok()?;
    let multiplier = match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024.0,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        exponent if exponent.starts_with(['e', 'E']) => 10f64.powi(exponent[1..].parse().ok()?),
        _ => return None,
    };
    Some(number * multiplier)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_read_with_their_suffixes() {
        assert_eq!(approximate("16"), Some(16.0));
        assert_eq!(approximate("500m"), Some(0.5));
        assert_eq!(approximate("4Gi"), Some(4.0 * 1024.0 * 1024.0 * 1024.0));
        assert_eq!(approximate("100Mi"), Some(100.0 * 1024.0 * 1024.0));
        assert_eq!(approximate("2k"), Some(2000.0));
        assert_eq!(approximate("1e3"), Some(1000.0));
        assert_eq!(approximate("ten"), None);
    }
}
