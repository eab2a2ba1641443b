//! CronJob schedules as kube-controller-manager reads them (the standard parser of
//! `robfig/cron/v3`): five fields — minute, hour, day of month, month, day of week — each
//! `*`, `?`, a value, a range `a-b`, a step `x/n` (`a/n` runs from `a` to the field's end),
//! or a comma list of those; months and weekdays by their three-letter names too (any
//! case); and the macros `@yearly` (`@annually`), `@monthly`, `@weekly`, `@daily`
//! (`@midnight`) and `@hourly`. Times are civil (wall-clock) minutes: the CronJob
//! controller reads them in the CronJob's time zone. As cron has it, when both day fields are restricted a
//! day matches either; when one of them is `*` or `?`, both must match.

use jiff::civil::{Date, DateTime};

/// A parsed schedule: the allowed values of each field, as bit sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    minutes: u64,
    hours: u64,
    days: u64,
    months: u64,
    weekdays: u64,
    /// Whether the day of month or the day of week was `*`/`?` (then both must match).
    any_day: bool,
}

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

/// The time zone named by a CronJob's `spec.timeZone` (an IANA name, from the system's
/// time zone database), as Go's `time.LoadLocation` finds it; `Local` is refused, as
/// `ValidateCronJob` refuses it.
pub fn time_zone(name: &str) -> Result<jiff::tz::TimeZone, TimeZoneError> {
    let plausible = !name.is_empty()
        && !name.eq_ignore_ascii_case("local")
        && name.split('/').all(|part| {
            (1..=14).contains(&part.len())
                && part != "."
                && part != ".."
                && !part.starts_with('-')
                && part.chars().all(|c| c.is_ascii_alphanumeric() || "._-+".contains(c))
        });
    if !plausible {
        return Err(TimeZoneError(name.to_string()));
    }
    jiff::tz::TimeZone::get(name).map_err(|_| TimeZoneError(name.to_string()))
}

/// A time zone name the database does not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown time zone {0}")]
pub struct TimeZoneError(String);

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

/// The furthest a schedule is searched ahead (a 29 February comes within this).
const HORIZON_YEARS: i16 = 5;

impl Schedule {
    /// Parses a standard cron expression or macro.
    pub fn parse(spec: &str) -> Result<Self, ScheduleError> {
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
        let (days, any_dom) = parse_field(day, &DAY)?;
        let (weekdays, any_dow) = parse_field(weekday, &WEEKDAY)?;
        Ok(Self {
            minutes: parse_field(minute, &MINUTE)?.0,
            hours: parse_field(hour, &HOUR)?.0,
            days,
            months: parse_field(month, &MONTH)?.0,
            weekdays,
            any_day: any_dom || any_dow,
        })
    }

    fn day_matches(&self, date: Date) -> bool {
        let dom = self.days & bit(u32::try_from(date.day()).unwrap_or(0)) != 0;
        let dow = self.weekdays & bit(u32::from(date.weekday().to_sunday_zero_offset().unsigned_abs())) != 0;
        if self.any_day { dom && dow } else { dom || dow }
    }

    /// The first scheduled minute strictly after `after` (seconds dropped), within a few
    /// years; `None` for a schedule that never comes (`0 0 30 2 *`).
    pub fn next_after(&self, after: DateTime) -> Option<DateTime> {
        let start =
            after.date().at(after.hour(), after.minute(), 0, 0).checked_add(jiff::Span::new().minutes(1)).ok()?;
        let limit = start.year().saturating_add(HORIZON_YEARS);
        let mut t = start;
        while t.year() <= limit {
            if self.months & bit(month_of(t)) == 0 {
                t = t.date().first_of_month().checked_add(jiff::Span::new().months(1)).ok()?.at(0, 0, 0, 0);
            } else if !self.day_matches(t.date()) {
                t = t.date().tomorrow().ok()?.at(0, 0, 0, 0);
            } else if self.hours & bit(hour_of(t)) == 0 {
                t = t.date().at(t.hour(), 0, 0, 0).checked_add(jiff::Span::new().hours(1)).ok()?;
            } else if self.minutes & bit(minute_of(t)) == 0 {
                t = t.checked_add(jiff::Span::new().minutes(1)).ok()?;
            } else {
                return Some(t);
            }
        }
        None
    }

    /// The last scheduled minute at or before `at` (seconds dropped), within a few years
    /// back: what `next_after` finds, searched the other way, so that a CronJob that missed
    /// many runs finds its latest one without walking through all of them.
    pub fn last_at_or_before(&self, at: DateTime) -> Option<DateTime> {
        let minute = jiff::Span::new().minutes(1);
        let mut t = at.date().at(at.hour(), at.minute(), 0, 0);
        let limit = t.year().saturating_sub(HORIZON_YEARS);
        while t.year() >= limit {
            if self.months & bit(month_of(t)) == 0 {
                t = t.date().first_of_month().yesterday().ok()?.at(23, 59, 0, 0);
            } else if !self.day_matches(t.date()) {
                t = t.date().yesterday().ok()?.at(23, 59, 0, 0);
            } else if self.hours & bit(hour_of(t)) == 0 {
                t = t.date().at(t.hour(), 0, 0, 0).checked_sub(minute).ok()?;
            } else if self.minutes & bit(minute_of(t)) == 0 {
                t = t.checked_sub(minute).ok()?;
            } else {
                return Some(t);
            }
        }
        None
    }
}

fn month_of(t: DateTime) -> u32 {
    u32::try_from(t.month()).unwrap_or(0)
}

fn hour_of(t: DateTime) -> u32 {
    u32::try_from(t.hour()).unwrap_or(0)
}

fn minute_of(t: DateTime) -> u32 {
    u32::try_from(t.minute()).unwrap_or(0)
}

fn bit(n: u32) -> u64 {
    1u64.checked_shl(n).unwrap_or(0)
}

/// A field's bit set, and whether it was `*`/`?` (a stepped star is not).
fn parse_field(text: &str, field: &Field) -> Result<(u64, bool), ScheduleError> {
    let mut bits = 0;
    let mut star = false;
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
            star |= step.is_none_or(|s| s == 1);
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
        let step = step.unwrap_or(1);
        bits |= (low..=high).step_by(usize::try_from(step).unwrap_or(usize::MAX)).fold(0, |acc, n| acc | bit(n));
    }
    Ok((bits, star))
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
    use jiff::civil::date;

    use super::*;

    fn next(spec: &str, after: DateTime) -> DateTime {
        Schedule::parse(spec).unwrap().next_after(after).unwrap()
    }

    #[test]
    fn every_minute_comes_the_next_whole_minute() {
        let t = date(2026, 12, 1).at(20, 59, 30, 0);
        assert_eq!(next("* * * * *", t), date(2026, 12, 1).at(21, 0, 0, 0));
        assert_eq!(next("* * * * *", date(2026, 12, 1).at(21, 0, 0, 0)), date(2026, 12, 1).at(21, 1, 0, 0));
    }

    #[test]
    fn ranges_lists_and_steps_pick_their_minutes_and_hours() {
        let t = date(2026, 3, 2).at(10, 7, 0, 0);
        assert_eq!(next("*/15 * * * *", t), date(2026, 3, 2).at(10, 15, 0, 0));
        assert_eq!(next("5,40 * * * *", t), date(2026, 3, 2).at(10, 40, 0, 0));
        assert_eq!(next("0 9-17/4 * * *", t), date(2026, 3, 2).at(13, 0, 0, 0));
        // `a/n` runs from a to the end: 50, then 50 of the next hour.
        assert_eq!(next("50/30 * * * *", date(2026, 3, 2).at(10, 51, 0, 0)), date(2026, 3, 2).at(11, 50, 0, 0));
    }

    #[test]
    fn month_and_weekday_names_count_like_their_numbers_in_any_case() {
        assert_eq!(Schedule::parse("0 0 * JAN-mar MON").unwrap(), Schedule::parse("0 0 * 1-3 1").unwrap());
        // 2026-12-01 is a Tuesday: the next Monday of January-March is 2027-01-04.
        assert_eq!(next("0 0 * jan-MAR mon", date(2026, 12, 1).at(0, 0, 0, 0)), date(2027, 1, 4).at(0, 0, 0, 0));
    }

    #[test]
    fn the_macros_are_their_five_field_schedules() {
        for (short, long) in [
            ("@yearly", "0 0 1 1 *"),
            ("@annually", "0 0 1 1 *"),
            ("@monthly", "0 0 1 * *"),
            ("@weekly", "0 0 * * 0"),
            ("@daily", "0 0 * * *"),
            ("@midnight", "0 0 * * *"),
            ("@hourly", "0 * * * *"),
        ] {
            assert_eq!(Schedule::parse(short).unwrap(), Schedule::parse(long).unwrap(), "{short}");
        }
        assert_eq!(next("@yearly", date(2026, 12, 1).at(0, 0, 0, 0)), date(2027, 1, 1).at(0, 0, 0, 0));
    }

    /// Both day fields restricted: either matches. One of them `*`: both must.
    #[test]
    fn day_of_month_or_day_of_week_when_both_are_restricted() {
        // 2026-12-01 is a Tuesday; the 15th or a Friday: Friday the 4th comes first.
        assert_eq!(next("0 0 15 * fri", date(2026, 12, 1).at(0, 0, 0, 0)), date(2026, 12, 4).at(0, 0, 0, 0));
        // The 15th and any weekday: the 15th.
        assert_eq!(next("0 0 15 * *", date(2026, 12, 1).at(0, 0, 0, 0)), date(2026, 12, 15).at(0, 0, 0, 0));
        // A stepped star restricts: every other day of the month or a Friday.
        assert_eq!(next("0 0 */2 * 5", date(2026, 12, 1).at(0, 0, 0, 0)), date(2026, 12, 3).at(0, 0, 0, 0));
        // `?` is a star: Fridays only.
        assert_eq!(next("0 0 ? * 5", date(2026, 12, 1).at(0, 0, 0, 0)), date(2026, 12, 4).at(0, 0, 0, 0));
    }

    /// The backward search finds what walking forward from far back would find last.
    #[test]
    fn the_last_scheduled_minute_at_or_before_a_time_is_the_latest_next_one_up_to_it() {
        let at = date(2026, 12, 1).at(10, 7, 30, 0);
        let last = |spec: &str| Schedule::parse(spec).unwrap().last_at_or_before(at).unwrap();
        assert_eq!(last("* * * * *"), date(2026, 12, 1).at(10, 7, 0, 0));
        assert_eq!(last("*/15 * * * *"), date(2026, 12, 1).at(10, 0, 0, 0));
        assert_eq!(last("30 11 * * *"), date(2026, 11, 30).at(11, 30, 0, 0));
        assert_eq!(last("0 0 1 * *"), date(2026, 12, 1).at(0, 0, 0, 0));
        assert_eq!(last("0 0 29 2 *"), date(2024, 2, 29).at(0, 0, 0, 0));
        assert_eq!(last("0 0 * jan-MAR mon"), date(2026, 3, 30).at(0, 0, 0, 0));
        for spec in ["*/7 3-5 * * *", "0 0 15 * fri", "5,40 */3 * * *"] {
            let schedule = Schedule::parse(spec).unwrap();
            let back = schedule.last_at_or_before(at).unwrap();
            assert!(back <= at, "{spec}");
            assert!(schedule.next_after(back).unwrap() > at, "{spec}: nothing scheduled between {back} and {at}");
        }
        assert_eq!(Schedule::parse("0 0 30 2 *").unwrap().last_at_or_before(at), None);
    }

    #[test]
    fn a_29th_of_february_waits_for_a_leap_year_and_a_30th_never_comes() {
        assert_eq!(next("0 0 29 2 *", date(2026, 12, 1).at(0, 0, 0, 0)), date(2028, 2, 29).at(0, 0, 0, 0));
        assert_eq!(Schedule::parse("0 0 30 2 *").unwrap().next_after(date(2026, 12, 1).at(0, 0, 0, 0)), None);
    }

    #[test]
    fn iana_zone_names_load_and_local_or_unknown_ones_do_not() {
        assert!(time_zone("Asia/Tokyo").is_ok());
        assert!(time_zone("America/Argentina/Buenos_Aires").is_ok());
        assert!(time_zone("Etc/UTC").is_ok());
        for bad in ["Local", "", "Mars/Olympus_Mons", "../etc/passwd", "Europe/-Paris"] {
            assert_eq!(time_zone(bad), Err(TimeZoneError(bad.to_string())), "{bad}");
        }
    }

    #[test]
    fn malformed_schedules_say_what_is_wrong() {
        assert_eq!(Schedule::parse("* * * *"), Err(ScheduleError::Fields(4, "* * * *".into())));
        assert_eq!(Schedule::parse("@often"), Err(ScheduleError::Descriptor("@often".into())));
        assert_eq!(Schedule::parse("60 * * * *"), Err(ScheduleError::AboveMaximum(60, 59, "60".into())));
        assert_eq!(Schedule::parse("* * 0 * *"), Err(ScheduleError::BelowMinimum(0, 1, "0".into())));
        assert_eq!(Schedule::parse("* 5-2 * * *"), Err(ScheduleError::Reversed(5, 2, "5-2".into())));
        assert_eq!(Schedule::parse("*/0 * * * *"), Err(ScheduleError::Step("*/0".into())));
        assert_eq!(Schedule::parse("x * * * *"), Err(ScheduleError::Number("x".into())));
        assert_eq!(Schedule::parse("* * * * 7"), Err(ScheduleError::AboveMaximum(7, 6, "7".into())));
    }
}
