//! End to end for the curated server: the committed crate `generated-examples/tracker-mcp`
//! (mcpgen's output for `specs/tracker/openapi.yaml` with `specs/tracker/mcpgen.yaml`, kept fresh
//! by `tests/suite/golden.rs`), built once per test process, in front of the real tracker API
//! (`tests/tracker-api`, served in-process on a loopback port, fresh for every test), with alice's
//! token as the server's own (`TRACKER_TOKEN=alice-token`).
//!
//! Each scenario runs over stdio and over Streamable HTTP, in both protocol generations: 2025-11-25
//! (the `initialize` handshake) and 2026-07-28 (`server/discover`, stateless requests). rmcp's
//! client runs every tool scenario; the Python SDK (through `tests/support/mcp_probe.py`) lists
//! the tools and runs a search–create–change session. Tests are named
//! `CLIENT_TRANSPORT_VERSION::BEHAVIOUR`. What the server did is checked against the API itself,
//! over HTTP with alice's token, not through the server under test; the expected results are
//! mapped from the API's own codes and ids here, independently of the server's mapping.
//!
//! `token_passthrough::*` sends the server a client's `Authorization: Bearer bob-token` and checks
//! that the API still sees alice (or, with no server token, nobody);
//! `missing_server_token::*` checks what the model is told when the server has no token, and
//! `refused_server_token::*` when the API refuses the one it has.
//!
//! The Python tests need `MCPGEN_TEST_PYTHON` (set by `scripts/test`) and fail without it.

use std::collections::{BTreeSet, HashMap};

use rmcp::ServiceError;
use rmcp::model::{CacheScope, CallToolResult, ErrorCode, ListToolsResult, Tool};
use serde_json::{Map, Value, json};
use tracker_api::seed;

use crate::support;
use crate::support::{
    Connection, HttpServer, McpClient, Protocol, Server, Transport, Upstream, error_text,
    structured, texts,
};

/// The server under test.
const SERVER: Server = Server::Curated;

/// The three curated tools, in the order of the curation file.
const TOOL_NAMES: [&str; 3] = [
    "tracker_search_issues",
    "tracker_create_issue",
    "tracker_change_issue_status",
];

/// How long clients may cache `tools/list`: `tools_list_ttl_seconds: 3600`.
const TOOLS_TTL_MS: u64 = 3_600_000;

/// The `truncated_message` of `tracker_search_issues` in `specs/tracker/mcpgen.yaml`.
const TRUNCATION_GUIDANCE: &str = "More issues match than were returned. Narrow the search with \
                                   status, assignee or query instead of raising the limit.";

/// The readable names of the API's state codes (`enums.issue_status`).
const STATUSES: [(i64, &str); 3] = [(1, "open"), (2, "in_progress"), (3, "done")];

/// The readable names of the API's priority codes (`enums.priority`).
const PRIORITIES: [(i64, &str); 3] = [(1, "low"), (2, "medium"), (3, "high")];

/// The usernames of the API's users.
const USERNAMES: [&str; 3] = ["alice", "bob", "carol"];

/// When the API's logical clock stamps the first and second change of a fresh API
/// (2026-02-01T00:00:00Z plus one minute per change; see tests/tracker-api/src/store.rs).
const FIRST_CHANGE_AT: &str = "2026-02-01T00:01:00Z";
const SECOND_CHANGE_AT: &str = "2026-02-01T00:02:00Z";

// --- Helpers ------------------------------------------------------------------------------------

fn project_id(key: &str) -> String {
    seed::project_id(key).to_string()
}

fn user_id(username: &str) -> String {
    seed::user_id(username).to_string()
}

/// `WEB-{from}`, `WEB-{from - 1}`, … `WEB-{to}`: newest first.
fn web_keys_down(from: u32, to: u32) -> Vec<String> {
    (to..=from).rev().map(|n| format!("WEB-{n}")).collect()
}

/// The tool definitions of `tests/acceptance/article-tools.json`: the article's "after the
/// redesign" list.
fn article_tools() -> Vec<Value> {
    let path = support::repo().join("tests/acceptance/article-tools.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let Value::Array(tools) = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
    else {
        panic!("{} is not a list of tools", path.display());
    };
    tools
}

/// Checks listed tool definitions (as JSON, as on the wire) against the article's: exactly its
/// three tools, in its order, equal in name, title, description, inputSchema and annotations, and
/// for the search tool in outputSchema too.
fn assert_tools_are_the_articles(what: &str, listed: &[Value]) {
    let names: Vec<&str> = listed
        .iter()
        .map(|tool| tool["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, TOOL_NAMES, "{what}: the tool names");
    for (expected, actual) in article_tools().iter().zip(listed) {
        let name = &expected["name"];
        for field in ["name", "title", "description", "inputSchema", "annotations"] {
            assert_eq!(
                actual.get(field),
                expected.get(field),
                "{what}: {field} of {name}"
            );
        }
        if name == "tracker_search_issues" {
            assert_eq!(
                actual.get("outputSchema"),
                expected.get("outputSchema"),
                "{what}: outputSchema of {name}"
            );
        }
    }
}

fn tool_json(tool: &Tool) -> Value {
    serde_json::to_value(tool).expect("a tool serializes")
}

/// Checks `structuredContent` against the outputSchema the server lists for `tool`.
fn assert_matches_output_schema(what: &str, listed: &ListToolsResult, tool: &str, value: &Value) {
    let definition = listed
        .tools
        .iter()
        .find(|listed| listed.name == tool)
        .unwrap_or_else(|| panic!("{what}: no tool {tool}"));
    let schema = definition
        .output_schema
        .as_ref()
        .unwrap_or_else(|| panic!("{what}: {tool} has no outputSchema"));
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&Value::Object(schema.as_ref().clone()))
        .unwrap_or_else(|e| panic!("{what}: the outputSchema of {tool} does not compile: {e}"));
    let violations: Vec<String> = validator
        .iter_errors(value)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect();
    assert!(
        violations.is_empty(),
        "{what}: the structuredContent of {tool} breaks its outputSchema: {violations:#?}\n{value}"
    );
}

fn name_of(codes: &[(i64, &'static str)], code: &Value) -> &'static str {
    codes
        .iter()
        .find(|(known, _)| code.as_i64() == Some(*known))
        .map(|(_, name)| *name)
        .unwrap_or_else(|| panic!("the API sent an unknown code {code}"))
}

/// The API's users, id → username, as the API lists them.
async fn usernames_by_id(upstream: &Upstream) -> HashMap<String, String> {
    let users = upstream.get_ok("/v2/users?per_page=50").await;
    users["items"]
        .as_array()
        .unwrap_or_else(|| panic!("no users in {users}"))
        .iter()
        .map(|user| {
            (
                user["id"].as_str().unwrap().to_owned(),
                user["username"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// What the search tool should return for one issue of the API, mapped here from the API's own
/// fields: the concise fields (`key`, `title`, `status`, and `assignee` when someone is
/// assigned), and when `detailed` also `description`, `priority`, `labels`, `reporter`,
/// `created_at` and `updated_at`.
fn expected_issue(issue: &Value, users: &HashMap<String, String>, detailed: bool) -> Value {
    let username = |id: &Value| -> Value {
        let id = id.as_str().unwrap_or_else(|| panic!("not an id: {id}"));
        json!(users.get(id).unwrap_or_else(|| panic!("no user {id}")))
    };
    let mut shaped = Map::new();
    shaped.insert("key".into(), issue["key"].clone());
    shaped.insert("title".into(), issue["title"].clone());
    shaped.insert("status".into(), json!(name_of(&STATUSES, &issue["state"])));
    if !issue["assignee_id"].is_null() {
        shaped.insert("assignee".into(), username(&issue["assignee_id"]));
    }
    if detailed {
        shaped.insert("description".into(), issue["description"].clone());
        shaped.insert(
            "priority".into(),
            json!(name_of(&PRIORITIES, &issue["priority"])),
        );
        shaped.insert("labels".into(), issue["labels"].clone());
        shaped.insert("reporter".into(), username(&issue["reporter_id"]));
        shaped.insert("created_at".into(), issue["created_at"].clone());
        shaped.insert("updated_at".into(), issue["updated_at"].clone());
    }
    Value::Object(shaped)
}

/// The items of an API page.
fn api_items(page: &Value) -> &Vec<Value> {
    page["items"]
        .as_array()
        .unwrap_or_else(|| panic!("no items in {page}"))
}

/// The `issues` of a search result.
fn issues(result: &Value) -> &Vec<Value> {
    result["issues"]
        .as_array()
        .unwrap_or_else(|| panic!("no issues in {result}"))
}

fn keys(result: &Value) -> Vec<&str> {
    issues(result)
        .iter()
        .map(|issue| {
            issue["key"]
                .as_str()
                .unwrap_or_else(|| panic!("no key in {issue}"))
        })
        .collect()
}

/// Checks that a search result reads like the curation promises: `PROJECT-N` keys, readable
/// statuses, usernames for people, and no id of the API anywhere.
fn assert_readable(what: &str, project: &str, result: &Value) {
    for issue in issues(result) {
        let key = issue["key"].as_str().unwrap_or_default();
        let number = key
            .strip_prefix(project)
            .and_then(|rest| rest.strip_prefix('-'))
            .and_then(|number| number.parse::<u32>().ok());
        assert!(
            number.is_some(),
            "{what}: {key:?} is not {project}-N: {issue}"
        );
        let status = issue["status"].as_str().unwrap_or_default();
        assert!(
            STATUSES.iter().any(|(_, name)| *name == status),
            "{what}: status {status:?} is not open, in_progress or done: {issue}"
        );
        for person in ["assignee", "reporter"] {
            if let Some(name) = issue.get(person) {
                assert!(
                    USERNAMES.iter().any(|username| name == username),
                    "{what}: {person} {name} is not a username: {issue}"
                );
            }
        }
    }
    let text = result.to_string();
    let ids = USERNAMES
        .iter()
        .map(|username| user_id(username))
        .chain(["WEB", "API", "MOBILE"].map(project_id));
    for id in ids {
        assert!(!text.contains(&id), "{what}: the result shows the id {id}");
    }
}

/// The text content blocks of a search result: the JSON copy of `structuredContent`, then the
/// truncation guidance when (and only when) the result is truncated.
fn assert_text_blocks(what: &str, result: &CallToolResult, truncated: bool) {
    let blocks = texts(result);
    let content = structured(result);
    let copy: Value = blocks
        .first()
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or_else(|| panic!("{what}: the first text block is not JSON: {blocks:?}"));
    assert_eq!(
        &copy, content,
        "{what}: the first text block is structuredContent"
    );
    if truncated {
        assert_eq!(
            blocks.len(),
            2,
            "{what}: a truncated result has a second text block: {blocks:?}"
        );
        assert_eq!(blocks[1], TRUNCATION_GUIDANCE, "{what}: the guidance");
    } else {
        assert_eq!(
            blocks.len(),
            1,
            "{what}: a complete result has no guidance: {blocks:?}"
        );
    }
}

/// Every issue key of a project, as the API lists them (all pages).
async fn api_keys(upstream: &Upstream, project: &str) -> BTreeSet<String> {
    let id = project_id(project);
    let mut keys = BTreeSet::new();
    for page in 1.. {
        let body = upstream
            .get_ok(&format!("/v2/projects/{id}/issues?per_page=50&page={page}"))
            .await;
        let items = api_items(&body);
        keys.extend(
            items
                .iter()
                .map(|issue| issue["key"].as_str().unwrap().to_owned()),
        );
        let total = body["total"].as_u64().unwrap() as usize;
        if items.is_empty() || keys.len() >= total {
            assert_eq!(keys.len(), total, "{project}: the API's total");
            break;
        }
        assert!(page < 10, "{project}: the API pages do not end");
    }
    keys
}

fn numbered_keys(project: &str, count: u32) -> BTreeSet<String> {
    (1..=count).map(|n| format!("{project}-{n}")).collect()
}

// --- rmcp's client ------------------------------------------------------------------------------

async fn lists_exactly_the_three_tools_of_the_article(connection: Connection) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect_to(SERVER, connection, &upstream).await;
    let listed = client.list_tools().await;

    let definitions: Vec<Value> = listed.tools.iter().map(tool_json).collect();
    assert_tools_are_the_articles(&client.to_string(), &definitions);
    // Caching hints are part of 2026-07-28; a 2025-11-25 client has no use for them.
    if connection.protocol == Protocol::V2026_07_28 {
        assert_eq!(listed.ttl_ms, Some(TOOLS_TTL_MS), "{client}: ttlMs");
        assert_eq!(
            listed.cache_scope,
            Some(CacheScope::Public),
            "{client}: cacheScope"
        );
    }
    client.close().await;
}

async fn search_walks_the_api_for_the_newest_twenty_readable_issues_and_says_more_match(
    connection: Connection,
) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect_to(SERVER, connection, &upstream).await;
    let what = client.to_string();

    let result = client
        .call("tracker_search_issues", json!({ "project": "WEB" }))
        .await;
    let found = structured(&result);
    assert_eq!(issues(found).len(), 20, "{what}: the default limit is 20");
    assert_eq!(found["truncated"], true, "{what}: WEB has 130 issues");
    assert_eq!(keys(found), web_keys_down(130, 111), "{what}: newest first");
    assert_readable(&what, "WEB", found);

    let users = usernames_by_id(&upstream).await;
    let page = upstream
        .get_ok(&format!(
            "/v2/projects/{}/issues?per_page=20",
            project_id("WEB")
        ))
        .await;
    let expected: Vec<Value> = api_items(&page)
        .iter()
        .map(|issue| expected_issue(issue, &users, false))
        .collect();
    assert_eq!(
        found,
        &json!({ "issues": expected, "truncated": true }),
        "{what}: the API's newest 20 issues, mapped to keys, statuses and usernames"
    );
    assert!(
        issues(found)
            .iter()
            .any(|issue| issue.get("assignee").is_none()),
        "{what}: an issue nobody is assigned to has no assignee field"
    );

    assert_text_blocks(&what, &result, true);
    let listed = client.list_tools().await;
    assert_matches_output_schema(&what, &listed, "tracker_search_issues", found);
    client.close().await;
}

async fn detailed_search_returns_fifty_issues_with_every_field_newest_first(
    connection: Connection,
) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect_to(SERVER, connection, &upstream).await;
    let what = client.to_string();

    let result = client
        .call(
            "tracker_search_issues",
            json!({ "project": "WEB", "limit": 50, "response_format": "detailed" }),
        )
        .await;
    let found = structured(&result);
    assert_eq!(
        keys(found),
        web_keys_down(130, 81),
        "{what}: 50 issues, newest first"
    );
    assert_eq!(found["truncated"], true, "{what}: WEB has 130 issues");
    assert_readable(&what, "WEB", found);

    let users = usernames_by_id(&upstream).await;
    let page = upstream
        .get_ok(&format!(
            "/v2/projects/{}/issues?per_page=50",
            project_id("WEB")
        ))
        .await;
    for (issue, api_issue) in issues(found).iter().zip(api_items(&page)) {
        let concise = expected_issue(api_issue, &users, false);
        let fields = issue.as_object().unwrap();
        assert!(
            fields.len() > concise.as_object().unwrap().len(),
            "{what}: a detailed issue has more fields than a concise one: {issue}"
        );
        for field in [
            "description",
            "priority",
            "labels",
            "reporter",
            "created_at",
        ] {
            assert!(
                fields.contains_key(field),
                "{what}: a detailed issue has {field}: {issue}"
            );
        }
        assert!(
            PRIORITIES
                .iter()
                .any(|(_, name)| issue["priority"] == *name),
            "{what}: priority is low, medium or high: {issue}"
        );
    }
    let expected: Vec<Value> = api_items(&page)
        .iter()
        .map(|issue| expected_issue(issue, &users, true))
        .collect();
    assert_eq!(
        found,
        &json!({ "issues": expected, "truncated": true }),
        "{what}: the API's newest 50 issues with every detailed field, mapped"
    );

    assert_text_blocks(&what, &result, true);
    let listed = client.list_tools().await;
    assert_matches_output_schema(&what, &listed, "tracker_search_issues", found);
    client.close().await;
}

async fn searching_my_open_issues_returns_exactly_alices_fourteen(connection: Connection) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect_to(SERVER, connection, &upstream).await;
    let what = client.to_string();

    let result = client
        .call(
            "tracker_search_issues",
            json!({ "project": "WEB", "assignee": "me", "status": "open" }),
        )
        .await;
    let found = structured(&result);
    assert_eq!(
        issues(found).len(),
        14,
        "{what}: alice has 14 open WEB issues"
    );
    assert_eq!(found["truncated"], false, "{what}: all 14 fit the limit");
    for issue in issues(found) {
        assert_eq!(issue["assignee"], "alice", "{what}: {issue}");
        assert_eq!(issue["status"], "open", "{what}: {issue}");
    }
    // The seed: WEB-N is alice's when N % 4 == 1, and open when N % 5 is 0 or 1.
    let seeded: Vec<String> = (1..=130u32)
        .rev()
        .filter(|n| n % 4 == 1 && n % 5 <= 1)
        .map(|n| format!("WEB-{n}"))
        .collect();
    assert_eq!(keys(found), seeded, "{what}: newest first");

    let users = usernames_by_id(&upstream).await;
    let page = upstream
        .get_ok(&format!(
            "/v2/projects/{}/issues?state=1&assignee_id={}&per_page=50",
            project_id("WEB"),
            user_id("alice")
        ))
        .await;
    assert_eq!(page["total"], 14, "the API agrees: {page}");
    let expected: Vec<Value> = api_items(&page)
        .iter()
        .map(|issue| expected_issue(issue, &users, false))
        .collect();
    assert_eq!(
        found,
        &json!({ "issues": expected, "truncated": false }),
        "{what}: what the API has for state 1 and alice's id"
    );
    assert_text_blocks(&what, &result, false);
    client.close().await;
}

async fn bad_search_arguments_are_tool_errors_that_say_how_to_fix_them(connection: Connection) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect_to(SERVER, connection, &upstream).await;
    let what = client.to_string();

    // An unknown project: the error lists the keys there are and tells the model to call again
    // with one of them.
    let result = client
        .call("tracker_search_issues", json!({ "project": "WEBB" }))
        .await;
    let text = error_text(&result);
    assert!(
        text.contains("WEBB"),
        "{what}: the wrong key is quoted: {text}"
    );
    let others = text.replace("WEBB", "");
    for key in ["WEB", "API", "MOBILE"] {
        assert!(
            others.contains(key),
            "{what}: the key {key} is offered: {text}"
        );
    }
    assert!(
        text.contains("again") && text.contains("project"),
        "{what}: the model is told to call again with one of them in `project`: {text}"
    );

    // Each case: the arguments, and what the error text must contain.
    let cases = [
        (
            json!({ "project": "WEB", "status": "closed" }),
            vec!["status", "closed", "open", "in_progress", "done"],
        ),
        (
            json!({ "project": "WEB", "limit": 80 }),
            vec!["limit", "80", "50"],
        ),
        (json!({ "project": "WEB", "colour": "red" }), vec!["colour"]),
    ];
    for (arguments, expected) in cases {
        let result = client
            .call("tracker_search_issues", arguments.clone())
            .await;
        let text = error_text(&result);
        for part in expected {
            assert!(
                text.contains(part),
                "{what}: tracker_search_issues {arguments} should fail naming {part:?}, got: {text}"
            );
        }
    }
    client.close().await;
}

async fn create_issue_makes_the_next_key_with_a_readable_priority_reported_by_alice(
    connection: Connection,
) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect_to(SERVER, connection, &upstream).await;
    let what = client.to_string();

    let title = "Rate limit headers missing on 503 responses";
    let description = "Clients cannot tell when to retry.";
    let result = client
        .call(
            "tracker_create_issue",
            json!({
                "project": "API",
                "title": title,
                "description": description,
                "priority": "high",
            }),
        )
        .await;
    let created = structured(&result);
    assert_eq!(
        created,
        &json!({ "key": "API-7", "title": title, "status": "open", "priority": "high" }),
        "{what}"
    );
    let listed = client.list_tools().await;
    assert_matches_output_schema(&what, &listed, "tracker_create_issue", created);

    let stored = upstream.get_ok("/v2/issues/by-key/API-7").await;
    assert_eq!(stored["project_id"], project_id("API"), "{what}: {stored}");
    assert_eq!(stored["title"], title, "{what}: {stored}");
    assert_eq!(stored["description"], description, "{what}: {stored}");
    assert_eq!(stored["priority"], 3, "{what}: high is code 3: {stored}");
    assert_eq!(stored["state"], 1, "{what}: a new issue is open: {stored}");
    assert_eq!(
        stored["reporter_id"],
        user_id("alice"),
        "{what}: the server acts with its own token, alice's: {stored}"
    );
    client.close().await;
}

async fn change_issue_status_moves_the_issue_and_repeating_it_changes_nothing(
    connection: Connection,
) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect_to(SERVER, connection, &upstream).await;
    let what = client.to_string();
    let listed = client.list_tools().await;
    // WEB-1 starts open (seed: WEB-N is open when N % 5 is 0 or 1).
    let before = upstream.get_ok("/v2/issues/by-key/WEB-1").await;
    assert_eq!(before["state"], 1, "WEB-1 is seeded open: {before}");
    let title = before["title"].clone();
    let to_progress = json!({ "issue": "WEB-1", "status": "in_progress" });

    let result = client
        .call("tracker_change_issue_status", to_progress.clone())
        .await;
    let moved = structured(&result).clone();
    assert_eq!(
        moved,
        json!({ "key": "WEB-1", "title": title, "status": "in_progress" }),
        "{what}"
    );
    assert_matches_output_schema(&what, &listed, "tracker_change_issue_status", &moved);
    let after_move = upstream.get_ok("/v2/issues/by-key/WEB-1").await;
    assert_eq!(
        after_move["state"], 2,
        "{what}: the API has WEB-1 in progress"
    );
    assert_eq!(
        after_move["updated_at"], FIRST_CHANGE_AT,
        "{what}: one transition was posted: {after_move}"
    );

    let result = client
        .call("tracker_change_issue_status", to_progress.clone())
        .await;
    assert_eq!(
        structured(&result),
        &moved,
        "{what}: repeating the call gives the same result"
    );
    assert_eq!(
        texts(&result).last().map(String::as_str),
        Some("Issue WEB-1 already has status in_progress; nothing changed."),
        "{what}: a call that changed nothing says so and why"
    );
    let after_repeat = upstream.get_ok("/v2/issues/by-key/WEB-1").await;
    assert_eq!(
        after_repeat, after_move,
        "{what}: repeating the call posts no transition (updated_at is unchanged)"
    );

    let result = client
        .call(
            "tracker_change_issue_status",
            json!({ "issue": "WEB-1", "status": "done" }),
        )
        .await;
    assert_eq!(
        structured(&result),
        &json!({ "key": "WEB-1", "title": title, "status": "done" }),
        "{what}"
    );
    let done = upstream.get_ok("/v2/issues/by-key/WEB-1").await;
    assert_eq!(done["state"], 3, "{what}: the API has WEB-1 done: {done}");
    assert_eq!(
        done["updated_at"], SECOND_CHANGE_AT,
        "{what}: exactly two transitions were posted in all: {done}"
    );

    let result = client
        .call(
            "tracker_change_issue_status",
            json!({ "issue": "WEB-9999", "status": "done" }),
        )
        .await;
    let text = error_text(&result);
    assert!(
        text.contains("WEB-9999") && text.to_lowercase().contains("not found"),
        "{what}: the error says the issue was not found: {text}"
    );
    client.close().await;
}

async fn no_tool_deletes_and_every_issue_survives_a_session(connection: Connection) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect_to(SERVER, connection, &upstream).await;
    let what = client.to_string();

    let listed = client.list_tools().await;
    for tool in &listed.tools {
        let offers = |text: &str| {
            let text = text.to_lowercase();
            ["delet", "remov", "destroy", "purge", "archiv"]
                .iter()
                .any(|word| text.contains(word))
        };
        let description = tool.description.as_deref().unwrap_or_default();
        assert!(
            !offers(&tool.name) && !offers(description),
            "{what}: {} offers deletion: {description}",
            tool.name
        );
    }
    match client
        .try_call("tracker_delete_issue", json!({ "issue": "WEB-1" }))
        .await
    {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{what}: {error:?}");
        }
        other => panic!("{what}: tracker_delete_issue should be an unknown tool, got {other:?}"),
    }

    // A session that uses every tool, with good and bad arguments.
    let calls = [
        ("tracker_search_issues", json!({ "project": "WEB" })),
        (
            "tracker_search_issues",
            json!({ "project": "API", "response_format": "detailed" }),
        ),
        ("tracker_search_issues", json!({ "project": "WEBB" })),
        (
            "tracker_create_issue",
            json!({ "project": "API", "title": "Survivor check" }),
        ),
        (
            "tracker_change_issue_status",
            json!({ "issue": "WEB-1", "status": "done" }),
        ),
        (
            "tracker_change_issue_status",
            json!({ "issue": "WEB-4", "status": "open" }),
        ),
        (
            "tracker_change_issue_status",
            json!({ "issue": "MOBILE-1", "status": "done" }),
        ),
        (
            "tracker_change_issue_status",
            json!({ "issue": "WEB-9999", "status": "done" }),
        ),
    ];
    for (tool, arguments) in calls {
        client.call(tool, arguments).await;
    }

    assert_eq!(
        api_keys(&upstream, "WEB").await,
        numbered_keys("WEB", 130),
        "{what}: every WEB issue is still there"
    );
    assert_eq!(
        api_keys(&upstream, "API").await,
        numbered_keys("API", 7),
        "{what}: every API issue is still there, and the created API-7"
    );
    assert_eq!(
        api_keys(&upstream, "MOBILE").await,
        numbered_keys("MOBILE", 4),
        "{what}: every MOBILE issue is still there"
    );
    client.close().await;
}

// --- Token passthrough --------------------------------------------------------------------------

/// Calls `tool` with a raw, self-contained 2026-07-28 `tools/call` POST, with the headers a
/// 2026-07-28 client sends and, when given, `Authorization: {authorization}`; returns the HTTP
/// status and the JSON-RPC response.
async fn raw_tools_call(
    url: &str,
    tool: &str,
    arguments: Value,
    authorization: Option<&str>,
) -> (u16, Value) {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "curated-e2e", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let request = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": { "name": tool, "arguments": arguments, "_meta": meta },
    });
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool),
    ];
    if let Some(authorization) = authorization {
        headers.push(("Authorization", authorization));
    }
    support::post_mcp(url, &headers, &request).await
}

/// `tracker_create_issue` in API, sent raw with bob's token.
async fn create_with_bobs_token(url: &str) -> (u16, Value) {
    raw_tools_call(
        url,
        "tracker_create_issue",
        json!({ "project": "API", "title": "Filed with bob's token" }),
        Some("Bearer bob-token"),
    )
    .await
}

async fn a_raw_request_with_bobs_token_creates_the_issue_as_alice() {
    let upstream = Upstream::start().await;
    let server = HttpServer::start_server(SERVER, &upstream).await;

    let (status, response) = create_with_bobs_token(server.url()).await;
    assert_eq!(status, 200, "the request is served: {response}");
    let result = &response["result"];
    assert_ne!(result["isError"], true, "the call succeeds: {response}");
    assert_eq!(
        result["structuredContent"]["key"], "API-7",
        "the issue is created: {response}"
    );
    let stored = upstream.get_ok("/v2/issues/by-key/API-7").await;
    assert_eq!(
        stored["reporter_id"],
        user_id("alice"),
        "the API saw the server's token (alice's), not the client's (bob's): {stored}"
    );
}

async fn a_raw_request_with_bobs_token_creates_nothing_when_the_server_has_no_token() {
    let upstream = Upstream::start().await;
    let server = HttpServer::start_server_with_token(SERVER, &upstream, None).await;

    let (status, response) = create_with_bobs_token(server.url()).await;
    assert_eq!(status, 200, "the request is served: {response}");
    assert_eq!(
        response["result"]["isError"], true,
        "without a token of its own the server cannot create issues, whoever the client is: \
         {response}"
    );
    let (status, _) = upstream.get("/v2/issues/by-key/API-7").await;
    assert_eq!(status, 404, "no issue was created with bob's token");
}

/// The curation's `errors: 401:` message, which is for every tool.
const CURATED_401: &str = "The tracker refused the server's credentials. The user must set \
                           TRACKER_TOKEN to a valid token and restart the server; calling again \
                           will not help.";

/// What each tool answers, as text, when called once with readable arguments.
async fn every_tools_refusal(server: &HttpServer) -> Vec<(String, String)> {
    let calls = [
        ("tracker_search_issues", json!({ "project": "WEB" })),
        (
            "tracker_create_issue",
            json!({ "project": "API", "title": "No token" }),
        ),
        (
            "tracker_change_issue_status",
            json!({ "issue": "WEB-1", "status": "done" }),
        ),
    ];
    let mut answers = Vec::new();
    for (tool, arguments) in calls {
        let (status, response) = raw_tools_call(server.url(), tool, arguments.clone(), None).await;
        assert_eq!(status, 200, "{tool}: the request is served: {response}");
        let result = &response["result"];
        assert_eq!(result["isError"], true, "{tool}: {response}");
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        answers.push((format!("{tool} {arguments}"), text.to_owned()));
    }
    answers
}

async fn every_tool_gives_the_curated_401_message_with_a_token_the_api_refuses() {
    let upstream = Upstream::start().await;
    let server =
        HttpServer::start_server_with_token(SERVER, &upstream, Some("revoked-token")).await;

    let wrong: Vec<String> = every_tools_refusal(&server)
        .await
        .into_iter()
        .filter(|(_, text)| !text.contains(CURATED_401))
        .map(|(call, text)| format!("{call} answered: {text}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "every tool should answer the API's 401 with the curated message {CURATED_401:?}:\n{}",
        wrong.join("\n")
    );
}

async fn every_tool_says_no_credentials_were_sent_without_a_server_token() {
    let upstream = Upstream::start().await;
    let server = HttpServer::start_server_with_token(SERVER, &upstream, None).await;

    let wrong: Vec<String> = every_tools_refusal(&server)
        .await
        .into_iter()
        .filter(|(_, text)| {
            // The curated message would blame credentials the server never sent.
            !(text.contains("The server sent no credentials, since none are set")
                && text.contains("the user must set TRACKER_TOKEN")
                && !text.contains(CURATED_401))
        })
        .map(|(call, text)| format!("{call} answered: {text}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "without a token every tool should say none was sent and name TRACKER_TOKEN:\n{}",
        wrong.join("\n")
    );
}

async fn an_rmcp_client_with_bobs_token_creates_the_issue_as_alice(connection: Connection) {
    let upstream = Upstream::start().await;
    let client = McpClient::connect_with_bearer(SERVER, connection, &upstream, "bob-token").await;

    let result = client
        .call(
            "tracker_create_issue",
            json!({ "project": "API", "title": "Filed with bob's token" }),
        )
        .await;
    assert_eq!(structured(&result)["key"], "API-7", "{client}");
    let stored = upstream.get_ok("/v2/issues/by-key/API-7").await;
    assert_eq!(
        stored["reporter_id"],
        user_id("alice"),
        "{client}: the API saw the server's token (alice's), not the client's (bob's): {stored}"
    );
    client.close().await;
}

// --- The Python SDK -----------------------------------------------------------------------------

/// Runs `steps` (the `script` of `mcp_probe.py`) against a fresh server in front of `upstream`.
async fn probe_script(connection: Connection, upstream: &Upstream, steps: &Value) -> Vec<Value> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let script = dir.path().join("script.json");
    std::fs::write(&script, steps.to_string()).expect("the script is written");
    support::probe_with(
        SERVER,
        connection,
        upstream,
        &["script", &script.to_string_lossy()],
    )
    .await
}

async fn the_sdk_lists_the_three_tools_of_the_article(connection: Connection) {
    let upstream = Upstream::start().await;
    let out = support::probe_with(SERVER, connection, &upstream, &["list"]).await;
    let [listed] = out.as_slice() else {
        panic!("{connection}: `list` prints one object, got {out:?}");
    };
    assert_eq!(
        listed["protocol_version"],
        connection.protocol.version().to_string(),
        "{connection}"
    );
    let tools = listed["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{connection}: no tools in {listed}"));
    assert_tools_are_the_articles(&format!("Python SDK, {connection}"), tools);
    // The SDK reports caching hints only for 2026-07-28, where the protocol has them.
    if connection.protocol == Protocol::V2026_07_28 {
        assert_eq!(listed["ttlMs"], TOOLS_TTL_MS, "{connection}");
        assert_eq!(listed["cacheScope"], "public", "{connection}");
    }
}

async fn the_sdk_searches_creates_and_changes_a_status_twice(connection: Connection) {
    let upstream = Upstream::start().await;
    let title = "Python SDK smoke test";
    let to_progress = json!({ "issue": "API-7", "status": "in_progress" });
    let steps = json!([
        { "call": "tracker_search_issues", "args": { "project": "WEB" } },
        {
            "call": "tracker_create_issue",
            "args": { "project": "API", "title": title, "priority": "high" },
        },
        { "call": "tracker_change_issue_status", "args": to_progress },
        { "call": "tracker_change_issue_status", "args": to_progress },
    ]);
    let out = probe_script(connection, &upstream, &steps).await;
    let [searched, created, moved, repeated] = out.as_slice() else {
        panic!("{connection}: one result per step expected, got {out:#?}");
    };
    for (step, result) in out.iter().enumerate() {
        assert_eq!(
            result["isError"], false,
            "{connection}: step {step}: {result}"
        );
    }

    let found = &searched["structuredContent"];
    assert_eq!(
        keys(found),
        web_keys_down(130, 111),
        "{connection}: {found}"
    );
    assert_eq!(found["truncated"], true, "{connection}");
    assert_readable(&connection.to_string(), "WEB", found);
    let blocks: Vec<&str> = searched["content"]
        .as_array()
        .unwrap_or_else(|| panic!("{connection}: no content in {searched}"))
        .iter()
        .map(|block| block["text"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        blocks.get(1),
        Some(&TRUNCATION_GUIDANCE),
        "{connection}: the truncation guidance is the second text block: {blocks:?}"
    );

    assert_eq!(
        created["structuredContent"],
        json!({ "key": "API-7", "title": title, "status": "open", "priority": "high" }),
        "{connection}"
    );
    let expected_move = json!({ "key": "API-7", "title": title, "status": "in_progress" });
    assert_eq!(moved["structuredContent"], expected_move, "{connection}");
    assert_eq!(
        repeated["structuredContent"], expected_move,
        "{connection}: the repeated change gives the same result"
    );

    let stored = upstream.get_ok("/v2/issues/by-key/API-7").await;
    assert_eq!(stored["state"], 2, "{connection}: {stored}");
    assert_eq!(stored["priority"], 3, "{connection}: {stored}");
    assert_eq!(stored["reporter_id"], user_id("alice"), "{connection}");
    // Created at the first change of the fresh API, moved at the second; the repeat made none.
    assert_eq!(stored["created_at"], FIRST_CHANGE_AT, "{connection}");
    assert_eq!(
        stored["updated_at"], SECOND_CHANGE_AT,
        "{connection}: the repeated change posted no transition: {stored}"
    );
}

// --- The tests ----------------------------------------------------------------------------------

/// For each connection, a module with one test per scenario: `MODULE::SCENARIO` runs
/// `SCENARIO(connection)` against the curated server (see `support::run_with`).
macro_rules! scenario_tests {
    ($scenarios:tt for $($module:ident: $transport:ident, $protocol:ident;)*) => {
        $( scenario_tests!(@module $module, $transport, $protocol, $scenarios); )*
    };
    (@module $module:ident, $transport:ident, $protocol:ident, [$($scenario:ident),* $(,)?]) => {
        mod $module {
            use super::{Connection, Protocol, SERVER, Transport, support};
            $(
                #[test]
                fn $scenario() {
                    let connection = Connection {
                        transport: Transport::$transport,
                        protocol: Protocol::$protocol,
                    };
                    support::run_with(SERVER, || super::$scenario(connection));
                }
            )*
        }
    };
}

scenario_tests! {
    [
        lists_exactly_the_three_tools_of_the_article,
        search_walks_the_api_for_the_newest_twenty_readable_issues_and_says_more_match,
        detailed_search_returns_fifty_issues_with_every_field_newest_first,
        searching_my_open_issues_returns_exactly_alices_fourteen,
        bad_search_arguments_are_tool_errors_that_say_how_to_fix_them,
        create_issue_makes_the_next_key_with_a_readable_priority_reported_by_alice,
        change_issue_status_moves_the_issue_and_repeating_it_changes_nothing,
        no_tool_deletes_and_every_issue_survives_a_session,
    ] for
    rmcp_stdio_2025_11_25: Stdio, V2025_11_25;
    rmcp_stdio_2026_07_28: Stdio, V2026_07_28;
    rmcp_http_2025_11_25: Http, V2025_11_25;
    rmcp_http_2026_07_28: Http, V2026_07_28;
}

scenario_tests! {
    [
        the_sdk_lists_the_three_tools_of_the_article,
        the_sdk_searches_creates_and_changes_a_status_twice,
    ] for
    python_stdio_legacy: Stdio, V2025_11_25;
    python_stdio_2026_07_28: Stdio, V2026_07_28;
    python_http_legacy: Http, V2025_11_25;
    python_http_2026_07_28: Http, V2026_07_28;
}

/// A client's own credentials never reach the API: the server calls it only with its own token.
mod token_passthrough {
    use super::{Connection, Protocol, SERVER, Transport, support};

    #[test]
    fn raw_http_2026_07_28_request_with_bobs_token_creates_the_issue_as_alice() {
        support::run_with(
            SERVER,
            super::a_raw_request_with_bobs_token_creates_the_issue_as_alice,
        );
    }

    #[test]
    fn raw_http_2026_07_28_request_with_bobs_token_creates_nothing_when_the_server_has_no_token() {
        support::run_with(
            SERVER,
            super::a_raw_request_with_bobs_token_creates_nothing_when_the_server_has_no_token,
        );
    }

    #[test]
    fn rmcp_http_2025_11_25_client_with_bobs_token_creates_the_issue_as_alice() {
        let connection = Connection {
            transport: Transport::Http,
            protocol: Protocol::V2025_11_25,
        };
        support::run_with(SERVER, || {
            super::an_rmcp_client_with_bobs_token_creates_the_issue_as_alice(connection)
        });
    }

    #[test]
    fn rmcp_http_2026_07_28_client_with_bobs_token_creates_the_issue_as_alice() {
        let connection = Connection {
            transport: Transport::Http,
            protocol: Protocol::V2026_07_28,
        };
        support::run_with(SERVER, || {
            super::an_rmcp_client_with_bobs_token_creates_the_issue_as_alice(connection)
        });
    }
}

/// A server started without its own token: what the model is told.
mod missing_server_token {
    use super::{SERVER, support};

    #[test]
    fn every_tool_says_no_credentials_were_sent() {
        support::run_with(
            SERVER,
            super::every_tool_says_no_credentials_were_sent_without_a_server_token,
        );
    }
}

/// A server whose token the API refuses: the curation's `errors: 401:` message.
mod refused_server_token {
    use super::{SERVER, support};

    #[test]
    fn every_tool_gives_the_curated_401_message() {
        support::run_with(
            SERVER,
            super::every_tool_gives_the_curated_401_message_with_a_token_the_api_refuses,
        );
    }
}
