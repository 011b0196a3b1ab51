//! Every schema a tool publishes is valid JSON Schema 2020-12 that a complete validator (a
//! client's) compiles: keywords a description gets wrong (`type: user`, `required` inside
//! `properties`, `multipleOf: -10`, a `pattern` that is not a regular expression, a schema `$ref`
//! to a request body) are repaired or dropped when the tools are made, each with a warning naming
//! its place, and the server checks arguments against what is left.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, ProtocolVersion};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};

use crate::support;
use crate::support::chaos::{Chaos, Reply};

/// The longest one MCP request (the handshake included) may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

fn fixture() -> PathBuf {
    support::repo().join("tests/fixtures/load/invalid-schemas/openapi.yaml")
}

/// Whether `schema` passes the 2020-12 metaschema and compiles in a complete 2020-12 validator
/// (formats checked); what is wrong otherwise.
fn compile_error(schema: &Value) -> Option<String> {
    if let Err(error) = jsonschema::draft202012::meta::validate(schema) {
        return Some(format!("not valid against the metaschema: {error}"));
    }
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .err()
        .map(|error| format!("does not compile: {error}"))
}

#[test]
fn invalid_keywords_are_repaired_or_dropped_with_a_warning_naming_their_place() {
    let api = mcpgen::load::load(&fixture()).expect("the fixture loads");
    let warnings: Vec<String> = api
        .warnings
        .iter()
        .map(|warning| format!("{}: {}", warning.pointer, warning.message))
        .collect();
    assert_eq!(
        warnings,
        [
            "/paths/~1users~1{id}/get/parameters/0/schema/type: `type: user` is not a JSON Schema type (null, boolean, object, array, number, string or integer); dropped, so any value is accepted",
            "/paths/~1users~1{id}/get/parameters/1/schema/type: `type: date` is not a JSON Schema type; read as `type: \"string\"` with `format: date`",
            "/paths/~1users~1{id}/get/parameters/2/schema/type: `type: String` is not a JSON Schema type; read as `type: \"string\"`",
            "/paths/~1users~1{id}/get/parameters/3/schema/pattern: `pattern: \"[a-\"` is not a regular expression JSON Schema validators can read (\"[a-\" is not a \"regex\"); dropped, so the value is not checked against it",
            "/paths/~1users~1{id}/get/parameters/4/schema/multipleOf: `multipleOf: -10` is not a number greater than 0; dropped",
            "/paths/~1users~1{id}/get/parameters/5/schema/type: `type: file` is not a JSON Schema type; read as `type: \"string\"` with `format: binary`",
            "/paths/~1users~1{id}/get/responses/200/content/application~1json/schema/properties/required: a `required` list inside `properties` is not a property; read as the `required` list of the object",
            "/paths/~1users/post/requestBody/content/application~1json/schema/properties/name/required: `required: true` is not JSON Schema (a schema lists its required properties by name, `required: [name, …]`, in the object that holds them); dropped",
            "/paths/~1users/post/requestBody/content/application~1json/schema/properties/age/minLength: `minLength: -1` is not a whole number of 0 or more; dropped",
            "/paths/~1orders/post/requestBody/content/application~1json/schema: `$ref: #/components/requestBodies/Order` points to a request body, not to a schema; the schema it holds is used",
        ]
    );
}

#[test]
fn every_published_schema_of_the_repaired_fixture_is_valid_and_compiles() {
    let (plan, _) = mcpgen::generate(&fixture(), None, &mcpgen::Options::default())
        .expect("the fixture generates");
    let tool = |name: &str| {
        plan.tools
            .iter()
            .find(|tool| tool.name == name)
            .unwrap_or_else(|| panic!("a tool {name}"))
    };
    assert_eq!(
        tool("get_user").input_schema,
        json!({
            "type": "object",
            "properties": {
                "id": {},
                "since": { "format": "date", "type": "string" },
                "login": { "type": "string", "pattern": "^[a-z]+$" },
                "code": { "type": "string" },
                "step": { "type": "integer" },
                "upload": { "format": "binary", "type": "string" },
            },
            "required": ["id"],
            "additionalProperties": false,
        })
    );
    assert_eq!(
        tool("get_user").output_schema,
        Some(json!({
            "type": "object",
            "properties": { "id": { "type": "integer" } },
            "required": ["id"],
        }))
    );
    // The schema a `$ref` to a request body stood for, not the request body's fields (its
    // `required: true`, its `content` with a `$ref` to nothing in the tool's schema); the
    // schema's own `required: [item]` holds, as for any body the tool sends.
    assert_eq!(
        tool("create_order").input_schema,
        json!({
            "type": "object",
            "properties": { "item": { "type": "string" } },
            "required": ["item"],
            "additionalProperties": false,
        })
    );
    // An object's `type` stays beside an `enum` of objects: an output schema must say it.
    assert_eq!(
        tool("get_status").output_schema,
        Some(json!({ "type": "object", "enum": [{ "state": "up" }] }))
    );
    for tool in &plan.tools {
        let schemas = std::iter::once(("input", &tool.input_schema))
            .chain(tool.output_schema.iter().map(|schema| ("output", schema)));
        for (which, schema) in schemas {
            if let Some(problem) = compile_error(schema) {
                panic!("the {which} schema of {} {problem}: {schema}", tool.name);
            }
        }
    }
}

/// The server's checker reads every pattern the repaired fixture keeps: building warns of none
/// (a pattern it cannot read is a warning naming the tool; the plan is changed by hand here,
/// tests/suite/spec_check.rs has a spec with one).
#[test]
fn the_server_reads_every_kept_pattern_and_is_told_of_one_it_cannot() {
    let (mut plan, _) = mcpgen::generate(&fixture(), None, &mcpgen::Options::default())
        .expect("the fixture generates");
    assert_eq!(mcpgen::schemas_compile(&plan), []);
    let tool = plan
        .tools
        .iter_mut()
        .find(|tool| tool.name == "get_user")
        .expect("get_user");
    tool.input_schema["properties"]["login"]["pattern"] = json!("^(?!root)[a-z]+$");
    let unchecked: Vec<String> = mcpgen::schemas_compile(&plan)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        unchecked,
        [
            "the server cannot check the pattern \"^(?!root)[a-z]+$\" of the input schema of `get_user` (look-around is not supported); it checks the rest of that schema"
        ]
    );
}

#[test]
fn a_value_that_breaks_a_kept_pattern_is_refused_before_any_request_upstream() {
    let binary = support::generate_and_build("invalid-schemas-mcp", &fixture(), None);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    runtime.block_on(async {
        let upstream = Chaos::start().await;
        upstream.script([Reply::json(200, json!({ "id": 7 }))]);
        let base_url = format!("{}/api", upstream.base_url());
        let command = tokio::process::Command::new(&binary).configure(|command| {
            command
                .env("INVALID_SCHEMAS_BASE_URL", &base_url)
                .kill_on_drop(true);
        });
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let service = tokio::time::timeout(
            CALL_TIMEOUT,
            ClientConfig::default()
                .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize),
        )
        .await
        .expect("the handshake finishes in time")
        .expect("the handshake succeeds");
        let call = async |arguments: Value| -> CallToolResult {
            let Value::Object(arguments) = arguments else {
                panic!("arguments must be an object");
            };
            let request = CallToolRequestParams::new("get_user").with_arguments(arguments);
            tokio::time::timeout(CALL_TIMEOUT, service.call_tool(request))
                .await
                .expect("get_user answers in time")
                .expect("get_user gets a result")
        };
        let refused = call(json!({ "id": 7, "login": "Not Lower" })).await;
        assert_eq!(refused.is_error, Some(true), "{refused:?}");
        let text = support::error_text(&refused);
        assert!(
            text.contains("login") && text.contains("^[a-z]+$"),
            "the error names the argument and its pattern: {text}"
        );
        assert!(
            upstream.take_requests().is_empty(),
            "nothing reaches the upstream for a refused argument"
        );
        let answered = call(json!({ "id": 7, "login": "ada" })).await;
        assert_eq!(support::structured(&answered), &json!({ "id": 7 }));
        let seen = upstream.take_requests();
        let requests: Vec<(&str, &str)> = seen
            .iter()
            .map(|seen| (seen.method.as_str(), seen.target.as_str()))
            .collect();
        assert_eq!(requests, [("GET", "/api/users/7?login=ada")]);
        let _ = service.cancel().await;

        // Every output schema says `type: object` at its root (`get_status`'s beside an `enum` of
        // objects too), so a client of a 2025 protocol version, for which rmcp leaves out any
        // other, is served exactly the output schemas `mcpgen tools` shows.
        let (plan, _) = mcpgen::generate(&fixture(), None, &mcpgen::Options::default())
            .expect("the fixture generates");
        let planned: Vec<(String, Option<Value>)> = plan
            .tools
            .iter()
            .map(|tool| (tool.name.clone(), tool.output_schema.clone()))
            .collect();
        assert!(
            planned
                .iter()
                .any(|(name, schema)| name == "get_status" && schema.is_some()),
            "{planned:?}"
        );
        for version in [
            ProtocolVersion::V_2025_03_26,
            ProtocolVersion::V_2025_06_18,
            ProtocolVersion::LATEST,
        ] {
            let command = tokio::process::Command::new(&binary).configure(|command| {
                command
                    .env("INVALID_SCHEMAS_BASE_URL", &base_url)
                    .kill_on_drop(true);
            });
            let (transport, _) = TokioChildProcess::builder(command)
                .stderr(Stdio::null())
                .spawn()
                .expect("the server starts");
            let mut config = ClientConfig::default();
            config.protocol_version = version.clone();
            let service = tokio::time::timeout(
                CALL_TIMEOUT,
                config.serve_with_lifecycle(transport, ClientLifecycleMode::Initialize),
            )
            .await
            .expect("the handshake finishes in time")
            .expect("the handshake succeeds");
            let listed = tokio::time::timeout(CALL_TIMEOUT, service.list_all_tools())
                .await
                .expect("tools/list answers in time")
                .expect("tools/list succeeds");
            let served: Vec<(String, Option<Value>)> = listed
                .iter()
                .map(|tool| {
                    let schema = tool.output_schema.as_deref().cloned().map(Value::Object);
                    (tool.name.to_string(), schema)
                })
                .collect();
            assert_eq!(served, planned, "protocol version {version:?}");
            let _ = service.cancel().await;
        }
    });
}
