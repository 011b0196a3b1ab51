//! Discovery mode's part of the plan: three tools — search the operations, describe one, call
//! one — that reach the operations without a tool of their own, so a large API costs a few
//! thousand tokens of tool definitions instead of hundreds of thousands.
//!
//! This module holds the types; [`super::discovery_planner`] decides the mode and makes them.
//! Which operations are discoverable comes from the curation file's `discovery` section, or,
//! without a curation file, from the size of the spec ([`super::Options::discovery_threshold`]).
//! The search index and the operations' descriptions are data of the plan; `render` writes them
//! into the crate.

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
    /// One JSON object per line, per operation in order: what `describe` returns.
    pub catalog: String,
    /// The API's other operations, by name, and why the discovery tools do not reach them (in
    /// words that end a sentence: "it has a tool of its own, `tracker_create_issue`").
    pub unavailable: Vec<(String, String)>,
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
