//! Every real document under `tests/corpus/` loads and generates a crate that compiles without
//! warnings (all of them checked as one cargo workspace in the shared target directory), or is
//! refused with the message pinned below; every schema a crate made from one of them publishes
//! passes the 2020-12 metaschema and compiles; and the loader's file fixtures under
//! `tests/fixtures/load/` (external `$ref`s) do what they should.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::repo;

fn specs() -> PathBuf {
    repo().join("tests/corpus")
}

/// Documents that must be refused, by path under `specs/`, with the end of their error message.
const REFUSED: &[(&str, &str)] = &[
    (
        "oai-examples/v3.1/webhook-example.json",
        "at /paths: the document describes no operations (webhooks are requests the API sends, not calls a server can make), so an MCP server made from it would have no tools; add operations under `paths`",
    ),
    (
        "oai-examples/v3.1/webhook-example.yaml",
        "at /paths: the document describes no operations (webhooks are requests the API sends, not calls a server can make), so an MCP server made from it would have no tools; add operations under `paths`",
    ),
    (
        "oai-examples/v3.2/3.2-tags-example.json",
        r#"at /openapi: OpenAPI version "3.2.0" is not supported; mcpgen reads OpenAPI 3.0.x and 3.1.x"#,
    ),
    (
        "oai-examples/v3.2/3.2-tags-example.yaml",
        r#"at /openapi: OpenAPI version "3.2.0" is not supported; mcpgen reads OpenAPI 3.0.x and 3.1.x"#,
    ),
];

/// Every YAML or JSON file under `dir`, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml" | "json")
            ) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Whether the file is a whole document (it says `openapi:` or `swagger:` at its top level), not
/// a fragment that documents point to.
fn is_document(path: &Path) -> bool {
    let text = std::fs::read_to_string(path).expect("a readable text file");
    let value = mcpgen::load::parse_text(&text).expect("the file parses");
    value.get("openapi").is_some() || value.get("swagger").is_some()
}

/// A crate name made from the document's path, so that no two runs share one.
fn name_for(relative: &str) -> String {
    let mut name: String = relative
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    name.insert_str(0, "corpus-");
    name
}

/// The folder a corpus document's external `$ref`s may read from: the OAI `petstore-separate`
/// example keeps its shared schemas in a folder beside the document's (`spec/` and `common/`), so
/// it needs the parent folder allowed (`--refs-root`); every other document its own folder.
fn refs_root(path: &Path) -> Option<PathBuf> {
    let is_split = path
        .components()
        .any(|c| c.as_os_str() == "petstore-separate");
    is_split
        .then(|| path.parent().and_then(Path::parent).map(Path::to_path_buf))
        .flatten()
}

/// Every schema the server publishes (each tool's input and output schema, and the input schema
/// of each operation, which discovery's describe tool serves) is valid JSON Schema 2020-12 and
/// compiles the way the generated server compiles it (formats checked), and every output schema
/// says `type: object` at its root; the first that does not, otherwise.
fn invalid_schemas(plan: &mcpgen::plan::Plan) -> Result<(), String> {
    let tools = plan.tools.iter().flat_map(|tool| {
        std::iter::once((&tool.name, "input", &tool.input_schema)).chain(
            tool.output_schema
                .iter()
                .map(move |schema| (&tool.name, "output", schema)),
        )
    });
    let operations = plan.operations.iter().map(|operation| {
        (
            &operation.api_id,
            "operation input",
            &*operation.input_schema,
        )
    });
    for (name, which, schema) in tools.chain(operations) {
        // rmcp leaves out, for clients of a 2025 protocol version, an output schema whose root
        // is not `type: object`: such a client would not get what `mcpgen tools` shows.
        if which == "output" && schema.get("type") != Some(&serde_json::json!("object")) {
            return Err(format!(
                "the output schema of {name} does not say `type: object` at its root: {schema}"
            ));
        }
        let problem = match jsonschema::draft202012::meta::validate(schema) {
            Err(error) => Some(format!(
                "is not valid against the 2020-12 metaschema: {error}"
            )),
            Ok(()) => jsonschema::options()
                .should_validate_formats(true)
                .build(schema)
                .err()
                .map(|error| format!("does not compile: {error}")),
        };
        if let Some(problem) = problem {
            return Err(format!("the {which} schema of {name} {problem}"));
        }
    }
    Ok(())
}

/// Generates the document into `out/<crate name>`; returns the crate's folder name and its
/// number of tools.
fn generate(path: &Path, relative: &str, out: &Path) -> Result<(String, usize), String> {
    let name = name_for(relative);
    let options = mcpgen::Options {
        name: Some(name.clone()),
        refs_root: refs_root(path),
        ..Default::default()
    };
    let (plan, files) = mcpgen::generate(path, None, &options).map_err(|e| format!("{e:#}"))?;
    let folder = plan.server.crate_name.clone();
    mcpgen::write::write(&out.join(&folder), &files).map_err(|e| format!("{e:#}"))?;
    // A generated crate is its own workspace root; here it joins the workspace of every corpus
    // crate, checked together, so its own (empty) `[workspace]` table is taken out.
    let manifest = out.join(&folder).join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).map_err(|e| e.to_string())?;
    let member = text.replacen("\n[workspace]\n", "\n", 1);
    if member == text {
        return Err(format!(
            "{}: no `[workspace]` table to take out",
            manifest.display()
        ));
    }
    std::fs::write(&manifest, member).map_err(|e| e.to_string())?;
    Ok((folder, plan.tools.len()))
}

/// Runs `cargo check --workspace --all-targets` over the crates in `out` (a workspace of them
/// written there) in the target directory every generated crate shares; returns what cargo
/// printed when it fails or warns.
fn check_workspace(out: &Path, members: &[String]) -> Result<(), String> {
    let members: Vec<String> = members.iter().map(|m| format!("{m:?}")).collect();
    std::fs::write(
        out.join("Cargo.toml"),
        format!(
            "# Written by tests/suite/corpus.rs: every corpus crate, checked together.\n[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
            members.join(", ")
        ),
    )
    .map_err(|e| e.to_string())?;
    let output = Command::new(env!("CARGO"))
        .args([
            "check",
            "--workspace",
            "--all-targets",
            "--message-format=short",
            "--manifest-path",
        ])
        .arg(out.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", repo().join("target/generated"))
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let warnings: Vec<&str> = stderr
        .lines()
        // Cargo's notes about this test's own workspace are not warnings about generated code:
        // each crate's `[profile.release]` applies when it is built on its own, as users do.
        .filter(|line| {
            line.contains("warning:")
                && !line.starts_with("warning: unused manifest key")
                && !line.starts_with("warning: profiles for the non root package will be ignored")
        })
        .collect();
    if !output.status.success() {
        return Err(format!("cargo check failed:\n{stderr}"));
    }
    if !warnings.is_empty() {
        return Err(format!(
            "generated code has warnings:\n{}",
            warnings.join("\n")
        ));
    }
    Ok(())
}

#[test]
fn every_corpus_document_generates_a_crate_that_compiles_or_is_refused_as_pinned() {
    let dir = specs();
    let out = repo().join("target/corpus");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("target/corpus is created");
    let mut crates = Vec::new();
    let mut problems = Vec::new();
    let mut seen = 0;
    for path in files(&dir) {
        if !is_document(&path) {
            continue;
        }
        seen += 1;
        let relative = path
            .strip_prefix(&dir)
            .expect("under specs")
            .to_string_lossy()
            .replace('\\', "/");
        let result = generate(&path, &relative, &out);
        match (REFUSED.iter().find(|(r, _)| *r == relative), result) {
            (None, Ok((folder, tools))) => {
                eprintln!("ok      {relative} ({tools} tools)");
                crates.push(folder);
            }
            (None, Err(error)) => problems.push(format!("{relative} fails: {error}")),
            (Some(_), Ok(_)) => problems.push(format!(
                "{relative} generates now: take it off the list of refused documents"
            )),
            (Some((_, expected)), Err(error)) => {
                if error.ends_with(expected) && error.starts_with(&path.display().to_string()) {
                    eprintln!("refused {relative}: {error}");
                } else {
                    problems.push(format!(
                        "{relative} is refused with another message:\n  {error}\nexpected the end:\n  {expected}"
                    ));
                }
            }
        }
    }
    assert!(
        seen >= 40,
        "only {seen} documents found under {}",
        dir.display()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    if let Err(problem) = check_workspace(&out, &crates) {
        panic!(
            "the {} generated corpus crates in {}: {problem}",
            crates.len(),
            out.display()
        );
    }
}

#[test]
fn every_schema_a_corpus_crate_publishes_passes_the_metaschema_and_compiles() {
    let dir = specs();
    let mut problems = Vec::new();
    let mut checked = 0;
    for path in files(&dir) {
        if !is_document(&path) {
            continue;
        }
        let relative = path
            .strip_prefix(&dir)
            .expect("under specs")
            .to_string_lossy()
            .replace('\\', "/");
        let options = mcpgen::Options {
            name: Some(name_for(&relative)),
            refs_root: refs_root(&path),
            ..Default::default()
        };
        // The refused documents are the other test's business; the plan holds every schema the
        // crate would publish, without the time rendering and formatting the crate takes.
        let Ok(api) = mcpgen::load::load_with(&path, options.refs_root.as_deref()) else {
            continue;
        };
        let plan = mcpgen::plan::plan(&api, &options, None)
            .unwrap_or_else(|e| panic!("{relative} plans: {e}"));
        checked += 1;
        if let Err(problem) = invalid_schemas(&plan) {
            problems.push(format!("{relative}: {problem}"));
        }
    }
    assert!(checked >= 40, "only {checked} documents generated");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn swagger_2_documents_with_external_refs_generate() {
    for format in ["json", "yaml"] {
        let path = specs().join(format!(
            "oai-examples/v2.0/{format}/petstore-separate/spec/swagger.{format}"
        ));
        let (plan, _) = mcpgen::generate(
            &path,
            None,
            &mcpgen::Options {
                name: Some(format!("petstore-separate-{format}")),
                refs_root: refs_root(&path),
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{} generates: {e:#}", path.display()));
        assert_eq!(plan.tools.len(), 4, "{format}");
        let api = mcpgen::load::load_with(&path, refs_root(&path).as_deref()).expect("it loads");
        // Without --refs-root, the sibling folder is out of bounds.
        let error = load_error(&path);
        assert!(
            error
                .message
                .contains("climbs out of the folder of the document")
                && error.message.ends_with("name it with --refs-root DIR"),
            "{error}"
        );
        let find = api
            .operations
            .iter()
            .find(|o| o.id == "findPets")
            .expect("findPets");
        let names: Vec<&str> = find.parameters.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["tags", "limit"]);
        assert_eq!(find.parameters[1].schema["type"], "integer");
        let success = find
            .success
            .as_ref()
            .and_then(|s| s.schema.as_ref())
            .expect("a schema");
        assert_eq!(success["type"], "array");
        assert!(
            success["items"]["properties"].get("id").is_some(),
            "the Pet schema is read from Pet.{format}: {success}"
        );
    }
}

fn fixture(name: &str) -> PathBuf {
    repo().join("tests/fixtures/load").join(name)
}

fn load_error(path: &Path) -> mcpgen::load::LoadError {
    match mcpgen::load::load(path) {
        Ok(_) => panic!("{} loads, but it should not", path.display()),
        Err(error) => error,
    }
}

#[test]
fn nested_relative_refs_are_read_from_the_folder_of_the_file_that_holds_them() {
    let api = mcpgen::load::load(&fixture("nested/openapi.yaml")).expect("it loads");
    let operation = &api.operations[0];
    assert_eq!(operation.parameters[0].name, "limit");
    let schema = operation
        .success
        .as_ref()
        .and_then(|s| s.schema.clone())
        .expect("a schema");
    // openapi.yaml → schemas/Order.yaml → ../common/Money.yaml → ./Currency.yaml (a local
    // `$ref` inside Money.yaml) and Order.yaml → itself (recursion through `$defs`).
    assert_eq!(
        schema["properties"]["total"]["properties"]["currency"],
        serde_json::json!({ "type": "string", "enum": ["EUR", "USD"] })
    );
    assert_eq!(
        schema["properties"]["total"]["properties"]["amount"]["type"],
        "integer"
    );
    assert_eq!(
        schema["properties"]["parent"],
        serde_json::json!({ "$ref": "#/$defs/Order" })
    );
    assert!(
        schema["$defs"]["Order"]["properties"]["total"].is_object(),
        "{schema}"
    );
    mcpgen::generate(
        &fixture("nested/openapi.yaml"),
        None,
        &mcpgen::Options {
            name: Some("nested-fixture".into()),
            ..Default::default()
        },
    )
    .expect("it generates");
}

#[test]
fn a_ref_that_climbs_out_of_the_folder_tree_is_refused() {
    let path = fixture("climb/deep/openapi.yaml");
    let error = load_error(&path);
    assert_eq!(error.file, path);
    assert_eq!(
        error.pointer.as_deref(),
        Some("/paths/~1a/get/responses/200/content/application~1json/schema")
    );
    assert!(
        error.message.starts_with(
            "`$ref: ../../../outside.yaml` climbs out of the folder of the document; mcpgen reads only files under "
        ),
        "{}",
        error.message
    );
}

#[test]
fn a_ref_to_a_missing_file_names_the_file() {
    let path = fixture("missing/openapi.yaml");
    let error = load_error(&path);
    assert_eq!(error.file, path);
    assert_eq!(
        error.pointer.as_deref(),
        Some("/paths/~1a/get/parameters/0")
    );
    assert!(
        error
            .message
            .starts_with("`$ref: parameters/nope.yaml#/limit` names the file "),
        "{}",
        error.message
    );
    assert!(
        error.message.contains("nope.yaml, which cannot be read"),
        "{}",
        error.message
    );
}

#[test]
fn a_ref_to_a_url_is_refused() {
    let path = fixture("url/openapi.yaml");
    let error = load_error(&path);
    assert_eq!(error.file, path);
    assert_eq!(
        error.pointer.as_deref(),
        Some("/paths/~1a/get/responses/200/content/application~1json/schema")
    );
    assert_eq!(
        error.message,
        "`$ref: https://example.com/schemas/Pet.yaml` points to a URL; mcpgen does not fetch anything over the network — download the file next to the document and refer to it by a relative path"
    );
}

#[test]
fn an_unparsable_or_non_utf8_referenced_file_is_an_error_naming_it() {
    let error = load_error(&fixture("broken/openapi.yaml"));
    assert!(error.file.ends_with("broken.yaml"), "{error}");
    assert!(
        error.message.starts_with("not valid YAML or JSON"),
        "{error}"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: { title: T, version: '1' }\npaths:\n  /a:\n    $ref: a.yaml\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("a.yaml"), b"get:\n  description: caf\xe9\n").unwrap();
    let error = load_error(&dir.path().join("openapi.yaml"));
    assert!(error.file.ends_with("a.yaml"), "{error}");
    assert_eq!(
        error.message,
        "the file is not UTF-8 text (invalid byte at offset 23); save it as UTF-8"
    );
}

#[test]
fn ref_keys_inside_examples_defaults_enums_consts_and_extensions_are_data_not_references() {
    let api = mcpgen::load::load(&fixture("literal-refs/openapi.yaml")).expect("it loads");
    let operation = &api.operations[0];
    assert_eq!(
        operation.parameters[0].name, "tag",
        "a real `$ref` is followed"
    );
    let body = &operation.body.as_ref().expect("a body").schema;
    let link = &body["properties"]["link"];
    assert_eq!(link["examples"], serde_json::json!([{ "$ref": "a" }]));
    assert_eq!(
        link["default"],
        serde_json::json!({ "$ref": "nosuch.yaml" })
    );
    assert_eq!(
        body["properties"]["pointer"]["enum"],
        serde_json::json!([{ "$ref": "#/nowhere" }])
    );
    assert_eq!(
        body["properties"]["fixed"]["const"],
        serde_json::json!({ "$ref": "#/nowhere/either" })
    );
    assert_eq!(
        body["properties"]["example"],
        serde_json::json!({ "type": "string", "examples": [{ "$ref": "c" }] }),
        "a property named `example` is a schema, and its `$ref` is followed"
    );
    let success = operation.success.as_ref().expect("a success response");
    assert_eq!(
        success.schema.as_ref().expect("a schema")["properties"]["id"]["type"],
        "integer"
    );
}

#[test]
fn swagger_2_examples_and_defaults_keep_their_ref_keys_as_written() {
    let api = mcpgen::load::load(&fixture("literal-refs/swagger.yaml")).expect("it loads");
    let body = &api.operations[0].body.as_ref().expect("a body").schema;
    assert_eq!(
        body["properties"]["link"]["examples"],
        serde_json::json!([{ "$ref": "#/definitions/Note" }]),
        "not rewritten to #/components/schemas/Note: it is data"
    );
    assert_eq!(
        body["properties"]["link"]["default"],
        serde_json::json!({ "$ref": "nosuch.yaml" })
    );
    assert_eq!(
        body["properties"]["note"]["properties"]["id"]["type"],
        "integer"
    );
}

#[test]
fn ref_paths_are_normalised_lexically_before_they_are_read() {
    let api = mcpgen::load::load(&fixture("lexical/openapi.yaml")).expect("it loads");
    let parameter = &api.operations[0].parameters[0];
    assert_eq!(
        (parameter.name.as_str(), &parameter.schema),
        ("limit", &serde_json::json!({ "type": "integer" }))
    );
}

/// The Rust files mcpgen writes for every corpus document that generates are what rustfmt would
/// make of them (`crate::large_specs::rustfmt_check`): the per-operation items written directly
/// in rustfmt's layout (`render::direct`) are checked on every kind of document the corpus holds.
#[test]
fn every_corpus_crate_is_laid_out_as_rustfmt_lays_it_out() {
    let dir = specs();
    let mut checked = 0;
    let mut problems = Vec::new();
    for path in files(&dir) {
        let relative = path
            .strip_prefix(&dir)
            .expect("under specs")
            .to_string_lossy()
            .replace('\\', "/");
        if !is_document(&path) || REFUSED.iter().any(|(r, _)| *r == relative) {
            continue;
        }
        let options = mcpgen::Options {
            name: Some(name_for(&relative)),
            refs_root: refs_root(&path),
            ..Default::default()
        };
        let (_, files) = mcpgen::generate(&path, None, &options)
            .unwrap_or_else(|e| panic!("{relative} does not generate: {e:#}"));
        for file in files.iter().filter(|f| f.path.ends_with(".rs")) {
            if file.path.starts_with("src/runtime") {
                continue;
            }
            if let Err(problem) = crate::large_specs::rustfmt_check(&file.path, &file.contents) {
                problems.push(format!("{relative}: {problem}"));
            }
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} documents generated");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
