//! Support for the end-to-end tests: builds the generated tracker server once per test process,
//! runs the tracker API in-process as its upstream, starts the server over stdio or Streamable
//! HTTP, and talks to it with rmcp's client or with the Python SDK (`mcp_probe.py`).
//!
//! Every wait is bounded, everything listens on 127.0.0.1 with a port the system picked, and every
//! process started here belongs to a guard that kills it when dropped, also when a test panics.
//!
//! Two servers can be under test (see [`Server`]): the zero-config mirror that `tests/suite/e2e.rs`
//! generates, and the committed curated crate `generated-examples/tracker-mcp` that
//! `tests/suite/curated_e2e.rs` uses. The functions without a `Server` argument run the mirror.

// Each test module uses only part of it.
#![allow(dead_code)]

pub mod chaos;
pub mod cli;
pub mod recorder;

use std::fmt;
use std::fs::File;
use std::future::Future;
use std::io::{Read, Seek};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, ListToolsResult, ProtocolVersion,
};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{
    ConfigureCommandExt, IntoTransport, StreamableHttpClientTransport, TokioChildProcess,
};
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceError};
use serde_json::Value;
use tokio::sync::oneshot;

/// The longest a build of the generated crate may take. A warm build takes a second; a cold one
/// (a fresh clone, on 2 cores) compiles about a hundred crates.
const BUILD_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// The longest one scenario may take once the server is built.
const SCENARIO_TIMEOUT: Duration = Duration::from_secs(120);
/// The longest one MCP request, the handshake included, or one direct API request may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(15);
/// The longest an HTTP server may take to accept connections.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(15);
/// The longest one run of `mcp_probe.py` may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(90);
/// How often a process or a port is checked while waiting for it.
const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// The API token the server is configured with: the tracker user alice.
pub const TOKEN: &str = "alice-token";

/// The repository root.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// How a client reaches the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// The client starts the server and speaks over its stdin and stdout.
    Stdio,
    /// The server runs on its own (`--transport http`) and serves Streamable HTTP at `/mcp`.
    Http,
}

/// Which generation of the protocol the client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// 2025-11-25: the `initialize` handshake, sessions over HTTP.
    V2025_11_25,
    /// 2026-07-28: `server/discover`, then self-contained (stateless) requests.
    V2026_07_28,
}

impl Protocol {
    /// The version the client must end up with.
    pub fn version(self) -> ProtocolVersion {
        match self {
            Protocol::V2025_11_25 => ProtocolVersion::V_2025_11_25,
            Protocol::V2026_07_28 => ProtocolVersion::V_2026_07_28,
        }
    }

    fn lifecycle(self) -> ClientLifecycleMode {
        match self {
            Protocol::V2025_11_25 => ClientLifecycleMode::Initialize,
            Protocol::V2026_07_28 => ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        }
    }

    /// The `--mode` of `mcp_probe.py` that speaks this version.
    fn probe_mode(self) -> &'static str {
        match self {
            Protocol::V2025_11_25 => "legacy",
            Protocol::V2026_07_28 => "2026-07-28",
        }
    }
}

/// A transport and a protocol version: one way for a client to talk to the server.
#[derive(Debug, Clone, Copy)]
pub struct Connection {
    pub transport: Transport,
    pub protocol: Protocol,
}

impl fmt::Display for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let transport = match self.transport {
            Transport::Stdio => "stdio",
            Transport::Http => "Streamable HTTP",
        };
        write!(f, "{} over {transport}", self.protocol.version())
    }
}

/// Which generated server a test runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    /// The zero-config mirror of `specs/tracker/openapi.yaml`, generated into
    /// `target/e2e/tracker-mirror` (see [`tracker_mcp`]); it reads `TRACKER_MIRROR_BASE_URL` and
    /// `TRACKER_MIRROR_TOKEN`.
    Mirror,
    /// The committed curated crate `generated-examples/tracker-mcp` (see [`curated_tracker_mcp`]);
    /// it reads `TRACKER_BASE_URL` and `TRACKER_TOKEN`.
    Curated,
}

impl Server {
    /// The server's binary, built on first use (once per test process).
    pub fn binary(self) -> &'static Path {
        match self {
            Server::Mirror => tracker_mcp(),
            Server::Curated => curated_tracker_mcp(),
        }
    }

    /// The environment variable the server reads the API's base URL from.
    pub fn base_url_env(self) -> &'static str {
        match self {
            Server::Mirror => "TRACKER_MIRROR_BASE_URL",
            Server::Curated => "TRACKER_BASE_URL",
        }
    }

    /// The environment variable the server reads its own API token from.
    pub fn token_env(self) -> &'static str {
        match self {
            Server::Mirror => "TRACKER_MIRROR_TOKEN",
            Server::Curated => "TRACKER_TOKEN",
        }
    }
}

/// Runs one scenario: builds the server first (once per process, not counted in the scenario's
/// time), then runs the scenario on a fresh runtime, failing it if it takes longer than a minute.
pub fn run<Scenario, Fut>(scenario: Scenario)
where
    Scenario: FnOnce() -> Fut,
    Fut: Future<Output = ()>,
{
    run_with(Server::Mirror, scenario);
}

/// [`run`] for the given server.
pub fn run_with<Scenario, Fut>(server: Server, scenario: Scenario)
where
    Scenario: FnOnce() -> Fut,
    Fut: Future<Output = ()>,
{
    server.binary();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    runtime.block_on(async {
        if tokio::time::timeout(SCENARIO_TIMEOUT, scenario())
            .await
            .is_err()
        {
            panic!("the scenario did not finish within {SCENARIO_TIMEOUT:?}");
        }
    });
}

/// Awaits `future`, failing the test if it takes longer than [`CALL_TIMEOUT`].
async fn bounded<F: Future>(what: impl fmt::Display, future: F) -> F::Output {
    match tokio::time::timeout(CALL_TIMEOUT, future).await {
        Ok(output) => output,
        Err(_) => panic!("{what} did not finish within {CALL_TIMEOUT:?}"),
    }
}

// --- The server under test ----------------------------------------------------------------------

/// The binary of the tracker server: generated with mcpgen's library from
/// `specs/tracker/openapi.yaml` alone (no curation file, so one tool per operation, like
/// `generated-examples/tracker-mirror`) into `target/e2e/tracker-mirror`, then built in debug
/// with the target directory that every generated crate shares, `target/generated`. Done once per
/// test process; a failure fails every test with cargo's output.
pub fn tracker_mcp() -> &'static Path {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match BINARY.get_or_init(build_tracker_mcp) {
        Ok(binary) => binary,
        Err(message) => panic!("{message}"),
    }
}

/// The name the mirror is generated with, as `generated-examples/tracker-mirror` is: crates that
/// share one target directory need distinct names (cargo tells path crates apart by name and
/// version), so the curated `tracker-mcp` and this mirror (`tracker-mirror-mcp`) never mix.
pub const MIRROR_NAME: &str = "tracker-mirror";

fn build_tracker_mcp() -> Result<PathBuf, String> {
    let spec = repo().join("specs/tracker/openapi.yaml");
    let crate_dir = repo().join("target/e2e/tracker-mirror");
    let options = mcpgen::Options {
        name: Some(MIRROR_NAME.to_string()),
        ..Default::default()
    };
    let (_, files) = mcpgen::generate(&spec, None, &options)
        .map_err(|e| format!("mcpgen cannot generate {}: {e:#}", spec.display()))?;
    mcpgen::write::write(&crate_dir, &files)
        .map_err(|e| format!("cannot write the generated crate: {e}"))?;
    build_crate(&crate_dir, &format!("{MIRROR_NAME}-mcp"))
}

/// The binary of the committed curated tracker server, `generated-examples/tracker-mcp` (not
/// regenerated: `tests/suite/golden.rs` checks that it is what mcpgen generates today), built in
/// debug into `target/generated`. Done once per test process; a failure fails every test with
/// cargo's output.
pub fn curated_tracker_mcp() -> &'static Path {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match BINARY.get_or_init(|| {
        build_crate(
            &repo().join("generated-examples/tracker-mcp"),
            "tracker-mcp",
        )
    }) {
        Ok(binary) => binary,
        Err(message) => panic!("{message}"),
    }
}

/// Generates `spec` (with `curation`, when given) into `target/e2e/<name>`, checks it with clippy
/// (warnings denied) and builds it in the target directory every generated crate shares; returns
/// the binary.
pub fn generate_and_build(name: &str, spec: &Path, curation: Option<&Path>) -> PathBuf {
    let dir = repo().join("target/e2e").join(name);
    let (plan, files) = mcpgen::generate(spec, curation, &mcpgen::Options::default())
        .unwrap_or_else(|e| panic!("{} generates: {e:#}", spec.display()));
    mcpgen::write::write(&dir, &files).expect("the crate is written");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["clippy", "--quiet", "--all-targets", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .args(["--", "-D", "warnings"])
        .env("CARGO_TARGET_DIR", repo().join("target/generated"))
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{name} does not pass clippy:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let binary =
        build_crate(&dir, &plan.server.crate_name).unwrap_or_else(|message| panic!("{message}"));
    run_own_tests(&dir).unwrap_or_else(|message| panic!("{name}: {message}"));
    binary
}

/// Runs the generated crate's own tests (`tests/tools.rs`: every tool called against its
/// stand-in, the exact requests and the output schemas checked), so that a generated test that
/// fails on a fixture's crate fails mcpgen's suite, not only a user's CI.
pub fn run_own_tests(crate_dir: &Path) -> Result<(), String> {
    let _one_at_a_time = generated_target_lock();
    cargo_on_generated(&["test", "--quiet", "--test", "tools"], crate_dir)
}

/// Runs `cargo ARGS --manifest-path CRATE_DIR/Cargo.toml` into `target/generated` (the caller
/// holds [`generated_target_lock`]), bounded by [`BUILD_TIMEOUT`]; on failure, what cargo printed.
fn cargo_on_generated(args: &[&str], crate_dir: &Path) -> Result<(), String> {
    let target_dir = repo().join("target/generated");
    let manifest = crate_dir.join("Cargo.toml");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut output = Log::new(format!("cargo {}", args[0]));
    let mut command = Command::new(cargo);
    command
        .args(args)
        .arg("--manifest-path")
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", &target_dir)
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .stdin(Stdio::null())
        .stdout(output.writer())
        .stderr(output.writer());
    let ran = format!(
        "cargo {} --manifest-path {} (CARGO_TARGET_DIR={})",
        args.join(" "),
        manifest.display(),
        target_dir.display()
    );
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot run {ran}: {e}"))?;
    match wait_or_kill(&mut child, BUILD_TIMEOUT) {
        Some(status) if status.success() => Ok(()),
        Some(status) => Err(format!("{ran} failed ({status}):\n{}", output.read())),
        None => Err(format!(
            "{ran} did not finish within {BUILD_TIMEOUT:?}:\n{}",
            output.read()
        )),
    }
}

/// Builds the crate in `crate_dir` in debug with `cargo build --manifest-path
/// CRATE_DIR/Cargo.toml` into the target directory that every generated crate shares,
/// `target/generated`, and returns the path of its binary `binary_name`; on failure, what cargo
/// printed.
pub fn build_crate(crate_dir: &Path, binary_name: &str) -> Result<PathBuf, String> {
    let _one_at_a_time = generated_target_lock();
    let target_dir = repo().join("target/generated");
    cargo_on_generated(&["build", "--quiet"], crate_dir)?;
    let file_name = format!("{binary_name}{}", std::env::consts::EXE_SUFFIX);
    let binary = target_dir.join("debug").join(&file_name);
    if !binary.is_file() {
        return Err(format!(
            "cargo build --manifest-path {} succeeded but did not make {}",
            crate_dir.join("Cargo.toml").display(),
            binary.display()
        ));
    }
    // A copy of the crate's own, taken before the lock is released: another crate of the same
    // binary name (the committed github-mcp and a zero-config GitHub crate) builds into the same
    // place next. Written beside it and renamed over the last copy, which a server of an earlier
    // test may still be running.
    let relative = crate_dir.strip_prefix(repo()).unwrap_or(crate_dir);
    let own = target_dir
        .join("servers")
        .join(relative.to_string_lossy().replace(['/', '\\', ':'], "-"));
    std::fs::create_dir_all(&own).map_err(|e| format!("cannot create {}: {e}", own.display()))?;
    let copy = own.join(&file_name);
    let staged = own.join(format!("{file_name}.new"));
    std::fs::copy(&binary, &staged)
        .and_then(|_| std::fs::rename(&staged, &copy))
        .map_err(|e| {
            format!(
                "cannot copy {} to {}: {e}",
                binary.display(),
                copy.display()
            )
        })?;
    Ok(copy)
}

/// Cargo on `target/generated` one at a time for the whole suite (cargo would wait for its own
/// lock anyway): [`build_crate`] copies each binary out before another build of the same name
/// can replace it, and tests that run cargo themselves there take this too.
pub fn generated_target_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Waits for `child` to exit; after `timeout`, kills it and returns `None`.
pub fn wait_or_kill(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(POLL_INTERVAL),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// A process's stderr, kept in an anonymous temporary file rather than mixed into the test
/// output: quoted in failure messages, and printed when a test panics while it is alive.
struct Log {
    file: File,
    process: String,
}

impl Log {
    fn new(process: impl Into<String>) -> Log {
        Log {
            file: tempfile::tempfile().expect("a temporary file for a process's stderr"),
            process: process.into(),
        }
    }

    fn writer(&self) -> File {
        self.file
            .try_clone()
            .expect("a second handle on the log file")
    }

    fn read(&mut self) -> String {
        let mut text = String::new();
        let _ = self.file.rewind();
        let _ = self.file.read_to_string(&mut text);
        text
    }
}

impl Drop for Log {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let text = self.read();
            if !text.is_empty() {
                eprintln!("--- stderr of {} ---\n{text}", self.process);
            }
        }
    }
}

/// The server running on its own with `--transport http`, killed when dropped.
pub struct HttpServer {
    child: Child,
    stderr: Log,
    url: String,
}

impl HttpServer {
    /// Starts the server on a free loopback port in front of `upstream` and waits until it accepts
    /// connections.
    pub async fn start(upstream: &Upstream) -> HttpServer {
        HttpServer::start_server(Server::Mirror, upstream).await
    }

    /// [`HttpServer::start`] for the given server.
    pub async fn start_server(server: Server, upstream: &Upstream) -> HttpServer {
        HttpServer::start_server_with_token(server, upstream, Some(TOKEN)).await
    }

    /// [`HttpServer::start_server`] with `token` as the server's own API token, or with none at
    /// all (its token variable removed from its environment).
    pub async fn start_server_with_token(
        kind: Server,
        upstream: &Upstream,
        token: Option<&str>,
    ) -> HttpServer {
        let env = [(kind.token_env(), token), (kind.base_url_env(), None)];
        HttpServer::start_binary(kind.binary(), upstream.base_url(), &env).await
    }

    /// Starts `binary` (any generated server) with `--transport http` on a free loopback port
    /// and `--base-url base_url`, with `env` set (a `None` value removes the variable), and waits
    /// until it accepts connections.
    pub async fn start_binary(
        binary: &Path,
        base_url: &str,
        env: &[(&str, Option<&str>)],
    ) -> HttpServer {
        // The port is free when picked but could be taken before the server binds it; another
        // port is tried then.
        const ATTEMPTS: usize = 3;
        for attempt in 1..=ATTEMPTS {
            let address = free_loopback_address();
            let stderr = Log::new(format!("the HTTP server on {address}"));
            let mut command = Command::new(binary);
            for (name, value) in env {
                match value {
                    Some(value) => command.env(name, value),
                    None => command.env_remove(name),
                };
            }
            let child = command
                .args(["--transport", "http", "--listen", &address.to_string()])
                .args(["--base-url", base_url])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(stderr.writer())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
            let mut server = HttpServer {
                child,
                stderr,
                url: format!("http://{address}/mcp"),
            };
            match server.wait_until_listening(address).await {
                Ok(()) => return server,
                Err(log) if attempt < ATTEMPTS && log.contains("cannot listen") => continue,
                Err(log) => {
                    drop(server);
                    panic!("the HTTP server on {address} did not start: {log}");
                }
            }
        }
        unreachable!("the last attempt returns or panics")
    }

    /// The server's MCP endpoint.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Polls until `address` accepts a connection; on failure, what the server printed.
    async fn wait_until_listening(&mut self, address: SocketAddr) -> Result<(), String> {
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!("it exited ({status}):\n{}", self.stderr.read()));
            }
            if tokio::net::TcpStream::connect(address).await.is_ok() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "no connection within {STARTUP_TIMEOUT:?}:\n{}",
                    self.stderr.read()
                ));
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback address with a port nobody listens on right now.
fn free_loopback_address() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port on 127.0.0.1")
}

// --- The upstream API ---------------------------------------------------------------------------

/// The tracker API with fresh seed data, served in-process on a free loopback port; stopped when
/// dropped.
pub struct Upstream {
    base_url: String,
    http: reqwest::Client,
    shutdown: Option<oneshot::Sender<()>>,
}

impl Upstream {
    pub async fn start() -> Upstream {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port on 127.0.0.1 for the tracker API");
        let address = listener.local_addr().expect("the tracker API's address");
        let (shutdown, stop) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let stopped = async {
                let _ = stop.await;
            };
            if let Err(error) = tracker_api::serve_with_shutdown(listener, stopped).await {
                eprintln!("the tracker API on {address} failed: {error}");
            }
        });
        Upstream {
            base_url: format!("http://{address}"),
            http: reqwest::Client::builder()
                .timeout(CALL_TIMEOUT)
                .build()
                .expect("an HTTP client"),
            shutdown: Some(shutdown),
        }
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// `GET path` straight from the API, as alice: the API's own view, not the MCP server's.
    /// Returns the status and the JSON body.
    pub async fn get(&self, path: &str) -> (u16, Value) {
        let url = format!("{}{path}", self.base_url);
        let response = self
            .http
            .get(&url)
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap_or_else(|e| panic!("GET {url}: {e}"));
        let status = response.status().as_u16();
        let body = response
            .json()
            .await
            .unwrap_or_else(|e| panic!("GET {url}: the body is not JSON: {e}"));
        (status, body)
    }

    /// `GET path` straight from the API, which must answer 200; returns the JSON body.
    pub async fn get_ok(&self, path: &str) -> Value {
        match self.get(path).await {
            (200, body) => body,
            (status, body) => panic!("GET {path}: the API answered {status}: {body}"),
        }
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

// --- rmcp's client ------------------------------------------------------------------------------

/// rmcp's client, connected to a fresh server in front of an [`Upstream`]. The server process
/// ends with the client: a stdio server is killed with its transport, an HTTP one by its guard.
pub struct McpClient {
    service: RunningService<RoleClient, ClientConfig>,
    connection: Connection,
    // Declared after `service`, so the client disconnects before the server is killed.
    _http_server: Option<HttpServer>,
    _stdio_server_stderr: Option<Log>,
}

impl McpClient {
    /// Starts the server, connects to it, and checks that the agreed protocol version is the one
    /// asked for.
    pub async fn connect(connection: Connection, upstream: &Upstream) -> McpClient {
        McpClient::connect_to(Server::Mirror, connection, upstream).await
    }

    /// [`McpClient::connect`] for the given server.
    pub async fn connect_to(
        server: Server,
        connection: Connection,
        upstream: &Upstream,
    ) -> McpClient {
        McpClient::start(server, connection, upstream, None).await
    }

    /// [`McpClient::connect_to`] over Streamable HTTP, with `Authorization: Bearer {token}` on
    /// every request the client sends (a client's own credentials, which the server must not
    /// pass on to the API).
    pub async fn connect_with_bearer(
        server: Server,
        connection: Connection,
        upstream: &Upstream,
        token: &str,
    ) -> McpClient {
        assert_eq!(
            connection.transport,
            Transport::Http,
            "an Authorization header needs HTTP"
        );
        McpClient::start(server, connection, upstream, Some(token)).await
    }

    async fn start(
        server: Server,
        connection: Connection,
        upstream: &Upstream,
        bearer: Option<&str>,
    ) -> McpClient {
        let binary = server.binary();
        let (service, http_server, stdio_server_stderr) = match connection.transport {
            Transport::Stdio => {
                let stderr = Log::new("the stdio server");
                let command = tokio::process::Command::new(binary).configure(|command| {
                    command
                        .env(server.base_url_env(), upstream.base_url())
                        .env(server.token_env(), TOKEN)
                        .kill_on_drop(true);
                });
                let (transport, _) = TokioChildProcess::builder(command)
                    .stderr(stderr.writer())
                    .spawn()
                    .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
                (handshake(connection, transport).await, None, Some(stderr))
            }
            Transport::Http => {
                let http_server = HttpServer::start_server(server, upstream).await;
                let mut config = StreamableHttpClientTransportConfig::with_uri(http_server.url());
                if let Some(token) = bearer {
                    config = config.auth_header(token);
                }
                let transport = StreamableHttpClientTransport::from_config(config);
                (
                    handshake(connection, transport).await,
                    Some(http_server),
                    None,
                )
            }
        };
        let agreed = service
            .peer_info()
            .map(|info| info.protocol_version.clone());
        assert_eq!(
            agreed,
            Some(connection.protocol.version()),
            "{connection}: the agreed protocol version"
        );
        McpClient {
            service,
            connection,
            _http_server: http_server,
            _stdio_server_stderr: stdio_server_stderr,
        }
    }

    /// `tools/list`, every page.
    pub async fn list_tools(&self) -> ListToolsResult {
        bounded(
            format_args!("{}: tools/list", self.connection),
            self.service.list_tools(None),
        )
        .await
        .unwrap_or_else(|e| panic!("{}: tools/list failed: {e}", self.connection))
    }

    /// `tools/call`, which must get a result (an `isError` result included).
    pub async fn call(&self, tool: &str, arguments: Value) -> CallToolResult {
        self.try_call(tool, arguments)
            .await
            .unwrap_or_else(|e| panic!("{}: tools/call {tool} failed: {e}", self.connection))
    }

    /// `tools/call`, returning a protocol error instead of failing the test.
    pub async fn try_call(
        &self,
        tool: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ServiceError> {
        let Value::Object(arguments) = arguments else {
            panic!("the arguments of {tool} must be an object, got {arguments}");
        };
        let request = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        bounded(
            format_args!("{}: tools/call {tool}", self.connection),
            self.service.call_tool(request),
        )
        .await
    }

    /// Disconnects (closing the server's stdin over stdio).
    pub async fn close(mut self) {
        let _ = self.service.close_with_timeout(CALL_TIMEOUT).await;
    }
}

impl fmt::Display for McpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rmcp client, {}", self.connection)
    }
}

async fn handshake<T, E, A>(
    connection: Connection,
    transport: T,
) -> RunningService<RoleClient, ClientConfig>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    bounded(
        format_args!("{connection}: connecting"),
        ClientConfig::default().serve_with_lifecycle(transport, connection.protocol.lifecycle()),
    )
    .await
    .unwrap_or_else(|e| panic!("{connection}: cannot connect: {e}"))
}

/// The `structuredContent` of a successful call.
pub fn structured(result: &CallToolResult) -> &Value {
    assert_ne!(
        result.is_error,
        Some(true),
        "the call failed: {}",
        text(result)
    );
    result
        .structured_content
        .as_ref()
        .unwrap_or_else(|| panic!("the result has no structuredContent: {}", text(result)))
}

/// The text of a failed call, which must be an `isError` result.
pub fn error_text(result: &CallToolResult) -> String {
    assert_eq!(
        result.is_error,
        Some(true),
        "the call should have failed, but returned {:?}",
        result.structured_content
    );
    text(result)
}

/// The text of each text content block of a result, in order.
pub fn texts(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect()
}

/// All text content of a result, one block a line.
fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

// --- Raw HTTP -----------------------------------------------------------------------------------

/// POSTs one JSON-RPC message to an MCP endpoint without any MCP client, with exactly `headers`
/// (and the ones reqwest always sends, such as Host and Content-Length). Returns the HTTP status
/// and the JSON-RPC message that answers it: the body when it is JSON, or the `data:` of the SSE
/// event that carries the response (the message with the request's `id`) when it is an event
/// stream; `Value::Null` when there is none.
pub async fn post_mcp(url: &str, headers: &[(&str, &str)], message: &Value) -> (u16, Value) {
    let http = reqwest::Client::builder()
        .timeout(CALL_TIMEOUT)
        .build()
        .expect("an HTTP client");
    let mut request = http.post(url).body(message.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request
        .send()
        .await
        .unwrap_or_else(|e| panic!("POST {url}: {e}"));
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let body = response
        .text()
        .await
        .unwrap_or_else(|e| panic!("POST {url}: cannot read the body: {e}"));
    if body.trim().is_empty() {
        return (status, Value::Null);
    }
    if content_type.starts_with("text/event-stream") {
        let answer = body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|event| event.get("id") == message.get("id"));
        return (status, answer.unwrap_or(Value::Null));
    }
    let answer = serde_json::from_str(&body).unwrap_or_else(|e| {
        panic!(
            "POST {url}: answered {status} with a body that is neither JSON nor SSE ({e}): {body}"
        )
    });
    (status, answer)
}

// --- The Python SDK -----------------------------------------------------------------------------

/// Runs `mcp_probe.py` (the official Python SDK's client) against a fresh server in front of
/// `upstream`, with `args` after the connection options, and returns the JSON objects it printed,
/// one per line.
pub async fn probe(connection: Connection, upstream: &Upstream, args: &[&str]) -> Vec<Value> {
    probe_with(Server::Mirror, connection, upstream, args).await
}

/// [`probe`] for the given server.
pub async fn probe_with(
    server: Server,
    connection: Connection,
    upstream: &Upstream,
    args: &[&str],
) -> Vec<Value> {
    let python = std::env::var_os("MCPGEN_TEST_PYTHON").unwrap_or_else(|| {
        panic!(
            "MCPGEN_TEST_PYTHON is not set, so the Python SDK tests cannot run. Run the tests with \
             `scripts/test`, which installs the Python MCP SDK into target/venv and sets it."
        )
    });
    let script = repo().join("tests/support/mcp_probe.py");
    let mut command = tokio::process::Command::new(&python);
    command
        .arg(&script)
        .args(["--mode", connection.protocol.probe_mode()])
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let _http_server = match connection.transport {
        Transport::Stdio => {
            // The probe passes its own environment on to the server it starts.
            command
                .arg("--stdio")
                .arg(shell_quote(&server.binary().to_string_lossy()))
                .env(server.base_url_env(), upstream.base_url())
                .env(server.token_env(), TOKEN);
            None
        }
        Transport::Http => {
            let http_server = HttpServer::start_server(server, upstream).await;
            command.args(["--url", http_server.url()]);
            Some(http_server)
        }
    };
    command.args(args);
    let what = format!("mcp_probe.py {} ({connection})", args.join(" "));
    let output = match tokio::time::timeout(PROBE_TIMEOUT, command.output()).await {
        Ok(output) => output
            .unwrap_or_else(|e| panic!("{what}: cannot run {}: {e}", Path::new(&python).display())),
        Err(_) => panic!("{what} did not finish within {PROBE_TIMEOUT:?}"),
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{what} failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    stdout
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{what} printed a line that is not JSON ({e}): {line}"))
        })
        .collect()
}

/// `text` quoted for `shlex.split`, which `mcp_probe.py --stdio` uses.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// One `tools/call` of `tool` over stdio in the 2026-07-28 (stateless) protocol, to a fresh
/// `binary` started with `env` (and without the variables named in `unset`); the response's
/// `result`.
pub fn call_over_stdio(
    binary: &Path,
    env: &[(&str, &str)],
    unset: &[&str],
    tool: &str,
    arguments: Value,
) -> Value {
    let mut results = calls_to_one_server(binary, env, unset, tool, &[arguments]);
    results.pop().expect("one result")
}

/// Calls `tool` once per item of `calls`, in order, on one server process (so that what it
/// caches between calls shows); the `result` of each call.
pub fn calls_over_stdio(
    binary: &Path,
    env: &[(&str, &str)],
    tool: &str,
    calls: &[Value],
) -> Vec<Value> {
    calls_to_one_server(binary, env, &[], tool, calls)
}

fn calls_to_one_server(
    binary: &Path,
    env: &[(&str, &str)],
    unset: &[&str],
    tool: &str,
    calls: &[Value],
) -> Vec<Value> {
    use std::io::{BufRead, BufReader, Write};
    let meta = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "mcpgen-tests", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut command = Command::new(binary);
    command
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for name in unset {
        command.env_remove(name);
    }
    let mut child = command.spawn().expect("the server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut results = Vec::new();
    for (id, arguments) in calls.iter().enumerate() {
        let request = serde_json::json!({
            "jsonrpc": "2.0",
            "id": id + 1,
            "method": "tools/call",
            "params": { "name": tool, "arguments": arguments, "_meta": meta },
        });
        writeln!(stdin, "{request}").expect("the request is written");
        let mut line = String::new();
        stdout.read_line(&mut line).expect("a response line");
        let response: Value = serde_json::from_str(&line).expect("a JSON-RPC response");
        results.push(response["result"].clone());
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    results
}
