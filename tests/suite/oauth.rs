//! A generated server as an OAuth 2.1 protected resource (`--oauth-issuer`, `--resource-url`),
//! tested against a real authorization server on loopback: oidc-provider
//! (`tests/support/auth_server.mjs`, installed by `scripts/test` into `MCPGEN_TEST_OIDC` and run
//! with `MCPGEN_TEST_NODE22`), which issues JWT access tokens through the client-credentials grant
//! for the resource and scopes a test asks for.
//!
//! Clients: plain 2026-07-28 HTTP requests (to read statuses and `WWW-Authenticate`), rmcp's
//! client with a bearer token, and the TypeScript v2 client (`MCPGEN_TEST_TS_CLIENT`) with its own
//! client-credentials OAuth provider, which discovers the authorization server from the server's
//! 401 and metadata (`tests/support/ts_oauth_client.mjs`).
//!
//! The server is the curated tracker with scopes added to its tools (`issues:read` to search,
//! `issues:write` to create, both to change a status), generated into `target/e2e/tracker-scoped`
//! and configured through its environment. Its upstream is the tracker API served in-process
//! behind a layer that records every request, so that each refusal is shown to send nothing to the
//! API.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};

use crate::support;
use crate::support::{HttpServer, TOKEN, repo};

/// This server's canonical URL, as clients reach it through a proxy: the audience of its tokens.
const RESOURCE: &str = "https://mcp.tracker.test/mcp";
/// Where the server's metadata is, by RFC 9728 §3.1, for [`RESOURCE`].
const METADATA_URL: &str = "https://mcp.tracker.test/.well-known/oauth-protected-resource/mcp";
/// Every scope the authorization server may grant.
const SCOPES: &str = "issues:read issues:write api:explore";
/// The longest the authorization server may take to listen, and a test to run.
const PATIENCE: Duration = Duration::from_secs(30);

fn required_env(name: &str) -> PathBuf {
    match std::env::var_os(name) {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => panic!("{name} is not set: run the tests with `scripts/test`, which sets it"),
    }
}

// --- The authorization server -------------------------------------------------------------------

/// oidc-provider on a loopback port, killed when dropped.
struct AuthServer {
    child: Child,
    port: u16,
    issuer: String,
}

impl AuthServer {
    /// The authorization server on a free port, signing with the key `test-key-1`.
    fn start() -> AuthServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port on 127.0.0.1")
            .port();
        AuthServer::start_on(port, "test-key-1")
    }

    /// The authorization server on `port`, signing with a new key whose id is `kid`.
    fn start_on(port: u16, kid: &str) -> AuthServer {
        let child = Command::new(required_env("MCPGEN_TEST_NODE22"))
            .arg(repo().join("tests/support/auth_server.mjs"))
            .args([&port.to_string(), SCOPES, kid])
            .env("MCPGEN_TEST_OIDC", required_env("MCPGEN_TEST_OIDC"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("node starts the authorization server");
        let server = AuthServer {
            child,
            port,
            issuer: format!("http://127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + PATIENCE;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "the authorization server did not listen within {PATIENCE:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// How many token exchanges the server has answered.
    async fn exchanges(&self) -> u64 {
        let answer: Value = reqwest::get(format!("{}/test/exchanges", self.issuer))
            .await
            .expect("the exchange count is served")
            .json()
            .await
            .expect("the exchange count is JSON");
        answer["exchanges"].as_u64().expect("a count")
    }

    /// An access token from the client-credentials grant of `client` (`mcp-client`, or
    /// `short-lived` whose tokens live one second) for `resource`, with `scope` when given.
    async fn token(&self, client: &str, resource: &str, scope: Option<&str>) -> String {
        let secret = format!("{client}-secret");
        let mut form = vec![
            ("grant_type", "client_credentials"),
            ("client_id", client),
            ("client_secret", &secret),
            ("resource", resource),
        ];
        if let Some(scope) = scope {
            form.push(("scope", scope));
        }
        let body = form
            .iter()
            .map(|(name, value)| format!("{name}={}", form_encode(value)))
            .collect::<Vec<_>>()
            .join("&");
        let response = reqwest::Client::new()
            .post(format!("{}/token", self.issuer))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .expect("the token endpoint answers");
        let status = response.status();
        let answer: Value = response.json().await.expect("the token answer is JSON");
        assert!(status.is_success(), "the token request failed: {answer}");
        answer["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no access_token in {answer}"))
            .to_string()
    }
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `text` as an `application/x-www-form-urlencoded` value.
fn form_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                (b as char).to_string()
            }
            b' ' => "+".to_string(),
            b => format!("%{b:02X}"),
        })
        .collect()
}

// --- The upstream API ---------------------------------------------------------------------------

/// The tracker API on a free loopback port, recording `METHOD /path` and the `Authorization`
/// header of every request it gets.
struct RecordedApi {
    base_url: String,
    requests: Arc<Mutex<Vec<String>>>,
    authorizations: Arc<Mutex<Vec<String>>>,
}

impl RecordedApi {
    async fn start() -> RecordedApi {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let authorizations = Arc::new(Mutex::new(Vec::new()));
        let app = {
            let requests = Arc::clone(&requests);
            let authorizations = Arc::clone(&authorizations);
            tracker_api::app().layer(axum::middleware::from_fn(
                move |request: axum::extract::Request, next: axum::middleware::Next| {
                    let requests = Arc::clone(&requests);
                    let authorizations = Arc::clone(&authorizations);
                    async move {
                        let line = format!("{} {}", request.method(), request.uri().path());
                        requests.lock().unwrap().push(line);
                        let authorization = request
                            .headers()
                            .get("authorization")
                            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
                            .unwrap_or_default();
                        authorizations.lock().unwrap().push(authorization);
                        next.run(request).await
                    }
                },
            ))
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port for the tracker API");
        let address = listener.local_addr().expect("the API's address");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        RecordedApi {
            base_url: format!("http://{address}"),
            requests,
            authorizations,
        }
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }

    /// The distinct `Authorization` headers received since the first `from` requests.
    fn authorizations_since(&self, from: usize) -> Vec<String> {
        let mut seen: Vec<String> = self.authorizations.lock().unwrap()[from..].to_vec();
        seen.dedup();
        seen
    }
}

// --- The server under test ----------------------------------------------------------------------

/// The curated tracker with scopes on its tools, generated with the name `tracker-scoped` (its
/// variables start `TRACKER_SCOPED_`), checked with clippy and built once per process.
fn scoped_tracker() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        build_scoped(
            "tracker-scoped",
            "specs/tracker/mcpgen.yaml",
            &[
                (
                    "\n  search_issues:\n",
                    "\n  search_issues:\n    scopes: [issues:read]\n",
                ),
                (
                    "\n  create_issue:\n",
                    "\n  create_issue:\n    scopes: [issues:write]\n",
                ),
                (
                    "\n  change_issue_status:\n",
                    "\n  change_issue_status:\n    scopes: [issues:read, issues:write]\n",
                ),
            ],
        )
    })
}

/// The tracker with one curated tool and discovery tools for the rest
/// (`tests/fixtures/discovery/tracker.yaml`), the curated tool needing `issues:read` and the
/// discovery tools `api:explore`; its variables start `TRACKER_DISCOVERY_SCOPED_`.
fn scoped_discovery() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        build_scoped(
            "tracker-discovery-scoped",
            "tests/fixtures/discovery/tracker.yaml",
            &[
                (
                    "\n  search_issues:\n",
                    "\n  search_issues:\n    scopes: [issues:read]\n",
                ),
                (
                    "\ndiscovery: {}\n",
                    "\ndiscovery: { scopes: [api:explore] }\n",
                ),
            ],
        )
    })
}

/// Generates the tracker with `curation` (relative to the repository) edited, each `(text,
/// replacement)` replacing the one place `text` occurs, under the name `name` into
/// `target/e2e/NAME`, checks it with clippy and builds it.
fn build_scoped(name: &str, curation: &str, edits: &[(&str, &str)]) -> PathBuf {
    let dir = repo().join("target/e2e").join(name);
    let mut scoped =
        std::fs::read_to_string(repo().join(curation)).expect("the tracker's curation file");
    for (text, replacement) in edits {
        assert_eq!(scoped.matches(text).count(), 1, "one place {text:?}");
        scoped = scoped.replace(text, replacement);
    }
    std::fs::create_dir_all(&dir).expect("the crate's folder");
    let curation_path = dir.join("mcpgen.yaml");
    std::fs::write(&curation_path, scoped).expect("the scoped curation file is written");
    let crate_dir = dir.join("crate");
    let options = mcpgen::Options {
        name: Some(name.to_string()),
        ..Default::default()
    };
    let spec = repo().join("specs/tracker/openapi.yaml");
    let (_, files) = mcpgen::generate(&spec, Some(&curation_path), &options)
        .unwrap_or_else(|e| panic!("{name} generates: {e:#}"));
    mcpgen::write::write(&crate_dir, &files).expect("the crate is written");
    let output = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["clippy", "--quiet", "--all-targets", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
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
    support::build_crate(&crate_dir, &format!("{name}-mcp")).unwrap_or_else(|e| panic!("{e}"))
}

/// The scoped server in front of `api`, accepting tokens of `auth` for [`RESOURCE`], configured
/// through its environment, with `leeway` seconds for `exp` and `nbf`.
async fn start_server(auth: &AuthServer, api: &RecordedApi, leeway: u64) -> HttpServer {
    let leeway = leeway.to_string();
    let env = [
        ("TRACKER_TOKEN", Some(TOKEN)),
        ("TRACKER_SCOPED_OAUTH_ISSUER", Some(auth.issuer.as_str())),
        ("TRACKER_SCOPED_RESOURCE_URL", Some(RESOURCE)),
        ("TRACKER_SCOPED_OAUTH_LEEWAY", Some(leeway.as_str())),
    ];
    HttpServer::start_binary(scoped_tracker(), &api.base_url, &env).await
}

/// The scoped server in front of `api` with no token of its own for the API: each user's
/// token comes from a token exchange at `auth`, configured through the environment.
async fn start_exchanging_server(auth: &AuthServer, api: &RecordedApi) -> HttpServer {
    let exchange_url = format!("{}/token", auth.issuer);
    let env = [
        ("TRACKER_TOKEN", None),
        ("TRACKER_SCOPED_OAUTH_ISSUER", Some(auth.issuer.as_str())),
        ("TRACKER_SCOPED_RESOURCE_URL", Some(RESOURCE)),
        (
            "TRACKER_SCOPED_TOKEN_EXCHANGE_URL",
            Some(exchange_url.as_str()),
        ),
        (
            "TRACKER_SCOPED_TOKEN_EXCHANGE_CLIENT_ID",
            Some("mcp-server"),
        ),
        (
            "TRACKER_SCOPED_TOKEN_EXCHANGE_SECRET_ENV",
            Some("EXCHANGE_SECRET"),
        ),
        ("EXCHANGE_SECRET", Some("mcp-server-secret")),
    ];
    HttpServer::start_binary(scoped_tracker(), &api.base_url, &env).await
}

/// The scoped server in front of `api`, accepting JWTs of `auth` and opaque tokens it
/// introspects there.
async fn start_introspecting_server(auth: &AuthServer, api: &RecordedApi) -> HttpServer {
    let introspection_url = format!("{}/token/introspection", auth.issuer);
    let env = [
        ("TRACKER_TOKEN", Some(TOKEN)),
        ("TRACKER_SCOPED_OAUTH_ISSUER", Some(auth.issuer.as_str())),
        ("TRACKER_SCOPED_RESOURCE_URL", Some(RESOURCE)),
        (
            "TRACKER_SCOPED_OAUTH_INTROSPECTION_URL",
            Some(introspection_url.as_str()),
        ),
        (
            "TRACKER_SCOPED_OAUTH_INTROSPECTION_CLIENT_ID",
            Some("mcp-server"),
        ),
        (
            "TRACKER_SCOPED_OAUTH_INTROSPECTION_SECRET_ENV",
            Some("INTROSPECTION_SECRET"),
        ),
        ("INTROSPECTION_SECRET", Some("mcp-server-secret")),
    ];
    HttpServer::start_binary(scoped_tracker(), &api.base_url, &env).await
}

/// Runs `scenario` on a fresh runtime with the server built first, bounded by [`PATIENCE`].
fn run<Fut: Future<Output = ()>>(scenario: impl FnOnce() -> Fut) {
    scoped_tracker();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        tokio::time::timeout(PATIENCE, scenario())
            .await
            .expect("the scenario finishes in time");
    });
}

// --- Raw HTTP -----------------------------------------------------------------------------------

/// What the server answered: status, `WWW-Authenticate`, `Content-Type` and the body as text.
struct Answer {
    status: u16,
    challenge: Option<String>,
    body: String,
}

impl Answer {
    /// The JSON-RPC result of the body (JSON, or the SSE event that carries it).
    fn result(&self) -> Value {
        let message: Value = serde_json::from_str(&self.body).unwrap_or_else(|_| {
            self.body
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
                .find(|message| message.get("result").is_some())
                .unwrap_or_else(|| panic!("no JSON-RPC result in: {}", self.body))
        });
        message["result"].clone()
    }
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "oauth-test", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

fn tools_list() -> Value {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": { "_meta": meta() } })
}

fn tools_call(name: &str, arguments: Value) -> Value {
    json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": name, "arguments": arguments, "_meta": meta() },
    })
}

/// POSTs `message` as a 2026-07-28 client does, with `token` as its bearer token when given.
async fn post(url: &str, token: Option<&str>, message: &Value) -> Answer {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", message["method"].as_str().unwrap_or_default())
        .body(message.to_string());
    if let Some(name) = message["params"]["name"].as_str() {
        request = request.header("Mcp-Name", name);
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("the server answers");
    Answer {
        status: response.status().as_u16(),
        challenge: response
            .headers()
            .get("www-authenticate")
            .map(|value| value.to_str().expect("an ASCII header").to_string()),
        body: response.text().await.unwrap_or_default(),
    }
}

/// The names `tools/list` shows a caller with `token`, and the list's `cacheScope`.
async fn listed(url: &str, token: &str) -> (Vec<String>, Value) {
    let answer = post(url, Some(token), &tools_list()).await;
    assert_eq!(answer.status, 200, "tools/list: {}", answer.body);
    let result = answer.result();
    let names = result["tools"]
        .as_array()
        .expect("a tool list")
        .iter()
        .map(|tool| tool["name"].as_str().expect("a name").to_string())
        .collect();
    (names, result["cacheScope"].clone())
}

/// `http://127.0.0.1:PORT` of a server whose MCP endpoint is `url`.
fn origin(url: &str) -> &str {
    url.strip_suffix("/mcp").expect("the endpoint ends in /mcp")
}

// --- Tests --------------------------------------------------------------------------------------

#[test]
fn a_request_without_a_token_gets_401_naming_the_metadata_which_names_the_authorization_server() {
    run(|| async {
        let auth = AuthServer::start();
        let api = RecordedApi::start().await;
        let server = start_server(&auth, &api, 30).await;

        let answer = post(server.url(), None, &tools_list()).await;
        assert_eq!(answer.status, 401, "{}", answer.body);
        assert_eq!(
            answer.challenge.as_deref(),
            Some(format!("Bearer resource_metadata=\"{METADATA_URL}\"").as_str())
        );

        let http = reqwest::Client::new();
        let metadata: Value = http
            .get(format!(
                "{}/.well-known/oauth-protected-resource/mcp",
                origin(server.url())
            ))
            .send()
            .await
            .expect("the metadata is served")
            .json()
            .await
            .expect("the metadata is JSON");
        assert_eq!(metadata["resource"], RESOURCE);
        assert_eq!(metadata["authorization_servers"], json!([auth.issuer]));
        assert_eq!(
            metadata["scopes_supported"],
            json!(["issues:read", "issues:write"])
        );
        assert_eq!(metadata["bearer_methods_supported"], json!(["header"]));

        // A load balancer's health check needs no token.
        let health = http
            .get(format!("{}/health", origin(server.url())))
            .send()
            .await
            .expect("the health route answers");
        assert_eq!(health.status().as_u16(), 200);

        assert_eq!(
            api.requests(),
            Vec::<String>::new(),
            "nothing reached the API"
        );
    });
}

#[test]
fn tools_list_shows_each_caller_only_the_tools_its_scopes_allow_as_a_private_list() {
    run(|| async {
        let auth = AuthServer::start();
        let api = RecordedApi::start().await;
        let server = start_server(&auth, &api, 30).await;

        let cases: [(Option<&str>, &[&str]); 4] = [
            (Some("issues:read"), &["tracker_search_issues"]),
            (Some("issues:write"), &["tracker_create_issue"]),
            (
                Some("issues:read issues:write"),
                &[
                    "tracker_search_issues",
                    "tracker_create_issue",
                    "tracker_change_issue_status",
                ],
            ),
            (None, &[]),
        ];
        for (scope, expected) in cases {
            let token = auth.token("mcp-client", RESOURCE, scope).await;
            let (names, cache_scope) = listed(server.url(), &token).await;
            assert_eq!(names, expected, "the tools listed for scope {scope:?}");
            assert_eq!(cache_scope, "private", "a list that depends on the token");
        }
        assert_eq!(
            api.requests(),
            Vec::<String>::new(),
            "listing asks the API nothing"
        );
    });
}

#[test]
fn a_call_outside_the_tokens_scopes_gets_403_insufficient_scope_and_sends_nothing_upstream() {
    run(|| async {
        let auth = AuthServer::start();
        let api = RecordedApi::start().await;
        let server = start_server(&auth, &api, 30).await;
        let reader = auth
            .token("mcp-client", RESOURCE, Some("issues:read"))
            .await;

        let create = tools_call(
            "tracker_create_issue",
            json!({ "project": "WEB", "title": "Should never be created" }),
        );
        let answer = post(server.url(), Some(&reader), &create).await;
        assert_eq!(answer.status, 403, "{}", answer.body);
        let challenge = answer.challenge.expect("a WWW-Authenticate header");
        assert!(
            challenge.starts_with("Bearer error=\"insufficient_scope\""),
            "{challenge}"
        );
        assert!(challenge.contains("scope=\"issues:write\""), "{challenge}");
        assert!(
            challenge.contains(&format!("resource_metadata=\"{METADATA_URL}\"")),
            "{challenge}"
        );
        // A tool that needs two scopes names both, though the token holds one.
        let change = tools_call(
            "tracker_change_issue_status",
            json!({ "issue": "WEB-1", "status": "done" }),
        );
        let answer = post(server.url(), Some(&reader), &change).await;
        assert_eq!(answer.status, 403, "{}", answer.body);
        let challenge = answer.challenge.expect("a WWW-Authenticate header");
        assert!(
            challenge.contains("scope=\"issues:read issues:write\""),
            "{challenge}"
        );
        assert_eq!(
            api.requests(),
            Vec::<String>::new(),
            "nothing reached the API"
        );

        // The same token calls what its scope allows, and that reaches the API.
        let search = tools_call("tracker_search_issues", json!({ "project": "WEB" }));
        let answer = post(server.url(), Some(&reader), &search).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(answer.result()["isError"], json!(false), "{}", answer.body);
        assert!(
            api.requests()
                .iter()
                .any(|line| line.starts_with("GET ") && line.ends_with("/issues")),
            "the search reached the API: {:?}",
            api.requests()
        );
        assert!(
            !api.requests().iter().any(|line| line.starts_with("POST")),
            "nothing was created: {:?}",
            api.requests()
        );
    });
}

#[test]
fn tokens_for_another_audience_expired_or_not_signed_by_the_issuer_get_401_and_send_nothing_upstream()
 {
    run(|| async {
        let auth = AuthServer::start();
        let api = RecordedApi::start().await;
        let server = start_server(&auth, &api, 0).await;
        let search = tools_call("tracker_search_issues", json!({ "project": "WEB" }));

        let elsewhere = auth
            .token("mcp-client", "https://other.example/mcp", Some(SCOPES))
            .await;
        let expiring = auth.token("short-lived", RESOURCE, Some(SCOPES)).await;
        let other_issuer = AuthServer::start();
        let foreign = other_issuer
            .token("mcp-client", RESOURCE, Some(SCOPES))
            .await;
        // This server's header and claims under the signature of another token.
        let valid = auth.token("mcp-client", RESOURCE, Some(SCOPES)).await;
        let (signed, _) = valid.rsplit_once('.').expect("a JWT");
        let (_, other_signature) = elsewhere.rsplit_once('.').expect("a JWT");
        let spliced = format!("{signed}.{other_signature}");
        tokio::time::sleep(Duration::from_millis(2100)).await;

        for (what, token, reason) in [
            (
                "another audience",
                elsewhere.as_str(),
                "not issued for this server",
            ),
            ("an expired token", expiring.as_str(), "has expired"),
            ("another issuer", foreign.as_str(), "the access token"),
            (
                "a spliced signature",
                spliced.as_str(),
                "signature is wrong",
            ),
            ("not a JWT", "opaque-token", "not a JWT"),
        ] {
            let answer = post(server.url(), Some(token), &search).await;
            assert_eq!(answer.status, 401, "{what}: {}", answer.body);
            let challenge = answer.challenge.expect("a WWW-Authenticate header");
            assert!(
                challenge.starts_with("Bearer error=\"invalid_token\""),
                "{what}: {challenge}"
            );
            assert!(challenge.contains(reason), "{what}: {challenge}");
            assert!(
                challenge.contains("resource_metadata="),
                "{what}: {challenge}"
            );
        }
        assert_eq!(
            api.requests(),
            Vec::<String>::new(),
            "nothing reached the API"
        );

        // A fresh token of the configured issuer, for this server, passes.
        let answer = post(server.url(), Some(&valid), &search).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
    });
}

#[test]
fn rmcps_client_with_a_read_token_lists_and_calls_only_the_read_tool() {
    run(|| async {
        let auth = AuthServer::start();
        let api = RecordedApi::start().await;
        let server = start_server(&auth, &api, 30).await;
        let reader = auth
            .token("mcp-client", RESOURCE, Some("issues:read"))
            .await;
        let config =
            StreamableHttpClientTransportConfig::with_uri(server.url()).auth_header(reader);
        let client = rmcp::model::ClientConfig::default()
            .serve_with_lifecycle(
                StreamableHttpClientTransport::from_config(config),
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .expect("rmcp's client connects with the access token");
        let tools = client.list_tools(None).await.expect("tools/list");
        let names: Vec<&str> = tools.tools.iter().map(|tool| tool.name.as_ref()).collect();
        assert_eq!(names, ["tracker_search_issues"]);

        let arguments = json!({ "project": "WEB" });
        let result = client
            .call_tool(
                rmcp::model::CallToolRequestParams::new("tracker_search_issues".to_owned())
                    .with_arguments(arguments.as_object().cloned().expect("an object")),
            )
            .await
            .expect("the search is called");
        assert_eq!(result.is_error, Some(false), "{result:?}");
        let before = api.requests().len();

        let create = json!({ "project": "WEB", "title": "Should never be created" });
        let refused = client
            .call_tool(
                rmcp::model::CallToolRequestParams::new("tracker_create_issue".to_owned())
                    .with_arguments(create.as_object().cloned().expect("an object")),
            )
            .await;
        assert!(
            refused.is_err(),
            "a call outside the token's scopes fails: {refused:?}"
        );
        assert_eq!(
            api.requests().len(),
            before,
            "the refused call reached the API"
        );
    });
}

#[test]
fn a_token_signed_with_a_rotated_key_is_accepted_once_the_keys_are_fetched_again() {
    run(|| async {
        let first = AuthServer::start();
        let api = RecordedApi::start().await;
        let server = start_server(&first, &api, 30).await;
        let old = first.token("mcp-client", RESOURCE, Some(SCOPES)).await;
        let answer = post(server.url(), Some(&old), &tools_list()).await;
        // The server fetched the keys for this request.
        let fetched = Instant::now();
        assert_eq!(answer.status, 200, "{}", answer.body);

        // The authorization server restarts with a new key, at the same issuer URL.
        let port = first.port;
        drop(first);
        let rotated = AuthServer::start_on(port, "test-key-2");
        let new = rotated.token("mcp-client", RESOURCE, Some(SCOPES)).await;
        // Keys fetched less than 10 seconds ago are not fetched again, whatever a token names.
        let answer = post(server.url(), Some(&new), &tools_list()).await;
        assert_eq!(answer.status, 401, "{}", answer.body);
        let challenge = answer.challenge.expect("a WWW-Authenticate header");
        assert!(
            challenge.contains("a key the authorization server does not publish"),
            "{challenge}"
        );
        tokio::time::sleep(Duration::from_millis(10_500).saturating_sub(fetched.elapsed())).await;

        // Past that, the unknown key id makes the server fetch the keys again.
        let answer = post(server.url(), Some(&new), &tools_list()).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        // The old key is gone with the fetch.
        let answer = post(server.url(), Some(&old), &tools_list()).await;
        assert_eq!(answer.status, 401, "{}", answer.body);
    });
}

#[test]
fn each_user_calls_the_api_with_a_token_exchanged_for_theirs_and_lists_and_tokens_are_cached_per_user()
 {
    run(|| async {
        let auth = AuthServer::start();
        let api = RecordedApi::start().await;
        let server = start_exchanging_server(&auth, &api).await;
        let alice = auth.token("alice", RESOURCE, Some(SCOPES)).await;
        let bob = auth.token("bob", RESOURCE, Some(SCOPES)).await;
        let search = tools_call("tracker_search_issues", json!({ "project": "WEB" }));

        let answer = post(server.url(), Some(&alice), &search).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(answer.result()["isError"], json!(false), "{}", answer.body);
        assert_eq!(api.authorizations_since(0), ["Bearer alice-token"]);
        assert_eq!(auth.exchanges().await, 1);

        // Alice's second call uses her cached token: no second exchange.
        let seen = api.requests().len();
        let answer = post(server.url(), Some(&alice), &search).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(api.authorizations_since(seen), ["Bearer alice-token"]);
        assert_eq!(auth.exchanges().await, 1);

        // Alice's project list (the resolver of `WEB`) was fetched once, with her token, and
        // is kept for her.
        let projects = |requests: &[String]| {
            requests
                .iter()
                .filter(|line| *line == "GET /v2/projects")
                .count()
        };
        assert_eq!(projects(&api.requests()), 1, "{:?}", api.requests());

        // Bob gets his own token, and his own project list: what Alice's token showed is never
        // what resolves Bob's names.
        let seen = api.requests().len();
        let answer = post(server.url(), Some(&bob), &search).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(api.authorizations_since(seen), ["Bearer bob-token"]);
        assert_eq!(auth.exchanges().await, 2);
        assert_eq!(
            projects(&api.requests()[seen..]),
            1,
            "{:?}",
            &api.requests()[seen..]
        );

        // A user the API's authorization server refuses to exchange for gets a tool error, and
        // nothing reaches the API.
        let stranger = auth.token("mcp-client", RESOURCE, Some(SCOPES)).await;
        let seen = api.requests().len();
        let answer = post(server.url(), Some(&stranger), &search).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        let result = answer.result();
        assert_eq!(result["isError"], json!(true), "{result}");
        assert!(
            result.to_string().contains("token exchange"),
            "the error names the exchange: {result}"
        );
        assert_eq!(api.requests().len(), seen, "nothing reached the API");

        // No MCP access token ever reached the API.
        let all = api.authorizations_since(0);
        for token in [&alice, &bob, &stranger] {
            assert!(
                !all.iter().any(|header| header.contains(token.as_str())),
                "an MCP token was passed through: {all:?}"
            );
        }
    });
}

#[test]
fn opaque_tokens_are_checked_by_introspection_for_activity_audience_and_scopes() {
    run(|| async {
        let auth = AuthServer::start();
        let api = RecordedApi::start().await;
        let server = start_introspecting_server(&auth, &api).await;

        let reader = auth
            .token("opaque-client", RESOURCE, Some("issues:read"))
            .await;
        assert!(
            jwt_header(&reader).is_none(),
            "the authorization server issued an opaque token: {reader}"
        );
        let (names, _) = listed(server.url(), &reader).await;
        assert_eq!(names, ["tracker_search_issues"]);
        let create = tools_call(
            "tracker_create_issue",
            json!({ "project": "WEB", "title": "Should never be created" }),
        );
        let answer = post(server.url(), Some(&reader), &create).await;
        assert_eq!(answer.status, 403, "{}", answer.body);

        let elsewhere = auth
            .token("opaque-client", "https://other.example/mcp", Some(SCOPES))
            .await;
        for (what, token, reason) in [
            (
                "another audience",
                elsewhere.as_str(),
                "not issued for this server",
            ),
            (
                "an unknown token",
                "not-a-token-anyone-issued",
                "not active",
            ),
        ] {
            let answer = post(server.url(), Some(token), &tools_list()).await;
            assert_eq!(answer.status, 401, "{what}: {}", answer.body);
            let challenge = answer.challenge.expect("a WWW-Authenticate header");
            assert!(challenge.contains(reason), "{what}: {challenge}");
        }
        assert_eq!(
            api.requests(),
            Vec::<String>::new(),
            "nothing reached the API"
        );

        // JWT access tokens are still checked on their own.
        let jwt = auth.token("mcp-client", RESOURCE, Some(SCOPES)).await;
        assert!(jwt_header(&jwt).is_some());
        let (names, _) = listed(server.url(), &jwt).await;
        assert_eq!(names.len(), 3, "{names:?}");
    });
}

/// The header of a JWT, when `token` is one.
fn jwt_header(token: &str) -> Option<String> {
    let (header, rest) = token.split_once('.')?;
    rest.split_once('.')?;
    Some(header.to_string())
}

#[test]
fn while_the_authorization_servers_keys_cannot_be_fetched_every_token_gets_401() {
    run(|| async {
        let auth = AuthServer::start();
        let api = RecordedApi::start().await;
        let token = auth.token("mcp-client", RESOURCE, Some(SCOPES)).await;
        // An issuer nobody listens at.
        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let issuer = format!("http://127.0.0.1:{closed}");
        let env = [
            ("TRACKER_TOKEN", Some(TOKEN)),
            ("TRACKER_SCOPED_OAUTH_ISSUER", Some(issuer.as_str())),
            ("TRACKER_SCOPED_RESOURCE_URL", Some(RESOURCE)),
        ];
        let server = HttpServer::start_binary(scoped_tracker(), &api.base_url, &env).await;
        for _ in 0..2 {
            let answer = post(server.url(), Some(&token), &tools_list()).await;
            assert_eq!(answer.status, 401, "{}", answer.body);
            let challenge = answer.challenge.expect("a WWW-Authenticate header");
            assert!(challenge.contains("keys cannot be fetched"), "{challenge}");
        }
        assert_eq!(
            api.requests(),
            Vec::<String>::new(),
            "nothing reached the API"
        );
    });
}

#[test]
fn tokens_signed_in_an_algorithm_outside_the_allow_list_get_401() {
    run(|| async {
        let auth = AuthServer::start();
        let api = RecordedApi::start().await;
        let server = start_server(&auth, &api, 30).await;
        let valid = auth.token("mcp-client", RESOURCE, Some(SCOPES)).await;
        let mut parts = valid.split('.');
        let (_, claims) = (parts.next(), parts.next().expect("a JWT's claims"));
        // `{"alg":"none","typ":"at+jwt"}` and `{"alg":"HS256","typ":"at+jwt","kid":"test-key-1"}`
        // over the valid token's claims: unsigned, and "signed" with a shared secret.
        let unsigned = format!("eyJhbGciOiJub25lIiwidHlwIjoiYXQrand0In0.{claims}.");
        let symmetric = format!(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6InRlc3Qta2V5LTEifQ.{claims}.c2lnbmF0dXJl"
        );
        for (what, token, reason) in [
            ("alg none", unsigned.as_str(), "invalid_token"),
            (
                "HS256",
                symmetric.as_str(),
                "HS256, which this server does not accept",
            ),
        ] {
            let answer = post(server.url(), Some(token), &tools_list()).await;
            assert_eq!(answer.status, 401, "{what}: {}", answer.body);
            let challenge = answer.challenge.expect("a WWW-Authenticate header");
            assert!(challenge.contains(reason), "{what}: {challenge}");
        }

        // A server that accepts ES256 only refuses the authorization server's RS256 tokens.
        let env = [
            ("TRACKER_TOKEN", Some(TOKEN)),
            ("TRACKER_SCOPED_OAUTH_ISSUER", Some(auth.issuer.as_str())),
            ("TRACKER_SCOPED_RESOURCE_URL", Some(RESOURCE)),
            ("TRACKER_SCOPED_OAUTH_ALGORITHMS", Some("ES256")),
        ];
        let strict = HttpServer::start_binary(scoped_tracker(), &api.base_url, &env).await;
        let answer = post(strict.url(), Some(&valid), &tools_list()).await;
        assert_eq!(answer.status, 401, "{}", answer.body);
        let challenge = answer.challenge.expect("a WWW-Authenticate header");
        assert!(
            challenge.contains("RS256, which this server does not accept"),
            "{challenge}"
        );
        // The default list accepts it.
        let answer = post(server.url(), Some(&valid), &tools_list()).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(
            api.requests(),
            Vec::<String>::new(),
            "nothing reached the API"
        );
    });
}

/// The scoped server on a loopback port of its own, its resource URL the URL it is reached at
/// (as a client that discovers everything checks), killed when dropped.
struct LoopbackResource {
    child: Child,
    url: String,
}

impl LoopbackResource {
    async fn start(auth: &AuthServer, api: &RecordedApi) -> LoopbackResource {
        let address = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port on 127.0.0.1");
        let url = format!("http://{address}/mcp");
        let child = Command::new(scoped_tracker())
            .args(["--transport", "http", "--listen", &address.to_string()])
            .args(["--base-url", &api.base_url])
            .env("TRACKER_TOKEN", TOKEN)
            .env("TRACKER_SCOPED_OAUTH_ISSUER", &auth.issuer)
            .env("TRACKER_SCOPED_RESOURCE_URL", &url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let server = LoopbackResource { child, url };
        let deadline = Instant::now() + PATIENCE;
        while tokio::net::TcpStream::connect(address).await.is_err() {
            assert!(
                Instant::now() < deadline,
                "the server did not listen in time"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        server
    }
}

impl Drop for LoopbackResource {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_typescript_client_finds_the_authorization_server_from_the_401_and_gets_only_its_scopes() {
    run(|| async {
        let auth = AuthServer::start();
        let api = RecordedApi::start().await;
        let server = LoopbackResource::start(&auth, &api).await;
        let client_dir = required_env("MCPGEN_TEST_TS_CLIENT");
        let node = required_env("MCPGEN_TEST_NODE22");
        let script = repo().join("tests/support/ts_oauth_client.mjs");
        let url = server.url.clone();
        let issuer = auth.issuer.clone();
        // `ts-client` may be granted issues:read only, whatever it asks for.
        let output = tokio::task::spawn_blocking(move || {
            Command::new(node)
                .arg(script)
                .arg(client_dir)
                .args([
                    &url,
                    "ts-client",
                    "ts-client-secret",
                    "issues:read",
                    &issuer,
                ])
                .output()
                .expect("node runs the TypeScript client")
        })
        .await
        .expect("the client finishes");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "the client failed: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let report: Value = serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("the client printed no JSON ({e}): {stdout}"));
        assert_eq!(
            report["tools"],
            json!(["tracker_search_issues"]),
            "{report}"
        );
        assert_eq!(report["search"]["isError"], json!(false), "{report}");
        assert!(
            report["create"]["error"]
                .as_str()
                .is_some_and(|error| error.contains("insufficient_scope")),
            "creating needs issues:write, which the client cannot get: {report}"
        );
        assert!(
            api.requests().iter().any(|line| line.ends_with("/issues")),
            "the search reached the API: {:?}",
            api.requests()
        );
        assert!(
            !api.requests().iter().any(|line| line.starts_with("POST")),
            "nothing was created: {:?}",
            api.requests()
        );
    });
}

#[test]
fn the_discovery_tools_are_listed_and_called_only_with_their_scope() {
    let binary = scoped_discovery();
    run(|| async {
        let auth = AuthServer::start();
        let api = RecordedApi::start().await;
        let env = [
            ("TRACKER_DISCOVERY_TOKEN", Some(TOKEN)),
            (
                "TRACKER_DISCOVERY_SCOPED_OAUTH_ISSUER",
                Some(auth.issuer.as_str()),
            ),
            ("TRACKER_DISCOVERY_SCOPED_RESOURCE_URL", Some(RESOURCE)),
        ];
        let server = HttpServer::start_binary(binary, &api.base_url, &env).await;
        let discovery = [
            "tracker_search_operations",
            "tracker_describe_operation",
            "tracker_call_operation",
        ];

        let reader = auth
            .token("mcp-client", RESOURCE, Some("issues:read"))
            .await;
        let (names, _) = listed(server.url(), &reader).await;
        assert_eq!(names, ["tracker_search_issues"]);
        let call = tools_call(
            "tracker_call_operation",
            json!({ "operation": "getIssueByKey", "arguments": { "issue_key": "WEB-1" } }),
        );
        let answer = post(server.url(), Some(&reader), &call).await;
        assert_eq!(answer.status, 403, "{}", answer.body);
        let challenge = answer.challenge.expect("a WWW-Authenticate header");
        assert!(challenge.contains("scope=\"api:explore\""), "{challenge}");
        assert_eq!(
            api.requests(),
            Vec::<String>::new(),
            "nothing reached the API"
        );

        let explorer = auth
            .token("mcp-client", RESOURCE, Some("api:explore"))
            .await;
        let (names, _) = listed(server.url(), &explorer).await;
        assert_eq!(names, discovery);
        let answer = post(server.url(), Some(&explorer), &call).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(answer.result()["isError"], json!(false), "{}", answer.body);
        assert!(
            !api.requests().is_empty(),
            "the discovered operation reached the API"
        );
    });
}
