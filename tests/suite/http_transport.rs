//! The HTTP transport of a generated server (`--transport http`), tested on the committed curated
//! tracker server `generated-examples/tracker-mcp` with real HTTP requests and rmcp's client: it
//! listens on 127.0.0.1 by default, refuses foreign `Host` and `Origin` headers (DNS rebinding),
//! accepts the hosts named in `--allowed-hosts`, requires the bearer token of `--auth-token-env`,
//! caps request bodies (`--max-request-bytes`), never passes a client's `Authorization` header on
//! to the API, answers a reply of one message as one JSON body, and on SIGTERM lets a call in
//! flight finish before it exits 0.
//!
//! The upstream is the tracker API served in-process behind a layer that records the
//! `Authorization` header of every request it gets and can hold requests back (a slow API).

use std::fs::File;
use std::io::Read;
use std::net::SocketAddr;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};

use crate::support;
use crate::support::{Server, TOKEN};

const SERVER: Server = Server::Curated;
/// The longest the server may take to accept connections, or to exit after SIGTERM.
const PATIENCE: Duration = Duration::from_secs(15);
/// The token MCP clients must present in the tests of `--auth-token-env`.
const CLIENT_TOKEN: &str = "client-secret-7f3a9c";

// --- The upstream: the tracker API, recorded and slowed on demand -------------------------------

/// The tracker API on a free loopback port, behind a layer that records each request's
/// `Authorization` header and, while `delay` is set, holds every request back that long.
struct RecordedApi {
    base_url: String,
    authorizations: Arc<Mutex<Vec<Option<String>>>>,
    delay: Arc<Mutex<Option<Duration>>>,
    arrived: Arc<tokio::sync::Notify>,
}

impl RecordedApi {
    async fn start() -> RecordedApi {
        let authorizations = Arc::new(Mutex::new(Vec::new()));
        let delay = Arc::new(Mutex::new(None));
        let arrived = Arc::new(tokio::sync::Notify::new());
        let app = {
            let authorizations = Arc::clone(&authorizations);
            let delay = Arc::clone(&delay);
            let arrived = Arc::clone(&arrived);
            tracker_api::app().layer(axum::middleware::from_fn(
                move |request: axum::extract::Request, next: axum::middleware::Next| {
                    let authorizations = Arc::clone(&authorizations);
                    let delay = Arc::clone(&delay);
                    let arrived = Arc::clone(&arrived);
                    async move {
                        let authorization = request
                            .headers()
                            .get("authorization")
                            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
                        authorizations.lock().unwrap().push(authorization);
                        arrived.notify_one();
                        let pause = *delay.lock().unwrap();
                        if let Some(pause) = pause {
                            tokio::time::sleep(pause).await;
                        }
                        next.run(request).await
                    }
                },
            ))
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port on 127.0.0.1 for the tracker API");
        let address = listener.local_addr().expect("the API's address");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        RecordedApi {
            base_url: format!("http://{address}"),
            authorizations,
            delay,
            arrived,
        }
    }

    fn authorizations(&self) -> Vec<Option<String>> {
        self.authorizations.lock().unwrap().clone()
    }
}

// --- The server under test ----------------------------------------------------------------------

/// The generated server started with `--transport http` and `args`, its stderr in a file; killed
/// when dropped unless it has exited.
struct HttpServer {
    child: Child,
    stderr: tempfile::NamedTempFile,
    address: SocketAddr,
}

impl HttpServer {
    /// Starts the server on a free loopback port in front of `base_url` and waits until it
    /// accepts connections.
    async fn start(base_url: &str, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        HttpServer::start_limited(base_url, args, env, None).await
    }

    /// [`HttpServer::start`] with the open-file limit of [`HttpServer::spawn_limited`].
    async fn start_limited(
        base_url: &str,
        args: &[&str],
        env: &[(&str, &str)],
        open_files: Option<u32>,
    ) -> HttpServer {
        let address = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port on 127.0.0.1");
        let listen = address.to_string();
        let mut all_args = vec!["--listen", listen.as_str()];
        all_args.extend_from_slice(args);
        let mut server = HttpServer::spawn_limited(base_url, &all_args, env, open_files);
        server.address = address;
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = server.child.try_wait().expect("the server's status") {
                panic!("the server exited ({status}):\n{}", server.stderr());
            }
            if tokio::net::TcpStream::connect(address).await.is_ok() {
                return server;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not accept connections within {PATIENCE:?}:\n{}",
                server.stderr()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Starts the server with `--transport http` and exactly `args`, without waiting.
    fn spawn(base_url: &str, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        HttpServer::spawn_limited(base_url, args, env, None)
    }

    /// [`HttpServer::spawn`], with the process's open-file limit (`ulimit -n`) set to
    /// `open_files` when given: the shell sets it, then becomes the server.
    fn spawn_limited(
        base_url: &str,
        args: &[&str],
        env: &[(&str, &str)],
        open_files: Option<u32>,
    ) -> HttpServer {
        let stderr = tempfile::NamedTempFile::new().expect("a file for the server's stderr");
        let mut command = match open_files {
            Some(limit) => {
                let mut command = Command::new("sh");
                command
                    .arg("-c")
                    .arg(format!("ulimit -n {limit} && exec \"$0\" \"$@\""))
                    .arg(SERVER.binary());
                command
            }
            None => Command::new(SERVER.binary()),
        };
        command
            .args(["--transport", "http", "--base-url", base_url])
            .args(args)
            .env_remove(SERVER.base_url_env())
            .env(SERVER.token_env(), TOKEN)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr.reopen().expect("the stderr file"));
        for (name, value) in env {
            command.env(name, value);
        }
        let child = command.spawn().expect("the server starts");
        HttpServer {
            child,
            stderr,
            address: SocketAddr::from(([127, 0, 0, 1], 0)),
        }
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }

    fn stderr(&self) -> String {
        let mut text = String::new();
        let _ = File::open(self.stderr.path()).and_then(|mut file| file.read_to_string(&mut text));
        text
    }

    /// Waits for the process to exit on its own.
    async fn exit_status(&mut self) -> Option<ExitStatus> {
        let deadline = Instant::now() + PATIENCE;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("the server's status") {
                return Some(status);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        None
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

// --- Raw HTTP -----------------------------------------------------------------------------------

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "http-transport-test", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// A 2026-07-28 `server/discover` request.
fn discover() -> Value {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": { "_meta": meta() } })
}

/// A 2026-07-28 `tools/call` of `tracker_search_issues` in WEB.
fn search_web() -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": { "name": "tracker_search_issues", "arguments": { "project": "WEB" }, "_meta": meta() },
    })
}

/// POSTs `message` to `url` with the headers a 2026-07-28 client sends plus `extra` (which may
/// replace `Host`), and returns the status and the body as text.
async fn post(url: &str, extra: &[(&str, &str)], message: &Value) -> (u16, String) {
    post_body(url, extra, message, message.to_string()).await
}

/// [`post`] with `body` as the bytes sent (the headers still describe `message`).
async fn post_body(
    url: &str,
    extra: &[(&str, &str)],
    message: &Value,
    body: String,
) -> (u16, String) {
    let http = reqwest::Client::builder()
        .timeout(PATIENCE)
        .build()
        .expect("an HTTP client");
    let method = message["method"].as_str().unwrap_or_default().to_owned();
    let mut request = http
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", &method)
        .body(body);
    if let Some(name) = message["params"]["name"].as_str() {
        request = request.header("Mcp-Name", name);
    }
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    let response = request
        .send()
        .await
        .unwrap_or_else(|e| panic!("POST {url}: {e}"));
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    (status, text)
}

/// The JSON-RPC result in a response body, JSON or an SSE stream.
fn result_of(body: &str) -> Value {
    let message: Value = serde_json::from_str(body).unwrap_or_else(|_| {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|message| message.get("result").is_some() || message.get("error").is_some())
            .unwrap_or_else(|| panic!("no JSON-RPC response in: {body}"))
    });
    message["result"].clone()
}

// --- Tests --------------------------------------------------------------------------------------

#[test]
fn help_teaches_every_http_option() {
    let output = Command::new(SERVER.binary())
        .arg("--help")
        .output()
        .expect("--help runs");
    assert!(output.status.success(), "--help exits 0");
    let help = String::from_utf8_lossy(&output.stdout);
    for taught in [
        "--listen <ADDRESS:PORT>",
        "[default: 127.0.0.1:8000]",
        "--auth-token-env <VAR>",
        "Authorization: Bearer <token>",
        "--max-request-bytes <BYTES>",
        "[default: 4194304]",
        "413",
        "--allowed-hosts <HOSTS>",
        "DNS rebinding",
        "--shutdown-grace <SECONDS>",
        "SIGTERM",
        "--max-connections <N>",
        "ulimit -n",
        "closes the oldest connection that has not yet sent a request",
        "--header-read-timeout <SECONDS>",
        "[default: 10]",
        "--idle-timeout <SECONDS>",
        "[default: 60]",
        "--allow-unauthenticated",
    ] {
        assert!(
            help.contains(taught),
            "--help should mention {taught:?}:\n{help}"
        );
    }
}

/// The local address of the listening TCP socket of process `pid`, read from `/proc`: the socket
/// inodes among its file descriptors, looked up in `/proc/PID/net/tcp` and `tcp6`.
fn listening_address(pid: u32) -> Option<String> {
    let inodes: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .ok()?
        .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
        .filter_map(|target| {
            let target = target.to_string_lossy().into_owned();
            Some(
                target
                    .strip_prefix("socket:[")?
                    .strip_suffix(']')?
                    .to_owned(),
            )
        })
        .collect();
    for table in ["tcp", "tcp6"] {
        let text = std::fs::read_to_string(format!("/proc/{pid}/net/{table}")).ok()?;
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // local_address, state 0A = LISTEN, inode
            if fields.len() > 9
                && fields[3] == "0A"
                && inodes.iter().any(|inode| inode == fields[9])
            {
                return Some(fields[1].to_owned());
            }
        }
    }
    None
}

#[test]
fn without_listen_the_server_binds_loopback_port_8000_only() {
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        let mut server = HttpServer::spawn(&api.base_url, &[], &[]);
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = server.child.try_wait().expect("the server's status") {
                // Port 8000 is taken on this machine: the server said which address it tried.
                let stderr = server.stderr();
                assert!(!status.success(), "the server exited 0 without serving");
                assert!(
                    stderr.contains("cannot listen on 127.0.0.1:8000"),
                    "the server should have tried 127.0.0.1:8000: {stderr}"
                );
                return;
            }
            if let Some(address) = listening_address(server.child.id()) {
                // 127.0.0.1:8000 as /proc writes it: the address in host byte order, the port.
                assert_eq!(address, "0100007F:1F40", "the default listening address");
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the server neither listened nor exited:\n{}",
                server.stderr()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
}

#[test]
fn a_foreign_host_or_origin_is_refused_with_403() {
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        let server = HttpServer::start(&api.base_url, &[], &[]).await;
        let url = server.url();
        let port = server.address.port();
        let loopback_origin = format!("http://localhost:{port}");

        let (status, body) = post(&url, &[], &discover()).await;
        assert_eq!(status, 200, "a plain loopback request is served: {body}");
        let (status, body) = post(&url, &[("Origin", &loopback_origin)], &discover()).await;
        assert_eq!(
            status, 200,
            "a page on localhost may call the server: {body}"
        );

        let evil_host = format!("evil.example:{port}");
        for (what, headers) in [
            (
                "a foreign Host (DNS rebinding)",
                vec![("Host", evil_host.as_str())],
            ),
            ("a foreign Origin", vec![("Origin", "http://evil.example")]),
            (
                "a foreign Origin on a loopback port",
                vec![("Origin", "https://evil.example:8000")],
            ),
            ("Origin: null", vec![("Origin", "null")]),
        ] {
            let (status, body) = post(&url, &headers, &discover()).await;
            assert_eq!(status, 403, "{what} must be refused: {body}");
            let (status, _) = post(&url, &headers, &search_web()).await;
            assert_eq!(status, 403, "{what}: a tool call must be refused too");
        }
        assert!(
            api.authorizations().is_empty(),
            "no refused request reached the API"
        );
    });
}

#[test]
fn allowed_hosts_adds_hosts_and_their_origins_and_nothing_else() {
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        let server = HttpServer::start(
            &api.base_url,
            &["--allowed-hosts", "mcp.example.com,proxy.example.net:8443"],
            &[],
        )
        .await;
        let url = server.url();
        for (what, headers, expected) in [
            ("the proxy's name", vec![("Host", "mcp.example.com")], 200),
            (
                "the proxy's name and a port",
                vec![("Host", "mcp.example.com:443")],
                200,
            ),
            (
                "a name with its port",
                vec![("Host", "proxy.example.net:8443")],
                200,
            ),
            (
                "a name on another port",
                vec![("Host", "proxy.example.net:9000")],
                403,
            ),
            (
                "an origin of the proxy",
                vec![("Origin", "https://mcp.example.com")],
                200,
            ),
            (
                "an origin with the port",
                vec![("Origin", "https://proxy.example.net:8443")],
                200,
            ),
            (
                "an origin on another port",
                vec![("Origin", "https://proxy.example.net")],
                403,
            ),
            ("a host not named", vec![("Host", "other.example.com")], 403),
            (
                "an origin not named",
                vec![("Origin", "https://other.example.com")],
                403,
            ),
        ] {
            let (status, body) = post(&url, &headers, &discover()).await;
            assert_eq!(status, expected, "{what} {headers:?}: {body}");
        }

        let bad = Command::new(SERVER.binary())
            .args([
                "--transport",
                "http",
                "--allowed-hosts",
                "https://x.example/path",
            ])
            .output()
            .expect("the server runs");
        assert!(!bad.status.success(), "a URL is not a host name");
        let stderr = String::from_utf8_lossy(&bad.stderr);
        assert!(
            stderr.contains("--allowed-hosts") && stderr.contains("host:port"),
            "{stderr}"
        );
    });
}

#[test]
fn auth_token_env_requires_the_bearer_token_and_never_logs_it() {
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        let server = HttpServer::start(
            &api.base_url,
            &["--auth-token-env", "MCP_CLIENT_TOKEN"],
            &[("MCP_CLIENT_TOKEN", CLIENT_TOKEN)],
        )
        .await;
        let url = server.url();
        let right = format!("Bearer {CLIENT_TOKEN}");
        let almost = format!("Bearer {}X", &CLIENT_TOKEN[..CLIENT_TOKEN.len() - 1]);
        let longer = format!("Bearer {CLIENT_TOKEN}0");
        for (what, headers) in [
            ("no Authorization header", vec![]),
            (
                "another token",
                vec![("Authorization", "Bearer alice-token")],
            ),
            (
                "a token differing in its last byte",
                vec![("Authorization", almost.as_str())],
            ),
            (
                "the token with a byte more",
                vec![("Authorization", longer.as_str())],
            ),
            (
                "the token without the Bearer scheme",
                vec![("Authorization", CLIENT_TOKEN)],
            ),
        ] {
            let (status, body) = post(&url, &headers, &search_web()).await;
            assert_eq!(status, 401, "{what} must be refused: {body}");
            assert!(
                !body.contains(CLIENT_TOKEN),
                "the answer never shows the token: {body}"
            );
        }
        assert!(
            api.authorizations().is_empty(),
            "no refused request reached the API"
        );

        let (status, body) = post(&url, &[("Authorization", &right)], &search_web()).await;
        assert_eq!(status, 200, "the right token is let through: {body}");
        assert_ne!(result_of(&body)["isError"], true, "{body}");
        let lowercase_scheme = format!("bearer {CLIENT_TOKEN}");
        let (status, body) =
            post(&url, &[("Authorization", &lowercase_scheme)], &search_web()).await;
        assert_eq!(status, 200, "the scheme is case-insensitive: {body}");

        // rmcp's client with the token: the whole session works.
        let config =
            StreamableHttpClientTransportConfig::with_uri(url.clone()).auth_header(CLIENT_TOKEN);
        let client = rmcp::model::ClientConfig::default()
            .serve_with_lifecycle(
                StreamableHttpClientTransport::from_config(config),
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .expect("rmcp's client connects with the token");
        let tools = client.list_tools(None).await.expect("tools/list");
        assert!(
            tools
                .tools
                .iter()
                .any(|tool| tool.name == "tracker_search_issues")
        );
        let _ = client.cancel().await;

        let stderr = server.stderr();
        assert!(
            !stderr.contains(CLIENT_TOKEN),
            "the token is never logged:\n{stderr}"
        );
    });
}

#[test]
fn auth_token_env_naming_an_unset_or_empty_variable_stops_the_server_at_start() {
    support::run_with(SERVER, || async {
        for env in [vec![], vec![("MCP_CLIENT_TOKEN", "")]] {
            let mut server = HttpServer::spawn(
                "http://127.0.0.1:9",
                &[
                    "--listen",
                    "127.0.0.1:0",
                    "--auth-token-env",
                    "MCP_CLIENT_TOKEN",
                ],
                &env,
            );
            let status = server
                .exit_status()
                .await
                .expect("the server exits by itself");
            assert!(
                !status.success(),
                "{env:?}: the server must not start without a token"
            );
            let stderr = server.stderr();
            assert!(
                stderr.contains("MCP_CLIENT_TOKEN") && stderr.contains("unset or empty"),
                "{env:?}: the error names the variable: {stderr}"
            );
        }
    });
}

#[test]
fn a_clients_authorization_header_never_reaches_the_api() {
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        let server = HttpServer::start(
            &api.base_url,
            &["--auth-token-env", "MCP_CLIENT_TOKEN"],
            &[("MCP_CLIENT_TOKEN", CLIENT_TOKEN)],
        )
        .await;
        let right = format!("Bearer {CLIENT_TOKEN}");
        let (status, body) = post(&server.url(), &[("Authorization", &right)], &search_web()).await;
        assert_eq!(status, 200, "{body}");
        let result = result_of(&body);
        assert_ne!(result["isError"], true, "the search succeeds: {body}");

        let seen = api.authorizations();
        assert!(!seen.is_empty(), "the search reached the API");
        let server_credential = format!("Bearer {TOKEN}");
        for authorization in &seen {
            assert_eq!(
                authorization.as_deref(),
                Some(server_credential.as_str()),
                "the API sees only the server's own credential, never the client's: {seen:?}"
            );
        }
    });
}

#[test]
fn a_reply_of_one_message_is_one_json_body_not_an_event_stream() {
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        let server = HttpServer::start(&api.base_url, &[], &[]).await;
        let message = search_web();
        let response = reqwest::Client::new()
            .post(server.url())
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", "tracker_search_issues")
            .body(message.to_string())
            .send()
            .await
            .expect("the server answers");
        assert_eq!(response.status(), 200);
        let content_type = response.headers()["content-type"]
            .to_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            content_type.starts_with("application/json"),
            "one JSON body: {content_type}"
        );
        let body: Value = response
            .json()
            .await
            .expect("the body is one JSON-RPC message");
        assert_eq!(body["id"], 2, "{body}");
        assert_ne!(
            body["result"]["isError"], true,
            "the search succeeds: {body}"
        );
    });
}

#[test]
fn request_bodies_over_max_request_bytes_are_refused_with_413() {
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        // The default: 4 MiB.
        let server = HttpServer::start(&api.base_url, &[], &[]).await;
        let message = search_web();
        let padded = |size: usize| {
            let text = message.to_string();
            format!("{text}{}", " ".repeat(size.saturating_sub(text.len())))
        };
        let (status, body) =
            post_body(&server.url(), &[], &message, padded(4 * 1024 * 1024 - 1)).await;
        assert_eq!(status, 200, "just under 4 MiB is served: {body}");
        let (status, _) =
            post_body(&server.url(), &[], &message, padded(4 * 1024 * 1024 + 1)).await;
        assert_eq!(status, 413, "over 4 MiB is refused by default");
        drop(server);

        let server = HttpServer::start(&api.base_url, &["--max-request-bytes", "2000"], &[]).await;
        let (status, body) = post_body(&server.url(), &[], &message, padded(2000)).await;
        assert_eq!(status, 200, "2000 bytes are served: {body}");
        let (status, _) = post_body(&server.url(), &[], &message, padded(2001)).await;
        assert_eq!(status, 413, "2001 bytes are refused");
        let (status, body) = post(&server.url(), &[], &search_web()).await;
        assert_eq!(status, 200, "the server keeps serving: {body}");
    });
}

#[test]
fn health_needs_no_token_and_only_mcp_and_paths_under_it_reach_mcp() {
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        let server = HttpServer::start(
            &api.base_url,
            &["--auth-token-env", "MCP_CLIENT_TOKEN"],
            &[("MCP_CLIENT_TOKEN", CLIENT_TOKEN)],
        )
        .await;
        let base = format!("http://{}", server.address);
        let right = format!("Bearer {CLIENT_TOKEN}");
        let http = reqwest::Client::builder()
            .timeout(PATIENCE)
            .build()
            .expect("an HTTP client");
        let send = |method: reqwest::Method, path: &str, token: bool| {
            let mut request = http.request(method, format!("{base}{path}"));
            if token {
                request = request.header("Authorization", &right);
            }
            async move {
                let response = request.send().await.expect("an answer");
                let status = response.status().as_u16();
                let allow = response
                    .headers()
                    .get("allow")
                    .map(|value| value.to_str().expect("an ASCII header").to_owned());
                (status, allow, response.text().await.unwrap_or_default())
            }
        };

        // A load balancer's health check needs no token, and is only read.
        let (status, _, body) = send(reqwest::Method::GET, "/health", false).await;
        assert_eq!((status, body.as_str()), (200, "ok\n"), "GET /health");
        let (status, _, body) = send(reqwest::Method::HEAD, "/health", false).await;
        assert_eq!((status, body.as_str()), (200, ""), "HEAD /health");
        for method in [reqwest::Method::POST, reqwest::Method::DELETE] {
            let (status, allow, _) = send(method.clone(), "/health", true).await;
            assert_eq!(status, 405, "{method} /health");
            assert_eq!(allow.as_deref(), Some("GET,HEAD"), "{method} /health");
        }

        // Every other path is behind the token, and only /mcp and paths under it are MCP.
        for path in ["/", "/mcpx", "/nowhere", "/health/x"] {
            let (status, _, _) = send(reqwest::Method::GET, path, false).await;
            assert_eq!(status, 401, "GET {path} without the token");
            let (status, _, _) = send(reqwest::Method::GET, path, true).await;
            assert_eq!(status, 404, "GET {path} with the token");
        }
        for path in ["/mcp", "/mcp/", "/mcp/x"] {
            let url = format!("{base}{path}");
            let (status, _) = post(&url, &[], &discover()).await;
            assert_eq!(status, 401, "POST {path} without the token");
            let (status, body) = post(&url, &[("Authorization", &right)], &discover()).await;
            assert_ne!(status, 404, "POST {path} reaches MCP: {body}");
            assert_ne!(status, 401, "POST {path} with the token: {body}");
        }
        let (status, body) = post(&server.url(), &[("Authorization", &right)], &discover()).await;
        assert_eq!(status, 200, "server/discover at /mcp: {body}");
        assert!(
            result_of(&body)["_meta"]["io.modelcontextprotocol/serverInfo"]["name"]
                == "tracker-mcp",
            "server/discover answers who the server is: {body}"
        );
        assert!(
            api.authorizations().is_empty(),
            "none of these reached the API"
        );
    });
}

/// Sends SIGTERM to `pid` with `kill(1)`.
fn sigterm(pid: u32) {
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -TERM {pid}");
}

#[test]
fn sigterm_lets_a_call_in_flight_finish_then_exits_0() {
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        let mut server = HttpServer::start(&api.base_url, &[], &[]).await;
        *api.delay.lock().unwrap() = Some(Duration::from_secs(2));
        let arrived = api.arrived.notified();

        let url = server.url();
        let call = tokio::spawn(async move { post(&url, &[], &search_web()).await });
        tokio::time::timeout(PATIENCE, arrived)
            .await
            .expect("the call reaches the API");
        let signalled = Instant::now();
        sigterm(server.child.id());

        let (status, body) = call.await.expect("the call's task");
        assert_eq!(status, 200, "the call in flight is answered: {body}");
        let result = result_of(&body);
        assert_ne!(
            result["isError"], true,
            "the call got the API's answer: {body}"
        );
        assert!(
            result["structuredContent"]["issues"]
                .as_array()
                .is_some_and(|issues| !issues.is_empty()),
            "the call got the issues: {body}"
        );
        let status = server.exit_status().await.unwrap_or_else(|| {
            panic!(
                "the server did not exit after SIGTERM:\n{}",
                server.stderr()
            )
        });
        assert!(
            status.success(),
            "the server exits 0 after SIGTERM, got {status}:\n{}",
            server.stderr()
        );
        assert!(
            signalled.elapsed() < Duration::from_secs(10),
            "the server exits soon after its last call, not after the grace period"
        );
        assert!(
            tokio::net::TcpStream::connect(server.address)
                .await
                .is_err(),
            "nothing listens after the exit"
        );
    });
}

#[test]
fn a_call_running_past_shutdown_grace_does_not_hold_the_server() {
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        let mut server = HttpServer::start(&api.base_url, &["--shutdown-grace", "1"], &[]).await;
        *api.delay.lock().unwrap() = Some(Duration::from_secs(30));
        let arrived = api.arrived.notified();
        let url = server.url();
        let call = tokio::spawn(async move { post(&url, &[], &search_web()).await });
        tokio::time::timeout(PATIENCE, arrived)
            .await
            .expect("the call reaches the API");
        let signalled = Instant::now();
        sigterm(server.child.id());
        let status = server.exit_status().await.unwrap_or_else(|| {
            panic!(
                "the server did not exit after SIGTERM:\n{}",
                server.stderr()
            )
        });
        assert!(
            status.success(),
            "the server exits 0, got {status}:\n{}",
            server.stderr()
        );
        let waited = signalled.elapsed();
        assert!(
            waited >= Duration::from_secs(1) && waited < Duration::from_secs(8),
            "the server waits --shutdown-grace (1 s) for the call, then stops: took {waited:?}"
        );
        call.abort();
    });
}

#[test]
fn sigterm_with_only_idle_clients_exits_0_at_once() {
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        let mut server = HttpServer::start(&api.base_url, &[], &[]).await;
        let (status, body) = post(&server.url(), &[], &discover()).await;
        assert_eq!(status, 200, "{body}");
        // A 2025-11-25 client keeps a session, and its event stream, open.
        let transport = StreamableHttpClientTransport::from_uri(server.url());
        let legacy = rmcp::model::ClientConfig::default()
            .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
            .await
            .expect("a 2025-11-25 client connects");
        legacy
            .list_tools(None)
            .await
            .expect("tools/list in the session");
        let signalled = Instant::now();
        sigterm(server.child.id());
        let status = server
            .exit_status()
            .await
            .expect("the server exits after SIGTERM");
        assert!(status.success(), "exit status {status}");
        assert!(
            signalled.elapsed() < Duration::from_secs(5),
            "took {:?}",
            signalled.elapsed()
        );
    });
}

/// The file descriptors process `pid` holds.
fn open_descriptors(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |entries| entries.count())
}

/// Whether the server has closed `stream`: a read gets end-of-file or a reset within a second.
async fn closed_by_server(stream: &mut tokio::net::TcpStream) -> bool {
    use tokio::io::AsyncReadExt;
    let mut buffer = [0u8; 512];
    loop {
        match tokio::time::timeout(Duration::from_secs(1), stream.read(&mut buffer)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            // A 408 or other answer before the close.
            Ok(Ok(_)) => continue,
        }
    }
}

#[test]
fn a_flood_of_idle_and_slow_header_connections_under_a_low_open_file_limit_leaves_calls_served() {
    use tokio::io::AsyncWriteExt;
    const FLOOD: usize = 1000;
    const OPEN_FILES: u32 = 256;
    // Longer than a call may take (5 s): a call that waited for flood connections to time out
    // and free a slot fails the test rather than passing slowly.
    const HEADER_READ_TIMEOUT: u64 = 8;
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        let header_read_timeout = HEADER_READ_TIMEOUT.to_string();
        let server = HttpServer::start_limited(
            &api.base_url,
            &["--header-read-timeout", &header_read_timeout],
            &[],
            Some(OPEN_FILES),
        )
        .await;
        let pid = server.child.id();
        // Half the flood sends nothing; the other half the start of a request head, then a byte
        // of a header now and then, never finishing it.
        let mut flood = Vec::with_capacity(FLOOD);
        for index in 0..FLOOD {
            let mut stream = tokio::net::TcpStream::connect(server.address)
                .await
                .expect("a flood connection");
            if index % 2 == 1 {
                let _ = stream
                    .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                    .await;
            }
            flood.push(stream);
        }
        let mut slowest = Duration::ZERO;
        for round in 0..10 {
            let sent = Instant::now();
            let (status, body) = post(&server.url(), &[], &search_web()).await;
            slowest = slowest.max(sent.elapsed());
            assert_eq!(
                status, 200,
                "call {round} during the flood is served: {body}"
            );
            assert_ne!(result_of(&body)["isError"], true, "call {round}: {body}");
            for stream in flood.iter_mut().skip(1).step_by(2) {
                let _ = stream.write_all(b"x").await;
            }
            let held = open_descriptors(pid);
            assert!(
                held < OPEN_FILES as usize,
                "the server holds {held} descriptors, under its limit of {OPEN_FILES}"
            );
        }
        assert!(
            slowest < Duration::from_secs(5),
            "every call during the flood is answered within 5 s, before any flood connection \
             reaches --header-read-timeout ({HEADER_READ_TIMEOUT} s): past the cap each \
             connection accepted closes an idle one, so a call waits only behind the flood in \
             the listen queue (4096 deep: none is dropped), never for a slot to time out; the \
             slowest took {slowest:?}"
        );
        // The flood connections still open have not sent a complete request head within
        // --header-read-timeout: by now the server has closed every one.
        tokio::time::sleep(Duration::from_secs(HEADER_READ_TIMEOUT)).await;
        let mut still_open = 0;
        for stream in &mut flood {
            if !closed_by_server(stream).await {
                still_open += 1;
            }
        }
        assert_eq!(
            still_open, 0,
            "flood connections left open past the timeout"
        );
        let log = server.stderr();
        assert_eq!(
            log.matches("the --max-connections cap").count(),
            1,
            "reaching the cap is logged once for the burst:\n{log}"
        );
        let (status, body) = post(&server.url(), &[], &search_web()).await;
        assert_eq!(status, 200, "the server serves after the flood: {body}");
    });
}

#[test]
fn max_connections_caps_the_connections_held_and_an_explicit_cap_over_the_limit_is_lowered() {
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        let server = HttpServer::start_limited(
            &api.base_url,
            &["--max-connections", "5000"],
            &[],
            Some(200),
        )
        .await;
        let log = server.stderr();
        assert!(
            log.contains("--max-connections 5000 lowered to 136")
                && log.contains("the open-file limit (ulimit -n) is 200"),
            "an explicit cap over the open-file limit is lowered and says why:\n{log}"
        );
        drop(server);

        let server = HttpServer::start(&api.base_url, &["--max-connections", "20"], &[]).await;
        let mut idle = Vec::new();
        for _ in 0..60 {
            idle.push(
                tokio::net::TcpStream::connect(server.address)
                    .await
                    .expect("an idle connection"),
            );
        }
        let (status, body) = post(&server.url(), &[], &search_web()).await;
        assert_eq!(status, 200, "a call past the cap is served: {body}");
        let held = open_descriptors(server.child.id());
        let before = {
            drop(idle);
            tokio::time::sleep(Duration::from_millis(300)).await;
            open_descriptors(server.child.id())
        };
        assert!(
            held <= before + 20,
            "with --max-connections 20 the server held {held} descriptors, {before} without the \
             idle connections"
        );
    });
}

#[test]
fn idle_timeout_closes_a_connection_whose_request_body_stalls() {
    use tokio::io::AsyncWriteExt;
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        let server = HttpServer::start(&api.base_url, &["--idle-timeout", "3"], &[]).await;
        let mut stream = tokio::net::TcpStream::connect(server.address)
            .await
            .expect("a connection");
        // A complete head promising a body that never comes.
        stream
            .write_all(
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                  Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
                  Mcp-Method: tools/call\r\nMcp-Name: tracker_search_issues\r\n\
                  Content-Length: 1000\r\n\r\n{",
            )
            .await
            .expect("the head is sent");
        // Still open 2 s in (the check waits up to a second for a close), closed soon after 3 s.
        tokio::time::sleep(Duration::from_millis(1000)).await;
        assert!(
            !closed_by_server(&mut stream).await,
            "open before the idle timeout"
        );
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert!(
            closed_by_server(&mut stream).await,
            "closed once nothing moved for --idle-timeout"
        );
    });
}

/// POSTs `body` as `application/json` with the headers of a 2026-07-28 `tools/call`, and returns
/// the status, the `Content-Type` and the body.
async fn post_raw(url: &str, body: Vec<u8>) -> (u16, String, String) {
    let response = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", "tracker_search_issues")
        .timeout(PATIENCE)
        .body(body)
        .send()
        .await
        .unwrap_or_else(|e| panic!("POST {url}: {e}"));
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (
        status,
        content_type,
        response.text().await.unwrap_or_default(),
    )
}

#[test]
fn a_malformed_body_gets_a_json_rpc_error_with_400_and_the_server_keeps_serving() {
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        let server = HttpServer::start(&api.base_url, &[], &[]).await;
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let batch = json!([search_web(), search_web()]).to_string();
        let mut not_utf8 = search_web().to_string().into_bytes();
        not_utf8.insert(10, 0xff);
        for (what, body, code) in [
            ("a batch array", batch.into_bytes(), -32600),
            ("JSON nested 10,000 deep", deep.into_bytes(), -32700),
            ("invalid UTF-8", not_utf8, -32700),
            ("a body that is not JSON", b"hello, server".to_vec(), -32700),
            ("a JSON string", b"\"tools/call\"".to_vec(), -32600),
        ] {
            let before = api.authorizations().len();
            let (status, content_type, text) = post_raw(&server.url(), body).await;
            assert_eq!(status, 400, "{what} is answered 400: {text}");
            assert_eq!(
                api.authorizations().len(),
                before,
                "{what} never reaches the API"
            );
            assert_eq!(content_type, "application/json", "{what}");
            let reply: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{what}: the reply is JSON ({e}): {text}"));
            assert_eq!(reply["jsonrpc"], "2.0", "{what}: {reply}");
            assert_eq!(reply["id"], Value::Null, "{what}: {reply}");
            assert_eq!(reply["error"]["code"], code, "{what}: {reply}");
            let (status, body) = post(&server.url(), &[], &search_web()).await;
            assert_eq!(status, 200, "after {what} the server keeps serving: {body}");
        }
    });
}

#[test]
fn listening_beyond_loopback_without_client_authentication_needs_allow_unauthenticated() {
    support::run_with(SERVER, || async {
        let api = RecordedApi::start().await;
        // Refused before it binds: nothing listens on 0.0.0.0.
        let mut server = HttpServer::spawn(&api.base_url, &["--listen", "0.0.0.0:0"], &[]);
        let status = server.exit_status().await.expect("the server exits");
        assert!(!status.success(), "it refuses to start");
        let log = server.stderr();
        assert!(
            log.contains("refusing to listen on 0.0.0.0:0 without client authentication")
                && log.contains("--auth-token-env")
                && log.contains("--allow-unauthenticated"),
            "it says why and what to pass:\n{log}"
        );
        // With the flag it gets past the check: listening on TEST-NET-1 address 192.0.2.1, not
        // on this machine, then fails to bind.
        let mut server = HttpServer::spawn(
            &api.base_url,
            &["--listen", "192.0.2.1:9", "--allow-unauthenticated"],
            &[],
        );
        server.exit_status().await.expect("the server exits");
        let log = server.stderr();
        assert!(
            log.contains("cannot listen on 192.0.2.1:9") && !log.contains("refusing"),
            "--allow-unauthenticated lets it try to listen:\n{log}"
        );
        // With a client token it gets past the check too.
        let mut server = HttpServer::spawn(
            &api.base_url,
            &[
                "--listen",
                "192.0.2.1:9",
                "--auth-token-env",
                "CLIENT_TOKEN",
            ],
            &[("CLIENT_TOKEN", CLIENT_TOKEN)],
        );
        server.exit_status().await.expect("the server exits");
        let log = server.stderr();
        assert!(
            log.contains("cannot listen on 192.0.2.1:9") && !log.contains("refusing"),
            "--auth-token-env lets it try to listen:\n{log}"
        );
    });
}
