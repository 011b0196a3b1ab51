//! Discovery mode (issue 8): large APIs reached through three tools — search, describe, call.
//!
//! - Without a curation file, a spec over the threshold gets the discovery tools and nothing
//!   else, and `mcpgen` says so on stderr; `--no-discovery` and `--discovery-threshold` change it.
//! - GitHub REST (@octokit/openapi 23.0.2, 1,223 operations) zero-config: the crate compiles, its
//!   `tools/list` is under 3,000 cl100k tokens, and a scripted rmcp session finds, describes and
//!   calls "list the pull requests of a repository" against Prism serving the GitHub document; a
//!   bad argument is refused before any request is sent.
//! - Search quality: `tests/discovery/github-queries.yaml` through the index mcpgen builds and the
//!   ranking code the server runs (the runtime crate's `runtime/src/search.rs`, compiled into
//!   mcpgen as `mcpgen::search`); top-1 and top-5 hit rates are printed, top-5 must be at least 90%.
//! - The tracker: a curated tool and discovery tools for its other operations in one server, with
//!   a discovered operation called against the real tracker API.
//!
//! The GitHub tests need `MCPGEN_TEST_LARGE_SPECS` and `MCPGEN_TEST_PRISM`, which `scripts/test`
//! installs and sets; a missing one fails the test, never skips it.

use std::fs::File;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use assert_cmd::Command as Cli;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};

use crate::support;
use crate::support::repo;

/// The longest Prism may take to load the GitHub document and listen.
const PRISM_STARTUP: Duration = Duration::from_secs(120);
/// The longest one MCP request may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

fn required_env(name: &str, what: &str) -> PathBuf {
    match std::env::var_os(name) {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => panic!(
            "{name} is not set: run the tests with `scripts/test`, which installs {what} under target/ and sets it"
        ),
    }
}

fn github_spec() -> PathBuf {
    required_env(
        "MCPGEN_TEST_LARGE_SPECS",
        "the large API descriptions (scripts/large-specs)",
    )
    .join("github-rest.json")
}

fn options(name: &str) -> mcpgen::Options {
    mcpgen::Options {
        name: Some(name.to_string()),
        ..Default::default()
    }
}

// --- zero-config: the threshold -----------------------------------------------------------------

#[test]
fn a_spec_over_the_threshold_gets_only_the_discovery_tools_and_stderr_says_so() {
    let output = Cli::cargo_bin("mcpgen")
        .expect("the mcpgen binary")
        .args([
            "tools",
            "specs/tracker/openapi.yaml",
            "--discovery-threshold",
            "5",
            "--format",
            "json",
        ])
        .current_dir(repo())
        .output()
        .expect("mcpgen runs");
    assert!(output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let notes: Vec<&str> = stderr.lines().filter(|l| l.starts_with("note:")).collect();
    assert_eq!(
        notes,
        [
            "note: the spec has 10 operations (more than 5), so the server has 3 discovery tools (tracker_search_operations, tracker_describe_operation, tracker_call_operation) instead of one tool per operation; --no-discovery gives one tool per operation, a curation file (mcpgen init) chooses tools"
        ],
        "{stderr}"
    );
    let listed: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "tracker_search_operations",
            "tracker_describe_operation",
            "tracker_call_operation"
        ]
    );
}

#[test]
fn no_discovery_and_a_higher_threshold_give_one_tool_per_operation_without_a_note() {
    for flags in [
        &["--no-discovery"][..],
        &["--discovery-threshold", "10"][..],
    ] {
        let output = Cli::cargo_bin("mcpgen")
            .expect("the mcpgen binary")
            .args(["tools", "specs/tracker/openapi.yaml", "--format", "json"])
            .args(flags)
            .current_dir(repo())
            .output()
            .expect("mcpgen runs");
        assert!(output.status.success(), "{flags:?}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("note:"), "{flags:?}: {stderr}");
        let listed: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
        assert_eq!(
            listed["tools"].as_array().map(Vec::len),
            Some(10),
            "{flags:?}"
        );
    }
}

#[test]
fn the_default_threshold_is_40_operations() {
    let api = mcpgen::load::load(&repo().join("specs/tracker/openapi.yaml")).expect("it loads");
    let mut many = api.clone();
    let template = api.operations[0].clone();
    many.operations = (0..41)
        .map(|n| {
            let mut op = template.clone();
            op.id = format!("op{n}");
            op
        })
        .collect();
    let plan = mcpgen::plan::plan(&many, &mcpgen::Options::default(), None).expect("it plans");
    assert_eq!(plan.tools.len(), 3);
    assert_eq!(
        plan.discovery.as_ref().map(|d| d.operations.len()),
        Some(41)
    );
    many.operations.truncate(40);
    let plan = mcpgen::plan::plan(&many, &mcpgen::Options::default(), None).expect("it plans");
    assert_eq!(plan.tools.len(), 40);
    assert!(plan.discovery.is_none());
}

// --- the curation file's `discovery` section -----------------------------------------------------

fn tracker_fixture() -> PathBuf {
    repo().join("tests/fixtures/discovery/tracker.yaml")
}

#[test]
fn curation_decides_what_is_curated_discoverable_and_hidden() {
    let spec = repo().join("specs/tracker/openapi.yaml");
    let (plan, files) = mcpgen::generate(
        &spec,
        Some(&tracker_fixture()),
        &options("tracker-discovery"),
    )
    .expect("it generates");
    let names: Vec<&str> = plan.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "tracker_search_issues",
            "tracker_search_operations",
            "tracker_describe_operation",
            "tracker_call_operation"
        ]
    );
    let discovery = plan.discovery.as_ref().expect("discovery tools");
    let reached: Vec<&str> = discovery
        .operations
        .iter()
        .map(|o| o.name.as_str())
        .collect();
    // listIssues (the curated tool) and listProjects (its resolver) have tools; deleteIssue is
    // hidden; everything else is discoverable.
    assert_eq!(
        reached,
        [
            "listUsers",
            "getCurrentUser",
            "createIssue",
            "getIssue",
            "getIssueByKey",
            "listTransitions",
            "transitionIssue"
        ]
    );
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    for path in [
        "data/operations.jsonl",
        "data/search-index.txt",
        "src/discovery.rs",
        "src/operations.rs",
        "src/runtime/search.rs",
    ] {
        assert!(paths.contains(&path), "{path} in {paths:?}");
    }
    let client = &files
        .iter()
        .find(|f| f.path == "src/client.rs")
        .expect("a client")
        .contents;
    assert!(
        !client.contains("delete_issue"),
        "hidden operations get no client code"
    );
}

#[test]
fn read_only_discovery_leaves_write_operations_out_and_makes_the_call_tool_read_only() {
    let spec = repo().join("specs/tracker/openapi.yaml");
    let text = std::fs::read_to_string(tracker_fixture())
        .expect("the fixture")
        .replace(
            "discovery: {}",
            "discovery:\n  read_only: true\n  exclude: [{ tag: Users }]",
        );
    let dir = tempfile::tempdir().expect("a scratch directory");
    let curation = dir.path().join("mcpgen.yaml");
    std::fs::write(&curation, text).expect("written");
    let (plan, _) = mcpgen::generate(&spec, Some(&curation), &options("tracker-discovery"))
        .expect("it generates");
    let discovery = plan.discovery.as_ref().expect("discovery tools");
    let reached: Vec<&str> = discovery
        .operations
        .iter()
        .map(|o| o.name.as_str())
        .collect();
    assert_eq!(reached, ["getIssue", "getIssueByKey", "listTransitions"]);
    let call = plan
        .tools
        .iter()
        .find(|t| t.name == "tracker_call_operation")
        .expect("the call tool");
    assert_eq!(call.annotations.read_only, Some(true));
}

#[test]
fn a_discovery_filter_naming_an_unknown_operation_is_a_curation_mistake() {
    let spec = repo().join("specs/tracker/openapi.yaml");
    let text = std::fs::read_to_string(tracker_fixture())
        .expect("the fixture")
        .replace(
            "discovery: {}",
            "discovery:\n  exclude: [{ operation: getIssueByKee }]",
        );
    let dir = tempfile::tempdir().expect("a scratch directory");
    let curation = dir.path().join("mcpgen.yaml");
    std::fs::write(&curation, text).expect("written");
    let error = mcpgen::generate(&spec, Some(&curation), &options("tracker-discovery"))
        .expect_err("refused")
        .to_string();
    assert!(
        error.contains("unknown operation `getIssueByKee`"),
        "{error}"
    );
    assert!(error.contains("getIssueByKey"), "a suggestion: {error}");
}

/// The tracker fixture's plan with `discovery: {}` replaced by `section`.
fn tracker_with_discovery(section: &str) -> Result<mcpgen::plan::Plan, String> {
    let spec = repo().join("specs/tracker/openapi.yaml");
    let text = std::fs::read_to_string(tracker_fixture())
        .expect("the fixture")
        .replace("discovery: {}", section);
    let dir = tempfile::tempdir().expect("a scratch directory");
    let curation = dir.path().join("mcpgen.yaml");
    std::fs::write(&curation, text).expect("written");
    mcpgen::generate(&spec, Some(&curation), &options("tracker-discovery"))
        .map(|(plan, _)| plan)
        .map_err(|e| e.to_string())
}

/// The names of the first `n` results for `query` in `plan`'s search index.
fn first_results(plan: &mcpgen::plan::Plan, query: &str, n: usize) -> Vec<String> {
    let discovery = plan.discovery.as_ref().expect("discovery tools");
    let index = mcpgen::search::Index::parse(&discovery.index).expect("the index reads back");
    index
        .search(query, &mcpgen::search::Filter::default(), n)
        .iter()
        .map(|h| index.entries[h.entry].name.clone())
        .collect()
}

#[test]
fn curated_search_words_make_an_operation_found_by_the_words_its_users_say() {
    let plain = tracker_with_discovery("discovery: {}").expect("it generates");
    let curated = tracker_with_discovery(
        "discovery:\n  search_words:\n    - { operation: transitionIssue, words: [drag, kanban column] }\n    - { tag: Users, words: [colleague, people] }",
    )
    .expect("it generates");
    // Without the words, nothing says "drag", "kanban" or "column".
    assert!(
        !first_results(&plain, "drag it to another kanban column", 10)
            .contains(&"transitionIssue".to_string())
    );
    assert_eq!(
        first_results(&curated, "drag it to another kanban column", 1),
        ["transitionIssue"]
    );
    // Words for a tag reach every operation with it.
    assert!(first_results(&plain, "colleague", 5).is_empty());
    let mut people = first_results(&curated, "colleague", 5);
    people.sort();
    assert_eq!(people, ["getCurrentUser", "listUsers"]);
}

#[test]
fn search_words_for_an_unknown_operation_or_tag_or_neither_are_curation_mistakes() {
    let error = tracker_with_discovery(
        "discovery:\n  search_words: [{ operation: transitionIsue, words: [move] }]",
    )
    .expect_err("refused");
    assert!(
        error.contains("unknown operation `transitionIsue`") && error.contains("transitionIssue"),
        "{error}"
    );
    let error =
        tracker_with_discovery("discovery:\n  search_words: [{ tag: Transition, words: [move] }]")
            .expect_err("refused");
    assert!(
        error.contains("no operation has the tag `Transition`"),
        "{error}"
    );
    let error = tracker_with_discovery("discovery:\n  search_words: [{ words: [move] }]")
        .expect_err("refused");
    assert!(error.contains("need the `operation` or `tag`"), "{error}");
    let error = tracker_with_discovery(
        "discovery:\n  search_words: [{ operation: transitionIssue, words: [] }]",
    )
    .expect_err("refused");
    assert!(error.contains("no search words given"), "{error}");
}

// --- an rmcp client over stdio ---------------------------------------------------------------------

/// A server binary run over stdio with `env`, and rmcp's client talking to it.
struct Session {
    service: RunningService<RoleClient, ClientConfig>,
}

impl Session {
    async fn start(binary: &Path, env: &[(&str, &str)]) -> Session {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let command = tokio::process::Command::new(binary).configure(|command| {
            for (key, value) in &env {
                command.env(key, value);
            }
            command.kill_on_drop(true);
        });
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let service = tokio::time::timeout(
            CALL_TIMEOUT,
            ClientConfig::default().serve_with_lifecycle(
                transport,
                // MCP 2026-07-28: `server/discover`, then stateless requests.
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            ),
        )
        .await
        .expect("the handshake finishes in time")
        .expect("the handshake succeeds");
        Session { service }
    }

    async fn tools(&self) -> Vec<rmcp::model::Tool> {
        tokio::time::timeout(CALL_TIMEOUT, self.service.list_all_tools())
            .await
            .expect("tools/list in time")
            .expect("tools/list succeeds")
    }

    async fn call(&self, tool: &str, arguments: Value) -> CallToolResult {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object");
        };
        let request = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        tokio::time::timeout(CALL_TIMEOUT, self.service.call_tool(request))
            .await
            .unwrap_or_else(|_| panic!("tools/call {tool} in time"))
            .unwrap_or_else(|e| panic!("tools/call {tool} succeeds: {e}"))
    }

    async fn close(mut self) {
        let _ = self.service.close_with_timeout(CALL_TIMEOUT).await;
    }
}

fn text(result: &CallToolResult) -> String {
    support::texts(result).join("\n")
}

fn structured(result: &CallToolResult) -> Value {
    assert_ne!(
        result.is_error,
        Some(true),
        "the call failed: {}",
        text(result)
    );
    result
        .structured_content
        .clone()
        .expect("structuredContent")
}

// --- the tracker: curated tools and discovery in one server --------------------------------------

/// The committed example `generated-examples/tracker-discovery` (from the fixture;
/// `tests/suite/golden.rs` keeps it fresh), built into `target/generated`.
fn tracker_discovery_binary() -> &'static Path {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let built = BINARY.get_or_init(|| {
        support::build_crate(
            &repo().join("generated-examples/tracker-discovery"),
            "tracker-discovery-mcp",
        )
    });
    match built {
        Ok(binary) => binary,
        Err(message) => panic!("{message}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_tracker_serves_a_curated_tool_and_discovers_the_rest_against_the_real_api() {
    let binary = tracker_discovery_binary();
    let upstream = support::Upstream::start().await;
    let session = Session::start(
        binary,
        &[
            ("TRACKER_DISCOVERY_BASE_URL", upstream.base_url()),
            ("TRACKER_DISCOVERY_TOKEN", support::TOKEN),
        ],
    )
    .await;
    let names: Vec<String> = session
        .tools()
        .await
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(
        names,
        [
            "tracker_search_issues",
            "tracker_search_operations",
            "tracker_describe_operation",
            "tracker_call_operation"
        ]
    );

    // The curated tool works as ever.
    let issues = structured(
        &session
            .call(
                "tracker_search_issues",
                json!({ "project": "WEB", "limit": 1 }),
            )
            .await,
    );
    assert_eq!(
        issues["issues"].as_array().map(Vec::len),
        Some(1),
        "{issues}"
    );

    // The long tail: found by words, described, called against the tracker.
    let found = structured(
        &session
            .call(
                "tracker_search_operations",
                json!({ "query": "look up an issue by its key" }),
            )
            .await,
    );
    assert_eq!(found["results"][0]["operation"], "getIssueByKey", "{found}");
    let described = structured(
        &session
            .call(
                "tracker_describe_operation",
                json!({ "operation": "getIssueByKey" }),
            )
            .await,
    );
    assert_eq!(described["input_schema"]["required"], json!(["issue_key"]));
    assert_eq!(described["read_only"], true);
    // The catalog writes each shared schema once (the issue the answers of these operations
    // describe, the `issue_id` parameter); each answer is the whole line as it was written out
    // before, from the plan: the same value, its keys in the same order.
    let (plan, files) = mcpgen::generate(
        &repo().join("specs/tracker/openapi.yaml"),
        Some(&tracker_fixture()),
        &options("tracker-discovery"),
    )
    .expect("it generates");
    let catalog = &files
        .iter()
        .find(|f| f.path == "data/operations.jsonl")
        .expect("the catalog")
        .contents;
    assert!(
        catalog.contains(r#""input_schema":{"$shared":"#),
        "input schemas are shared: {catalog}"
    );
    let discovery = plan.discovery.as_ref().expect("discovery tools");
    for name in [
        "getIssue",
        "getIssueByKey",
        "listTransitions",
        "transitionIssue",
    ] {
        let (found, line) = discovery
            .operations
            .iter()
            .zip(&discovery.described)
            .find(|(found, _)| found.name == name)
            .expect("a discoverable operation");
        let expected = format!(
            "{}{},\"returns\":{}}}",
            line.head, plan.operations[found.operation].input_schema, line.returns
        );
        let described = structured(
            &session
                .call("tracker_describe_operation", json!({ "operation": name }))
                .await,
        );
        assert_eq!(described.to_string(), expected, "{name}");
    }
    let called = structured(
        &session
            .call(
                "tracker_call_operation",
                json!({ "operation": "getIssueByKey", "arguments": { "issue_key": "WEB-1" } }),
            )
            .await,
    );
    assert_eq!(called["read_only"], true);
    assert_eq!(called["result"]["key"], "WEB-1", "{called}");

    // A write says so.
    let created = session
        .call(
            "tracker_call_operation",
            json!({
                "operation": "createIssue",
                "arguments": { "project_id": tracker_api::seed::project_id("WEB").to_string(), "title": "Found through discovery" },
            }),
        )
        .await;
    let value = structured(&created);
    assert_eq!(value["read_only"], false);
    assert!(
        text(&created).contains("is not read-only"),
        "{}",
        text(&created)
    );
    let stored = upstream
        .get_ok(&format!(
            "/v2/issues/by-key/{}",
            value["result"]["key"].as_str().expect("a key")
        ))
        .await;
    assert_eq!(stored["title"], "Found through discovery");

    // Unknown operations and wrong arguments are the model's to fix, with the way out named.
    let unknown = session
        .call(
            "tracker_call_operation",
            json!({ "operation": "get_issue_by_key" }),
        )
        .await;
    assert_eq!(unknown.is_error, Some(true));
    assert!(
        text(&unknown).contains("Did you mean `getIssueByKey`"),
        "{}",
        text(&unknown)
    );
    // A misspelt name suggests the nearest names first, not what a search for it finds.
    let misspelt = session
        .call(
            "tracker_describe_operation",
            json!({ "operation": "getIsue" }),
        )
        .await;
    assert_eq!(misspelt.is_error, Some(true));
    assert!(
        text(&misspelt).contains("Did you mean `getIssue`"),
        "{}",
        text(&misspelt)
    );
    // An operation of the API the discovery tools do not reach says why, and which tool does.
    let curated = session
        .call(
            "tracker_call_operation",
            json!({ "operation": "listIssues", "arguments": {} }),
        )
        .await;
    assert_eq!(curated.is_error, Some(true));
    assert_eq!(
        text(&curated),
        "Invalid argument `operation`: `listIssues` is not one of the operations these tools reach: the tool `tracker_search_issues` calls it; use that tool."
    );
    let hidden = session
        .call(
            "tracker_describe_operation",
            json!({ "operation": "deleteIssue" }),
        )
        .await;
    assert_eq!(
        text(&hidden),
        "Invalid argument `operation`: `deleteIssue` is not one of the operations these tools reach: the server leaves it out."
    );
    let wrong = session
        .call(
            "tracker_call_operation",
            json!({ "operation": "getIssueByKey", "arguments": { "key": "WEB-1" } }),
        )
        .await;
    assert_eq!(wrong.is_error, Some(true));
    assert!(text(&wrong).contains("`key`"), "{}", text(&wrong));
    session.close().await;
}

// --- GitHub REST, zero-config ------------------------------------------------------------------------

/// The GitHub crate, generated without a curation file (as `mcpgen build github-rest.json --name
/// github` would) into `target/e2e/github-mcp` and built into `target/generated`.
fn github_binary() -> &'static Path {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let built = BINARY.get_or_init(|| {
        let spec = github_spec();
        let started = Instant::now();
        let (plan, files) =
            mcpgen::generate(&spec, None, &options("github")).map_err(|e| format!("{e:#}"))?;
        eprintln!(
            "generated the GitHub crate ({} tools) in {:?}",
            plan.tools.len(),
            started.elapsed()
        );
        let dir = repo().join("target/e2e/github-mcp");
        mcpgen::write::write(&dir, &files).map_err(|e| e.to_string())?;
        let started = Instant::now();
        let binary = support::build_crate(&dir, "github-mcp")?;
        eprintln!("built the GitHub crate in {:?}", started.elapsed());
        Ok(binary)
    });
    match built {
        Ok(binary) => binary,
        Err(message) => panic!("{message}"),
    }
}

/// cl100k tokens of `text`, with the real tokenizer.
fn cl100k(text: &str) -> usize {
    static BPE: OnceLock<tiktoken_rs::CoreBPE> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::cl100k_base().expect("the cl100k vocabulary loads"))
        .encode_with_special_tokens(text)
        .len()
}

/// A child process killed when dropped.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Prism serving the GitHub document on a free loopback port, logging to a file: a validating
/// mock, which checks every request against the document.
struct Prism {
    _process: Guard,
    port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Prism {
    fn start() -> Prism {
        let prism = required_env("MCPGEN_TEST_PRISM", "Prism (@stoplight/prism-cli)");
        let dir = tempfile::tempdir().expect("a scratch directory");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let log = dir.path().join("prism.log");
        let out = File::create(&log).expect("a log file");
        let err = out.try_clone().expect("a second handle");
        let child = Command::new(&prism)
            .arg("mock")
            .arg(github_spec())
            // Without `--errors`: GitHub's own response examples break its schemas in places
            // (Prism would answer 500 for them), while a request that breaks the document is still
            // answered 422 and logged as a request violation, which the test checks for.
            .args(["-h", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", prism.display()));
        let mut process = Guard(child);
        let deadline = Instant::now() + PRISM_STARTUP;
        loop {
            let listening = std::fs::read_to_string(&log)
                .unwrap_or_default()
                .contains("Prism is listening");
            if listening
                && TcpStream::connect_timeout(
                    &([127, 0, 0, 1], port).into(),
                    Duration::from_millis(200),
                )
                .is_ok()
            {
                return Prism {
                    _process: process,
                    port,
                    log,
                    _dir: dir,
                };
            }
            if let Ok(Some(status)) = process.0.try_wait() {
                panic!(
                    "Prism exited ({status}):\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                );
            }
            assert!(
                Instant::now() < deadline,
                "Prism did not listen within {PRISM_STARTUP:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The requests Prism received, as `METHOD /path`.
    fn requests(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter(|line| line.contains("Request received"))
            .filter_map(|line| {
                let rest = line.split("[HTTP SERVER] ").nth(1)?;
                let mut words = rest.split_whitespace();
                Some(format!("{} {}", words.next()?, words.next()?))
            })
            .collect()
    }

    /// What Prism found wrong with the requests it received.
    fn request_violations(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter(|line| line.contains("[VALIDATOR]") && line.contains("Violation: request"))
            .map(str::to_string)
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn github_zero_config_lists_three_tools_in_under_3000_tokens_and_finds_describes_and_calls_pull_requests()
 {
    let binary = github_binary();
    let prism = tokio::task::spawn_blocking(Prism::start)
        .await
        .expect("Prism starts");
    let base_url = prism.base_url();
    let session = Session::start(binary, &[("GITHUB_BASE_URL", base_url.as_str())]).await;

    let tools = session.tools().await;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "github_search_operations",
            "github_describe_operation",
            "github_call_operation"
        ]
    );
    let listed = serde_json::to_string(&json!({ "tools": tools })).expect("JSON");
    let tokens = cl100k(&listed);
    eprintln!(
        "GitHub REST tools/list: {} tools, {tokens} cl100k tokens",
        tools.len()
    );
    assert!(tokens < 3000, "tools/list takes {tokens} tokens");

    let found = structured(
        &session
            .call(
                "github_search_operations",
                json!({ "query": "list the pull requests of a repository" }),
            )
            .await,
    );
    let top: Vec<&str> = found["results"]
        .as_array()
        .expect("results")
        .iter()
        .take(3)
        .filter_map(|r| r["operation"].as_str())
        .collect();
    eprintln!("top 3: {top:?}");
    assert!(
        top.contains(&"pulls/list"),
        "pulls/list not in the top 3: {found}"
    );

    let described = structured(
        &session
            .call(
                "github_describe_operation",
                json!({ "operation": "pulls/list" }),
            )
            .await,
    );
    assert_eq!(described["request"], "GET /repos/{owner}/{repo}/pulls");
    assert_eq!(described["read_only"], true);
    assert_eq!(
        described["input_schema"]["required"],
        json!(["owner", "repo"])
    );
    assert!(
        described["input_schema"]["properties"]["state"].is_object(),
        "{described}"
    );

    let called = structured(
        &session
            .call(
                "github_call_operation",
                json!({ "operation": "pulls/list", "arguments": { "owner": "octocat", "repo": "hello-world", "state": "open", "per_page": 5 } }),
            )
            .await,
    );
    assert_eq!(called["read_only"], true);
    assert!(called["result"].is_array(), "{called}");
    let seen = prism.requests();
    assert_eq!(seen, ["get /repos/octocat/hello-world/pulls"]);
    assert!(
        prism.request_violations().is_empty(),
        "{:?}",
        prism.request_violations()
    );

    // A bad argument: refused with a message naming it, and nothing reaches Prism.
    let refused = session
        .call(
            "github_call_operation",
            json!({ "operation": "pulls/list", "arguments": { "owner": "octocat", "repo": "hello-world", "state": "merged" } }),
        )
        .await;
    assert_eq!(refused.is_error, Some(true));
    let message = text(&refused);
    eprintln!("bad argument: {message}");
    assert!(message.contains("`state`"), "{message}");
    assert!(message.contains("Nothing was sent"), "{message}");
    assert!(message.contains("github_describe_operation"), "{message}");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(prism.requests(), seen, "the refused call sent a request");
    session.close().await;
}

// --- search quality ------------------------------------------------------------------------------

#[derive(serde::Deserialize)]
struct Query {
    query: String,
    expect: Expected,
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Expected {
    One(String),
    Any(Vec<String>),
}

impl Expected {
    fn matches(&self, name: &str) -> bool {
        match self {
            Expected::One(one) => one == name,
            Expected::Any(any) => any.iter().any(|a| a == name),
        }
    }
}

#[test]
fn github_search_finds_the_expected_operation_in_the_top_5_for_at_least_90_percent_of_queries() {
    let api = mcpgen::load::load(&github_spec()).expect("the GitHub document loads");
    let plan = mcpgen::plan::plan(&api, &options("github"), None).expect("it plans");
    let discovery = plan.discovery.expect("discovery mode");
    assert_eq!(discovery.operations.len(), 1223);
    let index = mcpgen::search::Index::parse(&discovery.index).expect("the index reads back");
    let text = std::fs::read_to_string(repo().join("tests/discovery/github-queries.yaml"))
        .expect("the queries");
    let queries: Vec<Query> = yaml_serde::from_str(&text).expect("the queries parse");
    assert!(queries.len() >= 30, "{} queries", queries.len());
    let (mut top1, mut top5) = (0, 0);
    let mut misses = Vec::new();
    for query in &queries {
        let hits = index.search(&query.query, &mcpgen::search::Filter::default(), 5);
        let names: Vec<&str> = hits
            .iter()
            .map(|h| index.entries[h.entry].name.as_str())
            .collect();
        if names.first().is_some_and(|n| query.expect.matches(n)) {
            top1 += 1;
        }
        match names.iter().position(|n| query.expect.matches(n)) {
            Some(_) => top5 += 1,
            None => misses.push(format!("{:?} → {names:?}", query.query)),
        }
    }
    let n = queries.len();
    let percent = |k: usize| 100.0 * k as f64 / n as f64;
    eprintln!(
        "GitHub search quality over {n} queries: top-1 {top1} ({:.0}%), top-5 {top5} ({:.0}%)",
        percent(top1),
        percent(top5)
    );
    for miss in &misses {
        eprintln!("  not in the top 5: {miss}");
    }
    assert!(
        top5 * 10 >= n * 9,
        "top-5 hit rate {:.0}% is below 90%",
        percent(top5)
    );
}

#[test]
fn a_discovery_section_that_reaches_nothing_says_why() {
    let spec = repo().join("specs/tracker/openapi.yaml");
    let text = std::fs::read_to_string(tracker_fixture())
        .expect("the fixture")
        .replace("  mirror: none\n", "");
    let dir = tempfile::tempdir().expect("a scratch directory");
    let curation = dir.path().join("mcpgen.yaml");
    std::fs::write(&curation, text).expect("written");
    let error = mcpgen::generate(&spec, Some(&curation), &options("tracker-discovery"))
        .expect_err("refused")
        .to_string();
    assert!(
        error.contains("the `discovery` section reaches no operation"),
        "{error}"
    );
    assert!(error.contains("mirror: none"), "{error}");
}

#[test]
fn no_discovery_contradicting_a_discovery_section_is_an_error() {
    let spec = repo().join("specs/tracker/openapi.yaml");
    let options = mcpgen::Options {
        no_discovery: true,
        ..options("tracker-discovery")
    };
    let error = mcpgen::generate(&spec, Some(&tracker_fixture()), &options)
        .expect_err("refused")
        .to_string();
    assert!(error.contains("--no-discovery contradicts"), "{error}");
}
