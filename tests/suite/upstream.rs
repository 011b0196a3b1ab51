//! The generated server between an untrusted model and a failing API, end to end: a server
//! generated from `tests/fixtures/chaos/openapi.yaml`, driven over stdio by rmcp's client, in
//! front of the chaos upstream of `tests/support/chaos.rs`.
//!
//! - arguments that break a tool's input schema are refused before anything is sent, with a
//!   message naming the argument, the value, what is valid and an example;
//! - path, query and header values cannot change the request's shape;
//! - each failure of the API (refused, stalled, 4xx, 5xx, garbage, wrong shape, too large, slow)
//!   becomes an `isError` result, and the next call works;
//! - only idempotent requests are tried again, on 5xx and 429 (honouring `Retry-After`);
//! - the API token comes from a file named in the environment and never reaches a result or
//!   the server's log.
//!
//! Everything listens on 127.0.0.1; every wait is bounded; servers die with their clients.

use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};

use crate::support;
use crate::support::chaos;
use crate::support::chaos::{Chaos, Reply};

/// The longest one scenario may take once the server is built.
const SCENARIO_TIMEOUT: Duration = Duration::from_secs(120);
/// The longest one MCP request (the handshake included) may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// The generated chaos server's binary, built once per test process into `target/generated`.
fn binary() -> &'static Path {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let built = BINARY.get_or_init(|| {
        let spec = support::repo().join("tests/fixtures/chaos/openapi.yaml");
        let crate_dir = support::repo().join("target/e2e/chaos");
        let options = mcpgen::Options {
            name: Some("chaos".to_string()),
            ..Default::default()
        };
        let (_, files) = mcpgen::generate(&spec, None, &options)
            .map_err(|e| format!("mcpgen cannot generate {}: {e:#}", spec.display()))?;
        mcpgen::write::write(&crate_dir, &files)
            .map_err(|e| format!("cannot write the generated crate: {e}"))?;
        support::build_crate(&crate_dir, "chaos-mcp")
    });
    match built {
        Ok(binary) => binary,
        Err(message) => panic!("{message}"),
    }
}

/// Runs `scenario` on a fresh runtime once the server is built, within [`SCENARIO_TIMEOUT`].
fn run<Fut: Future<Output = ()>>(scenario: impl FnOnce() -> Fut) {
    binary();
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

/// The chaos server over stdio, its stderr kept in a file.
struct Server {
    service: RunningService<RoleClient, ClientConfig>,
    stderr: std::fs::File,
}

/// The API token of most scenarios.
const TOKEN: &str = "chaos-token-1234";

impl Server {
    /// Starts the server in front of `base_url` with the extra command-line `args` and the
    /// environment `env` (CHAOS_TOKEN is [`TOKEN`] unless `env` names another credential).
    async fn start(base_url: &str, args: &[&str], env: &[(&str, &str)]) -> Server {
        let stderr = tempfile::tempfile().expect("a file for the server's stderr");
        let writer = stderr.try_clone().expect("a second handle");
        let command = tokio::process::Command::new(binary()).configure(|command| {
            command
                .args(args)
                .env("CHAOS_BASE_URL", base_url)
                .env("CHAOS_TOKEN", TOKEN)
                .env_remove("CHAOS_TOKEN_FILE")
                .kill_on_drop(true);
            for (name, value) in env {
                command.env(name, value);
            }
        });
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(Stdio::from(writer))
            .spawn()
            .expect("the chaos server starts");
        let service = tokio::time::timeout(
            CALL_TIMEOUT,
            ClientConfig::default()
                .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize),
        )
        .await
        .expect("the handshake finishes in time")
        .expect("the handshake succeeds");
        Server { service, stderr }
    }

    /// `tools/call`, which must get a result (an `isError` one included).
    async fn call(&self, tool: &str, arguments: Value) -> CallToolResult {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object");
        };
        let request = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        tokio::time::timeout(CALL_TIMEOUT, self.service.call_tool(request))
            .await
            .unwrap_or_else(|_| panic!("{tool} did not answer within {CALL_TIMEOUT:?}"))
            .unwrap_or_else(|e| panic!("{tool} failed: {e}"))
    }

    /// The error text of a call that must fail.
    async fn error(&self, tool: &str, arguments: Value) -> String {
        support::error_text(&self.call(tool, arguments).await)
    }

    /// Proves the server still serves: `get_thing` answers with the thing.
    async fn still_serves(&self, after: &str) {
        let result = self.call("get_thing", json!({"thing_id": "t1"})).await;
        assert_eq!(
            support::structured(&result)["id"],
            "t1",
            "the call after {after} works"
        );
    }

    /// Disconnects and returns everything the server wrote to stderr.
    async fn close(self) -> String {
        let Server {
            mut service,
            mut stderr,
        } = self;
        let _ = service.close_with_timeout(CALL_TIMEOUT).await;
        let mut text = String::new();
        stderr.rewind().expect("rewinds");
        stderr.read_to_string(&mut text).expect("reads");
        text
    }
}

// --- Input ----------------------------------------------------------------------------------

#[test]
fn arguments_that_break_the_schema_are_refused_naming_argument_value_and_what_is_valid() {
    run(|| async {
        let api = Chaos::start().await;
        let server = Server::start(&api.base_url(), &[], &[]).await;
        let cases = [
            (
                "search_things",
                json!({"priority": 7}),
                "Invalid argument `priority`: 7 is above the maximum 5; give an integer from 1 to 5, e.g. 3.",
            ),
            (
                "search_things",
                json!({"priority": 0}),
                "Invalid argument `priority`: 0 is below the minimum 1; give an integer from 1 to 5, e.g. 3.",
            ),
            (
                "search_things",
                json!({"priority": "high"}),
                "Invalid argument `priority`: \"high\" is a string; give an integer from 1 to 5, e.g. 3.",
            ),
            (
                "search_things",
                json!({}),
                "Missing argument `priority`: it is required; give an integer from 1 to 5, e.g. 3.",
            ),
            (
                "search_things",
                json!({"priority": 3, "q": "x"}),
                "Invalid argument `q`: \"x\" is shorter than 2 characters; give a string of 2 to 10 characters.",
            ),
            (
                "search_things",
                json!({"priority": 3, "q": "far too long"}),
                "Invalid argument `q`: the text given has 12 characters, more than the maximum 10; give a string of 2 to 10 characters.",
            ),
            (
                "search_things",
                json!({"priority": 3, "code": "ab-1"}),
                "Invalid argument `code`: \"ab-1\" does not match the pattern `^[A-Z]{3}-[0-9]+$`; give a string matching `^[A-Z]{3}-[0-9]+$`.",
            ),
            (
                "search_things",
                json!({"priority": 3, "colour": "pink"}),
                "Invalid argument `colour`: \"pink\" is not allowed; use one of \"red\", \"green\", \"blue\".",
            ),
            (
                "search_things",
                json!({"priority": 3, "owner": "me"}),
                "Invalid argument `owner`: \"me\" is not a valid uuid; give a string in uuid format, e.g. \"123e4567-e89b-12d3-a456-426614174000\".",
            ),
            (
                "search_things",
                json!({"priority": 3, "shade": "dark"}),
                "Unknown argument `shade`: the tool takes only",
            ),
            (
                "create_thing",
                json!({"name": "a name far longer than twenty"}),
                "Invalid argument `name`: the text given has 29 characters, more than the maximum 20",
            ),
        ];
        for (tool, arguments, expected) in cases {
            let text = server.error(tool, arguments.clone()).await;
            assert!(
                text.starts_with(expected),
                "{tool} {arguments}:\n expected: {expected}\n      got: {text}"
            );
        }
        // Every problem of one call is listed, one a line.
        let text = server
            .error("search_things", json!({"priority": 9, "colour": "pink"}))
            .await;
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(
            api.take_requests().is_empty(),
            "nothing reaches the API from arguments that break the schema"
        );
        let result = server
            .call(
                "search_things",
                json!({"priority": 3, "q": "ok", "code": "ABC-12", "colour": "red"}),
            )
            .await;
        assert_eq!(support::structured(&result)["items"][0]["id"], "t1");
        server.close().await;
    });
}

#[test]
fn path_query_and_header_values_cannot_change_the_shape_of_the_request() {
    run(|| async {
        let api = Chaos::start().await;
        let server = Server::start(&api.base_url(), &[], &[]).await;

        server
            .call("get_thing", json!({"thing_id": "../../admin"}))
            .await;
        let seen = api.take_requests();
        assert_eq!(
            seen[0].target, "/things/..%2F..%2Fadmin",
            "one path segment"
        );

        server
            .call("search_things", json!({"priority": 3, "q": "a&admin=1"}))
            .await;
        let seen = api.take_requests();
        assert_eq!(seen[0].target, "/things?priority=3&q=a%26admin%3D1");

        let text = server
            .error(
                "search_things",
                json!({"priority": 3, "X-Trace": "a\r\nX-Admin: 1"}),
            )
            .await;
        assert!(text.contains("line break"), "{text}");
        assert!(api.take_requests().is_empty(), "the request was not sent");
        server.still_serves("a refused header").await;
        server.close().await;
    });
}

#[test]
fn the_api_is_asked_for_json_first() {
    run(|| async {
        let api = Chaos::start().await;
        let server = Server::start(&api.base_url(), &[], &[]).await;
        server.call("get_thing", json!({"thing_id": "7"})).await;
        let seen = api.take_requests();
        assert_eq!(
            seen[0].header("accept"),
            Some("application/json, */*;q=0.8"),
            "an API that also speaks XML answers JSON"
        );
        server.close().await;
    });
}

// --- Failing upstreams ------------------------------------------------------------------------

#[test]
fn each_failure_of_the_api_is_a_tool_error_and_the_next_call_works() {
    run(|| async {
        let api = Chaos::start().await;
        let server = Server::start(
            &api.base_url(),
            &["--api-timeout", "1", "--api-max-response-bytes", "2000"],
            &[],
        )
        .await;
        let thing = json!({"thing_id": "t9"});
        let html = b"<html><body>Bad gateway</body></html>".to_vec();
        let cases: Vec<(&str, Vec<Reply>, &str)> = vec![
            (
                "a 4xx with a JSON error body",
                vec![Reply::json(404, json!({"message": "No thing with id t9."}))],
                "The API rejected GET /things/{thing_id} with HTTP 404 Not Found: No thing with id t9. Check the identifiers in the arguments.",
            ),
            (
                "a 5xx that persists",
                vec![Reply::json(500, json!({"message": "Database down."})); 3],
                "The API rejected GET /things/{thing_id} with HTTP 500 Internal Server Error: Database down. The API failed; try again later.",
            ),
            (
                "a body that says it is JSON but is not",
                vec![Reply::Raw {
                    status: 200,
                    content_type: "application/json",
                    body: html.clone(),
                    chunked: false,
                }],
                "The API's answer to GET /things/{thing_id} says it is JSON but is not (<html><body>Bad gateway</body></html>).",
            ),
            (
                "a body that is not JSON at all",
                vec![Reply::Raw {
                    status: 200,
                    content_type: "text/html",
                    body: html.clone(),
                    chunked: false,
                }],
                "The API's answer does not have the shape the API documents (the answer: text, not JSON: \"<html><body>Bad gateway</body></html>\")",
            ),
            (
                "a body that does not match the schema",
                vec![Reply::json(200, json!({"id": 9, "name": "nine"}))],
                "The API's answer does not have the shape the API documents (at /id: 9 is not of type \"string\")",
            ),
            (
                "a body over the cap that says its length",
                vec![Reply::Raw {
                    status: 200,
                    content_type: "application/json",
                    body: vec![b' '; 5000],
                    chunked: false,
                }],
                "The API's answer to GET /things/{thing_id} is larger than the 2000 bytes this server reads, so it was not read. Ask for less",
            ),
            (
                "a body over the cap sent in chunks",
                vec![Reply::Raw {
                    status: 200,
                    content_type: "application/json",
                    body: vec![b' '; 50_000],
                    chunked: true,
                }],
                "The API's answer to GET /things/{thing_id} is larger than the 2000 bytes this server reads",
            ),
            (
                "an API that never answers",
                vec![Reply::Stall(Duration::from_secs(4))],
                "Could not complete GET /things/{thing_id}: the API did not answer within 1 second. Try again later.",
            ),
            (
                "a body that trickles in",
                vec![Reply::Trickle {
                    every: Duration::from_millis(200),
                    bytes: 20,
                }],
                "Could not complete GET /things/{thing_id}: the API did not finish its answer within 1 second. Try again later.",
            ),
        ];
        for (what, replies, expected) in cases {
            api.script(replies);
            let started = Instant::now();
            let text = server.error("get_thing", thing.clone()).await;
            assert!(
                text.starts_with(expected),
                "{what}:\n expected: {expected}\n      got: {text}"
            );
            assert!(
                started.elapsed() < Duration::from_secs(4),
                "{what}: the error came after {:?}",
                started.elapsed()
            );
            api.take_requests();
            server.still_serves(what).await;
        }
        server.close().await;
    });
}

#[test]
fn a_refused_connection_is_a_tool_error_and_the_server_keeps_serving() {
    run(|| async {
        let server = Server::start(&chaos::refusing_base_url(), &[], &[]).await;
        for _ in 0..2 {
            let text = server.error("get_thing", json!({"thing_id": "t1"})).await;
            assert!(
                text.starts_with(
                    "Could not complete GET /things/{thing_id}: the API at http://127.0.0.1:"
                ) && text.contains("is not reachable (the connection failed after 3 tries)"),
                "{text}"
            );
        }
        let tools = server
            .service
            .list_tools(None)
            .await
            .expect("tools/list works");
        assert_eq!(tools.tools.len(), 3);
        server.close().await;
    });
}

#[test]
fn idempotent_requests_are_tried_again_after_5xx_and_429_honouring_retry_after() {
    run(|| async {
        let api = Chaos::start().await;
        let server = Server::start(&api.base_url(), &[], &[]).await;

        api.script([
            Reply::json(500, json!({"message": "Oops."})),
            Reply::json(503, json!({"message": "Busy."})),
        ]);
        server.still_serves("two 5xx answers").await;
        assert_eq!(api.take_requests().len(), 3, "two retries, then success");

        api.script([Reply::rate_limited(1)]);
        let started = Instant::now();
        server.still_serves("a 429").await;
        assert!(
            started.elapsed() >= Duration::from_secs(1),
            "Retry-After: 1 was honoured: {:?}",
            started.elapsed()
        );
        assert_eq!(api.take_requests().len(), 2);

        // A wait longer than the server's bound is the model's to make.
        api.script([Reply::rate_limited(60)]);
        let started = Instant::now();
        let text = server.error("get_thing", json!({"thing_id": "t1"})).await;
        assert!(
            text.ends_with("The API is rate limited; wait 60 seconds before calling again."),
            "{text}"
        );
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(
            api.take_requests().len(),
            1,
            "no retry when Retry-After is too long"
        );
        server.close().await;
    });
}

#[test]
fn a_post_is_never_tried_again() {
    run(|| async {
        let api = Chaos::start().await;
        let server = Server::start(&api.base_url(), &[], &[]).await;
        api.script([Reply::json(503, json!({"message": "Busy."}))]);
        let text = server.error("create_thing", json!({"name": "box"})).await;
        assert!(text.contains("HTTP 503"), "{text}");
        let seen = api.take_requests();
        assert_eq!(seen.len(), 1, "the POST was sent once: {seen:?}");
        assert_eq!(seen[0].method, "POST");
        server.close().await;
    });
}

#[test]
fn a_write_whose_answer_is_not_of_the_documented_shape_says_the_change_was_likely_made() {
    run(|| async {
        let api = Chaos::start().await;
        let server = Server::start(&api.base_url(), &[], &[]).await;
        api.script([Reply::json(201, json!({"id": 9, "name": "box"}))]);
        let text = server.error("create_thing", json!({"name": "box"})).await;
        assert!(
            text.starts_with("The API accepted the call, but its answer does not have the shape the API documents (at /id: 9 is not of type \"string\")"),
            "{text}"
        );
        assert!(
            text.contains("The change was most likely made: do not call again"),
            "never the read's \"calling again\" advice after a write: {text}"
        );
        let seen = api.take_requests();
        assert_eq!(seen.len(), 1, "the POST was sent once: {seen:?}");
        // An answer that says it is JSON and is not, after a POST the API accepted.
        api.script([Reply::Raw {
            status: 201,
            content_type: "application/json",
            body: b"<html>created</html>".to_vec(),
            chunked: false,
        }]);
        let text = server.error("create_thing", json!({"name": "box"})).await;
        assert_eq!(
            text,
            "The API accepted POST /things (HTTP 201), but its answer says it is JSON and is not (<html>created</html>). The change was most likely made: do not call again; tell the user to check it."
        );
        assert_eq!(api.take_requests().len(), 1, "the POST was sent once");
        server.close().await;
    });
}

// --- Credentials ------------------------------------------------------------------------------

#[test]
fn the_token_comes_from_a_file_and_never_reaches_a_result_or_the_log() {
    const SECRET: &str = "chaos-secret-from-a-file-4711";
    run(|| async {
        let mut file = tempfile::NamedTempFile::new().expect("a token file");
        writeln!(file, "{SECRET}").expect("writes the token");
        let path = file.path().to_str().expect("a UTF-8 path").to_string();
        let api = Chaos::start().await;
        let server = Server::start(
            &api.base_url(),
            &[],
            &[("CHAOS_TOKEN", ""), ("CHAOS_TOKEN_FILE", &path)],
        )
        .await;
        api.script([Reply::ReflectAuthorization]);
        let text = server.error("get_thing", json!({"thing_id": "t1"})).await;
        assert_eq!(
            text,
            "The API rejected GET /things/{thing_id} with HTTP 401 Unauthorized: The token in `Authorization: Bearer <redacted>` is not valid. The server's credentials for the API are missing or not allowed to do this; the user must fix the server's configuration."
        );
        let seen = api.take_requests();
        assert_eq!(
            seen[0].header("authorization"),
            Some(format!("Bearer {SECRET}").as_str()),
            "the token was read from the file, its line break trimmed"
        );
        let log = server.close().await;
        assert!(log.contains("<redacted>"), "the failure is logged: {log}");
        assert!(!log.contains(SECRET), "the log has the token: {log}");
    });
}

#[test]
fn a_token_file_that_cannot_be_read_stops_the_server_naming_the_file() {
    let output = std::process::Command::new(binary())
        .env("CHAOS_BASE_URL", "http://127.0.0.1:9")
        .env_remove("CHAOS_TOKEN")
        .env("CHAOS_TOKEN_FILE", "/nonexistent/chaos-token")
        .stdin(Stdio::null())
        .output()
        .expect("the server runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot read the file /nonexistent/chaos-token named by CHAOS_TOKEN_FILE"),
        "{stderr}"
    );
}

#[test]
fn without_credentials_start_up_names_the_variable_once_and_a_refused_call_says_none_were_set() {
    run(|| async {
        let api = Chaos::start().await;
        // An empty variable counts as unset.
        let server = Server::start(&api.base_url(), &[], &[("CHAOS_TOKEN", "")]).await;
        api.script([Reply::json(
            401,
            json!({"message": "Authentication required."}),
        )]);
        let text = server.error("get_thing", json!({"thing_id": "t1"})).await;
        assert_eq!(
            text,
            "The API rejected GET /things/{thing_id} with HTTP 401 Unauthorized: Authentication required. The server sent no credentials, since none are set; the user must set CHAOS_TOKEN in the server's environment (or the same name with `_FILE` added, naming a file that holds the value) and start the server again."
        );
        let seen = api.take_requests();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert_eq!(seen[0].header("authorization"), None, "nothing was sent");
        let log = server.close().await;
        let warning = "no credentials for the API are set: set CHAOS_TOKEN in the server's \
                       environment (or the same name with `_FILE` added, naming a file that holds \
                       the value); until then the server calls the API without credentials";
        assert_eq!(log.matches(warning).count(), 1, "said once at start: {log}");

        // With the token, start-up says nothing of credentials, and a refusal is the token's.
        let server = Server::start(&api.base_url(), &[], &[]).await;
        api.script([Reply::json(401, json!({"message": "Bad token."}))]);
        let text = server.error("get_thing", json!({"thing_id": "t1"})).await;
        assert!(
            text.ends_with("The server's credentials for the API are missing or not allowed to do this; the user must fix the server's configuration."),
            "{text}"
        );
        let log = server.close().await;
        assert!(!log.contains("credentials for the API are set"), "{log}");
    });
}
