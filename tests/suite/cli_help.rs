//! `--help` of every command, pinned as golden text (`tests/cli_help/*.txt`); each shows examples.
//! `UPDATE_GOLDEN=1 cargo test --test suite cli_help::` rewrites the files after a deliberate
//! change.

use std::path::PathBuf;

use assert_cmd::Command;

const COMMANDS: &[&str] = &[
    "",
    "build",
    "check",
    "tools",
    "diff",
    "init",
    "schema",
    "completions",
];

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cli_help")
        .join(format!(
            "{}.txt",
            if name.is_empty() { "mcpgen" } else { name }
        ))
}

#[test]
fn every_command_has_help_with_examples_pinned_as_golden_text() {
    for command in COMMANDS {
        let mut cmd = Command::cargo_bin("mcpgen").expect("the binary is built");
        if !command.is_empty() {
            cmd.arg(command);
        }
        let output = cmd
            .arg("--help")
            .env("COLUMNS", "100")
            .output()
            .expect("mcpgen runs");
        assert!(output.status.success(), "`mcpgen {command} --help` failed");
        let text = String::from_utf8(output.stdout).expect("help is UTF-8");
        let path = golden(command);
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, &text).expect("the golden file is written");
            continue;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} is missing; run with UPDATE_GOLDEN=1", path.display()));
        assert_eq!(
            text,
            expected,
            "`mcpgen {command} --help` changed; UPDATE_GOLDEN=1 rewrites {}",
            path.display()
        );
        if *command != "schema" {
            assert!(
                text.contains("Examples:"),
                "`mcpgen {command} --help` shows no examples"
            );
        }
    }
}

#[test]
fn a_closed_stdout_pipe_is_not_an_error() {
    // `mcpgen schema | head -1`: the reader goes away after one line.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("mcpgen"))
        .arg("schema")
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
fn shell_completions_name_every_command() {
    let output = Command::cargo_bin("mcpgen")
        .expect("the binary is built")
        .args(["completions", "bash"])
        .output()
        .expect("mcpgen runs");
    assert!(output.status.success());
    let script = String::from_utf8(output.stdout).expect("UTF-8");
    for command in COMMANDS.iter().filter(|c| !c.is_empty()) {
        assert!(
            script.contains(command),
            "the bash completion lacks `{command}`"
        );
    }
}

#[test]
fn a_large_spec_shows_progress_on_stderr_and_a_small_one_does_not() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Over a megabyte of description: a spec large enough that each stage takes a moment.
    let padding = "An operation described at great length. ".repeat(30_000);
    let spec = format!(
        "openapi: 3.0.3\ninfo: {{ title: Big, version: '1' }}\npaths:\n  /things:\n    get:\n      operationId: listThings\n      description: {padding}\n      responses:\n        '204': {{ description: None. }}\n"
    );
    let large = dir.path().join("large.yaml");
    std::fs::write(&large, spec).expect("the spec is written");
    let output = Command::cargo_bin("mcpgen")
        .expect("the binary is built")
        .args(["tools", "--color", "never"])
        .arg(&large)
        .output()
        .expect("mcpgen runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("loading "),
        "no progress for a large spec: {stderr:?}"
    );

    let quiet = Command::cargo_bin("mcpgen")
        .expect("the binary is built")
        .args(["tools", "-q"])
        .arg(&large)
        .output()
        .expect("mcpgen runs");
    assert!(quiet.stderr.is_empty(), "-q shows no progress");

    let small = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("specs/tracker/openapi.yaml");
    let output = Command::cargo_bin("mcpgen")
        .expect("the binary is built")
        .arg("tools")
        .arg(&small)
        .output()
        .expect("mcpgen runs");
    assert!(
        output.stderr.is_empty(),
        "a small spec needs no progress: {:?}",
        String::from_utf8_lossy(&output.stderr)
    );
}
