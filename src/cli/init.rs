//! `mcpgen init`.

use std::process::ExitCode;

use clap::Args;

use super::Output;

#[derive(Debug, Args)]
pub struct InitArgs {}

pub fn run(_args: InitArgs, _out: &mut Output) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`mcpgen init` is not built yet")
}
