//! The `mcpgen` binary as a user runs it: what it says and leaves behind on bad input (messages
//! pinned as golden text), what `build` writes, and a fixture of cursed names whose generated
//! crate must still compile.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::cli::{mcpgen, snapshot};
use crate::support::repo;

fn fixture(name: &str) -> PathBuf {
    repo().join("tests/fixtures").join(name)
}

/// What the library generates for `spec` with default options and no curation file.
fn generate(spec: &Path) -> (mcpgen::plan::Plan, Vec<mcpgen::File>) {
    mcpgen::generate(spec, None, &mcpgen::Options::default())
        .unwrap_or_else(|e| panic!("{} generates: {e:#}", spec.display()))
}

fn tracker_spec() -> PathBuf {
    repo().join("specs/tracker/openapi.yaml")
}

/// The names directly in `dir`.
fn entries(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .expect("a readable directory")
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Bad input: one line on stderr, exit code 1, and nothing written

/// Runs `mcpgen build FILE -o OUT` on a document whose bytes are `contents` (no file at all when
/// `None`), once into a directory that does not exist and once into one that holds a file, and
/// checks the failure contract: exit code 1, exactly `expected` on stderr (one line starting with
/// `error: `), nothing on stdout, no panic, and no output directory created or changed.
fn assert_refused(file: &str, contents: Option<&[u8]>, expected: &str) {
    assert!(
        expected.starts_with("error: ") && !expected.contains('\n'),
        "a bad golden: {expected}"
    );
    let dir = tempfile::tempdir().expect("a temporary directory");
    if let Some(contents) = contents {
        std::fs::write(dir.path().join(file), contents).expect("the input is written");
    }
    let existing = dir.path().join("existing");
    std::fs::create_dir_all(existing.join("src")).unwrap();
    std::fs::write(existing.join("keep.txt"), "mine\n").unwrap();
    std::fs::write(existing.join("src/lib.rs"), "// mine\n").unwrap();
    let before = snapshot(&existing);
    let mut expected_entries: BTreeSet<String> = entries(dir.path());

    for out in ["fresh", "existing"] {
        let run = mcpgen(dir.path(), &["build", file, "-o", out]);
        assert!(
            !run.stderr.contains("panicked"),
            "mcpgen panicked on {file}:\n{}",
            run.stderr
        );
        assert_eq!(
            run.code,
            Some(1),
            "{file} -o {out}: stderr was {}",
            run.stderr
        );
        assert_eq!(run.stdout, "", "{file} -o {out}: nothing on stdout");
        assert_eq!(
            run.stderr.lines().count(),
            1,
            "{file} -o {out}: one line:\n{}",
            run.stderr
        );
        assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
        assert_eq!(run.stderr, format!("{expected}\n"), "{file} -o {out}");
        assert!(
            !dir.path().join("fresh").exists(),
            "{file}: the output directory was created"
        );
        assert_eq!(
            snapshot(&existing),
            before,
            "{file}: the existing output was changed"
        );
        expected_entries.retain(|e| e != "fresh");
        assert_eq!(
            entries(dir.path()),
            expected_entries,
            "{file}: something was left behind"
        );
    }
}

#[test]
fn text_that_is_not_yaml_or_json_is_refused() {
    assert_refused(
        "broken.yaml",
        Some(b"{{{"),
        "error: broken.yaml: not valid JSON: key must be a string at line 1 column 2",
    );
    assert_refused(
        "broken-flow.yaml",
        Some(b"openapi: 3.0.3\ninfo: [1, 2\npaths: }\n"),
        "error: broken-flow.yaml: not valid YAML or JSON: did not find expected ',' or ']' at line 3 column 6, while parsing a flow sequence at line 2 column 7",
    );
}

#[test]
fn yaml_that_is_not_openapi_is_refused() {
    assert_refused(
        "config.yaml",
        Some(b"a: 1\n"),
        "error: config.yaml at /: not an OpenAPI document: it has no `openapi` version field \
         (`openapi: 3.0.x` or `3.1.x`, or `swagger: \"2.0\"` for Swagger 2.0)",
    );
    assert_refused(
        "list.yaml",
        Some(b"- a\n- b\n"),
        "error: list.yaml at /: not an OpenAPI document: the top level is not a mapping",
    );
}

#[test]
fn swagger_versions_other_than_2_0_are_refused_naming_the_version() {
    assert_refused(
        "swagger.yaml",
        Some(b"swagger: '1.2'\ninfo:\n  title: Pets\n  version: 1.0.0\npaths: {}\n"),
        r#"error: swagger.yaml at /swagger: Swagger version "1.2" is not supported; mcpgen reads Swagger 2.0, OpenAPI 3.0.x and 3.1.x"#,
    );
}

#[test]
fn openapi_3_2_is_refused_naming_the_version() {
    assert_refused(
        "future.json",
        Some(br#"{"openapi": "3.2.0", "info": {"title": "Pets", "version": "1"}, "paths": {}}"#),
        r#"error: future.json:1:2 at /openapi: OpenAPI version "3.2.0" is not supported; mcpgen reads OpenAPI 3.0.x and 3.1.x"#,
    );
}

#[test]
fn a_dangling_ref_is_refused_at_the_referring_pointer() {
    let contents = std::fs::read(fixture("dangling-ref.yaml")).expect("the fixture");
    assert_refused(
        "dangling.yaml",
        Some(&contents),
        "error: dangling.yaml:15:15 at /paths/~1pets/get/responses/200/content/application~1json/schema: `$ref: #/components/schemas/Pet` points to nothing in this document",
    );
}

#[test]
fn a_missing_file_is_refused_naming_it() {
    let expected = if cfg!(unix) {
        "error: missing.yaml: cannot read the file: No such file or directory (os error 2)"
    } else {
        "error: missing.yaml: cannot read the file: The system cannot find the file specified. (os error 2)"
    };
    assert_refused("missing.yaml", None, expected);
}

#[test]
fn a_non_utf8_file_is_refused_mentioning_utf8() {
    assert_refused(
        "latin1.yaml",
        Some(b"openapi: 3.0.3\ninfo:\n  title: Caf\xe9\n  version: '1'\npaths: {}\n"),
        "error: latin1.yaml: the file is not UTF-8 text (invalid byte at offset 33); save it as UTF-8",
    );
}

// ---------------------------------------------------------------------------------------------
// build

/// The files `build` must write, whatever else it may add.
const CRATE_FILES: &[&str] = &[
    ".dockerignore",
    ".gitignore",
    "Cargo.toml",
    "Dockerfile",
    "README.md",
    "server.json",
    "src/client.rs",
    "src/lib.rs",
    "src/main.rs",
    "src/runtime/mod.rs",
    "src/runtime/oauth/resource.rs",
    "src/runtime/server.rs",
    "src/tools.rs",
];

#[test]
fn build_writes_the_tracker_crate_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tracker");
    let spec = tracker_spec();
    let run = mcpgen(
        dir.path(),
        &["build", spec.to_str().unwrap(), "-o", out.to_str().unwrap()],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        format!("wrote tracker-mcp (10 tools) to {}\n", out.display())
    );

    let written = snapshot(&out);
    for file in CRATE_FILES {
        assert!(
            written.contains_key(*file),
            "{file} is missing; written: {:?}",
            written.keys()
        );
    }
    let (_, rendered) = generate(&spec);
    let rendered: BTreeMap<String, Vec<u8>> = mcpgen::write::with_manifest(&rendered)
        .into_iter()
        .map(|f| (f.path, f.contents.into_bytes()))
        .collect();
    assert_eq!(written, rendered, "build writes exactly the rendered files");
    assert_eq!(
        entries(dir.path()),
        BTreeSet::from(["tracker".to_string()]),
        "no staging left"
    );
}

#[test]
fn build_writes_to_name_mcp_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let spec = tracker_spec();
    let run = mcpgen(dir.path(), &["build", spec.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stderr, "wrote tracker-mcp (10 tools) to tracker-mcp\n");
    assert!(dir.path().join("tracker-mcp/Cargo.toml").is_file());
}

#[test]
fn name_option_names_the_crate_and_its_environment() {
    let dir = tempfile::tempdir().unwrap();
    let spec = tracker_spec();
    let run = mcpgen(
        dir.path(),
        &[
            "build",
            spec.to_str().unwrap(),
            "--name",
            "billing",
            "-o",
            "out",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stderr, "wrote billing-mcp (10 tools) to out\n");
    let written = snapshot(&dir.path().join("out"));
    let text = |file: &str| String::from_utf8(written[file].clone()).expect("UTF-8");
    assert!(
        text("Cargo.toml").contains("name = \"billing-mcp\""),
        "{}",
        text("Cargo.toml")
    );
    let main = text("src/main.rs");
    assert!(main.contains("BILLING_BASE_URL"), "{main}");
    assert!(main.contains("BILLING_TOKEN"), "{main}");
    assert!(!main.contains("TRACKER_"), "{main}");
}

#[test]
fn a_name_without_letters_or_digits_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let spec = tracker_spec();
    let run = mcpgen(
        dir.path(),
        &["build", spec.to_str().unwrap(), "--name", "!!", "-o", "out"],
    );
    assert_eq!(run.code, Some(1));
    assert_eq!(
        run.stderr,
        "error: --name \"!!\" has no letters or digits to make a name of\n"
    );
    assert!(!dir.path().join("out").exists());
}

/// A server named by a title or `--name` that starts with a digit, or that has nothing but
/// symbols, builds: a digit-leading name panicked in `proc_macro2::Ident::new` (exit 101), as
/// `info.title: 0001-AllOffProps` of swagger-parser's suite did (issue 23).
#[test]
fn digit_leading_and_symbol_only_names_build_without_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let package = |out: &str| {
        let manifest =
            std::fs::read_to_string(dir.path().join(out).join("Cargo.toml")).expect("a Cargo.toml");
        manifest
            .lines()
            .find(|line| line.starts_with("name = "))
            .expect("a package name")
            .to_string()
    };
    let titles = [
        ("0001-AllOffProps", "name = \"api-0001alloffprops-mcp\""),
        ("9 lives", "name = \"lives-mcp\""),
        ("!!!", "name = \"api-mcp\""),
        ("名前", "name = \"api-mcp\""),
    ];
    for (n, (title, expected)) in titles.into_iter().enumerate() {
        let spec = dir.path().join(format!("spec{n}.yaml"));
        std::fs::write(
            &spec,
            format!(
                "openapi: 3.0.3\ninfo: {{ title: {title:?}, version: '1' }}\npaths:\n  /a:\n    get:\n      operationId: getA\n      responses: {{ '204': {{ description: none }} }}\n"
            ),
        )
        .unwrap();
        let out = format!("out{n}");
        let run = mcpgen(dir.path(), &["build", spec.to_str().unwrap(), "-o", &out]);
        assert_eq!(run.code, Some(0), "{title:?}: {}", run.stderr);
        assert_eq!(package(&out), expected, "{title:?}");
    }
    let spec = tracker_spec();
    let run = mcpgen(
        dir.path(),
        &[
            "build",
            spec.to_str().unwrap(),
            "--name",
            "9lives",
            "-o",
            "named",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(package("named"), "name = \"api-9lives-mcp\"");
}

// ---------------------------------------------------------------------------------------------
// Cursed names

fn cursed() -> (mcpgen::plan::Plan, Vec<mcpgen::File>) {
    generate(&fixture("cursed-names.yaml"))
}

fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[test]
fn cursed_operation_ids_give_valid_unique_tool_names() {
    let (plan, _) = cursed();
    let names: Vec<&str> = plan.tools.iter().map(|t| t.name.as_str()).collect();
    for name in &names {
        assert!(
            is_valid_tool_name(name),
            "{name:?} is not a valid tool name"
        );
    }
    let unique: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(unique.len(), names.len(), "tool names repeat: {names:?}");
    assert_eq!(
        names[..7],
        [
            "type",
            "self",
            "3d",
            "1",
            "foo_bar",
            "foo_bar_2",
            "pets_get_by_id"
        ],
        "{names:?}"
    );
    let long = names[7];
    assert!(
        long.starts_with("this_operation_id_is_far_too_long"),
        "{long}"
    );
    assert_eq!(names.len(), 8);
}

#[test]
fn cursed_parameter_names_keep_the_api_spelling_in_the_tool_schema() {
    let (plan, _) = cursed();
    let properties = |tool: usize| -> Vec<String> {
        plan.tools[tool].input_schema["properties"]
            .as_object()
            .expect("properties")
            .keys()
            .cloned()
            .collect()
    };
    assert_eq!(properties(0), ["type", "ref", "self", "foo-bar", "foo_bar"]);
    assert_eq!(properties(1), ["3d", "+1", "kind"]);
    let idents: BTreeSet<&str> = plan.operations[0]
        .fields
        .iter()
        .map(|f| f.ident.as_str())
        .collect();
    assert_eq!(idents.len(), 5, "distinct Rust fields: {idents:?}");
}

#[test]
fn cursed_descriptions_stay_text() {
    let (plan, files) = cursed();
    let description = plan.tools[0].description.as_deref().unwrap_or_default();
    assert!(
        description.contains("```\nfn main() { panic!(\"doctest\") }\n```"),
        "{description}"
    );
    assert!(
        description.contains("\"#quoted\"# text */ /* {} {{braces}}"),
        "{description}"
    );
    for file in files.iter().filter(|f| f.path.ends_with(".rs")) {
        assert!(
            !file
                .contents
                .lines()
                .any(|l| l.trim_start().starts_with("fn main() { panic!")),
            "{}: a description became code",
            file.path
        );
    }
}

/// Generates the cursed fixture with the binary into a fresh directory.
fn build_cursed() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cursed");
    let spec = fixture("cursed-names.yaml");
    let run = mcpgen(
        dir.path(),
        &["build", spec.to_str().unwrap(), "-o", out.to_str().unwrap()],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    (dir, out)
}

/// Runs `cargo SUBCOMMAND --manifest-path CRATE/Cargo.toml ARGS…` in the shared target directory
/// of generated crates; returns whether it succeeded, its stderr (cargo's and the compiler's
/// messages) and its stdout (test reports).
fn cargo_on(krate: &Path, subcommand: &str, args: &[&str]) -> (bool, String, String) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let output = Command::new(cargo)
        .arg(subcommand)
        .arg("--manifest-path")
        .arg(krate.join("Cargo.toml"))
        .args(args)
        .env("CARGO_TARGET_DIR", repo().join("target/generated"))
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .output()
        .expect("cargo runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn cursed_names_crate_compiles() {
    let (_dir, krate) = build_cursed();
    let (ok, stderr, _) = cargo_on(&krate, "check", &[]);
    assert!(ok, "the generated crate does not compile:\n{stderr}");
}

#[test]

fn cursed_names_crate_compiles_without_warnings() {
    let (_dir, krate) = build_cursed();
    let (ok, stderr, _) = cargo_on(&krate, "check", &[]);
    assert!(ok, "the generated crate does not compile:\n{stderr}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning"))
        .collect();
    assert!(
        warnings.is_empty(),
        "the generated crate has warnings:\n{stderr}"
    );
}

/// The README names the API once and naturally whatever its title: "the Tracker API", but
/// "The Weather API" and "the Payments API", never "the The … API API".
#[test]
fn readme_names_the_api_naturally_whatever_its_title() {
    let dir = tempfile::tempdir().unwrap();
    for (title, expected) in [
        ("Tracker", "server for the Tracker API"),
        ("The Weather API", "server for The Weather API"),
        ("Payments API", "server for the Payments API"),
        ("The Guardian", "server for The Guardian API"),
    ] {
        let spec = dir.path().join("spec.yaml");
        std::fs::write(
            &spec,
            format!("openapi: 3.0.3\ninfo: {{ title: {title}, version: '1' }}\nservers: [{{ url: 'https://a.example' }}]\npaths:\n  /x:\n    get:\n      operationId: getX\n      responses: {{ '200': {{ description: ok }} }}\n"),
        )
        .unwrap();
        let (_, files) = generate(&spec);
        let readme = &files
            .iter()
            .find(|f| f.path == "README.md")
            .unwrap()
            .contents;
        assert!(readme.contains(expected), "{title}: {readme}");
        assert!(
            !readme.contains("API API") && !readme.contains("the The"),
            "{title}: {readme}"
        );
        assert!(readme.contains("\n\nAn [MCP]"), "{title}: {readme}");
    }
}

/// Every generated file, the Rust doc comments and `--help` text included, names the API
/// without "the The" or "API API", whatever its title.
#[test]
fn every_generated_file_names_the_api_naturally_whatever_its_title() {
    let dir = tempfile::tempdir().unwrap();
    for (title, expected) in [
        (
            "The Weather API",
            "An MCP server for The Weather API, generated by mcpgen.",
        ),
        (
            "Payments API",
            "An MCP server for the Payments API, generated by mcpgen.",
        ),
        (
            "Tracker",
            "An MCP server for the Tracker API, generated by mcpgen.",
        ),
    ] {
        let spec = dir.path().join("spec.yaml");
        std::fs::write(
            &spec,
            format!("openapi: 3.0.3\ninfo: {{ title: {title}, version: '1' }}\nservers: [{{ url: 'https://a.example' }}]\npaths:\n  /x:\n    get:\n      operationId: getX\n      responses: {{ '200': {{ description: ok }} }}\n"),
        )
        .unwrap();
        let (_, files) = generate(&spec);
        for file in &files {
            for wrong in ["API API", "the The", "the the"] {
                assert!(
                    !file.contents.contains(wrong),
                    "{title}: {} says {wrong:?}:\n{}",
                    file.path,
                    file.contents
                );
            }
        }
        let main = &files
            .iter()
            .find(|f| f.path == "src/main.rs")
            .unwrap()
            .contents;
        assert!(main.contains(expected), "{title}: {main}");
    }
}

/// Bidirectional controls and invisible code points from a spec: the generated crate compiles
/// without warnings (rustc denies bidi controls in literals and doc comments), the source shows
/// them only as escapes, and `tools/list` serves the spec's text byte for byte.
#[test]
fn hostile_text_compiles_shows_as_escapes_and_reaches_clients_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hostile");
    let spec = fixture("hostile-text.yaml");
    let run = mcpgen(
        dir.path(),
        &["build", spec.to_str().unwrap(), "-o", out.to_str().unwrap()],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for file in ["src/lib.rs", "src/main.rs", "src/client.rs", "src/tools.rs"] {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        let hidden: Vec<char> = text
            .chars()
            .filter(|c| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200b}' | '\u{2028}' | '\u{feff}' | '\u{e0041}'))
            .collect();
        assert!(hidden.is_empty(), "{file} holds {hidden:?} unescaped");
    }
    let client = std::fs::read_to_string(out.join("src/client.rs")).unwrap();
    assert!(
        client.contains("/// Filter \\u{202a}\\u{202b} nested \\u{202c}\\u{202c}; is_admin\\u{2066} // check\\u{2069}"),
        "the doc comment shows the escapes:\n{client}"
    );

    let (ok, stderr, _) = cargo_on(&out, "build", &[]);
    assert!(ok, "the generated crate does not compile:\n{stderr}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning"))
        .collect();
    assert!(
        warnings.is_empty(),
        "the generated crate has warnings:\n{stderr}"
    );

    let binary = repo().join("target/generated/debug/hostile-text-mcp");
    let mut server = Command::new(binary)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the server starts");
    {
        use std::io::Write;
        let mut stdin = server.stdin.take().unwrap();
        writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#).unwrap();
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
        )
        .unwrap();
        writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    let output = server
        .wait_with_output()
        .expect("the server stops at end of input");
    let listed = String::from_utf8(output.stdout).unwrap();
    let list: serde_json::Value = listed
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|m| m["id"] == 2)
        .unwrap_or_else(|| panic!("no tools/list answer in {listed}"));
    let tool = &list["result"]["tools"][0];
    let (plan, _) = generate(&spec);
    let description = plan.tools[0].description.as_deref().unwrap();
    assert!(description.contains("Hidden\u{2029} \u{200b}\u{200c}\u{200d}\u{2060}\u{feff}\u{ad}\u{61c}\u{200e}\u{200f} \u{e0041}\u{e007f}"), "{description}");
    assert_eq!(tool["description"], description);
    let filter = &tool["inputSchema"]["properties"]["filter"];
    assert_eq!(
        filter["description"],
        "Filter \u{202a}\u{202b} nested \u{202c}\u{202c}; is_admin\u{2066} // check\u{2069}"
    );
    assert_eq!(filter["default"], "all\u{202e}");
    assert_eq!(
        tool["inputSchema"]["properties"]["kind"]["enum"],
        serde_json::json!(["plain", "r\u{202e}tl", "zero\u{200b}width"])
    );
}

#[test]

fn descriptions_never_become_doctests_of_the_generated_crate() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("doctests");
    let spec = fixture("doc-code.yaml");
    let run = mcpgen(
        dir.path(),
        &["build", spec.to_str().unwrap(), "-o", out.to_str().unwrap()],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let (ok, stderr, stdout) = cargo_on(&out, "test", &["--doc"]);
    assert!(ok, "a description ran as a doctest:\n{stdout}\n{stderr}");
}

#[test]
fn external_refs_stay_in_the_documents_folder_unless_refs_root_allows_a_wider_one() {
    let work = tempfile::tempdir().expect("a temporary folder");
    std::fs::create_dir_all(work.path().join("spec")).expect("spec/");
    std::fs::create_dir_all(work.path().join("common")).expect("common/");
    std::fs::write(
        work.path().join("spec/openapi.yaml"),
        "openapi: 3.0.3\ninfo: { title: Split, version: '1' }\npaths:\n  /things:\n    get:\n      operationId: listThings\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: { $ref: '../common/Thing.yaml' }\n",
    )
    .expect("the document");
    std::fs::write(
        work.path().join("common/Thing.yaml"),
        "type: object\nproperties: { name: { type: string } }\n",
    )
    .expect("the shared schema");

    let refused = mcpgen(work.path(), &["build", "spec/openapi.yaml", "-o", "out"]);
    assert_eq!(refused.code, Some(1), "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("`$ref: ../common/Thing.yaml` climbs out of the folder of the document")
            && refused.stderr.contains("name it with --refs-root DIR"),
        "{}",
        refused.stderr
    );
    assert!(!work.path().join("out").exists(), "nothing is written");

    let allowed = mcpgen(
        work.path(),
        &[
            "build",
            "spec/openapi.yaml",
            "-o",
            "out",
            "--refs-root",
            ".",
        ],
    );
    assert_eq!(allowed.code, Some(0), "{}", allowed.stderr);
    let tools =
        std::fs::read_to_string(work.path().join("out/tests/tools.json")).expect("tools.json");
    assert!(
        tools.contains("\"name\""),
        "the schema from common/ is inlined: {tools:.400}"
    );
}

#[test]
fn hostile_texts_round_trip_byte_for_byte_through_tools_list() {
    use rmcp::ServiceExt;
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};

    let spec = fixture("cursed-names.yaml");
    let (plan, _) = generate(&spec);
    let (_dir, krate) = build_cursed();
    let (ok, stderr, _) = cargo_on(&krate, "build", &["--quiet"]);
    assert!(ok, "the generated crate does not build:\n{stderr}");
    let binary = repo()
        .join("target/generated/debug")
        .join(&plan.server.crate_name);
    let document = mcpgen::load::parse_text(&std::fs::read_to_string(&spec).expect("the fixture"))
        .expect("the fixture parses");

    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let tools = runtime.block_on(async {
        let command = tokio::process::Command::new(&binary).configure(|c| {
            c.kill_on_drop(true);
        });
        let client =
            ().serve(TokioChildProcess::new(command).expect("the server starts"))
                .await
                .expect("initialized");
        let tools = client.list_all_tools().await.expect("tools/list");
        let _ = client.cancel().await;
        tools
    });
    let tool = |name: &str| {
        let tool = tools
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no tool {name}"));
        serde_json::to_value(tool).expect("a tool serializes")
    };
    // Parameter descriptions: exactly the document's text.
    let parameters = &document["paths"]["/type"]["get"]["parameters"];
    let listed = tool("type");
    for (index, name) in [(2, "self"), (3, "foo-bar")] {
        assert_eq!(
            listed["inputSchema"]["properties"][name]["description"],
            parameters[index]["description"],
            "the description of `{name}`"
        );
    }
    // Tool descriptions: the document's description, whole, code fences and all.
    let description = document["paths"]["/type"]["get"]["description"]
        .as_str()
        .expect("a description");
    let listed_description = listed["description"].as_str().expect("a tool description");
    assert!(
        listed_description.contains(description.trim_end()),
        "{listed_description:?}"
    );
    let braces = document["paths"]["/self"]["post"]["description"]
        .as_str()
        .expect("a description");
    assert!(
        tool("self")["description"]
            .as_str()
            .is_some_and(|d| d.contains(braces)),
        "{}",
        tool("self")
    );
    // Property names and enum values: the API's spelling.
    let body = &tool("self")["inputSchema"]["properties"];
    assert!(
        body.get("3d").is_some() && body.get("+1").is_some(),
        "{body}"
    );
    assert_eq!(
        body["kind"]["enum"],
        serde_json::json!(["a-b", "a_b", "3", "", "Self", "self", "type"])
    );
}
