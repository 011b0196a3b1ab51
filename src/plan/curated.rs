//! The curated tools' part of the plan's types: what `render` reads of a tool the curation file
//! describes — its own parameters (renamed, mapped, resolved, defaulted), the operation or
//! workflow it runs, the shape of what it returns, and the enums and resolvers it uses. Only
//! types live here; [`super::curated_planner`] makes them from the bound curation model.

use serde_json::Value;

use super::FieldType;
pub use crate::curate::bound::{
    ClausePlan, ListPlan, PagingPlan, ScopeValue, ShapeConvert, ShapeField, TemplatePart,
    TemplatePlan,
};

/// An enum mapping: readable names ↔ API codes, as a Rust enum.
#[derive(Debug, Clone)]
pub struct EnumPlan {
    pub name: String,
    pub type_name: String,
    pub variants: Vec<EnumVariant>,
}

#[derive(Debug, Clone)]
pub struct EnumVariant {
    pub ident: String,
    pub name: String,
    pub code: Value,
}

/// How readable values of one kind become ids.
#[derive(Debug, Clone)]
pub struct ResolverPlan {
    pub name: String,
    /// The snake_case name used in generated function names (`project`).
    pub ident: String,
    pub what: String,
    pub source: ResolverSource,
    /// JSON pointers into an item.
    pub match_fields: Vec<String>,
    /// Only the items whose field (a JSON pointer) has this text are resolved to.
    pub only: Vec<(String, String)>,
    pub id_field: String,
    pub name_field: String,
    /// Words that stand for one item, matched case-insensitively before the list or lookup.
    pub aliases: Vec<(String, AliasPlan)>,
    pub ttl_seconds: u64,
    /// The API's ids are integers (sent as numbers, not text).
    pub id_integer: bool,
    /// Arguments of the list or lookup operation that scope it, by API name; empty for a
    /// resolver of the whole API. A list is cached per scope.
    pub scope: Vec<(String, ScopeValue)>,
}

/// What an alias of a resolver stands for.
#[derive(Debug, Clone)]
pub enum AliasPlan {
    /// The id of the item an operation without parameters answers with (operation index), at
    /// the JSON pointer `id` in its answer.
    Operation { operation: usize, id: String },
    /// A value sent as it is, in place of an id.
    Literal(String),
}

#[derive(Debug, Clone)]
pub enum ResolverSource {
    /// Every item is listed (pages walked) and cached.
    List {
        operation: usize,
        items: String,
        paging: Option<Box<PagingPlan>>,
    },
    /// One call per value, with the value in `param`.
    Lookup { operation: usize, param: String },
}

/// A curated tool's parameters and behaviour.
#[derive(Debug, Clone)]
pub struct CuratedTool {
    pub params: Vec<ToolParam>,
    pub body: CuratedBody,
    pub results: ResultsPlan,
    /// Messages by HTTP status: the tool's own, then the file's.
    pub errors: Vec<(u16, String)>,
}

/// One parameter the model sees.
#[derive(Debug, Clone)]
pub struct ToolParam {
    pub name: String,
    pub ident: String,
    pub kind: ParamKind,
    pub required: bool,
    /// The default as the model sees it (a readable name for an enum).
    pub default: Option<Value>,
    /// The API parameter it fills (one-call tools).
    pub target: Option<Target>,
    /// What the model is told about it.
    pub description: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Target {
    pub api_name: String,
    /// The API wants an integer (a resolved id is sent as a number).
    pub integer: bool,
}

#[derive(Debug, Clone)]
pub enum ParamKind {
    Plain(FieldType),
    Enum(usize),
    Resolve(usize),
    /// A list of readable values, each resolved (resolver index).
    ResolveList(usize),
    Limit {
        max: i64,
    },
    ResponseFormat,
}

#[derive(Debug, Clone)]
pub enum CuratedBody {
    Call {
        operation: usize,
        /// API parameters the file fills: literals, and templates over the tool's parameters.
        fixed: Vec<(String, ValueRef)>,
        paging: Option<Box<PagingPlan>>,
    },
    Steps(Vec<StepPlan>),
}

#[derive(Debug, Clone)]
pub enum StepPlan {
    Call {
        operation: usize,
        api_id: String,
        var: String,
        args: Vec<(String, ValueRef)>,
        errors: Vec<(u16, String)>,
        /// How the pages are walked, for the last step of a workflow whose result is a list.
        paging: Option<PagingPlan>,
        /// What later steps read of the answer, as JSON Schema (`schema::read_shape`): checked
        /// before they rely on it, so that an answer that does not fit stops the workflow at this
        /// step as the API's. `None` when nothing later reads it.
        answer: Option<Value>,
        /// The operation changes something (its answer not fitting means it most likely did).
        writes: bool,
        /// The step runs only when these two values are equal (`when`); its answer is null
        /// otherwise, and only steps with the same condition read it.
        when: Option<Box<(ValueRef, ValueRef)>>,
    },
    StopIf {
        left: ValueRef,
        right: ValueRef,
        result: Option<ValueRef>,
        /// Why nothing changed, told beside the result (`{param}` placeholders).
        message: String,
    },
    Find {
        var: String,
        list: ValueRef,
        conditions: Vec<(String, ValueRef)>,
        missing: String,
        /// The message when several items match; `{candidates}` lists them.
        ambiguous: String,
    },
    /// A readable value resolved to its id by a resolver, within the scope the step gives.
    Resolve {
        var: String,
        /// The resolver (by index).
        resolver: usize,
        value: ValueRef,
        /// The resolver's scoping arguments, by API name, in the resolver's order.
        scope: Vec<(String, ValueRef)>,
    },
}

/// A value a step uses.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueRef {
    /// A tool parameter (by index), as the API wants it (enum code, resolved id).
    Input(usize),
    /// A field of an earlier result: the local variable and a JSON pointer.
    Step {
        var: String,
        pointer: String,
    },
    Literal(Value),
    /// An object some of whose fields (at any depth) are references.
    Object(Vec<(String, ValueRef)>),
    /// A list some of whose items (at any depth) are references.
    Array(Vec<ValueRef>),
    /// Text built from clauses over the tool's parameters.
    Template(TemplatePlan),
    /// `value` when `condition` is present (`{ $if: $description, ... }`), else nothing.
    When {
        condition: Box<ValueRef>,
        value: Box<ValueRef>,
    },
    /// One object per item of `list` (`{ $each: $reviewers, uuid: $item }`); absent when the
    /// list is.
    Each {
        list: Box<ValueRef>,
        fields: Vec<(String, ValueRef)>,
    },
    /// In an `$each` object, its item at a JSON pointer (empty: the whole item).
    Item(String),
    /// The value as text, a number as its digits (a resolved integer id where the API takes
    /// text).
    Text(Box<ValueRef>),
}

impl ValueRef {
    /// What the value reads of earlier steps, at any depth, in order: each step's variable and
    /// the JSON pointer read.
    pub fn step_reads(&self) -> Vec<(&str, &str)> {
        fn collect<'v>(value: &'v ValueRef, out: &mut Vec<(&'v str, &'v str)>) {
            match value {
                ValueRef::Step { var, pointer } => out.push((var, pointer)),
                ValueRef::Object(fields) => fields.iter().for_each(|(_, v)| collect(v, out)),
                ValueRef::Array(items) => items.iter().for_each(|v| collect(v, out)),
                ValueRef::When { condition, value } => {
                    collect(condition, out);
                    collect(value, out);
                }
                ValueRef::Each { list, fields } => {
                    collect(list, out);
                    fields.iter().for_each(|(_, v)| collect(v, out));
                }
                ValueRef::Text(value) => collect(value, out),
                ValueRef::Input(_)
                | ValueRef::Literal(_)
                | ValueRef::Template(_)
                | ValueRef::Item(_) => {}
            }
        }
        let mut out = Vec::new();
        collect(self, &mut out);
        out
    }
}

#[derive(Debug, Clone, Default)]
pub struct ResultsPlan {
    /// For a workflow: the result shaped (default: the last call's).
    pub source: Option<ValueRef>,
    pub list: Option<ListPlan>,
    pub fields: Vec<ShapeField>,
    pub detailed: Vec<ShapeField>,
    /// Resolvers whose names the fields show, in `Lookup` index order.
    pub lookups: Vec<usize>,
}
