//! The parts of an API description that no tool is made from, left out while the description is
//! parsed rather than parsed and then ignored: requests the API sends to others (`webhooks`, and
//! the `x-webhooks` of 3.0 documents) and sample payloads (`components.examples`, which only the
//! `examples` of media types refer to, and the loader reads no media type's examples).
//!
//! A root `webhooks` (or `x-webhooks`) mapping that has entries is kept as an empty mapping, so
//! that what is said of a document without operations can tell whether it has webhooks.

use std::fmt;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Where in the document a mapping is, for what is left out of it.
#[derive(Debug, Clone, Copy)]
pub(super) enum Part {
    /// The document's root: `webhooks` and `x-webhooks` are left out.
    Root,
    /// The root's `components`: `examples` is left out.
    Components,
}

impl Part {
    /// Whether the entry `key` of a mapping in this part is left out.
    pub(super) fn leaves_out(self, key: &str) -> bool {
        match self {
            Part::Root => matches!(key, "webhooks" | "x-webhooks"),
            Part::Components => key == "examples",
        }
    }
}

/// Parses JSON `text` as [`serde_json::from_str`] does, without the unused parts.
pub fn parse_json(text: &str) -> serde_json::Result<Value> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Part::Root.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// Reads a value without keeping it, telling whether it was a mapping with entries.
pub(super) struct HasEntries;

impl<'de> DeserializeSeed<'de> for HasEntries {
    type Value = bool;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for HasEntries {
    type Value = bool;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut any = false;
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
            any = true;
        }
        Ok(any)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(false)
    }

    fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_str<E>(self, _: &str) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(false)
    }
}

impl<'de> DeserializeSeed<'de> for Part {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// A mapping is read key by key; anything else (which the loader then reports as malformed) is
/// read whole, as [`Value`] reads it.
impl<'de> Visitor<'de> for Part {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if self.leaves_out(&key) {
                let has_entries = map.next_value_seed(HasEntries)?;
                if matches!(self, Part::Root) && has_entries {
                    object.insert(key, Value::Object(Map::new()));
                }
                continue;
            }
            let value = match (self, key.as_str()) {
                (Part::Root, "components") => map.next_value_seed(Part::Components)?,
                _ => map.next_value::<Value>()?,
            };
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Value>()? {
            items.push(item);
        }
        Ok(Value::Array(items))
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
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn webhooks_and_component_examples_are_left_out_and_the_rest_is_as_serde_json_reads_it() {
        let text = r#"{
            "openapi": "3.1.0",
            "webhooks": { "ping": { "post": {} } },
            "x-webhooks": { "push": {} },
            "paths": { "/a": { "get": { "examples": { "x": 1 }, "x-webhooks": 2 } } },
            "components": {
                "examples": { "big": { "value": [1, 2, 3] } },
                "schemas": { "A": { "examples": [1.5, null, true, "x"] } }
            },
            "x-n": [-3, 18446744073709551615]
        }"#;
        let mut expected: Value = serde_json::from_str(text).unwrap();
        let root = expected.as_object_mut().unwrap();
        root["webhooks"] = json!({});
        root["x-webhooks"] = json!({});
        root["components"]
            .as_object_mut()
            .unwrap()
            .remove("examples");
        assert_eq!(parse_json(text).unwrap(), expected);
        assert_eq!(
            expected["paths"]["/a"]["get"],
            json!({ "examples": { "x": 1 }, "x-webhooks": 2 })
        );
    }

    #[test]
    fn a_document_that_is_not_an_object_and_malformed_json_read_as_serde_json_reads_them() {
        assert_eq!(
            parse_json("[1, {\"webhooks\": 2}]").unwrap(),
            json!([1, { "webhooks": 2 }])
        );
        assert_eq!(
            parse_json("{\"components\": 7}").unwrap(),
            json!({ "components": 7 })
        );
        let ours = parse_json("{\"a\": [1,}").unwrap_err().to_string();
        let theirs = serde_json::from_str::<Value>("{\"a\": [1,}")
            .unwrap_err()
            .to_string();
        assert_eq!(ours, theirs);
        assert!(parse_json("{} trailing").is_err());
    }
}
