//! Init: a starter curation file for an API (`mcpgen init`).
//!
//! Takes the normalized [`Api`] and returns YAML text that builds as written — every operation
//! becomes a one-to-one tool — and that lists every operation (grouped by tag), names the server,
//! sets up the credentials the spec asks for, and shows every feature of the curation file as a
//! commented example made from the spec's own operations, parameters and fields. Text from the
//! spec only ever appears on one comment line or as a quoted scalar, so no summary can break the
//! file. The output is deterministic.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::api::{Api, Location, Method, Operation, SecurityScheme};
use crate::curate::model::typed_scalars;
use crate::curate::schema::{only_array, operation_inputs, schema_at, success_schema};
use crate::naming;

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

// ---------------------------------------------------------------------------------------------
// Writing lines

#[derive(Default)]
struct Out {
    text: String,
}

impl Out {
    fn line(&mut self, code: &str) {
        self.text.push_str(code.trim_end());
        self.text.push('\n');
    }

    /// `code` with a trailing `# comment`, aligned at [`COMMENT_COLUMN`] when there is room.
    fn note(&mut self, code: &str, comment: &str) {
        if comment.is_empty() {
            return self.line(code);
        }
        let width = code.chars().count();
        let pad = if width + 2 <= COMMENT_COLUMN {
            COMMENT_COLUMN - width
        } else {
            2
        };
        self.line(&format!("{code}{}# {comment}", " ".repeat(pad)));
    }

    fn blank(&mut self) {
        self.text.push('\n');
    }

    /// Prose wrapped into comment lines starting with `lead` (`# `, `#   `).
    fn prose(&mut self, lead: &str, text: &str) {
        for line in wrap(text, WRAP.saturating_sub(lead.chars().count()).max(20)) {
            self.line(&format!("{lead}{line}"));
        }
    }
}

/// `text` cut into lines of at most `width` characters (a longer word, or `code span`, stays
/// whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut open = false;
    for word in text.split_whitespace() {
        match words.last_mut() {
            Some(last) if open => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
        if word.matches('`').count() % 2 == 1 {
            open = !open;
        }
    }
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in &words {
        if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

// ---------------------------------------------------------------------------------------------
// Text from the spec, made safe

/// Spec text on one line: every line break, control and format character becomes a space, and
/// runs of spaces one.
pub fn one_line(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| {
            if c.is_control()
                || c.is_whitespace()
                || matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{200b}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                )
            {
                ' '
            } else {
                c
            }
        })
        .collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters of one-line `text`, cut after a word when one ends late enough,
/// `…` marking the cut.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    let kept = match kept.rfind(' ') {
        Some(space) if space >= kept.len() * 2 / 3 => &kept[..space],
        _ => kept.as_str(),
    };
    format!("{}…", kept.trim_end_matches([' ', ',', ';', ':']))
}

/// The first sentence of `text` ([`crate::text::first_sentence`]), on one line, at most `max`
/// characters.
fn first_sentence(text: &str, max: usize) -> String {
    clip(&one_line(crate::text::first_sentence(text.trim())), max)
}

/// A YAML scalar that reads back as exactly `text`, on one line: plain when that is safe, in the
/// block context or inside a flow collection (`flow`); double-quoted otherwise, with every line
/// break, control and format character escaped.
pub fn scalar(text: &str, flow: bool) -> String {
    if plain_ok(text, flow) {
        return text.to_string();
    }
    let quoted = serde_json::to_string(text).expect("a string always serializes");
    let mut out = String::with_capacity(quoted.len());
    for c in quoted.chars() {
        if c.is_control()
            || matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
            )
        {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

fn plain_ok(text: &str, flow: bool) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    if text != text.trim()
        || "-?:,[]{}#&*!|>'\"%@`".contains(first)
        || text.contains(": ")
        || text.contains(" #")
        || text.ends_with(':')
        || text
            .chars()
            .any(|c| c.is_control() || c == '\u{feff}' || c.is_whitespace() && c != ' ')
        || (flow && text.contains([',', '[', ']', '{', '}', ':']))
    {
        return false;
    }
    // The curation reader types plain scalars; YAML 1.1 readers type a few more.
    let lower = text.to_ascii_lowercase();
    matches!(
        typed_scalars(Value::String(text.to_string())),
        Value::String(_)
    ) && !matches!(
        lower.as_str(),
        "null"
            | "~"
            | "true"
            | "false"
            | "yes"
            | "no"
            | "on"
            | "off"
            | "y"
            | "n"
            | ".nan"
            | ".inf"
            | "-.inf"
            | "+.inf"
    ) && text.parse::<f64>().is_err()
        && !lower.starts_with("0x")
        && !lower.starts_with("0o")
}

/// `text` as one shell word.
fn shell_word(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-+=:@%,".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// A name usable as a key and field path everywhere: letters, digits, `_` and `-`, not read as
/// a number, boolean or null.
fn simple_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && plain_ok(name, true)
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The words of a name, lowercase: `project_id` → `project id`.
fn words_of(name: &str) -> String {
    naming::snake(name).map_or_else(|| name.to_string(), |s| s.replace('_', " "))
}

// ---------------------------------------------------------------------------------------------
// Header and server

fn header(out: &mut Out, api: &Api, spec: &str, file: &str) {
    out.line(&format!("# yaml-language-server: $schema={SCHEMA_URL}"));
    out.line("#");
    let title = clip(&one_line(&api.title), 60);
    let version = clip(&one_line(&api.version), 30);
    let about = match (title.is_empty(), version.is_empty()) {
        (false, false) => format!("{title} {version}"),
        (false, true) => title,
        (true, _) => "this API".to_string(),
    };
    out.prose(
        "# ",
        &format!(
            "A starter curation file for {about}, written by `mcpgen init`. As written, every \
             operation of the API is a tool of its own. Curate it: write a few tools shaped for \
             the model's tasks under `tools:` (the commented examples below use this API's own \
             operations), then set `operations.mirror: none`. Every key is described in the \
             README and in `mcpgen schema`. Build the server with:"
        ),
    );
    out.line(&format!(
        "#   mcpgen build {} -c {}",
        one_line(&shell_word(spec)),
        one_line(&shell_word(file))
    ));
    out.blank();
}

fn server(out: &mut Out, api: &Api, name: &str, env: &str, prefix: &str) {
    out.line("server:");
    out.note(
        &format!("  name: {name}"),
        &format!("crate {name}-mcp, environment variables {env}_*"),
    );
    out.note(
        &format!("  prefix: {prefix}"),
        "every tool name starts with it",
    );
    out.note(
        "  # instructions: >-",
        "guidance for the model about the whole server",
    );
    let title = clip(&one_line(&api.title), 60);
    let title = if title.is_empty() {
        "this API".to_string()
    } else {
        title
    };
    out.prose(
        "  #   ",
        &format!(
            "Tools for {title}. Say what the tools are for, how things are named (keys, names, \
             `me`) and which tool to start with."
        ),
    );
    out.note(
        "  # tools_list_ttl_seconds: 86400",
        "how long clients may cache tools/list (default one day)",
    );
    out.note(
        "  # cache_scope: public",
        "public (default) or private: who may share a cached tools/list",
    );
    out.blank();
}

// ---------------------------------------------------------------------------------------------
// Auth

// The schemes the spec asks for by default, exactly as the generated server picks them when the
// file has no `auth`.
use crate::plan::required_schemes;

#[derive(Clone, Copy, PartialEq, Eq)]
enum AuthKind {
    Bearer,
    ApiKey,
    Basic,
    ClientCredentials,
}

fn kind_of(scheme: &SecurityScheme) -> Option<AuthKind> {
    match scheme {
        SecurityScheme::Bearer => Some(AuthKind::Bearer),
        SecurityScheme::ApiKey { .. } => Some(AuthKind::ApiKey),
        SecurityScheme::Basic => Some(AuthKind::Basic),
        SecurityScheme::OAuth2ClientCredentials { .. } => Some(AuthKind::ClientCredentials),
        SecurityScheme::Unsupported { .. } => None,
    }
}

/// The `auth` entry (`key: { … }`) for a scheme of `kind`, with the spec's values when `scheme`
/// is given.
fn auth_entry(kind: AuthKind, scheme: Option<&SecurityScheme>, env: &str) -> String {
    match kind {
        AuthKind::Bearer => format!("bearer: {{ env: {env}_TOKEN }}"),
        AuthKind::ApiKey => {
            let (location, name) = match scheme {
                Some(SecurityScheme::ApiKey { location, name }) => {
                    (location.as_str(), scalar(name, true))
                }
                _ => ("header", "X-API-Key".to_string()),
            };
            format!("api_key: {{ in: {location}, name: {name}, env: {env}_API_KEY }}")
        }
        AuthKind::Basic => {
            format!("basic: {{ username_env: {env}_USERNAME, password_env: {env}_PASSWORD }}")
        }
        AuthKind::ClientCredentials => {
            let token_url = match scheme {
                Some(SecurityScheme::OAuth2ClientCredentials { token_url })
                    if !token_url.is_empty() =>
                {
                    format!("token_url: {}, ", scalar(token_url, true))
                }
                _ => format!(
                    "token_url: {}, ",
                    scalar("https://auth.example.com/oauth/token", true)
                ),
            };
            format!(
                "oauth2_client_credentials: {{ {token_url}client_id_env: {env}_CLIENT_ID, \
                 client_secret_env: {env}_CLIENT_SECRET, scopes: [] }}"
            )
        }
    }
}

fn auth_comment(kind: AuthKind, scheme_name: Option<&str>) -> String {
    let what = match kind {
        AuthKind::Bearer => "Authorization: Bearer <token>",
        AuthKind::ApiKey => "in: header, query or cookie",
        AuthKind::Basic => "HTTP basic authentication",
        AuthKind::ClientCredentials => "the server fetches its own token",
    };
    match scheme_name {
        Some(name) => format!("{} in the spec: {what}", clip(&one_line(name), 30)),
        None => what.to_string(),
    }
}

/// Writes the `auth` section; returns the environment variable holding the main credential, for
/// the error-message example.
fn auth(out: &mut Out, api: &Api, env: &str) -> Option<String> {
    let required = required_schemes(api);
    let mut chosen: Vec<(&String, &SecurityScheme, AuthKind)> = Vec::new();
    let mut unsupported: Vec<(&String, &str)> = Vec::new();
    for name in &required {
        match api.security_schemes.get(*name) {
            Some(SecurityScheme::Unsupported { kind }) => unsupported.push((name, kind.as_str())),
            Some(scheme) => {
                let kind = kind_of(scheme).expect("a supported scheme");
                if !chosen.iter().any(|(_, _, k)| *k == kind) {
                    chosen.push((name, scheme, kind));
                }
            }
            None => {}
        }
    }
    // What the spec asks for by default cannot be sent: offer a scheme it declares that can.
    let fallback = chosen.is_empty() && !required.is_empty();
    if fallback
        && let Some((name, scheme)) = api
            .security_schemes
            .iter()
            .find(|(_, s)| kind_of(s).is_some())
    {
        chosen.push((name, scheme, kind_of(scheme).expect("a supported scheme")));
    }
    let declared = |kind: AuthKind| {
        api.security_schemes
            .iter()
            .find(|(_, s)| kind_of(s) == Some(kind))
            .map(|(name, scheme)| (name.as_str(), scheme))
    };
    let others: Vec<AuthKind> = [
        AuthKind::Bearer,
        AuthKind::ApiKey,
        AuthKind::Basic,
        AuthKind::ClientCredentials,
    ]
    .into_iter()
    .filter(|kind| !chosen.iter().any(|(_, _, k)| k == kind))
    .collect();

    if chosen.is_empty() {
        let why = if unsupported.is_empty() {
            "the spec asks for no credentials; uncomment one if the API wants them"
        } else {
            "the spec asks only for credentials the server cannot get by itself"
        };
        for (name, kind) in &unsupported {
            out.prose(
                "# ",
                &format!(
                    "The spec's scheme {} ({}) needs a sign-in the server cannot do by itself; \
                     with a token obtained elsewhere, use `bearer`.",
                    clip(&one_line(name), 30),
                    clip(&one_line(kind), 40)
                ),
            );
        }
        out.note("# auth:", why);
        for kind in others {
            let spec = declared(kind);
            out.note(
                &format!("#   {}", auth_entry(kind, spec.map(|s| s.1), env)),
                &auth_comment(kind, spec.map(|s| s.0)),
            );
        }
        out.blank();
        return None;
    }

    out.note(
        "auth:",
        "credentials for the API, from the server's environment only",
    );
    if fallback {
        for (name, kind) in &unsupported {
            out.prose(
                "  # ",
                &format!(
                    "The spec's default scheme {} ({}) needs an interactive sign-in the server \
                     cannot do; this scheme, which the spec also declares, can be sent instead.",
                    clip(&one_line(name), 30),
                    clip(&one_line(kind), 40)
                ),
            );
        }
    }
    // Several API keys at once (Trello's `key` and `token`): every one, each with the variable
    // the server reads without a file.
    let keys: Vec<(&String, &str, &String)> = required
        .iter()
        .filter_map(|name| match api.security_schemes.get(*name) {
            Some(SecurityScheme::ApiKey {
                location,
                name: key,
            }) => Some((*name, location.as_str(), key)),
            _ => None,
        })
        .collect();
    let zero_config = crate::plan::server_auth(api, None, env);
    for (name, scheme, kind) in &chosen {
        if *kind == AuthKind::ApiKey && keys.len() > 1 {
            out.note("  api_keys:", "the spec asks for all of these at once");
            let vars = zero_config.iter().filter_map(|auth| match auth {
                crate::plan::Auth::ApiKey { env, .. } => Some(env),
                _ => None,
            });
            for ((scheme_name, location, key), var) in keys.iter().zip(vars) {
                out.note(
                    &format!(
                        "    - {{ in: {location}, name: {}, env: {var} }}",
                        scalar(key, true)
                    ),
                    &auth_comment(AuthKind::ApiKey, Some(scheme_name)),
                );
            }
            continue;
        }
        out.note(
            &format!("  {}", auth_entry(*kind, Some(scheme), env)),
            &auth_comment(*kind, Some(name)),
        );
    }
    if !fallback {
        for (name, kind) in &unsupported {
            out.prose(
                "  # ",
                &format!(
                    "({} in the spec: {}, which the server cannot get by itself)",
                    clip(&one_line(name), 30),
                    clip(&one_line(kind), 40)
                ),
            );
        }
    }
    for kind in others {
        let spec = declared(kind);
        out.note(
            &format!("  # {}", auth_entry(kind, spec.map(|s| s.1), env)),
            &auth_comment(kind, spec.map(|s| s.0)),
        );
    }
    out.blank();
    Some(match chosen[0].2 {
        AuthKind::Bearer => format!("{env}_TOKEN"),
        AuthKind::ApiKey => format!("{env}_API_KEY"),
        AuthKind::Basic => format!("{env}_USERNAME and {env}_PASSWORD"),
        AuthKind::ClientCredentials => format!("{env}_CLIENT_ID and {env}_CLIENT_SECRET"),
    })
}

// ---------------------------------------------------------------------------------------------
// Operations

/// The tag an operation is listed under: its first, or none.
fn group_of(operation: &Operation) -> Option<&str> {
    operation.tags.first().map(String::as_str)
}

/// The tags in the order operations first use them.
fn tag_order(api: &Api) -> Vec<&str> {
    let mut tags: Vec<&str> = Vec::new();
    for operation in &api.operations {
        if let Some(tag) = group_of(operation)
            && !tags.contains(&tag)
        {
            tags.push(tag);
        }
    }
    tags
}

/// A path glob for the `include` example: a parent path with `/*`, deeper and matching more
/// operations first.
fn path_glob_example(api: &Api) -> Option<String> {
    let mut best: Option<(usize, usize, String)> = None;
    for operation in &api.operations {
        let segments: Vec<&str> = operation
            .path
            .split('/')
            .filter(|s| !s.is_empty())
            .collect();
        if segments.len() < 2
            || segments[..segments.len() - 1]
                .iter()
                .any(|s| s.contains(['{', '}', '*']))
        {
            continue;
        }
        let glob = format!("/{}/*", segments[..segments.len() - 1].join("/"));
        let matched = api
            .operations
            .iter()
            .filter(|op| crate::curate::semantics::glob_matches(&glob, &op.path))
            .count();
        let rank = (usize::from(segments.len() >= 3), matched);
        if best
            .as_ref()
            .is_none_or(|(deep, count, _)| rank > (*deep, *count))
        {
            best = Some((rank.0, rank.1, glob));
        }
    }
    best.map(|(_, _, glob)| glob)
}

/// The heading of the untagged operations in the listing.
pub const UNTAGGED: &str = "(no tag)";

/// A commented `discovery` section: how the operations without a tool stay reachable.
fn discovery(out: &mut Out, api: &Api) {
    out.prose(
        "# ",
        &format!(
            "Discovery tools search, describe and call the operations that have no tool of their \
             own, so that curated tools and the rest of the API's {} operations fit in one server. \
             Uncomment with `mirror: none` above; `read_only: true` keeps writes out.",
            api.operations.len()
        ),
    );
    out.line("# discovery: { read_only: false, exclude: [{ method: DELETE }] }");
    out.blank();
}

fn operations(out: &mut Out, api: &Api, prefix: &str) {
    out.line("operations:");
    out.note(
        "  mirror: all",
        "each operation below is a tool; `none` once your tools suffice",
    );
    let delete = api.operations.iter().find(|op| op.method == Method::Delete);
    let hide_example = delete.or(api.operations.last()).map_or_else(
        || "[deleteThing]".to_string(),
        |op| format!("[{}]", scalar(&op.id, true)),
    );
    out.note(
        "  hide: []",
        &format!("operationIds with no tool, no client code: {hide_example}"),
    );

    let mut include = Vec::new();
    if let Some(tag) = tag_order(api).first() {
        include.push(format!("{{ tag: {} }}", scalar(tag, true)));
    }
    if let Some(glob) = path_glob_example(api) {
        include.push(format!("{{ path: {} }}", scalar(&glob, true)));
    }
    if !include.is_empty() {
        out.note(
            &format!("  # include: [{}]", include.join(", ")),
            "mirror only operations matching one of these",
        );
    }
    let mut exclude = Vec::new();
    if let Some(op) = delete {
        exclude.push("{ method: DELETE }".to_string());
        exclude.push(format!("{{ operation: {} }}", scalar(&op.id, true)));
    } else if let Some(op) = api.operations.last() {
        exclude.push(format!("{{ method: {} }}", op.method.as_upper()));
        exclude.push(format!("{{ operation: {} }}", scalar(&op.id, true)));
    }
    if !exclude.is_empty() {
        out.note(
            &format!("  # exclude: [{}]", exclude.join(", ")),
            "and none of these",
        );
    }

    out.line("  #");
    if api.operations.is_empty() {
        out.line("  # The spec has no operations.");
        out.blank();
        return;
    }
    let count = api.operations.len();
    out.prose(
        "  # ",
        &format!(
            "The {count} operation{} of the API by tag; with `mirror: all` each is the tool \
             {prefix}<operationId in snake_case>:",
            if count == 1 { "" } else { "s" }
        ),
    );
    let rows: Vec<(String, &str, String, String)> = api
        .operations
        .iter()
        .map(|op| {
            let about = op
                .summary
                .as_deref()
                .filter(|s| !one_line(s).is_empty())
                .or(op.description.as_deref())
                .map(|s| first_sentence(s, 100))
                .unwrap_or_default();
            let about = match (about.is_empty(), op.deprecated) {
                (true, false) => String::new(),
                (true, true) => "(deprecated)".to_string(),
                (false, false) => about,
                (false, true) => format!("(deprecated) {about}"),
            };
            (
                one_line(&op.id),
                op.method.as_upper(),
                one_line(&op.path),
                about,
            )
        })
        .collect();
    let id_width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let method_width = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
    let path_width = rows
        .iter()
        .map(|r| r.2.chars().count())
        .max()
        .unwrap_or(0)
        .min(60);
    let row = |(id, method, path, about): &(String, &str, String, String)| {
        let mut line = format!(
            "  #   {id}{}  {method}{}  {path}",
            " ".repeat(id_width - id.chars().count()),
            " ".repeat(method_width - method.len())
        );
        if !about.is_empty() {
            line.push_str(&" ".repeat(path_width.saturating_sub(path.chars().count())));
            line.push_str("  — ");
            line.push_str(about);
        }
        line
    };
    let mut groups: Vec<Option<&str>> = tag_order(api).into_iter().map(Some).collect();
    if api.operations.iter().any(|op| group_of(op).is_none()) {
        groups.push(None);
    }
    for group in groups {
        out.line("  #");
        out.line(&format!(
            "  # {}",
            group.map_or_else(|| UNTAGGED.to_string(), |tag| clip(&one_line(tag), 80))
        ));
        for (op, columns) in api.operations.iter().zip(&rows) {
            if group_of(op) == group {
                out.line(&row(columns));
            }
        }
    }
    out.blank();
}

// ---------------------------------------------------------------------------------------------
// What the examples are made of

/// The declared `type` of a schema (the first that is not `null`).
fn type_of(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null"),
        _ => None,
    }
}

/// `schema` with a `$ref` into `root` followed.
fn deref<'s>(root: &'s Value, schema: &'s Value) -> &'s Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => root
            .pointer(reference.trim_start_matches('#'))
            .unwrap_or(schema),
        None => schema,
    }
}

/// The properties of an object schema (merged across `allOf`), by name.
fn properties(root: &Value, schema: &Value, depth: usize) -> Vec<(String, Value)> {
    let schema = deref(root, schema);
    let mut found: Vec<(String, Value)> = Vec::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        found.extend(
            props
                .iter()
                .map(|(k, v)| (k.clone(), deref(root, v).clone())),
        );
    }
    if depth < 4 {
        for part in schema
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for (name, value) in properties(root, part, depth + 1) {
                if !found.iter().any(|(n, _)| *n == name) {
                    found.push((name, value));
                }
            }
        }
    }
    found
}

/// Where a response's list usually is.
const LIST_FIELDS: &[&str] = &[
    "items", "data", "results", "records", "entries", "values", "list", "elements", "objects",
];
/// Operations whose name says they list.
const LIST_VERBS: &[&str] = &["list", "search", "find", "query", "browse", "all"];

/// A GET operation that returns a list of objects: where the list is and its items' fields.
struct Listing {
    items: String,
    fields: Vec<(String, Value)>,
}

fn listing(operation: &Operation) -> Option<Listing> {
    if operation.method != Method::Get {
        return None;
    }
    let schema = success_schema(operation)?;
    let items = only_array(schema)?;
    if !items
        .split('.')
        .all(|part| items.is_empty() || simple_name(part))
    {
        return None;
    }
    // The list must be what the operation is about, not a list inside one object.
    let about_lists = items.is_empty()
        || LIST_FIELDS.contains(&items.as_str())
        || naming::snake(&operation.id).is_some_and(|id| {
            id.split('_')
                .next()
                .is_some_and(|verb| LIST_VERBS.contains(&verb))
        });
    if !about_lists {
        return None;
    }
    let list = schema_at(schema, &items).ok()??;
    let item = list.get("items")?;
    let fields: Vec<(String, Value)> = properties(schema, item, 0)
        .into_iter()
        .filter(|(name, _)| simple_name(name))
        .collect();
    (!fields.is_empty()).then_some(Listing { items, fields })
}

/// The fields of an operation's single-object response.
fn object_fields(operation: &Operation) -> Vec<(String, Value)> {
    let Some(schema) = success_schema(operation) else {
        return Vec::new();
    };
    if crate::curate::schema::is_array(schema) {
        return Vec::new();
    }
    properties(schema, schema, 0)
        .into_iter()
        .filter(|(name, _)| simple_name(name))
        .collect()
}

const VERBS: &[&str] = &[
    "list", "get", "find", "search", "fetch", "query", "read", "retrieve", "all", "show", "lookup",
    "browse", "index",
];

/// Words that only qualify what an operation lists (`getMyFilters`, `getRecent` projects).
const QUALIFIERS: &[&str] = &["my", "all", "recent"];

/// A singular noun for what an operation returns: `listProjects` → `project`,
/// `findPetsByStatus` → `pet`.
fn noun_of(operation: &Operation) -> Option<String> {
    // The id's last segment names the operation: `issues/list-labels-for-repo` lists labels.
    let last = operation.id.rsplit('/').next().unwrap_or_default();
    let snake = naming::snake(last).unwrap_or_default();
    let mut words: Vec<&str> = snake.split('_').filter(|w| !w.is_empty()).collect();
    // `searchForIssuesUsingJql`, `getMyFilters`, `getIssueAllTypes`: verbs and what only
    // qualifies the noun go.
    words.retain(|w| !QUALIFIERS.contains(w));
    while words
        .first()
        .is_some_and(|w| VERBS.contains(w) || *w == "for")
    {
        words.remove(0);
    }
    if let Some(by) = words
        .iter()
        .position(|w| matches!(*w, "by" | "for" | "using" | "with"))
    {
        words.truncate(by);
    }
    // `getDashboardsPaginated` lists dashboards.
    while words.len() > 1
        && words
            .last()
            .is_some_and(|w| matches!(*w, "paginated" | "page"))
    {
        words.pop();
    }
    if words.is_empty() {
        let segment = operation.path.split('/').rev().find(|s| {
            let lower = s.to_ascii_lowercase();
            !s.is_empty()
                && !s.starts_with('{')
                && !lower.starts_with("by")
                && !VERBS.contains(&lower.as_str())
                && !QUALIFIERS.contains(&lower.as_str())
        })?;
        return naming::snake(segment).map(|s| naming::singular(&s));
    }
    let start = words.len().saturating_sub(2);
    let noun = words[start..].join("_");
    Some(naming::singular(&noun))
}

/// The item fields a readable value is matched against, best first.
const MATCH_FIELDS: &[&str] = &[
    "key",
    "slug",
    "username",
    "login",
    "handle",
    "name",
    "email",
    "title",
    "display_name",
];
/// Match fields that already say what they are (`username`, not `user username`).
const SELF_DESCRIBING: &[&str] = &["username", "login", "handle", "email", "slug"];

/// A resolver the examples show.
struct ResolverExample {
    name: String,
    what: String,
    source: Source,
}

enum Source {
    List {
        operation: String,
        items: String,
        matching: String,
        id: String,
        alias: Option<String>,
    },
    Lookup {
        operation: String,
    },
}

fn is_string(schema: &Value) -> bool {
    matches!(type_of(schema), Some("string") | None)
}

fn ends_with_id(name: &str) -> bool {
    let snake = naming::snake(name).unwrap_or_default();
    snake == "id"
        || snake == "ids"
        || snake.ends_with("_id")
        || snake.ends_with("uuid")
        || snake.ends_with("_ids")
}

/// The resolvers the spec's operations allow: lists of items with a readable field and an id,
/// and lookups by one readable value.
fn find_resolvers(api: &Api) -> Vec<ResolverExample> {
    let mut found: Vec<ResolverExample> = Vec::new();
    for operation in &api.operations {
        let Some(listing) = listing(operation) else {
            continue;
        };
        if operation_inputs(operation)
            .iter()
            .any(|(_, _, required)| *required)
        {
            continue;
        }
        let Some(noun) = noun_of(operation) else {
            continue;
        };
        if found.iter().any(|r| r.name == noun) || !simple_name(&noun) {
            continue;
        }
        let field = |name: &str| listing.fields.iter().find(|(n, _)| n == name);
        let Some(id) = ["id", "uuid"]
            .into_iter()
            .find(|n| field(n).is_some())
            .map(str::to_string)
            .or_else(|| {
                listing
                    .fields
                    .iter()
                    .find(|(n, _)| naming::snake(n).as_deref() == Some(&format!("{noun}_id")))
                    .map(|(n, _)| n.clone())
            })
        else {
            continue;
        };
        let Some(matching) = MATCH_FIELDS
            .iter()
            .find(|n| field(n).is_some_and(|(_, schema)| is_string(schema)) && **n != id)
        else {
            continue;
        };
        let what = if SELF_DESCRIBING.contains(matching) || matching.starts_with(noun.as_str()) {
            words_of(matching)
        } else {
            format!("{} {}", words_of(&noun), words_of(matching))
        };
        let alias = api.operations.iter().find(|op| {
            let words = naming::snake(&op.id).unwrap_or_default();
            let me_like = words
                .split('_')
                .any(|w| matches!(w, "me" | "current" | "self" | "whoami" | "myself"))
                || op
                    .path
                    .rsplit('/')
                    .next()
                    .is_some_and(|s| matches!(s, "me" | "self" | "whoami"));
            let fields = object_fields(op);
            op.method == Method::Get
                && op.id != operation.id
                && me_like
                && op.parameters.iter().all(|p| !p.required)
                && op.body.is_none()
                && fields.iter().any(|(n, _)| *n == id)
                && fields.iter().any(|(n, _)| n == matching)
        });
        found.push(ResolverExample {
            name: noun,
            what,
            source: Source::List {
                operation: operation.id.clone(),
                items: listing.items,
                matching: matching.to_string(),
                id,
                alias: alias.map(|op| op.id.clone()),
            },
        });
    }
    for operation in &api.operations {
        // A lookup gets one thing: `getIssueByKey`, not `listGroupMembers`.
        // The verb starts the id's last segment: `users/get-by-username`, `getIssueByKey`.
        let last = operation.id.rsplit('/').next().unwrap_or_default();
        let verb = naming::snake(last).unwrap_or_default();
        let verb = verb.split('_').next().unwrap_or_default();
        if operation.method != Method::Get
            || LIST_VERBS.contains(&verb)
            || object_fields(operation).is_empty()
            || success_schema(operation)
                .and_then(only_array)
                .is_some_and(|items| items.is_empty() || LIST_FIELDS.contains(&items.as_str()))
        {
            continue;
        }
        let inputs = operation_inputs(operation);
        let required: Vec<_> = inputs.iter().filter(|(_, _, r)| *r).collect();
        let [(param, schema, _)] = required.as_slice() else {
            continue;
        };
        let Some(parameter) = operation.parameters.iter().find(|p| p.name == *param) else {
            continue;
        };
        if !matches!(parameter.location, Location::Path | Location::Query)
            || ends_with_id(param)
            || !is_string(schema)
            || schema.get("enum").is_some()
        {
            continue;
        }
        // What the value names must be what the operation gets: `issue_key` for an issue.
        // A parameter named for the thing itself (`/invoices/{invoice}`) is its id already: a
        // lookup is for a readable value that is not the id (a key, a name, a login).
        let snake = naming::snake(param).unwrap_or_default();
        let name = match snake.as_str() {
            "username" | "user_name" | "login" | "handle" => "user".to_string(),
            _ => match ["_key", "_name", "_slug", "_code", "_handle"]
                .iter()
                .find_map(|suffix| snake.strip_suffix(suffix))
            {
                Some(stem) => stem.to_string(),
                None => continue,
            },
        };
        let gets = noun_of(operation).unwrap_or_default();
        if (gets != name && !gets.ends_with(&format!("_{name}")))
            || found.iter().any(|r| r.name == name)
            || !simple_name(&name)
        {
            continue;
        }
        found.push(ResolverExample {
            name,
            what: words_of(param),
            source: Source::Lookup {
                operation: operation.id.clone(),
            },
        });
    }
    found
}

/// The resolver that turns a readable value into the id parameter `param` takes (`project_id`).
fn resolver_for<'r>(param: &str, resolvers: &'r [ResolverExample]) -> Option<&'r ResolverExample> {
    let snake = naming::snake(param)?;
    let stem = snake.strip_suffix("_id")?;
    resolvers.iter().find(|r| r.name == stem)
}

/// The guessed paging style: what it is, its parameters and where the items are.
struct Paging {
    /// How many GET operations page this way; 0 when nothing was found.
    operations: usize,
    style: &'static str,
    /// `(key, parameter)`: `page_param: page`.
    params: Vec<(&'static str, String)>,
    items: Option<String>,
    max_page_size: Option<i64>,
    next_cursor: Option<String>,
}

const PAGE_PARAMS: &[&str] = &["page", "page_number", "pageNumber", "page_num"];
const OFFSET_PARAMS: &[&str] = &["offset", "skip", "start"];
const CURSOR_PARAMS: &[&str] = &[
    "cursor",
    "after",
    "starting_after",
    "start_cursor",
    "page_token",
    "pageToken",
    "next_token",
    "nextToken",
    "continuation_token",
    "continuationToken",
    "marker",
];
const SIZE_PARAMS: &[&str] = &[
    "per_page",
    "page_size",
    "pageSize",
    "perPage",
    "limit",
    "size",
    "count",
    "max_results",
    "maxResults",
];
const NEXT_CURSOR_FIELDS: &[&str] = &[
    "next_cursor",
    "nextCursor",
    "next_page_token",
    "nextPageToken",
    "next_token",
    "nextToken",
    "next_start_cursor",
    "cursor",
    "next",
];

/// Where a response says the next cursor is (`response_metadata.next_cursor`), up to three
/// fields deep.
fn next_cursor_path(root: &Value, schema: &Value, depth: usize) -> Option<String> {
    let fields: Vec<(String, Value)> = properties(root, schema, 0)
        .into_iter()
        .filter(|(name, _)| simple_name(name))
        .collect();
    for wanted in NEXT_CURSOR_FIELDS {
        if let Some((name, value)) = fields.iter().find(|(n, _)| n == wanted)
            && is_string(value)
        {
            return Some(name.clone());
        }
    }
    if depth >= 2 {
        return None;
    }
    fields.iter().find_map(|(name, value)| {
        (type_of(value) == Some("object") || value.get("properties").is_some())
            .then(|| next_cursor_path(root, value, depth + 1).map(|rest| format!("{name}.{rest}")))
            .flatten()
    })
}

fn guess_pagination(api: &Api) -> Paging {
    // (style, first parameter, size parameter) and the operations that page that way.
    type Way = (&'static str, &'static str, &'static str);
    let mut counts: Vec<(Way, Vec<&Operation>)> = Vec::new();
    for operation in api.operations.iter().filter(|op| op.method == Method::Get) {
        let query = |name: &str| {
            operation
                .parameters
                .iter()
                .any(|p| p.name == name && p.location == Location::Query)
        };
        let Some(size) = SIZE_PARAMS.iter().find(|n| query(n)) else {
            continue;
        };
        for (style, firsts) in [
            ("page", PAGE_PARAMS),
            ("offset", OFFSET_PARAMS),
            ("cursor", CURSOR_PARAMS),
        ] {
            if let Some(first) = firsts.iter().find(|n| query(n)) {
                if style == "cursor"
                    && success_schema(operation)
                        .and_then(|s| next_cursor_path(s, s, 0))
                        .is_none()
                {
                    continue;
                }
                let key = (style, *first, *size);
                match counts.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, ops)) => ops.push(operation),
                    None => counts.push((key, vec![operation])),
                }
                break;
            }
        }
    }
    // The most common way; the earliest on a tie.
    let best = counts
        .iter()
        .enumerate()
        .max_by_key(|(index, (_, ops))| (ops.len(), std::cmp::Reverse(*index)))
        .map(|(_, found)| found);
    let Some(((style, first, size), ops)) = best else {
        return Paging {
            operations: 0,
            style: "page",
            params: vec![
                ("page_param", "page".into()),
                ("size_param", "per_page".into()),
            ],
            items: None,
            max_page_size: None,
            next_cursor: None,
        };
    };
    let first_key = match *style {
        "page" => "page_param",
        "offset" => "offset_param",
        _ => "cursor_param",
    };
    let operation = ops[0];
    let max_page_size = operation
        .parameters
        .iter()
        .find(|p| p.name == *size)
        .and_then(|p| p.schema.get("maximum"))
        .and_then(Value::as_i64)
        .filter(|max| *max >= 1);
    let items = ops
        .iter()
        .filter_map(|op| success_schema(op).and_then(only_array))
        .find(|path| path.is_empty() || path.split('.').all(simple_name));
    let next_cursor = (*style == "cursor")
        .then(|| success_schema(operation).and_then(|s| next_cursor_path(s, s, 0)))
        .flatten();
    Paging {
        operations: ops.len(),
        style,
        params: vec![
            (first_key, first.to_string()),
            ("size_param", size.to_string()),
        ],
        items,
        max_page_size,
        next_cursor,
    }
}

impl Paging {
    /// The API parameters the server drives when paging.
    fn drives(&self, name: &str) -> bool {
        self.operations > 0 && self.params.iter().any(|(_, p)| p == name)
    }
}

/// Names of parameters that page, in any style: never a tool parameter in the example.
fn is_paging_name(name: &str, paging: &Paging) -> bool {
    paging.drives(name)
        || PAGE_PARAMS.contains(&name)
        || OFFSET_PARAMS.contains(&name)
        || CURSOR_PARAMS.contains(&name)
        || SIZE_PARAMS.contains(&name)
}

/// A parameter of an operation whose values are a short list of codes (integers best).
fn enum_param(
    operation: &Operation,
    exclude: &[&str],
) -> Option<(String, Vec<Value>, Option<String>)> {
    let candidates = operation_inputs(operation)
        .into_iter()
        .filter_map(|(name, schema, _)| {
            // A list of codes is one value per call only in a workflow (`[$param]`): `check`
            // refuses `enum` on a parameter that fills a list.
            if exclude.contains(&name.as_str()) || crate::curate::schema::is_array(&schema) {
                return None;
            }
            let values = schema.get("enum")?.as_array()?.clone();
            if !(2..=12).contains(&values.len()) {
                return None;
            }
            let integers = values.iter().all(|v| v.as_i64().is_some());
            // Text codes must read back as text (`"1"` would become a number).
            let texts = values.iter().all(|v| {
                v.as_str().is_some_and(|s| {
                    !one_line(s).is_empty()
                        && one_line(s) == s
                        && matches!(typed_scalars(v.clone()), Value::String(_))
                })
            });
            let description = operation
                .parameters
                .iter()
                .find(|p| p.name == name)
                .and_then(|p| p.description.clone())
                .or_else(|| {
                    schema
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                });
            (integers || texts).then_some((integers, name, values, description))
        });
    let mut all: Vec<_> = candidates.collect();
    all.sort_by_key(|(integers, ..)| !*integers);
    all.into_iter()
        .next()
        .map(|(_, name, values, description)| (name, values, description))
}

/// Readable names for integer codes from a description such as "`1` open, `2` in progress".
fn names_from_description(description: &str, codes: &[i64]) -> Option<Vec<String>> {
    const STOP: &[&str] = &[
        "to", "and", "or", "of", "the", "a", "an", "is", "for", "from", "by", "with",
    ];
    let clean: String = one_line(description)
        .chars()
        .map(|c| {
            if matches!(c, '`' | '"' | '\'' | '*') {
                ' '
            } else {
                c
            }
        })
        .collect();
    let mut names = Vec::new();
    for code in codes {
        let digits = code.to_string();
        let found = clean.match_indices(&digits).find_map(|(at, _)| {
            let before = clean[..at].chars().next_back();
            let after = &clean[at + digits.len()..];
            let standalone = before
                .is_none_or(|c| !c.is_ascii_alphanumeric() && c != '-' && c != '.')
                && after.chars().next().is_none_or(|c| {
                    !c.is_ascii_alphanumeric() && c != '.' || after.starts_with(". ")
                });
            if !standalone {
                return None;
            }
            let rest = after.trim_start_matches([' ', '=', ':', '-', '–', '—', '(', ')']);
            let phrase: String = rest
                .chars()
                .take_while(|c| c.is_alphabetic() || *c == ' ')
                .collect();
            let words: Vec<&str> = phrase.split_whitespace().take(3).collect();
            let first = words.first()?;
            if STOP.contains(&first.to_lowercase().as_str()) {
                return None;
            }
            naming::snake(&words.join(" "))
        })?;
        names.push(found);
    }
    let unique: BTreeSet<&String> = names.iter().collect();
    (unique.len() == names.len()).then_some(names)
}

/// The example of `enums`: a name, its readable names and codes, and the parameter it fits.
struct EnumExample {
    name: String,
    entries: Vec<(String, Value)>,
    /// The API parameter (of the tool example's operation, when it has one) the codes are for.
    param: Option<String>,
}

fn readable_names(values: &[Value], description: Option<&str>) -> Vec<String> {
    let integers: Option<Vec<i64>> = values.iter().map(Value::as_i64).collect();
    if let Some(codes) = &integers
        && let Some(names) = description.and_then(|d| names_from_description(d, codes))
    {
        return names;
    }
    let mut taken = BTreeSet::new();
    values
        .iter()
        .enumerate()
        .map(|(index, value)| {
            let base = match value {
                Value::String(s) => naming::snake(s),
                Value::Number(n) => naming::snake(&format!("code {n}")),
                _ => None,
            }
            .filter(|s| plain_ok(s, true))
            .unwrap_or_else(|| format!("value_{}", index + 1));
            if taken.insert(base.clone()) {
                base
            } else {
                let other = format!("value_{}", index + 1);
                taken.insert(other.clone());
                other
            }
        })
        .collect()
}

fn enum_example(api: &Api, tool: Option<&ToolExample>) -> EnumExample {
    let from_tool = tool.and_then(|t| t.enum_param.clone().map(|p| (t.noun.clone(), p)));
    let found = from_tool.or_else(|| {
        api.operations
            .iter()
            .find_map(|op| enum_param(op, &[]).map(|p| (noun_of(op), p)))
    });
    match found {
        Some((noun, (param, values, description))) => {
            let snake = naming::snake(&param).unwrap_or_else(|| "code".into());
            let name = match noun {
                Some(noun) if !snake.starts_with(&noun) => format!("{noun}_{snake}"),
                _ => snake,
            };
            let names = readable_names(&values, description.as_deref());
            EnumExample {
                name,
                entries: names.into_iter().zip(values).collect(),
                param: Some(param),
            }
        }
        None => EnumExample {
            name: "status".into(),
            entries: vec![
                ("open".into(), Value::from(1)),
                ("in_progress".into(), Value::from(2)),
                ("done".into(), Value::from(3)),
            ],
            param: None,
        },
    }
}

fn code_text(value: &Value) -> String {
    match value {
        Value::String(s) => scalar(s, true),
        other => other.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// The tool example

struct ToolExample {
    operation: usize,
    /// What the operation returns, for names (`issue`).
    noun: Option<String>,
    listing: Option<Listing>,
    /// The enum parameter the example maps: its name, codes and description.
    enum_param: Option<(String, Vec<Value>, Option<String>)>,
    name: String,
}

/// The operation the tool example calls: the list operation with the most to show (a
/// parameter a resolver fills, an enum, filters), else the first GET, else the first.
fn pick_tool(
    api: &Api,
    resolvers: &[ResolverExample],
    paging: &Paging,
    prefix: &str,
) -> Option<ToolExample> {
    let score = |op: &Operation| {
        let inputs = operation_inputs(op);
        let resolvable = inputs
            .iter()
            .any(|(name, _, _)| resolver_for(name, resolvers).is_some());
        let enumerated = enum_param(op, &[]).is_some();
        let filters = inputs
            .iter()
            .filter(|(name, _, required)| !required && !is_paging_name(name, paging))
            .count()
            .min(3);
        4 * usize::from(resolvable) + 2 * usize::from(enumerated) + filters
    };
    let usable = |op: &Operation| op.body.is_none() || op.method != Method::Get;
    let listed = api
        .operations
        .iter()
        .enumerate()
        .filter(|(_, op)| usable(op) && listing(op).is_some())
        .max_by_key(|(index, op)| (score(op), std::cmp::Reverse(*index)))
        .map(|(index, _)| index);
    let index = listed
        .or_else(|| {
            api.operations
                .iter()
                .position(|op| op.method == Method::Get)
        })
        .or(if api.operations.is_empty() {
            None
        } else {
            Some(0)
        })?;
    let operation = &api.operations[index];
    let mut name = naming::snake(&operation.id).unwrap_or_else(|| "tool".into());
    let room = naming::MAX_TOOL_NAME.saturating_sub(prefix.len()).max(1);
    if name.len() > room {
        name = name[..room].trim_end_matches('_').to_string();
    }
    let resolved: Vec<&str> = operation
        .parameters
        .iter()
        .filter(|p| resolver_for(&p.name, resolvers).is_some())
        .map(|p| p.name.as_str())
        .collect();
    Some(ToolExample {
        operation: index,
        noun: noun_of(operation),
        listing: listing(operation),
        enum_param: enum_param(operation, &resolved),
        name,
    })
}

struct ParamExample {
    name: String,
    from: String,
    resolve: Option<String>,
    enumerated: Option<String>,
    description: Option<String>,
    header: Option<String>,
    comment: Option<String>,
}

/// `Mcp-Param-<name>` header name for a tool parameter (`issue_key` → `Issue-Key`).
fn header_name(param: &str) -> String {
    param
        .split('_')
        .filter(|w| !w.is_empty())
        .map(capitalized)
        .collect::<Vec<_>>()
        .join("-")
}

fn tool_params(
    operation: &Operation,
    tool: &ToolExample,
    enum_example: &EnumExample,
    resolvers: &[ResolverExample],
    paging: &Paging,
) -> Vec<ParamExample> {
    let inputs = operation_inputs(operation);
    // Every required input, then optional ones worth showing: one a resolver fills, the enum,
    // and a plain filter; four at most unless more are required.
    let mut chosen: Vec<&(String, Value, bool)> =
        inputs.iter().filter(|(_, _, required)| *required).collect();
    type Pick<'p> = &'p dyn Fn(&str, &Value) -> bool;
    let picks: [Pick; 3] = [
        &|name, _| resolver_for(name, resolvers).is_some(),
        &|name, _| tool.enum_param.as_ref().is_some_and(|(p, _, _)| p == name),
        &|name, schema| {
            resolver_for(name, resolvers).is_none()
                && !ends_with_id(name)
                && schema.get("enum").is_none()
                && matches!(
                    type_of(schema),
                    Some("string" | "integer" | "number" | "boolean")
                )
        },
    ];
    for pick in picks {
        if chosen.len() >= 4 {
            break;
        }
        let found = inputs.iter().find(|(name, schema, required)| {
            !required
                && !is_paging_name(name, paging)
                && !chosen.iter().any(|c| c.0 == *name)
                && pick(name, schema)
        });
        chosen.extend(found);
    }
    let mut taken: BTreeSet<String> = ["limit", "response_format"]
        .into_iter()
        .map(String::from)
        .collect();
    let mut params = Vec::new();
    let mut header_given = false;
    for (from, schema, _) in chosen {
        let resolver = resolver_for(from, resolvers);
        // The example enum's parameter may be another operation's of the same name: only a
        // parameter that takes one value gets `enum` (check refuses it on a list).
        let enumerated = (enum_example.param.as_deref() == Some(from.as_str())
            && resolver.is_none()
            && !crate::curate::schema::is_array(schema))
        .then(|| enum_example.name.clone());
        let base = match resolver {
            Some(r) => r.name.clone(),
            None => naming::snake(from).unwrap_or_else(|| "value".into()),
        };
        let mut name = base.clone();
        let mut n = 2;
        while !taken.insert(name.clone()) {
            name = format!("{base}_{n}");
            n += 1;
        }
        let api_description = operation
            .parameters
            .iter()
            .find(|p| p.name == *from)
            .and_then(|p| p.description.clone())
            .or_else(|| {
                schema
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .map(|d| first_sentence(&d, 90))
            .filter(|d| !d.is_empty());
        let (description, comment) = if let Some(r) = resolver {
            (
                Some(capitalized(&r.what)),
                Some(format!(
                    "the model passes a {}, the API gets the id",
                    r.what
                )),
            )
        } else if enumerated.is_some() {
            let names: Vec<&str> = enum_example
                .entries
                .iter()
                .map(|(n, _)| n.as_str())
                .collect();
            let shown = match names.as_slice() {
                [] => String::new(),
                [one] => (*one).to_string(),
                [rest @ .., last] if names.len() <= 6 => format!("{} or {last}", rest.join(", ")),
                _ => format!("{}, …", names[..5].join(", ")),
            };
            (
                Some(format!("One of {shown}")),
                Some("readable names in, the API's codes out".to_string()),
            )
        } else {
            (api_description, None)
        };
        let header = (!header_given && (resolver.is_some() || type_of(schema) == Some("string")))
            .then(|| header_name(&name))
            .filter(|h| !h.is_empty());
        header_given |= header.is_some();
        params.push(ParamExample {
            name,
            from: from.clone(),
            resolve: resolver.map(|r| r.name.clone()),
            enumerated,
            description,
            header,
            comment,
        });
    }
    params
}

/// Fields of a shaped result: `(name in the result, how it is written)`.
type ResultFields = Vec<(String, String)>;

/// The fields of a shaped result, concise and detailed.
fn result_fields(
    fields: &[(String, Value)],
    enum_example: &EnumExample,
    resolvers: &[ResolverExample],
) -> (ResultFields, ResultFields) {
    #[derive(Default)]
    struct Picked<'f> {
        keys: BTreeSet<String>,
        used: BTreeSet<&'f str>,
    }
    impl<'f> Picked<'f> {
        fn add(
            &mut self,
            list: &mut Vec<(String, String)>,
            key: String,
            from: &'f str,
            spec: String,
        ) {
            if !self.used.contains(from) && self.keys.insert(key.clone()) {
                self.used.insert(from);
                list.push((key, spec));
            }
        }
    }
    let key = |name: &str| naming::snake(name).unwrap_or_else(|| name.to_string());
    let mut picked = Picked::default();
    let mut concise: Vec<(String, String)> = Vec::new();
    for label in MATCH_FIELDS.iter().chain(["summary"].iter()) {
        if concise.len() >= 2 {
            break;
        }
        if let Some((name, _)) = fields.iter().find(|(n, _)| n == label) {
            picked.add(&mut concise, key(name), name, name.clone());
        }
    }
    if let Some(param) = &enum_example.param
        && let Some((name, schema)) = fields.iter().find(|(n, _)| n == param)
        && (schema.get("enum").is_some() || matches!(type_of(schema), Some("integer" | "string")))
    {
        picked.add(
            &mut concise,
            key(name),
            name,
            format!("{{ from: {name}, enum: {} }}", enum_example.name),
        );
    }
    if let Some((name, resolver)) = fields.iter().find_map(|(n, _)| {
        resolver_for(n, resolvers)
            .filter(|r| matches!(r.source, Source::List { .. }))
            .map(|r| (n, r))
    }) {
        picked.add(
            &mut concise,
            resolver.name.clone(),
            name,
            format!("{{ from: {name}, resolve: {} }}", resolver.name),
        );
    }
    for (name, _) in fields {
        if concise.len() >= 2 {
            break;
        }
        picked.add(&mut concise, key(name), name, name.clone());
    }
    let mut detailed = Vec::new();
    for (name, _) in fields {
        if detailed.len() >= 4 {
            break;
        }
        picked.add(&mut detailed, key(name), name, name.clone());
    }
    (concise, detailed)
}

// ---------------------------------------------------------------------------------------------
// The example sections

fn enums(out: &mut Out, example: &EnumExample, tool: Option<&ToolExample>) {
    let used_by = match (&example.param, tool.and_then(|t| t.enum_param.as_ref())) {
        (Some(_), Some(_)) => format!(
            "readable names for the API's codes (used by `enum: {}` below)",
            example.name
        ),
        _ => "readable names for the API's codes, for `enum: NAME` on parameters and fields"
            .to_string(),
    };
    out.note("# enums:", &used_by);
    let entries: Vec<String> = example
        .entries
        .iter()
        .map(|(name, code)| format!("{}: {}", scalar(name, true), code_text(code)))
        .collect();
    let flow = format!("#   {}: {{ {} }}", example.name, entries.join(", "));
    if entries.len() <= 6 && flow.chars().count() <= 90 {
        out.line(&flow);
    } else {
        out.line(&format!("#   {}:", example.name));
        for entry in entries {
            out.line(&format!("#     {entry}"));
        }
    }
    out.blank();
}

fn resolvers_section(out: &mut Out, resolvers: &[ResolverExample]) {
    out.note(
        "# resolvers:",
        "readable values (keys, names, `me`) turned into the API's ids",
    );
    if resolvers.is_empty() {
        let list = format!("{PLACEHOLDER_PREFIX}ListOperation");
        let lookup = format!("{PLACEHOLDER_PREFIX}LookupOperation");
        out.note(
            "#   item:",
            "no operation of this spec fits: put yours in place of the your… names",
        );
        out.note(
            "#     what: item name",
            "for messages: Item name \"X\" not found. Available item names: …",
        );
        out.note(
            &format!("#     list: {list}"),
            "lists every item (pages are walked) and caches it",
        );
        out.note(
            "#     match: [name]",
            "the item fields a value is matched against, case-insensitively",
        );
        out.note("#     id: id", "the item field the API takes");
        out.note(
            &format!("#   other: {{ what: other key, lookup: {lookup} }}"),
            "one call per value instead of a list",
        );
        out.blank();
        return;
    }
    let mut first_list = true;
    for resolver in resolvers {
        match &resolver.source {
            Source::List {
                operation,
                items,
                matching,
                id,
                alias,
            } => {
                let noted = |out: &mut Out, code: String, comment: &str| {
                    if first_list {
                        out.note(&code, comment);
                    } else {
                        out.line(&code);
                    }
                };
                out.line(&format!("#   {}:", resolver.name));
                noted(
                    out,
                    format!("#     what: {}", scalar(&resolver.what, false)),
                    &format!(
                        "for messages: {} \"X\" not found. Available {}s: …",
                        capitalized(&resolver.what),
                        resolver.what
                    ),
                );
                noted(
                    out,
                    format!("#     list: {}", scalar(operation, false)),
                    "lists every item (pages are walked) and caches it",
                );
                if !items.is_empty() {
                    noted(
                        out,
                        format!("#     items: {items}"),
                        "where the items are in its response",
                    );
                }
                noted(
                    out,
                    format!("#     match: [{matching}]"),
                    "the item fields a value is matched against, case-insensitively",
                );
                noted(
                    out,
                    format!("#     id: {id}"),
                    "the item field the API takes",
                );
                if let Some(alias) = alias {
                    out.note(
                        &format!("#     aliases: {{ me: {} }}", scalar(alias, true)),
                        "`me` is whoever the server's credentials belong to",
                    );
                }
                noted(
                    out,
                    "#     cache_seconds: 300".to_string(),
                    "how long a fetched list stays fresh",
                );
                first_list = false;
            }
            Source::Lookup { operation } => {
                out.note(
                    &format!(
                        "#   {}: {{ what: {}, lookup: {} }}",
                        resolver.name,
                        scalar(&resolver.what, true),
                        scalar(operation, true)
                    ),
                    "one call per value instead of a list",
                );
            }
        }
    }
    out.blank();
}

fn pagination(out: &mut Out, paging: &Paging) {
    let why = if paging.operations > 0 {
        format!(
            "how the API pages lists (guessed from {} operation{})",
            paging.operations,
            if paging.operations == 1 { "" } else { "s" }
        )
    } else {
        "how the API pages lists (none found in the spec: an example)".to_string()
    };
    out.note("# pagination:", &why);
    out.note(
        &format!("#   style: {}", paging.style),
        "page | offset | cursor | link (a `Link: rel=\"next\"` header)",
    );
    for (key, param) in &paging.params {
        out.line(&format!("#   {key}: {}", scalar(param, false)));
    }
    if let Some(next) = &paging.next_cursor {
        out.note(
            &format!("#   next_cursor: {}", scalar(next, false)),
            "where the next cursor is in a response",
        );
    }
    if let Some(items) = &paging.items {
        out.note(
            &format!("#   items: {}", scalar(items, false)),
            "where the items are in a response",
        );
    }
    match paging.max_page_size {
        Some(max) => out.note(
            &format!("#   max_page_size: {max}"),
            "the largest page the API gives",
        ),
        None => out.note(
            "#   max_page_size: 100",
            "the largest page the API gives (default 100)",
        ),
    }
    out.blank();
}

fn errors(out: &mut Out, auth_env: Option<&str>) {
    out.note(
        "# errors:",
        "messages for API errors by status, for every tool",
    );
    let who = match auth_env {
        Some(env) => {
            format!("The user must set {env} to valid credentials and restart the server;")
        }
        None => "The user must configure the server's credentials and restart it;".to_string(),
    };
    out.line(&format!(
        "#   401: The API refused the server's credentials. {who} calling again will not help."
    ));
    out.line("#   429: The API is limiting how fast the server may call it. Wait a minute before calling again.");
    out.blank();
}

/// Where the budgets line goes, until the rest of the file is written and can be measured.
const BUDGETS_MARK: &str = "# mcpgen:budgets";

/// `text` with its budgets line: an example the starter fits as written, with the figures of the
/// tools the file as written generates (measured by planning it, as `mcpgen tools` does), so that
/// uncommenting it gives limits to tighten while curating. A starter that does not check (which
/// would be a bug of `init`) gets the line without figures rather than figures that are not true.
fn budgets(text: String, api: &Api, file: &str) -> String {
    let measured = crate::curate::check_text(std::path::Path::new(file), &text, api)
        .ok()
        .and_then(|checked| {
            crate::plan::plan(api, &crate::Options::default(), Some(&checked.model)).ok()
        })
        .map(|plan| crate::lint::tool_tokens(&plan));
    let mut out = Out::default();
    match measured {
        Some(tokens) => {
            let heaviest = tokens.iter().copied().max().unwrap_or(0);
            let total: usize = tokens.iter().sum();
            let round_up = |value: usize, step: usize| value.div_ceil(step) * step;
            let per_tool = round_up(heaviest + heaviest / 4, 100).max(800);
            let all = round_up(total + total / 4, 1000).max(8000);
            out.note(
                &format!("# budgets: {{ per_tool: {per_tool}, total: {all} }}"),
                &format!(
                    "token limits; as written the heaviest tool takes ~{heaviest} and all {} ~{total}: lower them as you curate",
                    tokens.len()
                ),
            );
        }
        None => out.note(
            "# budgets: { per_tool: 800, total: 8000 }",
            "token limits for tools/list: lower them as you curate",
        ),
    }
    text.replacen(&format!("{BUDGETS_MARK}\n"), &out.text, 1)
}

fn tools(
    out: &mut Out,
    api: &Api,
    tool: Option<&ToolExample>,
    enum_example: &EnumExample,
    resolvers: &[ResolverExample],
    paging: &Paging,
    prefix: &str,
) {
    out.note(
        "# tools:",
        "a few tools shaped for the model's tasks, not one per operation",
    );
    let Some(tool) = tool else {
        out.note(
            "#   do_something:",
            "the spec has no operations: put yours in place of the your… name",
        );
        out.line("#     title: Do something");
        out.line("#     description: Say what the tool does and when to use it, for the model.");
        out.line(&format!("#     call: {PLACEHOLDER_PREFIX}Operation"));
        return;
    };
    let operation = &api.operations[tool.operation];
    out.note(
        &format!("#   {}:", tool.name),
        &format!("the tool is {prefix}{}", tool.name),
    );
    let title = operation
        .summary
        .as_deref()
        .map(|s| clip(one_line(s).trim_end_matches('.'), 60))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| capitalized(&words_of(&operation.id)));
    out.line(&format!("#     title: {}", scalar(&title, false)));
    out.note(
        "#     description: >-",
        "what it does and when to use it, written for the model",
    );
    let mut description = operation
        .summary
        .as_deref()
        .or(operation.description.as_deref())
        .map(|s| first_sentence(s, 200))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| format!("Calls {}", one_line(&operation.id)));
    if !description.ends_with(['.', '!', '?', '…']) {
        description.push('.');
    }
    if tool.listing.is_some() {
        description.push_str(
            " Returns at most `limit` results, in the concise format unless you need every field; \
             if more match, the result says so: narrow the search instead of raising the limit.",
        );
    }
    out.prose("#       ", &description);
    out.note(
        &format!("#     call: {}", scalar(&operation.id, false)),
        "one operation; `steps:` runs several in order (see the README)",
    );

    let params = tool_params(operation, tool, enum_example, resolvers, paging);
    if !params.is_empty() {
        out.note(
            "#     params:",
            "in the order the model sees them; parameters not listed are hidden",
        );
        for (index, param) in params.iter().enumerate() {
            out.line(&format!("#       {}:", param.name));
            let from = format!("#         from: {}", scalar(&param.from, false));
            if index == 0 {
                out.note(&from, "the API parameter it fills");
            } else {
                out.line(&from);
            }
            if let Some(resolver) = &param.resolve {
                out.note(
                    &format!("#         resolve: {resolver}"),
                    param.comment.as_deref().unwrap_or(""),
                );
            }
            if let Some(name) = &param.enumerated {
                out.note(
                    &format!("#         enum: {name}"),
                    param.comment.as_deref().unwrap_or(""),
                );
            }
            if let Some(description) = &param.description {
                let code = format!("#         description: {}", scalar(description, false));
                if index == 0 {
                    out.note(&code, "default: the API's; `null` for none");
                } else {
                    out.line(&code);
                }
            }
            if let Some(header) = &param.header {
                out.note(
                    &format!("#         header: {header}"),
                    &format!("clients over Streamable HTTP also send it as Mcp-Param-{header}"),
                );
            }
        }
    }

    let (fields, listed) = match &tool.listing {
        Some(listing) => (listing.fields.clone(), true),
        None => (object_fields(operation), false),
    };
    if listed || !fields.is_empty() {
        out.note("#     results:", "how the result is shaped for the model");
        if let Some(listing) = &tool.listing {
            out.note(
                &format!("#       items: {}", scalar(&listing.items, false)),
                "where the list is in the response",
            );
            out.note(
                "#       limit: { default: 20, max: 50 }",
                "adds a `limit` parameter; pages are walked up to it",
            );
        }
        let (concise, detailed) = result_fields(&fields, enum_example, resolvers);
        if !concise.is_empty() {
            out.note(
                "#       fields:",
                "the concise format: only these, renamed, in this order",
            );
            for (key, spec) in &concise {
                out.line(&format!("#         {key}: {spec}"));
            }
            if !detailed.is_empty() {
                out.note(
                    "#       detailed_fields:",
                    "added with `response_format: detailed`",
                );
                for (key, spec) in &detailed {
                    out.line(&format!("#         {key}: {spec}"));
                }
            }
        }
        if listed {
            out.note(
                "#       truncated_message: >-",
                "sent with a result cut at the limit",
            );
            out.line("#         More results match than were returned. Narrow the search instead of raising the limit.");
        }
    }
    let annotations = match operation.method {
        Method::Get | Method::Head | Method::Options => {
            "{ readOnlyHint: true, openWorldHint: false }".to_string()
        }
        method => format!(
            "{{ readOnlyHint: false, destructiveHint: {}, idempotentHint: {}, openWorldHint: false }}",
            method == Method::Delete,
            matches!(method, Method::Put | Method::Delete)
        ),
    };
    out.note(
        &format!("#     annotations: {annotations}"),
        "as written; without them, the HTTP method decides",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn operation(id: &str, path: &str) -> Operation {
        Operation {
            id: id.into(),
            method: crate::api::Method::Get,
            path: path.into(),
            summary: None,
            description: None,
            tags: Vec::new(),
            deprecated: false,
            declared_read_only: false,
            parameters: Vec::new(),
            body: None,
            success: None,
            security: None,
            server: None,
            credentials: Vec::new(),
        }
    }

    #[test]
    fn a_resolvers_noun_leaves_out_verbs_qualifiers_and_paging_words() {
        let noun = |id: &str, path: &str| noun_of(&operation(id, path));
        assert_eq!(
            noun("listProjects", "/projects").as_deref(),
            Some("project")
        );
        assert_eq!(
            noun("findPetsByStatus", "/pet/findByStatus").as_deref(),
            Some("pet")
        );
        assert_eq!(
            noun("searchForIssuesUsingJql", "/rest/api/3/search").as_deref(),
            Some("issue")
        );
        assert_eq!(
            noun("getDashboardsPaginated", "/rest/api/3/dashboard/search").as_deref(),
            Some("dashboard")
        );
        assert_eq!(
            noun("getIssueAllTypes", "/rest/api/3/issuetype").as_deref(),
            Some("issue_type")
        );
        assert_eq!(
            noun("getMyFilters", "/rest/api/3/filter/my").as_deref(),
            Some("filter")
        );
        assert_eq!(
            noun("getStatuses", "/rest/api/3/status").as_deref(),
            Some("status")
        );
        assert_eq!(
            noun("getRecent", "/rest/api/3/project/recent").as_deref(),
            Some("project")
        );
        assert_eq!(noun("listBoxes", "/boxes").as_deref(), Some("box"));
    }
}
