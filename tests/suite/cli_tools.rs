//! `mcpgen tools` as a user runs it: exactly what `tools/list` will return (the definitions the
//! generated server serves), as a table or as JSON, with token estimates that add up and stay
//! close to the real tokenizer. Outputs are pinned as golden files in `tests/cli_tools/`;
//! `UPDATE_GOLDEN=1 cargo test --test suite cli_tools::` rewrites them after a deliberate change.

use assert_cmd::Command;
use serde_json::Value;

use crate::support::cli::golden;
use crate::support::repo;

const TRACKER: &str = "specs/tracker/openapi.yaml";
const TRACKER_CURATION: &str = "specs/tracker/mcpgen.yaml";
const PETSTORE: &str = "tests/corpus/swagger-petstore-v3/openapi.yaml";
const PETSTORE_CURATION: &str = "specs/petstore/mcpgen.yaml";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `mcpgen args…` from the repository root.
fn mcpgen(args: &[&str]) -> Run {
    let output = Command::cargo_bin("mcpgen")
        .expect("the binary is built")
        .args(args)
        .current_dir(repo())
        .output()
        .expect("mcpgen runs");
    Run {
        code: output.status.code().expect("mcpgen exits with a code"),
        stdout: String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(output.stderr).expect("UTF-8 stderr"),
    }
}

/// `mcpgen tools … --format json`, parsed.
fn tools_json(spec: &str, curation: Option<&str>) -> Value {
    let mut args = vec!["tools", spec, "--format", "json"];
    if let Some(curation) = curation {
        args.extend(["-c", curation]);
    }
    let run = mcpgen(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("the output is JSON")
}

/// The definitions the library plans for `spec` (and `curation`): what the server will serve.
fn definitions(spec: &str, curation: Option<&str>) -> Vec<Value> {
    let curation = curation.map(|c| repo().join(c));
    let (plan, _) = mcpgen::generate(
        &repo().join(spec),
        curation.as_deref(),
        &mcpgen::Options::default(),
    )
    .unwrap_or_else(|e| panic!("{spec} generates: {e:#}"));
    plan.tools.iter().map(|tool| tool.definition()).collect()
}

#[test]
fn the_tracker_table_shows_names_annotations_parameters_and_tokens() {
    let run = mcpgen(&["tools", TRACKER, "-c", TRACKER_CURATION]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, "");
    golden("tests/cli_tools", "tracker.txt", &run.stdout);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 5, "a header, three tools and the total");
    let columns = |line: &str| {
        line.split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        columns(lines[0]),
        ["tool", "annotations", "parameters", "tokens"]
    );
    let search = columns(lines[1]);
    assert_eq!(
        search[..3],
        [
            "tracker_search_issues",
            "read-only closed-world",
            "project*, status, assignee, query, limit, response_format"
        ]
    );
    assert_eq!(columns(lines[2])[1], "additive closed-world");
    assert_eq!(
        columns(lines[3])[..3],
        [
            "tracker_change_issue_status",
            "destructive idempotent closed-world",
            "issue*, status*"
        ]
    );
    assert!(lines[4].starts_with("total (3 tools)"));
}

#[test]
fn the_tracker_mirror_table_has_one_row_per_operation() {
    let run = mcpgen(&["tools", TRACKER]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    golden("tests/cli_tools", "tracker_mirror.txt", &run.stdout);
    assert!(
        run.stdout
            .lines()
            .last()
            .is_some_and(|l| l.starts_with("total (10 tools)"))
    );
    assert!(
        run.stdout
            .contains("get_current_user  read-only               -"),
        "a tool without parameters shows `-`"
    );
}

#[test]
fn the_tracker_json_is_pinned() {
    let run = mcpgen(&["tools", TRACKER, "-c", TRACKER_CURATION, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    golden("tests/cli_tools", "tracker.json", &run.stdout);
}

#[test]
fn the_json_tools_are_exactly_the_definitions_the_server_serves() {
    for (spec, curation) in [
        (TRACKER, Some(TRACKER_CURATION)),
        (TRACKER, None),
        (PETSTORE, Some(PETSTORE_CURATION)),
        (PETSTORE, None),
    ] {
        let shown = tools_json(spec, curation);
        assert_eq!(
            shown["tools"],
            Value::Array(definitions(spec, curation)),
            "{spec} with {curation:?}"
        );
    }
}

#[test]
fn token_totals_are_the_sum_of_the_tools_estimates() {
    for (spec, curation) in [
        (TRACKER, Some(TRACKER_CURATION)),
        (TRACKER, None),
        (PETSTORE, Some(PETSTORE_CURATION)),
    ] {
        let shown = tools_json(spec, curation);
        let per_tool = shown["tokens"]["per_tool"]
            .as_object()
            .expect("per_tool is an object");
        let tools = shown["tools"].as_array().expect("tools is a list");
        assert_eq!(per_tool.len(), tools.len());
        for tool in tools {
            let name = tool["name"].as_str().expect("a name");
            assert_eq!(
                per_tool[name].as_u64(),
                Some(mcpgen::lint::token_estimate(tool) as u64),
                "{name}"
            );
        }
        let sum: u64 = per_tool.values().filter_map(Value::as_u64).sum();
        assert_eq!(shown["tokens"]["total"].as_u64(), Some(sum));

        // The table's total row says the same.
        let mut args = vec!["tools", spec];
        if let Some(curation) = curation {
            args.extend(["-c", curation]);
        }
        let table = mcpgen(&args).stdout;
        let total = table
            .lines()
            .last()
            .and_then(|l| l.split_whitespace().last())
            .expect("a total row");
        assert_eq!(total, sum.to_string());
    }
}

/// A spec, its curation file, and the real token count of each tool's definition.
type Measured<'a> = (&'a str, Option<&'a str>, &'a [(&'a str, usize)]);

#[test]
fn token_estimates_stay_close_to_the_cl100k_tokenizer() {
    // Counted with the real cl100k_base tokenizer on the compact JSON of each definition.
    let measured: &[Measured] = &[
        (
            TRACKER,
            Some(TRACKER_CURATION),
            &[
                ("tracker_search_issues", 302),
                ("tracker_create_issue", 192),
                ("tracker_change_issue_status", 158),
            ],
        ),
        (
            TRACKER,
            None,
            &[
                ("list_projects", 270),
                ("list_users", 267),
                ("get_current_user", 98),
                ("list_issues", 630),
                ("create_issue", 489),
                ("get_issue", 270),
                ("delete_issue", 123),
                ("get_issue_by_key", 299),
                ("list_transitions", 243),
                ("transition_issue", 377),
            ],
        ),
    ];
    for (spec, curation, counts) in measured {
        let shown = tools_json(spec, *curation);
        let mut real_total = 0;
        for (name, real) in *counts {
            let estimate = shown["tokens"]["per_tool"][name]
                .as_u64()
                .expect("an estimate") as f64;
            let error = (estimate - *real as f64).abs() / *real as f64;
            assert!(error < 0.15, "{name}: estimated {estimate}, really {real}");
            real_total += real;
        }
        let total = shown["tokens"]["total"].as_u64().expect("a total") as f64;
        let error = (total - real_total as f64).abs() / real_total as f64;
        assert!(
            error < 0.05,
            "{spec} with {curation:?}: estimated {total}, really {real_total}"
        );
    }
}

#[test]
fn a_closed_stdout_pipe_is_not_an_error() {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("mcpgen"))
        .args(["tools", TRACKER])
        .current_dir(repo())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mcpgen runs");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("mcpgen exits");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_curation_file_with_mistakes_is_reported_and_nothing_is_listed() {
    let run = mcpgen(&["tools", TRACKER, "-c", "tests/cli_check/mistakes.yaml"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains("error: unknown operation `getIssueByKy`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("tests/cli_check/mistakes.yaml:8:11"),
        "{}",
        run.stderr
    );
}
