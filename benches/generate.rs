//! The stages of generation, one criterion benchmark each, so that a regression shows in the stage
//! that caused it: load (read, parse, resolve `$ref`s, convert schemas), curate (read, check
//! and bind the curation file), plan (the tool model), compile (every schema the server checks
//! values against, compiled as the server does, `schemas_compile`), render (every file of the
//! crate, formatting included), format (prettyplease over the largest file, `src/tools.rs`, on its
//! own) and write (the crate to an empty directory).
//!
//! `cargo bench --bench generate` runs it on the tracker (curated and zero-config) and the Swagger
//! Petstore; GitHub REST (1,223 operations) is added when `scripts/large-specs` has installed it
//! (`target/large-specs`, or the folder `MCPGEN_TEST_LARGE_SPECS` names).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mcpgen::{Options, curate, emit, load, plan, render, write};
use proc_macro2::TokenStream;

struct Input {
    name: &'static str,
    spec: PathBuf,
    curation: Option<PathBuf>,
    large: bool,
}

fn inputs() -> Vec<Input> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs = vec![
        Input {
            name: "tracker-curated",
            spec: repo.join("specs/tracker/openapi.yaml"),
            curation: Some(repo.join("specs/tracker/mcpgen.yaml")),
            large: false,
        },
        Input {
            name: "tracker-mirror",
            spec: repo.join("specs/tracker/openapi.yaml"),
            curation: None,
            large: false,
        },
        Input {
            name: "petstore",
            spec: repo.join("tests/corpus/swagger-petstore-v3/openapi.yaml"),
            curation: None,
            large: false,
        },
    ];
    let large = std::env::var_os("MCPGEN_TEST_LARGE_SPECS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("target/large-specs"));
    inputs.push(Input {
        name: "github-rest",
        spec: large.join("github-rest.json"),
        curation: None,
        large: true,
    });
    inputs.retain(|input| {
        let present = input.spec.exists();
        if !present {
            eprintln!(
                "skipping {}: {} is missing",
                input.name,
                input.spec.display()
            );
        }
        present
    });
    inputs
}

fn stages(c: &mut Criterion) {
    for input in inputs() {
        let mut group = c.benchmark_group(input.name);
        if input.large {
            group
                .sample_size(10)
                .measurement_time(Duration::from_secs(20));
        }
        let options = Options::default();
        let api = load::load(&input.spec).expect("the spec loads");
        let checked = input
            .curation
            .as_ref()
            .map(|path| curate::load(path, &api).expect("the curation file is valid"));
        let curation = checked.as_ref().map(|checked| &checked.model);
        let planned = plan::plan(&api, &options, curation).expect("the spec plans");
        let files = render::render(&planned).expect("the plan renders");

        group.bench_function("load", |b| {
            b.iter(|| load::load(black_box(&input.spec)).unwrap())
        });
        if let Some(path) = &input.curation {
            group.bench_function("curate", |b| {
                b.iter(|| curate::load(black_box(path), &api).unwrap())
            });
        }
        group.bench_function("plan", |b| {
            b.iter(|| plan::plan(black_box(&api), &options, curation).unwrap())
        });
        group.bench_function("compile", |b| {
            b.iter(|| mcpgen::schemas_compile(black_box(&planned)))
        });
        group.bench_function("render", |b| {
            b.iter(|| render::render(black_box(&planned)).unwrap())
        });

        let tools_rs = files
            .iter()
            .find(|file| file.path == "src/tools.rs")
            .expect("a crate has src/tools.rs");
        let tokens: TokenStream = tools_rs.contents.parse().expect("src/tools.rs lexes");
        group.bench_with_input(
            BenchmarkId::new("format", "src/tools.rs"),
            &tokens,
            |b, tokens| b.iter(|| emit::format_rust("src/tools.rs", tokens.clone()).unwrap()),
        );

        group.bench_function("write", |b| {
            b.iter_batched(
                || tempfile::tempdir().unwrap(),
                |dir| {
                    write::write(&dir.path().join("crate"), black_box(&files)).unwrap();
                    dir
                },
                criterion::BatchSize::PerIteration,
            )
        });
        group.finish();
    }
}

criterion_group!(benches, stages);
criterion_main!(benches);
