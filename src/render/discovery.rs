//! Discovery mode in the generated crate: the three tools' modules in `src/tools.rs`, and
//! `src/operations.rs` — each discoverable operation's handler (the same handler a one-to-one
//! tool has) and the table the call tool dispatches through. The search index and the
//! operations' descriptions go to `data/`, read by `src/discovery.rs` (a template).

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::handler::operation_handler;
use super::syntax::{OPERATIONS_PER_PART, ident};
use crate::emit;
use crate::naming::{self, Scope};
use crate::plan::Plan;
use crate::plan::discovery::{DiscoveryPlan, DiscoveryTool};

/// The crate paths of the data files, relative to the crate's root.
pub const INDEX_PATH: &str = "data/search-index.txt";
pub const CATALOG_PATH: &str = "data/operations.jsonl";

/// The module of a discovery tool in `src/tools.rs`.
pub(super) fn tool_module(
    module: &Ident,
    name: &str,
    definition: TokenStream,
    kind: DiscoveryTool,
) -> TokenStream {
    let (what, body) = match kind {
        DiscoveryTool::Search => (
            "searches the operations that have no tool of their own",
            quote! {
                pub async fn call(_client: Arc<Client>, arguments: JsonObject) -> Result<ToolOutput, ToolError> {
                    crate::discovery::search(arguments)
                }
            },
        ),
        DiscoveryTool::Describe => (
            "describes one discoverable operation",
            quote! {
                pub async fn call(_client: Arc<Client>, arguments: JsonObject) -> Result<ToolOutput, ToolError> {
                    crate::discovery::describe(arguments)
                }
            },
        ),
        DiscoveryTool::Call => (
            "calls one discoverable operation through its handler in `operations`",
            quote! {
                pub async fn call(client: Arc<Client>, arguments: JsonObject) -> Result<ToolOutput, ToolError> {
                    crate::discovery::call(client, arguments).await
                }
            },
        ),
    };
    let doc = format!(" `{name}`: {what}.");
    quote! {
        #[doc = #doc]
        pub mod #module {
            use super::*;

            /// The definition `tools/list` returns.
            pub const DEFINITION: &str = #definition;

            #body
        }
    }
}

/// The module of each discoverable operation in `src/operations.rs`, in order.
pub(super) fn operation_modules(plan: &Plan, discovery: &DiscoveryPlan) -> Vec<String> {
    let mut modules = Scope::with_reserved(&[
        "client",
        "runtime",
        "discovery",
        "search",
        "tools",
        "std",
        "serde",
        "serde_json",
        "rmcp",
        "crate",
        "curated",
    ]);
    discovery
        .operations
        .iter()
        .map(|op| {
            modules.unique(naming::rust_snake_ident(
                &plan.operations[op.operation].fn_name,
                "operation",
            ))
        })
        .collect()
}

/// `src/operations.rs`: the head (the table of operations), then each operation's module, a chunk
/// of operations per part.
pub fn operations_rs<'a>(plan: &'a Plan, discovery: &'a DiscoveryPlan) -> Vec<emit::Part<'a>> {
    let modules = operation_modules(plan, discovery);
    let chunks = discovery
        .operations
        .chunks(OPERATIONS_PER_PART)
        .zip(modules.chunks(OPERATIONS_PER_PART));
    let mut parts = Vec::new();
    for (operations, modules) in chunks {
        let modules = modules.to_vec();
        parts.push(emit::Part::items(move || {
            let modules = operations.iter().zip(&modules).map(|(op, module)| {
                let operation = &plan.operations[op.operation];
                let module = ident(module);
                let doc = format!(" `{}` (`{}`).", operation.api_id, operation.label());
                let handler = operation_handler(operation, false);
                quote! {
                    #[doc = #doc]
                    pub mod #module {
                        use super::*;

                        #handler
                    }
                }
            });
            quote! { #( #modules )* }
        }));
    }
    parts.insert(
        0,
        emit::Part::items(move || operations_head(discovery, &modules)),
    );
    parts
}

/// The head of `src/operations.rs`: imports, the search index, the catalog and the table `call`
/// dispatches through.
fn operations_head(discovery: &DiscoveryPlan, modules: &[String]) -> TokenStream {
    let index_path = format!("../{INDEX_PATH}");
    let catalog_path = format!("../{CATALOG_PATH}");
    let search = &discovery.search_tool;
    let describe = &discovery.describe_tool;
    let call = &discovery.call_tool;
    let unavailable = discovery
        .unavailable
        .iter()
        .map(|(name, why)| quote! { (#name, #why) });
    let entries = discovery
        .operations
        .iter()
        .zip(modules)
        .map(|(op, module)| {
            let module = ident(module);
            let name = &op.name;
            let read_only = op.read_only;
            quote! {
                Operation {
                    name: #name,
                    read_only: #read_only,
                    call: |client, arguments| Box::pin(#module::call(client, arguments)),
                }
            }
        });
    quote! {
        //! The operations the discovery tools reach: each one's handler (the same code a
        //! one-to-one tool of the operation would run), the table `call` dispatches through, and
        //! the search index and descriptions mcpgen wrote when it generated the crate.

        use std::sync::Arc;

        use rmcp::model::JsonObject;

        use crate::client::{self, Client};
        use crate::discovery::{Operation, ToolNames, Unavailable};
        use crate::runtime::{self, ToolError, ToolOutput};

        /// The search index of the operations below (see `search.rs`).
        pub const INDEX: &str = include_str!(#index_path);

        /// What the describe tool returns for each operation: one JSON object per line, in the
        /// order of [`OPERATIONS`].
        pub const CATALOG: &str = include_str!(#catalog_path);

        /// The discovery tools' names, for messages that point the model to the next step.
        pub const TOOL_NAMES: ToolNames = ToolNames {
            search: #search,
            describe: #describe,
            call: #call,
        };

        /// Every discoverable operation, in the order of the index.
        pub static OPERATIONS: &[Operation] = &[
            #( #entries ),*
        ];

        /// The API's other operations, and why the discovery tools do not reach them.
        pub static UNAVAILABLE: &[Unavailable] = &[
            #( #unavailable ),*
        ];
    }
}
