//! The curation-file checker, one class of mistake per test. Each case starts from [`BASE`], a
//! small valid curation file for the tracker API (`specs/tracker/openapi.yaml`), makes one
//! mistake in it, and pins the full rendered diagnostics as a golden file in
//! `tests/curation/<case>.txt`: the diagnostics are what users read, so their exact text is the
//! behaviour under test.
//!
//! After an intended change to the messages, rewrite the golden files and review the diff:
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test -p mcpgen --lib curate
//! git diff tests/curation/
//! ```

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use serde_json::Value;

use super::{CurationError, check_text};
use crate::api::Api;

static API: LazyLock<Api> = LazyLock::new(|| {
    let spec = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/specs/tracker/openapi.yaml"
    ));
    crate::load::load(spec).expect("the tracker spec loads")
});

/// A small valid curation file for the tracker API: a one-call tool with a resolver, an enum and
/// a result limit, and a workflow tool with `call`, `find` and `stop_if` steps.
const BASE: &str = "\
server:
  name: tracker
  prefix: tracker_
  cache_scope: public

operations:
  mirror: none
  hide: [deleteIssue]

enums:
  issue_status:
    open: 1
    in_progress: 2
    done: 3

resolvers:
  project:
    what: project key
    list: listProjects
    items: items
    match: [key]
  user:
    list: listUsers
    match: [username]
    aliases:
      me: getCurrentUser

pagination:
  style: page
  items: items

errors:
  401: The tracker refused the server's credentials.

tools:
  search_issues:
    description: Search issues in one project.
    call: listIssues
    params:
      project:
        from: project_id
        resolve: project
      status:
        from: state
        enum: issue_status
      assignee:
        from: assignee_id
        resolve: user
    results:
      items: items
      limit: { default: 20, max: 50 }
      fields:
        key: key
        status: { from: state, enum: issue_status }
        assignee: { from: assignee_id, resolve: user }

  change_issue_status:
    params:
      issue:
        type: string
      status:
        enum: issue_status
    steps:
      - call: getIssueByKey
        as: found
        args: { issue_key: $issue }
      - stop_if:
          equal: [$found.state, $status]
          result: $found
      - call: listTransitions
        as: transitions
        args: { issue_id: $found.id }
      - find: $transitions.items
        where: { to_state: $status }
        as: transition
      - call: transitionIssue
        args: { issue_id: $found.id, transition_id: $transition.id }
";

/// [`BASE`] with each `(from, to)` replacement made; each `from` must occur exactly once.
fn base_with(edits: &[(&str, &str)]) -> String {
    let mut text = BASE.to_string();
    for (from, to) in edits {
        assert_eq!(
            text.matches(from).count(),
            1,
            "`{from}` must occur exactly once in the text"
        );
        text = text.replacen(from, to, 1);
    }
    text
}

fn check(text: &str) -> Result<super::Checked, CurationError> {
    check_text(Path::new("mcpgen.yaml"), text, &API)
}

/// The error checking `text` fails with.
fn error(text: &str) -> CurationError {
    match check(text) {
        Ok(_) => panic!("the curation file checks clean, but it has a mistake:\n{text}"),
        Err(error) => error,
    }
}

fn golden_path(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/curation")
        .join(format!("{case}.txt"))
}

/// Compares `actual` with the golden file of `case`, or rewrites it under `UPDATE_GOLDEN=1`.
fn golden(case: &str, actual: &str) {
    let path = golden_path(case);
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("a golden file has a folder"))
            .unwrap_or_else(|e| panic!("cannot create the folder of {}: {e}", path.display()));
        std::fs::write(&path, actual)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}\nrun with UPDATE_GOLDEN=1 to create it; actual:\n{actual}",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "the diagnostics differ from {} (UPDATE_GOLDEN=1 rewrites it)\n--- expected\n{expected}\n--- actual\n{actual}",
        path.display()
    );
}

/// Checks `text`, which must fail, against the golden file `name`; returns the error.
fn case(name: &str, text: &str) -> CurationError {
    let error = error(text);
    golden(name, &error.rendered);
    error
}

/// The `(line, column)` of each diagnostic, in file order.
fn places(error: &CurationError) -> Vec<(usize, usize)> {
    let mut places: Vec<(usize, usize)> = error
        .diagnostics
        .iter()
        .map(|d| d.at.map(|a| (a.line, a.column)).unwrap_or_default())
        .collect();
    places.sort();
    places
}

/// The 1-based line and column of the first occurrence of `needle` in `text`.
fn position_of(text: &str, needle: &str) -> (usize, usize) {
    let offset = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` is not in the text"));
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

// ---------------------------------------------------------------------------------------------
// Valid files

#[test]
fn base_file_checks_clean() {
    if let Err(error) = check(BASE) {
        panic!("the base curation file has mistakes:\n{}", error.rendered);
    }
}

#[test]
fn tracker_curation_file_checks_clean() {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/specs/tracker/mcpgen.yaml"
    ));
    let text = std::fs::read_to_string(path).expect("the tracker curation file is readable");
    if let Err(error) = check(&text) {
        panic!(
            "specs/tracker/mcpgen.yaml has mistakes:\n{}",
            error.rendered
        );
    }
    let checked = super::load(path, &API).expect("load checks the same file clean");
    assert_eq!(checked.curation.tools.len(), 3);
}

#[test]
fn empty_file_is_an_empty_curation() {
    for text in ["", "\n", "  \n\n"] {
        let checked = check(text)
            .unwrap_or_else(|e| panic!("{text:?} does not check clean:\n{}", e.rendered));
        assert!(checked.curation.tools.is_empty());
        assert!(checked.curation.enums.is_empty());
        assert!(checked.curation.server.prefix.is_none());
    }
}

#[test]
fn file_of_only_comments_is_an_empty_curation() {
    let checked = check(
        "# yaml-language-server: $schema=../../schemas/mcpgen.schema.json\n# nothing curated yet\n",
    )
    .unwrap_or_else(|e| panic!("a file of comments does not check clean:\n{}", e.rendered));
    assert!(checked.curation.tools.is_empty());
}

#[test]
fn json_schema_is_a_closed_2020_12_object() {
    let schema = crate::curate::model::json_schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["additionalProperties"], Value::Bool(false));
    let properties = schema["properties"]
        .as_object()
        .expect("the root lists its properties");
    for key in [
        "server",
        "auth",
        "operations",
        "enums",
        "resolvers",
        "pagination",
        "errors",
        "tools",
    ] {
        assert!(
            properties.contains_key(key),
            "the schema has no property `{key}`"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// YAML

#[test]
fn yaml_syntax_error_is_reported_where_it_is() {
    let text = base_with(&[("  name: tracker", "  name: tracker: x")]);
    let error = case("yaml_syntax_error", &text);
    assert_eq!(places(&error), vec![(2, 16)]);
}

#[test]
fn yaml_unclosed_bracket_is_reported_where_the_reader_stops() {
    let text = base_with(&[("match: [key]", "match: [key")]);
    case("yaml_unclosed_bracket", &text);
}

#[test]
fn duplicate_key_names_both_places() {
    let text = base_with(&[(
        "    call: listIssues\n",
        "    call: listIssues\n    call: listProjects\n",
    )]);
    let error = case("duplicate_key", &text);
    assert_eq!(
        places(&error),
        vec![position_of(&text, "call: listProjects")]
    );
}

#[test]
fn top_level_must_be_a_mapping() {
    case("top_level_not_a_mapping", "- server\n- tools\n");
    case("top_level_scalar", "tracker\n");
}

// ---------------------------------------------------------------------------------------------
// Unknown keys

#[test]
fn unknown_top_level_key_suggests_the_close_one() {
    let text = base_with(&[("tools:\n", "tool:\n")]);
    let error = case("unknown_key_top_level", &text);
    assert_eq!(places(&error), vec![position_of(&text, "tool:")]);
}

#[test]
fn unknown_top_level_key_lists_the_keys_when_none_is_close() {
    let text = base_with(&[("errors:\n", "colour_scheme: 3\n\nerrors:\n")]);
    case("unknown_key_top_level_far", &text);
}

#[test]
fn unknown_key_in_server() {
    let text = base_with(&[("  name: tracker", "  nmae: tracker")]);
    case("unknown_key_server", &text);
}

#[test]
fn unknown_key_in_tool() {
    let text = base_with(&[("    description: Search", "    descripton: Search")]);
    let error = case("unknown_key_tool", &text);
    assert_eq!(places(&error), vec![position_of(&text, "descripton")]);
}

#[test]
fn unknown_key_in_param() {
    let text = base_with(&[(
        "        resolve: project\n",
        "        resolve: project\n        descripton: Project key\n",
    )]);
    case("unknown_key_param", &text);
}

#[test]
fn unknown_key_in_param_lists_the_keys_when_none_is_close() {
    let text = base_with(&[(
        "        resolve: project\n",
        "        resolve: project\n        colour: blue\n",
    )]);
    case("unknown_key_param_far", &text);
}

#[test]
fn a_comma_in_an_unquoted_flow_value_is_an_unknown_key_with_the_quoting_hint() {
    let text = base_with(&[(
        "      project:\n        from: project_id\n        resolve: project\n",
        "      project: { from: project_id, resolve: project, description: The project, for example WEB }\n",
    )]);
    case("unknown_key_from_a_comma", &text);
}

#[test]
fn unknown_key_in_results() {
    let text = base_with(&[("      fields:\n", "      feilds:\n")]);
    case("unknown_key_results", &text);
}

#[test]
fn unknown_key_in_step() {
    let text = base_with(&[(
        "        args: { issue_key: $issue }",
        "        arg: { issue_key: $issue }",
    )]);
    case("unknown_key_step", &text);
}

// ---------------------------------------------------------------------------------------------
// Wrong types and values

#[test]
fn list_where_text_is_expected() {
    let text = base_with(&[(
        "    description: Search issues in one project.",
        "    description: [Search, issues]",
    )]);
    case("wrong_type_list_for_text", &text);
}

#[test]
fn text_where_a_mapping_is_expected() {
    let text = base_with(&[(
        "  user:\n    list: listUsers\n    match: [username]\n    aliases:\n      me: getCurrentUser\n",
        "  user: listUsers\n",
    )]);
    case("wrong_type_text_for_mapping", &text);
}

#[test]
fn text_where_a_number_is_expected() {
    let text = base_with(&[(
        "limit: { default: 20, max: 50 }",
        "limit: { default: twenty, max: 50 }",
    )]);
    let error = case("wrong_type_text_for_number", &text);
    assert_eq!(places(&error), vec![position_of(&text, "twenty")]);
}

#[test]
fn missing_required_key() {
    let text = base_with(&[("limit: { default: 20, max: 50 }", "limit: { max: 50 }")]);
    case("missing_key", &text);
}

#[test]
fn empty_section_is_reported_at_its_key() {
    let text = base_with(&[(
        "server:\n  name: tracker\n  prefix: tracker_\n  cache_scope: public\n",
        "server:\n",
    )]);
    let error = case("empty_section", &text);
    assert_eq!(places(&error), vec![(1, 1)]);
}

#[test]
fn bad_paging_style_suggests_the_close_one() {
    let text = base_with(&[("style: page", "style: pages")]);
    let error = case("bad_enum_value_paging_style", &text);
    assert_eq!(places(&error), vec![position_of(&text, "pages")]);
}

#[test]
fn bad_cache_scope_lists_the_values() {
    let text = base_with(&[("cache_scope: public", "cache_scope: everyone")]);
    case("bad_enum_value_cache_scope", &text);
}

// ---------------------------------------------------------------------------------------------
// Operations

#[test]
fn unknown_operation_in_call() {
    let text = base_with(&[("call: listIssues", "call: listIsues")]);
    let error = case("unknown_operation_call", &text);
    assert_eq!(places(&error), vec![position_of(&text, "listIsues")]);
}

#[test]
fn quoted_value_is_underlined_whole() {
    let text = base_with(&[("call: listIssues", "call: \"listIsues\"")]);
    let error = case("unknown_operation_call_quoted", &text);
    assert_eq!(places(&error), vec![position_of(&text, "\"listIsues\"")]);
}

#[test]
fn unknown_operation_in_resolver_list() {
    let text = base_with(&[("list: listProjects", "list: listProject")]);
    case("unknown_operation_list", &text);
}

#[test]
fn a_resolver_argument_the_page_walk_sets_is_refused() {
    let text = base_with(&[(
        "    list: listProjects\n",
        "    list: listProjects\n    args: { per_page: 10 }\n",
    )]);
    case("resolver_sets_a_paging_parameter", &text);
}

#[test]
fn unknown_operation_in_resolver_lookup() {
    let text = base_with(&[(
        "pagination:\n",
        "  issue:\n    lookup: getIssueByKy\n\npagination:\n",
    )]);
    case("unknown_operation_lookup", &text);
}

#[test]
fn unknown_operation_in_alias() {
    let text = base_with(&[("me: getCurrentUser", "me: getCurentUser")]);
    case("unknown_operation_alias", &text);
}

#[test]
fn unknown_operation_in_step() {
    let text = base_with(&[("call: getIssueByKey", "call: getIssueByKy")]);
    case("unknown_operation_step", &text);
}

#[test]
fn an_operation_named_by_method_and_path_points_to_its_operation_id() {
    let text = base_with(&[("call: getIssueByKey", "call: GET /v2/issues/by-key/{key}")]);
    let error = case("unknown_operation_method_and_path", &text);
    assert!(
        error
            .rendered
            .contains("`GET /v2/issues/by-key/{issue_key}` is the operation `getIssueByKey`"),
        "{}",
        error.rendered
    );
}

#[test]
fn unknown_operation_in_hide() {
    let text = base_with(&[("hide: [deleteIssue]", "hide: [deleteIsue]")]);
    let error = case("unknown_operation_hide", &text);
    assert_eq!(places(&error), vec![position_of(&text, "deleteIsue")]);
}

#[test]
fn filter_with_unknown_tag() {
    let text = base_with(&[(
        "  mirror: none\n",
        "  mirror: none\n  include: [{ tag: Issue }]\n",
    )]);
    case("filter_unknown_tag", &text);
}

#[test]
fn filter_path_that_matches_nothing() {
    let text = base_with(&[(
        "  mirror: none\n",
        "  mirror: none\n  exclude: [{ path: /v3/** }]\n",
    )]);
    case("filter_path_matches_nothing", &text);
}

#[test]
fn hidden_operation_used_by_a_tool() {
    let text = base_with(&[(
        "  change_issue_status:\n",
        "  delete_issue:\n    call: deleteIssue\n\n  change_issue_status:\n",
    )]);
    case("hidden_operation_used", &text);
}

// ---------------------------------------------------------------------------------------------
// API parameters

#[test]
fn unknown_api_parameter_in_from() {
    let text = base_with(&[("from: project_id", "from: project")]);
    case("unknown_parameter_from", &text);
}

#[test]
fn unknown_api_parameter_in_fixed() {
    let text = base_with(&[(
        "    results:\n      items: items\n",
        "    fixed: { stat: 1 }\n    results:\n      items: items\n",
    )]);
    case("unknown_parameter_fixed", &text);
}

#[test]
fn unknown_api_parameter_in_step_args() {
    let text = base_with(&[(
        "args: { issue_id: $found.id }",
        "args: { issue_id: $found.id, expand: true }",
    )]);
    case("unknown_parameter_step_args", &text);
}

#[test]
fn required_api_parameter_without_a_value() {
    let text = base_with(&[(
        "      project:\n        from: project_id\n        resolve: project\n",
        "",
    )]);
    case("required_parameter_missing", &text);
}

#[test]
fn required_api_parameter_without_a_value_in_a_step() {
    let text = base_with(&[("        args: { issue_key: $issue }\n", "")]);
    case("required_parameter_missing_step", &text);
}

// ---------------------------------------------------------------------------------------------
// Enums and resolvers

#[test]
fn unknown_enum_in_param() {
    let text = base_with(&[(
        "        from: state\n        enum: issue_status",
        "        from: state\n        enum: issue_state",
    )]);
    case("unknown_enum_param", &text);
}

#[test]
fn unknown_resolver_in_param() {
    let text = base_with(&[("        resolve: project\n", "        resolve: projects\n")]);
    case("unknown_resolver_param", &text);
}

#[test]
fn unknown_enum_in_result_field() {
    let text = base_with(&[(
        "status: { from: state, enum: issue_status }",
        "status: { from: state, enum: status }",
    )]);
    case("unknown_enum_result_field", &text);
}

#[test]
fn unknown_enum_in_block_result_field() {
    let text = base_with(&[(
        "        status: { from: state, enum: issue_status }",
        "        status:\n          from: state\n          enum: status",
    )]);
    let error = case("unknown_enum_result_field_block", &text);
    assert_eq!(
        places(&error),
        vec![position_of(&text, "status\n        assignee")]
    );
}

#[test]
fn unknown_resolver_in_result_field() {
    let text = base_with(&[(
        "assignee: { from: assignee_id, resolve: user }",
        "assignee: { from: assignee_id, resolve: usr }",
    )]);
    case("unknown_resolver_result_field", &text);
}

#[test]
fn enum_code_the_api_does_not_accept() {
    let text = base_with(&[("open: 1", "open: 7")]);
    let error = case("enum_code_not_accepted", &text);
    assert_eq!(places(&error), vec![position_of(&text, "7")]);
}

#[test]
fn enum_code_used_by_two_tools_is_reported_once() {
    let second_tool = "  list_open:
    call: listIssues
    params:
      project:
        from: project_id
        resolve: project
      status:
        from: state
        enum: issue_status

  change_issue_status:
";
    let text = base_with(&[
        ("open: 1", "open: 7"),
        ("  change_issue_status:\n", second_tool),
    ]);
    let error = case("enum_code_not_accepted_two_uses", &text);
    assert_eq!(error.diagnostics.len(), 1);
}

#[test]
fn enum_default_that_is_not_one_of_its_names() {
    let text = base_with(&[(
        "        enum: issue_status\n      assignee:",
        "        enum: issue_status\n        default: opened\n      assignee:",
    )]);
    case("enum_default_not_a_name", &text);
}

// ---------------------------------------------------------------------------------------------
// Results and steps

#[test]
fn unknown_result_field_path() {
    let text = base_with(&[("key: key", "key: keyy")]);
    let error = case("unknown_result_field", &text);
    assert_eq!(places(&error), vec![position_of(&text, "keyy")]);
}

#[test]
fn resolver_match_field_that_does_not_exist() {
    let text = base_with(&[("match: [key]", "match: [kee]")]);
    case("resolver_match_unknown_field", &text);
}

#[test]
fn resolver_items_that_is_not_a_list() {
    let text = base_with(&[(
        "    items: items\n    match: [key]",
        "    items: total\n    match: [key]",
    )]);
    case("resolver_items_not_a_list", &text);
}

#[test]
fn results_items_that_is_not_a_list() {
    let text = base_with(&[(
        "      items: items\n      limit",
        "      items: total\n      limit",
    )]);
    case("results_items_not_a_list", &text);
}

#[test]
fn unknown_step_variable() {
    let text = base_with(&[(
        "args: { issue_id: $found.id }",
        "args: { issue_id: $fond.id }",
    )]);
    let error = case("unknown_step_variable", &text);
    assert_eq!(places(&error), vec![position_of(&text, "$fond.id")]);
}

#[test]
fn unknown_field_of_a_step_result() {
    let text = base_with(&[(
        "args: { issue_id: $found.id }",
        "args: { issue_id: $found.idd }",
    )]);
    case("unknown_step_result_field", &text);
}

#[test]
fn step_with_neither_call_find_stop_if_nor_resolve() {
    let text = base_with(&[(
        "      - call: listTransitions\n",
        "      - as: nothing\n      - call: listTransitions\n",
    )]);
    case("step_without_action", &text);
}

#[test]
fn find_over_something_that_is_not_a_list() {
    let text = base_with(&[("find: $transitions.items", "find: $found.title")]);
    case("find_not_a_list", &text);
}

// ---------------------------------------------------------------------------------------------
// Names, headers, tool shape, limits, statuses

#[test]
fn tool_name_too_long_after_the_prefix() {
    let long = format!("  {}:\n", "search_issues_".repeat(5));
    let text = base_with(&[("  search_issues:\n", &long)]);
    case("tool_name_too_long", &text);
}

#[test]
fn tool_name_with_bad_characters() {
    let text = base_with(&[("  search_issues:\n", "  search issues:\n")]);
    case("tool_name_bad_characters", &text);
}

#[test]
fn bad_prefix() {
    let text = base_with(&[("prefix: tracker_", "prefix: tracker.")]);
    case("bad_prefix", &text);
}

#[test]
fn bad_oauth_scope() {
    let text = base_with(&[(
        "    description: Search issues in one project.\n",
        "    description: Search issues in one project.\n    scopes: [issues:read, \"issues read\", issues:read]\n",
    )]);
    case("bad_oauth_scope", &text);
}

#[test]
fn bad_header_name() {
    let text = base_with(&[(
        "        resolve: user\n",
        "        resolve: user\n        header: Assignee Name\n",
    )]);
    case("bad_header_name", &text);
}

#[test]
fn same_header_on_two_params() {
    let text = base_with(&[
        (
            "        resolve: project\n",
            "        resolve: project\n        header: Target\n",
        ),
        (
            "        resolve: user\n",
            "        resolve: user\n        header: target\n",
        ),
    ]);
    case("same_header_twice", &text);
}

#[test]
fn tool_with_both_call_and_steps() {
    let text = base_with(&[("    steps:\n", "    call: getIssueByKey\n    steps:\n")]);
    case("tool_call_and_steps", &text);
}

#[test]
fn tool_with_neither_call_nor_steps() {
    let text = base_with(&[(
        "  change_issue_status:\n",
        "  show_nothing:\n    description: Does nothing.\n\n  change_issue_status:\n",
    )]);
    case("tool_neither_call_nor_steps", &text);
}

#[test]
fn limit_default_above_max() {
    let text = base_with(&[(
        "limit: { default: 20, max: 50 }",
        "limit: { default: 80, max: 50 }",
    )]);
    case("limit_default_above_max", &text);
}

#[test]
fn limit_without_items() {
    let single_tool = "  get_issue:
    call: getIssueByKey
    params:
      key:
        from: issue_key
    results:
      limit: { default: 5, max: 10 }
      fields:
        title: title

  change_issue_status:
";
    let text = base_with(&[("  change_issue_status:\n", single_tool)]);
    let error = case("limit_without_items", &text);
    assert_eq!(places(&error), vec![position_of(&text, "{ default: 5")]);
}

#[test]
fn bad_http_status_in_errors() {
    let text = base_with(&[("  401: The tracker", "  40x: The tracker")]);
    case("bad_http_status", &text);
}

// ---------------------------------------------------------------------------------------------
// Several mistakes

// ---------------------------------------------------------------------------------------------
// Several mistakes, and where they are

/// The `FILE:LINE:COL` of each rendered diagnostic, in the order shown.
fn rendered_places(rendered: &str) -> Vec<String> {
    rendered
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("┌─ "))
        .map(str::to_string)
        .collect()
}

#[test]
fn several_mistakes_are_all_reported_sorted_by_line() {
    // Listed out of file order on purpose: the rendering sorts them.
    let text = base_with(&[
        (
            "args: { issue_id: $found.id }",
            "args: { issue_id: $fond.id }",
        ),
        ("key: key", "key: keyy"),
        ("hide: [deleteIssue]", "hide: [deleteIsue]"),
        ("  401: The tracker", "  40x: The tracker"),
        ("list: listProjects", "list: listProject"),
        ("from: project_id", "from: project"),
    ]);
    let error = case("several_mistakes", &text);
    for message in [
        "unknown operation `deleteIsue`",
        "unknown operation `listProject`",
        "`40x` is not an HTTP status",
        "operation `listIssues` has no parameter or body property `project`",
        "required parameter `project_id` of `listIssues` gets no value",
        "the result has no field `keyy`",
        "`$fond` is neither a parameter of this tool nor the result of an earlier step",
    ] {
        assert!(
            error.rendered.contains(&format!("error: {message}")),
            "`{message}` is not reported"
        );
    }
    assert_eq!(error.diagnostics.len(), 7);
    assert!(
        error.rendered.ends_with("mcpgen.yaml: 7 errors\n"),
        "{}",
        error.rendered
    );
    let lines: Vec<usize> = rendered_places(&error.rendered)
        .iter()
        .map(|place| {
            place
                .split(':')
                .nth(1)
                .and_then(|l| l.parse().ok())
                .expect("FILE:LINE:COL")
        })
        .collect();
    assert!(lines.is_sorted(), "not in file order: {lines:?}");
}

#[test]
fn several_schema_mistakes_are_all_reported_in_one_run() {
    let text = base_with(&[
        ("  name: tracker", "  nmae: tracker"),
        ("style: page", "style: pages"),
        ("limit: { default: 20, max: 50 }", "limit: { max: 50 }"),
        ("      fields:\n", "      feilds:\n"),
        (
            "        args: { issue_key: $issue }",
            "        args: [$issue]",
        ),
    ]);
    let error = case("several_schema_mistakes", &text);
    assert_eq!(error.diagnostics.len(), 5);
    assert!(
        error.rendered.ends_with("mcpgen.yaml: 5 errors\n"),
        "{}",
        error.rendered
    );
}

#[test]
fn diagnostics_name_file_line_and_column() {
    let text = base_with(&[
        ("hide: [deleteIssue]", "hide: [getIssue, deleteIsue]"),
        ("  name: tracker", "  nmae: tracker"),
    ]);
    // The schema is checked first: only the unknown key is reported.
    assert_eq!(rendered_places(&error(&text).rendered), ["mcpgen.yaml:2:3"]);

    let text = base_with(&[
        ("hide: [deleteIssue]", "hide: [getIssue, deleteIsue]"),
        ("key: key", "key:    keyy"),
        (
            "transition_id: $transition.id",
            "transition_id: $transition.idd",
        ),
        (
            "equal: [$found.state, $status]",
            "equal: [\"Zürich\", $fond.state]",
        ),
    ]);
    let error = error(&text);
    assert_eq!(
        rendered_places(&error.rendered),
        [
            "mcpgen.yaml:8:20",
            "mcpgen.yaml:53:17",
            "mcpgen.yaml:68:29",
            "mcpgen.yaml:77:53"
        ]
    );
    // Columns count characters, not bytes (`ü` is two bytes).
    assert_eq!(places(&error)[2], (68, 29));
    assert!(error.rendered.contains("68 │           equal: [\"Zürich\", $fond.state]\n   │                             ^^^^^^^^^^^"));
}

#[test]
fn error_displays_its_rendered_text_without_the_trailing_newline() {
    let error = error(&base_with(&[("call: listIssues", "call: listIsues")]));
    assert_eq!(error.to_string(), error.rendered.trim_end());
    assert!(error.to_string().ends_with("mcpgen.yaml: 1 error"));
}

// ---------------------------------------------------------------------------------------------
// Reading the file

#[test]
fn unreadable_file_names_its_path() {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/curation/no-such-file.yaml"
    ));
    let error = super::load(path, &API).expect_err("a missing file does not load");
    assert!(
        error.rendered.starts_with(&format!(
            "{}: cannot read the curation file: ",
            path.display()
        )),
        "{}",
        error.rendered
    );
}

#[test]
fn file_that_is_not_utf8_names_its_path() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("mcpgen.yaml");
    std::fs::write(&path, b"server:\n  name: tr\xe4cker\n").expect("the file is written");
    let error = super::load(&path, &API).expect_err("a Latin-1 file does not load");
    assert_eq!(
        error.rendered,
        format!(
            "{}: the curation file is not UTF-8 text; save it as UTF-8",
            path.display()
        )
    );
}

#[test]
fn a_parameter_named_like_a_generated_one_is_refused() {
    let text = base_with(&[(
        "      assignee:\n",
        "      limit:\n        from: q\n      assignee:\n",
    )]);
    let error = check(&text).expect_err("refused");
    assert!(
        error
            .rendered
            .contains("parameter `limit` is the one `results.limit` adds"),
        "{}",
        error.rendered
    );
}

#[test]
fn a_parameter_filling_a_paging_parameter_is_refused() {
    let text = base_with(&[(
        "      assignee:\n",
        "      page_number:\n        from: page\n      assignee:\n",
    )]);
    let error = check(&text).expect_err("refused");
    assert!(
        error
            .rendered
            .contains("`page` is set by the server while it walks pages"),
        "{}",
        error.rendered
    );
}

// ---------------------------------------------------------------------------------------------
// Templates, as read

mod templates {
    use serde_json::json;

    use crate::curate::model::{ClausePart, QuoteRule, Template, TemplateFault};

    fn text(s: &str) -> ClausePart {
        ClausePart::Text(s.to_string())
    }

    fn param(name: &str, quoted: Option<char>) -> ClausePart {
        ClausePart::Param {
            name: name.to_string(),
            quoted,
            words: false,
        }
    }

    #[test]
    fn a_clause_reads_into_text_and_placeholders_with_the_quotes_written_around_them() {
        let template = Template::parse(&json!({
            "template": ["repo:{owner}/{repo}", "label:\"{label}\"", "a {{b}} {c}", "x = '{y}'"],
            "quote": "jql",
        }))
        .expect("a template");
        assert_eq!(template.join, " ", "one space by default");
        assert_eq!(template.quote, QuoteRule::Jql);
        let parts: Vec<&Vec<ClausePart>> = template.clauses.iter().map(|c| &c.parts).collect();
        assert_eq!(
            parts,
            [
                &vec![
                    text("repo:"),
                    param("owner", None),
                    text("/"),
                    param("repo", None)
                ],
                &vec![text("label:\""), param("label", Some('"')), text("\"")],
                &vec![text("a {b} "), param("c", None)],
                &vec![text("x = '"), param("y", Some('\'')), text("'")],
            ]
        );
        assert_eq!(template.params(), ["owner", "repo", "label", "c", "y"]);
    }

    #[test]
    fn a_flag_placeholder_is_a_switch_that_writes_nothing_and_names_its_parameter() {
        let template = Template::parse(&json!({
            "template": ["is:open{open_only:if}"], "quote": "github",
        }))
        .expect("a template");
        assert_eq!(
            template.clauses[0].parts,
            [
                text("is:open"),
                ClausePart::Switch {
                    name: "open_only".into()
                },
            ]
        );
        assert_eq!(template.params(), ["open_only"]);
    }

    #[test]
    fn a_placeholder_written_as_words_is_read_and_refused_between_quotes_or_as_another_way() {
        let template = Template::parse(&json!({
            "template": ["{words:words} in:#{channel}"], "quote": "slack",
        }))
        .expect("a template");
        assert_eq!(
            template.clauses[0].parts,
            [
                ClausePart::Param {
                    name: "words".into(),
                    quoted: None,
                    words: true,
                },
                text(" in:#"),
                param("channel", None),
            ]
        );
        assert_eq!(template.clauses[0].params(), ["words", "channel"]);
        let refused = |clause: &str| {
            Template::parse(&json!({ "template": clause, "quote": "github" }))
                .expect_err("refused")
                .message
        };
        assert_eq!(
            refused("\"{text:words}\""),
            "`{text:words}` in the clause \"\"{text:words}\"\" sits between quotes, which make its words one phrase"
        );
        assert_eq!(
            refused("{text:phrase}"),
            "`{text:phrase}` in the clause \"{text:phrase}\" writes its value as `phrase`, which templates do not know"
        );
    }

    #[test]
    fn one_clause_may_be_written_alone_and_join_is_kept_as_written() {
        let template = Template::parse(&json!({
            "template": "project = \"{project}\"", "join": " AND ", "quote": "none",
        }))
        .expect("a template");
        assert_eq!(template.clauses.len(), 1);
        assert_eq!(template.join, " AND ");
    }

    #[test]
    fn a_template_that_cannot_be_read_names_the_part_at_fault() {
        let fault = |value: serde_json::Value| {
            let error = Template::parse(&value).expect_err("refused");
            (error.fault, error.message)
        };
        assert_eq!(
            fault(json!({"template": ["a", "b {x"], "quote": "github"})),
            (
                TemplateFault::Clause(1),
                "`{` without `}` in the clause \"b {x\"".to_string()
            )
        );
        assert_eq!(
            fault(json!({"template": ["a}"], "quote": "github"})).0,
            TemplateFault::Clause(0)
        );
        assert_eq!(
            fault(json!({"template": ["{}"], "quote": "github"})).0,
            TemplateFault::Clause(0)
        );
        assert_eq!(
            fault(json!({"template": ["a"], "quote": "sql"})).0,
            TemplateFault::Quote
        );
        assert_eq!(
            fault(json!({"template": ["a"], "quote": "none", "joint": " "})).0,
            TemplateFault::Key("joint".into())
        );
        assert_eq!(
            fault(json!({"template": ["a"], "quote": "none", "join": 3})).0,
            TemplateFault::Join
        );
        assert_eq!(
            fault(json!({"template": ["a"]})).0,
            TemplateFault::Whole,
            "quote is required"
        );
        assert_eq!(
            fault(json!({"template": [], "quote": "none"})).1,
            "a template needs at least one clause"
        );
    }
}

/// An API whose answer nests twelve objects, each referring to the next: the loader cuts the
/// answer's schema short past a few of them (a tool's schema stays small), and a field deep
/// inside is checked all the same, against the schema the loader left out.
fn deep_api() -> Api {
    let mut schemas = String::new();
    for level in 1..=12 {
        schemas.push_str(&format!(
            "    Level{level}:\n      type: object\n      properties:\n        name: {{ type: string }}\n        size: {{ type: integer }}\n        tags: {{ type: array, items: {{ type: string }} }}\n"
        ));
        if level < 12 {
            schemas.push_str(&format!(
                "        next: {{ $ref: '#/components/schemas/Level{}' }}\n",
                level + 1
            ));
        }
    }
    let spec = format!(
        "openapi: 3.0.3\ninfo: {{ title: Deep, version: '1' }}\npaths:\n  /things:\n    get:\n      operationId: listThings\n      responses:\n        '200':\n          description: The things.\n          content:\n            application/json:\n              schema:\n                type: object\n                properties:\n                  items: {{ type: array, items: {{ $ref: '#/components/schemas/Level1' }} }}\ncomponents:\n  schemas:\n{schemas}"
    );
    crate::load::load_text(Path::new("deep.yaml"), &spec).expect("the deep spec loads")
}

fn deep_curation(field: &str) -> String {
    format!(
        "operations: {{ mirror: none }}\ntools:\n  things:\n    description: List the things. Returns each one's deep name.\n    call: listThings\n    results:\n      items: items\n      fields: {{ deep: {field} }}\n"
    )
}

#[test]
fn a_field_inside_an_answer_the_loader_cut_short_is_checked() {
    let api = deep_api();
    let deep = "next.next.next.next.next.next.next.next.next.name";
    let stubbed = format!(
        "{:?}",
        api.operations[0]
            .success
            .as_ref()
            .and_then(|r| r.schema.as_ref())
    );
    assert!(
        stubbed.contains(crate::load::STUB_OF),
        "the fixture is cut short: {stubbed}"
    );
    let (_, found) = super::check::check(
        &api,
        super::parse(&deep_curation(deep)).expect("the file parses"),
    );
    assert!(found.is_empty(), "{found:?}");
    let wrong = deep.replace(".name", ".nickname");
    let (_, found) = super::check::check(
        &api,
        super::parse(&deep_curation(&wrong)).expect("the file parses"),
    );
    let messages: Vec<&str> = found.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(messages, ["the result has no field `nickname`"]);
}

#[test]
fn binding_resolves_every_reference_of_the_base_file() {
    use super::bound::{AliasTarget, Arg, Body, ParamSource, ShapeConvert, Step};
    let checked = check(BASE).unwrap_or_else(|e| panic!("{}", e.rendered));
    let model = &checked.model;
    let operation = |id: &str| {
        API.operations
            .iter()
            .position(|op| op.id == id)
            .unwrap_or_else(|| panic!("the tracker has `{id}`"))
    };
    assert_eq!(model.server.prefix, "tracker_");
    assert!(!model.operations.mirror);
    assert!(model.operations.hidden.contains("deleteIssue"));
    assert!(matches!(
        &model.resolvers[1].aliases[..],
        [(word, AliasTarget::Operation { operation: op, id })]
            if word == "me" && *op == operation("getCurrentUser") && id == "/id"
    ));

    let search = &model.tools[0];
    assert_eq!(search.name, "search_issues");
    let sources: Vec<_> = search.params.iter().map(|p| &p.source).collect();
    assert!(matches!(
        sources[..],
        [
            ParamSource::Resolve(0),
            ParamSource::Enum(0),
            ParamSource::Resolve(1),
            ParamSource::Limit {
                max: 50,
                default: 20,
                ..
            },
        ]
    ));
    let slot = search.params[0]
        .slot
        .as_ref()
        .expect("`project` fills an API input");
    assert_eq!(slot.api_name, "project_id");
    assert!(
        matches!(&search.body, Body::Call { operation: op, .. } if *op == operation("listIssues"))
    );
    assert_eq!(search.results.fields[1].convert, ShapeConvert::Enum(0));
    assert_eq!(search.results.fields[2].convert, ShapeConvert::Lookup(0));
    assert_eq!(
        search.errors,
        vec![(
            401,
            "The tracker refused the server's credentials.".to_string()
        )]
    );

    let Body::Steps(steps) = &model.tools[1].body else {
        panic!("change_issue_status is a workflow");
    };
    let answer = |step: usize, pointer: &str| Arg::Answer {
        step,
        pointer: pointer.to_string(),
    };
    assert!(matches!(
        &steps[0],
        Step::Call { name, args, .. } if name == "found" && args[..] == [("issue_key".to_string(), Arg::Param(0))]
    ));
    assert!(matches!(
        &steps[1],
        Step::StopIf { left, right, result: Some(result), .. }
            if *left == answer(0, "/state") && *right == Arg::Param(1) && *result == answer(0, "")
    ));
    assert!(matches!(
        &steps[3],
        Step::Find { list, conditions, .. }
            if *list == answer(2, "/items")
                && conditions[..] == [("/to_state".to_string(), Arg::Param(1))]
    ));
    assert!(matches!(
        &steps[4],
        Step::Call { operation: op, args, .. }
            if *op == operation("transitionIssue")
                && args[..]
                    == [
                        ("issue_id".to_string(), answer(0, "/id")),
                        ("transition_id".to_string(), answer(3, "/id")),
                    ]
    ));
}

#[test]
fn a_reference_that_does_not_bind_is_a_diagnostic_at_its_place_naming_its_tool() {
    // `check` refuses this file; binding it without checking shows what a slip of `check`
    // would give: a finding at FILE:LINE:COL, not an internal error.
    let text = base_with(&[("call: transitionIssue", "call: transitionIsue")]);
    let curation = super::parse(&text).expect("the file parses");
    let failed = super::bound::bind(&API, &curation).expect_err("an unknown operation");
    let [diagnostic] = &failed[..] else {
        panic!("one finding, not {failed:?}");
    };
    let at = diagnostic.at.expect("a place");
    let line = text.lines().nth(at.line - 1).expect("the line");
    assert!(line.contains("call: transitionIsue"), "{line:?}");
    assert!(diagnostic.message.contains("`transitionIsue`"));
    assert_eq!(diagnostic.tools, vec!["change_issue_status".to_string()]);
}

#[test]
fn a_value_for_an_input_the_operation_does_not_take_does_not_bind() {
    let text = base_with(&[(
        "    call: listIssues\n",
        "    call: listIssues\n    fixed: { sortt: created }\n",
    )]);
    let curation = super::parse(&text).expect("the file parses");
    let failed = super::bound::bind(&API, &curation).expect_err("an unknown input");
    let [diagnostic] = &failed[..] else {
        panic!("one finding, not {failed:?}");
    };
    let line = text
        .lines()
        .nth(diagnostic.at.expect("a place").line - 1)
        .expect("the line");
    assert!(line.contains("sortt"), "{line:?}");
    assert_eq!(
        diagnostic.message,
        "operation `listIssues` has no parameter `sortt`"
    );
    assert_eq!(diagnostic.tools, vec!["search_issues".to_string()]);
}

#[test]
fn a_page_size_the_file_sets_is_never_more_than_the_operation_takes() {
    use super::bound::Body;
    let page_size = |text: &str| {
        let checked = check(text).unwrap_or_else(|e| panic!("{}", e.rendered));
        let search = checked
            .model
            .tools
            .iter()
            .find(|t| t.name == "search_issues")
            .expect("the tool");
        match &search.body {
            Body::Call {
                paging: Some(paging),
                ..
            } => paging.max_page_size,
            other => panic!("a paged call: {other:?}"),
        }
    };
    // `listIssues` takes at most 50 a page.
    let more = BASE.replace(
        "pagination:\n  style: page\n",
        "pagination:\n  style: page\n  max_page_size: 1000\n",
    );
    assert_eq!(page_size(&more), 50);
    let less = BASE.replace(
        "pagination:\n  style: page\n",
        "pagination:\n  style: page\n  max_page_size: 10\n",
    );
    assert_eq!(page_size(&less), 10);
    assert_eq!(
        page_size(BASE),
        50,
        "the operation's own maximum by default"
    );
}
