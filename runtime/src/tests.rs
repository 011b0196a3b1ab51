//! The unit tests of the runtime modules shared by every server.

use super::*;
use std::time::{Duration, SystemTime};

use super::arguments::argument_name;
use super::arguments::format_example;
use super::arguments::valid_with_example;
use super::schema::fits_format;
use super::upstream::backoff;
use super::upstream::no_credential_refusal;
use super::upstream::options::parse_seconds;
use super::upstream::redact;
use super::upstream::retry_after;
use serde_json::Value;
use serde_json::json;

fn upstream() -> Upstream {
    // Nothing listens there: a request that got sent would fail with a transport error.
    Upstream::new(
        "http://127.0.0.1:9/api",
        Vec::new(),
        UpstreamOptions::default(),
    )
    .expect("a valid base URL")
}

#[test]
fn a_not_found_message_names_the_thing_and_lists_in_the_plural_of_what() {
    assert_eq!(subject("project key"), "Project");
    assert_eq!(subject("issue type name"), "Issue type");
    assert_eq!(subject("user name or email"), "User");
    assert_eq!(subject("user (display name or email)"), "User");
    assert_eq!(subject("label"), "Label");
    assert_eq!(subject("user display name"), "User");
    assert_eq!(plural("user name or email"), "user names or emails");
    assert_eq!(
        plural("user (display name or email)"),
        "users (display name or email)"
    );
    let missing = NotFound {
        what: "issue type name".to_string(),
        values: vec!["Epic".to_string()],
        available: vec!["Bug".to_string(), "Task".to_string()],
    };
    assert!(
        missing
            .to_string()
            .starts_with("Issue type \"Epic\" not found. Available issue type names: Bug, Task."),
        "{missing}"
    );
}

#[tokio::test]
async fn path_parameters_that_would_climb_or_vanish_are_refused_before_sending() {
    for segment in ["", ".", ".."] {
        let request = upstream().request(
            reqwest::Method::DELETE,
            "DELETE /issues/{id}",
            &["issues", segment],
        );
        let error = upstream().send(request).await.expect_err("refused");
        assert!(
            matches!(&error, ToolError::InvalidArguments(text) if text.contains("path parameter cannot be")),
            "{segment:?}: {error:?}"
        );
    }
}

#[tokio::test]
async fn a_header_value_with_a_line_break_is_refused_naming_the_argument() {
    let request = upstream()
        .request(reqwest::Method::GET, "GET /things", &["things"])
        .header("X-Trace", &"a\r\nX-Admin: 1".to_string());
    let error = upstream().send(request).await.expect_err("refused");
    assert_eq!(
        error.to_string(),
        "Invalid argument `X-Trace`: a header value cannot contain a line break."
    );
}

#[tokio::test]
async fn a_cookie_value_that_would_add_a_cookie_is_refused() {
    let request = upstream()
        .request(reqwest::Method::GET, "GET /things", &["things"])
        .cookie("session", &"x; admin=1".to_string());
    assert!(matches!(
        upstream().send(request).await,
        Err(ToolError::InvalidArguments(_))
    ));
}

#[test]
fn an_operation_with_its_own_server_is_called_there() {
    let request = upstream().request_on(
        "https://uploads.example/v1",
        reqwest::Method::POST,
        "POST /files/{name}",
        &["files", "a b"],
    );
    assert_eq!(
        request.url.as_str(),
        "https://uploads.example/v1/files/a%20b"
    );
    let request = upstream().request_on("/other", reqwest::Method::GET, "GET /files", &["files"]);
    assert_eq!(
        request.url.as_str(),
        "http://127.0.0.1:9/other/files",
        "relative to the base URL"
    );
}

#[test]
fn an_operations_own_server_is_called_where_its_variable_says_and_never_after_the_base_url_changed()
{
    let route = |configured: Option<&str>| ServerRoute {
        spec: "https://uploads.example/v1",
        env: "NOTES_UPLOADS_EXAMPLE_URL",
        configured: configured.map(str::to_string),
    };
    let with = |routes: Vec<ServerRoute>, changed: bool| {
        let options = UpstreamOptions {
            servers: routes,
            base_url_changed: changed,
            ..UpstreamOptions::default()
        };
        Upstream::new("http://127.0.0.1:9", Vec::new(), options)
            .expect("a client")
            .request_on(
                "https://uploads.example/v1",
                reqwest::Method::POST,
                "POST /files",
                &["files"],
            )
    };
    // The description's base URL: the API's own upload host.
    let request = with(vec![route(None)], false);
    assert_eq!(request.url.as_str(), "https://uploads.example/v1/files");
    assert!(request.problem.is_none());
    // Where the variable says, whatever the base URL.
    let request = with(vec![route(Some("http://127.0.0.1:7/up"))], true);
    assert_eq!(request.url.as_str(), "http://127.0.0.1:7/up/files");
    // A variable that is no URL stops the server at start.
    let options = UpstreamOptions {
        servers: vec![route(Some("notaurl"))],
        ..UpstreamOptions::default()
    };
    let error = Upstream::new("http://127.0.0.1:9", Vec::new(), options)
        .err()
        .expect("refused");
    assert!(
        error
            .to_string()
            .starts_with("NOTES_UPLOADS_EXAMPLE_URL is \"notaurl\", which is no URL"),
        "{error}"
    );
    // Base URL changed, variable unset: not sent, and the message names the variable.
    let request = with(vec![route(None)], true);
    let problem = request.problem.expect("not sent");
    assert!(
        problem.contains("NOTES_UPLOADS_EXAMPLE_URL")
            && problem.contains("https://uploads.example/v1"),
        "{problem}"
    );
}

#[test]
fn path_parameters_are_written_in_their_style() {
    let list = json!(["3", 4, 5]);
    let object = json!({ "role": "admin", "first": "Alex" });
    let cases = [
        (Style::Simple, false, &list, "3,4,5"),
        (Style::Simple, false, &object, "role,admin,first,Alex"),
        (Style::Simple, true, &object, "role=admin,first=Alex"),
        (Style::Label, false, &list, ".3,4,5"),
        (Style::Label, true, &list, ".3.4.5"),
        (Style::Matrix, false, &list, ";id=3,4,5"),
        (Style::Matrix, true, &list, ";id=3;id=4;id=5"),
        (Style::Matrix, true, &object, ";role=admin;first=Alex"),
    ];
    for (style, explode, value, expected) in cases {
        assert_eq!(
            path_styled("id", value, style, explode),
            expected,
            "{style:?} explode={explode} {value}"
        );
    }
}

#[test]
fn query_parameters_are_written_in_their_style() {
    let query = |style, explode, value: Value| {
        let request = upstream()
            .request(reqwest::Method::GET, "GET /things", &["things"])
            .query_styled("id", &value, style, explode);
        request.query
    };
    let pair = |name: &str, value: &str| (name.to_string(), value.to_string());
    assert_eq!(
        query(Style::Form, false, json!(["a", "b"])),
        [pair("id", "a,b")]
    );
    assert_eq!(
        query(Style::Form, true, json!(["a", "b"])),
        [pair("id", "a"), pair("id", "b")]
    );
    assert_eq!(
        query(Style::SpaceDelimited, false, json!(["a", "b"])),
        [pair("id", "a b")]
    );
    assert_eq!(
        query(Style::PipeDelimited, false, json!(["a", "b"])),
        [pair("id", "a|b")]
    );
    assert_eq!(
        query(
            Style::DeepObject,
            true,
            json!({ "role": "admin", "first": "Alex" })
        ),
        [pair("id[role]", "admin"), pair("id[first]", "Alex")]
    );
    assert_eq!(
        query(Style::Form, true, json!({ "role": "admin" })),
        [pair("role", "admin")],
        "an exploded form object is one parameter per property"
    );
    assert_eq!(
        query(Style::Form, false, json!({ "role": "admin" })),
        [pair("id", "role,admin")]
    );
    assert!(
        query(Style::Form, false, Value::Null).is_empty(),
        "an absent value adds nothing"
    );
}

#[test]
fn header_and_cookie_parameters_are_written_in_their_style() {
    let request = upstream()
        .request(reqwest::Method::GET, "GET /things", &["things"])
        .header_styled("X-Ids", &json!({ "a": 1, "b": 2 }), Style::Simple, true)
        .cookie_styled("ids", &json!([1, 2]), Style::Form, false)
        .cookie_styled("tag", &json!(["x", "y"]), Style::Form, true);
    assert_eq!(request.headers, [("X-Ids", "a=1,b=2".to_string())]);
    assert_eq!(
        request.cookies,
        [
            ("ids", "1,2".to_string()),
            ("tag", "x".to_string()),
            ("tag", "y".to_string())
        ]
    );
    assert!(request.invalid.is_none());
    let request = upstream()
        .request(reqwest::Method::GET, "GET /things", &["things"])
        .cookie_styled("ids", &json!(["1", "2; admin=1"]), Style::Form, false);
    assert!(
        request.invalid.is_some(),
        "an item that would add a cookie is refused"
    );
}

#[test]
fn every_unset_credential_is_named_as_needed_since_the_server_sends_them_all() {
    assert_eq!(unset_credentials(&[]), None);
    assert_eq!(
        unset_credentials(&[Credential::Unset(&["A_KEY"])]).as_deref(),
        Some("A_KEY")
    );
    assert_eq!(
        unset_credentials(&[
            Credential::Unset(&["A_KEY"]),
            Credential::Unset(&["A_USER"])
        ])
        .as_deref(),
        Some("A_KEY and A_USER")
    );
    assert_eq!(
        unset_credentials(&[
            Credential::Unset(&["U", "P"]),
            Credential::Bearer("t".into()),
            Credential::Unset(&["K"]),
        ])
        .as_deref(),
        Some("U, P and K")
    );
}

#[test]
fn a_path_parameter_inside_a_segment_cannot_be_empty_or_a_dot_segment() {
    for value in ["", ".", ".."] {
        let segment = format!("{value}.json");
        let request = upstream()
            .request(
                reqwest::Method::GET,
                "GET /u/{username}.json",
                &["u", &segment],
            )
            .path_value("username", value);
        assert_eq!(
            request.invalid.as_deref(),
            Some(
                format!(
                    "Invalid argument `username`: a path parameter cannot be {value:?}; give the identifier itself."
                )
                .as_str()
            ),
        );
    }
    let request = upstream()
        .request(
            reqwest::Method::GET,
            "GET /u/{username}.json",
            &["u", "ada.json"],
        )
        .path_value("username", "ada");
    assert!(request.invalid.is_none());
}

#[test]
fn a_next_link_to_another_origin_is_not_followed() {
    let request = upstream()
        .request(reqwest::Method::GET, "GET /things", &["things"])
        .follow("https://elsewhere.example/things?page=2");
    assert!(request.problem.is_some());
    let request = upstream()
        .request(reqwest::Method::GET, "GET /things", &["things"])
        .follow("/api/things?page=2");
    assert_eq!(request.url.as_str(), "http://127.0.0.1:9/api/things?page=2");
}

#[derive(Debug, clap::Parser)]
struct Cli {
    #[command(flatten)]
    upstream: UpstreamOptions,
}

#[test]
fn the_upstream_defaults_are_those_of_an_empty_command_line() {
    use clap::Parser;
    assert_eq!(
        Cli::parse_from(["server"]).upstream,
        UpstreamOptions::default()
    );
}

#[test]
fn every_upstream_option_is_also_read_from_the_environment() {
    use clap::{CommandFactory, FromArgMatches};
    let command = UpstreamOptions::read_env(Cli::command(), "RUNTIME_TEST");
    let variables: Vec<String> = command
        .get_arguments()
        .filter_map(|arg| arg.get_env().map(|env| env.to_string_lossy().into_owned()))
        .collect();
    assert_eq!(
        variables,
        [
            "RUNTIME_TEST_API_CONNECT_TIMEOUT",
            "RUNTIME_TEST_API_TIMEOUT",
            "RUNTIME_TEST_API_MAX_RESPONSE_BYTES",
            "RUNTIME_TEST_API_RETRIES",
            "RUNTIME_TEST_API_MAX_RETRY_WAIT",
            "RUNTIME_TEST_API_MAX_PAGES",
        ]
    );
    let matches = command
        .try_get_matches_from(["server", "--api-timeout", "0.5"])
        .expect("parses");
    let options = Cli::from_arg_matches(&matches).expect("valid").upstream;
    assert_eq!(options.api_timeout, Duration::from_millis(500));
    assert!(parse_seconds("0").is_err() && parse_seconds("soon").is_err());
}

#[test]
fn retries_back_off_and_read_retry_after_in_seconds_or_as_a_date() {
    assert_eq!(backoff(1), Duration::from_millis(250));
    assert_eq!(backoff(2), Duration::from_millis(500));
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::RETRY_AFTER,
        "7".parse().expect("a header value"),
    );
    assert_eq!(retry_after(&headers), Some(Duration::from_secs(7)));
    let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(30));
    headers.insert(
        reqwest::header::RETRY_AFTER,
        later.parse().expect("a header value"),
    );
    let wait = retry_after(&headers).expect("a date is read");
    assert!(
        wait > Duration::from_secs(27) && wait <= Duration::from_secs(30),
        "{wait:?}"
    );
    headers.insert(
        reqwest::header::RETRY_AFTER,
        "soon".parse().expect("a header value"),
    );
    assert_eq!(retry_after(&headers), None);
}

#[test]
fn every_format_example_fits_its_format_and_a_wrong_one_does_not() {
    for format in [
        "date",
        "date-time",
        "time",
        "duration",
        "email",
        "idn-email",
        "hostname",
        "idn-hostname",
        "ipv4",
        "ipv6",
        "uri",
        "iri",
        "uri-reference",
        "iri-reference",
        "uuid",
    ] {
        let example = format_example(format).expect("an example for each format listed");
        assert!(fits_format(format, &json!(example)), "{format}: {example}");
    }
    assert!(!fits_format("date", &json!("2026-01-31T09:30:00Z")));
    assert!(!fits_format("uuid", &json!("x")));
    assert!(!fits_format("email", &json!("nobody")));
}

#[test]
fn credentials_are_blotted_out_of_text_from_the_api() {
    let secrets = vec!["s3cr3t-token".to_string(), "abc".to_string()];
    assert_eq!(
        redact("bad token s3cr3t-token for abc".to_string(), &secrets),
        "bad token <redacted> for abc"
    );
}

#[test]
fn what_a_schema_accepts_is_put_in_words_with_an_example() {
    let cases = [
        (
            json!({"type": "integer", "minimum": 1, "maximum": 5}),
            "an integer from 1 to 5, e.g. 3",
        ),
        (
            json!({"type": "integer", "minimum": 1, "examples": [10]}),
            "an integer of at least 1, e.g. 10",
        ),
        (
            json!({"type": "number", "exclusiveMinimum": 0}),
            "a number above 0",
        ),
        (
            json!({"type": "string", "maxLength": 20}),
            "a string of at most 20 characters",
        ),
        (
            json!({"type": "string", "format": "uuid", "default": "x"}),
            "a string in uuid format, e.g. \"123e4567-e89b-12d3-a456-426614174000\"",
        ),
        (
            json!({"type": "string", "format": "uuid", "default": "9b2f6c1e-0d4a-4f5e-8a7b-3c2d1e0f9a8b"}),
            "a string in uuid format, e.g. \"9b2f6c1e-0d4a-4f5e-8a7b-3c2d1e0f9a8b\"",
        ),
        (
            json!({"type": "string", "format": "date", "examples": ["2024-05-01T00:00:00Z"]}),
            "a string in date format, e.g. \"2026-01-31\"",
        ),
        (
            json!({"type": "string", "format": "date"}),
            "a string in date format, e.g. \"2026-01-31\"",
        ),
        (
            json!({"type": "string", "format": "date-time"}),
            "a string in date-time format, e.g. \"2026-01-31T09:30:00Z\"",
        ),
        (
            json!({"type": "string", "format": "email"}),
            "a string in email format, e.g. \"someone@example.com\"",
        ),
        (
            json!({"type": "string", "format": "uri"}),
            "a string in uri format, e.g. \"https://example.com/path\"",
        ),
        (
            json!({"type": "string", "format": "int-ish", "default": "x"}),
            "a string in int-ish format, e.g. \"x\"",
        ),
        (
            json!({"type": ["string", "null"], "pattern": "^a"}),
            "a string matching `^a` or null",
        ),
        (
            json!({"type": "string", "enum": ["a", "b"]}),
            "one of \"a\", \"b\"",
        ),
        (
            json!({"type": "array", "maxItems": 3}),
            "a list of at most 3 items",
        ),
        (json!({"type": "boolean"}), "true or false"),
    ];
    for (schema, expected) in cases {
        assert_eq!(valid_with_example(&schema), expected, "{schema}");
    }
}

#[test]
fn argument_names_are_read_from_json_pointers() {
    assert_eq!(argument_name("/priority"), "priority");
    assert_eq!(argument_name("/labels/0"), "labels[0]");
    assert_eq!(argument_name("/body/a~1b"), "body.a/b");
}

#[test]
fn an_api_message_ending_in_a_full_stop_is_not_doubled() {
    let error = ToolError::Status {
        operation: "GET /things",
        status: 404,
        reason: "Not Found",
        message: "No such thing.".into(),
        retry_after: None,
    };
    assert_eq!(
        error.to_string(),
        "The API rejected GET /things with HTTP 404 Not Found: No such thing. Check the identifiers in the arguments."
    );
}

#[test]
fn a_refusal_by_the_apis_rules_is_not_blamed_on_credentials_nor_worth_repeating() {
    let refused = |status, reason, message: &str| {
        ToolError::Status {
            operation: "POST /approve",
            status,
            reason,
            message: message.into(),
            retry_after: None,
        }
        .to_string()
    };
    assert_eq!(
        refused(
            403,
            "Forbidden",
            "Player command failed: Restriction violated"
        ),
        "The API rejected POST /approve with HTTP 403 Forbidden: Player command failed: Restriction violated. The API does not allow this: if its message is about access, the server's credentials lack it and the user must fix the server's configuration; otherwise it cannot be done as asked."
    );
    assert_eq!(
        refused(
            400,
            "Bad Request",
            "You can't approve your own pull request."
        ),
        "The API rejected POST /approve with HTTP 400 Bad Request: You can't approve your own pull request. Change what the API's message points to before calling again; the same arguments will be refused the same way."
    );
}

#[test]
fn a_refusal_with_some_credentials_unset_names_the_ones_to_set() {
    let text = no_credential_refusal(
        "GET /cards",
        reqwest::StatusCode::UNAUTHORIZED,
        "invalid token",
        "TRELLO_TOKEN",
        false,
    );
    assert_eq!(
        text,
        "The API rejected GET /cards with HTTP 401 Unauthorized: invalid token. The server sent only some of its credentials, since the others are not set; the user must set TRELLO_TOKEN in the server's environment (or the same name with `_FILE` added, naming a file that holds the value) and start the server again."
    );
}

#[test]
fn a_rate_limit_says_how_long_to_wait_in_plain_words() {
    let limited = |retry_after| ToolError::Status {
        operation: "GET /things",
        status: 429,
        reason: "Too Many Requests",
        message: String::new(),
        retry_after,
    };
    assert!(
        limited(Some(1))
            .to_string()
            .ends_with("The API is rate limited; wait 1 second before calling again."),
        "{}",
        limited(Some(1))
    );
    assert!(
        limited(Some(30))
            .to_string()
            .ends_with("The API is rate limited; wait 30 seconds before calling again.")
    );
}
