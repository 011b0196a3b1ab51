//! What a document means survives the making of its tools, end to end against a recording
//! upstream on 127.0.0.1 (every request asserted: method, target, the headers that matter and
//! the body):
//!
//! - a path placeholder without a parameter (`/users/{username}/{foo}`) is a required argument
//!   and is sent in the path, never as the literal `{foo}`; a path parameter without a
//!   placeholder is dropped (the crate has no unused variable), each with a warning;
//! - names that collide (`foo-bar` and `foo_bar`, a path `id`, a header `id` and a body `id`,
//!   `$_type` and `type`) are distinct arguments, a crate that passes clippy, and each is sent
//!   where the API wants it under its own name;
//! - a `discriminator` selects the `oneOf` branch: a value that fits two optional-property
//!   branches is accepted as an argument and as an answer, a value of no branch is refused.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, Uri};
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};

use crate::support;

/// The longest one MCP request (the handshake included) may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// One request as the upstream got it.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    method: String,
    target: String,
    /// The `id` header, which one operation sends.
    id_header: Option<String>,
    body: Option<Value>,
}

/// An upstream that records every request and answers a pet for `/pets…`, `{}` otherwise.
async fn upstream() -> (String, Arc<Mutex<Vec<Seen>>>) {
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let log = seen.clone();
    let app = axum::Router::new().fallback(
        move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
            let log = log.clone();
            async move {
                log.lock().expect("the log").push(Seen {
                    method: method.to_string(),
                    target: uri
                        .path_and_query()
                        .map(ToString::to_string)
                        .unwrap_or_default(),
                    id_header: headers
                        .get("id")
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_string),
                    body: (!body.is_empty())
                        .then(|| serde_json::from_slice(&body).expect("a JSON body")),
                });
                let answer = if uri.path().starts_with("/api/pets") {
                    json!({ "petType": "cat", "name": "Tom" })
                } else {
                    json!({})
                };
                axum::Json(answer)
            }
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port on 127.0.0.1");
    let address = listener.local_addr().expect("the address");
    tokio::spawn(async move {
        axum::serve(listener, app)
            .await
            .expect("the upstream serves")
    });
    (format!("http://{address}/api"), seen)
}

#[test]
fn disagreeing_templates_colliding_names_and_discriminators_send_what_the_api_documents() {
    let spec = support::repo().join("tests/fixtures/load/disagreeing/openapi.yaml");
    let api = mcpgen::load::load(&spec).expect("the fixture loads");
    let warnings: Vec<&str> = api.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(
        warnings,
        [
            "the path `/users/{username}/{foo}` has the placeholder `{foo}`, but the operation declares no path parameter `foo`; read as a required string parameter `foo`",
            "path parameter `team` has no `{team}` placeholder in the path `/teams`; dropped, since the request has no place for it",
        ]
    );
    // Passes clippy with -D warnings (no unused variable, no non-snake-case field) and builds.
    let binary = support::generate_and_build("disagreeing-mcp", &spec, None);
    // Readable Rust names: `$_type` and `type` are `type_` and `type_2`, never `type__2`.
    let client =
        std::fs::read_to_string(support::repo().join("target/e2e/disagreeing-mcp/src/client.rs"))
            .expect("the generated client");
    for field in [
        "pub type_: Option<String>",
        "pub type_2: Option<String>",
        "pub foo_bar_2: Option<String>",
        "pub header_id: Option<String>",
        "pub body_id: String",
    ] {
        assert!(client.contains(field), "{field} in\n{client}");
    }
    assert!(
        !client.contains("__"),
        "a field name with a double underscore:\n{client}"
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    runtime.block_on(async {
        let (base_url, seen) = upstream().await;
        let command = tokio::process::Command::new(&binary).configure(|command| {
            command
                .env("DISAGREEING_BASE_URL", &base_url)
                .kill_on_drop(true);
        });
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let service = tokio::time::timeout(
            CALL_TIMEOUT,
            ClientConfig::default().serve_with_lifecycle(transport, ClientLifecycleMode::Initialize),
        )
        .await
        .expect("the handshake finishes in time")
        .expect("the handshake succeeds");
        let call = async |tool: &str, arguments: Value| -> CallToolResult {
            let Value::Object(arguments) = arguments else {
                panic!("arguments must be an object");
            };
            let request = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
            tokio::time::timeout(CALL_TIMEOUT, service.call_tool(request))
                .await
                .unwrap_or_else(|_| panic!("{tool} answers in time"))
                .unwrap_or_else(|e| panic!("{tool} gets a result: {e}"))
        };
        let take = || std::mem::take(&mut *seen.lock().expect("the log"));
        let request = |method: &str, target: &str, id_header: Option<&str>, body: Option<Value>| Seen {
            method: method.into(),
            target: target.into(),
            id_header: id_header.map(str::to_string),
            body,
        };

        let thing = call("get_user_thing", json!({ "username": "ada", "foo": "hats" })).await;
        support::structured(&thing);
        assert_eq!(take(), [request("GET", "/api/users/ada/hats", None, None)]);

        let teams = call("list_teams", json!({ "q": "core" })).await;
        support::structured(&teams);
        assert_eq!(take(), [request("GET", "/api/teams?q=core", None, None)]);

        let item = call(
            "update_item",
            json!({
                "id": 7,
                "foo-bar": "dash",
                "foo_bar": "underscore",
                "header_id": "h-1",
                "body_id": "b-1",
                "$_type": "dollar",
                "type": "plain",
                "body_foo-bar": "body-dash",
            }),
        )
        .await;
        support::structured(&item);
        assert_eq!(
            take(),
            [request(
                "POST",
                "/api/items/7?foo-bar=dash&foo_bar=underscore",
                Some("h-1"),
                Some(json!({ "id": "b-1", "$_type": "dollar", "type": "plain", "foo-bar": "body-dash" })),
            )]
        );

        // `{petType: cat, name}` fits both branches but for the discriminator.
        let created = call("create_pet", json!({ "body": { "petType": "cat", "name": "Tom" } })).await;
        assert_ne!(created.is_error, Some(true), "{created:?}");
        assert_eq!(
            take(),
            [request("POST", "/api/pets", None, Some(json!({ "petType": "cat", "name": "Tom" })))]
        );
        let pet = call("get_pet", json!({ "petId": 3 })).await;
        assert_eq!(support::structured(&pet), &json!({ "petType": "cat", "name": "Tom" }));
        assert_eq!(take(), [request("GET", "/api/pets/3", None, None)]);

        let refused = call("create_pet", json!({ "body": { "petType": "cow", "name": "Daisy" } })).await;
        support::error_text(&refused);
        assert_eq!(take(), [], "nothing is sent for a value of no branch");
        let _ = service.cancel().await;
    });
}

#[test]
fn the_peer_corpus_discriminators_select_their_branch_by_mapping_or_schema_name() {
    // readme-oas-examples' discriminators: two branches whose properties other than the
    // discriminator are optional, told apart by `discrim` through a mapping of pointers, a
    // mapping of schema names, or no mapping (the schema's name).
    let spec = support::repo().join("tests/corpus/readme-oas-examples/3.0/discriminators.json");
    let (plan, _) =
        mcpgen::generate(&spec, None, &mcpgen::Options::default()).expect("it generates");
    let cases = [
        (
            "oneOfWithTopLevelDiscriminatorAndMapping",
            "Option One",
            "Option Two",
        ),
        (
            "oneOfWithTopLevelDiscriminatorNoMapping",
            "OptionOneNoDisc",
            "OptionTwoNoDisc",
        ),
        ("patch /mapping-of-schema-names", "Option One", "Option Two"),
    ];
    for (operation, one, two) in cases {
        let tool = plan
            .tools
            .iter()
            .find(|tool| match tool.action {
                mcpgen::plan::Action::Call {
                    operation: index, ..
                } => plan.operations[index].api_id == operation,
                _ => false,
            })
            .unwrap_or_else(|| panic!("a tool over {operation}"));
        let validator = jsonschema::validator_for(&tool.input_schema).expect("the schema compiles");
        for (value, valid) in [
            (
                json!({ "body": { "discrim": one, "optionone": 1.5 } }),
                true,
            ),
            (
                json!({ "body": { "discrim": two, "optiontwo": "x" } }),
                true,
            ),
            // Fits both branches' properties: the discriminator decides.
            (json!({ "body": { "discrim": one } }), true),
            (json!({ "body": { "discrim": "Option Three" } }), false),
        ] {
            assert_eq!(
                validator.is_valid(&value),
                valid,
                "{operation}: {value} against {}",
                tool.input_schema
            );
        }
    }
}
