//! `mcpgen check` as a user runs it: the curated examples are clean, every curation mistake and
//! every tool-design lint is reported in one run with `FILE:LINE:COL`, budgets fail the run, and
//! the exit code follows errors (and warnings with `--deny-warnings`). Reports are pinned as golden
//! text in `tests/cli_check/`; `UPDATE_GOLDEN=1 cargo test --test suite cli_check::` rewrites them
//! after a deliberate change.

use std::path::Path;

use assert_cmd::Command;
use serde_json::{Value, json};

use crate::support::cli::golden;
use crate::support::repo;

const TRACKER: &str = "specs/tracker/openapi.yaml";
const PETSTORE: &str = "tests/corpus/swagger-petstore-v3/openapi.yaml";

/// What one run of `mcpgen` did.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `mcpgen args…` from the repository root, so reports name files as a user typed them.
fn mcpgen(args: &[&str]) -> Run {
    let output = Command::cargo_bin("mcpgen")
        .expect("the binary is built")
        .args(args)
        .current_dir(repo())
        .env_remove("NO_COLOR")
        .output()
        .expect("mcpgen runs");
    Run {
        code: output.status.code().expect("mcpgen exits with a code"),
        stdout: String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(output.stderr).expect("UTF-8 stderr"),
    }
}

/// `mcpgen check` of the tracker spec with the fixture `tests/cli_check/<name>.yaml`.
fn check_fixture(name: &str, more: &[&str]) -> Run {
    let curation = format!("tests/cli_check/{name}.yaml");
    let mut args = vec!["check", TRACKER, "-c", curation.as_str()];
    args.extend(more);
    mcpgen(&args)
}

/// The `FILE:LINE:COL` places a text report points at, in order.
fn places(report: &str) -> Vec<String> {
    report
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("┌─ "))
        .map(str::to_string)
        .collect()
}

fn json_report(run: &Run) -> Vec<Value> {
    match serde_json::from_str(&run.stdout) {
        Ok(Value::Array(items)) => items,
        _ => panic!("not a JSON list: {}", run.stdout),
    }
}

#[test]
fn the_tracker_curation_is_clean_even_with_deny_warnings() {
    let run = mcpgen(&[
        "check",
        TRACKER,
        "-c",
        "specs/tracker/mcpgen.yaml",
        "--deny-warnings",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, "specs/tracker/mcpgen.yaml: no problems\n");
    assert_eq!(run.stdout, "");
}

#[test]
fn the_petstore_curation_is_clean_even_with_deny_warnings() {
    let run = mcpgen(&[
        "check",
        PETSTORE,
        "-c",
        "specs/petstore/mcpgen.yaml",
        "--deny-warnings",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, "specs/petstore/mcpgen.yaml: no problems\n");
}

#[test]
fn quiet_says_nothing_when_clean() {
    let run = mcpgen(&["check", TRACKER, "-c", "specs/tracker/mcpgen.yaml", "-q"]);
    assert_eq!(run.code, 0);
    assert_eq!(run.stderr, "");
}

#[test]
fn every_mistake_is_reported_in_one_run_with_the_lints_of_the_tools_without_mistakes() {
    let run = check_fixture("mistakes", &[]);
    assert_eq!(run.code, 1);
    golden("tests/cli_check", "mistakes.txt", &run.stderr);
    for message in [
        "error: unknown operation `getIssueByKy`",
        "error: operation `listIssues` has no parameter or body property `project_ident`",
        "error: required parameter `project_id` of `listIssues` gets no value",
        "error: the result has no field `keyy`",
        "warning: the description of tool `tracker_list_projects` is too short",
    ] {
        assert!(
            run.stderr.contains(message),
            "`{message}` is not reported:\n{}",
            run.stderr
        );
    }
    assert!(
        run.stderr
            .ends_with("tests/cli_check/mistakes.yaml: 4 errors and 1 warning\n")
    );
    assert_eq!(
        places(&run.stderr),
        [
            "tests/cli_check/mistakes.yaml:8:11",
            "tests/cli_check/mistakes.yaml:14:11",
            "tests/cli_check/mistakes.yaml:16:24",
            "tests/cli_check/mistakes.yaml:20:14",
            "tests/cli_check/mistakes.yaml:21:3",
        ]
    );
    // The source line, a caret under the value, and a suggestion.
    assert!(run.stderr.contains(
        "8 │     call: getIssueByKy\n  │           ^^^^^^^^^^^^ did you mean `getIssueByKey`?"
    ));
}

#[test]
fn a_mistake_outside_the_tools_is_reported_without_lints() {
    let run = check_fixture("mistakes_outside_tools", &[]);
    assert_eq!(run.code, 1);
    golden("tests/cli_check", "mistakes_outside_tools.txt", &run.stderr);
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);
}

#[test]
fn a_missing_or_short_description_is_a_warning_at_the_tool_name() {
    let run = check_fixture("lint_description", &[]);
    assert_eq!(run.code, 0, "warnings alone do not fail");
    golden("tests/cli_check", "lint_description.txt", &run.stderr);
    assert!(
        run.stderr
            .contains("warning: tool `tracker_get_issue` has no description")
    );
    assert!(run.stderr.contains(
        "warning: the description of tool `tracker_list_projects` is too short to say when to use the tool (14 characters, fewer than 60)"
    ));
    assert!(
        run.stderr
            .contains("say what the tool does, when to use it and what it returns")
    );
}

#[test]
fn a_parameter_without_description_is_a_warning_unless_null_on_purpose() {
    let run = check_fixture("lint_parameter", &[]);
    assert_eq!(run.code, 0);
    golden("tests/cli_check", "lint_parameter.txt", &run.stderr);
    assert!(
        run.stderr
            .contains("warning: parameter `key` of `tracker_find_issue` has no description")
    );
    // `title: { description: null }` says the name is enough.
    assert!(!run.stderr.contains("`title`"), "{}", run.stderr);
    assert_eq!(
        places(&run.stderr),
        ["tests/cli_check/lint_parameter.yaml:10:7"]
    );
}

#[test]
fn a_name_too_long_for_a_client_prefix_is_a_warning() {
    let run = check_fixture("lint_name", &[]);
    assert_eq!(run.code, 0);
    golden("tests/cli_check", "lint_name.txt", &run.stderr);
    assert!(run.stderr.contains(
        "tool name `tracker_find_one_issue_by_its_human_readable_key` has 48 characters"
    ));
    assert!(run.stderr.contains("use at most 44 characters"));
}

#[test]
fn annotations_that_contradict_the_method_are_warnings() {
    let run = check_fixture("lint_annotations", &[]);
    assert_eq!(run.code, 0);
    golden("tests/cli_check", "lint_annotations.txt", &run.stderr);
    for message in [
        "`tracker_create_issue` is marked readOnlyHint: true but calls `createIssue` (POST /v2/projects/{project_id}/issues)",
        "`tracker_create_issue` is marked idempotentHint: true but calls `createIssue`",
        "`tracker_get_issue` only reads (GET /v2/issues/by-key/{issue_key}) but is not marked readOnlyHint: true",
        "`tracker_delete_issue` calls `deleteIssue` (DELETE /v2/issues/{issue_id}) but is marked destructiveHint: false",
        "`tracker_delete_issue` is marked idempotentHint: false but only writes with DELETE",
        "`tracker_list_projects` is marked both readOnlyHint and destructiveHint",
    ] {
        assert!(
            run.stderr.contains(&format!("warning: {message}")),
            "`{message}` is not reported:\n{}",
            run.stderr
        );
    }
}

#[test]
fn two_tools_calling_the_same_operation_are_a_warning() {
    let run = check_fixture("lint_overlap", &[]);
    assert_eq!(run.code, 0);
    golden("tests/cli_check", "lint_overlap.txt", &run.stderr);
    assert!(run.stderr.contains(
        "warning: `tracker_show_issue` and `tracker_get_issue` both only call `getIssueByKey`"
    ));
    assert_eq!(
        places(&run.stderr),
        ["tests/cli_check/lint_overlap.yaml:12:3"]
    );
}

#[test]
fn an_exceeded_budget_is_an_error_naming_the_heaviest_tools() {
    let run = check_fixture("budget", &[]);
    assert_eq!(run.code, 1);
    golden("tests/cli_check", "budget.txt", &run.stderr);
    assert!(
        run.stderr.contains("error: the 3 tools take about"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains(
        "over the total budget of 300 (`budgets.total`); the heaviest: `tracker_get_issue` ("
    ));
    assert!(
        run.stderr
            .contains("error: tool `tracker_get_issue` takes about")
    );
    assert!(
        run.stderr
            .contains("over the per-tool budget of 120 (`budgets.per_tool`)")
    );
    // The total's error points at the budget, the tool's at the tool.
    assert_eq!(
        places(&run.stderr),
        [
            "tests/cli_check/budget.yaml:6:10",
            "tests/cli_check/budget.yaml:8:3"
        ]
    );
}

#[test]
fn warnings_fail_only_with_deny_warnings() {
    assert_eq!(check_fixture("lint_overlap", &[]).code, 0);
    assert_eq!(check_fixture("lint_overlap", &["--deny-warnings"]).code, 1);
}

#[test]
fn quiet_hides_warnings_unless_they_fail_the_run() {
    let run = check_fixture("lint_overlap", &["-q"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let run = check_fixture("lint_overlap", &["-q", "--deny-warnings"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("warning: `tracker_show_issue`"));
}

#[test]
fn a_bare_mirror_of_the_tracker_gets_warnings_and_passes_unless_warnings_are_denied() {
    let run = mcpgen(&["check", TRACKER]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    golden("tests/cli_check", "tracker_mirror.txt", &run.stderr);
    assert!(
        run.stderr
            .contains("warning: the description of tool `get_issue`")
    );
    assert!(!run.stderr.contains("error"), "{}", run.stderr);
    assert_eq!(mcpgen(&["check", TRACKER, "--deny-warnings"]).code, 1);
}

#[test]
fn without_a_curation_file_a_tool_over_the_default_budget_is_a_warning() {
    // The first look at an API always builds.
    let spec = "tests/cli_check/heavy-openapi.yaml";
    let run = mcpgen(&["check", spec]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "warning: tool `search_reports` (operation `searchReports`, GET /reports) takes about"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("over the default per-tool budget of 800")
    );
    assert!(!run.stderr.contains("error"), "{}", run.stderr);
    assert_eq!(mcpgen(&["check", spec, "--deny-warnings"]).code, 1);
}

#[test]
fn a_bare_mirror_names_the_operation_of_each_warning() {
    let run = mcpgen(&["check", "tests/cli_check/bare-openapi.yaml"]);
    assert_eq!(run.code, 0);
    golden("tests/cli_check", "bare_mirror.txt", &run.stderr);
    let operation = "(operation `createScheduledExportOfReportForAllRegions`, POST /reports/{report_id}/exports)";
    assert!(
        run.stderr
            .contains("is too short to say when to use the tool")
    );
    assert!(run.stderr.contains(&format!("parameters `report_id`, `since` of tool `create_scheduled_export_of_report_for_all_regions` {operation} have no description")));
    assert!(run.stderr.contains(
        "tool name `create_scheduled_export_of_report_for_all_regions` has 49 characters"
    ));
    // `format` lists its values: it explains itself.
    assert!(!run.stderr.contains("`format`"));
    // A described tool with a well-described operation gets nothing.
    assert!(!run.stderr.contains("list_reports"), "{}", run.stderr);
}

#[test]
fn json_format_lists_every_finding_with_its_place() {
    let run = check_fixture("mistakes", &["--format", "json"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stderr, "", "the report goes to stdout");
    let items = json_report(&run);
    assert_eq!(items.len(), 5);
    for item in &items {
        for field in [
            "severity", "message", "file", "line", "column", "help", "tools",
        ] {
            assert!(item.get(field).is_some(), "no `{field}` in {item}");
        }
        assert_eq!(item["file"], "tests/cli_check/mistakes.yaml");
    }
    let first = &items[0];
    assert_eq!(first["severity"], "error");
    assert_eq!(first["message"], "unknown operation `getIssueByKy`");
    assert_eq!(
        (first["line"].as_u64(), first["column"].as_u64()),
        (Some(8), Some(11))
    );
    assert_eq!(first["help"], "did you mean `getIssueByKey`?");
    assert_eq!(items[4]["severity"], "warning");
    // Each finding names the tool it belongs to, by its key in the file.
    let tools: Vec<&Value> = items.iter().map(|item| &item["tools"]).collect();
    assert_eq!(
        tools,
        [
            &json!(["get_issue"]),
            &json!(["list_issues"]),
            &json!(["list_issues"]),
            &json!(["list_issues"]),
            &json!(["list_projects"]),
        ]
    );
}

#[test]
fn json_format_gives_null_places_for_findings_about_a_mirrored_tool() {
    let run = mcpgen(&[
        "check",
        "tests/cli_check/bare-openapi.yaml",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0);
    let items = json_report(&run);
    assert_eq!(items.len(), 3);
    assert!(
        items
            .iter()
            .all(|i| i["line"].is_null() && i["column"].is_null() && i["severity"] == "warning")
    );
}

#[test]
fn json_format_of_a_clean_file_is_an_empty_list() {
    let run = mcpgen(&[
        "check",
        TRACKER,
        "-c",
        "specs/tracker/mcpgen.yaml",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0);
    assert!(json_report(&run).is_empty());
}

#[test]
fn colour_marks_errors_and_warnings_only_when_asked() {
    let run = check_fixture("mistakes", &["--color", "always"]);
    assert!(
        run.stderr
            .contains("\u{1b}[1;31merror\u{1b}[0m: unknown operation")
    );
    assert!(
        run.stderr
            .contains("\u{1b}[1;33mwarning\u{1b}[0m: the description")
    );
    let run = check_fixture("mistakes", &["--color", "never"]);
    assert!(!run.stderr.contains('\u{1b}'));
}

#[test]
fn a_spec_that_cannot_be_read_is_a_plain_error() {
    let run = mcpgen(&["check", "no/such/openapi.yaml"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    assert!(
        run.stderr.contains("no/such/openapi.yaml"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_curation_file_that_cannot_be_read_is_a_plain_error() {
    let run = mcpgen(&["check", TRACKER, "-c", "no/such/mcpgen.yaml"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .starts_with("error: no/such/mcpgen.yaml: cannot read the curation file"),
        "{}",
        run.stderr
    );
}

#[test]
fn budgets_are_checked_by_the_function_build_calls() {
    let curation = repo().join("tests/cli_check/budget.yaml");
    let (plan, _) = mcpgen::generate(
        &repo().join(TRACKER),
        Some(&curation),
        &mcpgen::Options::default(),
    )
    .expect("the budget fixture generates");
    let error =
        mcpgen::lint::check_budgets(&plan, Some(&curation)).expect_err("the budgets are exceeded");
    assert_eq!(error.diagnostics.len(), 2);
    assert!(error.rendered.contains("the heaviest: `tracker_get_issue`"));

    // The curated tracker fits; without a curation file, budgets never fail a build.
    let tracker = Path::new("specs/tracker/mcpgen.yaml");
    let (plan, _) = mcpgen::generate(
        &repo().join(TRACKER),
        Some(&repo().join(tracker)),
        &mcpgen::Options::default(),
    )
    .expect("the tracker generates");
    assert!(mcpgen::lint::check_budgets(&plan, Some(&repo().join(tracker))).is_ok());
    let heavy = repo().join("tests/cli_check/heavy-openapi.yaml");
    let (plan, _) =
        mcpgen::generate(&heavy, None, &mcpgen::Options::default()).expect("the mirror generates");
    assert!(mcpgen::lint::check_budgets(&plan, None).is_ok());
}
