//! `mcpgen check`: every mistake in a curation file and every tool-design lint, in one report.
//!
//! A spec that cannot be read is a plain error. Otherwise the curation file's mistakes (errors)
//! and the lints of [`crate::lint`] (warnings, and errors for exceeded budgets) are reported
//! together, sorted by position: as `FILE:LINE:COL` snippets on stderr, or as JSON on stdout.
//! When the file has mistakes, the tools without mistakes are still linted.
//!
//! The spec's own findings come first: what makes it invalid against its specification and what
//! loading repaired (warnings, [`crate::api::Api::warnings`]), or why it cannot be loaded (an
//! error), each with the file it is in (an external file a `$ref` named, when it is in one) and
//! its line and column. `mcpgen check SPEC` without a curation file checks the spec alone.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde_json::{Value, json};

use super::{Format, Inputs, Output};
use crate::api::Api;
use crate::curate::diagnostics;
use crate::curate::{Checked, Curation, Diagnostic, Severity};
use crate::plan::{Action, Options};

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// `text`: `FILE:LINE:COL` with the line, a caret and a suggestion, on stderr; `json`: a list
    /// of `{severity, message, file, line, column, help, tools}` on stdout (`tools`: the curated
    /// tools a finding belongs to; a finding in the spec also has `pointer`, its JSON pointer).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Fail (exit 1) on warnings too, not only on errors.
    #[arg(long)]
    pub deny_warnings: bool,
}

pub fn run(args: CheckArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    args.inputs.refuse_a_spec_as_curation()?;
    out.progress(
        args.inputs.is_large(),
        &format!("loading {}", args.inputs.spec.display()),
    );
    let api = match crate::load::load_with(&args.inputs.spec, args.inputs.refs_root.as_deref()) {
        Ok(api) => api,
        Err(error) if args.format == Format::Json => {
            out.stdout_line(&render_json(vec![load_error_json(&error)]));
            return Ok(ExitCode::from(1));
        }
        Err(error) => return Err(error.into()),
    };
    let spec_warnings = api.warnings.len();
    if args.format == Format::Text && (out.verbosity > 0 || args.deny_warnings) {
        crate::load::print_warnings(&args.inputs.spec, &api);
    }
    let options = args.inputs.options();
    let (file, text, mut found) = match &args.inputs.curation {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("{}: cannot read the curation file", path.display()))?;
            let found = check_curation(&text, &api, &options)?;
            (path.clone(), text, found)
        }
        None => {
            let plan = crate::plan::plan(&api, &options, None).map_err(anyhow::Error::msg)?;
            (
                args.inputs.spec.clone(),
                String::new(),
                crate::lint::lint(&plan, None),
            )
        }
    };
    sort(&mut found);
    let errors = found
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = found.len() - errors + spec_warnings;
    let failed = errors > 0 || (args.deny_warnings && warnings > 0);

    match args.format {
        Format::Json => {
            let mut items: Vec<Value> = api
                .warnings
                .iter()
                .map(|warning| load_warning_json(&args.inputs.spec, warning))
                .collect();
            items.extend(json_items(&file, &found));
            out.stdout_line(&render_json(items));
        }
        Format::Text => {
            // `-q` says nothing but errors: warnings only when they fail the run.
            if out.verbosity == 0 && !args.deny_warnings {
                found.retain(|d| d.severity == Severity::Error);
            }
            if found.is_empty() && spec_warnings == 0 {
                out.status(&format!("{}: no problems", file.display()));
            } else if found.is_empty() {
                let plural = if spec_warnings == 1 { "" } else { "s" };
                out.status(&format!(
                    "{}: {spec_warnings} warning{plural} about the spec, no problems in what it makes",
                    file.display()
                ));
            } else {
                let report = diagnostics::render(&file, &text, &found);
                let report = if out.color { paint(&report) } else { report };
                out.stderr(&report);
            }
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The curation file's mistakes and the lints of the tools it makes.
fn check_curation(text: &str, api: &Api, options: &Options) -> anyhow::Result<Vec<Diagnostic>> {
    let curation = match crate::curate::parse(text) {
        Ok(curation) => curation,
        // Not a curation file yet: nothing to plan, nothing to lint.
        Err(mistakes) => return Ok(mistakes),
    };
    let (checked, mut found) = crate::curate::check_and_bind(api, curation);
    let curation = match checked {
        Ok(checked) => {
            let plan = crate::plan::plan(api, options, Some(&checked.model))
                .map_err(anyhow::Error::msg)?;
            found.extend(crate::lint::lint(&plan, Some(&checked.curation)));
            return Ok(found);
        }
        Err(curation) => curation,
    };
    // Lint what can be planned: the tools without mistakes, when the rest of the file has none.
    // Their one-to-one neighbours and the total depend on the tools left out, so only the
    // curated tools are linted, and only against the per-tool budget.
    if let Some(intact) = intact_tools(api, &curation, &found)
        && let Ok(mut plan) = crate::plan::plan(api, options, Some(&intact.model))
    {
        plan.tools
            .retain(|tool| matches!(tool.action, Action::Curated(_)));
        found.extend(crate::lint::design(&plan, Some(&intact.curation)));
        found.extend(crate::lint::tool_budgets(&plan, Some(&intact.curation)));
        found.extend(crate::lint::unchecked_patterns(
            &plan,
            Some(&intact.curation),
        ));
    }
    Ok(found)
}

/// `curation` without the tools that have mistakes (as `found` names them), checked and bound;
/// `None` when the mistakes are elsewhere.
fn intact_tools(api: &Api, curation: &Curation, found: &[Diagnostic]) -> Option<Checked> {
    let errors = || found.iter().filter(|d| d.severity == Severity::Error);
    if errors().any(|d| d.tools.is_empty()) {
        return None;
    }
    let broken: Vec<&str> = errors()
        .flat_map(|d| d.tools.iter().map(String::as_str))
        .collect();
    let mut intact = curation.clone();
    intact
        .tools
        .retain(|name, _| !broken.contains(&name.value.as_str()));
    crate::curate::check_and_bind(api, intact).0.ok()
}

/// The order of the report: the file as a whole first, then by position; errors before
/// warnings at one place.
fn sort(found: &mut [Diagnostic]) {
    found.sort_by_key(|d| (d.at.map(|a| (a.line, a.column)), d.severity));
}

/// `[{severity, message, file, line, column, help, tools}]`; `line` and `column` are null for a
/// finding about the file as a whole, `tools` (the keys of the curated tools it belongs to) empty
/// for one outside the tools. The spec's findings also have `pointer`, the JSON pointer of the
/// value in `file`.
fn render_json(items: Vec<Value>) -> String {
    serde_json::to_string_pretty(&items).expect("JSON always serializes")
}

/// A warning about the spec (or an external file it refers to) as a JSON diagnostic.
fn load_warning_json(spec: &Path, warning: &crate::api::Warning) -> Value {
    let file = warning.file.as_deref().unwrap_or(spec);
    json!({
        "severity": "warning",
        "message": warning.message,
        "file": file.display().to_string(),
        "line": warning.position.map(|(line, _)| line),
        "column": warning.position.map(|(_, column)| column),
        "pointer": warning.pointer,
        "help": null,
        "tools": [],
    })
}

/// Why the spec cannot be loaded, as a JSON diagnostic.
fn load_error_json(error: &crate::load::LoadError) -> Value {
    json!({
        "severity": "error",
        "message": error.message,
        "file": error.file.display().to_string(),
        "line": error.position.map(|(line, _)| line),
        "column": error.position.map(|(_, column)| column),
        "pointer": error.pointer,
        "help": null,
        "tools": [],
    })
}

fn json_items(file: &Path, found: &[Diagnostic]) -> Vec<Value> {
    let file = file.display().to_string();
    found
        .iter()
        .map(|d| {
            json!({
                "severity": match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                },
                "message": d.message,
                "file": file,
                "line": d.at.map(|a| a.line),
                "column": d.at.map(|a| a.column),
                "help": d.help,
                "tools": d.tools,
            })
        })
        .collect()
}

/// Colours the `error` and `warning` headings of a rendered report.
fn paint(report: &str) -> String {
    report
        .lines()
        .map(|line| {
            if let Some(rest) = line.strip_prefix("error") {
                format!("\u{1b}[1;31merror\u{1b}[0m{rest}\n")
            } else if let Some(rest) = line.strip_prefix("warning") {
                format!("\u{1b}[1;33mwarning\u{1b}[0m{rest}\n")
            } else {
                format!("{line}\n")
            }
        })
        .collect()
}
