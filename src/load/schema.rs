//! OpenAPI schema objects → self-contained JSON Schema 2020-12.
//!
//! `$ref`s are inlined, except where a schema refers to itself, or where a large schema is
//! referenced more than once from one root (inlining every use of such schemas grows
//! exponentially in documents like Stripe's): that reference becomes `#/$defs/Name` and the
//! definition is placed under `$defs` of the converted root (the plan stage hoists it to the root
//! of the tool's schema). A referenced schema keeps one name under `$defs` across the whole
//! document, so the definitions of several roots can be merged. OpenAPI 3.0 dialect (`nullable`, `example`,
//! boolean `exclusiveMinimum`) is rewritten; 3.1 keywords (`const`, type arrays, `prefixItems`,
//! `$defs`) pass through.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

use indexmap::{IndexMap, IndexSet};
use serde_json::{Map, Value, json};

use super::repair::{self, Fix};
use super::{Fail, percent_decode, pointer_token};
use crate::api::subschemas;

/// OpenAPI-only keywords that mean nothing to a JSON Schema validator or a model, and the
/// identifiers of a schema resource (`$id`, `$schema`, `$anchor`): mcpgen resolves the document's
/// references itself, and an `$id` kept inside a tool's schema would make the validator look
/// for that schema's `#/$defs/…` references inside it, where they are not.
const DROPPED: &[&str] = &[
    "discriminator",
    "xml",
    "externalDocs",
    "nullable",
    "example",
    "$id",
    "$schema",
    "$anchor",
];

/// How many `$ref`s deep one schema is inlined; a reference deeper than that becomes a schema that
/// accepts any value of the referenced schema's type and names it (a tool's schema then stays
/// small even where an API's objects all refer to each other, as Stripe's do).
const MAX_REF_DEPTH: usize = 6;

/// How many schema keywords one root converts before every further `$ref` becomes such a schema
/// too: a tool's schema stays within a few thousand tokens however wide the API's objects are.
const ROOT_BUDGET: usize = 600;

/// A referenced schema this small (in JSON values, inlined) is always inlined, whatever the budget.
const SMALL_SCHEMA: u64 = 24;

/// A referenced schema whose fully inlined form has more JSON values than this is placed under
/// `$defs` when one root refers to it more than once.
const INLINE_LIMIT: u64 = 200;

/// What the converters of one document share: the names given to schemas under `$defs`, and the
/// inlined size of each referenced schema.
///
/// Both are worked out for every `$ref` of the document before anything is converted
/// ([`Self::prepare`]), in the document's order, and do not change after: what a root converts to
/// is then the same whichever root was converted before it, and roots can be converted on
/// several threads, each with a copy of the context ([`Self::copy`]). Measured as roots met
/// them instead, a size measured inside a cycle of references depends on where the measuring
/// entered the cycle, and so on the order of the roots.
#[derive(Debug, Default)]
pub struct SchemaContext {
    /// Referenced schema (JSON pointer) → its name under `$defs`, unique in the document.
    names: RefCell<FastMap<String, String>>,
    /// The names taken under `$defs`.
    taken: RefCell<FastSet<String>>,
    /// Last pointer token → the number its next name tries first: the names before it are
    /// taken (in GitHub's description, hundreds of targets end in `schema`: the schemas inside the
    /// responses and parameters `$ref`s point to).
    numbered: RefCell<FastMap<String, usize>>,
    /// The referenced schemas met so far, each with a number of its own ([`Targets`]).
    targets: RefCell<Targets>,
    /// What was repaired or dropped to make the schemas valid ([`repair`]): (JSON pointer in the
    /// document, what was done), each once, in the order met.
    warnings: RefCell<IndexSet<(String, String)>>,
    /// Pattern → why it is not a regular expression JSON Schema validators read
    /// ([`repair::regex_error`]; `None`: it is one), each pattern read once however many roots
    /// inline its schema.
    patterns: RefCell<FastMap<String, Option<String>>>,
    /// Every warning told while recording ([`Self::record`]), repeats included.
    recorded: RefCell<Option<Vec<(String, String)>>>,
    /// While roots are repaired on another thread ([`Self::defer`]): the warnings told, in
    /// order, with a place kept for those of each repair, which are known later.
    deferred: RefCell<Option<Vec<Told>>>,
}

/// A warning told while repairs are deferred ([`SchemaContext::defer`]), or the place of those
/// of a repair.
#[derive(Debug)]
enum Told {
    Warning(String, String),
    /// The warnings of repair number `.0`; those at the root's own place are told again at the
    /// place `.1` when given (a root converted once, used at another place), and only those.
    Repair(usize, Option<String>),
}

/// What was told converting and repairing a root on another thread, given back to the
/// document's context by [`SchemaContext::settle`].
#[derive(Debug)]
pub(super) struct ToldAside {
    /// The root's place.
    pub pointer: String,
    /// The warnings its conversion told, in order, repeats included.
    pub converted: Vec<(String, String)>,
    /// The warnings its repair told ([`repair::make_valid`]), all at the root's place.
    pub repaired: Vec<(String, String)>,
}

/// A map looked up by key only (never iterated, so its order cannot reach the output), with a
/// hasher faster than the standard one on the short keys loading hashes by the million.
pub(super) type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type FastSet<T> = HashSet<T, foldhash::fast::RandomState>;

/// The referenced schemas of a document (JSON pointers), numbered as they are met, with what is
/// known of each. Every root counts the references of every schema it reaches, and in a large
/// API most roots reach the same few hundred schemas: by number, that is a walk over arrays,
/// where by pointer it hashed and copied a string for every reference of every root (an eighth
/// of loading Stripe's description).
#[derive(Debug, Default, Clone)]
struct Targets {
    /// Pointer → its number.
    ids: FastMap<String, u32>,
    /// Number → pointer.
    pointers: Vec<String>,
    /// Number → the numbers of the `$ref`s in the schema (see [`refs_in`]), once looked for.
    refs: Vec<Option<Arc<[u32]>>>,
    /// Number → how many JSON values the schema has with every `$ref` inlined (a reference back
    /// into a schema being measured counts as one), once measured.
    sizes: Vec<Option<u64>>,
    /// The sizes are those of [`SchemaContext::prepare`]: a schema not measured then is measured
    /// each time it is asked for, and the size is not kept (kept, it would depend on what was
    /// measured before).
    frozen: bool,
    /// Number → the count of its references from the root being counted ([`Self::counted`]),
    /// valid where its `round` is the current one.
    counts: Vec<u32>,
    rounds: Vec<u32>,
    round: u32,
}

impl Targets {
    /// The number of the schema at `pointer`.
    fn id(&mut self, pointer: &str) -> u32 {
        if let Some(id) = self.ids.get(pointer) {
            return *id;
        }
        let id = self.pointers.len() as u32;
        self.ids.insert(pointer.to_string(), id);
        self.pointers.push(pointer.to_string());
        self.refs.push(None);
        self.sizes.push(None);
        self.counts.push(0);
        self.rounds.push(0);
        id
    }

    /// The numbers of the local `$ref`s in `value`, in document order (see [`refs_in`]).
    fn ids_in(&mut self, value: &Value) -> Vec<u32> {
        let mut refs = Vec::new();
        refs_in(value, &mut refs);
        refs.iter().map(|target| self.id(target)).collect()
    }

    /// The numbers of the `$ref`s in the schema numbered `id` of `document`.
    fn refs_of(&mut self, document: &Value, id: u32) -> Arc<[u32]> {
        if let Some(refs) = &self.refs[id as usize] {
            return Arc::clone(refs);
        }
        let refs: Arc<[u32]> = match resolve(document, &self.pointers[id as usize]) {
            Some(schema) => self.ids_in(schema).into(),
            None => Arc::from([]),
        };
        self.refs[id as usize] = Some(Arc::clone(&refs));
        refs
    }

    /// How many local `$ref`s to each schema are reachable from `value`, entering each
    /// referenced schema once: the schemas in the order they are first met, with their counts.
    fn counted(&mut self, document: &Value, value: &Value) -> Vec<(u32, u32)> {
        self.round += 1;
        let round = self.round;
        let mut met = Vec::new();
        // Depth first, each schema's references in order: the order the recursive walk meets them.
        let mut pending = self.ids_in(value);
        pending.reverse();
        while let Some(id) = pending.pop() {
            let at = id as usize;
            if self.rounds[at] == round {
                self.counts[at] += 1;
                continue;
            }
            self.rounds[at] = round;
            self.counts[at] = 1;
            met.push(id);
            let refs = self.refs_of(document, id);
            pending.extend(refs.iter().rev());
        }
        met.into_iter()
            .map(|id| (id, self.counts[id as usize]))
            .collect()
    }
}

impl SchemaContext {
    /// Makes this context, new, that of `document`, whose local `$ref`s are `refs`: each
    /// target numbered, measured and named in the order the `$ref`s are written (those in
    /// `paths` first, as the operations are converted), together with the schema inside each
    /// target that is a request body, response or parameter (what such a `$ref` is read as,
    /// [`schema_inside`]). A target met later (a `$ref` in literal data that a size counts) is
    /// measured each time and named by the context that meets it.
    pub fn prepare(&self, document: &Value, refs: &super::refs::LocalRefs) {
        let context = self;
        let count = {
            let mut targets = context.targets.borrow_mut();
            for fragment in refs.in_paths.iter().chain(&refs.others) {
                targets.id(&percent_decode(fragment));
            }
            let referenced = targets.pointers.len();
            for id in 0..referenced {
                let inside = document
                    .pointer(&targets.pointers[id])
                    .and_then(|value| schema_inside(value, &targets.pointers[id]));
                if let Some((inner, _)) = inside {
                    targets.id(&inner);
                }
            }
            targets.pointers.len()
        };
        let mut measuring = Vec::new();
        for id in 0..count as u32 {
            context.inlined_size_of(document, id, &mut measuring);
            let pointer = context.targets.borrow().pointers[id as usize].clone();
            context.name(&pointer);
        }
        context.targets.borrow_mut().frozen = true;
    }

    /// A context with this one's names and sizes and nothing told yet, for converting roots on
    /// another thread; what it is told is given back to this one (see
    /// [`super::Loader::operations`]).
    pub fn copy(&self) -> SchemaContext {
        SchemaContext {
            names: RefCell::new(self.names.borrow().clone()),
            taken: RefCell::new(self.taken.borrow().clone()),
            numbered: RefCell::new(self.numbered.borrow().clone()),
            targets: RefCell::new(self.targets.borrow().clone()),
            ..SchemaContext::default()
        }
    }

    /// The repairs made so far, each once, in the order they were made.
    pub fn take_warnings(&self) -> Vec<(String, String)> {
        self.warnings.take().into_iter().collect()
    }

    /// Why `pattern` is not a regular expression JSON Schema validators read, if it is not
    /// ([`repair::regex_error`]).
    fn regex_error(&self, pattern: &str) -> Option<String> {
        if let Some(known) = self.patterns.borrow().get(pattern) {
            return known.clone();
        }
        let error = repair::regex_error(pattern);
        self.patterns
            .borrow_mut()
            .insert(pattern.to_string(), error.clone());
        error
    }

    pub(super) fn warn(&self, pointer: String, message: String) {
        if let Some(recorded) = self.recorded.borrow_mut().as_mut() {
            recorded.push((pointer.clone(), message.clone()));
        }
        match self.deferred.borrow_mut().as_mut() {
            Some(told) => told.push(Told::Warning(pointer, message)),
            None => {
                self.warnings.borrow_mut().insert((pointer, message));
            }
        }
    }

    /// From now until [`Self::settle`], the warnings are kept in order with a place for those of
    /// each repair made aside ([`Self::repair_told`]).
    pub(super) fn defer(&self) {
        *self.deferred.borrow_mut() = Some(Vec::new());
    }

    /// Here come the warnings of repair number `repair`, at the root's place, or told again at
    /// `at`. Only while deferring ([`Self::defer`]).
    pub(super) fn repair_told(&self, repair: usize, at: Option<String>) {
        if let Some(told) = self.deferred.borrow_mut().as_mut() {
            told.push(Told::Repair(repair, at));
        }
    }

    /// Ends [`Self::defer`]: the warnings told since, in order, with each repair's (`repairs`,
    /// by number) in its place, as they would have been told had each root been converted and
    /// repaired where its place is.
    pub(super) fn settle(&self, repairs: &[ToldAside]) {
        let Some(told) = self.deferred.borrow_mut().take() else {
            return;
        };
        let mut warnings = self.warnings.borrow_mut();
        for told in told {
            match told {
                Told::Warning(pointer, message) => {
                    warnings.insert((pointer, message));
                }
                Told::Repair(repair, at) => {
                    let Some(aside) = repairs.get(repair) else {
                        continue;
                    };
                    match at {
                        None => {
                            for warning in aside.converted.iter().chain(&aside.repaired) {
                                warnings.insert(warning.clone());
                            }
                        }
                        Some(at) => {
                            let own_place = aside
                                .converted
                                .iter()
                                .filter(|(pointer, _)| *pointer == aside.pointer)
                                .chain(&aside.repaired);
                            for (_, message) in own_place {
                                warnings.insert((at.clone(), message.clone()));
                            }
                        }
                    }
                }
            }
        }
    }

    /// Keeps a copy of every warning told from now until [`Self::recorded`], whether or not
    /// it was told before.
    pub(super) fn record(&self) {
        *self.recorded.borrow_mut() = Some(Vec::new());
    }

    /// The warnings told since [`Self::record`], in order; recording stops.
    pub(super) fn recorded(&self) -> Vec<(String, String)> {
        self.recorded.borrow_mut().take().unwrap_or_default()
    }

    /// The name under `$defs` for the schema at `target`: its last pointer token, numbered when
    /// another schema of the document took it first.
    fn name(&self, target: &str) -> String {
        let mut names = self.names.borrow_mut();
        if let Some(name) = names.get(target) {
            return name.clone();
        }
        let last = last_token(target);
        let mut name = last.clone();
        let mut taken = self.taken.borrow_mut();
        if taken.contains(&name) {
            let mut numbered = self.numbered.borrow_mut();
            let n = numbered.entry(last.clone()).or_insert(2);
            loop {
                name = format!("{last}{n}");
                *n += 1;
                if !taken.contains(&name) {
                    break;
                }
            }
        }
        taken.insert(name.clone());
        names.insert(target.to_string(), name.clone());
        name
    }

    /// The inlined size of the schema at `target` (see [`Targets::sizes`]).
    fn inlined_size(&self, document: &Value, target: &str, measuring: &mut Vec<u32>) -> u64 {
        let id = self.targets.borrow_mut().id(target);
        self.inlined_size_of(document, id, measuring)
    }

    /// [`Self::inlined_size`] of the schema numbered `id`; `measuring`: the schemas being
    /// measured, outermost first.
    fn inlined_size_of(&self, document: &Value, id: u32, measuring: &mut Vec<u32>) -> u64 {
        let schema = {
            let targets = self.targets.borrow();
            if let Some(size) = targets.sizes[id as usize] {
                return size;
            }
            resolve(document, &targets.pointers[id as usize])
        };
        let Some(schema) = schema else {
            return 1;
        };
        measuring.push(id);
        let size = self.size_of(document, schema, measuring);
        measuring.pop();
        let mut targets = self.targets.borrow_mut();
        if !targets.frozen {
            targets.sizes[id as usize] = Some(size);
        }
        size
    }

    fn size_of(&self, document: &Value, value: &Value, measuring: &mut Vec<u32>) -> u64 {
        match value {
            Value::Object(object) => {
                if let Some(target) = local_ref(object) {
                    let id = self.targets.borrow_mut().id(&target);
                    if measuring.contains(&id) {
                        return 1;
                    }
                    return self.inlined_size_of(document, id, measuring);
                }
                object.values().fold(1, |sum, value| {
                    sum.saturating_add(self.size_of(document, value, measuring))
                })
            }
            Value::Array(items) => items.iter().fold(1, |sum, value| {
                sum.saturating_add(self.size_of(document, value, measuring))
            }),
            _ => 1,
        }
    }
}

/// The value at the JSON `pointer` in `document`, as [`Value::pointer`] finds it. Written here
/// because `Value::pointer` copies every token twice to unescape it (`~1`, `~0`), and
/// converting a large API's schemas follows hundreds of thousands of references: a token is
/// copied here only when it has a `~`.
pub(super) fn resolve<'v>(document: &'v Value, pointer: &str) -> Option<&'v Value> {
    if pointer.is_empty() {
        return Some(document);
    }
    let tokens = pointer.strip_prefix('/')?;
    tokens.split('/').try_fold(document, |value, token| {
        let token = match token.contains('~') {
            true => std::borrow::Cow::Owned(token.replace("~1", "/").replace("~0", "~")),
            false => std::borrow::Cow::Borrowed(token),
        };
        match value {
            Value::Object(object) => super::member(object, token.as_ref()),
            // As `Value::pointer` reads an index: decimal digits, no sign, no leading zero.
            Value::Array(items) if token == "0" || !token.starts_with(['0', '+']) => {
                items.get(token.parse::<usize>().ok()?)
            }
            _ => None,
        }
    })
}

/// The JSON pointer a local `$ref` (`#/...`) in `object` points to.
fn local_ref(object: &Map<String, Value>) -> Option<String> {
    let reference = super::member(object, "$ref")?.as_str()?;
    reference.strip_prefix('#').map(percent_decode)
}

/// The local `$ref`s in `value`, in document order, without entering the schemas they point to.
fn refs_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            if let Some(target) = local_ref(object) {
                out.push(target);
            }
            for value in object.values() {
                refs_in(value, out);
            }
        }
        Value::Array(items) => {
            for value in items {
                refs_in(value, out);
            }
        }
        _ => {}
    }
}

/// Where a schema is in the document: its JSON pointer, spelled out only when an error names it.
/// Conversion visits every keyword of every schema it inlines, and formatting a pointer for each
/// of them was a tenth of loading a large API.
#[derive(Clone, Copy)]
enum At<'p> {
    /// A pointer spelled out already (a root, or a referenced schema's target).
    Pointer(&'p str),
    /// The member `key` of the object at the first.
    Key(&'p At<'p>, &'p str),
    /// The item `index` of the list at the first.
    Index(&'p At<'p>, usize),
}

impl<'p> At<'p> {
    fn key(&'p self, key: &'p str) -> At<'p> {
        At::Key(self, key)
    }

    fn index(&'p self, index: usize) -> At<'p> {
        At::Index(self, index)
    }
}

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            At::Pointer(pointer) => f.write_str(pointer),
            At::Key(parent, key) => write!(f, "{parent}/{}", pointer_token(key)),
            At::Index(parent, index) => write!(f, "{parent}/{index}"),
        }
    }
}

/// Converts the schemas of one document; one converter per root schema.
pub struct SchemaConverter<'a> {
    document: &'a Value,
    context: &'a SchemaContext,
    /// Pointers of the referenced schemas being converted, innermost last.
    stack: Vec<String>,
    /// How deep in the root `convert` is (1 = the root itself, which is always inlined).
    depth: usize,
    /// Large schemas this root refers to more than once: placed under `$defs`.
    shared: FastSet<String>,
    /// Schema keywords converted so far for this root (see [`ROOT_BUDGET`]).
    converted: usize,
    /// References placed under `$defs` so far: pointer → name.
    recursive: IndexMap<String, String, foldhash::fast::RandomState>,
    /// Whether a schema cut short (see [`stub`]) names the schema it stands for, so that what
    /// reads an answer's fields can convert it after all ([`expand_stubs`]).
    expandable: bool,
}

impl<'a> SchemaConverter<'a> {
    pub fn new(document: &'a Value, context: &'a SchemaContext) -> Self {
        Self {
            document,
            context,
            stack: Vec::new(),
            depth: 0,
            shared: FastSet::default(),
            converted: 0,
            recursive: IndexMap::default(),
            expandable: false,
        }
    }

    /// This converter, with the schemas it cuts short naming what they stand for.
    pub fn expandable(mut self) -> Self {
        self.expandable = true;
        self
    }

    /// Converts `schema` (found at `pointer`) and attaches the definitions of its recursive and
    /// shared parts.
    pub fn convert_root(self, schema: &Value, pointer: &str) -> Result<Value, Fail> {
        let context = self.context;
        let mut converted = self.convert_unrepaired(schema, pointer)?;
        let mut warnings = Vec::new();
        repair::make_valid(&mut converted, pointer, &mut warnings)?;
        for (pointer, message) in warnings {
            context.warn(pointer, message);
        }
        Ok(converted)
    }

    /// [`Self::convert_root`] but for the last step, [`repair::make_valid`], which needs nothing
    /// of the document or the context and may be run elsewhere ([`super::Loader`] runs it on
    /// another thread).
    pub(super) fn convert_unrepaired(
        mut self,
        schema: &Value,
        pointer: &str,
    ) -> Result<Value, Fail> {
        // In the order the references are met: the sizes measured first are cached, and a size
        // measured inside a cycle depends on where the measuring entered it, so a random order
        // (a HashMap's) made the output of documents with cycles (Stripe's) differ run to run.
        let counts = self
            .context
            .targets
            .borrow_mut()
            .counted(self.document, schema);
        let mut measuring = Vec::new();
        self.shared = counts
            .into_iter()
            .filter(|(id, count)| {
                *count > 1
                    && self
                        .context
                        .inlined_size_of(self.document, *id, &mut measuring)
                        > INLINE_LIMIT
            })
            .map(|(id, _)| self.context.targets.borrow().pointers[id as usize].clone())
            .collect();
        let mut converted = self.convert(schema, &At::Pointer(pointer))?;
        let mut defs = Map::new();
        let mut next = 0;
        while let Some((target, name)) = self
            .recursive
            .get_index(next)
            .map(|(t, n)| (t.clone(), n.clone()))
        {
            next += 1;
            let Some(schema) = resolve(self.document, &target) else {
                return Err((pointer.into(), format!("`$ref` target {target} is missing")));
            };
            self.stack.push(target.clone());
            let definition = self.convert(schema, &At::Pointer(&target))?;
            self.stack.pop();
            if definition.get("$ref").and_then(Value::as_str) == Some(&def_ref(&name))
                && definition.as_object().is_some_and(|o| o.len() == 1)
            {
                return Err((
                    target,
                    "this `$ref` leads back to itself through other `$ref`s without ever reaching a schema".into(),
                ));
            }
            defs.insert(name, definition);
        }
        if !defs.is_empty() {
            match converted.as_object_mut() {
                Some(object) => {
                    object.insert("$defs".into(), Value::Object(defs));
                }
                None => {
                    // Built from the values rather than with `json!`, which would copy them.
                    let mut wrapper = Map::new();
                    wrapper.insert("allOf".into(), Value::Array(vec![converted]));
                    wrapper.insert("$defs".into(), Value::Object(defs));
                    converted = Value::Object(wrapper);
                }
            }
        }
        Ok(converted)
    }

    fn convert(&mut self, schema: &Value, at: &At<'_>) -> Result<Value, Fail> {
        self.depth += 1;
        let converted = self.convert_inner(schema, at);
        self.depth -= 1;
        converted
    }

    fn convert_inner(&mut self, schema: &Value, at: &At<'_>) -> Result<Value, Fail> {
        let Some(object) = schema.as_object() else {
            // `true`, `false`, or something that is not a schema: kept as is.
            return Ok(schema.clone());
        };
        if let Some(reference) = super::member(object, "$ref").and_then(Value::as_str) {
            return self.convert_ref(reference, object, at);
        }
        self.converted += object.len();
        let mut out = Map::with_capacity(object.len());
        // A `required` list written inside `properties`, moved to where it belongs.
        let mut misplaced_required = Vec::new();
        // The keywords looked up again once the others are converted, noted as they pass: most
        // schemas have none of them, and a lookup hashes the key.
        let mut later = Later::default();
        for (key, value) in object {
            later.note(key);
            if DROPPED.contains(&key.as_str()) || (key.starts_with("x-") && key != "x-mcp-header") {
                continue;
            }
            let at = at.key(key);
            let repaired;
            let value = match repair::keyword(key, value, object, &|p| self.context.regex_error(p))
            {
                None => value,
                Some(Fix::Drop(message)) => {
                    self.context.warn(at.to_string(), message);
                    continue;
                }
                Some(Fix::Replace(replacement, message)) => {
                    self.context.warn(at.to_string(), message);
                    if key == "type"
                        && let Some(format) = repair::implied_format(value)
                        && !object.contains_key("format")
                    {
                        out.insert("format".into(), json!(format));
                    }
                    repaired = replacement;
                    &repaired
                }
            };
            let converted = if subschemas::ONE.contains(&key.as_str()) && value.is_object() {
                self.convert(value, &at)?
            } else if key == "items" && value.is_array() {
                // Draft-4 tuple form: a list of item schemas is `prefixItems` in 2020-12.
                out.insert("prefixItems".into(), self.convert_list(value, &at)?);
                continue;
            } else if subschemas::LISTS.contains(&key.as_str()) && value.is_array() {
                self.convert_list(value, &at)?
            } else if subschemas::MAPS.contains(&key.as_str()) && value.is_object() {
                let mut map = Map::with_capacity(value.as_object().map_or(0, Map::len));
                for (name, schema) in value.as_object().into_iter().flatten() {
                    let place = at.key(name);
                    if key == "properties"
                        && name == "required"
                        && let Some(names) = schema.as_array()
                        && names.iter().all(Value::is_string)
                    {
                        self.context.warn(
                            place.to_string(),
                            "a `required` list inside `properties` is not a property; read as the `required` list of the object".into(),
                        );
                        misplaced_required.extend(names.iter().cloned());
                        continue;
                    }
                    if !schema.is_object() && !schema.is_boolean() {
                        self.context.warn(
                            place.to_string(),
                            format!("`{name}: {schema}` is not a schema (an object, true or false); dropped"),
                        );
                        continue;
                    }
                    if key == "patternProperties"
                        && let Some(error) = self.context.regex_error(name)
                    {
                        self.context.warn(
                            place.to_string(),
                            format!("`{name}` is not a regular expression JSON Schema validators can read ({error}); dropped"),
                        );
                        continue;
                    }
                    map.insert(name.clone(), self.convert(schema, &place)?);
                }
                Value::Object(map)
            } else {
                value.clone()
            };
            let key = if key == "definitions" { "$defs" } else { key };
            out.insert(key.to_string(), converted);
        }
        if !misplaced_required.is_empty() {
            let required = out.entry("required").or_insert_with(|| json!([]));
            if let Some(list) = required.as_array_mut() {
                for name in misplaced_required {
                    if !list.contains(&name) {
                        list.push(name);
                    }
                }
            }
        }
        if later.discriminator {
            discriminate(object, &mut out);
        }
        if later.exclusive_bound {
            rewrite_exclusive_bounds(&mut out);
        }
        if later.example
            && let Some(example) = object.get("example")
            && !out.contains_key("examples")
        {
            out.insert("examples".into(), json!([example]));
        }
        let mut converted = Value::Object(out);
        if later.nullable && object.get("nullable") == Some(&Value::Bool(true)) {
            converted = make_nullable(converted);
        }
        Ok(converted)
    }

    fn convert_list(&mut self, list: &Value, at: &At<'_>) -> Result<Value, Fail> {
        let mut out = Vec::with_capacity(list.as_array().map_or(0, Vec::len));
        for (index, schema) in list.as_array().into_iter().flatten().enumerate() {
            out.push(self.convert(schema, &at.index(index))?);
        }
        Ok(Value::Array(out))
    }

    fn convert_ref(
        &mut self,
        reference: &str,
        object: &Map<String, Value>,
        at: &At<'_>,
    ) -> Result<Value, Fail> {
        let Some(fragment) = reference.strip_prefix('#') else {
            return Err((
                at.to_string(),
                format!(
                    "`$ref: {reference}` points into another file; external references are not supported yet — bundle the document into one file"
                ),
            ));
        };
        let mut target = percent_decode(fragment);
        let Some(mut schema) = resolve(self.document, &target) else {
            return Err((
                at.to_string(),
                format!("`$ref: {reference}` points to nothing in this document"),
            ));
        };
        if let Some((inner, what)) = schema_inside(schema, &target)
            && let Some(inner_schema) = resolve(self.document, &inner)
        {
            self.context.warn(
                at.to_string(),
                format!("`$ref: {reference}` points to {what}, not to a schema; the schema it holds is used"),
            );
            schema = inner_schema;
            target = inner;
        }
        let nested = self.depth > 1;
        let over_budget = (self.stack.len() >= MAX_REF_DEPTH
            || (nested && self.converted > ROOT_BUDGET))
            && self
                .context
                .inlined_size(self.document, &target, &mut Vec::new())
                > SMALL_SCHEMA;
        let mut converted = if self.recursive.contains_key(&target)
            || (!over_budget
                && (self.stack.contains(&target) || (nested && self.shared.contains(&target))))
        {
            json!({ "$ref": def_ref(&self.def_name(&target)) })
        } else if over_budget {
            let mut stub = stub(schema, &target);
            if self.expandable
                && let Some(object) = stub.as_object_mut()
            {
                object.insert(STUB_OF.into(), Value::String(target.clone()));
            }
            stub
        } else {
            self.stack.push(target.clone());
            let result = self.convert(schema, &At::Pointer(&target));
            self.stack.pop();
            result?
        };
        // Keywords beside a `$ref` (allowed from 3.1) refine the referenced schema.
        let siblings: Vec<(&String, &Value)> = object
            .iter()
            .filter(|(key, _)| key.as_str() != "$ref" && key.as_str() != "nullable")
            .collect();
        if object.get("nullable") == Some(&Value::Bool(true)) {
            converted = make_nullable(converted);
        }
        if !siblings.is_empty() {
            let mut extra = Map::new();
            for (key, value) in siblings {
                extra.insert(key.clone(), value.clone());
            }
            let extra = self.convert(&Value::Object(extra), at)?;
            if let (Some(target), Some(extra)) = (converted.as_object_mut(), extra.as_object()) {
                for (key, value) in extra {
                    target.insert(key.clone(), value.clone());
                }
            }
        }
        Ok(converted)
    }

    /// The name under `$defs` for the schema at `target`, recorded for this root.
    fn def_name(&mut self, target: &str) -> String {
        if let Some(name) = self.recursive.get(target) {
            return name.clone();
        }
        let name = self.context.name(target);
        self.recursive.insert(target.to_string(), name.clone());
        name
    }
}

/// Which of the keywords that [`SchemaConverter::convert`] reads again after converting the
/// others a schema object has.
#[derive(Default)]
struct Later {
    discriminator: bool,
    exclusive_bound: bool,
    example: bool,
    nullable: bool,
}

impl Later {
    fn note(&mut self, key: &str) {
        match key {
            "discriminator" => self.discriminator = true,
            "exclusiveMinimum" | "exclusiveMaximum" => self.exclusive_bound = true,
            "example" => self.example = true,
            "nullable" => self.nullable = true,
            _ => {}
        }
    }
}

/// Where the schema is inside `value`, the request body, response, parameter or header at
/// `target` that a schema's `$ref` points to (a mistake some documents make), and what `value`
/// is; `None` when `value` is not one of those, or holds no schema.
fn schema_inside(value: &Value, target: &str) -> Option<(String, &'static str)> {
    let kinds = [
        ("/components/requestBodies/", "a request body"),
        ("/components/responses/", "a response"),
        ("/components/parameters/", "a parameter"),
        ("/components/headers/", "a header"),
    ];
    let (prefix, what) = kinds
        .iter()
        .find(|(prefix, _)| target.starts_with(prefix))?;
    if target[prefix.len()..].contains('/') {
        return None;
    }
    if value.get("schema").is_some() {
        return Some((format!("{target}/schema"), what));
    }
    let content = value.get("content")?.as_object()?;
    let (media, _) = content
        .iter()
        .filter(|(_, media)| media.get("schema").is_some())
        .find(|(media, _)| super::is_json(&media.to_ascii_lowercase()))
        .or_else(|| {
            content
                .iter()
                .find(|(_, media)| media.get("schema").is_some())
        })?;
    Some((
        format!("{target}/content/{}/schema", pointer_token(media)),
        what,
    ))
}

/// The keyword by which a schema cut short names the schema it stands for (a JSON pointer into
/// the document), in the answers of operations: an `x-` extension, which validators and the
/// published schemas leave out.
pub const STUB_OF: &str = "x-mcpgen-stub-of";

/// The keyword under which [`expand_stubs`] places, beside a schema cut short, the schema it
/// stands for.
pub const EXPANDED: &str = "x-mcpgen-expanded";

/// Converts, inside `schema` (an operation's answer converted [`SchemaConverter::expandable`]),
/// the schemas the loader cut short (to keep a tool's schema small) that `document` holds,
/// breadth first and at most `limit` of them: each is placed under [`EXPANDED`] beside the
/// schema that stands for it, which stays as it was (what the server publishes does not grow),
/// for what reads the answer's fields to follow. An expansion refers to nothing outside itself:
/// a part it would place under `$defs` (one that refers to itself) is a schema cut short in turn.
pub fn expand_stubs(document: &Value, schema: &mut Value, limit: usize) {
    let context = SchemaContext::default();
    let mut queue: std::collections::VecDeque<Vec<PathStep>> = std::collections::VecDeque::new();
    collect_stubs(schema, &mut Vec::new(), &mut queue);
    let mut expanded = 0;
    while let Some(path) = queue.pop_front() {
        if expanded == limit {
            return;
        }
        let Some(node) = step_to(schema, &path) else {
            continue;
        };
        let Some(target) = node
            .get(STUB_OF)
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            continue;
        };
        let Some(original) = document.pointer(&target) else {
            continue;
        };
        let Ok(mut full) = SchemaConverter::new(document, &context)
            .expandable()
            .convert_root(original, &target)
        else {
            continue;
        };
        self_contained(&mut full, &context);
        expanded += 1;
        let mut inner = path.clone();
        inner.push(PathStep::Key(EXPANDED.to_string()));
        collect_stubs(&full, &mut inner.clone(), &mut queue);
        if let Some(Value::Object(node)) = step_to_mut(schema, &path) {
            node.insert(EXPANDED.into(), full);
        }
    }
}

/// One step into a JSON value: a key of an object or an index of an array.
#[derive(Clone)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn step_to<'v>(value: &'v Value, path: &[PathStep]) -> Option<&'v Value> {
    path.iter().try_fold(value, |value, step| match step {
        PathStep::Key(key) => value.get(key),
        PathStep::Index(index) => value.get(index),
    })
}

fn step_to_mut<'v>(value: &'v mut Value, path: &[PathStep]) -> Option<&'v mut Value> {
    path.iter().try_fold(value, |value, step| match step {
        PathStep::Key(key) => value.get_mut(key),
        PathStep::Index(index) => value.get_mut(index),
    })
}

/// The paths of the schemas cut short in `value` (below `at`), shallowest first within it.
fn collect_stubs(
    value: &Value,
    at: &mut Vec<PathStep>,
    out: &mut std::collections::VecDeque<Vec<PathStep>>,
) {
    match value {
        Value::Object(object) => {
            if object.contains_key(STUB_OF) && !object.contains_key(EXPANDED) {
                out.push_back(at.clone());
            }
            for (key, inner) in object {
                at.push(PathStep::Key(key.clone()));
                collect_stubs(inner, at, out);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (index, inner) in items.iter().enumerate() {
                at.push(PathStep::Index(index));
                collect_stubs(inner, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

/// `schema` (converted by itself) without `$defs`: each reference to one of them becomes a
/// schema cut short that names it.
fn self_contained(schema: &mut Value, context: &SchemaContext) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if object.remove("$defs").is_none() {
        return;
    }
    let targets: HashMap<String, String> = context
        .names
        .borrow()
        .iter()
        .map(|(target, name)| (def_ref(name), target.clone()))
        .collect();
    fn replace(value: &mut Value, targets: &HashMap<String, String>) {
        match value {
            Value::Object(object) => {
                let target = object
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|reference| targets.get(reference));
                if let Some(target) = target {
                    let mut stub = Map::new();
                    stub.insert(STUB_OF.into(), Value::String(target.clone()));
                    *object = stub;
                    return;
                }
                object
                    .values_mut()
                    .for_each(|inner| replace(inner, targets));
            }
            Value::Array(items) => items.iter_mut().for_each(|inner| replace(inner, targets)),
            _ => {}
        }
    }
    replace(schema, &targets);
}

/// What stands for the schema at `target` beyond [`MAX_REF_DEPTH`]: its type and a description
/// naming it, accepting any value of that type.
fn stub(schema: &Value, target: &str) -> Value {
    let name = last_token(target);
    let mut stub = Map::new();
    if let Some(kind) = schema
        .get("type")
        .filter(|kind| kind.is_string() || kind.is_array())
    {
        stub.insert("type".into(), kind.clone());
    }
    let summary = schema
        .get("description")
        .and_then(Value::as_str)
        .and_then(|text| text.lines().next())
        .filter(|line| !line.trim().is_empty());
    let description = match summary {
        Some(line) => format!("A {name}: {}", line.trim()),
        None => format!("A {name}."),
    };
    stub.insert("description".into(), Value::String(description));
    if schema.get("nullable") == Some(&Value::Bool(true)) {
        return make_nullable(Value::Object(stub));
    }
    Value::Object(stub)
}

/// The last token of the JSON pointer `target`, unescaped: the referenced schema's own name.
fn last_token(target: &str) -> String {
    let last = target.rsplit('/').next().unwrap_or_default();
    last.replace("~1", "/").replace("~0", "~")
}

/// A JSON pointer to `name` under the root's `$defs`.
fn def_ref(name: &str) -> String {
    format!("#/$defs/{}", pointer_token(name))
}

/// OpenAPI 3.0 writes `exclusiveMinimum: true` beside `minimum`; 2020-12 wants the number.
fn rewrite_exclusive_bounds(schema: &mut Map<String, Value>) {
    for (exclusive, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        match schema.get(exclusive) {
            Some(Value::Bool(true)) => match schema.remove(bound) {
                Some(value) => {
                    schema.insert(exclusive.into(), value);
                }
                None => {
                    schema.remove(exclusive);
                }
            },
            Some(Value::Bool(false)) => {
                schema.remove(exclusive);
            }
            _ => {}
        }
    }
}

/// Lets `null` through a converted schema.
fn make_nullable(schema: Value) -> Value {
    let Value::Object(mut object) = schema else {
        return schema;
    };
    match super::member(&object, "type").cloned() {
        Some(Value::String(kind)) => {
            object.insert("type".into(), json!([kind, "null"]));
        }
        Some(Value::Array(mut kinds)) => {
            if !kinds.contains(&json!("null")) {
                kinds.push(json!("null"));
            }
            object.insert("type".into(), Value::Array(kinds));
        }
        // Built from the values rather than with `json!`, which would copy the schema.
        _ => {
            let mut wrapper = Map::new();
            wrapper.insert(
                "anyOf".into(),
                Value::Array(vec![Value::Object(object), json!({ "type": "null" })]),
            );
            return Value::Object(wrapper);
        }
    }
    if let Some(Value::Array(values)) = object.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    Value::Object(object)
}

/// Makes a `oneOf`/`anyOf` with a `discriminator` select its branch the way the OpenAPI
/// specification says: JSON Schema has no `discriminator`, and without it two object branches
/// whose properties are all optional both accept `{"petType": "cat"}`, so a `oneOf` refuses a
/// valid value ("valid under more than one of the schemas"). Each branch that is a `$ref` gets
/// the values of `propertyName` that select it (the `mapping` entries naming it, else the name
/// of the schema it refers to) as an `enum`, and the property as required.
fn discriminate(original: &Map<String, Value>, out: &mut Map<String, Value>) {
    let Some(property) = original
        .get("discriminator")
        .and_then(|d| d.get("propertyName"))
        .and_then(Value::as_str)
    else {
        return;
    };
    let mapping = original
        .get("discriminator")
        .and_then(|d| d.get("mapping"))
        .and_then(Value::as_object);
    for key in ["oneOf", "anyOf"] {
        let (Some(branches), Some(Value::Array(converted))) = (
            original.get(key).and_then(Value::as_array),
            out.get_mut(key),
        ) else {
            continue;
        };
        if branches.len() != converted.len() {
            continue;
        }
        for (branch, converted) in branches.iter().zip(converted.iter_mut()) {
            let Some(reference) = branch.get("$ref").and_then(Value::as_str) else {
                continue;
            };
            let name = reference.rsplit('/').next().unwrap_or(reference);
            let mut values: Vec<Value> = mapping
                .into_iter()
                .flatten()
                .filter(|(_, target)| {
                    target.as_str().is_some_and(|target| {
                        target == reference || (!target.contains('/') && target == name)
                    })
                })
                .map(|(value, _)| Value::String(value.clone()))
                .collect();
            if values.is_empty() {
                values.push(Value::String(name.to_string()));
            }
            let mut selected = Map::new();
            selected.insert("allOf".into(), Value::Array(vec![converted.take()]));
            selected.insert("properties".into(), json!({ property: { "enum": values } }));
            selected.insert("required".into(), json!([property]));
            *converted = Value::Object(selected);
        }
    }
}
