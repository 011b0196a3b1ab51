//! The API's one error type, its JSON body (`{"error": {"code", "message"}}`), and the
//! request extractors whose rejections are turned into that body instead of axum's plain
//! text.

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error response: HTTP status, machine-readable code and a message that says what to
/// change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ApiError {
    /// 400: a path or query parameter is malformed or out of range.
    pub fn invalid_parameter(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "invalid_parameter", message)
    }

    /// 401: the bearer token is missing or belongs to nobody.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }

    /// 404: the project, issue or route does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// 405: the route exists but not with this method.
    pub fn method_not_allowed(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            message,
        )
    }

    /// 409: the transition cannot be applied from the current state.
    pub fn transition_not_available(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, "transition_not_available", message)
    }

    /// 422: the body is not the JSON document the operation expects.
    pub fn invalid_body(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", message)
    }

    /// 422: the body is well-formed JSON but a value is not allowed.
    pub fn validation_failed(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_failed",
            message,
        )
    }

    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
        }
    }

    /// The HTTP status of the response.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The machine-readable code, for example `not_found`.
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// The human-readable message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = axum::Json(json!({
            "error": { "code": self.code, "message": self.message }
        }));
        if self.status == StatusCode::UNAUTHORIZED {
            (self.status, [(header::WWW_AUTHENTICATE, "Bearer")], body).into_response()
        } else {
            (self.status, body).into_response()
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        Self::invalid_body(format!(
            "The request body must be a JSON object as described by the API: {}",
            rejection.body_text()
        ))
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> Self {
        Self::invalid_parameter(rejection.body_text())
    }
}

impl From<PathRejection> for ApiError {
    fn from(rejection: PathRejection) -> Self {
        Self::invalid_parameter(rejection.body_text())
    }
}

/// A JSON request body; a body that is not valid JSON of type `T` gives a 422 [`ApiError`].
#[derive(Debug, FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
pub struct JsonBody<T>(pub T);

/// Query parameters; a rejection gives a 400 [`ApiError`].
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub struct QueryParams<T>(pub T);

/// Path parameters; a rejection gives a 400 [`ApiError`].
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub struct PathParams<T>(pub T);
