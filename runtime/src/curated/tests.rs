//! The unit tests of the curated-tools runtime.

use super::*;
use std::collections::HashMap;
use std::time::Duration;

use super::super::tool::ToolError;
use super::paging::to_i64;
use serde_json::json;
use serde_json::{Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};

#[test]
fn a_required_argument_a_template_writes_is_refused_blank_or_as_an_empty_list() {
    assert!(not_blank("words", &json!("  ")).is_err());
    assert!(not_blank("words", &json!("moon")).is_ok());
    assert!(not_blank("states", &json!([])).is_err());
    assert!(not_blank("states", &json!(["  "])).is_err());
    assert!(not_blank("states", &json!(["OPEN", ""])).is_ok());
}

#[test]
fn nothing_read_from_an_earlier_answer_says_what_is_missing_and_does_not_blame_the_api() {
    // `uris: [$found.tracks.items.0.uri]` after a search that found nothing.
    let error = from_answer::<Vec<String>>(1, "addTracks", "uris", &json!([null]))
        .expect_err("nothing to send");
    let ToolError::Answer(message) = error else {
        panic!("not an answer error: {error:?}");
    };
    assert!(
        message.starts_with("The answer to step 1 has nothing for `uris[0]` of addTracks"),
        "{message}"
    );
    assert!(!message.contains("may have changed"), "{message}");
    // A value of the wrong type is still the API's.
    let error =
        from_answer::<Vec<String>>(1, "addTracks", "uris", &json!([7])).expect_err("not text");
    assert!(
        matches!(&error, ToolError::Answer(m) if m.contains("the API may have changed")),
        "{error:?}"
    );
}

#[test]
fn a_walked_list_is_answered_at_its_place() {
    assert_eq!(list_answer("", vec![json!(1)]), json!([1]));
    assert_eq!(list_answer("/data", vec![json!(1)]), json!({"data": [1]}));
    assert_eq!(
        list_answer("/a/b~1c", vec![json!(1)]),
        json!({"a": {"b/c": [1]}})
    );
}

#[test]
fn id_text_writes_numbers_as_their_digits_and_leaves_the_rest() {
    assert_eq!(id_text(json!(101)), json!("101"));
    assert_eq!(id_text(json!([101, 102])), json!(["101", "102"]));
    assert_eq!(id_text(json!("a-1")), json!("a-1"));
    assert_eq!(id_text(Value::Null), Value::Null);
}

#[test]
fn each_makes_one_object_per_item_and_keeps_an_absent_list_absent() {
    let make = |item: &Value| object([("uuid", item.clone())]);
    assert_eq!(
        each(&json!(["{a}", "{b}"]), make),
        json!([{"uuid": "{a}"}, {"uuid": "{b}"}])
    );
    assert_eq!(each(&Value::Null, make), Value::Null);
    assert_eq!(each(&json!("{a}"), make), json!([{"uuid": "{a}"}]));
}

// --- templates -------------------------------------------------------------------------

#[test]
fn a_required_parameter_built_from_no_argument_is_refused_naming_the_arguments() {
    let refused = required_text("q", "artist, year", "  ".to_string());
    let Err(ToolError::InvalidArguments(message)) = refused else {
        panic!("a blank query is refused: {refused:?}");
    };
    assert_eq!(
        message,
        "Give at least one of artist, year: the API needs `q`, which is built from them."
    );
    assert_eq!(
        required_text("q", "artist, year", "artist:Bach".to_string()).ok(),
        Some("artist:Bach".to_string())
    );
    assert_eq!(unless_blank(String::new()), None);
    assert_eq!(unless_blank("x".to_string()), Some("x".to_string()));
}

// --- paths into answers -----------------------------------------------------------------

#[test]
fn numbers_booleans_and_null_are_the_same_as_their_text() {
    assert!(same(&json!(true), &json!("true")));
    assert!(same(&json!("false"), &json!(false)));
    assert!(!same(&json!(true), &json!("false")));
    assert!(!same(&json!(true), &json!("yes")));
    assert!(same(&json!(3), &json!("3")));
    assert!(same(&Value::Null, &json!("null")));
    assert!(!same(&Value::Null, &json!("")));
    assert!(!same(&json!("a"), &json!("A")));
    assert!(same_text(&json!(" In Progress"), &json!("in progress")));
    assert!(same_text(&json!(3), &json!("3")));
}

#[test]
fn a_path_through_a_list_takes_each_items_field_and_a_number_picks_one_item() {
    let answer = json!({
        "tracks": {"items": [
            {"uri": "a", "artists": [{"name": "X"}, {"name": "Y"}]},
            {"name": "no uri"},
            {"uri": "c/d", "artists": []}
        ]}
    });
    assert_eq!(value_at(&answer, "/tracks/items/uri"), json!(["a", "c/d"]));
    assert_eq!(value_at(&answer, "/tracks/items/0/uri"), json!("a"));
    assert_eq!(value_at(&answer, "/tracks/items/5/uri"), Value::Null);
    assert_eq!(
        value_at(&answer, "/tracks/items/artists/name"),
        json!([["X", "Y"], []])
    );
    assert_eq!(
        value_at(&answer, "/tracks/items/0/artists/name"),
        json!(["X", "Y"])
    );
    assert_eq!(value_at(&json!({"a/b": 1}), "/a~1b"), json!(1));
    assert_eq!(value_at(&answer, ""), answer);
    assert_eq!(value_at(&answer, "/nothing/here"), Value::Null);
}

#[test]
fn a_list_item_that_is_no_object_is_kept_as_the_api_gave_it_not_shaped_into_an_empty_object() {
    const SHAPE: Shape = Shape {
        fields: &[FieldSpec {
            name: "name",
            from: "/name",
            convert: Convert::Copy,
        }],
        detailed: &[],
    };
    let collected = Collected {
        items: vec![json!({"name": "a", "b": 1}), Value::Null],
        more: false,
    };
    let output = shape_list(&SHAPE, "posts", collected, false, &[], "more");
    assert_eq!(
        output.value,
        json!({"posts": [{"name": "a"}, null], "truncated": false})
    );
}

#[test]
fn a_result_field_through_a_list_is_the_list_of_the_items_values() {
    const SHAPE: Shape = Shape {
        fields: &[
            FieldSpec {
                name: "name",
                from: "/name",
                convert: Convert::Copy,
            },
            FieldSpec {
                name: "artists",
                from: "/artists/name",
                convert: Convert::Copy,
            },
        ],
        detailed: &[],
    };
    let item = json!({"name": "Song", "artists": [{"name": "X"}, {"name": "Y"}]});
    assert_eq!(
        shape_item(&SHAPE, &item, false, &[]),
        json!({"name": "Song", "artists": ["X", "Y"]})
    );
}

// --- templates ------------------------------------------------------------------------

#[test]
fn an_absent_argument_gives_a_template_no_value_and_a_list_one_per_item() {
    assert!(template_values(&Value::Null).is_empty());
    assert!(template_values(&json!("  ")).is_empty());
    assert!(template_values(&json!([])).is_empty());
    assert_eq!(template_values(&json!("open")), ["open"]);
    assert_eq!(template_values(&json!(42)), ["42"]);
    assert_eq!(template_values(&json!(["bug", "", "ui"])), ["bug", "ui"]);
}

#[test]
fn github_quoting_keeps_plain_values_quotes_the_rest_and_refuses_a_double_quote() {
    let write = |value: &str, quoted: bool| Quote::Github.write("label", value, quoted);
    assert_eq!(write("octocat", false).ok().as_deref(), Some("octocat"));
    assert_eq!(
        write("v1.2-rc/x@y#1+", false).ok().as_deref(),
        Some("v1.2-rc/x@y#1+")
    );
    assert_eq!(
        write("good first issue", false).ok().as_deref(),
        Some("\"good first issue\"")
    );
    assert_eq!(write("a:b", false).ok().as_deref(), Some("\"a:b\""));
    // Between the clause's own quotes a value goes in as it is.
    assert_eq!(
        write("good first issue", true).ok().as_deref(),
        Some("good first issue")
    );
    let refused = text(write("say \"hi\"", true).expect_err("a double quote is refused"));
    assert_eq!(
        refused,
        "Invalid argument `label`: \"say \\\"hi\\\"\" has a double quote, which this search cannot hold; leave it out."
    );
    assert!(Quote::Slack.write("in", "a\"b", false).is_err());
}

#[test]
fn jql_quoting_escapes_quotes_backslashes_and_controls_and_quotes_unquoted_values() {
    assert_eq!(
        Quote::Jql
            .write("status", "In \"Review\"", true)
            .ok()
            .as_deref(),
        Some("In \\\"Review\\\"")
    );
    assert_eq!(
        Quote::Jql
            .write("status", "it's a\\b\n", false)
            .ok()
            .as_deref(),
        Some("\"it\\'s a\\\\b\\n\"")
    );
    assert_eq!(
        Quote::None.write("q", "a \"b\"", false).ok().as_deref(),
        Some("a \"b\"")
    );
}

// --- errors ---------------------------------------------------------------------------

fn text(error: ToolError) -> String {
    match error {
        ToolError::InvalidArguments(text) => text,
        ToolError::NotFound(not_found) => not_found.to_string(),
        ToolError::Answer(text) => text,
        other => panic!("expected InvalidArguments, NotFound or Answer, got {other:?}"),
    }
}

fn keys(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| name.to_string()).collect()
}

fn status_error(status: u16) -> ToolError {
    ToolError::Status {
        operation: "GET /projects/{id}",
        status,
        reason: "Not Found",
        message: "no such project".to_string(),
        retry_after: None,
    }
}

#[test]
fn not_found_lists_the_available_values() {
    let error = not_found("project key", "WEBB", keys(&["WEB", "API", "MOBILE"]));
    assert_eq!(
        text(error),
        "Project \"WEBB\" not found. Available project keys: WEB, API, MOBILE."
    );
}

#[test]
fn not_found_without_values_says_only_not_found() {
    let error = not_found("user", "bob", Vec::new());
    assert_eq!(text(error), "User \"bob\" not found.");
}

#[test]
fn not_found_lists_at_most_twenty_values() {
    let available: Vec<String> = (1..=25).map(|n| format!("K{n}")).collect();
    let listed: Vec<String> = (1..=20).map(|n| format!("K{n}")).collect();
    let error = not_found("project key", "X", available);
    assert_eq!(
        text(error),
        format!(
            "Project \"X\" not found. Available project keys: {} and 5 more.",
            listed.join(", ")
        )
    );
}

#[test]
fn several_alternatives_are_each_made_plural() {
    let error = not_found("user name or email", "Bo", keys(&["Ann Lee", "ann@x.org"]));
    assert_eq!(
        text(error),
        "User \"Bo\" not found. Available user names or emails: Ann Lee, ann@x.org."
    );
}

#[test]
fn not_found_lists_a_value_two_items_share_once() {
    let error = not_found("user name", "Bo", keys(&["Ann Lee", "Bo Chen", "Ann Lee"]));
    assert_eq!(
        text(error),
        "User \"Bo\" not found. Available user names: Ann Lee, Bo Chen."
    );
}

#[test]
fn for_argument_adds_a_retry_hint_to_not_found_errors() {
    let error = not_found("project key", "WEBB", keys(&["WEB", "API"]))
        .for_argument("list_issues", "project");
    assert_eq!(
        text(error),
        "Project \"WEBB\" not found. Available project keys: WEB, API. Call list_issues again with one of these values in the project parameter."
    );
}

#[test]
fn for_argument_leaves_other_errors_alone() {
    let error = ToolError::InvalidArguments("Invalid argument `limit`.".to_string())
        .for_argument("list_issues", "project");
    assert_eq!(text(error), "Invalid argument `limit`.");
    let error = not_found("user", "bob", Vec::new()).for_argument("assign", "user");
    assert_eq!(text(error), "User \"bob\" not found.");
    let error = status_error(404).for_argument("assign", "user");
    assert!(matches!(error, ToolError::Status { status: 404, .. }));
}

#[tokio::test]
async fn resolve_each_names_every_unknown_value_of_a_list_at_once() {
    let labels = keys(&["bug", "ui"]);
    let resolve = |value: String| {
        let labels = labels.clone();
        async move {
            match labels.iter().position(|label| *label == value) {
                Some(index) => Ok(format!("{}", index + 1)),
                None => Err(not_found("label", &value, labels)),
            }
        }
    };
    let ids = resolve_each(&keys(&["ui", "bug"]), resolve).await;
    assert_eq!(ids.expect("both are known"), keys(&["2", "1"]));
    let error = resolve_each(&keys(&["bug", "nope", "ui", "wat", "zzz"]), resolve)
        .await
        .expect_err("three are unknown");
    assert_eq!(
        text(error),
        "Labels \"nope\", \"wat\" and \"zzz\" not found. Available labels: bug, ui."
    );
}

#[tokio::test]
async fn resolve_each_stops_at_an_error_that_is_not_a_miss() {
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let error = resolve_each(&keys(&["a", "b"]), |_| {
        calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        async { Err::<String, _>(status_error(500)) }
    })
    .await
    .expect_err("the API failed");
    assert!(matches!(error, ToolError::Status { status: 500, .. }));
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[test]
fn explain_replaces_a_status_with_its_curated_message() {
    let messages = [
        (
            404,
            "Project {project} does not exist or you cannot see it.",
        ),
        (409, "Conflict."),
    ];
    let error = status_error(404).explain(&messages, &[("project", "WEB")]);
    assert_eq!(
        text(error),
        "Project WEB does not exist or you cannot see it."
    );
}

#[test]
fn explain_leaves_unknown_placeholders_and_does_not_expand_values() {
    let messages = [(404, "{a} and {missing} and {b")];
    let error = status_error(404).explain(&messages, &[("a", "{b}"), ("b", "B")]);
    assert_eq!(text(error), "{b} and {missing} and {b");
}

#[test]
fn explain_keeps_errors_without_a_curated_message() {
    let error = status_error(500).explain(&[(404, "gone")], &[]);
    assert!(matches!(error, ToolError::Status { status: 500, .. }));
    let error = ToolError::InvalidArguments("bad".to_string()).explain(&[(404, "gone")], &[]);
    assert_eq!(text(error), "bad");
}

#[test]
fn a_step_answer_is_checked_only_where_later_steps_read_it_and_a_write_says_it_likely_happened() {
    static READ: Documented = Documented::new(
        r#"{"type":"object","properties":{"data":{"type":"object","properties":{"completed":{"type":"boolean"}}}}}"#,
    );
    // Fields nobody reads may stray from the documentation.
    let fits = serde_json::json!({"data": {"completed": true, "gid": 7}, "extra": null});
    assert!(READ.check(&fits, 1, "getTask", false).is_ok());
    let garbled = serde_json::json!({"data": {"completed": "yes"}});
    let error = READ.check(&garbled, 1, "getTask", false).unwrap_err();
    assert_eq!(
        text(error),
        "The API's answer to step 1 (getTask) does not have the shape the API documents (at /data/completed: \"yes\" is not of type \"boolean\"), so the server stopped there. Calling again will likely fail the same way; tell the user the API may have changed."
    );
    let error = READ
        .check(&Value::String("<html>".into()), 2, "createTask", true)
        .unwrap_err();
    assert_eq!(
        text(error),
        "The API accepted step 2 (createTask), but its answer does not have the shape the API documents (the answer: text, not JSON: \"<html>\"), so the server stopped there. The change was most likely made: do not call again; tell the user to check it, and that the API may have changed."
    );
}

#[test]
fn in_step_names_the_failed_step() {
    let error = ToolError::InvalidArguments("Project \"X\" not found.".to_string())
        .in_step(2, "find the project");
    assert_eq!(
        text(error),
        "Step 2 (find the project) failed: Project \"X\" not found."
    );
    let error = ToolError::Transport {
        operation: "GET /projects",
        message: "the API did not answer in time".to_string(),
    }
    .in_step(1, "GET /projects");
    assert_eq!(
        text(error),
        "Step 1 (GET /projects) failed: Could not complete GET /projects: the API did not answer in time. Try again later."
    );
}

#[test]
fn check_range_accepts_the_bounds_and_words_the_error() {
    assert!(check_range("limit", 1, 1, 50).is_ok());
    assert!(check_range("limit", 50, 1, 50).is_ok());
    let error = check_range("limit", 80, 1, 50).expect_err("80 is out of range");
    assert_eq!(
        text(error),
        "Invalid argument `limit`: 80 is out of range; use a value from 1 to 50."
    );
    assert!(check_range("limit", 0, 1, 50).is_err());
}

#[test]
fn check_length_counts_characters_and_words_the_error() {
    assert!(check_length("title", &"é".repeat(200), 200).is_ok());
    let error = check_length("title", &"x".repeat(230), 200).expect_err("too long");
    assert_eq!(
        text(error),
        "Invalid argument `title`: 230 characters is too long; use at most 200."
    );
}

// --- codes ----------------------------------------------------------------------------

#[test]
fn codes_match_their_json_values() {
    assert!(Code::Int(2).matches(&json!(2)));
    assert!(Code::Int(2).matches(&json!("2")));
    assert!(!Code::Int(2).matches(&json!(3)));
    assert!(!Code::Int(2).matches(&json!("two")));
    assert!(!Code::Int(2).matches(&json!(2.5)));
    assert!(Code::Str("open").matches(&json!("open")));
    assert!(!Code::Str("open").matches(&json!("OPEN")));
    assert!(!Code::Str("1").matches(&json!(1)));
    assert_eq!(Value::from(Code::Int(3)), json!(3));
    assert_eq!(Value::from(Code::Str("a")), json!("a"));
}

// --- resolvers ------------------------------------------------------------------------

static PROJECT_KEYS: ResolverSpec = ResolverSpec {
    what: "project key",
    match_fields: &["/key", "/name"],
    only: &[],
    id_field: "/id",
    name_field: "/key",
    ttl: Duration::from_secs(300),
};

static FRESH_EVERY_TIME: ResolverSpec = ResolverSpec {
    what: "project key",
    match_fields: &["/key"],
    only: &[],
    id_field: "/id",
    name_field: "/key",
    ttl: Duration::ZERO,
};

fn projects() -> Vec<Value> {
    vec![
        json!({"id": 10, "key": "WEB", "name": "Website"}),
        json!({"id": "a-20", "key": "API", "name": "Public API"}),
        json!({"id": 30, "key": "MOBILE", "name": null}),
    ]
}

/// A `fetch_all` that counts its calls and returns `items`.
fn counted(
    calls: &AtomicUsize,
    items: Vec<Value>,
) -> impl FnOnce() -> std::future::Ready<Result<Vec<Value>, ToolError>> + '_ {
    move || {
        calls.fetch_add(1, Ordering::SeqCst);
        std::future::ready(Ok(items))
    }
}

#[tokio::test]
async fn resolve_finds_a_value_and_then_uses_the_cache() {
    let cache = ResolverCache::new(&PROJECT_KEYS);
    let calls = AtomicUsize::new(0);
    let id = cache.resolve("WEB", counted(&calls, projects())).await;
    assert_eq!(id.expect("WEB resolves"), "10");
    let id = cache.resolve("API", counted(&calls, projects())).await;
    assert_eq!(id.expect("API resolves"), "a-20");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn resolve_ignores_case_and_matches_every_match_field() {
    let cache = ResolverCache::new(&PROJECT_KEYS);
    let calls = AtomicUsize::new(0);
    let id = cache.resolve("mobile", counted(&calls, projects())).await;
    assert_eq!(id.expect("mobile resolves"), "30");
    let id = cache
        .resolve("public api", counted(&calls, projects()))
        .await;
    assert_eq!(id.expect("the name resolves"), "a-20");
    let id = cache.resolve("We", counted(&calls, projects())).await;
    assert!(id.is_err(), "matching is exact, not by prefix");
}

#[tokio::test]
async fn resolve_of_a_value_two_items_share_lists_both_and_what_tells_them_apart() {
    let cache = ResolverCache::new(&PROJECT_KEYS);
    let calls = AtomicUsize::new(0);
    let mut items = projects();
    items.push(json!({"id": 40, "key": "WEB2", "name": "Public API"}));
    let error = cache
        .resolve("public api", counted(&calls, items))
        .await
        .expect_err("two projects are called Public API");
    assert_eq!(
        text(error),
        "Project \"public api\" is ambiguous: 2 project keys match it: API (id a-20); WEB2 \
         (id 40). Call again with one of the values that tell them apart, or with the id."
    );
}

#[tokio::test]
async fn a_blank_value_is_refused_before_the_list_is_fetched() {
    let cache = ResolverCache::new(&PROJECT_KEYS);
    let calls = AtomicUsize::new(0);
    let error = cache
        .resolve("  ", counted(&calls, projects()))
        .await
        .expect_err("blank");
    assert_eq!(text(error), "The value is blank: give a project key.");
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_list_with_an_ambiguous_and_an_unknown_value_tells_both() {
    let cache = ResolverCache::new(&PROJECT_KEYS);
    let calls = AtomicUsize::new(0);
    let mut items = projects();
    items.push(json!({"id": 40, "key": "WEB2", "name": "Public API"}));
    let values = [
        "public api".to_string(),
        "NOPE".to_string(),
        "WEB".to_string(),
    ];
    let error = resolve_each(&values, |value| {
        let items = items.clone();
        let cache = &cache;
        let calls = &calls;
        async move { cache.resolve(&value, counted(calls, items)).await }
    })
    .await
    .expect_err("one ambiguous, one unknown");
    let message = text(error);
    assert!(message.contains("\"public api\" is ambiguous"), "{message}");
    assert!(message.contains("\"NOPE\" not found"), "{message}");
}

#[tokio::test]
async fn only_the_items_where_says_are_resolved_to() {
    static FILES: ResolverSpec = ResolverSpec {
        what: "file name",
        match_fields: &["/name"],
        only: &[("/type", "file")],
        id_field: "/id",
        name_field: "/name",
        ttl: Duration::from_secs(300),
    };
    let cache = ResolverCache::new(&FILES);
    let calls = AtomicUsize::new(0);
    let entries = vec![
        json!({"id": "d1", "name": "Reports", "type": "folder"}),
        json!({"id": "f1", "name": "q1.pdf", "type": "file"}),
        json!({"id": "f2", "name": "Reports", "type": "File"}),
    ];
    let id = cache
        .resolve("reports", counted(&calls, entries.clone()))
        .await;
    assert_eq!(id.expect("only the file matches"), "f2");
    let error = cache
        .resolve("d1", counted(&calls, entries))
        .await
        .expect_err("a folder's id is no file's");
    assert!(!text(error).contains("Reports (id d1)"));
}

#[tokio::test]
async fn a_match_field_through_a_list_matches_any_of_its_values() {
    static DROPLETS: ResolverSpec = ResolverSpec {
        what: "droplet name or address",
        match_fields: &["/name", "/networks/v4/ip_address"],
        only: &[],
        id_field: "/id",
        name_field: "/name",
        ttl: Duration::from_secs(300),
    };
    let cache = ResolverCache::new(&DROPLETS);
    let calls = AtomicUsize::new(0);
    let droplets = vec![json!({
        "id": 101,
        "name": "web-01",
        "networks": {"v4": [{"ip_address": "10.0.0.101"}, {"ip_address": "203.0.0.101"}]},
    })];
    let id = cache
        .resolve("203.0.0.101", counted(&calls, droplets.clone()))
        .await;
    assert_eq!(id.expect("the second address matches"), "101");
    let id = cache.resolve("web-01", counted(&calls, droplets)).await;
    assert_eq!(id.expect("the name matches"), "101");
    assert_eq!(
        field_texts(&json!({"a": [{"b": "x"}, {"b": 2}, {"c": 3}]}), "/a/b"),
        ["x", "2"]
    );
    assert_eq!(field_texts(&json!({"a": ["x", "y"]}), "/a/1"), ["y"]);
    assert_eq!(
        field_texts(&json!({"tags": ["x", "y"]}), "/tags"),
        ["x", "y"]
    );
}

#[tokio::test]
async fn an_id_an_earlier_search_found_is_known_to_a_scoped_cache_and_nothing_else_is() {
    static ARTISTS: ResolverSpec = ResolverSpec {
        what: "artist",
        match_fields: &["/name"],
        only: &[],
        id_field: "/id",
        name_field: "/name",
        ttl: Duration::from_secs(300),
    };
    let caches = ScopedResolverCache::new(&ARTISTS);
    let calls = AtomicUsize::new(0);
    let found = vec![
        json!({"id": "ar40", "name": "Nina"}),
        json!({"id": "ar41", "name": "Nina"}),
    ];
    let scope: Map<String, Value> = [("q".to_string(), json!("nina"))].into_iter().collect();
    assert!(!caches.knows_id("ar40").await, "nothing searched yet");
    let error = caches
        .scope(&scope)
        .resolve("nina", counted(&calls, found))
        .await
        .expect_err("two artists are called Nina");
    assert!(
        text(error).contains("id ar40"),
        "the ambiguity offers the ids"
    );
    assert!(caches.knows_id("ar40").await);
    assert!(caches.knows_id("ar41").await);
    assert!(!caches.knows_id("ar4").await, "only whole ids");
    assert!(!caches.knows_id("nina").await, "a name is not an id");
}

#[tokio::test]
async fn among_several_matches_the_item_whose_id_the_value_is_is_the_one_meant() {
    static SLUGS: ResolverSpec = ResolverSpec {
        what: "category",
        match_fields: &["/name", "/slug"],
        only: &[],
        id_field: "/slug",
        name_field: "/name",
        ttl: Duration::from_secs(300),
    };
    let cache = ResolverCache::new(&SLUGS);
    let calls = AtomicUsize::new(0);
    let items = vec![
        json!({"name": "Dev", "slug": "dev"}),
        json!({"name": "dev", "slug": "dev-2"}),
    ];
    let id = cache.resolve("dev", counted(&calls, items.clone())).await;
    assert_eq!(id.expect("`dev` is the first one's id"), "dev");
    let id = cache.resolve("dev-2", counted(&calls, items)).await;
    assert_eq!(id.expect("the second is told by its id"), "dev-2");
}

#[tokio::test]
async fn resolve_accepts_an_id_from_the_list() {
    let cache = ResolverCache::new(&PROJECT_KEYS);
    let calls = AtomicUsize::new(0);
    let id = cache.resolve("30", counted(&calls, projects())).await;
    assert_eq!(id.expect("an id resolves to itself"), "30");
}

#[tokio::test]
async fn resolve_of_an_unknown_value_lists_the_available_keys() {
    let cache = ResolverCache::new(&PROJECT_KEYS);
    let calls = AtomicUsize::new(0);
    let error = cache
        .resolve("WEBB", counted(&calls, projects()))
        .await
        .expect_err("WEBB is unknown");
    assert_eq!(
        text(error),
        "Project \"WEBB\" not found. Available project keys: WEB, API, MOBILE."
    );
    // The list was fetched by this very call, so a miss does not fetch it again.
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn resolve_refetches_once_on_a_miss_in_an_older_list() {
    let cache = ResolverCache::new(&PROJECT_KEYS);
    let calls = AtomicUsize::new(0);
    cache
        .resolve("WEB", counted(&calls, projects()))
        .await
        .expect("WEB resolves");
    let mut grown = projects();
    grown.push(json!({"id": 40, "key": "NEW"}));
    let id = cache.resolve("new", counted(&calls, grown)).await;
    assert_eq!(id.expect("a project created since resolves"), "40");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn resolve_passes_on_fetch_errors_and_retries_next_time() {
    let cache = ResolverCache::new(&PROJECT_KEYS);
    let error = cache
        .resolve("WEB", || async {
            Err(ToolError::InvalidArguments("upstream down".to_string()))
        })
        .await
        .expect_err("the fetch failed");
    assert_eq!(text(error), "upstream down");
    let calls = AtomicUsize::new(0);
    let id = cache.resolve("WEB", counted(&calls, projects())).await;
    assert_eq!(id.expect("WEB resolves"), "10");
}

#[tokio::test]
async fn resolve_reports_a_wrong_id_field() {
    static NO_ID: ResolverSpec = ResolverSpec {
        what: "project key",
        match_fields: &["/key"],
        only: &[],
        id_field: "/uuid",
        name_field: "/key",
        ttl: Duration::from_secs(300),
    };
    let cache = ResolverCache::new(&NO_ID);
    let calls = AtomicUsize::new(0);
    let error = cache
        .resolve("WEB", counted(&calls, projects()))
        .await
        .expect_err("no item has /uuid");
    assert_eq!(text(error), "The API's answer has no /uuid field.");
}

#[tokio::test]
async fn concurrent_resolves_fetch_the_list_once() {
    let cache = ResolverCache::new(&PROJECT_KEYS);
    let calls = AtomicUsize::new(0);
    let fetch = || async {
        calls.fetch_add(1, Ordering::SeqCst);
        // Let the other calls run and queue up while this fetch is in flight.
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        Ok(projects())
    };
    let (a, b, c, d) = tokio::join!(
        cache.resolve("WEB", fetch),
        cache.resolve("API", fetch),
        cache.resolve("mobile", fetch),
        cache.resolve("NOPE", fetch),
    );
    assert_eq!(a.expect("WEB"), "10");
    assert_eq!(b.expect("API"), "a-20");
    assert_eq!(c.expect("mobile"), "30");
    assert!(d.is_err());
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_stale_list_is_fetched_again() {
    let cache = ResolverCache::new(&FRESH_EVERY_TIME);
    let calls = AtomicUsize::new(0);
    cache
        .resolve("WEB", counted(&calls, projects()))
        .await
        .expect("WEB resolves");
    let renumbered = vec![json!({"id": 99, "key": "WEB"})];
    let id = cache.resolve("WEB", counted(&calls, renumbered)).await;
    assert_eq!(id.expect("WEB resolves"), "99");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn names_maps_ids_to_display_names() {
    let cache = ResolverCache::new(&PROJECT_KEYS);
    let calls = AtomicUsize::new(0);
    let names = cache
        .names(counted(&calls, projects()))
        .await
        .expect("the list loads");
    let expected: HashMap<String, String> = [("10", "WEB"), ("a-20", "API"), ("30", "MOBILE")]
        .into_iter()
        .map(|(id, name)| (id.to_string(), name.to_string()))
        .collect();
    assert_eq!(names, expected);
    // The list is shared with resolve.
    cache
        .resolve("API", counted(&calls, projects()))
        .await
        .expect("API resolves");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[test]
fn resolve_futures_are_send() {
    fn assert_send<T: Send>(_: &T) {}
    let cache = ResolverCache::new(&PROJECT_KEYS);
    assert_send(&cache.resolve("WEB", || async { Ok(projects()) }));
    assert_send(&cache.names(|| async { Ok(projects()) }));
    let paging = Paging {
        style: PagingStyle::Page,
        items: "",
        total: None,
        more: None,
        sized: true,
        max_page_size: 10,
        max_pages: 1,
    };
    assert_send(&collect_pages(&paging, None, |_| async {
        Ok(FetchedPage::from(json!([])))
    }));
}

#[test]
fn field_text_reads_strings_and_numbers() {
    let item = json!({"id": 12, "key": "WEB", "nested": {"id": "x"}, "none": null});
    assert_eq!(field_text(&item, "/id").expect("number"), "12");
    assert_eq!(field_text(&item, "/key").expect("string"), "WEB");
    assert_eq!(field_text(&item, "/nested/id").expect("nested"), "x");
    let error = field_text(&item, "/none").expect_err("null is not text");
    assert_eq!(text(error), "The API's answer has no /none field.");
    assert!(field_text(&item, "/missing").is_err());
}

// --- pagination -----------------------------------------------------------------------

/// The simulated API: 130 items, pages of at most 50.
const TOTAL: usize = 130;
const API_MAX_PAGE: i64 = 50;

/// Items `start..start + size` of the simulated API, the size capped as the API would.
fn slice(total: usize, start: i64, size: i64) -> Vec<Value> {
    let start = usize::try_from(start)
        .expect("offset is not negative")
        .min(total);
    let size = usize::try_from(size.min(API_MAX_PAGE)).expect("size is not negative");
    (start..(start + size).min(total))
        .map(|n| json!({"id": n}))
        .collect()
}

fn paging(style: PagingStyle, items: &'static str) -> Paging {
    Paging {
        style,
        items,
        total: None,
        more: None,
        sized: true,
        max_page_size: API_MAX_PAGE,
        max_pages: 50,
    }
}

/// Walks the simulated API of `total` items in `style`, returning what was collected and
/// the requests made.
async fn walk(
    style: PagingStyle,
    total: usize,
    limit: Option<usize>,
) -> (Collected, Vec<PageRequest>) {
    let mut requests = Vec::new();
    let page_style = match style {
        PagingStyle::Page => 0,
        PagingStyle::Offset => 1,
        PagingStyle::Cursor { .. } => 2,
        PagingStyle::Link => 3,
        PagingStyle::AfterLast { .. } => 4,
    };
    let mut paging = paging(style, "/items");
    if page_style == 4 {
        paging.more = Some("/has_more");
    }
    let collected = collect_pages(&paging, limit, |request: PageRequest| {
        requests.push(request.clone());
        let page = match page_style {
            0 => FetchedPage::from(json!({
                "items": slice(total, (request.number - 1) * request.size, request.size),
                "total": total,
            })),
            1 => FetchedPage::from(json!({"items": slice(total, request.offset, request.size)})),
            2 => {
                let start: i64 = request
                    .cursor
                    .as_deref()
                    .map_or(0, |cursor| cursor.parse().expect("our own cursor"));
                let items = slice(total, start, request.size);
                let end = start + to_i64(items.len());
                let next = if to_i64(total) > end {
                    json!(end.to_string())
                } else {
                    Value::Null
                };
                FetchedPage::from(json!({"items": items, "paging": {"next": next}}))
            }
            // Stripe: the next page starts after the id of the last item received.
            4 => {
                let start: i64 = request.cursor.as_deref().map_or(0, |cursor| {
                    cursor.parse::<i64>().expect("our own cursor") + 1
                });
                let items = slice(total, start, request.size);
                let end = start + to_i64(items.len());
                FetchedPage::from(json!({"items": items, "has_more": to_i64(total) > end}))
            }
            _ => {
                let start: i64 = request.link.as_deref().map_or(0, |link| {
                    link.rsplit('=')
                        .next()
                        .and_then(|n| n.parse().ok())
                        .expect("our own link")
                });
                let items = slice(total, start, request.size);
                let end = start + to_i64(items.len());
                let mut header =
                    String::from("<https://api.example/items?offset=0>; rel=\"first\"");
                if to_i64(total) > end {
                    header.push_str(&format!(
                        ", <https://api.example/items?offset={end}>; rel=\"next\""
                    ));
                }
                FetchedPage {
                    body: json!({"items": items}),
                    next_link: parse_next_link(&header),
                }
            }
        };
        std::future::ready(Ok(page))
    })
    .await
    .expect("the walk succeeds");
    (collected, requests)
}

#[tokio::test]
async fn without_a_page_size_the_first_page_sets_it_and_a_shorter_page_is_the_last() {
    // The API pages by number alone, 30 items a page, 70 in all.
    let mut paging = paging(PagingStyle::Page, "/items");
    paging.sized = false;
    let mut asked = Vec::new();
    let collected = collect_pages(&paging, Some(100), |request: PageRequest| {
        asked.push(request.number);
        let start = usize::try_from(request.number - 1).expect("from 1") * 30;
        let items: Vec<Value> = (start..(start + 30).min(70))
            .map(|n| json!({"id": n}))
            .collect();
        std::future::ready(Ok(FetchedPage::from(json!({"items": items}))))
    })
    .await
    .expect("the walk succeeds");
    assert_eq!(
        asked,
        [1, 2, 3],
        "page 3 (10 items) is shorter than page 1, so the last"
    );
    assert_eq!(collected.items.len(), 70);
    assert!(!collected.more);
    // A limit inside the first page stops there and says more exist.
    let collected = collect_pages(&paging, Some(5), |_| {
        let items: Vec<Value> = (0..30).map(|n| json!({"id": n})).collect();
        std::future::ready(Ok(FetchedPage::from(json!({"items": items}))))
    })
    .await
    .expect("the walk succeeds");
    assert_eq!(collected.items.len(), 5);
    assert!(collected.more);
}

fn ids(collected: &Collected) -> Vec<usize> {
    collected
        .items
        .iter()
        .map(|item| {
            item["id"]
                .as_u64()
                .and_then(|id| usize::try_from(id).ok())
                .expect("an id")
        })
        .collect()
}

fn styles() -> Vec<PagingStyle> {
    vec![
        PagingStyle::Page,
        PagingStyle::Offset,
        PagingStyle::Cursor {
            next: "/paging/next",
        },
        PagingStyle::Link,
        PagingStyle::AfterLast { field: "/id" },
    ]
}

#[tokio::test]
async fn a_small_limit_takes_one_request_and_is_truncated() {
    for style in styles() {
        let (collected, requests) = walk(style, TOTAL, Some(20)).await;
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0].size, 20);
        assert_eq!(ids(&collected), (0..20).collect::<Vec<_>>());
        assert!(collected.more);
    }
}

#[tokio::test]
async fn a_limit_of_one_full_page_takes_one_request() {
    for style in styles() {
        let (collected, requests) = walk(style, TOTAL, Some(50)).await;
        assert_eq!(requests.len(), 1);
        assert_eq!(collected.items.len(), 50);
        assert!(collected.more);
    }
}

#[tokio::test]
async fn a_large_limit_walks_pages_of_the_same_size() {
    for style in styles() {
        let (collected, requests) = walk(style, TOTAL, Some(120)).await;
        assert_eq!(requests.len(), 3);
        assert!(requests.iter().all(|request| request.size == 50));
        assert_eq!(ids(&collected), (0..120).collect::<Vec<_>>());
        assert!(collected.more);
    }
}

#[tokio::test]
async fn no_limit_collects_everything() {
    for style in styles() {
        let (collected, requests) = walk(style, TOTAL, None).await;
        assert_eq!(requests.len(), 3);
        assert_eq!(ids(&collected), (0..TOTAL).collect::<Vec<_>>());
        assert!(!collected.more);
    }
}

#[tokio::test]
async fn fewer_items_than_the_limit_is_not_truncated() {
    for style in styles() {
        let (collected, requests) = walk(style, 30, Some(50)).await;
        assert_eq!(requests.len(), 1);
        assert_eq!(collected.items.len(), 30);
        assert!(!collected.more);
    }
}

#[tokio::test]
async fn requests_carry_page_numbers_offsets_cursors_and_links() {
    let (_, requests) = walk(PagingStyle::Page, TOTAL, None).await;
    let numbers: Vec<i64> = requests.iter().map(|request| request.number).collect();
    assert_eq!(numbers, [1, 2, 3]);
    let (_, requests) = walk(PagingStyle::Offset, TOTAL, None).await;
    let offsets: Vec<i64> = requests.iter().map(|request| request.offset).collect();
    assert_eq!(offsets, [0, 50, 100]);
    let (_, requests) = walk(
        PagingStyle::Cursor {
            next: "/paging/next",
        },
        TOTAL,
        None,
    )
    .await;
    let cursors: Vec<Option<String>> = requests
        .iter()
        .map(|request| request.cursor.clone())
        .collect();
    assert_eq!(cursors, [None, Some("50".into()), Some("100".into())]);
    let (_, requests) = walk(PagingStyle::Link, TOTAL, None).await;
    assert_eq!(requests[0].link, None);
    assert_eq!(
        requests[2].link.as_deref(),
        Some("https://api.example/items?offset=100")
    );
}

/// `startAt`/`maxResults`/`total`: the API gives at most 50 items a page whatever is asked;
/// asked for 100, its first page is short. With `total` the walk goes on to every item;
/// without it, the short page ends the walk after 50.
#[tokio::test]
async fn a_total_in_the_answer_walks_past_pages_shorter_than_asked_for() {
    let walk_with = |total: Option<&'static str>| async move {
        let paging = Paging {
            style: PagingStyle::Offset,
            items: "/issues",
            total,
            more: None,
            sized: true,
            max_page_size: 100,
            max_pages: 10,
        };
        let mut offsets = Vec::new();
        let collected = collect_pages(&paging, None, |request: PageRequest| {
            offsets.push(request.offset);
            let issues = slice(TOTAL, request.offset, request.size);
            std::future::ready(Ok(FetchedPage::from(json!({
                "startAt": request.offset,
                "maxResults": API_MAX_PAGE,
                "total": TOTAL,
                "issues": issues,
            }))))
        })
        .await
        .expect("the walk");
        (collected, offsets)
    };
    let (collected, offsets) = walk_with(Some("/total")).await;
    assert_eq!(offsets, [0, 50, 100]);
    assert_eq!(collected.items.len(), TOTAL);
    assert!(!collected.more);
    let (collected, offsets) = walk_with(None).await;
    assert_eq!(offsets, [0]);
    assert_eq!(collected.items.len(), 50);
}

#[tokio::test]
async fn the_page_bound_stops_the_walk_and_reports_more() {
    let paging = Paging {
        style: PagingStyle::Offset,
        items: "",
        total: None,
        more: None,
        sized: true,
        max_page_size: 50,
        max_pages: 2,
    };
    let mut calls = 0;
    let collected = collect_pages(&paging, None, |request: PageRequest| {
        calls += 1;
        std::future::ready(Ok(FetchedPage::from(Value::Array(slice(
            TOTAL,
            request.offset,
            request.size,
        )))))
    })
    .await
    .expect("the walk succeeds");
    assert_eq!(calls, 2);
    assert_eq!(collected.items.len(), 100);
    assert!(collected.more);
}

#[tokio::test]
async fn the_servers_page_bound_stops_a_walk_the_curated_bound_would_continue() {
    let curated = paging(PagingStyle::Page, "/items");
    assert_eq!(
        curated.within(100).max_pages,
        50,
        "the curated bound stays the lower"
    );
    let bounded = curated.within(2);
    let mut calls = 0;
    // An API whose pages never end.
    let collected = collect_pages(&bounded, None, |request: PageRequest| {
        calls += 1;
        let items: Vec<Value> = (0..request.size).map(|i| json!({"id": i})).collect();
        std::future::ready(Ok(FetchedPage::from(json!({"items": items}))))
    })
    .await
    .expect("the walk succeeds");
    assert_eq!(calls, 2);
    assert!(collected.more, "the bound is reported as more items");
}

#[tokio::test]
async fn a_cursor_that_does_not_move_ends_the_walk() {
    let paging = paging(PagingStyle::Cursor { next: "/next" }, "/items");
    let mut calls = 0;
    let collected = collect_pages(&paging, None, |_| {
        calls += 1;
        std::future::ready(Ok(FetchedPage::from(
            json!({"items": [{"id": 1}], "next": "same"}),
        )))
    })
    .await
    .expect("the walk succeeds");
    assert_eq!(calls, 2);
    assert_eq!(collected.items.len(), 2);
    assert!(!collected.more);
}

#[tokio::test]
async fn a_fetch_error_or_a_body_without_items_fails_the_walk() {
    let paging = paging(PagingStyle::Page, "/items");
    let error = collect_pages(&paging, Some(10), |_| {
        std::future::ready(Ok(FetchedPage::from(json!({"data": []}))))
    })
    .await
    .expect_err("no items");
    assert_eq!(
        text(error),
        "The API's answer has no list at /items, where the API documents one (it is an object: {\"data\":[]}). The API may be failing or may have changed: calling again will likely fail the same way; tell the user."
    );
    let error = collect_pages(&paging, Some(10), |_| {
        std::future::ready(Err(ToolError::InvalidArguments("down".to_string())))
    })
    .await
    .expect_err("the fetch fails");
    assert_eq!(text(error), "down");
}

#[test]
fn items_at_reads_the_list_at_a_pointer() {
    let body = json!({"data": {"items": [1, 2]}, "none": null, "text": "x"});
    assert_eq!(
        items_at(&body, "/data/items").expect("a list"),
        [json!(1), json!(2)]
    );
    assert!(items_at(&body, "/none").expect("null is empty").is_empty());
    assert_eq!(items_at(&json!([3]), "").expect("the body"), [json!(3)]);
    assert_eq!(
        text(items_at(&body, "/text").expect_err("not a list")),
        "The API's answer has no list at /text, where the API documents one (it is an object: {\"data\":{\"items\":[1,2]},\"none\":null,\"text\":\"x\"}). The API may be failing or may have changed: calling again will likely fail the same way; tell the user."
    );
    assert_eq!(
        text(items_at(&body, "").expect_err("not a list")),
        "The API's answer is not the list the API documents (it is an object: {\"data\":{\"items\":[1,2]},\"none\":null,\"text\":\"x\"}). The API may be failing or may have changed: calling again will likely fail the same way; tell the user."
    );
    assert_eq!(
        text(items_at(&json!("<html>Sign in</html>"), "").expect_err("text")),
        "The API's answer is not the list the API documents (it is text, not JSON: \"<html>Sign in</html>\"). The API may be failing or may have changed: calling again will likely fail the same way; tell the user."
    );
}

#[test]
fn parse_next_link_finds_the_next_relation() {
    assert_eq!(
        parse_next_link(r#"<https://x/?page=2>; rel="next", <https://x/?page=9>; rel="last""#)
            .as_deref(),
        Some("https://x/?page=2")
    );
    assert_eq!(
        parse_next_link(r#"<https://x/?page=1>; rel="prev", <https://x/?page=3>; rel="next""#)
            .as_deref(),
        Some("https://x/?page=3")
    );
    // Unquoted, upper case, extra parameters, several relation types.
    assert_eq!(
        parse_next_link("<https://x/b>; title=\"a, b; c\"; REL=Next").as_deref(),
        Some("https://x/b")
    );
    assert_eq!(
        parse_next_link(r#"<https://x/c>; rel="last next""#).as_deref(),
        Some("https://x/c")
    );
    // Commas and semicolons inside the URL.
    assert_eq!(
        parse_next_link(r#"<https://x/?ids=1,2;3>; rel="next""#).as_deref(),
        Some("https://x/?ids=1,2;3")
    );
    // Relative URLs are returned as written.
    assert_eq!(
        parse_next_link(r#"</items?cursor=abc>;rel=next"#).as_deref(),
        Some("/items?cursor=abc")
    );
}

#[test]
fn parse_next_link_without_a_next_relation_is_none() {
    assert_eq!(parse_next_link(""), None);
    assert_eq!(parse_next_link(r#"<https://x/?page=1>; rel="prev""#), None);
    assert_eq!(
        parse_next_link(r#"<https://x/?page=1>; rel="nextish""#),
        None
    );
    assert_eq!(parse_next_link(r#"<>; rel="next""#), None);
    assert_eq!(parse_next_link("garbage"), None);
    assert_eq!(parse_next_link(r#"<https://x/; rel="next""#), None);
    assert_eq!(parse_next_link(r#"<https://x/>; rel="next"#), None);
}

// --- shaping --------------------------------------------------------------------------

static STATES: &[(Code, &str)] = &[(Code::Int(1), "open"), (Code::Int(2), "closed")];

static ISSUE: Shape = Shape {
    fields: &[
        FieldSpec {
            name: "key",
            from: "/key",
            convert: Convert::Copy,
        },
        FieldSpec {
            name: "state",
            from: "/state",
            convert: Convert::Enum(STATES),
        },
        FieldSpec {
            name: "assignee",
            from: "/assignee/id",
            convert: Convert::Lookup(0),
        },
        FieldSpec {
            name: "due",
            from: "/due_date",
            convert: Convert::Copy,
        },
    ],
    detailed: &[
        FieldSpec {
            name: "description",
            from: "/body",
            convert: Convert::Copy,
        },
        FieldSpec {
            name: "watchers",
            from: "/watcher_ids",
            convert: Convert::Lookup(0),
        },
    ],
};

fn users() -> HashMap<String, String> {
    [("7", "alice"), ("8", "bob")]
        .into_iter()
        .map(|(id, name)| (id.to_string(), name.to_string()))
        .collect()
}

fn issue() -> Value {
    json!({
        "key": "WEB-1",
        "state": 2,
        "assignee": {"id": 7},
        "due_date": null,
        "body": "Fix it",
        "watcher_ids": [8, 9],
        "internal": true,
    })
}

#[test]
fn shape_item_picks_renames_and_converts_fields_in_order() {
    let users = users();
    let shaped = shape_item(&ISSUE, &issue(), false, &[&users]);
    assert_eq!(
        serde_json::to_string(&shaped).expect("serializes"),
        r#"{"key":"WEB-1","state":"closed","assignee":"alice"}"#
    );
}

#[test]
fn shape_item_detailed_adds_the_detailed_fields_after() {
    let users = users();
    let shaped = shape_item(&ISSUE, &issue(), true, &[&users]);
    assert_eq!(
        serde_json::to_string(&shaped).expect("serializes"),
        r#"{"key":"WEB-1","state":"closed","assignee":"alice","description":"Fix it","watchers":["bob","9"]}"#
    );
}

#[test]
fn shape_item_shows_unknown_codes_and_ids_as_text_and_omits_missing_fields() {
    let users = users();
    let item = json!({"key": "WEB-2", "state": 5, "assignee": {"id": "99"}});
    let shaped = shape_item(&ISSUE, &item, true, &[&users]);
    assert_eq!(
        shaped,
        json!({"key": "WEB-2", "state": "5", "assignee": "99"})
    );
    // A missing lookup table gives the id as text rather than failing.
    let shaped = shape_item(&ISSUE, &issue(), false, &[]);
    assert_eq!(shaped["assignee"], json!("7"));
    // String codes for integer enums are mapped too.
    let shaped = shape_item(&ISSUE, &json!({"state": "1"}), false, &[]);
    assert_eq!(shaped, json!({"state": "open"}));
}

#[test]
fn shape_item_without_fields_returns_the_item() {
    static NONE: Shape = Shape {
        fields: &[],
        detailed: &[],
    };
    assert_eq!(shape_item(&NONE, &issue(), true, &[]), issue());
}

#[test]
fn shape_list_reports_truncation_with_a_note() {
    let users = users();
    let collected = Collected {
        items: vec![issue(), json!({"key": "WEB-3", "state": 1})],
        more: true,
    };
    let output = shape_list(
        &ISSUE,
        "issues",
        collected,
        false,
        &[&users],
        "More issues exist; raise limit.",
    );
    assert_eq!(
        serde_json::to_string(&output.value).expect("serializes"),
        r#"{"issues":[{"key":"WEB-1","state":"closed","assignee":"alice"},{"key":"WEB-3","state":"open"}],"truncated":true}"#
    );
    assert_eq!(output.notes, ["More issues exist; raise limit."]);
}

#[test]
fn shape_list_without_truncation_has_no_note() {
    let collected = Collected {
        items: Vec::new(),
        more: false,
    };
    let output = shape_list(&ISSUE, "issues", collected, false, &[], "unused");
    assert_eq!(
        serde_json::to_string(&output.value).expect("serializes"),
        r#"{"issues":[],"truncated":false}"#
    );
    assert!(output.notes.is_empty());
}

#[test]
fn find_one_takes_the_only_match_and_describes_several_by_the_fields_that_differ() {
    let answer = json!({"items": [
        {"id": 1, "name": "Done", "team": "web"},
        {"id": 2, "name": "Start", "team": "web"},
        {"id": 3, "name": "DONE ", "team": "api"},
        {"id": 2, "name": "Start", "team": "web"},
    ]});
    let start = json!("start");
    assert_eq!(
        find_one(&answer, "/items", &[("/name", &start)]),
        Ok(Some(json!({"id": 2, "name": "Start", "team": "web"})))
    );
    let done = json!("done");
    assert_eq!(
        find_one(&answer, "/items", &[("/name", &done)]),
        Err("id 1, name Done, team web; id 3, name DONE , team api".to_string())
    );
    let web = json!("web");
    assert_eq!(
        find_one(&answer, "/items", &[("/name", &done), ("/team", &web)]),
        Ok(Some(json!({"id": 1, "name": "Done", "team": "web"})))
    );
    let close = json!("close");
    assert_eq!(find_one(&answer, "/items", &[("/name", &close)]), Ok(None));
    assert_eq!(
        find_one(&json!({}), "/items", &[("/name", &close)]),
        Ok(None)
    );
}

#[test]
fn find_one_and_item_values_read_paths_through_lists_as_check_does() {
    let answer = json!({"page": {"boards": [
        {"id": 1, "name": "Todo", "tags": [{"name": "web"}]},
        {"id": 2, "name": "Doing", "tags": [{"name": "api"}, {"name": "web"}]},
    ]}});
    let doing = json!("doing");
    assert_eq!(
        find_one(&answer, "/page/boards", &[("/name", &doing)])
            .map(|found| found.map(|item| item["id"].clone())),
        Ok(Some(json!(2)))
    );
    // A field read through a list (`tags.name`: every tag's name) holds when one of its
    // values does.
    let api = json!("API");
    assert_eq!(
        find_one(&answer, "/page/boards", &[("/tags/name", &api)])
            .map(|found| found.map(|item| item["id"].clone())),
        Ok(Some(json!(2)))
    );
    let web = json!("web");
    assert!(find_one(&answer, "/page/boards", &[("/tags/name", &web)]).is_err());
    assert_eq!(item_values(&answer, "/page/boards", "/name"), "Todo, Doing");
    assert_eq!(item_values(&answer, "/page/none", "/name"), "none");
    let twice = json!({"transitions": [{"to": "Done"}, {"to": "Done"}, {"to": "Open"}]});
    assert_eq!(item_values(&twice, "/transitions", "/to"), "Done, Open");
}
