//! The acceptance example: with `specs/tracker/mcpgen.yaml`, the tracker server's tools are the
//! three tools of the reference article's "After the redesign", field for field.
//! (`tests/acceptance/article-tools.json` is that section's JSON, verbatim.)

use serde_json::Value;

use crate::support::repo;

fn curated_tools() -> Vec<Value> {
    let (plan, _) = mcpgen::generate(
        &repo().join("specs/tracker/openapi.yaml"),
        Some(&repo().join("specs/tracker/mcpgen.yaml")),
        &mcpgen::Options::default(),
    )
    .expect("the tracker example generates");
    plan.tools.iter().map(|tool| tool.definition()).collect()
}

fn article_tools() -> Vec<Value> {
    let text = std::fs::read_to_string(repo().join("tests/acceptance/article-tools.json"))
        .expect("the article's tools are in tests/acceptance");
    serde_json::from_str(&text).expect("the article's tools are JSON")
}

#[test]
fn curated_tracker_tools_equal_the_articles_redesign_field_for_field() {
    let ours = curated_tools();
    let article = article_tools();
    let names = |tools: &[Value]| -> Vec<String> {
        tools
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(names(&ours), names(&article));
    for (ours, article) in ours.iter().zip(&article) {
        let name = &article["name"];
        for field in ["name", "title", "description", "inputSchema", "annotations"] {
            assert_eq!(ours[field], article[field], "{name}: `{field}` differs");
        }
        match article.get("outputSchema") {
            Some(schema) => assert_eq!(
                &ours["outputSchema"], schema,
                "{name}: outputSchema differs"
            ),
            // The article shows none; ours may have one, but then it must describe an object.
            None => {
                if let Some(schema) = ours.get("outputSchema") {
                    assert_eq!(
                        schema["type"], "object",
                        "{name}: outputSchema is not an object"
                    );
                }
            }
        }
        let extra: Vec<&String> = ours
            .as_object()
            .expect("a tool is an object")
            .keys()
            .filter(|key| {
                !article.as_object().expect("an object").contains_key(*key)
                    && *key != "outputSchema"
            })
            .collect();
        assert!(
            extra.is_empty(),
            "{name}: fields the article does not have: {extra:?}"
        );
    }
}

#[test]
fn no_curated_tracker_tool_can_delete_an_issue() {
    let (plan, files) = mcpgen::generate(
        &repo().join("specs/tracker/openapi.yaml"),
        Some(&repo().join("specs/tracker/mcpgen.yaml")),
        &mcpgen::Options::default(),
    )
    .expect("the tracker example generates");
    let called: Vec<&str> = plan
        .operations
        .iter()
        .map(|op| op.api_id.as_str())
        .collect();
    assert!(
        !called.contains(&"deleteIssue"),
        "the client calls {called:?}"
    );
    let client = files
        .iter()
        .find(|f| f.path == "src/client.rs")
        .expect("a client");
    assert!(
        !client.contents.contains("DELETE"),
        "the generated client can send DELETE"
    );
}
