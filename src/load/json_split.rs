//! A large pretty-printed JSON description read on every core: the members of the root object,
//! and inside the largest (such as `paths`, `components.schemas`) theirs, are found from the
//! lines that start them, each member's value is parsed by serde_json on its own, and the objects
//! are put back together in the order of the text.
//!
//! The lines only say where to look: what is between the values (`{`, each key, `:`, `,`, `}`)
//! is checked to be exactly what JSON writes there, each key and value must parse whole, and
//! JSON's grammar has one reading of a text, so the values put together are the text's value.
//! Anything else (the text is not cut as expected, a value or key does not parse, a key is
//! given twice, nesting that reaches serde_json's limit counted from the root) parses the whole
//! text as before (`unused::parse_json`, `serde_json::from_str`), which tells the error.

use serde::Deserialize as _;
use serde::de::DeserializeSeed;
use serde_json::{Map, Value};

use super::unused::{HasEntries, Part};

/// Texts shorter than this are parsed whole: cutting them saves less than it costs.
pub(super) const SMALLEST: usize = 256 * 1024;

/// About how many pieces a text is cut into: enough for the cores to share the work evenly.
const PIECES: usize = 32;

/// serde_json refuses a value nested this deep (arrays and objects, the root counting 1).
const DEPTH_LIMIT: usize = 128;

/// Parses the JSON `text` as `unused::parse_json` does (`leave_out_unused`) or as
/// `serde_json::from_str` does, on every core; `None` where the text is not cut (see the
/// module's comment) or a piece does not parse: the caller then parses the text whole.
pub(super) fn read(text: &str, leave_out_unused: bool) -> Option<Value> {
    if text.len() < SMALLEST {
        return None;
    }
    read_in_pieces(text, leave_out_unused, text.len() / PIECES)
}

/// [`read`], objects larger than `target` bytes cut further where they can be.
fn read_in_pieces(text: &str, leave_out_unused: bool, target: usize) -> Option<Value> {
    let bytes = text.as_bytes();
    let open = bytes.iter().position(|&b| !is_space(b))?;
    let close = bytes.iter().rposition(|&b| !is_space(b))?;
    if bytes[open] != b'{' || bytes[close] != b'}' || close <= open {
        return None;
    }
    let cutter = Cutter { text, target };
    let root = cutter.object(open, close, leave_out_unused.then_some(Part::Root), 1)?;
    let mut jobs = Vec::new();
    leaves(&root, &mut jobs);
    if jobs.len() < 2 {
        return None;
    }
    let parsed = super::every_core::map(&jobs, |job| job.parse());
    let mut parsed = parsed.into_iter();
    assemble(&root, &mut parsed).map(Value::Object)
}

/// JSON's whitespace, as serde_json reads it.
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\n' | b'\t' | b'\r')
}

/// [`is_space`] of a character (not of a character's lowest byte: `Ġ` is not a space).
fn is_space_char(c: char) -> bool {
    c.is_ascii() && is_space(c as u8)
}

/// A member of an object.
#[derive(Debug)]
struct Member<'a> {
    key: String,
    value: Piece<'a>,
}

#[derive(Debug)]
enum Piece<'a> {
    /// A value parsed on its own.
    Value(Job<'a>),
    /// An object whose members are parsed on their own.
    Object(Vec<Member<'a>>),
}

#[derive(Debug)]
struct Job<'a> {
    text: &'a str,
    how: How,
    /// Its nesting in the whole text (the root's members' values are at 2).
    depth: usize,
}

/// How a value is read.
#[derive(Debug, Clone, Copy)]
enum How {
    /// As a JSON value.
    Value,
    /// As that part of a description, which leaves something out of it.
    Part(Part),
    /// Left out, telling only whether it has entries; kept (empty) where it has them.
    LeftOut { kept_with_entries: bool },
}

/// What a job parsed: a value, or for one left out, whether it had entries.
enum Parsed {
    Value(Value),
    LeftOut { has_entries: bool },
}

impl Job<'_> {
    fn parse(&self) -> Option<Parsed> {
        let mut deserializer = serde_json::Deserializer::from_str(self.text);
        let parsed = match self.how {
            How::LeftOut { .. } => Parsed::LeftOut {
                has_entries: HasEntries.deserialize(&mut deserializer).ok()?,
            },
            How::Part(part) => Parsed::Value(part.deserialize(&mut deserializer).ok()?),
            How::Value => Parsed::Value(Value::deserialize(&mut deserializer).ok()?),
        };
        deserializer.end().ok()?;
        if let Parsed::Value(value) = &parsed
            && self.depth - 1 + nesting(value) >= DEPTH_LIMIT
        {
            return None;
        }
        Some(parsed)
    }
}

/// How deep arrays and objects nest in `value` (0 for a scalar).
fn nesting(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(nesting).max().unwrap_or(0),
        Value::Object(object) => 1 + object.values().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}

fn leaves<'p, 'a>(members: &'p [Member<'a>], jobs: &mut Vec<&'p Job<'a>>) {
    for member in members {
        match &member.value {
            Piece::Value(job) => jobs.push(job),
            Piece::Object(members) => leaves(members, jobs),
        }
    }
}

/// The object made of `members`, their values taken from `parsed` in the order of [`leaves`];
/// `None` where a piece did not parse or a key is given twice.
fn assemble(
    members: &[Member<'_>],
    parsed: &mut impl Iterator<Item = Option<Parsed>>,
) -> Option<Map<String, Value>> {
    let mut object = Map::new();
    // Keys left out without a value kept, for a key given twice.
    let mut left_out: Vec<&str> = Vec::new();
    for member in members {
        let value = match &member.value {
            Piece::Value(job) => match parsed.next()?? {
                Parsed::Value(value) => Some(value),
                // The root's `webhooks` with entries stays, empty (`unused.rs`).
                Parsed::LeftOut { has_entries } => {
                    let kept = matches!(
                        job.how,
                        How::LeftOut {
                            kept_with_entries: true
                        }
                    );
                    (has_entries && kept).then(|| Value::Object(Map::new()))
                }
            },
            Piece::Object(members) => Some(Value::Object(assemble(members, parsed)?)),
        };
        if object.contains_key(&member.key) || left_out.contains(&member.key.as_str()) {
            return None;
        }
        match value {
            Some(value) => {
                object.insert(member.key.clone(), value);
            }
            None => left_out.push(&member.key),
        }
    }
    Some(object)
}

struct Cutter<'a> {
    text: &'a str,
    /// Objects larger than this are cut into their members where they can be.
    target: usize,
}

impl<'a> Cutter<'a> {
    /// The members of the object from the `{` at `open` to the `}` at `close`, at nesting
    /// `depth`, in `part` of a description; `None` where they are not found as the module's
    /// comment says.
    fn object(
        &self,
        open: usize,
        close: usize,
        part: Option<Part>,
        depth: usize,
    ) -> Option<Vec<Member<'a>>> {
        let bytes = self.text.as_bytes();
        if bytes[open] != b'{' || bytes[close] != b'}' {
            return None;
        }
        // The first member's line: its indentation is that of every member's.
        let first = open + 1 + bytes[open + 1..close].iter().position(|&b| !is_space(b))?;
        if bytes[first] != b'"' {
            return None;
        }
        let line_start = bytes[..first].iter().rposition(|&b| b == b'\n')? + 1;
        let indent = &bytes[line_start..first];
        if line_start <= open || indent.iter().any(|&b| b != b' ') {
            return None;
        }
        // Every line that starts with that indentation and a `"` (no line break is inside a
        // JSON string).
        let mut starts = vec![first];
        // Found as the text "line feed, indentation, quotation mark" (a search of the whole
        // pattern skips the many lines indented deeper without stopping at each).
        let mut line = Vec::with_capacity(indent.len() + 2);
        line.push(b'\n');
        line.extend_from_slice(indent);
        line.push(b'"');
        for found in memchr::memmem::find_iter(&bytes[first..close], &line) {
            starts.push(first + found + line.len() - 1);
        }
        let mut members = Vec::with_capacity(starts.len());
        for (index, &start) in starts.iter().enumerate() {
            let last = index + 1 == starts.len();
            let end = starts.get(index + 1).map_or(close, |&next| next);
            let mut member = self.text[start..end].trim_end_matches(is_space_char);
            if !last {
                member = member.strip_suffix(',')?.trim_end_matches(is_space_char);
            }
            let key_end = string_end(member.as_bytes())?;
            let key: String = serde_json::from_str(&member[..key_end]).ok()?;
            let value = member[key_end..]
                .trim_start_matches(is_space_char)
                .strip_prefix(':')?
                .trim_start_matches(is_space_char);
            if value.is_empty() {
                return None;
            }
            let value_start = value.as_ptr() as usize - self.text.as_ptr() as usize;
            members.push(Member {
                value: self.value(value_start, value, &key, part, depth + 1),
                key,
            });
        }
        Some(members)
    }

    /// The member `key`'s value `value` (starting at byte `start`), at `depth`, in an object in
    /// `part` of a description.
    fn value(
        &self,
        start: usize,
        value: &'a str,
        key: &str,
        part: Option<Part>,
        depth: usize,
    ) -> Piece<'a> {
        let left_out = part.is_some_and(|part| part.leaves_out(key));
        let inner = match (part, key) {
            (Some(Part::Root), "components") => Some(Part::Components),
            _ => None,
        };
        if !left_out
            && value.len() > self.target
            && value.starts_with('{')
            && let Some(members) = self.object(start, start + value.len() - 1, inner, depth)
        {
            return Piece::Object(members);
        }
        let how = match (left_out, inner) {
            (true, _) => How::LeftOut {
                kept_with_entries: matches!(part, Some(Part::Root)),
            },
            (false, Some(part)) => How::Part(part),
            (false, None) => How::Value,
        };
        Piece::Value(Job {
            text: value,
            how,
            depth,
        })
    }
}

/// Where the JSON string that `text` starts with ends (after its closing `"`).
fn string_end(text: &[u8]) -> Option<usize> {
    let mut at = 1;
    loop {
        at += memchr::memchr2(b'"', b'\\', text.get(at..)?)?;
        match text[at] {
            b'"' => return Some(at + 1),
            _ => at += 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::load::unused;

    /// serde_json is patched to skip whitespace eight spaces at a time in text it holds whole
    /// (vendor/README.md): values and errors (line and column) are what its reader of a byte
    /// stream gives, which reads a byte at a time, with runs of spaces of every length up to
    /// twenty, tabs, carriage returns and line feeds around every token and at the end.
    #[test]
    fn json_whitespace_of_any_length_reads_as_a_byte_at_a_time() {
        let tokens = [
            "{", "\"k\"", ":", "[", "1", ",", "\"a b\"", "]", ",", "\"n\"", ":", "null", "}",
        ];
        let gaps = ["", "\n", "\r\n", "\t", " \n \t"];
        for spaces in 0..=20 {
            for gap in gaps {
                let space = format!("{gap}{}", " ".repeat(spaces));
                let text = format!("{space}{}{space}", tokens.join(&space));
                let by_bytes: Value = serde_json::from_reader(text.as_bytes()).unwrap();
                let held: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(held, by_bytes, "{text:?}");
                assert_eq!(held, json!({ "k": [1, "a b"], "n": null }));
                // An error after the whitespace is placed where it is.
                let wrong = format!("[1,{space}x]");
                let by_bytes = serde_json::from_reader::<_, Value>(wrong.as_bytes()).unwrap_err();
                let held = serde_json::from_str::<Value>(&wrong).unwrap_err();
                assert_eq!(
                    (held.line(), held.column()),
                    (by_bytes.line(), by_bytes.column()),
                    "{wrong:?}"
                );
                assert_eq!(held.to_string(), by_bytes.to_string());
            }
        }
    }

    /// The text parsed whole, as before, its error as text.
    fn whole(text: &str, leave_out_unused: bool) -> Result<Value, String> {
        match leave_out_unused {
            true => unused::parse_json(text),
            false => serde_json::from_str(text),
        }
        .map_err(|error| error.to_string())
    }

    /// How many values are parsed on their own at `target`, `None` where the text is not cut.
    fn jobs(text: &str, target: usize) -> Option<usize> {
        let cutter = Cutter { text, target };
        let open = text.find('{')?;
        let close = text.rfind('}')?;
        let root = cutter.object(open, close, Some(Part::Root), 1)?;
        let mut jobs = Vec::new();
        leaves(&root, &mut jobs);
        Some(jobs.len())
    }

    /// The pieces parse `text` into what serde_json parses of it whole, or give up: never
    /// another value, whatever the size of the pieces. How many times they did not give up.
    fn assert_pieces_parse_as_the_whole(text: &str, name: &str) -> usize {
        let mut in_pieces = 0;
        for leave_out_unused in [false, true] {
            let whole = whole(text, leave_out_unused);
            for target in [0, 64, 4096] {
                if let Some(value) = read_in_pieces(text, leave_out_unused, target) {
                    assert_eq!(Ok(&value), whole.as_ref(), "{name} at {target}");
                    in_pieces += 1;
                }
            }
        }
        in_pieces
    }

    /// Texts made to trip a cut; each is also tried as the value of `paths` and of
    /// `components.schemas`.
    const TRICKY: &[&str] = &[
        "{\n  \"a\": 1,\n  \"b\": [\n  \"x\",\n  \"y\"\n  ],\n  \"c\": 2\n}",
        "{\n  \"a\": \"x\\n  \\\"b\\\": 1\",\n  \"c\": 2\n}",
        "{\n  \"a\\\"b\": 1,\n  \"\\u0041\": 2,\n  \"A\": 3\n}",
        "{\n  \"a\": 1,\n  \"b\": 2,\n  \"a\": 3\n}",
        "{\n  \"a\": 1,\n  \"b\": 2,\n}",
        "{\n  \"a\": 1\n  \"b\": 2\n}",
        "{\n  \"a\" 1,\n  \"b\": 2\n}",
        "{\n  \"a\": ,\n  \"b\": 2\n}",
        "{\n  \"a\": 1,\n  \"b\": \"x\n  \"c\": 2\n}",
        "{\n  \"a\": {\"x\": 1},\n  \"b\": 2}\n}",
        "{\n  \"a\": 1,\n  \"b\": 2\n} x",
        "{\n  \"a\": 1,\n  \"b\": 2\n}\n\n",
        "{\n  \"a\": 1.0,\n  \"b\": -0,\n  \"c\": 1e400,\n  \"d\": 18446744073709551616\n}",
        "{\n  \"webhooks\": {},\n  \"x\": 1,\n  \"webhooks\": {\"a\": 1}\n}",
        "{\n  \"webhooks\": {\"a\": 1},\n  \"x-webhooks\": [1],\n  \"x\": 1\n}",
        "{\n  \"components\": {\n    \"examples\": {\"a\": 1},\n    \"schemas\": {\"b\": 1}\n  },\n  \"x\": 1\n}",
        "{\n  \"components\": {\n    \"examples\": {},\n    \"examples\": {\"a\": 1}\n  },\n  \"x\": 1\n}",
        "{\n  \"components\": 7,\n  \"x\": 1\n}",
        "{\n  \"a\": 1,\n\t\"b\": 2\n}",
        "{\n  \"a\": 1\u{120},\n  \"b\": 2\u{120}\n}",
        "{\n  \"a\"\u{120}: 1,\n  \"b\":\u{120}2\n}",
        "{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}",
        "{\"a\": 1, \"b\": 2}",
        "{\n}",
        "[\n  1,\n  2\n]",
    ];

    /// `text` as it is, and as the value of `paths` and of `components.schemas`, indented.
    fn placed(text: &str) -> Vec<String> {
        let nested = |indent: &str| text.replace('\n', &format!("\n{indent}"));
        vec![
            text.to_owned(),
            format!(
                "{{\n  \"openapi\": \"3.1.0\",\n  \"paths\": {},\n  \"z\": 1\n}}",
                nested("  ")
            ),
            format!(
                "{{\n  \"components\": {{\n    \"schemas\": {}\n  }},\n  \"z\": 1\n}}",
                nested("    ")
            ),
        ]
    }

    #[test]
    fn tricky_texts_parse_in_pieces_as_whole_at_the_root_and_nested() {
        for text in TRICKY {
            for placed in placed(text) {
                assert_pieces_parse_as_the_whole(&placed, &format!("{placed:?}"));
            }
        }
    }

    #[test]
    fn a_description_is_cut_at_its_members_paths_and_schemas_and_parsed_as_whole() {
        let text = "{\n  \"openapi\": \"3.1.0\",\n  \"paths\": {\n    \"/a\": {\"get\": {}},\n    \"/b\": {\n      \"get\": {}\n    }\n  },\n  \"webhooks\": {\n    \"w\": {}\n  },\n  \"components\": {\n    \"examples\": {\"e\": 1},\n    \"schemas\": {\n      \"A\": {\"type\": \"object\"},\n      \"B\": {}\n    }\n  }\n}\n";
        // openapi; /a, /b's get; webhooks; examples, A's type, B.
        assert_eq!(jobs(text, 0), Some(7));
        for leave_out_unused in [false, true] {
            let value = read_in_pieces(text, leave_out_unused, 0).unwrap();
            assert_eq!(Ok(&value), whole(text, leave_out_unused).as_ref());
        }
        let value = read_in_pieces(text, true, 0).unwrap();
        assert_eq!(value["webhooks"], json!({}));
        assert_eq!(value["components"].get("examples"), None);
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["openapi", "paths", "webhooks", "components"]);
        // Small texts are parsed whole.
        assert_eq!(read(text, true), None);
    }

    #[test]
    fn a_key_given_twice_in_different_pieces_is_parsed_whole() {
        for text in [
            "{\n  \"a\": 1,\n  \"b\": 2,\n  \"a\": 3\n}",
            "{\n  \"paths\": {\n    \"/a\": 1,\n    \"/a\": 2\n  },\n  \"z\": 1\n}",
            "{\n  \"webhooks\": {},\n  \"webhooks\": 1\n}",
        ] {
            assert!(jobs(text, 0).unwrap() >= 2, "{text:?}");
            assert_eq!(read_in_pieces(text, true, 0), None, "{text:?}");
            assert_eq!(read_in_pieces(text, false, 0), None, "{text:?}");
        }
    }

    #[test]
    fn a_piece_counts_its_nesting_from_where_it_is_in_the_whole_text() {
        for levels in [124, 125, 126, 127] {
            let value = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
            let text = format!(
                "{{\n  \"paths\": {{\n    \"/a\": {value},\n    \"/b\": 2\n  }},\n  \"z\": 1\n}}"
            );
            assert_eq!(jobs(&text, 0), Some(3));
            let whole = whole(&text, true);
            assert_eq!(whole.is_ok(), levels < 126, "{levels}");
            assert_eq!(read_in_pieces(&text, true, 0), whole.ok(), "{levels}");
        }
    }

    /// Every JSON file of the repository parses in pieces as it parses whole; most are cut.
    #[test]
    fn every_json_file_of_the_repository_parses_in_pieces_as_whole() {
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
                } else if name.ends_with(".json") {
                    files.push(path);
                }
            }
        }
        let (mut cut, mut not_cut) = (0, 0);
        for file in &files {
            let Ok(text) = std::fs::read_to_string(file) else {
                continue;
            };
            let text = text.trim_start_matches('\u{feff}');
            match assert_pieces_parse_as_the_whole(text, &file.display().to_string()) {
                0 => not_cut += 1,
                _ => cut += 1,
            }
        }
        assert!(files.len() > 20, "{} JSON files found", files.len());
        assert!(
            cut > not_cut,
            "{cut} parsed in pieces, {not_cut} only whole"
        );
    }
}
