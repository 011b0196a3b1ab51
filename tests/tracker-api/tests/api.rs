//! The tracker API against its own OpenAPI document (`specs/tracker/openapi.yaml`): every
//! test starts the real server on a free loopback port, calls operations over HTTP as the
//! document describes them, and has every response checked against the document's schema
//! for its status (see `support`). The tests then assert what the document promises.

mod support;

use std::collections::BTreeSet;

use serde_json::{Value, json};
use support::{Server, document};

/// A well-formed UUID that no resource has.
const UNKNOWN_ID: &str = "00000000-0000-4000-8000-000000000000";

/// The ten operations of the document, in document order.
const OPERATIONS: [&str; 10] = [
    "listProjects",
    "listUsers",
    "getCurrentUser",
    "listIssues",
    "createIssue",
    "getIssue",
    "deleteIssue",
    "getIssueByKey",
    "listTransitions",
    "transitionIssue",
];

fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value}"))
}

fn items(page: &Value) -> &Vec<Value> {
    page["items"]
        .as_array()
        .unwrap_or_else(|| panic!("no items: {page}"))
}

fn keys(issues: &[Value]) -> Vec<String> {
    issues
        .iter()
        .map(|issue| text(&issue["key"]).to_owned())
        .collect()
}

async fn project_id(server: &Server, key: &str) -> String {
    let page = server.call("listProjects").send().await.expect(200);
    items(&page)
        .iter()
        .find(|project| project["key"] == key)
        .map(|project| text(&project["id"]).to_owned())
        .unwrap_or_else(|| panic!("no project {key}"))
}

async fn user_id(server: &Server, username: &str) -> String {
    let page = server.call("listUsers").send().await.expect(200);
    items(&page)
        .iter()
        .find(|user| user["username"] == username)
        .map(|user| text(&user["id"]).to_owned())
        .unwrap_or_else(|| panic!("no user {username}"))
}

async fn issue_by_key(server: &Server, key: &str) -> Value {
    server
        .call("getIssueByKey")
        .path("issue_key", key)
        .send()
        .await
        .expect(200)
}

/// Every issue of a project matching the filters, walking all pages of 50; also returns
/// the `total` the first page reported.
async fn all_issues(
    server: &Server,
    project_id: &str,
    filters: &[(&str, &str)],
) -> (Vec<Value>, u64) {
    let mut issues = Vec::new();
    let mut total = None;
    for page_number in 1.. {
        let mut call = server
            .call("listIssues")
            .path("project_id", project_id)
            .query("page", page_number)
            .query("per_page", 50);
        for (name, value) in filters {
            call = call.query(name, value);
        }
        let page = call.send().await.expect(200);
        total.get_or_insert(page["total"].as_u64().unwrap_or_default());
        if items(&page).is_empty() {
            break;
        }
        issues.extend(items(&page).iter().cloned());
    }
    (issues, total.unwrap_or_default())
}

/// Sends an operation with placeholder parameters and body, as the given token (or none).
async fn call_any_operation(
    server: &Server,
    operation: &str,
    token: Option<&str>,
) -> support::Reply {
    let mut call = server.call(operation).token(token);
    for parameter in document().parameters(&document().operation(operation)) {
        if parameter["in"] == "path" {
            let name = text(&parameter["name"]);
            let value = if name == "issue_key" {
                "WEB-1"
            } else {
                UNKNOWN_ID
            };
            call = call.path(name, value);
        }
    }
    if document()
        .operation(operation)
        .spec
        .get("requestBody")
        .is_some()
    {
        call = call.json(json!({ "title": "x", "transition_id": UNKNOWN_ID }));
    }
    call.send().await
}

#[test]
fn document_declares_exactly_the_ten_tracker_operations_fully_described() {
    let doc = document();
    assert_eq!(doc.root()["openapi"], "3.0.3");
    assert_eq!(doc.root()["info"]["title"], "Tracker");
    assert_eq!(doc.root()["info"]["version"], "2.0.0");
    assert_eq!(doc.root()["security"], json!([{ "bearerAuth": [] }]));
    let ids: Vec<String> = doc.operations().into_iter().map(|op| op.id).collect();
    assert_eq!(ids, OPERATIONS);
    for operation in doc.operations() {
        for field in ["summary", "description"] {
            assert!(
                operation.spec[field]
                    .as_str()
                    .is_some_and(|s| !s.is_empty()),
                "{} has no {field}",
                operation.id
            );
        }
        assert!(
            operation.spec["tags"]
                .as_array()
                .is_some_and(|tags| !tags.is_empty()),
            "{} has no tags",
            operation.id
        );
        for parameter in doc.parameters(&operation) {
            assert!(
                parameter["description"]
                    .as_str()
                    .is_some_and(|s| !s.is_empty()),
                "{}: parameter {} has no description",
                operation.id,
                parameter["name"]
            );
        }
        let responses = operation.spec["responses"].as_object().expect("responses");
        assert!(
            responses.contains_key("401"),
            "{} declares no 401",
            operation.id
        );
        for (status, response) in responses {
            let response = doc.resolve(response);
            if let Some(schema) = response.pointer("/content/application~1json/schema") {
                assert!(
                    schema.get("$ref").is_some(),
                    "{} {status}: schema is not a $ref",
                    operation.id
                );
            }
        }
    }
}

#[test]
fn schema_check_rejects_bodies_that_break_the_document() {
    let doc = document();
    let issue_schema = json!({ "$ref": "#/components/schemas/Issue" });
    let valid = json!({
        "id": "129fbba7-e576-502d-94b9-35b3426581fd", "key": "WEB-42", "number": 42,
        "project_id": "01397d88-e45f-531a-abbd-1f79d5da3cbd", "title": "t", "description": "",
        "state": 2, "priority": 1, "assignee_id": null,
        "reporter_id": "a409aac6-e9a6-5a28-b24a-d38e17c6e37e", "labels": [],
        "created_at": "2026-01-02T18:00:00Z", "updated_at": "2026-01-02T20:00:00Z"
    });
    assert_eq!(doc.violations(&issue_schema, &valid), Vec::<String>::new());
    let breakages = [
        ("state", json!(4)),
        ("assignee_id", json!("bob")),
        ("created_at", json!("yesterday")),
        ("number", json!("42")),
        ("surprise", json!(true)),
    ];
    for (field, value) in breakages {
        let mut broken = valid.clone();
        broken[field] = value;
        assert!(
            !doc.violations(&issue_schema, &broken).is_empty(),
            "{field} = {} passed the check",
            broken[field]
        );
    }
    let mut missing = valid.clone();
    missing.as_object_mut().map(|issue| issue.remove("key"));
    assert!(!doc.violations(&issue_schema, &missing).is_empty());
}

#[test]
fn documented_examples_match_their_schemas() {
    let doc = document();
    let mut checked = 0;
    let mut check = |place: String, schema: &Value, example: &Value| {
        let violations = doc.violations(schema, example);
        assert!(
            violations.is_empty(),
            "{place}: example {example} breaks its schema: {violations:?}"
        );
        checked += 1;
    };
    let components = &doc.root()["components"];
    for (name, schema) in components["schemas"].as_object().expect("schemas") {
        for (property, property_schema) in schema["properties"].as_object().into_iter().flatten() {
            if let Some(example) = property_schema.get("example") {
                check(
                    format!("schema {name}.{property}"),
                    property_schema,
                    example,
                );
            }
        }
    }
    for (name, response) in components["responses"].as_object().expect("responses") {
        let content = &response["content"]["application/json"];
        check(
            format!("response {name}"),
            &content["schema"],
            &content["example"],
        );
    }
    for operation in doc.operations() {
        for parameter in doc.parameters(&operation) {
            let schema = &parameter["schema"];
            if let Some(example) = schema.get("example") {
                check(
                    format!("{} parameter {}", operation.id, parameter["name"]),
                    schema,
                    example,
                );
            }
        }
    }
    assert!(checked > 40, "only {checked} examples checked");
}

#[tokio::test]
async fn every_operation_answers_as_its_document_says() {
    let server = Server::start().await;
    let mut called = BTreeSet::new();

    server.call("listProjects").send().await.expect(200);
    called.insert("listProjects");
    server.call("listUsers").send().await.expect(200);
    called.insert("listUsers");
    server.call("getCurrentUser").send().await.expect(200);
    called.insert("getCurrentUser");
    let api = project_id(&server, "API").await;
    server
        .call("listIssues")
        .path("project_id", &api)
        .send()
        .await
        .expect(200);
    called.insert("listIssues");
    let created = server
        .call("createIssue")
        .path("project_id", &api)
        .json(json!({ "title": "Document every endpoint" }))
        .send()
        .await
        .expect(201);
    called.insert("createIssue");
    let id = text(&created["id"]);
    server
        .call("getIssue")
        .path("issue_id", id)
        .send()
        .await
        .expect(200);
    called.insert("getIssue");
    server
        .call("getIssueByKey")
        .path("issue_key", text(&created["key"]))
        .send()
        .await
        .expect(200);
    called.insert("getIssueByKey");
    let transitions = server
        .call("listTransitions")
        .path("issue_id", id)
        .send()
        .await
        .expect(200);
    called.insert("listTransitions");
    server
        .call("transitionIssue")
        .path("issue_id", id)
        .json(json!({ "transition_id": transitions["items"][0]["id"] }))
        .send()
        .await
        .expect(200);
    called.insert("transitionIssue");
    server
        .call("deleteIssue")
        .path("issue_id", id)
        .send()
        .await
        .expect(204);
    called.insert("deleteIssue");

    assert_eq!(called, BTreeSet::from(OPERATIONS));
}

#[tokio::test]
async fn projects_are_web_api_and_mobile_in_that_order() {
    let server = Server::start().await;
    let page = server.call("listProjects").send().await.expect(200);
    assert_eq!(page["total"], 3);
    let project_keys: Vec<&str> = items(&page).iter().map(|p| text(&p["key"])).collect();
    assert_eq!(project_keys, ["WEB", "API", "MOBILE"]);
    assert_eq!(page["items"][0]["name"], "Website");
}

#[tokio::test]
async fn users_are_alice_bob_and_carol_in_that_order() {
    let server = Server::start().await;
    let page = server.call("listUsers").send().await.expect(200);
    assert_eq!(page["total"], 3);
    let usernames: Vec<&str> = items(&page).iter().map(|u| text(&u["username"])).collect();
    assert_eq!(usernames, ["alice", "bob", "carol"]);
    let second = server
        .call("listUsers")
        .query("page", 2)
        .query("per_page", 2)
        .send()
        .await
        .expect(200);
    assert_eq!(keys_of(&second, "username"), ["carol"]);
}

fn keys_of(page: &Value, field: &str) -> Vec<String> {
    items(page)
        .iter()
        .map(|item| text(&item[field]).to_owned())
        .collect()
}

#[tokio::test]
async fn current_user_is_the_owner_of_the_token() {
    let server = Server::start().await;
    for username in ["alice", "bob", "carol"] {
        let token = format!("{username}-token");
        let user = server
            .call("getCurrentUser")
            .token(Some(&token))
            .send()
            .await
            .expect(200);
        assert_eq!(user["username"], username);
        assert_eq!(user["id"], user_id(&server, username).await.as_str());
    }
}

#[tokio::test]
async fn every_operation_rejects_a_missing_token_with_401() {
    let server = Server::start().await;
    for operation in OPERATIONS {
        let code = call_any_operation(&server, operation, None)
            .await
            .expect_error(401);
        assert_eq!(code, "unauthorized", "{operation}");
    }
}

#[tokio::test]
async fn every_operation_rejects_an_unknown_token_with_401() {
    let server = Server::start().await;
    for token in ["mallory-token", "alice", "ALICE-TOKEN", ""] {
        for operation in OPERATIONS {
            let code = call_any_operation(&server, operation, Some(token))
                .await
                .expect_error(401);
            assert_eq!(code, "unauthorized", "{operation} with token {token:?}");
        }
    }
}

#[tokio::test]
async fn web_issues_come_in_pages_of_20_with_total_130() {
    let server = Server::start().await;
    let web = project_id(&server, "WEB").await;
    let page = |number: u32| {
        server
            .call("listIssues")
            .path("project_id", &web)
            .query("page", number)
            .send()
    };
    let first = page(1).await.expect(200);
    let second = page(2).await.expect(200);
    for (number, body) in [(1, &first), (2, &second)] {
        assert_eq!(body["page"], number);
        assert_eq!(body["per_page"], 20);
        assert_eq!(body["total"], 130);
        assert_eq!(items(body).len(), 20);
    }
    let first_keys: BTreeSet<String> = keys(items(&first)).into_iter().collect();
    let second_keys: BTreeSet<String> = keys(items(&second)).into_iter().collect();
    assert!(
        first_keys.is_disjoint(&second_keys),
        "pages 1 and 2 overlap"
    );
    assert_eq!(items(&page(7).await.expect(200)).len(), 10);
    let after_last = page(8).await.expect(200);
    assert_eq!(items(&after_last).len(), 0);
    assert_eq!(after_last["total"], 130);

    let big = server
        .call("listIssues")
        .path("project_id", &web)
        .query("page", 3)
        .query("per_page", 50)
        .send()
        .await
        .expect(200);
    assert_eq!(items(&big).len(), 30);
}

#[tokio::test]
async fn page_and_per_page_out_of_range_are_rejected_with_400() {
    let server = Server::start().await;
    let web = project_id(&server, "WEB").await;
    let bad = [
        ("per_page", "51"),
        ("per_page", "0"),
        ("per_page", "-1"),
        ("per_page", "ten"),
        ("page", "0"),
        ("page", "-3"),
        ("page", "x"),
    ];
    for (name, value) in bad {
        let code = server
            .call("listIssues")
            .path("project_id", &web)
            .query(name, value)
            .send()
            .await
            .expect_error(400);
        assert_eq!(code, "invalid_parameter", "listIssues {name}={value}");
        for operation in ["listProjects", "listUsers"] {
            let code = server
                .call(operation)
                .query(name, value)
                .send()
                .await
                .expect_error(400);
            assert_eq!(code, "invalid_parameter", "{operation} {name}={value}");
        }
    }
    server
        .call("listIssues")
        .path("project_id", &web)
        .query("per_page", 50)
        .send()
        .await
        .expect(200);
}

#[tokio::test]
async fn issues_are_listed_newest_first() {
    let server = Server::start().await;
    let web = project_id(&server, "WEB").await;
    let (issues, total) = all_issues(&server, &web, &[]).await;
    assert_eq!(total, 130);
    let numbers: Vec<u64> = issues
        .iter()
        .map(|issue| issue["number"].as_u64().unwrap_or_default())
        .collect();
    let expected: Vec<u64> = (1..=130).rev().collect();
    assert_eq!(numbers, expected);
    assert_eq!(issues[0]["key"], "WEB-130");
    let created: Vec<&str> = issues
        .iter()
        .map(|issue| text(&issue["created_at"]))
        .collect();
    assert!(
        created.windows(2).all(|pair| pair[0] > pair[1]),
        "created_at is not descending"
    );
}

#[tokio::test]
async fn state_filter_lists_only_issues_in_that_state() {
    let server = Server::start().await;
    let web = project_id(&server, "WEB").await;
    let mut sum = 0;
    for (state, expected_total) in [(1, 52), (2, 26), (3, 52)] {
        let code = state.to_string();
        let (issues, total) = all_issues(&server, &web, &[("state", &code)]).await;
        assert_eq!(total, expected_total, "state {state}");
        assert_eq!(issues.len() as u64, total);
        assert!(issues.iter().all(|issue| issue["state"] == state));
        sum += total;
    }
    assert_eq!(sum, 130);
}

#[tokio::test]
async fn unknown_state_codes_are_rejected_with_400() {
    let server = Server::start().await;
    let web = project_id(&server, "WEB").await;
    for state in ["0", "4", "open", ""] {
        let code = server
            .call("listIssues")
            .path("project_id", &web)
            .query("state", state)
            .send()
            .await
            .expect_error(400);
        assert_eq!(code, "invalid_parameter", "state={state:?}");
    }
}

#[tokio::test]
async fn assignee_filter_lists_only_that_users_issues() {
    let server = Server::start().await;
    let web = project_id(&server, "WEB").await;
    for (username, expected_total) in [("alice", 33), ("bob", 33), ("carol", 32)] {
        let id = user_id(&server, username).await;
        let (issues, total) = all_issues(&server, &web, &[("assignee_id", &id)]).await;
        assert_eq!(total, expected_total, "{username}");
        assert_eq!(issues.len() as u64, total);
        assert!(
            issues
                .iter()
                .all(|issue| issue["assignee_id"] == id.as_str())
        );
    }
    let (nobody, total) = all_issues(&server, &web, &[("assignee_id", UNKNOWN_ID)]).await;
    assert_eq!((nobody.len(), total), (0, 0));
    let code = server
        .call("listIssues")
        .path("project_id", &web)
        .query("assignee_id", "alice")
        .send()
        .await
        .expect_error(400);
    assert_eq!(code, "invalid_parameter");
}

fn mentions(issue: &Value, needle: &str) -> bool {
    let needle = needle.to_lowercase();
    text(&issue["title"]).to_lowercase().contains(&needle)
        || text(&issue["description"]).to_lowercase().contains(&needle)
}

#[tokio::test]
async fn text_filter_matches_title_or_description_case_insensitively() {
    let server = Server::start().await;
    let web = project_id(&server, "WEB").await;
    let (everything, _) = all_issues(&server, &web, &[]).await;
    for q in [
        "login",
        "LOGIN",
        "Timeout",
        "checkout",
        "callback",
        "no such words",
    ] {
        let (found, total) = all_issues(&server, &web, &[("q", q)]).await;
        let expected: Vec<Value> = everything
            .iter()
            .filter(|issue| mentions(issue, q))
            .cloned()
            .collect();
        assert_eq!(keys(&found), keys(&expected), "q={q}");
        assert_eq!(total, expected.len() as u64, "q={q}");
    }
    let (login, _) = all_issues(&server, &web, &[("q", "login")]).await;
    assert_eq!(login.len(), 20);
    assert!(
        login
            .iter()
            .any(|issue| !text(&issue["title"]).to_lowercase().contains("login")),
        "no issue matched by its description alone"
    );
}

#[tokio::test]
async fn filters_combine() {
    let server = Server::start().await;
    let web = project_id(&server, "WEB").await;
    let alice = user_id(&server, "alice").await;
    let (alice_open, total) =
        all_issues(&server, &web, &[("state", "1"), ("assignee_id", &alice)]).await;
    assert_eq!(total, 14);
    assert!(
        alice_open
            .iter()
            .all(|issue| issue["state"] == 1 && issue["assignee_id"] == alice.as_str())
    );
    let (alice_open_login, _) = all_issues(
        &server,
        &web,
        &[("state", "1"), ("assignee_id", &alice), ("q", "login")],
    )
    .await;
    let expected: Vec<Value> = alice_open
        .iter()
        .filter(|issue| mentions(issue, "login"))
        .cloned()
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(keys(&alice_open_login), keys(&expected));
}

#[tokio::test]
async fn seed_has_130_issues_in_web_6_in_api_and_4_in_mobile() {
    let server = Server::start().await;
    for (project, expected) in [("WEB", 130), ("API", 6), ("MOBILE", 4)] {
        let id = project_id(&server, project).await;
        let (issues, total) = all_issues(&server, &id, &[]).await;
        assert_eq!(
            (issues.len() as u64, total),
            (expected, expected),
            "{project}"
        );
        let expected_keys: Vec<String> = (1..=expected)
            .rev()
            .map(|n| format!("{project}-{n}"))
            .collect();
        assert_eq!(keys(&issues), expected_keys);
    }
}

#[tokio::test]
async fn seed_spreads_web_issues_over_every_state_priority_and_assignee() {
    let server = Server::start().await;
    let web = project_id(&server, "WEB").await;
    let (issues, _) = all_issues(&server, &web, &[]).await;
    let distinct = |field: &str| -> BTreeSet<String> {
        issues
            .iter()
            .map(|issue| issue[field].to_string())
            .collect()
    };
    assert_eq!(
        distinct("state"),
        BTreeSet::from(["1".into(), "2".into(), "3".into()])
    );
    assert_eq!(
        distinct("priority"),
        BTreeSet::from(["1".into(), "2".into(), "3".into()])
    );
    let mut assignees = BTreeSet::from(["null".to_owned()]);
    for username in ["alice", "bob", "carol"] {
        assignees.insert(format!("\"{}\"", user_id(&server, username).await));
    }
    assert_eq!(distinct("assignee_id"), assignees);
    let titles = distinct("title");
    assert_eq!(titles.len(), 130, "titles repeat");
}

#[tokio::test]
async fn seed_is_the_same_in_every_fresh_server_with_documented_ids() {
    let first = Server::start().await;
    let second = Server::start().await;
    let web = project_id(&first, "WEB").await;
    assert_eq!(web, "01397d88-e45f-531a-abbd-1f79d5da3cbd");
    assert_eq!(
        user_id(&first, "alice").await,
        "a409aac6-e9a6-5a28-b24a-d38e17c6e37e"
    );
    let (a, _) = all_issues(&first, &web, &[]).await;
    let (b, _) = all_issues(&second, &web, &[]).await;
    assert_eq!(a, b);
    let web_42 = issue_by_key(&first, "WEB-42").await;
    assert_eq!(web_42["id"], "129fbba7-e576-502d-94b9-35b3426581fd");
    assert_eq!(web_42["created_at"], "2026-01-02T18:00:00Z");
}

#[tokio::test]
async fn created_issue_is_api_7_open_and_reported_by_the_current_user() {
    let server = Server::start().await;
    let api = project_id(&server, "API").await;
    let alice = user_id(&server, "alice").await;
    let created = server
        .call("createIssue")
        .path("project_id", &api)
        .json(json!({ "title": "Add an OpenAPI document for webhooks" }))
        .send()
        .await
        .expect(201);
    assert_eq!(created["key"], "API-7");
    assert_eq!(created["number"], 7);
    assert_eq!(created["project_id"], api.as_str());
    assert_eq!(created["state"], 1);
    assert_eq!(created["priority"], 2);
    assert_eq!(created["reporter_id"], alice.as_str());
    assert_eq!(created["assignee_id"], Value::Null);
    assert_eq!(created["description"], "");
    assert_eq!(created["labels"], json!([]));

    let fetched = server
        .call("getIssue")
        .path("issue_id", text(&created["id"]))
        .send()
        .await
        .expect(200);
    assert_eq!(fetched, created);
    let listed = server
        .call("listIssues")
        .path("project_id", &api)
        .send()
        .await
        .expect(200);
    assert_eq!(listed["total"], 7);
    assert_eq!(listed["items"][0], created);

    let carol = user_id(&server, "carol").await;
    let by_bob = server
        .call("createIssue")
        .path("project_id", &api)
        .token(Some("bob-token"))
        .json(json!({
            "title": "Rate limit the export endpoint",
            "description": "Exports are expensive.",
            "priority": 3,
            "assignee_id": carol,
        }))
        .send()
        .await
        .expect(201);
    assert_eq!(by_bob["key"], "API-8");
    assert_eq!(
        by_bob["reporter_id"],
        user_id(&server, "bob").await.as_str()
    );
    assert_eq!(by_bob["assignee_id"], carol.as_str());
    assert_eq!(by_bob["priority"], 3);
    assert_eq!(by_bob["description"], "Exports are expensive.");
}

#[tokio::test]
async fn invalid_issue_bodies_are_rejected_with_422() {
    let server = Server::start().await;
    let api = project_id(&server, "API").await;
    let long_title = "x".repeat(201);
    let bodies = [
        json!({}),
        json!({ "title": "" }),
        json!({ "title": "   " }),
        json!({ "title": long_title }),
        json!({ "title": 7 }),
        json!({ "title": "t", "priority": 4 }),
        json!({ "title": "t", "priority": "high" }),
        json!({ "title": "t", "assignee_id": "bob" }),
        json!({ "title": "t", "assignee_id": UNKNOWN_ID }),
        json!(["t"]),
    ];
    for body in bodies {
        let code = server
            .call("createIssue")
            .path("project_id", &api)
            .json(body.clone())
            .send()
            .await
            .expect_error(422);
        assert!(
            code == "invalid_body" || code == "validation_failed",
            "{body}: code {code}"
        );
    }
    let code = server
        .call("createIssue")
        .path("project_id", &api)
        .raw_json("{\"title\": ")
        .send()
        .await
        .expect_error(422);
    assert_eq!(code, "invalid_body");
    let (issues, _) = all_issues(&server, &api, &[]).await;
    assert_eq!(issues.len(), 6, "a rejected body created an issue");
    server
        .call("createIssue")
        .path("project_id", &api)
        .json(json!({ "title": "y".repeat(200) }))
        .send()
        .await
        .expect(201);
}

#[tokio::test]
async fn creating_in_an_unknown_project_is_rejected_with_404() {
    let server = Server::start().await;
    let code = server
        .call("createIssue")
        .path("project_id", UNKNOWN_ID)
        .json(json!({ "title": "Lost" }))
        .send()
        .await
        .expect_error(404);
    assert_eq!(code, "not_found");
}

#[tokio::test]
async fn transition_moves_the_issue_to_its_target_state() {
    let server = Server::start().await;
    let issue = issue_by_key(&server, "WEB-130").await;
    assert_eq!(issue["state"], 1);
    let id = text(&issue["id"]);
    let transitions = server
        .call("listTransitions")
        .path("issue_id", id)
        .send()
        .await
        .expect(200);
    let targets: Vec<&Value> = items(&transitions).iter().map(|t| &t["to_state"]).collect();
    assert_eq!(targets, [&json!(2), &json!(3)]);
    let start = &transitions["items"][0];
    assert_eq!(start["name"], "Start progress");

    let moved = server
        .call("transitionIssue")
        .path("issue_id", id)
        .json(json!({ "transition_id": start["id"] }))
        .send()
        .await
        .expect(200);
    assert_eq!(moved["state"], 2);
    assert!(text(&moved["updated_at"]) > text(&issue["updated_at"]));
    let fetched = server
        .call("getIssue")
        .path("issue_id", id)
        .send()
        .await
        .expect(200);
    assert_eq!(fetched, moved);

    let now = server
        .call("listTransitions")
        .path("issue_id", id)
        .send()
        .await
        .expect(200);
    let targets: Vec<&Value> = items(&now).iter().map(|t| &t["to_state"]).collect();
    assert_eq!(targets, [&json!(1), &json!(3)]);
    let resolve = items(&now)
        .iter()
        .find(|t| t["to_state"] == 3)
        .expect("a transition to done");
    let done = server
        .call("transitionIssue")
        .path("issue_id", id)
        .json(json!({ "transition_id": resolve["id"] }))
        .send()
        .await
        .expect(200);
    assert_eq!(done["state"], 3);
}

#[tokio::test]
async fn transition_not_available_from_the_current_state_is_rejected_with_409() {
    let server = Server::start().await;
    let issue = issue_by_key(&server, "WEB-130").await;
    let id = text(&issue["id"]);
    let transitions = server
        .call("listTransitions")
        .path("issue_id", id)
        .send()
        .await
        .expect(200);
    let start = transitions["items"][0]["id"].clone();
    server
        .call("transitionIssue")
        .path("issue_id", id)
        .json(json!({ "transition_id": start }))
        .send()
        .await
        .expect(200);
    for transition_id in [start, json!(UNKNOWN_ID)] {
        let code = server
            .call("transitionIssue")
            .path("issue_id", id)
            .json(json!({ "transition_id": transition_id }))
            .send()
            .await
            .expect_error(409);
        assert_eq!(code, "transition_not_available");
    }
    let fetched = server
        .call("getIssue")
        .path("issue_id", id)
        .send()
        .await
        .expect(200);
    assert_eq!(
        fetched["state"], 2,
        "a refused transition changed the state"
    );
}

#[tokio::test]
async fn issues_in_the_same_state_offer_the_same_transition_ids() {
    let server = Server::start().await;
    let mut lists = Vec::new();
    for key in ["WEB-130", "WEB-126", "API-4"] {
        let issue = issue_by_key(&server, key).await;
        assert_eq!(issue["state"], 1, "{key}");
        let transitions = server
            .call("listTransitions")
            .path("issue_id", text(&issue["id"]))
            .send()
            .await
            .expect(200);
        lists.push(transitions);
    }
    assert_eq!(lists[0], lists[1]);
    assert_eq!(lists[0], lists[2]);
}

#[tokio::test]
async fn invalid_transition_bodies_are_rejected_with_422() {
    let server = Server::start().await;
    let issue = issue_by_key(&server, "WEB-130").await;
    for body in [
        json!({}),
        json!({ "transition_id": "start" }),
        json!({ "transition_id": 2 }),
    ] {
        server
            .call("transitionIssue")
            .path("issue_id", text(&issue["id"]))
            .json(body)
            .send()
            .await
            .expect_error(422);
    }
}

#[tokio::test]
async fn deleted_issue_is_gone_and_its_number_is_not_reused() {
    let server = Server::start().await;
    let web = project_id(&server, "WEB").await;
    let issue = issue_by_key(&server, "WEB-130").await;
    let id = text(&issue["id"]);
    server
        .call("deleteIssue")
        .path("issue_id", id)
        .send()
        .await
        .expect(204);

    for operation in ["getIssue", "deleteIssue", "listTransitions"] {
        let code = server
            .call(operation)
            .path("issue_id", id)
            .send()
            .await
            .expect_error(404);
        assert_eq!(code, "not_found", "{operation}");
    }
    server
        .call("getIssueByKey")
        .path("issue_key", "WEB-130")
        .send()
        .await
        .expect_error(404);
    let (issues, total) = all_issues(&server, &web, &[]).await;
    assert_eq!((issues.len(), total), (129, 129));
    assert_eq!(issues[0]["key"], "WEB-129");

    let created = server
        .call("createIssue")
        .path("project_id", &web)
        .json(json!({ "title": "After the deletion" }))
        .send()
        .await
        .expect(201);
    assert_eq!(created["key"], "WEB-131");
}

#[tokio::test]
async fn issue_is_found_by_its_key_in_any_case() {
    let server = Server::start().await;
    let by_key = issue_by_key(&server, "WEB-42").await;
    assert_eq!(by_key["key"], "WEB-42");
    assert_eq!(by_key["number"], 42);
    assert_eq!(
        by_key["project_id"],
        project_id(&server, "WEB").await.as_str()
    );
    let by_id = server
        .call("getIssue")
        .path("issue_id", text(&by_key["id"]))
        .send()
        .await
        .expect(200);
    assert_eq!(by_id, by_key);
    assert_eq!(issue_by_key(&server, "web-42").await, by_key);
    assert_eq!(issue_by_key(&server, "MOBILE-4").await["number"], 4);
}

#[tokio::test]
async fn unknown_issue_keys_are_rejected_with_404_and_malformed_keys_with_400() {
    let server = Server::start().await;
    for key in ["WEB-131", "WEB-0", "API-7", "NOPE-1", "WEB-99999999999"] {
        let code = server
            .call("getIssueByKey")
            .path("issue_key", key)
            .send()
            .await
            .expect_error(404);
        assert_eq!(code, "not_found", "{key}");
    }
    for key in ["WEB42", "42", "WEB-", "WEB-4x", "WEB 1-1"] {
        let code = server
            .call("getIssueByKey")
            .path("issue_key", key)
            .send()
            .await
            .expect_error(400);
        assert_eq!(code, "invalid_parameter", "{key}");
    }
}

#[tokio::test]
async fn malformed_uuids_in_paths_are_rejected_with_400_as_json() {
    let server = Server::start().await;
    for value in ["WEB", "not-a-uuid", "42", "WEB-42"] {
        for operation in ["getIssue", "deleteIssue", "listTransitions"] {
            let code = server
                .call(operation)
                .path("issue_id", value)
                .send()
                .await
                .expect_error(400);
            assert_eq!(code, "invalid_parameter", "{operation} {value}");
        }
        let code = server
            .call("transitionIssue")
            .path("issue_id", value)
            .json(json!({ "transition_id": UNKNOWN_ID }))
            .send()
            .await
            .expect_error(400);
        assert_eq!(code, "invalid_parameter", "transitionIssue {value}");
        let code = server
            .call("listIssues")
            .path("project_id", value)
            .send()
            .await
            .expect_error(400);
        assert_eq!(code, "invalid_parameter", "listIssues {value}");
        let code = server
            .call("createIssue")
            .path("project_id", value)
            .json(json!({ "title": "t" }))
            .send()
            .await
            .expect_error(400);
        assert_eq!(code, "invalid_parameter", "createIssue {value}");
    }
}

#[tokio::test]
async fn unknown_ids_are_rejected_with_404() {
    let server = Server::start().await;
    for operation in ["getIssue", "deleteIssue", "listTransitions"] {
        let code = server
            .call(operation)
            .path("issue_id", UNKNOWN_ID)
            .send()
            .await
            .expect_error(404);
        assert_eq!(code, "not_found", "{operation}");
    }
    server
        .call("transitionIssue")
        .path("issue_id", UNKNOWN_ID)
        .json(json!({ "transition_id": UNKNOWN_ID }))
        .send()
        .await
        .expect_error(404);
    server
        .call("listIssues")
        .path("project_id", UNKNOWN_ID)
        .send()
        .await
        .expect_error(404);
}

/// Kills the child process if a test fails before it ends it.
struct ChildGuard(std::process::Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

#[tokio::test]
async fn binary_prints_its_address_serves_and_stops_on_sigterm() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};

    let child = Command::new(env!("CARGO_BIN_EXE_tracker-api"))
        .args(["--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tracker-api");
    let mut child = ChildGuard(child);
    let stdout = child.0.stdout.take().expect("piped stdout");
    let mut line = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .expect("read the first line");
    let base_url = line
        .trim_end()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    let port: u16 = base_url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("no port in {base_url:?}"));
    assert_ne!(port, 0);

    let server = Server::at(base_url.to_owned());
    let user = server.call("getCurrentUser").send().await.expect(200);
    assert_eq!(user["username"], "alice");

    if cfg!(unix) {
        let status = Command::new("kill")
            .args(["-TERM", &child.0.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let exit = loop {
            if let Some(exit) = child.0.try_wait().expect("poll the child") {
                break exit;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no exit after SIGTERM"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        };
        assert!(exit.success(), "exit status {exit}");
    }
}
