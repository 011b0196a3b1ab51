//! Discovery mode in the generated crate: the three tools' modules in `src/tools.rs`, and
//! `src/operations.rs` — each discoverable operation's handler (the same handler a one-to-one
//! tool has) and the table the call tool dispatches through. The search index and the
//! operations' descriptions go to `data/`, read by `src/discovery.rs` (a template).
//!
//! `src/operations.rs` is written directly in rustfmt's layout (see [`direct`]): a large API's
//! is a megabyte of a few constructs that vary only in names, and printing it and running
//! rustfmt over it was most of what it cost. The writers compute the width decisions rustfmt
//! makes for those constructs, including the statements it gives up on and keeps as
//! prettyplease printed them (names of 70 to 90 columns, which Kubernetes and Stripe have);
//! what they do not lay out (a table of one entry, a doc comment that is not a `///` line, a
//! check of allowed values wider than a line, a curated crate's table of unavailable
//! operations) is printed and formatted as before, one run of operations at a time.

use std::sync::Arc;

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::direct;
use super::handler::operation_handler;
use super::syntax::{OPERATIONS_PER_PART, ident};
use crate::emit;
use crate::naming::{self, Scope};
use crate::plan::discovery::{Discoverable, DiscoveryPlan, DiscoveryTool};
use crate::plan::{FieldType, OperationPlan, Plan};

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

/// `src/operations.rs`: the head (imports, the data files, the tools' names), the table of
/// operations, the unavailable ones, then each operation's module, in parts written directly in
/// rustfmt's layout (see [`emit::Part::direct`] and [`direct`]). The modules are grouped by
/// whether [`write_module`] lays them out: a run it does not (a doc comment that is not a `///`
/// line, say) is printed and formatted on its own, and the runs around it stay written (see
/// [`module_runs`]).
pub fn operations_rs<'a>(plan: &'a Plan, discovery: &'a DiscoveryPlan) -> Vec<emit::Part<'a>> {
    let modules: Arc<[String]> = operation_modules(plan, discovery).into();
    let mut parts = vec![
        emit::Part::direct(
            move || write_head(discovery),
            move || operations_head(discovery),
        ),
        {
            let modules = Arc::clone(&modules);
            let written = Arc::clone(&modules);
            emit::Part::direct(
                move || write_operations_table(discovery, &written),
                move || operations_table(discovery, &modules),
            )
        },
        emit::Part::direct(
            move || write_unavailable(discovery),
            move || unavailable_table(discovery),
        ),
    ];
    // Which modules the writer lays out, found here (writing one takes a microsecond) so that
    // the parts can be cut where that changes.
    let mut scratch = String::new();
    let writes: Vec<bool> = discovery
        .operations
        .iter()
        .zip(modules.iter())
        .map(|(op, module)| {
            scratch.clear();
            write_module(&mut scratch, &plan.operations[op.operation], module).is_some()
        })
        .collect();
    for (range, written) in module_runs(&writes) {
        let (start, end) = (range.start, range.end);
        let operations = &discovery.operations[start..end];
        let names = Arc::clone(&modules);
        let build = move || module_items(plan, operations, &names[start..end]);
        let names = Arc::clone(&modules);
        parts.push(if written {
            emit::Part::direct(
                move || {
                    let mut text = String::with_capacity(800 * operations.len());
                    for (op, module) in operations.iter().zip(&names[start..end]) {
                        if !text.is_empty() {
                            text.push('\n');
                        }
                        write_module(&mut text, &plan.operations[op.operation], module)?;
                    }
                    Some(text)
                },
                build,
            )
        } else {
            emit::Part::items(build)
        });
    }
    parts
}

/// The parts of the modules, from whether each is written (`writes`): runs of written modules
/// and runs of printed ones, each at most [`OPERATIONS_PER_PART`] long, in order. A run of
/// printed modules is one rustfmt process, whose start costs what formatting a few dozen
/// modules does: a written run of fewer than half a part between two printed ones is printed
/// with them, so that a spec where every other operation is printed does not start a process
/// for each.
fn module_runs(writes: &[bool]) -> Vec<(std::ops::Range<usize>, bool)> {
    let mut writes = writes.to_vec();
    let mut start = 0;
    while start < writes.len() {
        let end = start
            + writes[start..]
                .iter()
                .take_while(|&&w| w == writes[start])
                .count();
        if writes[start] && start > 0 && end < writes.len() && end - start < OPERATIONS_PER_PART / 2
        {
            writes[start..end].fill(false);
        }
        start = end;
    }
    let mut runs = Vec::new();
    let mut start = 0;
    while start < writes.len() {
        let written = writes[start];
        let end = start
            + writes[start..]
                .iter()
                .take(OPERATIONS_PER_PART)
                .take_while(|&&w| w == written)
                .count();
        runs.push((start..end, written));
        start = end;
    }
    runs
}

/// The modules of `operations`, named `modules`, as tokens.
fn module_items(plan: &Plan, operations: &[Discoverable], modules: &[String]) -> TokenStream {
    let modules = operations.iter().zip(modules).map(|(op, module)| {
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
}

/// The head of `src/operations.rs`: imports, the search index, the catalog and the discovery
/// tools' names.
fn operations_head(discovery: &DiscoveryPlan) -> TokenStream {
    let index_path = format!("../{INDEX_PATH}");
    let catalog_path = format!("../{CATALOG_PATH}");
    let search = &discovery.search_tool;
    let describe = &discovery.describe_tool;
    let call = &discovery.call_tool;
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

        /// What the describe tool returns for each operation, a JSON object a line in the order of
        /// [`OPERATIONS`], then the objects those lines share, a line each (`discovery.rs` puts
        /// them back in an answer).
        pub const CATALOG: &str = include_str!(#catalog_path);

        /// The discovery tools' names, for messages that point the model to the next step.
        pub const TOOL_NAMES: ToolNames = ToolNames {
            search: #search,
            describe: #describe,
            call: #call,
        };
    }
}

/// The table `call` dispatches through.
fn operations_table(discovery: &DiscoveryPlan, modules: &[String]) -> TokenStream {
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
        /// Every discoverable operation, in the order of the index.
        pub static OPERATIONS: &[Operation] = &[
            #( #entries ),*
        ];
    }
}

/// The operations the discovery tools do not reach.
fn unavailable_table(discovery: &DiscoveryPlan) -> TokenStream {
    let unavailable = discovery
        .unavailable
        .iter()
        .map(|(name, why)| quote! { (#name, #why) });
    quote! {
        /// The API's other operations, and why the discovery tools do not reach them.
        pub static UNAVAILABLE: &[Unavailable] = &[
            #( #unavailable ),*
        ];
    }
}

/// [`operations_head`] written directly (see [`direct`]): fixed text but for the tools' names,
/// the imports in the order rustfmt sorts them. `None` when a name's line does not fit.
fn write_head(discovery: &DiscoveryPlan) -> Option<String> {
    let mut out = String::with_capacity(1200);
    out.push_str(concat!(
        "//! The operations the discovery tools reach: each one's handler (the same code a\n",
        "//! one-to-one tool of the operation would run), the table `call` dispatches through, and\n",
        "//! the search index and descriptions mcpgen wrote when it generated the crate.\n",
        "\n",
        "use crate::client::{self, Client};\n",
        "use crate::discovery::{Operation, ToolNames, Unavailable};\n",
        "use crate::runtime::{self, ToolError, ToolOutput};\n",
        "use rmcp::model::JsonObject;\n",
        "use std::sync::Arc;\n",
        "\n",
        "/// The search index of the operations below (see `search.rs`).\n",
    ));
    let index = direct::string_literal(&format!("../{INDEX_PATH}"))?;
    direct::push_line(
        &mut out,
        &format!("pub const INDEX: &str = include_str!({index});"),
    )?;
    out.push_str(concat!(
        "\n",
        "/// What the describe tool returns for each operation, a JSON object a line in the order of\n",
        "/// [`OPERATIONS`], then the objects those lines share, a line each (`discovery.rs` puts\n",
        "/// them back in an answer).\n",
    ));
    let catalog = direct::string_literal(&format!("../{CATALOG_PATH}"))?;
    direct::push_line(
        &mut out,
        &format!("pub const CATALOG: &str = include_str!({catalog});"),
    )?;
    out.push_str(concat!(
        "\n",
        "/// The discovery tools' names, for messages that point the model to the next step.\n",
        "pub const TOOL_NAMES: ToolNames = ToolNames {\n",
    ));
    for (field, name) in [
        ("search", &discovery.search_tool),
        ("describe", &discovery.describe_tool),
        ("call", &discovery.call_tool),
    ] {
        let line = format!("    {field}: {},", direct::string_literal(name)?);
        direct::push_line(&mut out, &line)?;
    }
    out.push_str("};\n");
    Some(out)
}

/// The indentation of an entry's fields in the table of operations.
const FIELD: &str = "        ";
/// The indentation of a closure's body in an entry.
const CLOSURE_BODY: &str = "            ";
/// The indentation of `Box::pin`'s argument in a closure's body.
const PINNED: &str = "                ";

/// [`operations_table`] written directly (see [`direct`]): an entry per operation, its name's
/// literal on its line whatever its width (rustfmt's 2024 style does not break a string literal,
/// and keeps a field's value beside its name). `None` when a module's name is not ASCII, or the
/// table has one entry (rustfmt writes a lone struct on the table's lines).
fn write_operations_table(discovery: &DiscoveryPlan, modules: &[String]) -> Option<String> {
    let mut out = String::with_capacity(220 * discovery.operations.len() + 200);
    out.push_str("/// Every discoverable operation, in the order of the index.\n");
    match discovery.operations.len() {
        0 => {
            out.push_str("pub static OPERATIONS: &[Operation] = &[];\n");
            return Some(out);
        }
        1 => return None,
        _ => out.push_str("pub static OPERATIONS: &[Operation] = &[\n"),
    }
    for (op, module) in discovery.operations.iter().zip(modules) {
        out.push_str("    Operation {\n");
        out.push_str(FIELD);
        out.push_str("name: ");
        out.push_str(&direct::string_literal(&op.name)?);
        out.push_str(",\n");
        out.push_str(FIELD);
        out.push_str(if op.read_only {
            "read_only: true,\n"
        } else {
            "read_only: false,\n"
        });
        write_entry_call(&mut out, direct::ascii(module)?)?;
        out.push_str("    },\n");
    }
    out.push_str("];\n");
    Some(out)
}

/// An entry's `call: |client, arguments| Box::pin(module::call(client, arguments)),` as
/// rustfmt lays it out, by the width of `module`: on one line if it fits; else the closure's
/// body in a block: `Box::pin`'s argument on its line if that argument is no wider than
/// `fn_call_width` ([`direct::CALL_WIDTH`]); else the inner call overflowed (`module::call(`,
/// then its arguments), which rustfmt allows when that first line is no wider than
/// `fn_call_width` (its budget for a call nested in a call's last argument); else the argument
/// on a line of its own, and if that does not fit, broken there too. When `module::call(` does
/// not fit even then, rustfmt gives up on the closure's body and keeps it as prettyplease printed
/// it, its first line moved into the block and the others where they were.
fn write_entry_call(out: &mut String, module: &str) -> Option<()> {
    let inner = format!("{module}::call(client, arguments)");
    let line = format!("{FIELD}call: |client, arguments| Box::pin({inner}),");
    if direct::fits(&line) {
        out.push_str(&line);
        out.push('\n');
        return Some(());
    }
    let open = format!("{module}::call(");
    out.push_str(FIELD);
    out.push_str("call: |client, arguments| {\n");
    out.push_str(&if inner.len() <= direct::CALL_WIDTH {
        format!("{CLOSURE_BODY}Box::pin({inner})\n")
    } else if open.len() <= direct::CALL_WIDTH {
        format!("{CLOSURE_BODY}Box::pin({open}\n{PINNED}client, arguments,\n{CLOSURE_BODY}))\n")
    } else if direct::fits(&format!("{PINNED}{inner},")) {
        format!("{CLOSURE_BODY}Box::pin(\n{PINNED}{inner},\n{CLOSURE_BODY})\n")
    } else if direct::fits(&format!("{PINNED}{open}")) {
        format!(
            "{CLOSURE_BODY}Box::pin(\n{PINNED}{open}\n{PINNED}    client, arguments,\n{PINNED}),\n{CLOSURE_BODY})\n"
        )
    } else {
        format!(
            "{CLOSURE_BODY}Box::pin(\n{CLOSURE_BODY}{open}\n{PINNED}client,\n{PINNED}arguments,\n{CLOSURE_BODY}),\n{FIELD})\n"
        )
    });
    out.push_str(FIELD);
    out.push_str("},\n");
    Some(())
}

/// [`unavailable_table`] written directly (see [`direct`]) when it is empty; `None` otherwise
/// (a curated crate's few entries are printed: their tuples and the array take several layouts).
fn write_unavailable(discovery: &DiscoveryPlan) -> Option<String> {
    discovery.unavailable.is_empty().then(|| {
        concat!(
            "/// The API's other operations, and why the discovery tools do not reach them.\n",
            "pub static UNAVAILABLE: &[Unavailable] = &[];\n",
        )
        .to_string()
    })
}

/// The indentation of a handler's statements.
const BODY: &str = "        ";
/// The indentation of a statement's continuation lines, and of a chain's links, in a handler.
const NESTED: &str = "            ";

/// An operation's module in `src/operations.rs` ([`module_items`]) written directly (see
/// [`direct`]): its doc line, `pub mod`, and the handler [`operation_handler`] makes without
/// wrapping. `None` when its doc comment would not print as a `///` line, a name is not ASCII,
/// or a check of allowed values is too wide for one line.
fn write_module(out: &mut String, operation: &OperationPlan, module: &str) -> Option<()> {
    let doc = format!(" `{}` (`{}`).", operation.api_id, operation.label());
    direct::doc_line(out, "", &doc)?;
    // A module's name wider than a line stays on its line: rustfmt cannot break it.
    out.push_str("pub mod ");
    out.push_str(direct::ascii(module)?);
    out.push_str(concat!(
        " {\n",
        "    use super::*;\n",
        "\n",
        "    pub async fn call(client: Arc<Client>, arguments: JsonObject) -> Result<ToolOutput, ToolError> {\n",
    ));
    write_parse(out, operation)?;
    for field in &operation.fields {
        let FieldType::Integer {
            allowed: Some(allowed),
        } = &field.ty
        else {
            continue;
        };
        let value = direct::ascii(&field.ident)?;
        let values: Vec<String> = allowed.iter().map(i64::to_string).collect();
        let args = [
            direct::string_literal(&field.property)?,
            if field.required {
                format!("Some(params.{value})")
            } else {
                format!("params.{value}")
            },
            format!("&[{}]", values.join(", ")),
        ];
        // On one line only: wider than `fn_call_width`, rustfmt overflows the array.
        if direct::list_width(&args) > direct::CALL_WIDTH {
            return None;
        }
        out.push_str(BODY);
        out.push_str("runtime::check_one_of(");
        out.push_str(&args.join(", "));
        out.push_str(")?;\n");
    }
    write_call(out, operation)?;
    out.push_str("    }\n}\n");
    Some(())
}

/// `let params: client::Params = runtime::parse_arguments(arguments)?;` (`let client::Params {} =
/// …` without fields), as rustfmt lays it out: on one line if it fits, else broken after `=` if
/// the type fits before it. rustfmt gives the type the line but for `let params: ` and ` =`, and
/// the struct pattern of `{}` the line but for `let `, `;` and ` {` (so that its line may end two
/// columns past the margin). When the type does not fit, rustfmt gives up on the statement and
/// keeps it as prettyplease printed it: the call's argument on a line of its own.
fn write_parse(out: &mut String, operation: &OperationPlan) -> Option<()> {
    const PARSE: &str = "runtime::parse_arguments(arguments)?;";
    let params_type = direct::ascii(&operation.params_type)?;
    let (pattern, budget) = if operation.fields.is_empty() {
        let pattern = format!("let client::{params_type} {{}}");
        let path = "client::".len() + params_type.len();
        (pattern, path + BODY.len() + "let ;".len() + " {".len())
    } else {
        let pattern = format!("let params: client::{params_type}");
        let width = BODY.len() + pattern.len() + " =".len();
        (pattern, width)
    };
    out.push_str(BODY);
    out.push_str(&pattern);
    if BODY.len() + pattern.len() + " = ".len() + PARSE.len() <= direct::MAX_WIDTH {
        out.push_str(" = ");
        out.push_str(PARSE);
    } else if budget <= direct::MAX_WIDTH {
        out.push_str(" =\n");
        out.push_str(NESTED);
        out.push_str(PARSE);
    } else {
        out.push_str(" = runtime::parse_arguments(\n");
        out.push_str(NESTED);
        out.push_str("arguments,\n");
        out.push_str(BODY);
        out.push_str(")?;");
    }
    out.push('\n');
    Some(())
}

/// `Ok(client.method(&params).await?.into())` as rustfmt lays it out: on one line when the
/// chain is no wider than `chain_width` ([`direct::CALL_WIDTH`]), else one link a line, the
/// method's argument on a line of its own when its link does not fit; when `.method(` does not
/// fit either, rustfmt gives up on the statement and keeps it as prettyplease printed it (the
/// chain on the lines after `Ok(`).
fn write_call(out: &mut String, operation: &OperationPlan) -> Option<()> {
    let fn_name = direct::ascii(&operation.fn_name)?;
    let args = if operation.fields.is_empty() {
        ""
    } else {
        "&params"
    };
    let chain = "client.".len() + fn_name.len() + args.len() + "().await?.into()".len();
    if chain <= direct::CALL_WIDTH {
        out.push_str(&format!(
            "{BODY}Ok(client.{fn_name}({args}).await?.into())\n"
        ));
        return Some(());
    }
    let link = format!("{NESTED}.{fn_name}(");
    if link.len() + args.len() + ")".len() <= direct::MAX_WIDTH {
        out.push_str(&format!("{BODY}Ok(client\n{link}{args})\n"));
    } else if direct::fits(&link) {
        out.push_str(&format!("{BODY}Ok(client\n{link}\n"));
        if !args.is_empty() {
            out.push_str(&format!("{NESTED}    {args},\n"));
        }
        out.push_str(&format!("{NESTED})\n"));
    } else {
        // As printed: the chain a level deeper, and `Ok`'s argument ending with a comma.
        out.push_str(&format!(
            "{BODY}Ok(\n{NESTED}client\n{NESTED}    .{fn_name}("
        ));
        if !args.is_empty() {
            out.push_str(&format!("\n{NESTED}        {args},\n{NESTED}    "));
        }
        out.push_str(&format!(
            ")\n{NESTED}    .await?\n{NESTED}    .into(),\n{BODY})\n"
        ));
        return Some(());
    }
    out.push_str(&format!("{NESTED}.await?\n{NESTED}.into())\n"));
    Some(())
}
#[cfg(test)]
mod tests {
    use super::*;

    /// `src/operations.rs` as `operations_rs` makes it (parts written directly, the rest printed
    /// and formatted by rustfmt), and as printing all of it and running rustfmt makes it.
    fn written_and_printed(plan: &Plan, discovery: &DiscoveryPlan) -> (String, String) {
        let path = "src/operations.rs";
        let formatted = emit::format_files(vec![(path.into(), operations_rs(plan, discovery))], "")
            .expect("valid Rust");
        let written = emit::join_with(formatted, &|printed| {
            emit::rustfmt_files_with("rustfmt".as_ref(), printed).map(|ran| assert!(ran))
        })
        .expect("the pieces join");
        let modules = operation_modules(plan, discovery);
        let tokens = [
            operations_head(discovery),
            operations_table(discovery, &modules),
            unavailable_table(discovery),
            module_items(plan, &discovery.operations, &modules),
        ];
        let printed = emit::printed_and_rustfmt(path, tokens.into_iter().collect());
        (written[0].1.clone(), printed)
    }

    /// Asserts that `written` is `printed`, showing the lines around the first difference.
    fn assert_same(what: &str, written: &str, printed: &str) {
        if written == printed {
            return;
        }
        let w: Vec<&str> = written.lines().collect();
        let p: Vec<&str> = printed.lines().collect();
        let at = w
            .iter()
            .zip(&p)
            .position(|(a, b)| a != b)
            .unwrap_or(w.len().min(p.len()));
        let around =
            |lines: &[&str]| lines[at.saturating_sub(8)..(at + 8).min(lines.len())].join("\n");
        panic!(
            "{what}: differs at line {at}:\nwritten:\n{}\n---\nprinted and formatted:\n{}",
            around(&w),
            around(&p)
        );
    }

    #[test]
    fn modules_are_cut_in_runs_and_short_written_runs_between_printed_ones_are_printed() {
        let runs = |writes: &[bool]| {
            module_runs(writes)
                .into_iter()
                .map(|(range, written)| (range.start, range.end, written))
                .collect::<Vec<_>>()
        };
        let part = OPERATIONS_PER_PART;
        assert_eq!(runs(&[]), []);
        assert_eq!(
            runs(&vec![true; part + 3]),
            [(0, part, true), (part, part + 3, true)]
        );
        // Short written runs at the edges stay written; one between printed ones does not.
        let mut writes = vec![true, false, true, true, false, true];
        assert_eq!(runs(&writes), [(0, 1, true), (1, 5, false), (5, 6, true)]);
        // Every other module printed: one printed run, not one a module.
        writes = (0..41).map(|i| i % 2 == 0).collect();
        assert_eq!(
            runs(&writes),
            [(0, 1, true), (1, 40, false), (40, 41, true)]
        );
        // A written run of half a part or more between printed ones stays written.
        writes = [vec![false], vec![true; part / 2], vec![false]].concat();
        assert_eq!(
            runs(&writes),
            [
                (0, 1, false),
                (1, part / 2 + 1, true),
                (part / 2 + 1, part / 2 + 2, false)
            ]
        );
    }

    /// The plan of `spec` with every operation discoverable.
    fn discovery_plan(spec: &str) -> Plan {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let options = crate::Options {
            discovery_threshold: Some(0),
            ..Default::default()
        };
        let (plan, _) = crate::generate(&root.join(spec), None, &options)
            .unwrap_or_else(|e| panic!("{spec}: {e:#}"));
        assert!(plan.discovery.is_some(), "{spec}");
        plan
    }

    /// The oracle of the writers: for specs with hostile text (bidi controls, invisible code
    /// points, quotes and backslashes), code in descriptions, cursed names (keywords, an
    /// over-long operationId), the tracker, Stripe and Slack, `src/operations.rs` written
    /// directly is byte for byte what printing it and running rustfmt over the print makes of
    /// it; and the writers lay out all of it but the cursed names' longest.
    #[test]
    fn operations_written_directly_are_what_printing_and_rustfmt_make_of_them() {
        for spec in [
            "tests/fixtures/hostile-text.yaml",
            "tests/fixtures/doc-code.yaml",
            "tests/fixtures/cursed-names.yaml",
            "specs/tracker/openapi.yaml",
            "tests/corpus/stripe/spec2.json",
            "tests/corpus/slack-web/slack_web_openapi_v2.json",
        ] {
            let plan = discovery_plan(spec);
            let discovery = plan.discovery.as_ref().expect("discovery");
            let modules = operation_modules(&plan, discovery);
            assert!(write_head(discovery).is_some(), "{spec}");
            // A table of one entry rustfmt writes on the table's lines: printed.
            assert_eq!(
                write_operations_table(discovery, &modules).is_some(),
                discovery.operations.len() > 1,
                "{spec}"
            );
            assert!(write_unavailable(discovery).is_some(), "{spec}");
            let not: Vec<&str> = discovery
                .operations
                .iter()
                .zip(&modules)
                .filter(|(op, module)| {
                    let operation = &plan.operations[op.operation];
                    write_module(&mut String::new(), operation, module).is_none()
                })
                .map(|(op, _)| op.name.as_str())
                .collect();
            assert!(
                not.is_empty() || spec.ends_with("cursed-names.yaml") && not.len() == 1,
                "{spec}: not written: {not:?}"
            );
            let (written, printed) = written_and_printed(&plan, discovery);
            assert_same(spec, &written, &printed);
        }
    }

    /// The layouts turn on widths: operations whose names (so modules and methods) and whose
    /// parameter types are every length from 1 to 130 columns, with and without parameters,
    /// checks of allowed values of every width, and table entries named with long, wide and
    /// hidden text, are written as printing and rustfmt write them; the writers give up only on
    /// the checks wider than rustfmt puts on one line.
    #[test]
    fn names_of_every_width_are_laid_out_as_rustfmt_lays_them_out() {
        let mut plan = discovery_plan("specs/tracker/openapi.yaml");
        let mut discovery = plan.discovery.take().expect("discovery");
        let with = plan
            .operations
            .iter()
            .find(|op| {
                !op.fields.is_empty()
                    && op
                        .fields
                        .iter()
                        .all(|f| !matches!(f.ty, FieldType::Integer { allowed: Some(_) }))
            })
            .expect("an operation with parameters")
            .clone();
        let without = plan
            .operations
            .iter()
            .find(|op| op.fields.is_empty())
            .expect("an operation without parameters")
            .clone();
        let checked = plan
            .operations
            .iter()
            .find(|op| {
                op.fields
                    .iter()
                    .any(|f| matches!(f.ty, FieldType::Integer { allowed: Some(_) }))
            })
            .expect("an operation with a check of allowed values")
            .clone();
        let mut operations = Vec::new();
        let mut too_wide = 0;
        for length in 1..=60 {
            let mut operation = checked.clone();
            operation.fn_name = format!("c{length}");
            let field = operation
                .fields
                .iter_mut()
                .find(|f| matches!(f.ty, FieldType::Integer { allowed: Some(_) }))
                .expect("the checked field");
            field.property = "p".repeat(length);
            field.required = length % 2 == 0;
            let allowed = if length % 3 == 0 {
                vec![-1, 0, 1]
            } else {
                vec![1, 2, 3, 10]
            };
            // `"p…", Some(params.x), &[…]` wider than `fn_call_width`: given up.
            let some = if field.required { "Some()".len() } else { 0 };
            let allowed_width: usize = allowed.iter().map(|v| v.to_string().len() + 2).sum();
            let width =
                length + 2 + 2 + some + "params.".len() + field.ident.len() + 2 + allowed_width + 1;
            too_wide += usize::from(width > direct::CALL_WIDTH);
            field.ty = FieldType::Integer {
                allowed: Some(allowed),
            };
            operations.push(operation);
        }
        assert!(too_wide > 10, "{too_wide}");
        for length in 1..=130 {
            for base in [&with, &without] {
                let letter = if base.fields.is_empty() { 'g' } else { 'f' };
                // The name's width (the module's and the method's), then the parameters' type's.
                let mut by_name = base.clone();
                by_name.fn_name = letter.to_string().repeat(length);
                by_name.params_type = "Params".into();
                let mut by_type = base.clone();
                by_type.fn_name = format!("{letter}{length}");
                by_type.params_type = "T".repeat(length);
                operations.extend([by_name, by_type]);
            }
        }
        let names = [
            "x".repeat(120),
            "ü".repeat(60),
            "漢".repeat(45),
            "quote \" backslash \\ tab\t".into(),
            "bidi \u{202e}x\u{2066} zero\u{200b}width".into(),
        ];
        discovery.operations = (0..operations.len())
            .map(|index| Discoverable {
                operation: index,
                name: names
                    .get(index)
                    .cloned()
                    .unwrap_or_else(|| format!("op{index}")),
                read_only: index % 3 == 0,
            })
            .collect();
        plan.operations = operations;
        let modules = operation_modules(&plan, &discovery);
        assert!(write_operations_table(&discovery, &modules).is_some());
        let written = discovery
            .operations
            .iter()
            .zip(&modules)
            .filter(|(op, module)| {
                write_module(&mut String::new(), &plan.operations[op.operation], module).is_some()
            })
            .count();
        assert_eq!(written + too_wide, discovery.operations.len());
        let (written, printed) = written_and_printed(&plan, &discovery);
        assert_same("names of every width", &written, &printed);
    }
}
