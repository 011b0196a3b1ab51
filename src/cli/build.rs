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
    /// Depend on the published mcpgen-runtime crate (with the features the server uses) instead
    /// of writing the runtime into the crate as src/runtime/. VERSION is a Cargo version
    /// requirement (0.1.0, ^0.1, =0.1.0) that accepts the runtime this mcpgen generates code for.
    #[arg(long, value_name = "VERSION", value_parser = runtime_requirement)]
    pub runtime_crate: Option<String>,
}

/// The version of `mcpgen-runtime` whose API the generated code calls: the workspace's `runtime/`
/// crate, released with mcpgen.
pub const RUNTIME_VERSION: &str = "0.1.0";

/// `--runtime-crate`'s value: a Cargo version requirement (`0.1.0`, `^0.1`, `=0.1.0`, `~0.1.0`)
/// that accepts [`RUNTIME_VERSION`]. A requirement that does not would generate a crate that
/// cargo refuses to build, or builds against a runtime with another API.
fn runtime_requirement(text: &str) -> Result<String, String> {
    let requirement = semver::VersionReq::parse(text.trim()).map_err(|e| {
        format!("`{text}` is not a Cargo version requirement ({e}); write one like {RUNTIME_VERSION} or ^0.1")
    })?;
    let runtime = semver::Version::parse(RUNTIME_VERSION).expect("RUNTIME_VERSION is a version");
    if !requirement.matches(&runtime) {
        return Err(format!(
            "`{text}` does not accept mcpgen-runtime {RUNTIME_VERSION}, the runtime this mcpgen \
             generates code for; write {RUNTIME_VERSION} or a requirement that accepts it"
        ));
    }
    Ok(text.trim().to_string())
}

pub fn run(args: BuildArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let runtime = match args.runtime_crate {
        Some(version) => crate::render::Runtime::Crate(version),
        None => crate::render::Runtime::Vendored,
    };
    // With the output named, the files that are final before the rest (discovery mode's
    // 3 to 13 MB catalog among them) are staged while the Rust files are formatted (see
    // `write::Ahead`); without it, the output's name comes from the plan, and they are written
    // with the rest.
    let ahead = match (&args.output, args.check) {
        (Some(dir), false) => crate::write::Ahead::new(dir),
        _ => None,
    };
    let (plan, files) = args.inputs.generate_telling(out, &runtime, &|file| {
        if let Some(ahead) = &ahead {
            ahead.stage(file);
        }
    })?;
    // A token budget the curation file sets is a limit the build enforces too.
    crate::lint::check_budgets(&plan, args.inputs.curation.as_deref())?;
    let dir = args
        .output
        .unwrap_or_else(|| PathBuf::from(&plan.server.crate_name));
    if args.check {
        return check(&dir, &files, out);
    }
    out.progress(
        false,
        &format!("writing {} files to {}", files.len(), dir.display()),
    );
    let changes = crate::write::write_after(&dir, &files, ahead).map_err(anyhow::Error::msg)?;
    out.end_stage();
    if changes.is_empty() {
        out.status(&format!(
            "up to date: {} ({}) in {}, nothing written",
            plan.server.crate_name,
            tools_count(plan.tools.len()),
            dir.display()
        ));
    } else {
        out.status(&format!(
            "wrote {} ({}) to {}",
            plan.server.crate_name,
            tools_count(plan.tools.len()),
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
    // The process ends once this returns (`mcpgen::cli::run` is `main`'s), and the operating
    // system takes its memory back at once: freeing a large API's plan and files value by
    // value first (millions of small allocations) would only make the user wait longer.
    std::mem::forget(changes);
    std::mem::forget((plan, files));
    Ok(ExitCode::SUCCESS)
}

/// `1 tool`, `3 tools`.
fn tools_count(count: usize) -> String {
    match count {
        1 => "1 tool".into(),
        _ => format!("{count} tools"),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_line_counts_one_tool_in_the_singular() {
        assert_eq!(tools_count(1), "1 tool");
        assert_eq!(tools_count(0), "0 tools");
        assert_eq!(tools_count(3), "3 tools");
    }

    #[test]
    fn runtime_version_is_the_version_of_the_workspaces_runtime_crate() {
        let manifest = include_str!("../../runtime/Cargo.toml");
        let version = manifest
            .lines()
            .find_map(|line| line.strip_prefix("version = "))
            .expect("runtime/Cargo.toml has a version");
        assert_eq!(version, format!("\"{RUNTIME_VERSION}\""));
    }

    #[test]
    fn runtime_crate_takes_requirements_that_accept_the_runtime_and_refuses_the_rest() {
        for accepted in ["0.1.0", "^0.1", "=0.1.0", "~0.1", " 0.1 ", ">=0.1, <0.2"] {
            assert_eq!(
                runtime_requirement(accepted),
                Ok(accepted.trim().to_string())
            );
        }
        let not_a_requirement = runtime_requirement("abc").unwrap_err();
        assert!(
            not_a_requirement.starts_with("`abc` is not a Cargo version requirement"),
            "{not_a_requirement}"
        );
        let too_new = runtime_requirement("0.2").unwrap_err();
        assert!(
            too_new.starts_with("`0.2` does not accept mcpgen-runtime 0.1.0"),
            "{too_new}"
        );
    }
}
