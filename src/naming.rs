//! Naming: every name that reaches generated code or the tool surface is made here.
//!
//! Takes names as the API spells them (operationIds, parameter and property names, titles) and
//! returns names that are valid where they go: tool names for model APIs
//! (`^[a-zA-Z0-9_-]{1,64}$`), Rust identifiers (never keywords, never starting with a digit),
//! crate names and environment-variable prefixes. The API's own spelling is always kept beside the
//! generated one by the callers, so requests use what the API expects.

use std::collections::BTreeSet;

use heck::ToShoutySnakeCase;

/// The longest tool name we emit: model APIs accept 64 characters, and a client may add a prefix.
pub const MAX_TOOL_NAME: usize = 64;

/// Rust keywords (strict, reserved and weak ones that matter in item position). A name that is one
/// of these gets a trailing `_`, not `r#`, because `r#self`, `r#crate` and `r#super` do not exist.
const KEYWORDS: &[&str] = &[
    "Self", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue",
    "crate", "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if",
    "impl", "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Replaces every character that is not an ASCII letter or digit by a word break, so that heck
/// sees `foo.bar/baz qux` as four words. Non-ASCII letters are transliterated to nothing: a name
/// made only of them falls back to the caller's default.
fn words(raw: &str) -> String {
    raw.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect()
}

/// Calls `word` with each word of `raw`, split as heck 0.5 splits [`words`]`(raw)`: runs of ASCII
/// letters and digits (every other byte, including each byte of a non-ASCII character, is a
/// break), each cut before an uppercase letter that follows a lowercase one (`fooBar` →
/// `foo|Bar`, `foo9Bar` → `foo9|Bar`: a digit keeps the case of the letter before it) and before
/// the last of a run of uppercase letters that a lowercase one follows (`XMLHttp` → `XML|Http`).
///
/// Written by hand rather than calling heck: heck writes every word through `fmt` (about 4,000
/// instructions a name, tens of millions on a large spec), and the names given here are ASCII, so
/// the same split fits in a byte loop. `same_words_as_heck` checks it against heck.
fn for_each_word(raw: &str, mut word: impl FnMut(&[u8])) {
    #[derive(Clone, Copy, PartialEq)]
    enum Mode {
        Boundary,
        Lower,
        Upper,
    }
    for run in raw
        .as_bytes()
        .split(|b| !b.is_ascii_alphanumeric())
        .filter(|run| !run.is_empty())
    {
        let mut start = 0;
        let mut mode = Mode::Boundary;
        for (i, pair) in run.windows(2).enumerate() {
            let (c, next) = (pair[0], pair[1]);
            let next_mode = if c.is_ascii_lowercase() {
                Mode::Lower
            } else if c.is_ascii_uppercase() {
                Mode::Upper
            } else {
                mode
            };
            if next_mode == Mode::Lower && next.is_ascii_uppercase() {
                word(&run[start..=i]);
                start = i + 1;
                mode = Mode::Boundary;
            } else if mode == Mode::Upper && c.is_ascii_uppercase() && next.is_ascii_lowercase() {
                word(&run[start..i]);
                start = i;
                mode = Mode::Boundary;
            } else {
                mode = next_mode;
            }
        }
        word(&run[start..]);
    }
}

/// `words(raw).to_snake_case()` without heck: lowercase words joined by `_`.
fn snake_words(raw: &str) -> String {
    let mut out = Vec::with_capacity(raw.len() + 4);
    for_each_word(raw, |word| {
        if !out.is_empty() {
            out.push(b'_');
        }
        out.extend(word.iter().map(u8::to_ascii_lowercase));
    });
    String::from_utf8(out).expect("ASCII letters, digits and `_` are UTF-8")
}

/// `words(raw).to_upper_camel_case()` without heck: words capitalized and joined.
fn upper_camel_words(raw: &str) -> String {
    let mut out = Vec::with_capacity(raw.len());
    for_each_word(raw, |word| {
        if let Some((first, rest)) = word.split_first() {
            out.push(first.to_ascii_uppercase());
            out.extend(rest.iter().map(u8::to_ascii_lowercase));
        }
    });
    String::from_utf8(out).expect("ASCII letters and digits are UTF-8")
}

/// `snake_case` made only of `[a-z0-9_]`, or `None` when nothing usable is left.
pub fn snake(raw: &str) -> Option<String> {
    let s = snake_words(raw);
    (!s.is_empty()).then_some(s)
}

/// A Rust identifier in `snake_case` for a field, function or module.
pub fn rust_snake_ident(raw: &str, fallback: &str) -> String {
    let base = snake(raw).unwrap_or_else(|| fallback.to_string());
    fix_ident(base)
}

/// A Rust identifier in `UpperCamelCase` for a type or enum variant.
pub fn rust_type_ident(raw: &str, fallback: &str) -> String {
    let mut base = upper_camel_words(raw);
    if base.is_empty() {
        base = fallback.to_string();
    }
    fix_ident(base)
}

fn fix_ident(mut name: String) -> String {
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    if KEYWORDS.contains(&name.as_str()) {
        name.push('_');
    }
    name
}

/// The name of a server: lowercase words joined by `-` (`Swagger Petstore` → `swagger-petstore`).
/// A name that would start with a digit gets `api-` in front (`9lives` → `api-9lives`): Cargo
/// refuses package names that start with a digit, and the crate's library name must be a Rust
/// identifier.
pub fn server_name(raw: &str) -> Option<String> {
    snake(raw).map(|s| {
        let name = s.replace('_', "-");
        if name.starts_with(|c: char| c.is_ascii_digit()) {
            format!("api-{name}")
        } else {
            name
        }
    })
}

/// The default name of a server, from its API's title: the title's leading words (at most three)
/// without a subtitle (after ` - `, ` + `, `:`, `(`, `|`), possessives, versions, or the words every
/// title has (`API`, `OpenAPI`, `Swagger`, `REST`, `spec`, `official`, ...): `Swagger Petstore - OpenAPI 3.0`
/// → `petstore`, `GitHub's official OpenAPI spec + Octokit extension` → `github`. A title
/// of nothing but such words gives its [`server_name`].
pub fn server_name_from_title(title: &str) -> Option<String> {
    const SAID_BY_EVERY_TITLE: &[&str] = &[
        "a",
        "an",
        "the",
        "api",
        "apis",
        "openapi",
        "swagger",
        "rest",
        "restful",
        "http",
        "json",
        "spec",
        "specification",
        "definition",
        "description",
        "document",
        "official",
        "public",
        "service",
        "services",
        "version",
    ];
    let main = [" - ", " – ", " — ", " + ", ":", "(", "|", "\n"]
        .iter()
        .filter_map(|separator| title.find(separator))
        .filter(|&at| !title[..at].trim().is_empty())
        .min()
        .map_or(title, |at| &title[..at]);
    let words: Vec<String> = main
        .split_whitespace()
        .map(|word| {
            let word = word.trim_end_matches("'s").trim_end_matches("’s");
            word.chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
        .filter(|word| {
            let version = word.strip_prefix('v').unwrap_or(word);
            !word.is_empty()
                && !SAID_BY_EVERY_TITLE.contains(&word.as_str())
                && !version.chars().all(|c| c.is_ascii_digit())
        })
        .take(3)
        .collect();
    server_name(&words.join(" ")).or_else(|| server_name(title))
}

/// The tool-name prefix for server `name`: its words joined by `_`, kept short so tool names
/// have room.
pub fn tool_prefix(name: &str) -> String {
    let mut prefix = String::new();
    for word in name.split(['-', '_']).filter(|w| !w.is_empty()) {
        if !prefix.is_empty() && prefix.len() + 1 + word.len() > 20 {
            break;
        }
        if !prefix.is_empty() {
            prefix.push('_');
        }
        prefix.push_str(word);
    }
    let prefix: String = prefix.chars().take(20).collect();
    format!("{}_", prefix.trim_end_matches('_'))
}

/// The prefix of a server's environment variables (`tracker` → `TRACKER`).
pub fn env_prefix(server_name: &str) -> String {
    let prefix = words(server_name).to_shouty_snake_case();
    if prefix.starts_with(|c: char| c.is_ascii_digit()) {
        format!("MCP_{prefix}")
    } else {
        prefix
    }
}

/// Is `name` acceptable to every major model API?
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=MAX_TOOL_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A short, stable hash of a name, used to keep shortened names distinct (FNV-1a, 32 bits).
fn short_hash(raw: &str) -> String {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in raw.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    format!("{:08x}", hash)[..6].to_string()
}

/// Hands out unique names in one namespace (tools of a server, fields of a struct), in a fixed
/// order so the same input always gives the same names.
#[derive(Debug, Default)]
pub struct Scope {
    taken: BTreeSet<String>,
}

impl Scope {
    /// A scope in which `reserved` names are already taken (the generated code's own locals).
    pub fn with_reserved(reserved: &[&str]) -> Self {
        Self {
            taken: reserved.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Takes `name`, or `name_2`, `name_3`, … when it is taken. A keyword made safe (`type_`)
    /// numbers as `type_2`: `type__2` would be a field name rustc warns is not snake case.
    pub fn unique(&mut self, name: String) -> String {
        if self.taken.insert(name.clone()) {
            return name;
        }
        let stem = match name.trim_end_matches('_') {
            "" => name.as_str(),
            stem => stem,
        };
        (2..)
            .map(|n| format!("{stem}_{n}"))
            .find(|candidate| self.taken.insert(candidate.clone()))
            .expect("an unbounded range always yields a free name")
    }

    /// Takes the type name `name`, or `Name2`, `Name3`, … when it is taken.
    pub fn unique_type(&mut self, name: String) -> String {
        if self.taken.insert(name.clone()) {
            return name;
        }
        // `Self_` (a keyword made safe) numbers as `Self2`, which stays UpperCamelCase.
        let stem = name.trim_end_matches('_').to_string();
        (2..)
            .map(|n| format!("{stem}{n}"))
            .find(|candidate| self.taken.insert(candidate.clone()))
            .expect("an unbounded range always yields a free name")
    }

    /// Takes a tool name made from `raw` (an operationId, or method and path): snake_case, at
    /// most [`MAX_TOOL_NAME`] characters (long names keep their start and gain a hash of the whole
    /// so that two long names never collide), unique in this scope.
    pub fn tool_name(&mut self, raw: &str) -> String {
        let base = snake(raw).unwrap_or_else(|| "tool".to_string());
        let base = if base.len() > MAX_TOOL_NAME {
            let hash = short_hash(raw);
            let keep = MAX_TOOL_NAME - hash.len() - 1 - 3; // room for `_` and a `_NN` suffix
            format!("{}_{hash}", base[..keep].trim_end_matches('_'))
        } else {
            base
        };
        if self.taken.insert(base.clone()) {
            return base;
        }
        let stem_len = base.len().min(MAX_TOOL_NAME - 3);
        let stem = base[..stem_len].trim_end_matches('_');
        (2..)
            .map(|n| format!("{stem}_{n}"))
            .find(|candidate| self.taken.insert(candidate.clone()))
            .expect("an unbounded range always yields a free name")
    }
}

/// The Rust identifier for a tool module or function: tool names may contain `-`.
pub fn tool_ident(tool_name: &str) -> String {
    rust_snake_ident(tool_name, "tool")
}

/// The Rust type name derived from a tool name (`list_issues` → `ListIssues`).
pub fn tool_type_ident(tool_name: &str) -> String {
    rust_type_ident(tool_name, "Tool")
}

/// A plural English noun made singular (`projects` → `project`, `statuses` → `status`,
/// `categories` → `category`); a word that is no plural is kept.
pub fn singular(word: &str) -> String {
    if let Some(stem) = word.strip_suffix("ies").filter(|s| s.len() >= 2) {
        format!("{stem}y")
    } else if let Some(stem) = word.strip_suffix("sses") {
        format!("{stem}ss")
    } else if let Some(stem) = word
        .strip_suffix("uses")
        .or_else(|| word.strip_suffix("xes"))
        .or_else(|| word.strip_suffix("ches"))
        .or_else(|| word.strip_suffix("shes"))
    {
        // statuses, boxes, matches, hashes
        format!("{stem}{}", &word[stem.len()..word.len() - 2])
    } else if word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
        && word.len() > 3
    {
        word[..word.len() - 1].to_string()
    } else {
        word.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `snake` and `rust_type_ident` split words by hand; they must give what heck gives for
    /// every input: every string of up to 6 characters over an alphabet that has lowercase,
    /// uppercase, digits and breaks (runs of capitals, digits between capitals and lowercase,
    /// leading, trailing and repeated breaks, the empty string), then longer random strings that
    /// also hold other symbols and non-ASCII letters.
    #[test]
    fn same_words_as_heck() {
        use heck::{ToSnakeCase, ToUpperCamelCase};
        fn check(raw: &str) {
            let spaced = words(raw);
            assert_eq!(snake_words(raw), spaced.to_snake_case(), "snake of {raw:?}");
            assert_eq!(
                upper_camel_words(raw),
                spaced.to_upper_camel_case(),
                "upper camel of {raw:?}"
            );
        }
        const ALPHABET: [char; 8] = ['a', 'A', 'b', 'B', '0', '9', ' ', '_'];
        let mut checked = 0;
        let mut raw = String::new();
        for len in 0..=6u32 {
            for mut n in 0..ALPHABET.len().pow(len) {
                raw.clear();
                for _ in 0..len {
                    raw.push(ALPHABET[n % ALPHABET.len()]);
                    n /= ALPHABET.len();
                }
                check(&raw);
                checked += 1;
            }
        }
        const WIDE: [char; 14] = [
            'a', 'z', 'A', 'Z', 'B', 'm', 'M', '0', '9', ' ', '_', '-', '.', 'é',
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |bound: usize| {
            // xorshift64: a fixed sequence, so a failure repeats.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        for _ in 0..100_000 {
            raw.clear();
            for _ in 0..7 + next(24) {
                raw.push(WIDE[next(WIDE.len())]);
            }
            check(&raw);
            checked += 1;
        }
        assert_eq!(checked, 299_593 + 100_000);
        check("XMLHttpRequest2FA getV2Pets   IDs_ofABCd");
    }

    #[test]
    fn keywords_get_a_trailing_underscore_not_a_raw_prefix() {
        assert_eq!(rust_snake_ident("type", "f"), "type_");
        assert_eq!(rust_snake_ident("self", "f"), "self_");
        assert_eq!(rust_type_ident("self", "F"), "Self_");
        assert_eq!(rust_snake_ident("crate", "f"), "crate_");
    }

    #[test]
    fn leading_digits_and_symbols_become_valid_identifiers() {
        assert_eq!(rust_snake_ident("3d", "f"), "_3d");
        assert_eq!(rust_snake_ident("+1", "f"), "_1");
        assert_eq!(rust_type_ident("3d-model", "F"), "_3dModel");
        assert_eq!(rust_snake_ident("---", "field"), "field");
        assert_eq!(rust_snake_ident("名前", "field"), "field");
    }

    #[test]
    fn names_that_collide_after_casing_are_kept_apart() {
        let mut scope = Scope::default();
        let a = scope.unique(rust_snake_ident("foo-bar", "f"));
        let b = scope.unique(rust_snake_ident("foo_bar", "f"));
        let c = scope.unique(rust_snake_ident("fooBar", "f"));
        assert_eq!(
            (a.as_str(), b.as_str(), c.as_str()),
            ("foo_bar", "foo_bar_2", "foo_bar_3")
        );
    }

    #[test]
    fn a_keyword_that_collides_is_numbered_as_snake_case() {
        let mut scope = Scope::default();
        let a = scope.unique(rust_snake_ident("$_type", "f"));
        let b = scope.unique(rust_snake_ident("type", "f"));
        let c = scope.unique(rust_snake_ident("Type", "f"));
        assert_eq!(
            (a.as_str(), b.as_str(), c.as_str()),
            ("type_", "type_2", "type_3")
        );
    }

    #[test]
    fn tool_names_are_snake_case_from_any_operation_id() {
        let mut scope = Scope::default();
        assert_eq!(scope.tool_name("listIssues"), "list_issues");
        assert_eq!(scope.tool_name("pets/get.by id"), "pets_get_by_id");
        assert_eq!(
            scope.tool_name("GET /v2/projects/{project_id}"),
            "get_v2_projects_project_id"
        );
    }

    #[test]
    fn long_operation_ids_are_shortened_deterministically_without_collisions() {
        let long_a = format!("{}A", "veryLongOperationName".repeat(10));
        let long_b = format!("{}B", "veryLongOperationName".repeat(10));
        let mut scope = Scope::default();
        let a = scope.tool_name(&long_a);
        let b = scope.tool_name(&long_b);
        assert!(is_valid_tool_name(&a), "{a}");
        assert!(is_valid_tool_name(&b), "{b}");
        assert_ne!(a, b);
        let mut again = Scope::default();
        assert_eq!(
            again.tool_name(&long_a),
            a,
            "the same input gives the same name"
        );
        // the same long id twice still yields distinct, valid names
        let a2 = scope.tool_name(&long_a);
        assert_ne!(a2, a);
        assert!(is_valid_tool_name(&a2), "{a2}");
    }

    #[test]
    fn tool_names_that_collide_after_casing_get_numbered() {
        let mut scope = Scope::default();
        assert_eq!(scope.tool_name("getPet"), "get_pet");
        assert_eq!(scope.tool_name("get_pet"), "get_pet_2");
        assert_eq!(scope.tool_name("get-pet"), "get_pet_3");
    }

    #[test]
    fn default_server_names_keep_what_names_the_api_and_drop_what_every_title_says() {
        let cases = [
            ("Swagger Petstore - OpenAPI 3.0", "petstore"),
            (
                "GitHub's official OpenAPI spec + Octokit extension",
                "github",
            ),
            ("Stripe API", "stripe"),
            ("Kubernetes", "kubernetes"),
            ("Tracker", "tracker"),
            ("Paging styles", "paging-styles"),
            ("Cursed: API # not a comment\nsecond line", "cursed"),
            (
                "The Acme Widget Inventory Service v2 (beta)",
                "acme-widget-inventory",
            ),
            ("OpenAPI spec", "open-api-spec"),
        ];
        for (title, name) in cases {
            assert_eq!(
                server_name_from_title(title).as_deref(),
                Some(name),
                "{title}"
            );
        }
        assert_eq!(server_name_from_title("!!!"), None);
    }

    #[test]
    fn server_names_and_env_prefixes() {
        assert_eq!(server_name("Tracker").as_deref(), Some("tracker"));
        assert_eq!(
            server_name("Swagger Petstore - OpenAPI 3.0").as_deref(),
            Some("swagger-petstore-open-api-3-0")
        );
        assert_eq!(env_prefix("tracker"), "TRACKER");
        assert_eq!(env_prefix("swagger-petstore"), "SWAGGER_PETSTORE");
        assert_eq!(env_prefix("3scale"), "MCP_3SCALE");
    }

    /// Every title or `--name` that starts with a digit or has nothing but symbols gives a server
    /// name whose crate name is a Cargo package name and whose library name is a Rust identifier
    /// (a digit-leading one panicked in `proc_macro2::Ident::new`).
    #[test]
    fn digit_leading_and_symbol_only_names_make_valid_crate_and_library_names() {
        let titles = [
            "0001-AllOffProps",
            "9lives",
            "3scale API",
            "2024",
            "1.0",
            "v2",
            "123 456",
            "#1 API",
            "+1",
            "-9-",
            "_0",
            "00",
            "42 - The Answer",
            "7 (seven)",
        ];
        for title in titles {
            let names = [server_name_from_title(title), server_name(title)];
            for name in names.into_iter().flatten() {
                assert!(
                    name.starts_with(|c: char| c.is_ascii_lowercase()),
                    "{title:?} gave {name:?}"
                );
                let lib = format!("{name}-mcp").replace('-', "_");
                assert!(
                    syn::parse_str::<syn::Ident>(&lib).is_ok(),
                    "{title:?} gave {lib:?}"
                );
                assert!(!env_prefix(&name).starts_with(|c: char| c.is_ascii_digit()));
            }
        }
        assert_eq!(server_name("9lives").as_deref(), Some("api-9lives"));
        assert_eq!(
            server_name_from_title("0001-AllOffProps").as_deref(),
            Some("api-0001alloffprops")
        );
        for symbols in ["!!!", "---", "_", "#", "+", "...", "名前", "", " "] {
            assert_eq!(server_name(symbols), None, "{symbols:?}");
            assert_eq!(server_name_from_title(symbols), None, "{symbols:?}");
        }
    }

    #[test]
    fn reserved_locals_are_never_handed_out() {
        let mut scope = Scope::with_reserved(&["client", "request"]);
        assert_eq!(scope.unique("client".into()), "client_2");
        assert_eq!(scope.unique("title".into()), "title");
    }
}
