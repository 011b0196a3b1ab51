//! Where a JSON pointer is in the text of a document: its line and column, for diagnostics that
//! point into the file the user wrote rather than at a pointer alone.
//!
//! The loader reads documents as plain JSON values, which keep no positions; a diagnostic's
//! position is looked up afterwards, by parsing the file again with `marked_yaml` (which keeps a
//! span on every node, and reads JSON too, since JSON is YAML). That costs a parse of the file,
//! paid only by documents that have something to report.

use marked_yaml::Node;

/// Line and column (both from 1) of the value at `pointer` in the YAML or JSON `text`: for an
/// entry of a mapping, where its key starts (the line that names it); for an item of a list,
/// where the item starts. `None` when the text does not parse, or has nothing at `pointer`.
pub fn line_column(text: &str, pointer: &str) -> Option<(usize, usize)> {
    let node = parse(text)?;
    find(&node, pointer)
}

/// Parses `text` for [`find`]; `None` when it is not YAML (nor JSON).
pub fn parse(text: &str) -> Option<Node> {
    marked_yaml::parse_yaml(0, text.trim_start_matches('\u{feff}')).ok()
}

/// [`line_column`] in a document parsed once with [`parse`], for many pointers.
pub fn find(root: &Node, pointer: &str) -> Option<(usize, usize)> {
    let mut node = root;
    let mut place = node.span().start();
    if pointer.is_empty() {
        return place.map(|m| (m.line(), m.column()));
    }
    let tokens = pointer.strip_prefix('/')?.split('/');
    for token in tokens {
        let token = token.replace("~1", "/").replace("~0", "~");
        match node {
            Node::Mapping(mapping) => {
                let (key, value) = mapping.iter().find(|(key, _)| key.as_str() == token)?;
                place = key.span().start();
                node = value;
            }
            Node::Sequence(items) => {
                let item = items.get(token.parse::<usize>().ok()?)?;
                // A mapping's own span starts at its first value; its first key is where it is.
                place = match item {
                    Node::Mapping(mapping) => mapping.keys().next().and_then(|k| k.span().start()),
                    other => other.span().start(),
                };
                node = item;
            }
            Node::Scalar(_) => return None,
        }
    }
    place.map(|m| (m.line(), m.column()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const YAML: &str = "openapi: 3.0.3\npaths:\n  /users/{id}:\n    get:\n      parameters:\n        - name: id\n          in: path\n          schema:\n            type: user\n";

    #[test]
    fn a_pointer_in_yaml_is_found_at_the_key_that_names_it() {
        assert_eq!(
            line_column(YAML, "/paths/~1users~1{id}/get/parameters/0/schema/type"),
            Some((9, 13))
        );
        assert_eq!(line_column(YAML, "/paths/~1users~1{id}/get"), Some((4, 5)));
    }

    #[test]
    fn an_item_of_a_list_is_found_where_it_starts() {
        assert_eq!(
            line_column(YAML, "/paths/~1users~1{id}/get/parameters/0"),
            Some((6, 11))
        );
    }

    #[test]
    fn a_pointer_in_json_text_is_found_too() {
        let json =
            "{\n  \"openapi\": \"3.0.3\",\n  \"paths\": {\n    \"/a\": { \"get\": {} }\n  }\n}\n";
        assert_eq!(line_column(json, "/paths/~1a/get"), Some((4, 13)));
    }

    #[test]
    fn a_pointer_to_nothing_has_no_position() {
        assert_eq!(line_column(YAML, "/paths/~1nope"), None);
        assert_eq!(line_column(YAML, "/openapi/x"), None);
        assert_eq!(line_column("a: [", "/a"), None);
    }
}
