//! Every committed generated crate compiles without warnings, passes clippy with warnings
//! denied, and passes its own tests. All of them share one target directory
//! (`target/generated`), so their dependencies build once.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn examples() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("generated-examples"))
        .expect("generated-examples/ exists")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.join("Cargo.toml").exists())
        .collect();
    dirs.sort();
    dirs
}

/// Runs cargo `args` on the crate in `dir`; fails the test with cargo's output otherwise.
fn cargo(dir: &Path, args: &[&str]) {
    let _one_at_a_time = crate::support::generated_target_lock();
    let (command, rest) = args.split_first().expect("a cargo command");
    let output = Command::new(env!("CARGO"))
        .arg(command)
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .args(rest)
        .env("CARGO_TARGET_DIR", root().join("target/generated"))
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "`cargo {}` failed for {}:\n{}",
        args.join(" "),
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn every_generated_example_is_clippy_clean_and_passes_its_own_tests() {
    let examples = examples();
    assert!(
        examples.len() >= 2,
        "expected the committed examples, found {examples:?}"
    );
    for dir in examples {
        cargo(
            &dir,
            &["clippy", "--quiet", "--all-targets", "--", "-D", "warnings"],
        );
        cargo(&dir, &["test", "--quiet"]);
    }
}

/// Copies the files of the directory `from` into `to`, folders and all.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder for the copy");
    for entry in std::fs::read_dir(from).expect("the folder reads") {
        let entry = entry.expect("a directory entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("the file copies");
        }
    }
}

/// `text` with the first `from` after `after` replaced by `to`; fails the test when either is
/// missing (the mutation would not be made).
fn mutate(text: &str, after: &str, from: &str, to: &str) -> String {
    let start = text
        .find(after)
        .unwrap_or_else(|| panic!("{after:?} is in the file"));
    let at = start
        + text[start..]
            .find(from)
            .unwrap_or_else(|| panic!("{from:?} follows {after:?}"));
    format!("{}{to}{}", &text[..at], &text[at + from.len()..])
}

/// One change made by hand to a generated file: in `file`, the first `from` after `after`
/// becomes `to`.
struct Mutation {
    file: &'static str,
    after: &'static str,
    from: &'static str,
    to: &'static str,
}

/// What `cargo test --test tools` printed for a copy of the committed example `example` with
/// `mutations` made, and the tests that failed, in the order of the summary. The copy is built
/// as the package `mutant` (its library keeps the name `library`, which the tests use), so that
/// its build in the shared target directory does not overwrite the example's.
fn mutant_tests(
    example: &str,
    library: &str,
    mutant: &str,
    mutations: &[Mutation],
) -> (String, Vec<String>) {
    let copy = tempfile::tempdir().expect("a temporary folder");
    let dir = copy.path().join(example);
    copy_dir(&root().join("generated-examples").join(example), &dir);
    for mutation in mutations {
        let path = dir.join(mutation.file);
        let text = std::fs::read_to_string(&path).expect("the file reads");
        let text = mutate(&text, mutation.after, mutation.from, mutation.to);
        std::fs::write(&path, text).expect("the file writes");
    }
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).expect("the manifest reads");
    let package = format!("name = \"{}\"", library.replace('_', "-"));
    assert!(
        text.contains("[lib]\n") && text.contains(&package),
        "{text}"
    );
    let text = text
        .replace(&package, &format!("name = \"{mutant}\""))
        .replace("[lib]\n", &format!("[lib]\nname = \"{library}\"\n"));
    std::fs::write(&manifest, text).expect("the manifest writes");

    let _one_at_a_time = crate::support::generated_target_lock();
    let output = Command::new(env!("CARGO"))
        .args(["test", "--quiet", "--test", "tools", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .args(["--", "--test-threads", "4"])
        .env("CARGO_TARGET_DIR", root().join("target/generated"))
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        !output.status.success(),
        "the broken crate's tests pass:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The summary lists the failed tests, one per line, after `failures:`.
    let failed: Vec<String> = stdout
        .rsplit_once("failures:\n")
        .map(|(_, list)| {
            list.lines()
                .map(str::trim)
                .take_while(|line| !line.starts_with("test result"))
                .filter(|line| !line.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    (stdout, failed)
}

/// A tool broken by hand in a generated crate (a wrong path segment in one, a body field dropped
/// in another) makes the crate's own tests fail, naming each broken tool, while the tools left
/// alone still pass: the tests check what the tools send, not only that they answer.
#[test]
fn a_generated_crates_own_tests_fail_for_a_tool_broken_by_hand() {
    let (stdout, failed) = mutant_tests(
        "tracker-mirror",
        "tracker_mirror_mcp",
        "tracker-mirror-mutant",
        &[
            Mutation {
                file: "src/client.rs",
                after: "pub async fn create_issue(",
                from: r#""issues"]"#,
                to: r#""issue"]"#,
            },
            Mutation {
                file: "src/client.rs",
                after: "pub async fn transition_issue(",
                from: "runtime::put(&mut body, \"transition_id\", &params.transition_id);",
                to: "",
            },
        ],
    );
    assert_eq!(
        failed,
        [
            "create_issue_sends_its_request_and_answers_in_its_schema",
            "transition_issue_sends_its_request_and_answers_in_its_schema"
        ],
        "{stdout}"
    );
    assert!(
        stdout.contains(r#"POST /v2/projects/01397d88-e45f-531a-abbd-1f79d5da3cbd/issue {"#),
        "the failure shows the request sent: {stdout}"
    );
    assert!(stdout.contains("9 passed; 2 failed"), "{stdout}");
}

/// A curated tool's template and a resolver's scope broken by hand (the search's label
/// qualifier misspelt; the labels of a new issue looked up in a repository named after its
/// owner) make the GitHub crate's own tests fail for those two tools: the tests write out the
/// query a template renders and the list each scoped resolver asks for.
#[test]
fn a_generated_crates_own_tests_fail_for_a_template_or_a_resolver_scope_broken_by_hand() {
    let (stdout, failed) = mutant_tests(
        "github-mcp",
        "github_mcp",
        "github-mutant",
        &[
            Mutation {
                file: "src/tools.rs",
                after: "pub mod github_search_issues {",
                from: r#""label:\"","#,
                to: r#""labels:\"","#,
            },
            Mutation {
                file: "src/tools.rs",
                after: "pub mod github_create_issue {",
                from: r#"("repo", arg_repo.clone())"#,
                to: r#"("repo", arg_owner.clone())"#,
            },
        ],
    );
    assert_eq!(
        failed,
        [
            "github_create_issue_sends_its_requests_and_answers_in_its_schema",
            "github_search_issues_sends_its_requests_and_answers_in_its_schema"
        ],
        "{stdout}"
    );
    assert!(
        stdout.contains("labels%3A%22bug%22"),
        "the failure shows the query sent: {stdout}"
    );
    assert!(
        stdout.contains("GET /repos/sample-owner/sample-owner/labels?"),
        "the failure shows the list asked for: {stdout}"
    );
    assert!(stdout.contains("9 passed; 2 failed"), "{stdout}");
}

/// `mcpgen build --runtime-crate VERSION`: the crate depends on the published `mcpgen-runtime`
/// with the features it uses instead of vendoring `src/runtime/`, and compiles clippy-clean
/// against it (the workspace's `runtime/` patched in for the crate, which is not published).
#[test]
fn a_crate_built_with_runtime_crate_depends_on_it_and_is_clippy_clean() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("tracker-mcp");
    let run = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .current_dir(root())
        .args([
            "build",
            "specs/tracker/openapi.yaml",
            "-c",
            "specs/tracker/mcpgen.yaml",
        ])
        .arg("-o")
        .arg(&out)
        .args(["--runtime-crate", "0.1.0"])
        .output()
        .expect("mcpgen runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(!out.join("src/runtime").exists(), "no vendored runtime");
    let manifest = std::fs::read_to_string(out.join("Cargo.toml")).expect("Cargo.toml");
    assert!(
        manifest.contains(
            "\nmcpgen-runtime = { version = \"0.1.0\", default-features = false, features = [\"curated\", \"server\", \"tls\"] }\n"
        ),
        "{manifest}"
    );
    assert!(!manifest.contains("[features]"), "{manifest}");
    let lib = std::fs::read_to_string(out.join("src/lib.rs")).expect("src/lib.rs");
    assert!(
        lib.contains("\npub use mcpgen_runtime as runtime;\n"),
        "{lib}"
    );
    let patch = format!(
        "patch.crates-io.mcpgen-runtime.path=\"{}\"",
        root().join("runtime").display()
    );
    cargo(
        &out,
        &[
            "clippy",
            "--quiet",
            "--all-targets",
            "--config",
            &patch,
            "--",
            "-D",
            "warnings",
        ],
    );
}
