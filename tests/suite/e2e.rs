//! End to end: mcpgen generates the tracker server from `specs/tracker/openapi.yaml`, cargo builds
//! it, and real MCP clients use it in front of the real tracker API (`tests/tracker-api`, served
//! in-process on a loopback port, fresh for every test).
//!
//! Each scenario runs over stdio and over Streamable HTTP, in both protocol generations: 2025-11-25
//! (the `initialize` handshake) and 2026-07-28 (`server/discover`, stateless requests). rmcp's
//! client runs every tool scenario; the Python SDK (through `tests/support/mcp_probe.py`) lists
//! the tools and runs one create–transition–read session. Tests are named
//! `CLIENT_TRANSPORT_VERSION::BEHAVIOUR`. What a tool changed is checked in the API itself, over
//! HTTP, not through the server under test.
//!
//! The Python tests need `MCPGEN_TEST_PYTHON` (set by `scripts/test`) and fail without it.

use std::collections::BTreeSet;

use rmcp::ServiceError;
use rmcp::model::{CacheScope, ErrorCode, Tool};
use serde_json::{Value, json};
use tracker_api::model::State;
use tracker_api::seed;

use crate::support;
use crate::support::{
    Connection, McpClient, Protocol, Transport, Upstream, error_text, structured,
};

/// The tools, one per operation, in the document's order.
const TOOL_NAMES: [&str; 10] = [
    "list_projects",
    "list_users",
    "get_current_user",
    "list_issues",
    "create_issue",
    "get_issue",
    "delete_issue",
    "get_issue_by_key",
    "list_transitions",
    "transition_issue",
];

/// How long clients may cache `tools/list`: one day.
const TOOLS_TTL_MS: u64 = 86_400_000;

/// A well-formed UUID that belongs to no project.
const UNKNOWN_PROJECT_ID: &str = "00000000-0000-4000-8000-000000000000";

fn project_id(key: &str) -> String {
    seed::project_id(key).to_string()
}

fn issue_id(key: &str) -> String {
    seed::issue_id(key).to_string()
}

fn items(page: &Value) -> &Vec<Value> {
    page["items"]
        .as_array()
        .unwrap_or_else(|| panic!("no items in {page}"))
}

fn keys(page: &Value) -> Vec<&str> {
    items(page)
        .iter()
        .map(|issue| {
            issue["key"]
                .as_str()
                .unwrap_or_else(|| panic!("no key in {issue}"))
        })
        .collect()
}

fn tool<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools
        .iter()
        .find(|tool| tool.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

// --- rmcp's client ------------------------------------------------------------------------------

async fn lists_the_ten_tools_in_document_order_with_their_hints(connection: Connection) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect(connection, &upstream).await;
    let listed = client.list_tools().await;

    let names: Vec<&str> = listed.tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, TOOL_NAMES, "{client}");
    // Caching hints are part of 2026-07-28; a 2025-11-25 client has no use for them.
    if connection.protocol == Protocol::V2026_07_28 {
        assert_eq!(listed.ttl_ms, Some(TOOLS_TTL_MS), "{client}: ttlMs");
        assert_eq!(
            listed.cache_scope,
            Some(CacheScope::Public),
            "{client}: cacheScope"
        );
    }

    // Only the hints that differ from MCP's defaults are sent; a client reads a missing one as
    // its default (not read-only, destructive, not idempotent).
    for tool in &listed.tools {
        let reads_only = tool.name.starts_with("list_") || tool.name.starts_with("get_");
        let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
        assert_eq!(
            read_only.unwrap_or(false),
            reads_only,
            "{client}: readOnlyHint of {}",
            tool.name
        );
        if reads_only {
            assert_eq!(
                tool.annotations
                    .as_ref()
                    .map(|a| (a.destructive_hint, a.idempotent_hint)),
                Some((None, None)),
                "{client}: {} is read-only, so it has no write hints",
                tool.name
            );
        }
    }
    let delete = tool(&listed.tools, "delete_issue")
        .annotations
        .as_ref()
        .unwrap();
    assert!(
        delete.destructive_hint.unwrap_or(true),
        "{client}: delete_issue is destructive"
    );
    assert_eq!(
        (
            delete.read_only_hint,
            delete.destructive_hint,
            delete.idempotent_hint
        ),
        (None, None, Some(true)),
        "{client}: delete_issue says only that it is idempotent"
    );
    for posting in ["create_issue", "transition_issue"] {
        // A POST is everything MCP assumes: no annotations at all.
        assert!(
            tool(&listed.tools, posting).annotations.is_none(),
            "{client}: {posting} (a POST) has no annotations"
        );
    }

    let list_issues = tool(&listed.tools, "list_issues");
    let input = &list_issues.input_schema;
    let arguments: Vec<&str> = input["properties"]
        .as_object()
        .expect("list_issues has input properties")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        arguments,
        [
            "project_id",
            "state",
            "assignee_id",
            "q",
            "page",
            "per_page"
        ],
        "{client}: list_issues takes the operation's parameters, named as in the API"
    );
    assert_eq!(input["required"], json!(["project_id"]), "{client}");
    assert_eq!(input["additionalProperties"], json!(false), "{client}");
    let output = list_issues
        .output_schema
        .as_ref()
        .unwrap_or_else(|| panic!("{client}: list_issues has no outputSchema"));
    assert_eq!(output["type"], "object", "{client}: {output:?}");
    for property in ["items", "page", "per_page", "total"] {
        assert!(
            output["properties"].get(property).is_some(),
            "{client}: list_issues' outputSchema lacks {property}: {output:?}"
        );
    }
    client.close().await;
}

async fn list_projects_returns_the_apis_projects(connection: Connection) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect(connection, &upstream).await;

    let result = client.call("list_projects", json!({})).await;
    let page = structured(&result);
    let project_keys: Vec<&str> = items(page)
        .iter()
        .map(|project| project["key"].as_str().unwrap())
        .collect();
    assert_eq!(project_keys, ["WEB", "API", "MOBILE"], "{client}");
    assert_eq!(page["total"], 3, "{client}");
    assert_eq!(
        page,
        &upstream.get_ok("/v2/projects").await,
        "{client}: structuredContent is the API's response"
    );
    client.close().await;
}

async fn list_issues_returns_the_newest_twenty_and_filters_by_state(connection: Connection) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect(connection, &upstream).await;
    let web = project_id("WEB");

    let result = client
        .call("list_issues", json!({ "project_id": web }))
        .await;
    let page = structured(&result);
    let newest: Vec<String> = (111..=130).rev().map(|n| format!("WEB-{n}")).collect();
    assert_eq!(
        keys(page),
        newest,
        "{client}: page 1 is the newest 20, newest first"
    );
    assert_eq!(
        (&page["page"], &page["per_page"], &page["total"]),
        (&json!(1), &json!(20), &json!(130)),
        "{client}"
    );

    let listed = client.list_tools().await;
    let schema = tool(&listed.tools, "list_issues")
        .output_schema
        .as_ref()
        .expect("list_issues has an outputSchema");
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&Value::Object(schema.as_ref().clone()))
        .unwrap_or_else(|e| panic!("{client}: list_issues' outputSchema does not compile: {e}"));
    let violations: Vec<String> = validator
        .iter_errors(page)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect();
    assert!(
        violations.is_empty(),
        "{client}: structuredContent breaks the outputSchema: {violations:#?}"
    );

    let result = client
        .call("list_issues", json!({ "project_id": web, "state": 1 }))
        .await;
    let open = structured(&result);
    assert!(!items(open).is_empty(), "{client}: WEB has open issues");
    for issue in items(open) {
        assert_eq!(
            issue["state"], 1,
            "{client}: state 1 lists only open issues: {issue}"
        );
    }
    assert_eq!(
        open,
        &upstream
            .get_ok(&format!("/v2/projects/{web}/issues?state=1"))
            .await,
        "{client}: structuredContent is the API's response"
    );
    client.close().await;
}

async fn create_issue_makes_the_next_key_in_the_api(connection: Connection) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect(connection, &upstream).await;

    let title = "Rate limit headers missing on 429 responses";
    let result = client
        .call(
            "create_issue",
            json!({
                "project_id": project_id("API"),
                "title": title,
                "description": "Clients cannot tell when to retry.",
                "priority": 3,
            }),
        )
        .await;
    let created = structured(&result);
    assert_eq!(created["key"], "API-7", "{client}: {created}");
    assert_eq!(created["title"], title, "{client}");
    assert_eq!(created["priority"], 3, "{client}");
    assert_eq!(created["state"], 1, "{client}: a new issue is open");
    assert_eq!(
        created["reporter_id"],
        seed::user_id("alice").to_string(),
        "{client}: the server acts with its own token, alice's"
    );

    let stored = upstream.get_ok("/v2/issues/by-key/API-7").await;
    assert_eq!(
        &stored, created,
        "{client}: the API has the issue the tool returned"
    );
    client.close().await;
}

async fn transition_issue_changes_the_state_in_the_api(connection: Connection) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect(connection, &upstream).await;
    // WEB-1 starts open (seed: the state of WEB-N is open when N % 5 is 0 or 1).
    let issue = issue_id("WEB-1");
    let before = upstream.get_ok(&format!("/v2/issues/{issue}")).await;
    assert_eq!(before["state"], 1, "WEB-1 is seeded open: {before}");

    let result = client
        .call("list_transitions", json!({ "issue_id": issue }))
        .await;
    let transitions = structured(&result);
    let targets: BTreeSet<i64> = items(transitions)
        .iter()
        .map(|transition| transition["to_state"].as_i64().unwrap())
        .collect();
    assert_eq!(
        targets,
        BTreeSet::from([2, 3]),
        "{client}: from open: {transitions}"
    );
    let start_progress = items(transitions)
        .iter()
        .find(|transition| transition["to_state"] == 2)
        .and_then(|transition| transition["id"].as_str())
        .unwrap()
        .to_owned();

    let result = client
        .call(
            "transition_issue",
            json!({ "issue_id": issue, "transition_id": start_progress }),
        )
        .await;
    let moved = structured(&result);
    assert_eq!(moved["key"], "WEB-1", "{client}");
    assert_eq!(
        moved["state"], 2,
        "{client}: the returned issue is in progress"
    );

    let stored = upstream.get_ok(&format!("/v2/issues/{issue}")).await;
    assert_eq!(
        stored["state"], 2,
        "{client}: the API has WEB-1 in progress"
    );
    assert_eq!(&stored, moved, "{client}");
    client.close().await;
}

async fn bad_arguments_are_tool_errors_that_name_the_argument(connection: Connection) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect(connection, &upstream).await;
    let web = project_id("WEB");

    let cases = [
        (
            "list_issues",
            json!({ "project_id": web, "state": 7 }),
            "Invalid argument `state`: 7 is not allowed; use one of 1, 2, 3.",
        ),
        ("list_issues", json!({ "state": 1 }), "project_id"),
        (
            "list_issues",
            json!({ "project_id": web, "colour": "red" }),
            "colour",
        ),
        (
            "create_issue",
            json!({ "project_id": project_id("API") }),
            "title",
        ),
        (
            "create_issue",
            json!({ "project_id": project_id("API"), "title": "x", "priority": "high" }),
            "priority",
        ),
    ];
    for (tool, arguments, expected) in cases {
        let result = client.call(tool, arguments.clone()).await;
        let text = error_text(&result);
        assert!(
            text.contains(expected),
            "{client}: {tool} {arguments} should fail naming {expected:?}, got: {text}"
        );
    }

    let (status, _) = upstream.get("/v2/issues/by-key/API-7").await;
    assert_eq!(
        status, 404,
        "{client}: no issue was created from bad arguments"
    );
    client.close().await;
}

async fn an_unknown_project_is_a_tool_error_with_the_apis_404_message(connection: Connection) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect(connection, &upstream).await;

    let result = client
        .call("list_issues", json!({ "project_id": UNKNOWN_PROJECT_ID }))
        .await;
    let text = error_text(&result);
    assert!(
        text.contains("404"),
        "{client}: the status is named: {text}"
    );
    let api_message = format!("No project with id {UNKNOWN_PROJECT_ID}.");
    assert!(
        text.contains(&api_message),
        "{client}: the API's own message is quoted: {text}"
    );
    // The API's message ends its sentence; the server's advice must not add a second period.
    assert!(
        !text.contains(".."),
        "{client}: the text has a doubled period: {text}"
    );
    client.close().await;
}

async fn an_unknown_tool_is_a_protocol_error(connection: Connection) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect(connection, &upstream).await;

    match client.try_call("search_everything", json!({})).await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{client}: {error:?}");
            assert!(
                error.message.contains("search_everything"),
                "{client}: {error:?}"
            );
        }
        other => panic!("{client}: an unknown tool should be a protocol error, got {other:?}"),
    }
    client.close().await;
}

// --- The Python SDK -----------------------------------------------------------------------------

async fn lists_the_ten_tools_in_document_order(connection: Connection) {
    let upstream = Upstream::start().await;
    let out = support::probe(connection, &upstream, &["list"]).await;
    let [listed] = out.as_slice() else {
        panic!("{connection}: `list` prints one object, got {out:?}");
    };
    assert_eq!(
        listed["protocol_version"],
        connection.protocol.version().to_string(),
        "{connection}"
    );
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{connection}: no tools in {listed}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, TOOL_NAMES, "{connection}");
    // The SDK reports caching hints only for 2026-07-28, where the protocol has them.
    if connection.protocol == Protocol::V2026_07_28 {
        assert_eq!(listed["ttlMs"], TOOLS_TTL_MS, "{connection}");
        assert_eq!(listed["cacheScope"], "public", "{connection}");
    }
}

async fn creates_transitions_and_reads_back_an_issue(connection: Connection) {
    let upstream = Upstream::start().await;
    // The steps of a script cannot use each other's results, but every id is known in advance:
    // the new issue is API-7, and ids are derived from keys (see tests/tracker-api/src/seed.rs).
    let issue = issue_id("API-7");
    let start_progress = seed::transition_id(State::Open, State::InProgress).to_string();
    let new_issue = json!({ "project_id": project_id("API"), "title": "Python SDK smoke test" });
    let transition = json!({ "issue_id": issue, "transition_id": start_progress });
    let steps = json!([
        { "call": "create_issue", "args": new_issue },
        { "call": "list_transitions", "args": { "issue_id": issue } },
        { "call": "transition_issue", "args": transition },
        { "call": "get_issue", "args": { "issue_id": issue } },
    ]);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let script = dir.path().join("script.json");
    std::fs::write(&script, steps.to_string()).expect("the script is written");

    let out = support::probe(
        connection,
        &upstream,
        &["script", &script.to_string_lossy()],
    )
    .await;
    let [created, transitions, moved, fetched] = out.as_slice() else {
        panic!("{connection}: one result per step expected, got {out:#?}");
    };
    for (step, result) in out.iter().enumerate() {
        assert_eq!(
            result["isError"], false,
            "{connection}: step {step}: {result}"
        );
    }
    // A write whose reply is not its request body sent back (the new issue, the moved issue)
    // answers structured, with the same JSON as text for clients that read only text.
    for write in [created, moved] {
        assert_eq!(
            write["structuredContent"],
            reply_text(write),
            "{connection}: the text block is the structured answer: {write}"
        );
    }
    let created = &created["structuredContent"];
    let moved = &moved["structuredContent"];
    assert_eq!(created["key"], "API-7", "{connection}: {created}");
    assert_eq!(created["id"], issue.as_str(), "{connection}");
    assert_eq!(created["state"], 1, "{connection}");
    let offered = items(&transitions["structuredContent"])
        .iter()
        .any(|transition| {
            transition["id"] == start_progress.as_str() && transition["to_state"] == 2
        });
    assert!(
        offered,
        "{connection}: `Start progress` is offered: {transitions}"
    );
    assert_eq!(moved["state"], 2, "{connection}: {moved}");
    assert_eq!(
        fetched["structuredContent"]["key"], "API-7",
        "{connection}: {fetched}"
    );
    assert_eq!(
        fetched["structuredContent"]["state"], 2,
        "{connection}: {fetched}"
    );

    let stored = upstream.get_ok("/v2/issues/by-key/API-7").await;
    assert_eq!(
        stored["state"], 2,
        "{connection}: the API has API-7 in progress"
    );
    assert_eq!(stored, fetched["structuredContent"], "{connection}");
}

/// The API's JSON reply that a tool without an output schema sends as its text content.
fn reply_text(result: &Value) -> Value {
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content in {result}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("the text is not JSON ({e}): {text}"))
}

// --- The tests ----------------------------------------------------------------------------------

/// For each connection, a module with one test per scenario: `MODULE::SCENARIO` runs
/// `SCENARIO(connection)` (see `support::run`).
macro_rules! scenario_tests {
    ($scenarios:tt for $($module:ident: $transport:ident, $protocol:ident;)*) => {
        $( scenario_tests!(@module $module, $transport, $protocol, $scenarios); )*
    };
    (@module $module:ident, $transport:ident, $protocol:ident, [$($scenario:ident),* $(,)?]) => {
        mod $module {
            use super::{Connection, Protocol, Transport, support};
            $(
                #[test]
                fn $scenario() {
                    let connection = Connection {
                        transport: Transport::$transport,
                        protocol: Protocol::$protocol,
                    };
                    support::run(|| super::$scenario(connection));
                }
            )*
        }
    };
}

scenario_tests! {
    [
        lists_the_ten_tools_in_document_order_with_their_hints,
        list_projects_returns_the_apis_projects,
        list_issues_returns_the_newest_twenty_and_filters_by_state,
        create_issue_makes_the_next_key_in_the_api,
        transition_issue_changes_the_state_in_the_api,
        bad_arguments_are_tool_errors_that_name_the_argument,
        an_unknown_project_is_a_tool_error_with_the_apis_404_message,
        an_unknown_tool_is_a_protocol_error,
    ] for
    rmcp_stdio_2025_11_25: Stdio, V2025_11_25;
    rmcp_stdio_2026_07_28: Stdio, V2026_07_28;
    rmcp_http_2025_11_25: Http, V2025_11_25;
    rmcp_http_2026_07_28: Http, V2026_07_28;
}

scenario_tests! {
    [
        lists_the_ten_tools_in_document_order,
        creates_transitions_and_reads_back_an_issue,
    ] for
    python_stdio_legacy: Stdio, V2025_11_25;
    python_stdio_2026_07_28: Stdio, V2026_07_28;
    python_http_legacy: Http, V2025_11_25;
    python_http_2026_07_28: Http, V2026_07_28;
}
