//! Runtime support shared by every tool of this server: the MCP server handler and its
//! transports, argument parsing, the upstream HTTP client, and the translation of failures into
//! tool results the model can act on.
//!
//! This file is the same in every crate mcpgen generates; the API-specific code lives in
//! `client.rs` and `tools.rs`.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    Implementation, JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The most characters of an upstream error body quoted back to the model.
const MAX_ERROR_TEXT: usize = 2_000;
/// The most problems with one call's arguments listed back to the model.
const MAX_ARGUMENT_PROBLEMS: usize = 5;
/// The first pause before a request is tried again; each further try waits twice as long.
const RETRY_FIRST_DELAY: Duration = Duration::from_millis(250);
/// What replaces a credential in any text the server passes on.
const REDACTED: &str = "<redacted>";

/// How the server talks to the API: timeouts, the largest answer it reads, and retries. Each
/// option can also be set with an environment variable (see [`UpstreamOptions::read_env`]).
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct UpstreamOptions {
    /// Seconds to wait for a connection to the API.
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = parse_seconds)]
    pub api_connect_timeout: Duration,
    /// Seconds one request to the API may take in all, its answer included.
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_seconds)]
    pub api_timeout: Duration,
    /// The largest answer from the API the server reads, in bytes; a larger one is refused.
    #[arg(long, value_name = "BYTES", default_value_t = 8 * 1024 * 1024)]
    pub api_max_response_bytes: usize,
    /// How often a GET, HEAD, PUT, DELETE or OPTIONS request is tried again after a failed
    /// connection, HTTP 429 or HTTP 5xx. Other requests are never repeated.
    #[arg(long, value_name = "COUNT", default_value_t = 2)]
    pub api_retries: u32,
    /// The longest the server waits in all between the tries of one request, in seconds; an API
    /// that asks (`Retry-After`) for a longer wait gets no further try.
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_seconds)]
    pub api_max_retry_wait: Duration,
    /// The most pages of a list one call walks; a tool's own bound (from the curation file)
    /// applies as well.
    #[arg(long, value_name = "COUNT", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub api_max_pages: u32,
    /// Where the operations that the API serves at a server of their own are called (set by
    /// `main` from the environment, not the command line).
    #[arg(skip)]
    pub servers: Vec<ServerRoute>,
    /// The base URL is not the API description's: the server then calls an operation's own
    /// server only where its variable says where that is (see [`ServerRoute`]).
    #[arg(skip)]
    pub base_url_changed: bool,
}

/// A server of its own at which the API description says some operations are served (Box's
/// uploads at `https://upload.box.com/api/2.0`), and where the environment says it is instead.
/// While the base URL is the description's, those operations are called at `spec` unless
/// `configured` says otherwise. Once the base URL is changed (a staging API, a local mock), they
/// are called only where `configured` says: the server never sends the credentials meant for
/// the API it was pointed at to a host the user did not name.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerRoute {
    /// The server as the API description gives it.
    pub spec: &'static str,
    /// The environment variable that names where it is instead.
    pub env: &'static str,
    /// What that variable says.
    pub configured: Option<String>,
}

impl Default for UpstreamOptions {
    fn default() -> Self {
        Self {
            api_connect_timeout: Duration::from_secs(5),
            api_timeout: Duration::from_secs(30),
            api_max_response_bytes: 8 * 1024 * 1024,
            api_retries: 2,
            api_max_retry_wait: Duration::from_secs(10),
            api_max_pages: 100,
            servers: Vec::new(),
            base_url_changed: false,
        }
    }
}

impl UpstreamOptions {
    /// The ids of the options, which are also their field names.
    const IDS: [&'static str; 6] = [
        "api_connect_timeout",
        "api_timeout",
        "api_max_response_bytes",
        "api_retries",
        "api_max_retry_wait",
        "api_max_pages",
    ];

    /// `command` with each of these options also read from the environment variable
    /// `{prefix}_{OPTION}`: `TRACKER_API_TIMEOUT` for `--api-timeout` with prefix `TRACKER`.
    pub fn read_env(command: clap::Command, prefix: &str) -> clap::Command {
        Self::IDS.into_iter().fold(command, |command, id| {
            let variable = format!("{prefix}_{}", id.to_ascii_uppercase());
            command.mut_arg(id, |arg| arg.env(variable))
        })
    }
}

/// A positive number of seconds, such as `5` or `0.5`.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|seconds| seconds.is_finite() && *seconds > 0.0 && *seconds <= 86_400.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("{text:?} is not a number of seconds from 0.001 to 86400"))
}

/// The future a tool's handler returns.
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send>>;

/// What a tool returns: its result, and notes for the model (such as how to get the rest of a
/// truncated result), sent as extra text after the result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub value: Value,
    pub notes: Vec<String>,
}

impl ToolOutput {
    /// The output with `note` told after it, as a text block of its own.
    pub fn with_note(mut self, note: String) -> Self {
        self.notes.push(note);
        self
    }
}

impl From<Value> for ToolOutput {
    fn from(value: Value) -> Self {
        Self {
            value,
            notes: Vec::new(),
        }
    }
}

/// One tool: its definition as sent in `tools/list`, and the function that runs it.
pub struct ToolEntry<C> {
    pub definition: &'static str,
    pub call: fn(Arc<C>, JsonObject) -> ToolFuture,
}

/// Who this server is, as told to clients.
pub struct ServerIdentity {
    pub name: &'static str,
    pub title: &'static str,
    pub version: &'static str,
    pub instructions: Option<&'static str>,
    /// How long clients may cache `tools/list` (`ttlMs`); the list is fixed at generation.
    pub tools_list_ttl_ms: u64,
    /// Whether any cache may share `tools/list` (`cacheScope: public`) or only the same
    /// authorization context (`private`).
    pub tools_list_public: bool,
}

/// A tool ready to serve: its parsed definition, its handler, and the checks of its input and
/// output against the schemas it publishes, each compiled on the tool's first call.
struct LoadedTool<C> {
    definition: Tool,
    structured: bool,
    call: fn(Arc<C>, JsonObject) -> ToolFuture,
    input: OnceLock<Option<jsonschema::Validator>>,
    output: OnceLock<Option<jsonschema::Validator>>,
}

impl<C> LoadedTool<C> {
    /// Every way `arguments` break the tool's `inputSchema`, worded for the model; `None` when
    /// they fit.
    fn check_arguments(&self, arguments: &JsonObject) -> Option<String> {
        let schema = || Value::Object(self.definition.input_schema.as_ref().clone());
        let validator = self
            .input
            .get_or_init(|| compile_schema(&self.definition.name, "input", &schema()))
            .as_ref()?;
        let arguments = Value::Object(arguments.clone());
        let mut errors = validator
            .iter_errors(&arguments)
            .take(MAX_ARGUMENT_PROBLEMS)
            .peekable();
        errors.peek()?;
        let schema = schema();
        let problems: Vec<String> = errors
            .map(|error| describe_argument_error(&error, &schema))
            .collect();
        Some(problems.join("\n"))
    }

    /// Whether the tool only reads (`readOnlyHint`): a call that failed after the API answered
    /// changed nothing.
    fn reads_only(&self) -> bool {
        self.definition
            .annotations
            .as_ref()
            .and_then(|annotations| annotations.read_only_hint)
            .unwrap_or(false)
    }

    /// Why a successful result does not fit the tool's `outputSchema`, if it does not.
    fn check_output(&self, value: &Value) -> Option<String> {
        let schema = self.definition.output_schema.as_deref()?;
        let validator = self
            .output
            .get_or_init(|| {
                compile_schema(
                    &self.definition.name,
                    "output",
                    &Value::Object(schema.clone()),
                )
            })
            .as_ref()?;
        misfit(validator, value)
    }
}

/// Where and how `value` breaks the schema `validator` checks, if it does: `at /gid: 100 is not
/// of type "string"`; `the answer: text, not JSON: "<html>…"`.
pub(crate) fn misfit(validator: &jsonschema::Validator, value: &Value) -> Option<String> {
    let error = validator.iter_errors(value).next()?;
    let place = match error.instance_path().as_str() {
        "" => "the answer".to_string(),
        pointer => format!("at {pointer}"),
    };
    let found = match error.instance().as_ref() {
        Value::String(text) if error.instance_path().as_str().is_empty() => {
            format!("text, not JSON: {:?}", shorten(text, 200))
        }
        _ => shorten(&error.to_string(), 300),
    };
    Some(format!("{place}: {found}"))
}

/// A validator for one of a tool's schemas. A schema the validator cannot compile (a pattern in
/// a syntax it does not know, say) is logged and skipped: the typed parsing of the arguments
/// still checks them.
pub(crate) fn compile_schema(
    tool: &str,
    which: &str,
    schema: &Value,
) -> Option<jsonschema::Validator> {
    match jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
    {
        Ok(validator) => Some(validator),
        Err(error) => {
            tracing::warn!(tool, "the {which} schema cannot be checked: {error}");
            None
        }
    }
}

/// The MCP server: a fixed list of tools over one upstream client `C`.
pub struct McpServer<C> {
    client: Arc<C>,
    identity: Arc<ServerIdentity>,
    tools: Arc<Vec<LoadedTool<C>>>,
    by_name: Arc<HashMap<String, usize>>,
    /// The scopes each tool needs from an access token (see [`McpServer::with_scopes`]).
    scopes: Arc<crate::resource::ToolScopes>,
    /// The tool calls in flight, which a graceful shutdown waits for.
    calls: tokio_util::task::TaskTracker,
}

impl<C> Clone for McpServer<C> {
    fn clone(&self) -> Self {
        Self {
            client: Arc::clone(&self.client),
            identity: Arc::clone(&self.identity),
            tools: Arc::clone(&self.tools),
            by_name: Arc::clone(&self.by_name),
            scopes: Arc::clone(&self.scopes),
            calls: self.calls.clone(),
        }
    }
}

impl<C: Send + Sync + 'static> McpServer<C> {
    /// Parses every tool definition once; a definition that does not parse is a bug in the
    /// generator, reported at start-up rather than on first use.
    pub fn new(
        client: C,
        identity: ServerIdentity,
        entries: &'static [ToolEntry<C>],
    ) -> anyhow::Result<Self> {
        let mut tools = Vec::with_capacity(entries.len());
        let mut by_name = HashMap::with_capacity(entries.len());
        for entry in entries {
            let definition: Tool = serde_json::from_str(entry.definition).map_err(|error| {
                anyhow::anyhow!("a generated tool definition does not parse: {error}")
            })?;
            by_name.insert(definition.name.to_string(), tools.len());
            tools.push(LoadedTool {
                structured: definition.output_schema.is_some(),
                definition,
                call: entry.call,
                input: OnceLock::new(),
                output: OnceLock::new(),
            });
        }
        Ok(Self {
            client: Arc::new(client),
            identity: Arc::new(identity),
            tools: Arc::new(tools),
            by_name: Arc::new(by_name),
            scopes: Arc::new(HashMap::new()),
            calls: tokio_util::task::TaskTracker::new(),
        })
    }

    /// The server with the scopes each tool needs, by tool name. They apply over HTTP with
    /// `--oauth-issuer` only: each caller then sees and calls only the tools its token's scopes
    /// allow.
    pub fn with_scopes(
        mut self,
        scopes: &'static [(&'static str, &'static [&'static str])],
    ) -> Self {
        self.scopes = Arc::new(
            scopes
                .iter()
                .map(|(tool, needed)| (tool.to_string(), *needed))
                .collect(),
        );
        self
    }

    /// Every scope some tool needs, sorted, as the resource metadata lists them.
    fn scopes_supported(&self) -> Vec<String> {
        let scopes: std::collections::BTreeSet<&str> = self
            .scopes
            .values()
            .flat_map(|needed| needed.iter().copied())
            .collect();
        scopes.into_iter().map(str::to_string).collect()
    }

    /// The scopes of `tool` that the request's access token lacks; none when the request was
    /// not authorized by an access token (stdio, or HTTP without `--oauth-issuer`).
    fn missing_scopes(
        &self,
        tool: &str,
        context: &RequestContext<RoleServer>,
    ) -> Vec<&'static str> {
        match (grant(context), self.scopes.get(tool)) {
            (Some(grant), Some(needed)) => grant.missing(needed),
            _ => Vec::new(),
        }
    }

    fn find(&self, name: &str) -> Option<&LoadedTool<C>> {
        self.by_name.get(name).map(|&index| &self.tools[index])
    }
}

impl<C: Send + Sync + 'static> ServerHandler for McpServer<C> {
    fn get_info(&self) -> ServerConfig {
        let identity = &self.identity;
        let config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new(identity.name, identity.version).with_title(identity.title),
            );
        match identity.instructions {
            Some(instructions) => config.with_instructions(instructions),
            None => config,
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self
            .tools
            .iter()
            .filter(|tool| {
                self.missing_scopes(&tool.definition.name, &context)
                    .is_empty()
            })
            .map(|tool| tool.definition.clone())
            .collect();
        // A list that depends on the caller's token is for that caller only.
        let per_caller = !self.scopes.is_empty() && grant(&context).is_some();
        let scope = if self.identity.tools_list_public && !per_caller {
            CacheScope::Public
        } else {
            CacheScope::Private
        };
        Ok(ListToolsResult::with_all_items(tools)
            .with_ttl_ms(self.identity.tools_list_ttl_ms)
            .with_cache_scope(scope))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.find(name).map(|tool| tool.definition.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self.find(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            ));
        };
        // The HTTP layer answers such a call 403 before it gets here; this holds whatever the
        // transport in front.
        let missing = self.missing_scopes(&request.name, &context);
        if !missing.is_empty() {
            return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "This tool needs the scope {}, which your access token does not grant.",
                missing.join(" ")
            ))])
            .into());
        }
        let arguments = request.arguments.unwrap_or_default();
        // Nothing is sent to the API for arguments that break the tool's published schema.
        if let Some(problems) = tool.check_arguments(&arguments) {
            return Ok(CallToolResult::error(vec![ContentBlock::text(problems)]).into());
        }
        // Tracked, so that a shutdown waits for the call to finish; run as the caller, whose
        // token a token exchange may need.
        let call = crate::resource::as_caller(
            grant(&context).cloned(),
            (tool.call)(Arc::clone(&self.client), arguments),
        );
        let outcome = self
            .calls
            .track_future(call)
            .await
            .and_then(|output| match tool.check_output(&output.value) {
                // The API answered with success: a tool that writes has most likely written.
                Some(problem) if !tool.reads_only() => Err(ToolError::Answer(format!(
                    "The API accepted the call, but its answer does not have the shape the API documents ({problem}), so the server cannot return it. The change was most likely made: do not call again; tell the user to check it, and that the API may have changed."
                ))),
                Some(problem) => Err(ToolError::Answer(format!(
                    "The API's answer does not have the shape the API documents ({problem}), so the server cannot return it. Calling again will likely fail the same way; tell the user the API may have changed."
                ))),
                None => Ok(output),
            });
        let result = match outcome {
            Ok(output) => {
                let mut result = if tool.structured {
                    CallToolResult::structured(output.value)
                } else {
                    CallToolResult::success(vec![ContentBlock::text(plain_text(output.value))])
                };
                result
                    .content
                    .extend(output.notes.into_iter().map(ContentBlock::text));
                result
            }
            Err(error) => {
                // A failing API or refused credentials are the operator's business; a model's
                // wrong argument or identifier is not.
                let models_mistake = match &error {
                    ToolError::InvalidArguments(_) | ToolError::NotFound(_) => true,
                    ToolError::Status { status, .. } => matches!(status, 400 | 404 | 409 | 422),
                    ToolError::Transport { .. } | ToolError::Answer(_) => false,
                };
                if models_mistake {
                    tracing::debug!(tool = %request.name, %error, "tool call failed");
                } else {
                    tracing::warn!(tool = %request.name, %error, "tool call failed");
                }
                CallToolResult::error(vec![ContentBlock::text(error.to_string())])
            }
        };
        Ok(result.into())
    }
}

/// The verified access token of a request over HTTP with `--oauth-issuer`, as the HTTP layer
/// handed it on.
fn grant(context: &RequestContext<RoleServer>) -> Option<&crate::resource::Grant> {
    context
        .extensions
        .get::<axum::http::request::Parts>()?
        .extensions
        .get::<crate::resource::Grant>()
}

/// The text of a result that has no output schema.
fn plain_text(value: Value) -> String {
    match value {
        Value::Null => "Done.".to_string(),
        Value::String(text) => text,
        other => other.to_string(),
    }
}

/// One way a call's arguments break the tool's input schema, as a sentence that names the
/// argument, the value given, what is valid and an example where the schema gives or implies
/// one: "Invalid argument `priority`: 7 is above the maximum 5; give an integer from 1 to 5,
/// e.g. 3."
fn describe_argument_error(error: &jsonschema::ValidationError<'_>, schema: &Value) -> String {
    use jsonschema::error::ValidationErrorKind as Kind;
    let path = error.instance_path().as_str();
    // The schema object that holds the keyword that failed.
    let keyword = error.schema_path().as_str();
    let holder = keyword.rsplit_once('/').map_or("", |(holder, _)| holder);
    let rule = schema.pointer(holder).unwrap_or(&Value::Null);
    let value = error.instance().as_ref();
    let given = show(value);
    let valid = || valid_with_example(rule);
    let (argument, problem) = match error.kind() {
        Kind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            let member = format!("/properties/{}", escape_pointer(name));
            let wanted = rule.pointer(&member).unwrap_or(&Value::Null);
            let argument = format!("{path}/{}", escape_pointer(name));
            return format!(
                "Missing argument `{}`: it is required; give {}.",
                argument_name(&argument),
                valid_with_example(wanted)
            );
        }
        Kind::AdditionalProperties { unexpected } => {
            let names: Vec<String> = unexpected
                .iter()
                .map(|name| {
                    format!(
                        "`{}`",
                        argument_name(&format!("{path}/{}", escape_pointer(name)))
                    )
                })
                .collect();
            let known: Vec<String> = rule
                .get("properties")
                .and_then(Value::as_object)
                .map(|properties| properties.keys().map(|key| format!("`{key}`")).collect())
                .unwrap_or_default();
            let takes = if known.is_empty() {
                "no arguments here".to_string()
            } else {
                format!("only {}", known.join(", "))
            };
            let noun = if names.len() == 1 {
                "argument"
            } else {
                "arguments"
            };
            return format!(
                "Unknown {noun} {}: the tool takes {takes}.",
                names.join(", ")
            );
        }
        Kind::Enum { options } => (
            path,
            format!("{given} is not allowed; use one of {}", list(options)),
        ),
        Kind::Constant { expected_value } => (
            path,
            format!("{given} is not allowed; use {}", show(expected_value)),
        ),
        Kind::Type { .. } => (
            path,
            format!("{given} is {}; give {}", kind_of(value), valid()),
        ),
        Kind::Minimum { limit } => (
            path,
            format!("{given} is below the minimum {limit}; give {}", valid()),
        ),
        Kind::Maximum { limit } => (
            path,
            format!("{given} is above the maximum {limit}; give {}", valid()),
        ),
        Kind::ExclusiveMinimum { limit } => (
            path,
            format!("{given} is not above {limit}; give {}", valid()),
        ),
        Kind::ExclusiveMaximum { limit } => (
            path,
            format!("{given} is not below {limit}; give {}", valid()),
        ),
        Kind::MinLength { limit } => (
            path,
            format!(
                "{given} is shorter than {limit} characters; give {}",
                valid()
            ),
        ),
        Kind::MaxLength { limit } => {
            let length = value.as_str().map_or(0, |text| text.chars().count());
            (
                path,
                format!(
                    "the text given has {length} characters, more than the maximum {limit}; give {}",
                    valid()
                ),
            )
        }
        Kind::Pattern { pattern } => (
            path,
            format!(
                "{given} does not match the pattern `{pattern}`; give {}",
                valid()
            ),
        ),
        Kind::Format { format } => (
            path,
            format!("{given} is not a valid {format}; give {}", valid()),
        ),
        Kind::MinItems { limit } => (
            path,
            format!("{given} has fewer than {limit} items; give {}", valid()),
        ),
        Kind::MaxItems { limit } => (
            path,
            format!(
                "the list given has more than {limit} items; give {}",
                valid()
            ),
        ),
        Kind::UniqueItems => (
            path,
            format!("{given} has repeated items; give each item once"),
        ),
        _ => (path, shorten(&error.to_string(), 300)),
    };
    if argument.is_empty() {
        format!("Invalid arguments: {problem}.")
    } else {
        format!("Invalid argument `{}`: {problem}.", argument_name(argument))
    }
}

/// An argument's name from its JSON pointer in the arguments: `/priority` → `priority`,
/// `/labels/0` → `labels[0]`, `/body/name` → `body.name`.
fn argument_name(pointer: &str) -> String {
    let mut name = String::new();
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !name.is_empty() && !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            name.push_str(&format!("[{segment}]"));
        } else {
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(&segment);
        }
    }
    name
}

fn escape_pointer(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// A value as the model wrote it, shortened.
fn show(value: &Value) -> String {
    shorten(&value.to_string(), 100)
}

/// Values listed for the model: `1, 2, 3` or `"open", "closed"`.
fn list(values: &Value) -> String {
    match values {
        Value::Array(values) => values.iter().map(show).collect::<Vec<_>>().join(", "),
        other => show(other),
    }
}

/// What kind of JSON value `value` is: `a string`, `an integer`, ….
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(number) if number.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// What a schema accepts, with an example when it gives or implies one.
fn valid_with_example(rule: &Value) -> String {
    let valid = valid_values(rule);
    match example(rule) {
        Some(example) if !valid.starts_with("one of") => {
            format!("{valid}, e.g. {}", show(&example))
        }
        _ => valid,
    }
}

/// What a schema accepts, in words: `an integer from 1 to 5`, `a string of at most 200
/// characters`, `one of "open", "closed"`.
fn valid_values(rule: &Value) -> String {
    if let Some(options) = rule.get("enum") {
        return format!("one of {}", list(options));
    }
    if let Some(expected) = rule.get("const") {
        return format!("exactly {}", show(expected));
    }
    let types: Vec<&str> = match rule.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let number = |key: &str| rule.get(key).filter(|value| value.is_number());
    let mut text = match types.iter().copied().find(|name| *name != "null") {
        Some(kind @ ("integer" | "number")) => {
            let mut text = if kind == "integer" {
                "an integer".to_string()
            } else {
                "a number".to_string()
            };
            match (number("minimum"), number("maximum")) {
                (Some(min), Some(max)) => text.push_str(&format!(" from {min} to {max}")),
                (Some(min), None) => text.push_str(&format!(" of at least {min}")),
                (None, Some(max)) => text.push_str(&format!(" of at most {max}")),
                (None, None) => {}
            }
            if let Some(limit) = number("exclusiveMinimum") {
                text.push_str(&format!(" above {limit}"));
            }
            if let Some(limit) = number("exclusiveMaximum") {
                text.push_str(&format!(" below {limit}"));
            }
            text
        }
        Some("string") => {
            let mut text = match rule.get("format").and_then(Value::as_str) {
                Some(format) => format!("a string in {format} format"),
                None => "a string".to_string(),
            };
            match (number("minLength"), number("maxLength")) {
                (Some(min), Some(max)) => text.push_str(&format!(" of {min} to {max} characters")),
                (Some(min), None) => text.push_str(&format!(" of at least {min} characters")),
                (None, Some(max)) => text.push_str(&format!(" of at most {max} characters")),
                (None, None) => {}
            }
            if let Some(pattern) = rule.get("pattern").and_then(Value::as_str) {
                text.push_str(&format!(" matching `{pattern}`"));
            }
            text
        }
        Some("boolean") => "true or false".to_string(),
        Some("array") => {
            let mut text = "a list".to_string();
            match (number("minItems"), number("maxItems")) {
                (Some(min), Some(max)) => text.push_str(&format!(" of {min} to {max} items")),
                (Some(min), None) => text.push_str(&format!(" of at least {min} items")),
                (None, Some(max)) => text.push_str(&format!(" of at most {max} items")),
                (None, None) => {}
            }
            text
        }
        Some("object") => "an object".to_string(),
        _ => "a value the tool's schema allows".to_string(),
    };
    if types.contains(&"null") {
        text.push_str(" or null");
    }
    text
}

/// An example of a valid value: the schema's own (`examples`, `default`, the first `enum`
/// value) when it fits the schema's `format`, else one of the format's (a date for `date`, not a
/// date-time), or for a bounded number one inside the bounds.
fn example(rule: &Value) -> Option<Value> {
    let given = rule
        .pointer("/examples/0")
        .or_else(|| rule.get("default"))
        .or_else(|| rule.pointer("/enum/0"));
    let format = rule.get("format").and_then(Value::as_str);
    if let Some(given) = given
        && format.is_none_or(|format| fits_format(format, given))
    {
        return Some(given.clone());
    }
    if let Some(example) = format.and_then(format_example) {
        return Some(Value::from(example));
    }
    let integer = rule.get("type").and_then(Value::as_str) == Some("integer");
    let min = rule.get("minimum").and_then(Value::as_f64);
    let max = rule.get("maximum").and_then(Value::as_f64);
    let middle = match (min, max) {
        (Some(min), Some(max)) => min + (max - min) / 2.0,
        (Some(bound), None) | (None, Some(bound)) => bound,
        (None, None) => return None,
    };
    if integer {
        // Bounds of an integer are whole, and the middle is rounded down between them.
        Some(Value::from(middle.floor() as i64))
    } else {
        serde_json::Number::from_f64(middle).map(Value::Number)
    }
}

/// A value of each string format JSON Schema defines that a model may be asked for.
fn format_example(format: &str) -> Option<&'static str> {
    Some(match format {
        "date" => "2026-01-31",
        "date-time" => "2026-01-31T09:30:00Z",
        "time" => "09:30:00Z",
        "duration" => "P3DT4H",
        "email" | "idn-email" => "someone@example.com",
        "hostname" | "idn-hostname" => "api.example.com",
        "ipv4" => "192.0.2.10",
        "ipv6" => "2001:db8::10",
        "uri" | "iri" => "https://example.com/path",
        "uri-reference" | "iri-reference" => "/path?query=1",
        "uuid" => "123e4567-e89b-12d3-a456-426614174000",
        _ => return None,
    })
}

/// Whether `value` fits the string format `format`, by the same checker the arguments go
/// through; a format the checker does not know fits anything.
fn fits_format(format: &str, value: &Value) -> bool {
    jsonschema::options()
        .should_validate_formats(true)
        .build(&serde_json::json!({ "format": format }))
        .map_or(true, |validator| validator.is_valid(value))
}

/// The async runtime for a transport. Over stdio the server answers one client, and one thread
/// does that with less memory and a faster start than a pool; over HTTP it serves many clients
/// at once, on every core.
pub fn async_runtime(many_clients: bool) -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = if many_clients {
        tokio::runtime::Builder::new_multi_thread()
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    builder.enable_all().build()
}

/// Serves MCP over this process's stdin and stdout until the client closes them.
pub async fn serve_stdio<C: Send + Sync + 'static>(server: McpServer<C>) -> anyhow::Result<()> {
    let running = match stdio_on_event_loop()? {
        Some((input, output)) => server.serve(LineTransport::new(input, output)).await?,
        None => {
            let (input, output) = rmcp::transport::stdio();
            server.serve(LineTransport::new(input, output)).await?
        }
    };
    running.waiting().await?;
    Ok(())
}

/// The longest line read as one message over stdio, as rmcp's own stdio transport allows: a
/// longer one is answered with an error and skipped without being held in memory.
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Newline-delimited JSON-RPC over a reader and a writer (the stdio transport), answering every
/// line that is not one message with the protocol's error (id null) and reading on. rmcp's own
/// stdio transport drops a line that is not JSON (invalid UTF-8 and nesting deeper than
/// serde_json's 128 levels included) without a word, which leaves a client waiting for an answer
/// that never comes; this one answers -32700 (parse error) for such a line, -32600 (invalid
/// request) for a batch array, any other non-object, or an over-long line, and like rmcp ignores
/// a notification it does not know (JSON-RPC never answers notifications).
struct LineTransport<R, W> {
    input: tokio::io::BufReader<R>,
    /// The line read so far; kept across calls, since `receive` is polled inside a `select!` and
    /// may be cancelled mid-line.
    line: Vec<u8>,
    /// Set while the rest of an over-long line is skipped.
    discarding: bool,
    output: Arc<tokio::sync::Mutex<W>>,
    /// The error answers being written, waited for before the transport ends.
    answers: tokio::task::JoinSet<()>,
}

impl<R, W> LineTransport<R, W>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    fn new(input: R, output: W) -> Self {
        LineTransport {
            input: tokio::io::BufReader::new(input),
            line: Vec::new(),
            discarding: false,
            output: Arc::new(tokio::sync::Mutex::new(output)),
            answers: tokio::task::JoinSet::new(),
        }
    }

    /// Writes `line` and a line break whole, after any line being written.
    fn write_line(
        &self,
        mut line: Vec<u8>,
    ) -> impl Future<Output = std::io::Result<()>> + Send + 'static {
        use tokio::io::AsyncWriteExt;
        line.push(b'\n');
        let output = self.output.clone();
        async move {
            let mut output = output.lock().await;
            output.write_all(&line).await?;
            output.flush().await
        }
    }

    /// Answers a line that is not a message. Written by a task of its own, so that `receive`
    /// being cancelled cannot cut the answer short.
    fn answer(&mut self, code: i64, message: String) {
        let error = serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": { "code": code, "message": message },
        });
        let write = self.write_line(error.to_string().into_bytes());
        self.answers.spawn(async move {
            if let Err(error) = write.await {
                tracing::warn!("cannot write an error answer to stdout: {error}");
            }
        });
    }

    /// Reads up to the next line break into `self.line`, never letting it grow past
    /// [`MAX_LINE_BYTES`]: `Some(true)` for a whole line, `Some(false)` for an over-long one
    /// (dropped), `None` at the end of the input. Cancellation-safe: what is read stays in
    /// `self.line` for the next call.
    async fn read_line(&mut self) -> Option<bool> {
        use tokio::io::AsyncBufReadExt;
        loop {
            let available = match self.input.fill_buf().await {
                Ok([]) => return None,
                Ok(available) => available,
                Err(error) => {
                    tracing::warn!("cannot read stdin: {error}");
                    return None;
                }
            };
            let newline = available.iter().position(|byte| *byte == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let mut outcome = None;
            if self.discarding {
                self.discarding = newline.is_none();
            } else if self.line.len() + take > MAX_LINE_BYTES {
                self.line.clear();
                self.discarding = newline.is_none();
                outcome = Some(false);
            } else {
                self.line.extend_from_slice(&available[..take]);
                if newline.is_some() {
                    outcome = Some(true);
                }
            }
            self.input.consume(take);
            if outcome.is_some() {
                return outcome;
            }
        }
    }
}

/// Whether `message` is a notification that is not MCP's. rmcp hands one on as a custom
/// notification, and a server that gets one before its first request stops ("expect initialized
/// request"); this server acts on none, so the transport drops them, as rmcp's own stdio
/// transport means to (it drops only those it cannot parse).
fn is_unknown_notification(message: &rmcp::service::RxJsonRpcMessage<RoleServer>) -> bool {
    use rmcp::model::{ClientNotification, JsonRpcMessage, JsonRpcNotification};
    matches!(
        message,
        JsonRpcMessage::Notification(JsonRpcNotification {
            notification: ClientNotification::CustomNotification(_),
            ..
        })
    )
}

impl<R, W> rmcp::transport::Transport<RoleServer> for LineTransport<R, W>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: rmcp::service::TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let line = serde_json::to_vec(&item);
        let write = line.map(|line| self.write_line(line));
        async move { write?.await }
    }

    async fn receive(&mut self) -> Option<rmcp::service::RxJsonRpcMessage<RoleServer>> {
        loop {
            let Some(whole) = self.read_line().await else {
                // The answers to the last lines are written before the server ends.
                while self.answers.join_next().await.is_some() {}
                return None;
            };
            // Answers already written are forgotten.
            while self.answers.try_join_next().is_some() {}
            if !whole {
                self.answer(
                    -32600,
                    format!("Invalid Request: the message is over {MAX_LINE_BYTES} bytes"),
                );
                continue;
            }
            let line = std::mem::take(&mut self.line);
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            // A byte order mark may start JSON text (RFC 8259 §8.1).
            let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            let parsed = if text.iter().all(u8::is_ascii_whitespace) {
                None
            } else {
                Some(serde_json::from_slice(text))
            };
            let refusal = match parsed {
                None => None,
                Some(Ok(message)) => {
                    self.line = line;
                    self.line.clear();
                    if is_unknown_notification(&message) {
                        continue;
                    }
                    return Some(message);
                }
                Some(Err(_)) => match malformed_message(text, "the line") {
                    Some(refusal) => Some(refusal),
                    // An object, but not a message rmcp knows: a notification gets no answer;
                    // anything else is an invalid request.
                    None => serde_json::from_slice::<Value>(text)
                        .ok()
                        .filter(|message| message.get("id").is_some())
                        .map(|_| {
                            (
                                -32600,
                                "Invalid Request: not a JSON-RPC request or response".to_string(),
                            )
                        }),
                },
            };
            // The buffer's room is kept for the next line.
            self.line = line;
            self.line.clear();
            if let Some((code, message)) = refusal {
                self.answer(code, message);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        use tokio::io::AsyncWriteExt;
        while self.answers.join_next().await.is_some() {}
        self.output.lock().await.shutdown().await
    }
}

/// One direction of the stdio transport.
type StdioInput = Box<dyn tokio::io::AsyncRead + Send + Unpin>;
type StdioOutput = Box<dyn tokio::io::AsyncWrite + Send + Unpin>;

/// stdin and stdout read and written on the runtime's own event loop, when both are pipes or
/// sockets (as when a client spawns the server): tokio's `stdin()` and `stdout()` hand every read
/// and write to a blocking thread, two thread switches more for every message. `None`, and
/// nothing changed, for a terminal or a file, which keep tokio's.
#[cfg(unix)]
fn stdio_on_event_loop() -> std::io::Result<Option<(StdioInput, StdioOutput)>> {
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::fs::FileTypeExt;
    use std::os::unix::net::UnixStream;
    use tokio::net::unix::pipe;

    let input = std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned()?);
    let output = std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned()?);
    let (input_type, output_type) = (
        input.metadata()?.file_type(),
        output.metadata()?.file_type(),
    );
    // Both or neither: making one of them non-blocking would break tokio's blocking reads or
    // writes of it.
    if !(input_type.is_fifo() || input_type.is_socket())
        || !(output_type.is_fifo() || output_type.is_socket())
    {
        return Ok(None);
    }
    let socket = |file: std::fs::File| -> std::io::Result<tokio::net::UnixStream> {
        let stream = UnixStream::from(OwnedFd::from(file));
        stream.set_nonblocking(true)?;
        tokio::net::UnixStream::from_std(stream)
    };
    let input: StdioInput = match input_type.is_fifo() {
        true => Box::new(pipe::Receiver::from_file(input)?),
        false => Box::new(socket(input)?),
    };
    let output: StdioOutput = match output_type.is_fifo() {
        true => Box::new(pipe::Sender::from_file(output)?),
        false => Box::new(socket(output)?),
    };
    Ok(Some((input, output)))
}

#[cfg(not(unix))]
fn stdio_on_event_loop() -> std::io::Result<Option<(StdioInput, StdioOutput)>> {
    Ok(None)
}

/// The options of `--transport http`: where to listen, who may connect, and how much a request
/// may carry.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "HTTP transport (--transport http)")]
pub struct HttpOptions {
    /// The address to listen on. The default accepts connections from this machine only; to
    /// serve other machines, listen on another address and name the host clients use in
    /// `--allowed-hosts`.
    #[arg(long, default_value = "127.0.0.1:8000", value_name = "ADDRESS:PORT")]
    pub listen: SocketAddr,
    /// Require every MCP client to send `Authorization: Bearer <token>`, with the token read at
    /// start from the environment variable VAR (the server refuses to start when VAR is unset or
    /// empty). Requests without the token are answered 401. The token is only checked, never
    /// logged and never sent to the API. For tokens from an authorization server, see
    /// `--oauth-issuer` instead.
    #[arg(long, value_name = "VAR", conflicts_with = "oauth_issuer")]
    pub auth_token_env: Option<String>,
    /// The largest request body accepted, in bytes; a larger one is answered 413.
    #[arg(long, default_value_t = DEFAULT_MAX_REQUEST_BYTES, value_name = "BYTES")]
    pub max_request_bytes: usize,
    /// Host names (`host` or `host:port`, comma-separated) that clients may use to reach this
    /// server, besides localhost, 127.0.0.1 and ::1: for example the public name of a reverse
    /// proxy in front of it. Requests with any other `Host` header, or from a browser page whose
    /// `Origin` is not one of these hosts, are answered 403 (protection against DNS rebinding).
    #[arg(long, value_delimiter = ',', value_name = "HOSTS", value_parser = parse_allowed_host)]
    pub allowed_hosts: Vec<String>,
    /// How long, in seconds, calls in flight may take to finish after SIGTERM or Ctrl-C before
    /// the server stops anyway.
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    pub shutdown_grace: u64,
    /// Listen on an address other than loopback without `--auth-token-env`: without this the
    /// server refuses to, since anyone who can reach the port would then call the API with this
    /// server's own credentials. For a server behind a proxy or network that authenticates
    /// clients itself.
    #[arg(long)]
    pub allow_unauthenticated: bool,
    /// The most client connections open at once [default: 1024, lowered to stay under the
    /// process's open-file limit, `ulimit -n`, with room for the API's connections]. Past the cap
    /// the server closes the oldest connection that has not yet sent a request, to make room; when
    /// every connection has, a new one waits in the system's listen queue until one closes. Both
    /// are logged once per burst, not once per connection.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: Option<u32>,
    /// How long, in seconds, a connection may take to send a complete request line and headers,
    /// counted from when it opens and again from the end of each answer on it: a slow or idle
    /// keep-alive connection is closed after this long.
    #[arg(long, default_value_t = 10, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub header_read_timeout: u64,
    /// How long, in seconds, a connection may go without a byte read or written (a request body
    /// or an answer that stalls) before it is closed. Event streams the server keeps open send a
    /// keep-alive comment every 15 seconds.
    #[arg(long, default_value_t = 60, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_timeout: u64,
    #[command(flatten)]
    pub oauth: crate::resource::ResourceOptions,
}

impl HttpOptions {
    /// The ids of the options also read from the environment, which are their field names.
    const ENV_IDS: [&'static str; 3] = ["listen", "allowed_hosts", "auth_token_env"];

    /// `command` with `--listen`, `--allowed-hosts`, `--auth-token-env` and the protected
    /// resource's options also read from the environment variable `{prefix}_{OPTION}`:
    /// `TRACKER_LISTEN` for `--listen` with prefix `TRACKER` (a container sets them so).
    pub fn read_env(command: clap::Command, prefix: &str) -> clap::Command {
        let command = Self::ENV_IDS.into_iter().fold(command, |command, id| {
            let variable = format!("{prefix}_{}", id.to_ascii_uppercase());
            command.mut_arg(id, |arg| arg.env(variable))
        });
        crate::resource::ResourceOptions::read_env(command, prefix)
    }
}

/// The plain health route: `GET /health` answers 200 `ok` without a token, for load balancers
/// and container health checks.
pub const HEALTH_PATH: &str = "/health";

/// The default of `--max-connections`, before it is lowered to fit the open-file limit.
pub const DEFAULT_MAX_CONNECTIONS: u32 = 1024;

/// The file descriptors kept free of client connections: the listener, the runtime's own, and
/// the connections to the API.
const RESERVED_DESCRIPTORS: u64 = 64;

/// The default of `--max-request-bytes`: 4 MiB, far more than any tool call's arguments.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024;

/// The hosts every server accepts: the loopback names.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Checks one value of `--allowed-hosts`: a host name or address, with an optional port, and
/// nothing else.
fn parse_allowed_host(value: &str) -> Result<String, String> {
    let value = value.trim();
    match value.parse::<axum::http::uri::Authority>() {
        Ok(authority) if !authority.as_str().contains('@') => {
            Ok(authority.as_str().to_ascii_lowercase())
        }
        _ => Err(format!(
            "`{value}` is not a host name or `host:port` (such as mcp.example.com:8443)"
        )),
    }
}

/// The browser origins accepted for the given hosts, over `http` and `https`: any port for a host
/// named without one.
fn allowed_origins(hosts: &[String]) -> Vec<String> {
    hosts
        .iter()
        .flat_map(|host| {
            let (name, port) = if let Ok(address) = host.parse::<std::net::Ipv6Addr>() {
                (format!("[{address}]"), None)
            } else if let Ok(authority) = host.parse::<axum::http::uri::Authority>() {
                (authority.host().to_string(), authority.port_u16())
            } else {
                (host.clone(), None)
            };
            let port = port.map_or_else(|| "*".to_string(), |port| port.to_string());
            ["http", "https"].map(|scheme| format!("{scheme}://{name}:{port}"))
        })
        .collect()
}

/// Serves MCP over Streamable HTTP at `/mcp` until interrupted (Ctrl-C or SIGTERM). On a signal
/// the server stops accepting connections, lets the tool calls in flight finish (for at most
/// `--shutdown-grace`), answers them, and returns.
pub async fn serve_http<C: Send + Sync + 'static>(
    server: McpServer<C>,
    options: HttpOptions,
) -> anyhow::Result<()> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

    let required_token = match &options.auth_token_env {
        Some(variable) => match env_var(variable) {
            Some(token) => Some(Arc::new(token)),
            None => anyhow::bail!(
                "--auth-token-env names the environment variable {variable}, which is unset or \
                 empty: set it to the token MCP clients must send"
            ),
        },
        None => None,
    };
    let protected = crate::resource::ProtectedResource::new(
        &options.oauth,
        server.scopes_supported(),
        server.identity.title,
    )?
    .map(Arc::new);
    if !options.listen.ip().is_loopback()
        && required_token.is_none()
        && protected.is_none()
        && !options.allow_unauthenticated
    {
        anyhow::bail!(
            "refusing to listen on {} without client authentication: anyone who can reach it \
             would call the API with this server's credentials. Require a token with \
             --auth-token-env VAR or --oauth-issuer URL, or pass --allow-unauthenticated when \
             something in front of the server authenticates clients",
            options.listen
        );
    }
    let hosts: Vec<String> = LOOPBACK_HOSTS
        .iter()
        .map(|host| host.to_string())
        .chain(options.allowed_hosts.iter().cloned())
        .collect();
    let sessions = tokio_util::sync::CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        // A reply that is one JSON-RPC message goes out as one `application/json` body rather
        // than a one-event SSE stream; a call that sends notifications first still streams.
        .with_json_response(true)
        .with_allowed_hosts(hosts.clone())
        .with_allowed_origins(allowed_origins(&hosts))
        .enforce_origin_validation()
        .with_max_request_body_bytes(options.max_request_bytes)
        .with_cancellation_token(sessions.clone());
    let calls = server.calls.clone();
    let scopes = Arc::clone(&server.scopes);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let max_request_bytes = options.max_request_bytes;
    let mut router =
        axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn(move |request, next| {
                refuse_malformed(max_request_bytes, request, next)
            }));
    if let Some(token) = required_token {
        router = router.layer(axum::middleware::from_fn(move |request, next| {
            require_bearer(Arc::clone(&token), request, next)
        }));
    }
    if let Some(resource) = &protected {
        let resource = Arc::clone(resource);
        router = router.layer(axum::middleware::from_fn(move |request, next| {
            crate::resource::require_access_token(
                Arc::clone(&resource),
                Arc::clone(&scopes),
                max_request_bytes,
                request,
                next,
            )
        }));
    }
    // Outside the layers above: a load balancer's health check and a client looking for how to
    // get a token need no token.
    router = router.route(HEALTH_PATH, axum::routing::get(|| async { "ok\n" }));
    if let Some(resource) = protected {
        let metadata = resource.metadata().to_string();
        let answer = move || {
            let metadata = metadata.clone();
            async move {
                (
                    [(axum::http::header::CONTENT_TYPE, "application/json")],
                    metadata,
                )
            }
        };
        let path = resource.metadata_path();
        if path != crate::resource::METADATA_PATH {
            router = router.route(
                crate::resource::METADATA_PATH,
                axum::routing::get(answer.clone()),
            );
        }
        router = router.route(&path, axum::routing::get(answer));
    }
    let listen = options.listen;
    let listener = bind_listener(listen)
        .map_err(|error| anyhow::anyhow!("cannot listen on {listen}: {error}"))?;
    tracing::info!("serving MCP on http://{}/mcp", listener.local_addr()?);

    let limits = ConnectionLimits {
        max_connections: max_connections(options.max_connections),
        header_read_timeout: Duration::from_secs(options.header_read_timeout),
        idle_timeout: Duration::from_secs(options.idle_timeout),
    };
    let stop_accepting = tokio_util::sync::CancellationToken::new();
    let mut serving = tokio::spawn(accept_connections(
        listener,
        router,
        limits,
        stop_accepting.clone(),
    ));
    tokio::select! {
        finished = &mut serving => return finished?,
        () = shutdown_signal() => {}
    }
    tracing::info!("shutting down: letting calls in flight finish");
    stop_accepting.cancel();
    calls.close();
    let grace = Duration::from_secs(options.shutdown_grace);
    if tokio::time::timeout(grace, calls.wait()).await.is_err() {
        tracing::warn!("calls still in flight after {grace:?}; stopping anyway");
    }
    // The answers of the finished calls are on their way; connections that stay open after that
    // are idle session streams, which ending the sessions closes.
    if let Ok(finished) = tokio::time::timeout(RESPONSE_FLUSH, &mut serving).await {
        return finished?;
    }
    sessions.cancel();
    match tokio::time::timeout(RESPONSE_FLUSH, &mut serving).await {
        Ok(finished) => finished?,
        Err(_) => {
            serving.abort();
            Ok(())
        }
    }
}

/// The limits `--transport http` puts on client connections.
#[derive(Debug, Clone, Copy)]
struct ConnectionLimits {
    max_connections: usize,
    header_read_timeout: Duration,
    idle_timeout: Duration,
}

/// `--max-connections`, or its default, lowered to leave [`RESERVED_DESCRIPTORS`] free under the
/// open-file limit; a lowered explicit value is logged.
fn max_connections(asked: Option<u32>) -> usize {
    let wanted = u64::from(asked.unwrap_or(DEFAULT_MAX_CONNECTIONS));
    let Some(limit) = open_file_limit() else {
        return wanted as usize;
    };
    let room = limit.saturating_sub(RESERVED_DESCRIPTORS).max(1);
    if wanted > room && asked.is_some() {
        tracing::warn!(
            "--max-connections {wanted} lowered to {room}: the open-file limit (ulimit -n) is \
             {limit}, and {RESERVED_DESCRIPTORS} descriptors are kept for the API's connections"
        );
    }
    wanted.min(room) as usize
}

/// The soft limit on open files of this process, on Linux. Read from `/proc` rather than with
/// `getrlimit`, which would take `unsafe` code or one more dependency for one number; elsewhere
/// `None`, and `--max-connections` is taken as given.
fn open_file_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// How long the cap must go unreached for a burst of connections to be over.
const BURST_GAP: Duration = Duration::from_secs(30);

/// A burst of connections past `--max-connections`: when it last reached the cap, and what
/// became of the connections that found it reached.
struct Burst {
    last: std::time::Instant,
    closed: usize,
    waited: usize,
}

/// One client connection, as the accept loop sees it.
struct OpenConnection {
    /// Whether a complete request has arrived on it: until then it may be closed to make room.
    requested: std::sync::atomic::AtomicBool,
    /// Closes the connection when cancelled.
    close: tokio_util::sync::CancellationToken,
}

/// Accepts and serves HTTP/1.1 connections until `stop` is cancelled, then lets the open ones
/// finish their answers. Written on hyper's connection builder rather than `axum::serve`, which
/// has neither a header-read timeout nor a connection cap.
async fn accept_connections(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: ConnectionLimits,
    stop: tokio_util::sync::CancellationToken,
) -> anyhow::Result<()> {
    use std::collections::VecDeque;
    use std::sync::Weak;
    use std::sync::atomic::Ordering;

    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let open: std::sync::Mutex<VecDeque<Weak<OpenConnection>>> = Default::default();
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let service = hyper_util::service::TowerToHyperService::new(router);
    // A burst lasts from the connection that found the cap reached until the cap has not been
    // reached for BURST_GAP; it is logged when it starts and, at the next connection, when it
    // has ended.
    let mut burst: Option<Burst> = None;
    let mut accept_failing = false;
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    accept_failing = false;
                    stream
                }
                Err(error) => {
                    // Out of descriptors, or a connection reset before it was accepted: the
                    // listener stays usable.
                    if !accept_failing {
                        tracing::warn!("cannot accept a connection: {error}; retrying");
                        accept_failing = true;
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = stop.cancelled() => break,
        };
        if let Some(ended) = burst.take_if(|burst| burst.last.elapsed() >= BURST_GAP) {
            tracing::warn!(
                "no longer at the --max-connections cap; during the burst {} connections that \
                 had sent no request were closed to make room and {} waited for one",
                ended.closed,
                ended.waited
            );
        }
        let permit = match Arc::clone(&slots).try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                let burst = burst.get_or_insert_with(|| {
                    tracing::warn!(
                        "{} connections open, the --max-connections cap: closing the oldest \
                         connections that have sent no request to make room, or holding new \
                         ones in the listen queue",
                        limits.max_connections
                    );
                    Burst {
                        last: std::time::Instant::now(),
                        closed: 0,
                        waited: 0,
                    }
                });
                burst.last = std::time::Instant::now();
                // The slot this connection waits for is the one the closed connection frees. A
                // connection already told to close has its slot promised to an earlier wait, so
                // it is no candidate: closing it again would free nothing, and the accept loop
                // (and every connection queued behind this one) would wait until some other
                // connection ended by itself, such as at --header-read-timeout.
                let oldest_idle = {
                    let mut open = open.lock().unwrap_or_else(|e| e.into_inner());
                    open.retain(|connection| {
                        connection
                            .upgrade()
                            .is_some_and(|connection| !connection.close.is_cancelled())
                    });
                    open.iter()
                        .filter_map(Weak::upgrade)
                        .find(|connection| !connection.requested.load(Ordering::Relaxed))
                };
                match oldest_idle {
                    Some(connection) => {
                        connection.close.cancel();
                        burst.closed += 1;
                    }
                    None => burst.waited += 1,
                }
                tokio::select! {
                    permit = Arc::clone(&slots).acquire_owned() => permit?,
                    () = stop.cancelled() => break,
                }
            }
        };
        if let Err(error) = stream.set_nodelay(true) {
            // Without TCP_NODELAY a reply written in more than one piece waits for the client's
            // delayed ACK (40 ms on Linux) before its last piece is sent.
            tracing::debug!("cannot set TCP_NODELAY: {error}");
        }
        let connection = Arc::new(OpenConnection {
            requested: false.into(),
            close: tokio_util::sync::CancellationToken::new(),
        });
        {
            let mut open = open.lock().unwrap_or_else(|e| e.into_inner());
            if open.len() >= 2 * limits.max_connections {
                open.retain(|connection| connection.strong_count() > 0);
            }
            open.push_back(Arc::downgrade(&connection));
        }
        let (io, last_activity) = Watched::new(stream);
        let service = {
            let service = service.clone();
            let connection = Arc::clone(&connection);
            hyper::service::service_fn(move |request| {
                use hyper::service::Service;
                connection.requested.store(true, Ordering::Relaxed);
                service.call(request)
            })
        };
        let serving = hyper::server::conn::http1::Builder::new()
            .timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(limits.header_read_timeout)
            .serve_connection(hyper_util::rt::TokioIo::new(io), service);
        let serving = graceful.watch(serving);
        tokio::spawn(async move {
            tokio::select! {
                result = serving => {
                    if let Err(error) = result {
                        tracing::debug!("connection closed: {error}");
                    }
                }
                () = connection.close.cancelled() => {}
                () = idle_for(&last_activity, limits.idle_timeout) => {}
            }
            // Out of the accept loop's list before its slot is free: a connection the loop can
            // still find and close always has a slot to give back.
            drop(connection);
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// How many connections the kernel may hold, handshake done, until the server accepts them (the
/// kernel caps it at `net.core.somaxconn`, 4096 by default on Linux). tokio's `bind` asks for 128:
/// under a flood that queue fills, the kernel drops further SYNs, and a real client's connection
/// then waits for its SYN to be sent again, 1, 3 and 7 seconds later. Measured with
/// `scripts/load-test --flood 1000 --open-files 256`: only 324 of the 1,000 flood connections were
/// ever established, and the p99 of the real calls was 7.2 s.
const LISTEN_BACKLOG: u32 = 4096;

/// A listener on `address` with a [`LISTEN_BACKLOG`] queue; otherwise as tokio's `bind`
/// (`SO_REUSEADDR` on, so a restarted server can listen at once).
fn bind_listener(address: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = match address {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    #[cfg(not(windows))]
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Returns once `last_activity` has not moved for `timeout`.
async fn idle_for(last_activity: &Activity, timeout: Duration) {
    loop {
        let idle = last_activity.idle();
        if idle >= timeout {
            return;
        }
        tokio::time::sleep(timeout - idle).await;
    }
}

/// When a connection last read or wrote a byte.
#[derive(Clone)]
struct Activity {
    since: tokio::time::Instant,
    millis: Arc<std::sync::atomic::AtomicU64>,
}

impl Activity {
    fn touch(&self) {
        let millis = self.since.elapsed().as_millis() as u64;
        self.millis
            .store(millis, std::sync::atomic::Ordering::Relaxed);
    }

    fn idle(&self) -> Duration {
        let last = Duration::from_millis(self.millis.load(std::sync::atomic::Ordering::Relaxed));
        self.since.elapsed().saturating_sub(last)
    }
}

/// A TCP stream that records in its [`Activity`] every read or write that moves bytes.
struct Watched {
    stream: tokio::net::TcpStream,
    activity: Activity,
}

impl Watched {
    fn new(stream: tokio::net::TcpStream) -> (Watched, Activity) {
        let activity = Activity {
            since: tokio::time::Instant::now(),
            millis: Arc::default(),
        };
        let watched = Watched {
            stream,
            activity: activity.clone(),
        };
        (watched, activity)
    }
}

impl tokio::io::AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.touch();
        }
        polled
    }
}

impl tokio::io::AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        if matches!(polled, std::task::Poll::Ready(Ok(written)) if written > 0) {
            self.activity.touch();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        if matches!(polled, std::task::Poll::Ready(Ok(written)) if written > 0) {
            self.activity.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// How long answered connections get to close on shutdown before they are closed for them.
const RESPONSE_FLUSH: Duration = Duration::from_secs(1);

/// Answers a POSTed JSON body that is not one JSON-RPC message with the protocol's error and HTTP
/// 400: -32700 (parse error) for a body that is not UTF-8 or not JSON (nesting deeper than
/// serde_json's 128 levels included), -32600 (invalid request) for a batch array or any other
/// non-object. rmcp answers those 415 with a plain-text body; everything else goes on to it
/// unchanged, a body over `--max-request-bytes` answered 413 as rmcp would.
async fn refuse_malformed(
    max_request_bytes: usize,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::http::{Method, StatusCode, header};
    use axum::response::IntoResponse;

    let is_json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim_start().starts_with("application/json"));
    if request.method() != Method::POST || !is_json {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, max_request_bytes).await else {
        return (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("Payload too large: the request body is over {max_request_bytes} bytes.\n"),
        )
            .into_response();
    };
    let refusal = malformed_message(&bytes, "the request body");
    match refusal {
        None => {
            let request = axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes));
            next.run(request).await
        }
        Some((code, message)) => {
            let error = serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": { "code": code, "message": message },
            });
            (
                StatusCode::BAD_REQUEST,
                [(header::CONTENT_TYPE, "application/json")],
                error.to_string(),
            )
                .into_response()
        }
    }
}

/// Why `bytes` is not one JSON-RPC message, as an error code and message: -32700 (parse error)
/// when they are not UTF-8 or not JSON (nesting deeper than serde_json's 128 levels included),
/// -32600 (invalid request) for a batch array or any other non-object; `None` for an object.
/// `what` names the bytes in the message ("the request body").
fn malformed_message(bytes: &[u8], what: &str) -> Option<(i64, String)> {
    match std::str::from_utf8(bytes) {
        Err(error) => Some((
            -32700,
            format!("Parse error: {what} is not UTF-8 ({error})"),
        )),
        Ok(text) => match serde_json::from_str::<Value>(text) {
            Err(error) => Some((-32700, format!("Parse error: {what} is not JSON ({error})"))),
            Ok(Value::Array(_)) => Some((
                -32600,
                "Invalid Request: JSON-RPC batches are not supported; send one message at a time"
                    .to_string(),
            )),
            Ok(Value::Object(_)) => None,
            Ok(_) => Some((
                -32600,
                "Invalid Request: a JSON-RPC message is a JSON object".to_string(),
            )),
        },
    }
}

/// Lets a request through only with `Authorization: Bearer <token>`; answers 401 otherwise. The
/// comparison takes the same time whichever byte differs.
async fn require_bearer(
    token: Arc<String>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse;
    use subtle::ConstantTimeEq;

    // The scheme is case-insensitive (RFC 9110 §11.1); the token is compared exactly.
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.as_bytes().split_at_checked(7))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case(b"Bearer "))
        .map(|(_, token)| token);
    let authorized =
        presented.is_some_and(|presented| bool::from(presented.ct_eq(token.as_bytes())));
    if authorized {
        next.run(request).await
    } else {
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "Unauthorized: send this server's token as `Authorization: Bearer <token>`.\n",
        )
            .into_response()
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}

/// Why a tool call failed, worded for the model that made it.
#[derive(Debug)]
pub enum ToolError {
    /// The arguments do not fit the tool's input schema.
    InvalidArguments(String),
    /// The upstream API answered with an error status.
    Status {
        operation: &'static str,
        status: u16,
        reason: &'static str,
        message: String,
        /// How long the API asked callers to wait (`Retry-After`), in seconds.
        retry_after: Option<u64>,
    },
    /// The upstream API could not be reached or its answer could not be read.
    Transport {
        operation: &'static str,
        message: String,
    },
    /// The API answered, but not with something the tool can return; the text says what
    /// happened and what to do.
    Answer(String),
    /// Readable values (a project key, user names) that match nothing the API has.
    NotFound(NotFound),
}

/// The most available values a "not found" error lists.
pub const MAX_LISTED_VALUES: usize = 20;

/// Words that say how a thing is named rather than what it is (`display name`, `key`).
const NAMING_WORDS: &[&str] = &[
    "key", "name", "email", "id", "username", "login", "slug", "title", "handle", "display", "full",
];

/// What `what` names, capitalized, to begin a sentence about it: `"project key"` → `Project`,
/// `"issue type name"` → `Issue type`.
pub fn subject(what: &str) -> String {
    // The thing, without the kind of value that names it: `issue type name` → `Issue type`,
    // `user (display name or email)` → `User`.
    let first = what.split(" or ").next().unwrap_or_default();
    let first = first.split('(').next().unwrap_or_default();
    let mut words: Vec<&str> = first.split_whitespace().collect();
    while words.len() > 1 && words.last().is_some_and(|word| NAMING_WORDS.contains(word)) {
        words.pop();
    }
    let thing = if words.is_empty() {
        "value".to_string()
    } else {
        words.join(" ")
    };
    let mut chars = thing.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "Value".to_string(),
    }
}

/// The plural of `what`, each of its alternatives made plural: `project key` → `project keys`,
/// `user name or email` → `user names or emails`; a remark in parentheses stays as it is
/// (`user (display name or email)` → `users (display name or email)`).
pub fn plural(what: &str) -> String {
    if let Some((thing, remark)) = what.split_once('(') {
        return format!("{} ({remark}", plural(thing.trim_end()));
    }
    what.split(" or ")
        .map(|one| format!("{one}s"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// Readable values that match nothing: `Project "WEBB" not found. Available project keys: WEB,
/// API, MOBILE.` for `what` = `"project key"`; every unknown value of a list is named at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotFound {
    /// What the values are ("project key").
    pub what: String,
    /// The values that match nothing, as the model wrote them.
    pub values: Vec<String>,
    /// The values the model can use instead, when they are known.
    pub available: Vec<String>,
}

impl fmt::Display for NotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let subject = subject(&self.what);
        let quoted: Vec<String> = self.values.iter().map(|v| format!("\"{v}\"")).collect();
        match quoted.as_slice() {
            [one] => write!(f, "{subject} {one} not found.")?,
            [init @ .., last] => write!(f, "{subject}s {} and {last} not found.", init.join(", "))?,
            [] => write!(f, "{subject} not found.")?,
        }
        // Two items may show the same value (two people named alike): it is listed once.
        let mut available: Vec<&str> = Vec::with_capacity(self.available.len());
        for value in &self.available {
            if !available.contains(&value.as_str()) {
                available.push(value);
            }
        }
        if !available.is_empty() {
            let listed = &available[..available.len().min(MAX_LISTED_VALUES)];
            write!(
                f,
                " Available {}: {}",
                plural(&self.what),
                listed.join(", ")
            )?;
            if available.len() > listed.len() {
                write!(f, " and {} more", available.len() - listed.len())?;
            }
            write!(f, ".")?;
        }
        Ok(())
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::InvalidArguments(message) => write!(f, "{message}"),
            ToolError::Status {
                operation,
                status,
                reason,
                message,
                retry_after,
            } => {
                write!(
                    f,
                    "The API rejected {operation} with HTTP {status} {reason}"
                )?;
                if !message.is_empty() {
                    // The API's own sentence may end with a full stop already.
                    write!(f, ": {}", message.trim_end_matches('.'))?;
                }
                match status {
                    // The API's message says what to change; the same arguments fail again.
                    400 | 422 => write!(
                        f,
                        ". Change what the API's message points to before calling again; the same arguments will be refused the same way."
                    ),
                    401 => write!(
                        f,
                        ". The server's credentials for the API are missing or not allowed to do this; the user must fix the server's configuration."
                    ),
                    // A refusal by the API's own rules (approving one's own change, a player
                    // that cannot skip) as much as one of missing access.
                    403 => write!(
                        f,
                        ". The API does not allow this: if its message is about access, the server's credentials lack it and the user must fix the server's configuration; otherwise it cannot be done as asked."
                    ),
                    404 => write!(f, ". Check the identifiers in the arguments."),
                    429 => match retry_after {
                        Some(wait) => write!(
                            f,
                            ". The API is rate limited; wait {} before calling again.",
                            seconds(Duration::from_secs(*wait))
                        ),
                        None => write!(f, ". The API is rate limited; wait before calling again."),
                    },
                    500..=599 => write!(f, ". The API failed; try again later."),
                    _ => Ok(()),
                }
            }
            ToolError::Transport { operation, message } => {
                write!(
                    f,
                    "Could not complete {operation}: {message}. Try again later."
                )
            }
            ToolError::Answer(message) => write!(f, "{message}"),
            ToolError::NotFound(not_found) => write!(f, "{not_found}"),
        }
    }
}

impl std::error::Error for ToolError {}

/// Deserializes a tool's arguments into its input type, naming the argument that does not fit.
pub fn parse_arguments<T: DeserializeOwned>(arguments: JsonObject) -> Result<T, ToolError> {
    let value = Value::Object(arguments);
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        ToolError::InvalidArguments(if path == "." {
            format!("Invalid arguments: {inner}.")
        } else {
            format!("Invalid argument `{path}`: {inner}.")
        })
    })
}

/// Checks that an integer argument is one of the values the API accepts.
pub fn check_one_of(argument: &str, value: Option<i64>, allowed: &[i64]) -> Result<(), ToolError> {
    match value {
        Some(value) if !allowed.contains(&value) => {
            let allowed: Vec<String> = allowed.iter().map(i64::to_string).collect();
            Err(ToolError::InvalidArguments(format!(
                "Invalid argument `{argument}`: {value} is not allowed; use one of {}.",
                allowed.join(", ")
            )))
        }
        _ => Ok(()),
    }
}

/// Where an API key goes.
#[derive(Clone, Copy, Debug)]
pub enum KeyLocation {
    Header,
    Query,
    Cookie,
}

/// Something that hands out a current access token (an OAuth2 client-credentials flow).
pub trait TokenSource: Send + Sync {
    fn token(&self) -> Pin<Box<dyn Future<Output = Result<String, ToolError>> + Send + '_>>;
}

/// One credential the server adds to every upstream request. Values come from the server's own
/// environment, never from the MCP client.
#[derive(Clone)]
pub enum Credential {
    Bearer(String),
    ApiKey {
        location: KeyLocation,
        name: &'static str,
        value: String,
    },
    Basic {
        username: String,
        password: Option<String>,
    },
    /// A bearer token fetched (and refreshed) by the server itself.
    Fetched(Arc<dyn TokenSource>),
    /// A credential the API describes that the server was not given: the environment variables
    /// that would give it (all of them, for one that takes more than one). Nothing is sent for it.
    Unset(&'static [&'static str]),
}

/// The variables that would give the server the credentials it was not given ("A", "A and B",
/// "A, B and C"): the server sends every credential it is configured with, so each unset one is
/// needed; `None` when nothing is unset.
fn unset_credentials(credentials: &[Credential]) -> Option<String> {
    let unset: Vec<&str> = credentials
        .iter()
        .filter_map(|credential| match credential {
            Credential::Unset(variables) => Some(*variables),
            _ => None,
        })
        .flatten()
        .copied()
        .collect();
    match unset.as_slice() {
        [] => None,
        [one] => Some(one.to_string()),
        [init @ .., last] => Some(format!("{} and {last}", init.join(", "))),
    }
}

/// Says on stderr, once at start, which credentials the server was not given and which variables
/// would give them: a server started without its token otherwise says nothing until the API
/// refuses a call.
pub fn warn_unset_credentials(credentials: &[Credential]) {
    let Some(unset) = unset_credentials(credentials) else {
        return;
    };
    if sends_no_credential(credentials) {
        tracing::warn!(
            "no credentials for the API are set: set {unset} in the server's environment (or the \
             same name with `_FILE` added, naming a file that holds the value); until then the \
             server calls the API without credentials"
        );
    } else {
        tracing::warn!(
            "not every credential the API describes is set: {unset} (or the same name with \
             `_FILE` added) is not; requests go to the API without it"
        );
    }
}

/// Whether the server sends no credential at all although the API describes some.
fn sends_no_credential(credentials: &[Credential]) -> bool {
    !credentials.is_empty()
        && credentials
            .iter()
            .all(|credential| matches!(credential, Credential::Unset(_)))
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Credential::Bearer(_) => f.write_str("Bearer(<redacted>)"),
            Credential::ApiKey { location, name, .. } => {
                write!(f, "ApiKey({location:?} {name}: <redacted>)")
            }
            Credential::Basic { username, .. } => write!(f, "Basic({username}: <redacted>)"),
            Credential::Fetched(_) => f.write_str("Fetched(<redacted>)"),
            Credential::Unset(variables) => write!(f, "Unset({})", variables.join(", ")),
        }
    }
}

/// Reads an optional environment variable; an empty value counts as unset.
pub fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

/// Reads a credential from the server's environment: the variable `name`, or else the file
/// named by `{name}_FILE` (for secrets mounted as files), without its trailing line break. An
/// empty value counts as unset; a file that cannot be read is an error naming the file, never
/// its content.
pub fn secret_var(name: &str) -> anyhow::Result<Option<String>> {
    if let Some(value) = env_var(name) {
        return Ok(Some(value));
    }
    let file_variable = format!("{name}_FILE");
    let Some(path) = env_var(&file_variable) else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&path).map_err(|error| {
        anyhow::anyhow!("cannot read the file {path} named by {file_variable}: {error}")
    })?;
    let value = text.strip_suffix('\n').unwrap_or(&text);
    let value = value.strip_suffix('\r').unwrap_or(value);
    Ok(Some(value.to_string()).filter(|value| !value.is_empty()))
}

/// The HTTP client for the upstream API.
pub struct Upstream {
    http: HttpClient,
    base_url: reqwest::Url,
    credentials: Vec<Credential>,
    options: UpstreamOptions,
}

/// The reqwest client, built on a thread of its own shortly after the server starts. Building
/// one reads and parses every root certificate of the system (several milliseconds of CPU),
/// which the MCP handshake and the first `tools/list` — what a host waits for when it launches
/// its servers — need not wait for, nor share the CPU with: the build starts
/// [`CLIENT_BUILD_DELAY`] after start-up. A request to the API before then builds it at once
/// (and waits for it), as does one that comes while it is being built.
struct HttpClient {
    client: Arc<tokio::sync::OnceCell<reqwest::Client>>,
    settings: Arc<HttpSettings>,
}

/// A reqwest client builder whose TLS runs on rustls with the `ring` provider. The crate
/// builds rustls without a provider of its own choosing (its default, aws-lc-rs, is a C library
/// built with cmake), so `ring`'s is installed here, once, before the first client is built.
pub fn client_builder() -> reqwest::ClientBuilder {
    static PROVIDER: std::sync::Once = std::sync::Once::new();
    PROVIDER.call_once(|| {
        // rustls 0.23.48 deprecates this provider because `ring` has no post-quantum key
        // exchange (X25519MLKEM768); connections to the API use X25519 and the other classical
        // groups instead. That is kept for a crate that builds in half the time and with no C
        // toolchain beyond `cc`; a crate that needs post-quantum TLS to its API can install
        // aws-lc-rs's provider before the first call, which this then leaves in place.
        #[allow(deprecated)]
        let provider = rustls::crypto::ring::default_provider();
        // An error means a provider was installed first, and that one serves as well.
        let _ = provider.install_default();
    });
    reqwest::Client::builder()
}

/// What the reqwest client is built from.
struct HttpSettings {
    /// The API's base URL, whose origin is the only one redirects may lead to.
    base_url: reqwest::Url,
    connect_timeout: Duration,
    timeout: Duration,
}

impl HttpSettings {
    fn build(&self) -> reqwest::Result<reqwest::Client> {
        // Redirects are followed only within the API's own origin: reqwest strips
        // `Authorization` on a cross-host hop but not API-key headers.
        let origin = self.base_url.origin();
        let redirects = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= 10 {
                attempt.error("too many redirects")
            } else if attempt.url().origin() == origin {
                attempt.follow()
            } else {
                attempt.stop()
            }
        });
        // The server reads JSON: an API that can answer in several formats (JSON or XML, say)
        // is asked for JSON, and for anything else only when it has nothing better. A request's
        // own `Accept` (a header parameter of the operation) replaces this.
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            reqwest::header::ACCEPT,
            reqwest::header::HeaderValue::from_static("application/json, */*;q=0.8"),
        );
        client_builder()
            .default_headers(headers)
            .redirect(redirects)
            .connect_timeout(self.connect_timeout)
            .timeout(self.timeout)
            .user_agent(concat!(
                env!("CARGO_PKG_NAME"),
                "/",
                env!("CARGO_PKG_VERSION")
            ))
            .build()
    }
}

impl HttpClient {
    /// Schedules the client's build in the background when called inside a tokio runtime (as
    /// the server is); otherwise it is built on first use.
    fn new(settings: HttpSettings) -> Self {
        let client = Self {
            client: Arc::new(tokio::sync::OnceCell::new()),
            settings: Arc::new(settings),
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (cell, settings) = (Arc::clone(&client.client), Arc::clone(&client.settings));
            runtime.spawn(async move {
                tokio::time::sleep(CLIENT_BUILD_DELAY).await;
                if let Err(error) = cell.get_or_try_init(|| build_client(settings)).await {
                    tracing::warn!("the HTTP client for the API could not be built: {error}");
                }
            });
        }
        client
    }

    /// The client, once built.
    async fn get(&self, operation: &'static str) -> Result<&reqwest::Client, ToolError> {
        self.client
            .get_or_try_init(|| build_client(Arc::clone(&self.settings)))
            .await
            .map_err(|error| ToolError::Transport {
                operation,
                message: format!(
                    "the server could not set up its HTTP client ({error}); the operator must check the machine's TLS root certificates"
                ),
            })
    }
}

/// How long after start-up the HTTP client is built, unless a request needs it sooner: long
/// enough for a client's handshake and first `tools/list` (a few milliseconds), short next to
/// the time a model takes before its first call. On two busy cores, building it at once made
/// the first `tools/list` answer up to 3 ms later.
const CLIENT_BUILD_DELAY: Duration = Duration::from_millis(200);

async fn build_client(settings: Arc<HttpSettings>) -> Result<reqwest::Client, String> {
    match tokio::task::spawn_blocking(move || settings.build()).await {
        Ok(built) => built.map_err(|error| error.to_string()),
        Err(error) => Err(error.to_string()),
    }
}

impl Upstream {
    /// A client for the API at `base_url` that sends `credentials` with every request, with the
    /// timeouts, answer size limit and retries of `options`.
    pub fn new(
        base_url: &str,
        credentials: Vec<Credential>,
        options: UpstreamOptions,
    ) -> anyhow::Result<Self> {
        let mut base_url = reqwest::Url::parse(base_url)
            .map_err(|error| anyhow::anyhow!("invalid base URL {base_url:?}: {error}"))?;
        if base_url.cannot_be_a_base() {
            anyhow::bail!("invalid base URL {base_url}: it cannot have a path");
        }
        // Paths are appended segment by segment; a trailing slash would leave an empty one.
        if base_url.path().ends_with('/') {
            let trimmed = base_url.path().trim_end_matches('/').to_string();
            base_url.set_path(&trimmed);
        }
        // Where an operation's own server is said to be must be a whole URL: a word joined to
        // the base URL would send the credentials to a path nobody named.
        for route in &options.servers {
            if let Some(configured) = &route.configured {
                match reqwest::Url::parse(configured.trim()) {
                    Ok(url) if !url.cannot_be_a_base() && url.has_host() => {}
                    _ => anyhow::bail!(
                        "{} is {configured:?}, which is no URL: give the whole URL of the server that serves those operations (such as {})",
                        route.env,
                        route.spec
                    ),
                }
            }
        }
        let http = HttpClient::new(HttpSettings {
            base_url: base_url.clone(),
            connect_timeout: options.api_connect_timeout,
            timeout: options.api_timeout,
        });
        Ok(Self {
            http,
            base_url,
            credentials,
            options,
        })
    }

    /// The most pages of a list one call may walk (`--api-max-pages`).
    pub fn max_pages(&self) -> usize {
        usize::try_from(self.options.api_max_pages).unwrap_or(usize::MAX)
    }

    /// [`Upstream::request`] for an operation served at `server` (its own server in the API
    /// description): an absolute URL, or one relative to the base URL. A server that is no valid
    /// URL makes the request fail with a message, unsent.
    pub fn request_on(
        &self,
        server: &str,
        method: reqwest::Method,
        operation: &'static str,
        segments: &[&str],
    ) -> UpstreamRequest {
        let mut request = self.request(method, operation, segments);
        let route = self
            .options
            .servers
            .iter()
            .find(|route| route.spec == server);
        let server = match route {
            Some(ServerRoute {
                configured: Some(configured),
                ..
            }) => configured.trim(),
            Some(route) if self.options.base_url_changed => {
                request.problem = Some(format!(
                    "the API serves this operation at {server}, not at the base URL; with the base URL set to {}, the server calls that host only where {} says (set it to {server} to call the API's own)",
                    self.base_url, route.env
                ));
                return request;
            }
            _ => server,
        };
        match self.base_url.join(server) {
            Ok(mut url) => {
                if let Ok(mut path) = url.path_segments_mut() {
                    path.pop_if_empty();
                    path.extend(segments);
                }
                request.url = url;
            }
            Err(error) => {
                request.problem = Some(format!(
                    "the API's server {server:?} for this operation is not a valid URL ({error})"
                ));
            }
        }
        request
    }

    /// Starts a request to the operation `operation` (`"GET /pets/{id}"`, for messages) at the
    /// path made of `segments`, each percent-encoded as one path segment.
    pub fn request(
        &self,
        method: reqwest::Method,
        operation: &'static str,
        segments: &[&str],
    ) -> UpstreamRequest {
        let mut url = self.base_url.clone();
        // An empty segment, `.` or `..` would address another resource (`/issues/` instead of
        // `/issues/{id}`, or a parent path): such a path parameter is refused, not sent.
        let invalid = segments
            .iter()
            .find(|segment| matches!(**segment, "" | "." | ".."))
            .map(|segment| {
                format!(
                    "Invalid arguments for {operation}: a path parameter cannot be {segment:?}; give the identifier itself."
                )
            });
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty();
            path.extend(segments);
        }
        UpstreamRequest {
            method,
            operation,
            url,
            query: Vec::new(),
            headers: Vec::new(),
            cookies: Vec::new(),
            body: Body::None,
            problem: None,
            invalid,
            carried: Vec::new(),
        }
    }

    /// The value of the credential a parameter carries, when the server has it.
    async fn credential_value(&self, carries: Carries) -> Result<Option<String>, ToolError> {
        for credential in &self.credentials {
            match (carries, credential) {
                (Carries::Bearer, Credential::Bearer(token)) => return Ok(Some(token.clone())),
                (Carries::Bearer, Credential::Fetched(source)) => {
                    return source.token().await.map(Some);
                }
                (Carries::ApiKey(wanted), Credential::ApiKey { name, value, .. })
                    if *name == wanted =>
                {
                    return Ok(Some(value.clone()));
                }
                _ => {}
            }
        }
        Ok(None)
    }

    /// Sends `request` with the server's credentials and returns the response body as JSON
    /// (a non-JSON body as a string, an empty one as `null`).
    pub async fn send(&self, request: UpstreamRequest) -> Result<Value, ToolError> {
        self.exchange(request).await.map(|(body, _)| body)
    }

    /// Like [`Upstream::send`], and also returns the response's `Link` header, for APIs that
    /// page with `Link: <…>; rel="next"`.
    pub async fn send_with_link(
        &self,
        request: UpstreamRequest,
    ) -> Result<(Value, Option<String>), ToolError> {
        self.exchange(request).await
    }

    async fn exchange(
        &self,
        request: UpstreamRequest,
    ) -> Result<(Value, Option<String>), ToolError> {
        let operation = request.operation;
        if let Some(invalid) = request.invalid {
            return Err(ToolError::InvalidArguments(invalid));
        }
        // Found while building the request (a next-page link to another site, a server URL
        // that is none): the same each time, so not worth another call.
        if let Some(problem) = request.problem {
            return Err(ToolError::Answer(format!(
                "Could not complete {operation}: {problem}. Calling again will not help; tell the user."
            )));
        }
        // Repeating a request is safe only where the method promises that the API ends in the
        // same state however often it arrives.
        let idempotent = matches!(
            request.method,
            reqwest::Method::GET
                | reqwest::Method::HEAD
                | reqwest::Method::PUT
                | reqwest::Method::DELETE
                | reqwest::Method::OPTIONS
        );
        // A request that may have changed something once the API accepted it.
        let writes = !matches!(
            request.method,
            reqwest::Method::GET | reqwest::Method::HEAD | reqwest::Method::OPTIONS
        );
        let http = self.http.get(operation).await?;
        let mut builder = http.request(request.method, request.url);
        let mut query = request.query;
        let mut cookies = request.cookies;
        // Every credential value sent, to be blotted out of anything the API says back.
        let mut secrets: Vec<String> = Vec::new();
        for credential in &self.credentials {
            match credential {
                Credential::Bearer(token) => builder = builder.bearer_auth(token),
                Credential::Fetched(source) => builder = builder.bearer_auth(source.token().await?),
                Credential::Basic { username, password } => {
                    secrets.extend(password.iter().cloned());
                    builder = builder.basic_auth(username, password.as_ref())
                }
                Credential::ApiKey {
                    location,
                    name,
                    value,
                } => {
                    secrets.push(value.clone());
                    match location {
                        KeyLocation::Header => builder = builder.header(*name, value),
                        KeyLocation::Query => query.push((name.to_string(), value.clone())),
                        KeyLocation::Cookie => cookies.push((*name, value.clone())),
                    }
                }
                Credential::Unset(_) => {}
            }
        }
        let mut headers = request.headers;
        let mut body = request.body;
        for (place, name, carries) in request.carried {
            let Some(value) = self.credential_value(carries).await? else {
                continue;
            };
            secrets.push(value.clone());
            match place {
                CarriedIn::Query => query.push((name.to_string(), value)),
                CarriedIn::Header => headers.push((name, value)),
                CarriedIn::Cookie => cookies.push((name, value)),
                CarriedIn::Form => match &mut body {
                    Body::Form(fields) => fields.push((name.to_string(), value)),
                    _ => body = Body::Form(vec![(name.to_string(), value)]),
                },
                CarriedIn::Json => match &mut body {
                    Body::Json(Value::Object(object)) => {
                        object.insert(name.to_string(), Value::String(value));
                    }
                    _ => {
                        let mut object = serde_json::Map::new();
                        object.insert(name.to_string(), Value::String(value));
                        body = Body::Json(Value::Object(object));
                    }
                },
                CarriedIn::Multipart => match &mut body {
                    Body::Multipart(parts) => parts.push((name.to_string(), Part::Text(value))),
                    _ => body = Body::Multipart(vec![(name.to_string(), Part::Text(value))]),
                },
            }
        }
        if !query.is_empty() {
            builder = builder.query(&query);
        }
        for (name, value) in headers {
            builder = builder.header(name, value);
        }
        if !cookies.is_empty() {
            let cookie: Vec<String> = cookies
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect();
            builder = builder.header(reqwest::header::COOKIE, cookie.join("; "));
        }
        builder = match body {
            Body::None => builder,
            Body::Json(value) => builder.json(&value),
            Body::Form(fields) => builder.form(&fields),
            Body::Text { content_type, text } => builder
                .header(reqwest::header::CONTENT_TYPE, content_type)
                .body(text),
            Body::Multipart(parts) => {
                let mut form = reqwest::multipart::Form::new();
                for (name, part) in parts {
                    form = match part {
                        Part::Text(text) => form.text(name, text),
                        Part::File {
                            bytes,
                            filename,
                            content_type,
                        } => {
                            let file = reqwest::multipart::Part::bytes(bytes).file_name(filename);
                            // The media type was checked when the argument was read.
                            match file.mime_str(&content_type) {
                                Ok(file) => form.part(name, file),
                                Err(_) => form,
                            }
                        }
                    };
                }
                builder.multipart(form)
            }
        };
        let prepared = builder.build().map_err(|_| ToolError::Transport {
            operation,
            message: "the request to the API could not be built".to_string(),
        })?;
        // The Authorization header as sent: a bearer token, or user and password in base64.
        if let Some((_, credential)) = prepared
            .headers()
            .get(reqwest::header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split_once(' '))
        {
            secrets.push(credential.to_string());
        }
        let scrub = |text: String| redact(text, &secrets);

        let mut waited = Duration::ZERO;
        let mut tries: u32 = 0;
        let mut next = Some(prepared);
        loop {
            tries += 1;
            let Some(attempt) = next.take() else {
                return Err(ToolError::Transport {
                    operation,
                    message: "the request to the API could not be repeated".to_string(),
                });
            };
            // A copy is kept for a retry; a multipart body is a stream that cannot be copied, so
            // such a request is sent once.
            if idempotent && tries <= self.options.api_retries {
                next = attempt.try_clone();
            }
            let retries_left = next.is_some();
            let response = match http.execute(attempt).await {
                Ok(response) => response,
                Err(error) => {
                    // A certificate the server does not trust is refused the same way each
                    // time: it is not tried again, and the model is told a retry will not help.
                    if let Some(cause) = tls_failure(&error) {
                        return Err(ToolError::Answer(format!(
                            "Could not complete {operation}: the API at {} could not be reached securely ({cause}). The user must check the server's base URL, and if the API's certificate is signed by a private authority, name that authority's root certificate in SSL_CERT_FILE (or a folder of them in SSL_CERT_DIR) in the server's environment and start the server again; calling again will not help.",
                            self.base_url.origin().ascii_serialization()
                        )));
                    }
                    let delay = backoff(tries);
                    if error.is_connect()
                        && retries_left
                        && waited + delay <= self.options.api_max_retry_wait
                    {
                        waited += delay;
                        tokio::time::sleep(delay).await;
                        continue;
                    }
                    return Err(ToolError::Transport {
                        operation,
                        message: self.describe_transport_error(&error, tries),
                    });
                }
            };
            let status = response.status();
            let retry_after = retry_after(response.headers());
            if retries_left
                && (status == reqwest::StatusCode::TOO_MANY_REQUESTS || status.is_server_error())
            {
                let delay = retry_after.unwrap_or_else(|| backoff(tries));
                if waited + delay <= self.options.api_max_retry_wait {
                    waited += delay;
                    drop(response);
                    tokio::time::sleep(delay).await;
                    continue;
                }
            }
            let link = response
                .headers()
                .get(reqwest::header::LINK)
                .and_then(|value| value.to_str().ok())
                .map(str::to_string);
            let claims_json = response
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|value| value.to_str().ok())
                .is_some_and(|value| {
                    let media = value.split(';').next().unwrap_or("").trim();
                    media.eq_ignore_ascii_case("application/json") || media.ends_with("+json")
                });
            let bytes =
                self.read_limited(response, operation)
                    .await
                    .map_err(|error| match error {
                        ToolError::Transport { operation, message } => ToolError::Transport {
                            operation,
                            message: scrub(message),
                        },
                        other => other,
                    })?;
            let body = parse_body(&bytes);
            // Refused while some of the server's credentials are unset: which to set is the
            // whole answer.
            if matches!(status.as_u16(), 401 | 403)
                && let Some(unset) = unset_credentials(&self.credentials)
            {
                return Err(ToolError::Answer(no_credential_refusal(
                    operation,
                    status,
                    &scrub(error_message(&body)),
                    &unset,
                    sends_no_credential(&self.credentials),
                )));
            }
            if !status.is_success() {
                return Err(ToolError::Status {
                    operation,
                    status: status.as_u16(),
                    reason: status.canonical_reason().unwrap_or(""),
                    message: scrub(error_message(&body)),
                    retry_after: retry_after.map(|delay| delay.as_secs_f64().ceil() as u64),
                });
            }
            // A JSON string is JSON; only a body that does not parse is not.
            if claims_json
                && matches!(body, Value::String(_))
                && serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_err()
            {
                let text = scrub(shorten(&String::from_utf8_lossy(&bytes), 200));
                return Err(ToolError::Answer(if writes {
                    format!(
                        "The API accepted {operation} (HTTP {}), but its answer says it is JSON and is not ({text}). The change was most likely made: do not call again; tell the user to check it.",
                        status.as_u16()
                    )
                } else {
                    format!(
                        "The API's answer to {operation} says it is JSON but is not ({text}). The API may be failing; try again later, and if it persists tell the user."
                    )
                }));
            }
            return Ok((body, link));
        }
    }

    fn describe_transport_error(&self, error: &reqwest::Error, tries: u32) -> String {
        let after = if tries > 1 {
            format!(" after {tries} tries")
        } else {
            String::new()
        };
        if error.is_timeout() {
            format!(
                "the API did not answer within {}{after}",
                seconds(self.options.api_timeout)
            )
        } else if error.is_connect() {
            // The host tried: the base URL's, or an operation's own server's.
            let url = error.url().unwrap_or(&self.base_url);
            format!(
                "the API at {} is not reachable (the connection failed{after}); if this persists, the user must check that the API is up and the server's base URL",
                url.origin().ascii_serialization()
            )
        } else {
            "the request to the API failed".to_string()
        }
    }

    /// The body of `response`, refused when it is larger than the server reads. A body that
    /// says its size is refused before any of it is read.
    async fn read_limited(
        &self,
        mut response: reqwest::Response,
        operation: &'static str,
    ) -> Result<Vec<u8>, ToolError> {
        let limit = self.options.api_max_response_bytes;
        let too_large = || {
            ToolError::Answer(format!(
                "The API's answer to {operation} is larger than the {} bytes this server reads, so it was not read. Ask for less: a smaller page, a narrower filter or fewer fields.",
                limit
            ))
        };
        if response
            .content_length()
            .is_some_and(|length| length > limit as u64)
        {
            return Err(too_large());
        }
        let mut bytes = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if bytes.len() + chunk.len() > limit {
                        return Err(too_large());
                    }
                    bytes.extend_from_slice(&chunk);
                }
                Ok(None) => return Ok(bytes),
                Err(error) => {
                    return Err(ToolError::Transport {
                        operation,
                        message: if error.is_timeout() {
                            format!(
                                "the API did not finish its answer within {}",
                                seconds(self.options.api_timeout)
                            )
                        } else {
                            "the API's answer was cut off".to_string()
                        },
                    });
                }
            }
        }
    }
}

/// A duration for people: `1 second`, `2.5 seconds`.
fn seconds(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds == 1.0 {
        "1 second".to_string()
    } else {
        format!("{seconds} seconds")
    }
}

/// What went wrong in the TLS handshake with the API (an untrusted or expired certificate, a
/// name it is not for), when that is why `error`'s connection failed.
fn tls_failure(error: &reqwest::Error) -> Option<String> {
    let mut source = std::error::Error::source(error);
    while let Some(mut cause) = source {
        // An `io::Error`'s own `source` skips the error it wraps, and hyper wraps rustls's error
        // in two of them: each is opened with `get_ref`.
        while let Some(inner) = cause
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
        {
            cause = inner;
        }
        if let Some(tls) = cause.downcast_ref::<rustls::Error>() {
            return Some(match tls {
                rustls::Error::InvalidCertificate(_) => {
                    format!("its TLS certificate is not accepted: {tls}")
                }
                _ => format!("the TLS handshake failed: {tls}"),
            });
        }
        source = cause.source();
    }
    None
}

/// The pause before try number `tries + 1`: 250 ms, then 500 ms, 1 s, ….
fn backoff(tries: u32) -> Duration {
    RETRY_FIRST_DELAY.saturating_mul(1 << tries.saturating_sub(1).min(10))
}

/// How long a `Retry-After` header asks callers to wait: a number of seconds or an HTTP date.
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if let Ok(seconds) = text.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let when = httpdate::parse_http_date(text).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// What a model reads when the API refuses a call (401 or 403) that went without credentials
/// because none were set: that, and which variables the user must set.
fn no_credential_refusal(
    operation: &str,
    status: reqwest::StatusCode,
    message: &str,
    unset: &str,
    none_sent: bool,
) -> String {
    let mut text = format!(
        "The API rejected {operation} with HTTP {} {}",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    );
    if !message.is_empty() {
        text.push_str(": ");
        text.push_str(message.trim_end_matches('.'));
    }
    let sent = if none_sent {
        "The server sent no credentials, since none are set"
    } else {
        "The server sent only some of its credentials, since the others are not set"
    };
    text.push_str(&format!(
        ". {sent}; the user must set {unset} in the server's environment (or the same name with \
         `_FILE` added, naming a file that holds the value) and start the server again."
    ));
    text
}

/// `text` with every credential in `secrets` replaced by `<redacted>`.
fn redact(mut text: String, secrets: &[String]) -> String {
    for secret in secrets {
        // A value this short would blot out ordinary words; no real credential is.
        if secret.len() >= 4 && text.contains(secret.as_str()) {
            text = text.replace(secret.as_str(), REDACTED);
        }
    }
    text
}

fn parse_body(bytes: &[u8]) -> Value {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Value::Null;
    }
    serde_json::from_slice(bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()))
}

/// The API's own explanation from an error body: `message`, `error.message`, `detail`, `title`
/// or `error` when it is text, or the body itself, shortened.
fn error_message(body: &Value) -> String {
    let candidates = [
        body.pointer("/message"),
        body.pointer("/error/message"),
        body.pointer("/detail"),
        body.pointer("/title"),
        body.pointer("/error"),
    ];
    let text = candidates
        .into_iter()
        .flatten()
        .find_map(|value| value.as_str().map(str::to_string))
        .unwrap_or_else(|| match body {
            Value::Null => String::new(),
            Value::String(text) => text.clone(),
            other => other.to_string(),
        });
    shorten(text.trim(), MAX_ERROR_TEXT)
}

fn shorten(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// The body of an upstream request.
enum Body {
    None,
    Json(Value),
    Form(Vec<(String, String)>),
    Text {
        content_type: &'static str,
        text: String,
    },
    Multipart(Vec<(String, Part)>),
}

/// One part of a multipart body: text, or a file's bytes.
enum Part {
    Text(String),
    File {
        bytes: Vec<u8>,
        filename: String,
        content_type: String,
    },
}

/// The most bytes of a file the server reads from its upload folder.
const MAX_UPLOAD_BYTES: u64 = 32 * 1024 * 1024;

/// A request being built for one upstream operation.
pub struct UpstreamRequest {
    method: reqwest::Method,
    operation: &'static str,
    url: reqwest::Url,
    query: Vec<(String, String)>,
    headers: Vec<(&'static str, String)>,
    cookies: Vec<(&'static str, String)>,
    body: Body,
    /// Why the request must not be sent, found while building it.
    problem: Option<String>,
    /// An argument that cannot be sent as it is (the model must change it).
    invalid: Option<String>,
    /// The operation's parameters that carry one of the server's credentials.
    carried: Vec<(CarriedIn, &'static str, Carries)>,
}

/// Where an operation puts a parameter that carries a credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CarriedIn {
    Query,
    Header,
    Cookie,
    /// A field of a form body.
    Form,
    /// A property of a JSON body.
    Json,
    /// A text part of a multipart body.
    Multipart,
}

/// Which of the server's credentials a parameter carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carries {
    /// The bearer token (read from the environment, or fetched by the server).
    Bearer,
    /// The API key sent under this name.
    ApiKey(&'static str),
}

/// A value that can be sent as a query, header or cookie parameter.
pub trait ParamValue {
    /// The value's text form; a list gives one text per element.
    fn texts(&self) -> Vec<String>;

    /// An object's properties as (name, text) pairs; `None` for anything else.
    fn pairs(&self) -> Option<Vec<(String, String)>> {
        None
    }
}

/// How a parameter's value is written (OpenAPI's `style`), where the document says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Form,
    Simple,
    Label,
    Matrix,
    SpaceDelimited,
    PipeDelimited,
    DeepObject,
}

/// The items of a styled value: an object's names and values (`name=value` when `explode`), or
/// the texts of a scalar or list.
fn styled_items(value: &impl ParamValue, explode: bool) -> Vec<String> {
    match value.pairs() {
        Some(pairs) if explode => pairs.into_iter().map(|(k, v)| format!("{k}={v}")).collect(),
        Some(pairs) => pairs.into_iter().flat_map(|(k, v)| [k, v]).collect(),
        None => value.texts(),
    }
}

/// A path parameter written in `style` (`simple`: `a,b`; `label`: `.a,b` or `.a.b`; `matrix`:
/// `;id=a,b` or `;id=a;id=b`).
pub fn path_styled(name: &str, value: &impl ParamValue, style: Style, explode: bool) -> String {
    let is_object = value.pairs().is_some();
    let items = styled_items(value, explode);
    match style {
        Style::Label if explode => format!(".{}", items.join(".")),
        Style::Label => format!(".{}", items.join(",")),
        Style::Matrix if explode && is_object => format!(";{}", items.join(";")),
        Style::Matrix if explode => items.iter().map(|item| format!(";{name}={item}")).collect(),
        Style::Matrix => format!(";{name}={}", items.join(",")),
        _ => items.join(","),
    }
}

impl ParamValue for String {
    fn texts(&self) -> Vec<String> {
        vec![self.clone()]
    }
}

impl ParamValue for i64 {
    fn texts(&self) -> Vec<String> {
        vec![self.to_string()]
    }
}

impl ParamValue for f64 {
    fn texts(&self) -> Vec<String> {
        vec![self.to_string()]
    }
}

impl ParamValue for bool {
    fn texts(&self) -> Vec<String> {
        vec![self.to_string()]
    }
}

impl ParamValue for Value {
    fn texts(&self) -> Vec<String> {
        match self {
            Value::String(text) => vec![text.clone()],
            Value::Array(items) => items.iter().flat_map(ParamValue::texts).collect(),
            Value::Null => Vec::new(),
            other => vec![other.to_string()],
        }
    }

    fn pairs(&self) -> Option<Vec<(String, String)>> {
        let object = self.as_object()?;
        Some(
            object
                .iter()
                .flat_map(|(name, value)| {
                    value
                        .texts()
                        .into_iter()
                        .map(move |text| (name.clone(), text))
                })
                .collect(),
        )
    }
}

impl<T: ParamValue> ParamValue for Vec<T> {
    fn texts(&self) -> Vec<String> {
        self.iter().flat_map(ParamValue::texts).collect()
    }
}

impl<T: ParamValue> ParamValue for Option<T> {
    fn texts(&self) -> Vec<String> {
        self.as_ref().map(ParamValue::texts).unwrap_or_default()
    }

    fn pairs(&self) -> Option<Vec<(String, String)>> {
        self.as_ref().and_then(ParamValue::pairs)
    }
}

impl UpstreamRequest {
    /// Sends `credential` as the parameter `name` in `place` too: a parameter the operation
    /// takes that carries it, which the server fills (when it has that credential) and the model
    /// never sees.
    pub fn carry(mut self, place: CarriedIn, name: &'static str, credential: Carries) -> Self {
        self.carried.push((place, name, credential));
        self
    }

    /// Sends the request to `link` (a next-page URL from a `Link` header) instead: the link
    /// carries its own query. A link to another origin is refused, so the server's credentials
    /// never leave the API.
    pub fn follow(mut self, link: &str) -> Self {
        match self.url.join(link) {
            Ok(url) if url.origin() == self.url.origin() => {
                self.url = url;
                self.query.clear();
            }
            Ok(url) => {
                self.problem = Some(format!(
                    "the API's next-page link points to another site ({}), which the server does not follow",
                    url.origin().ascii_serialization()
                ));
            }
            Err(_) => {
                self.problem = Some("the API's next-page link is not a valid URL".to_string());
            }
        }
        self
    }

    /// Adds a query parameter (a list adds one pair per element; `None` adds nothing).
    pub fn query(mut self, name: &'static str, value: &impl ParamValue) -> Self {
        for text in value.texts() {
            self.query.push((name.to_string(), text));
        }
        self
    }

    /// Adds a query parameter written in `style`: `form` (`x=a,b`, or `x=a&x=b` when `explode`;
    /// an exploded object is one parameter per property), `spaceDelimited` (`x=a b`),
    /// `pipeDelimited` (`x=a|b`) or `deepObject` (`x[p]=v`).
    pub fn query_styled(
        mut self,
        name: &'static str,
        value: &impl ParamValue,
        style: Style,
        explode: bool,
    ) -> Self {
        if let Some(pairs) = value.pairs() {
            match (style, explode) {
                (Style::DeepObject, _) => {
                    self.query
                        .extend(pairs.into_iter().map(|(k, v)| (format!("{name}[{k}]"), v)));
                }
                (Style::Form, true) => self.query.extend(pairs),
                _ => {
                    let items = styled_items(value, false);
                    self.query.push((name.to_string(), items.join(",")));
                }
            }
            return self;
        }
        let texts = value.texts();
        if texts.is_empty() {
            return self;
        }
        let separator = match style {
            Style::SpaceDelimited => " ",
            Style::PipeDelimited => "|",
            _ => ",",
        };
        if explode {
            self.query
                .extend(texts.into_iter().map(|text| (name.to_string(), text)));
        } else {
            self.query.push((name.to_string(), texts.join(separator)));
        }
        self
    }

    /// Adds a header written in style `simple` (`a,b`; an object `k,v` or, exploded, `k=v`).
    pub fn header_styled(
        self,
        name: &'static str,
        value: &impl ParamValue,
        _style: Style,
        explode: bool,
    ) -> Self {
        let items = styled_items(value, explode);
        self.header(name, &items)
    }

    /// Adds a cookie written in style `form`: a list or object is one cookie `a,b` (`k,v`), or,
    /// exploded, one cookie per item.
    pub fn cookie_styled(
        mut self,
        name: &'static str,
        value: &impl ParamValue,
        _style: Style,
        explode: bool,
    ) -> Self {
        let items = styled_items(value, false);
        if explode {
            for item in items {
                self = self.cookie(name, &item);
            }
            return self;
        }
        if items.is_empty() {
            return self;
        }
        // Each item is checked on its own; the commas between them are the style's own.
        if items.iter().any(|item| !is_cookie_safe(item)) {
            self.invalid = Some(cookie_problem(name));
        }
        self.cookies.push((name, items.join(",")));
        self
    }

    /// Refuses a text path parameter that is empty, `.` or `..` even where it shares its path
    /// segment with other text (`/u/{username}.json`), which the check of whole segments in
    /// [`Upstream::request`] cannot see: `/u/.json` would address another resource.
    pub fn path_value(mut self, name: &'static str, value: &str) -> Self {
        if matches!(value, "" | "." | "..") && self.invalid.is_none() {
            self.invalid = Some(format!(
                "Invalid argument `{name}`: a path parameter cannot be {value:?}; give the identifier itself."
            ));
        }
        self
    }

    /// Adds a header (a list is sent comma-separated; `None` adds nothing). A value with a line
    /// break could smuggle in another header: it is refused.
    pub fn header(mut self, name: &'static str, value: &impl ParamValue) -> Self {
        let texts = value.texts();
        if !texts.is_empty() {
            let text = texts.join(",");
            if text.contains(['\r', '\n']) {
                self.invalid = Some(format!(
                    "Invalid argument `{name}`: a header value cannot contain a line break."
                ));
            }
            self.headers.push((name, text));
        }
        self
    }

    /// Adds a cookie (`None` adds nothing). A value with `;`, `,`, a quote, a backslash, white
    /// space or a control character would start another cookie or break the header: it is
    /// refused.
    pub fn cookie(mut self, name: &'static str, value: &impl ParamValue) -> Self {
        let texts = value.texts();
        if !texts.is_empty() {
            let text = texts.join(",");
            if texts.len() > 1 || !is_cookie_safe(&text) {
                self.invalid = Some(cookie_problem(name));
            }
            self.cookies.push((name, text));
        }
        self
    }

    /// Sends `body` as JSON.
    pub fn json(mut self, body: Value) -> Self {
        self.body = Body::Json(body);
        self
    }

    /// Sends the fields of `body` form-urlencoded.
    pub fn form(mut self, body: serde_json::Map<String, Value>) -> Self {
        let fields = body
            .into_iter()
            .flat_map(|(name, value)| {
                value
                    .texts()
                    .into_iter()
                    .map(move |text| (name.clone(), text))
            })
            .collect();
        self.body = Body::Form(fields);
        self
    }

    /// Sends `text` as the body with `content_type`.
    pub fn text(mut self, content_type: &'static str, text: String) -> Self {
        self.body = Body::Text { content_type, text };
        self
    }

    /// Sends the fields of `body` as `multipart/form-data`: the fields named in `files` are files
    /// (see [`read_file_argument`]; a list is several files), the others text. Paths are read
    /// only inside the folder named by the environment variable `upload_env`.
    pub fn multipart(
        mut self,
        body: serde_json::Map<String, Value>,
        files: &[&str],
        upload_env: &str,
    ) -> Self {
        let mut parts = Vec::new();
        for (name, value) in body {
            if files.contains(&name.as_str()) {
                let values = match value {
                    Value::Array(values) => values,
                    value => vec![value],
                };
                for value in values {
                    match read_file_argument(&name, &value, upload_env) {
                        Ok(part) => parts.push((name.clone(), part)),
                        Err(problem) => {
                            self.invalid.get_or_insert(format!(
                                "Invalid arguments for {}: {problem}",
                                self.operation
                            ));
                        }
                    }
                }
            } else {
                for text in value.texts() {
                    parts.push((name.clone(), Part::Text(text)));
                }
            }
        }
        self.body = Body::Multipart(parts);
        self
    }
}

/// The file an argument gives: `{"content_base64": …}` or `{"path": …}` (inside the folder the
/// environment variable `upload_env` names), with an optional `filename` and `content_type`.
fn read_file_argument(name: &str, value: &Value, upload_env: &str) -> Result<Part, String> {
    let text = |key: &str| value.get(key).and_then(Value::as_str);
    let (bytes, default_name) = match (text("content_base64"), text("path")) {
        (Some(encoded), None) => {
            use base64::Engine as _;
            let compact: String = encoded.split_whitespace().collect();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(compact)
                .map_err(|error| {
                    format!("`{name}.content_base64` is not valid base64 ({error}); give the file's bytes base64-encoded")
                })?;
            (bytes, name.to_string())
        }
        (None, Some(path)) => read_upload(name, path, upload_env)?,
        (Some(_), Some(_)) => {
            return Err(format!(
                "`{name}` gives both `content_base64` and `path`; give one of them"
            ));
        }
        (None, None) => {
            return Err(format!(
                "`{name}` is a file: give `{{\"content_base64\": \"…\"}}` (its bytes in base64) or `{{\"path\": \"…\"}}`"
            ));
        }
    };
    let content_type = text("content_type").unwrap_or("application/octet-stream");
    if reqwest::multipart::Part::text("")
        .mime_str(content_type)
        .is_err()
    {
        return Err(format!(
            "`{name}.content_type` {content_type:?} is not a media type; give one such as \"image/png\""
        ));
    }
    Ok(Part::File {
        bytes,
        filename: text("filename").map_or(default_name, str::to_string),
        content_type: content_type.to_string(),
    })
}

/// Reads `path` for the file argument `name`, if it is inside the folder `upload_env` names.
fn read_upload(name: &str, path: &str, upload_env: &str) -> Result<(Vec<u8>, String), String> {
    let Some(folder) = env_var(upload_env) else {
        return Err(format!(
            "`{name}.path`: this server reads no files (its operator can allow a folder with {upload_env}); give `content_base64` instead"
        ));
    };
    let folder = std::path::Path::new(&folder)
        .canonicalize()
        .map_err(|_| format!("`{name}.path`: the server's upload folder ({upload_env}) does not exist; give `content_base64` instead"))?;
    let file = folder
        .join(path)
        .canonicalize()
        .map_err(|_| format!("`{name}.path`: there is no file {path:?} in the upload folder"))?;
    if !file.starts_with(&folder) || !file.is_file() {
        return Err(format!(
            "`{name}.path`: {path:?} is not a file inside the upload folder; give a path relative to it"
        ));
    }
    let size = file.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
    if size > MAX_UPLOAD_BYTES {
        return Err(format!(
            "`{name}.path`: {path:?} has {size} bytes, more than the {MAX_UPLOAD_BYTES} the server sends"
        ));
    }
    let bytes = std::fs::read(&file)
        .map_err(|error| format!("`{name}.path`: cannot read {path:?}: {error}"))?;
    let filename = file
        .file_name()
        .map_or_else(|| name.to_string(), |n| n.to_string_lossy().into_owned());
    Ok((bytes, filename))
}

/// Can `text` be a cookie's value without starting another cookie or breaking the header?
fn is_cookie_safe(text: &str) -> bool {
    !text
        .chars()
        .any(|c| matches!(c, ';' | ',' | '"' | '\\') || c.is_whitespace() || c.is_control())
}

/// The message for a cookie argument `name` whose value [`is_cookie_safe`] refuses.
fn cookie_problem(name: &str) -> String {
    format!(
        "Invalid argument `{name}`: a cookie value cannot contain `;`, `,`, quotes, backslashes or spaces."
    )
}

/// The text of a path parameter that is a list (OpenAPI's default style `simple`): its items
/// joined by commas.
pub fn path_text<T: ParamValue>(value: &T) -> String {
    value.texts().join(",")
}

/// Adds `value` to a JSON body under `name` unless it is `None`.
pub fn put<T: serde::Serialize>(body: &mut serde_json::Map<String, Value>, name: &str, value: &T) {
    match serde_json::to_value(value) {
        Ok(Value::Null) | Err(_) => {}
        Ok(value) => {
            body.insert(name.to_string(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn upstream() -> Upstream {
        // Nothing listens there: a request that got sent would fail with a transport error.
        Upstream::new(
            "http://127.0.0.1:9/api",
            Vec::new(),
            UpstreamOptions::default(),
        )
        .expect("a valid base URL")
    }

    #[test]
    fn a_not_found_message_names_the_thing_and_lists_in_the_plural_of_what() {
        assert_eq!(subject("project key"), "Project");
        assert_eq!(subject("issue type name"), "Issue type");
        assert_eq!(subject("user name or email"), "User");
        assert_eq!(subject("user (display name or email)"), "User");
        assert_eq!(subject("label"), "Label");
        assert_eq!(subject("user display name"), "User");
        assert_eq!(plural("user name or email"), "user names or emails");
        assert_eq!(
            plural("user (display name or email)"),
            "users (display name or email)"
        );
        let missing = NotFound {
            what: "issue type name".to_string(),
            values: vec!["Epic".to_string()],
            available: vec!["Bug".to_string(), "Task".to_string()],
        };
        assert!(
            missing.to_string().starts_with(
                "Issue type \"Epic\" not found. Available issue type names: Bug, Task."
            ),
            "{missing}"
        );
    }

    #[tokio::test]
    async fn path_parameters_that_would_climb_or_vanish_are_refused_before_sending() {
        for segment in ["", ".", ".."] {
            let request = upstream().request(
                reqwest::Method::DELETE,
                "DELETE /issues/{id}",
                &["issues", segment],
            );
            let error = upstream().send(request).await.expect_err("refused");
            assert!(
                matches!(&error, ToolError::InvalidArguments(text) if text.contains("path parameter cannot be")),
                "{segment:?}: {error:?}"
            );
        }
    }

    #[tokio::test]
    async fn a_header_value_with_a_line_break_is_refused_naming_the_argument() {
        let request = upstream()
            .request(reqwest::Method::GET, "GET /things", &["things"])
            .header("X-Trace", &"a\r\nX-Admin: 1".to_string());
        let error = upstream().send(request).await.expect_err("refused");
        assert_eq!(
            error.to_string(),
            "Invalid argument `X-Trace`: a header value cannot contain a line break."
        );
    }

    #[tokio::test]
    async fn a_cookie_value_that_would_add_a_cookie_is_refused() {
        let request = upstream()
            .request(reqwest::Method::GET, "GET /things", &["things"])
            .cookie("session", &"x; admin=1".to_string());
        assert!(matches!(
            upstream().send(request).await,
            Err(ToolError::InvalidArguments(_))
        ));
    }

    #[test]
    fn an_operation_with_its_own_server_is_called_there() {
        let request = upstream().request_on(
            "https://uploads.example/v1",
            reqwest::Method::POST,
            "POST /files/{name}",
            &["files", "a b"],
        );
        assert_eq!(
            request.url.as_str(),
            "https://uploads.example/v1/files/a%20b"
        );
        let request =
            upstream().request_on("/other", reqwest::Method::GET, "GET /files", &["files"]);
        assert_eq!(
            request.url.as_str(),
            "http://127.0.0.1:9/other/files",
            "relative to the base URL"
        );
    }

    #[test]
    fn an_operations_own_server_is_called_where_its_variable_says_and_never_after_the_base_url_changed()
     {
        let route = |configured: Option<&str>| ServerRoute {
            spec: "https://uploads.example/v1",
            env: "NOTES_UPLOADS_EXAMPLE_URL",
            configured: configured.map(str::to_string),
        };
        let with = |routes: Vec<ServerRoute>, changed: bool| {
            let options = UpstreamOptions {
                servers: routes,
                base_url_changed: changed,
                ..UpstreamOptions::default()
            };
            Upstream::new("http://127.0.0.1:9", Vec::new(), options)
                .expect("a client")
                .request_on(
                    "https://uploads.example/v1",
                    reqwest::Method::POST,
                    "POST /files",
                    &["files"],
                )
        };
        // The description's base URL: the API's own upload host.
        let request = with(vec![route(None)], false);
        assert_eq!(request.url.as_str(), "https://uploads.example/v1/files");
        assert!(request.problem.is_none());
        // Where the variable says, whatever the base URL.
        let request = with(vec![route(Some("http://127.0.0.1:7/up"))], true);
        assert_eq!(request.url.as_str(), "http://127.0.0.1:7/up/files");
        // A variable that is no URL stops the server at start.
        let options = UpstreamOptions {
            servers: vec![route(Some("notaurl"))],
            ..UpstreamOptions::default()
        };
        let error = Upstream::new("http://127.0.0.1:9", Vec::new(), options)
            .err()
            .expect("refused");
        assert!(
            error
                .to_string()
                .starts_with("NOTES_UPLOADS_EXAMPLE_URL is \"notaurl\", which is no URL"),
            "{error}"
        );
        // Base URL changed, variable unset: not sent, and the message names the variable.
        let request = with(vec![route(None)], true);
        let problem = request.problem.expect("not sent");
        assert!(
            problem.contains("NOTES_UPLOADS_EXAMPLE_URL")
                && problem.contains("https://uploads.example/v1"),
            "{problem}"
        );
    }

    #[test]
    fn path_parameters_are_written_in_their_style() {
        let list = json!(["3", 4, 5]);
        let object = json!({ "role": "admin", "first": "Alex" });
        let cases = [
            (Style::Simple, false, &list, "3,4,5"),
            (Style::Simple, false, &object, "role,admin,first,Alex"),
            (Style::Simple, true, &object, "role=admin,first=Alex"),
            (Style::Label, false, &list, ".3,4,5"),
            (Style::Label, true, &list, ".3.4.5"),
            (Style::Matrix, false, &list, ";id=3,4,5"),
            (Style::Matrix, true, &list, ";id=3;id=4;id=5"),
            (Style::Matrix, true, &object, ";role=admin;first=Alex"),
        ];
        for (style, explode, value, expected) in cases {
            assert_eq!(
                path_styled("id", value, style, explode),
                expected,
                "{style:?} explode={explode} {value}"
            );
        }
    }

    #[test]
    fn query_parameters_are_written_in_their_style() {
        let query = |style, explode, value: Value| {
            let request = upstream()
                .request(reqwest::Method::GET, "GET /things", &["things"])
                .query_styled("id", &value, style, explode);
            request.query
        };
        let pair = |name: &str, value: &str| (name.to_string(), value.to_string());
        assert_eq!(
            query(Style::Form, false, json!(["a", "b"])),
            [pair("id", "a,b")]
        );
        assert_eq!(
            query(Style::Form, true, json!(["a", "b"])),
            [pair("id", "a"), pair("id", "b")]
        );
        assert_eq!(
            query(Style::SpaceDelimited, false, json!(["a", "b"])),
            [pair("id", "a b")]
        );
        assert_eq!(
            query(Style::PipeDelimited, false, json!(["a", "b"])),
            [pair("id", "a|b")]
        );
        assert_eq!(
            query(
                Style::DeepObject,
                true,
                json!({ "role": "admin", "first": "Alex" })
            ),
            [pair("id[role]", "admin"), pair("id[first]", "Alex")]
        );
        assert_eq!(
            query(Style::Form, true, json!({ "role": "admin" })),
            [pair("role", "admin")],
            "an exploded form object is one parameter per property"
        );
        assert_eq!(
            query(Style::Form, false, json!({ "role": "admin" })),
            [pair("id", "role,admin")]
        );
        assert!(
            query(Style::Form, false, Value::Null).is_empty(),
            "an absent value adds nothing"
        );
    }

    #[test]
    fn header_and_cookie_parameters_are_written_in_their_style() {
        let request = upstream()
            .request(reqwest::Method::GET, "GET /things", &["things"])
            .header_styled("X-Ids", &json!({ "a": 1, "b": 2 }), Style::Simple, true)
            .cookie_styled("ids", &json!([1, 2]), Style::Form, false)
            .cookie_styled("tag", &json!(["x", "y"]), Style::Form, true);
        assert_eq!(request.headers, [("X-Ids", "a=1,b=2".to_string())]);
        assert_eq!(
            request.cookies,
            [
                ("ids", "1,2".to_string()),
                ("tag", "x".to_string()),
                ("tag", "y".to_string())
            ]
        );
        assert!(request.invalid.is_none());
        let request = upstream()
            .request(reqwest::Method::GET, "GET /things", &["things"])
            .cookie_styled("ids", &json!(["1", "2; admin=1"]), Style::Form, false);
        assert!(
            request.invalid.is_some(),
            "an item that would add a cookie is refused"
        );
    }

    #[test]
    fn every_unset_credential_is_named_as_needed_since_the_server_sends_them_all() {
        assert_eq!(unset_credentials(&[]), None);
        assert_eq!(
            unset_credentials(&[Credential::Unset(&["A_KEY"])]).as_deref(),
            Some("A_KEY")
        );
        assert_eq!(
            unset_credentials(&[
                Credential::Unset(&["A_KEY"]),
                Credential::Unset(&["A_USER"])
            ])
            .as_deref(),
            Some("A_KEY and A_USER")
        );
        assert_eq!(
            unset_credentials(&[
                Credential::Unset(&["U", "P"]),
                Credential::Bearer("t".into()),
                Credential::Unset(&["K"]),
            ])
            .as_deref(),
            Some("U, P and K")
        );
    }

    #[test]
    fn a_path_parameter_inside_a_segment_cannot_be_empty_or_a_dot_segment() {
        for value in ["", ".", ".."] {
            let segment = format!("{value}.json");
            let request = upstream()
                .request(
                    reqwest::Method::GET,
                    "GET /u/{username}.json",
                    &["u", &segment],
                )
                .path_value("username", value);
            assert_eq!(
                request.invalid.as_deref(),
                Some(
                    format!(
                        "Invalid argument `username`: a path parameter cannot be {value:?}; give the identifier itself."
                    )
                    .as_str()
                ),
            );
        }
        let request = upstream()
            .request(
                reqwest::Method::GET,
                "GET /u/{username}.json",
                &["u", "ada.json"],
            )
            .path_value("username", "ada");
        assert!(request.invalid.is_none());
    }

    #[test]
    fn a_next_link_to_another_origin_is_not_followed() {
        let request = upstream()
            .request(reqwest::Method::GET, "GET /things", &["things"])
            .follow("https://elsewhere.example/things?page=2");
        assert!(request.problem.is_some());
        let request = upstream()
            .request(reqwest::Method::GET, "GET /things", &["things"])
            .follow("/api/things?page=2");
        assert_eq!(request.url.as_str(), "http://127.0.0.1:9/api/things?page=2");
    }

    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(flatten)]
        upstream: UpstreamOptions,
    }

    #[test]
    fn the_upstream_defaults_are_those_of_an_empty_command_line() {
        use clap::Parser;
        assert_eq!(
            Cli::parse_from(["server"]).upstream,
            UpstreamOptions::default()
        );
    }

    #[test]
    fn every_upstream_option_is_also_read_from_the_environment() {
        use clap::{CommandFactory, FromArgMatches};
        let command = UpstreamOptions::read_env(Cli::command(), "RUNTIME_TEST");
        let variables: Vec<String> = command
            .get_arguments()
            .filter_map(|arg| arg.get_env().map(|env| env.to_string_lossy().into_owned()))
            .collect();
        assert_eq!(
            variables,
            [
                "RUNTIME_TEST_API_CONNECT_TIMEOUT",
                "RUNTIME_TEST_API_TIMEOUT",
                "RUNTIME_TEST_API_MAX_RESPONSE_BYTES",
                "RUNTIME_TEST_API_RETRIES",
                "RUNTIME_TEST_API_MAX_RETRY_WAIT",
                "RUNTIME_TEST_API_MAX_PAGES",
            ]
        );
        let matches = command
            .try_get_matches_from(["server", "--api-timeout", "0.5"])
            .expect("parses");
        let options = Cli::from_arg_matches(&matches).expect("valid").upstream;
        assert_eq!(options.api_timeout, Duration::from_millis(500));
        assert!(parse_seconds("0").is_err() && parse_seconds("soon").is_err());
    }

    #[test]
    fn retries_back_off_and_read_retry_after_in_seconds_or_as_a_date() {
        assert_eq!(backoff(1), Duration::from_millis(250));
        assert_eq!(backoff(2), Duration::from_millis(500));
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            reqwest::header::RETRY_AFTER,
            "7".parse().expect("a header value"),
        );
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(7)));
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(30));
        headers.insert(
            reqwest::header::RETRY_AFTER,
            later.parse().expect("a header value"),
        );
        let wait = retry_after(&headers).expect("a date is read");
        assert!(
            wait > Duration::from_secs(27) && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        headers.insert(
            reqwest::header::RETRY_AFTER,
            "soon".parse().expect("a header value"),
        );
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn every_format_example_fits_its_format_and_a_wrong_one_does_not() {
        for format in [
            "date",
            "date-time",
            "time",
            "duration",
            "email",
            "idn-email",
            "hostname",
            "idn-hostname",
            "ipv4",
            "ipv6",
            "uri",
            "iri",
            "uri-reference",
            "iri-reference",
            "uuid",
        ] {
            let example = format_example(format).expect("an example for each format listed");
            assert!(fits_format(format, &json!(example)), "{format}: {example}");
        }
        assert!(!fits_format("date", &json!("2026-01-31T09:30:00Z")));
        assert!(!fits_format("uuid", &json!("x")));
        assert!(!fits_format("email", &json!("nobody")));
    }

    #[test]
    fn credentials_are_blotted_out_of_text_from_the_api() {
        let secrets = vec!["s3cr3t-token".to_string(), "abc".to_string()];
        assert_eq!(
            redact("bad token s3cr3t-token for abc".to_string(), &secrets),
            "bad token <redacted> for abc"
        );
    }

    #[test]
    fn what_a_schema_accepts_is_put_in_words_with_an_example() {
        let cases = [
            (
                json!({"type": "integer", "minimum": 1, "maximum": 5}),
                "an integer from 1 to 5, e.g. 3",
            ),
            (
                json!({"type": "integer", "minimum": 1, "examples": [10]}),
                "an integer of at least 1, e.g. 10",
            ),
            (
                json!({"type": "number", "exclusiveMinimum": 0}),
                "a number above 0",
            ),
            (
                json!({"type": "string", "maxLength": 20}),
                "a string of at most 20 characters",
            ),
            (
                json!({"type": "string", "format": "uuid", "default": "x"}),
                "a string in uuid format, e.g. \"123e4567-e89b-12d3-a456-426614174000\"",
            ),
            (
                json!({"type": "string", "format": "uuid", "default": "9b2f6c1e-0d4a-4f5e-8a7b-3c2d1e0f9a8b"}),
                "a string in uuid format, e.g. \"9b2f6c1e-0d4a-4f5e-8a7b-3c2d1e0f9a8b\"",
            ),
            (
                json!({"type": "string", "format": "date", "examples": ["2024-05-01T00:00:00Z"]}),
                "a string in date format, e.g. \"2026-01-31\"",
            ),
            (
                json!({"type": "string", "format": "date"}),
                "a string in date format, e.g. \"2026-01-31\"",
            ),
            (
                json!({"type": "string", "format": "date-time"}),
                "a string in date-time format, e.g. \"2026-01-31T09:30:00Z\"",
            ),
            (
                json!({"type": "string", "format": "email"}),
                "a string in email format, e.g. \"someone@example.com\"",
            ),
            (
                json!({"type": "string", "format": "uri"}),
                "a string in uri format, e.g. \"https://example.com/path\"",
            ),
            (
                json!({"type": "string", "format": "int-ish", "default": "x"}),
                "a string in int-ish format, e.g. \"x\"",
            ),
            (
                json!({"type": ["string", "null"], "pattern": "^a"}),
                "a string matching `^a` or null",
            ),
            (
                json!({"type": "string", "enum": ["a", "b"]}),
                "one of \"a\", \"b\"",
            ),
            (
                json!({"type": "array", "maxItems": 3}),
                "a list of at most 3 items",
            ),
            (json!({"type": "boolean"}), "true or false"),
        ];
        for (schema, expected) in cases {
            assert_eq!(valid_with_example(&schema), expected, "{schema}");
        }
    }

    #[test]
    fn argument_names_are_read_from_json_pointers() {
        assert_eq!(argument_name("/priority"), "priority");
        assert_eq!(argument_name("/labels/0"), "labels[0]");
        assert_eq!(argument_name("/body/a~1b"), "body.a/b");
    }

    #[test]
    fn an_api_message_ending_in_a_full_stop_is_not_doubled() {
        let error = ToolError::Status {
            operation: "GET /things",
            status: 404,
            reason: "Not Found",
            message: "No such thing.".into(),
            retry_after: None,
        };
        assert_eq!(
            error.to_string(),
            "The API rejected GET /things with HTTP 404 Not Found: No such thing. Check the identifiers in the arguments."
        );
    }

    #[test]
    fn a_refusal_by_the_apis_rules_is_not_blamed_on_credentials_nor_worth_repeating() {
        let refused = |status, reason, message: &str| {
            ToolError::Status {
                operation: "POST /approve",
                status,
                reason,
                message: message.into(),
                retry_after: None,
            }
            .to_string()
        };
        assert_eq!(
            refused(
                403,
                "Forbidden",
                "Player command failed: Restriction violated"
            ),
            "The API rejected POST /approve with HTTP 403 Forbidden: Player command failed: Restriction violated. The API does not allow this: if its message is about access, the server's credentials lack it and the user must fix the server's configuration; otherwise it cannot be done as asked."
        );
        assert_eq!(
            refused(
                400,
                "Bad Request",
                "You can't approve your own pull request."
            ),
            "The API rejected POST /approve with HTTP 400 Bad Request: You can't approve your own pull request. Change what the API's message points to before calling again; the same arguments will be refused the same way."
        );
    }

    #[test]
    fn a_refusal_with_some_credentials_unset_names_the_ones_to_set() {
        let text = no_credential_refusal(
            "GET /cards",
            reqwest::StatusCode::UNAUTHORIZED,
            "invalid token",
            "TRELLO_TOKEN",
            false,
        );
        assert_eq!(
            text,
            "The API rejected GET /cards with HTTP 401 Unauthorized: invalid token. The server sent only some of its credentials, since the others are not set; the user must set TRELLO_TOKEN in the server's environment (or the same name with `_FILE` added, naming a file that holds the value) and start the server again."
        );
    }

    #[test]
    fn a_rate_limit_says_how_long_to_wait_in_plain_words() {
        let limited = |retry_after| ToolError::Status {
            operation: "GET /things",
            status: 429,
            reason: "Too Many Requests",
            message: String::new(),
            retry_after,
        };
        assert!(
            limited(Some(1))
                .to_string()
                .ends_with("The API is rate limited; wait 1 second before calling again."),
            "{}",
            limited(Some(1))
        );
        assert!(
            limited(Some(30))
                .to_string()
                .ends_with("The API is rate limited; wait 30 seconds before calling again.")
        );
    }
}
