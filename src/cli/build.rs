//! `mcpgen build`: generate the crate and write it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{Inputs, Output};

#[derive(Debug, Args)]
pub struct BuildArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// The directory to write the crate to [default: ./<name>-mcp].
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,
}

pub fn run(args: BuildArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let (plan, files) = crate::generate(&args.inputs.spec, args.inputs.curation.as_deref(), &args.inputs.options())?;
    let dir = args.output.unwrap_or_else(|| PathBuf::from(&plan.server.crate_name));
    crate::write::write(&dir, &files).map_err(anyhow::Error::msg)?;
    out.status(&format!(
        "wrote {} ({} tools) to {}",
        plan.server.crate_name,
        plan.tools.len(),
        dir.display()
    ));
    Ok(ExitCode::SUCCESS)
}
