//! The discovery search evaluation (issue 21): `tests/discovery/eval/queries.jsonl` (357 requests
//! over GitHub REST, Stripe, Kubernetes and Slack, split once into `tune` and `test`) through the
//! search index mcpgen builds for each API and the ranking the generated server runs
//! (the runtime crate's `search` module, `mcpgen::search` in mcpgen).
//!
//! ```text
//! scripts/large-specs   # installs target/large-specs (GitHub, Stripe, Kubernetes)
//! cargo run --example discovery_eval [-- --misses tune]
//! ```
//!
//! Prints top-1, top-3, top-5 and MRR (over the first 10 results) per API and split, the
//! totals per split, and the size of each API's index. `--misses tune` also lists the tuning requests whose operation was not
//! first; there is deliberately no way to list the test half's misses.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Each API of the evaluation and its description, relative to the repository.
const APIS: &[(&str, &str)] = &[
    ("github", "target/large-specs/github-rest.json"),
    ("stripe", "target/large-specs/stripe.yaml"),
    ("kubernetes", "target/large-specs/kubernetes.yaml"),
    ("slack", "tests/corpus/slack-web/slack_web_openapi_v2.json"),
];

/// How many results MRR looks at.
const DEPTH: usize = 10;

#[derive(Default, Clone, Copy)]
struct Tally {
    n: usize,
    top1: usize,
    top3: usize,
    top5: usize,
    reciprocal: f64,
}

impl Tally {
    fn add(&mut self, rank: Option<usize>) {
        self.n += 1;
        if let Some(rank) = rank {
            self.top1 += usize::from(rank < 1);
            self.top3 += usize::from(rank < 3);
            self.top5 += usize::from(rank < 5);
            self.reciprocal += 1.0 / (rank + 1) as f64;
        }
    }

    fn merge(&mut self, other: &Tally) {
        self.n += other.n;
        self.top1 += other.top1;
        self.top3 += other.top3;
        self.top5 += other.top5;
        self.reciprocal += other.reciprocal;
    }

    fn row(&self, api: &str, split: &str) -> String {
        let percent = |k: usize| 100.0 * k as f64 / self.n.max(1) as f64;
        format!(
            "{api:<11} {split:<5} {:>4} {:>6.1}% {:>6.1}% {:>6.1}% {:>6.3}",
            self.n,
            percent(self.top1),
            percent(self.top3),
            percent(self.top5),
            self.reciprocal / self.n.max(1) as f64
        )
    }
}

fn main() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut args = std::env::args().skip(1);
    let mut show_misses = false;
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().as_deref()) {
            ("--misses", Some("tune")) => show_misses = true,
            _ => {
                eprintln!("usage: discovery_eval [--misses tune]");
                std::process::exit(2);
            }
        }
    }
    let text = std::fs::read_to_string(repo.join("tests/discovery/eval/queries.jsonl"))
        .expect("tests/discovery/eval/queries.jsonl");
    let queries: Vec<Value> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).expect("a query line is JSON"))
        .collect();
    let mut tallies: BTreeMap<(String, String), Tally> = BTreeMap::new();
    let mut misses = Vec::new();
    let mut sizes = Vec::new();
    for (api_name, spec) in APIS {
        let (index, size) = index(&repo.join(spec), api_name);
        sizes.push(format!(
            "{api_name}: {} operations, index {size} bytes",
            index.entries.len()
        ));
        for query in queries.iter().filter(|q| q["api"] == *api_name) {
            let request = query["query"].as_str().expect("a query");
            let split = query["split"].as_str().expect("a split").to_string();
            let expected: Vec<&str> = query["expected"]
                .as_array()
                .expect("expected ids")
                .iter()
                .map(|e| e.as_str().expect("an operationId"))
                .collect();
            let hits = index.search(request, &mcpgen::search::Filter::default(), DEPTH);
            let names: Vec<&str> = hits
                .iter()
                .map(|h| index.entries[h.entry].name.as_str())
                .collect();
            let rank = names.iter().position(|n| expected.contains(n));
            if show_misses && split == "tune" && rank != Some(0) {
                misses.push(format!(
                    "{api_name}: {request:?} wants {expected:?}, rank {}; got {:?}",
                    rank.map_or("-".to_string(), |r| (r + 1).to_string()),
                    &names[..names.len().min(5)]
                ));
            }
            tallies
                .entry((api_name.to_string(), split))
                .or_default()
                .add(rank);
        }
    }
    println!("api         split    n  top-1  top-3  top-5    MRR");
    let mut totals: BTreeMap<String, Tally> = BTreeMap::new();
    for ((api, split), tally) in &tallies {
        println!("{}", tally.row(api, split));
        totals.entry(split.clone()).or_default().merge(tally);
    }
    for (split, tally) in &totals {
        println!("{}", tally.row("all", split));
    }
    for size in sizes {
        println!("{size}");
    }
    for miss in misses {
        println!("miss {miss}");
    }
}

/// The search index mcpgen generates for the API at `spec` without a curation file, read back,
/// and the size of its text in bytes.
fn index(spec: &Path, name: &str) -> (mcpgen::search::Index, usize) {
    let api = mcpgen::load::load(spec).unwrap_or_else(|e| panic!("{}: {e}", spec.display()));
    let options = mcpgen::Options {
        name: Some(name.to_string()),
        // Every API is searched, however few operations it has.
        discovery_threshold: Some(0),
        ..Default::default()
    };
    let plan = mcpgen::plan::plan(&api, &options, None).expect("it plans");
    let discovery = plan.discovery.expect("discovery mode");
    let index = mcpgen::search::Index::parse(&discovery.index).expect("the index reads back");
    (index, discovery.index.len())
}
