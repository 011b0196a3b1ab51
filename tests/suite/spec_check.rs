//! `mcpgen check SPEC` checks the spec itself: what makes it invalid against its specification
//! (validated against the OpenAPI Initiative's schema), and what loading repaired, are warnings
//! with the file, line and column, in `--format json` too, and fail `--deny-warnings`. A finding
//! inside a file a `$ref` names is reported in that file, at its line and column. A pattern the
//! generated server cannot check is a warning of `check` and of `build`.

use assert_cmd::Command;
use serde_json::{Value, json};

use crate::support::repo;

/// Runs `mcpgen args…` from the repository root; (exit code, stdout, stderr).
fn mcpgen(args: &[&str]) -> (i32, String, String) {
    let output = Command::cargo_bin("mcpgen")
        .expect("the binary is built")
        .args(args)
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .output()
        .expect("mcpgen runs");
    (
        output.status.code().expect("mcpgen exits with a code"),
        String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        String::from_utf8(output.stderr).expect("UTF-8 stderr"),
    )
}

/// The findings of `check --format json` about the spec (those with a `pointer`).
fn spec_findings(stdout: &str) -> Vec<Value> {
    let report: Vec<Value> = serde_json::from_str(stdout).expect("the report is JSON");
    report
        .into_iter()
        .filter(|item| item.get("pointer").is_some())
        .collect()
}

const INVALID: &str = "tests/fixtures/load/invalid-spec/openapi.yaml";

#[test]
fn check_reports_what_makes_the_spec_invalid_at_its_line_and_column() {
    let (code, stdout, _) = mcpgen(&["check", INVALID, "--format", "json"]);
    assert_eq!(code, 0, "warnings alone do not fail the run");
    let warning = |line: u64, column: u64, pointer: &str, message: &str| {
        json!({
            "severity": "warning",
            "message": message,
            "file": INVALID,
            "line": line,
            "column": column,
            "pointer": pointer,
            "help": null,
            "tools": [],
        })
    };
    assert_eq!(
        spec_findings(&stdout),
        [
            warning(
                4,
                1,
                "/info",
                "not valid OpenAPI: the required field `version` is missing"
            ),
            warning(
                11,
                11,
                "/paths/~1users~1{id}/get/parameters/0",
                "not valid OpenAPI: the required field `required` is missing"
            ),
            warning(
                16,
                11,
                "/paths/~1users~1{id}/get/parameters/1/required",
                "not valid OpenAPI: the value is not of type \"boolean\""
            ),
            warning(
                23,
                7,
                "/paths/~1users/get/operationId",
                "not valid OpenAPI: operationId `getUser` is also the operationId of `GET /users/{id}`; each operation's must be unique"
            ),
        ]
    );
}

#[test]
fn the_text_report_names_each_spec_warning_with_file_line_and_column() {
    let (_, _, stderr) = mcpgen(&["check", INVALID]);
    assert!(
        stderr.contains(&format!(
            "warning: {INVALID}:4:1 at /info: not valid OpenAPI: the required field `version` is missing\n"
        )),
        "{stderr}"
    );
}

#[test]
fn a_spec_warning_fails_check_with_deny_warnings() {
    // Nothing else in this document is worth a warning: the spec's own finding decides.
    let spec = "tests/fixtures/load/invalid-spec/no-version.yaml";
    let (code, stdout, _) = mcpgen(&["check", spec, "--format", "json"]);
    assert_eq!(code, 0);
    let report: Vec<Value> = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(report.len(), 1, "{stdout}");
    assert_eq!(report[0]["pointer"], "/info");
    let (code, _, _) = mcpgen(&["check", spec, "--format", "json", "--deny-warnings"]);
    assert_eq!(code, 1);
    let (code, _, stderr) = mcpgen(&["check", spec, "--deny-warnings"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("the required field `version` is missing"),
        "{stderr}"
    );
}

#[test]
fn a_valid_spec_has_no_spec_findings() {
    let (code, stdout, _) = mcpgen(&[
        "check",
        "specs/tracker/openapi.yaml",
        "-c",
        "specs/tracker/mcpgen.yaml",
        "--format",
        "json",
        "--deny-warnings",
    ]);
    assert_eq!(spec_findings(&stdout), Vec::<Value>::new());
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn build_prints_the_spec_warnings_and_still_builds() {
    let out = tempfile::tempdir().expect("a temporary folder");
    let target = out.path().join("crate");
    let (code, _, stderr) = mcpgen(&[
        "build",
        "tests/fixtures/load/invalid-spec/no-version.yaml",
        "-o",
        target.to_str().expect("UTF-8 path"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(
            "warning: tests/fixtures/load/invalid-spec/no-version.yaml:3:1 at /info: not valid OpenAPI: the required field `version` is missing"
        ),
        "{stderr}"
    );
    assert!(target.join("Cargo.toml").exists());
}

#[test]
fn a_warning_inside_an_external_file_names_that_file_and_its_line_and_column() {
    let spec = "tests/fixtures/load/external-positions/openapi.yaml";
    let (code, stdout, _) = mcpgen(&["check", spec, "--format", "json"]);
    assert_eq!(code, 0);
    assert_eq!(
        spec_findings(&stdout),
        [json!({
            "severity": "warning",
            "message": "`type: user` is not a JSON Schema type (null, boolean, object, array, number, string or integer); dropped, so any value is accepted",
            "file": "tests/fixtures/load/external-positions/parameters.yaml",
            "line": 7,
            "column": 5,
            "pointer": "/id/schema/type",
            "help": null,
            "tools": [],
        })]
    );
}

#[test]
fn an_error_inside_an_external_file_names_that_file_and_its_line_and_column() {
    let spec = "tests/fixtures/load/external-error/openapi.yaml";
    let (code, stdout, _) = mcpgen(&["check", spec, "--format", "json"]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(
        report,
        json!([{
            "severity": "error",
            "message": "parameter `id` has `in: body`; use path, query, header or cookie",
            "file": "tests/fixtures/load/external-error/parameters.yaml",
            "line": 4,
            "column": 3,
            "pointer": "/id/in",
            "help": null,
            "tools": [],
        }])
    );
    let (code, _, stderr) = mcpgen(&["build", spec, "-o", "/nonexistent/never-written"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(
            "tests/fixtures/load/external-error/parameters.yaml:4:3 at /id/in: parameter `id` has `in: body`"
        ),
        "{stderr}"
    );
}

const UNCHECKED: &str = "tests/fixtures/load/unchecked-pattern/openapi.yaml";
const UNCHECKED_CURATION: &str = "tests/fixtures/load/unchecked-pattern/mcpgen.yaml";

/// The help of a warning about a pattern the server cannot check.
const UNCHECKED_HELP: &str = "the server reads patterns with `regex-lite`, which has no look-around, backreferences or Unicode classes; write the pattern in the spec without them if it can be";

/// A pattern JSON Schema validators read but the server's checker cannot (a look-ahead) is a
/// warning of `check` that names the tool, and of `build`, which still writes the crate with the
/// pattern in the published schema for the clients.
#[test]
fn a_pattern_the_server_cannot_read_is_a_warning_naming_the_tool_and_stays_published() {
    let message = |tool: &str| {
        format!(
            "the server cannot check the pattern \"^(?!admin$)[a-z]+$\" of the input schema of `{tool}` (look-around is not supported); it checks the rest of that schema"
        )
    };
    let (code, stdout, _) = mcpgen(&["check", UNCHECKED, "--format", "json"]);
    assert_eq!(code, 0, "warnings alone do not fail the run");
    let report: Value = serde_json::from_str(&stdout).expect("the report is JSON");
    assert_eq!(
        report,
        json!([{
            "severity": "warning",
            "message": message("get_user"),
            "file": UNCHECKED,
            "line": null,
            "column": null,
            "help": UNCHECKED_HELP,
            "tools": [],
        }])
    );
    let (code, stdout, _) = mcpgen(&[
        "check",
        UNCHECKED,
        "-c",
        UNCHECKED_CURATION,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stdout}");
    let report: Value = serde_json::from_str(&stdout).expect("the report is JSON");
    assert_eq!(
        report,
        json!([{
            "severity": "warning",
            "message": message("find_user"),
            "file": UNCHECKED_CURATION,
            "line": 4,
            "column": 3,
            "help": UNCHECKED_HELP,
            "tools": ["find_user"],
        }])
    );
    let (code, _, stderr) = mcpgen(&["check", UNCHECKED, "--deny-warnings"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains(&message("get_user")), "{stderr}");

    let out = tempfile::tempdir().expect("a temporary folder");
    let target = out.path().join("crate");
    let (code, _, stderr) = mcpgen(&[
        "build",
        UNCHECKED,
        "-o",
        target.to_str().expect("UTF-8 path"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("warning:"))
        .collect();
    assert_eq!(
        warnings,
        [format!("warning: {UNCHECKED}: {}", message("get_user"))]
    );
    let tools: Value = serde_json::from_str(
        &std::fs::read_to_string(target.join("tests/tools.json")).expect("tests/tools.json"),
    )
    .expect("tests/tools.json is JSON");
    let published = tools.pointer("/tools/0/inputSchema/properties/handle/pattern");
    assert_eq!(published, Some(&json!("^(?!admin$)[a-z]+$")), "{tools}");
}

/// When another tool of the curation file has a mistake, the tools without one are still
/// checked, their unreadable patterns included.
#[test]
fn a_pattern_the_server_cannot_read_is_told_beside_another_tools_mistake() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let curation = dir.path().join("mcpgen.yaml");
    let text = std::fs::read_to_string(repo().join(UNCHECKED_CURATION)).expect("the curation")
        + "  broken:\n    description: >-\n      A tool that calls an operation the spec does not have. Returns nothing at all.\n    call: noSuchOperation\n";
    std::fs::write(&curation, text).expect("the curation is written");
    let curation = curation.to_str().expect("UTF-8 path");
    let (code, stdout, _) = mcpgen(&["check", UNCHECKED, "-c", curation, "--format", "json"]);
    assert_eq!(code, 1, "{stdout}");
    let report: Vec<Value> = serde_json::from_str(&stdout).expect("the report is JSON");
    let summary: Vec<(&str, &str, &Value)> = report
        .iter()
        .map(|item| {
            (
                item["severity"].as_str().expect("a severity"),
                item["message"].as_str().expect("a message"),
                &item["tools"],
            )
        })
        .collect();
    assert_eq!(summary.len(), 2, "{stdout}");
    assert_eq!(
        (summary[0].0, summary[0].1, summary[0].2),
        (
            "warning",
            "the server cannot check the pattern \"^(?!admin$)[a-z]+$\" of the input schema of `find_user` (look-around is not supported); it checks the rest of that schema",
            &json!(["find_user"]),
        ),
        "{stdout}"
    );
    assert_eq!(
        (summary[1].0, summary[1].2),
        ("error", &json!(["broken"])),
        "{stdout}"
    );
}
