//! `mcpgen init`: the starter curation file. It is pinned as golden text for the tracker
//! (`tests/cli_init/tracker.yaml`; `UPDATE_GOLDEN=1` rewrites it), lists every operation under its
//! tag, builds as written into a crate that compiles, and its commented examples, uncommented,
//! are a valid curation file too. `-o` never overwrites without `--force`, and a bad spec leaves
//! nothing behind.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::cli::mcpgen;
use crate::support::repo;

const TRACKER: &str = "specs/tracker/openapi.yaml";
const PETSTORE: &str = "tests/corpus/swagger-petstore-v3/openapi.yaml";

/// The example blocks of the starter file, each a top-level `# key:` comment block.
const EXAMPLES: &[&str] = &[
    "enums",
    "resolvers",
    "pagination",
    "errors",
    "budgets",
    "tools",
];

fn load(spec: &str) -> mcpgen::api::Api {
    mcpgen::load::load(&repo().join(spec)).unwrap_or_else(|e| panic!("{spec} loads: {e}"))
}

/// The starter file for `spec`, from the binary's stdout.
fn starter(spec: &str) -> String {
    let run = mcpgen(repo(), &["init", spec]);
    assert_eq!(
        run.code,
        Some(0),
        "mcpgen init {spec} failed:\n{}",
        run.stderr
    );
    assert!(
        run.stderr.is_empty(),
        "init printed to stderr:\n{}",
        run.stderr
    );
    run.stdout
}

/// `text` with the example blocks (`# enums:` … up to the next blank line) uncommented.
fn uncomment_examples(text: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in text.lines() {
        match line.strip_prefix("# ") {
            Some(rest) if !rest.starts_with(' ') => {
                let key = rest.split(':').next().unwrap_or_default();
                inside = EXAMPLES.contains(&key);
                out.push_str(if inside { rest } else { line });
            }
            Some(rest) if inside => out.push_str(rest),
            _ => {
                inside = inside && line.starts_with('#');
                out.push_str(line);
            }
        }
        out.push('\n');
    }
    out
}

/// Checks curation `text` against `api`; panics with the rendered diagnostics on an error.
fn assert_checks(name: &str, text: &str, api: &mcpgen::api::Api) {
    if let Err(error) = mcpgen::curate::check_text(Path::new(name), text, api) {
        panic!("{name} does not check:\n{error}\n--- the file ---\n{text}");
    }
}

/// Which tag heading each operation is listed under (`(no tag)` for none), in listing order.
fn listing(text: &str) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let mut heading: Option<String> = None;
    let mut started = false;
    for line in text.lines() {
        if line.starts_with("  # The ") && line.contains("operation") {
            started = true;
            continue;
        }
        if !started {
            continue;
        }
        if !line.starts_with("  #") {
            break;
        }
        if let Some(row) = line.strip_prefix("  #   ") {
            let id = row
                .split_whitespace()
                .next()
                .expect("an operationId")
                .to_string();
            rows.push((heading.clone().expect("a heading before the first row"), id));
        } else if let Some(title) = line.strip_prefix("  # ")
            && !title.starts_with(' ')
            && !title.ends_with(':')
        {
            heading = Some(title.to_string());
        }
    }
    rows
}

#[test]
fn tracker_starter_matches_the_golden_file() {
    let text = starter(TRACKER);
    let path = repo().join("tests/cli_init/tracker.yaml");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} is missing; run with UPDATE_GOLDEN=1", path.display()));
    assert_eq!(
        text,
        expected,
        "the tracker starter changed; UPDATE_GOLDEN=1 rewrites {}",
        path.display()
    );
}

#[test]
fn the_starter_starts_with_the_schema_line_and_says_how_to_build() {
    let text = starter(TRACKER);
    assert!(text.starts_with(
        "# yaml-language-server: $schema=https://raw.githubusercontent.com/mcpgen/mcpgen/main/schemas/mcpgen.schema.json\n"
    ));
    assert!(
        text.contains("#   mcpgen build specs/tracker/openapi.yaml -c mcpgen.yaml\n"),
        "{text}"
    );
    for key in [
        "server:",
        "auth:",
        "operations:",
        "  mirror: all",
        "  hide: []",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(key)),
            "no `{key}` in\n{text}"
        );
    }
    assert!(text.contains("  bearer: { env: TRACKER_TOKEN }"), "{text}");
    for example in EXAMPLES {
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("# {example}:"))),
            "no `{example}` example"
        );
    }
}

#[test]
fn every_operation_is_listed_once_under_its_tag() {
    for spec in [TRACKER, PETSTORE] {
        let api = load(spec);
        let rows = listing(&starter(spec));
        assert_eq!(rows.len(), api.operations.len(), "{spec}: {rows:?}");
        for operation in &api.operations {
            let found: Vec<&(String, String)> =
                rows.iter().filter(|(_, id)| *id == operation.id).collect();
            assert_eq!(
                found.len(),
                1,
                "{spec}: `{}` listed {} times",
                operation.id,
                found.len()
            );
            let tag = operation
                .tags
                .first()
                .map_or(mcpgen::init::UNTAGGED, String::as_str);
            assert_eq!(
                found[0].0, tag,
                "{spec}: `{}` is under the wrong heading",
                operation.id
            );
        }
    }
    // Method, path and summary are on the operation's line.
    let text = starter(TRACKER);
    let line = text
        .lines()
        .find(|l| l.starts_with("  #   listIssues "))
        .expect("listIssues is listed");
    let columns: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(
        columns[..5],
        [
            "#",
            "listIssues",
            "GET",
            "/v2/projects/{project_id}/issues",
            "—"
        ],
        "{line}"
    );
    assert!(line.ends_with("— List issues of a project"), "{line}");
}

/// Runs cargo `args` on the crate in `dir` in the shared target directory of generated crates.
fn cargo(dir: &Path, args: &[&str]) {
    let (command, rest) = args.split_first().expect("a cargo command");
    let output = Command::new(env!("CARGO"))
        .arg(command)
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .args(rest)
        .env("CARGO_TARGET_DIR", repo().join("target/generated"))
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
fn the_starter_builds_as_written_into_a_crate_that_compiles() {
    for (spec, name) in [(TRACKER, "init-tracker"), (PETSTORE, "init-petstore")] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mcpgen.yaml");
        let out = dir.path().join("out");
        let file_arg = file.to_str().unwrap();
        let run = mcpgen(repo(), &["init", spec, "-o", file_arg]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let count = load(spec).operations.len();
        assert_eq!(
            run.stderr,
            format!("wrote {file_arg} ({count} operations listed)\n")
        );
        assert!(run.stdout.is_empty());
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.contains(&format!("#   mcpgen build {spec} -c {file_arg}\n")),
            "{text}"
        );

        let run = mcpgen(
            repo(),
            &[
                "build",
                spec,
                "-c",
                file_arg,
                "-o",
                out.to_str().unwrap(),
                "--name",
                name,
            ],
        );
        assert_eq!(
            run.code,
            Some(0),
            "the starter for {spec} does not build:\n{}",
            run.stderr
        );
        cargo(&out, &["check", "--quiet"]);
    }
}

#[test]
fn the_examples_uncommented_check_cleanly_and_build_into_a_crate_that_compiles() {
    for (spec, name, tool) in [
        (TRACKER, "init-tracker-examples", "tracker_list_issues"),
        (
            PETSTORE,
            "init-petstore-examples",
            "petstore_find_pets_by_status",
        ),
    ] {
        let api = load(spec);
        let text = uncomment_examples(&starter(spec));
        for example in EXAMPLES {
            assert!(
                text.lines().any(|l| l.starts_with(&format!("{example}:"))),
                "{spec}: `{example}` stayed commented"
            );
        }
        assert_checks(&format!("{spec} (examples uncommented)"), &text, &api);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mcpgen.yaml");
        std::fs::write(&file, &text).unwrap();
        let (plan, _) =
            mcpgen::generate(&repo().join(spec), Some(&file), &mcpgen::Options::default())
                .unwrap_or_else(|e| {
                    panic!("{spec} with the examples uncommented does not generate: {e:#}\n{text}")
                });
        assert!(
            plan.tools.iter().any(|t| t.name == tool),
            "{spec}: no curated tool `{tool}`"
        );
        let out = dir.path().join("out");
        let run = mcpgen(
            repo(),
            &[
                "build",
                spec,
                "-c",
                file.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "--name",
                name,
            ],
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        cargo(&out, &["check", "--quiet"]);
    }
}

/// Every document in `tests/corpus` that loads.
fn shared_specs() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![repo().join("tests/corpus")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml" | "json")
            ) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn every_shared_spec_gets_a_starter_that_checks_and_generates() {
    let specs = shared_specs();
    assert!(
        specs.len() > 10,
        "expected the shared specs, found {specs:?}"
    );
    let mut tried = 0;
    for spec in specs {
        let Ok(api) = mcpgen::load::load(&spec) else {
            continue;
        };
        tried += 1;
        let name = spec.display().to_string();
        let text = mcpgen::init::starter(&api, &name);
        assert_eq!(
            text,
            mcpgen::init::starter(&api, &name),
            "{name}: not deterministic"
        );
        assert_checks(&name, &text, &api);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mcpgen.yaml");
        std::fs::write(&file, &text).unwrap();
        if let Err(error) = mcpgen::generate(&spec, Some(&file), &mcpgen::Options::default()) {
            // The starter must not be why: the spec alone fails the same way.
            let alone = mcpgen::generate(&spec, None, &mcpgen::Options::default());
            assert!(
                alone.is_err(),
                "{name}: the starter does not generate: {error:#}"
            );
        }
        // Uncommented, the examples hold, but for operations named `your…`, which the spec has
        // nothing to fill in for.
        let examples = uncomment_examples(&text);
        if let Err(error) = mcpgen::curate::check_text(Path::new(&name), &examples, &api) {
            let real: Vec<_> = error
                .diagnostics
                .iter()
                .filter(|d| d.severity == mcpgen::curate::Severity::Error)
                .filter(|d| {
                    !d.message
                        .contains(&format!("`{}", mcpgen::init::PLACEHOLDER_PREFIX))
                })
                .collect();
            assert!(
                real.is_empty(),
                "{name} with the examples uncommented:\n{error}\n--- the file ---\n{examples}"
            );
        }
    }
    assert!(tried > 10, "only {tried} shared specs load");
}

#[test]
fn text_from_the_spec_cannot_break_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("cursed.yaml");
    std::fs::write(
        &spec,
        r##"openapi: 3.0.3
info:
  title: "Cursed: API # not a comment\nsecond line"
  version: "1.0\r\n# injected: true"
servers: [{ url: "https://api.example.com" }]
tags: [{ name: "Tag: #1\nnext" }]
paths:
  /things:
    get:
      operationId: listThings
      tags: ["Tag: #1\nnext"]
      summary: "Line one\nserver:\n  name: evil # \u2028 tools: {}\u0085 and more"
      parameters:
        - { name: "kind", in: query, description: "Kind: `1` red, `2` blue\n# auth:", schema: { type: integer, enum: [1, 2] } }
        - { name: "q", in: query, description: "- a list? : no\n---", schema: { type: string } }
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  items:
                    type: array
                    items:
                      type: object
                      properties:
                        id: { type: string }
                        name: { type: string }
                        "null": { type: string }
                        "a b": { type: string }
  "/things/{thing id}":
    delete:
      operationId: "delete: thing #2\nthe end \u2028 \"q\""
      summary: "'quoted' \"double\" {flow} [seq] & * ! | > % @ `"
      parameters: [{ name: "thing id", in: path, required: true, schema: { type: string } }]
      responses: { "204": { description: gone } }
"##,
    )
    .unwrap();
    let api = mcpgen::load::load(&spec).expect("the cursed spec loads");
    let text = mcpgen::init::starter(&api, "cursed spec.yaml");
    assert_checks("cursed", &text, &api);
    assert_checks(
        "cursed (examples uncommented)",
        &uncomment_examples(&text),
        &api,
    );
    // The filter examples name the spec's own tag and operation exactly.
    let filters: String = text
        .lines()
        .map(|line| match line.strip_prefix("  # ") {
            Some(rest) if rest.starts_with("include:") || rest.starts_with("exclude:") => {
                format!("  {rest}\n")
            }
            _ => format!("{line}\n"),
        })
        .collect();
    assert!(
        filters.contains("\n  include:") && filters.contains("\n  exclude:"),
        "{filters}"
    );
    assert_checks("cursed (filters uncommented)", &filters, &api);
    let parsed = mcpgen::curate::parse(&text).expect("the starter parses");
    assert!(
        parsed.tools.is_empty(),
        "text from the spec became a tool:\n{text}"
    );
    assert_eq!(
        parsed.server.name.as_ref().map(|n| n.value.as_str()),
        Some("cursed")
    );
    assert!(
        text.contains("#   mcpgen build 'cursed spec.yaml' -c mcpgen.yaml"),
        "{text}"
    );
    for line in text.lines() {
        assert!(
            !line.contains(['\r', '\u{2028}', '\u{85}']),
            "a line break survived: {line:?}"
        );
    }
    let rows = listing(&text);
    assert_eq!(rows.len(), 2, "{text}");
    assert_eq!(rows[0].0, "Tag: #1 next");
    assert_eq!(rows[1], ("(no tag)".to_string(), "delete:".to_string()));
}

#[test]
fn scalars_read_back_as_the_same_text() {
    let cases = [
        "plain words",
        "",
        "null",
        "~",
        "true",
        "No",
        "1",
        "1.5",
        "1e3",
        "0x1F",
        "-x",
        "- x",
        "a: b",
        "a #b",
        "a:",
        "#x",
        "*alias",
        "&anchor",
        "!tag",
        "|",
        ">",
        "'q'",
        "\"d\"",
        "%x",
        "@x",
        "`x`",
        "a, b",
        "[x]",
        "{x}",
        "x: {y}",
        "/v2/issues/*",
        "https://x.example/a?b=c",
        "ünïcødé",
        " lead",
        "trail ",
        "back\\slash",
        "tab\there",
        "line\nbreak",
        "cr\r\nlf",
        "sep\u{2028}para\u{2029}",
        "nel\u{85}del\u{7f}",
        "bom\u{feff}",
        "emoji 🦀",
    ];
    for case in cases {
        for flow in [false, true] {
            let written = mcpgen::init::scalar(case, flow);
            let document = if flow {
                format!("x: {{ v: {written} }}\n")
            } else {
                format!("x:\n  v: {written}\n")
            };
            let value =
                mcpgen::load::parse_text(&document).unwrap_or_else(|e| panic!("{document:?}: {e}"));
            assert_eq!(
                value["x"]["v"],
                serde_json::Value::String(case.to_string()),
                "{document:?}"
            );
            assert!(
                !written.contains(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']),
                "{written:?} spans lines"
            );
        }
    }
}

#[test]
fn output_refuses_to_overwrite_an_existing_file_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mcpgen.yaml");
    std::fs::write(&file, "mine\n").unwrap();
    let file_arg = file.to_str().unwrap();
    let run = mcpgen(repo(), &["init", TRACKER, "-o", file_arg]);
    assert_eq!(run.code, Some(1));
    assert_eq!(
        run.stderr,
        format!("error: {file_arg} already exists; pass --force to overwrite it\n")
    );
    assert!(run.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine\n");

    let run = mcpgen(repo(), &["init", TRACKER, "-o", file_arg, "--force"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .starts_with("# yaml-language-server:")
    );

    let run = mcpgen(
        repo(),
        &[
            "-q",
            "init",
            TRACKER,
            "-o",
            dir.path().join("quiet.yaml").to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn a_bad_spec_is_exit_1_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "openapi: 3.0.3\ninfo: [not, a, mapping\n").unwrap();
    let missing = dir.path().join("missing.yaml");
    for spec in [&bad, &missing] {
        let file = dir.path().join("mcpgen.yaml");
        let run = mcpgen(
            repo(),
            &["init", spec.to_str().unwrap(), "-o", file.to_str().unwrap()],
        );
        assert_eq!(run.code, Some(1), "{}", run.stderr);
        assert!(
            run.stderr.starts_with("error: ") && run.stderr.contains(spec.to_str().unwrap()),
            "{}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert!(!file.exists(), "a file was written for a bad spec");
        let run = mcpgen(repo(), &["init", spec.to_str().unwrap()]);
        assert_eq!(run.code, Some(1));
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
}

#[test]
fn auth_is_what_the_spec_asks_for() {
    let cases = [
        (
            r#"{ type: apiKey, in: query, name: key }"#,
            "  api_key: { in: query, name: key, env: AUTH_TEST_API_KEY }",
        ),
        (
            r#"{ type: http, scheme: basic }"#,
            "  basic: { username_env: AUTH_TEST_USERNAME, password_env: AUTH_TEST_PASSWORD }",
        ),
        (
            r#"{ type: oauth2, flows: { clientCredentials: { tokenUrl: "https://id.example.com/token", scopes: {} } } }"#,
            "  oauth2_client_credentials: { token_url: \"https://id.example.com/token\", client_id_env: AUTH_TEST_CLIENT_ID, client_secret_env: AUTH_TEST_CLIENT_SECRET, scopes: [] }",
        ),
        ("", "# auth:"),
    ];
    for (scheme, expected) in cases {
        let security = if scheme.is_empty() {
            String::new()
        } else {
            format!(
                "security: [{{ main: [] }}]\ncomponents: {{ securitySchemes: {{ main: {scheme} }} }}\n"
            )
        };
        let spec = format!(
            "openapi: 3.0.3\ninfo: {{ title: Auth test, version: '1' }}\n{security}paths:\n  /ping:\n    get:\n      operationId: ping\n      responses: {{ '204': {{ description: ok }} }}\n"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("api.yaml");
        std::fs::write(&path, &spec).unwrap();
        let api = mcpgen::load::load(&path).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let text = mcpgen::init::starter(&api, "api.yaml");
        assert!(
            text.lines().any(|l| l.starts_with(expected)),
            "expected `{expected}` in\n{text}"
        );
        assert_checks("auth", &text, &api);
        let file = dir.path().join("mcpgen.yaml");
        std::fs::write(&file, &text).unwrap();
        let (plan, _) = mcpgen::generate(&path, Some(&file), &mcpgen::Options::default())
            .expect("the starter generates");
        assert_eq!(
            plan.server.auth.is_empty(),
            scheme.is_empty(),
            "{:?}",
            plan.server.auth
        );
    }
}

/// The figures of the starter's `# budgets:` line: the heaviest tool, the tool count, the total.
fn budget_figures(text: &str) -> (usize, usize, usize) {
    let line = text
        .lines()
        .find(|l| l.starts_with("# budgets:"))
        .expect("the starter has a budgets line");
    let number_after = |marker: &str| -> usize {
        let rest = &line[line
            .find(marker)
            .unwrap_or_else(|| panic!("{marker:?} in {line}"))
            + marker.len()..];
        rest.chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap_or_else(|_| panic!("a number after {marker:?} in {line}"))
    };
    let count = number_after("and all ");
    let total = number_after(&format!("and all {count} ~"));
    (number_after("tool takes ~"), count, total)
}

#[test]
fn the_budgets_line_gives_the_figures_of_the_file_as_written() {
    for spec in [TRACKER, PETSTORE, "tests/corpus/notion/notion-openapi.json"] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mcpgen.yaml");
        let file = file.to_str().unwrap();
        let run = mcpgen(repo(), &["init", spec, "-o", file]);
        assert_eq!(run.code, Some(0), "{spec}: {}", run.stderr);
        let text = std::fs::read_to_string(file).unwrap();
        let run = mcpgen(repo(), &["tools", spec, "-c", file, "--format", "json"]);
        assert_eq!(run.code, Some(0), "{spec}: {}", run.stderr);
        let listed: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let per_tool = listed["tokens"]["per_tool"].as_object().unwrap();
        let heaviest = per_tool.values().filter_map(|v| v.as_u64()).max().unwrap() as usize;
        let total = listed["tokens"]["total"].as_u64().unwrap() as usize;
        assert_eq!(
            budget_figures(&text),
            (heaviest, per_tool.len(), total),
            "{spec}: the budgets line says (heaviest, tools, total) but `mcpgen tools` on the \
             starter as written says otherwise"
        );
    }
}

#[test]
fn every_operation_that_fits_a_resolver_gets_one_proposed() {
    // Three listings of named things and one lookup by a readable key: all four are proposed,
    // not the first two; the item's own endpoint (`/teams/{team}`) is not a lookup.
    let spec = r##"
openapi: 3.0.3
info: { title: Org, version: "1" }
paths:
  /projects:
    get:
      operationId: listProjects
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Projects" } } } } }
  /users:
    get:
      operationId: listUsers
      responses: { "200": { description: ok, content: { application/json: { schema: { type: array, items: { $ref: "#/components/schemas/User" } } } } } }
  /teams:
    get:
      operationId: listTeams
      responses: { "200": { description: ok, content: { application/json: { schema: { type: array, items: { $ref: "#/components/schemas/Team" } } } } } }
  /teams/{team}:
    get:
      operationId: getTeam
      parameters: [ { name: team, in: path, required: true, schema: { type: string } } ]
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Team" } } } } }
  /repos/by-slug/{repo_slug}:
    get:
      operationId: getRepoBySlug
      parameters: [ { name: repo_slug, in: path, required: true, schema: { type: string } } ]
      responses: { "200": { description: ok, content: { application/json: { schema: { type: object, properties: { id: { type: integer }, slug: { type: string } } } } } } }
components:
  schemas:
    Projects: { type: object, properties: { items: { type: array, items: { type: object, properties: { id: { type: integer }, key: { type: string } } } } } }
    User: { type: object, properties: { id: { type: integer }, username: { type: string } } }
    Team: { type: object, properties: { id: { type: integer }, name: { type: string } } }
"##;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("org.yaml");
    std::fs::write(&path, spec).unwrap();
    let run = mcpgen(repo(), &["init", path.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let section: Vec<&str> = run
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("# resolvers:"))
        .take_while(|l| !l.is_empty())
        .collect();
    let proposed: Vec<String> = section
        .iter()
        .filter_map(|l| l.strip_prefix("#   "))
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split(':').next().unwrap().to_string())
        .collect();
    assert_eq!(
        proposed,
        ["project", "user", "team", "repo"],
        "{}",
        section.join("\n")
    );
    assert!(
        section.iter().any(|l| l.contains("lookup: getRepoBySlug")),
        "{}",
        section.join("\n")
    );
    assert!(
        !section.iter().any(|l| l.contains("getTeam")),
        "{}",
        section.join("\n")
    );
}

#[test]
fn a_spec_that_asks_for_two_api_keys_at_once_gets_both_under_api_keys() {
    let spec = "tests/fixtures/soundness/cards/openapi.yaml";
    let text = starter(spec);
    assert!(
        text.contains(
            "  api_keys:                         # the spec asks for all of these at once\n    - { in: query, name: key, env: CARDS_API_KEY }"
        ) && text.contains("    - { in: query, name: token, env: CARDS_API_TOKEN }"),
        "{text}"
    );
    let checked = mcpgen::curate::check_text(Path::new("mcpgen.yaml"), &text, &load(spec))
        .unwrap_or_else(|e| panic!("the starter is refused:\n{e}"));
    let plan = mcpgen::plan::plan(
        &load(spec),
        &mcpgen::Options::default(),
        Some(&checked.model),
    )
    .expect("it plans");
    let env: Vec<&str> = plan.server.auth.iter().flat_map(|a| a.env_vars()).collect();
    assert_eq!(
        env,
        ["CARDS_API_KEY", "CARDS_API_TOKEN"],
        "the variables zero-config reads too"
    );
}

#[test]
fn the_starters_example_tool_takes_no_parameter_that_carries_a_credential() {
    let text = starter("tests/fixtures/soundness/cards/openapi.yaml");
    let tools = &text[text.find("# tools:").expect("the tools example")..];
    for credential in ["key", "token"] {
        assert!(
            !tools.contains(&format!("from: {credential} ")),
            "the example fills `{credential}`:\n{tools}"
        );
    }
}
