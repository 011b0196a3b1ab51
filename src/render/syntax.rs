//! Rust syntax shared by the Rust files of a generated crate, built with `quote` so that no text
//! from the spec can become code: names pass through [`crate::naming`], text through string
//! literals and `#[doc = ...]` attributes. Here: identifiers, doc comments, raw strings, the Rust
//! types of fields and the enums they name, the modules of tools in `src/tools.rs`, and how many
//! operations one part of a large file holds.

use std::str::FromStr;

use crate::naming::{self, Scope};
use crate::plan::{FieldType, Plan};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

pub(super) fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// `#[doc = "..."]` lines for `text`, or nothing. Doc text is kept out of doctests: generated
/// crates are binaries, and rustdoc never runs a binary's examples.
pub(super) fn docs(text: Option<&str>) -> TokenStream {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return TokenStream::new();
    };
    let lines = doc_lines(text).into_iter().map(|line| format!(" {line}"));
    quote! { #( #[doc = #lines] )* }
}

/// Doc lines that rustdoc will never run: the generated crate has a library, so its docs are
/// doctested. Code fences without a language (or marked Rust) become `text` fences, and indented
/// lines outside fences lose their indentation (an indented block is a doctest too).
pub(super) fn doc_lines(text: &str) -> Vec<String> {
    let mut in_fence = false;
    let mut list_indent: Option<usize> = None;
    text.lines()
        .map(|line| {
            let trimmed = line.trim();
            if let Some(info) = trimmed.strip_prefix("```") {
                list_indent = None;
                if in_fence {
                    in_fence = false;
                    return trimmed.to_string();
                }
                in_fence = true;
                let language = info.trim();
                return if language.is_empty() || language.contains("rust") {
                    "```text".to_string()
                } else {
                    trimmed.to_string()
                };
            }
            if in_fence {
                return line.trim_end().to_string();
            }
            // A line right after a list item continues it: indented to the item's text, so that
            // rustdoc (and clippy's `doc_lazy_continuation`) read it as part of the item.
            if trimmed.is_empty() {
                list_indent = None;
            } else if let Some(width) = list_marker_width(trimmed) {
                list_indent = Some(width);
            } else if let Some(width) = list_indent {
                return format!("{}{trimmed}", " ".repeat(width));
            }
            trimmed.to_string()
        })
        .collect()
}

/// The width of the list marker `line` starts with (`- `, `* `, `+ `, `1. `, `2) `), if any.
fn list_marker_width(line: &str) -> Option<usize> {
    if ["- ", "* ", "+ "]
        .iter()
        .any(|marker| line.starts_with(marker))
    {
        return Some(2);
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &line[digits..];
    (digits > 0 && digits < 10 && (rest.starts_with(". ") || rest.starts_with(") ")))
        .then_some(digits + 2)
}

/// A raw string literal holding `text` (`r#"..."#` with as many `#` as it needs), so that a
/// JSON definition stays readable in the generated source.
pub(super) fn raw_string(text: &str) -> TokenStream {
    let mut hashes = String::from("#");
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    let literal = format!("r{hashes}\"{text}\"{hashes}");
    TokenStream::from_str(&literal).unwrap_or_else(|_| {
        let plain = Literal::string(text);
        quote! { #plain }
    })
}

/// How many operations (or tools) one part of a large file holds (see [`emit::Part`]): enough that a
/// part's fixed cost is small, few enough that the parts spread over the cores.
pub(super) const OPERATIONS_PER_PART: usize = 64;
pub(super) fn rust_type(ty: &FieldType) -> TokenStream {
    match ty {
        FieldType::String => quote! { String },
        FieldType::Integer { .. } => quote! { i64 },
        FieldType::Number => quote! { f64 },
        FieldType::Boolean => quote! { bool },
        FieldType::StringEnum { type_name, .. } => {
            let name = ident(type_name);
            quote! { #name }
        }
        FieldType::List(item) => {
            let item = rust_type(item);
            quote! { Vec<#item> }
        }
        FieldType::Json => quote! { Value },
    }
}
pub(super) fn collect_enums<'a>(
    ty: &'a FieldType,
    out: &mut Vec<(&'a String, &'a Vec<(String, String)>)>,
) {
    match ty {
        FieldType::StringEnum {
            type_name,
            variants,
        } => out.push((type_name, variants)),
        FieldType::List(item) => collect_enums(item, out),
        _ => {}
    }
}

pub(super) fn enum_type((type_name, variants): (&String, &Vec<(String, String)>)) -> TokenStream {
    let name = ident(type_name);
    let doc = {
        let values: Vec<String> = variants
            .iter()
            .map(|(_, value)| format!("`{value}`"))
            .collect();
        format!(" One of {}.", values.join(", "))
    };
    let decls = variants.iter().map(|(variant, value)| {
        let variant = ident(variant);
        quote! {
            #[serde(rename = #value)]
            #variant,
        }
    });
    let arms = variants.iter().map(|(variant, value)| {
        let variant = ident(variant);
        quote! { #name::#variant => #value, }
    });
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
        pub enum #name {
            #( #decls )*
        }

        impl #name {
            /// The value as the API spells it.
            pub fn as_str(self) -> &'static str {
                match self {
                    #( #arms )*
                }
            }
        }

        impl std::fmt::Display for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl crate::runtime::ParamValue for #name {
            fn texts(&self) -> Vec<String> {
                vec![self.as_str().to_string()]
            }
        }
    }
}

/// The module of each tool in `src/tools.rs`, in tool order.
pub(super) fn tool_modules(plan: &Plan) -> Vec<String> {
    let mut modules = Scope::with_reserved(&[
        "client",
        "runtime",
        "tools",
        "std",
        "serde",
        "serde_json",
        "rmcp",
        "crate",
        "curated",
    ]);
    plan.tools
        .iter()
        .map(|tool| modules.unique(naming::tool_ident(&tool.name)))
        .collect()
}

/// `src/tools.rs`: every tool's definition and handler, and the table the server serves. In parts:
/// the head (imports, the table, the curated enums), then the tools' modules a chunk at a time.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_strings_use_enough_hashes_for_any_text() {
        assert_eq!(raw_string("plain").to_string(), "r#\"plain\"#");
        assert_eq!(raw_string("a \"# b").to_string(), "r##\"a \"# b\"##");
        assert_eq!(
            raw_string("\"## and \"#").to_string(),
            "r###\"\"## and \"#\"###"
        );
    }

    #[test]
    fn doc_code_never_becomes_a_doctest() {
        let lines = doc_lines(
            "Intro\n```\nlet x = 1;\n```\n    indented();\n```json\n{}\n```\n```rust,ignore\nx\n```",
        );
        assert_eq!(
            lines,
            [
                "Intro",
                "```text",
                "let x = 1;",
                "```",
                "indented();",
                "```json",
                "{}",
                "```",
                "```text",
                "x",
                "```"
            ]
        );
    }

    #[test]
    fn a_line_after_a_list_item_is_indented_to_continue_it() {
        let lines = doc_lines("Roles:\n- read\nNote: no admin.\n\nAfter.\n10. ten\nmore");
        assert_eq!(
            lines,
            [
                "Roles:",
                "- read",
                "  Note: no admin.",
                "",
                "After.",
                "10. ten",
                "    more"
            ]
        );
    }

    #[test]
    fn spec_text_in_docs_is_an_attribute_string_not_code() {
        let tokens = docs(Some("*/ fn evil() {} /* \" ]"));
        let file: syn::File = syn::parse2(quote! { #tokens struct S; }).expect("still valid Rust");
        assert_eq!(file.items.len(), 1, "the text added no items");
    }
}
