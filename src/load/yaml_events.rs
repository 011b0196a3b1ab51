//! YAML text read into JSON values as the parser's events come, with nothing of the text held
//! but the values made so far.
//!
//! yaml_serde's deserializer first collects the events of the whole document (a scalar's text,
//! anchor, tag, style and position each), then reads values from that list: for Stripe's 6 MB
//! description the list was larger than the JSON values made from it, and both were held at once
//! (the peak of loading it). This reader runs the same parser, libyaml-rs (the libyaml port
//! yaml_serde itself drives, so the events, and which texts are YAML, are the same), and builds
//! each value from its events as they are parsed.
//!
//! It reads only what it is sure to read as `yaml.rs`'s serde reader does, and gives up (`None`)
//! on everything else: text that is not YAML, more or fewer than one document, a tag, a key
//! that is not an untagged scalar without an anchor, a key given twice (as text), an integer
//! wider than 64 bits, an alias in a part of the document that leaves something out, nesting
//! near yaml_serde's depth limit or aliases near its repetition limit. The caller then reads the
//! text with the serde reader, which tells the error (its message and position) or reads what
//! this one gave up on. How plain scalars resolve (null, booleans, integers in the ways YAML
//! writes them, floats) is yaml_serde's, written here again because yaml_serde keeps it private.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::mem::MaybeUninit;

use libyaml_rs as sys;
use serde_json::{Map, Value};

use super::unused::Part;
use super::yaml::key_text;

/// Reads the YAML `text` into a JSON value as `yaml::parse` does; `None` where this reader gives
/// up (see the module's comment), never a different value.
pub(super) fn read(text: &str, leave_out_unused: bool) -> Option<Value> {
    let mut reader = Reader::new(text)?;
    let Event::StreamStart = reader.next()? else {
        return None;
    };
    // No document at all (empty text) is null to the serde reader: left to it.
    let Event::DocumentStart = reader.next()? else {
        return None;
    };
    let first = reader.next()?;
    let value = reader.value(first, leave_out_unused.then_some(Part::Root), 0)?;
    let Event::DocumentEnd = reader.next()? else {
        return None;
    };
    // A second document is an error of the serde reader's.
    let Event::StreamEnd = reader.next()? else {
        return None;
    };
    Some(value)
}

/// The entries of a mapping, as read: the mapping's entries, and the keys of the entries left
/// out of it (for a key given twice).
pub(super) type Entries = (Map<String, Value>, Vec<String>);

/// Reads `text`, consecutive entries of a block mapping cut out of a larger document (see
/// `yaml_split.rs`), as [`read`] reads them inside that document: `part` is where the mapping is
/// and `depth` its nesting there (1 for the root). `None` where [`read`] would give up on them,
/// or where the text is not one untagged mapping without an anchor; never other entries.
pub(super) fn read_entries(text: &str, part: Option<Part>, depth: usize) -> Option<Entries> {
    let mut reader = Reader::new(text)?;
    let Event::StreamStart = reader.next()? else {
        return None;
    };
    let Event::DocumentStart = reader.next()? else {
        return None;
    };
    let Event::MappingStart(node) = reader.next()? else {
        return None;
    };
    if node.tagged || node.anchor.is_some() || depth > DEPTH_LIMIT {
        return None;
    }
    reader.deepest = depth;
    let entries = reader.entries(part, depth)?;
    let Event::DocumentEnd = reader.next()? else {
        return None;
    };
    let Event::StreamEnd = reader.next()? else {
        return None;
    };
    Some(entries)
}

/// Nesting deeper than this is given up on: yaml_serde refuses a value nested past 128
/// sequences and mappings (counting those an alias repeats), and this reader counts an alias's
/// depth from above.
const DEPTH_LIMIT: usize = 100;

/// yaml_serde refuses a document whose aliases, repeated, are more than 100 times its events.
const JUMPS_PER_EVENT: usize = 100;

struct Reader<'a> {
    events: Events<'a>,
    /// Every anchor defined so far, by name: the id of its latest definition and, once that
    /// value is read whole, the value (`None` while it is being read: an alias inside the value
    /// it names is given up on).
    anchors: HashMap<Vec<u8>, (u64, Option<Anchored>)>,
    next_anchor_id: u64,
    /// The events read that are a value's (what yaml_serde keeps of a document).
    content_events: usize,
    /// The aliases yaml_serde would have followed so far (aliases inside an anchored value are
    /// followed again wherever an alias repeats it).
    jumps: usize,
    /// The deepest nesting reached inside the value being read.
    deepest: usize,
}

/// An anchored value, read whole.
struct Anchored {
    value: Value,
    /// The aliases followed inside it.
    jumps: usize,
    /// How much deeper its nesting goes than its own level.
    height: usize,
}

impl<'a> Reader<'a> {
    fn new(text: &'a str) -> Option<Self> {
        Some(Reader {
            events: Events::new(text)?,
            anchors: HashMap::new(),
            next_anchor_id: 0,
            content_events: 0,
            jumps: 0,
            deepest: 0,
        })
    }

    fn next(&mut self) -> Option<Event> {
        let event = self.events.next()?;
        if !matches!(
            event,
            Event::StreamStart | Event::StreamEnd | Event::DocumentStart | Event::DocumentEnd
        ) {
            self.content_events += 1;
        }
        Some(event)
    }

    /// The value that starts with `event`, inside a sequence or mapping at nesting `depth`;
    /// `part`: where in the document it is, for what is left out of its mappings.
    fn value(&mut self, event: Event, part: Option<Part>, depth: usize) -> Option<Value> {
        let (node, sequence) = match event {
            Event::Scalar(scalar) => {
                if scalar.node.tagged {
                    return None;
                }
                let value = match scalar.plain {
                    true => resolve(&scalar.value)?.into_value(scalar.value),
                    false => Value::String(scalar.value),
                };
                if let Some(anchor) = scalar.node.anchor {
                    let id = self.define(anchor.clone(), part)?;
                    self.complete(anchor, id, &value, 0, 0);
                }
                return Some(value);
            }
            Event::Alias(name) => {
                let (_, Some(anchored)) = self.anchors.get(&name)? else {
                    return None;
                };
                self.jumps += 1 + anchored.jumps;
                let deepest = depth + 1 + anchored.height;
                if part.is_some()
                    || deepest > DEPTH_LIMIT
                    || self.jumps > self.content_events * JUMPS_PER_EVENT
                {
                    return None;
                }
                self.deepest = self.deepest.max(deepest);
                return Some(anchored.value.clone());
            }
            Event::SequenceStart(node) => (node, true),
            Event::MappingStart(node) => (node, false),
            _ => return None,
        };
        let depth = depth + 1;
        if node.tagged || depth > DEPTH_LIMIT {
            return None;
        }
        let anchor = match node.anchor {
            Some(name) => Some((self.define(name.clone(), part)?, name)),
            None => None,
        };
        let (jumps_before, deepest_before) = (self.jumps, self.deepest);
        self.deepest = depth;
        let value = match sequence {
            true => self.sequence(depth)?,
            false => self.mapping(part, depth)?,
        };
        let height = self.deepest - depth;
        self.deepest = self.deepest.max(deepest_before);
        if let Some((id, name)) = anchor {
            self.complete(name, id, &value, self.jumps - jumps_before, height);
        }
        Some(value)
    }

    /// Starts the definition of the anchor `name` (an alias to it is given up on until it is
    /// complete); `None` in a part of the document that leaves something out, where an alias
    /// would repeat the value without leaving it out.
    fn define(&mut self, name: Vec<u8>, part: Option<Part>) -> Option<u64> {
        if part.is_some() {
            return None;
        }
        let id = self.next_anchor_id;
        self.next_anchor_id += 1;
        self.anchors.insert(name, (id, None));
        Some(id)
    }

    /// Completes the definition `id` of the anchor `name`, unless the name was defined again
    /// inside its value (an alias after it names that later definition, as in yaml_serde).
    fn complete(&mut self, name: Vec<u8>, id: u64, value: &Value, jumps: usize, height: usize) {
        if let Some((latest, anchored @ None)) = self.anchors.get_mut(&name)
            && *latest == id
        {
            *anchored = Some(Anchored {
                value: value.clone(),
                jumps,
                height,
            });
        }
    }

    fn sequence(&mut self, depth: usize) -> Option<Value> {
        let mut items = Vec::new();
        loop {
            match self.next()? {
                Event::SequenceEnd => return Some(Value::Array(items)),
                event => items.push(self.value(event, None, depth)?),
            }
        }
    }

    /// A mapping's entries, as `yaml::Seed::visit_map` reads them.
    fn mapping(&mut self, part: Option<Part>, depth: usize) -> Option<Value> {
        Some(Value::Object(self.entries(part, depth)?.0))
    }

    /// [`Self::mapping`]'s entries, with the keys of those left out.
    fn entries(&mut self, part: Option<Part>, depth: usize) -> Option<Entries> {
        let mut object = Map::new();
        // The keys of entries left out, for a key given twice.
        let mut left_out = Vec::new();
        loop {
            let key = match self.next()? {
                Event::MappingEnd => return Some((object, left_out)),
                Event::Scalar(key) if !key.node.tagged && key.node.anchor.is_none() => key,
                _ => return None,
            };
            let (text, is_text) = match key.plain {
                true => match resolve(&key.value)? {
                    Plain::Text => (key.value, true),
                    plain => (key_text(&plain.into_yaml(key.value))?, false),
                },
                false => (key.value, true),
            };
            if object.contains_key(&text) || left_out.contains(&text) {
                return None;
            }
            let part = part.filter(|_| is_text);
            let event = self.next()?;
            if part.is_some_and(|part| part.leaves_out(&text)) {
                let value = self.value(event, None, depth)?;
                let has_entries = value.as_object().is_some_and(|o| !o.is_empty());
                if matches!(part, Some(Part::Root)) && has_entries {
                    object.insert(text, Value::Object(Map::new()));
                } else {
                    left_out.push(text);
                }
                continue;
            }
            let inner = match (part, text.as_str()) {
                (Some(Part::Root), "components") => Some(Part::Components),
                _ => None,
            };
            let value = self.value(event, inner, depth)?;
            object.insert(text, value);
        }
    }
}

/// What an untagged plain scalar is.
#[derive(Debug, PartialEq)]
pub(super) enum Plain {
    Null,
    Bool(bool),
    Unsigned(u64),
    Negative(i64),
    Float(f64),
    Text,
}

impl Plain {
    fn into_value(self, text: String) -> Value {
        match self {
            Plain::Null => Value::Null,
            Plain::Bool(boolean) => Value::Bool(boolean),
            Plain::Unsigned(number) => Value::from(number),
            Plain::Negative(number) => Value::from(number),
            // A number JSON cannot write (`.nan`, `.inf`) is null.
            Plain::Float(number) => {
                serde_json::Number::from_f64(number).map_or(Value::Null, Value::Number)
            }
            Plain::Text => Value::String(text),
        }
    }

    /// The value yaml_serde reads (a mapping's key is read as one).
    fn into_yaml(self, text: String) -> yaml_serde::Value {
        use yaml_serde::Value as Y;
        match self {
            Plain::Null => Y::Null,
            Plain::Text => Y::String(text),
            Plain::Bool(boolean) => Y::Bool(boolean),
            Plain::Unsigned(number) => Y::Number(number.into()),
            Plain::Negative(number) => Y::Number(number.into()),
            Plain::Float(number) => Y::Number(number.into()),
        }
    }
}

/// What yaml_serde reads an untagged plain scalar as; `None` for an integer wider than 64 bits
/// (the serde reader refuses it as a value).
pub(super) fn resolve(text: &str) -> Option<Plain> {
    Some(match text {
        "" | "~" | "null" | "Null" | "NULL" => Plain::Null,
        "true" | "True" | "TRUE" => Plain::Bool(true),
        "false" | "False" | "FALSE" => Plain::Bool(false),
        // Most plain scalars are words: no number starts with a letter (Rust's float parsing
        // reads `inf` and `nan`, which are not finite, so text as below).
        _ if text.as_bytes()[0].is_ascii_alphabetic() => Plain::Text,
        _ => {
            if let Some(number) = unsigned(text, u64::from_str_radix) {
                Plain::Unsigned(number)
            } else if let Some(number) = negative(text, i64::from_str_radix) {
                Plain::Negative(number)
            } else if unsigned(text, u128::from_str_radix).is_some()
                || negative(text, i128::from_str_radix).is_some()
            {
                return None;
            } else if let Some(number) = float(text).filter(|_| !zero_then_digits(text)) {
                Plain::Float(number)
            } else {
                Plain::Text
            }
        }
    })
}

type FromRadix<T> = fn(&str, u32) -> Result<T, std::num::ParseIntError>;

/// The bases an integer may be written in after its prefix.
const RADIXES: [(&str, u32); 3] = [("0x", 16), ("0o", 8), ("0b", 2)];

/// `text` as a non-negative integer: decimal or `0x`, `0o`, `0b`, after at most one `+`.
fn unsigned<T>(text: &str, from_radix: FromRadix<T>) -> Option<T> {
    let unsigned = text.strip_prefix('+').unwrap_or(text);
    for (prefix, radix) in RADIXES {
        if let Some(digits) = unsigned.strip_prefix(prefix) {
            // from_str_radix takes a sign of its own, which YAML does not put after a prefix.
            if digits.starts_with(['+', '-']) {
                return None;
            }
            if let Ok(number) = from_radix(digits, radix) {
                return Some(number);
            }
        }
    }
    if unsigned.starts_with(['+', '-']) || zero_then_digits(text) {
        return None;
    }
    from_radix(unsigned, 10).ok()
}

/// `text` as a negative integer: decimal or `-0x`, `-0o`, `-0b`.
fn negative<T>(text: &str, from_radix: FromRadix<T>) -> Option<T> {
    for (prefix, radix) in RADIXES {
        if let Some(digits) = text.strip_prefix('-').and_then(|t| t.strip_prefix(prefix))
            && let Ok(number) = from_radix(&format!("-{digits}"), radix)
        {
            return Some(number);
        }
    }
    if zero_then_digits(text) {
        return None;
    }
    from_radix(text, 10).ok()
}

/// `text` as a float: what Rust parses that is finite, or `.inf`, `-.inf`, `.nan` as YAML writes
/// them, after at most one `+`.
fn float(text: &str) -> Option<f64> {
    let unsigned = match text.strip_prefix('+') {
        Some(rest) if rest.starts_with(['+', '-']) => return None,
        Some(rest) => rest,
        None => text,
    };
    match (unsigned, text) {
        (".inf" | ".Inf" | ".INF", _) => Some(f64::INFINITY),
        (_, "-.inf" | "-.Inf" | "-.INF") => Some(f64::NEG_INFINITY),
        (_, ".nan" | ".NaN" | ".NAN") => Some(f64::NAN),
        _ => unsigned
            .parse::<f64>()
            .ok()
            .filter(|number| number.is_finite()),
    }
}

/// A zero followed by digits only (after a sign) is text in YAML 1.2, not a number.
fn zero_then_digits(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    digits.len() > 1 && digits.starts_with('0') && digits[1..].bytes().all(|b| b.is_ascii_digit())
}

/// A parser event, with what this reader uses of it.
enum Event {
    StreamStart,
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    Alias(Vec<u8>),
    Scalar(Scalar),
    SequenceStart(Node),
    SequenceEnd,
    MappingStart(Node),
    MappingEnd,
}

/// What starts a value: its anchor, and whether it has a tag.
struct Node {
    anchor: Option<Vec<u8>>,
    tagged: bool,
}

struct Scalar {
    node: Node,
    value: String,
    /// Unquoted, neither literal (`|`) nor folded (`>`): only such a scalar can be other than text.
    plain: bool,
}

/// libyaml's parser over a text, one event at a time.
struct Events<'a> {
    /// On the heap, not moved: libyaml keeps a pointer to the parser in the parser.
    parser: Box<MaybeUninit<sys::yaml_parser_t>>,
    text: PhantomData<&'a str>,
}

impl<'a> Events<'a> {
    fn new(text: &'a str) -> Option<Self> {
        let mut parser = Box::new(MaybeUninit::<sys::yaml_parser_t>::uninit());
        let raw = parser.as_mut_ptr();
        // SAFETY: `raw` points to memory for a parser, which yaml_parser_initialize initialises
        // (on failure, it leaves nothing to free). The input is `text`, which outlives the
        // parser (`'a`), given as pointer and length.
        unsafe {
            if sys::yaml_parser_initialize(raw).fail {
                return None;
            }
            sys::yaml_parser_set_encoding(raw, sys::YAML_UTF8_ENCODING);
            sys::yaml_parser_set_input_string(raw, text.as_ptr(), text.len() as u64);
        }
        Some(Events {
            parser,
            text: PhantomData,
        })
    }

    /// The next event; `None` when the text is not YAML (or past its end).
    fn next(&mut self) -> Option<Event> {
        let raw = self.parser.as_mut_ptr();
        let mut event = MaybeUninit::<sys::yaml_event_t>::uninit();
        // SAFETY: the parser was initialised in `new` and is not moved. yaml_parser_parse fills
        // `event` only when it succeeds (after an error or the stream's end, with no event, which
        // `read_event` reads as `None`); the event is read (its strings copied) before
        // yaml_event_delete frees them, and read only by the fields of its own type.
        unsafe {
            if sys::yaml_parser_parse(raw, event.as_mut_ptr()).fail {
                return None;
            }
            let event = event.as_mut_ptr();
            let read = read_event(&*event);
            sys::yaml_event_delete(event);
            read
        }
    }
}

impl Drop for Events<'_> {
    fn drop(&mut self) {
        // SAFETY: the parser was initialised in `new` (an `Events` exists only then), and is
        // deleted once.
        unsafe { sys::yaml_parser_delete(self.parser.as_mut_ptr()) }
    }
}

/// The event `event` is, its strings copied; `None` for a scalar that is not UTF-8.
///
/// # Safety
/// `event` is an event yaml_parser_parse filled, not yet deleted.
unsafe fn read_event(event: &sys::yaml_event_t) -> Option<Event> {
    // SAFETY (of every block below): each reads the union's field of the event's own type, whose
    // strings libyaml gives as NUL-terminated (anchors) or pointer and length (scalar values).
    Some(match event.type_ {
        sys::YAML_STREAM_START_EVENT => Event::StreamStart,
        sys::YAML_STREAM_END_EVENT => Event::StreamEnd,
        sys::YAML_DOCUMENT_START_EVENT => Event::DocumentStart,
        sys::YAML_DOCUMENT_END_EVENT => Event::DocumentEnd,
        sys::YAML_ALIAS_EVENT => Event::Alias(unsafe { c_bytes(event.data.alias.anchor) }?),
        sys::YAML_SCALAR_EVENT => {
            let scalar = unsafe { event.data.scalar };
            let value = match scalar.value.is_null() {
                true => String::new(),
                false => {
                    let bytes =
                        unsafe { std::slice::from_raw_parts(scalar.value, scalar.length as usize) };
                    std::str::from_utf8(bytes).ok()?.to_owned()
                }
            };
            Event::Scalar(Scalar {
                node: Node {
                    anchor: unsafe { c_bytes(scalar.anchor) },
                    tagged: !scalar.tag.is_null(),
                },
                value,
                plain: scalar.style == sys::YAML_PLAIN_SCALAR_STYLE,
            })
        }
        sys::YAML_SEQUENCE_START_EVENT => {
            let start = unsafe { event.data.sequence_start };
            Event::SequenceStart(Node {
                anchor: unsafe { c_bytes(start.anchor) },
                tagged: !start.tag.is_null(),
            })
        }
        sys::YAML_SEQUENCE_END_EVENT => Event::SequenceEnd,
        sys::YAML_MAPPING_START_EVENT => {
            let start = unsafe { event.data.mapping_start };
            Event::MappingStart(Node {
                anchor: unsafe { c_bytes(start.anchor) },
                tagged: !start.tag.is_null(),
            })
        }
        sys::YAML_MAPPING_END_EVENT => Event::MappingEnd,
        _ => return None,
    })
}

/// The bytes of a NUL-terminated string libyaml made; `None` for a null pointer.
///
/// # Safety
/// `pointer` is null or points to a NUL-terminated string.
unsafe fn c_bytes(pointer: *const u8) -> Option<Vec<u8>> {
    if pointer.is_null() {
        return None;
    }
    // SAFETY: as the caller promises.
    Some(
        unsafe { std::ffi::CStr::from_ptr(pointer.cast()) }
            .to_bytes()
            .to_vec(),
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::load::yaml::{self, parse_with_yaml_serde};

    /// What the serde reader gives, its error as text.
    fn through_yaml_serde(text: &str, leave_out_unused: bool) -> Result<Value, String> {
        parse_with_yaml_serde(text, leave_out_unused).map_err(|error| match error {
            yaml::Error::Syntax(error) => error.to_string(),
            yaml::Error::Key(message) => message,
        })
    }

    fn through_parse(text: &str, leave_out_unused: bool) -> Result<Value, String> {
        yaml::parse(text, leave_out_unused).map_err(|error| match error {
            yaml::Error::Syntax(error) => error.to_string(),
            yaml::Error::Key(message) => message,
        })
    }

    /// Every plain scalar here is read by the streaming reader, as a value and as a key, into
    /// what the serde reader makes of it.
    const SCALARS: &[&str] = &[
        "~",
        "null",
        "Null",
        "NULL",
        "nULL",
        "true",
        "True",
        "TRUE",
        "tRUE",
        "false",
        "False",
        "FALSE",
        "yes",
        "no",
        "0",
        "-0",
        "+0",
        "00",
        "007",
        "-007",
        "+007",
        "08",
        "0x1F",
        "0X1F",
        "-0x1F",
        "+0x1F",
        "0x-1",
        "0x+1",
        "0x",
        "0xg",
        "0o17",
        "-0o17",
        "+0o17",
        "0o8",
        "0b101",
        "-0b101",
        "0b2",
        "1_000",
        "18446744073709551615",
        "-9223372036854775808",
        "1.5",
        "-1.5",
        "+1.5",
        "1.",
        ".5",
        "-.5",
        "1e3",
        "1E-3",
        "1e400",
        "-1e400",
        "1e-400",
        "0.0",
        "-0.0",
        "1.0",
        "3.14159265358979323846",
        "0.1",
        ".inf",
        "-.inf",
        "+.inf",
        ".Inf",
        "-.INF",
        ".NaN",
        ".nan",
        ".NAN",
        "+.nan",
        "nan",
        "NaN",
        "inf",
        "-inf",
        "infinity",
        "++1",
        "+-1",
        "--1",
        "+",
        ".",
        "1.2.3",
        "2024-01-01",
        "12:30",
        "1,5",
        "0.5e",
        "e5",
        "v1",
        "<<",
        "=",
    ];

    #[test]
    fn plain_scalars_resolve_as_in_yaml_serde_as_values_and_as_keys() {
        for scalar in SCALARS {
            for text in [
                format!("k: {scalar}\n"),
                format!("{scalar}: k\n"),
                format!("[{scalar}]"),
            ] {
                let old = through_yaml_serde(&text, false);
                assert!(old.is_ok(), "{text:?}: {old:?}");
                assert_eq!(read(&text, false), old.ok(), "{text:?}");
            }
        }
    }

    #[test]
    fn integers_wider_than_64_bits_are_left_to_yaml_serde_which_refuses_them_as_values() {
        for scalar in [
            "18446744073709551616",
            "-9223372036854775809",
            "0x1_0000_0000_0000_0000",
        ] {
            let text = format!("k: {scalar}\n");
            assert_eq!(
                through_parse(&text, false),
                through_yaml_serde(&text, false)
            );
        }
        assert_eq!(read("k: 18446744073709551616\n", false), None);
        assert!(through_parse("k: 18446744073709551616\n", false).is_err());
    }

    /// Texts the streaming reader reads itself.
    const READ: &[&str] = &[
        "a: 1\nb: -2\nc: 18446744073709551615\nd: 1.5\ne: .nan\nf: .inf\ng: ~\nh: true\ni: 'x'\n",
        "200: ok\n1.5: x\ntrue: y\n~: z\n0x1F: hex\n",
        "a: &x {d: 1, e: [1, 2]}\nb: *x\nc: [*x, *x]\n",
        "webhooks: &w {a: 1}\nx: *w\ncomponents: {examples: &e {b: 1}}\ny: *e\n",
        "a: &x 1\nb: &y [*x, 2]\nc: *y\n",
        "a: &x [&x 1, *x]\nb: *x\n",
        "a: &x\n  b: &y {c: 1}\nd: *y\ne: *x\n",
        "---\na: 1\n...\n",
        "%YAML 1.1\n---\na: 1\n",
        "- 1\n- [a, {b: c}]\n",
        "plain",
        "'quoted'",
        "? a\n: 1\n? 2\n",
        "a: |\n  literal 1\n  text\nb: >\n  folded\n  text\nc: \"\\u00e9\\t\"\n",
        "\"1\": a\n'true': b\n",
        "a:\nb: ''\n",
        "{a: 1, b: [x, y], \"c d\": {}}",
        "openapi: 3.1.0\nwebhooks: {a: 1}\nx-webhooks: {}\npaths: {/a: {get: {examples: {x: 1}}}}\ncomponents:\n  examples: {b: 2}\n  schemas: {C: {}}\n",
        "components: {examples: 1}\npaths: &p {a: 1}\nx: *p\n",
    ];

    /// Texts it gives up on, for the serde reader to read or refuse.
    const GIVEN_UP: &[&str] = &[
        "",
        "# only a comment\n",
        "a: 1\n---\nb: 2\n",
        "a: !custom {b: [1, !t 2]}\n",
        "a: !!str 1\nb: !!int '2'\n",
        "!!map {a: 1}",
        "a: 1\na: 2\n",
        "1: a\n1: b\n",
        "~: a\nnull: b\n",
        "1: number\n'1': text\n",
        "[1]: a\n",
        "{a: 1}: a\n",
        "&k a: 1\nb: *k\n",
        "*k : 1\n",
        "a: *unknown\n",
        "a: &x [1, *x]\n",
        "a: &x 1\nb: &x [*x, 2]\n",
        "? [1]\n: a\nb: [1, 2\n",
        "a: [1, 2\nb: }",
        "a: 'unterminated\n",
        "\ta: 1\n",
    ];

    /// Texts it gives up on when it leaves the unused parts out (and reads otherwise): an anchor or
    /// an alias where something is left out.
    const GIVEN_UP_LEAVING_OUT: &[&str] = &[
        "components: &c {schemas: {}}\nb: *c\n",
        "&r {components: {}}\n",
        "x: &x {}\ncomponents: *x\n",
    ];

    #[test]
    fn what_the_streaming_reader_reads_is_what_yaml_serde_reads_and_it_gives_up_on_the_rest() {
        for leave_out_unused in [false, true] {
            for text in READ {
                let old = through_yaml_serde(text, leave_out_unused);
                assert!(old.is_ok(), "{text:?}: {old:?}");
                assert_eq!(read(text, leave_out_unused), old.ok(), "{text:?}");
            }
            for text in GIVEN_UP {
                assert_eq!(read(text, leave_out_unused), None, "{text:?}");
            }
            for text in GIVEN_UP_LEAVING_OUT {
                let expected = match leave_out_unused {
                    true => None,
                    false => through_yaml_serde(text, false).ok(),
                };
                assert!(expected.is_some() != leave_out_unused, "{text:?}");
                assert_eq!(read(text, leave_out_unused), expected, "{text:?}");
            }
            for text in READ.iter().chain(GIVEN_UP).chain(GIVEN_UP_LEAVING_OUT) {
                assert_eq!(
                    through_parse(text, leave_out_unused),
                    through_yaml_serde(text, leave_out_unused),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn an_entry_left_out_and_given_again_is_as_in_yaml_serde() {
        for text in [
            "webhooks: {}\nwebhooks: {a: 1}\n",
            "a: 1\nwebhooks: {}\n200: x\nwebhooks: {b: 1}\n",
        ] {
            let read_whole = through_yaml_serde(text, false);
            assert!(
                read_whole
                    .unwrap_err()
                    .contains("duplicate entry with key \"webhooks\"")
            );
            for leave_out_unused in [false, true] {
                assert_eq!(read(text, leave_out_unused), None, "{text:?}");
                assert_eq!(
                    through_parse(text, leave_out_unused),
                    through_yaml_serde(text, leave_out_unused)
                );
            }
        }
        assert_eq!(
            through_parse("webhooks: {}\nwebhooks: {a: 1}\n", true),
            Ok(serde_json::json!({ "webhooks": {} }))
        );
    }

    #[test]
    fn nesting_and_aliases_near_yaml_serdes_limits_are_left_to_it() {
        let deep = format!("{}1{}", "[".repeat(127), "]".repeat(127));
        let too_deep = format!("{}1{}", "[".repeat(129), "]".repeat(129));
        let deep_by_alias = format!(
            "a: &x {}1{}\nb: [[[*x]]]\n",
            "[".repeat(126),
            "]".repeat(126)
        );
        let mut laughs = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..8 {
            let alias = format!("*l{}", level - 1).replace("*l0", "*a");
            laughs.push_str(&format!(
                "l{level}: &l{level} [{}]\n",
                vec![alias; 10].join(", ")
            ));
        }
        for text in [&deep, &too_deep, &deep_by_alias, &laughs] {
            assert_eq!(read(text, false), None);
            assert_eq!(through_parse(text, false), through_yaml_serde(text, false));
        }
        assert!(
            through_parse(&too_deep, false)
                .unwrap_err()
                .contains("recursion limit")
        );
        assert!(
            through_parse(&laughs, false)
                .unwrap_err()
                .contains("repetition limit")
        );
        let shallow = format!("{}1{}", "[".repeat(90), "]".repeat(90));
        assert_eq!(
            read(&shallow, false),
            through_yaml_serde(&shallow, false).ok()
        );
    }

    /// Every YAML file of the repository (descriptions, curations, fixtures, CI files) is read by
    /// the streaming reader into what yaml_serde reads, or given up on where yaml_serde refuses
    /// it or the reader's limits are met.
    #[test]
    fn every_yaml_file_of_the_repository_reads_as_through_yaml_serde() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        let mut dirs = vec![root.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if path.is_dir() {
                    if !name.starts_with('.') && name != "target" && name != "node_modules" {
                        dirs.push(path);
                    }
                } else if name.ends_with(".yaml") || name.ends_with(".yml") {
                    files.push(path);
                }
            }
        }
        let (mut read_here, mut left) = (0, 0);
        for file in &files {
            let Ok(text) = std::fs::read_to_string(file) else {
                continue;
            };
            let text = text.trim_start_matches('\u{feff}');
            for leave_out_unused in [false, true] {
                let old = through_yaml_serde(text, leave_out_unused);
                match read(text, leave_out_unused) {
                    Some(value) => {
                        assert_eq!(Ok(value), old, "{}", file.display());
                        read_here += 1;
                    }
                    None => left += 1,
                }
                assert_eq!(
                    through_parse(text, leave_out_unused),
                    old,
                    "{}",
                    file.display()
                );
            }
        }
        assert!(files.len() > 50, "{} YAML files found", files.len());
        assert!(
            read_here > left * 5,
            "{read_here} read, {left} left to yaml_serde"
        );
    }
}
