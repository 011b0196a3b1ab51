//! What the plan publishes of each tool: lean schemas where mcpgen derives them from the spec,
//! only the non-default hints where it derives annotations from the method, and exactly what a
//! curation file writes where it writes something. And what the planner makes of a loaded
//! document without a curation file: annotations, flattened bodies, wrapped results, the server's
//! name and credentials.

use std::path::Path;

use serde_json::{Value, json};

use super::{Annotations, Auth, FieldTarget, Plan, Tool};
use crate::api::{Api, Location, Method};
use crate::load::load;
use crate::plan;

/// A pet store of five operations, each of whose schemas has documentation a validator ignores
/// (and a property named `description`, which is data, not documentation).
const SPEC: &str = r#"
openapi: 3.0.3
info: { title: Pets, version: '1' }
paths:
  /pets:
    get:
      operationId: listPets
      summary: List pets
      parameters:
        - name: limit
          in: query
          description: How many pets to return
          schema: { type: integer, format: int32, minimum: 1, maximum: 100, default: 20 }
        - name: since
          in: query
          schema: { type: string, format: date-time }
        - name: api_key
          in: header
          description: ''
          schema: { type: string }
      responses:
        '200':
          description: The pets
          content:
            application/json:
              schema: { type: array, description: Some pets, items: { $ref: '#/components/schemas/Pet' } }
    post:
      operationId: addPet
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: '#/components/schemas/Pet' }
      responses:
        '201':
          description: The new pet
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Pet' }
  /pets/{petId}:
    get:
      operationId: showPet
      summary: Show a pet
      description: One pet of the store, by its id.
      parameters:
        - { name: petId, in: path, required: true, schema: { type: integer, format: int64 } }
      responses:
        '200':
          description: The pet
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Pet' }
    put:
      operationId: updatePet
      parameters:
        - { name: petId, in: path, required: true, schema: { type: integer, format: int64 } }
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                status: { type: string, enum: [available, sold] }
      responses:
        '200':
          description: The whole pet, updated
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Pet' }
    delete:
      operationId: deletePet
      parameters:
        - { name: petId, in: path, required: true, schema: { type: integer, format: int64 } }
      responses:
        '204': { description: Deleted }
components:
  schemas:
    Pet:
      type: object
      title: A pet
      description: A pet of the store.
      required: [name]
      externalDocs: { url: 'https://example.com/pets' }
      xml: { name: pet }
      properties:
        id: { type: integer, format: int64, readOnly: true, example: 10 }
        name: { type: string, example: doggie, minLength: 1 }
        description: { type: string, description: What the shop says about the pet, default: '' }
        born: { type: string, format: date, deprecated: true }
        password: { type: string, writeOnly: true }
        status:
          type: string
          description: The pet's status
          enum: [available, sold]
"#;

fn api(text: &str) -> crate::api::Api {
    crate::load::load_text(Path::new("openapi.yaml"), text).expect("the test spec loads")
}

fn zero_config() -> Plan {
    zero_config_of(SPEC)
}

fn zero_config_of(spec: &str) -> Plan {
    super::plan(&api(spec), &super::Options::default(), None).expect("the spec plans")
}

fn curated(curation: &str) -> Plan {
    curated_over(SPEC, curation)
}

fn curated_over(spec: &str, curation: &str) -> Plan {
    let api = api(spec);
    let checked = crate::curate::check_text(Path::new("mcpgen.yaml"), curation, &api)
        .unwrap_or_else(|e| panic!("the curation checks: {e}"));
    super::plan(&api, &super::Options::default(), Some(&checked.model)).expect("the curation plans")
}

fn tool<'a>(plan: &'a Plan, name: &str) -> &'a Tool {
    plan.tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// The Pet schema with only its validating keywords (its status needs no `type`: the `enum` says
/// it is a string).
fn lean_pet() -> Value {
    json!({
        "type": "object",
        "required": ["name"],
        "properties": {
            "id": { "type": "integer" },
            "name": { "type": "string", "minLength": 1 },
            "description": { "type": "string" },
            "born": { "type": "string" },
            "password": { "type": "string" },
            "status": { "enum": ["available", "sold"] },
        },
    })
}

#[test]
fn derived_output_schemas_keep_only_the_keywords_that_validate() {
    let plan = zero_config();
    assert_eq!(tool(&plan, "show_pet").output_schema, Some(lean_pet()));
}

#[test]
fn mirrored_writes_that_send_their_body_back_publish_no_output_schema_and_answer_in_text() {
    let plan = zero_config();
    let add = tool(&plan, "add_pet");
    assert_eq!(add.output_schema, None);
    assert!(matches!(
        add.action,
        super::Action::Call { wrap: false, .. }
    ));
    assert!(add.definition().get("outputSchema").is_none());
}

#[test]
fn mirrored_writes_whose_answer_is_not_their_body_publish_the_answers_schema() {
    let plan = zero_config();
    let update = tool(&plan, "update_pet");
    assert_eq!(update.output_schema, Some(lean_pet()));
    assert!(matches!(
        update.action,
        super::Action::Call { wrap: false, .. }
    ));
}

#[test]
fn mirrored_tools_have_no_title_because_the_summary_opens_their_description() {
    let plan = zero_config();
    let show = tool(&plan, "show_pet");
    assert_eq!(show.title, None);
    assert_eq!(
        show.description.as_deref(),
        Some("Show a pet. One pet of the store, by its id.")
    );
    assert!(show.definition().get("title").is_none());
}

#[test]
fn derived_output_schemas_of_wrapped_results_are_lean_too() {
    let plan = zero_config();
    assert_eq!(
        tool(&plan, "list_pets").output_schema,
        Some(json!({
            "type": "object",
            "properties": { "result": { "type": "array", "items": lean_pet() } },
            "required": ["result"],
        }))
    );
}

#[test]
fn derived_input_schemas_lose_number_formats_and_empty_descriptions_only() {
    let plan = zero_config();
    assert_eq!(
        tool(&plan, "list_pets").input_schema,
        json!({
            "type": "object",
            "properties": {
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 100,
                    "default": 20,
                    "description": "How many pets to return",
                },
                "since": { "type": "string", "format": "date-time" },
                "api_key": { "type": "string" },
            },
            "additionalProperties": false,
        })
    );
    // The body's properties keep their examples, defaults, descriptions and informative formats.
    let add = &tool(&plan, "add_pet").input_schema["properties"];
    assert_eq!(
        add["id"],
        json!({ "type": "integer", "readOnly": true, "examples": [10] })
    );
    assert_eq!(
        add["name"],
        json!({ "type": "string", "examples": ["doggie"], "minLength": 1 })
    );
    assert_eq!(
        add["description"],
        json!({ "type": "string", "description": "What the shop says about the pet", "default": "" })
    );
    assert_eq!(
        add["born"],
        json!({ "type": "string", "format": "date", "deprecated": true })
    );
    // The upstream operation (what discovery describes) has the same input.
    let operation = plan
        .operations
        .iter()
        .find(|o| o.api_id == "addPet")
        .unwrap();
    assert_eq!(*operation.input_schema, tool(&plan, "add_pet").input_schema);
}

#[test]
fn derived_annotations_carry_only_the_hints_that_differ_from_the_defaults() {
    let plan = zero_config();
    let annotations = |name: &str| tool(&plan, name).definition().get("annotations").cloned();
    assert_eq!(
        annotations("list_pets"),
        Some(json!({ "readOnlyHint": true }))
    );
    assert_eq!(
        annotations("update_pet"),
        Some(json!({ "idempotentHint": true }))
    );
    assert_eq!(
        annotations("delete_pet"),
        Some(json!({ "idempotentHint": true }))
    );
    // POST: not read-only, destructive, not idempotent are all MCP's defaults.
    assert_eq!(annotations("add_pet"), None);
}

#[test]
fn without_defaults_drops_default_hints_and_write_hints_of_a_read_only_tool() {
    let every = Annotations {
        read_only: Some(false),
        destructive: Some(true),
        idempotent: Some(false),
        open_world: Some(true),
    };
    assert_eq!(every.without_defaults(), Annotations::default());
    let read_only = Annotations {
        read_only: Some(true),
        destructive: Some(false),
        idempotent: Some(true),
        open_world: Some(false),
    };
    assert_eq!(
        read_only.without_defaults(),
        Annotations {
            read_only: Some(true),
            open_world: Some(false),
            ..Annotations::default()
        }
    );
    let additive = Annotations {
        read_only: None,
        destructive: Some(false),
        idempotent: Some(true),
        open_world: None,
    };
    assert_eq!(additive.without_defaults(), additive);
}

#[test]
fn hints_not_given_read_as_the_mcp_defaults() {
    let none = Annotations::default();
    assert!(!none.read_only_hint());
    assert!(none.destructive_hint());
    assert!(!none.idempotent_hint());
    assert!(none.open_world_hint());
}

#[test]
fn curated_annotations_are_emitted_exactly_as_written_even_when_they_are_the_defaults() {
    let plan = curated(
        r#"
operations: { mirror: none }
tools:
  add:
    description: Add a pet to the store, with its name and status; returns the new pet with its id.
    call: addPet
    params:
      name: { from: name, description: The new pet's name }
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }
"#,
    );
    assert_eq!(
        tool(&plan, "add").definition()["annotations"],
        json!({ "readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true })
    );
}

#[test]
fn curated_tools_without_annotations_get_the_derived_ones() {
    let plan = curated(
        r#"
operations: { mirror: none }
tools:
  remove:
    description: Delete a pet of the store by its id; deleting a pet that is gone changes nothing.
    call: deletePet
    params:
      id: { from: petId, description: The pet's id }
"#,
    );
    assert_eq!(
        tool(&plan, "remove").definition()["annotations"],
        json!({ "idempotentHint": true })
    );
}

#[test]
fn curated_results_output_schemas_are_emitted_as_the_curation_defines() {
    let plan = curated(
        r#"
operations: { mirror: none }
tools:
  pets:
    description: List the pets of the store with their names and statuses, at most twenty of them.
    call: listPets
    results:
      items: ""
      name: pets
      fields:
        name: name
        status: status
        description: description
"#,
    );
    assert_eq!(
        tool(&plan, "pets").output_schema,
        Some(json!({
            "type": "object",
            "properties": {
                "pets": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": { "type": "string" },
                            "status": { "type": "string" },
                            "description": { "type": "string" },
                        },
                        "required": ["name"],
                    },
                },
                "truncated": { "type": "boolean" },
            },
            "required": ["pets", "truncated"],
        }))
    );
}

#[test]
fn curated_tools_returning_the_response_as_is_publish_its_lean_schema() {
    let plan = curated(
        r#"
operations: { mirror: none }
tools:
  add:
    description: Add a pet to the store, with its name and status; returns the new pet with its id.
    call: addPet
    params:
      name: { from: name, description: The new pet's name }
"#,
    );
    assert_eq!(tool(&plan, "add").output_schema, Some(lean_pet()));
}

/// Operations whose summary and description say the same thing, or different things.
const DESCRIPTIONS: &str = r#"
openapi: 3.0.3
info: { title: Words, version: '1' }
paths:
  /a:
    get:
      operationId: summaryOpensTheDescription
      summary: Update an existing pet.
      description: Update an existing pet by Id.
      responses: { '204': { description: done } }
    put:
      operationId: sameWordsOtherForms
      summary: Deletes a pet.
      description: Delete a pet.
      responses: { '204': { description: done } }
    post:
      operationId: descriptionSaysLess
      summary: Logs user into the system.
      description: Log into the system.
      responses: { '204': { description: done } }
    delete:
      operationId: differentWords
      summary: Get user by user name.
      description: Get user detail based on username.
      responses: { '204': { description: done } }
    patch:
      operationId: wordsOnlyLaterInTheDescription
      summary: Delete user
      description: |-
        Only an administrator may do this. The user is deleted with all their data.
      responses: { '204': { description: done } }
    head:
      operationId: descriptionOpensWithAList
      summary: List pets
      description: |-
        - newest first
        - at most 20
      responses: { '204': { description: done } }
"#;

fn described(name: &str) -> String {
    let plan = zero_config_of(DESCRIPTIONS);
    tool(&plan, name)
        .description
        .clone()
        .expect("a description")
}

#[test]
fn a_summary_that_only_restates_the_descriptions_first_sentence_is_left_out() {
    assert_eq!(
        described("summary_opens_the_description"),
        "Update an existing pet by Id."
    );
    assert_eq!(described("same_words_other_forms"), "Delete a pet.");
}

#[test]
fn a_description_that_only_restates_the_summary_is_left_out() {
    assert_eq!(
        described("description_says_less"),
        "Logs user into the system."
    );
}

#[test]
fn a_summary_and_a_description_that_say_different_things_are_both_kept_in_one_paragraph() {
    assert_eq!(
        described("different_words"),
        "Get user by user name. Get user detail based on username."
    );
    assert_eq!(
        described("words_only_later_in_the_description"),
        "Delete user. Only an administrator may do this. The user is deleted with all their data."
    );
}

#[test]
fn a_description_that_does_not_open_with_prose_starts_its_own_paragraph() {
    assert_eq!(
        described("description_opens_with_a_list"),
        "List pets.\n\n- newest first\n- at most 20"
    );
}

/// Parameters and body properties whose descriptions restate their names, or say more.
const NAMES: &str = r#"
openapi: 3.0.3
info: { title: Names, version: '1' }
paths:
  /users/{userId}:
    put:
      operationId: updateUser
      summary: Update a user
      parameters:
        - { name: userId, in: path, required: true, description: User ID, schema: { type: integer } }
        - { name: dry_run, in: query, description: 'Dry run.', schema: { type: boolean } }
        - { name: reason, in: query, description: Why the user changes, schema: { type: string } }
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                userStatus: { type: integer, description: User Status }
                friends:
                  type: array
                  items:
                    type: object
                    properties:
                      firstName: { type: string, description: first name }
                      nick: { type: string, description: What friends call them }
      responses: { '204': { description: done } }
"#;

#[test]
fn mirrored_inputs_lose_descriptions_that_only_restate_the_property_name_at_any_depth() {
    let plan = zero_config_of(NAMES);
    let input = &tool(&plan, "update_user").input_schema;
    let properties = &input["properties"];
    assert_eq!(properties["userId"], json!({ "type": "integer" }));
    assert_eq!(properties["dry_run"], json!({ "type": "boolean" }));
    assert_eq!(properties["userStatus"], json!({ "type": "integer" }));
    assert_eq!(
        properties["reason"],
        json!({ "type": "string", "description": "Why the user changes" })
    );
    let friend = &properties["friends"]["items"]["properties"];
    assert_eq!(friend["firstName"], json!({ "type": "string" }));
    assert_eq!(
        friend["nick"],
        json!({ "type": "string", "description": "What friends call them" })
    );
}

#[test]
fn a_curated_description_that_restates_the_parameter_name_is_kept_as_written() {
    let curation = r#"
tools:
  change_user:
    description: Change one user of the service; every field left out stays as it is.
    call: updateUser
    params:
      userId: { description: User ID }
"#;
    let plan = curated_over(NAMES, curation);
    assert_eq!(
        tool(&plan, "change_user").input_schema["properties"]["userId"]["description"],
        json!("User ID")
    );
}

#[test]
fn scopes_follow_each_tool_to_its_published_name_and_cover_every_discovery_tool() {
    let plan = curated(
        r#"
server: { prefix: pets_ }
operations: { mirror: none }
discovery: { scopes: [pets:explore] }
tools:
  add:
    description: Add a pet to the store.
    call: addPet
    params:
      name: { from: name }
    scopes: [pets:write, pets:read]
  list:
    description: List the pets.
    call: listPets
"#,
    );
    let discovery: Vec<&str> = plan
        .tools
        .iter()
        .filter(|tool| matches!(tool.action, super::Action::Discovery(_)))
        .map(|tool| tool.name.as_str())
        .collect();
    assert_eq!(discovery.len(), 3, "the discovery tools: {discovery:?}");
    let mut expected = vec![(
        "pets_add".to_string(),
        vec!["pets:write".to_string(), "pets:read".to_string()],
    )];
    expected.extend(
        discovery
            .iter()
            .map(|name| (name.to_string(), vec!["pets:explore".to_string()])),
    );
    assert_eq!(plan.scopes, expected);
    // Scopes are not part of a tool's definition: tools/list is the same with or without them.
    assert!(tool(&plan, "pets_add").definition().get("scopes").is_none());
}

#[test]
fn api_keys_offered_as_alternatives_but_required_by_every_operation_are_all_sent() {
    // Trello's description: `key` or `token` by its security requirement, yet every operation
    // requires both as query parameters.
    let plan = zero_config_of(
        r#"
openapi: 3.0.3
info: { title: Boards, version: "1" }
security: [{ api_key: [] }, { api_token: [] }]
paths:
  /cards/{id}:
    get:
      operationId: getCard
      summary: Get a card.
      parameters:
        - { name: id, in: path, required: true, schema: { type: string } }
        - { name: key, in: query, required: true, schema: { type: string } }
        - { name: token, in: query, required: true, schema: { type: string } }
      responses:
        "200": { description: The card. }
components:
  securitySchemes:
    api_key: { type: apiKey, in: query, name: key }
    api_token: { type: apiKey, in: query, name: token }
"#,
    );
    let keys: Vec<(&str, &str)> = plan
        .server
        .auth
        .iter()
        .filter_map(|auth| match auth {
            super::Auth::ApiKey { name, env, .. } => Some((name.as_str(), env.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        keys,
        [("key", "BOARDS_API_KEY"), ("token", "BOARDS_API_TOKEN")]
    );
    let properties = tool(&plan, "get_card").input_schema["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect::<Vec<_>>());
    assert_eq!(
        properties,
        Some(vec!["id".to_string()]),
        "no credential is an argument"
    );
}

#[test]
fn the_search_index_knows_what_the_objects_an_operation_returns_are() {
    let spec = r##"
openapi: 3.1.0
info: { title: Payments, version: "1" }
paths:
  /transfers:
    post:
      operationId: createTransfer
      summary: Create a transfer
      responses:
        "200":
          description: OK
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Transfer" }
  /payouts:
    get:
      operationId: listPayouts
      summary: List payouts
      responses:
        "200":
          description: OK
          content:
            application/json:
              schema:
                type: object
                properties:
                  data: { type: array, items: { $ref: "#/components/schemas/Payout" } }
components:
  schemas:
    Transfer:
      type: object
      description: A Transfer object is created when you move funds between accounts. It is not a payout.
      properties: { id: { type: string } }
    Payout:
      type: object
      description: A Payout object is created when you send money to your bank account.
      properties: { id: { type: string } }
"##;
    let options = super::Options {
        discovery_threshold: Some(0),
        ..Default::default()
    };
    let plan = super::plan(&api(spec), &options, None).expect("the spec plans");
    let index = crate::search::Index::parse(&plan.discovery.expect("discovery").index)
        .expect("the index reads back");
    let first = |query: &str| {
        let hits = index.search(query, &crate::search::Filter::default(), 2);
        index.entries[hits[0].entry].name.clone()
    };
    // Neither summary says so: the objects' descriptions do, the first sentence only.
    assert_eq!(first("move funds between accounts"), "createTransfer");
    assert_eq!(first("money sent to my bank"), "listPayouts");
    assert!(
        index
            .search("payout", &crate::search::Filter::default(), 2)
            .iter()
            .all(|hit| index.entries[hit.entry].name != "createTransfer"),
        "the second sentence is left out"
    );
}

// ---------------------------------------------------------------------------------------------
// Plan: what the planner makes of a loaded document without a curation file

fn tracker() -> Api {
    load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/tracker/openapi.yaml"))
        .expect("the tracker spec loads")
}

/// Plans `api` without a curation file.
fn plan_with(api: &Api, options: &plan::Options) -> Result<plan::Plan, String> {
    plan::plan(api, options, None)
}

fn plan_of(text: &str) -> plan::Plan {
    plan_with(&api(text), &plan::Options::default()).expect("the document plans")
}

#[test]
fn plan_annotations_follow_the_http_method_with_only_the_hints_that_differ_from_the_defaults() {
    let read_only = Annotations {
        read_only: Some(true),
        ..Annotations::default()
    };
    assert_eq!(Annotations::from_method(Method::Get), read_only);
    assert_eq!(Annotations::from_method(Method::Head), read_only);
    // Destructive is MCP's default, so PUT and DELETE say only that they are idempotent.
    let idempotent = Annotations {
        idempotent: Some(true),
        ..Annotations::default()
    };
    assert_eq!(Annotations::from_method(Method::Delete), idempotent);
    assert_eq!(Annotations::from_method(Method::Put), idempotent);
    for method in [Method::Delete, Method::Put] {
        let write = Annotations::from_method(method);
        assert!(!write.read_only_hint() && write.destructive_hint() && write.idempotent_hint());
    }
    // POST and PATCH are everything MCP assumes: not read-only, destructive, not idempotent.
    for method in [Method::Post, Method::Patch] {
        let write = Annotations::from_method(method);
        assert_eq!(write, Annotations::default(), "{method:?}");
        assert!(!write.read_only_hint() && write.destructive_hint() && !write.idempotent_hint());
    }

    let plan = plan_with(&tracker(), &plan::Options::default()).unwrap();
    let annotations = |name: &str| {
        plan.tools
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no tool {name}"))
            .definition()["annotations"]
            .clone()
    };
    assert_eq!(annotations("list_issues"), json!({ "readOnlyHint": true }));
    assert_eq!(
        annotations("delete_issue"),
        json!({ "idempotentHint": true })
    );
    // No annotations object at all.
    assert_eq!(annotations("create_issue"), Value::Null);
}

#[test]
fn plan_flattens_body_properties_apart_from_a_parameter_of_the_same_name() {
    let plan = plan_of(
        r#"
openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /pets:
    post:
      operationId: createPet
      parameters:
        - { name: name, in: query, required: true, schema: { type: string } }
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name]
              properties:
                name: { type: string, maxLength: 10 }
                age: { type: integer }
      responses: {}
"#,
    );
    let fields: Vec<(&str, &str, &FieldTarget, bool)> = plan.operations[0]
        .fields
        .iter()
        .map(|f| {
            (
                f.property.as_str(),
                f.api_name.as_str(),
                &f.target,
                f.required,
            )
        })
        .collect();
    assert_eq!(
        fields,
        [
            ("name", "name", &FieldTarget::Param(Location::Query), true),
            ("body_name", "name", &FieldTarget::BodyProperty, true),
            ("age", "age", &FieldTarget::BodyProperty, false),
        ]
    );
    let idents: Vec<&str> = plan.operations[0]
        .fields
        .iter()
        .map(|f| f.ident.as_str())
        .collect();
    assert_eq!(idents, ["name", "body_name", "age"]);
    assert_eq!(
        plan.tools[0].input_schema,
        json!({
            "type": "object",
            "properties": {
                "name": { "type": "string" },
                "body_name": { "type": "string", "maxLength": 10 },
                "age": { "type": "integer" }
            },
            "required": ["name", "body_name"],
            "additionalProperties": false
        })
    );
}

#[test]
fn plan_keeps_a_body_that_is_not_an_object_as_one_body_property() {
    let plan = plan_of(
        r#"
openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /tags:
    put:
      operationId: setTags
      requestBody:
        required: true
        description: The new tags.
        content:
          application/json:
            schema: { type: array, items: { type: string } }
      responses: {}
"#,
    );
    let fields = &plan.operations[0].fields;
    assert_eq!(fields.len(), 1);
    assert_eq!(
        (
            fields[0].property.as_str(),
            &fields[0].target,
            fields[0].required
        ),
        ("body", &FieldTarget::WholeBody, true)
    );
    assert_eq!(
        plan.tools[0].input_schema["properties"]["body"],
        json!({ "type": "array", "items": { "type": "string" }, "description": "The new tags." })
    );
    assert_eq!(plan.tools[0].input_schema["required"], json!(["body"]));
}

#[test]
fn plan_wraps_an_array_result_under_result() {
    let plan = plan_of(
        r#"
openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /tags:
    get:
      operationId: listTags
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: array, items: { type: string } }
  /tag:
    get:
      operationId: getTag
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: object, properties: { tag: { type: string } } }
"#,
    );
    let list = &plan.tools[0];
    assert_eq!(
        list.output_schema,
        Some(json!({
            "type": "object",
            "properties": { "result": { "type": "array", "items": { "type": "string" } } },
            "required": ["result"]
        }))
    );
    assert!(matches!(
        list.action,
        plan::Action::Call {
            operation: 0,
            wrap: true
        }
    ));
    let add = &plan.tools[1];
    assert_eq!(
        add.output_schema,
        Some(json!({ "type": "object", "properties": { "tag": { "type": "string" } } }))
    );
    assert!(matches!(
        add.action,
        plan::Action::Call {
            operation: 1,
            wrap: false
        }
    ));
}

#[test]
fn plan_hoists_recursive_defs_to_the_root_of_tool_schemas() {
    let plan = plan_of(
        r#"
openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /trees:
    post:
      operationId: plantTree
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                root: { $ref: '#/components/schemas/Node' }
      responses:
        '204': { description: planted }
    get:
      operationId: listTrees
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: array, items: { $ref: '#/components/schemas/Node' } }
components:
  schemas:
    Node:
      type: object
      properties:
        children: { type: array, items: { $ref: '#/components/schemas/Node' } }
"#,
    );
    let node = json!({
        "type": "object",
        "properties": { "children": { "type": "array", "items": { "$ref": "#/$defs/Node" } } }
    });
    let plant = plan.tools.iter().find(|t| t.name == "plant_tree").unwrap();
    assert_eq!(plant.input_schema["properties"]["root"], node);
    assert_eq!(plant.input_schema["$defs"], json!({ "Node": node }));
    let list = plan.tools.iter().find(|t| t.name == "list_trees").unwrap();
    let output = list.output_schema.as_ref().unwrap();
    assert_eq!(
        output["properties"]["result"],
        json!({ "type": "array", "items": node })
    );
    assert_eq!(output["$defs"], json!({ "Node": node }));
}

#[test]
fn plan_names_the_server_from_the_title_or_from_the_name_option() {
    let api = tracker();
    let from_title = plan_with(&api, &plan::Options::default()).unwrap().server;
    assert_eq!(
        (
            from_title.name.as_str(),
            from_title.crate_name.as_str(),
            from_title.env_prefix.as_str()
        ),
        ("tracker", "tracker-mcp", "TRACKER")
    );
    assert_eq!(
        from_title.default_base_url.as_deref(),
        Some("https://api.tracker.example")
    );

    let options = plan::Options {
        name: Some("Billing API".into()),
        ..Default::default()
    };
    let named = plan_with(&api, &options).unwrap().server;
    assert_eq!(
        (
            named.name.as_str(),
            named.crate_name.as_str(),
            named.env_prefix.as_str()
        ),
        ("billing-api", "billing-api-mcp", "BILLING_API")
    );
    assert_eq!(
        named.auth,
        [Auth::Bearer {
            env: "BILLING_API_TOKEN".into(),
            params: Vec::new(),
        }]
    );

    let options = plan::Options {
        name: Some("--".into()),
        ..Default::default()
    };
    let error = plan_with(&api, &options).unwrap_err();
    assert_eq!(
        error,
        r#"--name "--" has no letters or digits to make a name of"#
    );
}

#[test]
fn plan_reads_a_bearer_token_from_prefix_token() {
    let server = plan_with(&tracker(), &plan::Options::default())
        .unwrap()
        .server;
    assert_eq!(
        server.auth,
        [Auth::Bearer {
            env: "TRACKER_TOKEN".into(),
            params: Vec::new(),
        }]
    );
    assert_eq!(server.auth[0].env_vars(), ["TRACKER_TOKEN"]);
}

#[test]
fn plan_makes_one_tool_per_tracker_operation_in_document_order() {
    let plan = plan_with(&tracker(), &plan::Options::default()).unwrap();
    let names: Vec<&str> = plan.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "list_projects",
            "list_users",
            "get_current_user",
            "list_issues",
            "create_issue",
            "get_issue",
            "delete_issue",
            "get_issue_by_key",
            "list_transitions",
            "transition_issue",
        ]
    );
}

#[test]
fn plan_gathers_a_flattened_bodys_defs_once_at_the_root_of_the_input_schema() {
    let plan = plan_of(
        r#"
openapi: 3.0.3
info: { title: T, version: '1' }
paths:
  /trees:
    post:
      operationId: plantTree
      parameters:
        - { name: at, in: query, schema: { $ref: '#/components/schemas/Place' } }
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                anything: true
                root: { $ref: '#/components/schemas/Node' }
                name: { type: string }
                spare: { $ref: '#/components/schemas/Node' }
      responses:
        '204': { description: planted }
components:
  schemas:
    Place:
      type: object
      properties:
        near: { $ref: '#/components/schemas/Place' }
    Node:
      type: object
      properties:
        children: { type: array, items: { $ref: '#/components/schemas/Node' } }
"#,
    );
    let plant = plan.tools.iter().find(|t| t.name == "plant_tree").unwrap();
    let input = &plant.input_schema;
    let defs: Vec<&String> = input["$defs"].as_object().unwrap().keys().collect();
    assert_eq!(defs, ["Place", "Node"]);
    let properties = input["properties"].as_object().unwrap();
    assert_eq!(
        properties.keys().collect::<Vec<_>>(),
        ["at", "anything", "root", "name", "spare"]
    );
    for (name, property) in properties {
        assert!(property.get("$defs").is_none(), "{name}: {property}");
    }
    assert_eq!(properties["anything"], json!(true));
    for name in ["root", "spare"] {
        let text = properties[name].to_string();
        assert!(
            text.contains(r##""$ref":"#/$defs/Node""##),
            "{name}: {text}"
        );
    }
}

/// A spec of `count` operations, each taking a choice `state`, a list of choices `kinds` and a
/// body with a choice `mode`, whose idents are the same in every operation (so that their type
/// names are numbered across operations); every third operation takes the same input as the one
/// before it.
fn choices_spec(count: usize) -> String {
    let mut spec = String::from("openapi: 3.0.3\ninfo: { title: Choices, version: '1' }\npaths:\n");
    for n in 0..count {
        let states = match n % 3 {
            2 => format!("[open, closed, s{}]", n - 1),
            _ => format!("[open, closed, s{n}]"),
        };
        spec.push_str(&format!(
            "  /things{n}:\n    post:\n      operationId: thing{n}\n      parameters:\n\
             \x20       - {{ name: state, in: query, schema: {{ type: string, enum: {states} }} }}\n\
             \x20       - {{ name: kinds, in: query, schema: {{ type: array, items: {{ type: string, enum: [a, b] }} }} }}\n\
             \x20     requestBody:\n        content:\n          application/json:\n\
             \x20           schema: {{ type: object, properties: {{ mode: {{ type: string, enum: [fast, slow] }}, note: {{ type: string }} }} }}\n\
             \x20     responses:\n        '200':\n          description: ok\n\
             \x20         content:\n            application/json:\n\
             \x20             schema: {{ type: object, properties: {{ id: {{ type: string }} }} }}\n"
        ));
    }
    spec
}

/// Operations planned together (what each needs of itself made on all cores, in batches) get
/// the plans that planning them one after another gives: the same function, parameter and
/// choice type names, numbered across operations and batches in the operations' order, and the
/// same input and response schemas, shared where they are the same.
#[test]
fn operations_planned_together_are_planned_as_one_after_another() {
    let api = api(&choices_spec(150));
    let mut operations: Vec<&crate::api::Operation> = api.operations.iter().collect();
    // An operation asked for twice is planned once.
    operations.insert(70, operations[3]);
    let mut together = super::Builder::new(&api);
    let indexes = together.operations(&operations);
    let mut apart = super::Builder::new(&api);
    let expected: Vec<usize> = operations.iter().map(|op| apart.operation(op)).collect();
    assert_eq!(indexes, expected);
    assert_eq!(together.operations.len(), 150);
    assert_eq!(
        format!("{:?}", together.operations),
        format!("{:?}", apart.operations)
    );
    // The oracle of the names: `fields` of each operation in turn, in one scope of type names.
    let mut type_names = super::Builder::new(&api).type_names;
    for (operation, plan) in api.operations.iter().zip(&together.operations) {
        type_names.unique_type(crate::naming::rust_type_ident(
            &format!("{} params", operation.id),
            "OperationParams",
        ));
        let (fields, ..) = super::fields(
            operation,
            &mut type_names,
            super::Schemas::Built,
            &mut Default::default(),
        );
        assert_eq!(format!("{fields:?}"), format!("{:?}", plan.fields));
    }
    let choice = |plan: &super::OperationPlan, field: usize| match &plan.fields[field].ty {
        super::FieldType::StringEnum { type_name, .. } => type_name.clone(),
        super::FieldType::List(item) => match &**item {
            super::FieldType::StringEnum { type_name, .. } => type_name.clone(),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    };
    let last = &together.operations[149];
    assert_eq!(
        [choice(last, 0), choice(last, 1), choice(last, 2)],
        ["State150", "Kinds150", "Mode150"]
    );
    // Operations 1 and 2 take the same input; 0 and 1 do not.
    let [zero, one, two] = [0, 1, 2].map(|i| &together.operations[i].input_schema);
    assert!(std::sync::Arc::ptr_eq(one, two) && !std::sync::Arc::ptr_eq(zero, one));
    let responses: Vec<_> = together
        .operations
        .iter()
        .map(|op| op.response.clone().unwrap())
        .collect();
    assert!(
        responses
            .iter()
            .all(|r| std::sync::Arc::ptr_eq(r, &responses[0]))
    );
}

/// Operations whose inputs look alike at the top but differ deeper down (a nested property's
/// type, a parameter's description) each get an input schema of their own, and one whose inputs
/// are the same as an earlier one's shares that one's: an input schema is taken from another
/// operation only when it would be built the same.
#[test]
fn an_input_schema_is_shared_only_by_operations_that_take_the_same_inputs() {
    let operation = |n: usize, nested: &str, description: &str| {
        format!(
            "  /things{n}:\n    post:\n      operationId: thing{n}\n      parameters:\n\
             \x20       - {{ name: q, in: query, description: {description}, schema: {{ type: string }} }}\n\
             \x20     requestBody:\n        content:\n          application/json:\n\
             \x20           schema: {{ type: object, properties: {{ deep: {{ type: object, properties: {{ leaf: {{ type: object, properties: {{ value: {{ type: {nested} }} }} }} }} }} }} }}\n\
             \x20     responses:\n        '204':\n          description: done\n"
        )
    };
    let spec = [
        "openapi: 3.0.3\ninfo: { title: Alike, version: '1' }\npaths:\n".to_string(),
        operation(0, "string", "Query."),
        operation(1, "integer", "Query."),
        operation(2, "string", "Query!"),
        operation(3, "string", "Query."),
        operation(4, "integer", "Query."),
    ]
    .concat();
    let api = api(&spec);
    let operations: Vec<&crate::api::Operation> = api.operations.iter().collect();
    let mut together = super::Builder::new(&api);
    let indexes = together.operations(&operations);
    let mut apart = super::Builder::new(&api);
    for (operation, index) in operations.iter().zip(&indexes) {
        let planned = &together.operations[*index];
        let alone = apart.operation(operation);
        let alone = &apart.operations[alone];
        assert_eq!(
            planned.input_schema.to_string(),
            alone.input_schema.to_string(),
            "{}",
            operation.id
        );
    }
    let schema = |n: usize| &together.operations[indexes[n]].input_schema;
    let value = |n: usize| {
        schema(n)["properties"]["deep"]["properties"]["leaf"]["properties"]["value"]["type"].clone()
    };
    assert_eq!(
        [0, 1, 2, 3, 4].map(value),
        ["string", "integer", "string", "string", "integer"].map(|t| serde_json::json!(t))
    );
    assert_eq!(schema(2)["properties"]["q"]["description"], "Query!");
    let shared = |a: usize, b: usize| std::sync::Arc::ptr_eq(schema(a), schema(b));
    assert!(shared(0, 3) && shared(1, 4));
    assert!(!shared(0, 1) && !shared(0, 2) && !shared(1, 2));
}

#[test]
fn field_idents_are_made_once_each_as_naming_makes_them() {
    let mut idents = super::FieldIdents::default();
    let names = [
        "dryRun",
        "type",
        "1st",
        "",
        "\u{e9}t\u{e9}",
        "dryRun",
        "dry_run",
        "type",
        "",
        "1st",
    ];
    for name in names {
        assert_eq!(
            idents.of(name),
            crate::naming::rust_snake_ident(name, "field"),
            "{name:?}"
        );
    }
    assert_eq!(idents.0.len(), 6);
}
