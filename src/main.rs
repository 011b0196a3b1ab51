//! The `mcpgen` binary: parse the command line, run it, exit with its code.

use std::process::ExitCode;

use clap::Parser;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    mcpgen::cli::run(mcpgen::cli::Cli::parse())
}
