//! Checking a JSON value against one of the JSON Schemas a tool publishes (its `inputSchema`,
//! its `outputSchema`, what a workflow reads of an answer), and saying where and why it does not
//! fit.
//!
//! Why not a JSON Schema crate: the schemas mcpgen publishes are JSON Schema 2020-12 made from
//! OpenAPI, self-contained (a `$ref` points only into the root's `$defs`), without `$id`,
//! `$anchor`, `$dynamicRef` or `unevaluated*`, and a checker for that keyword set is this file.
//! The `jsonschema` crate that did the job before was 43 crates and a quarter of a generated
//! server's cold debug build (fancy-regex, regex, num-*, email_address, …); `boon`, the lightest
//! full validator found, still brings `regex`, `fluent-uri`, `ahash` and its own 13 s of release
//! build. Patterns are compiled by `regex-lite`, a few seconds to build: its syntax is the
//! ECMAScript subset API descriptions use (`^[A-Z]{3}-[0-9]+$`, ASCII `\d`, `\w`, `\s`); a pattern
//! it cannot read (a look-around, a Unicode class) is left unchecked and reported by
//! [`Schema::new`], and everything else in the schema is still checked. mcpgen reads the
//! patterns of every schema a server will check with [`each_pattern`] and [`pattern_problem`],
//! and warns, when it generates the server, of those left unchecked.
//!
//! Keywords checked: `type`, `enum`, `const`, `minimum`, `maximum`, `exclusiveMinimum`,
//! `exclusiveMaximum`, `multipleOf`, `minLength`, `maxLength`, `pattern`, `format`, `items`,
//! `prefixItems`, `minItems`, `maxItems`, `uniqueItems`, `contains` (with `minContains`,
//! `maxContains`), `properties`, `patternProperties`, `additionalProperties`, `required`,
//! `dependentRequired`, `dependentSchemas`, `propertyNames`, `minProperties`, `maxProperties`,
//! `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else` and local `$ref`s (`#/…`). Formats
//! checked: `date`, `date-time`, `time`, `duration`, `email`, `idn-email`, `hostname`,
//! `idn-hostname`, `ipv4`, `ipv6`, `uri`, `iri`, `uri-reference`, `iri-reference`, `uuid` and
//! `json-pointer`; any other format (OpenAPI's `int32`, `binary`, …) fits anything, as JSON
//! Schema has it. Errors read as the `jsonschema` crate's did (`9 is not of type "string"`).

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Number, Value};

/// How deep checking goes into nested schemas and references before it gives up on a branch
/// (it then fits): only a `$ref` that loops without entering the value gets this deep.
const MAX_DEPTH: usize = 200;

/// A compiled schema: the schema itself and its patterns, compiled once.
#[derive(Debug)]
pub struct Schema {
    root: Value,
    patterns: HashMap<String, regex_lite::Regex>,
}

/// One way a value breaks a schema.
#[derive(Debug)]
pub struct SchemaError<'a> {
    /// Where in the value, as a JSON pointer (`/labels/0`; empty for the value itself).
    pub path: String,
    /// The part of the value that breaks the rule.
    pub instance: &'a Value,
    /// The schema object holding the keyword that failed.
    pub rule: &'a Value,
    /// Which keyword failed, and how.
    pub kind: ErrorKind<'a>,
}

/// Which keyword a value breaks, with what the keyword asks for.
#[derive(Debug)]
pub enum ErrorKind<'a> {
    /// `type`: the types allowed.
    Type {
        expected: Vec<&'a str>,
    },
    /// `enum`: the values allowed (a JSON array).
    Enum {
        options: &'a Value,
    },
    /// `const`: the one value allowed.
    Const {
        expected: &'a Value,
    },
    Minimum {
        limit: &'a Number,
    },
    Maximum {
        limit: &'a Number,
    },
    ExclusiveMinimum {
        limit: &'a Number,
    },
    ExclusiveMaximum {
        limit: &'a Number,
    },
    MultipleOf {
        factor: &'a Number,
    },
    MinLength {
        limit: u64,
    },
    MaxLength {
        limit: u64,
    },
    Pattern {
        pattern: &'a str,
    },
    Format {
        format: &'a str,
    },
    MinItems {
        limit: u64,
    },
    MaxItems {
        limit: u64,
    },
    UniqueItems,
    /// `contains` (with `minContains`/`maxContains`): too few or too many items fit it.
    Contains,
    /// `required` or `dependentRequired`: a property that is missing.
    Required {
        property: &'a str,
    },
    /// `additionalProperties`: the properties it does not allow, in the value's order.
    AdditionalProperties {
        unexpected: Vec<&'a str>,
    },
    MinProperties {
        limit: u64,
    },
    MaxProperties {
        limit: u64,
    },
    /// `propertyNames`: a property name that breaks its schema.
    PropertyName {
        name: &'a str,
    },
    AnyOf,
    /// `oneOf` where no schema fits.
    OneOfNone,
    /// `oneOf` where more than one schema fits.
    OneOfMany,
    /// `not`: the schema the value must not fit.
    Not {
        schema: &'a Value,
    },
    /// The schema `false`, which nothing fits.
    False,
}

impl Schema {
    /// Compiles `schema`, and says which of its patterns cannot be checked, each once (each is
    /// then left out; everything else is checked).
    pub fn new(schema: &Value) -> (Self, Vec<String>) {
        let mut patterns = HashMap::new();
        let mut refused = Vec::new();
        let mut problems = Vec::new();
        each_pattern(schema, &mut |pattern| {
            if patterns.contains_key(pattern) || refused.contains(&pattern) {
                return;
            }
            match compile_pattern(pattern) {
                Ok(regex) => {
                    patterns.insert(pattern.to_string(), regex);
                }
                Err(why) => {
                    refused.push(pattern);
                    problems.push(format!("the pattern `{pattern}` is not checked: {why}"));
                }
            }
        });
        let schema = Self {
            root: schema.clone(),
            patterns,
        };
        (schema, problems)
    }

    /// The ways `value` breaks the schema, at most `limit` of them, in the order of the schema's
    /// keywords.
    pub fn errors<'a>(&'a self, value: &'a Value, limit: usize) -> Vec<SchemaError<'a>> {
        let mut check = Check {
            schema: self,
            errors: Vec::new(),
            limit,
            path: Vec::new(),
        };
        check.value(&self.root, value, 0);
        check.errors
    }

    /// Whether `value` fits the schema.
    pub fn is_valid(&self, value: &Value) -> bool {
        self.errors(value, 1).is_empty()
    }
}

/// Calls `found` with every pattern `schema` holds, as [`Schema::new`] compiles them: each
/// `pattern` and each key of a `patternProperties`, in the order they are written, a pattern
/// written twice given twice. What `enum`, `const`, `default` and the examples hold is data, not
/// schemas, and is not searched.
pub fn each_pattern<'a>(schema: &'a Value, found: &mut impl FnMut(&'a str)) {
    match schema {
        Value::Object(object) => {
            for (key, child) in object {
                match (key.as_str(), child) {
                    ("pattern", Value::String(pattern)) => found(pattern),
                    ("patternProperties", Value::Object(by_pattern)) => {
                        for pattern in by_pattern.keys() {
                            found(pattern);
                        }
                    }
                    // Values, not schemas: a `pattern` key in them is data.
                    ("enum" | "const" | "default" | "examples" | "example", _) => continue,
                    _ => {}
                }
                each_pattern(child, found);
            }
        }
        Value::Array(items) => {
            for item in items {
                each_pattern(item, found);
            }
        }
        _ => {}
    }
}

/// Why the checker cannot read `pattern`, if it cannot (then [`Schema::new`] leaves it
/// unchecked): `regex-lite`'s reason, as `look-around, including look-ahead and look-behind,
/// is not supported`.
pub fn pattern_problem(pattern: &str) -> Option<String> {
    compile_pattern(pattern).err()
}

/// `pattern` compiled, or why it cannot be (the last line of `regex-lite`'s error, which is the
/// reason; the lines before it repeat the pattern).
fn compile_pattern(pattern: &str) -> Result<regex_lite::Regex, String> {
    regex_lite::Regex::new(pattern).map_err(|error| {
        error
            .to_string()
            .lines()
            .last()
            .unwrap_or_default()
            .to_string()
    })
}

/// One run of checking: the errors found so far and where in the value it is.
struct Check<'a> {
    schema: &'a Schema,
    errors: Vec<SchemaError<'a>>,
    limit: usize,
    /// The members entered, spelled out as a JSON pointer only when an error names the place.
    path: Vec<Segment<'a>>,
}

/// One step into a value: an object's member or an array's item.
#[derive(Clone, Copy)]
enum Segment<'a> {
    Member(&'a str),
    Item(usize),
}

/// `path` as a JSON pointer: `/labels/0`, `/a~1b` for the member `a/b`.
fn pointer(path: &[Segment<'_>]) -> String {
    let mut pointer = String::new();
    for segment in path {
        pointer.push('/');
        match segment {
            Segment::Member(name) => pointer.push_str(&name.replace('~', "~0").replace('/', "~1")),
            Segment::Item(index) => pointer.push_str(&index.to_string()),
        }
    }
    pointer
}

impl<'a> Check<'a> {
    fn full(&self) -> bool {
        self.errors.len() >= self.limit
    }

    fn fail(&mut self, rule: &'a Value, instance: &'a Value, kind: ErrorKind<'a>) {
        if !self.full() {
            self.errors.push(SchemaError {
                path: pointer(&self.path),
                instance,
                rule,
                kind,
            });
        }
    }

    /// Whether `value` fits `rule`, without recording why not; `value` may be one made while
    /// checking (a property name), which no error of this check borrows.
    fn fits<'b>(&self, rule: &'b Value, value: &'b Value, depth: usize) -> bool
    where
        'a: 'b,
    {
        let mut check = Check {
            schema: self.schema,
            errors: Vec::new(),
            limit: 1,
            path: Vec::new(),
        };
        check.value(rule, value, depth);
        check.errors.is_empty()
    }

    /// Checks `value` against `rule` as the member or item `segment` of the value checked now.
    fn child(&mut self, segment: Segment<'a>, rule: &'a Value, value: &'a Value, depth: usize) {
        self.path.push(segment);
        self.value(rule, value, depth);
        self.path.pop();
    }

    fn value(&mut self, rule: &'a Value, value: &'a Value, depth: usize) {
        if self.full() || depth > MAX_DEPTH {
            return;
        }
        let object = match rule {
            Value::Object(object) => object,
            Value::Bool(false) => return self.fail(rule, value, ErrorKind::False),
            _ => return,
        };
        for (keyword, argument) in object {
            if self.full() {
                return;
            }
            self.keyword(rule, object, keyword, argument, value, depth);
        }
    }

    /// Checks one keyword of `object` (which is `rule`).
    fn keyword(
        &mut self,
        rule: &'a Value,
        object: &'a Map<String, Value>,
        keyword: &str,
        argument: &'a Value,
        value: &'a Value,
        depth: usize,
    ) {
        let depth = depth + 1;
        match (keyword, argument) {
            ("$ref", Value::String(reference)) => {
                if let Some(target) = self.resolve(reference) {
                    self.value(target, value, depth);
                }
            }
            ("type", _) => {
                let expected: Vec<&str> = match argument {
                    Value::String(name) => vec![name.as_str()],
                    Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
                    _ => return,
                };
                if !expected.iter().any(|name| is_type(value, name)) {
                    self.fail(rule, value, ErrorKind::Type { expected });
                }
            }
            ("enum", Value::Array(options))
                if !options.iter().any(|option| equal(option, value)) =>
            {
                self.fail(rule, value, ErrorKind::Enum { options: argument });
            }
            ("const", expected) if !equal(expected, value) => {
                self.fail(rule, value, ErrorKind::Const { expected });
            }
            ("minimum", Value::Number(limit)) => {
                if let Value::Number(number) = value
                    && compare(number, limit).is_lt()
                {
                    self.fail(rule, value, ErrorKind::Minimum { limit });
                }
            }
            ("maximum", Value::Number(limit)) => {
                if let Value::Number(number) = value
                    && compare(number, limit).is_gt()
                {
                    self.fail(rule, value, ErrorKind::Maximum { limit });
                }
            }
            ("exclusiveMinimum", Value::Number(limit)) => {
                if let Value::Number(number) = value
                    && compare(number, limit).is_le()
                {
                    self.fail(rule, value, ErrorKind::ExclusiveMinimum { limit });
                }
            }
            ("exclusiveMaximum", Value::Number(limit)) => {
                if let Value::Number(number) = value
                    && compare(number, limit).is_ge()
                {
                    self.fail(rule, value, ErrorKind::ExclusiveMaximum { limit });
                }
            }
            ("multipleOf", Value::Number(factor)) => {
                if let Value::Number(number) = value
                    && !is_multiple(number, factor)
                {
                    self.fail(rule, value, ErrorKind::MultipleOf { factor });
                }
            }
            ("minLength", Value::Number(limit)) => {
                if let (Value::String(text), Some(limit)) = (value, limit.as_u64())
                    && (text.chars().count() as u64) < limit
                {
                    self.fail(rule, value, ErrorKind::MinLength { limit });
                }
            }
            ("maxLength", Value::Number(limit)) => {
                if let (Value::String(text), Some(limit)) = (value, limit.as_u64())
                    && text.chars().count() as u64 > limit
                {
                    self.fail(rule, value, ErrorKind::MaxLength { limit });
                }
            }
            ("pattern", Value::String(pattern)) => {
                if let Value::String(text) = value
                    && let Some(regex) = self.schema.patterns.get(pattern)
                    && !regex.is_match(text)
                {
                    self.fail(rule, value, ErrorKind::Pattern { pattern });
                }
            }
            ("format", Value::String(format)) if !fits_format(format, value) => {
                self.fail(rule, value, ErrorKind::Format { format });
            }
            ("prefixItems", Value::Array(rules)) => {
                if let Value::Array(items) = value {
                    for (index, (rule, item)) in rules.iter().zip(items).enumerate() {
                        self.child(Segment::Item(index), rule, item, depth);
                    }
                }
            }
            ("items", _) => {
                if let Value::Array(items) = value {
                    // After `prefixItems`, `items` applies to the rest; an array of schemas
                    // (drafts before 2020-12) is `prefixItems`.
                    let (skip, rules) = match argument {
                        Value::Array(rules) => (0, Some(rules)),
                        _ => (
                            object
                                .get("prefixItems")
                                .and_then(Value::as_array)
                                .map_or(0, Vec::len),
                            None,
                        ),
                    };
                    for (index, item) in items.iter().enumerate().skip(skip) {
                        let rule = match rules {
                            Some(rules) => match rules.get(index) {
                                Some(rule) => rule,
                                None => break,
                            },
                            None => argument,
                        };
                        self.child(Segment::Item(index), rule, item, depth);
                    }
                }
            }
            ("minItems", Value::Number(limit)) => {
                if let (Value::Array(items), Some(limit)) = (value, limit.as_u64())
                    && (items.len() as u64) < limit
                {
                    self.fail(rule, value, ErrorKind::MinItems { limit });
                }
            }
            ("maxItems", Value::Number(limit)) => {
                if let (Value::Array(items), Some(limit)) = (value, limit.as_u64())
                    && items.len() as u64 > limit
                {
                    self.fail(rule, value, ErrorKind::MaxItems { limit });
                }
            }
            ("uniqueItems", Value::Bool(true)) => {
                if let Value::Array(items) = value
                    && items
                        .iter()
                        .enumerate()
                        .any(|(index, item)| items[..index].iter().any(|other| equal(item, other)))
                {
                    self.fail(rule, value, ErrorKind::UniqueItems);
                }
            }
            ("contains", _) => {
                if let Value::Array(items) = value {
                    let bound = |key: &str| object.get(key).and_then(Value::as_u64);
                    let found = items
                        .iter()
                        .filter(|item| self.fits(argument, item, depth))
                        .count() as u64;
                    if found < bound("minContains").unwrap_or(1)
                        || bound("maxContains").is_some_and(|most| found > most)
                    {
                        self.fail(rule, value, ErrorKind::Contains);
                    }
                }
            }
            ("properties", Value::Object(properties)) => {
                if let Value::Object(members) = value {
                    let mut members_in_order = Members::new(members);
                    for (name, rule) in properties {
                        if let Some(member) = members_in_order.get(name) {
                            self.child(Segment::Member(name), rule, member, depth);
                        }
                    }
                }
            }
            ("patternProperties", Value::Object(by_pattern)) => {
                if let Value::Object(members) = value {
                    for (pattern, rule) in by_pattern {
                        let Some(regex) = self.schema.patterns.get(pattern) else {
                            continue;
                        };
                        for (name, member) in members {
                            if regex.is_match(name) {
                                self.child(Segment::Member(name), rule, member, depth);
                            }
                        }
                    }
                }
            }
            ("additionalProperties", _) => {
                if let Value::Object(members) = value {
                    let properties = object.get("properties").and_then(Value::as_object);
                    let patterns: Vec<&regex_lite::Regex> = object
                        .get("patternProperties")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flat_map(|by_pattern| by_pattern.keys())
                        .filter_map(|pattern| self.schema.patterns.get(pattern))
                        .collect();
                    let mut named = properties.map(Members::new);
                    let additional = members.iter().filter(move |(name, _)| {
                        named
                            .as_mut()
                            .is_none_or(|properties| properties.get(name).is_none())
                            && !patterns.iter().any(|regex| regex.is_match(name))
                    });
                    if argument == &Value::Bool(false) {
                        let unexpected: Vec<&str> =
                            additional.map(|(name, _)| name.as_str()).collect();
                        if !unexpected.is_empty() {
                            self.fail(rule, value, ErrorKind::AdditionalProperties { unexpected });
                        }
                    } else {
                        for (name, member) in additional {
                            self.child(Segment::Member(name), argument, member, depth);
                        }
                    }
                }
            }
            ("required", Value::Array(names)) => {
                if let Value::Object(members) = value {
                    let mut members_in_order = Members::new(members);
                    for property in names.iter().filter_map(Value::as_str) {
                        if members_in_order.get(property).is_none() {
                            self.fail(rule, value, ErrorKind::Required { property });
                        }
                    }
                }
            }
            ("dependentRequired", Value::Object(dependencies)) => {
                if let Value::Object(members) = value {
                    for (name, needed) in dependencies {
                        if !members.contains_key(name) {
                            continue;
                        }
                        for property in needed.as_array().into_iter().flatten() {
                            if let Some(property) = property.as_str()
                                && !members.contains_key(property)
                            {
                                self.fail(rule, value, ErrorKind::Required { property });
                            }
                        }
                    }
                }
            }
            ("dependentSchemas", Value::Object(dependencies)) => {
                if let Value::Object(members) = value {
                    for (name, schema) in dependencies {
                        if members.contains_key(name) {
                            self.value(schema, value, depth);
                        }
                    }
                }
            }
            ("propertyNames", _) => {
                if let Value::Object(members) = value {
                    for name in members.keys() {
                        // The name is checked as a string value of its own.
                        let text = Value::String(name.clone());
                        if !self.fits(argument, &text, depth) {
                            self.fail(rule, value, ErrorKind::PropertyName { name });
                        }
                    }
                }
            }
            ("minProperties", Value::Number(limit)) => {
                if let (Value::Object(members), Some(limit)) = (value, limit.as_u64())
                    && (members.len() as u64) < limit
                {
                    self.fail(rule, value, ErrorKind::MinProperties { limit });
                }
            }
            ("maxProperties", Value::Number(limit)) => {
                if let (Value::Object(members), Some(limit)) = (value, limit.as_u64())
                    && members.len() as u64 > limit
                {
                    self.fail(rule, value, ErrorKind::MaxProperties { limit });
                }
            }
            ("allOf", Value::Array(rules)) => {
                for rule in rules {
                    self.value(rule, value, depth);
                }
            }
            ("anyOf", Value::Array(rules))
                if !rules.iter().any(|rule| self.fits(rule, value, depth)) =>
            {
                self.fail(rule, value, ErrorKind::AnyOf);
            }
            ("oneOf", Value::Array(rules)) => {
                match rules
                    .iter()
                    .filter(|rule| self.fits(rule, value, depth))
                    .take(2)
                    .count()
                {
                    0 => self.fail(rule, value, ErrorKind::OneOfNone),
                    1 => {}
                    _ => self.fail(rule, value, ErrorKind::OneOfMany),
                }
            }
            ("not", schema) if self.fits(schema, value, depth) => {
                self.fail(rule, value, ErrorKind::Not { schema });
            }
            ("if", condition) => {
                let branch = if self.fits(condition, value, depth) {
                    object.get("then")
                } else {
                    object.get("else")
                };
                if let Some(branch) = branch {
                    self.value(branch, value, depth);
                }
            }
            _ => {}
        }
    }

    /// The schema a local reference (`#`, `#/$defs/Name`) points to.
    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        // A URI fragment: its `%XX` escapes decoded, it is a JSON pointer.
        let pointer = reference.strip_prefix('#')?;
        let pointer = percent_encoding::percent_decode_str(pointer).decode_utf8_lossy();
        self.schema.root.pointer(&pointer)
    }
}

/// An object's members, looked up by name in the order a schema names them. An answer usually
/// lists its members in the order its schema does, so each lookup first tries the member after
/// the one found last, a comparison of two strings, before it hashes the name: checking a
/// list of 50 objects of 13 members spent a third of its time hashing names without this.
struct Members<'m> {
    members: &'m Map<String, Value>,
    next: serde_json::map::Iter<'m>,
}

impl<'m> Members<'m> {
    fn new(members: &'m Map<String, Value>) -> Self {
        Self {
            members,
            next: members.iter(),
        }
    }

    fn get(&mut self, name: &str) -> Option<&'m Value> {
        let mut ahead = self.next.clone();
        match ahead.next() {
            Some((key, member)) if key == name => {
                self.next = ahead;
                Some(member)
            }
            _ => self.members.get(name),
        }
    }
}

/// Whether `value` is of the JSON Schema type `name`; an integer is a number without a
/// fraction, `1.0` among them.
fn is_type(value: &Value, name: &str) -> bool {
    match (name, value) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("number", Value::Number(_))
        | ("string", Value::String(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_)) => true,
        ("integer", Value::Number(number)) => {
            !number.is_f64() || number.as_f64().is_some_and(|float| float.fract() == 0.0)
        }
        _ => false,
    }
}

/// Whether two JSON values are equal as JSON Schema compares them: numbers by value (`1` equals
/// `1.0`), objects whatever the order of their members.
fn equal(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(left), Value::Number(right)) => compare(left, right).is_eq(),
        (Value::Array(left), Value::Array(right)) => {
            left.len() == right.len() && left.iter().zip(right).all(|(l, r)| equal(l, r))
        }
        (Value::Object(left), Value::Object(right)) => {
            left.len() == right.len()
                && left
                    .iter()
                    .all(|(key, l)| right.get(key).is_some_and(|r| equal(l, r)))
        }
        _ => left == right,
    }
}

/// Orders two numbers by value, exactly for two integers.
fn compare(left: &Number, right: &Number) -> std::cmp::Ordering {
    if let (Some(left), Some(right)) = (left.as_i64(), right.as_i64()) {
        return left.cmp(&right);
    }
    if let (Some(left), Some(right)) = (left.as_u64(), right.as_u64()) {
        return left.cmp(&right);
    }
    let (left, right) = (
        left.as_f64().unwrap_or(f64::NAN),
        right.as_f64().unwrap_or(f64::NAN),
    );
    left.partial_cmp(&right)
        .unwrap_or(std::cmp::Ordering::Equal)
}

/// Whether `number` is a whole multiple of `factor` (for fractions, up to rounding: `0.3` is a
/// multiple of `0.1`).
fn is_multiple(number: &Number, factor: &Number) -> bool {
    if let (Some(number), Some(factor)) = (number.as_i64(), factor.as_i64()) {
        return factor == 0 || number % factor == 0;
    }
    let (Some(number), Some(factor)) = (number.as_f64(), factor.as_f64()) else {
        return true;
    };
    if factor == 0.0 {
        return true;
    }
    let quotient = number / factor;
    (quotient - quotient.round()).abs() <= 1e-9 * quotient.abs().max(1.0)
}

/// Whether `value` fits the string format `format`. Values that are not strings, and formats
/// not checked here, fit.
pub fn fits_format(format: &str, value: &Value) -> bool {
    let Value::String(text) = value else {
        return true;
    };
    let text = text.as_str();
    match format {
        "date" => is_date(text),
        "date-time" => text
            .split_once(['T', 't'])
            .is_some_and(|(date, time)| is_date(date) && is_time(time)),
        "time" => is_time(text),
        "duration" => is_duration(text),
        "email" | "idn-email" => is_email(text),
        "hostname" | "idn-hostname" => is_hostname(text),
        "ipv4" => text.parse::<std::net::Ipv4Addr>().is_ok(),
        "ipv6" => text.parse::<std::net::Ipv6Addr>().is_ok(),
        "uri" | "iri" => is_absolute_uri(text, format == "iri"),
        "uri-reference" | "iri-reference" => {
            uri_characters(text, format == "iri-reference")
                && !text
                    .split_once(['/', '?', '#'])
                    .map_or(text, |(head, _)| head)
                    .contains(':')
                || is_absolute_uri(text, format == "iri-reference")
        }
        "uuid" => is_uuid(text),
        "json-pointer" => is_json_pointer(text),
        _ => true,
    }
}

/// The digits of `text`, if it is exactly `count` ASCII digits, as a number.
fn digits(text: &str, count: usize) -> Option<u32> {
    (text.len() == count && text.bytes().all(|byte| byte.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// `2026-01-31`: a full date of RFC 3339, the day within its month.
fn is_date(text: &str) -> bool {
    let mut parts = text.split('-');
    let (Some(year), Some(month), Some(day), None) = (
        parts.next().and_then(|year| digits(year, 4)),
        parts.next().and_then(|month| digits(month, 2)),
        parts.next().and_then(|day| digits(day, 2)),
        parts.next(),
    ) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// `09:30:00Z`, `09:30:00.5+02:00`: a full time of RFC 3339, with its offset.
fn is_time(text: &str) -> bool {
    let (clock, offset) = match text
        .char_indices()
        .find(|(_, c)| matches!(c, 'Z' | 'z' | '+' | '-'))
    {
        Some((at, _)) => text.split_at(at),
        None => return false,
    };
    let offset_fits = match offset {
        "Z" | "z" => true,
        offset => offset.get(1..).is_some_and(|offset| {
            matches!(
                offset.split_once(':'),
                Some((hours, minutes)) if digits(hours, 2).is_some_and(|h| h < 24)
                    && digits(minutes, 2).is_some_and(|m| m < 60)
            )
        }),
    };
    let (clock, fraction) = clock.split_once('.').unwrap_or((clock, "0"));
    let mut parts = clock.split(':');
    offset_fits
        && !fraction.is_empty()
        && fraction.bytes().all(|byte| byte.is_ascii_digit())
        && matches!(
            (parts.next(), parts.next(), parts.next(), parts.next()),
            (Some(hours), Some(minutes), Some(seconds), None)
                if digits(hours, 2).is_some_and(|h| h < 24)
                    && digits(minutes, 2).is_some_and(|m| m < 60)
                    && digits(seconds, 2).is_some_and(|s| s <= 60)
        )
}

/// `P3DT4H`, `P2W`: a duration of RFC 3339's appendix A.
fn is_duration(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('P') else {
        return false;
    };
    let (date, time) = match rest.split_once('T') {
        Some((date, time)) => (date, Some(time)),
        None => (rest, None),
    };
    // Each part is numbers with units, in this order, each at most once.
    let units = |part: &str, order: &str| -> Option<usize> {
        let mut count = 0;
        let mut allowed = order;
        let mut number = false;
        for c in part.chars() {
            if c.is_ascii_digit() {
                number = true;
            } else {
                let at = allowed.find(c)?;
                if !number {
                    return None;
                }
                allowed = &allowed[at + 1..];
                count += 1;
                number = false;
            }
        }
        (!number).then_some(count)
    };
    if date.is_empty() && time.is_none() {
        return false;
    }
    if let Some(weeks) = date.strip_suffix('W') {
        return time.is_none() && !weeks.is_empty() && weeks.bytes().all(|b| b.is_ascii_digit());
    }
    units(date, "YMD").is_some()
        && time.is_none_or(|time| units(time, "HMS").is_some_and(|count| count > 0))
}

/// `someone@example.com`: a local part and a domain (a host name or an address in brackets).
fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.rsplit_once('@') else {
        return false;
    };
    let local_fits = if let Some(quoted) = local.strip_prefix('"') {
        quoted.strip_suffix('"').is_some()
    } else {
        !local.is_empty()
            && !local.starts_with('.')
            && !local.ends_with('.')
            && !local.contains("..")
            && local.chars().all(|c| {
                !c.is_ascii() || c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~.".contains(c)
            })
    };
    let domain_fits = match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(address) => match address.strip_prefix("IPv6:") {
            Some(address) => address.parse::<std::net::Ipv6Addr>().is_ok(),
            None => address.parse::<std::net::Ipv4Addr>().is_ok(),
        },
        None => is_hostname(domain),
    };
    local_fits && local.len() <= 64 && domain_fits
}

/// `api.example.com`: labels of letters, digits and hyphens (or any non-ASCII letter), each 1 to
/// 63 characters and neither starting nor ending with a hyphen.
fn is_hostname(text: &str) -> bool {
    let text = text.strip_suffix('.').unwrap_or(text);
    !text.is_empty()
        && text.len() <= 253
        && text.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || !c.is_ascii())
        })
}

/// Whether every character of `text` may stand in a URI (RFC 3986: unreserved, reserved and
/// `%XX` escapes), and for an IRI any non-ASCII character too.
fn uri_characters(text: &str, international: bool) -> bool {
    let bytes = text.as_bytes();
    text.char_indices().all(|(at, c)| match c {
        '%' => bytes
            .get(at + 1..at + 3)
            .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit)),
        c if c.is_ascii_alphanumeric() => true,
        '-' | '.' | '_' | '~' | ':' | '/' | '?' | '#' | '[' | ']' | '@' | '!' | '$' | '&'
        | '\'' | '(' | ')' | '*' | '+' | ',' | ';' | '=' => true,
        c => international && !c.is_ascii() && !c.is_whitespace(),
    })
}

/// `https://example.com/path`: a scheme, a colon and the rest in URI characters.
fn is_absolute_uri(text: &str, international: bool) -> bool {
    let Some((scheme, _)) = text.split_once(':') else {
        return false;
    };
    scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && uri_characters(text, international)
}

/// `123e4567-e89b-12d3-a456-426614174000`: 32 hexadecimal digits in groups of 8-4-4-4-12.
fn is_uuid(text: &str) -> bool {
    let mut groups = text.split('-');
    [8, 4, 4, 4, 12].into_iter().all(|length| {
        groups.next().is_some_and(|group| {
            group.len() == length && group.bytes().all(|byte| byte.is_ascii_hexdigit())
        })
    }) && groups.next().is_none()
}

/// `/labels/0`: empty, or `/`-separated tokens where `~` is only `~0` or `~1`.
fn is_json_pointer(text: &str) -> bool {
    (text.is_empty() || text.starts_with('/'))
        && text
            .split('~')
            .skip(1)
            .all(|after| after.starts_with(['0', '1']))
}

/// The error as the `jsonschema` crate words it: `9 is not of type "string"`, `"me" is not a
/// "uuid"`, `"priority" is a required property`.
impl fmt::Display for SchemaError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = self.instance;
        let plural = |count: u64, one: &'static str, many: &'static str| {
            if count == 1 { one } else { many }
        };
        match &self.kind {
            ErrorKind::Type { expected } if expected.len() == 1 => {
                write!(f, "{value} is not of type \"{}\"", expected[0])
            }
            ErrorKind::Type { expected } => {
                let names: Vec<String> =
                    expected.iter().map(|name| format!("\"{name}\"")).collect();
                write!(f, "{value} is not of types {}", names.join(", "))
            }
            ErrorKind::Enum { options } => {
                let options: Vec<String> = options
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(Value::to_string)
                    .collect();
                // At most three are named: `"a", "b" or 7 other candidates`.
                match options.split_last() {
                    Some((last, [])) => write!(f, "{value} is not one of {last}"),
                    Some((last, rest)) if rest.len() < 3 => {
                        write!(f, "{value} is not one of {} or {last}", rest.join(", "))
                    }
                    Some(_) => write!(
                        f,
                        "{value} is not one of {} or {} other candidates",
                        options[..2].join(", "),
                        options.len() - 2
                    ),
                    None => write!(f, "{value} is not one of nothing"),
                }
            }
            ErrorKind::Const { expected } => write!(f, "{expected} was expected"),
            ErrorKind::Minimum { limit } => {
                write!(f, "{value} is less than the minimum of {limit}")
            }
            ErrorKind::Maximum { limit } => {
                write!(f, "{value} is greater than the maximum of {limit}")
            }
            ErrorKind::ExclusiveMinimum { limit } => {
                write!(f, "{value} is less than or equal to the minimum of {limit}")
            }
            ErrorKind::ExclusiveMaximum { limit } => write!(
                f,
                "{value} is greater than or equal to the maximum of {limit}"
            ),
            ErrorKind::MultipleOf { factor } => write!(f, "{value} is not a multiple of {factor}"),
            ErrorKind::MinLength { limit } => write!(
                f,
                "{value} is shorter than {limit} {}",
                plural(*limit, "character", "characters")
            ),
            ErrorKind::MaxLength { limit } => write!(
                f,
                "{value} is longer than {limit} {}",
                plural(*limit, "character", "characters")
            ),
            ErrorKind::Pattern { pattern } => write!(f, "{value} does not match \"{pattern}\""),
            ErrorKind::Format { format } => write!(f, "{value} is not a \"{format}\""),
            ErrorKind::MinItems { limit } => write!(
                f,
                "{value} has less than {limit} {}",
                plural(*limit, "item", "items")
            ),
            ErrorKind::MaxItems { limit } => write!(
                f,
                "{value} has more than {limit} {}",
                plural(*limit, "item", "items")
            ),
            ErrorKind::UniqueItems => write!(f, "{value} has non-unique elements"),
            ErrorKind::Contains => write!(
                f,
                "{value} does not have as many items valid under the given schema as it should"
            ),
            ErrorKind::Required { property } => {
                write!(f, "{} is a required property", Value::from(*property))
            }
            ErrorKind::AdditionalProperties { unexpected } => {
                let names: Vec<String> = unexpected
                    .iter()
                    .map(|name| Value::from(*name).to_string())
                    .collect();
                write!(
                    f,
                    "Additional properties are not allowed ({} {} unexpected)",
                    names.join(", "),
                    plural(names.len() as u64, "was", "were")
                )
            }
            ErrorKind::MinProperties { limit } => write!(
                f,
                "{value} has less than {limit} {}",
                plural(*limit, "property", "properties")
            ),
            ErrorKind::MaxProperties { limit } => write!(
                f,
                "{value} has more than {limit} {}",
                plural(*limit, "property", "properties")
            ),
            ErrorKind::PropertyName { name } => {
                write!(f, "the property name {} is not allowed", Value::from(*name))
            }
            ErrorKind::AnyOf => write!(
                f,
                "{value} is not valid under any of the schemas listed in the 'anyOf' keyword"
            ),
            ErrorKind::OneOfNone => write!(
                f,
                "{value} is not valid under any of the schemas listed in the 'oneOf' keyword"
            ),
            ErrorKind::OneOfMany => write!(
                f,
                "{value} is valid under more than one of the schemas listed in the 'oneOf' keyword"
            ),
            ErrorKind::Not { schema } => write!(f, "{schema} is not allowed for {value}"),
            ErrorKind::False => write!(f, "False schema does not allow {value}"),
        }
    }
}

#[cfg(test)]
mod tests;
