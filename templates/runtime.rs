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
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    Implementation, JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The most bytes of an upstream response body the server reads.
const MAX_RESPONSE_BYTES: usize = 8 * 1024 * 1024;
/// The most characters of an upstream error body quoted back to the model.
const MAX_ERROR_TEXT: usize = 2_000;

/// The future a tool's handler returns.
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send>>;

/// What a tool returns: its result, and notes for the model (such as how to get the rest of a
/// truncated result), sent as extra text after the result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub value: Value,
    pub notes: Vec<String>,
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

/// A tool ready to serve: its parsed definition and its handler.
struct LoadedTool<C> {
    definition: Tool,
    structured: bool,
    call: fn(Arc<C>, JsonObject) -> ToolFuture,
}

/// The MCP server: a fixed list of tools over one upstream client `C`.
pub struct McpServer<C> {
    client: Arc<C>,
    identity: Arc<ServerIdentity>,
    tools: Arc<Vec<LoadedTool<C>>>,
    by_name: Arc<HashMap<String, usize>>,
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
            });
        }
        Ok(Self {
            client: Arc::new(client),
            identity: Arc::new(identity),
            tools: Arc::new(tools),
            by_name: Arc::new(by_name),
            calls: tokio_util::task::TaskTracker::new(),
        })
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
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.tools.iter().map(|tool| tool.definition.clone()).collect();
        let scope = if self.identity.tools_list_public {
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
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self.find(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            ));
        };
        let arguments = request.arguments.unwrap_or_default();
        let call = (tool.call)(Arc::clone(&self.client), arguments);
        let result = match self.calls.track_future(call).await {
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
                tracing::debug!(tool = %request.name, %error, "tool call failed");
                CallToolResult::error(vec![ContentBlock::text(error.to_string())])
            }
        };
        Ok(result.into())
    }
}

/// The text of a result that has no output schema.
fn plain_text(value: Value) -> String {
    match value {
        Value::Null => "Done.".to_string(),
        Value::String(text) => text,
        other => other.to_string(),
    }
}

/// Serves MCP over this process's stdin and stdout until the client closes them.
pub async fn serve_stdio<C: Send + Sync + 'static>(server: McpServer<C>) -> anyhow::Result<()> {
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
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
    /// logged and never sent to the API.
    #[arg(long, value_name = "VAR")]
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
}

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
    let hosts: Vec<String> = LOOPBACK_HOSTS
        .iter()
        .map(|host| host.to_string())
        .chain(options.allowed_hosts.iter().cloned())
        .collect();
    let sessions = tokio_util::sync::CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        .with_allowed_hosts(hosts.clone())
        .with_allowed_origins(allowed_origins(&hosts))
        .enforce_origin_validation()
        .with_max_request_body_bytes(options.max_request_bytes)
        .with_cancellation_token(sessions.clone());
    let calls = server.calls.clone();
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let mut router = axum::Router::new().nest_service("/mcp", service);
    if let Some(token) = required_token {
        router = router.layer(axum::middleware::from_fn(move |request, next| {
            require_bearer(Arc::clone(&token), request, next)
        }));
    }
    let listen = options.listen;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|error| anyhow::anyhow!("cannot listen on {listen}: {error}"))?;
    tracing::info!("serving MCP on http://{}/mcp", listener.local_addr()?);

    let stop_accepting = tokio_util::sync::CancellationToken::new();
    let mut serving = tokio::spawn(
        axum::serve(listener, router)
            .with_graceful_shutdown(stop_accepting.clone().cancelled_owned())
            .into_future(),
    );
    tokio::select! {
        finished = &mut serving => return Ok(finished??),
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
        return Ok(finished??);
    }
    sessions.cancel();
    match tokio::time::timeout(RESPONSE_FLUSH, &mut serving).await {
        Ok(finished) => Ok(finished??),
        Err(_) => {
            serving.abort();
            Ok(())
        }
    }
}

/// How long answered connections get to close on shutdown before they are closed for them.
const RESPONSE_FLUSH: Duration = Duration::from_secs(1);

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
    },
    /// The upstream API could not be reached or its answer could not be read.
    Transport {
        operation: &'static str,
        message: String,
    },
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
            } => {
                write!(f, "The API rejected {operation} with HTTP {status} {reason}")?;
                if !message.is_empty() {
                    // The API's own sentence may end with a full stop already.
                    write!(f, ": {}", message.trim_end_matches('.'))?;
                }
                match status {
                    400 | 422 => write!(f, ". Check the arguments and call the tool again."),
                    401 | 403 => write!(
                        f,
                        ". The server's credentials for the API are missing or not allowed to do this; the user must fix the server's configuration."
                    ),
                    404 => write!(f, ". Check the identifiers in the arguments."),
                    429 => write!(f, ". The API is rate limited; wait before calling again."),
                    500..=599 => write!(f, ". The API failed; try again later."),
                    _ => Ok(()),
                }
            }
            ToolError::Transport { operation, message } => {
                write!(f, "Could not complete {operation}: {message}. Try again later.")
            }
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
        }
    }
}

/// Reads an optional environment variable; an empty value counts as unset.
pub fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

/// The HTTP client for the upstream API.
pub struct Upstream {
    http: reqwest::Client,
    base_url: reqwest::Url,
    credentials: Vec<Credential>,
}

impl Upstream {
    /// A client for the API at `base_url` that sends `credentials` with every request.
    pub fn new(base_url: &str, credentials: Vec<Credential>) -> anyhow::Result<Self> {
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
        // Redirects are followed only within the API's own origin: reqwest strips
        // `Authorization` on a cross-host hop but not API-key headers.
        let origin = base_url.origin();
        let redirects = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= 10 {
                attempt.error("too many redirects")
            } else if attempt.url().origin() == origin {
                attempt.follow()
            } else {
                attempt.stop()
            }
        });
        let http = reqwest::Client::builder()
            .redirect(redirects)
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(60))
            .user_agent(concat!(env!("CARGO_PKG_NAME"), "/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Self {
            http,
            base_url,
            credentials,
        })
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
        }
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

    async fn exchange(&self, request: UpstreamRequest) -> Result<(Value, Option<String>), ToolError> {
        let operation = request.operation;
        if let Some(invalid) = request.invalid {
            return Err(ToolError::InvalidArguments(invalid));
        }
        if let Some(problem) = request.problem {
            return Err(ToolError::Transport {
                operation,
                message: problem,
            });
        }
        let mut builder = self.http.request(request.method, request.url);
        let mut query = request.query;
        let mut cookies = request.cookies;
        for credential in &self.credentials {
            match credential {
                Credential::Bearer(token) => builder = builder.bearer_auth(token),
                Credential::Fetched(source) => builder = builder.bearer_auth(source.token().await?),
                Credential::Basic { username, password } => {
                    builder = builder.basic_auth(username, password.as_ref())
                }
                Credential::ApiKey {
                    location,
                    name,
                    value,
                } => match location {
                    KeyLocation::Header => builder = builder.header(*name, value),
                    KeyLocation::Query => query.push((name.to_string(), value.clone())),
                    KeyLocation::Cookie => cookies.push((*name, value.clone())),
                },
            }
        }
        if !query.is_empty() {
            builder = builder.query(&query);
        }
        for (name, value) in request.headers {
            builder = builder.header(name, value);
        }
        if !cookies.is_empty() {
            let cookie: Vec<String> = cookies
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect();
            builder = builder.header(reqwest::header::COOKIE, cookie.join("; "));
        }
        builder = match request.body {
            Body::None => builder,
            Body::Json(value) => builder.json(&value),
            Body::Form(fields) => builder.form(&fields),
            Body::Text { content_type, text } => builder
                .header(reqwest::header::CONTENT_TYPE, content_type)
                .body(text),
        };
        let response = builder.send().await.map_err(|error| ToolError::Transport {
            operation,
            message: describe_transport_error(&error),
        })?;
        let status = response.status();
        let link = response
            .headers()
            .get(reqwest::header::LINK)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string);
        let bytes = read_limited(response)
            .await
            .map_err(|message| ToolError::Transport { operation, message })?;
        let body = parse_body(&bytes);
        if status.is_success() {
            Ok((body, link))
        } else {
            Err(ToolError::Status {
                operation,
                status: status.as_u16(),
                reason: status.canonical_reason().unwrap_or(""),
                message: error_message(&body),
            })
        }
    }
}

fn describe_transport_error(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        "the API did not answer in time".to_string()
    } else if error.is_connect() {
        "the API is not reachable (connection failed)".to_string()
    } else {
        "the request to the API failed".to_string()
    }
}

async fn read_limited(mut response: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|_| "the API's answer was cut off".to_string())?
    {
        if bytes.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(format!(
                "the API's answer is larger than {} MiB; narrow the request",
                MAX_RESPONSE_BYTES / (1024 * 1024)
            ));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
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
}

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
}

/// A value that can be sent as a query, header or cookie parameter.
pub trait ParamValue {
    /// The value's text form; a list gives one text per element.
    fn texts(&self) -> Vec<String>;
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
            other => vec![other.to_string()],
        }
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
}

impl UpstreamRequest {
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
            if text
                .chars()
                .any(|c| matches!(c, ';' | ',' | '"' | '\\') || c.is_whitespace() || c.is_control())
                || texts.len() > 1
            {
                self.invalid = Some(format!(
                    "Invalid argument `{name}`: a cookie value cannot contain `;`, `,`, quotes, backslashes or spaces."
                ));
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

    fn upstream() -> Upstream {
        // Nothing listens there: a request that got sent would fail with a transport error.
        Upstream::new("http://127.0.0.1:9/api", Vec::new()).expect("a valid base URL")
    }

    #[tokio::test]
    async fn path_parameters_that_would_climb_or_vanish_are_refused_before_sending() {
        for segment in ["", ".", ".."] {
            let request = upstream().request(reqwest::Method::DELETE, "DELETE /issues/{id}", &["issues", segment]);
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

    #[test]
    fn an_api_message_ending_in_a_full_stop_is_not_doubled() {
        let error = ToolError::Status {
            operation: "GET /things",
            status: 404,
            reason: "Not Found",
            message: "No such thing.".into(),
        };
        assert_eq!(
            error.to_string(),
            "The API rejected GET /things with HTTP 404 Not Found: No such thing. Check the identifiers in the arguments."
        );
    }
}
