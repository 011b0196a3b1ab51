//! The `mcpgen` command line: flags parsed into commands, each in a module of its own, sharing
//! one [`Output`] for what goes to stdout and stderr.

mod build;
mod check;
mod diff;
mod init;
mod output;
mod tools;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

pub use output::Output;

#[derive(Debug, Parser)]
#[command(
    name = "mcpgen",
    version,
    about = "Generate a Rust MCP server crate from an OpenAPI document",
    long_about = "mcpgen turns an OpenAPI document and a curation file into a complete Rust crate \
that is an MCP server over that API: typed, workflow-shaped tools, an upstream client, stdio and \
Streamable HTTP transports. Commit the crate and regenerate it when the API changes.",
    after_help = "Examples:\n  \
mcpgen init api.yaml -o mcpgen.yaml          # a starter curation file\n  \
mcpgen check api.yaml -c mcpgen.yaml         # every mistake and tool-design lint\n  \
mcpgen tools api.yaml -c mcpgen.yaml         # what tools/list will return\n  \
mcpgen build api.yaml -c mcpgen.yaml -o api-mcp\n  \
mcpgen build api.yaml -c mcpgen.yaml -o api-mcp --check   # in CI: is the crate up to date?\n  \
mcpgen diff old.yaml new.yaml -c mcpgen.yaml # what changes for the tools"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command takes.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Say more (repeat for even more).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Say nothing but errors.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// When to colour the output [default: auto: on a terminal, unless NO_COLOR is set].
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// How a command prints what it found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people.
    Text,
    /// For programs.
    Json,
}

/// The inputs most commands read: the spec, an optional curation file and a name.
#[derive(Debug, Args)]
pub struct Inputs {
    /// The OpenAPI document (3.0 or 3.1, YAML or JSON).
    pub spec: PathBuf,
    /// The curation file: which tools, named and shaped how (see `mcpgen schema`).
    #[arg(short, long, value_name = "FILE")]
    pub curation: Option<PathBuf>,
    /// The server's name: the crate is `<name>-mcp` and its environment variables start with
    /// `<NAME>_` [default: the curation file's server.name, else the document's info.title].
    #[arg(long)]
    pub name: Option<String>,
}

impl Inputs {
    pub fn options(&self) -> crate::Options {
        crate::Options {
            name: self.name.clone(),
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Generate the server crate.
    #[command(after_help = "Examples:\n  \
mcpgen build specs/tracker/openapi.yaml                 # writes ./tracker-mcp\n  \
mcpgen build specs/tracker/openapi.yaml -o servers/tracker\n  \
mcpgen build specs/tracker/openapi.yaml -c specs/tracker/mcpgen.yaml -o tracker-mcp\n  \
mcpgen build api.yaml --name billing                    # crate billing-mcp, env BILLING_*\n  \
mcpgen build api.yaml -c mcpgen.yaml -o api-mcp --check # exit 1 when api-mcp is stale")]
    Build(build::BuildArgs),
    /// Report every mistake in a curation file and every tool-design lint.
    Check(check::CheckArgs),
    /// Show exactly what `tools/list` will return, with token estimates.
    Tools(tools::ToolsArgs),
    /// Show the tool-level changes between two versions of an API.
    Diff(diff::DiffArgs),
    /// Write a starter curation file that lists every operation.
    Init(init::InitArgs),
    /// Print the JSON Schema of the curation file.
    #[command(after_help = "Editors complete and check a curation file with it: save it and start the file with\n  # yaml-language-server: $schema=path/to/mcpgen.schema.json")]
    Schema,
    /// Print a shell completion script.
    #[command(after_help = "Examples:\n  \
mcpgen completions bash > ~/.local/share/bash-completion/completions/mcpgen\n  \
mcpgen completions zsh > ~/.zfunc/_mcpgen\n  \
mcpgen completions fish > ~/.config/fish/completions/mcpgen.fish")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// Runs the command line `cli`; the exit code says how it went.
pub fn run(cli: Cli) -> ExitCode {
    let mut out = Output::new(&cli.global);
    let result = match cli.command {
        Command::Build(args) => build::run(args, &mut out),
        Command::Check(args) => check::run(args, &mut out),
        Command::Tools(args) => tools::run(args, &mut out),
        Command::Diff(args) => diff::run(args, &mut out),
        Command::Init(args) => init::run(args, &mut out),
        Command::Schema => {
            let schema = crate::curate::model::json_schema();
            let text = serde_json::to_string_pretty(&schema).expect("a schema always serializes");
            out.stdout_line(&text);
            Ok(ExitCode::SUCCESS)
        }
        Command::Completions { shell } => {
            let mut buffer = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "mcpgen", &mut buffer);
            out.stdout(&String::from_utf8_lossy(&buffer));
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            out.error(&error);
            ExitCode::from(1)
        }
    }
}
