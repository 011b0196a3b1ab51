//! Writing lines: the text of the file as it grows, with comments aligned and prose wrapped.

use super::{COMMENT_COLUMN, WRAP};

#[derive(Default)]
pub(super) struct Out {
    pub(super) text: String,
}

impl Out {
    pub(super) fn line(&mut self, code: &str) {
        self.text.push_str(code.trim_end());
        self.text.push('\n');
    }

    /// `code` with a trailing `# comment`, aligned at [`COMMENT_COLUMN`] when there is room.
    pub(super) fn note(&mut self, code: &str, comment: &str) {
        if comment.is_empty() {
            return self.line(code);
        }
        let width = code.chars().count();
        let pad = if width + 2 <= COMMENT_COLUMN {
            COMMENT_COLUMN - width
        } else {
            2
        };
        self.line(&format!("{code}{}# {comment}", " ".repeat(pad)));
    }

    pub(super) fn blank(&mut self) {
        self.text.push('\n');
    }

    /// Prose wrapped into comment lines starting with `lead` (`# `, `#   `).
    pub(super) fn prose(&mut self, lead: &str, text: &str) {
        for line in wrap(text, WRAP.saturating_sub(lead.chars().count()).max(20)) {
            self.line(&format!("{lead}{line}"));
        }
    }
}

/// `text` cut into lines of at most `width` characters (a longer word, or `code span`, stays
/// whole).
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut open = false;
    for word in text.split_whitespace() {
        match words.last_mut() {
            Some(last) if open => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
        if word.matches('`').count() % 2 == 1 {
            open = !open;
        }
    }
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in &words {
        if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}
