//! The one printer every command writes through: results on stdout — tables for people
//! (`-o table`, `-o wide`), JSON and YAML for machines, bare names for shell loops — and
//! notes, errors and prompts for people on stderr.
//!
//! Nothing else in fleetctl writes to stdout or stderr (progress bars go to stderr through
//! [`super::progress`], logs through `tracing`). With `-o json|yaml` stdout holds exactly one
//! document and stderr no notes; `-q` leaves only errors. Colours are used only on a terminal
//! and when neither `NO_COLOR` nor `--no-color` says otherwise. A reader that goes away early
//! (`fleetctl get clusters | head`) is not an error: a broken pipe counts as success, as in
//! ripgrep.

use std::io::{self, IsTerminal, Read, Write};

use comfy_table::{Color, ContentArrangement, Table, presets};
use fleetctl_api::quantity::approximate;
use jiff::Timestamp;
use serde::Serialize;
use serde_json::{Value, json};
use thiserror::Error;

use super::exit::{CommandError, ExitStatus, Fault};
use super::flags::{Output, OutputFlags, TerminalFlags};
use super::template::rows_of;

/// Why output could not be written.
#[derive(Debug, Error)]
pub enum PrintError {
    /// Writing to stdout failed (other than the reader going away).
    #[error("writing to stdout")]
    Write(#[source] io::Error),
    /// Reading what was to be copied to stdout failed.
    #[error("reading what to print")]
    Read(#[source] io::Error),
    /// The result could not be encoded as JSON.
    #[error("encoding the result as JSON")]
    Json(#[source] serde_json::Error),
    /// The result could not be encoded as YAML.
    #[error("encoding the result as YAML")]
    Yaml(#[source] serde_yaml::Error),
    /// Asking the person failed (the terminal went away, or the prompt was interrupted).
    #[error("asking for confirmation")]
    Prompt(#[source] dialoguer::Error),
}

impl Fault for PrintError {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Failure
    }
}

/// How a table cell reads at a glance; turned into a colour only when colours are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// No colour.
    Plain,
    /// Healthy: green.
    Good,
    /// Broken: red.
    Bad,
    /// Unknown or in progress: yellow.
    Warn,
}

/// One table cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// The text shown.
    pub text: String,
    /// Its tone.
    pub tone: Tone,
}

impl Cell {
    /// A cell without colour.
    pub fn plain(text: impl Into<String>) -> Self {
        Self { text: text.into(), tone: Tone::Plain }
    }

    /// A cell with a tone.
    pub fn toned(text: impl Into<String>, tone: Tone) -> Self {
        Self { text: text.into(), tone }
    }

    /// A condition status cell: `True` green, `False` red, `Unknown` yellow, `-` when the
    /// condition is absent (an empty cell would shift the columns of `awk`-style readers).
    pub fn status(status: Option<&str>) -> Self {
        match status {
            Some(s @ "True") => Self::toned(s, Tone::Good),
            Some(s @ "False") => Self::toned(s, Tone::Bad),
            Some(s) => Self::toned(s, Tone::Warn),
            None => Self::plain(NONE),
        }
    }
}

/// What a table shows in place of a missing value.
pub const NONE: &str = "-";

/// One column of a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The header, in capitals as kubectl writes them.
    pub title: &'static str,
    /// Shown only with `-o wide`.
    pub wide: bool,
}

impl Column {
    /// A column of the normal table.
    pub const fn normal(title: &'static str) -> Self {
        Self { title, wide: false }
    }

    /// A column only `-o wide` shows.
    pub const fn wide(title: &'static str) -> Self {
        Self { title, wide: true }
    }
}

/// One object of a listing: its name, its cells (one per column, wide ones included) and the
/// object itself for `-o json|yaml`.
#[derive(Debug, Clone)]
pub struct Row {
    /// The object's name (for `-o name`).
    pub name: String,
    /// One cell per column of the listing.
    pub cells: Vec<Cell>,
    /// The object as the API server returned it.
    pub object: Value,
}

/// A list of objects of one kind, printable in every format.
#[derive(Debug, Clone)]
pub struct Listing {
    /// `<kind>.<group>` in lower case, the prefix of `-o name` (as kubectl prints it).
    pub resource: &'static str,
    /// The columns.
    pub columns: Vec<Column>,
    /// The objects, in the order to print them.
    pub rows: Vec<Row>,
    /// The user asked for exactly one object by name: JSON and YAML print that object rather
    /// than a `List`, as kubectl does.
    pub single: bool,
}

/// Writes results to stdout in the format `-o` chose, and notes for people to stderr.
#[derive(Debug, Clone)]
pub struct Printer {
    output: Output,
    no_headers: bool,
    quiet: bool,
    verbose: bool,
    color: bool,
    stderr_color: bool,
}

impl Printer {
    /// The printer for the terminal flags, printing tables until [`Printer::with_output`]
    /// says otherwise: colours unless `--no-color`, `NO_COLOR` or the stream is not a terminal.
    pub fn new(flags: &TerminalFlags) -> Self {
        let no_color = flags.no_color || std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Self {
            output: Output::Table,
            no_headers: false,
            quiet: flags.quiet,
            verbose: flags.verbose > 0,
            color: !no_color && io::stdout().is_terminal(),
            stderr_color: !no_color && io::stderr().is_terminal(),
        }
    }

    /// A printer with the format and colour choice given, not quiet.
    #[cfg(test)]
    pub fn with(output: Output, color: bool) -> Self {
        Self { output, no_headers: false, quiet: false, verbose: false, color, stderr_color: color }
    }

    /// The same printer with the format `-o` chose.
    #[must_use]
    pub fn with_output(self, output: Output) -> Self {
        Self { output, ..self }
    }

    /// The same printer with the format and header choice of a command's flags.
    #[must_use]
    pub fn with_flags(&self, flags: &OutputFlags) -> Self {
        Self { output: flags.output.clone(), no_headers: flags.no_headers, ..self.clone() }
    }

    /// The same printer, printing tables without their header (the rows of `get -w`).
    #[must_use]
    pub fn without_headers(&self) -> Self {
        Self { no_headers: true, ..self.clone() }
    }

    /// The output format.
    pub fn output(&self) -> &Output {
        &self.output
    }

    /// Whether machine output (JSON or YAML) was asked for, so nothing else may reach stdout.
    pub fn is_machine(&self) -> bool {
        matches!(self.output, Output::Json | Output::Yaml)
    }

    /// Whether notes and progress are shown: not with `-q`, nor beside machine output.
    pub fn shows_notes(&self) -> bool {
        !self.quiet && !self.is_machine()
    }

    /// Whether `-v` asked for more: then the steps of an operation are said as they finish
    /// also where stderr is no terminal.
    pub fn verbose(&self) -> bool {
        self.verbose
    }

    /// Whether what goes to stderr (progress, logs) may be coloured.
    pub fn stderr_color(&self) -> bool {
        self.stderr_color
    }

    /// Prints text as it is (data: stdout).
    pub fn data(&self, text: &str) -> Result<(), PrintError> {
        write_stdout(text)
    }

    /// Copies what `reader` holds to stdout (data: a log, say).
    pub fn copy(&self, reader: &mut impl Read) -> Result<(), PrintError> {
        let mut stdout = io::stdout().lock();
        let mut buffer = [0u8; 64 * 1024];
        loop {
            let read = match reader.read(&mut buffer) {
                Ok(0) => break,
                Ok(read) => read,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(PrintError::Read(e)),
            };
            if let Err(e) = stdout.write_all(&buffer[..read]) {
                return ok_if_reader_left(e);
            }
        }
        stdout.flush().or_else(ok_if_reader_left)
    }

    /// Says something to a person (stderr), unless `-q` or machine output.
    pub fn note(&self, line: &str) {
        if self.shows_notes() {
            write_stderr(line);
        }
    }

    /// Reports the error a command ended with (stderr, always).
    pub fn error(&self, error: &CommandError) {
        write_stderr(&format!("error: {}", error.chain()));
    }

    /// Whether a person is there to answer a prompt: stdin and stderr are terminals.
    pub fn can_prompt(&self) -> bool {
        io::stdin().is_terminal() && io::stderr().is_terminal()
    }

    /// Asks a yes/no question on stderr; no unless the person says yes.
    pub fn confirm(&self, question: &str) -> Result<bool, PrintError> {
        dialoguer::Confirm::new().with_prompt(question).default(false).interact().map_err(PrintError::Prompt)
    }

    /// Prints a listing in the chosen format.
    pub fn list(&self, listing: &Listing) -> Result<(), PrintError> {
        let text = self.render_list(listing)?;
        write_stdout(&text)
    }

    /// A listing as the text [`Printer::list`] prints.
    pub fn render_list(&self, listing: &Listing) -> Result<String, PrintError> {
        match &self.output {
            Output::Table | Output::Wide => {
                if listing.rows.is_empty() {
                    return Ok(String::new());
                }
                let wide = self.output == Output::Wide;
                let keep: Vec<usize> =
                    (0..listing.columns.len()).filter(|&i| wide || !listing.columns[i].wide).collect();
                let header: Vec<&str> = keep.iter().map(|&i| listing.columns[i].title).collect();
                let rows: Vec<Vec<Cell>> = listing
                    .rows
                    .iter()
                    .map(|row| {
                        keep.iter().map(|&i| row.cells.get(i).cloned().unwrap_or_else(|| Cell::plain(NONE))).collect()
                    })
                    .collect();
                Ok(self.table(&header, &rows))
            }
            Output::Json | Output::Yaml | Output::JsonPath(_) | Output::CustomColumns(_) => {
                let document = match (listing.single, listing.rows.as_slice()) {
                    (true, [row]) => row.object.clone(),
                    _ => list_document(listing.rows.iter().map(|r| r.object.clone()).collect()),
                };
                self.render_document(&document)
            }
            Output::Name => Ok(listing.rows.iter().map(|r| format!("{}/{}\n", listing.resource, r.name)).collect()),
        }
    }

    /// Prints one document: `text` (rendered lazily) for tables, `value` for JSON and YAML,
    /// `name` for `-o name`.
    pub fn document<T: Serialize>(
        &self,
        value: &T,
        name: &str,
        text: impl FnOnce(&Self) -> String,
    ) -> Result<(), PrintError> {
        let out = match self.output {
            Output::Table | Output::Wide => text(self),
            Output::Json | Output::Yaml | Output::JsonPath(_) | Output::CustomColumns(_) => {
                self.render_document(value)?
            }
            Output::Name => format!("{name}\n"),
        };
        write_stdout(&out)
    }

    /// A value as JSON (pretty, two spaces, as kubectl) or YAML, ending in a newline, or
    /// through the `jsonpath=` template or `custom-columns=` asked for; other formats get
    /// JSON.
    pub fn render_document<T: Serialize>(&self, value: &T) -> Result<String, PrintError> {
        match &self.output {
            Output::Yaml => serde_yaml::to_string(value).map_err(PrintError::Yaml),
            Output::JsonPath(template) => Ok(template.render(&serde_json::to_value(value).map_err(PrintError::Json)?)),
            Output::CustomColumns(columns) => {
                let document = serde_json::to_value(value).map_err(PrintError::Json)?;
                let rows: Vec<Vec<Cell>> = rows_of(&document)
                    .into_iter()
                    .map(|o| columns.row(o).into_iter().map(Cell::plain).collect())
                    .collect();
                Ok(self.table(&columns.headers(), &rows))
            }
            _ => serde_json::to_string_pretty(value).map(|s| s + "\n").map_err(PrintError::Json),
        }
    }

    /// A borderless table in kubectl's layout: left-aligned, three spaces between columns, no
    /// wrapping (a wrapped row breaks `grep` and `awk`), no trailing spaces.
    pub fn table(&self, header: &[&str], rows: &[Vec<Cell>]) -> String {
        let mut table = Table::new();
        table.load_preset(presets::NOTHING).set_content_arrangement(ContentArrangement::Disabled);
        if self.color {
            // Colour the words, not the padding after them.
            table.enforce_styling();
            table.style_text_only();
        } else {
            table.force_no_tty();
        }
        if !self.no_headers {
            table.set_header(header.iter().map(comfy_table::Cell::new));
        }
        for row in rows {
            table.add_row(row.iter().map(|cell| self.cell(cell)));
        }
        let last = header.len().saturating_sub(1);
        for (i, column) in table.column_iter_mut().enumerate() {
            column.set_padding((0, if i == last { 0 } else { 3 }));
        }
        let mut out = String::new();
        for line in table.lines() {
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    fn cell(&self, cell: &Cell) -> comfy_table::Cell {
        let out = comfy_table::Cell::new(&cell.text);
        let color = match cell.tone {
            _ if !self.color => return out,
            Tone::Plain => return out,
            Tone::Good => Color::Green,
            Tone::Bad => Color::Red,
            Tone::Warn => Color::Yellow,
        };
        out.fg(color)
    }
}

/// A kubectl-style `List` of objects.
pub fn list_document(items: Vec<Value>) -> Value {
    json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items})
}

/// An object as `-o json|yaml` shows it: without `metadata.managedFields`, which only the API
/// server's bookkeeping needs (kubectl hides it too).
pub fn for_output<T: Serialize>(object: &T) -> Result<Value, PrintError> {
    let mut value = serde_json::to_value(object).map_err(PrintError::Json)?;
    if let Some(metadata) = value.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("managedFields");
    }
    Ok(value)
}

/// Writes to stdout; a reader that has gone away is success.
fn write_stdout(text: &str) -> Result<(), PrintError> {
    let mut stdout = io::stdout().lock();
    stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()).or_else(ok_if_reader_left)
}

fn ok_if_reader_left(e: io::Error) -> Result<(), PrintError> {
    if e.kind() == io::ErrorKind::BrokenPipe { Ok(()) } else { Err(PrintError::Write(e)) }
}

/// Writes one line to stderr. A stderr that cannot be written leaves nowhere to say so, so
/// the line is dropped (where `eprintln!` would panic).
fn write_stderr(line: &str) {
    let mut stderr = io::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}

/// How long ago `since` was, as kubectl prints ages (`45s`, `5m30s`, `3h`, `2d4h`, `1y`):
/// precise while young, coarser with age.
pub fn age(since: Timestamp, now: Timestamp) -> String {
    let seconds = now.as_second() - since.as_second();
    fleetctl_kube::duration::human(seconds)
}

/// A memory quantity (`64551700Ki`, `16Gi`, `17179869184`) in binary units with one decimal
/// (`61.6Gi`); the text as given when it is not a quantity.
pub fn memory(quantity: &str) -> String {
    let Some(bytes) = approximate(quantity) else { return quantity.to_string() };
    const UNITS: [&str; 6] = ["", "Ki", "Mi", "Gi", "Ti", "Pi"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 || value >= 100.0 || value.fract() == 0.0 {
        format!("{value:.0}{}", UNITS[unit])
    } else {
        format!("{value:.1}{}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing() -> Listing {
        let row = |name: &str, status: Option<&str>, url: &str| Row {
            name: name.into(),
            cells: vec![Cell::plain(name), Cell::status(status), Cell::plain(url)],
            object: json!({"metadata": {"name": name}}),
        };
        Listing {
            resource: "managedcluster.cluster.open-cluster-management.io",
            columns: vec![Column::normal("NAME"), Column::normal("AVAILABLE"), Column::wide("URL")],
            rows: vec![row("c1", Some("True"), "https://c1:6443"), row("cluster-two", None, "")],
            single: false,
        }
    }

    #[test]
    fn tables_are_aligned_like_kubectl_without_trailing_spaces() {
        let out = Printer::with(Output::Table, false).render_list(&listing()).unwrap();
        assert_eq!(out, "NAME          AVAILABLE\nc1            True\ncluster-two   -\n");
        let wide = Printer::with(Output::Wide, false).render_list(&listing()).unwrap();
        assert_eq!(wide, "NAME          AVAILABLE   URL\nc1            True        https://c1:6443\ncluster-two   -\n");
    }

    #[test]
    fn colours_appear_only_when_asked_for() {
        let plain = Printer::with(Output::Table, false).render_list(&listing()).unwrap();
        assert!(!plain.contains('\u{1b}'));
        let coloured = Printer::with(Output::Table, true).render_list(&listing()).unwrap();
        assert!(coloured.contains('\u{1b}'), "{coloured:?}");
    }

    #[test]
    fn machine_formats_print_one_document() {
        let json_out = Printer::with(Output::Json, false).render_list(&listing()).unwrap();
        let value: Value = serde_json::from_str(&json_out).unwrap();
        assert_eq!(value["kind"], "List");
        assert_eq!(value["items"][1]["metadata"]["name"], "cluster-two");

        let mut one = listing();
        one.rows.truncate(1);
        one.single = true;
        let yaml_out = Printer::with(Output::Yaml, false).render_list(&one).unwrap();
        let value: Value = serde_yaml::from_str(&yaml_out).unwrap();
        assert_eq!(value, json!({"metadata": {"name": "c1"}}));
    }

    #[test]
    fn names_carry_the_resource_as_kubectl_prints_them() {
        let out = Printer::with(Output::Name, false).render_list(&listing()).unwrap();
        assert_eq!(
            out,
            "managedcluster.cluster.open-cluster-management.io/c1\n\
             managedcluster.cluster.open-cluster-management.io/cluster-two\n"
        );
    }

    #[test]
    fn empty_tables_print_nothing() {
        let mut empty = listing();
        empty.rows.clear();
        assert_eq!(Printer::with(Output::Table, false).render_list(&empty).unwrap(), "");
        let out = Printer::with(Output::Json, false).render_list(&empty).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["items"], json!([]));
    }

    #[test]
    fn managed_fields_are_left_out_of_machine_output() {
        let object = json!({"metadata": {"name": "c1", "managedFields": [{"manager": "x"}]}, "spec": {}});
        assert_eq!(for_output(&object).unwrap(), json!({"metadata": {"name": "c1"}, "spec": {}}));
    }

    #[test]
    fn ages_read_like_kubectl() {
        let cases = [
            (-5, "<invalid>"),
            (-1, "0s"),
            (0, "0s"),
            (119, "119s"),
            (120, "2m"),
            (330, "5m30s"),
            (600, "10m"),
            (179 * 60, "179m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 5 * 60, "3h5m"),
            (8 * 3600, "8h"),
            (47 * 3600, "47h"),
            (2 * 86400 + 4 * 3600, "2d4h"),
            (9 * 86400, "9d"),
            (3 * 365 * 86400 + 20 * 86400, "3y20d"),
            (9 * 365 * 86400, "9y"),
        ];
        for (seconds, expected) in cases {
            assert_eq!(fleetctl_kube::duration::human(seconds), expected, "{seconds}s");
        }
        let now = Timestamp::from_second(1_000_000).unwrap();
        assert_eq!(age(Timestamp::from_second(999_955).unwrap(), now), "45s");
    }

    #[test]
    fn memory_is_shown_in_binary_units() {
        assert_eq!(memory("64551700Ki"), "61.6Gi");
        assert_eq!(memory("16Gi"), "16Gi");
        assert_eq!(memory("8G"), "7.5Gi");
        assert_eq!(memory("512"), "512");
        assert_eq!(memory("lots"), "lots");
        assert_eq!(approximate("1500m"), Some(1.5));
        assert_eq!(approximate("1e3"), Some(1000.0));
        assert_eq!(approximate(""), None);
    }
}
