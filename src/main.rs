//! The `mcpgen` binary: parse the command line, run it, exit with its code.

use std::process::ExitCode;

use clap::Parser;

#[global_allocator]
static ALLOCATOR: mcpgen::allocator::MiMalloc = mcpgen::allocator::MiMalloc;

fn main() -> ExitCode {
    mcpgen::cli::run(mcpgen::cli::Cli::parse())
}
