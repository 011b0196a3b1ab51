//! The describe tool's work on two catalogs of one API, side by side: OLD, one JSON object per
//! operation, each line parsed whole (mcpgen before the shared objects were written once), and
//! NEW, each line's markers expanded by the template's own `expand` (copied from
//! templates/discovery.rs by build.rs) and the text parsed. Checks first that both give every operation the same
//! JSON text, then times the largest operation and every operation in turn, alternating, and
//! prints the medians.
//!
//!     cargo run --release --manifest-path bench/describe/Cargo.toml \
//!         --target-dir target/bench/describe -- OLD.jsonl NEW.jsonl [ROUNDS]

use std::hint::black_box;
use std::time::Instant;

use serde_json::Value;

/// What `expand` reads of the catalog, as in the template.
struct Catalog {
    shared: Vec<&'static str>,
    marker_open: String,
}

include!(concat!(env!("OUT_DIR"), "/expand.rs"));

fn read(path: &str) -> &'static str {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Box::leak(text.into_boxed_str())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, old, new, rest @ ..] = args.as_slice() else {
        panic!("usage: describe-side-by-side OLD.jsonl NEW.jsonl [ROUNDS]");
    };
    let rounds: usize = rest
        .first()
        .map_or(21, |r| r.parse().expect("a number of rounds"));
    let old: Vec<&str> = read(old)
        .lines()
        .filter(|line| !line.starts_with("//"))
        .collect();
    let mut lines = read(new).lines().filter(|line| !line.starts_with("//"));
    let head: Value = serde_json::from_str(lines.next().expect("the marker's line")).expect("JSON");
    let described: Vec<&str> = lines.by_ref().take(old.len()).collect();
    let catalog = Catalog {
        shared: lines.collect(),
        marker_open: format!("{{{}:", head["marker"]),
    };
    let expanded = std::cell::RefCell::new(String::new());
    let describe_old = |i: usize| -> Value { serde_json::from_str(old[i]).expect("JSON") };
    let describe_new = |i: usize| -> Value {
        // As the template's `describe`: the expanded text in a buffer kept between answers.
        let mut text = expanded.borrow_mut();
        text.clear();
        expand(&catalog, described[i], &mut text, 0).expect("expands");
        serde_json::from_str(&text).expect("JSON")
    };
    for i in 0..old.len() {
        assert_eq!(
            describe_old(i).to_string(),
            describe_new(i).to_string(),
            "operation {i}"
        );
    }
    let largest = (0..old.len())
        .max_by_key(|&i| old[i].len())
        .expect("operations");
    let each = |describe: &dyn Fn(usize) -> Value| {
        let started = Instant::now();
        for i in 0..old.len() {
            black_box(describe(i));
        }
        started.elapsed().as_secs_f64() * 1e3 / old.len() as f64
    };
    let one = |describe: &dyn Fn(usize) -> Value| {
        let started = Instant::now();
        black_box(describe(largest));
        started.elapsed().as_secs_f64() * 1e3
    };
    let (mut largest_old, mut largest_new, mut each_old, mut each_new) =
        (vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        largest_old.push(one(&describe_old));
        largest_new.push(one(&describe_new));
        each_old.push(each(&describe_old));
        each_new.push(each(&describe_new));
    }
    println!(
        "{} operations, the same answers; medians of {rounds} rounds, old -> new:",
        old.len()
    );
    println!(
        "the largest ({} bytes): {:.3} -> {:.3} ms",
        old[largest].len(),
        median(largest_old),
        median(largest_new)
    );
    println!(
        "each operation, mean: {:.3} -> {:.3} ms",
        median(each_old),
        median(each_new)
    );
}
