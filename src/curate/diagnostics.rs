//! Diagnostics about a curation file: each names `FILE:LINE:COL`, shows the offending line with
//! the value underlined, and suggests a fix where one is close. All of a file's diagnostics are
//! collected and shown together, in file order.

use std::path::Path;

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config};

use super::model::At;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

/// One finding about the curation file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// Where it is; `None` for the file as a whole.
    pub at: Option<At>,
    /// A suggestion, shown under the underlined value.
    pub help: Option<String>,
    /// The curated tools (their keys in the file) whose checking found it; empty for a finding
    /// about the file outside its tools. `check` and `diff` leave out or report by tool with it.
    pub tools: Vec<String>,
}

impl Diagnostic {
    pub fn error(at: At, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            message: message.into(),
            at: Some(at),
            help: None,
            tools: Vec::new(),
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds "did you mean `x`?" when one of `candidates` is close to `wrong`.
    pub fn suggest<'a>(self, wrong: &str, candidates: impl IntoIterator<Item = &'a str>) -> Self {
        match closest(wrong, candidates) {
            Some(best) => self.with_help(format!("did you mean `{best}`?")),
            None => self,
        }
    }
}

/// The candidate closest to `wrong`, when it is close enough to be what was meant.
pub fn closest<'a>(wrong: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let wrong_lower = wrong.to_lowercase();
    candidates
        .into_iter()
        .map(|candidate| {
            let score = strsim::jaro_winkler(&wrong_lower, &candidate.to_lowercase());
            (score, candidate)
        })
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

/// Renders `diagnostics` for `file` (whose text is `text`) as plain text, sorted by position.
pub fn render(file: &Path, text: &str, diagnostics: &[Diagnostic]) -> String {
    let mut sorted: Vec<&Diagnostic> = diagnostics.iter().collect();
    sorted.sort_by_key(|d| (d.at.map(|a| (a.line, a.column)), d.severity));
    let name = file.display().to_string();
    let files = SimpleFile::new(name.as_str(), text);
    let config = Config::default();
    let mut out = String::new();
    for diagnostic in sorted {
        let report = match diagnostic.severity {
            Severity::Error => Report::error(),
            Severity::Warning => Report::warning(),
        }
        .with_message(&diagnostic.message);
        let report = match diagnostic.at {
            Some(at) => {
                let range = byte_range(text, at);
                let label = Label::primary((), range);
                let label = match &diagnostic.help {
                    Some(help) => label.with_message(help),
                    None => label,
                };
                report.with_labels(vec![label])
            }
            None => match &diagnostic.help {
                Some(help) => report.with_notes(vec![help.clone()]),
                None => report,
            },
        };
        match term::emit_into_string(&config, &files, &report) {
            Ok(rendered) => out.push_str(&rendered),
            Err(_) => out.push_str(&format!("error: {}: {}\n", name, diagnostic.message)),
        }
    }
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = diagnostics.len() - errors;
    out.push_str(&summary(&name, errors, warnings));
    out
}

fn summary(name: &str, errors: usize, warnings: usize) -> String {
    let plural = |n: usize, word: &str| {
        if n == 1 {
            format!("1 {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    match (errors, warnings) {
        (0, 0) => String::new(),
        (e, 0) => format!("{name}: {}\n", plural(e, "error")),
        (0, w) => format!("{name}: {}\n", plural(w, "warning")),
        (e, w) => format!(
            "{name}: {} and {}\n",
            plural(e, "error"),
            plural(w, "warning")
        ),
    }
}

/// The byte range in `text` of a value found at `at` (character offset and length).
fn byte_range(text: &str, at: At) -> std::ops::Range<usize> {
    let mut indices = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()));
    let start = indices.nth(at.offset).unwrap_or(text.len());
    // A quoted value is underlined with its quotes.
    let quoted = text[start..].starts_with(['"', '\'']);
    let at = At {
        len: if quoted { at.len + 2 } else { at.len },
        ..at
    };
    // Keep the underline on the value's line.
    let line_end = text[start..].find('\n').map_or(text.len(), |n| start + n);
    let end = text[start..]
        .char_indices()
        .nth(at.len)
        .map_or(text.len(), |(i, _)| start + i)
        .min(line_end)
        .max(start);
    start..end
}
