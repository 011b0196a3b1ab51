//! The MCP server handler ([`McpServer`]): the tool registry, `tools/list`, and `tools/call`,
//! which checks the arguments against the tool's input schema, runs the tool and checks its
//! answer against the output schema.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    Implementation, JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use super::arguments::{compile_schema, describe_argument_error, misfit};
use super::schema::Schema;
use super::tool::{ToolError, ToolFuture};

/// The most problems with one call's arguments listed back to the model.
const MAX_ARGUMENT_PROBLEMS: usize = 5;

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
    input: OnceLock<Schema>,
    output: OnceLock<Schema>,
}

impl<C> LoadedTool<C> {
    /// Every way `arguments` break the tool's `inputSchema`, worded for the model; `None` when
    /// they fit.
    fn check_arguments(&self, arguments: &JsonObject) -> Option<String> {
        let schema = self.input.get_or_init(|| {
            let schema = Value::Object(self.definition.input_schema.as_ref().clone());
            compile_schema(&self.definition.name, "input", &schema)
        });
        let arguments = Value::Object(arguments.clone());
        let errors = schema.errors(&arguments, MAX_ARGUMENT_PROBLEMS);
        if errors.is_empty() {
            return None;
        }
        let problems: Vec<String> = errors.iter().map(describe_argument_error).collect();
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
        let checker = self.output.get_or_init(|| {
            compile_schema(
                &self.definition.name,
                "output",
                &Value::Object(schema.clone()),
            )
        });
        misfit(checker, value)
    }
}

/// The MCP server: a fixed list of tools over one upstream client `C`.
pub struct McpServer<C> {
    client: Arc<C>,
    pub(super) identity: Arc<ServerIdentity>,
    tools: Arc<Vec<LoadedTool<C>>>,
    by_name: Arc<HashMap<String, usize>>,
    /// The scopes each tool needs from an access token (see [`McpServer::with_scopes`]).
    pub(super) scopes: Arc<super::oauth::ToolScopes>,
    /// The tool calls in flight, which a graceful shutdown waits for.
    pub(super) calls: tokio_util::task::TaskTracker,
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
    pub(super) fn scopes_supported(&self) -> Vec<String> {
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
        let call = super::oauth::as_caller(
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
fn grant(context: &RequestContext<RoleServer>) -> Option<&super::oauth::Grant> {
    context
        .extensions
        .get::<hyper::http::request::Parts>()?
        .extensions
        .get::<super::oauth::Grant>()
}

/// The text of a result that has no output schema.
fn plain_text(value: Value) -> String {
    match value {
        Value::Null => "Done.".to_string(),
        Value::String(text) => text,
        other => other.to_string(),
    }
}
