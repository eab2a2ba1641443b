//! CronJob schedules as kube-controller-manager reads them (the standard parser of
//! `robfig/cron/v3`): five fields — minute, hour, day of month, month, day of week — each
//! `*`, `?`, a value, a range `a-b`, a step `x/n` (`a/n` runs from `a` to the field's end),
//! or a comma list of those; months and weekdays by their three-letter names too (any
//! case); and the macros `@yearly` (`@annually`), `@monthly`, `@weekly`, `@daily`
//! (`@midnight`) and `@hourly`.
//!
//! Only checked so far: the dev cluster stores CronJobs, and Jobs are made from them by
//! hand (`kubectl create job --from=cronjob/…`); nothing runs them on their schedule.

/// Why a schedule does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    #[error("expected exactly 5 fields, found {0}: {1}")]
    Fields(usize, String),
    #[error("unrecognized descriptor: {0}")]
    Descriptor(String),
    #[error("failed to parse int from {0}")]
    Number(String),
    #[error("beginning of range ({0}) below minimum ({1}): {2}")]
    BelowMinimum(u32, u32, String),
    #[error("end of range ({0}) above maximum ({1}): {2}")]
    AboveMaximum(u32, u32, String),
    #[error("beginning of range ({0}) beyond end of range ({1}): {2}")]
    Reversed(u32, u32, String),
    #[error("step of range should be a positive number: {0}")]
    Step(String),
}

/// One field's bounds and names.
struct Field {
    min: u32,
    max: u32,
    names: &'static [&'static str],
}

const MINUTE: Field = Field { min: 0, max: 59, names: &[] };
const HOUR: Field = Field { min: 0, max: 23, names: &[] };
const DAY: Field = Field { min: 1, max: 31, names: &[] };
const MONTH: Field = Field {
    min: 1,
    max: 12,
    names: &["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
};
const WEEKDAY: Field = Field { min: 0, max: 6, names: &["sun", "mon", "tue", "wed", "thu", "fri", "sat"] };

/// Checks a standard cron expression or macro.
pub fn check(spec: &str) -> Result<(), ScheduleError> {
    let spec = spec.trim();
    let expanded = match spec {
        s if !s.starts_with('@') => s,
        "@yearly" | "@annually" => "0 0 1 1 *",
        "@monthly" => "0 0 1 * *",
        "@weekly" => "0 0 * * 0",
        "@daily" | "@midnight" => "0 0 * * *",
        "@hourly" => "0 * * * *",
        other => return Err(ScheduleError::Descriptor(other.to_string())),
    };
    let fields: Vec<&str> = expanded.split_whitespace().collect();
    let [minute, hour, day, month, weekday] = fields[..] else {
        return Err(ScheduleError::Fields(fields.len(), spec.to_string()));
    };
    for (text, field) in [(minute, &MINUTE), (hour, &HOUR), (day, &DAY), (month, &MONTH), (weekday, &WEEKDAY)] {
        check_field(text, field)?;
    }
    Ok(())
}

/// Checks one field: a comma list of values, ranges and steps within its bounds.
fn check_field(text: &str, field: &Field) -> Result<(), ScheduleError> {
    for part in text.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((range, step)) => {
                let step = step.parse::<u32>().map_err(|_| ScheduleError::Number(step.to_string()))?;
                if step == 0 {
                    return Err(ScheduleError::Step(part.to_string()));
                }
                (range, Some(step))
            }
            None => (part, None),
        };
        let (low, high) = if range == "*" || range == "?" {
            (field.min, field.max)
        } else {
            match range.split_once('-') {
                Some((low, high)) => (value(low, field)?, value(high, field)?),
                // `a/n` runs from `a` to the end of the field.
                None if step.is_some() => (value(range, field)?, field.max),
                None => {
                    let only = value(range, field)?;
                    (only, only)
                }
            }
        };
        if low < field.min {
            return Err(ScheduleError::BelowMinimum(low, field.min, part.to_string()));
        }
        if high > field.max {
            return Err(ScheduleError::AboveMaximum(high, field.max, part.to_string()));
        }
        if low > high {
            return Err(ScheduleError::Reversed(low, high, part.to_string()));
        }
    }
    Ok(())
}

/// A number or, where the field has them, a name (`jan`, `MON`).
fn value(text: &str, field: &Field) -> Result<u32, ScheduleError> {
    let lower = text.to_ascii_lowercase();
    if let Some(i) = field.names.iter().position(|name| *name == lower) {
        return Ok(field.min + u32::try_from(i).unwrap_or(0));
    }
    text.parse::<u32>().map_err(|_| ScheduleError::Number(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_macros_names_ranges_lists_and_steps_are_accepted() {
        for spec in [
            "* * * * *",
            "*/15 9-17/4 1,15 JAN-mar mon-FRI",
            "50/30 * ? * *",
            "0 0 29 2 *",
            "@yearly",
            "@annually",
            "@monthly",
            "@weekly",
            "@daily",
            "@midnight",
            "@hourly",
        ] {
            assert_eq!(check(spec), Ok(()), "{spec}");
        }
    }

    #[test]
    fn malformed_schedules_say_what_is_wrong() {
        assert_eq!(check("* * * *"), Err(ScheduleError::Fields(4, "* * * *".into())));
        assert_eq!(check("@often"), Err(ScheduleError::Descriptor("@often".into())));
        assert_eq!(check("60 * * * *"), Err(ScheduleError::AboveMaximum(60, 59, "60".into())));
        assert_eq!(check("* * 0 * *"), Err(ScheduleError::BelowMinimum(0, 1, "0".into())));
        assert_eq!(check("* 5-2 * * *"), Err(ScheduleError::Reversed(5, 2, "5-2".into())));
        assert_eq!(check("*/0 * * * *"), Err(ScheduleError::Step("*/0".into())));
        assert_eq!(check("x * * * *"), Err(ScheduleError::Number("x".into())));
        assert_eq!(check("* * * * 7"), Err(ScheduleError::AboveMaximum(7, 6, "7".into())));
    }
}
