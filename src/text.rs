//! Prose from the spec, read the way a model reads it: where its sentences end and which words
//! it says, so that the lint can count sentences and the plan can tell when one text only
//! restates another.

/// Whether the character at `i` of `chars` ends a sentence: a full stop, question or exclamation
/// mark before white space or the end, but not the dot of `e.g.` or `i.e.`.
fn ends_sentence(chars: &[char], i: usize) -> bool {
    matches!(chars[i], '.' | '!' | '?')
        && chars.get(i + 1).is_none_or(|next| next.is_whitespace())
        && !(i >= 2 && chars[i - 2] == '.' && chars[i - 1].is_alphabetic())
}

/// How many sentences `text` has: those [`ends_sentence`] ends, and a last sentence without an
/// end.
pub fn sentences(text: &str) -> usize {
    let chars: Vec<char> = text.trim().chars().collect();
    let mut count = 0;
    let mut since_last = false;
    for i in 0..chars.len() {
        if ends_sentence(&chars, i) {
            if since_last {
                count += 1;
            }
            since_last = false;
        } else if chars[i].is_alphanumeric() {
            since_last = true;
        }
    }
    count + usize::from(since_last)
}

/// The first sentence of `text`: up to the first end of a sentence ([`ends_sentence`]) or to the
/// end of the first paragraph (a blank line), whichever comes first. A single line break, as in
/// hard-wrapped text, does not end it.
pub fn first_sentence(text: &str) -> &str {
    let paragraph = text.split("\n\n").next().unwrap_or(text);
    let chars: Vec<char> = paragraph.chars().collect();
    match (0..chars.len()).find(|&i| ends_sentence(&chars, i)) {
        Some(end) => {
            let bytes: usize = chars[..=end].iter().map(|c| c.len_utf8()).sum();
            &paragraph[..bytes]
        }
        None => paragraph,
    }
}

/// The words of `text`, lower-cased and split where casing or punctuation splits them
/// (`userStatus`, `user_status` and "User status" are all *user*, *status*), each without one
/// final `s` when longer than three letters (`Logs` is *log*, `Deletes` *delete*).
pub fn words(text: &str) -> Vec<String> {
    heck::ToSnakeCase::to_snake_case(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.chars().count() >= 3 => stem.to_string(),
            _ => w.to_string(),
        })
        .collect()
}

/// Whether `text` says nothing that `other` does not: its [`words`] appear in `other`, in the
/// same order, so that "Log into the system" restates "Logs user into the system" but "Get
/// user by user name" does not restate "Get user detail based on username".
pub fn restates(text: &str, other: &str) -> bool {
    let mut others = words(other).into_iter();
    words(text).iter().all(|word| others.any(|o| o == *word))
}

/// `words` after the indefinite article it takes: "an assignee login", "a user name". By the
/// first letter, except that a `u` read as "you" (user, unique, url) takes "a", and `un`, `up`
/// ("an unread thread", "an update") take "an".
pub fn with_article(words: &str) -> String {
    let lower = words.to_ascii_lowercase();
    let an = match lower.chars().next() {
        Some('a' | 'e' | 'i' | 'o') => true,
        Some('u') => {
            (lower.starts_with("un") && !lower.starts_with("uni")) || lower.starts_with("up")
        }
        _ => false,
    };
    format!("{} {words}", if an { "an" } else { "a" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_end_at_full_stops_before_a_space_or_the_end() {
        assert_eq!(sentences(""), 0);
        assert_eq!(sentences("List pets"), 1);
        assert_eq!(sentences("List pets."), 1);
        assert_eq!(sentences("List pets. Use it to browse."), 2);
        assert_eq!(sentences("Find one, e.g. WEB-142. Returns it"), 2);
        assert_eq!(sentences("Version 2.0 of it? Yes!"), 2);
    }

    #[test]
    fn a_first_sentence_ends_at_its_full_stop_or_its_paragraph_not_at_a_wrapped_line() {
        assert_eq!(
            first_sentence("Returns one page of the projects, in creation\norder. Each has a key."),
            "Returns one page of the projects, in creation\norder."
        );
        assert_eq!(
            first_sentence("List pets\n\nNewest first. At most 20."),
            "List pets"
        );
        assert_eq!(
            first_sentence("Version 1.5 of the pet, as sent"),
            "Version 1.5 of the pet, as sent"
        );
        assert_eq!(
            first_sentence("Is it there? Ask the store."),
            "Is it there?"
        );
    }

    #[test]
    fn a_first_sentence_ends_where_sentences_are_counted_to_end() {
        assert_eq!(
            first_sentence("Find one, e.g. WEB-142. Returns it"),
            "Find one, e.g. WEB-142."
        );
        assert_eq!(first_sentence("Größe ändern. Danach"), "Größe ändern.");
    }

    #[test]
    fn words_split_names_and_prose_alike() {
        assert_eq!(words("userStatus"), words("User Status"));
        assert_eq!(words("user_status"), words("UserStatus"));
        assert_eq!(words("Logs user in."), ["log", "user", "in"]);
    }

    #[test]
    fn with_article_picks_an_before_a_vowel_sound_and_a_before_a_you() {
        assert_eq!(with_article("assignee login"), "an assignee login");
        assert_eq!(with_article("integer"), "an integer");
        assert_eq!(with_article("object or array"), "an object or array");
        assert_eq!(with_article("user name"), "a user name");
        assert_eq!(with_article("unique key"), "a unique key");
        assert_eq!(with_article("unread thread"), "an unread thread");
        assert_eq!(with_article("project key"), "a project key");
        assert_eq!(with_article("string"), "a string");
    }
}
