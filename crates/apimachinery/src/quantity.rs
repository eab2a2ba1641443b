//! Resource quantities as apimachinery's `resource.Quantity` reads, adds and prints them:
//! a number with a decimal (`m`, `k`, `M`…), binary (`Ki`, `Mi`…) or exponent (`e3`)
//! suffix, held to nano precision (finer parts rounded up), and printed in the canonical
//! form of its format (`1500m`, `128Mi`, `2`).

use std::cmp::Ordering;
use std::fmt;

/// Nano-units per unit.
const NANO: i128 = 1_000_000_000;

/// A quantity: an amount in nano-units and whether it prints with binary suffixes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quantity {
    nanos: i128,
    binary: bool,
}

/// A string that is not a quantity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")]
pub struct QuantityError;

impl Quantity {
    /// Parses a quantity (`ParseQuantity`).
    pub fn parse(text: &str) -> Result<Self, QuantityError> {
        let text = text.trim();
        let split =
            text.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-')).unwrap_or(text.len());
        let (number, suffix) = text.split_at(split);
        let (negative, digits) = match number.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, number.strip_prefix('+').unwrap_or(number)),
        };
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        let all_digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
        if whole.is_empty() && fraction.is_empty() || !all_digits(whole) || !all_digits(fraction) {
            return Err(QuantityError);
        }
        let (scale, binary) = scale_of(suffix).ok_or(QuantityError)?;
        let mut mantissa: i128 = 0;
        for c in whole.chars().chain(fraction.chars()) {
            let digit = i128::from(c.to_digit(10).ok_or(QuantityError)?);
            mantissa = mantissa.checked_mul(10).and_then(|m| m.checked_add(digit)).ok_or(QuantityError)?;
        }
        let places = u32::try_from(fraction.len()).map_err(|_| QuantityError)?;
        let nanos = match scale {
            Scale::Binary(power) => {
                let unit = 1024i128.checked_pow(power).and_then(|u| u.checked_mul(NANO)).ok_or(QuantityError)?;
                ceil_div(
                    mantissa.checked_mul(unit).ok_or(QuantityError)?,
                    10i128.checked_pow(places).ok_or(QuantityError)?,
                )
            }
            Scale::Decimal(exponent) => {
                // nanos = mantissa × 10^(exponent + 9 - places)
                let shift = exponent + 9 - i32::try_from(places).map_err(|_| QuantityError)?;
                let factor = 10i128.checked_pow(shift.unsigned_abs()).ok_or(QuantityError)?;
                if shift >= 0 { mantissa.checked_mul(factor).ok_or(QuantityError)? } else { ceil_div(mantissa, factor) }
            }
        };
        Ok(Self { nanos: if negative { -nanos } else { nanos }, binary })
    }

    /// The sum, printed in this quantity's format (`Quantity.Add`); an empty quantity
    /// takes the other's.
    pub fn plus(self, other: Self) -> Self {
        let binary = if self.nanos == 0 && !self.binary { other.binary } else { self.binary };
        Self { nanos: self.nanos.saturating_add(other.nanos), binary }
    }

    /// The larger of two (the first on a tie).
    pub fn max(self, other: Self) -> Self {
        if other.nanos > self.nanos { other } else { self }
    }

    /// Whether it is below zero.
    pub fn is_negative(self) -> bool {
        self.nanos < 0
    }

    /// Whether it is a whole number.
    pub fn is_integer(self) -> bool {
        self.nanos % NANO == 0
    }

    /// How many `divisor`s it takes, rounded up, as the downward API's `resourceFieldRef`
    /// divides (`None` for a zero divisor).
    pub fn divided_up(self, divisor: Self) -> Option<i128> {
        (divisor.nanos != 0).then(|| ceil_div(self.nanos, divisor.nanos))
    }

    /// A count.
    pub fn count(n: usize) -> Self {
        Self { nanos: i128::try_from(n).unwrap_or(i128::MAX / NANO).saturating_mul(NANO), binary: false }
    }
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.nanos == other.nanos
    }
}

impl Eq for Quantity {}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    fn cmp(&self, other: &Self) -> Ordering {
        self.nanos.cmp(&other.nanos)
    }
}

enum Scale {
    /// × 10^n.
    Decimal(i32),
    /// × 1024^n.
    Binary(u32),
}

fn scale_of(suffix: &str) -> Option<(Scale, bool)> {
    let decimal = |n| Some((Scale::Decimal(n), false));
    match suffix {
        "" => decimal(0),
        "n" => decimal(-9),
        "u" => decimal(-6),
        "m" => decimal(-3),
        "k" => decimal(3),
        "M" => decimal(6),
        "G" => decimal(9),
        "T" => decimal(12),
        "P" => decimal(15),
        "E" => decimal(18),
        "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei" => {
            let power = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"].iter().position(|s| *s == suffix)?;
            Some((Scale::Binary(u32::try_from(power).ok()? + 1), true))
        }
        exponent => {
            let digits = exponent.strip_prefix(['e', 'E'])?;
            let n: i32 = digits.parse().ok()?;
            (-9..=18).contains(&n).then_some((Scale::Decimal(n), false))
        }
    }
}

fn ceil_div(n: i128, d: i128) -> i128 {
    n / d + i128::from(n % d != 0)
}

impl fmt::Display for Quantity {
    /// The canonical form: binary suffixes for whole amounts of at least 1024 that are
    /// kept binary, else the largest decimal suffix that leaves a whole mantissa.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.nanos == 0 {
            return f.write_str("0");
        }
        let sign = if self.nanos < 0 { "-" } else { "" };
        let nanos = self.nanos.abs();
        if self.binary && nanos % NANO == 0 && nanos / NANO >= 1024 {
            let mut amount = nanos / NANO;
            let mut power = 0;
            while amount % 1024 == 0 && power < 6 {
                amount /= 1024;
                power += 1;
            }
            let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][power];
            return write!(f, "{sign}{amount}{suffix}");
        }
        for (exponent, suffix) in
            [(27, "E"), (24, "P"), (21, "T"), (18, "G"), (15, "M"), (12, "k"), (9, ""), (6, "m"), (3, "u")]
        {
            let unit = 10i128.pow(exponent);
            if nanos % unit == 0 {
                return write!(f, "{sign}{}{suffix}", nanos / unit);
            }
        }
        write!(f, "{sign}{nanos}n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(text: &str) -> String {
        Quantity::parse(text).unwrap().to_string()
    }

    /// `Quantity.String` after `ParseQuantity`: upstream's canonical forms.
    #[test]
    fn quantities_print_in_their_canonical_form() {
        for (given, printed) in [
            ("1", "1"),
            ("1000m", "1"),
            ("1500m", "1500m"),
            ("0.5", "500m"),
            ("100m", "100m"),
            ("1k", "1k"),
            ("1500", "1500"),
            ("1500000", "1500k"),
            ("128Mi", "128Mi"),
            ("1024Ki", "1Mi"),
            ("1536Ki", "1536Ki"),
            ("0.5Gi", "512Mi"),
            ("512", "512"),
            ("1e3", "1k"),
            ("1G", "1G"),
            ("0", "0"),
            ("-2", "-2"),
            ("0.0000000001", "1n"),
        ] {
            assert_eq!(canonical(given), printed, "{given}");
        }
    }

    #[test]
    fn sums_keep_the_first_format_and_compare_by_amount() {
        let q = |t| Quantity::parse(t).unwrap();
        assert_eq!(q("64Mi").plus(q("64Mi")).to_string(), "128Mi");
        assert_eq!(q("500m").plus(q("500m")).to_string(), "1");
        assert_eq!(Quantity::default().plus(q("1Gi")).to_string(), "1Gi");
        assert!(q("1") > q("999m"));
        assert_eq!(q("1Ki"), q("1024"));
        assert!(q("1.5").max(q("2")) == q("2"));
        assert!(!q("1500m").is_integer() && q("3").is_integer() && q("-1").is_negative());
    }

    #[test]
    fn strings_that_are_not_quantities_are_refused() {
        for bad in ["", "abc", "1.2.3", "1Xi", "m", "1e40", "--1"] {
            assert_eq!(Quantity::parse(bad), Err(QuantityError), "{bad}");
        }
    }
}
