//! The HTTP layer: routes, bearer authentication, parsing of path, query and body
//! parameters into validated values, and the handlers that call the [`Store`].

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use axum::{Extension, Json, Router};
use serde::Deserialize;
use tokio::sync::RwLock;
use uuid::Uuid;

use crate::error::{ApiError, JsonBody, PathParams, QueryParams};
use crate::model::{self, Issue, Page, Priority, Project, TransitionList, User};
use crate::store::{IssueFilter, NewIssue, Store};

/// The store shared by all requests.
pub type SharedStore = Arc<RwLock<Store>>;

/// The user the request's bearer token belongs to.
#[derive(Debug, Clone)]
struct CurrentUser(User);

/// Longest title `createIssue` accepts, in characters.
const MAX_TITLE_CHARS: usize = 200;

/// The router of every documented operation, behind bearer authentication.
pub fn router(store: SharedStore) -> Router {
    Router::new()
        .route("/v2/projects", get(list_projects))
        .route("/v2/users", get(list_users))
        .route("/v2/user", get(get_current_user))
        .route(
            "/v2/projects/{project_id}/issues",
            get(list_issues).post(create_issue),
        )
        .route("/v2/issues/{issue_id}", get(get_issue).delete(delete_issue))
        .route("/v2/issues/by-key/{issue_key}", get(get_issue_by_key))
        .route(
            "/v2/issues/{issue_id}/transitions",
            get(list_transitions).post(transition_issue),
        )
        .fallback(unknown_route)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(store.clone(), authenticate))
        .with_state(store)
}

/// Lets a request through only with `Authorization: Bearer <username>-token`, and makes
/// that user the [`CurrentUser`].
async fn authenticate(
    State(store): State<SharedStore>,
    mut request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let token = bearer_token(request.headers())?;
    let user = store
        .read()
        .await
        .user_with_token(&token)
        .cloned()
        .ok_or_else(|| {
            ApiError::unauthorized(
                "The bearer token is not valid. Send the API token of a Tracker user as Authorization: Bearer <token>.",
            )
        })?;
    request.extensions_mut().insert(CurrentUser(user));
    Ok(next.run(request).await)
}

fn bearer_token(headers: &HeaderMap) -> Result<String, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Err(ApiError::unauthorized(
            "Missing bearer token: send Authorization: Bearer <token>.",
        ));
    };
    value
        .to_str()
        .ok()
        .and_then(|value| value.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim().to_owned())
        .ok_or_else(|| {
            ApiError::unauthorized(
                "The Authorization header must use the Bearer scheme: Authorization: Bearer <token>.",
            )
        })
}

async fn unknown_route(method: Method, uri: Uri) -> ApiError {
    ApiError::not_found(format!(
        "No operation {method} {}. The operations are described in specs/tracker/openapi.yaml.",
        uri.path()
    ))
}

async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::method_not_allowed(format!(
        "{} does not support {method}. The operations are described in specs/tracker/openapi.yaml.",
        uri.path()
    ))
}

/// The `page` and `per_page` query parameters, still unparsed so that a bad value gets a
/// message of our own.
#[derive(Debug, Deserialize)]
struct PageQuery {
    page: Option<String>,
    per_page: Option<String>,
}

/// A validated page request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pagination {
    page: u32,
    per_page: u32,
}

impl Pagination {
    const DEFAULT_PER_PAGE: u32 = 20;
    const MAX_PER_PAGE: u32 = 50;

    fn parse(page: Option<&str>, per_page: Option<&str>) -> Result<Pagination, ApiError> {
        let page = match page {
            None => 1,
            Some(raw) => parse_integer(raw)
                .filter(|&page| page >= 1)
                .and_then(|page| u32::try_from(page).ok())
                .ok_or_else(|| {
                    ApiError::invalid_parameter(format!(
                        "page must be an integer of at least 1, got {raw:?}."
                    ))
                })?,
        };
        let per_page = match per_page {
            None => Self::DEFAULT_PER_PAGE,
            Some(raw) => parse_integer(raw)
                .filter(|per_page| (1..=i64::from(Self::MAX_PER_PAGE)).contains(per_page))
                .and_then(|per_page| u32::try_from(per_page).ok())
                .ok_or_else(|| {
                    ApiError::invalid_parameter(format!(
                        "per_page must be between 1 and {}, got {raw:?}.",
                        Self::MAX_PER_PAGE
                    ))
                })?,
        };
        Ok(Pagination { page, per_page })
    }

    fn apply<T: Clone>(self, items: &[T]) -> Page<T> {
        let per_page = self.per_page as usize;
        let skipped = (self.page as usize - 1).saturating_mul(per_page);
        Page {
            items: items.iter().skip(skipped).take(per_page).cloned().collect(),
            page: self.page,
            per_page: self.per_page,
            total: items.len(),
        }
    }
}

/// Parses an integer query parameter; `None` if it is not an integer.
fn parse_integer(raw: &str) -> Option<i64> {
    raw.trim().parse().ok()
}

/// Parses a UUID path or query parameter.
fn parse_uuid(name: &str, raw: &str) -> Result<Uuid, ApiError> {
    Uuid::parse_str(raw.trim()).map_err(|_| {
        let hint = match name {
            "project_id" => " Use the project's id from GET /v2/projects, not its key.",
            "issue_id" => " Use the issue's id, not its key; GET /v2/issues/by-key/{issue_key} finds an issue by key.",
            "assignee_id" => " Use the user's id from GET /v2/users or GET /v2/user, not the username.",
            _ => "",
        };
        ApiError::invalid_parameter(format!("{name} must be a UUID, got {raw:?}.{hint}"))
    })
}

async fn list_projects(
    State(store): State<SharedStore>,
    QueryParams(query): QueryParams<PageQuery>,
) -> Result<Json<Page<Project>>, ApiError> {
    let pagination = Pagination::parse(query.page.as_deref(), query.per_page.as_deref())?;
    Ok(Json(pagination.apply(store.read().await.projects())))
}

async fn list_users(
    State(store): State<SharedStore>,
    QueryParams(query): QueryParams<PageQuery>,
) -> Result<Json<Page<User>>, ApiError> {
    let pagination = Pagination::parse(query.page.as_deref(), query.per_page.as_deref())?;
    Ok(Json(pagination.apply(store.read().await.users())))
}

async fn get_current_user(Extension(CurrentUser(user)): Extension<CurrentUser>) -> Json<User> {
    Json(user)
}

/// The query parameters of `listIssues`, still unparsed.
#[derive(Debug, Deserialize)]
struct ListIssuesQuery {
    state: Option<String>,
    assignee_id: Option<String>,
    q: Option<String>,
    page: Option<String>,
    per_page: Option<String>,
}

impl ListIssuesQuery {
    fn filter(&self) -> Result<IssueFilter, ApiError> {
        let state = self
            .state
            .as_deref()
            .map(|raw| {
                parse_integer(raw)
                    .and_then(model::State::from_code)
                    .ok_or_else(|| {
                        ApiError::invalid_parameter(format!(
                            "state must be 1 (open), 2 (in progress) or 3 (done), got {raw:?}."
                        ))
                    })
            })
            .transpose()?;
        let assignee_id = self
            .assignee_id
            .as_deref()
            .map(|raw| parse_uuid("assignee_id", raw))
            .transpose()?;
        Ok(IssueFilter {
            state,
            assignee_id,
            text: self.q.clone(),
        })
    }
}

async fn list_issues(
    State(store): State<SharedStore>,
    PathParams(raw_project_id): PathParams<String>,
    QueryParams(query): QueryParams<ListIssuesQuery>,
) -> Result<(HeaderMap, Json<Page<Issue>>), ApiError> {
    let project_id = parse_uuid("project_id", &raw_project_id)?;
    let filter = query.filter()?;
    let pagination = Pagination::parse(query.page.as_deref(), query.per_page.as_deref())?;
    let issues = store.read().await.issues(project_id, &filter)?;
    let page = pagination.apply(&issues);
    let mut headers = HeaderMap::new();
    if let Some(link) = next_link(&raw_project_id, &query, &page)
        && let Ok(value) = link.parse()
    {
        headers.insert(header::LINK, value);
    }
    Ok((headers, Json(page)))
}

/// The `Link` header of a page of issues while more pages follow (`rel="next"`), for clients
/// that walk pages by links rather than page numbers.
fn next_link(project_id: &str, query: &ListIssuesQuery, page: &Page<Issue>) -> Option<String> {
    let shown = page.page as usize * page.per_page as usize;
    if shown >= page.total {
        return None;
    }
    let mut pairs: Vec<(&str, String)> = Vec::new();
    for (name, value) in [
        ("state", &query.state),
        ("assignee_id", &query.assignee_id),
        ("q", &query.q),
    ] {
        if let Some(value) = value {
            pairs.push((name, value.clone()));
        }
    }
    pairs.push(("page", (page.page + 1).to_string()));
    pairs.push(("per_page", page.per_page.to_string()));
    let query = serde_urlencoded::to_string(&pairs).unwrap_or_default();
    Some(format!(
        "</v2/projects/{project_id}/issues?{query}>; rel=\"next\""
    ))
}

/// The body of `createIssue` (`NewIssue` in the document), before validation.
#[derive(Debug, Deserialize)]
struct NewIssueBody {
    title: String,
    description: Option<String>,
    priority: Option<i64>,
    assignee_id: Option<Uuid>,
}

impl NewIssueBody {
    fn validate(self) -> Result<NewIssue, ApiError> {
        let title = self.title.trim();
        let title_chars = title.chars().count();
        if title_chars == 0 || title_chars > MAX_TITLE_CHARS {
            return Err(ApiError::validation_failed(format!(
                "title must be 1 to {MAX_TITLE_CHARS} characters long and not blank; got {title_chars} characters."
            )));
        }
        let priority = match self.priority {
            None => Priority::Medium,
            Some(code) => Priority::from_code(code).ok_or_else(|| {
                ApiError::validation_failed(format!(
                    "priority must be 1 (low), 2 (medium) or 3 (high), got {code}."
                ))
            })?,
        };
        Ok(NewIssue {
            title: title.to_owned(),
            description: self.description.unwrap_or_default(),
            priority,
            assignee_id: self.assignee_id,
        })
    }
}

async fn create_issue(
    State(store): State<SharedStore>,
    Extension(CurrentUser(user)): Extension<CurrentUser>,
    PathParams(project_id): PathParams<String>,
    JsonBody(body): JsonBody<NewIssueBody>,
) -> Result<(StatusCode, Json<Issue>), ApiError> {
    let project_id = parse_uuid("project_id", &project_id)?;
    let new = body.validate()?;
    let issue = store.write().await.create_issue(project_id, user.id, new)?;
    Ok((StatusCode::CREATED, Json(issue)))
}

async fn get_issue(
    State(store): State<SharedStore>,
    PathParams(issue_id): PathParams<String>,
) -> Result<Json<Issue>, ApiError> {
    let issue_id = parse_uuid("issue_id", &issue_id)?;
    Ok(Json(store.read().await.issue(issue_id)?.clone()))
}

async fn get_issue_by_key(
    State(store): State<SharedStore>,
    PathParams(issue_key): PathParams<String>,
) -> Result<Json<Issue>, ApiError> {
    Ok(Json(store.read().await.issue_by_key(&issue_key)?.clone()))
}

async fn delete_issue(
    State(store): State<SharedStore>,
    PathParams(issue_id): PathParams<String>,
) -> Result<StatusCode, ApiError> {
    let issue_id = parse_uuid("issue_id", &issue_id)?;
    store.write().await.delete_issue(issue_id)?;
    Ok(StatusCode::NO_CONTENT)
}

async fn list_transitions(
    State(store): State<SharedStore>,
    PathParams(issue_id): PathParams<String>,
) -> Result<Json<TransitionList>, ApiError> {
    let issue_id = parse_uuid("issue_id", &issue_id)?;
    let items = store.read().await.transitions(issue_id)?;
    Ok(Json(TransitionList { items }))
}

/// The body of `transitionIssue` (`TransitionRequest` in the document).
#[derive(Debug, Deserialize)]
struct TransitionBody {
    transition_id: Uuid,
}

async fn transition_issue(
    State(store): State<SharedStore>,
    PathParams(issue_id): PathParams<String>,
    JsonBody(body): JsonBody<TransitionBody>,
) -> Result<Json<Issue>, ApiError> {
    let issue_id = parse_uuid("issue_id", &issue_id)?;
    let issue = store
        .write()
        .await
        .apply_transition(issue_id, body.transition_id)?;
    Ok(Json(issue))
}
