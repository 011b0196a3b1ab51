//! A large block-style YAML description read on every core: the text is cut at the lines where a
//! new entry of a block mapping starts (the root's, and, inside the largest entries, such as
//! `paths` or `components.schemas`, theirs), each piece of consecutive entries is read by the
//! streaming reader (`yaml_events.rs`) on its own, and the entries are put back together in the
//! order of the text.
//!
//! A piece must read exactly as the same lines read inside the whole text, or not at all; then
//! the whole text is read as before (`yaml::parse`), which gives every value, error message and
//! position as it did. Why a piece cannot read differently:
//!
//! - A piece starts at a line `KEY:` (a plain key starting with a letter, digit, `/`, `_`, `.`
//!   or `$`, or a quoted key without escapes) indented exactly as the mapping's keys, and runs to
//!   the next such line. Where the whole text's parser is between tokens at such a line, it reads
//!   a key of that mapping, as the piece's own parser does; it cannot be inside a block scalar or
//!   a multi-line plain scalar there, whose lines are all indented further than the innermost
//!   mapping. Where it is inside a quoted scalar or a flow collection (`[`, `{`) that crosses
//!   the line, the piece before ends inside it, which its parser refuses, and the whole is read.
//! - Inside a nested mapping, no line of the entry it is the value of is indented less than its
//!   keys (else it is not cut): the piece's parser, which knows none of the mappings around,
//!   never meets a line that would close them.
//! - Lines libyaml breaks that this module would not (a lone `\r`, U+0085, U+2028, U+2029), and
//!   a document marker (`---`, `...`) after the first line that is not blank or a comment, keep
//!   the text whole; so does a text shorter than [`SMALLEST`].
//! - What the streaming reader gives up on in a piece (a tag, an alias to an anchor in another
//!   piece, a key given twice, ...) and a key given twice across pieces send the whole text to
//!   today's readers, which tell the error. A piece counts its nesting from where its mapping is
//!   in the whole text; its count of aliases followed against events read is stricter than the
//!   whole text's.

use std::ops::Range;

use memchr::{memchr, memchr3_iter};
use serde_json::{Map, Value};

use super::unused::Part;
use super::yaml_events::{self, Entries, Plain};

/// Texts shorter than this are read whole: cutting them saves less than it costs.
pub(super) const SMALLEST: usize = 256 * 1024;

/// About how many pieces a text is cut into (fewer where its entries are larger): enough for the
/// cores to share the work evenly when pieces take unequal times.
const PIECES: usize = 32;

/// Reads the YAML `text` as `yaml_events::read` does, on every core; `None` where the text is not
/// cut (see the module's comment), or a piece or the putting together gives up: the caller then
/// reads the text whole.
pub(super) fn read(text: &str, leave_out_unused: bool) -> Option<Value> {
    if text.len() < SMALLEST {
        return None;
    }
    read_in_pieces(text, leave_out_unused, text.len() / PIECES)
}

/// [`read`], pieces growing to `target` bytes before the next is begun, entries larger than that
/// cut further where they can be.
fn read_in_pieces(text: &str, leave_out_unused: bool, target: usize) -> Option<Value> {
    let pieces = cut(text, leave_out_unused, target)?;
    let mut jobs = Vec::new();
    leaves(&pieces, &mut jobs);
    if jobs.len() < 2 {
        return None;
    }
    let read = super::every_core::map(&jobs, |&(text, part, depth)| {
        yaml_events::read_entries(text, part, depth)
    });
    let mut read = read.into_iter();
    assemble(&pieces, &mut read).map(Value::Object)
}

/// The pieces of `text` (the root mapping's), `None` where it is not cut.
fn cut(text: &str, leave_out_unused: bool, target: usize) -> Option<Vec<Piece<'_>>> {
    let cutter = Cutter {
        text,
        lines: content_lines(text)?,
        target,
    };
    let mapping = Mapping {
        lines: 0..cutter.lines.len(),
        bytes: 0..text.len(),
        indent: 0,
        part: leave_out_unused.then_some(Part::Root),
        depth: 1,
    };
    Some(cutter.cut(&mapping))
}

/// Consecutive entries of a mapping, or one entry whose value, a block mapping, is cut further.
#[derive(Debug)]
enum Piece<'a> {
    /// Read by `yaml_events::read_entries` with this part and depth.
    Entries {
        text: &'a str,
        part: Option<Part>,
        depth: usize,
    },
    /// The entry `key`, whose value is a mapping made of these pieces.
    Mapping { key: String, pieces: Vec<Piece<'a>> },
}

type Job<'a> = (&'a str, Option<Part>, usize);

/// The pieces read by `yaml_events::read_entries`, in the order of the text.
fn leaves<'a>(pieces: &[Piece<'a>], jobs: &mut Vec<Job<'a>>) {
    for piece in pieces {
        match piece {
            Piece::Entries { text, part, depth } => jobs.push((text, *part, *depth)),
            Piece::Mapping { pieces, .. } => leaves(pieces, jobs),
        }
    }
}

/// The mapping made of `pieces`, their entries taken from `read` in the order of [`leaves`];
/// `None` where a piece gave up or a key is given twice (in entries or among those left out).
fn assemble(
    pieces: &[Piece<'_>],
    read: &mut impl Iterator<Item = Option<Entries>>,
) -> Option<Map<String, Value>> {
    let mut object = Map::new();
    let mut left_out: Vec<String> = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Entries { .. } => {
                let (entries, out) = read.next()??;
                if object.is_empty() && left_out.is_empty() {
                    (object, left_out) = (entries, out);
                    continue;
                }
                // A piece's own keys are each given once (or `read_entries` gave up).
                for key in &out {
                    if object.contains_key(key) || left_out.contains(key) {
                        return None;
                    }
                }
                left_out.extend(out);
                for (key, value) in entries {
                    if object.contains_key(&key) || left_out.contains(&key) {
                        return None;
                    }
                    object.insert(key, value);
                }
            }
            Piece::Mapping { key, pieces } => {
                let value = assemble(pieces, read)?;
                if object.contains_key(key) || left_out.contains(key) {
                    return None;
                }
                object.insert(key.clone(), Value::Object(value));
            }
        }
    }
    Some(object)
}

/// A line that is neither blank nor a comment.
#[derive(Debug)]
struct Line {
    /// Where it starts in the text.
    start: usize,
    /// How many spaces start it.
    indent: usize,
}

/// The lines of `text` that are neither blank nor comments; `None` where the text has a line
/// break of libyaml's other than `\n` and `\r\n`, or a document marker after the first of them.
fn content_lines(text: &str) -> Option<Vec<Line>> {
    let bytes = text.as_bytes();
    for at in memchr3_iter(b'\r', 0xC2, 0xE2, bytes) {
        match (bytes[at], bytes.get(at + 1), bytes.get(at + 2)) {
            (b'\r', Some(b'\n'), _) => {}
            (b'\r', _, _) | (0xC2, Some(0x85), _) | (0xE2, Some(0x80), Some(0xA8 | 0xA9)) => {
                return None;
            }
            _ => {}
        }
    }
    let mut lines = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |at| start + at);
        let line = &bytes[start..end];
        let indent = line.iter().take_while(|&&b| b == b' ').count();
        match line.get(indent) {
            // Blank (the `\r` of a `\r\n`), or a comment.
            None | Some(b'\r' | b'#') => {}
            Some(_) => {
                if indent == 0 && !lines.is_empty() && is_document_marker(line) {
                    return None;
                }
                lines.push(Line { start, indent });
            }
        }
        start = end + 1;
    }
    Some(lines)
}

/// `---` or `...` followed by nothing or whitespace.
fn is_document_marker(line: &[u8]) -> bool {
    (line.starts_with(b"---") || line.starts_with(b"..."))
        && matches!(line.get(3), None | Some(b' ' | b'\t' | b'\r'))
}

/// A line's key, where the line (without its indentation and `\n`) starts with one: a plain key
/// starting with a letter, a digit, `/`, `_`, `.` or `$`, without `#` or a tab, or a key quoted
/// without escapes; then `:` and a space or the line's end. Also what follows the `:`.
fn key_of(line: &str) -> Option<(&str, &str)> {
    let first = *line.as_bytes().first()?;
    let (key, after) = match first {
        b'\'' | b'"' => {
            let close = line[1..].find(first as char)? + 1;
            let key = &line[1..close];
            if first == b'"' && key.contains('\\') {
                return None;
            }
            (key, line[close + 1..].strip_prefix(':')?)
        }
        _ if first.is_ascii_alphanumeric() || matches!(first, b'/' | b'_' | b'.' | b'$') => {
            let mut from = 0;
            let colon = loop {
                let colon = from + line[from..].find(':')?;
                if matches!(line.as_bytes().get(colon + 1), None | Some(b' ' | b'\r')) {
                    break colon;
                }
                from = colon + 1;
            };
            let key = &line[..colon];
            if key.contains(['#', '\t']) || key.ends_with(' ') {
                return None;
            }
            (key, &line[colon + 1..])
        }
        _ => return None,
    };
    match after.as_bytes().first() {
        None | Some(b' ' | b'\r') => Some((key, after)),
        _ => None,
    }
}

struct Cutter<'a> {
    text: &'a str,
    lines: Vec<Line>,
    /// The size a piece grows to before the next is begun.
    target: usize,
}

/// A block mapping of the text, to be cut.
struct Mapping {
    /// Its content lines (indices into `Cutter::lines`).
    lines: Range<usize>,
    /// Its text: from its first key (from the text's start for the root) to its end.
    bytes: Range<usize>,
    /// The indentation of its keys.
    indent: usize,
    part: Option<Part>,
    depth: usize,
}

impl<'a> Cutter<'a> {
    /// The line `index` without its indentation and `\n`.
    fn line(&self, index: usize) -> &'a str {
        let line = &self.lines[index];
        let end = memchr(b'\n', &self.text.as_bytes()[line.start..])
            .map_or(self.text.len(), |at| line.start + at);
        &self.text[line.start + line.indent..end]
    }

    /// Whether the line `index` starts an entry of a mapping whose keys are indented `indent`.
    fn starts_entry(&self, index: usize, indent: usize) -> bool {
        self.lines[index].indent == indent && key_of(self.line(index)).is_some()
    }

    fn cut(&self, mapping: &Mapping) -> Vec<Piece<'a>> {
        let starts: Vec<usize> = mapping
            .lines
            .clone()
            .filter(|&index| self.starts_entry(index, mapping.indent))
            .collect();
        let piece = |bytes: Range<usize>| Piece::Entries {
            text: &self.text[bytes],
            part: mapping.part,
            depth: mapping.depth,
        };
        let mut pieces = Vec::new();
        // The piece being grown, from this byte.
        let mut from = mapping.bytes.start;
        for (at, &key_line) in starts.iter().enumerate() {
            let lines = key_line..starts.get(at + 1).copied().unwrap_or(mapping.lines.end);
            let start = self.lines[key_line].start;
            let end = self
                .lines
                .get(lines.end)
                .map_or(mapping.bytes.end, |line| line.start);
            // At the root, what comes before the first key (a directive, `---`) stays with it.
            let first_without_prologue = at > 0 || key_line == mapping.lines.start;
            if end - start > self.target
                && first_without_prologue
                && let Some((key, inner)) = self.inner_mapping(mapping, lines, end)
            {
                if from < start {
                    pieces.push(piece(from..start));
                }
                pieces.push(Piece::Mapping {
                    key: key.to_owned(),
                    pieces: self.cut(&inner),
                });
                from = end;
            } else if end - from >= self.target {
                pieces.push(piece(from..end));
                from = end;
            }
        }
        if from < mapping.bytes.end {
            pieces.push(piece(from..mapping.bytes.end));
        }
        pieces
    }

    /// The value of the entry on `lines` (its key line first) ending at byte `end`, where it is
    /// a block mapping that may be cut: its key plain text, nothing after the `:`, its first
    /// content line a key indented further, no content line of it indented less.
    fn inner_mapping(
        &self,
        mapping: &Mapping,
        lines: Range<usize>,
        end: usize,
    ) -> Option<(&'a str, Mapping)> {
        let (key, after) = key_of(self.line(lines.start))?;
        let first = lines.start + 1;
        if !after.trim_end_matches([' ', '\r']).is_empty()
            || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            || !matches!(yaml_events::resolve(key), Some(Plain::Text))
            || mapping.part.is_some_and(|part| part.leaves_out(key))
            || first >= lines.end
        {
            return None;
        }
        let indent = self.lines[first].indent;
        if indent <= mapping.indent
            || !self.starts_entry(first, indent)
            || self.lines[lines.clone()][1..]
                .iter()
                .any(|line| line.indent < indent)
        {
            return None;
        }
        let part = match (mapping.part, key) {
            (Some(Part::Root), "components") => Some(Part::Components),
            _ => None,
        };
        Some((
            key,
            Mapping {
                lines: first..lines.end,
                bytes: self.lines[first].start..end,
                indent,
                part,
                depth: mapping.depth + 1,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::load::yaml;

    /// How many pieces `text` is read in at `target`, `None` where it is not cut.
    fn jobs(text: &str, leave_out_unused: bool, target: usize) -> Option<usize> {
        let pieces = cut(text, leave_out_unused, target)?;
        let mut jobs = Vec::new();
        leaves(&pieces, &mut jobs);
        Some(jobs.len())
    }

    /// What `yaml::parse` gives when the text is read in pieces at `target`, its error as text.
    fn through_pieces(text: &str, leave_out_unused: bool, target: usize) -> Result<Value, String> {
        match read_in_pieces(text, leave_out_unused, target) {
            Some(value) => Ok(value),
            None => through_whole(text, leave_out_unused),
        }
    }

    fn through_whole(text: &str, leave_out_unused: bool) -> Result<Value, String> {
        yaml::parse_whole(text, leave_out_unused).map_err(|error| match error {
            yaml::Error::Syntax(error) => error.to_string(),
            yaml::Error::Key(message) => message,
        })
    }

    /// The pieces read `text` into what the streaming reader reads of it whole, or give up:
    /// never another value, whatever the size of the pieces.
    fn assert_pieces_read_as_the_whole(text: &str, name: &str) -> usize {
        let mut read_in_pieces_count = 0;
        for leave_out_unused in [false, true] {
            let whole = yaml_events::read(text, leave_out_unused);
            for target in [0, 40, 4096] {
                if let Some(value) = read_in_pieces(text, leave_out_unused, target) {
                    assert_eq!(Some(&value), whole.as_ref(), "{name} at {target}");
                    read_in_pieces_count += 1;
                }
                assert_eq!(
                    through_pieces(text, leave_out_unused, target),
                    through_whole(text, leave_out_unused),
                    "{name} at {target}"
                );
            }
        }
        read_in_pieces_count
    }

    /// Entries before and after a text, at the root and as the value of a `paths` mapping, so
    /// that it is both the first piece and one in the middle, at both levels.
    fn placed(text: &str) -> Vec<String> {
        let nested: String = text
            .lines()
            .map(|line| match line.is_empty() {
                true => "\n".to_owned(),
                false => format!("  {line}\n"),
            })
            .collect();
        vec![
            text.to_owned(),
            format!("first: 1\n{text}last: {{z: 1}}\n"),
            format!(
                "openapi: 3.1.0\npaths:\n  /first: {{get: {{}}}}\n{nested}  /last: 2\ninfo: {{}}\n"
            ),
            format!("paths:\n{nested}components:\n  schemas:\n{nested}    z: 1\n"),
        ]
    }

    /// Texts made to trip a cut: what crosses the lines the pieces start at.
    const TRICKY: &[&str] = &[
        // Quoted scalars and flow collections crossing a line that looks like a key.
        "a: \"x\nb: y\"\nc: 1\n",
        "a: 'x\nb: y'\nc: 1\n",
        "a: {x: 1,\nb: 2}\nc: 3\n",
        "a: [1,\nb: 2]\nc: 3\n",
        "a: \"x\n  b: y\"\nc: 1\n",
        "a: \"x\n# b: y\"\nc: 1\n",
        "a: 'it''s\nb: y'\nc: 1\n",
        // Block scalars, keeping and stripping their line breaks, with lines that look like keys.
        "a: |\n  b: 1\n  c: 2\nd: 3\n",
        "a: |+\n  x\n\n\nb: 1\n",
        "a: >-\n  folded\n  b: 1\n\nc: 2\n",
        "a: |2\n    b: 1\n  c: 2\nd: 3\n",
        "a: |\n  x\n\n  b: 1\nc: 1",
        // Multi-line plain scalars, comments.
        "a: x\n  y\n  b: z\nc: 1\n",
        "a: x\n# b: 1\n  y\nc: 1\n",
        "a:\n  # c\n  b: 1\n# d\ne: 2\n",
        // Anchors and aliases inside a piece and across pieces, names given again.
        "a: &x {k: 1}\nb: *x\n",
        "a: &x 1\nb: &x 2\nc: *x\n",
        "a: {k: &x 1, l: *x}\nb: 2\n",
        "&x a: 1\nb: *x\n",
        // Keys given twice, as text and as YAML values; keys that are not text.
        "a: 1\nb: 2\na: 3\n",
        "a: 1\nb: 2\n'a': 3\n",
        "1: a\nb: 2\n'1': b\n",
        "1: a\nb: 2\n1: b\n",
        "~: a\nb: 1\nnull: c\n",
        "200: ok\n'201': x\ntrue: y\n",
        "webhooks: {}\nx: 1\nwebhooks: {a: 1}\n",
        "webhooks: {a: 1}\nx: 1\nwebhooks: {}\n",
        "x-webhooks: {a: 1}\nx: 1\n",
        "components:\n  examples: {a: 1}\n  schemas: {b: 1}\n  x: 1\n",
        "components:\n  examples: {}\n  schemas: {b: 1}\n  examples: {c: 1}\n",
        "components:\n  schemas:\n    a: 1\n    b: 2\ncomponents: 3\n",
        // Complex keys, sequences beside the keys, keys that are not scalars.
        "? a\n: 1\nb: 2\n",
        "? [x]\n: 1\nb: 2\n",
        "a:\n- 1\n- 2\nb: 3\n",
        "- 1\n- 2\n",
        "{a: 1}: 2\nb: 3\n",
        "[a]: 1\nb: 2\n",
        // Tags, directives, documents, tabs, other line breaks.
        "a: !t 1\nb: 2\n",
        "a: 1\n!t b: 2\n",
        "%YAML 1.1\n---\na: 1\nb: 2\n",
        "---\na: 1\nb: 2\n",
        "--- |\n x\na: 1\nb: 2\n",
        "a: 1\n---\nb: 2\n",
        "a: 1\n...\nb: 2\n",
        "a: 1\nb: 2\n...\n",
        "a: 1\n\tb: 2\nc: 3\n",
        "a:\n\tb: 2\nc: 3\n",
        "a: 1\r\nb: 2\r\nc: |\r\n  x\r\n",
        "a: 1\rb: 2\nc: 3\n",
        "a: \"x\u{85}b: y\"\nc: 1\n",
        "a: x\u{2028}b: y\nc: 1\n",
        // Errors in a piece and across pieces.
        "a: 1\nb: [\nc: 2\n",
        "a: 1\nb: 2\nc\nd: 3\n",
        "a: 1\n b: 2\nc: 3\n",
        "a: 1\nb: }\n",
        "a: 18446744073709551616\nb: 1\n",
        "",
        "# only a comment\n",
    ];

    #[test]
    fn tricky_texts_read_in_pieces_as_whole_at_the_root_and_nested() {
        for text in TRICKY {
            for placed in placed(text) {
                assert_pieces_read_as_the_whole(&placed, &format!("{placed:?}"));
            }
        }
    }

    #[test]
    fn a_piece_counts_its_nesting_from_where_it_is_in_the_whole_text() {
        // The streaming reader gives up past 100 levels, counted from the root.
        for levels in [95, 96, 97, 98, 99, 100, 101] {
            let value = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
            let text = format!("a: 1\npaths:\n  /a: {value}\n  /b: 2\nz: 3\n");
            let whole = yaml_events::read(&text, false);
            assert_eq!(read_in_pieces(&text, false, 0), whole, "{levels}");
            assert_eq!(jobs(&text, false, 0), Some(4));
        }
    }

    #[test]
    fn a_key_given_twice_in_different_pieces_is_the_whole_texts_error() {
        for text in [
            "a: 1\nb: 2\na: 3\n",
            "paths:\n  /a: 1\n  /b: 2\n  /a: 3\n",
            "components:\n  schemas:\n    A: 1\n    B: 2\n    A: 3\n",
            "paths:\n  /a: 1\nb: 2\npaths:\n  /c: 1\n",
        ] {
            assert!(jobs(text, false, 0).unwrap() >= 2, "{text:?}");
            assert_eq!(read_in_pieces(text, false, 0), None, "{text:?}");
            let error = through_pieces(text, false, 0).unwrap_err();
            assert!(error.contains("duplicate entry with key"), "{error}");
            assert_eq!(Err(error), through_whole(text, false));
        }
    }

    #[test]
    fn a_description_is_cut_at_its_entries_paths_and_schemas_and_read_as_whole() {
        let text = "openapi: 3.1.0\ninfo:\n  title: t\npaths:\n  /a:\n    get:\n      description: |\n        b: 1\n  '/b/{id}':\n    get: {}\n  /c:\n    get: &x {responses: {}}\n    put: *x\n  /d: *x\nwebhooks:\n  w: {}\ncomponents:\n  examples:\n    e: {value: 1}\n  schemas:\n    A:\n      type: object\n    B:\n      type: string\n";
        // An alias to an anchor in another piece: read whole.
        assert_eq!(jobs(text, false, 0), Some(10));
        assert_eq!(read_in_pieces(text, false, 0), None);
        assert_eq!(through_pieces(text, false, 0), through_whole(text, false));
        let text = text.replace("  /d: *x\n", "  /d: {}\n");
        for leave_out_unused in [false, true] {
            // openapi; info's title; paths' 4; webhooks; components' examples and A's and B's
            // entries (keys with `/` are not cut further).
            assert_eq!(jobs(&text, leave_out_unused, 0), Some(10));
            let value = read_in_pieces(&text, leave_out_unused, 0).unwrap();
            assert_eq!(
                Some(&value),
                yaml_events::read(&text, leave_out_unused).as_ref()
            );
        }
        let value = read_in_pieces(&text, true, 0).unwrap();
        assert_eq!(value["webhooks"], json!({}));
        assert_eq!(value["components"].get("examples"), None);
        assert_eq!(
            value["components"]["schemas"]["B"],
            json!({ "type": "string" })
        );
        assert_eq!(value["paths"]["/c"]["put"], value["paths"]["/c"]["get"]);
        let keys: Vec<&String> = value["paths"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["/a", "/b/{id}", "/c", "/d"]);
        // Small texts are read whole.
        assert_eq!(read(&text, true), None);
    }

    /// Every YAML file of the repository reads in pieces as it reads whole (what it is cut into
    /// varies with the size the pieces grow to); most are cut.
    #[test]
    fn every_yaml_file_of_the_repository_reads_in_pieces_as_whole() {
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
        let (mut cut_files, mut whole_files) = (0, 0);
        for file in &files {
            let Ok(text) = std::fs::read_to_string(file) else {
                continue;
            };
            let text = text.trim_start_matches('\u{feff}');
            match assert_pieces_read_as_the_whole(text, &file.display().to_string()) {
                0 => whole_files += 1,
                _ => cut_files += 1,
            }
        }
        assert!(files.len() > 50, "{} YAML files found", files.len());
        assert!(
            cut_files > whole_files * 3,
            "{cut_files} read in pieces, {whole_files} only whole"
        );
    }
}
