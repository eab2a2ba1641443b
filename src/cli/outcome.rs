//! The result of `import`, `upgrade` and `detach` on one cluster, in the format `-o` chose.

use super::printer::{PrintError, Printer};
use crate::lifecycle::Outcome;

/// Prints one outcome: `CLUSTER: RESULT (SECONDS)` for people, the whole outcome for machines.
pub fn print(printer: &Printer, outcome: &Outcome) -> Result<(), PrintError> {
    let name = format!("managedcluster.cluster.open-cluster-management.io/{}", outcome.cluster);
    printer.document(outcome, &name, |_| text(outcome))
}

fn text(outcome: &Outcome) -> String {
    if outcome.steps.is_empty() {
        return format!("{}: {}\n", outcome.cluster, outcome.result);
    }
    let total: f64 = outcome.steps.iter().map(|s| s.seconds).sum();
    format!("{}: {} ({total:.2}s)\n", outcome.cluster, outcome.result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::StepRecord;

    #[test]
    fn people_read_the_result_and_the_time_it_took() {
        let step = |seconds| StepRecord { step: "s".into(), seconds };
        let mut outcome = Outcome {
            cluster: "c1".into(),
            result: "imported".into(),
            steps: vec![step(1.5), step(0.25)],
            conditions: Vec::new(),
        };
        assert_eq!(text(&outcome), "c1: imported (1.75s)\n");
        outcome.steps.clear();
        assert_eq!(text(&outcome), "c1: imported\n");
    }
}
