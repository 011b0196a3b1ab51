//! `src/tools.rs` of a generated crate: every tool's module (definition and handler) and the
//! table of tools the server serves.

use crate::emit;
use crate::plan::{Action, Plan};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

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
        let modules = modules.to_vec();
        parts.push(emit::Part::items(move || {
            let bodies = tools
                .iter()
                .zip(&modules)
                .map(|(tool, module)| tool_module(plan, tool, &ident(module)));
            quote! { #( #bodies )* }
        }));
    }
    parts.insert(0, emit::Part::items(move || tools_head(plan, &modules)));
    parts
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
