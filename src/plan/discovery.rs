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

/// A line of the catalog but the operation's input schema: `head` is the line's JSON object up
/// to `"input_schema":`, and `returns` the JSON text of the value that follows the schema. The schemas are
/// most of the catalog (11.8 MB of Kubernetes' 12.8 MB written out), and the plan holds each
/// once already, as a value of its operation's plan: the catalog's text is written only when
/// the crate's files are, after the API's model is gone, rather than held beside it while
/// planning.
#[derive(Debug, Clone)]
pub struct Described {
    pub head: String,
    pub returns: String,
}

impl DiscoveryPlan {
    /// The catalog the describe tool reads, after `first_line`: one JSON object per line, per
    /// operation in order, with its input schema from `operations` (the plan's), then the
    /// objects the lines share, each written once (see [`super::catalog`]).
    pub fn catalog(&self, operations: &[OperationPlan], first_line: &str) -> String {
        let lines = self
            .operations
            .iter()
            .zip(&self.described)
            .map(|(found, described)| super::catalog::Line {
                head: &described.head,
                input_schema: &operations[found.operation].input_schema,
                returns: &described.returns,
            });
        super::catalog::write(lines, first_line)
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
