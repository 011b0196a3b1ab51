//! Times reading a description into JSON values alone, in pieces on every core
//! (`load::parse_document`) and whole on one core (`load::parse_document_whole`), alternating,
//! and the freeing of what was read; wall time of each run, and CPU time of the process (every
//! thread, from `/proc/self/stat`, Linux) over all the runs of each way:
//!
//! `cargo run --release --example parse_time -- target/large-specs/stripe.yaml [RUNS]`

use std::time::{Duration, Instant};

use mcpgen::load::{parse_document, parse_document_whole};

// The allocator of the mcpgen binary (src/main.rs), whose frees across threads are part of what
// is timed.
#[global_allocator]
static ALLOCATOR: mcpgen::allocator::MiMalloc = mcpgen::allocator::MiMalloc;

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
    let mut cpu = vec![0.0; ways.len()];
    for _ in 0..runs {
        for (way, (_, parse)) in ways.iter().enumerate() {
            let cpu_start = cpu_seconds();
            let start = Instant::now();
            let value = parse(&text).expect("a description that parses");
            let parsed = start.elapsed();
            let start = Instant::now();
            drop(value);
            times[way].0.push(parsed);
            times[way].1.push(start.elapsed());
            cpu[way] += cpu_seconds() - cpu_start;
        }
    }
    for (((name, _), (parse, free)), cpu) in ways.iter().zip(&mut times).zip(cpu) {
        println!(
            "{name:>6}: parse {:.1} ms [{:.1}-{:.1}], free {:.1} ms (median [min-max] of {runs}); \
             CPU {:.1} ms a run (parse and free, mean)",
            ms(median(parse)),
            ms(*parse.iter().min().unwrap()),
            ms(*parse.iter().max().unwrap()),
            ms(median(free)),
            cpu * 1000.0 / runs as f64,
        );
    }
}

/// User and system time of the process so far, every thread's (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // The fields after the command's name (which is in parentheses): utime and stime are the
    // 12th and 13th, in clock ticks (100 a second on Linux).
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap_or(0) + 1..]
        .split_whitespace()
        .collect();
    let ticks = |index: usize| {
        fields
            .get(index)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(time: Duration) -> f64 {
    time.as_secs_f64() * 1000.0
}
