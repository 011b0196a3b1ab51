//! Text from the spec, made safe: one comment line or one YAML scalar, so that no summary can
//! break the file.

use serde_json::Value;

use crate::curate::model::typed_scalars;
use crate::naming;

/// Spec text on one line: every line break, control and format character becomes a space, and
/// runs of spaces one.
pub fn one_line(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| {
            if c.is_control()
                || c.is_whitespace()
                || matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{200b}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                )
            {
                ' '
            } else {
                c
            }
        })
        .collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters of one-line `text`, cut after a word when one ends late enough,
/// `…` marking the cut.
pub(super) fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    let kept = match kept.rfind(' ') {
        Some(space) if space >= kept.len() * 2 / 3 => &kept[..space],
        _ => kept.as_str(),
    };
    format!("{}…", kept.trim_end_matches([' ', ',', ';', ':']))
}

/// The first sentence of `text` ([`crate::text::first_sentence`]), on one line, at most `max`
/// characters.
pub(super) fn first_sentence(text: &str, max: usize) -> String {
    clip(&one_line(crate::text::first_sentence(text.trim())), max)
}

/// A YAML scalar that reads back as exactly `text`, on one line: plain when that is safe, in the
/// block context or inside a flow collection (`flow`); double-quoted otherwise, with every line
/// break, control and format character escaped.
pub fn scalar(text: &str, flow: bool) -> String {
    if plain_ok(text, flow) {
        return text.to_string();
    }
    let quoted = serde_json::to_string(text).expect("a string always serializes");
    let mut out = String::with_capacity(quoted.len());
    for c in quoted.chars() {
        if c.is_control()
            || matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
            )
        {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

pub(super) fn plain_ok(text: &str, flow: bool) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    if text != text.trim()
        || "-?:,[]{}#&*!|>'\"%@`".contains(first)
        || text.contains(": ")
        || text.contains(" #")
        || text.ends_with(':')
        || text
            .chars()
            .any(|c| c.is_control() || c == '\u{feff}' || c.is_whitespace() && c != ' ')
        || (flow && text.contains([',', '[', ']', '{', '}', ':']))
    {
        return false;
    }
    // The curation reader types plain scalars; YAML 1.1 readers type a few more.
    let lower = text.to_ascii_lowercase();
    matches!(
        typed_scalars(Value::String(text.to_string())),
        Value::String(_)
    ) && !matches!(
        lower.as_str(),
        "null"
            | "~"
            | "true"
            | "false"
            | "yes"
            | "no"
            | "on"
            | "off"
            | "y"
            | "n"
            | ".nan"
            | ".inf"
            | "-.inf"
            | "+.inf"
    ) && text.parse::<f64>().is_err()
        && !lower.starts_with("0x")
        && !lower.starts_with("0o")
}

/// `text` as one shell word.
pub(super) fn shell_word(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-+=:@%,".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// A name usable as a key and field path everywhere: letters, digits, `_` and `-`, not read as
/// a number, boolean or null.
pub(super) fn simple_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && plain_ok(name, true)
}

pub(super) fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The words of a name, lowercase: `project_id` → `project id`.
pub(super) fn words_of(name: &str) -> String {
    naming::snake(name).map_or_else(|| name.to_string(), |s| s.replace('_', " "))
}
