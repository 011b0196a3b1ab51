//! The in-memory state of the tracker and every rule of the API that does not concern
//! HTTP: lookups, filters, issue numbering, transitions and deletion.

use std::collections::HashMap;

use uuid::Uuid;

use crate::error::ApiError;
use crate::model::{Issue, Priority, Project, State, Timestamp, Transition, User};
use crate::seed;

/// Filters of `listIssues`; an issue is listed only if it matches every filter that is set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IssueFilter {
    pub state: Option<State>,
    pub assignee_id: Option<Uuid>,
    /// Matched case-insensitively as a substring of the title or the description.
    pub text: Option<String>,
}

impl IssueFilter {
    fn matches(&self, issue: &Issue) -> bool {
        self.state.is_none_or(|state| issue.state == state)
            && self
                .assignee_id
                .is_none_or(|assignee| issue.assignee_id == Some(assignee))
            && self.text.as_deref().is_none_or(|text| {
                let needle = text.to_lowercase();
                issue.title.to_lowercase().contains(&needle)
                    || issue.description.to_lowercase().contains(&needle)
            })
    }
}

/// The validated fields of an issue to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewIssue {
    pub title: String,
    pub description: String,
    pub priority: Priority,
    pub assignee_id: Option<Uuid>,
}

/// Everything the tracker knows.
#[derive(Debug, Clone)]
pub struct Store {
    projects: Vec<Project>,
    users: Vec<User>,
    /// Ordered by creation.
    issues: Vec<Issue>,
    /// The number the next issue of each project gets; numbers of deleted issues are
    /// never given again.
    next_numbers: HashMap<Uuid, u32>,
    /// A logical clock for changes made through the API, so that responses stay
    /// reproducible: it starts at 2026-02-01T00:00:00Z and advances one minute per change.
    clock: Timestamp,
}

impl Store {
    /// A store holding the seed data of [`crate::seed`].
    pub fn seeded() -> Store {
        let issues = seed::issues();
        let mut next_numbers = HashMap::new();
        for issue in &issues {
            let next = next_numbers.entry(issue.project_id).or_insert(1);
            *next = (*next).max(issue.number + 1);
        }
        Store {
            projects: seed::projects(),
            users: seed::users(),
            issues,
            next_numbers,
            clock: Timestamp::SEED_EPOCH.plus_hours(31 * 24),
        }
    }

    /// All projects, in creation order.
    pub fn projects(&self) -> &[Project] {
        &self.projects
    }

    /// All users, in creation order.
    pub fn users(&self) -> &[User] {
        &self.users
    }

    /// The user a bearer token belongs to: `<username>-token`.
    pub fn user_with_token(&self, token: &str) -> Option<&User> {
        self.users
            .iter()
            .find(|user| seed::token_of(&user.username) == token)
    }

    /// The project with this id.
    pub fn project(&self, id: Uuid) -> Result<&Project, ApiError> {
        self.projects
            .iter()
            .find(|project| project.id == id)
            .ok_or_else(|| {
                ApiError::not_found(format!(
                    "No project with id {id}. List the projects with GET /v2/projects to find their ids."
                ))
            })
    }

    /// The issues of a project that match the filter, newest (highest number) first.
    pub fn issues(&self, project_id: Uuid, filter: &IssueFilter) -> Result<Vec<Issue>, ApiError> {
        self.project(project_id)?;
        let mut issues: Vec<Issue> = self
            .issues
            .iter()
            .filter(|issue| issue.project_id == project_id && filter.matches(issue))
            .cloned()
            .collect();
        issues.sort_by_key(|issue| std::cmp::Reverse(issue.number));
        Ok(issues)
    }

    /// The issue with this id.
    pub fn issue(&self, id: Uuid) -> Result<&Issue, ApiError> {
        self.position_of(id).map(|index| &self.issues[index])
    }

    /// The issue with a key such as `WEB-142`, matched case-insensitively.
    pub fn issue_by_key(&self, key: &str) -> Result<&Issue, ApiError> {
        let Some((project_key, number)) = split_issue_key(key) else {
            return Err(ApiError::invalid_parameter(format!(
                "issue_key must be a project key, a dash and an issue number, for example WEB-142; got {key:?}."
            )));
        };
        let project = self
            .projects
            .iter()
            .find(|project| project.key.eq_ignore_ascii_case(project_key))
            .ok_or_else(|| {
                ApiError::not_found(format!(
                    "No issue with key {key}: there is no project with key {project_key}. Project keys: {}.",
                    self.project_keys()
                ))
            })?;
        let wanted = format!("{}-{number}", project.key);
        self.issues
            .iter()
            .find(|issue| issue.key == wanted)
            .ok_or_else(|| {
                let last = self.next_number(project.id).saturating_sub(1);
                ApiError::not_found(format!(
                    "No issue with key {wanted}. Issues of {} are numbered from 1 to {last}; deleted issues are gone.",
                    project.key
                ))
            })
    }

    /// Creates an issue in a project, reported by `reporter_id`, in state open.
    pub fn create_issue(
        &mut self,
        project_id: Uuid,
        reporter_id: Uuid,
        new: NewIssue,
    ) -> Result<Issue, ApiError> {
        let project_key = self.project(project_id)?.key.clone();
        if let Some(assignee) = new.assignee_id
            && !self.users.iter().any(|user| user.id == assignee)
        {
            return Err(ApiError::validation_failed(format!(
                "assignee_id {assignee} is not the id of a user. List the users with GET /v2/users."
            )));
        }
        let number = self.next_number(project_id);
        self.next_numbers.insert(project_id, number + 1);
        let key = format!("{project_key}-{number}");
        let now = self.tick();
        let issue = Issue {
            id: seed::issue_id(&key),
            key,
            number,
            project_id,
            title: new.title,
            description: new.description,
            state: State::Open,
            priority: new.priority,
            assignee_id: new.assignee_id,
            reporter_id,
            labels: Vec::new(),
            created_at: now,
            updated_at: now,
        };
        self.issues.push(issue.clone());
        Ok(issue)
    }

    /// The transitions available for the issue now.
    pub fn transitions(&self, issue_id: Uuid) -> Result<Vec<Transition>, ApiError> {
        Ok(transitions_from(self.issue(issue_id)?.state))
    }

    /// Applies one of the issue's available transitions and returns the updated issue.
    pub fn apply_transition(
        &mut self,
        issue_id: Uuid,
        transition_id: Uuid,
    ) -> Result<Issue, ApiError> {
        let index = self.position_of(issue_id)?;
        let current = self.issues[index].state;
        let available = transitions_from(current);
        let Some(transition) = available.iter().find(|t| t.id == transition_id) else {
            let issue = &self.issues[index];
            let offered: Vec<String> = available
                .iter()
                .map(|t| format!("{} \"{}\" (to state {})", t.id, t.name, t.to_state.code()))
                .collect();
            return Err(ApiError::transition_not_available(format!(
                "Transition {transition_id} is not available for {}, which is {} (state {}). Available transitions: {}. List them with GET /v2/issues/{issue_id}/transitions.",
                issue.key,
                current.label(),
                current.code(),
                offered.join(", ")
            )));
        };
        let to_state = transition.to_state;
        let now = self.tick();
        let issue = &mut self.issues[index];
        issue.state = to_state;
        issue.updated_at = now;
        Ok(issue.clone())
    }

    /// Deletes the issue.
    pub fn delete_issue(&mut self, issue_id: Uuid) -> Result<(), ApiError> {
        let index = self.position_of(issue_id)?;
        self.issues.remove(index);
        Ok(())
    }

    fn position_of(&self, issue_id: Uuid) -> Result<usize, ApiError> {
        self.issues
            .iter()
            .position(|issue| issue.id == issue_id)
            .ok_or_else(|| {
                ApiError::not_found(format!(
                    "No issue with id {issue_id}. It may have been deleted; find issues with GET /v2/projects/{{project_id}}/issues or by key with GET /v2/issues/by-key/{{issue_key}}."
                ))
            })
    }

    fn next_number(&self, project_id: Uuid) -> u32 {
        self.next_numbers.get(&project_id).copied().unwrap_or(1)
    }

    fn project_keys(&self) -> String {
        let keys: Vec<&str> = self.projects.iter().map(|p| p.key.as_str()).collect();
        keys.join(", ")
    }

    fn tick(&mut self) -> Timestamp {
        self.clock = self.clock.plus_seconds(60);
        self.clock
    }
}

/// The transitions from a state: one to each other state, in state order.
pub fn transitions_from(from: State) -> Vec<Transition> {
    State::ALL
        .into_iter()
        .filter(|&to| to != from)
        .map(|to| Transition {
            id: seed::transition_id(from, to),
            name: seed::transition_name(from, to),
            to_state: to,
        })
        .collect()
}

/// Splits `WEB-142` into `("WEB", 142)`; `None` unless the key is letters and digits
/// starting with a letter, a dash, and a number.
fn split_issue_key(key: &str) -> Option<(&str, u32)> {
    let (project_key, number) = key.rsplit_once('-')?;
    let valid_project_key = project_key.chars().next()?.is_ascii_alphabetic()
        && project_key.chars().all(|c| c.is_ascii_alphanumeric());
    let valid_number = !number.is_empty() && number.chars().all(|c| c.is_ascii_digit());
    if !(valid_project_key && valid_number) {
        return None;
    }
    // A number too large for u32 belongs to no issue, and neither does 0, which stands
    // for it.
    Some((project_key, number.parse().unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_keys_split_into_project_key_and_number() {
        assert_eq!(split_issue_key("WEB-142"), Some(("WEB", 142)));
        assert_eq!(split_issue_key("web-7"), Some(("web", 7)));
        assert_eq!(split_issue_key("WEB-99999999999"), Some(("WEB", 0)));
        for malformed in ["WEB", "WEB-", "-1", "1WEB-1", "WEB-1a", "WE B-1", ""] {
            assert_eq!(split_issue_key(malformed), None, "{malformed:?}");
        }
    }

    #[test]
    fn every_state_offers_a_transition_to_each_other_state() {
        for from in State::ALL {
            let targets: Vec<State> = transitions_from(from).iter().map(|t| t.to_state).collect();
            let others: Vec<State> = State::ALL.into_iter().filter(|&s| s != from).collect();
            assert_eq!(targets, others);
        }
    }

    #[test]
    fn deleted_issue_numbers_are_not_reused() {
        let mut store = Store::seeded();
        let api = seed::project_id("API");
        let alice = seed::user_id("alice");
        let new = || NewIssue {
            title: "A".to_owned(),
            description: String::new(),
            priority: Priority::Medium,
            assignee_id: None,
        };
        let created = store.create_issue(api, alice, new()).expect("API exists");
        assert_eq!(created.key, "API-7");
        store.delete_issue(created.id).expect("API-7 exists");
        let again = store.create_issue(api, alice, new()).map(|issue| issue.key);
        assert_eq!(again, Ok("API-8".to_owned()));
    }
}
