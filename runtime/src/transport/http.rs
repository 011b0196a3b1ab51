//! MCP over streamable HTTP: the listener, its limits (connections, request size, idle time),
//! the allowed hosts and origins, bearer and OAuth access tokens, and a graceful shutdown.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::super::credentials::env_var;
use super::super::server::McpServer;
use super::super::upstream::options::defaulted;

/// The options of `--transport http`: where to listen, who may connect, and how much a request
/// may carry. [`HttpOptions::args`] declares them on the command line, [`HttpOptions::from_matches`]
/// reads them back.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// `--listen`: the address to listen on.
    pub listen: SocketAddr,
    /// `--auth-token-env`: the environment variable holding the token every client must send.
    pub auth_token_env: Option<String>,
    /// `--max-request-bytes`: the largest request body accepted.
    pub max_request_bytes: usize,
    /// `--allowed-hosts`: the host names clients may use besides the loopback ones.
    pub allowed_hosts: Vec<String>,
    /// `--shutdown-grace`: seconds calls in flight may take to finish after a signal.
    pub shutdown_grace: u64,
    /// `--allow-unauthenticated`: listen beyond loopback without client authentication.
    pub allow_unauthenticated: bool,
    /// `--max-connections`: the most client connections open at once.
    pub max_connections: Option<u32>,
    /// `--header-read-timeout`: seconds a connection may take to send a request's head.
    pub header_read_timeout: u64,
    /// `--idle-timeout`: seconds a connection may go without a byte read or written.
    pub idle_timeout: u64,
    /// The OAuth 2.1 protected resource's options.
    pub oauth: super::super::oauth::ResourceOptions,
}

impl HttpOptions {
    /// The ids of the options also read from the environment, which are their field names.
    const ENV_IDS: [&'static str; 3] = ["listen", "allowed_hosts", "auth_token_env"];

    /// `command` with these options, under their own heading of `--help`, and the protected
    /// resource's after them under theirs. Written with clap's builder rather than its derive,
    /// which would add clap_derive and heck to every server's build (BENCHMARKS.md, issue 26).
    pub fn args(command: clap::Command) -> clap::Command {
        use clap::{Arg, ArgAction, value_parser};
        // The heading of the options after these, as it was.
        let heading = match command.get_next_help_heading() {
            Some(heading) => clap::builder::Resettable::Value(heading.to_string().into()),
            None => clap::builder::Resettable::Reset,
        };
        let command = command
            .next_help_heading("HTTP transport (--transport http)")
            .arg(
                Arg::new("listen")
                    .long("listen")
                    .help(
                        "The address to listen on. The default accepts connections from this \
                         machine only; to serve other machines, listen on another address and \
                         name the host clients use in `--allowed-hosts`",
                    )
                    .value_name("ADDRESS:PORT")
                    .default_value("127.0.0.1:8000")
                    .value_parser(value_parser!(SocketAddr))
                    .action(ArgAction::Set),
            )
            .arg(
                Arg::new("auth_token_env")
                    .long("auth-token-env")
                    .help(
                        "Require every MCP client to send `Authorization: Bearer <token>`, with \
                         the token read at start from the environment variable VAR (the server \
                         refuses to start when VAR is unset or empty). Requests without the token \
                         are answered 401. The token is only checked, never logged and never sent \
                         to the API. For tokens from an authorization server, see \
                         `--oauth-issuer` instead",
                    )
                    .value_name("VAR")
                    .conflicts_with("oauth_issuer")
                    .action(ArgAction::Set),
            )
            .arg(
                Arg::new("max_request_bytes")
                    .long("max-request-bytes")
                    .help(
                        "The largest request body accepted, in bytes; a larger one is answered 413",
                    )
                    .value_name("BYTES")
                    .default_value(DEFAULT_MAX_REQUEST_BYTES.to_string())
                    .value_parser(value_parser!(usize))
                    .action(ArgAction::Set),
            )
            .arg(
                Arg::new("allowed_hosts")
                    .long("allowed-hosts")
                    .help(
                        "Host names (`host` or `host:port`, comma-separated) that clients may use \
                         to reach this server, besides localhost, 127.0.0.1 and ::1: for example \
                         the public name of a reverse proxy in front of it. Requests with any \
                         other `Host` header, or from a browser page whose `Origin` is not one of \
                         these hosts, are answered 403 (protection against DNS rebinding)",
                    )
                    .value_name("HOSTS")
                    .value_delimiter(',')
                    .value_parser(parse_allowed_host)
                    .action(ArgAction::Append),
            )
            .arg(
                Arg::new("shutdown_grace")
                    .long("shutdown-grace")
                    .help(
                        "How long, in seconds, calls in flight may take to finish after SIGTERM \
                         or Ctrl-C before the server stops anyway",
                    )
                    .value_name("SECONDS")
                    .default_value("30")
                    .value_parser(value_parser!(u64))
                    .action(ArgAction::Set),
            )
            .arg(
                Arg::new("allow_unauthenticated")
                    .long("allow-unauthenticated")
                    .help(
                        "Listen on an address other than loopback without `--auth-token-env`: \
                         without this the server refuses to, since anyone who can reach the port \
                         would then call the API with this server's own credentials. For a \
                         server behind a proxy or network that authenticates clients itself",
                    )
                    .action(ArgAction::SetTrue),
            )
            .arg(
                Arg::new("max_connections")
                    .long("max-connections")
                    .help(
                        "The most client connections open at once [default: 1024, lowered to \
                         stay under the process's open-file limit, `ulimit -n`, with room for the \
                         API's connections]. Past the cap the server closes the oldest connection \
                         that has not yet sent a request, to make room; when every connection \
                         has, a new one waits in the system's listen queue until one closes. Both \
                         are logged once per burst, not once per connection",
                    )
                    .value_name("N")
                    .value_parser(value_parser!(u32).range(1..))
                    .action(ArgAction::Set),
            )
            .arg(
                Arg::new("header_read_timeout")
                    .long("header-read-timeout")
                    .help(
                        "How long, in seconds, a connection may take to send a complete request \
                         line and headers, counted from when it opens and again from the end of \
                         each answer on it: a slow or idle keep-alive connection is closed after \
                         this long",
                    )
                    .value_name("SECONDS")
                    .default_value("10")
                    .value_parser(value_parser!(u64).range(1..))
                    .action(ArgAction::Set),
            )
            .arg(
                Arg::new("idle_timeout")
                    .long("idle-timeout")
                    .help(
                        "How long, in seconds, a connection may go without a byte read or written \
                         (a request body or an answer that stalls) before it is closed. Event \
                         streams the server keeps open send a keep-alive comment every 15 seconds",
                    )
                    .value_name("SECONDS")
                    .default_value("60")
                    .value_parser(value_parser!(u64).range(1..))
                    .action(ArgAction::Set),
            );
        super::super::oauth::ResourceOptions::args(command).next_help_heading(heading)
    }

    /// The options as `matches` (of a command with [`HttpOptions::args`]) gives them.
    pub fn from_matches(matches: &clap::ArgMatches) -> Self {
        Self {
            listen: defaulted(matches, "listen"),
            auth_token_env: matches.get_one::<String>("auth_token_env").cloned(),
            max_request_bytes: defaulted(matches, "max_request_bytes"),
            allowed_hosts: matches
                .get_many::<String>("allowed_hosts")
                .map(|hosts| hosts.cloned().collect())
                .unwrap_or_default(),
            shutdown_grace: defaulted(matches, "shutdown_grace"),
            allow_unauthenticated: matches.get_flag("allow_unauthenticated"),
            max_connections: matches.get_one::<u32>("max_connections").copied(),
            header_read_timeout: defaulted(matches, "header_read_timeout"),
            idle_timeout: defaulted(matches, "idle_timeout"),
            oauth: super::super::oauth::ResourceOptions::from_matches(matches),
        }
    }

    /// `command` with `--listen`, `--allowed-hosts`, `--auth-token-env` and the protected
    /// resource's options also read from the environment variable `{prefix}_{OPTION}`:
    /// `TRACKER_LISTEN` for `--listen` with prefix `TRACKER` (a container sets them so).
    pub fn read_env(command: clap::Command, prefix: &str) -> clap::Command {
        let command = Self::ENV_IDS.into_iter().fold(command, |command, id| {
            let variable = format!("{prefix}_{}", id.to_ascii_uppercase());
            command.mut_arg(id, |arg| arg.env(variable))
        });
        super::super::oauth::ResourceOptions::read_env(command, prefix)
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
    match value.parse::<hyper::http::uri::Authority>() {
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
            } else if let Ok(authority) = host.parse::<hyper::http::uri::Authority>() {
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
    let protected = super::super::oauth::ProtectedResource::new(
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
    let metadata = protected.as_ref().map(|resource| Metadata {
        path: resource.metadata_path(),
        json: resource.metadata().to_string(),
    });
    let routes = Arc::new(Routes {
        mcp: service,
        max_request_bytes: options.max_request_bytes,
        required_token,
        protected,
        scopes,
        metadata,
    });
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
        routes,
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

/// The body of a request as the routes hand it on: as it arrives, or read whole by a check that
/// had to look at it (a JSON-RPC message, a call that needs a scope) and handed on from memory.
pub type RequestBody =
    http_body_util::Either<hyper::body::Incoming, http_body_util::Full<hyper::body::Bytes>>;

/// A request to the HTTP transport.
pub type HttpRequest = hyper::Request<RequestBody>;

/// An answer of the HTTP transport (rmcp's, or one of the routes' own).
pub type HttpResponse = hyper::Response<
    http_body_util::combinators::BoxBody<hyper::body::Bytes, std::convert::Infallible>,
>;

/// `bytes` as the body of a request handed on.
pub(crate) fn read(bytes: hyper::body::Bytes) -> RequestBody {
    http_body_util::Either::Right(http_body_util::Full::new(bytes))
}

/// The whole of `body`, or `None` when it is over `limit` bytes or breaks off.
pub(crate) async fn read_body(body: RequestBody, limit: usize) -> Option<hyper::body::Bytes> {
    use http_body_util::BodyExt;

    let collected = http_body_util::Limited::new(body, limit).collect().await;
    collected.ok().map(|collected| collected.to_bytes())
}

/// An answer with `status`, `content_type` (if any) and `body`.
fn response(
    status: hyper::StatusCode,
    content_type: Option<&'static str>,
    body: impl Into<hyper::body::Bytes>,
) -> HttpResponse {
    use http_body_util::BodyExt;

    let body = http_body_util::Full::new(body.into())
        .map_err(|never| match never {})
        .boxed();
    let mut response = hyper::Response::new(body);
    *response.status_mut() = status;
    if let Some(content_type) = content_type {
        response.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static(content_type),
        );
    }
    response
}

/// A plain-text answer.
pub(crate) fn text_response(status: hyper::StatusCode, text: impl Into<String>) -> HttpResponse {
    response(status, Some("text/plain; charset=utf-8"), text.into())
}

/// A JSON answer.
pub(crate) fn json_response(status: hyper::StatusCode, json: String) -> HttpResponse {
    response(status, Some("application/json"), json)
}

/// The 413 answer to a body over `--max-request-bytes`.
pub(crate) fn payload_too_large(max_request_bytes: usize) -> HttpResponse {
    text_response(
        hyper::StatusCode::PAYLOAD_TOO_LARGE,
        format!("Payload too large: the request body is over {max_request_bytes} bytes.\n"),
    )
}

/// The protected resource's metadata document and the path it is served at.
struct Metadata {
    path: String,
    json: String,
}

/// What the HTTP transport serves, and the checks in front of MCP.
///
/// Written by hand on hyper rather than with a router crate (axum, which this was until issue
/// 26): three fixed paths need no route table, and axum, axum-core and matchit were about 5 s of
/// the CPU time of a cold debug build of a generated server, besides the router's generic layers
/// compiled into the server's own crate (BENCHMARKS.md, "Cold builds, fourth round"). It answers
/// as the router did: `/health` and the metadata to GET and HEAD (405 with `Allow: GET,HEAD` to
/// other methods) without any check; every other path through the token check and the refusal
/// of malformed JSON-RPC, then `/mcp` (and paths under it) to rmcp and anything else 404.
struct Routes<C: Send + Sync + 'static> {
    mcp: rmcp::transport::StreamableHttpService<
        McpServer<C>,
        rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
    >,
    max_request_bytes: usize,
    required_token: Option<Arc<String>>,
    protected: Option<Arc<super::super::oauth::ProtectedResource>>,
    scopes: Arc<super::super::oauth::ToolScopes>,
    metadata: Option<Metadata>,
}

/// Where MCP is served; paths under it (`/mcp/` included) go to rmcp too, as they went to the
/// service axum nested there.
const MCP_PATH: &str = "/mcp";

impl<C: Send + Sync + 'static> Routes<C> {
    async fn answer(
        self: Arc<Self>,
        request: hyper::Request<hyper::body::Incoming>,
    ) -> Result<HttpResponse, std::convert::Infallible> {
        let path = request.uri().path();
        if path == HEALTH_PATH {
            return Ok(get_only(&request, || {
                text_response(hyper::StatusCode::OK, "ok\n")
            }));
        }
        if let Some(metadata) = &self.metadata
            && (path == metadata.path || path == super::super::oauth::METADATA_PATH)
        {
            return Ok(get_only(&request, || {
                json_response(hyper::StatusCode::OK, metadata.json.clone())
            }));
        }
        let is_mcp = path
            .strip_prefix(MCP_PATH)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
        let mut request = request.map(http_body_util::Either::Left);
        if let Some(token) = &self.required_token {
            request = match require_bearer(token, request) {
                Ok(request) => request,
                Err(refusal) => return Ok(*refusal),
            };
        }
        if let Some(resource) = &self.protected {
            request = match super::super::oauth::require_access_token(
                resource,
                &self.scopes,
                self.max_request_bytes,
                request,
            )
            .await
            {
                Ok(request) => request,
                Err(refusal) => return Ok(*refusal),
            };
        }
        let request = match refuse_malformed(self.max_request_bytes, request).await {
            Ok(request) => request,
            Err(refusal) => return Ok(*refusal),
        };
        if is_mcp {
            Ok(self.mcp.handle(request).await)
        } else {
            Ok(response(hyper::StatusCode::NOT_FOUND, None, ""))
        }
    }
}

/// `answer()` to GET and HEAD (whose body hyper leaves out), 405 to any other method.
fn get_only<B>(request: &hyper::Request<B>, answer: impl FnOnce() -> HttpResponse) -> HttpResponse {
    if matches!(*request.method(), hyper::Method::GET | hyper::Method::HEAD) {
        answer()
    } else {
        let mut refusal = response(hyper::StatusCode::METHOD_NOT_ALLOWED, None, "");
        refusal.headers_mut().insert(
            hyper::header::ALLOW,
            hyper::header::HeaderValue::from_static("GET,HEAD"),
        );
        refusal
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
/// finish their answers. Written on hyper's connection builder, which has what `axum::serve` has
/// not: a header-read timeout, and room for a connection cap.
async fn accept_connections<C: Send + Sync + 'static>(
    listener: tokio::net::TcpListener,
    routes: Arc<Routes<C>>,
    limits: ConnectionLimits,
    stop: tokio_util::sync::CancellationToken,
) -> anyhow::Result<()> {
    use std::collections::VecDeque;
    use std::sync::Weak;
    use std::sync::atomic::Ordering;

    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let open: std::sync::Mutex<VecDeque<Weak<OpenConnection>>> = Default::default();
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
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
            let routes = Arc::clone(&routes);
            let connection = Arc::clone(&connection);
            hyper::service::service_fn(move |request| {
                connection.requested.store(true, Ordering::Relaxed);
                Arc::clone(&routes).answer(request)
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
    request: HttpRequest,
) -> Result<HttpRequest, Box<HttpResponse>> {
    use hyper::{Method, StatusCode, header};

    let is_json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim_start().starts_with("application/json"));
    if request.method() != Method::POST || !is_json {
        return Ok(request);
    }
    let (parts, body) = request.into_parts();
    let Some(bytes) = read_body(body, max_request_bytes).await else {
        return Err(Box::new(payload_too_large(max_request_bytes)));
    };
    match malformed_message(&bytes, "the request body") {
        None => Ok(HttpRequest::from_parts(parts, read(bytes))),
        Some((code, message)) => {
            let error = serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": { "code": code, "message": message },
            });
            Err(Box::new(json_response(
                StatusCode::BAD_REQUEST,
                error.to_string(),
            )))
        }
    }
}

/// Why `bytes` is not one JSON-RPC message, as an error code and message: -32700 (parse error)
/// when they are not UTF-8 or not JSON (nesting deeper than serde_json's 128 levels included),
/// -32600 (invalid request) for a batch array or any other non-object; `None` for an object.
/// `what` names the bytes in the message ("the request body").
pub(super) fn malformed_message(bytes: &[u8], what: &str) -> Option<(i64, String)> {
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
fn require_bearer(token: &str, request: HttpRequest) -> Result<HttpRequest, Box<HttpResponse>> {
    use hyper::{StatusCode, header};
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
        Ok(request)
    } else {
        let mut response = text_response(
            StatusCode::UNAUTHORIZED,
            "Unauthorized: send this server's token as `Authorization: Bearer <token>`.\n",
        );
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            hyper::header::HeaderValue::from_static("Bearer"),
        );
        Err(Box::new(response))
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
