//! `mcpgen tools`.

use std::process::ExitCode;

use clap::Args;

use super::Output;

#[derive(Debug, Args)]
pub struct ToolsArgs {}

pub fn run(_args: ToolsArgs, _out: &mut Output) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`mcpgen tools` is not built yet")
}
