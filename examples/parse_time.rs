//! Times reading a description into JSON values alone, in pieces on every core
//! (`load::parse_document`) and whole on one core (`load::parse_document_whole`), alternating,
//! and the freeing of what was read:
//!
//! `cargo run --release --example parse_time -- target/large-specs/stripe.yaml [RUNS]`

use std::time::{Duration, Instant};

use mcpgen::load::{parse_document, parse_document_whole};

// The allocator of the mcpgen binary (src/main.rs), whose frees across threads are part of what
// is timed.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

type Parse = fn(&str) -> Result<serde_json::Value, String>;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a description's path");
    let runs: usize = args
        .next()
        .map_or(15, |runs| runs.parse().expect("a number of runs"));
    let text = std::fs::read_to_string(&path).expect("a readable UTF-8 file");
    let ways: [(&str, Parse); 2] = [("whole", parse_document_whole), ("pieces", parse_document)];
    let mut times = vec![(Vec::new(), Vec::new()); ways.len()];
    for _ in 0..runs {
        for (way, (_, parse)) in ways.iter().enumerate() {
            let start = Instant::now();
            let value = parse(&text).expect("a description that parses");
            let parsed = start.elapsed();
            let start = Instant::now();
            drop(value);
            times[way].0.push(parsed);
            times[way].1.push(start.elapsed());
        }
    }
    for ((name, _), (parse, free)) in ways.iter().zip(&mut times) {
        println!(
            "{name:>6}: parse {:.1} ms [{:.1}-{:.1}], free {:.1} ms (median [min-max] of {runs})",
            ms(median(parse)),
            ms(*parse.iter().min().unwrap()),
            ms(*parse.iter().max().unwrap()),
            ms(median(free)),
        );
    }
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(time: Duration) -> f64 {
    time.as_secs_f64() * 1000.0
}
