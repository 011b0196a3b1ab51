//! The catalog the describe tool reads (`data/operations.jsonl`), each shared schema written
//! once.
//!
//! A large API's operations take and answer with the same objects again and again: Kubernetes'
//! 1,067 lines held 12.8 MB of JSON, nearly all of it copies of a few hundred schemas. Here every
//! object whose JSON text is at least [`SHARED_BYTES`] long and that is written more than once
//! goes on a line of its own after the operations' lines, once, and each place it was written
//! holds a marker instead: an object whose only key is the catalog's marker key, and whose value
//! is the shared entry's number (`{"$shared":12}`, 0 being the first line after the
//! operations'). The marker key is one that no object of the catalog has (`$shared`, or
//! `$shared1`, `$shared2`, … when a schema uses it), named on the line before the operations';
//! the describe tool replaces each marker by its entry, recursively, and nothing else, so it
//! answers exactly the JSON text written before: the same values, the keys in the same order.
//!
//! The shared objects are found in the walk that writes the text, bottom up: an object's text
//! with its large objects already replaced by placeholders is its identity (two objects have the
//! same text exactly when their placeholders' objects do), and is interned in a hash map. Each
//! byte of a schema is written and hashed once, in the text of the smallest large object around
//! it; the catalog is then put together from the interned texts.

use std::collections::HashMap;

use serde_json::Value;

/// The length of JSON text from which an object written more than once is written once: a
/// marker (`{"$shared":1234}`) is 16 bytes, and objects much shorter are clearer where they are.
pub const SHARED_BYTES: usize = 100;

/// The marker key, when no object of the catalog has it; else the first of `$shared1`,
/// `$shared2`, … that none has.
pub const MARKER: &str = "$shared";

/// In an interned text, the byte before an interned object's number (4 bytes, little-endian),
/// where the object was: 0xFF is no byte of UTF-8 text, so of no JSON text.
const PLACEHOLDER: u8 = 0xFF;

/// What a catalog's line holds beside its operation's fixed fields.
pub struct Line<'a> {
    /// The line's JSON object up to its input schema's value: `{…,"input_schema":`. Its keys
    /// are fixed names of the describe tool's answer and of the annotations (none starts with
    /// `$`, so none is a marker key).
    pub head: &'a str,
    pub input_schema: &'a Value,
    /// The JSON text of what the operation returns, as `serde_json` writes a value: compact.
    pub returns: &'a str,
}

/// The catalog: `first_line`, two lines that say how shared entries are marked, each line's
/// object (`head`, its input schema, `"returns"` and its value), then the shared entries, a line
/// each.
pub fn write<'a>(lines: impl ExactSizeIterator<Item = Line<'a>>, first_line: &str) -> String {
    let mut interner = Interner::default();
    // Operations that take the same schema share one value in the plan (Kubernetes' 1,067 have
    // 443): each is walked once.
    let mut walked: HashMap<*const Value, Box<[u8]>, foldhash::fast::RandomState> =
        HashMap::default();
    let mut scratch = Vec::new();
    let mut slots = Vec::with_capacity(lines.len());
    for line in lines {
        let input = walked
            .entry(line.input_schema as *const Value)
            .or_insert_with(|| {
                scratch.clear();
                interner.text(line.input_schema, &mut scratch);
                scratch.as_slice().into()
            })
            .clone();
        scratch.clear();
        interner.scan(line.returns.as_bytes(), &mut scratch);
        let returns: Box<[u8]> = scratch.as_slice().into();
        for slot in [&input, &returns] {
            for (_, id) in placeholders(slot) {
                interner.refs[id as usize] += 1;
            }
        }
        slots.push((line.head, input, returns));
    }
    let marker = (0..)
        .map(|n| match n {
            0 => MARKER.to_string(),
            n => format!("{MARKER}{n}"),
        })
        .find(|candidate| !interner.taken.contains(candidate))
        .expect("a marker key no object has");
    let Interner { ids, refs, .. } = interner;
    let mut texts: Vec<Box<[u8]>> = vec![Box::default(); refs.len()];
    for (text, id) in ids {
        texts[id as usize] = text;
    }
    let mut writer = Writer {
        texts: &texts,
        refs: &refs,
        numbers: vec![None; refs.len()],
        order: Vec::new(),
        marker_open: format!("{{{}:", serde_json::to_string(&marker).expect("a string")),
    };
    // Each interned text is written once, inlined or on its line; every place a shared one is
    // written holds a marker (at most 12 bytes beside the key) instead: at least the catalog's
    // size, allocated once.
    let markers: usize = refs.iter().filter(|&&r| r >= 2).map(|&r| r as usize).sum();
    let capacity = first_line.len()
        + 512
        + slots
            .iter()
            .map(|(head, input, returns)| head.len() + input.len() + returns.len() + 14)
            .sum::<usize>()
        + texts.iter().map(|text| text.len() + 1).sum::<usize>()
        + markers * (writer.marker_open.len() + 12);
    let mut out = Vec::with_capacity(capacity);
    out.extend_from_slice(first_line.as_bytes());
    out.extend_from_slice(
        concat!(
            "// Below: the line that names the marker key, then what the describe tool answers of ",
            "each operation, a line each in the operations' order, then the objects those lines ",
            "share, a line each.\n",
            "// An object whose only key is the marker key stands for the shared object of that ",
            "number (0 is the first line after the operations'), itself expanded the same way.\n",
        )
        .as_bytes(),
    );
    out.extend_from_slice(b"{\"marker\":");
    serde_json::to_writer(&mut out, &marker).expect("a string serializes");
    out.extend_from_slice(b"}\n");
    for (head, input, returns) in &slots {
        out.extend_from_slice(head.as_bytes());
        writer.expand(input, &mut out);
        out.extend_from_slice(b",\"returns\":");
        writer.expand(returns, &mut out);
        out.extend_from_slice(b"}\n");
    }
    // The entries in the order they were first met; writing one may number others.
    let mut next = 0;
    while let Some(&id) = writer.order.get(next) {
        writer.expand(&texts[id as usize], &mut out);
        out.push(b'\n');
        next += 1;
    }
    String::from_utf8(out).expect("JSON text is UTF-8")
}

/// The interned objects: each one's text, its large objects replaced by placeholders, by its
/// number.
#[derive(Default)]
struct Interner {
    ids: HashMap<Box<[u8]>, u32, foldhash::fast::RandomState>,
    /// How many times each interned object is written in the lines and in the other interned
    /// objects' texts (each counted once).
    refs: Vec<u32>,
    /// The keys of the catalog's objects that start with [`MARKER`].
    taken: Vec<String>,
}

impl Interner {
    /// Appends `value`'s JSON text (compact, as `serde_json` writes it) to `out`, each object
    /// of at least [`SHARED_BYTES`] of text interned and replaced by a placeholder. Returns the
    /// length of `value`'s whole text.
    fn text(&mut self, value: &Value, out: &mut Vec<u8>) -> usize {
        match value {
            Value::Object(map) => {
                let start = out.len();
                // The braces, a colon per key and the commas between the entries.
                let mut length = 2 + 2 * map.len() - usize::from(!map.is_empty());
                out.push(b'{');
                for (i, (key, item)) in map.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    if key.starts_with(MARKER) {
                        self.taken.push(key.clone());
                    }
                    length += write_string(key, out);
                    out.push(b':');
                    length += self.text(item, out);
                }
                out.push(b'}');
                if length >= SHARED_BYTES {
                    let id = self.intern(&out[start..]);
                    out.truncate(start);
                    out.push(PLACEHOLDER);
                    out.extend_from_slice(&id.to_le_bytes());
                }
                length
            }
            Value::Array(items) => {
                let mut length = 2 + items.len().saturating_sub(1);
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    length += self.text(item, out);
                }
                out.push(b']');
                length
            }
            Value::String(string) => write_string(string, out),
            scalar => {
                let at = out.len();
                serde_json::to_writer(&mut *out, scalar).expect("a JSON value serializes");
                out.len() - at
            }
        }
    }

    /// [`Interner::text`] of the value `json` is the compact text of (as `serde_json` writes it:
    /// no space outside strings). The answers' values are held as text (GitHub's 1.4 MB of them
    /// held as values raised the peak memory of generating its crate by 13 MB), and read here
    /// without being parsed: an object starts at a `{` and ends at its `}` outside strings, and
    /// its whole text is the text between. Every string that starts with [`MARKER`] counts as
    /// a key (whether it is one or a value), which can only rule out a marker key needlessly.
    fn scan(&mut self, json: &[u8], out: &mut Vec<u8>) {
        // Where each object still open starts, in `json` and in `out`.
        let mut open: Vec<(usize, usize)> = Vec::new();
        let mut at = 0;
        while at < json.len() {
            match json[at] {
                b'"' => {
                    // A quote within a string is escaped, as is a backslash.
                    let mut end = at + 1;
                    loop {
                        end += memchr::memchr2(b'"', b'\\', &json[end..]).expect("a closed string");
                        if json[end] == b'"' {
                            break;
                        }
                        end += 2;
                    }
                    let string = &json[at + 1..end];
                    if string.starts_with(MARKER.as_bytes()) {
                        // Escapes are not undone: a marker key has none.
                        self.taken
                            .push(String::from_utf8_lossy(string).into_owned());
                    }
                    out.extend_from_slice(&json[at..=end]);
                    at = end + 1;
                }
                b'{' => {
                    open.push((at, out.len()));
                    out.push(b'{');
                    at += 1;
                }
                b'}' => {
                    out.push(b'}');
                    let (start, written) = open.pop().expect("a balanced object");
                    if at + 1 - start >= SHARED_BYTES {
                        let id = self.intern(&out[written..]);
                        out.truncate(written);
                        out.push(PLACEHOLDER);
                        out.extend_from_slice(&id.to_le_bytes());
                    }
                    at += 1;
                }
                _ => {
                    let end = memchr::memchr3(b'"', b'{', b'}', &json[at..])
                        .map_or(json.len(), |found| at + found);
                    out.extend_from_slice(&json[at..end]);
                    at = end;
                }
            }
        }
    }

    /// The number of the object whose text is `text`, interned now if it was not.
    fn intern(&mut self, text: &[u8]) -> u32 {
        if let Some(&id) = self.ids.get(text) {
            return id;
        }
        let id = u32::try_from(self.refs.len()).expect("fewer than 2^32 objects");
        for (_, inner) in placeholders(text) {
            self.refs[inner as usize] += 1;
        }
        self.ids.insert(text.into(), id);
        self.refs.push(0);
        id
    }
}

/// Appends `string`'s JSON text, as `serde_json` writes it, to `out`, and returns its length.
///
/// Written by hand rather than with `serde_json::to_writer`, whose serializer and byte-by-byte
/// escape table cost a sixth of writing Kubernetes' catalog: nearly every key and text of a
/// schema has nothing to escape, and is checked here sixteen bytes at a time and copied whole.
/// The escapes are `serde_json`'s (its `CompactFormatter`): quotes, backslashes and control
/// characters (below U+0020) only, `\b \t \n \f \r` by name and the others as `\u00xx` in
/// lowercase hex; every other character as it is (U+2028 and non-ASCII included).
pub(super) fn write_string(string: &str, out: &mut Vec<u8>) -> usize {
    const CHUNK: usize = 16;
    let escaped = |b: u8| (b < 0x20) | (b == b'"') | (b == b'\\');
    let bytes = string.as_bytes();
    let at = out.len();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // `bytes[written..]` is still to be written.
    let mut written = 0;
    for (n, chunk) in bytes.chunks(CHUNK).enumerate() {
        // Folded without a branch a byte, over a whole block (the last one padded with spaces,
        // as most keys are shorter than a block), so that the compiler checks its bytes at once.
        let mut block = [b' '; CHUNK];
        let block = match <&[u8; CHUNK]>::try_from(chunk) {
            Ok(whole) => whole,
            Err(_) => {
                block[..chunk.len()].copy_from_slice(chunk);
                &block
            }
        };
        if !block.iter().fold(false, |any, &b| any | escaped(b)) {
            continue;
        }
        for (i, &b) in chunk.iter().enumerate() {
            if escaped(b) {
                let i = n * CHUNK + i;
                out.extend_from_slice(&bytes[written..i]);
                written = i + 1;
                let named = match b {
                    b'"' => b'"',
                    b'\\' => b'\\',
                    0x08 => b'b',
                    b'\t' => b't',
                    b'\n' => b'n',
                    0x0C => b'f',
                    b'\r' => b'r',
                    _ => {
                        const HEX: &[u8; 16] = b"0123456789abcdef";
                        out.extend_from_slice(b"\\u00");
                        out.extend_from_slice(&[
                            HEX[usize::from(b >> 4)],
                            HEX[usize::from(b & 0xF)],
                        ]);
                        continue;
                    }
                };
                out.extend_from_slice(&[b'\\', named]);
            }
        }
    }
    out.extend_from_slice(&bytes[written..]);
    out.push(b'"');
    out.len() - at
}

/// The placeholders of an interned text: where each starts, and its object's number.
fn placeholders(text: &[u8]) -> impl Iterator<Item = (usize, u32)> + '_ {
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + memchr::memchr(PLACEHOLDER, &text[from..])?;
        let id = u32::from_le_bytes(text[at + 1..at + 5].try_into().expect("4 bytes"));
        from = at + 5;
        Some((at, id))
    })
}

/// Writes interned texts with their placeholders replaced: by the object's text where it is
/// written once, else by a marker of its number among the shared entries.
struct Writer<'a> {
    texts: &'a [Box<[u8]>],
    refs: &'a [u32],
    /// Each shared object's number, once it has one.
    numbers: Vec<Option<u32>>,
    /// The shared objects, by number.
    order: Vec<u32>,
    /// `{"<marker>":`.
    marker_open: String,
}

impl Writer<'_> {
    fn expand(&mut self, text: &[u8], out: &mut Vec<u8>) {
        let mut written = 0;
        for (at, id) in placeholders(text) {
            out.extend_from_slice(&text[written..at]);
            written = at + 5;
            let texts = self.texts;
            if self.refs[id as usize] < 2 {
                self.expand(&texts[id as usize], out);
                continue;
            }
            let order = &mut self.order;
            let number = *self.numbers[id as usize].get_or_insert_with(|| {
                order.push(id);
                u32::try_from(order.len() - 1).expect("fewer than 2^32 objects")
            });
            out.extend_from_slice(self.marker_open.as_bytes());
            out.extend_from_slice(number.to_string().as_bytes());
            out.push(b'}');
        }
        out.extend_from_slice(&text[written..]);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use serde_json::{Value, json};

    use super::{Line, SHARED_BYTES, write, write_string};

    /// The catalog's marker key, operations' lines and shared objects, the comments skipped.
    fn read(catalog: &str, operations: usize) -> (String, Vec<&str>, Vec<&str>) {
        let mut lines = catalog.lines().filter(|line| !line.starts_with("//"));
        let head: Value = serde_json::from_str(lines.next().expect("the marker's line"))
            .expect("the marker's line is JSON");
        let marker = head["marker"].as_str().expect("a marker key").to_string();
        let described = lines.by_ref().take(operations).collect();
        (marker, described, lines.collect())
    }

    /// `value` with each object whose only key is `marker` replaced by the shared object of
    /// its number, expanded: what the generated server's describe tool does.
    fn expand(value: Value, marker: &str, shared: &[&str]) -> Value {
        match value {
            Value::Object(object) if object.len() == 1 && object.contains_key(marker) => {
                let number = object[marker].as_u64().expect("a number") as usize;
                let entry = serde_json::from_str(shared[number]).expect("a shared object");
                expand(entry, marker, shared)
            }
            Value::Object(object) => Value::Object(
                object
                    .into_iter()
                    .map(|(key, item)| (key, expand(item, marker, shared)))
                    .collect(),
            ),
            Value::Array(items) => Value::Array(
                items
                    .into_iter()
                    .map(|item| expand(item, marker, shared))
                    .collect(),
            ),
            other => other,
        }
    }

    /// The value of each of the first `operations` lines of `catalog` (after its comments and
    /// its marker's line), expanded.
    pub(crate) fn expanded_lines(catalog: &str, operations: usize) -> Vec<Value> {
        let (marker, described, shared) = read(catalog, operations);
        described
            .iter()
            .map(|line| {
                let value = serde_json::from_str(line).expect("a line is JSON");
                expand(value, &marker, &shared)
            })
            .collect()
    }

    /// Writes the catalog of `operations` (input schema, answer), checks that every line,
    /// expanded, is the text the line was before shared objects were written once (so the same
    /// value, its keys in the same order), and returns the catalog and its marker key.
    fn written_and_checked(operations: &[(&Value, Value)]) -> (String, String) {
        let heads: Vec<String> = (0..operations.len())
            .map(|n| format!("{{\"operation\":\"op{n}\",\"input_schema\":"))
            .collect();
        let returns: Vec<String> = operations
            .iter()
            .map(|(_, returns)| serde_json::to_string(returns).expect("serializes"))
            .collect();
        let lines = operations.iter().zip(&heads).zip(&returns).map(
            |(((input_schema, _), head), returns)| Line {
                head,
                input_schema,
                returns,
            },
        );
        let catalog = write(lines, "// the header\n");
        assert!(catalog.starts_with("// the header\n"), "{catalog}");
        let (marker, described, shared) = read(&catalog, operations.len());
        assert_eq!(described.len(), operations.len());
        for (((input_schema, returns), head), line) in operations.iter().zip(&heads).zip(described)
        {
            let before = format!(
                "{head}{},\"returns\":{}}}",
                serde_json::to_string(input_schema).expect("serializes"),
                serde_json::to_string(returns).expect("serializes")
            );
            let value: Value = serde_json::from_str(line).expect("a line is JSON");
            let expanded = expand(value, &marker, &shared);
            assert_eq!(
                serde_json::to_string(&expanded).expect("serializes"),
                before,
                "{catalog}"
            );
        }
        (catalog, marker)
    }

    /// An object of more than [`SHARED_BYTES`] of text, told apart by `name`.
    fn large(name: &str) -> Value {
        json!({
            "type": "object",
            "description": format!("The {name}: a long enough description to be shared when repeated."),
            "properties": { "id": { "type": "string" }, "count": { "type": "integer" } },
        })
    }

    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        let mut strings: Vec<String> = [
            "",
            "plain",
            "a \"quoted\" word",
            "a back\\slash",
            "line\nbreak\ttab\r",
            "\u{0}\u{1}\u{1f}\u{7f}",
            "caf\u{e9} \u{65e5}\u{672c} \u{1f600}",
            "line\u{2028}separator\u{2029}",
            "/ solidus and </script>",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Each ASCII character at each place around the 16-byte chunks the escapes are looked
        // for in, alone and beside a character to escape.
        for b in 0u8..=0x7f {
            for at in 0..40 {
                let (before, after) = ("x".repeat(at), "y".repeat(40 - at));
                strings.push(format!("{before}{}{after}", b as char));
                strings.push(format!("{before}{}\n{after}", b as char));
            }
        }
        for string in &strings {
            let mut out = b"prefix".to_vec();
            let length = write_string(string, &mut out);
            let expected = serde_json::to_string(string).expect("serializes");
            assert_eq!(&out[6..], expected.as_bytes(), "{string:?}");
            assert_eq!(length, expected.len(), "{string:?}");
        }
    }

    #[test]
    fn a_shared_object_is_written_once_and_each_line_expands_to_what_it_was() {
        let pet = large("pet");
        let first =
            json!({ "type": "object", "properties": { "pet": pet, "owner": large("owner") } });
        let second = json!({ "type": "object", "properties": { "new_pet": pet } });
        // The same schema as `first`, another value: found by its text, not by where it is.
        let third = first.clone();
        let (catalog, marker) = written_and_checked(&[
            (&first, json!({ "status": "200", "schema": pet })),
            (&second, json!({ "status": "201", "schema": pet })),
            (&third, json!({ "description": "Nothing is documented." })),
        ]);
        assert_eq!(marker, "$shared");
        let pet_text = serde_json::to_string(&pet).expect("serializes");
        assert!(pet_text.len() >= SHARED_BYTES);
        assert_eq!(catalog.matches(&pet_text).count(), 1, "{catalog}");
        // `first`'s schema is shared by two lines; `owner` is written once, within it, and no
        // object short of SHARED_BYTES is shared.
        let (_, _, shared) = read(&catalog, 3);
        assert_eq!(shared.len(), 2, "{catalog}");
        assert_eq!(catalog.matches("The owner").count(), 1, "{catalog}");
    }

    #[test]
    fn shared_objects_within_shared_objects_are_expanded_recursively() {
        let inner = large("inner");
        let middle =
            json!({ "type": "object", "properties": { "a": inner, "b": { "items": inner } } });
        let outer = json!({ "type": "array", "items": middle, "description": "outer" });
        let alone = json!({ "anyOf": [inner, middle, outer] });
        let (catalog, _) = written_and_checked(&[
            (&outer, json!({ "status": "200", "schema": middle })),
            (&alone, json!({ "status": "200", "schema": outer })),
            (&inner, json!({ "status": "204" })),
        ]);
        let (_, _, shared) = read(&catalog, 3);
        // `inner`, `middle` and `outer`, each once, `middle` holding markers of `inner`.
        assert_eq!(shared.len(), 3, "{catalog}");
        assert_eq!(catalog.matches("The inner").count(), 1, "{catalog}");
    }

    #[test]
    fn a_schema_that_has_the_marker_key_gets_another_marker_key() {
        let pet = large("pet");
        // Properties named `$shared` and `$shared1`, an example that is an object of the key
        // alone, and an answer that says `$shared2`: the marker key is `$shared3`.
        let tricky = json!({
            "type": "object",
            "properties": { "$shared": pet, "$shared1": { "type": "integer" } },
            "example": { "$shared": 0 },
            "default": { "$shared": 1 },
        });
        let other = json!({ "allOf": [pet, { "$shared": 0 }] });
        let (catalog, marker) = written_and_checked(&[
            (
                &tricky,
                json!({ "status": "200", "schema": pet, "description": "\"$shared2\" {" }),
            ),
            (
                &other,
                json!({ "status": "200", "schema": { "enum": ["$shared2", "} \\\" {"] } }),
            ),
        ]);
        assert_eq!(marker, "$shared3", "{catalog}");
        assert!(catalog.contains(r#"{"$shared3":0}"#), "{catalog}");
    }

    #[test]
    fn objects_keep_their_keys_order_and_differently_ordered_ones_are_not_merged() {
        let zyx = json!({
            "z": "the last letter, first",
            "y": { "type": "string", "description": "a field" },
            "x": { "type": "integer", "description": "another field" },
        });
        let xyz = json!({
            "x": { "type": "integer", "description": "another field" },
            "y": { "type": "string", "description": "a field" },
            "z": "the last letter, first",
        });
        assert_eq!(zyx, xyz);
        let (catalog, _) = written_and_checked(&[
            (&zyx, json!({ "schema": xyz })),
            (&xyz, json!({ "schema": zyx })),
            (&zyx, json!({})),
        ]);
        let (_, _, shared) = read(&catalog, 3);
        assert_eq!(shared.len(), 2, "{catalog}");
        assert!(shared[0].starts_with(r#"{"z":"#), "{catalog}");
        assert!(shared[1].starts_with(r#"{"x":"#), "{catalog}");
    }
}
