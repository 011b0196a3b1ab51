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
