//! What the curation file's constructs mean, where `check` and the binder ([`super::bound`])
//! both need it: one rule each, so that what check accepts is what the bound model says (and
//! so what plan builds).

use std::collections::BTreeSet;

use serde_json::Value;

use super::model::{
    Curation, Pagination, PagingStyle, Resolver, Spanned, Step, Template, ToolSpec,
};
use crate::api::{Location, Operation};

/// The parameters the templates under a tool's `fixed` name.
pub fn template_params(tool: &ToolSpec) -> BTreeSet<String> {
    tool.fixed
        .values()
        .filter_map(|value| Template::parse(&value.value).ok())
        .flat_map(|template| {
            template
                .params()
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Does the resolver's `args` give its operation's `input`?
pub fn scoped_by(resolver: &Resolver, input: &str) -> bool {
    resolver.args.keys().any(|arg| arg.value == input)
}

/// The paging parameters a style uses: (the file's name for it, the default name).
pub fn paging_params(pagination: &Pagination) -> Vec<(Option<&Spanned<String>>, &'static str)> {
    let size = |default| {
        (!pagination.takes_no_size()).then_some((pagination.size_param.as_ref(), default))
    };
    let position = match pagination.style.value {
        PagingStyle::Page => Some((pagination.page_param.as_ref(), "page")),
        PagingStyle::Offset => Some((pagination.offset_param.as_ref(), "offset")),
        PagingStyle::Cursor => Some((pagination.cursor_param.as_ref(), "cursor")),
        PagingStyle::Link => None,
    };
    let size = match pagination.style.value {
        PagingStyle::Page | PagingStyle::Link => size("per_page"),
        PagingStyle::Offset | PagingStyle::Cursor => size("limit"),
    };
    position.into_iter().chain(size).collect()
}

/// The paging a list tool (`results.items`) walks over `operation`: the tool's `pagination`, else
/// the file's when the operation takes its parameters; `None` for a tool that lists nothing or an
/// operation without paging. One rule for `check` and the binder, one-call tools and workflows alike.
pub fn walked_pagination<'a>(
    curation: &'a Curation,
    tool: &'a ToolSpec,
    operation: &Operation,
) -> Option<&'a Pagination> {
    tool.results.as_ref()?.items.as_ref()?;
    let pagination = tool.pagination.as_ref().or(curation.pagination.as_ref())?;
    (tool.pagination.is_some() || takes_paging(pagination, operation)).then_some(pagination)
}

/// Where a `find` searches every page of the list a call step answers with: the file's
/// `pagination` (when the step's operation takes it) and the path of the list in the answer.
/// That is when exactly one later step, a `find`, reads the step's answer — its list — nothing
/// else does (the server hands the find the items of every page, not one page's answer), and the
/// step asks for no page of its own. One rule for `check`, which then does not warn that only the
/// first page is read, and for `bind`, which walks the pages.
pub fn find_walks<'c>(
    curation: &'c Curation,
    tool: &ToolSpec,
    index: usize,
    operation: &Operation,
) -> Option<(&'c Pagination, String)> {
    let step = &tool.steps.get(index)?.value;
    step.call.as_ref()?;
    let name = step.name.as_ref()?.value.as_str();
    let pagination = curation
        .pagination
        .as_ref()
        .filter(|p| takes_paging(p, operation))?;
    let position = match pagination.style.value {
        PagingStyle::Link => None,
        _ => paging_param_names(pagination).into_iter().next(),
    };
    if position.is_some_and(|p| step.args.keys().any(|arg| arg.value == p)) {
        return None;
    }
    if tool
        .results
        .as_ref()
        .and_then(|r| r.from.as_ref())
        .and_then(|from| Reference::read(&from.value))
        .is_some_and(|from| from.head == name)
    {
        return None;
    }
    let is_param = |n: &str| tool.params.keys().any(|k| k.value == n);
    let mut list = None;
    for later in tool.steps.iter().skip(index + 1).map(|s| &s.value) {
        let reads_it = step_values(later)
            .flat_map(|value| Written::read(&value.value, &is_param).answers())
            .chain(step_references(later).filter_map(|text| {
                Reference::read(&text.value)
                    .filter(|r| !is_param(r.head))
                    .map(|r| r.head)
            }))
            .filter(|head| *head == name)
            .count();
        let found = later
            .find
            .as_ref()
            .and_then(|find| Reference::read(&find.value))
            .filter(|r| r.head == name);
        match (reads_it, found) {
            (0, _) => {}
            (1, Some(found)) if list.is_none() => list = Some(found.path.to_string()),
            _ => return None,
        }
    }
    Some((pagination, list?))
}

/// The names of the API parameters `pagination` sets while it walks pages.
pub fn paging_param_names(pagination: &Pagination) -> Vec<String> {
    paging_params(pagination)
        .iter()
        .map(|(param, default)| param.map_or(default.to_string(), |p| p.value.clone()))
        .collect()
}

/// Does `operation` take every paging parameter of `pagination`?
pub fn takes_paging(pagination: &Pagination, operation: &Operation) -> bool {
    paging_params(pagination).iter().all(|(param, default)| {
        let name = param.map_or(*default, |p| p.value.as_str());
        operation
            .parameters
            .iter()
            .any(|p| p.name == name && p.location == Location::Query)
    })
}

/// Does the path glob `pattern` match `path`? `*` matches within one segment, `**` any number of
/// segments.
pub fn glob_matches(pattern: &str, path: &str) -> bool {
    fn segments(text: &str) -> Vec<&str> {
        text.split('/').filter(|s| !s.is_empty()).collect()
    }
    fn segment_matches(pattern: &str, segment: &str) -> bool {
        match pattern.split_once('*') {
            None => pattern == segment,
            Some((prefix, rest)) => {
                let Some(tail) = segment.strip_prefix(prefix) else {
                    return false;
                };
                (0..=tail.len())
                    .any(|i| tail.is_char_boundary(i) && segment_matches(rest, &tail[i..]))
            }
        }
    }
    fn matches(pattern: &[&str], path: &[&str]) -> bool {
        match pattern.split_first() {
            None => path.is_empty(),
            Some((&"**", rest)) => (0..=path.len()).any(|i| matches(rest, &path[i..])),
            Some((first, rest)) => match path.split_first() {
                Some((segment, path_rest)) => {
                    segment_matches(first, segment) && matches(rest, path_rest)
                }
                None => false,
            },
        }
    }
    matches(&segments(pattern), &segments(path))
}

/// The tool parameters a value written under `args` names as a whole (`$kind`), each with its
/// dotted path inside the value (`data.resource_subtype`; a list's items as `0`). Templates,
/// step results and the lists `$each` goes through are left out.
pub fn parameter_references(value: &Value) -> Vec<(String, String)> {
    Written::read(value, &|_| true).param_paths("")
}

/// What a step writes that may name the tool's parameters and earlier answers, as values:
/// its `args`, its `where` and a `resolve` step's `value`.
pub fn step_values(step: &Step) -> impl Iterator<Item = &Spanned<Value>> {
    step.args
        .values()
        .chain(step.where_fields.values())
        .chain(&step.value)
}

/// What a step writes that may name them as references in text: a `find`'s list, the values a
/// `stop_if` or a `when` compares, and a `stop_if`'s `result`.
pub fn step_references(step: &Step) -> impl Iterator<Item = &Spanned<String>> {
    step.find
        .iter()
        .chain(
            step.stop_if
                .iter()
                .flat_map(|stop| stop.equal.value.iter().chain(&stop.result)),
        )
        .chain(step.when.iter().flat_map(|when| &when.equal.value))
}

/// Where a resolver's `list` operation answers with its items (a dotted path, `""` for an answer
/// that is the list): the file's `items`, else the answer's only list. `None` when the file does
/// not say and the answer has no single list (`check` refuses that).
pub fn resolver_items(resolver: &Resolver, operation: &Operation) -> Option<String> {
    match &resolver.items {
        Some(items) => Some(items.value.clone()),
        None => crate::curate::schema::success_schema(operation)
            .and_then(crate::curate::schema::only_array),
    }
}

/// The file's paging, when the resolver's `list` operation takes it: the list is then walked
/// page by page.
pub fn resolver_paging<'a>(
    curation: &'a Curation,
    operation: &Operation,
) -> Option<&'a Pagination> {
    curation
        .pagination
        .as_ref()
        .filter(|pagination| takes_paging(pagination, operation))
}

/// The input of a resolver's `lookup` operation that takes the value: the file's `lookup_param`,
/// else the operation's one required input the resolver's `args` do not give (`check` refuses
/// an operation with none or several).
pub fn lookup_param(resolver: &Resolver, operation: &Operation) -> Option<String> {
    if let Some(param) = &resolver.lookup_param {
        return Some(param.value.clone());
    }
    let mut wanted = crate::curate::schema::operation_inputs(operation)
        .into_iter()
        .filter(|(input, _, required)| *required && !scoped_by(resolver, input))
        .map(|(input, _, _)| input);
    match (wanted.next(), wanted.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

/// The path of a resolver's id in an item (`id` unless the file says).
pub fn resolver_id_path(resolver: &Resolver) -> &str {
    resolver.id.as_ref().map_or("id", |id| id.value.as_str())
}

/// The schema of a resolver's ids, from the item its `list` operation lists (or its `lookup`
/// operation answers with), when the spec says.
pub fn resolver_id_schema(resolver: &Resolver, operation: &Operation) -> Option<Value> {
    let answer = crate::curate::schema::success_schema(operation)?;
    let item = if resolver.list.is_some() {
        let items = resolver_items(resolver, operation)?;
        let list = crate::curate::schema::schema_at(answer, &items).ok()??;
        crate::curate::schema::items_of(&list)?
    } else {
        answer.clone()
    };
    crate::curate::schema::schema_at(&item, resolver_id_path(resolver))
        .ok()?
        .map(std::borrow::Cow::into_owned)
}

/// A reference written in the file: `$name` (a tool parameter, or an earlier step's whole
/// result) or `$step.field.path` (a field of an earlier step's result). One reading for check,
/// which verifies it, and the binder, which binds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reference<'a> {
    /// What it names: a parameter or a step (`step` in `$step.id`).
    pub head: &'a str,
    /// The dotted path after it (`id`), empty for a whole value.
    pub path: &'a str,
}

impl<'a> Reference<'a> {
    /// The reference a text is, when it starts with `$`.
    pub fn read(text: &'a str) -> Option<Self> {
        let body = text.strip_prefix('$')?;
        let (head, path) = body.split_once('.').unwrap_or((body, ""));
        Some(Self { head, path })
    }

    /// The reference a value is, when it is such a text.
    pub fn of(value: &'a Value) -> Option<Self> {
        Self::read(value.as_str()?)
    }

    /// The name, when the reference is a whole value (`$name`): a parameter's, if the tool has
    /// one of that name (a parameter comes before a step's result of the same name, which
    /// `check` refuses anyway).
    pub fn whole(&self) -> Option<&'a str> {
        self.path.is_empty().then_some(self.head)
    }
}

/// As written: `$step` or `$step.field.path`.
impl std::fmt::Display for Reference<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.path {
            "" => write!(f, "${}", self.head),
            path => write!(f, "${}.{path}", self.head),
        }
    }
}

/// In a resolver's `args`, `$value` is the readable value being resolved: the resolver searches
/// with it (Jira's user search by `query`) rather than listing every item.
pub const SEARCHED: &str = "value";

/// Does the resolver's `args` value name the value being resolved (`$value`)?
pub fn is_searched(value: &Value) -> bool {
    Reference::of(value).and_then(|r| r.whole()) == Some(SEARCHED)
}

/// Does the resolver search with the value being resolved?
pub fn searches(resolver: &Resolver) -> bool {
    resolver
        .args
        .values()
        .any(|value| is_searched(&value.value))
}

/// The key of an object in `args` that keeps the object only when a value is present:
/// `{ $if: $description, type: doc, ... }` is sent when `description` is given, left out when not.
pub const IF_PRESENT: &str = "$if";

/// The names in `{name}` and `{name:…}` placeholders anywhere in the texts of `value`, read
/// leniently (for a template that is written wrongly).
fn placeholders(value: &Value) -> Vec<String> {
    match value {
        Value::String(text) => text
            .split('{')
            .skip(1)
            .filter_map(|rest| {
                let name = rest.split(['}', ':']).next()?;
                (!name.is_empty()).then(|| name.to_string())
            })
            .collect(),
        Value::Array(items) => items.iter().flat_map(placeholders).collect(),
        Value::Object(fields) => fields.values().flat_map(placeholders).collect(),
        _ => Vec::new(),
    }
}

/// The key of an object made once per item of a list (`{ $each: $list, id: $item }`).
pub const EACH: &str = "$each";

/// In an `$each` object, the name of its item: `$item`, `$item.id`.
pub const ITEM: &str = "item";

/// A value written where an argument goes (a step's `args`, a tool's `fixed`, a resolver's
/// `args`), read once: what each part of it is. `check` verifies each part against the slot it
/// fills, and the binder ([`super::bound`]) binds each part to where its value comes from, from
/// this one reading.
#[derive(Debug, Clone, PartialEq)]
pub enum Written<'v> {
    /// A text with `{name}` placeholders.
    Template(&'v Value),
    /// `$name`, a parameter of the tool.
    Param(&'v str),
    /// `$step` or `$step.field.path`: what an earlier step answered. (Any other `$` text reads
    /// the same way; `check` says it names no step.)
    Answer(Reference<'v>),
    /// An object kept only when `condition` has a value: `{ $if: $name, … }`.
    When {
        condition: Box<Written<'v>>,
        fields: Vec<(&'v str, Written<'v>)>,
    },
    /// One object per item of `list`: `{ $each: $reviewers, uuid: $item }`.
    Each {
        list: Box<Written<'v>>,
        fields: Vec<(&'v str, Written<'v>)>,
        /// `$if` was written beside `$each` (which `check` refuses: it would keep nothing).
        with_if: bool,
    },
    /// In an `$each` object, its item (`$item`), or a field of it at a dotted path
    /// (`$item.id`).
    Item(&'v str),
    /// An object, some field of which (at any depth) is not a literal.
    Object(Vec<(&'v str, Written<'v>)>),
    /// A list, some item of which (at any depth) is not a literal.
    Array(Vec<Written<'v>>),
    /// Sent as written.
    Literal(&'v Value),
}

impl<'v> Written<'v> {
    /// Reads `value`; `is_param` says which names are the tool's parameters.
    pub fn read(value: &'v Value, is_param: &dyn Fn(&str) -> bool) -> Self {
        Self::read_in(value, is_param, false)
    }

    /// Reads `value`, inside an `$each` object when `in_each` (where `$item` is its item).
    fn read_in(value: &'v Value, is_param: &dyn Fn(&str) -> bool, in_each: bool) -> Self {
        if Template::is_template(value) {
            return Written::Template(value);
        }
        if let Some(reference) = Reference::of(value) {
            return match reference.whole() {
                _ if in_each && reference.head == ITEM => Written::Item(reference.path),
                Some(name) if is_param(name) => Written::Param(name),
                _ => Written::Answer(reference),
            };
        }
        let fields = |fields: &'v serde_json::Map<String, Value>, in_each: bool| {
            fields
                .iter()
                .filter(|(name, _)| !matches!(name.as_str(), IF_PRESENT | EACH))
                .map(|(name, field)| (name.as_str(), Written::read_in(field, is_param, in_each)))
                .collect::<Vec<_>>()
        };
        match value {
            Value::Object(map) if map.contains_key(EACH) => Written::Each {
                list: Box::new(Written::read_in(&map[EACH], is_param, in_each)),
                fields: fields(map, true),
                with_if: map.contains_key(IF_PRESENT),
            },
            Value::Object(map) if map.contains_key(IF_PRESENT) => Written::When {
                condition: Box::new(Written::read_in(&map[IF_PRESENT], is_param, in_each)),
                fields: fields(map, in_each),
            },
            Value::Object(map) => {
                let fields = fields(map, in_each);
                if fields.iter().all(|(_, field)| field.is_literal()) {
                    Written::Literal(value)
                } else {
                    Written::Object(fields)
                }
            }
            Value::Array(items) => {
                let items: Vec<Written> = items
                    .iter()
                    .map(|item| Written::read_in(item, is_param, in_each))
                    .collect();
                if items.iter().all(Written::is_literal) {
                    Written::Literal(value)
                } else {
                    Written::Array(items)
                }
            }
            literal => Written::Literal(literal),
        }
    }

    /// The tool parameters it reads, at any depth, templates' placeholders included.
    pub fn params(&self) -> Vec<String> {
        match self {
            Written::Param(name) => vec![name.to_string()],
            Written::Template(value) => match Template::parse(value) {
                Ok(template) => template.params().into_iter().map(str::to_string).collect(),
                // A template `check` refuses still names what it would read.
                Err(_) => placeholders(value),
            },
            Written::When { condition, fields } => condition
                .params()
                .into_iter()
                .chain(fields.iter().flat_map(|(_, field)| field.params()))
                .collect(),
            Written::Each { list, fields, .. } => list
                .params()
                .into_iter()
                .chain(fields.iter().flat_map(|(_, field)| field.params()))
                .collect(),
            Written::Object(fields) => fields
                .iter()
                .flat_map(|(_, field)| field.params())
                .collect(),
            Written::Array(items) => items.iter().flat_map(Written::params).collect(),
            Written::Answer(_) | Written::Literal(_) | Written::Item(_) => Vec::new(),
        }
    }

    /// The parameters it names as a whole, each with its dotted path inside the value (see
    /// [`parameter_references`]).
    fn param_paths(&self, path: &str) -> Vec<(String, String)> {
        let inner = |key: &str| match path {
            "" => key.to_string(),
            path => format!("{path}.{key}"),
        };
        match self {
            Written::Param(name) => vec![(name.to_string(), path.to_string())],
            Written::When { fields, .. } | Written::Object(fields) => fields
                .iter()
                .flat_map(|(key, field)| field.param_paths(&inner(key)))
                .collect(),
            Written::Array(items) => items
                .iter()
                .flat_map(|item| item.param_paths(&inner("0")))
                .collect(),
            Written::Template(_)
            | Written::Answer(_)
            | Written::Each { .. }
            | Written::Item(_)
            | Written::Literal(_) => Vec::new(),
        }
    }

    /// The earlier answers it reads (`head` of each `$step.path`), at any depth.
    pub fn answers(&self) -> Vec<&'v str> {
        match self {
            Written::Answer(reference) => vec![reference.head],
            Written::When { condition, fields } => condition
                .answers()
                .into_iter()
                .chain(fields.iter().flat_map(|(_, field)| field.answers()))
                .collect(),
            Written::Object(fields) => fields
                .iter()
                .flat_map(|(_, field)| field.answers())
                .collect(),
            Written::Each { list, fields, .. } => list
                .answers()
                .into_iter()
                .chain(fields.iter().flat_map(|(_, field)| field.answers()))
                .collect(),
            Written::Array(items) => items.iter().flat_map(Written::answers).collect(),
            Written::Template(_) | Written::Param(_) | Written::Literal(_) | Written::Item(_) => {
                Vec::new()
            }
        }
    }

    pub fn is_literal(&self) -> bool {
        matches!(self, Written::Literal(_))
    }

    /// The object `fields` make, when every one is a literal.
    pub fn literal_object(fields: &[(&str, Written)]) -> Option<Value> {
        fields
            .iter()
            .map(|(name, field)| match field {
                Written::Literal(value) => Some((name.to_string(), (*value).clone())),
                _ => None,
            })
            .collect::<Option<serde_json::Map<_, _>>>()
            .map(Value::Object)
    }
}
