//! Curation features beyond the tracker example, generated and compiled: every paging style,
//! auth kinds, fixed values, defaults, `x-mcp-header`, lookup resolvers, string enum codes and
//! operation filters; and a generated server that walks the tracker's pages through
//! `Link: rel="next"` headers.

use std::path::Path;

use serde_json::{Value, json};

use crate::support;
use crate::support::repo;

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {tools:?}"))
}

fn features() -> (mcpgen::plan::Plan, Vec<Value>) {
    let fixtures = repo().join("tests/fixtures/features");
    let (plan, _) = mcpgen::generate(
        &fixtures.join("openapi.yaml"),
        Some(&fixtures.join("mcpgen.yaml")),
        &mcpgen::Options::default(),
    )
    .expect("the features fixture generates");
    let tools = plan.tools.iter().map(|t| t.definition()).collect();
    (plan, tools)
}

#[test]
fn operation_filters_mirror_included_tags_minus_excluded_paths_and_never_hidden_ones() {
    let (plan, tools) = features();
    let names: Vec<&str> = tools
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        names,
        [
            "widgets_find_widgets",
            "widgets_widget_details",
            "widgets_add_widget",
            "widgets_list_tags",
            "widgets_ping",
        ]
    );
    let called: Vec<&str> = plan.operations.iter().map(|o| o.api_id.as_str()).collect();
    assert!(
        !called.contains(&"deleteWidget"),
        "hidden operations get no client code: {called:?}"
    );
    assert!(
        !called.contains(&"internalStats"),
        "excluded operations get no client code: {called:?}"
    );
}

#[test]
fn fixed_values_and_paging_parameters_are_hidden_and_header_params_carry_x_mcp_header() {
    let (_, tools) = features();
    let find = tool(&tools, "widgets_find_widgets");
    let properties = find["inputSchema"]["properties"]
        .as_object()
        .expect("properties");
    let names: Vec<&String> = properties.keys().collect();
    assert_eq!(
        names,
        ["shade", "tags", "sort", "limit"],
        "api-version is fixed; offset/limit are the server's"
    );
    assert_eq!(
        properties["sort"]["default"], "name",
        "the API's default is kept"
    );
    assert_eq!(properties["tags"]["type"], "array");
    assert_eq!(properties["shade"]["x-mcp-header"], "Shade");
    assert_eq!(
        properties["shade"]["enum"],
        json!(["crimson", "lime", "navy"])
    );
    assert_eq!(
        properties["limit"],
        json!({"type": "integer", "minimum": 1, "maximum": 100, "default": 10})
    );
}

#[test]
fn defaults_required_overrides_removed_descriptions_and_mapped_spec_defaults() {
    let (_, tools) = features();
    let add = tool(&tools, "widgets_add_widget");
    let schema = &add["inputSchema"];
    assert_eq!(
        schema["properties"]["name"],
        json!({"type": "string", "maxLength": 40}),
        "description: null drops the API's text"
    );
    assert_eq!(
        schema["properties"]["shade"]["default"], "lime",
        "the API's default `green` shown by its readable name"
    );
    assert_eq!(schema["properties"]["size"]["default"], 3);
    assert_eq!(schema["required"], json!(["name"]));
    let details = tool(&tools, "widgets_widget_details");
    assert_eq!(
        details["inputSchema"]["properties"]["widget"],
        json!({"type": "string", "description": "The widget's name"})
    );
}

#[test]
fn every_curation_feature_generates_a_clippy_clean_crate() {
    let fixtures = repo().join("tests/fixtures/features");
    let binary = support::generate_and_build(
        "features",
        &fixtures.join("openapi.yaml"),
        Some(&fixtures.join("mcpgen.yaml")),
    );
    let main =
        std::fs::read_to_string(repo().join("target/e2e/features/src/main.rs")).expect("main.rs");
    for env in [
        "WIDGETS_KEY",
        "WIDGETS_USER",
        "WIDGETS_PASSWORD",
        "WIDGETS_CLIENT_ID",
        "WIDGETS_CLIENT_SECRET",
    ] {
        assert!(main.contains(env), "{env} is read from the environment");
    }
    assert!(binary.exists());
}

#[test]
fn every_paging_style_generates_a_clippy_clean_crate() {
    let fixtures = repo().join("tests/fixtures/paging");
    support::generate_and_build(
        "paging",
        &fixtures.join("openapi.yaml"),
        Some(&fixtures.join("mcpgen.yaml")),
    );
}

/// One `tools/call` to the tracker-link server over stdio.
fn call_over_stdio(binary: &Path, base_url: &str, tool: &str, arguments: Value) -> Value {
    support::call_over_stdio(
        binary,
        &[
            ("TRACKER_LINK_BASE_URL", base_url),
            ("TRACKER_LINK_TOKEN", "alice-token"),
        ],
        &["TRACKER_TOKEN"],
        tool,
        arguments,
    )
}

#[test]
fn a_generated_server_walks_pages_through_link_headers_and_resolves_keys_by_lookup() {
    let binary = support::generate_and_build(
        "tracker-link",
        &repo().join("specs/tracker/openapi.yaml"),
        Some(&repo().join("tests/fixtures/tracker-link.yaml")),
    );
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let base_url = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("address");
        tokio::spawn(tracker_api::serve(listener));
        format!("http://{address}")
    });
    // 60 issues: a full page of 50, then 10 of the page its Link header points to.
    let result = call_over_stdio(
        &binary,
        &base_url,
        "search_issues",
        json!({"project": "WEB", "limit": 60}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let issues = result["structuredContent"]["issues"]
        .as_array()
        .expect("issues")
        .clone();
    let keys: Vec<&str> = issues
        .iter()
        .map(|i| i["key"].as_str().expect("a key"))
        .collect();
    let expected: Vec<String> = (71..=130).rev().map(|n| format!("WEB-{n}")).collect();
    assert_eq!(keys, expected, "newest first, no gaps, no repeats");
    assert_eq!(result["structuredContent"]["truncated"], true);
    // A lookup resolver: one call per value, the id it finds sent on.
    let result = call_over_stdio(
        &binary,
        &base_url,
        "issue_details",
        json!({"issue": "WEB-42"}),
    );
    assert_eq!(result["structuredContent"]["key"], "WEB-42", "{result}");
    let result = call_over_stdio(
        &binary,
        &base_url,
        "issue_details",
        json!({"issue": "WEB-9999"}),
    );
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["content"][0]["text"],
        "Issue \"WEB-9999\" not found."
    );
    // All 130: three pages, the last one without a Link header.
    let result = call_over_stdio(
        &binary,
        &base_url,
        "search_issues",
        json!({"project": "WEB", "limit": 200}),
    );
    assert_eq!(
        result["structuredContent"]["issues"]
            .as_array()
            .map(Vec::len),
        Some(130)
    );
    assert_eq!(result["structuredContent"]["truncated"], false);
}
