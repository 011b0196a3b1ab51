//! `mcpgen tools`: exactly what `tools/list` will return, as a table or as JSON, with each
//! tool's token estimate and the total.

use std::process::ExitCode;

use clap::Args;
use serde_json::{Map, Value, json};

use super::{Format, Inputs, Output};
use crate::plan::{Annotations, Plan};

#[derive(Debug, Args)]
pub struct ToolsArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// `text`: a table of names, annotations, parameters (`*` required) and tokens; `json`: the
    /// tool definitions exactly as `tools/list` returns them, with the token estimates.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(args: ToolsArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    out.progress(
        args.inputs.is_large(),
        &format!("loading {}", args.inputs.spec.display()),
    );
    let plan = plan(&args.inputs)?;
    if let Some(note) = super::discovery_note(&plan) {
        out.status(&note);
    }
    let tokens = crate::lint::tool_tokens(&plan);
    match args.format {
        Format::Json => {
            let document = json_document(&plan, &tokens);
            let text = serde_json::to_string_pretty(&document).expect("JSON always serializes");
            out.stdout_line(&text);
        }
        Format::Text => out.stdout(&table(&plan, &tokens)),
    }
    Ok(ExitCode::SUCCESS)
}

/// The plan for `inputs`: the spec, checked curation (its mistakes are the command's error).
fn plan(inputs: &Inputs) -> anyhow::Result<Plan> {
    inputs.refuse_a_spec_as_curation()?;
    let api = crate::load::load_with(&inputs.spec, inputs.refs_root.as_deref())?;
    crate::load::print_warnings(&inputs.spec, &api);
    let checked = inputs
        .curation
        .as_deref()
        .map(|path| crate::curate::load(path, &api))
        .transpose()?;
    crate::plan::plan(&api, &inputs.options(), checked.as_ref().map(|c| &c.model))
        .map_err(anyhow::Error::msg)
}

/// `{"tools": [definitions], "tokens": {"total": N, "per_tool": {name: N}}}`.
fn json_document(plan: &Plan, tokens: &[usize]) -> Value {
    let definitions: Vec<Value> = plan.tools.iter().map(|tool| tool.definition()).collect();
    let per_tool: Map<String, Value> = plan
        .tools
        .iter()
        .zip(tokens)
        .map(|(tool, n)| (tool.name.clone(), json!(n)))
        .collect();
    json!({
        "tools": definitions,
        "tokens": {
            "total": tokens.iter().sum::<usize>(),
            "per_tool": per_tool,
        },
    })
}

/// The tools as an aligned table, and a total row.
fn table(plan: &Plan, tokens: &[usize]) -> String {
    let header = ["tool", "annotations", "parameters", "tokens"].map(String::from);
    let mut rows: Vec<[String; 4]> = vec![header];
    for (tool, n) in plan.tools.iter().zip(tokens) {
        rows.push([
            tool.name.clone(),
            annotation_words(&tool.annotations),
            parameters(&tool.input_schema),
            n.to_string(),
        ]);
    }
    let count = plan.tools.len();
    rows.push([
        format!("total ({count} tool{})", if count == 1 { "" } else { "s" }),
        String::new(),
        String::new(),
        tokens.iter().sum::<usize>().to_string(),
    ]);
    let width = |column: usize| {
        rows.iter()
            .map(|row| row[column].chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths = [width(0), width(1), width(2), width(3)];
    let mut text = String::new();
    for row in &rows {
        text.push_str(&format!(
            "{:<w0$}  {:<w1$}  {:<w2$}  {:>w3$}\n",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3]
        ));
    }
    text
}

/// The annotations as a client reads them, MCP's defaults applied to the hints not given:
/// `read-only`, or `destructive` / `additive` and `idempotent`; `closed-world` when the tool
/// does not reach beyond its API.
fn annotation_words(annotations: &Annotations) -> String {
    let mut words = Vec::new();
    if annotations.read_only == Some(true) {
        words.push("read-only");
    } else {
        words.push(if annotations.destructive == Some(false) {
            "additive"
        } else {
            "destructive"
        });
        if annotations.idempotent == Some(true) {
            words.push("idempotent");
        }
    }
    if annotations.open_world == Some(false) {
        words.push("closed-world");
    }
    words.join(" ")
}

/// The input's properties in order, `*` after the required ones; `-` for none.
fn parameters(input_schema: &Value) -> String {
    let required: Vec<&str> = input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let names: Vec<String> = input_schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, _)| {
            if required.contains(&name.as_str()) {
                format!("{name}*")
            } else {
                name.clone()
            }
        })
        .collect();
    if names.is_empty() {
        "-".into()
    } else {
        names.join(", ")
    }
}
