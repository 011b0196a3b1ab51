//! The large real API descriptions that `scripts/large-specs` installs from registries at pinned
//! versions (GitHub REST from `@octokit/openapi`, and GitHub, Stripe and Kubernetes from the
//! `openapi-spec-validator` sdist) load and generate a crate each, with one tool per operation and
//! tool schemas of a bounded size (discovery mode, which zero-config gives them, is
//! tested in `tests/suite/discovery.rs`). Run through `scripts/test`, which sets
//! `MCPGEN_TEST_LARGE_SPECS`.

use std::path::PathBuf;

fn large_specs() -> PathBuf {
    match std::env::var_os("MCPGEN_TEST_LARGE_SPECS") {
        Some(dir) => PathBuf::from(dir),
        None => panic!(
            "MCPGEN_TEST_LARGE_SPECS is not set: run the tests through scripts/test, which installs the documents with scripts/large-specs"
        ),
    }
}

/// Generates `file` (under the large-specs folder) and checks its tools: the expected count, every
/// tool schema an object, none larger than `max_schema_bytes`.
fn generates(file: &str, operations: usize, max_schema_bytes: usize) {
    let path = large_specs().join(file);
    let options = mcpgen::Options {
        name: Some(format!("large-{}", file.split('.').next().unwrap_or(file))),
        // One tool per operation: every operation's schemas are checked (zero-config would give
        // discovery tools for a spec this size).
        no_discovery: true,
        ..Default::default()
    };
    let (plan, files) = mcpgen::generate(&path, None, &options)
        .unwrap_or_else(|e| panic!("{} does not generate: {e:#}", path.display()));
    assert_eq!(
        plan.tools.len(),
        operations,
        "{file}: one tool per operation"
    );
    assert!(
        files.iter().any(|f| f.path.ends_with("tools.rs")),
        "{file}: a crate is generated"
    );
    let mut largest = (0, String::new());
    for tool in &plan.tools {
        let definition = tool.definition();
        assert_eq!(
            definition["inputSchema"]["type"], "object",
            "{file}: {}",
            tool.name
        );
        for schema in ["inputSchema", "outputSchema"] {
            let size = definition[schema].to_string().len();
            if size > largest.0 {
                largest = (size, format!("{} {schema}", tool.name));
            }
        }
    }
    eprintln!(
        "{file}: {} tools, largest schema {} bytes ({})",
        plan.tools.len(),
        largest.0,
        largest.1
    );
    assert!(
        largest.0 <= max_schema_bytes,
        "{file}: the {} is {} bytes",
        largest.1,
        largest.0
    );
}

#[test]
fn github_rest_from_octokit_generates_1223_tools() {
    generates("github-rest.json", 1223, 200_000);
}

#[test]
fn github_from_the_validator_sdist_generates() {
    generates("github.yaml", 1078, 200_000);
}

#[test]
fn stripe_generates_with_bounded_schemas_although_its_objects_all_refer_to_each_other() {
    generates("stripe.yaml", 588, 200_000);
}

#[test]
fn kubernetes_generates() {
    generates("kubernetes.yaml", 1067, 200_000);
}

#[test]
fn stripe_generates_the_same_bytes_every_time_although_its_schemas_form_cycles() {
    // Which cyclic schema is measured first decides the sizes that choose `$defs`; that order
    // once came from a HashMap, and the output differed from one generation to the next.
    let path = large_specs().join("stripe.yaml");
    let generate = || {
        let (_, files) = mcpgen::generate(&path, None, &mcpgen::Options::default())
            .unwrap_or_else(|e| panic!("{} does not generate: {e:#}", path.display()));
        files
            .into_iter()
            .map(|file| (file.path, file.contents))
            .collect::<Vec<_>>()
    };
    let first = generate();
    let second = generate();
    assert_eq!(first.len(), second.len());
    for ((path, a), (_, b)) in first.iter().zip(&second) {
        assert!(a == b, "{path} differs between two generations");
    }
}

/// Where `rustfmt --check` (the generated crate's `rustfmt.toml`, as `cargo fmt --check` in the
/// crate runs it) would change `text`, the generated `path`: `Err` with its diff.
pub(crate) fn rustfmt_check(path: &str, text: &str) -> Result<(), String> {
    use std::io::Write;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let config = dir.path().join("rustfmt.toml");
    std::fs::write(&config, "edition = \"2024\"\nstyle_edition = \"2024\"\n")
        .map_err(|e| e.to_string())?;
    let mut child = std::process::Command::new("rustfmt")
        .arg("--check")
        .arg("--config-path")
        .arg(&config)
        .args(["--edition", "2024"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("rustfmt runs (rustup component add rustfmt)");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let output = std::thread::scope(|scope| {
        scope.spawn(move || stdin.write_all(text.as_bytes()));
        child.wait_with_output().expect("rustfmt finishes")
    });
    if output.status.success() {
        return Ok(());
    }
    let diff = String::from_utf8_lossy(&output.stdout);
    let shown: String = diff.lines().take(60).collect::<Vec<_>>().join("\n");
    Err(format!(
        "{path} is not as rustfmt lays it out:\n{shown}\n{}",
        String::from_utf8_lossy(&output.stderr)
    ))
}

/// The large files of the large specs' crates, whose per-operation items mcpgen writes directly
/// in rustfmt's layout instead of printing them and running rustfmt (`render::direct`), are what
/// rustfmt would make of them: a change to the writer that rustfmt would undo fails here.
#[test]
fn the_large_specs_rust_files_are_laid_out_as_rustfmt_lays_them_out() {
    for file in ["github-rest.json", "stripe.yaml", "kubernetes.yaml"] {
        let path = large_specs().join(file);
        for no_discovery in [false, true] {
            let options = mcpgen::Options {
                no_discovery,
                ..Default::default()
            };
            let (_, files) = mcpgen::generate(&path, None, &options)
                .unwrap_or_else(|e| panic!("{} does not generate: {e:#}", path.display()));
            for generated in files.iter().filter(|f| f.path.ends_with(".rs")) {
                if generated.path.starts_with("src/runtime") {
                    continue;
                }
                if let Err(problem) = rustfmt_check(&generated.path, &generated.contents) {
                    panic!("{file} (no_discovery: {no_discovery}): {problem}");
                }
            }
        }
    }
}
