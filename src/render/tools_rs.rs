//! `src/tools.rs` of a generated crate: every tool's module (definition and handler) and the
//! table of tools the server serves.

use crate::emit;
use crate::plan::discovery::DiscoveryTool;
use crate::plan::{Action, Plan};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::direct;
use super::handler::operation_handler;
use super::syntax::{OPERATIONS_PER_PART, ident, raw_string, tool_modules};

pub fn tools_rs(plan: &Plan) -> Vec<emit::Part<'_>> {
    let modules = tool_modules(plan);
    let mut parts = Vec::new();
    for (tools, modules) in plan
        .tools
        .chunks(OPERATIONS_PER_PART)
        .zip(modules.chunks(OPERATIONS_PER_PART))
    {
        let (written, printed) = (modules.to_vec(), modules.to_vec());
        parts.push(emit::Part::direct(
            move || write_discovery_modules(tools, &written),
            move || {
                let bodies = tools
                    .iter()
                    .zip(&printed)
                    .map(|(tool, module)| tool_module(plan, tool, &ident(module)));
                quote! { #( #bodies )* }
            },
        ));
    }
    let written = modules.clone();
    parts.insert(
        0,
        emit::Part::direct(
            move || write_discovery_head(plan, &written),
            move || tools_head(plan, &modules),
        ),
    );
    parts
}

/// Whether every tool of `plan` is a discovery tool, and the file has nothing else: no scopes,
/// no curated enums.
fn discovery_only(plan: &Plan) -> bool {
    plan.scopes.is_empty()
        && plan.enums.is_empty()
        && plan
            .tools
            .iter()
            .all(|t| matches!(t.action, Action::Discovery(_)))
}

/// [`tools_head`] written as printing and rustfmt write it when every tool is a discovery tool
/// (zero-configuration discovery mode): the imports as rustfmt sorts them and the table, each
/// entry's call on one line. `None` for other plans, or a module name so long that rustfmt would
/// break that call.
fn write_discovery_head(plan: &Plan, modules: &[String]) -> Option<String> {
    if !discovery_only(plan) {
        return None;
    }
    let mut out = String::with_capacity(1024);
    out.push_str(
        "//! The tools of this server, in the order `tools/list` returns them.\n\n\
         use crate::client::Client;\n\
         use crate::runtime::{ToolEntry, ToolError, ToolOutput};\n\
         use rmcp::model::JsonObject;\n\
         use std::sync::Arc;\n\n\
         /// Every tool, in the order `tools/list` returns them.\n\
         pub static TOOLS: &[ToolEntry<Client>] = &[\n",
    );
    for module in modules {
        direct::ascii(module)?;
        let call = format!("{module}::call(client, arguments)");
        if call.len() > direct::CALL_WIDTH {
            return None;
        }
        out.push_str("    ToolEntry {\n");
        direct::push_line(
            &mut out,
            &format!("        definition: {module}::DEFINITION,"),
        )?;
        direct::push_line(
            &mut out,
            &format!("        call: |client, arguments| Box::pin({call}),"),
        )?;
        out.push_str("    },\n");
    }
    out.push_str("];\n");
    Some(out)
}

/// The modules of discovery tools (`super::discovery::tool_module`) written as printing and
/// rustfmt write them: the doc line, the definition's raw string as it is (rustfmt leaves a
/// literal of several lines alone) and the handler. `None` when a tool is not a discovery tool,
/// or its definition holds text the printed path would escape.
fn write_discovery_modules(tools: &[crate::plan::Tool], modules: &[String]) -> Option<String> {
    let mut out = String::new();
    for (at, (tool, module)) in tools.iter().zip(modules).enumerate() {
        let Action::Discovery(kind) = tool.action else {
            return None;
        };
        let (what, body) = match kind {
            DiscoveryTool::Search => (
                "searches the operations that have no tool of their own",
                "    pub async fn call(\n        _client: Arc<Client>,\n        arguments: JsonObject,\n    ) -> Result<ToolOutput, ToolError> {\n        crate::discovery::search(arguments)\n    }\n",
            ),
            DiscoveryTool::Describe => (
                "describes one discoverable operation",
                "    pub async fn call(\n        _client: Arc<Client>,\n        arguments: JsonObject,\n    ) -> Result<ToolOutput, ToolError> {\n        crate::discovery::describe(arguments)\n    }\n",
            ),
            DiscoveryTool::Call => (
                "calls one discoverable operation through its handler in `operations`",
                "    pub async fn call(client: Arc<Client>, arguments: JsonObject) -> Result<ToolOutput, ToolError> {\n        crate::discovery::call(client, arguments).await\n    }\n",
            ),
        };
        let definition = serde_json::to_string_pretty(&tool.definition())
            .expect("a JSON value always serializes");
        // What `raw_string` makes of it, printed as it is: text with a hidden code point or a
        // carriage return is printed otherwise.
        if definition.contains('\r') || definition.chars().any(emit::is_hidden) {
            return None;
        }
        let mut hashes = String::from("#");
        while definition.contains(&format!("\"{hashes}")) {
            hashes.push('#');
        }
        if at > 0 {
            out.push('\n');
        }
        direct::doc_line(&mut out, "", &format!(" `{}`: {what}.", tool.name))?;
        direct::push_line(&mut out, &format!("pub mod {} {{", direct::ascii(module)?))?;
        out.push_str("    use super::*;\n\n    /// The definition `tools/list` returns.\n");
        out.push_str(&format!(
            "    pub const DEFINITION: &str = r{hashes}\"{definition}\"{hashes};\n\n"
        ));
        out.push_str(body);
        out.push_str("}\n");
    }
    Some(out)
}

/// The head of `src/tools.rs`: imports, the table of tools and the curated enums.
fn tools_head(plan: &Plan, modules: &[String]) -> TokenStream {
    let curated_imports = if super::uses_curated(plan)
        && plan
            .tools
            .iter()
            .any(|t| matches!(t.action, Action::Curated(_)))
    {
        quote! {
            use serde::Deserialize;

            use crate::runtime::curated;
        }
    } else {
        quote! {}
    };
    // Tools that are all discovery tools parse no arguments of the client's types themselves.
    let imports = if plan
        .tools
        .iter()
        .all(|t| matches!(t.action, Action::Discovery(_)))
    {
        quote! {
            use crate::client::Client;
            use crate::runtime::{ToolEntry, ToolError, ToolOutput};
        }
    } else {
        quote! {
            use crate::client::{self, Client};
            use crate::runtime::{self, ToolEntry, ToolError, ToolOutput};
        }
    };
    let enums = super::curated::enums(plan);
    let scopes = if plan.scopes.is_empty() {
        quote! {}
    } else {
        let entries = plan.scopes.iter().map(|(tool, needed)| {
            quote! { (#tool, &[#(#needed),*]) }
        });
        quote! {
            /// The OAuth scopes a caller's access token must grant for a tool to be listed and
            /// called, by tool name (`--oauth-issuer`); the other tools need none.
            pub static SCOPES: &[(&str, &[&str])] = &[
                #( #entries ),*
            ];
        }
    };
    let entries = modules.iter().map(|module| {
        let module = ident(module);
        quote! {
            ToolEntry {
                definition: #module::DEFINITION,
                call: |client, arguments| Box::pin(#module::call(client, arguments)),
            }
        }
    });
    quote! {
        //! The tools of this server, in the order `tools/list` returns them.

        use std::sync::Arc;

        use rmcp::model::JsonObject;

        #imports
        #curated_imports

        /// Every tool, in the order `tools/list` returns them.
        pub static TOOLS: &[ToolEntry<Client>] = &[
            #( #entries ),*
        ];

        #scopes

        #enums
    }
}

/// The module of one tool: its definition and its handler.
fn tool_module(plan: &Plan, tool: &crate::plan::Tool, module: &Ident) -> TokenStream {
    let definition =
        serde_json::to_string_pretty(&tool.definition()).expect("a JSON value always serializes");
    let definition = raw_string(&definition);
    let (operation, wrap) = match &tool.action {
        Action::Call { operation, wrap } => (operation, wrap),
        Action::Curated(curated) => {
            let doc = format!(
                " `{}`: {}",
                tool.name,
                tool.title.as_deref().unwrap_or("a curated tool")
            );
            return super::curated::tool_module(
                plan, module, &tool.name, definition, &doc, curated,
            );
        }
        Action::Discovery(kind) => {
            return super::discovery::tool_module(module, &tool.name, definition, *kind);
        }
    };
    let operation = &plan.operations[*operation];
    let handler = operation_handler(operation, *wrap);
    let doc = format!(
        " `{}`: calls `{}` (`{}`).",
        tool.name,
        operation.api_id,
        operation.label()
    );
    quote! {
        #[doc = #doc]
        pub mod #module {
            use super::*;

            /// The definition `tools/list` returns.
            pub const DEFINITION: &str = #definition;

            #handler
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    /// `src/tools.rs` of discovery mode written directly is byte for byte what printing it and
    /// running rustfmt over the print make of it: tool names of every length around the width
    /// of a table entry's call, descriptions with quotes, `"#` runs, backslashes, text that is not
    /// ASCII and hidden code points (printed), and a plan with other tools (printed).
    #[test]
    fn discovery_tools_rs_written_directly_is_what_printing_and_rustfmt_make_of_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let spec = root.join("tests/fixtures/hostile-text.yaml");
        let options = crate::Options {
            discovery_threshold: Some(0),
            ..Default::default()
        };
        let (base, _) = crate::generate(&spec, None, &options).expect("the fixture plans");
        assert!(discovery_only(&base));
        let descriptions = [
            None,
            Some("Plain words.".to_string()),
            Some("A \"quoted\" \"# raw \"## end \\ backslash, ünïcödé 漢字".to_string()),
            Some("Hidden \u{202e} text".to_string()),
            Some("d".repeat(300)),
        ];
        let mut plans = Vec::new();
        for length in 1..=40 {
            let mut plan = base.clone();
            let prefix = "p".repeat(length);
            for (tool, suffix) in plan.tools.iter_mut().zip([
                "search_operations",
                "describe_operation",
                "call_operation",
            ]) {
                tool.name = format!("{prefix}_{suffix}");
                tool.description = descriptions[length % descriptions.len()].clone();
            }
            plans.push(plan);
        }
        let mut mixed = base.clone();
        let (one, _) = crate::generate(
            &spec,
            None,
            &crate::Options {
                no_discovery: true,
                ..Default::default()
            },
        )
        .expect("the fixture plans");
        mixed.tools.push(one.tools[0].clone());
        plans.push(mixed);
        let results: Vec<(String, Option<String>)> = plans
            .par_iter()
            .map(|plan| {
                let parts = tools_rs(plan);
                let tokens = || {
                    let modules = tool_modules(plan);
                    let bodies = plan
                        .tools
                        .iter()
                        .zip(&modules)
                        .map(|(tool, module)| tool_module(plan, tool, &ident(module)));
                    let head = tools_head(plan, &modules);
                    quote! { #head #( #bodies )* }
                };
                let formatted = emit::printed_and_rustfmt("src/tools.rs", tokens());
                let written = parts
                    .iter()
                    .map(|part| part.written())
                    .collect::<Option<Vec<String>>>()
                    .map(|texts| emit::join_written(&texts));
                (formatted, written)
            })
            .collect();
        let mut written = 0;
        for (plan, (formatted, text)) in plans.iter().zip(results) {
            if let Some(text) = text {
                assert_eq!(text, formatted, "{:?}", plan.tools[0].name);
                written += 1;
            }
        }
        // Prefixes up to 16 bytes keep each entry's call within `fn_call_width`; hidden text
        // gives up.
        assert!(written >= 8, "{written} written");
        assert!(write_discovery_head(&plans[40], &tool_modules(&plans[40])).is_none());
    }
}
