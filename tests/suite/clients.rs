//! Every committed example in `generated-examples/` driven by the two other real MCP clients the
//! project supports, over stdio and Streamable HTTP:
//!
//! - the official TypeScript v2 client (`@modelcontextprotocol/client`, through
//!   `tests/support/ts_client.mjs`) in each of its three modes, `versionNegotiation: {mode:
//!   'legacy'}`, `{mode: 'auto'}` and `{mode: {pin: '2026-07-28'}}`: it lists the tools (each
//!   input and output schema compiled with the client's AJV) and makes real calls, whose
//!   `structuredContent` the client validates against the tool's `outputSchema` with AJV;
//! - the MCP Inspector CLI (`@modelcontextprotocol/inspector`) with `--method tools/list --strict`,
//!   which exits 6 on a tool schema that would not port to every model API, across its protocol
//!   eras `legacy`, `auto` and `modern`.
//!
//! The tools each client lists must be exactly the committed `tests/tools.json` of the crate, and
//! each call's structured content exactly what the upstream makes of it: the project's tracker
//! API (`tests/tracker-api`, fresh seed data) for the three tracker servers, and for the others a
//! recording, validating Prism mock of the API's description (`tests/support/recorder.rs`), which
//! fails the test when a request does not match the description.
//!
//! The crates are built in debug into the target directory every generated crate shares
//! (`target/generated`), as the other end-to-end tests build them. Needs `MCPGEN_TEST_NODE22`,
//! `MCPGEN_TEST_TS_CLIENT`, `MCPGEN_TEST_INSPECTOR`, `MCPGEN_TEST_PRISM` and (for GitHub)
//! `MCPGEN_TEST_LARGE_SPECS`; `scripts/test` installs and sets them. Run with
//! `scripts/test --test suite clients::`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support;
use crate::support::recorder::Recorder;
use crate::support::{HttpServer, Upstream, repo};

/// The longest one client process (every session of one example) may take.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(120);

/// The TypeScript client's three ways of choosing a protocol version, and the version each must
/// end up with against a generated server (which speaks both 2025-11-25 and 2026-07-28).
const TS_MODES: [(&str, &str); 3] = [
    ("legacy", "2025-11-25"),
    ("auto", "2026-07-28"),
    ("2026-07-28", "2026-07-28"),
];

fn required_env(name: &str) -> PathBuf {
    match std::env::var_os(name) {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => panic!("{name} is not set: run the tests with `scripts/test`, which sets it"),
    }
}

/// One committed example and how to run it.
struct Example {
    /// The folder in `generated-examples/`.
    dir: &'static str,
    /// The crate's binary.
    binary: &'static str,
    /// The server's own credential variable and its value.
    credential: (&'static str, &'static str),
    /// The calls each client session makes after `tools/list`: tool, arguments.
    calls: Vec<(&'static str, Value)>,
    /// The Inspector's protocol era over stdio and over HTTP.
    eras: (&'static str, &'static str),
    /// The portability warnings `--strict` gives (below the errors that exit 6), as `TOOL PATH`:
    /// known and accepted, so that a new one fails the test.
    warnings: &'static [&'static str],
}

impl Example {
    fn crate_dir(&self) -> PathBuf {
        repo().join("generated-examples").join(self.dir)
    }

    /// The crate's binary, built in debug into `target/generated`. The tracker mirror is the one
    /// `tests/suite/e2e.rs` builds from `target/e2e/tracker-mirror` (generated with the same name,
    /// so `tests/suite/golden.rs` proves it is the committed crate): built from both folders, the
    /// two would replace each other's binary in the shared target directory, a rebuild every time.
    fn build(&self) -> PathBuf {
        if self.dir == "tracker-mirror" {
            return support::tracker_mcp().to_path_buf();
        }
        support::build_crate(&self.crate_dir(), self.binary)
            .unwrap_or_else(|message| panic!("{message}"))
    }

    /// The crate's committed `tools/list`: its `tests/tools.json`.
    fn committed_tools(&self) -> Vec<Value> {
        let path = self.crate_dir().join("tests/tools.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let snapshot: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
        snapshot["tools"]
            .as_array()
            .cloned()
            .unwrap_or_else(|| panic!("{} has no `tools` list", path.display()))
    }
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools
        .iter()
        .map(|tool| tool["name"].as_str().unwrap_or("(no name)"))
        .collect()
}

/// Runs `command` at most `timeout`; returns its exit code, stdout and stderr.
fn run(mut command: Command, timeout: Duration, what: &str) -> (Option<i32>, String, String) {
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let out_path = scratch.path().join("out");
    let err_path = scratch.path().join("err");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("a file for stdout"))
        .stderr(std::fs::File::create(&err_path).expect("a file for stderr"))
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    let status = support::wait_or_kill(&mut child, timeout);
    let out = std::fs::read_to_string(&out_path).unwrap_or_default();
    let err = std::fs::read_to_string(&err_path).unwrap_or_default();
    match status {
        Some(status) => (status.code(), out, err),
        None => panic!("{what} took longer than {timeout:?}:\nstdout:\n{out}\nstderr:\n{err}"),
    }
}

/// What a client needs to reach the server: over stdio the command and its environment, over
/// HTTP the URL of the server the test started.
struct Target<'a> {
    binary: &'a Path,
    env: &'a [(String, String)],
    url: &'a str,
}

/// Runs every session of `plan` through `ts_client.mjs` in one Node process; one report each.
fn ts_client(plan: &Value, what: &str) -> Vec<Value> {
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let plan_path = scratch.path().join("plan.json");
    std::fs::write(&plan_path, plan.to_string()).expect("the plan is written");
    let mut node = Command::new(required_env("MCPGEN_TEST_NODE22"));
    node.arg(repo().join("tests/support/ts_client.mjs"))
        .arg(required_env("MCPGEN_TEST_TS_CLIENT"))
        .arg(&plan_path);
    let (code, out, err) = run(node, CLIENT_TIMEOUT, what);
    assert_eq!(
        code,
        Some(0),
        "{what} failed:\nstdout:\n{out}\nstderr:\n{err}"
    );
    out.lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{what} printed a line that is not JSON ({e}): {line}"))
        })
        .collect()
}

/// The TypeScript client in each of its modes, over stdio and over HTTP: lists the tools (which
/// must be the committed ones, every schema compiled by AJV) and makes `example.calls`, each of
/// which must succeed with structured content that AJV found valid against the tool's output
/// schema. Returns the structured content of each call, the same in every session.
fn typescript_client(example: &Example, target: &Target) -> Vec<Value> {
    let mut steps = vec![json!({ "list": true })];
    steps.extend(
        example
            .calls
            .iter()
            .map(|(tool, args)| json!({ "call": tool, "args": args })),
    );
    let env: serde_json::Map<String, Value> = target
        .env
        .iter()
        .map(|(name, value)| (name.clone(), Value::from(value.as_str())))
        .collect();
    let mut sessions = Vec::new();
    for (mode, _) in TS_MODES {
        sessions.push(json!({
            "mode": mode,
            "stdio": { "command": target.binary, "env": env },
            "steps": steps,
        }));
        sessions.push(json!({ "mode": mode, "url": target.url, "steps": steps }));
    }
    let what = format!("the TypeScript client against {}", example.dir);
    let reports = ts_client(&json!({ "sessions": sessions }), &what);
    assert_eq!(
        reports.len(),
        sessions.len(),
        "one report per session: {reports:#?}"
    );

    let committed = example.committed_tools();
    let mut structured: Option<Vec<Value>> = None;
    for (index, report) in reports.iter().enumerate() {
        let (mode, version) = TS_MODES[index / 2];
        let session = format!("{what}, mode {mode} over {}", report["transport"]);
        assert_eq!(report["mode"], mode, "{session}: {report:#}");
        assert!(
            report.get("connectError").is_none(),
            "{session}: cannot connect: {}",
            report["connectError"]
        );
        assert_eq!(
            report["protocolVersion"], version,
            "{session}: the agreed version"
        );
        let steps = report["steps"].as_array().expect("the steps' results");
        assert_eq!(
            steps.len(),
            1 + example.calls.len(),
            "{session}: {report:#}"
        );

        let listed = &steps[0];
        assert!(
            listed.get("error").is_none(),
            "{session}: tools/list: {listed:#}"
        );
        let tools = listed["tools"].as_array().expect("the listed tools");
        assert_eq!(names(tools), names(&committed), "{session}: the tools");
        assert_eq!(
            listed["schemaErrors"],
            json!([]),
            "{session}: schemas AJV cannot compile"
        );
        if version == "2026-07-28" {
            // The modern era passes the definitions through as the server sent them.
            assert_eq!(tools, &committed, "{session}: the tool definitions");
        }

        let mut contents = Vec::new();
        for ((tool, args), step) in example.calls.iter().zip(&steps[1..]) {
            assert!(
                step.get("error").is_none(),
                "{session}: tools/call {tool} {args} threw (a structuredContent its outputSchema refuses?): {}",
                step["error"]
            );
            let result = &step["result"];
            assert_ne!(
                result["isError"], true,
                "{session}: {tool} {args} failed: {result:#}"
            );
            let content = result.get("structuredContent").unwrap_or_else(|| {
                panic!("{session}: {tool} has no structuredContent: {result:#}")
            });
            contents.push(content.clone());
        }
        match &structured {
            None => structured = Some(contents),
            Some(first) => assert_eq!(
                &contents, first,
                "{session}: the same calls answered differently than in the first session"
            ),
        }
    }
    structured.unwrap_or_default()
}

/// The Inspector CLI with its own catalog and home, in a temporary folder.
fn inspector(home: &Path) -> Command {
    let mut inspector = Command::new(required_env("MCPGEN_TEST_NODE22"));
    inspector
        .arg(required_env("MCPGEN_TEST_INSPECTOR"))
        .arg("--cli")
        .env("HOME", home)
        .env("MCP_CATALOG_PATH", home.join("catalog.json"))
        .env("MCP_CLIENT_CONFIG_PATH", home.join("client.json"));
    inspector
}

/// The Inspector CLI's `tools/call` of the example's first call over HTTP, in the modern era:
/// it must exit 0 (5 would be an `isError` result) with the structured content the TypeScript
/// client got.
fn inspector_call(example: &Example, target: &Target, expected: &Value) {
    let (tool, args) = &example.calls[0];
    let home = tempfile::tempdir().expect("a home for the Inspector");
    let mut command = inspector(home.path());
    command.arg(target.url).args([
        "--method",
        "tools/call",
        "--tool-name",
        tool,
        "--tool-args-json",
        &args.to_string(),
        "--format",
        "json",
        "--protocol-era",
        "modern",
    ]);
    let what = format!(
        "the Inspector CLI's tools/call {tool} against {}",
        example.dir
    );
    let (code, out, err) = run(command, CLIENT_TIMEOUT, &what);
    assert_eq!(
        code,
        Some(0),
        "{what} exited {code:?} (5: an isError result):\nstdout:\n{out}\nstderr:\n{err}"
    );
    let answer: Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("{what} printed what is not JSON ({e}):\n{out}\n{err}"));
    assert_eq!(
        &answer["result"]["structuredContent"], expected,
        "{what}: {answer:#}"
    );
}

/// The Inspector CLI's `tools/list --strict` over stdio and over HTTP, each in the example's era:
/// it must exit 0 (6 would be a schema portability problem) with exactly the committed tools.
fn inspector_strict(example: &Example, target: &Target) {
    let (stdio_era, http_era) = example.eras;
    for (transport, era) in [("stdio", stdio_era), ("http", http_era)] {
        let home = tempfile::tempdir().expect("a home for the Inspector");
        let mut inspector = inspector(home.path());
        if transport == "stdio" {
            for (name, value) in target.env {
                inspector.arg("-e").arg(format!("{name}={value}"));
            }
            inspector.arg(target.binary);
        } else {
            inspector.arg(target.url);
        }
        inspector.args([
            "--method",
            "tools/list",
            "--strict",
            "--format",
            "json",
            "--protocol-era",
            era,
        ]);
        let what = format!(
            "the Inspector CLI (--strict, era {era}) against {} over {transport}",
            example.dir
        );
        let (code, out, err) = run(inspector, CLIENT_TIMEOUT, &what);
        assert_eq!(
            code,
            Some(0),
            "{what} exited {code:?} (6: a schema portability problem):\nstdout:\n{out}\nstderr:\n{err}"
        );
        let listed: Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("{what} printed what is not JSON ({e}):\n{out}\n{err}"));
        let tools = listed["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{what}: no tools in {listed:#}"));
        assert_eq!(names(tools), names(&example.committed_tools()), "{what}");
        assert_eq!(
            portability_warnings(&err),
            example.warnings,
            "{what}: the portability warnings:\n{err}"
        );
    }
}

/// The warnings of `--strict` on stderr, as `TOOL PATH`: each is a `Warning: tool "NAME"` line
/// followed by a `  Path: PATH` line.
fn portability_warnings(stderr: &str) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut lines = stderr.lines();
    while let Some(line) = lines.next() {
        if let Some(tool) = line.strip_prefix("Warning: tool ") {
            let path = lines
                .next()
                .and_then(|next| next.trim().strip_prefix("Path: "))
                .unwrap_or("(no path)");
            warnings.push(format!("{} {path}", tool.trim_matches('"')));
        }
    }
    warnings
}

/// Builds the example, starts it over HTTP in front of `base_url` (its stdio instances start
/// from the clients), runs both clients against it; returns the structured content of each call.
fn drive(example: &Example, base_url: &str, runtime: &tokio::runtime::Runtime) -> Vec<Value> {
    let binary = example.build();
    let started = Instant::now();
    let prefix = example
        .binary
        .trim_end_matches("-mcp")
        .replace('-', "_")
        .to_uppercase();
    let (credential, secret) = example.credential;
    let env = vec![
        (format!("{prefix}_BASE_URL"), base_url.to_owned()),
        (credential.to_owned(), secret.to_owned()),
    ];
    let http = runtime.block_on(HttpServer::start_binary(
        &binary,
        base_url,
        &[(credential, Some(secret))],
    ));
    let target = Target {
        binary: &binary,
        env: &env,
        url: http.url(),
    };
    let structured = typescript_client(example, &target);
    inspector_strict(example, &target);
    inspector_call(example, &target, &structured[0]);
    eprintln!(
        "{}: both clients, every mode, in {:.1} s",
        example.dir,
        started.elapsed().as_secs_f64()
    );
    structured
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// Drives `example` in front of the tracker API (fresh seed data).
fn with_tracker(example: &Example) -> Vec<Value> {
    let runtime = runtime();
    let upstream = runtime.block_on(Upstream::start());
    drive(example, upstream.base_url(), &runtime)
}

/// Drives `example` in front of a recording Prism mock of `spec` (the operations at `paths`, or
/// the whole description when there are none), which must have found every request valid.
fn with_mock(example: &Example, spec: &Path, paths: &[&str]) -> Vec<Value> {
    let logs = tempfile::tempdir().expect("a directory for Prism's log");
    let recorder = if paths.is_empty() {
        Recorder::start(spec, logs.path())
    } else {
        Recorder::start_on_paths(spec, paths, logs.path())
    };
    let structured = drive(example, &recorder.base_url(), &runtime());
    recorder.assert_clean();
    assert!(!recorder.requests().is_empty(), "the calls reached the API");
    structured
}

// --- the tracker --------------------------------------------------------------------------------

#[test]
fn tracker_mcp() {
    let search = json!({ "project": "WEB", "assignee": "me", "status": "open", "limit": 2 });
    let example = Example {
        dir: "tracker-mcp",
        binary: "tracker-mcp",
        credential: ("TRACKER_TOKEN", support::TOKEN),
        calls: vec![("tracker_search_issues", search)],
        eras: ("legacy", "modern"),
        warnings: &[],
    };
    let structured = with_tracker(&example);
    // The seed: WEB-N is alice's when N % 4 == 1 and open when N % 5 is 0 or 1; fourteen match.
    let issue = |key: &str, title: &str| json!({ "key": key, "title": title, "status": "open", "assignee": "alice" });
    assert_eq!(
        structured,
        vec![json!({
            "issues": [
                issue("WEB-125", "Contact form sends duplicate messages (staging)"),
                issue("WEB-121", "Sitemap misses the new product pages (staging)"),
            ],
            "truncated": true,
        })]
    );
}

/// The TypeScript client's output validation is live in this setup: the same call, checked
/// against an output schema the answer does not fit, is refused by the client.
#[test]
fn typescript_client_refuses_structured_content_its_output_schema_does_not_allow() {
    let binary = support::build_crate(
        &repo().join("generated-examples/tracker-mcp"),
        "tracker-mcp",
    )
    .unwrap_or_else(|message| panic!("{message}"));
    let runtime = runtime();
    let upstream = runtime.block_on(Upstream::start());
    let args = json!({ "project": "WEB", "limit": 1 });
    let session = json!({
        "mode": "2026-07-28",
        "stdio": {
            "command": binary,
            "env": { "TRACKER_BASE_URL": upstream.base_url(), "TRACKER_TOKEN": support::TOKEN },
        },
        "steps": [
            { "call": "tracker_search_issues", "args": args,
              "outputSchema": { "type": "object", "required": ["issues"] } },
            { "call": "tracker_search_issues", "args": args,
              "outputSchema": { "type": "object", "required": ["issues", "total"] } },
        ],
    });
    let what = "the TypeScript client with output schemas of its own";
    let reports = ts_client(&json!({ "sessions": [session] }), what);
    let steps = &reports[0]["steps"];
    assert!(steps[0].get("error").is_none(), "{what}: {:#}", reports[0]);
    let refused = steps[1]["error"].as_str().unwrap_or_default();
    assert!(
        refused.contains("Structured content does not match the tool's output schema")
            && refused.contains("total"),
        "{what}: the second call must be refused: {:#}",
        reports[0]
    );
}

#[test]
fn tracker_mirror() {
    let example = Example {
        dir: "tracker-mirror",
        binary: "tracker-mirror-mcp",
        credential: ("TRACKER_MIRROR_TOKEN", support::TOKEN),
        calls: vec![
            ("get_current_user", json!({})),
            // WEB-4 has no assignee: `assignee_id` is null, which its output schema allows with `anyOf`.
            ("get_issue_by_key", json!({ "issue_key": "WEB-4" })),
        ],
        eras: ("modern", "auto"),
        warnings: &[],
    };
    let structured = with_tracker(&example);
    assert_eq!(
        structured,
        vec![
            json!({
                "id": tracker_api::seed::user_id("alice").to_string(),
                "username": "alice",
                "display_name": "Alice Martin",
                "email": "alice@tracker.example",
            }),
            json!({
                "id": tracker_api::seed::issue_id("WEB-4").to_string(),
                "key": "WEB-4",
                "number": 4,
                "project_id": tracker_api::seed::project_id("WEB").to_string(),
                "title": "Password reset email never arrives",
                "description": "The password reset email is not delivered for addresses at some providers. The mail log shows the message as deferred.",
                "state": 3,
                "priority": 2,
                "assignee_id": null,
                "reporter_id": tracker_api::seed::user_id("bob").to_string(),
                "labels": ["bug", "auth", "email"],
                "created_at": "2026-01-01T04:00:00Z",
                "updated_at": "2026-01-02T06:00:00Z",
            })
        ]
    );
}

#[test]
fn tracker_discovery() {
    let example = Example {
        dir: "tracker-discovery",
        binary: "tracker-discovery-mcp",
        credential: ("TRACKER_DISCOVERY_TOKEN", support::TOKEN),
        calls: vec![(
            "tracker_search_issues",
            json!({ "project": "MOBILE", "status": "open", "limit": 2 }),
        )],
        eras: ("auto", "legacy"),
        // What an operation of the API answered: any JSON value, so a schema with no keyword.
        warnings: &["tracker_call_operation outputSchema.properties.result"],
    };
    let structured = with_tracker(&example);
    // MOBILE's only two open issues (the curated result has no assignee field).
    let issue = |key: &str, title: &str| json!({ "key": key, "title": title, "status": "open" });
    assert_eq!(
        structured,
        vec![json!({
            "issues": [
                issue("MOBILE-3", "Login screen ignores the system dark mode"),
                issue("MOBILE-2", "Push notifications arrive twice"),
            ],
            "truncated": false,
        })]
    );
}

// --- the real APIs, in front of a recording Prism mock ------------------------------------------

#[test]
fn petstore_mcp() {
    let example = Example {
        dir: "petstore-mcp",
        binary: "petstore-mcp",
        credential: ("PETSTORE_TOKEN", "petstore-test-token"),
        calls: vec![("petstore_search_pets", json!({}))],
        eras: ("modern", "legacy"),
        warnings: &[],
    };
    let spec = repo().join("tests/corpus/swagger-petstore-v3/openapi.yaml");
    let structured = with_mock(&example, &spec, &[]);
    // Prism's example pet has the API status `available`: the model reads `for_sale`.
    assert_eq!(
        structured,
        vec![json!({ "pets": [{ "name": "doggie", "status": "for_sale" }], "truncated": false })]
    );
}

#[test]
fn slack_mcp() {
    let example = Example {
        dir: "slack-mcp",
        binary: "slack-mcp",
        credential: ("SLACK_TOKEN", "xoxb-recorder"),
        calls: vec![
            ("slack_list_channels", json!({ "limit": 1 })),
            (
                "slack_find_user_by_email",
                json!({ "email": "spengler@ghostbusters.example.com" }),
            ),
        ],
        eras: ("auto", "modern"),
        warnings: &[],
    };
    let spec = repo().join("tests/corpus/slack-web/slack_web_openapi_v2.json");
    let structured = with_mock(
        &example,
        &spec,
        &["/conversations.list", "/users.lookupByEmail"],
    );
    // Prism answers with the description's examples: a page of general and random (and a cursor,
    // so the limit of one says more exist), and Egon Spengler.
    assert_eq!(
        structured,
        vec![
            json!({
                "channels": [{
                    "name": "general",
                    "id": "C012AB3CD",
                    "topic": "Company-wide announcements and work-based matters",
                    "members": 4,
                }],
                "truncated": true,
            }),
            json!({
                "id": "W012A3CDE",
                "name": "spengler",
                "real_name": "Egon Spengler",
                "time_zone": "America/Los_Angeles",
            }),
        ]
    );
}

#[test]
fn notion_mcp() {
    let example = Example {
        dir: "notion-mcp",
        binary: "notion-mcp",
        credential: ("NOTION_TOKEN", "secret_recorder"),
        calls: vec![
            ("notion_search", json!({ "query": "Roadmap 2027" })),
            (
                "notion_query_database",
                json!({ "database": "2f1c9a", "status": "In progress" }),
            ),
        ],
        eras: ("legacy", "auto"),
        warnings: &[],
    };
    let spec = repo().join("tests/corpus/notion/notion-openapi.json");
    let structured = with_mock(
        &example,
        &spec,
        &["/v1/search", "/v1/data_sources/{data_source_id}/query"],
    );
    // The description documents both answers only as `type: object`, so Prism answers `{}`.
    assert_eq!(structured, vec![json!({}), json!({})]);
}

#[test]
fn stripe_mcp() {
    let example = Example {
        dir: "stripe-mcp",
        binary: "stripe-mcp",
        credential: ("STRIPE_SECRET_KEY", "sk_test_recorder"),
        calls: vec![(
            "stripe_find_customer",
            json!({ "email": "ada@example.com", "limit": 1 }),
        )],
        eras: ("modern", "auto"),
        warnings: &[],
    };
    let spec = repo().join("tests/corpus/stripe/spec2.json");
    let structured = with_mock(&example, &spec, &["/v1/customers"]);
    // Stripe's description has no example answers: Prism makes one customer from the schema,
    // with "string" for every text, and `has_more` true.
    assert_eq!(
        structured,
        vec![json!({
            "customers": [{ "id": "string", "name": "string", "email": "string" }],
            "truncated": true,
        })]
    );
}

#[test]
fn github_mcp() {
    let example = Example {
        dir: "github-mcp",
        binary: "github-mcp",
        credential: ("GITHUB_TOKEN", "ghp_recorder"),
        calls: vec![(
            "github_search_issues",
            json!({ "owner": "octocat", "repo": "hello-world", "limit": 1 }),
        )],
        eras: ("auto", "legacy"),
        warnings: &[],
    };
    let spec = required_env("MCPGEN_TEST_LARGE_SPECS").join("github-rest.json");
    let structured = with_mock(&example, &spec, &["/search/issues"]);
    // The description's example search result, cut to the limit of one.
    assert_eq!(
        structured,
        vec![json!({
            "issues": [{
                "number": 132,
                "title": "Line Number Indexes Beyond 20 Not Displayed",
                "state": "open",
                "url": "https://github.com/batterseapower/pinyin-toolkit/issues/132",
            }],
            "truncated": true,
        })]
    );
}
