//! Format and verify: every Rust file is parsed as a whole file (a gate against anything that
//! is not valid Rust) and printed by prettyplease, so output never depends on an external
//! rustfmt and is the same on every machine.

use proc_macro2::TokenStream;

/// Parses `tokens` as a Rust file and prints it formatted.
pub fn format_rust(path: &str, tokens: TokenStream) -> Result<String, String> {
    let file: syn::File = syn::parse2(tokens)
        .map_err(|e| format!("internal error: generated {path} is not valid Rust: {e}"))?;
    Ok(space_items(&prettyplease::unparse(&file)))
}

/// prettyplease prints items back to back; a blank line between items (but not inside a run of
/// `use` or `mod` declarations) makes the files read like hand-written ones.
fn space_items(text: &str) -> String {
    const STARTERS: &[&str] = &[
        "///", "#[", "pub ", "fn ", "async fn ", "impl", "mod ", "struct ", "enum ", "static ",
        "const ", "use ", "type ", "trait ", "macro_rules!",
    ];
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut previous: Option<&str> = None;
    for line in text.lines() {
        let current = line.trim_start();
        if let Some(prev) = previous.map(str::trim_start) {
            let ends_item = prev.ends_with('}') || prev.ends_with(';');
            let same_run = |word: &str| {
                let kind = |l: &str| l.trim_start_matches("pub ").starts_with(word);
                kind(prev) && kind(current)
            };
            let after_module_doc = prev.starts_with("//!") && !current.starts_with("//!");
            if (ends_item
                && STARTERS.iter().any(|s| current.starts_with(s))
                && !same_run("use ")
                && !same_run("mod "))
                || after_module_doc
            {
                out.push('\n');
            }
        }
        out.push_str(line);
        out.push('\n');
        previous = Some(line);
    }
    out
}

/// Checks that the final text of `path` parses as Rust.
pub fn verify_rust(path: &str, text: &str) -> Result<(), String> {
    syn::parse_file(text)
        .map(|_| ())
        .map_err(|e| format!("internal error: generated {path} does not parse back: {e}"))
}
