//! Errors reworded for the model: a curated message for a status ([`Explain`]).

use super::super::ToolError;

/// Rewordings of a [`ToolError`] for curated tools.
pub trait Explain {
    /// For a "not found" error that lists the available values, tells the model how to retry:
    /// ` Call {tool} again with one of these values in the {argument} parameter.`
    fn for_argument(self, tool: &str, argument: &str) -> ToolError;
    /// For an API error status with a curated message, that message with its `{name}`
    /// placeholders filled from `vars`; any other error unchanged.
    fn explain(self, messages: &[(u16, &str)], vars: &[(&str, &str)]) -> ToolError;
    /// Names the step of a multi-step tool that failed: `Step {step} ({operation}) failed: …`.
    fn in_step(self, step: usize, operation: &str) -> ToolError;
}

impl Explain for ToolError {
    fn for_argument(self, tool: &str, argument: &str) -> ToolError {
        match self {
            // Only an error that lists values gets the hint: "one of these values" means
            // nothing without a list.
            ToolError::NotFound(not_found) if !not_found.available.is_empty() => {
                ToolError::InvalidArguments(format!(
                    "{not_found} Call {tool} again with one of these values in the {argument} parameter."
                ))
            }
            other => other,
        }
    }

    fn explain(self, messages: &[(u16, &str)], vars: &[(&str, &str)]) -> ToolError {
        let ToolError::Status { status, .. } = &self else {
            return self;
        };
        match messages.iter().find(|(code, _)| code == status) {
            Some((_, message)) => ToolError::InvalidArguments(fill_placeholders(message, vars)),
            None => self,
        }
    }

    fn in_step(self, step: usize, operation: &str) -> ToolError {
        ToolError::InvalidArguments(format!("Step {step} ({operation}) failed: {self}"))
    }
}

/// Replaces each `{name}` in `template` with its value from `vars`, in one pass so that a value
/// containing braces is never expanded again; unknown placeholders are left as they are.
pub(super) fn fill_placeholders(template: &str, vars: &[(&str, &str)]) -> String {
    let mut filled = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        filled.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let known = after.find('}').and_then(|close| {
            let name = &after[..close];
            vars.iter()
                .find(|(var, _)| *var == name)
                .map(|(_, value)| (close, *value))
        });
        match known {
            Some((close, value)) => {
                filled.push_str(value);
                rest = &after[close + 1..];
            }
            None => {
                filled.push('{');
                rest = after;
            }
        }
    }
    filled.push_str(rest);
    filled
}

#[cfg(test)]
mod tests {
    use super::super::resolve::not_found;
    use super::super::tests::{keys, status_error, text};
    use super::*;

    #[test]
    fn for_argument_adds_a_retry_hint_to_not_found_errors() {
        let error = not_found("project key", "WEBB", keys(&["WEB", "API"]))
            .for_argument("list_issues", "project");
        assert_eq!(
            text(error),
            "Project \"WEBB\" not found. Available project keys: WEB, API. Call list_issues again with one of these values in the project parameter."
        );
    }

    #[test]
    fn for_argument_leaves_other_errors_alone() {
        let error = ToolError::InvalidArguments("Invalid argument `limit`.".to_string())
            .for_argument("list_issues", "project");
        assert_eq!(text(error), "Invalid argument `limit`.");
        let error = not_found("user", "bob", Vec::new()).for_argument("assign", "user");
        assert_eq!(text(error), "User \"bob\" not found.");
        let error = status_error(404).for_argument("assign", "user");
        assert!(matches!(error, ToolError::Status { status: 404, .. }));
    }

    #[test]
    fn explain_replaces_a_status_with_its_curated_message() {
        let messages = [
            (
                404,
                "Project {project} does not exist or you cannot see it.",
            ),
            (409, "Conflict."),
        ];
        let error = status_error(404).explain(&messages, &[("project", "WEB")]);
        assert_eq!(
            text(error),
            "Project WEB does not exist or you cannot see it."
        );
    }

    #[test]
    fn explain_leaves_unknown_placeholders_and_does_not_expand_values() {
        let messages = [(404, "{a} and {missing} and {b")];
        let error = status_error(404).explain(&messages, &[("a", "{b}"), ("b", "B")]);
        assert_eq!(text(error), "{b} and {missing} and {b");
    }

    #[test]
    fn explain_keeps_errors_without_a_curated_message() {
        let error = status_error(500).explain(&[(404, "gone")], &[]);
        assert!(matches!(error, ToolError::Status { status: 500, .. }));
        let error = ToolError::InvalidArguments("bad".to_string()).explain(&[(404, "gone")], &[]);
        assert_eq!(text(error), "bad");
    }

    #[test]
    fn in_step_names_the_failed_step() {
        let error = ToolError::InvalidArguments("Project \"X\" not found.".to_string())
            .in_step(2, "find the project");
        assert_eq!(
            text(error),
            "Step 2 (find the project) failed: Project \"X\" not found."
        );
        let error = ToolError::Transport {
            operation: "GET /projects",
            message: "the API did not answer in time".to_string(),
        }
        .in_step(1, "GET /projects");
        assert_eq!(
            text(error),
            "Step 1 (GET /projects) failed: Could not complete GET /projects: the API did not answer in time. Try again later."
        );
    }
}
