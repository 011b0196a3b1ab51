//! One test per keyword the checker reads: a value that fits, one that does not, and the error
//! it gives (where, which rule, the words of `Display`).

use serde_json::{Value, json};

use super::{ErrorKind, Schema, fits_format};

/// The errors `value` has against `schema`, each as `path: message`.
fn errors(schema: Value, value: Value) -> Vec<String> {
    let (schema, problems) = Schema::new(&schema);
    assert!(problems.is_empty(), "{problems:?}");
    schema
        .errors(&value, 10)
        .iter()
        .map(|error| format!("{}: {error}", error.path))
        .collect()
}

fn fits(schema: Value, value: Value) -> bool {
    Schema::new(&schema).0.is_valid(&value)
}

#[test]
fn type_accepts_its_types_and_integers_written_with_a_zero_fraction() {
    assert!(fits(json!({"type": "integer"}), json!(3)));
    assert!(fits(json!({"type": "integer"}), json!(3.0)));
    assert!(!fits(json!({"type": "integer"}), json!(3.5)));
    assert!(fits(json!({"type": ["string", "null"]}), json!(null)));
    assert_eq!(
        errors(json!({"type": "string"}), json!(9)),
        [": 9 is not of type \"string\""]
    );
    assert_eq!(
        errors(json!({"type": ["string", "null"]}), json!(true)),
        [": true is not of types \"string\", \"null\""]
    );
}

#[test]
fn enum_and_const_compare_numbers_by_value() {
    assert!(fits(json!({"enum": [1, 2, 3]}), json!(2.0)));
    assert_eq!(
        errors(json!({"enum": ["open", "closed"]}), json!("gone")),
        [": \"gone\" is not one of \"open\" or \"closed\""]
    );
    assert_eq!(
        errors(json!({"enum": [1, 2, 3, 4, 5]}), json!(9)),
        [": 9 is not one of 1, 2 or 3 other candidates"]
    );
    assert!(fits(json!({"const": {"a": [1]}}), json!({"a": [1.0]})));
    assert_eq!(
        errors(json!({"const": "x"}), json!("y")),
        [": \"x\" was expected"]
    );
}

#[test]
fn numeric_bounds_and_multiples() {
    let schema = json!({"minimum": 1, "maximum": 5});
    assert!(fits(schema.clone(), json!(1)));
    assert!(fits(schema.clone(), json!(5)));
    assert!(fits(schema.clone(), json!("not a number")));
    assert_eq!(
        errors(schema.clone(), json!(0)),
        [": 0 is less than the minimum of 1"]
    );
    assert_eq!(
        errors(schema, json!(5.5)),
        [": 5.5 is greater than the maximum of 5"]
    );
    let exclusive = json!({"exclusiveMinimum": 0, "exclusiveMaximum": 1});
    assert!(fits(exclusive.clone(), json!(0.5)));
    assert_eq!(
        errors(exclusive.clone(), json!(0)),
        [": 0 is less than or equal to the minimum of 0"]
    );
    assert_eq!(
        errors(exclusive, json!(1)),
        [": 1 is greater than or equal to the maximum of 1"]
    );
    assert!(fits(json!({"multipleOf": 0.1}), json!(0.3)));
    assert!(fits(json!({"multipleOf": 5}), json!(15)));
    assert_eq!(
        errors(json!({"multipleOf": 5}), json!(7)),
        [": 7 is not a multiple of 5"]
    );
    // Large integers compare exactly.
    assert!(!fits(
        json!({"maximum": 9007199254740992_u64}),
        json!(9007199254740993_u64)
    ));
}

#[test]
fn string_lengths_count_characters_not_bytes() {
    let schema = json!({"minLength": 2, "maxLength": 3});
    assert!(fits(schema.clone(), json!("äöü")));
    assert_eq!(
        errors(schema.clone(), json!("x")),
        [": \"x\" is shorter than 2 characters"]
    );
    assert_eq!(
        errors(schema, json!("abcd")),
        [": \"abcd\" is longer than 3 characters"]
    );
}

#[test]
fn patterns_match_anywhere_unless_anchored() {
    assert!(fits(json!({"pattern": "b"}), json!("abc")));
    let schema = json!({"pattern": "^[A-Z]{3}-[0-9]+$"});
    assert!(fits(schema.clone(), json!("ABC-12")));
    assert_eq!(
        errors(schema, json!("ab-1")),
        [": \"ab-1\" does not match \"^[A-Z]{3}-[0-9]+$\""]
    );
}

#[test]
fn a_pattern_the_engine_cannot_read_is_reported_and_left_unchecked() {
    let (schema, problems) = Schema::new(&json!({
        "type": "object",
        "properties": {"a": {"pattern": "^(?!x)", "maxLength": 2}}
    }));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("the pattern `^(?!x)` is not checked"));
    assert!(schema.is_valid(&json!({"a": "xy"})));
    // The rest of the schema is still checked.
    assert!(!schema.is_valid(&json!({"a": "xyz"})));
}

#[test]
fn a_pattern_the_engine_cannot_read_is_reported_once_however_often_it_is_written() {
    let (_, problems) = Schema::new(&json!({
        "properties": {"a": {"pattern": "(a)\\1"}, "b": {"pattern": "(a)\\1"}},
        "patternProperties": {"(a)\\1": true}
    }));
    assert_eq!(
        problems,
        ["the pattern `(a)\\1` is not checked: backreferences are not supported"]
    );
}

#[test]
fn every_pattern_and_pattern_property_is_found_but_not_in_values() {
    let schema = json!({
        "pattern": "^a",
        "properties": {
            "b": {"pattern": "^b", "default": {"pattern": "data"}},
            "c": {"items": [{"pattern": "^c"}], "examples": [{"pattern": "data"}]},
            "pattern": {"enum": [{"pattern": "data"}], "const": {"pattern": "data"}}
        },
        "patternProperties": {"^d": {"pattern": "^e"}},
        "anyOf": [{"pattern": "^a"}]
    });
    let mut found = Vec::new();
    super::each_pattern(&schema, &mut |pattern| found.push(pattern));
    assert_eq!(found, ["^a", "^b", "^c", "^d", "^e", "^a"]);
}

#[test]
fn pattern_problem_is_the_reason_new_gives() {
    assert_eq!(super::pattern_problem("^[A-Z]{3}-\\d+$"), None);
    assert_eq!(
        super::pattern_problem("^(?!x)").as_deref(),
        Some("look-around is not supported")
    );
    assert_eq!(
        super::pattern_problem("^\\p{L}+$").as_deref(),
        Some("Unicode character classes are not supported")
    );
    let (_, problems) = Schema::new(&json!({"pattern": "[a-"}));
    let reason = super::pattern_problem("[a-").expect("`[a-` is not a regular expression");
    assert_eq!(
        problems,
        [format!("the pattern `[a-` is not checked: {reason}")]
    );
}

#[test]
fn formats_are_checked_and_unknown_formats_fit_anything() {
    let schema = json!({"format": "uuid"});
    assert!(fits(
        schema.clone(),
        json!("123e4567-e89b-12d3-a456-426614174000")
    ));
    assert_eq!(
        errors(schema.clone(), json!("me")),
        [": \"me\" is not a \"uuid\""]
    );
    assert!(fits(schema, json!(7)), "formats apply to strings only");
    assert!(fits(json!({"format": "int64"}), json!("anything")));
}

#[test]
fn each_format_accepts_valid_values_and_refuses_others() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            "date",
            &["2026-01-31", "2024-02-29"],
            &[
                "2026-02-29",
                "2026-13-01",
                "2026-1-1",
                "2026-01-31T09:30:00Z",
            ],
        ),
        (
            "date-time",
            &["2026-01-31T09:30:00Z", "2026-01-31t09:30:00.123+02:00"],
            &["2026-01-31", "2026-01-31T25:00:00Z", "2026-01-31T09:30:00"],
        ),
        (
            "time",
            &["09:30:00Z", "23:59:60-01:30"],
            &["9:30", "09:30:00"],
        ),
        (
            "duration",
            &["P3DT4H", "P2W", "PT5S", "P1Y2M"],
            &["P", "PT", "3D", "P1H", "P1D2Y"],
        ),
        (
            "email",
            &["someone@example.com", "a.b+c@[192.0.2.1]"],
            &[
                "nobody",
                "@example.com",
                "a..b@example.com",
                "a b@example.com",
            ],
        ),
        (
            "hostname",
            &["api.example.com", "localhost"],
            &["-a.com", "a..b", "a_b.com"],
        ),
        (
            "ipv4",
            &["192.0.2.10"],
            &["192.0.2", "256.0.0.1", "01.2.3.4"],
        ),
        (
            "ipv6",
            &["2001:db8::10", "::1"],
            &["2001:db8:::1", "192.0.2.1"],
        ),
        (
            "uri",
            &["https://example.com/path?q=1#x", "urn:isbn:0451450523"],
            &["/path", "https://exa mple.com", "1http://x"],
        ),
        (
            "uri-reference",
            &["/path?query=1", "https://example.com", "a%20b"],
            &["a b", "%zz"],
        ),
        ("iri", &["https://example.com/ärger"], &["ärger"]),
        (
            "uuid",
            &["123E4567-e89b-12d3-a456-426614174000"],
            &["123e4567e89b12d3a456426614174000", "x"],
        ),
        ("json-pointer", &["", "/a/0", "/a~1b~0"], &["a", "/a~2"]),
    ];
    for (format, good, bad) in cases {
        for value in *good {
            assert!(
                fits_format(format, &json!(value)),
                "{format}: {value} should fit"
            );
        }
        for value in *bad {
            assert!(
                !fits_format(format, &json!(value)),
                "{format}: {value} should not fit"
            );
        }
    }
}

#[test]
fn array_keywords() {
    let schema = json!({
        "prefixItems": [{"type": "string"}],
        "items": {"type": "integer"},
        "minItems": 1,
        "maxItems": 3,
        "uniqueItems": true
    });
    assert!(fits(schema.clone(), json!(["a", 1, 2])));
    assert_eq!(
        errors(schema.clone(), json!([1, "b"])),
        [
            "/0: 1 is not of type \"string\"",
            "/1: \"b\" is not of type \"integer\""
        ]
    );
    assert_eq!(
        errors(schema.clone(), json!([])),
        [": [] has less than 1 item"]
    );
    assert_eq!(
        errors(schema.clone(), json!(["a", 1, 2, 3])),
        [": [\"a\",1,2,3] has more than 3 items"]
    );
    assert_eq!(
        errors(schema, json!(["a", 1, 1.0])),
        [": [\"a\",1,1.0] has non-unique elements"]
    );
    let contains = json!({"contains": {"type": "string"}, "maxContains": 1});
    assert!(fits(contains.clone(), json!([1, "a"])));
    assert!(!fits(contains.clone(), json!([1, 2])));
    assert!(!fits(contains, json!(["a", "b"])));
}

#[test]
fn object_keywords_name_the_member_that_fails() {
    let schema = json!({
        "type": "object",
        "properties": {"id": {"type": "string"}, "a/b": {"type": "integer"}},
        "patternProperties": {"^x-": {"type": "boolean"}},
        "required": ["id"],
        "additionalProperties": false,
        "minProperties": 1,
        "maxProperties": 3
    });
    assert!(fits(schema.clone(), json!({"id": "1", "x-y": true})));
    assert_eq!(
        errors(schema.clone(), json!({"id": 9, "a/b": "2", "x-y": 1})),
        [
            "/id: 9 is not of type \"string\"",
            "/a~1b: \"2\" is not of type \"integer\"",
            "/x-y: 1 is not of type \"boolean\""
        ]
    );
    assert_eq!(
        errors(schema.clone(), json!({"shade": 1, "tone": 2})),
        [
            ": \"id\" is a required property",
            ": Additional properties are not allowed (\"shade\", \"tone\" were unexpected)"
        ]
    );
    assert_eq!(
        errors(
            schema,
            json!({"id": "1", "a/b": 1, "x-1": true, "x-2": false})
        ),
        [": {\"id\":\"1\",\"a/b\":1,\"x-1\":true,\"x-2\":false} has more than 3 properties"]
    );
    let additional = json!({"properties": {"a": {}}, "additionalProperties": {"type": "integer"}});
    assert_eq!(
        errors(additional, json!({"a": "x", "b": "y"})),
        ["/b: \"y\" is not of type \"integer\""]
    );
}

#[test]
fn dependencies_and_property_names() {
    let schema = json!({
        "dependentRequired": {"card": ["billing"]},
        "dependentSchemas": {"gift": {"required": ["to"]}},
        "propertyNames": {"maxLength": 7}
    });
    assert!(fits(schema.clone(), json!({"card": 1, "billing": 2})));
    assert_eq!(
        errors(schema.clone(), json!({"card": 1})),
        [": \"billing\" is a required property"]
    );
    assert_eq!(
        errors(schema.clone(), json!({"gift": 1})),
        [": \"to\" is a required property"]
    );
    assert_eq!(
        errors(schema, json!({"too-long": 1})),
        [": the property name \"too-long\" is not allowed"]
    );
}

#[test]
fn combinators() {
    let any = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
    assert!(fits(any.clone(), json!(1)));
    assert_eq!(
        errors(any, json!(true)),
        [": true is not valid under any of the schemas listed in the 'anyOf' keyword"]
    );
    let one = json!({"oneOf": [{"type": "number"}, {"type": "integer"}]});
    assert!(fits(one.clone(), json!(1.5)));
    assert_eq!(
        errors(one.clone(), json!(1)),
        [": 1 is valid under more than one of the schemas listed in the 'oneOf' keyword"]
    );
    assert_eq!(
        errors(one, json!("a")),
        [": \"a\" is not valid under any of the schemas listed in the 'oneOf' keyword"]
    );
    let all = json!({"allOf": [{"minimum": 1}, {"maximum": 2}]});
    assert_eq!(
        errors(all, json!(3)),
        [": 3 is greater than the maximum of 2"]
    );
    assert_eq!(
        errors(json!({"not": {"type": "null"}}), json!(null)),
        [": {\"type\":\"null\"} is not allowed for null"]
    );
    let conditional = json!({
        "if": {"properties": {"kind": {"const": "card"}}},
        "then": {"required": ["number"]},
        "else": {"required": ["iban"]}
    });
    assert!(fits(
        conditional.clone(),
        json!({"kind": "card", "number": "4"})
    ));
    assert!(!fits(conditional.clone(), json!({"kind": "card"})));
    assert!(!fits(conditional, json!({"kind": "bank"})));
    assert_eq!(
        errors(json!(false), json!(1)),
        [": False schema does not allow 1"]
    );
}

#[test]
fn references_point_into_the_root_and_may_recurse() {
    let schema = json!({
        "$ref": "#/$defs/Node",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                }
            }
        }
    });
    assert!(fits(
        schema.clone(),
        json!({"name": "a", "children": [{"name": "b"}]})
    ));
    assert_eq!(
        errors(schema, json!({"children": [{"children": [{"name": 1}]}]})),
        ["/children/0/children/0/name: 1 is not of type \"string\""]
    );
    // A reference that loops without entering the value ends, and fits.
    assert!(fits(
        json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
        json!(1)
    ));
    // An escaped name.
    let escaped = json!({"$defs": {"a b": {"type": "string"}}, "$ref": "#/$defs/a%20b"});
    assert!(!fits(escaped, json!(1)));
}

#[test]
fn an_error_carries_the_rule_that_failed() {
    let (schema, _) = Schema::new(&json!({
        "type": "object",
        "properties": {"priority": {"type": "integer", "minimum": 1, "maximum": 5}}
    }));
    let value = json!({"priority": 7});
    let errors = schema.errors(&value, 10);
    let [error] = errors.as_slice() else {
        panic!("one error: {errors:?}");
    };
    assert_eq!(error.path, "/priority");
    assert_eq!(error.instance, &json!(7));
    assert_eq!(error.rule["maximum"], json!(5));
    assert!(matches!(error.kind, ErrorKind::Maximum { .. }));
}

#[test]
fn errors_stop_at_the_limit() {
    let schema = json!({"items": {"type": "string"}});
    let (schema, _) = Schema::new(&schema);
    assert_eq!(schema.errors(&json!([1, 2, 3, 4]), 2).len(), 2);
}
