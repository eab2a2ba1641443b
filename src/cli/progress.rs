//! Progress of the lifecycle operations for a person: a spinner per cluster on a TTY
//! (indicatif, on stderr); elsewhere only the notes (a step line per finished step with
//! `-v`); nothing at all with `-q` or `-o json|yaml`. Whatever is shown, the finished steps are kept for the report
//! of a command that fails or is stopped.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use parking_lot::Mutex;

use super::printer::Printer;
use crate::lifecycle::{Progress, StepRecord};

/// The spinner line: bold cluster names only where colours are on.
const STYLE: &str = "{spinner} {prefix:.bold} {wide_msg} {elapsed}";
const PLAIN_STYLE: &str = "{spinner} {prefix} {wide_msg} {elapsed}";

/// Shows progress events, and keeps the steps that finished.
pub struct Reporter {
    printer: Printer,
    bars: Option<Bars>,
    finished: Mutex<BTreeMap<String, Vec<StepRecord>>>,
}

struct Bars {
    multi: MultiProgress,
    style: ProgressStyle,
    by_cluster: Mutex<BTreeMap<String, ProgressBar>>,
}

impl Reporter {
    /// A reporter for this terminal, showing what the printer lets through.
    pub fn new(printer: &Printer) -> Self {
        let bars = (printer.shows_notes() && std::io::stderr().is_terminal()).then(|| Bars {
            multi: MultiProgress::with_draw_target(ProgressDrawTarget::stderr()),
            style: style(if printer.stderr_color() { STYLE } else { PLAIN_STYLE }),
            by_cluster: Mutex::new(BTreeMap::new()),
        });
        Self { printer: printer.clone(), bars, finished: Mutex::new(BTreeMap::new()) }
    }

    /// The steps of `cluster` that finished, in order.
    pub fn steps(&self, cluster: &str) -> Vec<StepRecord> {
        self.finished.lock().get(cluster).cloned().unwrap_or_default()
    }

    /// What finished of one cluster, in words — `c1: step, step` — (nothing when none of
    /// its steps did).
    pub fn done_of(&self, cluster: &str) -> Vec<String> {
        self.finished.lock().get(cluster).map(|steps| done_line(cluster, steps)).into_iter().collect()
    }

    fn bar(&self, cluster: &str) -> Option<ProgressBar> {
        let bars = self.bars.as_ref()?;
        let mut by_cluster = bars.by_cluster.lock();
        let bar = by_cluster.entry(cluster.to_string()).or_insert_with(|| {
            let bar = bars.multi.add(ProgressBar::new_spinner());
            bar.set_style(bars.style.clone());
            bar.set_prefix(cluster.to_string());
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Some(bar.clone())
    }

    /// Shows one event.
    pub fn show(&self, event: Progress) {
        if let Progress::Finished { cluster, step, elapsed } = &event {
            let record = StepRecord { step: step.clone(), seconds: elapsed.as_secs_f64() };
            self.finished.lock().entry(cluster.clone()).or_default().push(record);
        }
        if !self.printer.shows_notes() {
            return;
        }
        // Without a terminal, progress is for `-v`: a pipeline reads the notes.
        let progress = matches!(event, Progress::Finished { .. } | Progress::Fleet { .. });
        if progress && self.bars.is_none() && !self.printer.verbose() {
            return;
        }
        let bar = cluster_of(&event).and_then(|cluster| self.bar(cluster));
        let line = match event {
            Progress::Started { step, .. } => {
                if let Some(bar) = bar {
                    bar.set_message(format!("{step}…"));
                }
                return;
            }
            Progress::Finished { cluster, step, elapsed } => {
                format!("✓ {cluster} {step} ({:.2}s)", elapsed.as_secs_f64())
            }
            Progress::Note { cluster, message } => format!("! {cluster} {message}"),
            Progress::Fleet { message } => format!("» {message}"),
        };
        match (bar, &self.bars) {
            (Some(bar), _) => bar.println(line),
            // Above the spinners; a stderr that cannot be written leaves nowhere to say so.
            (None, Some(bars)) => {
                let _ = bars.multi.println(line);
            }
            (None, None) => self.printer.note(&line),
        }
    }

    /// Ends the spinners.
    pub fn finish(&self) {
        if let Some(bars) = &self.bars {
            for bar in bars.by_cluster.lock().values() {
                bar.finish_and_clear();
            }
        }
    }
}

fn done_line(cluster: &str, steps: &[StepRecord]) -> String {
    let steps: Vec<&str> = steps.iter().map(|s| s.step.as_str()).collect();
    format!("{cluster}: {}", steps.join(", "))
}

/// The spinner style of a template of this module.
fn style(template: &str) -> ProgressStyle {
    // Both templates are constants whose placeholders indicatif knows (a unit test parses them).
    #[allow(clippy::expect_used)]
    ProgressStyle::with_template(template).expect("the spinner templates are valid")
}

/// The cluster an event is about (`None`: the fleet).
fn cluster_of(event: &Progress) -> Option<&str> {
    match event {
        Progress::Started { cluster, .. } | Progress::Finished { cluster, .. } | Progress::Note { cluster, .. } => {
            Some(cluster)
        }
        Progress::Fleet { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finished_steps_are_kept_even_when_nothing_is_shown() {
        let reporter = Reporter::new(&Printer::with(crate::cli::flags::Output::Json, false));
        let finished = |cluster: &str, step: &str| Progress::Finished {
            cluster: cluster.into(),
            step: step.into(),
            elapsed: Duration::from_millis(500),
        };
        reporter.show(Progress::Started { cluster: "c1".into(), step: "a".into() });
        reporter.show(finished("c1", "a"));
        reporter.show(finished("c1", "b"));
        reporter.show(finished("c2", "a"));
        assert_eq!(reporter.steps("c1").iter().map(|s| s.step.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert!(reporter.steps("c3").is_empty());
        assert_eq!(reporter.done_of("c1"), ["c1: a, b"]);
        assert_eq!(reporter.done_of("c2"), ["c2: a"]);
        assert!(reporter.done_of("c3").is_empty());
    }

    #[test]
    fn the_spinner_templates_are_valid() {
        for template in [STYLE, PLAIN_STYLE] {
            assert!(ProgressStyle::with_template(template).is_ok(), "{template}");
        }
    }
}
