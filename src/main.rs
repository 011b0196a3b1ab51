//! The `mcpgen` command line.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "mcpgen",
    version,
    about = "Generate a Rust MCP server crate from an OpenAPI document",
    long_about = "mcpgen turns an OpenAPI document into a complete Rust crate that is an MCP \
server over that API: typed tools, an upstream client, stdio and Streamable HTTP transports. \
Commit the crate and regenerate it when the API changes.",
    after_help = "Examples:\n  mcpgen build specs/tracker/openapi.yaml -o tracker-mcp\n  \
mcpgen build petstore.json --name petstore"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate the server crate for an OpenAPI document.
    #[command(after_help = "Examples:\n  \
mcpgen build specs/tracker/openapi.yaml                 # writes ./tracker-mcp\n  \
mcpgen build specs/tracker/openapi.yaml -o servers/tracker\n  \
mcpgen build specs/tracker/openapi.yaml -c specs/tracker/mcpgen.yaml -o tracker-mcp\n  \
mcpgen build api.yaml --name billing                    # crate billing-mcp, env BILLING_*")]
    Build {
        /// The OpenAPI document (3.0 or 3.1, YAML or JSON).
        spec: PathBuf,
        /// The directory to write the crate to [default: ./<name>-mcp].
        #[arg(short, long, value_name = "DIR")]
        output: Option<PathBuf>,
        /// The curation file: which tools, named and shaped how (see `mcpgen schema`).
        #[arg(short, long, value_name = "FILE")]
        curation: Option<PathBuf>,
        /// The server's name: the crate is `<name>-mcp` and its environment variables start
        /// with `<NAME>_` [default: the curation file's server.name, else the document's
        /// info.title].
        #[arg(long)]
        name: Option<String>,
    },
    /// Print the JSON Schema of the curation file.
    #[command(after_help = "Editors complete and check the curation file with it: save it and start the file with
  # yaml-language-server: $schema=path/to/mcpgen.schema.json")]
    Schema,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // Curation diagnostics are already rendered, each with its own `error:` line.
            let text = match error.downcast_ref::<mcpgen::curate::CurationError>() {
                Some(diagnostics) => diagnostics.to_string(),
                None => format!("error: {error:#}"),
            };
            let _ = writeln!(std::io::stderr(), "{text}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Schema => {
            let schema = mcpgen::curate::model::json_schema();
            let text = serde_json::to_string_pretty(&schema)?;
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`mcpgen schema | head`) is not an error.
            let _ = writeln!(stdout, "{text}");
            Ok(())
        }
        Command::Build {
            spec,
            output,
            curation,
            name,
        } => {
            let options = mcpgen::Options { name };
            let (plan, files) = mcpgen::generate(&spec, curation.as_deref(), &options)?;
            let dir = output.unwrap_or_else(|| PathBuf::from(&plan.server.crate_name));
            mcpgen::write::write(&dir, &files).map_err(anyhow::Error::msg)?;
            let _ = writeln!(
                std::io::stderr(),
                "wrote {} ({} tools) to {}",
                plan.server.crate_name,
                plan.tools.len(),
                dir.display()
            );
            Ok(())
        }
    }
}
