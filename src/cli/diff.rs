//! `mcpgen diff OLD NEW [-c FILE]`: the tool-level changes between two versions of an API, each
//! marked breaking or not; exit code 2 when anything breaks.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::{Format, Output};
use crate::curate::{self, CurationError, Diagnostic, Severity};
use crate::diff::CurationBreak;
use crate::plan::{self, Action, Plan};

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The API's older OpenAPI document (the one the server was built from).
    pub old: PathBuf,
    /// The API's newer OpenAPI document.
    pub new: PathBuf,
    /// The curation file, used with both versions; its references the new version breaks are
    /// reported as breaking changes.
    #[arg(short, long, value_name = "FILE")]
    pub curation: Option<PathBuf>,
    /// How to print the changes.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// The exit code when a change is breaking.
const BREAKING: u8 = 2;

pub fn run(args: DiffArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    if let Some(curation) = &args.curation {
        super::refuse_a_spec_as_curation(curation)?;
    }
    let old_api = crate::load::load(&args.old)?;
    let new_api = crate::load::load(&args.new)?;
    // Without a curation file every operation is compared as a tool of its own, also for a spec
    // large enough for discovery mode: a changed operation breaks its discovered calls as much
    // as its tool's.
    let options = plan::Options {
        no_discovery: args.curation.is_none(),
        ..plan::Options::default()
    };
    let plan_with = |api: &crate::api::Api, model: Option<&curate::Model>| {
        plan::plan(api, &options, model).map_err(anyhow::Error::msg)
    };

    let (old_plan, new_plan, broken) = match &args.curation {
        None => (
            plan_with(&old_api, None)?,
            Some(plan_with(&new_api, None)?),
            Vec::new(),
        ),
        Some(path) => {
            let checked = curate::load(path, &old_api).map_err(|e| against_old(e, &args.old))?;
            let curation = checked.curation;
            let old_plan = plan_with(&old_api, Some(&checked.model))?;
            let recheck = Recheck {
                api: &new_api,
                curation: &curation,
                path,
                old_plan: &old_plan,
            };
            let (usable, broken) = recheck.run();
            let new_plan = match usable {
                Some(checked) => Some(plan_with(&new_api, Some(&checked.model))?),
                None => None,
            };
            (old_plan, new_plan, broken)
        }
    };

    let changes = crate::diff::diff(&old_plan, new_plan.as_ref(), &broken);
    match args.format {
        Format::Text => out.stdout(&crate::diff::render_text(&changes)),
        Format::Json => {
            let json = crate::diff::to_json(&changes);
            out.stdout_line(&serde_json::to_string_pretty(&json).expect("JSON always serializes"));
        }
    }
    if new_plan.is_none() {
        out.status(
            "note: the tools were not compared: the curation file needs fixing before the new version can be planned at all",
        );
    }
    Ok(if crate::diff::is_breaking(&changes) {
        ExitCode::from(BREAKING)
    } else {
        ExitCode::SUCCESS
    })
}

/// The curation file must hold against the old version: otherwise there is nothing to compare.
fn against_old(error: CurationError, old: &Path) -> anyhow::Error {
    let rendered = format!(
        "{}\nnote: the curation file must check against the old version ({}) for `mcpgen diff` to compare",
        error.rendered.trim_end(),
        old.display()
    );
    anyhow::Error::new(CurationError {
        diagnostics: error.diagnostics,
        rendered,
    })
}

/// Checks the curation file against the new version and, when it no longer holds, finds the
/// broken references and which curated tools they belong to.
struct Recheck<'a> {
    api: &'a crate::api::Api,
    curation: &'a curate::Curation,
    path: &'a Path,
    old_plan: &'a Plan,
}

impl Recheck<'_> {
    /// `curation` checked against the new version and bound to it (`None` when it has errors),
    /// and its errors.
    fn check(&self, curation: curate::Curation) -> (Option<curate::Checked>, Vec<Diagnostic>) {
        let (checked, diagnostics) = curate::check_and_bind(self.api, curation);
        let errors = diagnostics
            .into_iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        (checked.ok(), errors)
    }

    /// The curation to plan the new version with (the tools that still check, bound to it;
    /// `None` when the file has errors outside its tools) and each broken reference, with the
    /// tool it belongs to as the old version served it.
    fn run(&self) -> (Option<curate::Checked>, Vec<CurationBreak>) {
        let (checked, all) = self.check(self.curation.clone());
        if let Some(checked) = checked {
            return (Some(checked), Vec::new());
        }
        // The names the old version served the curated tools by, in the file's order.
        let curated_names: Vec<&str> = self
            .old_plan
            .tools
            .iter()
            .filter(|t| matches!(t.action, Action::Curated(_)))
            .map(|t| t.name.as_str())
            .collect();
        let served = |key: &str| {
            let index = self.curation.tools.keys().position(|k| k.value == key);
            index
                .and_then(|index| curated_names.get(index).copied())
                .unwrap_or(key)
                .to_string()
        };
        let mut broken = Vec::new();
        for diagnostic in &all {
            let message = self.message(diagnostic);
            if diagnostic.tools.is_empty() {
                broken.push(CurationBreak {
                    tool: None,
                    message: message.clone(),
                });
            }
            for key in &diagnostic.tools {
                broken.push(CurationBreak {
                    tool: Some(served(key)),
                    message: message.clone(),
                });
            }
        }
        if all.iter().any(|d| d.tools.is_empty()) {
            return (None, broken);
        }
        let mut usable = self.curation.clone();
        usable
            .tools
            .retain(|key, _| !all.iter().any(|d| d.tools.contains(&key.value)));
        (self.check(usable).0, broken)
    }

    /// `mcpgen.yaml:38:11: unknown operation `listIsues`; did you mean `listIssues`?`
    fn message(&self, diagnostic: &Diagnostic) -> String {
        let place = match diagnostic.at {
            Some(at) => format!("{}:{}:{}", self.path.display(), at.line, at.column),
            None => self.path.display().to_string(),
        };
        match &diagnostic.help {
            Some(help) => format!("{place}: {}; {help}", diagnostic.message),
            None => format!("{place}: {}", diagnostic.message),
        }
    }
}
