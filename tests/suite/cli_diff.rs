//! `mcpgen diff OLD NEW [-c FILE]` as a user runs it, on two versions of a small notes API
//! (`tests/cli_diff/v1.yaml`, `v2.yaml`: one change of each kind) and a curation file that v2
//! breaks in three places: text and JSON pinned as golden files (`UPDATE_GOLDEN=1` rewrites
//! them), exit codes 0 (nothing breaks), 2 (something does) and 1 (errors).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use crate::support::cli::golden;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cli_diff")
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `mcpgen diff args…` in `dir`.
fn diff_in(dir: &Path, args: &[&str]) -> Run {
    let output = Command::cargo_bin("mcpgen")
        .expect("the binary is built")
        .arg("diff")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("mcpgen runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("UTF-8"),
    }
}

/// Runs `mcpgen diff args…` among the fixtures, so messages name them as `v1.yaml`.
fn diff(args: &[&str]) -> Run {
    diff_in(&fixtures(), args)
}

fn kinds(json: &Value) -> BTreeSet<String> {
    json["changes"]
        .as_array()
        .expect("changes is a list")
        .iter()
        .map(|c| c["kind"].as_str().expect("a kind").to_string())
        .collect()
}

#[test]
fn every_kind_of_change_between_two_versions_as_text() {
    let run = diff(&["v1.yaml", "v2.yaml"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(run.stderr, "");
    golden("tests/cli_diff", "v1-v2.txt", &run.stdout);
    for line in run.stdout.lines().take_while(|l| !l.is_empty()) {
        assert!(
            line.starts_with("BREAKING  ") || line.starts_with("ok        "),
            "{line}"
        );
    }
}

#[test]
fn every_kind_of_change_between_two_versions_as_json() {
    let run = diff(&["v1.yaml", "v2.yaml", "--format", "json"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    golden("tests/cli_diff", "v1-v2.json", &run.stdout);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(json["breaking"], Value::Bool(true));
    for change in json["changes"].as_array().unwrap() {
        let keys: Vec<&String> = change.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["tool", "kind", "detail", "breaking"]);
    }
}

#[test]
fn curation_references_the_new_version_breaks_are_breaking_changes_of_their_tools() {
    let run = diff(&["v1.yaml", "v2.yaml", "-c", "mcpgen.yaml"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(run.stderr, "");
    golden("tests/cli_diff", "v1-v2-curated.txt", &run.stdout);
    for tool in ["archive", "recent", "note"] {
        assert!(
            run.stdout.lines().any(|l| l.starts_with(&format!("BREAKING  {tool} ")) && l.contains("mcpgen.yaml:")),
            "{tool}:\n{}",
            run.stdout
        );
    }
    // The one-to-one tools of the operations the broken tools called are artefacts, not news.
    assert!(!run.stdout.contains("list_notes"), "{}", run.stdout);
    assert!(!run.stdout.contains("archive_note"), "{}", run.stdout);

    let run = diff(&[
        "v1.yaml",
        "v2.yaml",
        "-c",
        "mcpgen.yaml",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    golden("tests/cli_diff", "v1-v2-curated.json", &run.stdout);
}

#[test]
fn the_fixtures_cover_every_kind_of_change() {
    let mut seen = BTreeSet::new();
    for args in [
        &["v1.yaml", "v2.yaml", "--format", "json"][..],
        &[
            "v1.yaml",
            "v2.yaml",
            "-c",
            "mcpgen.yaml",
            "--format",
            "json",
        ],
    ] {
        let run = diff(args);
        seen.extend(kinds(&serde_json::from_str(&run.stdout).expect("JSON")));
    }
    let all: BTreeSet<String> = [
        "tool_added",
        "tool_removed",
        "tool_renamed",
        "parameter_added",
        "parameter_removed",
        "parameter_required",
        "parameter_optional",
        "parameter_type",
        "enum_values_removed",
        "enum_values_added",
        "output_schema",
        "annotations",
        "description",
        "curation",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(seen, all);
}

#[test]
fn the_same_version_twice_has_no_changes_and_exits_0() {
    let run = diff(&["v1.yaml", "v1.yaml", "-c", "mcpgen.yaml"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "no tool-level changes\n");
    let run = diff(&["v2.yaml", "v2.yaml", "--format", "json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(json, serde_json::json!({"changes": [], "breaking": false}));
}

#[test]
fn changes_that_break_nothing_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = std::fs::read_to_string(fixtures().join("v1.yaml")).unwrap();
    let limit = "        - { name: limit, in: query, schema: { type: integer } }\n";
    assert!(v1.contains(limit));
    let more = v1
        .replace(
            limit,
            &format!("{limit}        - {{ name: sort, in: query, schema: {{ type: string }} }}\n"),
        )
        .replace(
            "enum: [open, archived, deleted]",
            "enum: [open, archived, deleted, draft]",
        );
    std::fs::write(dir.path().join("v1.yaml"), &v1).unwrap();
    std::fs::write(dir.path().join("v1.1.yaml"), more).unwrap();
    let run = diff_in(dir.path(), &["v1.yaml", "v1.1.yaml"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "ok        list_notes  parameter `status` also accepts `draft`\n\
         ok        list_notes  parameter `sort` added (optional, string)\n\
         \n\
         2 changes in 1 tool: 0 breaking\n"
    );
    // The other way round, the same changes break.
    let run = diff_in(dir.path(), &["v1.1.yaml", "v1.yaml"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stdout
            .contains("BREAKING  list_notes  parameter `sort` removed"),
        "{}",
        run.stdout
    );
}

#[test]
fn errors_exit_1() {
    let run = diff(&["v1.yaml", "missing.yaml"]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr
            .starts_with("error: missing.yaml: cannot read the file"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");

    // The curation file must hold against the old version.
    let run = diff(&["v2.yaml", "v1.yaml", "-c", "mcpgen.yaml"]);
    assert_eq!(run.code, Some(1));
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("unknown operation `archiveNote`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.trim_end().ends_with(
            "note: the curation file must check against the old version (v2.yaml) for `mcpgen diff` to compare"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn a_curation_file_broken_outside_its_tools_is_reported_without_comparing_tools() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["v1.yaml", "v2.yaml"] {
        std::fs::copy(fixtures().join(name), dir.path().join(name)).unwrap();
    }
    std::fs::write(
        dir.path().join("hide.yaml"),
        "operations:\n  hide: [deleteNote]\n",
    )
    .unwrap();
    let run = diff_in(dir.path(), &["v1.yaml", "v2.yaml", "-c", "hide.yaml"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with("BREAKING  (curation)  hide.yaml:2:10: unknown operation `deleteNote`"),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stdout
            .lines()
            .filter(|l| l.starts_with("BREAKING") || l.starts_with("ok"))
            .count(),
        1
    );
    assert!(
        run.stderr.contains("the tools were not compared"),
        "{}",
        run.stderr
    );
}
