//! Discovery mode's part of the plan: three tools — search the operations, describe one, call
//! one — that reach the operations without a tool of their own, so a large API costs a few
//! thousand tokens of tool definitions instead of hundreds of thousands.
//!
//! This module holds the types; [`super::discovery_planner`] decides the mode and makes them.
//! Which operations are discoverable comes from the curation file's `discovery` section, or,
//! without a curation file, from the size of the spec ([`super::Options::discovery_threshold`]).
//! The search index and the operations' descriptions are data of the plan; `render` writes them
//! into the crate.

use super::OperationPlan;

/// Without a curation file, a spec with more operations than this gets discovery mode.
pub const DEFAULT_DISCOVERY_THRESHOLD: usize = 40;

/// The most results a search returns, and how many it returns unless asked.
pub const MAX_RESULTS: u64 = 50;
pub const DEFAULT_RESULTS: u64 = 10;

/// Whether discovery mode applies, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One tool per operation (or what the curation file says): no discovery tools.
    Off,
    /// The curation file's `discovery` section asks for it.
    Curated,
    /// No curation file and more operations than the threshold: discovery tools only.
    Automatic { threshold: usize },
}

/// The discovery tools and what they reach.
#[derive(Debug, Clone)]
pub struct DiscoveryPlan {
    pub mode: Mode,
    /// The discoverable operations, in the spec's order.
    pub operations: Vec<Discoverable>,
    pub search_tool: String,
    pub describe_tool: String,
    pub call_tool: String,
    /// The search index (`search::build`).
    pub index: String,
    /// What `describe` returns of each operation in `operations`, in order, but its input
    /// schema: the catalog's lines, which [`DiscoveryPlan::catalog`] writes.
    pub described: Vec<Described>,
    /// The API's other operations, by name, and why the discovery tools do not reach them (in
    /// words that end a sentence: "it has a tool of its own, `tracker_create_issue`").
    pub unavailable: Vec<(String, String)>,
}

/// A line of the catalog without the operation's input schema, as JSON text: `head` is the
/// object up to `"input_schema":`, `tail` what follows the schema. The schemas are most of the
/// catalog (11.8 MB of Kubernetes' 12.8 MB), and the plan holds each once already, as a value of
/// its operation's plan: the catalog's text is written only when the crate's files are, after
/// the API's model is gone, rather than held beside it while planning.
#[derive(Debug, Clone)]
pub struct Described {
    pub head: String,
    pub tail: String,
}

impl DiscoveryPlan {
    /// The catalog the describe tool reads, after `first_line`: one JSON object per line, per
    /// operation in order, with its input schema from `operations` (the plan's). Written once
    /// at its size, measured first on every core: its lines made apart and then joined, or the
    /// catalog grown as it was written, left as much again or twice as much freed beside it.
    /// Operations that share an input schema share one value in the plan (Kubernetes' 1,067
    /// have 443): each is serialized once to be measured and once to be written, and its later
    /// lines copy the text written first.
    pub fn catalog(&self, operations: &[OperationPlan], first_line: &str) -> String {
        use rayon::prelude::*;
        // Each line's schema, by the index of its first line (`first`), the lines that repeat
        // one written before pointing back at it.
        let mut first: std::collections::HashMap<*const serde_json::Value, usize> =
            std::collections::HashMap::with_capacity(self.operations.len());
        let firsts: Vec<usize> = self
            .operations
            .iter()
            .enumerate()
            .map(|(line, found)| {
                let schema: *const serde_json::Value = &*operations[found.operation].input_schema;
                *first.entry(schema).or_insert(line)
            })
            .collect();
        let schema = |line: usize| &*operations[self.operations[line].operation].input_schema;
        let sizes: Vec<usize> = firsts
            .par_iter()
            .enumerate()
            .map(|(line, &first)| match line == first {
                true => {
                    let mut counted = Counted(0);
                    serde_json::to_writer(&mut counted, schema(line))
                        .expect("a JSON value always serializes");
                    counted.0
                }
                false => 0,
            })
            .collect();
        let schemas: usize = firsts.iter().map(|&first| sizes[first]).sum();
        let rest: usize = self
            .described
            .iter()
            .map(|described| described.head.len() + described.tail.len() + 1)
            .sum();
        let mut catalog = Vec::with_capacity(first_line.len() + schemas + rest);
        catalog.extend_from_slice(first_line.as_bytes());
        // Where each first line's schema starts in `catalog`.
        let mut written = vec![0; firsts.len()];
        for (line, (&first, described)) in firsts.iter().zip(&self.described).enumerate() {
            catalog.extend_from_slice(described.head.as_bytes());
            match line == first {
                true => {
                    written[line] = catalog.len();
                    serde_json::to_writer(&mut catalog, schema(line))
                        .expect("a JSON value always serializes");
                }
                false => {
                    let start = written[first];
                    catalog.extend_from_within(start..start + sizes[first]);
                }
            }
            catalog.extend_from_slice(described.tail.as_bytes());
            catalog.push(b'\n');
        }
        String::from_utf8(catalog).expect("JSON text is UTF-8")
    }
}

/// Counts the bytes written to it.
struct Counted(usize);

impl std::io::Write for Counted {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One operation the discovery tools reach.
#[derive(Debug, Clone)]
pub struct Discoverable {
    /// The index of its plan in `Plan::operations`.
    pub operation: usize,
    /// The name the discovery tools use: the operationId.
    pub name: String,
    pub read_only: bool,
}

/// Which tool a discovery tool is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscoveryTool {
    Search,
    Describe,
    Call,
}
