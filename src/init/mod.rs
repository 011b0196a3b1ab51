//! Init: a starter curation file for an API (`mcpgen init`).
//!
//! Takes the normalized [`Api`] and returns YAML text that builds as written — every operation
//! becomes a one-to-one tool — and that lists every operation (grouped by tag), names the server,
//! sets up the credentials the spec asks for, and shows every feature of the curation file as a
//! commented example made from the spec's own operations, parameters and fields. Text from the
//! spec only ever appears on one comment line or as a quoted scalar, so no summary can break the
//! file. The output is deterministic.
//!
//! [`starter_named`] reads the API, guesses, then writes, top to bottom:
//!
//! - guessing from the API: `schemas` reads schemas and operations (what a list operation
//!   answers, what an operation is about); `resolvers` finds the list operations that turn a
//!   readable value into an id, `paging` the paging style the lists share, `codes` a parameter of
//!   codes for the `enums` example, and `tool_example` picks the operation the commented curated
//!   tool is made from;
//! - writing YAML: `out` collects the lines (aligned comments, wrapped prose) and `text` makes
//!   text from the spec safe on one comment line or in one scalar; `server` writes the header, the
//!   `server` and `auth` sections, `operations` the operation list and the discovery example, and
//!   `sections` the commented examples of every other feature and the token budgets.

mod codes;
mod operations;
mod out;
mod paging;
mod resolvers;
mod schemas;
mod sections;
mod server;
mod text;
mod tool_example;

use self::codes::enum_example;
use self::operations::{discovery, operations};
use self::out::Out;
use self::paging::guess_pagination;
use self::resolvers::find_resolvers;
use self::sections::{BUDGETS_MARK, budgets, enums, errors, pagination, resolvers_section, tools};
use self::server::{auth, header, server};
use self::tool_example::pick_tool;
use crate::api::Api;
use crate::naming;
pub use operations::UNTAGGED;
pub use text::scalar;

/// Where editors find the curation file's JSON Schema.
pub const SCHEMA_URL: &str =
    "https://raw.githubusercontent.com/mcpgen/mcpgen/main/schemas/mcpgen.schema.json";

/// The column trailing comments start at, when the code leaves room.
const COMMENT_COLUMN: usize = 36;
/// The widest line of wrapped prose.
const WRAP: usize = 96;
/// The placeholder for an operation when the spec has none that fits an example.
pub const PLACEHOLDER_PREFIX: &str = "your";

/// The starter curation file for `api`; `spec` is the document's path as the user gave it, for
/// the build command in the file's header.
pub fn starter(api: &Api, spec: &str) -> String {
    starter_named(api, spec, "mcpgen.yaml")
}

/// [`starter`] for a file that will be saved as `file` (named in the build command).
pub fn starter_named(api: &Api, spec: &str, file: &str) -> String {
    let name = naming::server_name_from_title(&api.title).unwrap_or_else(|| "api".to_string());
    let env = naming::env_prefix(&name);
    let prefix = naming::tool_prefix(&name);
    // The operations as the starter's own `auth` serves them: a parameter that carries one of
    // its credentials is in no example (the file must not give it).
    let zero_config = crate::plan::server_auth(api, None, &env);
    let api = &*crate::plan::credentials::carried(api, &zero_config);
    let paging = guess_pagination(api);
    let resolvers = find_resolvers(api);
    let tool = pick_tool(api, &resolvers, &paging, &prefix);
    let enum_example = enum_example(api, tool.as_ref());

    let mut out = Out::default();
    header(&mut out, api, spec, file);
    server(&mut out, api, &name, &env, &prefix);
    let auth_env = auth(&mut out, api, &env);
    operations(&mut out, api, &prefix);
    discovery(&mut out, api);
    enums(&mut out, &enum_example, tool.as_ref());
    resolvers_section(&mut out, &resolvers);
    pagination(&mut out, &paging);
    errors(&mut out, auth_env.as_deref());
    out.line(BUDGETS_MARK);
    out.blank();
    tools(
        &mut out,
        api,
        tool.as_ref(),
        &enum_example,
        &resolvers,
        &paging,
        &prefix,
    );
    budgets(out.text, api, file)
}
