//! YAML text read straight into JSON values, without a YAML value tree in between: for a large
//! description that tree was as large again as the JSON values made from it, and both were held
//! at once.
//!
//! What comes out is what reading a [`yaml_serde::Value`] and converting it would give: mapping
//! keys that are numbers, booleans or null become their text (`200:` → `"200"`), a tag is dropped
//! for the value it tags, a key given twice in one mapping is the same error, and a key that is a
//! sequence or a mapping is refused once the whole text has been read (so that what makes the
//! text invalid YAML is told first).

use std::cell::RefCell;
use std::fmt;

use serde::de::{
    DeserializeSeed, EnumAccess, Error as _, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use serde_json::{Map, Value};

use super::unused::Part;

/// Why YAML text could not be read into a JSON value.
#[derive(Debug)]
pub enum Error {
    /// The text is not YAML (or gives one key twice in a mapping).
    Syntax(yaml_serde::Error),
    /// A mapping key is a sequence or a mapping, which JSON has no key for.
    Key(String),
}

/// Reads the YAML `text` into a JSON value; `leave_out_unused`: the parts of an API description
/// no tool is made from are left out as they are read (see `load/unused.rs`).
pub fn parse(text: &str, leave_out_unused: bool) -> Result<Value, Error> {
    if let Some(value) = super::yaml_split::read(text, leave_out_unused) {
        return Ok(value);
    }
    parse_whole(text, leave_out_unused)
}

/// [`parse`] of the text whole, on one core: what it did before large texts were cut into
/// pieces (`yaml_split.rs`), and what it does where they are not, or a piece gives up.
pub fn parse_whole(text: &str, leave_out_unused: bool) -> Result<Value, Error> {
    match super::yaml_events::read(text, leave_out_unused) {
        Some(value) => Ok(value),
        None => parse_with_yaml_serde(text, leave_out_unused),
    }
}

/// [`parse`] through yaml_serde's deserializer, which holds the events of the whole text: what
/// the streaming reader (`yaml_events.rs`) gives up on, every error among it.
pub(super) fn parse_with_yaml_serde(text: &str, leave_out_unused: bool) -> Result<Value, Error> {
    let key_error = RefCell::new(None);
    let seed = Seed {
        part: leave_out_unused.then_some(Part::Root),
        key_error: &key_error,
    };
    let value = seed
        .deserialize(yaml_serde::Deserializer::from_str(text))
        .map_err(Error::Syntax)?;
    match key_error.into_inner() {
        Some(message) => Err(Error::Key(message)),
        None => Ok(value),
    }
}

/// Reads one value; `part`: where in the document a mapping is, for what is left out of it.
#[derive(Clone, Copy)]
struct Seed<'a> {
    part: Option<Part>,
    /// The first key found that is not a scalar, as the error that refuses it.
    key_error: &'a RefCell<Option<String>>,
}

impl Seed<'_> {
    /// The seed of a value inside this one, in no part of the document that leaves anything out.
    fn inner(self) -> Self {
        Seed {
            part: None,
            key_error: self.key_error,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// The text a scalar key becomes, as a JSON object's key; `None` for a key that is not a scalar.
pub(super) fn key_text(key: &yaml_serde::Value) -> Option<String> {
    use yaml_serde::Value as Y;
    match key {
        Y::String(text) => Some(text.clone()),
        Y::Number(number) => Some(number.to_string()),
        Y::Bool(boolean) => Some(boolean.to_string()),
        Y::Null => Some("null".to_string()),
        Y::Sequence(_) | Y::Mapping(_) | Y::Tagged(_) => None,
    }
}

/// The error of a key given twice in one mapping, worded as reading a [`yaml_serde::Value`]
/// words it.
fn duplicate_key(key: &yaml_serde::Value) -> String {
    use yaml_serde::Value as Y;
    match key {
        Y::Null => "duplicate entry with null key".to_string(),
        Y::Bool(boolean) => format!("duplicate entry with key `{boolean}`"),
        Y::Number(number) => format!("duplicate entry with key {number}"),
        Y::String(text) => format!("duplicate entry with key {text:?}"),
        Y::Sequence(_) | Y::Mapping(_) | Y::Tagged(_) => "duplicate entry in YAML map".to_string(),
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any YAML value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        // Every key so far as YAML read it, kept only once a key that is not text has come: two
        // keys are one when they are equal as YAML values, not when their texts are (`1` and
        // `"1"` are two keys, the later value replacing the earlier in JSON).
        let mut keys: Option<Vec<yaml_serde::Value>> = None;
        while let Some(key) = map.next_key::<yaml_serde::Value>()? {
            let text = key_text(&key);
            if keys.is_none() && !matches!(key, yaml_serde::Value::String(_)) {
                keys = Some(
                    object
                        .keys()
                        .cloned()
                        .map(yaml_serde::Value::String)
                        .collect(),
                );
            }
            let given_twice = match (&keys, &text) {
                (Some(keys), _) => keys.contains(&key),
                (None, Some(text)) => object.contains_key(text),
                (None, None) => false,
            };
            if given_twice {
                return Err(A::Error::custom(duplicate_key(&key)));
            }
            if let Some(keys) = &mut keys {
                keys.push(key.clone());
            }
            let Some(text) = text else {
                let mut key_error = self.key_error.borrow_mut();
                key_error.get_or_insert_with(|| format!("a mapping key is not a scalar: {key:?}"));
                drop(key_error);
                map.next_value_seed(self.inner())?;
                continue;
            };
            let part = match (self.part, &key) {
                (Some(part), yaml_serde::Value::String(_)) => Some(part),
                _ => None,
            };
            if part.is_some_and(|part| part.leaves_out(&text)) {
                // Read whole, for the errors in it, and dropped; a root `webhooks` with entries
                // stays, empty.
                let value = map.next_value_seed(self.inner())?;
                let has_entries = value.as_object().is_some_and(|o| !o.is_empty());
                if matches!(part, Some(Part::Root)) && has_entries {
                    object.insert(text, Value::Object(Map::new()));
                }
                continue;
            }
            let seed = match (part, text.as_str()) {
                (Some(Part::Root), "components") => Seed {
                    part: Some(Part::Components),
                    key_error: self.key_error,
                },
                _ => self.inner(),
            };
            let value = map.next_value_seed(seed)?;
            object.insert(text, value);
        }
        Ok(Value::Object(object))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self.inner())? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    /// A tagged value (`!name value`) is the value.
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let (_tag, contents) = data.variant::<String>()?;
        contents.newtype_variant_seed(self.inner())
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    /// A number JSON cannot write (`.nan`, `.inf`) is null.
    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// What the loader did before this module: a YAML value tree, converted.
    fn through_a_yaml_value(text: &str) -> Result<Value, String> {
        fn convert(value: yaml_serde::Value) -> Result<Value, String> {
            use yaml_serde::Value as Y;
            Ok(match value {
                Y::Null => Value::Null,
                Y::Bool(b) => Value::Bool(b),
                Y::Number(n) => match (n.as_i64(), n.as_u64()) {
                    (Some(i), _) => Value::from(i),
                    (None, Some(u)) => Value::from(u),
                    (None, None) => n
                        .as_f64()
                        .and_then(serde_json::Number::from_f64)
                        .map_or(Value::Null, Value::Number),
                },
                Y::String(s) => Value::String(s),
                Y::Sequence(items) => {
                    Value::Array(items.into_iter().map(convert).collect::<Result<_, _>>()?)
                }
                Y::Mapping(mapping) => {
                    let mut object = Map::new();
                    for (key, value) in mapping {
                        let key = key_text(&key)
                            .ok_or_else(|| format!("a mapping key is not a scalar: {key:?}"))?;
                        object.insert(key, convert(value)?);
                    }
                    Value::Object(object)
                }
                Y::Tagged(tagged) => convert(tagged.value)?,
            })
        }
        convert(yaml_serde::from_str(text).map_err(|e| e.to_string())?)
    }

    fn read(text: &str) -> Result<Value, String> {
        parse(text, false).map_err(|error| match error {
            Error::Syntax(error) => error.to_string(),
            Error::Key(message) => message,
        })
    }

    /// The YAML parser is patched to copy runs of printable ASCII whole (vendor/README.md): text
    /// on either side of the reader's 16 KiB chunks, with characters of two, three and four bytes,
    /// a tab and line breaks at every place around a chunk's end, reads as written, and a control
    /// character after a long ASCII run is still refused at its line and column.
    #[test]
    fn ascii_runs_and_other_characters_around_the_readers_chunks_read_as_written() {
        const CHUNK: usize = 16 * 1024;
        for odd in ["é", "€", "𝄞", "\t", "\r\n"] {
            for shift in 0..6 {
                // `key: "` is 6 bytes; the value's odd character lands near the chunk's end.
                let before = "a".repeat(CHUNK - 6 - 2 + shift);
                let value = format!("{before}{odd}z{odd}");
                let escaped = value
                    .replace('\t', "\\t")
                    .replace('\r', "\\r")
                    .replace('\n', "\\n");
                let text = format!(
                    "key: \"{escaped}\"\nnext: [1, 'ü', \"{odd_escaped}\"]\n",
                    odd_escaped = odd
                        .replace('\t', "\\t")
                        .replace('\r', "\\r")
                        .replace('\n', "\\n")
                );
                assert_eq!(
                    read(&text),
                    Ok(json!({ "key": value, "next": [1, "ü", odd] })),
                    "{odd:?} {shift}"
                );
                // Written plainly, not escaped: the characters themselves cross the chunk's end.
                if !odd.contains(['\t', '\r']) {
                    let plain = format!("key: {before}{odd}z\nnext: {odd}\n");
                    assert_eq!(
                        read(&plain),
                        Ok(json!({ "key": format!("{before}{odd}z"), "next": odd })),
                        "plain {odd:?} {shift}"
                    );
                }
            }
        }
        for at in [CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 5] {
            let text = format!("a: {}\u{1}\n", "x".repeat(at - 3));
            let error = read(&text).expect_err("a control character is not YAML");
            assert!(
                error.contains("control characters are not allowed"),
                "{error}"
            );
            assert!(
                error.ends_with(&format!("at position {at}")),
                "{at}: {error}"
            );
        }
    }

    /// `node` (read by yaml-rust2, through marked-yaml) as JSON, every scalar as text.
    fn as_texts(node: &marked_yaml::Node) -> Value {
        match node {
            marked_yaml::Node::Scalar(text) => Value::String(text.as_str().to_string()),
            marked_yaml::Node::Sequence(items) => items.iter().map(as_texts).collect(),
            marked_yaml::Node::Mapping(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(key, value)| (key.as_str().to_string(), as_texts(value)))
                    .collect(),
            ),
        }
    }

    /// The YAML scanner is patched to copy a plain scalar's runs of ASCII whole
    /// (vendor/README.md): plain scalars holding every character the run stops at (`:`, the
    /// flow indicators) or takes (`#`, `?`, `-` inside a word), in block and flow collections,
    /// folded over lines, and crossing the reader's 16 KiB chunks at every place, read as
    /// another YAML parser (yaml-rust2) reads them; and an error found after a long run is
    /// placed where it is.
    #[test]
    fn plain_scalars_read_as_another_parser_reads_them_around_the_readers_chunks() {
        const CHUNK: usize = 16 * 1024;
        // A fixed pseudo-random sequence (a linear congruential generator).
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |below: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            usize::try_from(state >> 33).unwrap() % below
        };
        // Text inside a word, in a block collection and in a flow collection.
        let block_inner = b"abcxyzAZ019_-./:#?!%@&*|>=+~,[]{}'\"";
        // (`?` left out: libyaml refuses `:?` in a flow collection, yaml-rust2 does not.)
        let flow_inner = b"abcxyzAZ019_-./:#!%@&*|>=+~'\"";
        let mut word = |flow: bool, length: usize| {
            let inner: &[u8] = if flow { flow_inner } else { block_inner };
            let mut text = String::from("w");
            while text.len() < length {
                let c = char::from(inner[next(inner.len())]);
                // `:` followed by a blank or the end, and ` #`, would end the scalar.
                if c == ':' && text.len() + 1 == length {
                    continue;
                }
                text.push(c);
            }
            text.push('z');
            text
        };
        for shift in 0..8 {
            let mut text = format!("pad: {}\n", "p".repeat(CHUNK - 40 + shift * 3));
            let mut entry = 0;
            while text.len() < 3 * CHUNK {
                entry += 1;
                let long = [1, 5, 40, 700, 2][entry % 5];
                // Indentation, which the scanner skips a run of spaces at a time.
                let indent = " ".repeat(1 + entry * 7 % 40);
                match entry % 4 {
                    0 => {
                        let first = word(false, long);
                        let second = word(false, 3);
                        let third = word(false, long);
                        text.push_str(&format!("k{entry}: {first} {second}\n{indent}{third}\n"));
                    }
                    3 => {
                        let value = word(false, long);
                        text.push_str(&format!("k{entry}:\n{indent}inner:    {value}\n"));
                    }
                    1 => {
                        let items: Vec<String> = (0..3).map(|_| word(true, long)).collect();
                        text.push_str(&format!("k{entry}: [{}]\n", items.join(", ")));
                    }
                    _ => {
                        let key = word(true, 4);
                        let value = word(true, long);
                        text.push_str(&format!("k{entry}: {{{key}: {value}}}\n"));
                    }
                }
            }
            let expected = as_texts(&marked_yaml::parse_yaml(0, &text).expect("valid YAML"));
            assert_eq!(read(&text).as_ref(), Ok(&expected), "shift {shift}");
        }
        for at in [CHUNK - 2, CHUNK, CHUNK + 1, 2 * CHUNK + 7] {
            // `k: [www…w:,]`: a `:` followed by `,` in a flow collection is refused where it is,
            // after a plain scalar's run and after a run of spaces alike.
            let after_a_scalar = format!("k: [{}:,]\n", "w".repeat(at - 4));
            let after_spaces = format!("k:{}[w:,]\n", " ".repeat(at - 4));
            for text in [after_a_scalar, after_spaces] {
                let error = read(&text).expect_err("libyaml refuses `:,` in a flow collection");
                assert!(error.contains("found unexpected ':'"), "{error}");
                assert!(
                    error.contains(&format!("line 1 column {}", at + 1)),
                    "{at}: {error}"
                );
            }
        }
    }

    #[test]
    fn values_keys_tags_and_errors_are_as_converting_a_yaml_value_gives_them() {
        let texts = [
            "a: 1\nb: -2\nc: 18446744073709551615\nd: 1.5\ne: .nan\nf: .inf\ng: ~\nh: true\ni: 'x'\n",
            "200: ok\n1.5: x\ntrue: y\n~: z\n0x1F: hex\n",
            "1: number\n'1': text\n",
            "a: !custom {b: [1, !t 2]}\nc: &x {d: 1}\ne: *x\n",
            "- 1\n- [a, {b: c}]\n",
            "plain",
            "a: 1\na: 2\n",
            "1: a\n1: b\n",
            "~: a\nnull: b\n",
            "[1]: a\n",
            "{a: 1}: a\n",
            "? [1]\n: a\nb: [1, 2\n",
            "a: [1, 2\nb: }",
            "",
        ];
        for text in texts {
            assert_eq!(read(text), through_a_yaml_value(text), "{text:?}");
        }
        assert_eq!(
            read("1: number\n'1': text\n").unwrap(),
            json!({ "1": "text" })
        );
        assert!(
            read("a: 1\na: 2\n")
                .unwrap_err()
                .contains("duplicate entry with key \"a\"")
        );
    }

    #[test]
    fn webhooks_and_component_examples_are_left_out_of_a_description() {
        let text = "openapi: 3.1.0\nwebhooks: {a: 1}\nx-webhooks: {}\npaths: {/a: {get: {examples: {x: 1}}}}\ncomponents:\n  examples: {b: 2}\n  schemas: {C: {}}\n";
        let value = parse(text, true).unwrap();
        assert_eq!(
            value,
            json!({
                "openapi": "3.1.0",
                "webhooks": {},
                "paths": { "/a": { "get": { "examples": { "x": 1 } } } },
                "components": { "schemas": { "C": {} } }
            })
        );
        assert_eq!(
            read(text).unwrap()["components"]["examples"],
            json!({ "b": 2 })
        );
    }
}
