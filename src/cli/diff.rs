//! `mcpgen diff`.

use std::process::ExitCode;

use clap::Args;

use super::Output;

#[derive(Debug, Args)]
pub struct DiffArgs {}

pub fn run(_args: DiffArgs, _out: &mut Output) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`mcpgen diff` is not built yet")
}
