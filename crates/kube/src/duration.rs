//! Durations as people write them (flags, addon values): `90s`, `5m`, `1h30m`, `360d`;
//! and as kubectl prints ages.

use std::time::Duration;

/// Parses a duration made of `<number><unit>` parts (units `ms`, `s`, `m`, `h`, `d`).
pub fn parse(text: &str) -> Result<Duration, String> {
    let bad = || format!("invalid duration {text:?}: use a number and a unit, like 90s, 5m, 1h30m or 360d");
    if text.is_empty() {
        return Err(bad());
    }
    let mut total = Duration::ZERO;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        if digits == 0 {
            return Err(bad());
        }
        let number: u64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest.find(|c: char| c.is_ascii_digit()).unwrap_or(rest.len());
        let unit = match &rest[..unit_len] {
            "ms" => Duration::from_millis(1),
            "s" => Duration::from_secs(1),
            "m" => Duration::from_secs(60),
            "h" => Duration::from_secs(3600),
            "d" => Duration::from_secs(86_400),
            _ => return Err(bad()),
        };
        rest = &rest[unit_len..];
        total += unit.checked_mul(u32::try_from(number).map_err(|_| bad())?).ok_or_else(bad)?;
    }
    Ok(total)
}

/// apimachinery's `HumanDuration` for a whole number of seconds.
pub fn human(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".into();
    }
    let seconds = seconds.max(0);
    let minutes = seconds / 60;
    let hours = seconds / 3600;
    match () {
        () if seconds < 120 => format!("{seconds}s"),
        () if minutes < 10 => match seconds % 60 {
            0 => format!("{minutes}m"),
            s => format!("{minutes}m{s}s"),
        },
        () if minutes < 180 => format!("{minutes}m"),
        () if hours < 8 => match minutes % 60 {
            0 => format!("{hours}h"),
            m => format!("{hours}h{m}m"),
        },
        () if hours < 48 => format!("{hours}h"),
        () if hours < 24 * 8 => match hours % 24 {
            0 => format!("{}d", hours / 24),
            h => format!("{}d{h}h", hours / 24),
        },
        () if hours < 24 * 365 * 2 => format!("{}d", hours / 24),
        () if hours < 24 * 365 * 8 => match (hours / 24) % 365 {
            0 => format!("{}y", hours / 24 / 365),
            d => format!("{}y{d}d", hours / 24 / 365),
        },
        () => format!("{}y", hours / 24 / 365),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(parse("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse("360d"), Ok(Duration::from_secs(360 * 86_400)));
        assert_eq!(parse("250ms"), Ok(Duration::from_millis(250)));
        for bad in ["", "5", "m", "5x", "-5s", "5 m"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
