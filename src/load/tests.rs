//! The load stage, one behaviour per test, on small inline documents. What the plan stage makes
//! of a loaded document is tested in `src/plan/tests.rs`.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::*;
use crate::plan;

/// Loads `text` (YAML or JSON) as the loader does after reading a file.
fn api(text: &str) -> Api {
    let document = parse_text(text).expect("the test document parses");
    let document = upgrade(document).expect("the test document converts");
    match loaded_both_ways(&document) {
        Ok(api) => api,
        Err((pointer, message)) => panic!("the test document does not load: {pointer}: {message}"),
    }
}

/// The `(pointer, message)` that loading `text` fails with.
fn load_error(text: &str) -> (String, String) {
    let document = parse_text(text).expect("the test document parses");
    let document = match upgrade(document) {
        Ok(document) => document,
        Err(failure) => return failure,
    };
    match loaded_both_ways(&document) {
        Ok(_) => panic!("the test document loads, but it should not"),
        Err(failure) => failure,
    }
}

/// What loading `document` makes, with its answers repaired in place and aside ([`Aside`]),
/// which must make the same (warnings, their order and the failure included).
fn loaded_both_ways(document: &Value) -> Result<Api, Fail> {
    let in_place = Loader::new(document).api(None);
    let aside = Loader::new(document).answering_aside(true).api(None);
    assert_eq!(format!("{aside:?}"), format!("{in_place:?}"));
    aside
}

/// A 3.0 document whose `components/schemas` are `schemas` and whose one operation
/// (`GET /things`, `getThings`) answers 200 with `response` as its JSON schema.
fn with_response_schema(response: Value, schemas: Value) -> Value {
    json!({
        "openapi": "3.0.3",
        "info": { "title": "Things", "version": "1" },
        "paths": { "/things": { "get": {
            "operationId": "getThings",
            "responses": { "200": {
                "description": "ok",
                "content": { "application/json": { "schema": response } }
            } }
        } } },
        "components": { "schemas": schemas }
    })
}

/// The success schema of the only operation of `document`.
fn response_schema(document: &Value) -> Value {
    let api = Loader::new(document).api(None).expect("the document loads");
    api.operations[0]
        .success
        .as_ref()
        .and_then(|s| s.schema.as_deref().cloned())
        .expect("the operation has a JSON success schema")
}

/// What the converter makes of one schema found at `/x` in a document with no components.
fn convert(schema: Value) -> Value {
    let document = json!({});
    SchemaConverter::new(&document, &SchemaContext::default())
        .convert_root(&schema, "/x")
        .expect("the schema converts")
}

fn ids(api: &Api) -> Vec<String> {
    api.operations
        .iter()
        .map(|o| format!("{} {}", o.method.as_upper(), o.id))
        .collect()
}

fn parameter<'a>(operation: &'a Operation, name: &str) -> &'a Parameter {
    operation
        .parameters
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no parameter {name}"))
}

fn write_temp(name: &str, bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).expect("the test file is written");
    (dir, path)
}

const PETS_YAML: &str = r#"
openapi: 3.0.3
info:
  title: Pets
  version: 1.0.0
paths:
  /pets/{id}:
    get:
      operationId: getPet
      parameters:
        - name: id
          in: path
          schema: { type: integer }
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: object, properties: { name: { type: string } } }
"#;

const PETS_JSON: &str = r#"{
  "openapi": "3.0.3",
  "info": { "title": "Pets", "version": "1.0.0" },
  "paths": {
    "/pets/{id}": {
      "get": {
        "operationId": "getPet",
        "parameters": [{ "name": "id", "in": "path", "schema": { "type": "integer" } }],
        "responses": {
          "200": {
            "description": "ok",
            "content": {
              "application/json": {
                "schema": { "type": "object", "properties": { "name": { "type": "string" } } }
              }
            }
          }
        }
      }
    }
  }
}"#;

// ---------------------------------------------------------------------------------------------
// Reading the text

#[test]
fn yaml_and_json_documents_load_to_the_same_api() {
    let from_yaml = api(PETS_YAML);
    let from_json = api(PETS_JSON);
    assert_eq!(format!("{from_yaml:?}"), format!("{from_json:?}"));
    assert_eq!(from_yaml.title, "Pets");
    assert_eq!(from_yaml.version, "1.0.0");
    let operation = &from_yaml.operations[0];
    assert_eq!(
        (operation.id.as_str(), operation.method),
        ("getPet", Method::Get)
    );
    assert_eq!(
        parameter(operation, "id").schema,
        json!({ "type": "integer" })
    );
    assert!(
        parameter(operation, "id").required,
        "path parameters are always required"
    );
}

#[test]

fn yaml_flow_mapping_at_the_top_level_is_read_as_yaml() {
    // `{` starts JSON and YAML flow mappings alike; unquoted keys are YAML, not broken JSON.
    let api = api("{openapi: 3.0.3, info: {title: Flow, version: '1'}, paths: {}}\n");
    assert_eq!(api.title, "Flow");
}

#[test]
fn a_byte_order_mark_is_ignored() {
    let api = api(&format!("\u{feff}{PETS_YAML}"));
    assert_eq!(api.operations.len(), 1);
}

#[test]
fn integer_response_code_keys_in_yaml_become_strings() {
    assert_eq!(
        parse_text("200: ok\n404: gone\ntrue: yes\n").unwrap(),
        json!({ "200": "ok", "404": "gone", "true": "yes" })
    );
    let api = api(r#"
openapi: 3.0.3
info: { title: T, version: 1 }
paths:
  /a:
    get:
      operationId: getA
      responses:
        200:
          description: ok
          content:
            application/json:
              schema: { type: string }
"#);
    let success = api.operations[0]
        .success
        .as_ref()
        .expect("a success response");
    assert_eq!(success.status, "200");
    assert_eq!(
        success.schema.as_deref(),
        Some(&json!({ "type": "string" }))
    );
    assert_eq!(api.version, "1", "a numeric info.version is kept as text");
}

#[test]
fn text_that_is_neither_yaml_nor_json_is_an_error() {
    let message = parse_text("{{{").unwrap_err();
    assert!(message.starts_with("not valid JSON: "), "{message}");
    let message = parse_text("a: [1, 2\nb: }").unwrap_err();
    assert!(message.starts_with("not valid YAML or JSON: "), "{message}");
}

#[test]
fn a_yaml_description_with_a_key_given_twice_is_an_error_naming_the_key_and_its_line() {
    let text = "openapi: 3.0.3\npaths:\n  /a: {}\n  /a: {}\n";
    let message = super::parse_document(text).unwrap_err();
    assert!(
        message.contains("duplicate entry with key \"/a\"") && message.contains("line 3"),
        "{message}"
    );
}

// ---------------------------------------------------------------------------------------------
// Operations

#[test]
fn operations_keep_document_order_paths_then_methods() {
    let api = api(r#"
openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /zebras:
    delete: { operationId: deleteZebra, responses: {} }
    post: { operationId: createZebra, responses: {} }
    patch: { operationId: patchZebra, responses: {} }
    get: { operationId: listZebras, responses: {} }
    put: { operationId: replaceZebra, responses: {} }
    head: { operationId: headZebras, responses: {} }
  /apes:
    get: { operationId: listApes, responses: {} }
"#);
    assert_eq!(
        ids(&api),
        [
            "GET listZebras",
            "PUT replaceZebra",
            "POST createZebra",
            "DELETE deleteZebra",
            "HEAD headZebras",
            "PATCH patchZebra",
            "GET listApes",
        ]
    );
}

#[test]
fn missing_operation_id_is_made_from_method_and_path() {
    let api = api(r#"
openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /pets/{id}:
    get: { responses: {} }
    delete: { operationId: '  ', responses: {} }
"#);
    assert_eq!(
        ids(&api),
        ["GET get /pets/{id}", "DELETE delete /pets/{id}"]
    );
}

#[test]
fn path_item_parameters_are_inherited_and_overridden_by_the_operation() {
    let api = api(r#"
openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /projects/{id}/issues:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string } }
      - { name: limit, in: query, description: shared, schema: { type: integer } }
      - { name: limit, in: header, schema: { type: string } }
    get:
      operationId: listIssues
      parameters:
        - { name: limit, in: query, required: true, description: own, schema: { type: integer, maximum: 50 } }
        - { name: state, in: query, schema: { type: string } }
      responses: {}
    post:
      operationId: createIssue
      responses: {}
"#);
    let list = &api.operations[0];
    let names: Vec<_> = list
        .parameters
        .iter()
        .map(|p| format!("{}:{}", p.location.as_str(), p.name))
        .collect();
    assert_eq!(
        names,
        ["path:id", "header:limit", "query:limit", "query:state"]
    );
    let limit = list
        .parameters
        .iter()
        .find(|p| p.name == "limit" && p.location == Location::Query)
        .unwrap();
    assert_eq!(limit.description.as_deref(), Some("own"));
    assert!(limit.required);
    assert_eq!(limit.schema, json!({ "type": "integer", "maximum": 50 }));

    let create = &api.operations[1];
    let names: Vec<_> = create.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["id", "limit", "limit"],
        "an operation without its own inherits all"
    );
    assert_eq!(
        parameter(create, "limit").description.as_deref(),
        Some("shared")
    );
}

#[test]
fn header_parameters_accept_content_type_and_authorization_are_skipped() {
    let api = api(r#"
openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /a:
    get:
      operationId: getA
      parameters:
        - { name: Accept, in: header, schema: { type: string } }
        - { name: content-type, in: header, schema: { type: string } }
        - { name: AUTHORIZATION, in: header, schema: { type: string } }
        - { name: X-Request-Id, in: header, schema: { type: string } }
        - { name: accept, in: query, schema: { type: string } }
      responses: {}
"#);
    let kept: Vec<_> = api.operations[0]
        .parameters
        .iter()
        .map(|p| format!("{}:{}", p.location.as_str(), p.name))
        .collect();
    assert_eq!(kept, ["header:X-Request-Id", "query:accept"]);
}

#[test]
fn a_parameter_without_a_valid_location_is_an_error_at_its_in() {
    let (pointer, message) = load_error(
        r#"
openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /a:
    get:
      operationId: getA
      parameters:
        - { name: q, in: body, schema: { type: string } }
      responses: {}
"#,
    );
    assert_eq!(pointer, "/paths/~1a/get/parameters/0/in");
    assert_eq!(
        message,
        "parameter `q` has `in: body`; use path, query, header or cookie"
    );
}

// ---------------------------------------------------------------------------------------------
// References

const REFS_YAML: &str = r#"
openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /pets:
    post:
      operationId: createPet
      parameters:
        - $ref: '#/components/parameters/Trace'
      requestBody:
        $ref: '#/components/requestBodies/NewPet'
      responses:
        '201':
          $ref: '#/components/responses/Created'
components:
  parameters:
    Trace: { $ref: '#/components/parameters/TraceReal' }
    TraceReal: { name: trace, in: query, schema: { $ref: '#/components/schemas/Id' } }
  requestBodies:
    NewPet:
      required: true
      content:
        application/json:
          schema: { $ref: '#/components/schemas/NewPet' }
  responses:
    Created:
      description: created
      content:
        application/json:
          schema: { $ref: '#/components/schemas/Pet' }
  schemas:
    Id: { $ref: '#/components/schemas/IdReal' }
    IdReal: { type: string, format: uuid }
    NewPet:
      type: object
      required: [name]
      properties:
        name: { type: string }
        owner: { $ref: '#/components/schemas/Id' }
    Pet:
      allOf:
        - $ref: '#/components/schemas/NewPet'
        - type: object
          properties: { id: { $ref: '#/components/schemas/Id' } }
"#;

#[test]
fn component_refs_are_resolved_for_parameters_bodies_responses_and_schemas() {
    let api = api(REFS_YAML);
    let operation = &api.operations[0];
    let uuid = json!({ "type": "string", "format": "uuid" });
    assert_eq!(parameter(operation, "trace").schema, uuid);
    let body = operation.body.as_ref().expect("the body is resolved");
    assert!(body.required);
    assert_eq!(
        *body.schema,
        json!({
            "type": "object",
            "required": ["name"],
            "properties": { "name": { "type": "string" }, "owner": uuid }
        })
    );
    let success = operation
        .success
        .as_ref()
        .expect("the response is resolved");
    assert_eq!(success.status, "201");
    assert_eq!(success.description.as_deref(), Some("created"));
    assert_eq!(
        success.schema.as_deref(),
        Some(&json!({
            "allOf": [
                {
                    "type": "object",
                    "required": ["name"],
                    "properties": { "name": { "type": "string" }, "owner": uuid }
                },
                { "type": "object", "properties": { "id": uuid } }
            ]
        }))
    );
    assert!(
        !success
            .schema
            .as_ref()
            .unwrap()
            .to_string()
            .contains("$ref")
    );
}

#[test]
fn a_chain_of_refs_is_followed_to_its_end() {
    // Parameter → parameter → parameter, and schema → schema → schema.
    let document = parse_text(&REFS_YAML.replace(
        "TraceReal: { name: trace",
        "TraceReal: { $ref: '#/components/parameters/TraceLast' }\n    TraceLast: { name: trace",
    ))
    .unwrap();
    let api = Loader::new(&document)
        .api(None)
        .expect("the chain resolves");
    assert_eq!(
        parameter(&api.operations[0], "trace").schema,
        json!({ "type": "string", "format": "uuid" })
    );
}

#[test]
fn ref_with_escaped_pointer_tokens_is_resolved() {
    let document = with_response_schema(
        json!({ "$ref": "#/components/schemas/a~1b%20c~0d" }),
        json!({ "a/b c~d": { "type": "boolean" } }),
    );
    assert_eq!(response_schema(&document), json!({ "type": "boolean" }));
}

#[test]
fn recursive_schema_becomes_a_defs_reference() {
    let document = with_response_schema(
        json!({ "$ref": "#/components/schemas/Node" }),
        json!({ "Node": {
            "type": "object",
            "properties": {
                "name": { "type": "string" },
                "children": { "type": "array", "items": { "$ref": "#/components/schemas/Node" } }
            }
        } }),
    );
    let node = json!({
        "type": "object",
        "properties": {
            "name": { "type": "string" },
            "children": { "type": "array", "items": { "$ref": "#/$defs/Node" } }
        }
    });
    let mut expected = node.clone();
    expected["$defs"] = json!({ "Node": node });
    assert_eq!(response_schema(&document), expected);
}

#[test]
fn recursive_schema_under_an_array_gets_its_defs_at_the_root() {
    let document = with_response_schema(
        json!({ "type": "array", "items": { "$ref": "#/components/schemas/Node" } }),
        json!({ "Node": {
            "type": "object",
            "properties": { "next": { "$ref": "#/components/schemas/Node" } }
        } }),
    );
    let node = json!({ "type": "object", "properties": { "next": { "$ref": "#/$defs/Node" } } });
    assert_eq!(
        response_schema(&document),
        json!({ "type": "array", "items": node, "$defs": { "Node": node } })
    );
}

#[test]
fn ref_cycle_that_never_reaches_a_schema_is_an_error() {
    let document = with_response_schema(
        json!({ "$ref": "#/components/schemas/A" }),
        json!({
            "A": { "$ref": "#/components/schemas/B" },
            "B": { "$ref": "#/components/schemas/A" }
        }),
    );
    let (pointer, message) = Loader::new(&document).api(None).unwrap_err();
    assert_eq!(pointer, "/components/schemas/A");
    assert_eq!(
        message,
        "this `$ref` leads back to itself through other `$ref`s without ever reaching a schema"
    );
}

#[test]
fn ref_cycle_between_parameters_is_an_error() {
    let (pointer, message) = load_error(
        r#"
openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /a:
    get:
      operationId: getA
      parameters:
        - $ref: '#/components/parameters/A'
      responses: {}
components:
  parameters:
    A: { $ref: '#/components/parameters/B' }
    B: { $ref: '#/components/parameters/A' }
"#,
    );
    assert_eq!(pointer, "/paths/~1a/get/parameters/0");
    assert_eq!(message, "a chain of `$ref`s loops back on itself");
}

#[test]
fn dangling_ref_names_the_referring_location() {
    let document = with_response_schema(
        json!({
            "type": "object",
            "properties": { "owner": { "$ref": "#/components/schemas/Owner" } }
        }),
        json!({}),
    );
    let (pointer, message) = Loader::new(&document).api(None).unwrap_err();
    assert_eq!(
        pointer,
        "/paths/~1things/get/responses/200/content/application~1json/schema/properties/owner"
    );
    assert_eq!(
        message,
        "`$ref: #/components/schemas/Owner` points to nothing in this document"
    );

    let (pointer, message) = load_error(
        r#"
openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /a:
    get:
      operationId: getA
      parameters:
        - $ref: '#/components/parameters/Nope'
      responses: {}
"#,
    );
    assert_eq!(pointer, "/paths/~1a/get/parameters/0");
    assert!(message.contains("points to nothing"), "{message}");
}

#[test]
fn external_file_ref_is_refused_clearly() {
    let document = with_response_schema(json!({ "$ref": "common.yaml#/Pet" }), json!({}));
    let (pointer, message) = Loader::new(&document).api(None).unwrap_err();
    assert_eq!(
        pointer,
        "/paths/~1things/get/responses/200/content/application~1json/schema"
    );
    assert!(
        message.starts_with(
            "`$ref: common.yaml#/Pet` points into another file; external references are not supported yet"
        ),
        "{message}"
    );

    let (pointer, message) = load_error(
        r#"
openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /a:
    $ref: 'paths/a.yaml'
"#,
    );
    assert_eq!(pointer, "/paths/~1a");
    assert!(message.contains("points into another file"), "{message}");
}

// ---------------------------------------------------------------------------------------------
// Schemas: the 3.0 dialect rewritten, 3.1 kept

#[test]
fn nullable_becomes_a_type_array_with_null() {
    assert_eq!(
        convert(json!({ "type": "string", "nullable": true })),
        json!({ "type": ["string", "null"] })
    );
    assert_eq!(
        convert(json!({ "type": "string", "enum": ["a", "b"], "nullable": true })),
        json!({ "type": ["string", "null"], "enum": ["a", "b", null] })
    );
    assert_eq!(
        convert(json!({ "type": ["integer", "null"], "enum": [1, null], "nullable": true })),
        json!({ "type": ["integer", "null"], "enum": [1, null] })
    );
    assert_eq!(
        convert(json!({ "type": "string", "nullable": false })),
        json!({ "type": "string" })
    );
}

#[test]
fn nullable_without_type_becomes_any_of_with_null() {
    assert_eq!(
        convert(
            json!({ "oneOf": [{ "type": "string" }, { "type": "integer" }], "nullable": true })
        ),
        json!({
            "anyOf": [
                { "oneOf": [{ "type": "string" }, { "type": "integer" }] },
                { "type": "null" }
            ]
        })
    );
}

#[test]
fn example_becomes_examples() {
    assert_eq!(
        convert(json!({ "type": "integer", "example": 3 })),
        json!({ "type": "integer", "examples": [3] })
    );
    assert_eq!(
        convert(json!({ "type": "integer", "example": 3, "examples": [4] })),
        json!({ "type": "integer", "examples": [4] }),
        "explicit examples win"
    );
}

#[test]
fn boolean_exclusive_bounds_become_numeric() {
    assert_eq!(
        convert(json!({
            "type": "number",
            "minimum": 0,
            "exclusiveMinimum": true,
            "maximum": 10,
            "exclusiveMaximum": false
        })),
        json!({ "type": "number", "exclusiveMinimum": 0, "maximum": 10 })
    );
    assert_eq!(
        convert(json!({ "type": "number", "exclusiveMinimum": 5 })),
        json!({ "type": "number", "exclusiveMinimum": 5 }),
        "the 3.1 numeric form is kept"
    );
}

#[test]
fn openapi_only_keywords_are_dropped_but_x_mcp_header_is_kept() {
    assert_eq!(
        convert(json!({
            "type": "object",
            "discriminator": { "propertyName": "kind" },
            "xml": { "name": "pet" },
            "externalDocs": { "url": "https://example.com" },
            "x-foo": 1,
            "x-mcp-header": "Pet-Kind",
            "properties": {
                // An `$id` kept in a tool's schema made its `#/$defs/…` references point
                // inside it, and the schema did not compile.
                "owner": { "$id": "https://example.com/owner", "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string" },
                "xml": { "type": "string", "x-internal": true },
                "kind": { "type": "string", "x-mcp-header": "Kind" }
            }
        })),
        json!({
            "type": "object",
            "x-mcp-header": "Pet-Kind",
            "properties": {
                "owner": { "type": "string" },
                "xml": { "type": "string" },
                "kind": { "type": "string", "x-mcp-header": "Kind" }
            }
        })
    );
}

#[test]
fn json_schema_keywords_of_openapi_3_1_pass_through() {
    let schema = json!({
        "type": ["object", "null"],
        "properties": {
            "kind": { "const": "pet" },
            "point": { "type": "array", "prefixItems": [{ "type": "number" }, { "type": "number" }] },
            "tags": { "type": "array", "items": { "$ref": "#/$defs/Tag" } }
        },
        "$defs": { "Tag": { "type": "string", "minLength": 1 } }
    });
    let document = json!({ "$defs": { "Tag": { "type": "string", "minLength": 1 } } });
    let converted = SchemaConverter::new(&document, &SchemaContext::default())
        .convert_root(&schema, "/x")
        .unwrap();
    assert_eq!(converted["type"], json!(["object", "null"]));
    assert_eq!(converted["properties"]["kind"], json!({ "const": "pet" }));
    assert_eq!(
        converted["properties"]["point"],
        schema["properties"]["point"]
    );
    assert_eq!(converted["$defs"], schema["$defs"]);
}

#[test]
fn draft_4_tuple_items_become_prefix_items() {
    assert_eq!(
        convert(json!({ "type": "array", "items": [{ "type": "string" }, { "type": "integer" }] })),
        json!({ "type": "array", "prefixItems": [{ "type": "string" }, { "type": "integer" }] })
    );
}

#[test]
fn keywords_beside_a_ref_refine_the_referenced_schema() {
    let document = with_response_schema(
        json!({ "$ref": "#/components/schemas/Name", "description": "The pet's name.", "example": "Rex" }),
        json!({ "Name": { "type": "string", "maxLength": 20 } }),
    );
    assert_eq!(
        response_schema(&document),
        json!({ "type": "string", "maxLength": 20, "description": "The pet's name.", "examples": ["Rex"] })
    );
}

// ---------------------------------------------------------------------------------------------
// Bodies and responses

fn body_and_responses(request_content: &str, responses: &str) -> Operation {
    let text = format!(
        r#"
openapi: 3.0.3
info: {{ title: T, version: '1' }}
paths:
  /a:
    post:
      operationId: postA
      requestBody:
        content:
{request_content}
      responses:
{responses}
"#
    );
    api(&text).operations.remove(0)
}

#[test]
fn form_urlencoded_body_is_a_form_body() {
    let operation = body_and_responses(
        "          application/x-www-form-urlencoded:\n            schema: { type: object, properties: { a: { type: string } } }",
        "        '204': { description: done }",
    );
    let body = operation.body.expect("a body");
    assert_eq!(body.kind, BodyKind::Form);
    assert_eq!(body.content_type, "application/x-www-form-urlencoded");
    assert_eq!(
        *body.schema,
        json!({ "type": "object", "properties": { "a": { "type": "string" } } })
    );
    assert!(!body.required);
}

#[test]
fn json_body_is_preferred_among_several_content_types() {
    let operation = body_and_responses(
        "          text/plain:\n            schema: { type: string }\n          \
         application/x-www-form-urlencoded:\n            schema: { type: object }\n          \
         application/merge-patch+json:\n            schema: { type: object, properties: { b: { type: integer } } }",
        "        '204': { description: done }",
    );
    let body = operation.body.expect("a body");
    assert_eq!(body.kind, BodyKind::Json);
    assert_eq!(body.content_type, "application/merge-patch+json");
    assert_eq!(
        *body.schema,
        json!({ "type": "object", "properties": { "b": { "type": "integer" } } })
    );
}

#[test]
fn a_body_of_another_media_type_is_text() {
    let operation = body_and_responses(
        "          text/csv:\n            schema: { type: object }",
        "        '204': { description: done }",
    );
    let body = operation.body.expect("a body");
    assert_eq!(
        (body.kind, body.content_type.as_str()),
        (BodyKind::Text, "text/csv")
    );
    assert_eq!(*body.schema, json!({ "type": "string" }));
}

#[test]
fn first_2xx_response_is_the_success_and_its_json_schema_is_kept() {
    let operation = body_and_responses(
        "          application/json:\n            schema: { type: object }",
        "        default: { description: error }\n        \
         '400': { description: bad }\n        \
         '202':\n          description: accepted later\n        \
         '201':\n          description: created\n          content:\n            \
         text/plain:\n              schema: { type: string }\n            \
         application/json:\n              schema: { type: object, properties: { id: { type: integer } } }",
    );
    let success = operation.success.expect("a success response");
    assert_eq!(success.status, "201");
    assert_eq!(success.description.as_deref(), Some("created"));
    assert_eq!(
        success.schema.as_deref(),
        Some(&json!({ "type": "object", "properties": { "id": { "type": "integer" } } }))
    );
}

#[test]
fn a_success_without_json_content_has_no_schema() {
    let operation = body_and_responses(
        "          application/json:\n            schema: { type: object }",
        "        '200':\n          description: a picture\n          content:\n            \
         image/png:\n              schema: { type: string, format: binary }",
    );
    let success = operation.success.expect("a success response");
    assert_eq!(success.status, "200");
    assert_eq!(success.schema, None);
}

#[test]
fn no_2xx_response_means_no_success() {
    let operation = body_and_responses(
        "          application/json:\n            schema: { type: object }",
        "        '302': { description: elsewhere }\n        default: { description: error }",
    );
    assert!(operation.success.is_none());
}

// ---------------------------------------------------------------------------------------------
// Document-level facts

#[test]
fn security_schemes_of_every_supported_kind() {
    let api = api(r#"
openapi: 3.0.3
info: { title: T, version: '1' }
security:
  - bearer: []
  - basic: []
    header: []
paths: {}
components:
  securitySchemes:
    bearer: { type: http, scheme: Bearer, bearerFormat: JWT }
    basic: { type: http, scheme: basic }
    header: { type: apiKey, in: header, name: X-API-Key }
    query: { type: apiKey, in: query, name: api_key }
    cookie: { type: apiKey, in: cookie, name: session }
    machine:
      type: oauth2
      flows:
        clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: {} }
    user:
      type: oauth2
      flows:
        authorizationCode:
          authorizationUrl: 'https://auth.example/authorize'
          tokenUrl: 'https://auth.example/token'
          scopes: {}
    oidc: { type: openIdConnect, openIdConnectUrl: 'https://auth.example/.well-known' }
    digest: { type: http, scheme: digest }
    referenced: { $ref: '#/components/securitySchemes/bearer' }
"#);
    let api_key = |location, name: &str| SecurityScheme::ApiKey {
        location,
        name: name.into(),
    };
    let expected = [
        ("bearer", SecurityScheme::Bearer),
        ("basic", SecurityScheme::Basic),
        ("header", api_key(Location::Header, "X-API-Key")),
        ("query", api_key(Location::Query, "api_key")),
        ("cookie", api_key(Location::Cookie, "session")),
        (
            "machine",
            SecurityScheme::OAuth2ClientCredentials {
                token_url: "https://auth.example/token".into(),
            },
        ),
        ("user", SecurityScheme::Bearer),
        (
            "oidc",
            SecurityScheme::Unsupported {
                kind: "openIdConnect".into(),
            },
        ),
        (
            "digest",
            SecurityScheme::Unsupported {
                kind: "http digest".into(),
            },
        ),
        ("referenced", SecurityScheme::Bearer),
    ];
    let found: Vec<(&str, SecurityScheme)> = api
        .security_schemes
        .iter()
        .map(|(name, scheme)| (name.as_str(), scheme.clone()))
        .collect();
    assert_eq!(found, expected);
    assert_eq!(
        api.security,
        [
            vec!["bearer".to_string()],
            vec!["basic".to_string(), "header".to_string()]
        ]
    );
}

#[test]
fn server_variables_are_replaced_by_their_defaults() {
    let api = api(r#"
openapi: 3.0.3
info: { title: T, version: '1' }
servers:
  - url: 'https://{region}.api.example/{basePath}/{region}'
    variables:
      region: { default: eu, enum: [eu, us] }
      basePath: { default: v2 }
  - url: /relative
paths: {}
"#);
    assert_eq!(api.servers, ["https://eu.api.example/v2/eu", "/relative"]);
}

#[test]
fn swagger_versions_other_than_2_0_are_refused_naming_the_version() {
    let (pointer, message) =
        load_error("swagger: '1.2'\ninfo: { title: T, version: '1' }\npaths: {}\n");
    assert_eq!(pointer, "/swagger");
    assert_eq!(
        message,
        r#"Swagger version "1.2" is not supported; mcpgen reads Swagger 2.0, OpenAPI 3.0.x and 3.1.x"#
    );
    // `swagger: 2.0` unquoted is a YAML number, and still 2.0.
    let api = api("swagger: 2.0\ninfo: { title: T, version: '1' }\npaths: {}\n");
    assert!(api.operations.is_empty());
}

#[test]
fn openapi_3_2_is_refused_naming_the_version() {
    let (pointer, message) =
        load_error("openapi: 3.2.0\ninfo: { title: T, version: '1' }\npaths: {}\n");
    assert_eq!(pointer, "/openapi");
    assert_eq!(
        message,
        r#"OpenAPI version "3.2.0" is not supported; mcpgen reads OpenAPI 3.0.x and 3.1.x"#
    );
}

#[test]

fn an_openapi_version_written_as_a_number_is_named_in_the_error() {
    // `openapi: 3.1` is a YAML number; the message must still say which version it read.
    let (pointer, message) =
        load_error("openapi: 3.1\ninfo: { title: T, version: '1' }\npaths: {}\n");
    assert_eq!(pointer, "/openapi");
    let named = message.split(';').next().unwrap_or_default();
    assert!(named.contains("3.1"), "{message}");
}

#[test]
fn a_major_minor_openapi_version_is_told_to_name_the_full_release() {
    for (field, written, suggested) in [
        ("3.0", "3.0", "3.0.3"),
        ("'3.0'", "3.0", "3.0.3"),
        ("3.1", "3.1", "3.1.1"),
    ] {
        let (pointer, message) = load_error(&format!(
            "openapi: {field}\ninfo: {{ title: T, version: '1' }}\npaths: {{}}\n"
        ));
        assert_eq!(pointer, "/openapi");
        assert_eq!(
            message,
            format!(
                "`openapi: {written}` is not a full version: the field names the release of the specification the document follows, major.minor.patch — write `openapi: {suggested}` (or the {written}.x release the document was written for)"
            ),
            "{field}"
        );
    }
}

#[test]
fn a_document_without_operations_mentions_webhooks_only_when_it_has_some() {
    let without = load_text(
        Path::new("none.yaml"),
        "openapi: 3.1.0\ninfo: { title: T, version: '1' }\npaths: {}\nwebhooks: {}\n",
    )
    .unwrap_err();
    assert_eq!(
        without.message,
        "the document describes no operations, so an MCP server made from it would have no tools; add operations under `paths`"
    );
    for webhooks in [
        "webhooks: { ping: { post: {} } }",
        "x-webhooks: { ping: { post: {} } }",
    ] {
        for text in [
            format!(
                "openapi: 3.1.0\ninfo: {{ title: T, version: '1' }}\npaths: {{}}\n{webhooks}\n"
            ),
            format!(
                r#"{{"openapi": "3.1.0", "info": {{"title": "T", "version": "1"}}, "paths": {{}}, "{}": {{"ping": {{}}}}}}"#,
                webhooks.split(':').next().unwrap()
            ),
        ] {
            let with = load_text(Path::new("hooks.yaml"), &text).unwrap_err();
            assert_eq!(
                with.message,
                "the document describes no operations (webhooks are requests the API sends, not calls a server can make), so an MCP server made from it would have no tools; add operations under `paths`",
                "{text}"
            );
        }
    }
}

#[test]
fn openapi_3_1_documents_load() {
    let api = api("openapi: 3.1.1\ninfo: { title: T, version: '1' }\npaths: {}\n");
    assert!(api.operations.is_empty());
}

#[test]
fn a_document_that_is_not_a_mapping_is_refused() {
    for text in ["- 1\n- 2\n", "just text\n", "42\n", ""] {
        let (pointer, message) = load_error(text);
        assert_eq!(pointer, "", "{text:?}");
        assert_eq!(
            message, "not an OpenAPI document: the top level is not a mapping",
            "{text:?}"
        );
    }
}

#[test]
fn a_mapping_without_an_openapi_field_is_refused() {
    let (pointer, message) = load_error("a: 1\n");
    assert_eq!(pointer, "");
    assert_eq!(
        message,
        "not an OpenAPI document: it has no `openapi` version field (`openapi: 3.0.x` or `3.1.x`, \
         or `swagger: \"2.0\"` for Swagger 2.0)"
    );
}

#[test]
fn a_curation_file_given_as_the_spec_is_named_as_one() {
    let (pointer, message) = load_error("server:\n  name: tracker\ntools:\n  - name: x\n");
    assert_eq!(pointer, "");
    assert!(
        message.ends_with(
            "; it has `server:` and no `paths:`, like an mcpgen curation file: give the API \
             description as SPEC and the curation file with -c (`mcpgen build SPEC -c CURATION`)"
        ),
        "{message}"
    );
}

#[test]
fn a_document_with_paths_is_not_taken_for_a_curation_file() {
    let (_, message) = load_error("tools: []\npaths: {}\n");
    assert!(!message.contains("curation"), "{message}");
}

// ---------------------------------------------------------------------------------------------
// Reading the file

#[test]
fn load_reads_a_yaml_file_and_a_json_file() {
    let (_dir, yaml) = write_temp("pets.yaml", PETS_YAML.as_bytes());
    let (_dir2, json) = write_temp("pets.json", PETS_JSON.as_bytes());
    let mut from_yaml = load(&yaml).expect("the YAML file loads");
    let mut from_json = load(&json).expect("the JSON file loads");
    // The same place is on other lines of the two texts.
    for api in [&mut from_yaml, &mut from_json] {
        for warning in &mut api.warnings {
            assert!(warning.position.is_some(), "{warning:?}");
            warning.position = None;
        }
    }
    assert_eq!(format!("{from_yaml:?}"), format!("{from_json:?}"));
}

#[test]
fn a_non_utf8_file_is_an_error_mentioning_utf8() {
    let (_dir, path) = write_temp("latin1.yaml", b"openapi: 3.0.3\ninfo:\n  title: caf\xe9\n");
    let error = load(&path).unwrap_err();
    assert_eq!(error.file, path);
    assert_eq!(error.pointer, None);
    assert_eq!(
        error.message,
        "the file is not UTF-8 text (invalid byte at offset 33); save it as UTF-8"
    );
}

/// A file of a megabyte or more is mapped rather than read (`read_bytes`): it loads as its text
/// does, and a byte that is not UTF-8 near its end is told at its offset.
#[test]
fn a_large_file_is_mapped_and_loads_as_its_text_does() {
    let padding = format!("x-padding: '{}'\n", "p".repeat(1 << 20));
    let text = format!(
        "openapi: 3.0.3\ninfo:\n  title: Big\n  version: '1'\n{padding}paths:\n  /a:\n    get:\n      operationId: getA\n      responses:\n        '200':\n          description: ok\n"
    );
    assert!(text.len() as u64 >= 1 << 20);
    let (_dir, path) = write_temp("big.yaml", text.as_bytes());
    let from_file = load(&path).unwrap();
    let from_text = load_text(&path, &text).unwrap();
    assert_eq!(format!("{from_file:?}"), format!("{from_text:?}"));
    assert_eq!(from_file.operations.len(), 1);

    let mut latin1 = text.into_bytes();
    let at = latin1.len() - 3;
    latin1[at] = 0xe9;
    let (_dir, path) = write_temp("big-latin1.yaml", &latin1);
    assert_eq!(
        load(&path).unwrap_err().message,
        format!("the file is not UTF-8 text (invalid byte at offset {at}); save it as UTF-8")
    );
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nope.yaml");
    let error = load(&path).unwrap_err();
    assert_eq!(error.file, path);
    assert!(
        error.message.starts_with("cannot read the file: "),
        "{}",
        error.message
    );
}

#[test]
fn load_errors_show_the_file_the_pointer_and_the_message() {
    let (_dir, path) = write_temp("one.yaml", b"swagger: '1.2'\n");
    let error = load(&path).unwrap_err();
    assert_eq!(error.pointer.as_deref(), Some("/swagger"));
    assert!(
        error.to_string().starts_with(&format!(
            "{} at /swagger: Swagger version \"1.2\" ",
            path.display()
        )),
        "{error}"
    );
    let (_dir, path) = write_temp("list.yaml", b"- 1\n");
    assert_eq!(
        load(&path).unwrap_err().to_string(),
        format!(
            "{} at /: not an OpenAPI document: the top level is not a mapping",
            path.display()
        )
    );
    let (_dir, path) = write_temp("bad.json", b"{\"a\":");
    let error = load(&path).unwrap_err();
    assert_eq!(error.pointer, None);
    assert!(
        error
            .to_string()
            .starts_with(&format!("{}: not valid JSON: ", path.display()))
    );
}

// ---------------------------------------------------------------------------------------------
// External file `$ref`s, bundled before loading

/// Writes `files` (relative path, text) into a new temporary folder.
fn write_tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

const ROOT_WITH_EXTERNAL_SCHEMA: &str = r#"
openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /a:
    get:
      responses:
        '200':
          description: ok
          content: { application/json: { schema: { $ref: 'a.yaml' } } }
components:
  schemas:
    Local: { type: string, enum: [x] }
"#;

#[test]
fn a_ref_cycle_across_files_ends_and_stays_a_recursive_reference() {
    let dir = write_tree(&[
        ("api/openapi.yaml", ROOT_WITH_EXTERNAL_SCHEMA),
        (
            "api/a.yaml",
            "type: object\nproperties:\n  b: { $ref: 'sub/b.yaml' }\n",
        ),
        (
            "api/sub/b.yaml",
            "type: object\nproperties:\n  a: { $ref: '../a.yaml' }\n  local: { $ref: '../openapi.yaml#/components/schemas/Local' }\n",
        ),
    ]);
    let api = load(&dir.path().join("api/openapi.yaml")).expect("it loads");
    let schema = api.operations[0]
        .success
        .as_ref()
        .unwrap()
        .schema
        .clone()
        .unwrap();
    assert_eq!(
        schema["properties"]["b"]["properties"]["a"],
        json!({ "$ref": "#/$defs/a" })
    );
    assert_eq!(
        schema["properties"]["b"]["properties"]["local"],
        json!({ "type": "string", "enum": ["x"] }),
        "a ref back into the root document is a local ref"
    );
    assert!(
        schema["$defs"]["a"]["properties"]["b"].is_object(),
        "{schema}"
    );
}

#[test]
fn a_ref_to_a_file_that_is_not_yaml_or_json_is_refused() {
    let dir = write_tree(&[
        (
            "openapi.yaml",
            &ROOT_WITH_EXTERNAL_SCHEMA.replace("a.yaml", "secret.txt"),
        ),
        ("secret.txt", "type: string\n"),
    ]);
    let error = load(&dir.path().join("openapi.yaml")).unwrap_err();
    assert_eq!(
        error.message,
        "`$ref: secret.txt` names a file that is not .yaml, .yml or .json; mcpgen reads only OpenAPI fragments from such files"
    );
}

#[test]
fn a_ref_to_nothing_in_another_file_names_that_file() {
    let dir = write_tree(&[
        (
            "openapi.yaml",
            &ROOT_WITH_EXTERNAL_SCHEMA.replace("a.yaml", "a.yaml#/Nope"),
        ),
        ("a.yaml", "Pet: { type: string }\n"),
    ]);
    let error = load(&dir.path().join("openapi.yaml")).unwrap_err();
    assert_eq!(error.file, dir.path().join("openapi.yaml"));
    assert_eq!(
        error.pointer.as_deref(),
        Some("/paths/~1a/get/responses/200/content/application~1json/schema")
    );
    assert_eq!(
        error.message,
        format!(
            "`$ref: a.yaml#/Nope` points to nothing in {}",
            dir.path().join("a.yaml").display()
        )
    );
}

#[test]
fn an_error_in_a_referenced_file_names_that_file_and_the_pointer_in_it() {
    let dir = write_tree(&[
        ("openapi.yaml", ROOT_WITH_EXTERNAL_SCHEMA),
        (
            "a.yaml",
            "type: object\nproperties:\n  b: { $ref: 'http://example.com/b.yaml' }\n",
        ),
    ]);
    let error = load(&dir.path().join("openapi.yaml")).unwrap_err();
    assert_eq!(error.file, dir.path().join("a.yaml"));
    assert_eq!(error.pointer.as_deref(), Some("/properties/b"));
    assert!(error.message.contains("points to a URL"), "{error}");
}

// ---------------------------------------------------------------------------------------------
// Swagger 2.0, converted to OpenAPI 3.0 before loading

/// What `text` (a Swagger 2.0 document) becomes.
fn upgraded(text: &str) -> Value {
    upgrade(parse_text(text).expect("the test document parses")).expect("it converts")
}

/// A Swagger 2.0 document with `rest` (YAML at the top level) after `info`.
fn swagger(rest: &str) -> String {
    format!("swagger: '2.0'\ninfo: {{ title: T, version: '1' }}\n{rest}")
}

#[test]
fn swagger_host_base_path_and_schemes_become_servers_https_first() {
    let api = self::api(&swagger(
        "host: api.example.com\nbasePath: /v1/\nschemes: [http, https]\npaths: {}\n",
    ));
    assert_eq!(
        api.servers,
        ["https://api.example.com/v1", "http://api.example.com/v1"]
    );
    let api = self::api(&swagger("host: api.example.com\npaths: {}\n"));
    assert_eq!(api.servers, ["https://api.example.com"]);
    let api = self::api(&swagger("basePath: /v2\npaths: {}\n"));
    assert_eq!(api.servers, ["/v2"]);
    let document = upgraded(&swagger("paths: {}\n"));
    assert_eq!(document["openapi"], "3.0.3");
    assert!(document.get("servers").is_none() && document.get("swagger").is_none());
}

#[test]
fn swagger_definitions_become_component_schemas_and_refs_follow() {
    let text = swagger(
        r#"
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        '200':
          description: ok
          schema: { type: array, items: { $ref: '#/definitions/Pet' } }
definitions:
  Pet:
    type: object
    properties:
      name: { type: string }
      parent: { $ref: '#/definitions/Pet' }
"#,
    );
    let document = upgraded(&text);
    assert_eq!(
        document["components"]["schemas"]["Pet"]["properties"]["parent"],
        json!({ "$ref": "#/components/schemas/Pet" })
    );
    assert!(document.get("definitions").is_none());
    let api = self::api(&text);
    let schema = api.operations[0]
        .success
        .as_ref()
        .unwrap()
        .schema
        .clone()
        .unwrap();
    assert_eq!(
        schema["items"]["properties"]["name"],
        json!({ "type": "string" })
    );
    assert_eq!(
        schema["items"]["properties"]["parent"],
        json!({ "$ref": "#/$defs/Pet" })
    );
}

#[test]
fn swagger_parameter_keywords_move_into_a_schema_and_shared_parameters_become_components() {
    let text = swagger(
        r#"
paths:
  /pets:
    get:
      operationId: listPets
      parameters:
        - $ref: '#/parameters/limit'
        - name: tags
          in: query
          description: the tags
          type: array
          collectionFormat: csv
          items: { type: string, enum: [a, b], collectionFormat: pipes }
        - { name: X-Trace, in: header, type: string, required: true }
      responses: { '204': { description: none } }
parameters:
  limit: { name: limit, in: query, type: integer, format: int32, default: 20, maximum: 100 }
  body: { name: body, in: body, schema: { type: object } }
"#,
    );
    let document = upgraded(&text);
    assert_eq!(
        document["components"]["parameters"],
        json!({ "limit": {
            "name": "limit", "in": "query",
            "schema": { "type": "integer", "format": "int32", "default": 20, "maximum": 100 }
        } }),
        "a body parameter is no component parameter in 3.0"
    );
    let operation = &document["paths"]["/pets"]["get"];
    assert_eq!(
        operation["parameters"][0],
        json!({ "$ref": "#/components/parameters/limit" })
    );
    assert_eq!(
        operation["parameters"][1],
        json!({ "name": "tags", "in": "query", "description": "the tags", "style": "form", "explode": false, "schema": {
            "type": "array", "items": { "type": "string", "enum": ["a", "b"] }
        } }),
        "collectionFormat csv is style form, not exploded"
    );
    let api = self::api(&text);
    let operation = &api.operations[0];
    assert_eq!(parameter(operation, "limit").schema["maximum"], 100);
    assert_eq!(parameter(operation, "X-Trace").location, Location::Header);
    assert!(parameter(operation, "X-Trace").required);
}

#[test]
fn swagger_body_parameter_becomes_a_request_body_of_the_consumed_media_types() {
    let body = r#"
paths:
  /pets:
    post:
      operationId: addPet
      CONSUMES
      parameters:
        - { name: pet, in: body, required: true, description: the pet, schema: { $ref: '#/definitions/Pet' } }
      responses: { '201': { description: created } }
definitions:
  Pet: { type: object, properties: { name: { type: string } } }
"#;
    let api = self::api(&swagger(&body.replace("CONSUMES", "")));
    let request = api.operations[0].body.as_ref().expect("a body");
    assert_eq!(request.kind, BodyKind::Json);
    assert_eq!(request.content_type, "application/json");
    assert!(request.required);
    assert_eq!(request.description.as_deref(), Some("the pet"));
    assert_eq!(
        request.schema["properties"]["name"],
        json!({ "type": "string" })
    );

    let api = self::api(&swagger(&body.replace(
        "CONSUMES",
        "consumes: [application/xml, application/vnd.pet+json]",
    )));
    let request = api.operations[0].body.as_ref().expect("a body");
    assert_eq!(request.content_type, "application/vnd.pet+json");

    // The document's `consumes` applies when the operation has none (Stripe: form-encoded).
    let text = format!(
        "consumes: [application/x-www-form-urlencoded]\n{}",
        body.replace("CONSUMES", "")
    );
    let api = self::api(&swagger(&text));
    let request = api.operations[0].body.as_ref().expect("a body");
    assert_eq!(request.kind, BodyKind::Form);
    assert_eq!(request.content_type, "application/x-www-form-urlencoded");
}

#[test]
fn swagger_body_parameters_by_ref_and_from_the_path_item_become_request_bodies() {
    let text = swagger(
        r#"
paths:
  /pets:
    parameters:
      - { name: pet, in: body, schema: { type: object, properties: { a: { type: string } } } }
    put:
      operationId: replacePet
      responses: { '204': { description: none } }
    post:
      operationId: addPet
      parameters:
        - $ref: '#/parameters/NewPet'
      responses: { '204': { description: none } }
parameters:
  NewPet: { name: pet, in: body, schema: { type: object, properties: { b: { type: string } } } }
"#,
    );
    let document = upgraded(&text);
    assert!(document["paths"]["/pets"].get("parameters").is_none());
    let api = self::api(&text);
    let put = &api.operations[0];
    assert!(
        put.body.as_ref().unwrap().schema["properties"]
            .get("a")
            .is_some()
    );
    let post = &api.operations[1];
    assert!(
        post.body.as_ref().unwrap().schema["properties"]
            .get("b")
            .is_some()
    );
}

#[test]
fn swagger_form_data_parameters_become_a_form_body() {
    let text = swagger(
        r#"
paths:
  /pets/{id}:
    post:
      operationId: updatePet
      consumes: [application/x-www-form-urlencoded, application/json]
      parameters:
        - { name: id, in: path, required: true, type: integer }
        - { name: name, in: formData, required: true, type: string, description: new name }
        - { name: tags, in: formData, type: array, items: { type: string }, collectionFormat: multi }
      responses: { '200': { description: ok } }
"#,
    );
    let api = self::api(&text);
    let operation = &api.operations[0];
    assert_eq!(operation.parameters.len(), 1);
    let body = operation.body.as_ref().expect("a form body");
    assert_eq!(body.kind, BodyKind::Form);
    assert_eq!(body.content_type, "application/x-www-form-urlencoded");
    assert!(body.required);
    assert_eq!(
        *body.schema,
        json!({
            "type": "object",
            "properties": {
                "name": { "type": "string", "description": "new name" },
                "tags": { "type": "array", "items": { "type": "string" } }
            },
            "required": ["name"]
        })
    );
}

#[test]
fn swagger_file_parameters_or_a_multipart_consumes_make_a_multipart_body() {
    let document = upgraded(&swagger(
        r#"
paths:
  /upload:
    post:
      parameters:
        - { name: file, in: formData, type: file }
        - { name: note, in: formData, type: string }
      responses: { '200': { description: ok } }
  /note:
    post:
      consumes: [multipart/form-data]
      parameters:
        - { name: note, in: formData, type: string }
      responses: { '200': { description: ok } }
"#,
    ));
    assert_eq!(
        document["paths"]["/upload"]["post"]["requestBody"],
        json!({ "content": { "multipart/form-data": { "schema": {
            "type": "object",
            "properties": {
                "file": { "type": "string", "format": "binary" },
                "note": { "type": "string" }
            }
        } } } })
    );
    let note = &document["paths"]["/note"]["post"]["requestBody"]["content"];
    assert!(note.get("multipart/form-data").is_some(), "{note}");
}

#[test]
fn swagger_response_schemas_become_content_of_the_produced_media_types() {
    let document = upgraded(&swagger(
        r#"
produces: [application/json, application/xml]
paths:
  /a:
    get:
      responses:
        '200':
          description: ok
          schema: { type: string }
          examples: { application/json: "hello" }
          headers: { X-Rate: { type: integer, description: left } }
        default: { $ref: '#/responses/Error' }
  /b:
    get:
      produces: [text/plain]
      responses:
        '200': { description: ok, schema: { type: file } }
        default: { $ref: '#/responses/Error' }
responses:
  Error: { description: failed, schema: { type: object } }
"#,
    ));
    let a = &document["paths"]["/a"]["get"]["responses"];
    assert_eq!(
        a["200"],
        json!({
            "description": "ok",
            "headers": { "X-Rate": { "description": "left", "schema": { "type": "integer" } } },
            "content": {
                "application/json": { "schema": { "type": "string" }, "example": "hello" },
                "application/xml": { "schema": { "type": "string" } }
            }
        })
    );
    assert_eq!(
        a["default"],
        json!({ "$ref": "#/components/responses/Error" })
    );
    assert_eq!(
        document["components"]["responses"]["Error"]["content"]["application/xml"],
        json!({ "schema": { "type": "object" } })
    );
    let b = &document["paths"]["/b"]["get"]["responses"];
    assert_eq!(
        b["200"]["content"],
        json!({ "text/plain": { "schema": { "type": "string", "format": "binary" } } })
    );
    // The shared response is inlined with the operation's own `produces`.
    assert_eq!(
        b["default"]["content"],
        json!({ "text/plain": { "schema": { "type": "object" } } })
    );
    let api = self::api(&swagger(
        "paths:\n  /a:\n    get:\n      responses:\n        '200': { description: ok, schema: { type: integer } }\n",
    ));
    let success = api.operations[0].success.as_ref().unwrap();
    assert_eq!(
        success.schema.as_deref(),
        Some(&json!({ "type": "integer" })),
        "application/json by default"
    );
}

#[test]
fn swagger_security_definitions_become_security_schemes() {
    let text = swagger(
        r#"
paths: {}
security: [{ key: [] }]
securityDefinitions:
  basic: { type: basic, description: user and password }
  key: { type: apiKey, in: query, name: api_key }
  machine: { type: oauth2, flow: application, tokenUrl: 'https://auth.example/token', scopes: { read: read } }
  user: { type: oauth2, flow: accessCode, authorizationUrl: 'https://auth.example/a', tokenUrl: 'https://auth.example/t', scopes: {} }
  browser: { type: oauth2, flow: implicit, authorizationUrl: 'https://auth.example/a', scopes: {} }
  robot: { type: oauth2, flow: password, tokenUrl: 'https://auth.example/t', scopes: {} }
"#,
    );
    let schemes = &upgraded(&text)["components"]["securitySchemes"];
    assert_eq!(
        schemes["basic"],
        json!({ "type": "http", "scheme": "basic", "description": "user and password" })
    );
    assert_eq!(
        schemes["key"],
        json!({ "type": "apiKey", "in": "query", "name": "api_key" })
    );
    assert_eq!(
        schemes["machine"],
        json!({ "type": "oauth2", "flows": { "clientCredentials": {
            "tokenUrl": "https://auth.example/token", "scopes": { "read": "read" }
        } } })
    );
    assert_eq!(
        schemes["user"]["flows"]["authorizationCode"],
        json!({ "authorizationUrl": "https://auth.example/a", "tokenUrl": "https://auth.example/t", "scopes": {} })
    );
    assert!(schemes["browser"]["flows"]["implicit"].is_object());
    assert!(schemes["robot"]["flows"]["password"].is_object());
    let api = self::api(&text);
    assert_eq!(api.security, [vec!["key".to_string()]]);
    assert_eq!(api.security_schemes["basic"], SecurityScheme::Basic);
    assert_eq!(
        api.security_schemes["key"],
        SecurityScheme::ApiKey {
            location: Location::Query,
            name: "api_key".into()
        }
    );
    assert_eq!(
        api.security_schemes["machine"],
        SecurityScheme::OAuth2ClientCredentials {
            token_url: "https://auth.example/token".into()
        }
    );
    assert_eq!(api.security_schemes["user"], SecurityScheme::Bearer);
}

#[test]
fn swagger_x_nullable_becomes_nullable() {
    let api = self::api(&swagger(
        r#"
paths:
  /a:
    get:
      parameters:
        - { name: q, in: query, type: string, x-nullable: true }
      responses:
        '200':
          description: ok
          schema: { $ref: '#/definitions/Thing' }
definitions:
  Thing:
    type: object
    properties:
      note: { type: string, x-nullable: true }
"#,
    ));
    let operation = &api.operations[0];
    assert_eq!(
        parameter(operation, "q").schema["type"],
        json!(["string", "null"])
    );
    let schema = operation.success.as_ref().unwrap().schema.clone().unwrap();
    assert_eq!(
        schema["properties"]["note"],
        json!({ "type": ["string", "null"] })
    );
}

/// A 3.x document with one `POST /upload` whose request body is `content`.
fn with_body(openapi: &str, content: Value) -> Value {
    json!({
        "openapi": openapi,
        "info": { "title": "Uploads", "version": "1" },
        "paths": { "/upload": { "post": {
            "operationId": "upload",
            "requestBody": { "required": true, "content": content },
            "responses": { "204": { "description": "done" } }
        } } }
    })
}

#[test]
fn a_multipart_body_turns_binary_properties_into_file_arguments() {
    let document = with_body(
        "3.0.3",
        json!({ "multipart/form-data": { "schema": {
            "type": "object",
            "required": ["file"],
            "properties": {
                "title": { "type": "string" },
                "file": { "type": "string", "format": "binary", "description": "The document." },
                "pages": { "type": "array", "items": { "type": "string", "format": "binary" } },
                "checksum": { "type": "string", "format": "byte" }
            }
        } } }),
    );
    let api = Loader::new(&document)
        .api(None)
        .expect("the document loads");
    let body = api.operations[0].body.as_ref().expect("a body");
    assert_eq!(body.kind, BodyKind::Multipart);
    assert_eq!(body.content_type, "multipart/form-data");
    assert_eq!(
        body.files,
        ["file", "pages"],
        "binary strings are files; base64 `byte` is text"
    );
    let properties = &body.schema["properties"];
    assert_eq!(properties["title"], json!({ "type": "string" }));
    assert_eq!(
        properties["checksum"],
        json!({ "type": "string", "format": "byte" })
    );
    let file = &properties["file"];
    assert_eq!(file["type"], "object");
    assert!(
        file["description"]
            .as_str()
            .is_some_and(|d| d.starts_with("The document. A file: give `content_base64`")),
        "{file}"
    );
    assert_eq!(
        file["properties"]["content_base64"]["contentEncoding"],
        "base64"
    );
    assert_eq!(file["additionalProperties"], false);
    assert_eq!(properties["pages"]["type"], "array");
    assert_eq!(
        properties["pages"]["items"]["properties"]["path"]["type"],
        "string"
    );
}

#[test]
fn a_3_1_multipart_body_knows_files_by_their_content_media_type() {
    let document = with_body(
        "3.1.0",
        json!({ "multipart/form-data": { "schema": {
            "type": "object",
            "properties": {
                "avatar": { "type": "string", "contentMediaType": "image/png" },
                "name": { "type": "string" }
            }
        } } }),
    );
    let api = Loader::new(&document)
        .api(None)
        .expect("the document loads");
    let body = api.operations[0].body.as_ref().expect("a body");
    assert_eq!(body.files, ["avatar"]);
    let plan = plan::plan(&api, &plan::Options::default(), None).expect("it plans");
    let tool = plan.tools[0].definition();
    assert_eq!(
        tool["inputSchema"]["properties"]["avatar"]["type"], "object",
        "{tool}"
    );
    assert_eq!(
        tool["inputSchema"]["properties"]["name"]["type"], "string",
        "{tool}"
    );
}

#[test]
fn json_wins_over_form_and_form_over_multipart_when_a_body_offers_several() {
    let string_body =
        json!({ "schema": { "type": "object", "properties": { "a": { "type": "string" } } } });
    let document = with_body(
        "3.0.3",
        json!({ "multipart/form-data": string_body, "application/x-www-form-urlencoded": string_body }),
    );
    let api = Loader::new(&document)
        .api(None)
        .expect("the document loads");
    assert_eq!(
        api.operations[0].body.as_ref().map(|b| b.kind),
        Some(BodyKind::Form)
    );
}

/// A document whose `Node0` has `width` properties each referring to `Node1`, and so on down to
/// `Node{depth}`: inlined in full it has `width^depth` copies of the last one.
fn wide_graph(width: usize, depth: usize) -> Value {
    let mut schemas = serde_json::Map::new();
    for level in 0..depth {
        let properties: serde_json::Map<String, Value> = (0..width)
            .map(|i| {
                (
                    format!("p{i}"),
                    json!({ "$ref": format!("#/components/schemas/Node{}", level + 1) }),
                )
            })
            .collect();
        schemas.insert(
            format!("Node{level}"),
            json!({ "type": "object", "description": format!("Level {level}."), "properties": properties }),
        );
    }
    schemas.insert(
        format!("Node{depth}"),
        json!({ "type": "object", "properties": { "leaf": { "type": "string" } } }),
    );
    with_response_schema(
        json!({ "$ref": "#/components/schemas/Node0" }),
        Value::Object(schemas),
    )
}

#[test]
fn schemas_that_refer_to_each_other_many_times_convert_to_a_bounded_size() {
    // 10^8 leaves if every reference were inlined.
    let schema = response_schema(&wide_graph(10, 8));
    let size = schema.to_string().len();
    assert!(size < 200_000, "the converted schema has {size} bytes");
    // Shared large schemas are defined once under `$defs`.
    let text = schema.to_string();
    assert!(text.contains("#/$defs/Node"), "{text:.600}");
    // Whatever is referenced is defined.
    let defs = schema["$defs"].as_object().expect("$defs");
    for name in text.match_indices("#/$defs/").map(|(at, _)| {
        text[at + 8..]
            .split('"')
            .next()
            .unwrap_or_default()
            .to_string()
    }) {
        assert!(defs.contains_key(&name), "#/$defs/{name} is not defined");
    }
}

#[test]
fn a_small_schema_used_many_times_stays_inline() {
    let schemas = json!({
        "Id": { "type": "string", "format": "uuid" },
        "Pair": { "type": "object", "properties": {
            "a": { "$ref": "#/components/schemas/Id" },
            "b": { "$ref": "#/components/schemas/Id" }
        } }
    });
    let schema = response_schema(&with_response_schema(
        json!({ "$ref": "#/components/schemas/Pair" }),
        schemas,
    ));
    assert_eq!(
        schema,
        json!({ "type": "object", "properties": {
            "a": { "type": "string", "format": "uuid" },
            "b": { "type": "string", "format": "uuid" }
        } })
    );
}

#[test]
fn a_large_schema_used_twice_in_one_root_is_defined_once_under_defs() {
    let properties: serde_json::Map<String, Value> = (0..80)
        .map(|i| {
            (
                format!("field{i}"),
                json!({ "type": "string", "description": "text" }),
            )
        })
        .collect();
    let schemas = json!({
        "Big": { "type": "object", "properties": properties },
        "Pair": { "type": "object", "properties": {
            "first": { "$ref": "#/components/schemas/Big" },
            "second": { "$ref": "#/components/schemas/Big" }
        } }
    });
    let schema = response_schema(&with_response_schema(
        json!({ "$ref": "#/components/schemas/Pair" }),
        schemas,
    ));
    assert_eq!(
        schema["properties"]["first"],
        json!({ "$ref": "#/$defs/Big" })
    );
    assert_eq!(
        schema["properties"]["second"],
        json!({ "$ref": "#/$defs/Big" })
    );
    assert_eq!(
        schema["$defs"]["Big"]["properties"]
            .as_object()
            .map(|p| p.len()),
        Some(80)
    );
}

#[test]
fn a_tree_of_distinct_schemas_is_cut_off_at_the_budget_with_schemas_that_name_what_they_stand_for()
{
    // T has 6 properties, each a distinct schema with 6 properties, five levels down: 6^5 schemas.
    let mut schemas = serde_json::Map::new();
    fn add(schemas: &mut serde_json::Map<String, Value>, name: String, level: usize) {
        let properties: serde_json::Map<String, Value> = if level == 5 {
            [("leaf".to_string(), json!({ "type": "integer" }))]
                .into_iter()
                .collect()
        } else {
            (0..6)
                .map(|i| {
                    let child = format!("{name}_{i}");
                    add(schemas, child.clone(), level + 1);
                    (
                        format!("p{i}"),
                        json!({ "$ref": format!("#/components/schemas/{child}") }),
                    )
                })
                .collect()
        };
        schemas.insert(
            name.clone(),
            json!({ "type": "object", "description": format!("The {name} part.\nMore."), "properties": properties }),
        );
    }
    add(&mut schemas, "T".into(), 0);
    let schema = response_schema(&with_response_schema(
        json!({ "$ref": "#/components/schemas/T" }),
        Value::Object(schemas),
    ));
    let text = schema.to_string();
    assert!(
        text.len() < 100_000,
        "the converted schema has {} bytes",
        text.len()
    );
    assert_eq!(
        schema["description"], "The T part.\nMore.",
        "the root is inlined"
    );
    // Depth first: the first branch is whole, a later one is cut off.
    assert!(
        text.contains(r#""description":"The T_0_0_0_0_0 part.\nMore.""#),
        "{text:.600}"
    );
    let stub = text
        .find(r#"{"type":"object","description":"A T_"#)
        .map(|at| &text[at..at + text[at..].find('}').unwrap_or(0) + 1]);
    let stub = stub.expect("a cut-off schema keeps its type and names what it stands for");
    let name = stub
        .split("A ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .unwrap_or_default();
    // In an answer it also names the schema it stands for, for a curation file that reads
    // fields inside it (`load::expand_stubs`); `x-` keywords are left out of what is published.
    assert_eq!(
        stub,
        format!(
            r#"{{"type":"object","description":"A {name}: The {name} part.","x-mcpgen-stub-of":"/components/schemas/{name}"}}"#
        )
    );
}

#[test]
fn parameter_styles_other_than_the_default_are_kept_with_explode() {
    let api = api(r#"
openapi: 3.0.3
info: { title: Styles, version: '1' }
paths:
  /things/{ids}:
    get:
      operationId: getThings
      parameters:
        - { name: ids, in: path, required: true, style: matrix, explode: true, schema: { type: array, items: { type: integer } } }
        - { name: tags, in: query, schema: { type: array, items: { type: string } } }
        - { name: csv, in: query, explode: false, schema: { type: array, items: { type: string } } }
        - { name: pipes, in: query, style: pipeDelimited, schema: { type: array, items: { type: string } } }
        - { name: filter, in: query, style: deepObject, explode: true, schema: { type: object } }
        - { name: X-Ids, in: header, schema: { type: array, items: { type: string } } }
        - { name: prefs, in: cookie, explode: false, schema: { type: array, items: { type: string } } }
      responses: { '200': { description: ok } }
"#);
    let operation = &api.operations[0];
    let style = |name: &str| parameter(operation, name).style;
    let styled = |style, explode| Some(ParamStyle { style, explode });
    assert_eq!(style("ids"), styled(Style::Matrix, true));
    assert_eq!(style("tags"), None, "form, exploded: the query's default");
    assert_eq!(style("csv"), styled(Style::Form, false));
    assert_eq!(
        style("pipes"),
        styled(Style::PipeDelimited, false),
        "explode defaults to false but for form"
    );
    assert_eq!(style("filter"), styled(Style::DeepObject, true));
    assert_eq!(style("X-Ids"), None, "simple: the header's default");
    assert_eq!(style("prefs"), styled(Style::Form, false));
}

#[test]
fn an_unknown_parameter_style_is_an_error_at_its_pointer() {
    let (pointer, message) = load_error(
        r#"
openapi: 3.0.3
info: { title: Styles, version: '1' }
paths:
  /things:
    get:
      parameters:
        - { name: q, in: query, style: commaSeparated, schema: { type: string } }
      responses: { '200': { description: ok } }
"#,
    );
    assert_eq!(pointer, "/paths/~1things/get/parameters/0/style");
    assert!(
        message.starts_with("unknown parameter style \"commaSeparated\""),
        "{message}"
    );
}

#[test]
fn swagger_collection_formats_become_styles_and_csv_is_the_default() {
    let api = api(r#"
swagger: '2.0'
info: { title: Formats, version: '1' }
paths:
  /things:
    get:
      operationId: getThings
      parameters:
        - { name: plain, in: query, type: array, items: { type: string } }
        - { name: multi, in: query, type: array, collectionFormat: multi, items: { type: string } }
        - { name: pipes, in: query, type: array, collectionFormat: pipes, items: { type: string } }
        - { name: ssv, in: query, type: array, collectionFormat: ssv, items: { type: string } }
      responses: { '200': { description: ok } }
"#);
    let operation = &api.operations[0];
    let style = |name: &str| parameter(operation, name).style;
    assert_eq!(
        style("plain"),
        Some(ParamStyle {
            style: Style::Form,
            explode: false
        })
    );
    assert_eq!(style("multi"), None);
    assert_eq!(
        style("pipes"),
        Some(ParamStyle {
            style: Style::PipeDelimited,
            explode: false
        })
    );
    assert_eq!(
        style("ssv"),
        Some(ParamStyle {
            style: Style::SpaceDelimited,
            explode: false
        })
    );
}

#[test]
fn operation_and_path_servers_are_kept_with_their_variables_defaulted() {
    let api = api(r#"
openapi: 3.0.3
info: { title: Servers, version: '1' }
servers: [{ url: https://api.example }]
paths:
  /files:
    servers:
      - url: https://{region}.uploads.example/v1
        variables: { region: { default: eu, enum: [eu, us] } }
    post:
      operationId: upload
      responses: { '204': { description: ok } }
    get:
      operationId: listFiles
      servers: [{ url: /v2 }]
      responses: { '200': { description: ok } }
  /things:
    get:
      operationId: listThings
      responses: { '200': { description: ok } }
"#);
    let server = |id: &str| {
        api.operations
            .iter()
            .find(|o| o.id == id)
            .and_then(|o| o.server.clone())
    };
    assert_eq!(
        server("upload").as_deref(),
        Some("https://eu.uploads.example/v1"),
        "the path's server"
    );
    assert_eq!(
        server("listFiles").as_deref(),
        Some("/v2"),
        "the operation's own server wins"
    );
    assert_eq!(
        server("listThings"),
        None,
        "the document's server is the base URL"
    );
    assert_eq!(api.servers, ["https://api.example"]);
}

#[test]
fn paths_taken_out_of_the_document_load_as_the_same_operations() {
    let text = r##"
openapi: 3.0.3
info: { title: Things, version: "1" }
paths:
  /things/{id}:
    parameters: [{ $ref: "#/components/parameters/Id" }]
    get:
      operationId: getThing
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Thing" } } } } }
    delete:
      operationId: deleteThing
      responses: { "204": { description: gone } }
  /things:
    post:
      operationId: createThing
      requestBody: { content: { application/json: { schema: { $ref: "#/components/schemas/Thing" } } } }
      responses: { "201": { description: made } }
components:
  parameters:
    Id: { name: id, in: path, required: true, schema: { type: string } }
  schemas:
    Thing: { type: object, properties: { name: { type: string }, parts: { type: array, items: { $ref: "#/components/schemas/Thing" } } } }
"##;
    let document = parse_text(text).expect("the test document parses");
    let borrowed = Loader::new(&document)
        .api(None)
        .expect("the document loads");
    let mut without_paths = document.clone();
    let paths = take_paths(&mut without_paths).expect("the document has paths");
    assert!(without_paths.get("paths").is_none());
    let taken = Loader::new(&without_paths)
        .api(Some(paths))
        .expect("the document loads");
    assert_eq!(format!("{taken:?}"), format!("{borrowed:?}"));
    assert_eq!(taken.operations.len(), 3);
}

#[test]
fn ref_targets_tell_external_refs_and_refs_into_paths() {
    let of = |document: Value| refs::RefTargets::of(&document);
    let local = of(
        json!({ "a": { "$ref": "#/components/schemas/A" }, "b": [{ "$ref": "#/components/schemas/B" }] }),
    );
    assert_eq!(
        local,
        refs::RefTargets {
            external: false,
            paths: false
        }
    );
    let into_paths = of(json!({ "a": [{ "$ref": "#/paths/~1a/get/parameters/0" }] }));
    assert_eq!(
        into_paths,
        refs::RefTargets {
            external: false,
            paths: true
        }
    );
    let encoded = of(json!({ "a": { "$ref": "#%2Fpaths%2F~1a" } }));
    assert!(
        encoded.paths,
        "a percent-encoded pointer may point into paths"
    );
    let external = of(json!({ "a": { "b": { "$ref": "Pet.yaml" } } }));
    assert_eq!(
        external,
        refs::RefTargets {
            external: true,
            paths: false
        }
    );
    // A property called `$ref` is a schema, not a reference.
    let property = of(json!({ "properties": { "$ref": { "type": "string" } } }));
    assert_eq!(property, refs::RefTargets::default());
}

#[test]
fn an_operation_that_refers_into_another_path_loads() {
    let text = r##"
openapi: 3.0.3
info: { title: Things, version: "1" }
paths:
  /a:
    post:
      operationId: createA
      requestBody: { content: { application/json: { schema: { type: object, properties: { name: { type: string } } } } } }
      responses: { "201": { description: made } }
  /b:
    post:
      operationId: createB
      requestBody: { $ref: "#/paths/~1a/post/requestBody" }
      responses: { "201": { description: made } }
"##;
    let api = load_text(Path::new("openapi.yaml"), text).expect("the document loads");
    let bodies: Vec<_> = api
        .operations
        .iter()
        .map(|op| op.body.as_ref().map(|b| b.schema.clone()))
        .collect();
    assert_eq!(bodies[0], bodies[1]);
    assert!(bodies[0].is_some());
}

#[test]
fn a_parameter_whose_name_is_a_yaml_number_is_named_by_its_text() {
    let openapi = api(
        "openapi: 3.0.3\ninfo: { title: T, version: '1' }\npaths:\n  /a:\n    get:\n      parameters:\n        - { name: 1, in: query, schema: { type: string } }\n        - { name: 2.5, in: header, schema: { type: string } }\n      responses: { '204': { description: none } }\n",
    );
    let names: Vec<&str> = openapi.operations[0]
        .parameters
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["1", "2.5"]);
    let swagger = api(
        "swagger: '2.0'\ninfo: { title: T, version: '1' }\npaths:\n  /a:\n    post:\n      consumes: [application/x-www-form-urlencoded]\n      parameters:\n        - { name: 7, in: formData, type: string }\n      responses: { '204': { description: none } }\n",
    );
    let body = swagger.operations[0].body.as_ref().expect("a form body");
    assert_eq!(body.schema["properties"]["7"], json!({ "type": "string" }));
}

/// OpenAPI 3.1 schemas may refer by `$anchor` (`#user`, `profile.json#user-profile`), as
/// swagger-parser's 3.1 suite does; an anchor no schema declares is refused, naming the `$ref`.
#[test]
fn refs_to_anchors_in_the_document_and_in_other_files_are_followed() {
    let root = r##"
openapi: 3.1.0
info: { title: Anchors, version: '1' }
paths:
  /users/{id}:
    get:
      operationId: getUser
      parameters:
        - { name: id, in: path, required: true, schema: { type: string } }
      responses:
        '200':
          description: The user.
          content: { application/json: { schema: { $ref: '#user' } } }
components:
  schemas:
    User:
      $anchor: user
      type: object
      properties:
        name: { type: string }
        profile: { $ref: 'profile.json#user-profile' }
        example: { type: string, example: { $anchor: not-a-schema } }
"##;
    let profile = r#"{ "$defs": { "UserProfile": { "$anchor": "user-profile", "type": "object", "properties": { "first": { "type": "string" } } } } }"#;
    let dir = write_tree(&[("openapi.yaml", root), ("profile.json", profile)]);
    let bundled = load(&dir.path().join("openapi.yaml")).expect("it loads");
    let schema = bundled.operations[0]
        .success
        .as_ref()
        .unwrap()
        .schema
        .clone()
        .unwrap();
    assert_eq!(
        schema["properties"]["profile"],
        json!({ "type": "object", "properties": { "first": { "type": "string" } } })
    );
    assert_eq!(schema["properties"]["name"], json!({ "type": "string" }));
    assert!(schema.get("$anchor").is_none(), "{schema}");
    // Without another file, too.
    let local = load_text(
        Path::new("openapi.yaml"),
        &root
            .replace("{ $ref: 'profile.json#user-profile' }", "{ $ref: '#name' }")
            .replace(
                "name: { type: string }",
                "name: { $anchor: name, type: string }",
            ),
    )
    .expect("it loads");
    let schema = local.operations[0]
        .success
        .as_ref()
        .unwrap()
        .schema
        .clone()
        .unwrap();
    assert_eq!(schema["properties"]["profile"], json!({ "type": "string" }));
    let dir = write_tree(&[
        ("openapi.yaml", root),
        ("profile.json", &profile.replace("user-profile", "other")),
    ]);
    let error = load(&dir.path().join("openapi.yaml")).unwrap_err();
    assert_eq!(
        error.message,
        "`$ref: profile.json#user-profile` has a fragment that is neither a JSON pointer (`#/…`) nor the name of an `$anchor` in the file it names"
    );
}

/// A Swagger 2.0 document whose `$ref`s point into `paths`, at places the conversion moves.
const SWAGGER_REFS_INTO_PATHS: &str = r##"
swagger: '2.0'
info: { title: Pointers, version: '1' }
produces: [application/json]
paths:
  /pets:
    get:
      operationId: listPets
      parameters:
        - { name: tags, in: query, type: array, items: { type: string, enum: [a, b] } }
      responses:
        '200':
          description: pets
          schema: { type: array, items: { type: object, properties: { id: { type: integer } } } }
    post:
      operationId: addPet
      consumes: [application/json]
      parameters:
        - { name: body, in: body, schema: { type: object, properties: { name: { type: string } } } }
        - { name: flags, in: query, type: array, items: { type: integer } }
      responses: { '204': { description: none } }
  /pets/{id}:
    put:
      operationId: putPet
      consumes: [application/json]
      parameters:
        - { name: id, in: path, required: true, type: integer }
        - { name: pet, in: body, schema: { $ref: '#/paths/~1pets/post/parameters/0/schema' } }
        - { name: mode, in: query, type: boolean }
      responses:
        '200':
          description: one pet
          schema: { $ref: '#/paths/~1pets/get/responses/200/schema/items' }
    get:
      operationId: getPet
      parameters:
        - { name: id, in: path, required: true, type: integer }
        - { name: dry, in: query, type: array, items: { $ref: '#/paths/~1pets/post/parameters/1/items' } }
        - { name: tags, in: query, type: array, items: { $ref: '#/paths/~1pets/get/parameters/0/items' } }
      responses: { '204': { description: none } }
"##;

/// The loader finishes a Swagger 2.0 conversion knowing from its own walk of the document as
/// written whether some `$ref` points into `paths` (`Prepared::of`). That walk finds every such
/// `$ref` the conversion holds, so the conversion is the same as one that looks for them itself,
/// with such `$ref`s and without.
#[test]
fn a_swagger_2_conversion_finished_from_the_walk_of_the_written_document_is_the_same() {
    let without = swagger(
        "definitions:\n  Pet: { type: object }\npaths:\n  /pets:\n    get:\n      responses:\n        '200': { description: ok, schema: { $ref: '#/definitions/Pet' } }\n",
    );
    for (text, has_them) in [(SWAGGER_REFS_INTO_PATHS, true), (without.as_str(), false)] {
        let document = parse_text(text).expect("the test document parses");
        let (targets, _) = refs::RefTargets::with_local(&document);
        assert_eq!(targets.paths, has_them);
        let converted =
            || swagger2::convert_leaving_refs_into_paths(&document).expect("it converts");
        let itself = swagger2::convert(&document).expect("it converts");
        assert_eq!(
            converted().with_refs_into_paths(&document, targets.paths),
            itself
        );
        // Finishing it as if there were none leaves the `$ref`s into `paths` as written.
        assert_eq!(
            converted().with_refs_into_paths(&document, false) == itself,
            !has_them
        );
    }
}

/// A Swagger 2.0 `$ref` into `paths` names places the conversion to 3.0 moves: a response's
/// `schema` (into `content`), a body parameter's `schema` (into `requestBody`), a plain
/// parameter's keywords (into its `schema`, at its index among the plain parameters).
#[test]
fn swagger_2_refs_into_paths_follow_what_the_conversion_moved() {
    let api = api(SWAGGER_REFS_INTO_PATHS);
    let operation = |id: &str| {
        api.operations
            .iter()
            .find(|o| o.id == id)
            .unwrap_or_else(|| panic!("{id} in {:?}", ids(&api)))
    };
    let put = operation("putPet");
    assert_eq!(
        *put.success.as_ref().unwrap().schema.clone().unwrap(),
        json!({ "type": "object", "properties": { "id": { "type": "integer" } } })
    );
    assert_eq!(
        *put.body.as_ref().unwrap().schema,
        json!({ "type": "object", "properties": { "name": { "type": "string" } } })
    );
    assert_eq!(
        parameter(operation("getPet"), "dry").schema,
        json!({ "type": "array", "items": { "type": "integer" } }),
        "the second parameter of addPet is the first once its body parameter is taken out"
    );
    assert_eq!(
        parameter(operation("getPet"), "tags").schema,
        json!({ "type": "array", "items": { "type": "string", "enum": ["a", "b"] } })
    );
}

/// A second `$ref` into a file already read (swagger-parser's issue-822: `#/paths/~1haha/{bar}`,
/// a pointer with an unescaped `/`) is checked like the first, and refused naming the `$ref` as
/// written and the file, never the bundle's internal place.
#[test]
fn a_second_ref_to_nothing_in_a_file_already_read_names_the_ref_and_the_file() {
    let root = "openapi: 3.0.3\ninfo: { title: T, version: '1' }\npaths:\n  /foo:\n    $ref: 'b.yaml#/paths/~1foo'\n  /haha/{bar}:\n    $ref: 'b.yaml#/paths/~1haha/{bar}'\n";
    let other = "paths:\n  /foo: { get: { responses: { '204': { description: none } } } }\n  /haha/{bar}: { get: { responses: { '204': { description: none } } } }\n";
    let dir = write_tree(&[("openapi.yaml", root), ("b.yaml", other)]);
    let error = load(&dir.path().join("openapi.yaml")).unwrap_err();
    assert_eq!(error.pointer.as_deref(), Some("/paths/~1haha~1{bar}"));
    assert_eq!(
        error.message,
        format!(
            "`$ref: b.yaml#/paths/~1haha/{{bar}}` points to nothing in {}",
            dir.path().join("b.yaml").display()
        )
    );
}

/// An `$id` is the base of the relative `$ref`s in its schema (JSON Schema 2020-12, so OpenAPI
/// 3.1): `$id: ./nested/` beside or above `$ref: ./ex.json` reads `nested/ex.json`, as
/// swagger-parser's `$id-uri-direct` and `$id-uri-enclosing` documents say; an `$id` that is a
/// URL names no folder and changes nothing.
#[test]
fn an_id_is_the_base_of_the_relative_refs_in_its_schema() {
    let root = r##"
openapi: 3.1.0
info: { title: Ids, version: '1' }
paths:
  /users:
    get:
      operationId: getUser
      responses:
        '200':
          description: The user.
          content: { application/json: { schema: { $ref: '#/components/schemas/User' } } }
components:
  schemas:
    User:
      $id: ./nested/
      type: object
      properties:
        direct: { $id: ./deeper/, $ref: ./ex.json }
        enclosed: { $ref: ./ex.json }
        elsewhere: { $id: 'https://example.com/schemas/', $ref: ./ex.json }
"##;
    let dir = write_tree(&[
        ("openapi.yaml", root),
        ("nested/ex.json", r#"{ "type": "string" }"#),
        ("nested/deeper/ex.json", r#"{ "type": "integer" }"#),
    ]);
    let api = load(&dir.path().join("openapi.yaml")).expect("it loads");
    let schema = api.operations[0]
        .success
        .as_ref()
        .unwrap()
        .schema
        .clone()
        .unwrap();
    assert_eq!(schema["properties"]["direct"], json!({ "type": "integer" }));
    assert_eq!(
        schema["properties"]["enclosed"],
        json!({ "type": "string" })
    );
    assert_eq!(
        schema["properties"]["elsewhere"],
        json!({ "type": "string" })
    );
}

#[test]
fn a_root_schema_that_is_a_ref_alone_is_converted_once_and_loads_as_if_converted_at_each_place() {
    // `Thing` is repaired inside (`type: String`, told at its own place) and invalid at the root of
    // each conversion (`maximum: "10"`, twice: in the schema and in its `$defs` copy, told at the
    // place of the root): answers, JSON bodies and a multipart body refer to it alone, two answers
    // through the same shared response.
    let text = r##"
openapi: 3.0.3
info: { title: Things, version: "1" }
paths:
  /things:
    get:
      operationId: listThings
      responses: { "200": { $ref: "#/components/responses/Things" } }
    post:
      operationId: createThing
      requestBody: { content: { application/json: { schema: { $ref: "#/components/schemas/Thing" } } } }
      responses: { "200": { description: made, content: { application/json: { schema: { $ref: "#/components/schemas/Thing" } } } } }
  /things/{id}:
    parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
    get:
      operationId: getThing
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Thing" } } } } }
    put:
      operationId: replaceThing
      requestBody: { content: { application/json: { schema: { $ref: "#/components/schemas/Thing" } } } }
      responses: { "200": { $ref: "#/components/responses/Things" } }
    patch:
      operationId: uploadThing
      requestBody: { content: { multipart/form-data: { schema: { $ref: "#/components/schemas/Thing" } } } }
      responses: { "204": { description: done } }
components:
  responses:
    Things: { description: all, content: { application/json: { schema: { $ref: "#/components/schemas/Thing" } } } }
  schemas:
    Thing:
      type: object
      properties:
        name: { type: String }
        size: { type: integer, maximum: "10" }
        parts: { type: array, items: { $ref: "#/components/schemas/Thing" } }
"##;
    let mut document = parse_text(text).expect("the test document parses");
    let paths = take_paths(&mut document).expect("the document has paths");
    let cut = Answers {
        above: 0,
        keep: &plan::discovery_planner::answer_as_read,
    };
    for answers in [None, Some(&cut)] {
        let each = Loader::new(&document)
            .keeping(answers)
            .api(Some(paths.clone()))
            .expect("the document loads");
        let loader = Loader::new(&document)
            .keeping(answers)
            .converting_once(true);
        let once = loader.api(Some(paths.clone())).expect("the document loads");
        assert_eq!(format!("{once:?}"), format!("{each:?}"));
        // Converted once each: the answer, the JSON body and the multipart body.
        assert_eq!(loader.converted.borrow().len(), 3);
        let invalid_at: Vec<&str> = once
            .warnings
            .iter()
            .filter(|w| w.message.contains("maximum"))
            .map(|w| w.pointer.as_str())
            .collect();
        let root = |path: &str, method: &str, what: &str| {
            format!(
                "/paths/{}/{method}/{what}/content/{{}}/schema",
                pointer_token(path)
            )
        };
        let json = |place: String| place.replace("{}", "application~1json");
        let places = [
            "/components/responses/Things/content/application~1json/schema".to_string(),
            json(root("/things", "post", "requestBody")),
            json(root("/things", "post", "responses/200")),
            json(root("/things/{id}", "get", "responses/200")),
            json(root("/things/{id}", "put", "requestBody")),
            root("/things/{id}", "patch", "requestBody").replace("{}", "multipart~1form-data"),
        ];
        for place in &places {
            assert_eq!(
                invalid_at.iter().filter(|at| *at == place).count(),
                2,
                "{place}: {invalid_at:?}"
            );
        }
        assert_eq!(invalid_at.len(), 2 * places.len(), "{invalid_at:?}");
        let repaired: Vec<&Warning> = once
            .warnings
            .iter()
            .filter(|w| w.pointer == "/components/schemas/Thing/properties/name/type")
            .collect();
        assert_eq!(repaired.len(), 1, "{:?}", once.warnings);
    }
}

/// A document whose answers need the repairs made after conversion ([`repair::make_valid`]):
/// `Bad` (by `$ref`, at several places, through a shared response too), an inline answer, and a
/// body of the same schema; with warnings of other kinds told between them.
const REPAIRED_ANSWERS: &str = r##"
openapi: 3.1.0
info: { title: Things, version: "1" }
paths:
  /a/{id}:
    get:
      operationId: getA
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Bad" } } } } }
  /b:
    get:
      operationId: getB
      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Bad" } } } } }
    post:
      operationId: postB
      requestBody: { content: { application/json: { schema: { $ref: "#/components/schemas/Bad" } } } }
      responses: { "201": { $ref: "#/components/responses/Shared" } }
  /c:
    get:
      operationId: getC
      parameters: [{ name: gone, in: path, schema: { type: string } }]
      responses: { "200": { $ref: "#/components/responses/Shared" } }
    put:
      operationId: putC
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: { type: object, properties: { n: { type: integer, minimum: "low" }, s: { $ref: "#/components/schemas/Bad" } } }
components:
  responses:
    Shared: { description: shared, content: { application/json: { schema: { $ref: "#/components/schemas/Bad" } } } }
  schemas:
    Bad:
      type: object
      properties:
        name: { type: String }
        size: { type: integer, maximum: "10", minimum: "1" }
        parts: { type: array, items: { $ref: "#/components/schemas/Bad" } }
"##;

#[test]
fn answers_repaired_aside_are_what_answers_repaired_in_place_are_with_the_same_warnings_in_order() {
    let mut document = parse_text(REPAIRED_ANSWERS).expect("the test document parses");
    let paths = take_paths(&mut document).expect("the document has paths");
    let cut = Answers {
        above: 0,
        keep: &plan::discovery_planner::answer_as_read,
    };
    for answers in [None, Some(&cut)] {
        for once in [false, true] {
            let load = |aside: bool| {
                Loader::new(&document)
                    .keeping(answers)
                    .converting_once(once)
                    .answering_aside(aside)
                    .api(Some(paths.clone()))
                    .expect("the document loads")
            };
            let (in_place, aside) = (load(false), load(true));
            assert_eq!(format!("{aside:?}"), format!("{in_place:?}"));
            // The repairs made after conversion are told at each answer's place, in the order
            // of the operations, between the other warnings.
            let places: Vec<&str> = aside
                .warnings
                .iter()
                .filter(|w| w.message.contains("is not valid JSON Schema 2020-12"))
                .map(|w| w.pointer.as_str())
                .collect();
            let shared = "/components/responses/Shared/content/application~1json/schema";
            let answer = |path: &str| {
                format!("/paths/{path}/get/responses/200/content/application~1json/schema")
            };
            let body = "/paths/~1b/post/requestBody/content/application~1json/schema";
            // `Bad` has four such places (two bounds, in it and in its definition under `$defs`).
            let put = "/paths/~1c/put/responses/200/content/application~1json/schema";
            let expected: Vec<String> = [
                (answer("~1a~1{id}"), 4),
                (answer("~1b"), 4),
                (body.to_string(), 4),
                (shared.to_string(), 4),
                (put.to_string(), 5),
            ]
            .into_iter()
            .flat_map(|(place, count)| std::iter::repeat_n(place, count))
            .collect();
            assert_eq!(places, expected, "{:#?}", aside.warnings);
            let placeholder = aside
                .warnings
                .iter()
                .position(|w| w.message.contains("placeholder `{id}`"))
                .expect("the missing parameter is told");
            let dropped = aside
                .warnings
                .iter()
                .position(|w| w.message.contains("`gone` has no `{gone}` placeholder"))
                .expect("the unplaced parameter is told");
            let first_repair = |at: &str| aside.warnings.iter().position(|w| w.pointer == at);
            assert!(placeholder < first_repair(&answer("~1a~1{id}")).unwrap());
            assert!(first_repair(shared).unwrap() < dropped);
            assert!(dropped < first_repair(put).unwrap());
        }
    }
}

#[test]
fn an_answer_that_cannot_be_repaired_aside_fails_loading_before_a_later_mistake() {
    let mut properties = serde_json::Map::new();
    for n in 0..70 {
        properties.insert(
            format!("p{n}"),
            json!({ "type": "integer", "maximum": "ten" }),
        );
    }
    let mut document = with_response_schema(
        json!({ "type": "object", "properties": properties }),
        json!({}),
    );
    document["paths"]["/later"] = json!({ "get": {
        "parameters": [{ "in": "query" }],
        "responses": { "200": { "description": "ok" } }
    } });
    let in_place = Loader::new(&document).api(None).unwrap_err();
    let aside = Loader::new(&document)
        .answering_aside(true)
        .api(None)
        .unwrap_err();
    assert_eq!(aside, in_place);
    assert_eq!(
        aside.0,
        "/paths/~1things/get/responses/200/content/application~1json/schema"
    );
    assert!(aside.1.contains("places that are not valid"), "{}", aside.1);
}

#[test]
fn percent_decoding_takes_two_hex_digits_and_leaves_anything_else_as_written() {
    assert_eq!(super::percent_decode("a%2Fb%7e"), "a/b~");
    assert_eq!(super::percent_decode("end%41"), "endA");
    assert_eq!(super::percent_decode("%+1%-1%4"), "%+1%-1%4");
    assert_eq!(
        super::percent_decode("/components/schemas/Café"),
        "/components/schemas/Café"
    );
    assert_eq!(super::percent_decode("%zz%"), "%zz%");
}

/// With every size worked out before anything converts ([`SchemaContext::prepare`]), a root
/// converts the same whichever roots were converted before it, which is what lets the answers
/// be converted on several threads. The document is one where measuring sizes as roots meet
/// them made the order matter: `Big` and `Small` refer to each other, and the inlined size of
/// `Big` is over the limit above which a schema used twice goes under `$defs` only when `Big`
/// is measured before `Small`.
#[test]
fn a_root_converts_the_same_whatever_was_converted_before_it() {
    let object = |own: usize, other: &str| {
        let mut properties = Map::new();
        for n in 0..own {
            properties.insert(format!("p{n}"), json!({ "type": "string" }));
        }
        properties.insert(
            "other".into(),
            json!({ "$ref": format!("#/components/schemas/{other}") }),
        );
        json!({ "type": "object", "properties": properties })
    };
    let twice = |name: &str| {
        let reference = json!({ "$ref": format!("#/components/schemas/{name}") });
        json!({ "type": "object", "properties": { "one": reference, "two": reference } })
    };
    let document = json!({
        "openapi": "3.0.3",
        "info": { "title": "Cycle", "version": "1" },
        "paths": {},
        "components": { "schemas": {
            "Big": object(75, "Small"),
            "Small": object(25, "Big"),
            "BigTwice": twice("Big"),
            "SmallTwice": twice("Small"),
        } }
    });
    let convert = |context: &SchemaContext, name: &str| {
        let pointer = format!("/components/schemas/{name}");
        let schema = document.pointer(&pointer).expect("the schema is there");
        SchemaConverter::new(&document, context)
            .convert_root(schema, &pointer)
            .expect("the schema converts")
    };
    let in_order = |prepared: bool, first: &str, second: &str| {
        let context = SchemaContext::default();
        if prepared {
            context.prepare(&document, &refs::LocalRefs::of(&document, None));
        }
        let first = convert(&context, first);
        let second = convert(&context, second);
        (first, second)
    };
    let lazily = (
        in_order(false, "BigTwice", "SmallTwice").0,
        in_order(false, "SmallTwice", "BigTwice").1,
    );
    assert_ne!(
        lazily.0, lazily.1,
        "measured as met, the order matters here"
    );
    let (big_first, _) = in_order(true, "BigTwice", "SmallTwice");
    let (_, big_second) = in_order(true, "SmallTwice", "BigTwice");
    assert_eq!(big_first, big_second);
    let (small_first, _) = in_order(true, "SmallTwice", "BigTwice");
    let (_, small_second) = in_order(true, "BigTwice", "SmallTwice");
    assert_eq!(small_first, small_second);
}

/// The converter's own pointer lookup finds what `Value::pointer` finds, escapes and list
/// indexes included.
#[test]
fn the_converters_pointer_lookup_finds_what_serde_json_finds() {
    let document = json!({
        "a/b": { "c~d": [10, 11, { "": "empty key" }] },
        "list": [[0, 1], { "x": true }],
        "": { "": 1 },
        "~1": "tilde one",
    });
    let pointers = [
        "",
        "/",
        "//",
        "/a~1b",
        "/a~1b/c~0d",
        "/a~1b/c~0d/1",
        "/a~1b/c~0d/2/",
        "/a~1b/c~0d/01",
        "/a~1b/c~0d/+1",
        "/a~1b/c~0d/3",
        "/a~1b/c~0d/-1",
        "/list/0/1",
        "/list/1/x",
        "/list/00",
        "/~01",
        "/~1",
        "/a/b",
        "a~1b",
        "/missing",
        "/list/1/x/deeper",
        "/list/18446744073709551616",
    ];
    for pointer in pointers {
        assert_eq!(
            schema::resolve(&document, pointer),
            document.pointer(pointer),
            "{pointer:?}"
        );
    }
}
