//! The curation file's soundness: what `mcpgen check` accepts generates a crate that compiles with
//! no warnings and sends the API exactly what the file says, and what it cannot serve is refused
//! at check time. One case per class of bug found on real APIs, over `tests/fixtures/soundness/`
//! (a small API that nests values in request bodies). Refusals pin the rendered diagnostics in
//! `tests/soundness/<case>.txt` (`UPDATE_GOLDEN=1` rewrites them); generated servers are called
//! over stdio and the requests a recording upstream received are compared whole.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use axum::response::IntoResponse;
use serde_json::{Value, json};

use crate::support;
use crate::support::repo;

fn fixtures() -> PathBuf {
    repo().join("tests/fixtures/soundness")
}

/// The fixture's curation file with each `(from, to)` replacement made (each `from` once).
fn curation_with(edits: &[(&str, &str)]) -> String {
    let mut text = std::fs::read_to_string(fixtures().join("mcpgen.yaml")).expect("the fixture");
    for (from, to) in edits {
        assert_eq!(text.matches(from).count(), 1, "`{from}` must occur once");
        text = text.replacen(from, to, 1);
    }
    text
}

/// Checks `text` against the fixture API: it must be refused with the golden diagnostics `case`.
fn refused(case: &str, text: &str) {
    let api = mcpgen::load::load(&fixtures().join("openapi.yaml")).expect("the fixture loads");
    let error = match mcpgen::curate::check_text(Path::new("mcpgen.yaml"), text, &api) {
        Ok(_) => panic!("check accepts a file it cannot serve:\n{text}"),
        Err(error) => error.rendered,
    };
    let path = repo().join("tests/soundness").join(format!("{case}.txt"));
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("the folder");
        std::fs::write(&path, &error).expect("the golden file is written");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; UPDATE_GOLDEN=1 writes it:\n{error}",
            path.display()
        )
    });
    assert_eq!(expected, error, "the diagnostics of {case}");
}

/// One request as the upstream received it.
#[derive(Debug, Clone, PartialEq)]
struct Received {
    method: String,
    path: String,
    query: Option<String>,
    body: Value,
}

/// An upstream on 127.0.0.1 that records every request and answers from `answers` (by method
/// and path, or path and query; 404 otherwise; a JSON string is answered as text). Returns its base URL (with the spec's `/api` prefix) and the log.
fn recording_upstream(
    runtime: &tokio::runtime::Runtime,
    answers: Vec<(&'static str, &'static str, u16, Value)>,
) -> (String, Arc<Mutex<Vec<Received>>>) {
    let log: Arc<Mutex<Vec<Received>>> = Arc::default();
    let recorded = log.clone();
    let app = axum::Router::new().fallback(move |request: axum::extract::Request| {
        let recorded = recorded.clone();
        let answers = answers.clone();
        async move {
            let method = request.method().to_string();
            let path = request.uri().path().to_string();
            let query = request.uri().query().map(str::to_string);
            // An answer for `path?query` is for that query only; one for `path`, for any.
            let with_query = match &query {
                Some(query) => format!("{path}?{query}"),
                None => path.clone(),
            };
            let bytes = axum::body::to_bytes(request.into_body(), 1 << 20)
                .await
                .unwrap_or_default();
            let body = if bytes.is_empty() {
                Value::Null
            } else {
                serde_json::from_slice(&bytes)
                    .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
            };
            recorded.lock().expect("the log").push(Received {
                method: method.clone(),
                path: path.clone(),
                query,
                body,
            });
            match answers
                .iter()
                .find(|(m, p, _, _)| *m == method && *p == with_query)
                .or_else(|| {
                    answers
                        .iter()
                        .find(|(m, p, _, _)| *m == method && *p == path)
                }) {
                // A JSON string stands for an answer in text (`text/plain`), not JSON.
                Some((_, _, status, Value::String(text))) => (
                    axum::http::StatusCode::from_u16(*status).expect("a status"),
                    text.clone(),
                )
                    .into_response(),
                Some((_, _, status, answer)) => (
                    axum::http::StatusCode::from_u16(*status).expect("a status"),
                    axum::Json(answer.clone()),
                )
                    .into_response(),
                None => (
                    axum::http::StatusCode::NOT_FOUND,
                    axum::Json(json!({"message": "no such route"})),
                )
                    .into_response(),
            }
        }
    });
    let address = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port on 127.0.0.1");
        let address = listener.local_addr().expect("its address");
        tokio::spawn(async move { axum::serve(listener, app).await });
        address
    });
    (format!("http://{address}/api"), log)
}

/// One `tools/call` to the fixture's server, its API at `base_url`; the `result`.
fn call(binary: &Path, base_url: &str, tool: &str, arguments: Value) -> Value {
    support::call_over_stdio(
        binary,
        &[("BOARDS_BASE_URL", base_url)],
        &[],
        tool,
        arguments,
    )
}

/// The fixture's server, generated, checked by clippy and built once per test process.
fn boards() -> &'static Path {
    static BINARY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BINARY.get_or_init(|| {
        support::generate_and_build(
            "soundness",
            &fixtures().join("openapi.yaml"),
            Some(&fixtures().join("mcpgen.yaml")),
        )
    })
}

#[test]
fn step_arguments_nested_in_objects_and_lists_reach_the_api_as_values_and_steps_count_from_the_file()
 {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/issues/WEB-1/transitions",
                200,
                json!({"transitions": [{"id": "11", "name": "Start"}, {"id": "31", "name": "Done"}]}),
            ),
            ("POST", "/api/issues/WEB-1/transitions", 200, json!({})),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_move_issue",
        json!({"issue": "WEB-1", "transition": "Done"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let received = log.lock().expect("the log").clone();
    assert_eq!(
        received,
        [
            Received {
                method: "GET".into(),
                path: "/api/issues/WEB-1/transitions".into(),
                query: None,
                body: Value::Null,
            },
            Received {
                method: "POST".into(),
                path: "/api/issues/WEB-1/transitions".into(),
                query: None,
                body: json!({
                    "transition": {"id": "31"},
                    "fields": {"resolution": {"name": "Fixed"}, "labels": ["triaged", "Done"]},
                }),
            },
        ]
    );

    // The third step fails: its error names it as the file numbers it (a `find` step is step 2).
    log.lock().expect("the log").clear();
    let (failing_url, _) = recording_upstream(
        &runtime,
        vec![(
            "GET",
            "/api/issues/WEB-1/transitions",
            200,
            json!({"transitions": [{"id": "31", "name": "Done"}]}),
        )],
    );
    let result = call(
        binary,
        &failing_url,
        "boards_move_issue",
        json!({"issue": "WEB-1", "transition": "Done"}),
    );
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("Step 3 (doTransition) failed"), "{text}");
}

#[test]
fn an_earlier_steps_answer_that_does_not_fit_stops_the_workflow_there_as_the_apis_fault() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    // What the later steps read of step 1's answer (`transitions`, each one's `id` and `name`)
    // is garbled three ways: the write of step 3 must never be sent.
    let garbled = [
        (
            json!("<html>maintenance</html>"),
            "the answer: text, not JSON",
        ),
        (
            json!([1, 2, 3]),
            "the answer: [1,2,3] is not of type \"object\"",
        ),
        (
            json!({"transitions": [{"id": 31, "name": "Done"}]}),
            "at /transitions/0/id: 31 is not of type \"string\"",
        ),
    ];
    for (answer, problem) in garbled {
        let answers = vec![("GET", "/api/issues/WEB-1/transitions", 200, answer.clone())];
        let (base_url, log) = recording_upstream(&runtime, answers);
        let result = call(
            binary,
            &base_url,
            "boards_move_issue",
            json!({"issue": "WEB-1", "transition": "Done"}),
        );
        assert_eq!(result["isError"], true, "{answer}: {result}");
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            text.starts_with(&format!(
                "The API's answer to step 1 (getTransitions) does not have the shape the API documents ({problem}"
            )),
            "{answer}: {text}"
        );
        assert!(
            text.contains("tell the user the API may have changed"),
            "{text}"
        );
        let received = log.lock().expect("the log").clone();
        assert_eq!(
            received,
            [Received {
                method: "GET".into(),
                path: "/api/issues/WEB-1/transitions".into(),
                query: None,
                body: Value::Null,
            }],
            "{answer}: only step 1 was sent"
        );
    }
}

#[test]
fn a_workflow_parameter_takes_the_format_and_least_length_of_the_api_field_it_fills() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![("POST", "/api/reminders", 201, json!({"id": "r1"}))],
    );
    // Refused as an argument before anything is sent: the API's `due_on` is a date.
    let result = call(
        binary,
        &base_url,
        "boards_remind",
        json!({"text": "Buy milk", "due": "next friday"}),
    );
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("due") && text.contains("date"), "{text}");
    assert!(log.lock().expect("the log").is_empty());
    // And an empty text, which the API's `text` refuses (`minLength: 1`).
    let result = call(
        binary,
        &base_url,
        "boards_remind",
        json!({"text": "", "due": "2026-12-24"}),
    );
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("text"), "{text}");
    assert!(log.lock().expect("the log").is_empty());
    let result = call(
        binary,
        &base_url,
        "boards_remind",
        json!({"text": "Buy milk", "due": "2026-12-24"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        log.lock().expect("the log").clone(),
        [Received {
            method: "POST".into(),
            path: "/api/reminders".into(),
            query: None,
            body: json!({"data": {"text": "Buy milk", "due_on": "2026-12-24"}}),
        }]
    );
}

/// The generated source of the fixture's tool `name` (its module in `src/tools.rs`).
fn tool_source(name: &str) -> String {
    boards();
    let tools = std::fs::read_to_string(repo().join("target/e2e/soundness/src/tools.rs"))
        .expect("the generated tools.rs");
    let start = tools
        .find(&format!("pub mod {name} {{"))
        .unwrap_or_else(|| panic!("no module {name}"));
    let end = tools[start + 1..]
        .find("\npub mod ")
        .map_or(tools.len(), |end| start + 1 + end);
    tools[start..end].to_string()
}

#[test]
fn an_argument_of_the_parameters_own_type_fills_it_as_a_rust_value_the_compiler_checks() {
    // Text into text, a list of text into one (optional there, so wrapped), in a workflow step
    // and in a one-call tool: moved into the `*Params` struct, not converted from JSON at run
    // time; the crate passing clippy with warnings denied (in `boards()`) is the compiler's proof.
    let label_issue = tool_source("boards_label_issue");
    assert!(
        label_issue.contains("key: input.issue.clone(),"),
        "{label_issue}"
    );
    assert!(
        label_issue.contains("watchers: Some(input.watchers.clone()),"),
        "{label_issue}"
    );
    assert!(
        !label_issue.contains("curated::json(&input.issue)"),
        "no JSON copy of an argument used as it is: {label_issue}"
    );
    let create_issue = tool_source("boards_create_issue");
    assert!(
        create_issue.contains("title: input.title.clone(),"),
        "{create_issue}"
    );
    // A resolved value is the API's id, converted where the API's type wants it.
    assert!(
        create_issue
            .contains("label_ids: curated::checked(\"createIssue\", \"labelIds\", &arg_labels)?"),
        "{create_issue}"
    );
}

#[test]
fn a_choice_of_the_model_picks_the_one_call_whose_when_holds_and_the_tool_returns_its_answer() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "POST",
                "/api/projects/p1/archive",
                200,
                json!({"gid": "p1", "archived": true}),
            ),
            (
                "POST",
                "/api/projects/p1/unarchive",
                200,
                json!({"gid": "p1", "archived": false}),
            ),
        ],
    );
    for (state, path, archived) in [
        ("archived", "/api/projects/p1/archive", true),
        ("active", "/api/projects/p1/unarchive", false),
    ] {
        log.lock().expect("the log").clear();
        let result = call(
            binary,
            &base_url,
            "boards_set_project_state",
            json!({"project": "p1", "state": state}),
        );
        assert_ne!(result["isError"], true, "{result}");
        assert_eq!(
            result["structuredContent"],
            json!({"gid": "p1", "archived": archived}),
            "{state}: the answer of the call that ran"
        );
        let received = log.lock().expect("the log").clone();
        assert_eq!(
            received,
            [Received {
                method: "POST".into(),
                path: path.into(),
                query: None,
                body: Value::Null,
            }],
            "{state}: only the call whose `when` holds is made"
        );
    }
}

#[test]
fn the_detailed_format_can_ask_the_api_for_more_through_a_call_of_its_own() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let task = json!({"data": {"gid": "t7", "name": "Ship it", "notes": "Before Friday"}});
    let (base_url, log) = recording_upstream(&runtime, vec![("GET", "/api/tasks/t7", 200, task)]);
    for (format, query, shown) in [
        (
            "concise",
            "opt_fields=name",
            json!({"gid": "t7", "name": "Ship it"}),
        ),
        (
            "detailed",
            "opt_fields=name%2Cnotes",
            json!({"gid": "t7", "name": "Ship it", "notes": "Before Friday"}),
        ),
    ] {
        log.lock().expect("the log").clear();
        let result = call(
            binary,
            &base_url,
            "boards_show_task",
            json!({"task": "t7", "response_format": format}),
        );
        assert_ne!(result["isError"], true, "{result}");
        assert_eq!(result["structuredContent"], shown, "{format}");
        let received = log.lock().expect("the log").clone();
        assert_eq!(
            received,
            [Received {
                method: "GET".into(),
                path: "/api/tasks/t7".into(),
                query: Some(query.into()),
                body: Value::Null,
            }],
            "{format}: the fields asked for"
        );
    }
}

#[test]
fn a_list_of_readable_values_becomes_one_object_per_id_in_a_body_of_parts() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let members = json!({"values": [
        {"user": {"uuid": "{u-bob}", "display_name": "Bob Stone"}},
        {"user": {"uuid": "{u-ann}", "display_name": "Ann Lee"}},
    ]});
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            ("GET", "/api/members", 200, members),
            (
                "GET",
                "/api/user",
                200,
                json!({"uuid": "{u-me}", "display_name": "Me"}),
            ),
            (
                "POST",
                "/api/repos/web/pullrequests",
                201,
                json!({"id": 7, "title": "Faster search"}),
            ),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_open_pull_request",
        json!({"repo": "web", "title": "Faster search", "reviewers": ["bob stone", "me"]}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"],
        json!({"id": 7, "title": "Faster search"})
    );
    let received = log.lock().expect("the log").clone();
    let (lookups, sent): (Vec<_>, Vec<_>) = received.into_iter().partition(|r| r.method == "GET");
    let mut looked_up: Vec<&str> = lookups.iter().map(|r| r.path.as_str()).collect();
    looked_up.sort_unstable();
    assert_eq!(
        looked_up,
        ["/api/members", "/api/user"],
        "the members listed, and `me` asked of the user's own operation"
    );
    // The body's parts are one object: `type` from the base, the rest its own, each reviewer an
    // object with the id read from where each answer holds it.
    assert_eq!(
        sent,
        [Received {
            method: "POST".into(),
            path: "/api/repos/web/pullrequests".into(),
            query: None,
            body: json!({
                "type": "pullrequest",
                "title": "Faster search",
                "reviewers": [{"uuid": "{u-bob}"}, {"uuid": "{u-me}"}],
            }),
        }]
    );

    // Without reviewers, the list is left out rather than sent empty or null.
    log.lock().expect("the log").clear();
    let result = call(
        binary,
        &base_url,
        "boards_open_pull_request",
        json!({"repo": "web", "title": "Faster search"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let received = log.lock().expect("the log").clone();
    assert_eq!(
        received,
        [Received {
            method: "POST".into(),
            path: "/api/repos/web/pullrequests".into(),
            query: None,
            body: json!({"type": "pullrequest", "title": "Faster search"}),
        }]
    );
}

#[test]
fn each_refuses_what_is_not_a_list_and_item_fields_the_items_lack() {
    refused(
        "each_misuse",
        &curation_with(&[(
            "reviewers: { $each: $reviewers, uuid: $item }",
            "reviewers: { $each: $title, uuid: $item.id }",
        )]),
    );
}

#[test]
fn a_list_whose_items_do_not_fit_the_apis_items_is_refused() {
    refused(
        "list_items_mistyped",
        &curation_with(&[(
            "reviewers: { $each: $reviewers, uuid: $item }",
            "reviewers: $reviewers",
        )]),
    );
}

#[test]
fn an_alias_whose_answer_lacks_the_resolvers_id_path_is_refused() {
    refused(
        "alias_answer_shape",
        &curation_with(&[(
            "aliases: { me: { call: getCurrentUser, id: uuid } }",
            "aliases: { me: getCurrentUser }",
        )]),
    );
}

#[test]
fn a_workflow_parameter_no_step_reads_is_refused() {
    refused(
        "param_read_by_no_step",
        &curation_with(&[(
            "      title: { type: string, description: The pull request's title }\n",
            "      title: { type: string, description: The pull request's title }\n      reason: { type: string, description: Why }\n",
        )]),
    );
}

#[test]
fn a_required_query_built_from_no_argument_is_refused_and_nothing_is_sent() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![(
            "GET",
            "/api/albums/search",
            200,
            json!({"albums": [{"name": "Pastel Blues"}]}),
        )],
    );
    let result = call(binary, &base_url, "boards_find_albums", json!({}));
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["content"][0]["text"],
        "Give at least one of artist, year: the API needs `q`, which is built from them."
    );
    assert_eq!(log.lock().expect("the log").len(), 0, "nothing is sent");
    let result = call(
        binary,
        &base_url,
        "boards_find_albums",
        json!({"artist": "Nina Simone"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let received = log.lock().expect("the log").clone();
    assert_eq!(
        received
            .iter()
            .map(|r| (r.method.as_str(), r.path.as_str(), r.query.as_deref()))
            .collect::<Vec<_>>(),
        [(
            "GET",
            "/api/albums/search",
            Some("q=artist%3A%22Nina+Simone%22")
        )]
    );
}

#[test]
fn a_text_cursor_sent_back_as_a_page_number_is_refused() {
    refused(
        "cursor_text_into_integer",
        &curation_with(&[(
            "      words: { from: q, description: \"Words to find, for example upgrade\" }\n    pagination: { style: page, page_param: page, size_param: none }",
            "      words: { from: q, description: \"Words to find, for example upgrade\" }\n    pagination: { style: cursor, cursor_param: page, next_cursor: posts.0.blurb, size_param: none }",
        )]),
    );
}

#[test]
fn a_quoted_null_in_a_declared_type_list_is_the_null_type() {
    let text = curation_with(&[(
        "          assignee: { type: object, properties: { displayName: { type: string } } }\n",
        "          assignee: { type: object, properties: { displayName: { type: [string, \"null\"] } } }\n",
    )]);
    let api = mcpgen::load::load(&fixtures().join("openapi.yaml")).expect("the fixture loads");
    if let Err(error) = mcpgen::curate::check_text(Path::new("mcpgen.yaml"), &text, &api) {
        panic!(
            "`type: [string, \"null\"]` is a type list:\n{}",
            error.rendered
        );
    }
}

#[test]
fn a_next_page_url_in_the_body_is_followed_until_the_api_gives_none() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/repos/web/pullrequests?page=2",
                200,
                json!({"values": [{"id": 3, "title": "Third"}]}),
            ),
            (
                "GET",
                "/api/repos/web/pullrequests",
                200,
                json!({
                    "values": [{"id": 1, "title": "First"}, {"id": 2, "title": "Second"}],
                    "next": "/api/repos/web/pullrequests?page=2",
                }),
            ),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_pull_requests",
        json!({"repo": "web", "limit": 10}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"],
        json!({
            "items": [
                {"id": 1, "title": "First"},
                {"id": 2, "title": "Second"},
                {"id": 3, "title": "Third"},
            ],
            "truncated": false,
        })
    );
    let received = log.lock().expect("the log").clone();
    assert_eq!(
        received
            .iter()
            .map(|r| (r.method.as_str(), r.path.as_str(), r.query.as_deref()))
            .collect::<Vec<_>>(),
        [
            ("GET", "/api/repos/web/pullrequests", None),
            ("GET", "/api/repos/web/pullrequests", Some("page=2")),
        ],
        "the first page, then the URL its body gave"
    );
}

#[test]
fn a_when_comparing_an_enum_parameter_with_a_readable_name_is_refused_naming_the_codes() {
    refused(
        "when_readable_name_not_code",
        &curation_with(&[(
            "when: { equal: [$state, archive] }",
            "when: { equal: [$state, archived] }",
        )]),
    );
}

#[test]
fn if_beside_each_is_refused() {
    refused(
        "each_with_if",
        &curation_with(&[(
            "reviewers: { $each: $reviewers, uuid: $item }",
            "reviewers: { $each: $reviewers, $if: $title, uuid: $item }",
        )]),
    );
}

#[test]
fn calls_chosen_by_a_flag_cover_both_its_values() {
    let text = with_choice(
        "      - call: archiveProject\n        when: { equal: [$archive, true] }\n        args: { gid: $project }\n      - call: unarchiveProject\n        when: { equal: [$archive, false] }\n        args: { gid: $project }\n",
        "",
    )
    .replace(
        "      state: { enum: project_state, description: \"archived or active\" }\n",
        "      archive: { type: boolean, description: \"true to archive, false to bring back\" }\n",
    );
    let api = mcpgen::load::load(&fixtures().join("openapi.yaml")).expect("the fixture loads");
    let curation = mcpgen::curate::parse(&text).expect("it parses");
    let (_, found) = mcpgen::curate::check::check(&api, curation);
    assert_eq!(
        found.iter().map(|d| d.message.as_str()).collect::<Vec<_>>(),
        Vec::<&str>::new(),
        "true and false are every value a flag has"
    );
}

/// The fixture with `set_project_state`'s steps replaced by `steps` (and `results` by `results`).
fn with_choice(steps: &str, results: &str) -> String {
    curation_with(&[(
        "      - call: archiveProject\n        when: { equal: [$state, archive] }\n        args: { gid: $project }\n      - call: unarchiveProject\n        when: { equal: [$state, unarchive] }\n        args: { gid: $project }\n    results:\n      fields: { gid: gid, archived: archived }\n",
        &format!("{steps}{results}"),
    )])
}

#[test]
fn reading_the_answer_of_a_call_that_may_not_run_is_refused_outside_its_condition() {
    refused(
        "when_answer_read_outside",
        &with_choice(
            "      - call: archiveProject\n        as: archived\n        when: { equal: [$state, archive] }\n        args: { gid: $project }\n      - call: unarchiveProject\n        args: { gid: $archived.gid }\n",
            "",
        ),
    );
}

#[test]
fn a_list_result_from_a_call_that_may_not_run_and_a_result_named_after_one_are_refused() {
    refused(
        "when_list_and_from",
        &with_choice(
            "      - call: archiveProject\n        as: archived\n        when: { equal: [$state, archive] }\n        args: { gid: $project }\n      - call: listProjects\n        when: { equal: [$state, unarchive] }\n",
            "    results:\n      from: $archived\n      items: values\n",
        ),
    );
}

#[test]
fn calls_whose_conditions_may_all_fail_with_nothing_before_them_are_a_warning() {
    let text = with_choice(
        "      - call: archiveProject\n        when: { equal: [$state, archive] }\n        args: { gid: $project }\n",
        "",
    );
    let api = mcpgen::load::load(&fixtures().join("openapi.yaml")).expect("the fixture loads");
    let curation = mcpgen::curate::parse(&text).expect("it parses");
    let (_, found) = mcpgen::curate::check::check(&api, curation);
    let messages: Vec<&str> = found.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "when no `when` of step 1 holds, the tool calls nothing and answers that nothing was done"
        ],
        "one step for one of the enum's two codes"
    );
    assert!(
        found
            .iter()
            .all(|d| d.severity == mcpgen::curate::Severity::Warning)
    );
}

#[test]
fn when_belongs_to_call_steps_only() {
    refused(
        "when_on_find",
        &curation_with(&[(
            "      - find: $available.transitions\n",
            "      - find: $available.transitions\n        when: { equal: [$issue, WEB-1] }\n",
        )]),
    );
}

#[test]
fn an_object_parameter_compiles_and_a_quoted_fixed_value_is_sent_as_text() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![("POST", "/api/notes", 201, json!({"id": "n1"}))],
    );
    let result = call(
        binary,
        &base_url,
        "boards_create_note",
        json!({"data": {"text": "hello", "tags": ["a"]}}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let received = log.lock().expect("the log").clone();
    assert_eq!(
        received,
        [Received {
            method: "POST".into(),
            path: "/api/notes".into(),
            query: None,
            body: json!({"data": {"text": "hello", "tags": ["a"]}, "pinned": "true"}),
        }]
    );
}

#[test]
fn a_text_where_the_api_takes_an_object_is_refused_at_check_time() {
    refused(
        "text_for_an_object",
        &curation_with(&[("transition: { id: $chosen.id }", "transition: $chosen.id")]),
    );
}

#[test]
fn a_field_the_nested_body_does_not_have_is_refused_with_a_suggestion() {
    refused(
        "unknown_nested_field",
        &curation_with(&[("resolution: { name: Fixed }", "resolutoin: { name: Fixed }")]),
    );
}

#[test]
fn a_list_where_the_api_takes_text_is_refused() {
    refused(
        "list_for_text",
        &curation_with(&[("key: $issue\n", "key: [$issue]\n")]),
    );
}

#[test]
fn a_number_where_the_api_takes_text_is_refused() {
    refused(
        "number_for_text",
        &curation_with(&[("resolution: { name: Fixed }", "resolution: { name: 3 }")]),
    );
}

#[test]
fn a_step_result_path_the_spec_cannot_verify_is_a_warning_naming_it() {
    let text = curation_with(&[(
        "      - call: getTransitions\n        as: available\n        args: { key: $issue }",
        "      - call: getIssue\n        as: found\n        args: { key: $issue }\n      - call: getTransitions\n        as: available\n        args: { key: $found.key }",
    )]);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let curation = dir.path().join("mcpgen.yaml");
    std::fs::write(&curation, text).expect("the file is written");
    let output = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .arg("check")
        .arg(fixtures().join("openapi.yaml"))
        .arg("-c")
        .arg(&curation)
        .args(["--deny-warnings", "--color", "never"])
        .output()
        .expect("mcpgen runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "warning: `$found.key` cannot be checked: the API description documents no schema for the answer of `found`"
        ) && stderr.contains("mcpgen.yaml:27:22"),
        "{stderr}"
    );
    assert!(stderr.contains("1 warning"), "only that warning: {stderr}");
}

#[test]
fn a_list_result_of_a_workflow_whose_last_step_does_not_list_is_refused() {
    // `results.items` lists the answer of the last step: here the last step is a `find`.
    refused(
        "workflow_results_limit",
        &curation_with(&[(
            "        missing: No project is named {project}; the projects are {available}.\n      - call: searchProjectIssues\n        args: { id: $found.id }\n",
            "        missing: No project is named {project}; the projects are {available}.\n",
        )]),
    );
}

#[test]
fn a_workflow_step_that_sets_a_paging_parameter_itself_is_refused() {
    refused(
        "workflow_step_sets_paging",
        &curation_with(&[(
            "args: { id: $found.id }",
            "args: { id: $found.id, startAt: 5 }",
        )]),
    );
}

#[test]
fn a_total_that_is_no_count_is_refused() {
    refused(
        "paging_total_not_a_count",
        &curation_with(&[("      total: total\n", "      total: issues\n")]),
    );
}

/// A workflow whose result is a list walks its last step's pages like a one-call list tool:
/// startAt/maxResults/total paging goes on past a page shorter than asked for (the API gives at
/// most 2 a page) until `total` items came, and a `limit` below that stops after the first page
/// and says more exist.
#[test]
fn a_workflow_walks_the_pages_of_its_last_step_up_to_the_limit_and_the_total() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let issue = |key: &str, summary: &str| json!({"key": key, "fields": {"summary": summary}});
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/projects",
                200,
                json!({"values": [{"id": "20", "name": "Mobile"}, {"id": "10", "name": "Website"}]}),
            ),
            (
                "GET",
                "/api/projects/10/issues?startAt=0&maxResults=10",
                200,
                json!({"startAt": 0, "maxResults": 2, "total": 3,
                       "issues": [issue("WEB-1", "Login fails"), issue("WEB-2", "Slow search")]}),
            ),
            (
                "GET",
                "/api/projects/10/issues?startAt=2&maxResults=10",
                200,
                json!({"startAt": 2, "maxResults": 2, "total": 3,
                       "issues": [issue("WEB-3", "Typo on home page")]}),
            ),
            (
                "GET",
                "/api/projects/10/issues?startAt=0&maxResults=2",
                200,
                json!({"startAt": 0, "maxResults": 2, "total": 3,
                       "issues": [issue("WEB-1", "Login fails"), issue("WEB-2", "Slow search")]}),
            ),
        ],
    );
    let get = |path: &str, query: Option<&str>| Received {
        method: "GET".into(),
        path: path.into(),
        query: query.map(str::to_string),
        body: Value::Null,
    };
    let result = call(
        binary,
        &base_url,
        "boards_project_issues",
        json!({"project": "website", "limit": 10}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"],
        json!({
            "issues": [
                {"key": "WEB-1", "summary": "Login fails"},
                {"key": "WEB-2", "summary": "Slow search"},
                {"key": "WEB-3", "summary": "Typo on home page"},
            ],
            "truncated": false,
        })
    );
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            get("/api/projects", None),
            get("/api/projects/10/issues", Some("startAt=0&maxResults=10")),
            get("/api/projects/10/issues", Some("startAt=2&maxResults=10")),
        ]
    );

    log.lock().expect("the log").clear();
    let result = call(
        binary,
        &base_url,
        "boards_project_issues",
        json!({"project": "Website", "limit": 2}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"]["issues"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    assert_eq!(result["structuredContent"]["truncated"], true, "{result}");
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            get("/api/projects", None),
            get("/api/projects/10/issues", Some("startAt=0&maxResults=2")),
        ]
    );
}

#[test]
fn stripe_paging_asks_after_the_last_id_and_has_more_decides_whether_to_go_on() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let customer = |id: &str| json!({"id": id, "email": "ada@example.com"});
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/customers?email=ada%40example.com&limit=2",
                200,
                json!({"has_more": true, "data": [customer("cus_1"), customer("cus_2")]}),
            ),
            // A page shorter than asked for, and `has_more` says more follow.
            (
                "GET",
                "/api/customers?email=ada%40example.com&starting_after=cus_2&limit=2",
                200,
                json!({"has_more": true, "data": [customer("cus_3")]}),
            ),
            (
                "GET",
                "/api/customers?email=ada%40example.com&starting_after=cus_3&limit=2",
                200,
                json!({"has_more": false, "data": [customer("cus_4")]}),
            ),
            // A full page that says it is the last.
            (
                "GET",
                "/api/customers?email=bob%40example.com&limit=2",
                200,
                json!({"has_more": false, "data": [customer("cus_8"), customer("cus_9")]}),
            ),
        ],
    );
    let get = |query: &str| Received {
        method: "GET".into(),
        path: "/api/customers".into(),
        query: Some(query.to_string()),
        body: Value::Null,
    };
    let result = call(
        binary,
        &base_url,
        "boards_find_customers",
        json!({"email": "ada@example.com", "limit": 5}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"],
        json!({
            "customers": [{"id": "cus_1"}, {"id": "cus_2"}, {"id": "cus_3"}, {"id": "cus_4"}],
            "truncated": false,
        })
    );
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            get("email=ada%40example.com&limit=2"),
            get("email=ada%40example.com&starting_after=cus_2&limit=2"),
            get("email=ada%40example.com&starting_after=cus_3&limit=2"),
        ]
    );

    log.lock().expect("the log").clear();
    let result = call(
        binary,
        &base_url,
        "boards_find_customers",
        json!({"email": "bob@example.com", "limit": 10}),
    );
    assert_eq!(
        result["structuredContent"],
        json!({"customers": [{"id": "cus_8"}, {"id": "cus_9"}], "truncated": false}),
        "{result}"
    );
    assert_eq!(
        log.lock().expect("the log").clone(),
        [get("email=bob%40example.com&limit=2")],
        "`has_more: false` ends the walk after a full page"
    );
}

#[test]
fn paging_keys_of_another_style_and_a_has_more_that_is_no_boolean_are_refused() {
    refused(
        "paging_keys_of_another_style",
        &curation_with(&[
            (
                "      cursor_param: starting_after\n",
                "      cursor_param: starting_after\n      next_cursor: has_more\n      offset_param: limit\n",
            ),
            ("      has_more: has_more\n", "      has_more: data\n"),
        ]),
    );
}

#[test]
fn a_resolver_whose_list_needs_an_argument_is_refused() {
    refused(
        "resolver_list_needs_argument",
        &curation_with(&[(
            "resolvers:\n",
            "resolvers:\n  project:\n    list: listWorkspaceProjects\n    items: data\n    match: [name]\n    id: gid\n",
        )]),
    );
}

#[test]
fn a_lookup_over_an_operation_that_answers_with_a_list_is_refused() {
    refused(
        "lookup_answers_a_list",
        &curation_with(&[(
            "    list: listUsers\n    items: users\n    match: [displayName, email]\n",
            "    lookup: findUsers\n    lookup_param: name\n",
        )]),
    );
}

#[test]
fn offset_paging_over_a_text_offset_is_refused_with_cursor_paging_suggested() {
    refused(
        "offset_is_text",
        &curation_with(&[
            (
                "operations:\n  mirror: none\n",
                "operations:\n  mirror: none\n\npagination:\n  style: offset\n  items: events\n",
            ),
            (
                "tools:\n",
                "tools:\n  list_events:\n    description: List the events, newest first. Returns at most `limit` events.\n    call: listEvents\n    results:\n      items: events\n      limit: { default: 10, max: 50 }\n",
            ),
        ]),
    );
}

#[test]
fn find_matches_text_ignoring_case_and_its_missing_message_lists_what_was_there() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let transitions =
        json!({"transitions": [{"id": "11", "name": "Start"}, {"id": "31", "name": "Done"}]});
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            ("GET", "/api/issues/WEB-1/transitions", 200, transitions),
            ("POST", "/api/issues/WEB-1/transitions", 200, json!({})),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_move_issue",
        json!({"issue": "WEB-1", "transition": "done"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let posted = log.lock().expect("the log")[1].body.clone();
    assert_eq!(
        posted["transition"],
        json!({"id": "31"}),
        "`done` finds Done"
    );

    log.lock().expect("the log").clear();
    let result = call(
        binary,
        &base_url,
        "boards_move_issue",
        json!({"issue": "WEB-1", "transition": "Close"}),
    );
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["content"][0]["text"],
        "Issue WEB-1 has no transition named Close; it can take Start, Done."
    );
    let methods: Vec<String> = log
        .lock()
        .expect("the log")
        .iter()
        .map(|r| r.method.clone())
        .collect();
    assert_eq!(
        methods,
        ["GET"],
        "nothing is posted when the transition is missing"
    );
}

#[test]
fn find_refuses_to_pick_among_several_matches_and_names_each_by_what_tells_them_apart() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let transitions = json!({"transitions": [
        {"id": "11", "name": "Start", "to": "In progress"},
        {"id": "31", "name": "Done", "to": "Closed"},
        {"id": "41", "name": "done", "to": "Resolved"},
        // The same item twice is one match, not an ambiguity.
        {"id": "11", "name": "Start", "to": "In progress"},
    ]});
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            ("GET", "/api/issues/WEB-1/transitions", 200, transitions),
            ("POST", "/api/issues/WEB-1/transitions", 200, json!({})),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_move_issue",
        json!({"issue": "WEB-1", "transition": "Done"}),
    );
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["content"][0]["text"],
        "More than one transition matches: id 31, name Done, to Closed; id 41, name done, to Resolved. \
         This tool cannot choose between them; tell the user which ones were found."
    );
    let requests: Vec<(String, String)> = log
        .lock()
        .expect("the log")
        .iter()
        .map(|r| (r.method.clone(), r.path.clone()))
        .collect();
    assert_eq!(
        requests,
        [(
            "GET".to_string(),
            "/api/issues/WEB-1/transitions".to_string()
        )],
        "nothing is posted when the transition is ambiguous"
    );

    log.lock().expect("the log").clear();
    let result = call(
        binary,
        &base_url,
        "boards_move_issue",
        json!({"issue": "WEB-1", "transition": "start"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let log = log.lock().expect("the log");
    assert_eq!(log.len(), 2, "{log:?}");
    assert_eq!(log[1].method, "POST");
    assert_eq!(
        log[1].body["transition"],
        json!({"id": "11"}),
        "a repeated item is one match"
    );
}

#[test]
fn a_step_key_its_kind_does_not_use_is_refused() {
    // `missing` on a `call` and `args` on a `find` would be silently ignored.
    refused(
        "step_key_misplaced",
        &curation_with(&[
            (
                "        as: available\n        args: { key: $issue }",
                "        as: available\n        args: { key: $issue }\n        missing: No transitions.",
            ),
            (
                "        where: { name: $transition }",
                "        where: { name: $transition }\n        args: { key: $issue }",
            ),
        ]),
    );
}

#[test]
fn a_message_placeholder_that_names_no_parameter_is_a_warning_with_a_suggestion() {
    let text = curation_with(&[(
        "missing: Issue {issue} has no transition named {transition}; it can take {available}.",
        "missing: Issue {isue} has no transition named {transition}; it can take {available}.",
    )]);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let curation = dir.path().join("mcpgen.yaml");
    std::fs::write(&curation, text).expect("the file is written");
    let output = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .arg("check")
        .arg(fixtures().join("openapi.yaml"))
        .arg("-c")
        .arg(&curation)
        .args(["--deny-warnings", "--color", "never"])
        .output()
        .expect("mcpgen runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "warning: `{isue}` in this message names no parameter of the tool; the model would read it as written"
        ) && stderr.contains("did you mean `issue`?")
            && stderr.contains("mcpgen.yaml:28:18"),
        "{stderr}"
    );
    assert!(stderr.contains("1 warning"), "only that warning: {stderr}");
}

fn labels_and_users() -> Vec<(&'static str, &'static str, u16, Value)> {
    vec![
        (
            "GET",
            "/api/labels",
            200,
            json!([{"id": 1, "name": "bug"}, {"id": 2, "name": "ui"}, {"id": 3, "name": "docs"}]),
        ),
        (
            "GET",
            "/api/users",
            200,
            json!({"users": [{"accountId": "u-7", "displayName": "Ann Lee", "email": "ann@example.com"}]}),
        ),
        ("POST", "/api/issues", 201, json!({"key": "WEB-9"})),
        ("PUT", "/api/issues/WEB-1/labels", 204, json!({})),
    ]
}

#[test]
fn a_list_of_readable_values_is_resolved_item_by_item_and_an_alias_sends_the_value_the_api_takes() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(&runtime, labels_and_users());
    let result = call(
        binary,
        &base_url,
        "boards_create_issue",
        json!({"title": "Crash", "labels": ["bug", "UI"], "assignee": "me"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    // `me` is sent as `@me` without listing the users; the label names become integer ids.
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            Received {
                method: "GET".into(),
                path: "/api/labels".into(),
                query: None,
                body: Value::Null,
            },
            Received {
                method: "POST".into(),
                path: "/api/issues".into(),
                query: None,
                body: json!({"title": "Crash", "labelIds": [1, 2], "assignee": "@me"}),
            },
        ]
    );

    log.lock().expect("the log").clear();
    let result = call(
        binary,
        &base_url,
        "boards_create_issue",
        json!({"title": "Crash", "labels": ["bug"], "assignee": "ANN@example.com"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let posted = log
        .lock()
        .expect("the log")
        .last()
        .cloned()
        .expect("a post");
    assert_eq!(
        posted.body,
        json!({"title": "Crash", "labelIds": [1], "assignee": "u-7"})
    );
}

#[test]
fn every_unknown_value_of_a_list_is_named_in_one_error_and_nothing_is_created() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(&runtime, labels_and_users());
    let result = call(
        binary,
        &base_url,
        "boards_create_issue",
        json!({"title": "Crash", "labels": ["bug", "nope", "wat"]}),
    );
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["content"][0]["text"],
        "Labels \"nope\" and \"wat\" not found. Available labels: bug, ui, docs. Call \
         boards_create_issue again with one of these values in the labels parameter."
    );
    let received = log.lock().expect("the log").clone();
    assert!(
        received.iter().all(|r| r.method == "GET"),
        "nothing is created: {received:?}"
    );
}

#[test]
fn a_workflow_takes_lists_resolved_or_plain_and_sends_them_as_lists() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(&runtime, labels_and_users());
    let result = call(
        binary,
        &base_url,
        "boards_label_issue",
        json!({"issue": "WEB-1", "labels": ["docs", "bug"], "watchers": ["u-7", "u-8"]}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            Received {
                method: "GET".into(),
                path: "/api/labels".into(),
                query: None,
                body: Value::Null,
            },
            Received {
                method: "PUT".into(),
                path: "/api/issues/WEB-1/labels".into(),
                query: None,
                body: json!({"ids": [3, 1], "watchers": ["u-7", "u-8"]}),
            },
        ]
    );

    // The default list applies when the argument is left out.
    log.lock().expect("the log").clear();
    let result = call(
        binary,
        &base_url,
        "boards_label_issue",
        json!({"issue": "WEB-1", "labels": []}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let put = log.lock().expect("the log").last().cloned().expect("a put");
    assert_eq!(put.body, json!({"ids": [], "watchers": []}));
}

#[test]
fn an_alias_to_a_text_value_where_the_ids_are_integers_is_refused() {
    refused(
        "alias_value_for_integer_ids",
        &curation_with(&[(
            "    list: listLabels\n    match: [name]\n    id: id\n",
            "    list: listLabels\n    match: [name]\n    id: id\n    aliases: { none: { value: nobody } }\n",
        )]),
    );
}

#[test]
fn a_resolved_parameter_into_an_object_slot_is_refused() {
    refused(
        "resolved_into_an_object",
        &curation_with(&[(
            "        description: Display name or email of the assignee, or me\n",
            "        description: Display name or email of the assignee, or me\n      reporter:\n        resolve: user\n        description: The reporter\n",
        )]),
    );
}

#[test]
fn items_on_a_parameter_that_is_no_list_is_refused() {
    refused(
        "items_without_array",
        &curation_with(&[(
            "issue: { type: string, description: \"Issue key, for example WEB-1\" }\n      labels:",
            "issue: { type: string, items: string, description: \"Issue key, for example WEB-1\" }\n      labels:",
        )]),
    );
}

#[test]
fn a_scoped_resolver_lists_within_the_tools_own_arguments_and_caches_each_scope() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/repos/acme/web/labels",
                200,
                json!([{"id": 1, "name": "bug"}, {"id": 2, "name": "ui"}]),
            ),
            (
                "GET",
                "/api/repos/acme/api/labels",
                200,
                json!([{"id": 7, "name": "bug"}]),
            ),
            (
                "POST",
                "/api/repos/acme/web/issues",
                201,
                json!({"number": 1}),
            ),
            (
                "POST",
                "/api/repos/acme/api/issues",
                201,
                json!({"number": 2}),
            ),
        ],
    );
    // One server process, three calls: the second repository gets its own list, and the first
    // repository's list is not fetched again.
    let calls = [
        json!({"owner": "acme", "repo": "web", "title": "A", "labels": ["bug"]}),
        json!({"owner": "acme", "repo": "api", "title": "B", "labels": ["bug"]}),
        json!({"owner": "acme", "repo": "web", "title": "C", "labels": ["ui"]}),
    ];
    let results = support::calls_over_stdio(
        binary,
        &[("BOARDS_BASE_URL", &base_url)],
        "boards_create_repo_issue",
        &calls,
    );
    for result in &results {
        assert_ne!(result["isError"], true, "{result}");
    }
    let get = |path: &str| Received {
        method: "GET".into(),
        path: path.into(),
        query: None,
        body: Value::Null,
    };
    let post = |path: &str, body: Value| Received {
        method: "POST".into(),
        path: path.into(),
        query: None,
        body,
    };
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            get("/api/repos/acme/web/labels"),
            post(
                "/api/repos/acme/web/issues",
                json!({"title": "A", "labels": [1]})
            ),
            get("/api/repos/acme/api/labels"),
            post(
                "/api/repos/acme/api/issues",
                json!({"title": "B", "labels": [7]})
            ),
            post(
                "/api/repos/acme/web/issues",
                json!({"title": "C", "labels": [2]})
            ),
        ]
    );
}

#[test]
fn a_workflow_resolves_a_name_among_the_items_of_its_own_issue() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/issues/WEB-1/transitions",
                200,
                json!({"transitions": [{"id": "11", "name": "Start"}, {"id": "31", "name": "Done"}]}),
            ),
            ("POST", "/api/issues/WEB-1/transitions", 200, json!({})),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_transition_issue",
        json!({"issue": "WEB-1", "transition": "done"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            Received {
                method: "GET".into(),
                path: "/api/issues/WEB-1/transitions".into(),
                query: None,
                body: Value::Null,
            },
            Received {
                method: "POST".into(),
                path: "/api/issues/WEB-1/transitions".into(),
                query: None,
                body: json!({"transition": {"id": "31"}}),
            },
        ]
    );

    log.lock().expect("the log").clear();
    let result = call(
        binary,
        &base_url,
        "boards_transition_issue",
        json!({"issue": "WEB-1", "transition": "Close"}),
    );
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["content"][0]["text"],
        "Transition \"Close\" not found. Available transitions: Start, Done. Call \
         boards_transition_issue again with one of these values in the transition parameter."
    );
}

#[test]
fn a_tool_without_the_parameter_that_scopes_its_resolver_is_refused() {
    refused(
        "scope_parameter_missing",
        &curation_with(&[(
            "      repo: { description: Name of the repository }\n",
            "      project: { from: repo, description: Name of the repository }\n",
        )]),
    );
}

#[test]
fn a_scope_argument_the_list_operation_does_not_take_is_refused() {
    refused(
        "scope_argument_unknown",
        &curation_with(&[(
            "args: { owner: $owner, repo: $repo }",
            "args: { owner: $owner, repository: $repo }",
        )]),
    );
}

// --- templates --------------------------------------------------------------------------------
// Text arguments in a query language, built from clauses over the tool's parameters, over
// `tests/fixtures/soundness-templates/` (searches in GitHub's syntax, JQL and Slack's syntax).

fn template_fixtures() -> PathBuf {
    repo().join("tests/fixtures/soundness-templates")
}

/// The template fixture's curation file with each `(from, to)` replacement made (each once).
fn template_curation_with(edits: &[(&str, &str)]) -> String {
    let mut text =
        std::fs::read_to_string(template_fixtures().join("mcpgen.yaml")).expect("the fixture");
    for (from, to) in edits {
        assert_eq!(text.matches(from).count(), 1, "`{from}` must occur once");
        text = text.replacen(from, to, 1);
    }
    text
}

/// Checks `text` against the template fixture's API: refused with the golden diagnostics `case`.
fn template_refused(case: &str, text: &str) {
    let api = mcpgen::load::load(&template_fixtures().join("openapi.yaml")).expect("it loads");
    let error = match mcpgen::curate::check_text(Path::new("mcpgen.yaml"), text, &api) {
        Ok(_) => panic!("check accepts a file it cannot serve:\n{text}"),
        Err(error) => error.rendered,
    };
    let path = repo().join("tests/soundness").join(format!("{case}.txt"));
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::write(&path, &error).expect("the golden file is written");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; UPDATE_GOLDEN=1 writes it:\n{error}",
            path.display()
        )
    });
    assert_eq!(expected, error, "the diagnostics of {case}");
}

/// The template fixture's server, generated, checked by clippy and built once per process.
fn finder() -> &'static Path {
    static BINARY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BINARY.get_or_init(|| {
        support::generate_and_build(
            "soundness-templates",
            &template_fixtures().join("openapi.yaml"),
            Some(&template_fixtures().join("mcpgen.yaml")),
        )
    })
}

fn call_finder(base_url: &str, tool: &str, arguments: Value) -> Value {
    support::call_over_stdio(
        finder(),
        &[("FINDER_BASE_URL", base_url)],
        &[],
        tool,
        arguments,
    )
}

/// A query string's `name=value` pairs, percent-decoded (`+` is a space), in order.
fn query_pairs(query: Option<&str>) -> Vec<(String, String)> {
    let decode = |text: &str| {
        let bytes = text.replace('+', " ").into_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match (bytes[i], hex) {
                (b'%', Some(byte)) => {
                    out.push(byte);
                    i += 3;
                }
                (byte, _) => {
                    out.push(byte);
                    i += 1;
                }
            }
        }
        String::from_utf8(out).expect("UTF-8 in the query")
    };
    query
        .unwrap_or_default()
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(name), decode(value))
        })
        .collect()
}

fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(n, v)| ((*n).to_string(), (*v).to_string()))
        .collect()
}

#[test]
fn a_template_drops_the_clauses_of_absent_parameters_and_repeats_a_list_clause_per_item() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let answer = json!({"total_count": 1, "items": [{"number": 7, "title": "Crash"}]});
    let (base_url, log) =
        recording_upstream(&runtime, vec![("GET", "/api/search/issues", 200, answer)]);
    let arguments = json!({
        "owner": "octo", "repo": "hello", "state": "open",
        "labels": ["bug", "good first issue"], "assignee": "mona", "limit": 5,
    });
    let result = call_finder(&base_url, "finder_search_issues", arguments);
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"]["items"],
        json!([{"number": 7, "title": "Crash"}])
    );
    // Only the owner and repository: every other clause is dropped, `is:issue` always stays.
    let result = call_finder(
        &base_url,
        "finder_search_issues",
        json!({"owner": "octo", "repo": "hello", "labels": []}),
    );
    assert_ne!(result["isError"], true, "{result}");
    // Without `labels`, its default list applies.
    let result = call_finder(
        &base_url,
        "finder_search_issues",
        json!({"owner": "octo", "repo": "hello"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let received = log.lock().expect("the log").clone();
    let queries: Vec<Vec<(String, String)>> = received
        .iter()
        .map(|r| {
            assert_eq!(
                (r.method.as_str(), r.path.as_str()),
                ("GET", "/api/search/issues")
            );
            query_pairs(r.query.as_deref())
        })
        .collect();
    assert_eq!(
        queries,
        [
            owned(&[
                (
                    "q",
                    "repo:octo/hello is:issue state:open label:\"bug\" label:\"good first issue\" assignee:mona"
                ),
                ("page", "1"),
                ("per_page", "5"),
            ]),
            owned(&[
                ("q", "repo:octo/hello is:issue"),
                ("page", "1"),
                ("per_page", "10"),
            ]),
            owned(&[
                ("q", "repo:octo/hello is:issue label:\"triage\""),
                ("page", "1"),
                ("per_page", "10"),
            ]),
        ]
    );
}

#[test]
fn a_words_placeholder_sends_free_text_as_plain_words_with_operators_quoted() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let answer = json!({"total_count": 0, "items": []});
    let (base_url, log) =
        recording_upstream(&runtime, vec![("GET", "/api/search/issues", 200, answer)]);
    let result = call_finder(
        &base_url,
        "finder_search_issues",
        json!({"owner": "octo", "repo": "hello", "labels": [], "text": "  login fails is:closed "}),
    );
    assert_ne!(result["isError"], true, "{result}");
    // A double quote cannot be written in a GitHub search, in words as in a whole value.
    let refused = call_finder(
        &base_url,
        "finder_search_issues",
        json!({"owner": "octo", "repo": "hello", "text": "say \"hi\""}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    let queries: Vec<Vec<(String, String)>> = log
        .lock()
        .expect("the log")
        .iter()
        .map(|r| query_pairs(r.query.as_deref()))
        .collect();
    assert_eq!(
        queries,
        [owned(&[
            ("q", "repo:octo/hello is:issue login fails \"is:closed\""),
            ("page", "1"),
            ("per_page", "10"),
        ])],
        "two plain words and a quoted operator; nothing sent for the refused call"
    );
}

#[test]
fn a_default_its_declared_type_cannot_hold_is_refused() {
    template_refused(
        "default_not_a_list",
        &template_curation_with(&[("default: [triage]", "default: triage")]),
    );
    template_refused(
        "default_not_of_its_type",
        &template_curation_with(&[(
            "state: { type: string, required: false,",
            "state: { type: string, default: 3,",
        )]),
    );
}

#[test]
fn a_template_quotes_values_by_its_rule_and_refuses_one_the_rule_cannot_hold() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let answer = json!({"total_count": 0, "items": []});
    let (base_url, log) =
        recording_upstream(&runtime, vec![("GET", "/api/search/issues", 200, answer)]);
    // A value with a space outside the clause's own quotes is quoted; `/` and `-` need nothing.
    let result = call_finder(
        &base_url,
        "finder_search_issues",
        json!({"owner": "octo-org", "repo": "hello.js", "state": "not planned", "labels": []}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let received = log.lock().expect("the log").clone();
    assert_eq!(received.len(), 1, "{received:?}");
    assert_eq!(
        query_pairs(received[0].query.as_deref())[0],
        (
            "q".to_string(),
            "repo:octo-org/hello.js is:issue state:\"not planned\"".to_string()
        )
    );
    // GitHub's search cannot escape a double quote: the model is told, and nothing is sent.
    log.lock().expect("the log").clear();
    let result = call_finder(
        &base_url,
        "finder_search_issues",
        json!({"owner": "octo", "repo": "hello", "labels": ["say \"hi\""]}),
    );
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["content"][0]["text"],
        "Invalid argument `labels`: \"say \\\"hi\\\"\" has a double quote, which this search cannot hold; leave it out."
    );
    assert!(log.lock().expect("the log").is_empty(), "nothing is sent");
}

#[test]
fn a_template_nested_in_a_step_argument_builds_escaped_jql_joined_by_and() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![(
            "POST",
            "/api/search/jql",
            200,
            json!({"issues": [{"key": "WEB-1"}]}),
        )],
    );
    let result = call_finder(
        &base_url,
        "finder_find_issues",
        json!({"project": "WEB", "status": "In \"Review\"", "text": "it's \\ done"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let result = call_finder(&base_url, "finder_find_issues", json!({"project": "WEB"}));
    assert_ne!(result["isError"], true, "{result}");
    let received = log.lock().expect("the log").clone();
    assert_eq!(
        received,
        [
            Received {
                method: "POST".into(),
                path: "/api/search/jql".into(),
                query: None,
                body: json!({
                    "query": {
                        "jql": "project = \"WEB\" AND status = \"In \\\"Review\\\"\" AND text ~ \"it\\'s \\\\ done\""
                    },
                    "maxResults": 20,
                }),
            },
            Received {
                method: "POST".into(),
                path: "/api/search/jql".into(),
                query: None,
                body: json!({"query": {"jql": "project = \"WEB\""}, "maxResults": 20}),
            },
        ]
    );
}

#[test]
fn a_slack_search_template_quotes_a_phrase_drops_absent_words_and_keeps_a_flag_clause_when_true() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![("GET", "/api/messages/search", 200, json!({"messages": []}))],
    );
    for arguments in [
        json!({"channel": "general", "words": "launch plan"}),
        json!({"channel": "general"}),
        // A flag keeps its clause only when true.
        json!({"channel": "general", "starred": true}),
        json!({"channel": "general", "starred": false}),
    ] {
        let result = call_finder(&base_url, "finder_search_messages", arguments);
        assert_ne!(result["isError"], true, "{result}");
    }
    let queries: Vec<Vec<(String, String)>> = log
        .lock()
        .expect("the log")
        .iter()
        .map(|r| query_pairs(r.query.as_deref()))
        .collect();
    assert_eq!(
        queries,
        [
            owned(&[("query", "in:#general \"launch plan\"")]),
            owned(&[("query", "in:#general")]),
            owned(&[("query", "in:#general is:starred")]),
            owned(&[("query", "in:#general")]),
        ]
    );
}

#[test]
fn a_flag_placeholder_over_a_parameter_that_is_no_boolean_is_refused() {
    template_refused(
        "template_flag_not_boolean",
        &template_curation_with(&[("starred: { type: boolean,", "starred: { type: string,")]),
    );
}

#[test]
fn a_template_placeholder_that_is_no_parameter_is_refused_with_a_suggestion() {
    template_refused(
        "template_unknown_param",
        &template_curation_with(&[("\"assignee:{assignee}\"", "\"assignee:{asignee}\"")]),
    );
}

#[test]
fn a_template_where_the_api_takes_an_integer_is_refused() {
    template_refused(
        "template_for_an_integer",
        &template_curation_with(&[(
            "maxResults: 20",
            "maxResults: { template: \"{project}\", quote: none }",
        )]),
    );
}

#[test]
fn a_template_with_an_unknown_quoting_rule_or_none_is_refused() {
    template_refused(
        "template_unknown_quote",
        &template_curation_with(&[("quote: slack", "quote: slak")]),
    );
    template_refused(
        "template_without_quote",
        &template_curation_with(&[("              quote: jql\n", "")]),
    );
}

#[test]
fn a_template_clause_over_two_lists_is_refused() {
    template_refused(
        "template_two_lists",
        &template_curation_with(&[
            (
                "      assignee: {",
                "      kinds: { type: array, required: false }\n      assignee: {",
            ),
            ("'label:\"{labels}\"'", "'label:\"{labels}\" type:{kinds}'"),
        ]),
    );
}

#[test]
fn a_template_parameter_without_a_type_and_an_unclosed_placeholder_are_refused() {
    template_refused(
        "template_untyped_param",
        &template_curation_with(&[(
            "assignee: { type: string, required: false,",
            "assignee: { required: false,",
        )]),
    );
    template_refused(
        "template_unclosed_placeholder",
        &template_curation_with(&[("\"state:{state}\"", "\"state:{state\"")]),
    );
}

#[test]
fn an_answer_the_spec_does_not_describe_is_declared_and_its_fields_are_shaped() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let answer = json!({
        "key": "WEB-1",
        "fields": {"status": {"name": "Done"}, "assignee": {"displayName": "Ann Lee"}, "votes": 3},
    });
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![("GET", "/api/issues/WEB-1/summary", 200, answer)],
    );
    let result = call(
        binary,
        &base_url,
        "boards_issue_status",
        json!({"key": "WEB-1"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"],
        json!({"key": "WEB-1", "status": "Done", "assignee": "Ann Lee"})
    );
    assert_eq!(
        log.lock().expect("the log").clone(),
        [Received {
            method: "GET".into(),
            path: "/api/issues/WEB-1/summary".into(),
            query: None,
            body: Value::Null,
        }]
    );
}

#[test]
fn a_result_field_the_declared_answer_does_not_have_is_refused_with_a_suggestion() {
    refused(
        "declared_answer_field_unknown",
        &curation_with(&[(
            "        status: fields.status.name\n",
            "        status: fields.state.name\n",
        )]),
    );
}

#[test]
fn a_declared_answer_for_an_unknown_operation_or_with_an_unknown_type_is_refused() {
    refused(
        "declared_answer_malformed",
        &curation_with(&[(
            "  getIssueSummary:\n    type: object\n",
            "  getIssueSumary:\n    type: object\n  getIssue:\n    type: map\n",
        )]),
    );
}

#[test]
fn a_declared_request_body_for_an_unknown_operation_one_without_a_body_or_a_bad_schema_is_refused()
{
    refused(
        "declared_request_malformed",
        &curation_with(&[(
            "responses:\n",
            "requests:\n  createNot:\n    properties: { pinned: { type: boolean } }\n  getIssue:\n    properties: { key: { type: string } }\n  createNote:\n    properties: { pinned: { type: flag } }\nresponses:\n",
        )]),
    );
}

#[test]
fn a_declared_request_field_replaces_the_type_the_spec_gives_it() {
    // The fixture's `pinned` is text, so a boolean for it is refused, until `requests` declares
    // it a boolean.
    let api = mcpgen::load::load(&fixtures().join("openapi.yaml")).expect("the fixture loads");
    let boolean = curation_with(&[("      pinned: \"true\"\n", "      pinned: true\n")]);
    let refused = mcpgen::curate::check_text(Path::new("mcpgen.yaml"), &boolean, &api);
    assert!(
        refused.is_err_and(|e| e.rendered.contains("`pinned` takes a string")),
        "a boolean for a text field is refused"
    );
    let declared = curation_with(&[
        ("      pinned: \"true\"\n", "      pinned: true\n"),
        (
            "responses:\n",
            "requests:\n  createNote:\n    properties: { pinned: { type: boolean } }\nresponses:\n",
        ),
    ]);
    if let Err(error) = mcpgen::curate::check_text(Path::new("mcpgen.yaml"), &declared, &api) {
        panic!("the declared boolean is accepted:\n{}", error.rendered);
    }
}

#[test]
fn a_post_the_file_declares_read_only_is_annotated_read_only_and_the_lint_agrees() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let curation = dir.path().join("mcpgen.yaml");
    let tools = |text: &str| {
        std::fs::write(&curation, text).expect("the file is written");
        let output = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
            .arg("tools")
            .arg(fixtures().join("openapi.yaml"))
            .arg("-c")
            .arg(&curation)
            .args(["--format", "json"])
            .output()
            .expect("mcpgen runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let listed: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        let tool = listed["tools"]
            .as_array()
            .and_then(|tools| tools.iter().find(|t| t["name"] == "boards_create_note"))
            .cloned()
            .expect("the tool");
        tool["annotations"].clone()
    };
    let plain = curation_with(&[]);
    assert_eq!(
        tools(&plain)["readOnlyHint"],
        Value::Null,
        "a POST writes by default"
    );
    let declared = curation_with(&[(
        "operations:\n  mirror: none\n",
        "operations:\n  mirror: none\n  read_only: [createNote]\n",
    )]);
    assert_eq!(tools(&declared)["readOnlyHint"], true);
    // `readOnlyHint: true` written on the POST's tool: the lint objects unless the file says the
    // operation only reads.
    let check = |text: &str| {
        std::fs::write(&curation, text).expect("the file is written");
        let output = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
            .arg("check")
            .arg(fixtures().join("openapi.yaml"))
            .arg("-c")
            .arg(&curation)
            .args(["--deny-warnings", "--color", "never"])
            .output()
            .expect("mcpgen runs");
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let marked = "    fixed:\n      pinned: \"true\"\n";
    let marked_read_only =
        "    fixed:\n      pinned: \"true\"\n    annotations: { readOnlyHint: true }\n";
    let (passed, stderr) = check(&curation_with(&[(marked, marked_read_only)]));
    assert!(
        !passed && stderr.contains("`boards_create_note` is marked readOnlyHint: true but calls `createNote` (POST /notes)"),
        "{stderr}"
    );
    let (passed, stderr) = check(&curation_with(&[
        (marked, marked_read_only),
        (
            "operations:\n  mirror: none\n",
            "operations:\n  mirror: none\n  read_only: [createNote]\n",
        ),
    ]));
    assert!(passed, "no lint says the declared tool writes: {stderr}");
}

#[test]
fn a_read_only_operation_that_does_not_exist_is_refused_and_a_get_there_is_a_warning() {
    refused(
        "read_only_unknown",
        &curation_with(&[(
            "operations:\n  mirror: none\n",
            "operations:\n  mirror: none\n  read_only: [createNot, getIssue]\n",
        )]),
    );
}

#[test]
fn an_object_that_fits_none_of_the_shapes_the_api_takes_is_refused_naming_them() {
    refused(
        "fits_no_shape",
        &curation_with(&[(
            "      pinned: \"true\"\n",
            "      pinned: \"true\"\n      parent: { type: data_source_id, data_source_id: d1 }\n",
        )]),
    );
}

#[test]
fn a_literal_outside_the_values_the_api_allows_is_refused() {
    refused(
        "literal_not_allowed",
        &curation_with(&[(
            "      pinned: \"true\"\n",
            "      pinned: \"true\"\n      color: blue\n",
        )]),
    );
}

#[test]
fn a_reference_under_fixed_is_refused_since_only_a_template_names_parameters() {
    template_refused(
        "fixed_reference",
        &template_curation_with(&[(
            "      query:\n        template: [\"in:#{channel}\", \"{words}\", \"is:starred{starred:if}\"]\n        quote: slack\n",
            "      query: $channel\n",
        )]),
    );
}

// Credentials where the spec puts them: `tests/fixtures/soundness/cards/`, an API in the manner
// of Trello whose every operation takes its two credentials, `key` and `token`, as required
// query parameters that are also its two API-key security schemes.

fn cards_fixture(file: &str) -> PathBuf {
    fixtures().join("cards").join(file)
}

/// The cards fixture's curation file with each `(from, to)` replacement made (each `from` once).
fn cards_curation_with(edits: &[(&str, &str)]) -> String {
    let mut text = std::fs::read_to_string(cards_fixture("mcpgen.yaml")).expect("the fixture");
    for (from, to) in edits {
        assert_eq!(text.matches(from).count(), 1, "`{from}` must occur once");
        text = text.replacen(from, to, 1);
    }
    text
}

/// Checks `text` against the cards API: refused with the golden diagnostics `case`.
fn cards_refused(case: &str, text: &str) {
    let api = mcpgen::load::load(&cards_fixture("openapi.yaml")).expect("the fixture loads");
    let error = match mcpgen::curate::check_text(Path::new("mcpgen.yaml"), text, &api) {
        Ok(_) => panic!("check accepts a file it cannot serve:\n{text}"),
        Err(error) => error.rendered,
    };
    let path = repo().join("tests/soundness").join(format!("{case}.txt"));
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::write(&path, &error).expect("the golden file is written");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; UPDATE_GOLDEN=1 writes it:\n{error}",
            path.display()
        )
    });
    assert_eq!(expected, error, "the diagnostics of {case}");
}

/// A request as the tests compare it: method, path, query pairs and body.
type Sent = (String, String, Vec<(String, String)>, Value);

/// Every property name of every tool's input schema in `plan`.
fn input_properties(plan: &mcpgen::plan::Plan) -> Vec<String> {
    plan.tools
        .iter()
        .flat_map(|tool| {
            tool.input_schema["properties"]
                .as_object()
                .into_iter()
                .flat_map(|p| p.keys().cloned())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A recorded query string's pairs, decoded (`+` and `%XX`).
fn pairs(query: &Option<String>) -> Vec<(String, String)> {
    fn decode(text: &str) -> String {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'+' => out.push(b' '),
                b'%' if i + 2 < bytes.len() => {
                    let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).expect("ASCII");
                    out.push(u8::from_str_radix(hex, 16).expect("a %XX escape"));
                    i += 2;
                }
                byte => out.push(byte),
            }
            i += 1;
        }
        String::from_utf8(out).expect("UTF-8")
    }
    query
        .as_deref()
        .unwrap_or_default()
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(name), decode(value))
        })
        .collect()
}

#[test]
fn two_credentials_in_query_parameters_come_from_the_environment_once_each_and_no_tool_shows_them()
{
    let (plan, _) = mcpgen::generate(
        &cards_fixture("openapi.yaml"),
        Some(&cards_fixture("mcpgen.yaml")),
        &mcpgen::Options::default(),
    )
    .expect("the fixture generates");
    let properties = input_properties(&plan);
    assert_eq!(properties, ["card", "board", "list", "name"]);
    let binary = support::generate_and_build(
        "soundness-cards",
        &cards_fixture("openapi.yaml"),
        Some(&cards_fixture("mcpgen.yaml")),
    );
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/members/me/boards",
                200,
                json!([{"id": "b1", "name": "Roadmap"}, {"id": "b2", "name": "Chores"}]),
            ),
            (
                "GET",
                "/api/boards/b1/lists",
                200,
                json!([{"id": "l1", "name": "To do"}, {"id": "l2", "name": "Doing"}]),
            ),
            (
                "POST",
                "/api/cards",
                200,
                json!({"id": "c9", "name": "Write tests"}),
            ),
            (
                "GET",
                "/api/cards/c9",
                200,
                json!({"id": "c9", "name": "Write tests"}),
            ),
        ],
    );
    let env = [
        ("CURATED_CARDS_BASE_URL", base_url.as_str()),
        ("CARDS_KEY", "k-123"),
        ("CARDS_TOKEN", "t-456"),
    ];
    let result = support::call_over_stdio(
        &binary,
        &env,
        &[],
        "cards_add_card",
        json!({"board": "Roadmap", "list": "Doing", "name": "Write tests"}),
    );
    assert_eq!(result["isError"], false, "{result}");
    let received = log.lock().expect("the log").clone();
    let requests: Vec<Sent> = received
        .iter()
        .map(|r| {
            (
                r.method.clone(),
                r.path.clone(),
                pairs(&r.query),
                r.body.clone(),
            )
        })
        .collect();
    let credentials = || {
        vec![
            ("key".to_string(), "k-123".to_string()),
            ("token".to_string(), "t-456".to_string()),
        ]
    };
    let with_credentials = |mut args: Vec<(String, String)>| {
        args.extend(credentials());
        args
    };
    assert_eq!(
        requests,
        [
            (
                "GET".into(),
                "/api/members/me/boards".into(),
                credentials(),
                Value::Null
            ),
            (
                "GET".into(),
                "/api/boards/b1/lists".into(),
                credentials(),
                Value::Null
            ),
            (
                "POST".into(),
                "/api/cards".into(),
                with_credentials(vec![
                    ("idList".into(), "l2".into()),
                    ("name".into(), "Write tests".into()),
                ]),
                Value::Null,
            ),
        ]
    );

    // A one-call tool: the model's argument as given, the credentials once each.
    log.lock().expect("the log").clear();
    let result =
        support::call_over_stdio(&binary, &env, &[], "cards_get_card", json!({"card": "c9"}));
    assert_eq!(result["isError"], false, "{result}");
    let received = log.lock().expect("the log").clone();
    assert_eq!(received.len(), 1);
    assert_eq!(
        (received[0].path.as_str(), pairs(&received[0].query)),
        ("/api/cards/c9", credentials())
    );

    // A model that sends a credential anyway is refused: it is no argument of the tool.
    let result = support::call_over_stdio(
        &binary,
        &env,
        &[],
        "cards_get_card",
        json!({"card": "c9", "key": "from-the-model"}),
    );
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        log.lock().expect("the log").len(),
        1,
        "nothing more is sent"
    );
}

#[test]
fn without_a_curation_file_two_api_key_schemes_read_two_variables_and_no_tool_shows_them() {
    let (plan, _) = mcpgen::generate(
        &cards_fixture("openapi.yaml"),
        None,
        &mcpgen::Options::default(),
    )
    .expect("the fixture generates");
    let env: Vec<&str> = plan.server.auth.iter().flat_map(|a| a.env_vars()).collect();
    assert_eq!(env, ["CARDS_API_KEY", "CARDS_API_TOKEN"]);
    let properties = input_properties(&plan);
    assert!(
        !properties.iter().any(|p| p == "key" || p == "token"),
        "{properties:?}"
    );
    let binary = support::generate_and_build(
        "soundness-cards-zero-config",
        &cards_fixture("openapi.yaml"),
        None,
    );
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![(
            "GET",
            "/api/cards/c9",
            200,
            json!({"id": "c9", "name": "Write tests"}),
        )],
    );
    let result = support::call_over_stdio(
        &binary,
        &[
            ("CARDS_BASE_URL", base_url.as_str()),
            ("CARDS_API_KEY", "k-123"),
            ("CARDS_API_TOKEN", "t-456"),
        ],
        &[],
        "get_card",
        json!({"id": "c9", "fields": "name"}),
    );
    assert_eq!(result["isError"], false, "{result}");
    let received = log.lock().expect("the log").clone();
    assert_eq!(received.len(), 1);
    assert_eq!(
        (received[0].path.as_str(), pairs(&received[0].query)),
        (
            "/api/cards/c9",
            vec![
                ("fields".to_string(), "name".to_string()),
                ("key".to_string(), "k-123".to_string()),
                ("token".to_string(), "t-456".to_string()),
            ]
        )
    );
}

#[test]
fn a_required_credential_that_auth_does_not_fill_is_refused() {
    cards_refused(
        "credential_without_source",
        &cards_curation_with(&[("    - { in: query, name: token, env: CARDS_TOKEN }\n", "")]),
    );
}

#[test]
fn a_credential_written_in_the_file_or_given_to_the_model_is_refused() {
    cards_refused(
        "credential_written",
        &cards_curation_with(&[(
            "        description: The card's id\n",
            "        description: The card's id\n      token:\n        description: The API token\n    fixed:\n      key: k-123\n",
        )]),
    );
}

#[test]
fn a_credential_parameter_auth_names_that_no_operation_takes_is_refused_with_a_suggestion() {
    cards_refused(
        "credential_param_unknown",
        &cards_curation_with(&[(
            "{ in: query, name: token, env: CARDS_TOKEN }",
            "{ in: query, name: token, env: CARDS_TOKEN, params: [tokn] }",
        )]),
    );
}

// A bearer token that operations also take as a parameter `token`, each in its own place:
// `tests/fixtures/soundness/chat/`, an API in the manner of Slack.

/// One request as the chat upstream received it: the credential headers and the raw body too.
#[derive(Debug, Clone, PartialEq)]
struct Carried {
    method: String,
    path: String,
    query: Vec<(String, String)>,
    authorization: Option<String>,
    token_header: Option<String>,
    body: String,
}

/// An upstream on 127.0.0.1 that records every request with its credential headers and answers
/// `{"ok": true}`; its base URL (with the spec's `/api` prefix) and the log.
fn carrying_upstream(runtime: &tokio::runtime::Runtime) -> (String, Arc<Mutex<Vec<Carried>>>) {
    let log: Arc<Mutex<Vec<Carried>>> = Arc::default();
    let recorded = log.clone();
    let app = axum::Router::new().fallback(move |request: axum::extract::Request| {
        let recorded = recorded.clone();
        async move {
            let (parts, body) = request.into_parts();
            let header = |name: &str| {
                parts
                    .headers
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
            };
            let entry = Carried {
                method: parts.method.to_string(),
                path: parts.uri.path().to_string(),
                query: pairs(&parts.uri.query().map(str::to_string)),
                authorization: header("authorization"),
                token_header: header("token"),
                body: String::new(),
            };
            let bytes = axum::body::to_bytes(body, 1 << 20)
                .await
                .unwrap_or_default();
            recorded.lock().expect("the log").push(Carried {
                body: String::from_utf8_lossy(&bytes).into_owned(),
                ..entry
            });
            axum::Json(json!({"ok": true}))
        }
    });
    let address = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port on 127.0.0.1");
        let address = listener.local_addr().expect("its address");
        tokio::spawn(async move { axum::serve(listener, app).await });
        address
    });
    (format!("http://{address}/api"), log)
}

#[test]
fn a_bearer_token_also_fills_each_required_token_parameter_in_its_place_and_no_optional_one() {
    let fixture = fixtures().join("chat");
    let (plan, _) = mcpgen::generate(
        &fixture.join("openapi.yaml"),
        Some(&fixture.join("mcpgen.yaml")),
        &mcpgen::Options::default(),
    )
    .expect("the fixture generates");
    assert_eq!(input_properties(&plan), ["title", "message", "team"]);
    let binary = support::generate_and_build(
        "soundness-chat",
        &fixture.join("openapi.yaml"),
        Some(&fixture.join("mcpgen.yaml")),
    );
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = carrying_upstream(&runtime);
    let env = [
        ("CHAT_BASE_URL", base_url.as_str()),
        ("CHAT_TOKEN", "xoxb-42"),
    ];
    for (tool, arguments) in [
        ("chat_add_note", json!({"title": "Plans & ideas"})),
        ("chat_pin", json!({"message": "m1"})),
        ("chat_team", json!({"team": "T1"})),
    ] {
        let result = support::call_over_stdio(&binary, &env, &[], tool, arguments);
        assert_eq!(result["isError"], false, "{tool}: {result}");
    }
    let received = log.lock().expect("the log").clone();
    let bearer = Some("Bearer xoxb-42".to_string());
    assert_eq!(received.len(), 3, "{received:#?}");
    // A form field: after the model's, once.
    assert_eq!(
        received[0],
        Carried {
            method: "POST".into(),
            path: "/api/notes.add".into(),
            query: Vec::new(),
            authorization: bearer.clone(),
            token_header: None,
            body: "title=Plans+%26+ideas&token=xoxb-42".into(),
        }
    );
    // A property of the JSON body.
    assert_eq!(
        (
            received[1].path.as_str(),
            received[1].authorization.clone(),
            received[1].token_header.clone(),
            serde_json::from_str::<Value>(&received[1].body).expect("JSON"),
        ),
        (
            "/api/pins.add",
            bearer.clone(),
            None,
            json!({"message": "m1", "token": "xoxb-42"})
        )
    );
    // An optional header is not sent: the Authorization header carries the token already.
    assert_eq!(
        received[2],
        Carried {
            method: "GET".into(),
            path: "/api/team.info".into(),
            query: vec![("team".into(), "T1".into())],
            authorization: bearer,
            token_header: None,
            body: String::new(),
        }
    );
}

#[test]
fn one_to_one_tools_over_operations_whose_credential_auth_does_not_fill_are_a_warning() {
    let api = mcpgen::load::load(&cards_fixture("openapi.yaml")).expect("the fixture loads");
    let curation = mcpgen::curate::parse(
        "auth:\n  api_keys:\n    - { in: query, name: key, env: CARDS_KEY }\n",
    )
    .expect("it parses");
    let (_, diagnostics) = mcpgen::curate::check::check(&api, curation);
    let unfilled: Vec<&str> = diagnostics
        .iter()
        .filter(|d| d.message.contains("ApiToken"))
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        unfilled,
        [
            "4 operations require the credential of security scheme `ApiToken` (query parameter `token`), which `auth` does not fill: their one-to-one and discovery tools would call without it"
        ]
    );
    assert!(
        diagnostics
            .iter()
            .filter(|d| d.message.contains("ApiToken"))
            .all(|d| d.severity == mcpgen::curate::Severity::Warning)
    );
    // With both keys, or with no tool over those operations, nothing is said.
    let curation = mcpgen::curate::parse(
        "auth:\n  api_keys:\n    - { in: query, name: key, env: CARDS_KEY }\noperations:\n  mirror: none\n",
    )
    .expect("it parses");
    let (_, diagnostics) = mcpgen::curate::check::check(&api, curation);
    assert!(
        diagnostics.iter().all(|d| !d.message.contains("ApiToken")),
        "{diagnostics:?}"
    );
}

// --- found by a blind curation of two unseen APIs (Discourse, Spotify) -------------------------

/// `received`'s requests as `(method, path, query, body)`, for comparing whole.
fn requests(log: &Arc<Mutex<Vec<Received>>>) -> Vec<(String, String, Option<String>, Value)> {
    log.lock()
        .expect("the log")
        .iter()
        .map(|r| {
            (
                r.method.clone(),
                r.path.clone(),
                r.query.clone(),
                r.body.clone(),
            )
        })
        .collect()
}

fn request(
    method: &str,
    path: &str,
    query: Option<&str>,
    body: Value,
) -> (String, String, Option<String>, Value) {
    (method.into(), path.into(), query.map(str::to_string), body)
}

#[test]
fn a_step_path_through_a_list_sends_the_list_of_each_items_field_into_a_body_without_a_type() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/search",
                200,
                json!({"tracks": {"items": [
                    {"uri": "spotify:track:1", "name": "Blue Moon"},
                    {"name": "no uri"},
                    {"uri": "spotify:track:3", "name": "Moon River"}
                ]}}),
            ),
            (
                "POST",
                "/api/playlists/pl1/tracks",
                201,
                json!({"snapshot_id": "s2"}),
            ),
        ],
    );
    let result = call(
        boards(),
        &base_url,
        "boards_add_found_tracks",
        json!({"playlist": "pl1", "words": "moon"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(result["structuredContent"], json!({"snapshot_id": "s2"}));
    assert_eq!(
        requests(&log),
        [
            request("GET", "/api/search", Some("q=moon"), Value::Null),
            request(
                "POST",
                "/api/playlists/pl1/tracks",
                None,
                json!({"uris": ["spotify:track:1", "spotify:track:3"]}),
            ),
        ]
    );
}

#[test]
fn a_result_field_through_a_list_is_the_list_of_each_items_value_and_its_schema_says_so() {
    let plan = plan_of_fixture();
    let tool = plan
        .tools
        .iter()
        .find(|t| t.name == "boards_search_tracks")
        .expect("the tool");
    let schema = tool.output_schema.as_ref().expect("an output schema");
    assert_eq!(
        schema.pointer("/properties/tracks/items/properties/artists"),
        Some(&json!({"type": "array", "items": {"type": "string"}})),
        "{schema}"
    );
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, _) = recording_upstream(
        &runtime,
        vec![(
            "GET",
            "/api/search",
            200,
            json!({"tracks": {"items": [
                {"uri": "u1", "name": "Blue Moon", "artists": [{"name": "Ella"}, {"name": "Louis"}]}
            ]}}),
        )],
    );
    let result = call(
        boards(),
        &base_url,
        "boards_search_tracks",
        json!({"q": "moon"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"],
        json!({"tracks": [{"name": "Blue Moon", "artists": ["Ella", "Louis"]}], "truncated": false})
    );
}

/// The fixture's plan, as `build` makes it.
fn plan_of_fixture() -> mcpgen::plan::Plan {
    let api = mcpgen::load::load(&fixtures().join("openapi.yaml")).expect("the fixture loads");
    let text = std::fs::read_to_string(fixtures().join("mcpgen.yaml")).expect("the fixture");
    let checked = mcpgen::curate::check_text(Path::new("mcpgen.yaml"), &text, &api)
        .expect("the fixture checks");
    mcpgen::plan::plan(
        &api,
        &mcpgen::plan::Options::default(),
        Some(&checked.model),
    )
    .expect("the fixture plans")
}

#[test]
fn a_template_whose_clauses_all_drop_out_leaves_its_optional_parameter_out() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![(
            "POST",
            "/api/playlists/pl1/items",
            201,
            json!({"snapshot_id": "s3"}),
        )],
    );
    for ids in [json!(["t1", "t2"]), json!([])] {
        let result = call(
            boards(),
            &base_url,
            "boards_add_tracks_by_id",
            json!({"id": "pl1", "track_ids": ids}),
        );
        assert_ne!(result["isError"], true, "{result}");
    }
    assert_eq!(
        requests(&log),
        [
            request(
                "POST",
                "/api/playlists/pl1/items",
                Some("uris=spotify%3Atrack%3At1%2Cspotify%3Atrack%3At2"),
                Value::Null,
            ),
            request("POST", "/api/playlists/pl1/items", None, Value::Null),
        ]
    );
}

#[test]
fn a_stop_if_comparing_a_flag_with_true_stops_and_says_why() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/topics/5",
                200,
                json!({"id": 5, "title": "Old", "closed": true}),
            ),
            (
                "GET",
                "/api/topics/6",
                200,
                json!({"id": 6, "title": "New", "closed": false}),
            ),
            (
                "POST",
                "/api/posts",
                200,
                json!({"id": 60, "topic_id": 6, "post_number": 2}),
            ),
        ],
    );
    let closed = call(
        boards(),
        &base_url,
        "boards_reply",
        json!({"topic": 5, "text": "hi"}),
    );
    assert_ne!(closed["isError"], true, "{closed}");
    assert_eq!(
        closed["structuredContent"],
        json!({"id": 5, "title": "Old", "closed": true})
    );
    let said = closed["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        said.contains("Topic 5 is closed; nothing was posted."),
        "{said}"
    );
    let open = call(
        boards(),
        &base_url,
        "boards_reply",
        json!({"topic": 6, "text": "hi"}),
    );
    assert_ne!(open["isError"], true, "{open}");
    assert_eq!(
        requests(&log),
        [
            request("GET", "/api/topics/5", None, Value::Null),
            request("GET", "/api/topics/6", None, Value::Null),
            request(
                "POST",
                "/api/posts",
                None,
                json!({"raw": "hi", "topic_id": 6})
            ),
        ]
    );
}

#[test]
fn a_stop_if_whose_answer_lacks_the_result_fields_is_refused() {
    refused(
        "stop_if_result_fields",
        &curation_with(&[(
            "          message: Topic {topic} is closed; nothing was posted.\n      - call: createPost\n        args: { topic_id: $topic, raw: $text }\n",
            "          message: Topic {topic} is closed; nothing was posted.\n      - call: createPost\n        args: { topic_id: $topic, raw: $text }\n    results:\n      fields:\n        post: post_number\n",
        )]),
    );
}

#[test]
fn a_step_called_only_for_its_errors_compiles_without_warnings_and_its_404_is_told() {
    // The crate is built with warnings denied (`boards()`); here the step's error message.
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(&runtime, vec![]);
    let result = call(
        boards(),
        &base_url,
        "boards_reply_if_found",
        json!({"topic": 9, "text": "hi"}),
    );
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("Topic 9 does not exist; check the id."),
        "{text}"
    );
    assert_eq!(
        requests(&log),
        [request("GET", "/api/topics/9", None, Value::Null)]
    );
}

#[test]
fn an_empty_path_parameter_inside_a_segment_is_refused_before_any_request() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![(
            "GET",
            "/api/u/ada.json",
            200,
            json!({"username": "ada", "name": "Ada"}),
        )],
    );
    let empty = call(
        boards(),
        &base_url,
        "boards_get_user",
        json!({"username": ""}),
    );
    assert_eq!(empty["isError"], true, "{empty}");
    let text = empty["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("Invalid argument `username`: a path parameter cannot be \"\""),
        "{text}"
    );
    let found = call(
        boards(),
        &base_url,
        "boards_get_user",
        json!({"username": "ada"}),
    );
    assert_eq!(
        found["structuredContent"],
        json!({"username": "ada", "name": "Ada"})
    );
    assert_eq!(
        requests(&log),
        [request("GET", "/api/u/ada.json", None, Value::Null)]
    );
}

#[test]
fn an_enum_parameter_where_the_api_takes_a_list_is_refused_with_the_workflow_form_suggested() {
    let text = curation_with(&[(
        "      assignee:\n        resolve: user\n",
        "      label_kind: { from: labelIds, enum: label_kind, description: The kind of label }\n      assignee:\n        resolve: user\n",
    )]);
    let text = text.replacen(
        "\nenums:\n",
        "\nenums:\n  label_kind: { bug: 1, ui: 2 }\n",
        1,
    );
    refused("enum_for_a_list", &text);
}

#[test]
fn a_property_the_body_schema_requires_is_a_required_argument_though_the_body_is_optional() {
    let output = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .arg("tools")
        .arg(fixtures().join("openapi.yaml"))
        .arg("-c")
        .arg(fixtures().join("mcpgen.yaml"))
        .args(["--format", "json"])
        .output()
        .expect("mcpgen runs");
    assert!(output.status.success());
    let listed: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let tool = listed["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == "boards_create_topic"))
        .cloned()
        .expect("the tool");
    assert_eq!(tool["inputSchema"]["required"], json!(["title", "text"]));

    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![("POST", "/api/topics", 200, json!({"id": 9, "topic_id": 3}))],
    );
    let missing = call(
        binary,
        &base_url,
        "boards_create_topic",
        json!({"title": "Upgrade failed"}),
    );
    assert_eq!(missing["isError"], true, "{missing}");
    assert!(log.lock().expect("the log").is_empty(), "nothing is sent");
    let result = call(
        binary,
        &base_url,
        "boards_create_topic",
        json!({"title": "Upgrade failed", "text": "After 3.2 the site is down."}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        log.lock().expect("the log").clone(),
        [Received {
            method: "POST".into(),
            path: "/api/topics".into(),
            query: None,
            body: json!({"title": "Upgrade failed", "raw": "After 3.2 the site is down."}),
        }]
    );
}

#[test]
fn page_paging_without_a_size_parameter_walks_until_a_page_is_shorter_than_the_first() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let posts = |from: u64, to: u64| json!({"posts": (from..to).map(|id| json!({"id": id, "blurb": "x"})).collect::<Vec<_>>()});
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            ("GET", "/api/search.json?q=upgrade&page=1", 200, posts(0, 3)),
            ("GET", "/api/search.json?q=upgrade&page=2", 200, posts(3, 6)),
            ("GET", "/api/search.json?q=upgrade&page=3", 200, posts(6, 7)),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_search_posts",
        json!({"words": "upgrade", "limit": 20}),
    );
    assert_ne!(result["isError"], true, "{result}");
    // Items the tool does not shape have no output schema, so the answer is text only.
    let answer: Value = result["content"][0]["text"]
        .as_str()
        .and_then(|text| serde_json::from_str(text).ok())
        .expect("the answer as JSON text");
    assert_eq!(
        answer["items"].as_array().map(Vec::len),
        Some(7),
        "{result}"
    );
    assert_eq!(answer["truncated"], false);
    let queries: Vec<Option<String>> = log
        .lock()
        .expect("the log")
        .iter()
        .map(|r| {
            assert_eq!(
                (r.method.as_str(), r.path.as_str()),
                ("GET", "/api/search.json")
            );
            r.query.clone()
        })
        .collect();
    assert_eq!(
        queries,
        [
            Some("q=upgrade&page=1".to_string()),
            Some("q=upgrade&page=2".to_string()),
            Some("q=upgrade&page=3".to_string()),
        ],
        "no page size is sent; page 3 is shorter than page 1, so the walk ends"
    );
}

#[test]
fn page_paging_over_an_operation_without_the_default_size_parameter_is_refused_with_the_way_out() {
    refused(
        "paging_without_size_param",
        &curation_with(&[(
            "    pagination: { style: page, page_param: page, size_param: none }\n    results:\n      items: posts\n",
            "    pagination: { style: page, page_param: page }\n    results:\n      items: posts\n",
        )]),
    );
}

#[test]
fn the_fixture_passes_check_with_warnings_denied() {
    // Among others: result fields inside one of several shapes (`oneOf` track or episode), which
    // check once called unverifiable.
    let output = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .arg("check")
        .arg(fixtures().join("openapi.yaml"))
        .arg("-c")
        .arg(fixtures().join("mcpgen.yaml"))
        .args(["--deny-warnings", "--color", "never"])
        .output()
        .expect("mcpgen runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn fields_inside_one_of_several_shapes_are_typed_and_read_through_lists() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![(
            "GET",
            "/api/playlists/pl1/contents",
            200,
            json!({"items": [
                {"added_at": "2026-01-01", "item": {"name": "Blue", "duration_ms": 200_000,
                  "artists": [{"name": "Ada"}, {"name": "Bo"}]}},
                {"added_at": "2026-01-02", "item": {"name": "Talk 7", "duration_ms": 3_600_000,
                  "show": "Talks"}},
            ]}),
        )],
    );
    let result = call(
        binary,
        &base_url,
        "boards_playlist_tracks",
        json!({"playlist": "pl1"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"],
        json!({
            "items": [
                {"name": "Blue", "duration_ms": 200_000, "artists": ["Ada", "Bo"]},
                // An episode has no artists: the field is left out, as the schema allows.
                {"name": "Talk 7", "duration_ms": 3_600_000},
            ],
            "truncated": false,
        })
    );
    assert_eq!(
        log.lock().expect("the log").clone(),
        [Received {
            method: "GET".into(),
            path: "/api/playlists/pl1/contents".into(),
            query: None,
            body: Value::Null,
        }]
    );
}

#[test]
fn a_number_parameter_where_the_api_takes_text_is_refused_with_the_template_that_converts_it() {
    let edit = |to: &str| {
        curation_with(&[(
            "        args: { topic_id: $topic, raw: $text }\n\n  reply_if_found:",
            &format!("        args: {{ topic_id: $topic, raw: {to} }}\n\n  reply_if_found:"),
        )])
    };
    refused("number_parameter_for_text", &edit("$topic"));
    // What the help suggests is accepted.
    let api = mcpgen::load::load(&fixtures().join("openapi.yaml")).expect("the fixture loads");
    let converted = edit(r#"{ template: "{topic} {text}", quote: none }"#);
    if let Err(error) = mcpgen::curate::check_text(Path::new("mcpgen.yaml"), &converted, &api) {
        panic!("the suggested template is accepted:\n{}", error.rendered);
    }
}

#[test]
fn a_body_property_named_like_a_query_parameter_is_filled_by_its_prefixed_name() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![(
            "POST",
            "/api/playlists/pl1/entries",
            201,
            json!({"snapshot_id": "s2"}),
        )],
    );
    let result = call(
        binary,
        &base_url,
        "boards_add_entries",
        json!({"playlist": "pl1", "tracks": ["spotify:track:a", "spotify:track:b"]}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        log.lock().expect("the log").clone(),
        [Received {
            method: "POST".into(),
            path: "/api/playlists/pl1/entries".into(),
            query: None,
            body: json!({"uris": ["spotify:track:a", "spotify:track:b"], "position": 0}),
        }]
    );
}

#[test]
fn a_list_for_the_query_parameter_of_a_shared_name_is_refused_naming_the_body_one() {
    refused(
        "shared_name_query_and_body",
        &curation_with(&[(
            "args: { id: $playlist, body_uris: $tracks, position: 0 }",
            "args: { id: $playlist, uris: $tracks, position: 0 }",
        )]),
    );
}

#[test]
fn a_query_parameter_the_description_leaves_out_is_declared_and_pages_are_walked_with_it() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let topics = |ids: &[u64]| json!({"topic_list": {"topics": ids.iter().map(|id| json!({"id": id, "title": format!("T{id}")})).collect::<Vec<_>>()}});
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            ("GET", "/api/c/dev.json?page=1", 200, topics(&[1, 2])),
            ("GET", "/api/c/dev.json?page=2", 200, topics(&[3])),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_category_topics",
        json!({"category": "dev"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"],
        json!({
            "items": [
                {"id": 1, "title": "T1"},
                {"id": 2, "title": "T2"},
                {"id": 3, "title": "T3"},
            ],
            "truncated": false,
        })
    );
    let get = |query: &str| Received {
        method: "GET".into(),
        path: "/api/c/dev.json".into(),
        query: Some(query.into()),
        body: Value::Null,
    };
    assert_eq!(
        log.lock().expect("the log").clone(),
        [get("page=1"), get("page=2")]
    );
}

#[test]
fn a_declared_query_parameter_the_operation_has_or_that_no_query_can_carry_is_refused() {
    refused(
        "query_parameter_malformed",
        &curation_with(&[(
            "    page: { type: integer, description: The page number, from 1 }\n",
            "    page: { type: object }\n    slug: { type: string }\n  listCategoryTopic:\n    page: { type: integer }\n",
        )]),
    );
}

#[test]
fn a_resolved_parameter_that_only_scopes_another_is_resolved_once_and_compiles_without_warnings() {
    // `boards()` builds the crate with clippy's warnings denied: `workspace` is read only by the
    // scope of `project`'s resolver, and must not be an unused variable.
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/workspaces",
                200,
                json!({"data": [{"gid": "w1", "name": "Acme"}, {"gid": "w2", "name": "Other"}]}),
            ),
            (
                "GET",
                "/api/workspaces/w1/projects",
                200,
                json!({"data": [{"gid": "p9", "name": "Website"}]}),
            ),
            (
                "POST",
                "/api/projects/p9/archive",
                200,
                json!({"gid": "p9", "archived": true}),
            ),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_archive_project",
        json!({"workspace": "acme", "project": "website"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let request = |method: &str, path: &str| Received {
        method: method.into(),
        path: path.into(),
        query: None,
        body: Value::Null,
    };
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            request("GET", "/api/workspaces"),
            request("GET", "/api/workspaces/w1/projects"),
            request("POST", "/api/projects/p9/archive"),
        ]
    );
}

#[test]
fn a_resolver_scoped_by_a_value_resolved_by_another_scoped_resolver_resolves_in_order() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/workspaces",
                200,
                json!({"data": [{"gid": "w1", "name": "Acme"}, {"gid": "w2", "name": "Other"}]}),
            ),
            (
                "GET",
                "/api/workspaces/w1/projects",
                200,
                json!({"data": [{"gid": "p9", "name": "Website"}]}),
            ),
            (
                "GET",
                "/api/projects/p9/sections",
                200,
                json!({"data": [{"gid": "s1", "name": "To do"}, {"gid": "s2", "name": "Doing"}]}),
            ),
            (
                "GET",
                "/api/sections/s2/tasks",
                200,
                json!({"data": [{"gid": "t1", "name": "Ship it"}]}),
            ),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_section_tasks",
        json!({"workspace": "acme", "project": "website", "section": "doing"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let request = |path: &str| Received {
        method: "GET".into(),
        path: path.into(),
        query: None,
        body: Value::Null,
    };
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            request("/api/workspaces"),
            request("/api/workspaces/w1/projects"),
            request("/api/projects/p9/sections"),
            request("/api/sections/s2/tasks"),
        ]
    );
}

#[test]
fn resolvers_that_scope_each_other_in_a_circle_are_refused() {
    refused(
        "scope_circle",
        &curation_with(&[
            (
                "  # The sections of the project",
                "  circular_workspace:\n    list: listWorkspaceProjects\n    args: { workspace: $project }\n    items: data\n    match: [name]\n    id: gid\n  # The sections of the project",
            ),
            (
                "      workspace: { type: string, resolve: workspace, description: \"Workspace name, for example Acme\" }\n      project: { type: string, resolve: workspace_project, description: \"Project name, for example Website\" }\n    steps:",
                "      workspace: { type: string, resolve: circular_workspace, description: \"Workspace name, for example Acme\" }\n      project: { type: string, resolve: workspace_project, description: \"Project name, for example Website\" }\n    steps:",
            ),
        ]),
    );
}

#[test]
fn an_enum_code_a_nested_step_argument_does_not_accept_is_refused() {
    refused(
        "enum_code_for_a_nested_slot",
        &curation_with(&[
            (
                "\nenums:\n",
                "\nenums:\n  note_kind: { memo: memo, task: task }\n",
            ),
            (
                "\ntools:\n",
                "\ntools:\n  write_note:\n    description: >-\n      Write a note of a kind. Returns the id of the new note; each call writes another note.\n    params:\n      text: { type: string, description: The note's text }\n      kind: { enum: note_kind, description: What the note is }\n    steps:\n      - call: createNote\n        args: { data: { text: $text, kind: $kind } }\n\n",
            ),
        ]),
    );
}

#[test]
fn a_find_over_one_page_of_a_list_the_file_pages_is_a_warning_pointing_to_a_resolver() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let curation = dir.path().join("mcpgen.yaml");
    let check = |text: &str| {
        std::fs::write(&curation, text).expect("the file is written");
        Command::new(env!("CARGO_BIN_EXE_mcpgen"))
            .arg("check")
            .arg(fixtures().join("openapi.yaml"))
            .arg("-c")
            .arg(&curation)
            .args(["--deny-warnings", "--color", "never"])
            .output()
            .expect("mcpgen runs")
    };
    // `also` is a later step that reads the page too (then the find sees only that page).
    let tool = |args: &str, also: &str| {
        format!(
            "\npagination: {{ style: cursor, cursor_param: starting_after, size_param: limit, last_item_cursor: id, has_more: has_more }}\n\ntools:\n  customer_by_email:\n    description: >-\n      Show the customer with an email address. Returns the customer's id and email.\n    params:\n      email: {{ type: string, description: \"Email, for example ada@example.com\" }}\n    steps:\n      - call: listCustomers\n        as: page\n        args: {args}\n      - find: $page.data\n        where: {{ email: $email }}\n        as: customer\n{also}    results:\n      from: $customer\n      fields: {{ id: id, email: email }}\n\n"
        )
    };
    let reads_page_too = "      - stop_if: { equal: [$page.has_more, true], result: $customer }\n";
    let output = check(&curation_with(&[(
        "\ntools:\n",
        &tool("{}", reads_page_too),
    )]));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: `find` reads only the first page of `listCustomers`: an item on a later page is not found"),
        "{stderr}"
    );
    assert!(
        stderr.contains("else a resolver does (`list: listCustomers`"),
        "{stderr}"
    );
    // A find that is all that reads the page searches every page: no warning.
    let output = check(&curation_with(&[("\ntools:\n", &tool("{}", ""))]));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("reads only the first page"), "{stderr}");
    // A step that sets the page size itself reads the page it asked for, deliberately.
    let output = check(&curation_with(&[(
        "\ntools:\n",
        &tool("{ limit: 100 }", reads_page_too),
    )]));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("reads only the first page"), "{stderr}");
}

#[test]
fn a_resolver_over_a_list_the_file_paging_nearly_fits_is_a_warning_naming_the_missing_parameter() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let curation = dir.path().join("mcpgen.yaml");
    let text = curation_with(&[(
        "\nresolvers:\n",
        "\npagination: { style: cursor, cursor_param: starting_after, size_param: count, last_item_cursor: id }\n\nresolvers:\n  customer:\n    list: listCustomers\n    items: data\n    match: [email]\n    id: id\n",
    )]);
    std::fs::write(&curation, text).expect("the file is written");
    let output = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .arg("check")
        .arg(fixtures().join("openapi.yaml"))
        .arg("-c")
        .arg(&curation)
        .args(["--color", "never"])
        .output()
        .expect("mcpgen runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("warning: `listCustomers` takes `starting_after` but not `count`, so the file's `pagination` does not walk it: resolver `customer` reads its first page only"),
        "{stderr}"
    );
    assert!(
        stderr
            .contains("declare it under `query: { listCustomers: { count: { type: integer } } }`"),
        "{stderr}"
    );
}

#[test]
fn a_step_named_as_a_parameter_is_refused() {
    refused(
        "step_named_as_a_parameter",
        &curation_with(&[(
            "        as: found\n        args: { id: $topic }\n      - stop_if:\n          equal: [$found.closed, true]",
            "        as: topic\n        args: { id: $topic }\n      - stop_if:\n          equal: [$topic.closed, true]",
        )]),
    );
}

#[test]
fn an_optional_parameter_for_a_required_api_input_without_a_default_is_refused() {
    refused(
        "optional_for_a_required_input",
        &curation_with(&[(
            "      username: { description: \"Username, for example ada\" }",
            "      username: { required: false, description: \"Username, for example ada\" }",
        )]),
    );
}

#[test]
fn enum_codes_of_another_type_than_a_step_argument_takes_are_refused() {
    refused(
        "enum_codes_of_another_type",
        &curation_with(&[
            (
                "\nenums:\n",
                "\nenums:\n  note_kind: { memo: 1, task: 2 }\n",
            ),
            (
                "\ntools:\n",
                "\ntools:\n  write_note:\n    description: >-\n      Write a note of a kind. Returns the id of the new note; each call writes another note.\n    params:\n      kind: { enum: note_kind, description: What the note is }\n    steps:\n      - call: createNote\n        args: { data: { text: $kind } }\n\n",
            ),
        ]),
    );
}

#[test]
fn a_text_answer_to_a_write_with_result_fields_is_an_error_saying_the_change_was_likely_made() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/topics/5",
                200,
                json!({"id": 5, "title": "T", "closed": false}),
            ),
            ("POST", "/api/posts", 200, json!("<html>ok</html>")),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_reply_if_found",
        json!({"topic": 5, "text": "Thanks"}),
    );
    assert_eq!(result["isError"], true, "never an empty success: {result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    // The step whose answer the result's fields read is named, and the model is told the
    // change was most likely made.
    assert!(
        text.starts_with(
            "The API accepted step 2 (createPost), but its answer does not have the shape the API documents"
        ) && text.contains("The change was most likely made: do not call again"),
        "{text}"
    );
    let received = log.lock().expect("the log").clone();
    assert_eq!(received.len(), 2, "{received:?}");
    assert_eq!(
        received[1],
        Received {
            method: "POST".into(),
            path: "/api/posts".into(),
            query: None,
            body: json!({"topic_id": 5, "raw": "Thanks"}),
        }
    );
}

#[test]
fn a_page_size_parameter_that_takes_text_is_refused_with_size_param_none_suggested() {
    refused(
        "text_page_size",
        &curation_with(&[(
            "    pagination: { style: page, page_param: page, size_param: none }\n    results:\n      items: posts\n",
            "    pagination: { style: page, page_param: page, size_param: q }\n    results:\n      items: posts\n",
        )]),
    );
}

#[test]
fn a_one_call_tool_takes_a_parameter_of_its_own_that_scopes_a_resolver() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/workspaces/w1/projects",
                200,
                json!({"data": [{"gid": "p9", "name": "Website"}]}),
            ),
            (
                "POST",
                "/api/projects/p9/unarchive",
                200,
                json!({"gid": "p9", "archived": false}),
            ),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_unarchive_project",
        json!({"workspace": "w1", "project": "Website"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let request = |method: &str, path: &str| Received {
        method: method.into(),
        path: path.into(),
        query: None,
        body: Value::Null,
    };
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            request("GET", "/api/workspaces/w1/projects"),
            request("POST", "/api/projects/p9/unarchive"),
        ]
    );
}

#[test]
fn a_blank_required_argument_of_a_template_is_refused_rather_than_widening_the_query() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let answer = json!({"total_count": 0, "items": []});
    let (base_url, log) =
        recording_upstream(&runtime, vec![("GET", "/api/search/issues", 200, answer)]);
    let result = call_finder(
        &base_url,
        "finder_search_issues",
        json!({"owner": "  ", "repo": "hello"}),
    );
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["content"][0]["text"],
        "Invalid argument `owner`: it is required and cannot be blank."
    );
    assert!(log.lock().expect("the log").is_empty(), "nothing is sent");
}

#[test]
fn a_limit_over_an_unpaged_list_whose_page_size_is_unset_is_a_warning_naming_it() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let curation = dir.path().join("mcpgen.yaml");
    let check = |fixed: &str| {
        let tool = format!(
            "\ntools:\n  customers:\n    description: >-\n      List customers by email. Returns each customer's id and email, at most `limit`.\n    call: listCustomers\n    params:\n      email: {{ description: \"Email, for example ada@example.com\" }}\n{fixed}    results:\n      items: data\n      limit: {{ default: 10, max: 50 }}\n      fields: {{ id: id, email: email }}\n\n"
        );
        std::fs::write(&curation, curation_with(&[("\ntools:\n", &tool)]))
            .expect("the file is written");
        let output = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
            .arg("check")
            .arg(fixtures().join("openapi.yaml"))
            .arg("-c")
            .arg(&curation)
            .args(["--color", "never"])
            .output()
            .expect("mcpgen runs");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    // The file declares no paging for listCustomers: the server cuts what the API's default
    // page holds, and the API's `limit` decides how much that is.
    let stderr = check("");
    assert!(
        stderr.contains("warning: `results.limit` on `listCustomers`, which this file does not page: the server only cuts the answer, and while `limit` is unset the API's own default may return fewer items than asked for"),
        "{stderr}"
    );
    assert!(
        stderr.contains("set `limit` under `fixed` (to at least `limit.max`, 50), or declare `pagination` for `listCustomers`"),
        "{stderr}"
    );
    // Setting the API's page size answers it.
    let stderr = check("    fixed: { limit: 50 }\n");
    assert!(!stderr.contains("does not page"), "{stderr}");
}

#[test]
fn a_query_parameter_the_description_has_wrongly_is_redeclared_optional_and_retyped() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![(
            "GET",
            "/api/search/cards",
            200,
            json!({"cards": [{"id": "c1", "name": "Login fails"}]}),
        )],
    );
    let result = call(
        binary,
        &base_url,
        "boards_find_cards",
        json!({"words": "login bug"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    // `idOrganizations`, required by the description, is left out; `cards_limit` goes as the
    // number the file fixed.
    assert_eq!(
        log.lock().expect("the log").clone(),
        [Received {
            method: "GET".into(),
            path: "/api/search/cards".into(),
            query: Some("query=login+bug&cards_limit=50".into()),
            body: Value::Null,
        }]
    );
}

#[test]
fn without_the_redeclaration_the_required_parameter_and_the_number_for_text_are_refused() {
    refused(
        "query_parameter_not_redeclared",
        &curation_with(&[(
            "  searchCards:\n    idOrganizations: { type: string, description: Organization ids to search in, comma-separated }\n    cards_limit: { type: integer, minimum: 1, maximum: 1000 }\n",
            "",
        )]),
    );
}

#[test]
fn a_resolve_step_resolves_a_name_within_a_scope_an_earlier_answer_gives() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/tasks/t7",
                200,
                json!({"data": {"gid": "t7", "workspace": {"gid": "w2"}}}),
            ),
            (
                "GET",
                "/api/workspaces/w2/users",
                200,
                json!({"data": [
                    {"gid": "u1", "name": "Ann Lee", "email": "ann@example.com"},
                    {"gid": "u2", "name": "Bo Chen", "email": "bo@example.com"},
                ]}),
            ),
            (
                "PUT",
                "/api/tasks/t7",
                200,
                json!({"data": {"gid": "t7", "assignee": {"gid": "u2"}}}),
            ),
        ],
    );
    let request = |method: &str, path: &str, body: Value| Received {
        method: method.into(),
        path: path.into(),
        query: None,
        body,
    };
    let result = call(
        binary,
        &base_url,
        "boards_assign_task",
        json!({"task": "t7", "assignee": "BO@example.com"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"],
        json!({"gid": "t7", "assignee": "u2"})
    );
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            request("GET", "/api/tasks/t7", Value::Null),
            request("GET", "/api/workspaces/w2/users", Value::Null),
            request("PUT", "/api/tasks/t7", json!({"data": {"assignee": "u2"}})),
        ]
    );
    // An alias to a value the API takes is sent as it is, without the list.
    log.lock().expect("the log").clear();
    let result = call(
        binary,
        &base_url,
        "boards_assign_task",
        json!({"task": "t7", "assignee": "me"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            request("GET", "/api/tasks/t7", Value::Null),
            request("PUT", "/api/tasks/t7", json!({"data": {"assignee": "me"}})),
        ]
    );
    // An unknown name lists the workspace's users, tells the model which argument to change,
    // and nothing is written.
    log.lock().expect("the log").clear();
    let result = call(
        binary,
        &base_url,
        "boards_assign_task",
        json!({"task": "t7", "assignee": "Cy"}),
    );
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("Ann Lee") && text.contains("Bo Chen"),
        "{text}"
    );
    assert!(text.contains("in the assignee parameter"), "{text}");
    assert!(
        log.lock()
            .expect("the log")
            .iter()
            .all(|r| r.method == "GET"),
        "nothing is written"
    );
}

#[test]
fn a_resolve_step_without_the_scope_its_resolver_needs_is_refused() {
    refused(
        "resolve_step_without_scope",
        &curation_with(&[(
            "        args: { workspace: $found.data.workspace.gid }\n        as: user\n",
            "        as: user\n",
        )]),
    );
}

#[test]
fn a_list_parameter_into_one_text_is_refused_with_the_joining_template() {
    refused(
        "list_parameter_into_text",
        &curation_with(&[(
            "\ntools:\n",
            "\ntools:\n  customers_by_emails:\n    description: >-\n      List the customers with any of the given emails. Returns each one's id and email.\n    call: listCustomers\n    params:\n      emails: { from: email, type: array, description: \"Emails, for example [ada@example.com]\" }\n    results:\n      items: data\n      fields: { id: id, email: email }\n\n",
        )]),
    );
}

#[test]
fn a_resolved_text_id_scoping_a_list_that_takes_an_integer_is_sent_as_the_number() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/projects",
                200,
                json!({"values": [{"id": "10000", "name": "Website"}]}),
            ),
            (
                "GET",
                "/api/issuetype/project",
                200,
                json!([{"id": "3", "name": "Task"}, {"id": "10001", "name": "Bug"}]),
            ),
            ("POST", "/api/jira/issue", 201, json!({"key": "WEB-1"})),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_create_typed_issue",
        json!({"project": "website", "issue_type": "bug", "summary": "Crash"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let request = |method: &str, path: &str, query: Option<&str>, body: Value| Received {
        method: method.into(),
        path: path.into(),
        query: query.map(str::to_string),
        body,
    };
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            request("GET", "/api/projects", None, Value::Null),
            request(
                "GET",
                "/api/issuetype/project",
                Some("projectId=10000"),
                Value::Null
            ),
            request(
                "POST",
                "/api/jira/issue",
                None,
                json!({"fields": {"project": {"id": "10000"}, "issuetype": {"id": "10001"}, "summary": "Crash"}}),
            ),
        ]
    );
}

#[test]
fn text_of_the_models_own_scoping_a_list_that_takes_an_integer_is_refused() {
    refused(
        "scope_text_into_integer",
        &curation_with(&[(
            "      project: { type: string, resolve: jira_project, description: \"Project name, for example Website\" }\n",
            "      project: { type: string, description: \"Project id, for example 10000\" }\n",
        )]),
    );
}

#[test]
fn a_reference_in_a_declared_answer_is_refused_since_it_is_not_followed() {
    refused(
        "declared_answer_with_ref",
        &curation_with(&[(
            "responses:\n  getIssueSummary:\n",
            "responses:\n  listCustomers:\n    type: array\n    items: { $ref: \"#/components/schemas/Customer\" }\n  getIssueSummary:\n",
        )]),
    );
}

#[test]
fn a_resolver_over_a_list_no_paging_of_the_file_walks_is_a_warning_naming_its_page_size() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let curation = dir.path().join("mcpgen.yaml");
    let text = curation_with(&[(
        "\nresolvers:\n",
        "\nresolvers:\n  customer:\n    list: listCustomers\n    items: data\n    match: [email]\n    id: id\n",
    )]);
    std::fs::write(&curation, text).expect("the file is written");
    let output = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .arg("check")
        .arg(fixtures().join("openapi.yaml"))
        .arg("-c")
        .arg(&curation)
        .args(["--color", "never"])
        .output()
        .expect("mcpgen runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("warning: resolver `customer` reads one page of `listCustomers`, which pages by `limit`: no `pagination` of this file walks it, so a value past the first page would be \"not found\""),
        "{stderr}"
    );
}

#[test]
fn a_resolver_that_searches_with_the_value_lists_what_the_search_finds_and_caches_it_per_value() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/users/search?name=Ann+Lee",
                200,
                json!([
                    {"accountId": "a1", "displayName": "Ann Lee"},
                    {"accountId": "a2", "displayName": "Ann Leeson"},
                ]),
            ),
            ("GET", "/api/users/search?name=Bo", 200, json!([])),
            (
                "PUT",
                "/api/tasks/t7",
                200,
                json!({"data": {"gid": "t7", "assignee": {"gid": "a1"}}}),
            ),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_assign_task_to_found",
        json!({"task": "t7", "assignee": "Ann Lee"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let request = |method: &str, path: &str, query: Option<&str>, body: Value| Received {
        method: method.into(),
        path: path.into(),
        query: query.map(str::to_string),
        body,
    };
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            request(
                "GET",
                "/api/users/search",
                Some("name=Ann+Lee"),
                Value::Null
            ),
            request(
                "PUT",
                "/api/tasks/t7",
                None,
                json!({"data": {"assignee": "a1"}})
            ),
        ]
    );
    // A value the search does not find is not found, and nothing is written.
    log.lock().expect("the log").clear();
    let result = call(
        binary,
        &base_url,
        "boards_assign_task_to_found",
        json!({"task": "t7", "assignee": "Bo"}),
    );
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("User \"Bo\" not found."), "{text}");
    assert_eq!(
        log.lock().expect("the log").clone(),
        [request(
            "GET",
            "/api/users/search",
            Some("name=Bo"),
            Value::Null
        )]
    );
    // Within one server, what the search for a value found is cached: one search for two calls.
    log.lock().expect("the log").clear();
    let results = support::calls_over_stdio(
        binary,
        &[("BOARDS_BASE_URL", base_url.as_str())],
        "boards_assign_task_to_found",
        &[
            json!({"task": "t7", "assignee": "Ann Lee"}),
            json!({"task": "t7", "assignee": "Ann Lee"}),
        ],
    );
    assert!(results.iter().all(|r| r["isError"] != true), "{results:?}");
    let searches = log
        .lock()
        .expect("the log")
        .iter()
        .filter(|r| r.path == "/api/users/search")
        .count();
    assert_eq!(searches, 1);
}

#[test]
fn after_an_ambiguous_search_the_id_it_offered_is_taken_without_searching_for_it() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/users/search?name=Ann",
                200,
                json!([
                    {"accountId": "a1", "displayName": "Ann"},
                    {"accountId": "a2", "displayName": "Ann"},
                ]),
            ),
            (
                "PUT",
                "/api/tasks/t7",
                200,
                json!({"data": {"gid": "t7", "assignee": {"gid": "a2"}}}),
            ),
        ],
    );
    let results = support::calls_over_stdio(
        binary,
        &[("BOARDS_BASE_URL", base_url.as_str())],
        "boards_assign_task_to_found",
        &[
            json!({"task": "t7", "assignee": "Ann"}),
            json!({"task": "t7", "assignee": "a2"}),
        ],
    );
    assert_eq!(results[0]["isError"], true, "{results:?}");
    let text = results[0]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("id a1") && text.contains("id a2") && text.contains("or with the id"),
        "{text}"
    );
    assert_ne!(results[1]["isError"], true, "{results:?}");
    let request = |method: &str, path: &str, query: Option<&str>, body: Value| Received {
        method: method.into(),
        path: path.into(),
        query: query.map(str::to_string),
        body,
    };
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            request("GET", "/api/users/search", Some("name=Ann"), Value::Null),
            request(
                "PUT",
                "/api/tasks/t7",
                None,
                json!({"data": {"assignee": "a2"}})
            ),
        ]
    );
}

#[test]
fn a_lookup_that_would_search_with_the_value_is_refused_for_lookup_param() {
    refused(
        "lookup_with_searched_value",
        &curation_with(&[(
            "    list: findUsers\n    args: { name: $value }\n",
            "    lookup: findUsers\n    args: { name: $value }\n",
        )]),
    );
}

#[test]
fn an_object_kept_only_when_its_value_is_present_is_left_out_without_it() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/projects",
                200,
                json!({"values": [{"id": "10000", "name": "Website"}]}),
            ),
            (
                "GET",
                "/api/issuetype/project",
                200,
                json!([{"id": "10001", "name": "Bug"}]),
            ),
            ("POST", "/api/jira/issue", 201, json!({"key": "WEB-1"})),
        ],
    );
    let results = support::calls_over_stdio(
        binary,
        &[("BOARDS_BASE_URL", base_url.as_str())],
        "boards_create_typed_issue",
        &[
            json!({"project": "Website", "issue_type": "Bug", "summary": "Crash", "details": "It crashes on start"}),
            json!({"project": "Website", "issue_type": "Bug", "summary": "Crash"}),
            json!({"project": "Website", "issue_type": "Bug", "summary": "Crash", "details": "  "}),
        ],
    );
    assert!(results.iter().all(|r| r["isError"] != true), "{results:?}");
    let bodies: Vec<Value> = log
        .lock()
        .expect("the log")
        .iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.body.clone())
        .collect();
    let fields =
        json!({"project": {"id": "10000"}, "issuetype": {"id": "10001"}, "summary": "Crash"});
    let mut described = fields.clone();
    described["description"] = json!({
        "type": "doc",
        "content": [{"type": "paragraph", "content": [{"type": "text", "text": "It crashes on start"}]}],
    });
    assert_eq!(
        bodies,
        [
            json!({ "fields": described }),
            json!({ "fields": fields }),
            json!({ "fields": fields }),
        ]
    );
}

#[test]
fn an_if_present_that_names_no_value_is_refused() {
    refused(
        "if_present_not_a_reference",
        &curation_with(&[(
            "              $if: $details\n",
            "              $if: details\n",
        )]),
    );
}

/// A next-page link read from the page's own address (`href`, beside `next`) would fetch the
/// same page again: refused, with the field that holds the next page's address.
#[test]
fn a_next_link_at_the_pages_own_address_is_refused() {
    let text = curation_with(&[(
        "pagination: { style: link, next_link: next, size_param: none }",
        "pagination: { style: link, next_link: href, size_param: none }",
    )]);
    refused("next_link_own_address", &text);
}

/// A parameter the model may leave out cannot fill what the API requires, in a workflow's steps
/// as in a one-call tool: not a required argument, not a required field inside an object, not
/// the scope a resolver's list requires.
#[test]
fn an_optional_parameter_where_the_api_requires_a_value_is_refused() {
    let text = curation_with(&[(
        "      issue: { type: string, description: \"Issue key, for example WEB-1\" }\n      transition: { type: string, resolve: transition, description: \"Name of the transition, for example Done\" }",
        "      issue: { type: string, required: false, description: \"Issue key, for example WEB-1\" }\n      transition: { type: string, resolve: transition, required: false, description: \"Name of the transition, for example Done\" }",
    )]);
    refused("optional_for_required", &text);
}

/// `$name` inside longer text is not replaced: the API would get `WEB-$issue` itself.
#[test]
fn a_reference_inside_text_is_refused_with_the_template_that_builds_it() {
    let text = curation_with(&[(
        "args: { key: $issue, transition: { id: $transition } }",
        "args: { key: \"WEB-$issue\", transition: { id: $transition } }",
    )]);
    refused("reference_inside_text", &text);
}

/// An operation the API serves at a host of its own is called where its variable says; with the
/// base URL changed (here to the recording upstream) and the variable unset, it is refused
/// unsent, naming the variable, so that the credentials never go to a host the user did not name.
#[test]
fn an_operation_at_a_server_of_its_own_follows_its_variable_and_is_never_sent_elsewhere() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![("POST", "/api/files/content", 201, json!({"id": "n1"}))],
    );
    let result = call(
        binary,
        &base_url,
        "boards_upload_note",
        json!({"name": "todo.txt"}),
    );
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("BOARDS_UPLOADS_BOARDS_EXAMPLE_COM_URL")
            && text.contains("https://uploads.boards.example.com/api"),
        "{text}"
    );
    assert_eq!(log.lock().expect("the log").clone(), []);
    let result = support::call_over_stdio(
        binary,
        &[
            ("BOARDS_BASE_URL", base_url.as_str()),
            ("BOARDS_UPLOADS_BOARDS_EXAMPLE_COM_URL", base_url.as_str()),
        ],
        &[],
        "boards_upload_note",
        json!({"name": "todo.txt"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        log.lock().expect("the log").clone(),
        [Received {
            method: "POST".into(),
            path: "/api/files/content".into(),
            query: None,
            body: json!({"name": "todo.txt"}),
        }]
    );
}

/// A resolved id the API gives as an integer goes as text where the field it fills takes text:
/// from a list parameter's items through `$each`, and from a `resolve` step.
#[test]
fn a_resolved_integer_id_is_sent_as_text_where_the_field_takes_text() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/labels",
                200,
                json!([{"id": 7, "name": "bug"}, {"id": 9, "name": "ui"}]),
            ),
            ("POST", "/api/tags/triage/resources", 204, Value::Null),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_tag_labels",
        json!({"tag": "triage", "labels": ["bug", "ui"], "first": "ui"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let sent: Vec<Received> = log
        .lock()
        .expect("the log")
        .iter()
        .filter(|r| r.method == "POST")
        .cloned()
        .collect();
    assert_eq!(
        sent,
        [Received {
            method: "POST".into(),
            path: "/api/tags/triage/resources".into(),
            query: None,
            body: json!({
                "resources": [
                    {"resource_id": "7", "resource_type": "label"},
                    {"resource_id": "9", "resource_type": "label"},
                ],
                "primary": "9",
            }),
        }]
    );
}

/// A one-call tool's parameter fills a field inside an object the operation takes
/// (`from: content.raw`): the call sends the object built around it, beside what `fixed` gives
/// the same object.
#[test]
fn a_parameter_from_a_field_inside_an_object_is_sent_inside_that_object() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![(
            "POST",
            "/api/topics/welcome/comments",
            201,
            json!({"id": 5}),
        )],
    );
    let result = call(
        binary,
        &base_url,
        "boards_comment_on_topic",
        json!({"topic": "welcome", "text": "Looks *good*"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        log.lock().expect("the log").clone(),
        [Received {
            method: "POST".into(),
            path: "/api/topics/welcome/comments".into(),
            query: None,
            body: json!({"content": {"markup": "markdown", "raw": "Looks *good*"}}),
        }]
    );
}

#[test]
fn a_field_inside_an_object_the_operation_does_not_have_is_refused() {
    let text = curation_with(&[("text: { from: content.raw,", "text: { from: content.rwa,")]);
    refused("nested_from_unknown_field", &text);
}

/// A resolver's `where` keeps only the items of one kind: a folder of the same name as a file
/// is never the file resolved to.
#[test]
fn a_resolver_resolves_only_to_the_items_its_where_keeps() {
    let binary = boards();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/entries",
                200,
                json!([
                    {"id": "d1", "name": "Reports", "type": "folder"},
                    {"id": "f9", "name": "Reports", "type": "file"},
                ]),
            ),
            ("POST", "/api/entries/f9/star", 204, Value::Null),
        ],
    );
    let result = call(
        binary,
        &base_url,
        "boards_star_file",
        json!({"file": "Reports"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let posts: Vec<Received> = log
        .lock()
        .expect("the log")
        .iter()
        .filter(|r| r.method == "POST")
        .cloned()
        .collect();
    assert_eq!(
        posts,
        [Received {
            method: "POST".into(),
            path: "/api/entries/f9/star".into(),
            query: None,
            body: Value::Null,
        }]
    );
}

#[test]
fn a_resolver_where_on_a_field_the_items_lack_or_a_value_it_never_has_is_refused() {
    let text = curation_with(&[(
        "    where: { type: file }",
        "    where: { kind: file, type: doc }",
    )]);
    refused("resolver_where_mistakes", &text);
}

// --- a find over a paged list --------------------------------------------------------------------
// `tests/fixtures/soundness-paged/`: a list the API gives two items a page.

/// A `find` that is all that reads a paged list searches every page: the thing on the second
/// page is found and archived, each page asked for in turn.
#[test]
fn a_find_over_a_paged_list_searches_every_page() {
    let fixture = repo().join("tests/fixtures/soundness-paged");
    let binary = support::generate_and_build(
        "soundness-paged",
        &fixture.join("openapi.yaml"),
        Some(&fixture.join("mcpgen.yaml")),
    );
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (base_url, log) = recording_upstream(
        &runtime,
        vec![
            (
                "GET",
                "/api/things?page=1&per_page=2",
                200,
                json!({"items": [{"id": "t1", "name": "alpha"}, {"id": "t2", "name": "beta"}]}),
            ),
            (
                "GET",
                "/api/things?page=2&per_page=2",
                200,
                json!({"items": [{"id": "t3", "name": "gamma"}]}),
            ),
            (
                "POST",
                "/api/things/t3/archive",
                200,
                json!({"id": "t3", "archived": true}),
            ),
        ],
    );
    let result = support::call_over_stdio(
        &binary,
        &[("PAGED_BASE_URL", base_url.as_str())],
        &[],
        "paged_archive_thing",
        json!({"name": "gamma"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let request = |method: &str, path: &str, query: Option<&str>| Received {
        method: method.into(),
        path: path.into(),
        query: query.map(str::to_string),
        body: Value::Null,
    };
    assert_eq!(
        log.lock().expect("the log").clone(),
        [
            request("GET", "/api/things", Some("page=1&per_page=2")),
            request("GET", "/api/things", Some("page=2&per_page=2")),
            request("POST", "/api/things/t3/archive", None),
        ]
    );
}

/// A value that is absent when the model leaves out a parameter cannot fill what the API
/// requires, also through a `resolve` step (the id of nothing) or an `$each` (no list, no
/// objects).
#[test]
fn an_optional_value_through_a_resolve_step_or_each_where_the_api_requires_one_is_refused() {
    let text = curation_with(&[
        (
            "      labels: { type: array, resolve: label, description: \"Label names, for example [bug, ui]\" }",
            "      labels: { type: array, resolve: label, required: false, description: \"Label names, for example [bug, ui]\" }",
        ),
        (
            "      first: { type: string, description:",
            "      first: { type: string, required: false, description:",
        ),
        ("          tag: $tag\n", "          tag: $primary_label\n"),
        (
            "          primary: $primary_label",
            "          primary: $tag",
        ),
    ]);
    refused("optional_through_resolve_and_each", &text);
}

/// `$value` inside text in a resolver's `args`, and a template that writes no parameter
/// (`$tag` where `{tag}` was meant), are sent as written: refused.
#[test]
fn references_written_inside_resolver_text_or_as_a_template_without_placeholders_are_refused() {
    let text = curation_with(&[
        (
            "    args: { name: $value }",
            "    args: { name: \"x$value\" }",
        ),
        (
            "          tag: $tag\n",
            "          tag: { template: \"$tag\", quote: none }\n",
        ),
    ]);
    refused("references_as_text", &text);
}
