//! The tests of `arguments` (to move into `arguments.rs`), and what the tests of several
//! runtime modules share.

use super::*;

use super::arguments::argument_name;
use super::arguments::format_example;
use super::arguments::valid_with_example;
use super::schema::fits_format;
use serde_json::json;

/// An upstream client whose requests the tests of several modules build and check.
pub(crate) fn upstream() -> Upstream {
    // Nothing listens there: a request that got sent would fail with a transport error.
    Upstream::new(
        "http://127.0.0.1:9/api",
        Vec::new(),
        UpstreamOptions::default(),
    )
    .expect("a valid base URL")
}

#[test]
fn every_format_example_fits_its_format_and_a_wrong_one_does_not() {
    for format in [
        "date",
        "date-time",
        "time",
        "duration",
        "email",
        "idn-email",
        "hostname",
        "idn-hostname",
        "ipv4",
        "ipv6",
        "uri",
        "iri",
        "uri-reference",
        "iri-reference",
        "uuid",
    ] {
        let example = format_example(format).expect("an example for each format listed");
        assert!(fits_format(format, &json!(example)), "{format}: {example}");
    }
    assert!(!fits_format("date", &json!("2026-01-31T09:30:00Z")));
    assert!(!fits_format("uuid", &json!("x")));
    assert!(!fits_format("email", &json!("nobody")));
}

#[test]
fn what_a_schema_accepts_is_put_in_words_with_an_example() {
    let cases = [
        (
            json!({"type": "integer", "minimum": 1, "maximum": 5}),
            "an integer from 1 to 5, e.g. 3",
        ),
        (
            json!({"type": "integer", "minimum": 1, "examples": [10]}),
            "an integer of at least 1, e.g. 10",
        ),
        (
            json!({"type": "number", "exclusiveMinimum": 0}),
            "a number above 0",
        ),
        (
            json!({"type": "string", "maxLength": 20}),
            "a string of at most 20 characters",
        ),
        (
            json!({"type": "string", "format": "uuid", "default": "x"}),
            "a string in uuid format, e.g. \"123e4567-e89b-12d3-a456-426614174000\"",
        ),
        (
            json!({"type": "string", "format": "uuid", "default": "9b2f6c1e-0d4a-4f5e-8a7b-3c2d1e0f9a8b"}),
            "a string in uuid format, e.g. \"9b2f6c1e-0d4a-4f5e-8a7b-3c2d1e0f9a8b\"",
        ),
        (
            json!({"type": "string", "format": "date", "examples": ["2024-05-01T00:00:00Z"]}),
            "a string in date format, e.g. \"2026-01-31\"",
        ),
        (
            json!({"type": "string", "format": "date"}),
            "a string in date format, e.g. \"2026-01-31\"",
        ),
        (
            json!({"type": "string", "format": "date-time"}),
            "a string in date-time format, e.g. \"2026-01-31T09:30:00Z\"",
        ),
        (
            json!({"type": "string", "format": "email"}),
            "a string in email format, e.g. \"someone@example.com\"",
        ),
        (
            json!({"type": "string", "format": "uri"}),
            "a string in uri format, e.g. \"https://example.com/path\"",
        ),
        (
            json!({"type": "string", "format": "int-ish", "default": "x"}),
            "a string in int-ish format, e.g. \"x\"",
        ),
        (
            json!({"type": ["string", "null"], "pattern": "^a"}),
            "a string matching `^a` or null",
        ),
        (
            json!({"type": "string", "enum": ["a", "b"]}),
            "one of \"a\", \"b\"",
        ),
        (
            json!({"type": "array", "maxItems": 3}),
            "a list of at most 3 items",
        ),
        (json!({"type": "boolean"}), "true or false"),
    ];
    for (schema, expected) in cases {
        assert_eq!(valid_with_example(&schema), expected, "{schema}");
    }
}

#[test]
fn argument_names_are_read_from_json_pointers() {
    assert_eq!(argument_name("/priority"), "priority");
    assert_eq!(argument_name("/labels/0"), "labels[0]");
    assert_eq!(argument_name("/body/a~1b"), "body.a/b");
}
