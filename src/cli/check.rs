//! `mcpgen check`.

use std::process::ExitCode;

use clap::Args;

use super::Output;

#[derive(Debug, Args)]
pub struct CheckArgs {}

pub fn run(_args: CheckArgs, _out: &mut Output) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`mcpgen check` is not built yet")
}
