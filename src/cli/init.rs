//! `mcpgen init`: write a starter curation file for a spec.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use super::Output;

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The API description: OpenAPI 3.0 or 3.1, or Swagger 2.0 (YAML or JSON).
    pub spec: PathBuf,
    /// Write the curation file here instead of to stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Overwrite FILE when it exists.
    #[arg(long, requires = "output")]
    pub force: bool,
}

pub fn run(args: InitArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let api = crate::load::load(&args.spec)?;
    let spec = args.spec.display().to_string();
    let Some(path) = &args.output else {
        out.stdout(&crate::init::starter(&api, &spec));
        return Ok(ExitCode::SUCCESS);
    };
    let text = crate::init::starter_named(&api, &spec, &path.display().to_string());
    if args.force {
        std::fs::write(path, &text).with_context(|| format!("cannot write {}", path.display()))?;
    } else {
        // `create_new`: a file that appears meanwhile is not overwritten either.
        let mut file = match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
        {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => anyhow::bail!(
                "{} already exists; pass --force to overwrite it",
                path.display()
            ),
            Err(e) => return Err(e).with_context(|| format!("cannot write {}", path.display())),
        };
        file.write_all(text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let count = api.operations.len();
    out.status(&format!(
        "wrote {} ({count} operation{} listed)",
        path.display(),
        if count == 1 { "" } else { "s" }
    ));
    Ok(ExitCode::SUCCESS)
}
