//! Rust written directly as text in the layout rustfmt gives it (2024 style edition, the
//! generated crate's `rustfmt.toml`), for the repetitive per-operation items of the large files:
//! building a syntax tree of them, printing it and running rustfmt over the print was most of the
//! CPU a large API's generation took.
//!
//! What it covers is only what the generator writes there, in the layout rustfmt keeps as it is:
//! doc comments, attributes and item lines that fit in rustfmt's widths. A writer asks [`fits`]
//! whether a line fits; when one does not (rustfmt would break it), or a doc comment would not be
//! a `///` line, the writer gives up and the part is printed and formatted the usual way
//! ([`crate::emit::Part::direct`]). So the direct text either is what rustfmt writes or is not
//! used.
//!
//! Text from the spec reaches the output only through [`string_literal`] and [`doc_line`]: the
//! same escaping the printed path applies (`proc_macro2::Literal::string`, then hidden code points
//! as `\u{…}`), and the written text is lexed back like printed text (`emit`'s check).

use crate::emit::{escape_hidden, is_hidden, plain_string_literal};

/// rustfmt's `max_width`.
pub(super) const MAX_WIDTH: usize = 100;

/// Whether `line` (its indentation included) fits in rustfmt's `max_width`. Measured in bytes,
/// which is never less than the display width rustfmt measures (a character two columns wide is
/// at least three bytes in UTF-8): a line that fits here fits for rustfmt; one that does not makes
/// the writer give up rather than guess.
pub(super) fn fits(line: &str) -> bool {
    line.len() <= MAX_WIDTH
}

/// Appends `line` and a line feed to `out` if it [`fits`]; `None` if it does not.
pub(super) fn push_line(out: &mut String, line: &str) -> Option<()> {
    fits(line).then(|| {
        out.push_str(line);
        out.push('\n');
    })
}

/// `#[serde(rename = literal)]` at `indent`: on one line if it fits, else as rustfmt breaks an
/// attribute's list (the name-value pair on a line of its own, without a trailing comma); `None`
/// if that line does not fit either.
pub(super) fn serde_rename(out: &mut String, indent: &str, literal: &str) -> Option<()> {
    let line = format!("{indent}#[serde(rename = {literal})]");
    if fits(&line) {
        return push_line(out, &line);
    }
    let inner = format!("{indent}    rename = {literal}");
    fits(&inner).then(|| {
        out.push_str(indent);
        out.push_str("#[serde(\n");
        out.push_str(&inner);
        out.push('\n');
        out.push_str(indent);
        out.push_str(")]\n");
    })
}

/// A match arm `pattern => value,` at `indent`: on one line if it fits, else as rustfmt wraps a
/// body that does not fit beside its pattern (in a block, the value on a line of its own);
/// `None` if the pattern's line or the value's does not fit.
pub(super) fn match_arm(out: &mut String, indent: &str, pattern: &str, value: &str) -> Option<()> {
    let line = format!("{indent}{pattern} => {value},");
    if fits(&line) {
        return push_line(out, &line);
    }
    let open = format!("{indent}{pattern} => {{");
    let body = format!("{indent}    {value}");
    (fits(&open) && fits(&body)).then(|| {
        out.push_str(&open);
        out.push('\n');
        out.push_str(&body);
        out.push('\n');
        out.push_str(indent);
        out.push_str("}\n");
    })
}

/// rustfmt's `fn_call_width`, `chain_width` and `array_width`: the widest argument list, chain
/// and array elements laid out on one line (the 2024 style's defaults for `max_width` 100).
pub(super) const CALL_WIDTH: usize = 60;

/// Code (not a comment) the writers lay out: only ASCII, whose width in bytes is the width
/// rustfmt measures (`None` otherwise, and the writer gives up).
pub(super) fn ascii(code: &str) -> Option<&str> {
    code.is_ascii().then_some(code)
}

/// The width of `items` on one line, separated by `, `.
pub(super) fn list_width(items: &[String]) -> usize {
    items.iter().map(String::len).sum::<usize>() + 2 * items.len().saturating_sub(1)
}

/// A call `head(args)` followed by `suffix` (`;`, `,` or nothing) at `indent`, as rustfmt lays
/// out a call whose arguments are simple expressions (literals, paths, references to fields,
/// none of them a closure, block or call it could overflow): on one line when the arguments are
/// no wider than [`CALL_WIDTH`] and the line fits, else one argument a line with a trailing
/// comma. `None` when a line does not fit.
pub(super) fn call(
    out: &mut String,
    indent: &str,
    head: &str,
    args: &[String],
    suffix: &str,
) -> Option<()> {
    let width = list_width(args);
    let line = indent.len() + head.len() + width + 2 + suffix.len();
    if width <= CALL_WIDTH && line <= MAX_WIDTH {
        out.push_str(indent);
        out.push_str(head);
        out.push('(');
        out.push_str(&args.join(", "));
        out.push(')');
        out.push_str(suffix);
        out.push('\n');
        return Some(());
    }
    if args.is_empty() {
        return None;
    }
    push_line(out, &format!("{indent}{head}("))?;
    for arg in args {
        if indent.len() + 4 + arg.len() + 1 > MAX_WIDTH {
            return None;
        }
        out.push_str(indent);
        out.push_str("    ");
        out.push_str(arg);
        out.push_str(",\n");
    }
    out.push_str(indent);
    out.push(')');
    out.push_str(suffix);
    out.push('\n');
    Some(())
}

/// A string literal holding `value` as the printed path writes it: `proc_macro2::Literal::string`
/// (`char::escape_debug` for every character but `'`, `\0` as `\0`, or `\x00` before an octal
/// digit), or, when that still shows a hidden code point ([`is_hidden`]), the literal the printed
/// path rewrites it to: quotes and backslashes escaped, hidden code points as `\u{…}`, everything
/// else as it is. `None` for a literal that would span lines (the writer does not lay those out).
pub(super) fn string_literal(value: &str) -> Option<String> {
    let mut repr = String::with_capacity(value.len() + 2);
    repr.push('"');
    let mut rest = value;
    loop {
        // Printable ASCII but quotes and backslashes (an apostrophe too, which proc-macro2 does
        // not escape in a string) is written as it is: copied a run at a time rather than put
        // through `escape_debug` a character at a time.
        let plain = rest
            .bytes()
            .position(|byte| !matches!(byte, b' '..=b'~') || byte == b'"' || byte == b'\\')
            .unwrap_or(rest.len());
        repr.push_str(&rest[..plain]);
        let mut chars = rest[plain..].chars();
        let Some(c) = chars.next() else {
            break;
        };
        match c {
            '\0' if chars.as_str().starts_with(|next: char| next.is_digit(8)) => {
                repr.push_str("\\x00")
            }
            '\0' => repr.push_str("\\0"),
            c => repr.extend(c.escape_debug()),
        }
        rest = chars.as_str();
    }
    repr.push('"');
    if has_hidden(&repr) {
        repr.clear();
        repr.push('"');
        for c in value.chars() {
            match c {
                '"' => repr.push_str("\\\""),
                '\\' => repr.push_str("\\\\"),
                '\n' => return None,
                c if is_hidden(c) => repr.push_str(&escape_hidden(&c.to_string())),
                c => repr.push(c),
            }
        }
        repr.push('"');
    }
    Some(repr)
}

/// The `///` line `#[doc = value]` becomes at `indent`, as prettyplease prints it (hidden code
/// points escaped, trailing spaces dropped) and rustfmt keeps it (trailing white space dropped).
/// `None` when the attribute would not print as a `///` line (a value with a line feed, or one
/// that starts with `/`).
pub(super) fn doc_line(out: &mut String, indent: &str, value: &str) -> Option<()> {
    if value.contains('\n') || value.starts_with('/') {
        return None;
    }
    let value = if has_hidden(value) {
        std::borrow::Cow::Owned(escape_hidden(value))
    } else {
        std::borrow::Cow::Borrowed(value)
    };
    out.push_str(indent);
    out.push_str("///");
    out.push_str(value.trim_end());
    out.push('\n');
    Some(())
}

/// Whether `text` holds a hidden code point ([`is_hidden`]): printable ASCII and tabs, most of
/// a spec's text, are passed over a byte at a time without decoding a character.
fn has_hidden(text: &str) -> bool {
    let plain_byte = |byte: u8| matches!(byte, b' '..=b'~' | b'\t');
    // Sixteen bytes at a time, each chunk checked whole (which the compiler turns into vector
    // instructions), then byte by byte from the first chunk that is not all plain.
    let chunks = text.as_bytes().chunks_exact(16);
    let plain_chunks = chunks
        .take_while(|chunk| {
            chunk
                .iter()
                .fold(true, |plain, &byte| plain & plain_byte(byte))
        })
        .count();
    let start = plain_chunks * 16;
    let plain = text.as_bytes()[start..]
        .iter()
        .position(|&byte| !plain_byte(byte))
        .map_or(text.len(), |at| start + at);
    text[plain..].chars().any(is_hidden)
}

/// The `//!` line `#![doc = value]` becomes at the top of a file, as [`doc_line`] writes a `///`
/// line; `None` when the value has a line feed (prettyplease prints it as a block comment).
pub(super) fn inner_doc_line(out: &mut String, value: &str) -> Option<()> {
    if value.contains('\n') {
        return None;
    }
    let value = if has_hidden(value) {
        std::borrow::Cow::Owned(escape_hidden(value))
    } else {
        std::borrow::Cow::Borrowed(value)
    };
    out.push_str("//!");
    out.push_str(value.trim_end());
    out.push('\n');
    Some(())
}

/// The literal `super::syntax::raw_string` makes of `text` as the printed path prints it: a raw
/// string `r#"…"#` with one `#` more than the longest run of `#` after a `"` in the text, or,
/// when the text holds a hidden code point ([`is_hidden`]), the ordinary string the printed path
/// rewrites it to: quotes and backslashes escaped, hidden code points as `\u{…}`, everything else
/// as it is. `None` for text the raw string would not lex as one line (a carriage return or line
/// feed) or that needs more than 255 `#`.
pub(super) fn raw_string_literal(text: &str) -> Option<String> {
    if text.contains(['\r', '\n']) {
        return None;
    }
    if has_hidden(text) {
        return Some(plain_string_literal(text));
    }
    let mut hashes = 1;
    for (at, _) in text.match_indices('"') {
        let run = text[at + 1..].bytes().take_while(|&b| b == b'#').count();
        hashes = hashes.max(run + 1);
    }
    if hashes > 255 {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 2 * hashes + 3);
    out.push('r');
    out.extend(std::iter::repeat_n('#', hashes));
    out.push('"');
    out.push_str(text);
    out.push('"');
    out.extend(std::iter::repeat_n('#', hashes));
    Some(out)
}

/// Whether a `use` declaration whose path starts with the crate name `name` sorts before one
/// starting with `other` (a lowercase ASCII name) in rustfmt's order: `None` for a name whose
/// order is not worked out here (anything but lowercase ASCII letters, digits and `_`, not
/// starting with a letter, or one that differs from `other` only after a digit or `_`, or is a
/// prefix of it, where rustfmt's version sorting is not byte order).
pub(super) fn sorts_before(name: &str, other: &str) -> Option<bool> {
    let plain = name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if !plain || !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        return None;
    }
    let at = name.bytes().zip(other.bytes()).position(|(a, b)| a != b)?;
    let (a, b) = (name.as_bytes()[at], other.as_bytes()[at]);
    (a.is_ascii_lowercase() && b.is_ascii_lowercase()).then_some(a < b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_literals_are_written_as_proc_macro2_prints_them() {
        for value in [
            "plain",
            "quote \" backslash \\ apostrophe '",
            "tab\tline\nfeed\r",
            "nul\0 nul\x007",
            "combining e\u{301} and \u{7f}",
            "ünïcödé 漢字",
        ] {
            assert_eq!(
                string_literal(value).as_deref(),
                Some(proc_macro2::Literal::string(value).to_string().as_str()),
                "{value:?}"
            );
        }
    }

    /// Runs of printable ASCII are copied whole: every ASCII character (and a few others)
    /// before, between and after runs of every kind is still written as proc-macro2 writes it.
    #[test]
    fn every_character_around_plain_runs_is_written_as_proc_macro2_prints_it() {
        let odd: Vec<String> = (0u8..0x80)
            .map(|byte| char::from(byte).to_string())
            .chain(["\u{301}", "\u{e9}", "\0", "\x007", "\x008"].map(String::from))
            .collect();
        for run in ["", "a", "plain text '~", "0"] {
            for one in &odd {
                for two in ["", "x", "\"", "7"] {
                    let value = format!("{run}{one}{run}{two}");
                    assert_eq!(
                        string_literal(&value).as_deref(),
                        Some(proc_macro2::Literal::string(&value).to_string().as_str()),
                        "{value:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_literal_that_would_show_a_hidden_code_point_escapes_it() {
        // U+3164 is printable for `escape_debug`, but hidden for a reader.
        assert_eq!(
            string_literal("a\u{3164}\"b\\").as_deref(),
            Some("\"a\\u{3164}\\\"b\\\\\"")
        );
        assert_eq!(string_literal("a\u{3164}\nb"), None);
        let text = string_literal("x\u{202e}y\u{200b}").unwrap();
        assert!(!text.chars().any(is_hidden), "{text}");
    }

    #[test]
    fn has_hidden_finds_what_is_hidden_finds_after_any_plain_ascii() {
        for text in [
            "",
            "plain ASCII\twith a tab",
            "a line\nfeed",
            "delete \u{7f}",
            "escape \u{1b}[0m",
            "caf\u{e9} \u{202e}",
            "\u{200b}",
            "cyrillic \u{430}",
            "soft\u{ad}hyphen",
        ] {
            assert_eq!(has_hidden(text), text.chars().any(is_hidden), "{text:?}");
        }
        // After runs of plain ASCII of every length around the sixteen bytes checked at once.
        for length in 0..40 {
            for odd in ["\u{7f}", "\u{1b}", "\u{202e}", "\u{e9}", "\n", "\t", "~"] {
                let text = format!("{}{odd}{}", "a".repeat(length), "b".repeat(length % 7));
                assert_eq!(has_hidden(&text), text.chars().any(is_hidden), "{text:?}");
            }
        }
    }

    #[test]
    fn doc_lines_escape_hidden_text_and_drop_trailing_white_space() {
        let mut out = String::new();
        doc_line(&mut out, "    ", " Doc \u{202e}x\u{2069} \t\u{a0} ").unwrap();
        doc_line(&mut out, "", "").unwrap();
        assert_eq!(out, "    /// Doc \\u{202e}x\\u{2069}\n///\n");
        assert_eq!(doc_line(&mut out, "", " two\nlines"), None);
        assert_eq!(doc_line(&mut out, "", "/ slash"), None);
        let mut out = String::new();
        inner_doc_line(&mut out, " The \u{202e}API\u{2069} \t").unwrap();
        inner_doc_line(&mut out, "/ slash").unwrap();
        assert_eq!(out, "//! The \\u{202e}API\\u{2069}\n//!/ slash\n");
        assert_eq!(inner_doc_line(&mut out, " two\nlines"), None);
    }

    #[test]
    fn long_attributes_and_match_arms_break_as_rustfmt_breaks_them() {
        let mut out = String::new();
        let long = format!("\"{}\"", "y".repeat(80));
        serde_rename(&mut out, "    ", "\"short\"").unwrap();
        serde_rename(&mut out, "    ", &long).unwrap();
        match_arm(&mut out, "            ", "E::A", "\"a\"").unwrap();
        match_arm(&mut out, "            ", "E::B", &long).unwrap();
        assert_eq!(
            out,
            format!(
                "    #[serde(rename = \"short\")]\n    #[serde(\n        rename = {long}\n    )]\n            E::A => \"a\",\n            E::B => {{\n                {long}\n            }}\n"
            )
        );
        let too_long = format!("\"{}\"", "y".repeat(90));
        assert_eq!(serde_rename(&mut out, "    ", &too_long), None);
        assert_eq!(match_arm(&mut out, "            ", "E::B", &too_long), None);
        assert_eq!(match_arm(&mut out, "", &"E".repeat(98), "\"a\""), None);
    }

    #[test]
    fn a_line_fits_up_to_rustfmts_max_width() {
        assert!(fits(&"x".repeat(100)));
        assert!(!fits(&"x".repeat(101)));
        let mut out = String::new();
        assert_eq!(push_line(&mut out, &"x".repeat(101)), None);
        assert!(out.is_empty());
    }
}
