//! The curated real APIs end to end: each committed crate `generated-examples/<api>-mcp` (from
//! `specs/<api>/mcpgen.yaml`) built, run over stdio and driven by the official Python MCP SDK
//! (`tests/support/mcp_probe.py`), in front of a recording, validating mock of the API's own
//! description (`tests/support/recorder.rs`: Prism with `--errors` behind a proxy that records
//! every request). Each test asserts the exact method, path, query and body of every request the
//! API received, that Prism found each one allowed by the description, and that no curation-file
//! placeholder (`$name`) reached the API.
//!
//! Needs `MCPGEN_TEST_PRISM` and `MCPGEN_TEST_PYTHON`, and for GitHub `MCPGEN_TEST_LARGE_SPECS`;
//! `scripts/test` installs and sets them. Run with `scripts/test --test suite real_apis::`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::recorder;
use crate::support::recorder::{Recorder, Request};

/// The longest a generated crate's build may take (a cold build on 2 cores compiles ~100 crates).
const BUILD_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// The longest one run of `mcp_probe.py` (a whole script over one connection) may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(90);

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn required_env(name: &str) -> PathBuf {
    match std::env::var_os(name) {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => panic!("{name} is not set: run the tests with `scripts/test`, which sets it"),
    }
}

/// Runs `command` at most `timeout`, killing it when it takes longer; returns whether it
/// succeeded and what it wrote to stdout and stderr.
fn run(mut command: Command, timeout: Duration, what: &str) -> (String, String) {
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let out_path = scratch.path().join("out");
    let err_path = scratch.path().join("err");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("a file for stdout"))
        .stderr(std::fs::File::create(&err_path).expect("a file for stderr"))
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{what} took longer than {timeout:?}:\n{}",
                std::fs::read_to_string(&err_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = std::fs::read_to_string(&out_path).unwrap_or_default();
    let err = std::fs::read_to_string(&err_path).unwrap_or_default();
    assert!(status.success(), "{what} failed ({status}):\n{err}");
    (out, err)
}

/// The binary of the committed crate `generated-examples/<api>-mcp`, built with the target
/// directory every generated crate shares. Builds run one at a time.
fn server(api: &str) -> PathBuf {
    static BUILDING: Mutex<()> = Mutex::new(());
    let _one_at_a_time = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    let name = format!("{api}-mcp");
    let manifest = repo()
        .join("generated-examples")
        .join(&name)
        .join("Cargo.toml");
    let target_dir = repo().join("target/generated");
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo
        .args(["build", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", &target_dir)
        .env("CARGO_PROFILE_DEV_DEBUG", "false");
    run(cargo, BUILD_TIMEOUT, &format!("cargo build of {name}"));
    target_dir.join("debug").join(&name)
}

/// One step of a probe script.
fn call(tool: &str, args: Value) -> Value {
    json!({ "call": tool, "args": args })
}

/// Runs `steps` over one stdio connection to the `api` server in front of `recorder`, with the
/// server's own credentials in `env`; returns one result per step.
fn probe(api: &str, recorder: &Recorder, env: &[(&str, &str)], steps: &[Value]) -> Vec<Value> {
    let binary = server(api);
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let script = scratch.path().join("script.json");
    std::fs::write(&script, Value::from(steps.to_vec()).to_string()).expect("the script");
    let binary = binary.to_str().expect("a text path");
    assert!(!binary.contains('\''), "cannot quote {binary}");
    let mut python = Command::new(required_env("MCPGEN_TEST_PYTHON"));
    python
        .arg(repo().join("tests/support/mcp_probe.py"))
        .args(["--mode", "2026-07-28", "--stdio", &format!("'{binary}'")])
        .arg("script")
        .arg(&script)
        .env(
            format!("{}_BASE_URL", api.to_uppercase()),
            recorder.base_url(),
        );
    for (name, value) in env {
        python.env(name, value);
    }
    let (out, _) = run(python, PROBE_TIMEOUT, &format!("mcp_probe.py ({api})"));
    let results: Vec<Value> = out
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("mcp_probe.py printed {line}: {e}"))
        })
        .collect();
    assert_eq!(
        results.len(),
        steps.len(),
        "one result per step: {results:#?}"
    );
    results
}

/// The `structuredContent` of a call that succeeded.
fn success<'a>(result: &'a Value, what: &str) -> &'a Value {
    assert_eq!(result["isError"], false, "{what} failed: {result:#}");
    &result["structuredContent"]
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect()
}

/// Checks the method, path, query and body of a recorded request.
fn assert_request(
    request: &Request,
    method: &str,
    path: &str,
    query: &[(&str, &str)],
    body: &Value,
) {
    let line = request.line();
    assert_eq!(request.method, method, "the method of {line}");
    assert_eq!(request.path, path, "the path of {line}");
    assert_eq!(request.query, pairs(query), "the query of {line}");
    assert_eq!(&request.body, body, "the body of {line}");
}

/// A recorder on the operations at `paths` of `spec`; the directory keeps Prism's files.
fn start(spec: &Path, paths: &[&str]) -> (Recorder, tempfile::TempDir) {
    let logs = tempfile::tempdir().expect("a directory for Prism's log");
    (Recorder::start_on_paths(spec, paths, logs.path()), logs)
}

// --- the recorder itself ------------------------------------------------------------------------

#[test]
fn recorder_recognizes_curation_placeholders() {
    for placeholder in ["$project", "$found.id", "$_x"] {
        assert!(recorder::is_placeholder(placeholder), "{placeholder}");
    }
    for value in ["$", "$5.00", "usd", "cost: $project", "$a b"] {
        assert!(!recorder::is_placeholder(value), "{value}");
    }
}

#[test]
fn recorder_decodes_form_fields_in_order() {
    assert_eq!(
        recorder::form_pairs(
            "customer=cus_1&description=two+words%21&expand%5B%5D=a&expand%5B%5D=b"
        ),
        pairs(&[
            ("customer", "cus_1"),
            ("description", "two words!"),
            ("expand[]", "a"),
            ("expand[]", "b"),
        ])
    );
}

// --- Slack --------------------------------------------------------------------------------------

const SLACK_TOKEN: &str = "xoxb-recorder";

/// `slack_list_channels` walks Slack's cursor (`response_metadata.next_cursor`) up to the limit:
/// the first request has no cursor, every later one the cursor the previous answer gave, each
/// with `exclude_archived=true` (fixed by the curation file) and a page size.
#[test]
fn slack_list_channels_walks_the_cursor_in_response_metadata() {
    let spec = repo().join("tests/corpus/slack-web/slack_web_openapi_v2.json");
    let (recorder, _logs) = start(&spec, &["/conversations.list"]);
    let results = probe(
        "slack",
        &recorder,
        &[("SLACK_TOKEN", SLACK_TOKEN)],
        &[call("slack_list_channels", json!({ "limit": 3 }))],
    );
    let listed = success(&results[0], "slack_list_channels");
    // Prism answers every page with the description's example: general and random, and a cursor.
    let names: Vec<&Value> = listed["channels"]
        .as_array()
        .unwrap_or_else(|| panic!("no channels: {listed:#}"))
        .iter()
        .map(|channel| &channel["name"])
        .collect();
    assert_eq!(
        names,
        [&json!("general"), &json!("random"), &json!("general")]
    );
    assert_eq!(
        listed["channels"][0],
        json!({
            "name": "general",
            "id": "C012AB3CD",
            "topic": "Company-wide announcements and work-based matters",
            "members": 4
        })
    );
    assert_eq!(listed["truncated"], true, "{listed:#}");
    recorder.assert_clean();
    let requests = recorder.requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    let first = [("exclude_archived", "true"), ("limit", "3")];
    assert_request(
        &requests[0],
        "GET",
        "/conversations.list",
        &first,
        &Value::Null,
    );
    let second = [
        ("exclude_archived", "true"),
        ("limit", "3"),
        ("cursor", "dGVhbTpDMDYxRkE1UEI="),
    ];
    assert_request(
        &requests[1],
        "GET",
        "/conversations.list",
        &second,
        &Value::Null,
    );
    for request in &requests {
        let expected = format!("Bearer {SLACK_TOKEN}");
        assert_eq!(request.header("authorization"), Some(expected.as_str()));
    }
}

/// Asserts the server's token reached the API in the Authorization header and, when `param` is
/// given, once more as the `token` parameter there, and nowhere else: no `token` query parameter
/// or header, no form field the operation does not require.
fn assert_slack_token(request: &Request, param: Option<&str>) {
    let line = request.line();
    let bearer = format!("Bearer {SLACK_TOKEN}");
    assert_eq!(
        request.header("authorization"),
        Some(bearer.as_str()),
        "{line}"
    );
    let in_query = request.query.iter().filter(|(n, _)| n == "token").count();
    let in_header = usize::from(request.header("token").is_some());
    let expected = |place| usize::from(param == Some(place));
    assert_eq!(in_query, expected("query"), "token in the query of {line}");
    assert_eq!(in_header, expected("header"), "token header of {line}");
    if let Some(value) = request.header("token") {
        assert_eq!(value, SLACK_TOKEN, "{line}");
    }
    for (name, value) in &request.query {
        if name == "token" {
            assert_eq!(value, SLACK_TOKEN, "{line}");
        }
    }
}

/// `slack_post_message` resolves the channel's name through `conversations.list` (the `channel`
/// resolver) and posts the model's text to its id as a form; `chat.postMessage` requires the token
/// as a header `token`, which the server fills from `SLACK_TOKEN` (the model never sees it).
///
/// The description's own example answer of `chat.postMessage` breaks its schema (an attachment
/// with a `text` that `additionalProperties: false` forbids), and Prism with `--errors` answers
/// 500 to every post; the recorder mocks a copy whose example has no attachments, nothing else
/// changed.
#[test]
fn slack_post_message_resolves_the_channel_by_name_and_fills_the_token_header() {
    let mut description: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("tests/corpus/slack-web/slack_web_openapi_v2.json"))
            .expect("the Slack description"),
    )
    .expect("JSON");
    let message = description
        .pointer_mut(
            "/paths/~1chat.postMessage/post/responses/200/examples/application~1json/message",
        )
        .and_then(Value::as_object_mut)
        .expect("the example message");
    assert!(
        message.remove("attachments").is_some(),
        "the example has attachments"
    );
    let copy = tempfile::tempdir().expect("a folder for the copy");
    let spec = copy.path().join("slack_web_openapi_v2.json");
    std::fs::write(&spec, description.to_string()).expect("the copy is written");
    let (recorder, _logs) = start(&spec, &["/conversations.list", "/chat.postMessage"]);
    let results = probe(
        "slack",
        &recorder,
        &[("SLACK_TOKEN", SLACK_TOKEN)],
        &[call(
            "slack_post_message",
            json!({ "channel": "random", "text": "Lunch at *noon*" }),
        )],
    );
    let posted = success(&results[0], "slack_post_message");
    // Prism answers with the description's example.
    assert_eq!(
        posted,
        &json!({ "channel": "C1H9RESGL", "ts": "1503435956.000247" })
    );
    recorder.assert_clean();
    let requests = recorder.requests();
    let (post, lists) = requests.split_last().expect("requests");
    assert!(
        !lists.is_empty(),
        "the channel is resolved first: {requests:#?}"
    );
    for list in lists {
        assert_eq!(
            (list.method.as_str(), list.path.as_str()),
            ("GET", "/conversations.list")
        );
        assert_slack_token(list, None);
    }
    // Prism answers every page with the same cursor: the resolver stops at the second page.
    assert_eq!(lists.len(), 2, "{requests:#?}");
    assert_request(
        &lists[0],
        "GET",
        "/conversations.list",
        &[("limit", "200")],
        &Value::Null,
    );
    assert_request(
        &lists[1],
        "GET",
        "/conversations.list",
        &[("limit", "200"), ("cursor", "dGVhbTpDMDYxRkE1UEI=")],
        &Value::Null,
    );
    assert_request(
        post,
        "POST",
        "/chat.postMessage",
        &[],
        &json!({ "form": [["channel", "C061EG9T2"], ["text", "Lunch at *noon*"]] }),
    );
    assert_slack_token(post, Some("header"));
}

/// `slack_find_user_by_email` calls `users.lookupByEmail` with the email and the token, which the
/// operation requires as a query parameter, there once.
#[test]
fn slack_find_user_by_email_fills_the_token_query_parameter_once() {
    let spec = repo().join("tests/corpus/slack-web/slack_web_openapi_v2.json");
    let (recorder, _logs) = start(&spec, &["/users.lookupByEmail"]);
    let results = probe(
        "slack",
        &recorder,
        &[("SLACK_TOKEN", SLACK_TOKEN)],
        &[call(
            "slack_find_user_by_email",
            json!({ "email": "spengler@ghostbusters.example.com" }),
        )],
    );
    let found = success(&results[0], "slack_find_user_by_email");
    assert_eq!(
        found,
        &json!({
            "id": "W012A3CDE",
            "name": "spengler",
            "real_name": "Egon Spengler",
            "time_zone": "America/Los_Angeles"
        })
    );
    recorder.assert_clean();
    let requests = recorder.requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    assert_request(
        &requests[0],
        "GET",
        "/users.lookupByEmail",
        &[
            ("email", "spengler@ghostbusters.example.com"),
            ("token", SLACK_TOKEN),
        ],
        &Value::Null,
    );
    assert_slack_token(&requests[0], Some("query"));
}

/// `slack_find_user` resolves a full name through `users.list` (the `user` resolver, matching
/// handles and full names) and reads that user with `users.info`.
#[test]
fn slack_find_user_resolves_a_full_name_and_reads_the_user() {
    let spec = repo().join("tests/corpus/slack-web/slack_web_openapi_v2.json");
    let (recorder, _logs) = start(&spec, &["/users.list", "/users.info"]);
    let results = probe(
        "slack",
        &recorder,
        &[("SLACK_TOKEN", SLACK_TOKEN)],
        &[call(
            "slack_find_user",
            json!({ "user": "Glinda Southgood" }),
        )],
    );
    let found = success(&results[0], "slack_find_user");
    // Prism answers users.info with the description's one example, whoever is asked for.
    assert_eq!(found["id"], "W012A3CDE", "{found:#}");
    recorder.assert_clean();
    let requests = recorder.requests();
    let (info, lists) = requests.split_last().expect("requests");
    assert!(
        !lists.is_empty(),
        "the user is resolved first: {requests:#?}"
    );
    for list in lists {
        assert_eq!(
            (list.method.as_str(), list.path.as_str()),
            ("GET", "/users.list")
        );
        assert_slack_token(list, None);
    }
    assert_eq!(lists.len(), 2, "{requests:#?}");
    assert_request(
        &lists[0],
        "GET",
        "/users.list",
        &[("limit", "200")],
        &Value::Null,
    );
    assert_request(
        &lists[1],
        "GET",
        "/users.list",
        &[("limit", "200"), ("cursor", "dXNlcjpVMEc5V0ZYTlo=")],
        &Value::Null,
    );
    assert_request(
        info,
        "GET",
        "/users.info",
        &[("user", "W07QCRPA4"), ("token", SLACK_TOKEN)],
        &Value::Null,
    );
    assert_slack_token(info, Some("query"));
}

// --- Notion -------------------------------------------------------------------------------------

const NOTION_TOKEN: &str = "secret_recorder";

/// `notion_search` sends the words as the JSON body's `query` and nothing else.
#[test]
fn notion_search_sends_the_query_in_the_json_body() {
    let spec = repo().join("tests/corpus/notion/notion-openapi.json");
    let (recorder, _logs) = start(&spec, &["/v1/search"]);
    let results = probe(
        "notion",
        &recorder,
        &[("NOTION_TOKEN", NOTION_TOKEN)],
        &[call("notion_search", json!({ "query": "Roadmap 2027" }))],
    );
    // The description documents the answer only as `type: object`, so Prism answers `{}`.
    assert_eq!(success(&results[0], "notion_search"), &json!({}));
    recorder.assert_clean();
    let requests = recorder.requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    let body = json!({ "query": "Roadmap 2027" });
    assert_request(&requests[0], "POST", "/v1/search", &[], &body);
    let expected = format!("Bearer {NOTION_TOKEN}");
    assert_eq!(requests[0].header("authorization"), Some(expected.as_str()));
    assert_eq!(requests[0].header("content-type"), Some("application/json"));
}

/// What issue 19 found: a step argument sent as the curation file's text `"$title"`. Prism
/// accepts it (it is a string), so the recorder must fail the test itself.
#[test]
fn recorder_fails_a_test_when_the_api_receives_a_placeholder() {
    use std::io::{Read, Write};
    let spec = repo().join("tests/corpus/notion/notion-openapi.json");
    let (recorder, _logs) = start(&spec, &["/v1/search"]);
    let port = recorder
        .base_url()
        .rsplit(':')
        .next()
        .and_then(|port| port.parse::<u16>().ok())
        .expect("a port in the base URL");
    let body = r#"{"query":"$title"}"#;
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("the recorder");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a read timeout");
    write!(
        stream,
        "POST /v1/search HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer x\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("the request is sent");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("an answer");
    assert!(
        answer.starts_with("HTTP/1.1 200"),
        "Prism accepts the text: {answer}"
    );
    let outcome =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| recorder.assert_clean()));
    let message = outcome.expect_err("assert_clean fails on \"$title\"");
    let message = message
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        message.contains("placeholder \"$title\""),
        "the failure names the placeholder: {message}"
    );
}

// --- the recorder's part of a description -------------------------------------------------------

/// Every `$ref` in `value` (as JSON pointers into the document).
fn refs_in(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            if let Some(Value::String(reference)) = fields.get("$ref") {
                into.push(reference.clone());
            }
            fields.values().for_each(|item| refs_in(item, into));
        }
        Value::Array(items) => items.iter().for_each(|item| refs_in(item, into)),
        _ => {}
    }
}

/// The bug that kept GitHub from Prism: the part kept `x-webhooks` whole, whose `$ref`s named
/// schemas the part left out (`MissingPointerError`). Parameters, responses, examples and
/// headers a kept path reaches stay; webhooks go; nothing left refers to what is gone.
#[test]
fn recorder_part_of_a_description_leaves_no_reference_dangling() {
    let document = json!({
        "openapi": "3.0.3",
        "info": { "title": "t", "version": "1" },
        "paths": {
            "/kept": { "get": {
                "parameters": [{ "$ref": "#/components/parameters/owner" }],
                "responses": {
                    "200": {
                        "description": "ok",
                        "headers": { "Link": { "$ref": "#/components/headers/link" } },
                        "content": { "application/json": {
                            "schema": { "$ref": "#/components/schemas/issue" },
                            "examples": { "default": { "$ref": "#/components/examples/issue" } }
                        } }
                    },
                    "404": { "$ref": "#/components/responses/not_found" }
                }
            } },
            "/dropped": { "get": { "responses": { "200": { "$ref": "#/components/responses/big" } } } }
        },
        "x-webhooks": { "issue-opened": { "post": { "requestBody": { "content": {
            "application/json": { "schema": { "$ref": "#/components/schemas/webhook" } }
        } } } } },
        "components": {
            "parameters": { "owner": { "name": "owner", "in": "query", "schema": { "type": "string" } } },
            "headers": { "link": { "schema": { "type": "string" } } },
            "schemas": {
                "issue": { "type": "object", "properties": { "user": { "$ref": "#/components/schemas/user" } } },
                "user": { "type": "object" },
                "webhook": { "type": "object" }
            },
            "examples": { "issue": { "value": {} } },
            "responses": {
                "not_found": { "description": "gone", "content": { "application/json": {
                    "schema": { "$ref": "#/components/schemas/user" } } } },
                "big": { "description": "big" }
            }
        }
    });
    let part = recorder::subset(&document, &["/kept"]);
    let mut references = Vec::new();
    refs_in(&part, &mut references);
    assert!(!references.is_empty());
    for reference in &references {
        assert!(
            part.pointer(reference.trim_start_matches('#')).is_some(),
            "{reference} dangles in {part:#}"
        );
    }
    assert!(part.get("x-webhooks").is_none(), "webhooks are left out");
    let schemas: Vec<&String> = part["components"]["schemas"]
        .as_object()
        .expect("schemas")
        .keys()
        .collect();
    assert_eq!(schemas, ["issue", "user"]);
    assert!(part["components"]["responses"].get("big").is_none());
    assert!(part["paths"].get("/dropped").is_none());
}

/// Prism never finishes starting on Stripe's description, whose schemas refer back to
/// themselves (a customer's invoice has a customer). The recorder mocks it with only the
/// references that close a cycle cut to `{}`: every other reference and schema stays as written.
#[test]
fn recorder_cuts_only_the_references_that_close_a_cycle() {
    let document = json!({
        "swagger": "2.0",
        "paths": { "/customers": { "get": { "responses": { "200": {
            "description": "ok", "schema": { "$ref": "#/definitions/customer" } } } } } },
        "definitions": {
            "customer": { "type": "object", "properties": {
                "invoice": { "$ref": "#/definitions/invoice" },
                "address": { "$ref": "#/definitions/address" } } },
            "invoice": { "type": "object", "properties": {
                "customer": { "anyOf": [{ "type": "string" }, { "$ref": "#/definitions/customer" }] },
                "address": { "$ref": "#/definitions/address" } } },
            "address": { "type": "object", "properties": { "line": { "type": "string" } } },
            "node": { "type": "object", "properties": { "next": { "$ref": "#/definitions/node" } } }
        }
    });
    let part = recorder::without_cycles(document.clone());
    let mut expected = document;
    expected["definitions"]["invoice"]["properties"]["customer"]["anyOf"][1] = json!({});
    expected["definitions"]["node"]["properties"]["next"] = json!({});
    assert_eq!(part, expected);
}

// --- GitHub -------------------------------------------------------------------------------------

const GITHUB_TOKEN: &str = "ghp_recorder";

/// GitHub's issue tools against a validating mock of GitHub's own description (@octokit/openapi,
/// installed by `scripts/large-specs`): the search's `q` is written by the server from the
/// model's filters (absent ones dropped, `label:"…"` once per label), labels and assignees are
/// checked against the repository's own (listed once per repository, names matched ignoring
/// case), a comment posts only its text, close and reopen send only the state, create sends the
/// labels and assignees by their names, and an unknown label is told with the valid ones (after
/// one fresh look at the repository's labels) while nothing is created. Prism answers the lists with the description's examples: labels `bug`
/// and `enhancement`, assignee `octocat`.
#[test]
fn github_issue_tools_send_exactly_the_search_comment_state_and_issue_asked_for() {
    let spec = required_env("MCPGEN_TEST_LARGE_SPECS").join("github-rest.json");
    let (recorder, _logs) = start(
        &spec,
        &[
            "/search/issues",
            "/repos/{owner}/{repo}/labels",
            "/repos/{owner}/{repo}/assignees",
            "/repos/{owner}/{repo}/issues",
            "/repos/{owner}/{repo}/issues/{issue_number}",
            "/repos/{owner}/{repo}/issues/{issue_number}/comments",
        ],
    );
    let repo = json!({ "owner": "octocat", "repo": "hello-world" });
    let with = |extra: Value| {
        let mut args = repo.clone();
        args.as_object_mut()
            .expect("an object")
            .extend(extra.as_object().expect("an object").clone());
        args
    };
    let results = probe(
        "github",
        &recorder,
        &[("GITHUB_TOKEN", GITHUB_TOKEN)],
        &[
            call(
                "github_search_issues",
                with(json!({
                    "state": "open", "labels": ["Bug", "enhancement"],
                    "assignee": "octocat", "limit": 5,
                })),
            ),
            call("github_search_issues", repo.clone()),
            call(
                "github_comment_on_issue",
                with(json!({ "issue_number": 1347, "body": "Fixed in #1350." })),
            ),
            call(
                "github_set_issue_state",
                with(json!({ "issue_number": 1347, "state": "closed" })),
            ),
            call(
                "github_set_issue_state",
                with(json!({ "issue_number": 1347, "state": "open" })),
            ),
            call(
                "github_create_issue",
                with(json!({
                    "title": "Crash on start", "labels": ["bug"], "assignees": ["octocat"],
                })),
            ),
            call(
                "github_create_issue",
                with(json!({ "title": "Typo", "labels": ["bugg"] })),
            ),
        ],
    );
    for (index, result) in results[..6].iter().enumerate() {
        success(result, &format!("call {}", index + 1));
    }
    let found = success(&results[0], "github_search_issues");
    assert!(found["issues"][0]["number"].is_i64(), "{found:#}");
    assert_eq!(results[6]["isError"], true, "{:#}", results[6]);
    let refused = results[6]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        refused.contains("\"bugg\"") && refused.contains("bug, enhancement"),
        "the unknown label and the valid ones: {refused}"
    );
    recorder.assert_clean();
    let requests = recorder.requests();
    let lines: Vec<String> = requests.iter().map(Request::line).collect();
    assert_eq!(requests.len(), 9, "{lines:#?}");
    let every_item = [("per_page", "100"), ("page", "1")];
    let labels = "/repos/octocat/hello-world/labels";
    assert_request(&requests[0], "GET", labels, &every_item, &Value::Null);
    let assignees = "/repos/octocat/hello-world/assignees";
    assert_request(&requests[1], "GET", assignees, &every_item, &Value::Null);
    let search = "repo:octocat/hello-world is:issue state:open label:\"bug\" label:\"enhancement\" assignee:octocat";
    let first = [("q", search), ("per_page", "5"), ("page", "1")];
    assert_request(&requests[2], "GET", "/search/issues", &first, &Value::Null);
    let only_repo = [
        ("q", "repo:octocat/hello-world is:issue"),
        ("per_page", "20"),
        ("page", "1"),
    ];
    assert_request(
        &requests[3],
        "GET",
        "/search/issues",
        &only_repo,
        &Value::Null,
    );
    let issue = "/repos/octocat/hello-world/issues/1347";
    let comment = json!({ "body": "Fixed in #1350." });
    assert_request(
        &requests[4],
        "POST",
        &format!("{issue}/comments"),
        &[],
        &comment,
    );
    let closed = json!({ "state": "closed" });
    assert_request(&requests[5], "PATCH", issue, &[], &closed);
    let open = json!({ "state": "open" });
    assert_request(&requests[6], "PATCH", issue, &[], &open);
    let created = json!({ "title": "Crash on start", "labels": ["bug"], "assignees": ["octocat"] });
    let issues = "/repos/octocat/hello-world/issues";
    assert_request(&requests[7], "POST", issues, &[], &created);
    // An unknown label fetches the repository's labels afresh (one may have been added since)
    // before it is refused; nothing is created.
    assert_request(&requests[8], "GET", labels, &every_item, &Value::Null);
    for request in &requests {
        let expected = format!("Bearer {GITHUB_TOKEN}");
        assert_eq!(request.header("authorization"), Some(expected.as_str()));
    }
}

/// A copy of Notion's description whose `POST /v1/pages` takes `children` as block objects, as
/// Notion does: the description types them as strings, so Prism would refuse every real page body
/// (the curation file corrects the same field with `requests:`).
fn notion_with_block_children() -> (tempfile::TempDir, PathBuf) {
    let mut description: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("tests/corpus/notion/notion-openapi.json"))
            .expect("the Notion description"),
    )
    .expect("JSON");
    let items = description
        .pointer_mut(
            "/paths/~1v1~1pages/post/requestBody/content/application~1json/schema/properties/children/items",
        )
        .expect("the blocks of POST /v1/pages");
    assert_eq!(
        *items,
        json!({ "type": "string" }),
        "the description's mistake"
    );
    *items = json!({ "type": "object", "required": ["object", "type"] });
    let copy = tempfile::tempdir().expect("a folder for the copy");
    let spec = copy.path().join("notion-openapi.json");
    std::fs::write(&spec, description.to_string()).expect("the copy is written");
    (copy, spec)
}

/// `notion_create_page` builds Notion's nested body around three plain-text arguments: the parent
/// data source, the title as a rich-text array under the `Name` property, and the first
/// paragraph as a block of `children`.
#[test]
fn notion_create_page_builds_the_nested_body_from_plain_text() {
    let (_copy, spec) = notion_with_block_children();
    let (recorder, _logs) = start(&spec, &["/v1/pages"]);
    let results = probe(
        "notion",
        &recorder,
        &[("NOTION_TOKEN", NOTION_TOKEN)],
        &[call(
            "notion_create_page",
            json!({
                "database": "8f2c1a9e-5b3d-4c7a-9e21-0d6f4b8a3c57",
                "title": "Launch \"v2\" plan",
                "text": "Ship it on Monday.",
            }),
        )],
    );
    success(&results[0], "notion_create_page");
    recorder.assert_clean();
    let requests = recorder.requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    let body = json!({
        "parent": { "type": "database_id", "database_id": "8f2c1a9e-5b3d-4c7a-9e21-0d6f4b8a3c57" },
        "properties": { "Name": { "title": [{ "text": { "content": "Launch \"v2\" plan" } }] } },
        "children": [{
            "object": "block",
            "type": "paragraph",
            "paragraph": { "rich_text": [{ "type": "text", "text": { "content": "Ship it on Monday." } }] },
        }],
    });
    assert_request(&requests[0], "POST", "/v1/pages", &[], &body);
}

/// `notion_query_database` turns a status name into Notion's filter object, in the body of a
/// query on the data source's path.
#[test]
fn notion_query_database_sends_a_filter_built_from_the_status_name() {
    let spec = repo().join("tests/corpus/notion/notion-openapi.json");
    let (recorder, _logs) = start(&spec, &["/v1/data_sources/{data_source_id}/query"]);
    let results = probe(
        "notion",
        &recorder,
        &[("NOTION_TOKEN", NOTION_TOKEN)],
        &[call(
            "notion_query_database",
            json!({ "database": "2f1c9a", "status": "In progress" }),
        )],
    );
    success(&results[0], "notion_query_database");
    recorder.assert_clean();
    let requests = recorder.requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    let body = json!({
        "filter": { "property": "Status", "status": { "equals": "In progress" } },
        "page_size": 25,
    });
    assert_request(
        &requests[0],
        "POST",
        "/v1/data_sources/2f1c9a/query",
        &[],
        &body,
    );
}

// --- Stripe -------------------------------------------------------------------------------------

const STRIPE_KEY: &str = "sk_test_recorder";

/// Stripe's description (Swagger 2.0) documents no example answers, so Prism would invent a list
/// of customers whose emails match nothing. The recorder mocks a copy whose `GET /v1/customers`
/// has one example answer, valid against the description's own schema (two customers, every
/// required field), and whose invoice item form is described as Prism reads forms (below).
fn stripe_with_customers() -> (tempfile::TempDir, PathBuf) {
    let mut description: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("tests/corpus/stripe/spec2.json"))
            .expect("the Stripe description"),
    )
    .expect("JSON");
    let customer = |id: &str, name: &str, email: &str| {
        json!({
            "id": id, "object": "customer", "created": 1_700_000_000, "livemode": false,
            "name": name, "email": email,
            "sources": { "object": "list", "data": [], "has_more": false,
                         "url": format!("/v1/customers/{id}/sources") },
        })
    };
    let answer = description
        .pointer_mut("/paths/~1v1~1customers/get/responses/200")
        .and_then(Value::as_object_mut)
        .expect("the documented answer of GET /v1/customers");
    answer.insert(
        "examples".into(),
        json!({ "application/json": {
            "object": "list", "url": "/v1/customers", "has_more": false,
            "data": [
                customer("cus_Jenny", "Jenny Rosen", "jenny.rosen@example.com"),
                customer("cus_Ada", "Ada Lovelace", "ada@example.com"),
            ],
        } }),
    );
    // Stripe sends its bodies as forms but describes them as an `in: body` schema, which
    // Swagger 2.0 reserves for other media types; Prism (5.14.2) then knows no form body for
    // `POST /v1/invoiceitems` and answers 415 to every one. The copy describes the same fields the
    // way Swagger 2.0 describes a form (one `formData` parameter each, with its type and whether
    // it is required); the fields a form parameter cannot describe (nested objects) are left
    // out, and the server sends none of them.
    let operation = description
        .pointer_mut("/paths/~1v1~1invoiceitems/post")
        .and_then(Value::as_object_mut)
        .expect("POST /v1/invoiceitems");
    let body = operation["parameters"][0].take();
    assert_eq!(
        body["in"], "body",
        "the operation's one parameter is its body"
    );
    let required: Vec<Value> = body["schema"]["required"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let fields: Vec<Value> = body["schema"]["properties"]
        .as_object()
        .expect("the body's fields")
        .iter()
        .filter(|(_, field)| {
            matches!(
                field["type"].as_str(),
                Some("string" | "integer" | "boolean")
            )
        })
        .map(|(name, field)| {
            json!({
                "name": name, "in": "formData", "type": field["type"],
                "required": required.contains(&json!(name)),
            })
        })
        .collect();
    assert!(
        fields.len() >= 4,
        "customer, amount, currency and description: {fields:#?}"
    );
    operation.insert("parameters".into(), Value::from(fields));
    let copy = tempfile::tempdir().expect("a folder for the copy");
    let spec = copy.path().join("spec2.json");
    std::fs::write(&spec, description.to_string()).expect("the copy is written");
    (copy, spec)
}

/// The secret key goes as a bearer token on every request, and nowhere else.
fn assert_stripe_key(request: &Request) {
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {STRIPE_KEY}").as_str()),
        "the key of {}",
        request.line()
    );
}

/// `stripe_find_customer` asks Stripe for the customers with an email address (the filter is
/// Stripe's own `email` query parameter), a page of the model's `limit` (Stripe's paging: the
/// next page would start after the last id, but `has_more` is false), and shows each one's id,
/// name and email, cut to the `limit`.
#[test]
fn stripe_find_customer_filters_by_email_and_shows_the_fields_asked_for() {
    let (_copy, spec) = stripe_with_customers();
    let (recorder, _logs) = start(&spec, &["/v1/customers"]);
    let results = probe(
        "stripe",
        &recorder,
        &[("STRIPE_SECRET_KEY", STRIPE_KEY)],
        &[call(
            "stripe_find_customer",
            json!({ "email": "ada@example.com", "limit": 1 }),
        )],
    );
    let found = success(&results[0], "stripe_find_customer");
    // Prism answers with the example's two customers; the limit keeps the first, and says so.
    assert_eq!(
        found["customers"],
        json!([{ "id": "cus_Jenny", "name": "Jenny Rosen", "email": "jenny.rosen@example.com" }])
    );
    assert_eq!(found["truncated"], true, "{found:#}");
    recorder.assert_clean();
    let requests = recorder.requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    assert_request(
        &requests[0],
        "GET",
        "/v1/customers",
        &[("email", "ada@example.com"), ("limit", "1")],
        &Value::Null,
    );
    assert_stripe_key(&requests[0]);
}

/// `stripe_create_invoice_item` finds the customer by email among those Stripe lists (the second
/// of two), then posts the invoice item for that customer's id as a form, Stripe's encoding (the
/// fields in the order the description lists them), with the amount as the model gave it. An email
/// no customer has is told as such, and nothing is posted.
#[test]
fn stripe_create_invoice_item_bills_the_customer_found_by_email_with_a_form() {
    let (_copy, spec) = stripe_with_customers();
    let (recorder, _logs) = start(&spec, &["/v1/customers", "/v1/invoiceitems"]);
    let results = probe(
        "stripe",
        &recorder,
        &[("STRIPE_SECRET_KEY", STRIPE_KEY)],
        &[
            call(
                "stripe_create_invoice_item",
                json!({
                    "email": "ada@example.com",
                    "amount": 1500,
                    "currency": "usd",
                    "description": "Analytical engine & notes"
                }),
            ),
            call(
                "stripe_create_invoice_item",
                json!({
                    "email": "nobody@example.com",
                    "amount": 100,
                    "currency": "usd",
                    "description": "Nothing"
                }),
            ),
        ],
    );
    success(&results[0], "stripe_create_invoice_item");
    assert_eq!(results[1]["isError"], true, "{:#}", results[1]);
    assert!(
        results[1]
            .to_string()
            .contains("No Stripe customer has the email address nobody@example.com."),
        "{:#}",
        results[1]
    );
    recorder.assert_clean();
    let requests = recorder.requests();
    // The second call looks for the customer and posts nothing.
    assert_eq!(requests.len(), 3, "{requests:#?}");
    assert_request(
        &requests[0],
        "GET",
        "/v1/customers",
        &[("email", "ada@example.com")],
        &Value::Null,
    );
    assert_request(
        &requests[1],
        "POST",
        "/v1/invoiceitems",
        &[],
        &json!({ "form": [
            ["amount", "1500"],
            ["currency", "usd"],
            ["customer", "cus_Ada"],
            ["description", "Analytical engine & notes"],
        ] }),
    );
    assert_request(
        &requests[2],
        "GET",
        "/v1/customers",
        &[("email", "nobody@example.com")],
        &Value::Null,
    );
    for request in &requests {
        assert_stripe_key(request);
    }
}
