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
