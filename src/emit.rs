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

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    #[test]
    fn items_are_formatted_with_a_blank_line_between_them_but_not_between_uses() {
        let text = format_rust("x.rs", quote! {
            use std::fmt;
            use std::io;
            /// A.
            pub struct A;
            impl A { fn f(&self) -> u8 { let x = 1; x } }
        })
        .expect("valid Rust");
        assert_eq!(
            text,
            "use std::fmt;\nuse std::io;\n\n/// A.\npub struct A;\n\nimpl A {\n    fn f(&self) -> u8 {\n        let x = 1;\n        x\n    }\n}\n"
        );
    }

    #[test]
    fn tokens_that_are_not_a_rust_file_are_an_internal_error_naming_the_file() {
        let error = format_rust("src/tools.rs", quote! { fn }).expect_err("not a file");
        assert!(error.starts_with("internal error: generated src/tools.rs is not valid Rust"), "{error}");
    }

    #[test]
    fn verify_rejects_text_that_does_not_parse() {
        assert!(verify_rust("a.rs", "fn main() {}\n").is_ok());
        assert!(verify_rust("a.rs", "fn main( {}\n").is_err());
    }
}
