//! The figures of one run as rows, printed as a small table and written as JSON from the same
//! values, so the README, the terminal and any later comparison quote one measurement.

use serde::Serialize;
use std::fmt::Write as _;

/// One figure.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Row {
    pub(crate) section: String,
    pub(crate) name: String,
    /// `None` when the figure was not measured; `note` then says why.
    pub(crate) value: Option<f64>,
    pub(crate) unit: String,
    /// The value over the four-children pipe floor, for per-answer times.
    pub(crate) ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) note: Option<String>,
}

/// The whole run.
#[derive(Debug, Serialize)]
pub(crate) struct Report {
    pub(crate) date: String,
    pub(crate) command: String,
    pub(crate) cpus: usize,
    pub(crate) load_before: Option<f64>,
    pub(crate) load_after: Option<f64>,
    pub(crate) rows: Vec<Row>,
}

impl Report {
    /// Starts a section; rows added next belong to it.
    pub(crate) fn section<'a>(&'a mut self, name: &str) -> Section<'a> {
        Section { report: self, name: name.to_string() }
    }

    /// The table for a terminal.
    pub(crate) fn table(&self) -> String {
        let load = |l: Option<f64>| l.map_or("?".to_string(), |l| format!("{l:.2}"));
        let mut out = format!(
            "Aluette referee benchmark, {}, {} CPUs, load {} -> {}\n",
            self.date,
            self.cpus,
            load(self.load_before),
            load(self.load_after)
        );
        let _ = writeln!(out, "{}", self.command);
        let width = self.rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max(10);
        let _ =
            writeln!(out, "\n  {:width$}  {:>10}  {:<8}  {:>8}", "", "value", "unit", "x floor");
        let mut section = "";
        for row in &self.rows {
            if row.section != section {
                section = &row.section;
                let _ = writeln!(out, "{section}");
            }
            let value = row.value.map_or("-".to_string(), figure);
            let ratio = row.ratio.map_or(String::new(), |r| format!("{r:.1}x"));
            let mut line =
                format!("  {:width$}  {value:>10}  {:<8}  {ratio:>8}", row.name, row.unit);
            if let Some(note) = &row.note {
                let _ = write!(line, "  {note}");
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
        out
    }
}

/// Rows of one section.
#[derive(Debug)]
pub(crate) struct Section<'a> {
    report: &'a mut Report,
    name: String,
}

impl Section<'_> {
    /// A figure without a ratio.
    pub(crate) fn row(&mut self, name: &str, value: f64, unit: &str) -> &mut Row {
        self.report.rows.push(Row {
            section: self.name.clone(),
            name: name.to_string(),
            value: Some(value),
            unit: unit.to_string(),
            ratio: None,
            note: None,
        });
        self.report.rows.last_mut().expect("a row was just pushed")
    }

    /// A per-answer time with its ratio to `floor_us`.
    pub(crate) fn per_answer(&mut self, name: &str, value_us: f64, floor_us: f64) -> &mut Row {
        let row = self.row(name, value_us, "us");
        row.ratio = Some(value_us / floor_us);
        row
    }

    /// A figure that was not measured, and why: never a made-up number.
    pub(crate) fn missing(&mut self, name: &str, unit: &str, why: &str) {
        self.row(name, 0.0, unit).value = None;
        self.report.rows.last_mut().expect("a row was just pushed").note = Some(why.to_string());
    }
}

impl Row {
    pub(crate) fn note(&mut self, note: impl Into<String>) -> &mut Row {
        self.note = Some(note.into());
        self
    }
}

/// Three significant digits or so, without exponent notation: what a reader compares.
fn figure(v: f64) -> String {
    match v.abs() {
        a if a >= 100.0 => format!("{v:.0}"),
        a if a >= 10.0 => format!("{v:.1}"),
        _ => format!("{v:.2}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_and_json_carry_the_same_rows() {
        let mut r = Report {
            date: "d".into(),
            command: "c".into(),
            cpus: 2,
            load_before: Some(0.5),
            load_after: None,
            rows: vec![],
        };
        r.section("Floor").per_answer("four children", 20.0, 10.0);
        r.section("Memory").missing("64 tables", "MiB", "not measured: needs parallel tables");
        let t = r.table();
        assert!(t.contains("four children") && t.contains("2.0x") && t.contains("not measured"));
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["rows"][0]["ratio"], 2.0);
        assert!(j["rows"][1]["value"].is_null());
    }
}
