//! The curated petstore server end to end: `generated-examples/petstore-mcp` (from
//! `specs/petstore/mcpgen.yaml` and the Swagger Petstore v3 document) built, run over stdio and
//! Streamable HTTP, and driven by the official Python MCP SDK (`mcp_probe.py`), with a validating
//! mock of the same document as its upstream: Prism answers from the document's examples and
//! rejects any request that does not match it (`--errors`), so every successful call also shows
//! that the generated client sent what the document says.
//!
//! Needs `MCPGEN_TEST_PRISM` and `MCPGEN_TEST_PYTHON`, which `scripts/test` installs and sets.
//! Everything listens on 127.0.0.1; every process started here is killed when its guard drops,
//! also when a test panics; every wait is bounded.

use std::cell::Cell;
use std::fs::File;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tempfile::TempDir;

/// The longest the generated crate's build may take. It shares `target/generated` with the other
/// generated crates, so a warm build takes seconds; a cold one (a fresh clone on 2 cores) compiles
/// about a hundred crates, which is progress, not a hang. The build is not part of a test's budget.
const BUILD_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// The longest one test may take once the server is built: every wait below ends by then.
const TEST_BUDGET: Duration = Duration::from_secs(85);
/// The longest Prism or the HTTP server may take to accept connections.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(45);
/// The longest one run of `mcp_probe.py` (a whole script over one connection) may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest Prism may take to log a request the server already got an answer to.
const LOG_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest a direct HTTP exchange with the server may take.
const HTTP_TIMEOUT: Duration = Duration::from_secs(15);
const POLL: Duration = Duration::from_millis(50);

/// The bearer token the server sends; Prism checks that one is present.
const TOKEN: &str = "petstore-test-token";

thread_local! {
    /// When the running test's budget ends (each test runs on its own thread).
    static TEST_DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Starts a test: builds the server (once per process), then starts the test's clock.
fn begin() -> TempDir {
    python();
    prism();
    server();
    TEST_DEADLINE.set(Some(Instant::now() + TEST_BUDGET));
    tempfile::Builder::new()
        .prefix("petstore-e2e")
        .tempdir()
        .expect("a scratch directory")
}

/// When a wait of at most `timeout` must end: then, or when the test's budget does.
fn deadline(timeout: Duration) -> Instant {
    let own = Instant::now() + timeout;
    TEST_DEADLINE.get().map_or(own, |test| test.min(own))
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn spec() -> PathBuf {
    repo().join("tests/corpus/swagger-petstore-v3/openapi.yaml")
}

/// A program the test environment provides; a missing one fails the test, never skips it.
fn required_env(name: &str, what: &str) -> PathBuf {
    match std::env::var_os(name) {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => panic!(
            "{name} is not set: run the tests with `scripts/test`, which installs {what} under target/ and sets it"
        ),
    }
}

fn python() -> PathBuf {
    required_env("MCPGEN_TEST_PYTHON", "Python with the MCP SDK")
}

fn prism() -> PathBuf {
    required_env("MCPGEN_TEST_PRISM", "Prism (@stoplight/prism-cli)")
}

// --- processes ---------------------------------------------------------------------------------

/// A child process that is killed (and reaped) when dropped.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits for `child` at most `timeout`; kills it and returns `None` when it takes longer.
fn wait_or_kill(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = deadline(timeout);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(POLL),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// A port on 127.0.0.1 that nothing listens on right now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("the system gives a free loopback port")
        .port()
}

fn accepts(port: u16) -> bool {
    TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(200)).is_ok()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// A file for a child's stdout and stderr, both.
fn log_file(path: &Path) -> (File, File) {
    let file = File::create(path).expect("a log file in the scratch directory");
    let copy = file.try_clone().expect("the log file can be shared");
    (file, copy)
}

// --- the server under test ---------------------------------------------------------------------

/// The petstore server's binary, built once per test process from the committed example with the
/// target directory every generated crate shares. (`tests/suite/golden.rs` keeps the example
/// fresh.)
fn server() -> &'static Path {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match BINARY.get_or_init(build_server) {
        Ok(binary) => binary,
        Err(message) => panic!("{message}"),
    }
}

fn build_server() -> Result<PathBuf, String> {
    let manifest = repo().join("generated-examples/petstore-mcp/Cargo.toml");
    let target_dir = repo().join("target/generated");
    let log = tempfile::NamedTempFile::new().map_err(|e| format!("no temporary file: {e}"))?;
    let (out, err) = log_file(log.path());
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(cargo)
        .args(["build", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", &target_dir)
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let command = format!(
        "CARGO_TARGET_DIR={} cargo build --manifest-path {}",
        target_dir.display(),
        manifest.display()
    );
    match wait_or_kill(&mut child, BUILD_TIMEOUT) {
        Some(status) if status.success() => {}
        Some(status) => {
            return Err(format!(
                "`{command}` failed ({status}):\n{}",
                read(log.path())
            ));
        }
        None => {
            return Err(format!(
                "`{command}` took longer than {BUILD_TIMEOUT:?}:\n{}",
                read(log.path())
            ));
        }
    }
    let binary = target_dir
        .join("debug")
        .join(format!("petstore-mcp{}", std::env::consts::EXE_SUFFIX));
    if binary.is_file() {
        Ok(binary)
    } else {
        Err(format!(
            "`{command}` succeeded but {} is missing",
            binary.display()
        ))
    }
}

// --- the upstream: Prism -----------------------------------------------------------------------

/// A Prism mock of the petstore document on its own port, logging to a file.
struct Prism {
    _process: Guard,
    port: u16,
    log: PathBuf,
}

impl Prism {
    fn start(scratch: &TempDir) -> Prism {
        let prism = prism();
        let mut failures = Vec::new();
        // Another process may take the free port before Prism binds it: then try another.
        for attempt in 1..=3 {
            let port = free_port();
            let log = scratch.path().join(format!("prism-{attempt}.log"));
            let (out, err) = log_file(&log);
            let child = Command::new(&prism)
                .arg("mock")
                .arg(spec())
                .args(["-h", "127.0.0.1", "-p", &port.to_string(), "--errors"])
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(err)
                .spawn()
                .unwrap_or_else(|e| panic!("cannot run {}: {e}", prism.display()));
            let mut process = Guard(child);
            let deadline = deadline(STARTUP_TIMEOUT);
            loop {
                if read(&log).contains("Prism is listening") && accepts(port) {
                    return Prism {
                        _process: process,
                        port,
                        log,
                    };
                }
                if let Ok(Some(status)) = process.0.try_wait() {
                    failures.push(format!(
                        "attempt {attempt}: Prism exited ({status}):\n{}",
                        read(&log)
                    ));
                    break;
                }
                if Instant::now() >= deadline {
                    panic!(
                        "Prism did not listen on 127.0.0.1:{port} in time ({STARTUP_TIMEOUT:?}, or the test's {TEST_BUDGET:?}):\n{}",
                        read(&log)
                    );
                }
                std::thread::sleep(POLL);
            }
        }
        panic!("Prism did not start:\n{}", failures.join("\n"))
    }

    /// The API's base URL: Prism serves the document's paths at its root (the spec's server URL
    /// has the path `/api/v3`, which Prism does not add).
    fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The requests Prism received, in order, as `method /path` (Prism logs no query strings).
    fn requests(&self) -> Vec<String> {
        read(&self.log)
            .lines()
            .filter(|line| line.contains("Request received"))
            .filter_map(|line| {
                let rest = line.split("[HTTP SERVER] ").nth(1)?;
                let mut words = rest.split_whitespace();
                Some(format!("{} {}", words.next()?, words.next()?))
            })
            .collect()
    }

    /// Waits (briefly) until Prism has logged `count` requests, and returns them.
    fn wait_for_requests(&self, count: usize) -> Vec<String> {
        let deadline = deadline(LOG_TIMEOUT);
        loop {
            let requests = self.requests();
            if requests.len() >= count || Instant::now() >= deadline {
                // A moment more, so that an unexpected extra request would show too.
                std::thread::sleep(Duration::from_millis(200));
                return self.requests();
            }
            std::thread::sleep(POLL);
        }
    }

    /// Fails the test when Prism found a request that does not match the document.
    fn assert_no_violations(&self) {
        let log = read(&self.log);
        let violations: Vec<&str> = log
            .lines()
            .filter(|line| {
                line.contains("[VALIDATOR]")
                    && (line.contains(" error ") || line.contains("Violation"))
            })
            .collect();
        assert!(
            violations.is_empty(),
            "the server sent requests the petstore document does not allow:\n{}",
            violations.join("\n")
        );
    }
}

// --- the client: mcp_probe.py ------------------------------------------------------------------

/// Runs `mcp_probe.py` with `args` and returns the JSON objects it printed, one per step.
fn probe(scratch: &TempDir, args: &[String], base_url: &str) -> Vec<Value> {
    let out_path = scratch.path().join("probe.out");
    let err_path = scratch.path().join("probe.err");
    let out = File::create(&out_path).expect("a file for the probe's output");
    let err = File::create(&err_path).expect("a file for the probe's errors");
    let mut child = Command::new(python())
        .arg(repo().join("tests/support/mcp_probe.py"))
        .args(args)
        // A stdio server inherits these; an HTTP server was started with its own.
        .env("PETSTORE_BASE_URL", base_url)
        .env("PETSTORE_TOKEN", TOKEN)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .expect("MCPGEN_TEST_PYTHON runs");
    let status = wait_or_kill(&mut child, PROBE_TIMEOUT).unwrap_or_else(|| {
        panic!(
            "mcp_probe.py {args:?} did not finish in time ({PROBE_TIMEOUT:?}, or the test's {TEST_BUDGET:?}):\n{}",
            read(&err_path)
        )
    });
    assert!(
        status.success(),
        "mcp_probe.py {args:?} failed ({status}):\n{}",
        read(&err_path)
    );
    read(&out_path)
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("mcp_probe.py printed {line:?}: {e}"))
        })
        .collect()
}

/// One step of a probe script: a call, or `tools/list`.
fn call(tool: &str, args: Value) -> Value {
    json!({ "call": tool, "args": args })
}

fn list() -> Value {
    json!({ "list": true })
}

/// Runs `steps` over one stdio connection to a fresh server and returns one result per step.
fn over_stdio(scratch: &TempDir, base_url: &str, steps: &[Value]) -> Vec<Value> {
    let script = scratch.path().join("script.json");
    std::fs::write(&script, Value::from(steps.to_vec()).to_string())
        .expect("the script is written");
    let server = server()
        .to_str()
        .expect("the server's path is text")
        .to_string();
    assert!(
        !server.contains('\''),
        "the server's path cannot be quoted for mcp_probe.py: {server}"
    );
    let args = [
        "--mode".into(),
        "2026-07-28".into(),
        "--stdio".into(),
        format!("'{server}'"),
        "script".into(),
        script.to_str().expect("a text path").into(),
    ];
    let results = probe(scratch, &args, base_url);
    assert_eq!(
        results.len(),
        steps.len(),
        "one result per step: {results:#?}"
    );
    results
}

// --- results -----------------------------------------------------------------------------------

fn tool<'a>(listed: &'a Value, name: &str) -> &'a Value {
    listed["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("tools/list has no {name}: {listed:#}"))
}

/// The `structuredContent` of a successful call, after checking that it is one, that the text
/// content is the same JSON, and that it conforms to the tool's `outputSchema`.
fn success<'a>(result: &'a Value, listed: &Value, name: &str) -> &'a Value {
    assert_eq!(result["isError"], false, "{name} failed: {result:#}");
    let structured = &result["structuredContent"];
    assert!(
        structured.is_object(),
        "{name} gave no structuredContent: {result:#}"
    );
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{name}: no text content: {result:#}"));
    let as_text: Value = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("{name}: the text is not JSON ({e}): {text}"));
    assert_eq!(
        &as_text, structured,
        "{name}: the text content differs from structuredContent"
    );
    let schema = &tool(listed, name)["outputSchema"];
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("{name}: the outputSchema does not compile: {e}"));
    let violations: Vec<String> = validator
        .iter_errors(structured)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect();
    assert!(
        violations.is_empty(),
        "{name}: structuredContent breaks the outputSchema: {violations:#?}"
    );
    structured
}

/// The text of a failed call.
fn error_text(result: &Value, what: &str) -> String {
    assert_eq!(result["isError"], true, "{what} should fail: {result:#}");
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn keys(value: &Value) -> Vec<&str> {
    value
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

fn count(requests: &[String], request: &str) -> usize {
    requests.iter().filter(|r| *r == request).count()
}

// --- tests -------------------------------------------------------------------------------------

#[test]
fn tools_list_offers_four_curated_tools_with_readable_statuses_and_the_status_header() {
    let scratch = begin();
    // Listing calls no API: nothing listens at this address.
    let nowhere = format!("http://127.0.0.1:{}", free_port());
    let results = over_stdio(&scratch, &nowhere, &[list()]);
    let listed = &results[0];
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "petstore_search_pets",
            "petstore_get_pet",
            "petstore_adopt_pet",
            "petstore_get_order"
        ],
        "only the curated tools, in the file's order"
    );

    let search = tool(listed, "petstore_search_pets");
    let status = &search["inputSchema"]["properties"]["status"];
    assert_eq!(
        status["enum"],
        json!(["for_sale", "reserved", "sold"]),
        "readable statuses, not the API's codes"
    );
    assert_eq!(
        status["default"], "for_sale",
        "the API's default `available`, by its readable name"
    );
    assert_eq!(status["x-mcp-header"], "Pet-Status");
    assert_eq!(
        keys(&search["inputSchema"]["properties"]),
        ["status", "limit", "response_format"],
        "the search has a limit and a concise/detailed format"
    );
    assert_eq!(
        search["annotations"],
        json!({ "readOnlyHint": true, "openWorldHint": false })
    );

    let pet = &tool(listed, "petstore_get_pet")["inputSchema"];
    assert_eq!(
        pet["properties"]["pet"]["type"], "string",
        "a pet is named, not numbered: {pet:#}"
    );
    assert_eq!(pet["required"], json!(["pet"]));

    let adopt = tool(listed, "petstore_adopt_pet");
    assert_eq!(
        keys(&adopt["inputSchema"]["properties"]),
        ["pet", "quantity"]
    );
    assert_eq!(adopt["inputSchema"]["properties"]["quantity"]["default"], 1);
    assert_eq!(adopt["annotations"]["readOnlyHint"], false);
    assert_eq!(
        adopt["annotations"]["idempotentHint"], false,
        "each adoption places a new order"
    );
    assert_eq!(
        keys(&adopt["outputSchema"]["properties"]),
        [
            "order_id",
            "pet_id",
            "quantity",
            "status",
            "ship_date",
            "complete"
        ]
    );

    for name in names {
        let description = tool(listed, name)["description"]
            .as_str()
            .unwrap_or_default();
        assert!(
            description.matches(". ").count() >= 2,
            "{name}: a description of at least three sentences for the model: {description:?}"
        );
    }
}

#[test]
fn search_pets_sends_the_status_code_and_maps_it_back_to_a_readable_name() {
    let scratch = begin();
    let prism = Prism::start(&scratch);
    let results = over_stdio(
        &scratch,
        &prism.base_url(),
        &[
            list(),
            call("petstore_search_pets", json!({})),
            call(
                "petstore_search_pets",
                json!({ "status": "reserved", "response_format": "detailed" }),
            ),
            call(
                "petstore_search_pets",
                json!({ "status": "sold", "limit": 1 }),
            ),
        ],
    );
    let listed = &results[0];

    // Prism's example pet has the API status `available`: the model reads `for_sale`.
    let concise = success(&results[1], listed, "petstore_search_pets");
    assert_eq!(
        concise,
        &json!({ "pets": [{ "name": "doggie", "status": "for_sale" }], "truncated": false })
    );

    // Prism rejects a status outside available/pending/sold, so this call succeeding shows that
    // `reserved` went out as the API's code.
    let detailed = success(&results[2], listed, "petstore_search_pets");
    let pet = &detailed["pets"][0];
    assert_eq!(
        keys(pet),
        ["name", "status", "id", "category", "tags", "photo_urls"],
        "{detailed:#}"
    );
    assert_eq!(
        (&pet["id"], &pet["category"], &pet["status"]),
        (&json!(10), &json!("Dogs"), &json!("for_sale"))
    );
    assert!(
        pet["photo_urls"].is_array() && pet["tags"].is_array(),
        "{pet:#}"
    );

    let limited = success(&results[3], listed, "petstore_search_pets");
    assert_eq!(
        limited["pets"].as_array().map(Vec::len),
        Some(1),
        "{limited:#}"
    );

    let requests = prism.wait_for_requests(3);
    assert_eq!(requests, ["get /pet/findByStatus"; 3]);
    prism.assert_no_violations();
}

#[test]
fn a_bad_status_is_an_error_naming_the_valid_values_before_any_request() {
    let scratch = begin();
    let prism = Prism::start(&scratch);
    let results = over_stdio(
        &scratch,
        &prism.base_url(),
        &[
            // The API's own code is not a value the tool takes.
            call("petstore_search_pets", json!({ "status": "available" })),
            call("petstore_search_pets", json!({ "limit": 0 })),
            call("petstore_search_pets", json!({})),
        ],
    );
    let text = error_text(&results[0], "a search for status `available`");
    for valid in ["`status`", "for_sale", "reserved", "sold"] {
        assert!(text.contains(valid), "the error names {valid}: {text}");
    }
    let text = error_text(&results[1], "a search with limit 0");
    assert!(text.contains("limit"), "the error names the limit: {text}");
    assert_eq!(results[2]["isError"], false, "{:#}", results[2]);

    // Only the last, valid search reached the API.
    assert_eq!(prism.wait_for_requests(1), ["get /pet/findByStatus"]);
    prism.assert_no_violations();
}

#[test]
fn get_pet_takes_a_pet_name_and_sends_its_numeric_id() {
    let scratch = begin();
    let prism = Prism::start(&scratch);
    let results = over_stdio(
        &scratch,
        &prism.base_url(),
        &[
            list(),
            call("petstore_get_pet", json!({ "pet": "doggie" })),
            call("petstore_get_pet", json!({ "pet": "DOGGIE" })),
            call("petstore_get_pet", json!({ "pet": "rex" })),
        ],
    );
    let listed = &results[0];
    let pet = success(&results[1], listed, "petstore_get_pet");
    assert_eq!(
        keys(pet),
        ["id", "name", "status", "category", "tags", "photo_urls"],
        "{pet:#}"
    );
    assert_eq!(
        (&pet["id"], &pet["name"], &pet["status"], &pet["category"]),
        (
            &json!(10),
            &json!("doggie"),
            &json!("for_sale"),
            &json!("Dogs")
        )
    );
    assert_eq!(
        success(&results[2], listed, "petstore_get_pet"),
        pet,
        "names match case-insensitively"
    );

    let text = error_text(&results[3], "getting a pet named rex");
    assert!(
        text.contains("Pet \"rex\" not found")
            && text.contains("doggie")
            && text.contains("petstore_get_pet"),
        "the error lists the names that exist and how to retry: {text}"
    );

    // The name became the integer path parameter Prism validates.
    let requests = prism.wait_for_requests(3);
    assert_eq!(count(&requests, "get /pet/10"), 2, "{requests:?}");
    assert!(
        count(&requests, "get /pet/findByStatus") >= 1,
        "the names come from the list: {requests:?}"
    );
    assert_eq!(
        requests.len(),
        count(&requests, "get /pet/10") + count(&requests, "get /pet/findByStatus"),
        "{requests:?}"
    );
    prism.assert_no_violations();
}

#[test]
fn adopt_pet_runs_every_step_and_returns_the_order_with_a_readable_status() {
    let scratch = begin();
    let prism = Prism::start(&scratch);
    let results = over_stdio(
        &scratch,
        &prism.base_url(),
        &[
            list(),
            call("petstore_adopt_pet", json!({ "pet": "doggie" })),
            call("petstore_get_order", json!({ "order": 10 })),
            call("petstore_adopt_pet", json!({ "pet": "rex" })),
        ],
    );
    let listed = &results[0];

    // Prism's example order has the API status `placed`: the model reads `awaiting_approval`.
    let order = success(&results[1], listed, "petstore_adopt_pet");
    assert_eq!(
        keys(order),
        [
            "order_id",
            "pet_id",
            "quantity",
            "status",
            "ship_date",
            "complete"
        ],
        "{order:#}"
    );
    assert_eq!(
        (&order["order_id"], &order["status"]),
        (&json!(10), &json!("awaiting_approval"))
    );

    let followed = success(&results[2], listed, "petstore_get_order");
    assert_eq!(
        followed, order,
        "the order the adoption returned, followed by its id"
    );

    let text = error_text(&results[3], "adopting a pet named rex");
    assert!(
        text.contains("No pet named \"rex\" is for sale") && text.contains("petstore_search_pets"),
        "the workflow's own message: {text}"
    );

    // Every step of the adoption ran, in order, and Prism accepted each request (the order's
    // body included); the failed adoption stopped after finding nothing and ordered nothing.
    assert_eq!(
        prism.wait_for_requests(5),
        [
            "get /pet/findByStatus",
            "get /pet/10",
            "post /store/order",
            "get /store/order/10",
            "get /pet/findByStatus",
        ]
    );
    prism.assert_no_violations();
}

#[test]
fn over_streamable_http_the_status_header_is_accepted_and_a_contradicting_one_rejected() {
    let scratch = begin();
    let prism = Prism::start(&scratch);
    let port = free_port();
    let log = scratch.path().join("server.log");
    let (out, err) = log_file(&log);
    let child = Command::new(server())
        .args([
            "--transport",
            "http",
            "--listen",
            &format!("127.0.0.1:{port}"),
        ])
        .env("PETSTORE_BASE_URL", prism.base_url())
        .env("PETSTORE_TOKEN", TOKEN)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .expect("the server starts");
    let mut server_process = Guard(child);
    let deadline = deadline(STARTUP_TIMEOUT);
    while !accepts(port) {
        if let Ok(Some(status)) = server_process.0.try_wait() {
            panic!("the server exited ({status}):\n{}", read(&log));
        }
        assert!(
            Instant::now() < deadline,
            "the server did not listen in time ({STARTUP_TIMEOUT:?}, or the test's {TEST_BUDGET:?}):\n{}",
            read(&log)
        );
        std::thread::sleep(POLL);
    }
    let url = format!("http://127.0.0.1:{port}/mcp");

    // The Python SDK copies `status` into `Mcp-Param-Pet-Status`; the server checks and accepts it.
    let args = |command: &[&str]| -> Vec<String> {
        ["--mode", "2026-07-28", "--url", &url]
            .iter()
            .chain(command)
            .map(|s| s.to_string())
            .collect()
    };
    let base_url = prism.base_url();
    let listed = &probe(&scratch, &args(&["list"]), &base_url)[0];
    let result = &probe(
        &scratch,
        &args(&["call", "petstore_search_pets", r#"{"status": "sold"}"#]),
        &base_url,
    )[0];
    let pets = success(result, listed, "petstore_search_pets");
    assert_eq!(pets["pets"][0]["status"], "for_sale", "{pets:#}");

    // A header that contradicts the argument is refused before the tool runs.
    let (status, body) = post_tools_call(port, "reserved", "sold");
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("-32020") && body.contains("Mcp-Param-Pet-Status"),
        "{body}"
    );

    assert_eq!(
        prism.wait_for_requests(1),
        ["get /pet/findByStatus"],
        "only the accepted call reached the API"
    );
    prism.assert_no_violations();
}

/// A raw 2026-07-28 `tools/call` of the search with `header` in `Mcp-Param-Pet-Status` and
/// `argument` as the `status` argument; returns the HTTP status and body.
fn post_tools_call(port: u16, header: &str, argument: &str) -> (u16, String) {
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "petstore_search_pets",
            "arguments": { "status": argument },
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": { "name": "petstore-test", "version": "1" },
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: petstore_search_pets\r\nMcp-Param-Pet-Status: {header}\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let http_timeout = deadline(HTTP_TIMEOUT)
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(1));
    let mut stream =
        TcpStream::connect(("127.0.0.1", port)).expect("the server accepts a connection");
    stream
        .set_read_timeout(Some(http_timeout))
        .expect("a read timeout");
    stream
        .set_write_timeout(Some(http_timeout))
        .expect("a write timeout");
    stream
        .write_all(request.as_bytes())
        .expect("the request is sent");
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .expect("the server answers in time");
    let status = response
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {response:?}"));
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}
