//! Building one request to the API ([`UpstreamRequest`]): parameters in the path, query, headers
//! and cookies in their OpenAPI styles ([`Style`], [`ParamValue`]), and JSON, form, multipart and
//! file bodies.

use serde_json::Value;

use super::credentials::env_var;

/// The body of an upstream request.
pub(super) enum Body {
    None,
    Json(Value),
    Form(Vec<(String, String)>),
    Text {
        content_type: &'static str,
        text: String,
    },
    Multipart(Vec<(String, Part)>),
}

/// One part of a multipart body: text, or a file's bytes.
pub(super) enum Part {
    Text(String),
    File {
        bytes: Vec<u8>,
        filename: String,
        content_type: String,
    },
}

/// The most bytes of a file the server reads from its upload folder.
const MAX_UPLOAD_BYTES: u64 = 32 * 1024 * 1024;

/// A request being built for one upstream operation.
pub struct UpstreamRequest {
    pub(super) method: reqwest::Method,
    pub(super) operation: &'static str,
    pub(super) url: reqwest::Url,
    pub(super) query: Vec<(String, String)>,
    pub(super) headers: Vec<(&'static str, String)>,
    pub(super) cookies: Vec<(&'static str, String)>,
    pub(super) body: Body,
    /// Why the request must not be sent, found while building it.
    pub(super) problem: Option<String>,
    /// An argument that cannot be sent as it is (the model must change it).
    pub(super) invalid: Option<String>,
    /// The operation's parameters that carry one of the server's credentials.
    pub(super) carried: Vec<(CarriedIn, &'static str, Carries)>,
}

/// Where an operation puts a parameter that carries a credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CarriedIn {
    Query,
    Header,
    Cookie,
    /// A field of a form body.
    Form,
    /// A property of a JSON body.
    Json,
    /// A text part of a multipart body.
    Multipart,
}

/// Which of the server's credentials a parameter carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carries {
    /// The bearer token (read from the environment, or fetched by the server).
    Bearer,
    /// The API key sent under this name.
    ApiKey(&'static str),
}

/// A value that can be sent as a query, header or cookie parameter.
pub trait ParamValue {
    /// The value's text form; a list gives one text per element.
    fn texts(&self) -> Vec<String>;

    /// An object's properties as (name, text) pairs; `None` for anything else.
    fn pairs(&self) -> Option<Vec<(String, String)>> {
        None
    }
}

/// How a parameter's value is written (OpenAPI's `style`), where the document says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Form,
    Simple,
    Label,
    Matrix,
    SpaceDelimited,
    PipeDelimited,
    DeepObject,
}

/// The items of a styled value: an object's names and values (`name=value` when `explode`), or
/// the texts of a scalar or list.
fn styled_items(value: &impl ParamValue, explode: bool) -> Vec<String> {
    match value.pairs() {
        Some(pairs) if explode => pairs.into_iter().map(|(k, v)| format!("{k}={v}")).collect(),
        Some(pairs) => pairs.into_iter().flat_map(|(k, v)| [k, v]).collect(),
        None => value.texts(),
    }
}

/// A path parameter written in `style` (`simple`: `a,b`; `label`: `.a,b` or `.a.b`; `matrix`:
/// `;id=a,b` or `;id=a;id=b`).
pub fn path_styled(name: &str, value: &impl ParamValue, style: Style, explode: bool) -> String {
    let is_object = value.pairs().is_some();
    let items = styled_items(value, explode);
    match style {
        Style::Label if explode => format!(".{}", items.join(".")),
        Style::Label => format!(".{}", items.join(",")),
        Style::Matrix if explode && is_object => format!(";{}", items.join(";")),
        Style::Matrix if explode => items.iter().map(|item| format!(";{name}={item}")).collect(),
        Style::Matrix => format!(";{name}={}", items.join(",")),
        _ => items.join(","),
    }
}

impl ParamValue for String {
    fn texts(&self) -> Vec<String> {
        vec![self.clone()]
    }
}

impl ParamValue for i64 {
    fn texts(&self) -> Vec<String> {
        vec![self.to_string()]
    }
}

impl ParamValue for f64 {
    fn texts(&self) -> Vec<String> {
        vec![self.to_string()]
    }
}

impl ParamValue for bool {
    fn texts(&self) -> Vec<String> {
        vec![self.to_string()]
    }
}

impl ParamValue for Value {
    fn texts(&self) -> Vec<String> {
        match self {
            Value::String(text) => vec![text.clone()],
            Value::Array(items) => items.iter().flat_map(ParamValue::texts).collect(),
            Value::Null => Vec::new(),
            other => vec![other.to_string()],
        }
    }

    fn pairs(&self) -> Option<Vec<(String, String)>> {
        let object = self.as_object()?;
        Some(
            object
                .iter()
                .flat_map(|(name, value)| {
                    value
                        .texts()
                        .into_iter()
                        .map(move |text| (name.clone(), text))
                })
                .collect(),
        )
    }
}

impl<T: ParamValue> ParamValue for Vec<T> {
    fn texts(&self) -> Vec<String> {
        self.iter().flat_map(ParamValue::texts).collect()
    }
}

impl<T: ParamValue> ParamValue for Option<T> {
    fn texts(&self) -> Vec<String> {
        self.as_ref().map(ParamValue::texts).unwrap_or_default()
    }

    fn pairs(&self) -> Option<Vec<(String, String)>> {
        self.as_ref().and_then(ParamValue::pairs)
    }
}

impl UpstreamRequest {
    /// Sends `credential` as the parameter `name` in `place` too: a parameter the operation
    /// takes that carries it, which the server fills (when it has that credential) and the model
    /// never sees.
    pub fn carry(mut self, place: CarriedIn, name: &'static str, credential: Carries) -> Self {
        self.carried.push((place, name, credential));
        self
    }

    /// Sends the request to `link` (a next-page URL from a `Link` header) instead: the link
    /// carries its own query. A link to another origin is refused, so the server's credentials
    /// never leave the API.
    pub fn follow(mut self, link: &str) -> Self {
        match self.url.join(link) {
            Ok(url) if url.origin() == self.url.origin() => {
                self.url = url;
                self.query.clear();
            }
            Ok(url) => {
                self.problem = Some(format!(
                    "the API's next-page link points to another site ({}), which the server does not follow",
                    url.origin().ascii_serialization()
                ));
            }
            Err(_) => {
                self.problem = Some("the API's next-page link is not a valid URL".to_string());
            }
        }
        self
    }

    /// Adds a query parameter (a list adds one pair per element; `None` adds nothing).
    pub fn query(mut self, name: &'static str, value: &impl ParamValue) -> Self {
        for text in value.texts() {
            self.query.push((name.to_string(), text));
        }
        self
    }

    /// Adds a query parameter written in `style`: `form` (`x=a,b`, or `x=a&x=b` when `explode`;
    /// an exploded object is one parameter per property), `spaceDelimited` (`x=a b`),
    /// `pipeDelimited` (`x=a|b`) or `deepObject` (`x[p]=v`).
    pub fn query_styled(
        mut self,
        name: &'static str,
        value: &impl ParamValue,
        style: Style,
        explode: bool,
    ) -> Self {
        if let Some(pairs) = value.pairs() {
            match (style, explode) {
                (Style::DeepObject, _) => {
                    self.query
                        .extend(pairs.into_iter().map(|(k, v)| (format!("{name}[{k}]"), v)));
                }
                (Style::Form, true) => self.query.extend(pairs),
                _ => {
                    let items = styled_items(value, false);
                    self.query.push((name.to_string(), items.join(",")));
                }
            }
            return self;
        }
        let texts = value.texts();
        if texts.is_empty() {
            return self;
        }
        let separator = match style {
            Style::SpaceDelimited => " ",
            Style::PipeDelimited => "|",
            _ => ",",
        };
        if explode {
            self.query
                .extend(texts.into_iter().map(|text| (name.to_string(), text)));
        } else {
            self.query.push((name.to_string(), texts.join(separator)));
        }
        self
    }

    /// Adds a header written in style `simple` (`a,b`; an object `k,v` or, exploded, `k=v`).
    pub fn header_styled(
        self,
        name: &'static str,
        value: &impl ParamValue,
        _style: Style,
        explode: bool,
    ) -> Self {
        let items = styled_items(value, explode);
        self.header(name, &items)
    }

    /// Adds a cookie written in style `form`: a list or object is one cookie `a,b` (`k,v`), or,
    /// exploded, one cookie per item.
    pub fn cookie_styled(
        mut self,
        name: &'static str,
        value: &impl ParamValue,
        _style: Style,
        explode: bool,
    ) -> Self {
        let items = styled_items(value, false);
        if explode {
            for item in items {
                self = self.cookie(name, &item);
            }
            return self;
        }
        if items.is_empty() {
            return self;
        }
        // Each item is checked on its own; the commas between them are the style's own.
        if items.iter().any(|item| !is_cookie_safe(item)) {
            self.invalid = Some(cookie_problem(name));
        }
        self.cookies.push((name, items.join(",")));
        self
    }

    /// Refuses a text path parameter that is empty, `.` or `..` even where it shares its path
    /// segment with other text (`/u/{username}.json`), which the check of whole segments in
    /// [`Upstream::request`] cannot see: `/u/.json` would address another resource.
    pub fn path_value(mut self, name: &'static str, value: &str) -> Self {
        if matches!(value, "" | "." | "..") && self.invalid.is_none() {
            self.invalid = Some(format!(
                "Invalid argument `{name}`: a path parameter cannot be {value:?}; give the identifier itself."
            ));
        }
        self
    }

    /// Adds a header (a list is sent comma-separated; `None` adds nothing). A value with a line
    /// break could smuggle in another header: it is refused.
    pub fn header(mut self, name: &'static str, value: &impl ParamValue) -> Self {
        let texts = value.texts();
        if !texts.is_empty() {
            let text = texts.join(",");
            if text.contains(['\r', '\n']) {
                self.invalid = Some(format!(
                    "Invalid argument `{name}`: a header value cannot contain a line break."
                ));
            }
            self.headers.push((name, text));
        }
        self
    }

    /// Adds a cookie (`None` adds nothing). A value with `;`, `,`, a quote, a backslash, white
    /// space or a control character would start another cookie or break the header: it is
    /// refused.
    pub fn cookie(mut self, name: &'static str, value: &impl ParamValue) -> Self {
        let texts = value.texts();
        if !texts.is_empty() {
            let text = texts.join(",");
            if texts.len() > 1 || !is_cookie_safe(&text) {
                self.invalid = Some(cookie_problem(name));
            }
            self.cookies.push((name, text));
        }
        self
    }

    /// Sends `body` as JSON.
    pub fn json(mut self, body: Value) -> Self {
        self.body = Body::Json(body);
        self
    }

    /// Sends the fields of `body` form-urlencoded.
    pub fn form(mut self, body: serde_json::Map<String, Value>) -> Self {
        let fields = body
            .into_iter()
            .flat_map(|(name, value)| {
                value
                    .texts()
                    .into_iter()
                    .map(move |text| (name.clone(), text))
            })
            .collect();
        self.body = Body::Form(fields);
        self
    }

    /// Sends `text` as the body with `content_type`.
    pub fn text(mut self, content_type: &'static str, text: String) -> Self {
        self.body = Body::Text { content_type, text };
        self
    }

    /// Sends the fields of `body` as `multipart/form-data`: the fields named in `files` are files
    /// (see [`read_file_argument`]; a list is several files), the others text. Paths are read
    /// only inside the folder named by the environment variable `upload_env`.
    pub fn multipart(
        mut self,
        body: serde_json::Map<String, Value>,
        files: &[&str],
        upload_env: &str,
    ) -> Self {
        let mut parts = Vec::new();
        for (name, value) in body {
            if files.contains(&name.as_str()) {
                let values = match value {
                    Value::Array(values) => values,
                    value => vec![value],
                };
                for value in values {
                    match read_file_argument(&name, &value, upload_env) {
                        Ok(part) => parts.push((name.clone(), part)),
                        Err(problem) => {
                            self.invalid.get_or_insert(format!(
                                "Invalid arguments for {}: {problem}",
                                self.operation
                            ));
                        }
                    }
                }
            } else {
                for text in value.texts() {
                    parts.push((name.clone(), Part::Text(text)));
                }
            }
        }
        self.body = Body::Multipart(parts);
        self
    }
}

/// The file an argument gives: `{"content_base64": …}` or `{"path": …}` (inside the folder the
/// environment variable `upload_env` names), with an optional `filename` and `content_type`.
fn read_file_argument(name: &str, value: &Value, upload_env: &str) -> Result<Part, String> {
    let text = |key: &str| value.get(key).and_then(Value::as_str);
    let (bytes, default_name) = match (text("content_base64"), text("path")) {
        (Some(encoded), None) => {
            use base64::Engine as _;
            let compact: String = encoded.split_whitespace().collect();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(compact)
                .map_err(|error| {
                    format!("`{name}.content_base64` is not valid base64 ({error}); give the file's bytes base64-encoded")
                })?;
            (bytes, name.to_string())
        }
        (None, Some(path)) => read_upload(name, path, upload_env)?,
        (Some(_), Some(_)) => {
            return Err(format!(
                "`{name}` gives both `content_base64` and `path`; give one of them"
            ));
        }
        (None, None) => {
            return Err(format!(
                "`{name}` is a file: give `{{\"content_base64\": \"…\"}}` (its bytes in base64) or `{{\"path\": \"…\"}}`"
            ));
        }
    };
    let content_type = text("content_type").unwrap_or("application/octet-stream");
    if reqwest::multipart::Part::text("")
        .mime_str(content_type)
        .is_err()
    {
        return Err(format!(
            "`{name}.content_type` {content_type:?} is not a media type; give one such as \"image/png\""
        ));
    }
    Ok(Part::File {
        bytes,
        filename: text("filename").map_or(default_name, str::to_string),
        content_type: content_type.to_string(),
    })
}

/// Reads `path` for the file argument `name`, if it is inside the folder `upload_env` names.
fn read_upload(name: &str, path: &str, upload_env: &str) -> Result<(Vec<u8>, String), String> {
    let Some(folder) = env_var(upload_env) else {
        return Err(format!(
            "`{name}.path`: this server reads no files (its operator can allow a folder with {upload_env}); give `content_base64` instead"
        ));
    };
    let folder = std::path::Path::new(&folder)
        .canonicalize()
        .map_err(|_| format!("`{name}.path`: the server's upload folder ({upload_env}) does not exist; give `content_base64` instead"))?;
    let file = folder
        .join(path)
        .canonicalize()
        .map_err(|_| format!("`{name}.path`: there is no file {path:?} in the upload folder"))?;
    if !file.starts_with(&folder) || !file.is_file() {
        return Err(format!(
            "`{name}.path`: {path:?} is not a file inside the upload folder; give a path relative to it"
        ));
    }
    let size = file.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
    if size > MAX_UPLOAD_BYTES {
        return Err(format!(
            "`{name}.path`: {path:?} has {size} bytes, more than the {MAX_UPLOAD_BYTES} the server sends"
        ));
    }
    let bytes = std::fs::read(&file)
        .map_err(|error| format!("`{name}.path`: cannot read {path:?}: {error}"))?;
    let filename = file
        .file_name()
        .map_or_else(|| name.to_string(), |n| n.to_string_lossy().into_owned());
    Ok((bytes, filename))
}

/// Can `text` be a cookie's value without starting another cookie or breaking the header?
fn is_cookie_safe(text: &str) -> bool {
    !text
        .chars()
        .any(|c| matches!(c, ';' | ',' | '"' | '\\') || c.is_whitespace() || c.is_control())
}

/// The message for a cookie argument `name` whose value [`is_cookie_safe`] refuses.
fn cookie_problem(name: &str) -> String {
    format!(
        "Invalid argument `{name}`: a cookie value cannot contain `;`, `,`, quotes, backslashes or spaces."
    )
}

/// The text of a path parameter that is a list (OpenAPI's default style `simple`): its items
/// joined by commas.
pub fn path_text<T: ParamValue>(value: &T) -> String {
    value.texts().join(",")
}

/// Adds `value` to a JSON body under `name` unless it is `None`.
pub fn put<T: serde::Serialize>(body: &mut serde_json::Map<String, Value>, name: &str, value: &T) {
    match serde_json::to_value(value) {
        Ok(Value::Null) | Err(_) => {}
        Ok(value) => {
            body.insert(name.to_string(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::ToolError;
    use super::super::tests::upstream;
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_header_value_with_a_line_break_is_refused_naming_the_argument() {
        let request = upstream()
            .request(reqwest::Method::GET, "GET /things", &["things"])
            .header("X-Trace", &"a\r\nX-Admin: 1".to_string());
        let error = upstream().send(request).await.expect_err("refused");
        assert_eq!(
            error.to_string(),
            "Invalid argument `X-Trace`: a header value cannot contain a line break."
        );
    }

    #[tokio::test]
    async fn a_cookie_value_that_would_add_a_cookie_is_refused() {
        let request = upstream()
            .request(reqwest::Method::GET, "GET /things", &["things"])
            .cookie("session", &"x; admin=1".to_string());
        assert!(matches!(
            upstream().send(request).await,
            Err(ToolError::InvalidArguments(_))
        ));
    }

    #[test]
    fn path_parameters_are_written_in_their_style() {
        let list = json!(["3", 4, 5]);
        let object = json!({ "role": "admin", "first": "Alex" });
        let cases = [
            (Style::Simple, false, &list, "3,4,5"),
            (Style::Simple, false, &object, "role,admin,first,Alex"),
            (Style::Simple, true, &object, "role=admin,first=Alex"),
            (Style::Label, false, &list, ".3,4,5"),
            (Style::Label, true, &list, ".3.4.5"),
            (Style::Matrix, false, &list, ";id=3,4,5"),
            (Style::Matrix, true, &list, ";id=3;id=4;id=5"),
            (Style::Matrix, true, &object, ";role=admin;first=Alex"),
        ];
        for (style, explode, value, expected) in cases {
            assert_eq!(
                path_styled("id", value, style, explode),
                expected,
                "{style:?} explode={explode} {value}"
            );
        }
    }

    #[test]
    fn query_parameters_are_written_in_their_style() {
        let query = |style, explode, value: Value| {
            let request = upstream()
                .request(reqwest::Method::GET, "GET /things", &["things"])
                .query_styled("id", &value, style, explode);
            request.query
        };
        let pair = |name: &str, value: &str| (name.to_string(), value.to_string());
        assert_eq!(
            query(Style::Form, false, json!(["a", "b"])),
            [pair("id", "a,b")]
        );
        assert_eq!(
            query(Style::Form, true, json!(["a", "b"])),
            [pair("id", "a"), pair("id", "b")]
        );
        assert_eq!(
            query(Style::SpaceDelimited, false, json!(["a", "b"])),
            [pair("id", "a b")]
        );
        assert_eq!(
            query(Style::PipeDelimited, false, json!(["a", "b"])),
            [pair("id", "a|b")]
        );
        assert_eq!(
            query(
                Style::DeepObject,
                true,
                json!({ "role": "admin", "first": "Alex" })
            ),
            [pair("id[role]", "admin"), pair("id[first]", "Alex")]
        );
        assert_eq!(
            query(Style::Form, true, json!({ "role": "admin" })),
            [pair("role", "admin")],
            "an exploded form object is one parameter per property"
        );
        assert_eq!(
            query(Style::Form, false, json!({ "role": "admin" })),
            [pair("id", "role,admin")]
        );
        assert!(
            query(Style::Form, false, Value::Null).is_empty(),
            "an absent value adds nothing"
        );
    }

    #[test]
    fn header_and_cookie_parameters_are_written_in_their_style() {
        let request = upstream()
            .request(reqwest::Method::GET, "GET /things", &["things"])
            .header_styled("X-Ids", &json!({ "a": 1, "b": 2 }), Style::Simple, true)
            .cookie_styled("ids", &json!([1, 2]), Style::Form, false)
            .cookie_styled("tag", &json!(["x", "y"]), Style::Form, true);
        assert_eq!(request.headers, [("X-Ids", "a=1,b=2".to_string())]);
        assert_eq!(
            request.cookies,
            [
                ("ids", "1,2".to_string()),
                ("tag", "x".to_string()),
                ("tag", "y".to_string())
            ]
        );
        assert!(request.invalid.is_none());
        let request = upstream()
            .request(reqwest::Method::GET, "GET /things", &["things"])
            .cookie_styled("ids", &json!(["1", "2; admin=1"]), Style::Form, false);
        assert!(
            request.invalid.is_some(),
            "an item that would add a cookie is refused"
        );
    }

    #[test]
    fn a_path_parameter_inside_a_segment_cannot_be_empty_or_a_dot_segment() {
        for value in ["", ".", ".."] {
            let segment = format!("{value}.json");
            let request = upstream()
                .request(
                    reqwest::Method::GET,
                    "GET /u/{username}.json",
                    &["u", &segment],
                )
                .path_value("username", value);
            assert_eq!(
                request.invalid.as_deref(),
                Some(
                    format!(
                        "Invalid argument `username`: a path parameter cannot be {value:?}; give the identifier itself."
                    )
                    .as_str()
                ),
            );
        }
        let request = upstream()
            .request(
                reqwest::Method::GET,
                "GET /u/{username}.json",
                &["u", "ada.json"],
            )
            .path_value("username", "ada");
        assert!(request.invalid.is_none());
    }

    #[test]
    fn a_next_link_to_another_origin_is_not_followed() {
        let request = upstream()
            .request(reqwest::Method::GET, "GET /things", &["things"])
            .follow("https://elsewhere.example/things?page=2");
        assert!(request.problem.is_some());
        let request = upstream()
            .request(reqwest::Method::GET, "GET /things", &["things"])
            .follow("/api/things?page=2");
        assert_eq!(request.url.as_str(), "http://127.0.0.1:9/api/things?page=2");
    }
}
