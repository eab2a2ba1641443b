//! Progress of the lifecycle operations for a person: a spinner per cluster on a TTY
//! (indicatif, on stderr), plain lines through the printer otherwise; nothing at all with
//! `-q` or `-o json|yaml`.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use parking_lot::Mutex;

use super::printer::Printer;
use crate::lifecycle::Progress;

/// The spinner line: bold cluster names only where colours are on.
const STYLE: &str = "{spinner} {prefix:.bold} {wide_msg} {elapsed}";
const PLAIN_STYLE: &str = "{spinner} {prefix} {wide_msg} {elapsed}";

/// Shows progress events.
pub struct Reporter {
    printer: Printer,
    bars: Option<Bars>,
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
        Self { printer: *printer, bars }
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
        if !self.printer.shows_notes() {
            return;
        }
        let bar = self.bar(cluster_of(&event));
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
        };
        match bar {
            Some(bar) => bar.println(line),
            None => self.printer.note(&line),
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

/// The spinner style of a template of this module.
fn style(template: &str) -> ProgressStyle {
    // Both templates are constants whose placeholders indicatif knows (a unit test parses them).
    #[allow(clippy::expect_used)]
    ProgressStyle::with_template(template).expect("the spinner templates are valid")
}

fn cluster_of(event: &Progress) -> &str {
    match event {
        Progress::Started { cluster, .. } | Progress::Finished { cluster, .. } | Progress::Note { cluster, .. } => {
            cluster
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spinner_templates_are_valid() {
        for template in [STYLE, PLAIN_STYLE] {
            assert!(ProgressStyle::with_template(template).is_ok(), "{template}");
        }
    }
}
