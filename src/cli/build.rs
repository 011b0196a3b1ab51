//! `mcpgen build`: generate the crate and write it, or (`--check`) tell whether the directory
//! already holds exactly what would be written.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::{Inputs, Output};
use crate::write::{Change, ChangeKind};

#[derive(Debug, Args)]
pub struct BuildArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// The directory to write the crate to [default: ./<name>-mcp].
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Write nothing: compare the directory with what would be written, list the files that
    /// differ (with a unified diff under -v) and exit with 1 when it is stale.
    #[arg(long)]
    pub check: bool,
    /// Depend on the published mcpgen-runtime crate of this version (with the features the
    /// server uses) instead of writing the runtime into the crate as src/runtime/.
    #[arg(long, value_name = "VERSION")]
    pub runtime_crate: Option<String>,
}

pub fn run(args: BuildArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let runtime = match args.runtime_crate {
        Some(version) => crate::render::Runtime::Crate(version),
        None => crate::render::Runtime::Vendored,
    };
    let (plan, files) = args.inputs.generate_with(out, &runtime)?;
    // A token budget the curation file sets is a limit the build enforces too.
    crate::lint::check_budgets(&plan, args.inputs.curation.as_deref())?;
    let dir = args
        .output
        .unwrap_or_else(|| PathBuf::from(&plan.server.crate_name));
    if args.check {
        return check(&dir, &files, out);
    }
    let changes = crate::write::write(&dir, &files).map_err(anyhow::Error::msg)?;
    if changes.is_empty() {
        out.status(&format!(
            "up to date: {} ({} tools) in {}, nothing written",
            plan.server.crate_name,
            plan.tools.len(),
            dir.display()
        ));
    } else {
        out.status(&format!(
            "wrote {} ({} tools) to {}",
            plan.server.crate_name,
            plan.tools.len(),
            dir.display()
        ));
    }
    for change in &changes {
        let verb = match change.kind {
            ChangeKind::Missing => "created",
            ChangeKind::Changed => "updated",
            ChangeKind::Extra => "removed",
        };
        out.detail(&format!("  {verb} {}", change.path));
    }
    Ok(ExitCode::SUCCESS)
}

/// `--check`: exit 0 when `dir` is up to date, 1 (listing what differs) when it is stale.
fn check(dir: &Path, files: &[crate::File], out: &mut Output) -> anyhow::Result<ExitCode> {
    let changes = crate::write::compare(dir, files).map_err(anyhow::Error::msg)?;
    if changes.is_empty() {
        out.status(&format!("up to date: {}", dir.display()));
        return Ok(ExitCode::SUCCESS);
    }
    let mut report = format!("stale: {}\n", dir.display());
    for change in &changes {
        report.push_str(&format!("{} {}\n", change.kind.as_str(), change.path));
    }
    if out.verbosity >= 2 {
        for change in &changes {
            report.push_str(&unified_diff(change));
        }
    }
    out.stdout(&report);
    Ok(ExitCode::from(1))
}

/// What `mcpgen build` would do to the file, as a unified diff from the file on disk
/// (`a/PATH`, `/dev/null` when missing) to the generated one (`b/PATH`, `/dev/null` when it
/// would be removed).
fn unified_diff(change: &Change) -> String {
    let current = change.current.as_deref().unwrap_or_default();
    let generated = change.generated.as_deref().unwrap_or_default();
    let old_name = match change.kind {
        ChangeKind::Missing => "/dev/null".to_string(),
        _ => format!("a/{}", change.path),
    };
    let new_name = match change.kind {
        ChangeKind::Extra => "/dev/null".to_string(),
        _ => format!("b/{}", change.path),
    };
    similar::TextDiff::from_lines(current, generated)
        .unified_diff()
        .context_radius(3)
        .header(&old_name, &new_name)
        .to_string()
}
