//! Runtime support for curated tools: the tools a curation file shapes for a model, rather than
//! the one-tool-per-operation defaults.
//!
//! - readable values (project keys, user names) resolved to the API's ids through a cached list
//!   ([`ResolverCache`]), with "not found" errors that list the values the model can use;
//! - pages walked until a limit is reached ([`collect_pages`]);
//! - results reshaped ([`shape_item`], [`shape_list`]): chosen fields, renamed, enum codes and
//!   ids mapped back to readable names, concise or detailed, and marked when truncated;
//! - errors reworded for the model ([`Explain`], [`not_found`]) and argument checks
//!   ([`check_range`], [`check_length`]);
//! - an OAuth2 client-credentials token source ([`ClientCredentials`]).
//!
//! Everything works on the API's JSON as [`serde_json::Value`]. This file is the same in every
//! crate mcpgen generates with curated tools; `tools.rs` holds the code that uses it.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio::sync::Mutex;

use crate::runtime::{MAX_LISTED_VALUES, NotFound, ToolError, ToolOutput, plural, subject};

/// How long before its expiry an OAuth2 access token is replaced.
const TOKEN_REFRESH_MARGIN: Duration = Duration::from_secs(60);
/// How long an OAuth2 access token is used when the token endpoint does not say.
const TOKEN_DEFAULT_LIFETIME: Duration = Duration::from_secs(5 * 60);
/// The longest an OAuth2 access token is used, whatever the token endpoint says.
const TOKEN_MAX_LIFETIME_SECS: f64 = 24.0 * 60.0 * 60.0;
/// The most characters of a token endpoint's error description quoted back.
const MAX_TOKEN_ERROR_TEXT: usize = 300;

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// The error for a readable value that matches nothing: `Project "WEBB" not found. Available
/// project keys: WEB, API, MOBILE.` (`what` = `"project key"`).
pub fn not_found(what: &str, value: &str, available: Vec<String>) -> ToolError {
    ToolError::NotFound(NotFound {
        what: what.to_string(),
        values: vec![value.to_string()],
        available,
    })
}

/// Refuses a blank readable value before any request: it names no item, and looking it up
/// would list or search everything for nothing.
pub fn not_blank_value(what: &str, value: &str) -> Result<(), ToolError> {
    if value.trim().is_empty() {
        return Err(ToolError::InvalidArguments(format!(
            "The value is blank: give a {what}."
        )));
    }
    Ok(())
}

/// The id of each of `values`, in order, each resolved by `resolve`; when several match
/// nothing, one error names them all (with the values there are), so that the model can fix
/// the list in one call. A value that matches several items is told beside them.
pub async fn resolve_each<F, Fut>(
    values: &[String],
    mut resolve: F,
) -> Result<Vec<String>, ToolError>
where
    F: FnMut(String) -> Fut,
    Fut: Future<Output = Result<String, ToolError>>,
{
    let mut ids = Vec::with_capacity(values.len());
    let mut missing: Option<NotFound> = None;
    // The values that match several items (or are otherwise not usable), as told.
    let mut unclear: Vec<String> = Vec::new();
    for value in values {
        match resolve(value.clone()).await {
            Ok(id) => ids.push(id),
            Err(ToolError::NotFound(found)) => match &mut missing {
                Some(missing) => missing.values.extend(found.values),
                None => missing = Some(found),
            },
            Err(ToolError::InvalidArguments(message)) => unclear.push(message),
            Err(other) => return Err(other),
        }
    }
    match (missing, unclear.is_empty()) {
        (None, true) => Ok(ids),
        (Some(missing), true) => Err(ToolError::NotFound(missing)),
        (missing, false) => {
            if let Some(missing) = missing {
                unclear.push(missing.to_string());
            }
            Err(ToolError::InvalidArguments(unclear.join(" ")))
        }
    }
}

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
fn fill_placeholders(template: &str, vars: &[(&str, &str)]) -> String {
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

/// Checks that an integer argument lies in `min..=max`.
pub fn check_range(argument: &str, value: i64, min: i64, max: i64) -> Result<(), ToolError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ToolError::InvalidArguments(format!(
            "Invalid argument `{argument}`: {value} is out of range; use a value from {min} to {max}."
        )))
    }
}

/// Checks that a text argument has at most `max_chars` characters (not bytes).
pub fn check_length(argument: &str, value: &str, max_chars: usize) -> Result<(), ToolError> {
    let length = value.chars().count();
    if length <= max_chars {
        Ok(())
    } else {
        Err(ToolError::InvalidArguments(format!(
            "Invalid argument `{argument}`: {length} characters is too long; use at most {max_chars}."
        )))
    }
}

// ---------------------------------------------------------------------------------------------
// Codes
// ---------------------------------------------------------------------------------------------

/// A value the API uses for one name of an enumeration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Code {
    Int(i64),
    Str(&'static str),
}

impl Code {
    /// Whether the API's `value` is this code. An integer code also matches a string holding
    /// that integer, since APIs are not consistent about quoting numeric codes.
    pub fn matches(&self, value: &Value) -> bool {
        match (self, value) {
            (Code::Int(code), Value::Number(number)) => number.as_i64() == Some(*code),
            (Code::Int(code), Value::String(text)) => text.parse::<i64>().ok() == Some(*code),
            (Code::Str(code), Value::String(text)) => text == code,
            _ => false,
        }
    }
}

impl From<Code> for Value {
    fn from(code: Code) -> Self {
        match code {
            Code::Int(code) => Value::from(code),
            Code::Str(code) => Value::from(code),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Resolvers
// ---------------------------------------------------------------------------------------------

/// How readable values of one kind (project keys, usernames) map to the API's ids.
pub struct ResolverSpec {
    /// What the values are, for messages: `"project key"`.
    pub what: &'static str,
    /// JSON pointers into an item whose values the model may use, e.g. `&["/key"]`; matched
    /// exactly but case-insensitively.
    pub match_fields: &'static [&'static str],
    /// Only the items whose field (a JSON pointer) has this text, ignoring case, are resolved to
    /// (`&[("/type", "file")]`): the file's `where`.
    pub only: &'static [(&'static str, &'static str)],
    /// JSON pointer of the id, e.g. `"/id"` (a string or a number, used as its text).
    pub id_field: &'static str,
    /// JSON pointer of the readable name shown back (usually `match_fields[0]`).
    pub name_field: &'static str,
    /// How long a fetched list stays fresh.
    pub ttl: Duration,
}

/// One item of a resolver's list.
struct Entry {
    /// The item's readable values, lowercased for matching.
    names: Vec<String>,
    /// The same values as the API wrote them, to tell apart items that share one.
    labels: Vec<String>,
    id: String,
    /// The readable name shown to the model.
    display: String,
}

/// A resolver's list as last fetched.
struct Loaded {
    fetched_at: Instant,
    entries: Vec<Entry>,
}

/// The most users a [`ResolverCache`] keeps lists for when each sees the API as their own; past
/// it, the cache starts over.
const MAX_OWNERS: usize = 1_000;

/// A cache of one resolver's list: fetched once, shared by all calls, refreshed after `ttl`. When
/// the API is called with each user's own token, each user has a list of their own
/// ([`crate::resource::cache_owner`]): one user's names are never shown to another.
pub struct ResolverCache {
    spec: &'static ResolverSpec,
    /// By owner. Each list is held across a fetch, so that calls racing on a stale list wait for
    /// one fetch instead of each making their own.
    lists: std::sync::Mutex<HashMap<String, std::sync::Arc<Mutex<Option<Loaded>>>>>,
}

impl ResolverCache {
    pub fn new(spec: &'static ResolverSpec) -> Self {
        Self {
            spec,
            lists: std::sync::Mutex::new(HashMap::new()),
        }
    }

    /// The calling user's list (everyone's when the API does not tell users apart).
    fn list(&self) -> std::sync::Arc<Mutex<Option<Loaded>>> {
        let owner = crate::resource::cache_owner();
        // A poisoned lock only means another call panicked while inserting; the map is intact.
        let mut lists = self
            .lists
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if lists.len() >= MAX_OWNERS && !lists.contains_key(&owner) {
            lists.clear();
        }
        lists.entry(owner).or_default().clone()
    }

    pub fn spec(&self) -> &'static ResolverSpec {
        self.spec
    }

    /// The id for `value`: from the cache, else fetch the whole list with `fetch_all` (called at
    /// most once per refresh even when many calls race) and look again; a value matching nothing
    /// → [`not_found`] listing every display name in list order. Also accepts a value that is
    /// already an id present in the list.
    pub async fn resolve<F, Fut>(&self, value: &str, fetch_all: F) -> Result<String, ToolError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Vec<Value>, ToolError>>,
    {
        not_blank_value(self.spec.what, value)?;
        let started = Instant::now();
        let list = self.list();
        let mut list = list.lock().await;
        let mut fetch_all = Some(fetch_all);
        if self.is_stale(list.as_ref())
            && let Some(fetch_all) = fetch_all.take()
        {
            *list = Some(self.load(fetch_all).await?);
        }
        let mut found = list
            .as_ref()
            .map(|loaded| find(loaded, self.spec.what, value))
            .transpose()?
            .flatten();
        // A miss in a list fetched before this call began may only mean the value was created
        // since: fetch once more. A list fetched while this call waited for the lock is as new
        // as it gets, so calls racing on the same unknown value do not each fetch again.
        let fetched_before_call = list
            .as_ref()
            .is_some_and(|loaded| loaded.fetched_at < started);
        if found.is_none()
            && fetched_before_call
            && let Some(fetch_all) = fetch_all.take()
        {
            *list = Some(self.load(fetch_all).await?);
            found = list
                .as_ref()
                .map(|loaded| find(loaded, self.spec.what, value))
                .transpose()?
                .flatten();
        }
        match found {
            Some(id) => Ok(id),
            None => {
                let available = list
                    .as_ref()
                    .map(|loaded| {
                        loaded
                            .entries
                            .iter()
                            .map(|entry| entry.display.clone())
                            .collect()
                    })
                    .unwrap_or_default();
                Err(not_found(self.spec.what, value, available))
            }
        }
    }

    /// id → display name for every entry (fetching the list when stale), for mapping ids in
    /// results back to names.
    pub async fn names<F, Fut>(&self, fetch_all: F) -> Result<HashMap<String, String>, ToolError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Vec<Value>, ToolError>>,
    {
        let list = self.list();
        let mut list = list.lock().await;
        if self.is_stale(list.as_ref()) {
            *list = Some(self.load(fetch_all).await?);
        }
        Ok(list
            .as_ref()
            .map(|loaded| {
                loaded
                    .entries
                    .iter()
                    .map(|entry| (entry.id.clone(), entry.display.clone()))
                    .collect()
            })
            .unwrap_or_default())
    }

    fn is_stale(&self, list: Option<&Loaded>) -> bool {
        list.is_none_or(|loaded| loaded.fetched_at.elapsed() >= self.spec.ttl)
    }

    /// Fetches the list and indexes it. Items without an id are skipped, but a non-empty list
    /// in which no item has one means `id_field` is wrong, which is worth an error.
    async fn load<F, Fut>(&self, fetch_all: F) -> Result<Loaded, ToolError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Vec<Value>, ToolError>>,
    {
        let items = fetch_all().await?;
        let spec = self.spec;
        let entries: Vec<Entry> = items
            .iter()
            .filter(|item| {
                spec.only.iter().all(|(pointer, wanted)| {
                    field_texts(item, pointer)
                        .iter()
                        .any(|text| text.trim().eq_ignore_ascii_case(wanted.trim()))
                })
            })
            .filter_map(|item| {
                let id = field_text(item, spec.id_field).ok()?;
                let names: Vec<String> = spec
                    .match_fields
                    .iter()
                    .flat_map(|pointer| field_texts(item, pointer))
                    .collect();
                let display = field_text(item, spec.name_field)
                    .ok()
                    .or_else(|| names.first().cloned())
                    .unwrap_or_else(|| id.clone());
                let labels = names.clone();
                let names = names
                    .iter()
                    .map(|name| name.trim().to_lowercase())
                    .collect();
                Some(Entry {
                    names,
                    labels,
                    id,
                    display,
                })
            })
            .collect();
        if entries.is_empty()
            && let Some(first) = items.first()
        {
            field_text(first, spec.id_field)?;
        }
        Ok(Loaded {
            fetched_at: Instant::now(),
            entries,
        })
    }
}

/// The most scopes a [`ScopedResolverCache`] keeps lists for; past it, the cache starts over.
const MAX_SCOPES: usize = 256;

/// The caches of a resolver that lists within a scope (the labels of one repository): one
/// [`ResolverCache`] per scope, each fetched and refreshed on its own.
pub struct ScopedResolverCache {
    spec: &'static ResolverSpec,
    scopes: std::sync::Mutex<HashMap<String, std::sync::Arc<ResolverCache>>>,
}

impl ScopedResolverCache {
    pub fn new(spec: &'static ResolverSpec) -> Self {
        Self {
            spec,
            scopes: std::sync::Mutex::new(HashMap::new()),
        }
    }

    /// Whether `value` is the id of an item of a list this cache holds for the calling user,
    /// fetched within its time to live: for a resolver that searches with the value, an id an
    /// earlier search found (and an ambiguity offered) is taken as it is, where searching for it
    /// would find nothing.
    pub async fn knows_id(&self, value: &str) -> bool {
        let caches: Vec<std::sync::Arc<ResolverCache>> = self
            .scopes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .values()
            .cloned()
            .collect();
        for cache in caches {
            let list = cache.list();
            let list = list.lock().await;
            if let Some(loaded) = list.as_ref()
                && !cache.is_stale(Some(loaded))
                && loaded.entries.iter().any(|entry| entry.id == value)
            {
                return true;
            }
        }
        false
    }

    /// The cache of the list within `scope` (the scoping arguments of the list operation).
    pub fn scope(&self, scope: &Map<String, Value>) -> std::sync::Arc<ResolverCache> {
        let key = Value::Object(scope.clone()).to_string();
        // A poisoned lock only means another call panicked while inserting; the map is intact.
        let mut scopes = self
            .scopes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if scopes.len() >= MAX_SCOPES && !scopes.contains_key(&key) {
            scopes.clear();
        }
        scopes
            .entry(key)
            .or_insert_with(|| std::sync::Arc::new(ResolverCache::new(self.spec)))
            .clone()
    }
}

/// The id of the entry whose readable values include `value` (ignoring case), or else whose id
/// is `value`; several entries with different ids matching `value` is an error listing them
/// (with their other values and ids, which tell them apart), never a silent pick of the first,
/// unless one of them has `value` as its id.
fn find(loaded: &Loaded, what: &str, value: &str) -> Result<Option<String>, ToolError> {
    let wanted = value.trim().to_lowercase();
    let mut matching: Vec<&Entry> = Vec::new();
    for entry in loaded.entries.iter().filter(|e| e.names.contains(&wanted)) {
        if !matching.iter().any(|m| m.id == entry.id) {
            matching.push(entry);
        }
    }
    match matching.as_slice() {
        [] => Ok(loaded
            .entries
            .iter()
            .find(|entry| entry.id == value.trim())
            .map(|entry| entry.id.clone())),
        [only] => Ok(Some(only.id.clone())),
        // An id is one item's: among several matches, the one whose id the value is exactly is
        // the one meant (the message below offers the id as the way to tell items apart, so it
        // must work also when the id is another item's readable value).
        several if several.iter().any(|entry| entry.id == value.trim()) => {
            Ok(Some(value.trim().to_string()))
        }
        several => {
            let candidates: Vec<String> = several
                .iter()
                .take(MAX_LISTED_VALUES)
                .map(|entry| {
                    let others: Vec<&str> = entry
                        .labels
                        .iter()
                        .map(String::as_str)
                        .filter(|label| label.trim().to_lowercase() != wanted)
                        .collect();
                    match others.as_slice() {
                        [] => format!("id {}", entry.id),
                        others => format!("{} (id {})", others.join(", "), entry.id),
                    }
                })
                .collect();
            Err(ToolError::InvalidArguments(format!(
                "{} \"{value}\" is ambiguous: {} {} match it: {}. Call again with one of the \
                 values that tell them apart, or with the id.",
                subject(what),
                several.len(),
                plural(what),
                candidates.join("; ")
            )))
        }
    }
}

/// The texts at `pointer` in `value`, which may pass lists: a name takes that field of every
/// item (`/networks/v4/ip_address`: every address of every network), a number one item.
pub fn field_texts(value: &Value, pointer: &str) -> Vec<String> {
    // Scalars as text, a list's items each (the values of every item a path passed).
    fn texts(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(text) => out.push(text.clone()),
            Value::Number(number) => out.push(number.to_string()),
            Value::Bool(flag) => out.push(flag.to_string()),
            Value::Array(items) => items.iter().for_each(|item| texts(item, out)),
            Value::Null | Value::Object(_) => {}
        }
    }
    let mut out = Vec::new();
    texts(&value_at(value, pointer), &mut out);
    out
}

/// The text of the JSON value at `pointer` in `value`: a string as is, a number as its decimal
/// text.
pub fn field_text(value: &Value, pointer: &str) -> Result<String, ToolError> {
    match value.pointer(pointer) {
        Some(Value::String(text)) => Ok(text.clone()),
        Some(Value::Number(number)) => Ok(number.to_string()),
        _ => Err(ToolError::InvalidArguments(format!(
            "The API's answer has no {pointer} field."
        ))),
    }
}

// ---------------------------------------------------------------------------------------------
// Pagination
// ---------------------------------------------------------------------------------------------

/// How an API splits a list into pages.
#[derive(Clone, Copy)]
pub enum PagingStyle {
    /// `page` (1-based) and page size parameters.
    Page,
    /// `offset` and `limit` parameters.
    Offset,
    /// The next page's cursor is at `next` (JSON pointer) in each body; the first request has no
    /// cursor; an empty, missing or null cursor ends the walk.
    Cursor { next: &'static str },
    /// The next page's cursor is the `field` (JSON pointer) of the page's last item, as Stripe's
    /// `starting_after` takes the last item's `id`; the first request has no cursor.
    AfterLast { field: &'static str },
    /// The next page's URL is in the response's `Link: <url>; rel="next"` header.
    Link,
}

/// How to walk the pages of one list operation.
pub struct Paging {
    pub style: PagingStyle,
    /// JSON pointer to the array of items in each body (`""`: the body itself is the array).
    pub items: &'static str,
    /// JSON pointer to the number of items the whole list has (Page and Offset styles, as in
    /// `startAt`/`maxResults`/`total`). When a page gives it, the walk goes on until that many
    /// were received, also past pages shorter than asked for (an API that caps the page size
    /// below the asked one); without it, a page shorter than asked for is the last.
    pub total: Option<&'static str>,
    /// JSON pointer to a boolean saying whether more pages follow (Stripe's `has_more`): when a
    /// page gives it, `false` ends the walk and `true` goes on, also past a short page.
    pub more: Option<&'static str>,
    /// Whether the API takes a page size. Without one, each page is the size the API chooses:
    /// the first page's length is taken as that size, and a shorter (or empty) page is the last.
    pub sized: bool,
    /// The API's maximum page size.
    pub max_page_size: i64,
    /// A bound on the pages walked for one call.
    pub max_pages: usize,
}

impl Paging {
    /// This paging walking at most `max_pages` pages (the server's `--api-max-pages`), and never
    /// more than its own bound.
    pub fn within(&self, max_pages: usize) -> Paging {
        Paging {
            style: self.style,
            items: self.items,
            total: self.total,
            more: self.more,
            sized: self.sized,
            max_page_size: self.max_page_size,
            max_pages: self.max_pages.min(max_pages),
        }
    }
}

/// What to ask for next. Every field is filled whatever the style; the caller uses the ones its
/// style needs.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRequest {
    /// The page number, from 1.
    pub number: i64,
    /// The page size; the same for every page of a walk, so page numbers stay consistent.
    pub size: i64,
    /// How many items came before this page.
    pub offset: i64,
    /// The cursor from the previous page (`None` for the first).
    pub cursor: Option<String>,
    /// The next-page URL from the previous page's `Link` header (`None` for the first).
    pub link: Option<String>,
}

/// One page as fetched: the body and, for Link paging, the next URL (see [`parse_next_link`]).
pub struct FetchedPage {
    pub body: Value,
    pub next_link: Option<String>,
}

impl From<Value> for FetchedPage {
    fn from(body: Value) -> Self {
        Self {
            body,
            next_link: None,
        }
    }
}

/// The URL of the `rel="next"` link in a `Link` header (RFC 8288), e.g. from
/// `<https://x/?page=2>; rel="next", <https://x/?page=9>; rel="last"`. The URL is returned as
/// written, which may be relative.
pub fn parse_next_link(header: &str) -> Option<String> {
    let mut rest = header;
    loop {
        rest = rest.trim_start_matches(|c: char| c == ',' || c.is_whitespace());
        // The URL is between angle brackets; it may itself contain commas and semicolons.
        let after_open = rest.strip_prefix('<')?;
        let close = after_open.find('>')?;
        let url = after_open[..close].trim();
        rest = &after_open[close + 1..];
        let mut is_next = false;
        // Parameters: `; name=value`, `; name="quoted value"` or `; name`.
        loop {
            rest = rest.trim_start();
            let Some(after_semicolon) = rest.strip_prefix(';') else {
                break;
            };
            rest = after_semicolon.trim_start();
            let name_end = rest
                .find(|c: char| c == '=' || c == ';' || c == ',' || c.is_whitespace())
                .unwrap_or(rest.len());
            let name = &rest[..name_end];
            rest = rest[name_end..].trim_start();
            let mut value = "";
            if let Some(after_equals) = rest.strip_prefix('=') {
                rest = after_equals.trim_start();
                if let Some(quoted) = rest.strip_prefix('"') {
                    let end = closing_quote(quoted)?;
                    value = &quoted[..end];
                    rest = &quoted[end + 1..];
                } else {
                    let end = rest
                        .find(|c: char| c == ';' || c == ',' || c.is_whitespace())
                        .unwrap_or(rest.len());
                    value = &rest[..end];
                    rest = &rest[end..];
                }
            }
            // `rel` may hold several relation types: `rel="next last"`.
            if name.eq_ignore_ascii_case("rel")
                && value
                    .split_whitespace()
                    .any(|relation| relation.eq_ignore_ascii_case("next"))
            {
                is_next = true;
            }
        }
        if is_next && !url.is_empty() {
            return Some(url.to_string());
        }
        // Skip anything malformed up to the next link.
        if !rest.trim_start().starts_with(',') {
            let comma = rest.find(',')?;
            rest = &rest[comma..];
        }
    }
}

/// The index of the quote that ends a quoted string (after its opening quote), honouring
/// backslash escapes.
fn closing_quote(quoted: &str) -> Option<usize> {
    let mut escaped = false;
    for (index, c) in quoted.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(index),
            _ => {}
        }
    }
    None
}

/// The items collected and whether more exist than were returned.
#[derive(Debug, Clone, PartialEq)]
pub struct Collected {
    pub items: Vec<Value>,
    pub more: bool,
}

/// Walks pages until `limit` items are collected, the API runs out, or `max_pages` pages were
/// walked; `limit` of `None` collects everything (resolver lists), still within `max_pages`.
///
/// Every page asks for `min(limit, max_page_size)` items. `more` is decided without an extra
/// request: it is true when items beyond the limit were dropped, or when the last page fetched
/// promises another (Page and Offset: it was full; Cursor and Link: it was not empty and names a
/// next page). A full last page may therefore report `more` for a list that in fact ends there.
pub async fn collect_pages<F, Fut>(
    paging: &Paging,
    limit: Option<usize>,
    mut fetch: F,
) -> Result<Collected, ToolError>
where
    F: FnMut(PageRequest) -> Fut,
    Fut: Future<Output = Result<FetchedPage, ToolError>>,
{
    let max_page_size = paging.max_page_size.max(1);
    let size = match limit {
        Some(limit) => to_i64(limit).clamp(1, max_page_size),
        None => max_page_size,
    };
    // The size pages come in: the one asked for, or, where the API takes none, the first
    // page's.
    let mut page_size = paging.sized.then_some(size);
    let mut items: Vec<Value> = Vec::new();
    let mut received: i64 = 0;
    let mut cursor: Option<String> = None;
    let mut link: Option<String> = None;
    for number in 1..=paging.max_pages.max(1) {
        let request = PageRequest {
            number: to_i64(number),
            size,
            offset: received,
            cursor: cursor.clone(),
            link: link.clone(),
        };
        let page = fetch(request).await?;
        // Read the next cursor before the items are taken out of the body.
        let next_cursor = match paging.style {
            PagingStyle::Cursor { next } => cursor_at(&page.body, next),
            _ => None,
        };
        let total = paging
            .total
            .and_then(|pointer| page.body.pointer(pointer))
            .and_then(Value::as_i64);
        let more = paging
            .more
            .and_then(|pointer| page.body.pointer(pointer))
            .and_then(Value::as_bool);
        let page_items = take_items(page.body, paging.items)?;
        let next_cursor = match paging.style {
            PagingStyle::AfterLast { field } => {
                page_items.last().and_then(|item| cursor_at(item, field))
            }
            _ => next_cursor,
        };
        let count = page_items.len();
        let page_size = *page_size.get_or_insert(to_i64(count));
        received = received.saturating_add(to_i64(count));
        let has_next = match paging.style {
            PagingStyle::Page | PagingStyle::Offset => match (more, total) {
                (Some(more), _) => count > 0 && more,
                (None, Some(total)) => count > 0 && received < total,
                (None, None) => count > 0 && to_i64(count) >= page_size,
            },
            // A cursor or link that does not move would walk the same page forever.
            PagingStyle::Cursor { .. } | PagingStyle::AfterLast { .. } => {
                let moved = next_cursor.is_some() && next_cursor != cursor;
                cursor = next_cursor;
                count > 0 && moved && more != Some(false)
            }
            PagingStyle::Link => {
                let next_link = page.next_link.filter(|url| !url.is_empty());
                let moved = next_link.is_some() && next_link != link;
                link = next_link;
                count > 0 && moved && more != Some(false)
            }
        };
        items.extend(page_items);
        if let Some(limit) = limit
            && items.len() >= limit
        {
            let dropped = items.len() > limit;
            items.truncate(limit);
            return Ok(Collected {
                items,
                more: dropped || has_next,
            });
        }
        if !has_next {
            return Ok(Collected { items, more: false });
        }
    }
    // The page bound was reached and the last page promised another.
    Ok(Collected { items, more: true })
}

fn to_i64(count: usize) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// The next-page cursor at `pointer`: a non-empty string, or a number as its text.
fn cursor_at(body: &Value, pointer: &str) -> Option<String> {
    match body.pointer(pointer)? {
        Value::String(text) if !text.is_empty() => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// The items array at `pointer` in a single body (for list operations without paging). A
/// `null` there counts as an empty list, as some APIs send for "no items".
pub fn items_at(body: &Value, pointer: &str) -> Result<Vec<Value>, ToolError> {
    match body.pointer(pointer) {
        Some(Value::Array(items)) => Ok(items.clone()),
        Some(Value::Null) => Ok(Vec::new()),
        _ => Err(no_list(body, pointer)),
    }
}

/// Like [`items_at`], moving the items out of an owned body instead of copying them.
fn take_items(mut body: Value, pointer: &str) -> Result<Vec<Value>, ToolError> {
    match body.pointer(pointer) {
        Some(Value::Array(_)) => match body.pointer_mut(pointer).map(Value::take) {
            Some(Value::Array(items)) => Ok(items),
            _ => Ok(Vec::new()),
        },
        Some(Value::Null) => Ok(Vec::new()),
        _ => Err(no_list(&body, pointer)),
    }
}

/// The API answered with success, but not with the list it documents: its fault, said with what
/// came instead (a sign-in page, an error object) and what to do.
fn no_list(body: &Value, pointer: &str) -> ToolError {
    let found = match body {
        Value::String(text) => format!("text, not JSON: {:?}", shorten(text, 120)),
        Value::Null => "nothing".to_string(),
        Value::Object(_) => format!("an object: {}", shorten(&body.to_string(), 120)),
        Value::Array(_) => "a list".to_string(),
        other => other.to_string(),
    };
    let place = if pointer.is_empty() {
        "is not the list the API documents".to_string()
    } else {
        format!("has no list at {pointer}, where the API documents one")
    };
    ToolError::Answer(format!(
        "The API's answer {place} (it is {found}). The API may be failing or may have changed: calling again will likely fail the same way; tell the user."
    ))
}

// ---------------------------------------------------------------------------------------------
// Shaping
// ---------------------------------------------------------------------------------------------

/// How a field's value is turned into what the model sees. A value that is an array is
/// converted element by element (a list of codes or of ids).
pub enum Convert {
    /// Copied as is.
    Copy,
    /// An API code mapped back to its readable name (unknown codes copied as is).
    Enum(&'static [(Code, &'static str)]),
    /// An id mapped to a readable name through `lookups[index]` (see [`shape_item`]); an id not
    /// in the map is copied as is.
    Lookup(usize),
}

/// One field of a shaped result.
pub struct FieldSpec {
    /// The field's name in the result.
    pub name: &'static str,
    /// JSON pointer to its value in the API's item.
    pub from: &'static str,
    pub convert: Convert,
}

/// The fields a curated tool returns for each item.
pub struct Shape {
    /// The concise fields, in output order.
    pub fields: &'static [FieldSpec],
    /// Extra fields added (after the concise ones) when detailed.
    pub detailed: &'static [FieldSpec],
}

/// One item reshaped: a JSON object with the fields in order. A field whose source is missing
/// or null is omitted, never null. With no fields configured the item is returned unchanged.
pub fn shape_item(
    shape: &Shape,
    item: &Value,
    detailed: bool,
    lookups: &[&HashMap<String, String>],
) -> Value {
    // Text is an answer that is not JSON: kept whole, so that the check against the output
    // schema reports it rather than an empty object passing for a result.
    if shape.fields.is_empty() || item.is_string() {
        return item.clone();
    }
    let extra: &[FieldSpec] = if detailed { shape.detailed } else { &[] };
    let mut shaped = Map::new();
    for field in shape.fields.iter().chain(extra) {
        let value = value_at(item, field.from);
        if !value.is_null() {
            shaped.insert(
                field.name.to_string(),
                convert(&field.convert, &value, lookups),
            );
        }
    }
    Value::Object(shaped)
}

fn convert(how: &Convert, value: &Value, lookups: &[&HashMap<String, String>]) -> Value {
    if let (Value::Array(values), Convert::Enum(_) | Convert::Lookup(_)) = (value, how) {
        return Value::Array(
            values
                .iter()
                .map(|value| convert(how, value, lookups))
                .collect(),
        );
    }
    match how {
        Convert::Copy => value.clone(),
        // An unknown code (one the API added later) is shown as its text, so the result still
        // fits the output schema, which promises a string.
        Convert::Enum(names) => names
            .iter()
            .find(|(code, _)| code.matches(value))
            .map(|(_, name)| Value::from(*name))
            .unwrap_or_else(|| as_text(value)),
        // An index beyond `lookups` is a generator bug; copying the id keeps the call working.
        Convert::Lookup(index) => {
            let id = match value {
                Value::String(text) => Some(text.clone()),
                Value::Number(number) => Some(number.to_string()),
                _ => None,
            };
            id.zip(lookups.get(*index))
                .and_then(|(id, names)| names.get(&id))
                .map(|name| Value::from(name.as_str()))
                .unwrap_or_else(|| as_text(value))
        }
    }
}

/// A scalar as text (an id or code with no readable name); other values as they are.
fn as_text(value: &Value) -> Value {
    match value {
        Value::Number(number) => Value::String(number.to_string()),
        Value::Bool(flag) => Value::String(flag.to_string()),
        other => other.clone(),
    }
}

/// A list result: `{ <list_name>: [shaped items], "truncated": more }`, with
/// `truncated_message` as a note when `more`.
pub fn shape_list(
    shape: &Shape,
    list_name: &str,
    collected: Collected,
    detailed: bool,
    lookups: &[&HashMap<String, String>],
    truncated_message: &str,
) -> ToolOutput {
    // An item that is no object (a `null` in a list of objects) stays as the API gave it, for the
    // output schema to refuse, rather than shaped into an empty object passed off as an item.
    let items: Vec<Value> = collected
        .items
        .iter()
        .map(|item| match item {
            Value::Object(_) => shape_item(shape, item, detailed, lookups),
            other => other.clone(),
        })
        .collect();
    let mut value = Map::new();
    value.insert(list_name.to_string(), Value::Array(items));
    value.insert("truncated".to_string(), Value::Bool(collected.more));
    let notes = if collected.more {
        vec![truncated_message.to_string()]
    } else {
        Vec::new()
    };
    ToolOutput {
        value: Value::Object(value),
        notes,
    }
}

// ---------------------------------------------------------------------------------------------
// OAuth2 client credentials
// ---------------------------------------------------------------------------------------------

/// An access token and when to replace it.
struct CachedToken {
    access_token: String,
    refresh_at: Instant,
}

/// Fetches and caches an access token with the client-credentials grant; refreshes it 60 s
/// before it expires (or after 5 min when the token response has no `expires_in`).
pub struct ClientCredentials {
    token_url: String,
    client_id: String,
    client_secret: String,
    scopes: Vec<String>,
    /// Built on the first token request, so that reading the system's root certificates does
    /// not delay the server's start; `None` when it could not be built, reported by
    /// [`ClientCredentials::token`].
    http: std::sync::OnceLock<Option<reqwest::Client>>,
    /// Held across a fetch, so that concurrent calls share one token request.
    cached: Mutex<Option<CachedToken>>,
}

impl fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("token_url", &self.token_url)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

impl ClientCredentials {
    pub fn new(
        token_url: &str,
        client_id: String,
        client_secret: String,
        scopes: Vec<String>,
    ) -> Self {
        Self {
            token_url: token_url.to_string(),
            client_id,
            client_secret,
            scopes,
            http: std::sync::OnceLock::new(),
            cached: Mutex::new(None),
        }
    }

    fn http(&self) -> Option<&reqwest::Client> {
        self.http
            .get_or_init(|| {
                // No redirects: a 307 would send the client secret on to wherever it points.
                crate::runtime::client_builder()
                    .redirect(reqwest::redirect::Policy::none())
                    .connect_timeout(Duration::from_secs(10))
                    .timeout(Duration::from_secs(30))
                    .user_agent(concat!(
                        env!("CARGO_PKG_NAME"),
                        "/",
                        env!("CARGO_PKG_VERSION")
                    ))
                    .build()
                    .ok()
            })
            .as_ref()
    }

    /// A valid access token: the cached one, or a new one from the token endpoint (form POST of
    /// `grant_type=client_credentials`, `client_id`, `client_secret` and, when there are scopes,
    /// `scope`). Error texts never contain the secret.
    pub async fn token(&self) -> Result<String, ToolError> {
        let mut cached = self.cached.lock().await;
        if let Some(token) = cached.as_ref()
            && Instant::now() < token.refresh_at
        {
            return Ok(token.access_token.clone());
        }
        let token = self.fetch().await?;
        let access_token = token.access_token.clone();
        *cached = Some(token);
        Ok(access_token)
    }

    async fn fetch(&self) -> Result<CachedToken, ToolError> {
        let Some(http) = self.http() else {
            return Err(self.unreachable("the server could not create an HTTP client"));
        };
        let scope = self.scopes.join(" ");
        let mut form = vec![
            ("grant_type", "client_credentials"),
            ("client_id", self.client_id.as_str()),
            ("client_secret", self.client_secret.as_str()),
        ];
        if !scope.is_empty() {
            form.push(("scope", scope.as_str()));
        }
        let response = http
            .post(&self.token_url)
            .header(reqwest::header::ACCEPT, "application/json")
            .form(&form)
            .send()
            .await
            // The error's own text may quote the request; only its kind is reported.
            .map_err(|error| {
                self.unreachable(if error.is_timeout() {
                    "it did not answer in time"
                } else if error.is_builder() {
                    "its URL is invalid"
                } else {
                    "it is unreachable"
                })
            })?;
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|_| self.unreachable("its answer was cut off"))?;
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if !status.is_success() {
            return Err(self.refused(status, &body));
        }
        let access_token = body
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|token| !token.is_empty())
            .ok_or_else(|| {
                ToolError::InvalidArguments(format!(
                    "The OAuth2 token endpoint {} answered without an access_token. The user must check the server's OAuth2 token URL.",
                    self.token_url
                ))
            })?;
        let lifetime = match body.get("expires_in").and_then(seconds) {
            Some(seconds) => Duration::from_secs_f64(seconds).saturating_sub(TOKEN_REFRESH_MARGIN),
            None => TOKEN_DEFAULT_LIFETIME,
        };
        let now = Instant::now();
        Ok(CachedToken {
            access_token: access_token.to_string(),
            refresh_at: now.checked_add(lifetime).unwrap_or(now),
        })
    }

    fn unreachable(&self, why: &str) -> ToolError {
        ToolError::InvalidArguments(format!(
            "Could not get an access token for the API: the OAuth2 token endpoint {} failed ({why}). Try again later; if this persists, the user must check the server's OAuth2 token URL.",
            self.token_url
        ))
    }

    /// The error for a token endpoint that answered with an error status, quoting the
    /// standard `error` and `error_description` fields with any echo of the secret removed.
    fn refused(&self, status: reqwest::StatusCode, body: &Value) -> ToolError {
        let detail: Vec<&str> = ["error", "error_description"]
            .iter()
            .filter_map(|field| body.get(*field).and_then(Value::as_str))
            .filter(|text| !text.is_empty())
            .collect();
        // Redact before shortening: a cut through the secret would leave its start readable.
        let mut detail = detail.join(": ");
        if !self.client_secret.is_empty() {
            detail = detail.replace(&self.client_secret, "<redacted>");
        }
        let detail = shorten(&detail, MAX_TOKEN_ERROR_TEXT);
        let status_text = match status.canonical_reason() {
            Some(reason) => format!("HTTP {} {reason}", status.as_u16()),
            None => format!("HTTP {}", status.as_u16()),
        };
        let quoted = if detail.is_empty() {
            status_text
        } else {
            format!("{status_text}: {detail}")
        };
        ToolError::InvalidArguments(if status.is_server_error() {
            format!(
                "Could not get an access token for the API: the OAuth2 token endpoint failed ({quoted}). Try again later."
            )
        } else {
            format!(
                "The server's OAuth2 credentials were refused by the token endpoint ({quoted}); the user must fix the server's OAuth2 client configuration."
            )
        })
    }
}

/// A token lifetime in seconds from `expires_in`, which some servers send as a string; capped
/// so that no answer can push the refresh out of reach.
fn seconds(value: &Value) -> Option<f64> {
    let seconds = match value {
        Value::Number(number) => number.as_f64()?,
        Value::String(text) => text.trim().parse().ok()?,
        _ => return None,
    };
    (seconds.is_finite() && seconds >= 0.0).then(|| seconds.min(TOKEN_MAX_LIFETIME_SECS))
}

fn shorten(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// Workflow helpers: the small pieces generated tool code is made of.
// ---------------------------------------------------------------------------------------------

/// Where a value the generated code passes to an operation comes from, which says whose mistake
/// it is when the value does not fit the parameter's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    Argument,
    Checked,
    Answer(usize),
}

/// The value of the parameter `name` of `operation` as its Rust type wants it (JSON null is
/// `None`), from the tool's arguments as the server maps and resolves them or from the curation
/// file: `mcpgen check` proved both fit, so a failure here is a mistake of the server. Generated
/// code fills each parameter struct as a Rust literal, field by field, through this and
/// [`from_answer`] and [`from_argument`]: the compiler checks the fields, these each value.
pub fn checked<T: serde::de::DeserializeOwned>(
    operation: &str,
    name: &str,
    value: &Value,
) -> Result<T, ToolError> {
    parameter_value(operation, name, value, Origin::Checked)
}

/// What a workflow's later steps read of one step's answer, as JSON Schema (the answer's type
/// and the fields on the paths read, nothing else): the answer is checked before they rely on it,
/// so that a garbled answer (text, a list for an object, a flag that is not one) stops the
/// workflow at the step that got it, as the API's fault, rather than feed a later request.
pub struct Documented {
    schema: &'static str,
    validator: OnceLock<Option<jsonschema::Validator>>,
}

impl Documented {
    pub const fn new(schema: &'static str) -> Self {
        Self {
            schema,
            validator: OnceLock::new(),
        }
    }

    /// `Ok` when `answer`, the API's answer to step `step` (`operation`), has the documented
    /// shape; else the API's error, which says whether the step most likely changed something.
    pub fn check(
        &self,
        answer: &Value,
        step: usize,
        operation: &str,
        writes: bool,
    ) -> Result<(), ToolError> {
        let validator = self.validator.get_or_init(|| {
            let schema = serde_json::from_str(self.schema).ok()?;
            crate::runtime::compile_schema(operation, "answer", &schema)
        });
        let Some(problem) = validator
            .as_ref()
            .and_then(|validator| crate::runtime::misfit(validator, answer))
        else {
            return Ok(());
        };
        Err(ToolError::Answer(if writes {
            format!(
                "The API accepted step {step} ({operation}), but its answer does not have the shape the API documents ({problem}), so the server stopped there. The change was most likely made: do not call again; tell the user to check it, and that the API may have changed."
            )
        } else {
            format!(
                "The API's answer to step {step} ({operation}) does not have the shape the API documents ({problem}), so the server stopped there. Calling again will likely fail the same way; tell the user the API may have changed."
            )
        }))
    }
}

/// Like [`checked`], for a value from the API's answer to an earlier step (its number, from 1):
/// a failure is the API's.
pub fn from_answer<T: serde::de::DeserializeOwned>(
    step: usize,
    operation: &str,
    name: &str,
    value: &Value,
) -> Result<T, ToolError> {
    parameter_value(operation, name, value, Origin::Answer(step))
}

/// Like [`checked`], for a value the model gave as it is (a readable key the API looks up): a
/// failure is the model's to fix.
pub fn from_argument<T: serde::de::DeserializeOwned>(
    operation: &str,
    name: &str,
    value: &Value,
) -> Result<T, ToolError> {
    parameter_value(operation, name, value, Origin::Argument)
}

fn parameter_value<T: serde::de::DeserializeOwned>(
    operation: &str,
    name: &str,
    value: &Value,
    origin: Origin,
) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let at = if path == "." {
            name.to_string()
        } else if path.starts_with('[') {
            format!("{name}{path}")
        } else {
            format!("{name}.{path}")
        };
        let error = error.into_inner();
        match origin {
            Origin::Argument => ToolError::InvalidArguments(format!(
                "{operation} cannot take {} as `{at}`: {error}.",
                shorten(&value.to_string(), 80)
            )),
            Origin::Checked => ToolError::Answer(format!(
                "This server built a value for `{at}` of {operation} that {operation} does not take ({error}). This is a mistake of the server, not of the arguments: tell the user to report it to the server's maintainers."
            )),
            // Nothing where a value is read: an empty list, or a field the answer leaves out. The
            // API answered as it may; there is just nothing to go on with.
            Origin::Answer(step) if error.to_string().starts_with("invalid type: null") => {
                ToolError::Answer(format!(
                    "The answer to step {step} has nothing for `{at}` of {operation} (an empty list, or a field it leaves out), so the server stopped before calling {operation}. Tell the user what was not found; calling again with the same arguments gives the same answer."
                ))
            }
            Origin::Answer(step) => ToolError::Answer(format!(
                "The API's answer to step {step} does not fit `{at}` of {operation} ({error}); the API may have changed. Tell the user this tool cannot complete the request."
            )),
        }
    })
}

/// A template's text for a parameter the API requires: refused when every clause dropped out
/// (none of the arguments it is built from given), which the API would refuse or read as "all".
pub fn required_text(parameter: &str, from: &str, text: String) -> Result<String, ToolError> {
    if text.trim().is_empty() {
        return Err(ToolError::InvalidArguments(format!(
            "Give at least one of {from}: the API needs `{parameter}`, which is built from them."
        )));
    }
    Ok(text)
}

/// A template's text, or `None` (the parameter left out) when every clause dropped out: an
/// optional parameter is not sent empty (`uris=`) for an empty list.
pub fn unless_blank(text: String) -> Option<String> {
    (!text.is_empty()).then_some(text)
}

/// The value of `name` in a resolver's scope, or null.
pub fn scoped(scope: &Map<String, Value>, name: &str) -> Value {
    scope.get(name).cloned().unwrap_or(Value::Null)
}

/// Any serializable argument as JSON (null when it cannot be represented).
pub fn json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// One value per item of `list` (an `$each` object), made by `item`; an absent list stays
/// absent, and one value is taken as a list of one.
pub fn each(list: &Value, item: impl Fn(&Value) -> Value) -> Value {
    match list {
        Value::Null => Value::Null,
        Value::Array(items) => Value::Array(items.iter().map(item).collect()),
        one => Value::Array(vec![item(one)]),
    }
}

/// An object of the fields that have a value: a field whose value is null (an optional argument
/// the model left out) is left out, as an optional parameter without a value is left out of a
/// request.
pub fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(scope(fields))
}

/// The fields that have a value, as a map: a resolver's scoping arguments, and [`object`]'s fields.
pub fn scope<const N: usize>(fields: [(&str, Value); N]) -> Map<String, Value> {
    fields
        .into_iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(name, value)| (name.to_string(), value))
        .collect()
}

/// The value at `pointer` in `value`, or null. Where the value on the way is a list, a number
/// picks one item (`/items/0/uri`: the first item's) and a name applies to every item
/// (`/items/uri`: the list of the items' `uri`, items without one left out), as `mcpgen check`
/// reads the same path in the answer's schema.
pub fn value_at(value: &Value, pointer: &str) -> Value {
    fn walk(value: &Value, segments: &[String]) -> Value {
        let Some((first, rest)) = segments.split_first() else {
            return value.clone();
        };
        match value {
            Value::Object(fields) => fields.get(first).map_or(Value::Null, |v| walk(v, rest)),
            Value::Array(items) => match first.parse::<usize>() {
                Ok(index) => items.get(index).map_or(Value::Null, |v| walk(v, rest)),
                Err(_) => Value::Array(
                    items
                        .iter()
                        .map(|item| walk(item, segments))
                        .filter(|v| !v.is_null())
                        .collect(),
                ),
            },
            _ => Value::Null,
        }
    }
    let Some(path) = pointer.strip_prefix('/') else {
        return value.clone();
    };
    let segments: Vec<String> = path
        .split('/')
        .map(|segment| segment.replace("~1", "/").replace("~0", "~"))
        .collect();
    walk(value, &segments)
}

/// Do two values mean the same? Numbers and booleans equal their text (an enum code given as
/// text matches the API's integer; a `stop_if` comparing a flag with `true` in the curation
/// file, which reads it as text, matches the API's boolean).
pub fn same(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(n), Value::String(s)) | (Value::String(s), Value::Number(n)) => {
            n.to_string() == *s
        }
        (Value::Bool(b), Value::String(s)) | (Value::String(s), Value::Bool(b)) => {
            b.to_string() == *s
        }
        // `null` written in the file (`when: { equal: [$device, null] }`) is an absent value.
        (Value::Null, Value::String(s)) | (Value::String(s), Value::Null) => s == "null",
        _ => left == right,
    }
}

/// [`same`], with text compared ignoring case and surrounding spaces: how `find`, resolvers and
/// `stop_if` compare (a status "in progress" is the issue's "In Progress").
pub fn same_text(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::String(left), Value::String(right)) => {
            left.trim().to_lowercase() == right.trim().to_lowercase()
        }
        _ => same(left, right),
    }
}

/// The values of `field` in the items of the list at `pointer` in `value`, joined with `, `: what
/// a `find` step's `missing` message shows as `{available}`.
pub fn item_values(value: &Value, pointer: &str, field: &str) -> String {
    let list = value_at(value, pointer);
    let mut values: Vec<String> = Vec::new();
    // Each value once: two transitions to `Done` are one value to choose.
    for item in list.as_array().into_iter().flatten() {
        let text = match value_at(item, field) {
            Value::String(text) => text,
            Value::Number(number) => number.to_string(),
            _ => continue,
        };
        if !values.contains(&text) {
            values.push(text);
        }
    }
    if values.is_empty() {
        "none".to_string()
    } else {
        values.join(", ")
    }
}

/// The item of the list at `pointer` in `value` whose fields equal the conditions (`(field
/// pointer, value)`): none, or the one that matches, or — when several different items match —
/// a description of them that tells them apart, never a silent pick of the first. Text is
/// compared as resolvers compare it, ignoring case and surrounding spaces (`done` finds the
/// transition named `Done`).
pub fn find_one(
    value: &Value,
    pointer: &str,
    conditions: &[(&str, &Value)],
) -> Result<Option<Value>, String> {
    let list = value_at(value, pointer);
    let mut matching: Vec<&Value> = Vec::new();
    for item in list.as_array().into_iter().flatten() {
        let fits = conditions.iter().all(|(field, wanted)| {
            // A field read through a list (`labels/name`) holds when one of its values does.
            match value_at(item, field) {
                Value::Null => false,
                Value::Array(found) => found.iter().any(|found| same_text(found, wanted)),
                found => same_text(&found, wanted),
            }
        });
        if fits && !matching.contains(&item) {
            matching.push(item);
        }
    }
    match matching.as_slice() {
        [] => Ok(None),
        [only] => Ok(Some((*only).clone())),
        several => Err(candidates(several)),
    }
}

/// Several items, each by the top-level fields that tell them apart (at most three, those whose
/// values differ first), for a message: `id 31, name Done (dev); id 41, name Done (qa)`.
fn candidates(items: &[&Value]) -> String {
    let scalar = |item: &Value, key: &str| match item.get(key) {
        Some(Value::String(text)) => Some(text.clone()),
        Some(value @ (Value::Number(_) | Value::Bool(_))) => Some(value.to_string()),
        _ => None,
    };
    let keys: Vec<&String> = items
        .first()
        .and_then(|item| item.as_object())
        .map(|object| object.keys().collect())
        .unwrap_or_default();
    let differs = |key: &str| {
        let first = scalar(items[0], key);
        items.iter().any(|item| scalar(item, key) != first)
    };
    let mut shown: Vec<&String> = keys.iter().copied().filter(|key| differs(key)).collect();
    shown.extend(keys.iter().copied().filter(|key| !differs(key)));
    shown.retain(|key| items.iter().all(|item| scalar(item, key).is_some()));
    shown.truncate(3);
    let described: Vec<String> = items
        .iter()
        .take(MAX_LISTED_VALUES)
        .map(|item| {
            let fields: Vec<String> = shown
                .iter()
                .filter_map(|key| scalar(item, key).map(|value| format!("{key} {value}")))
                .collect();
            if fields.is_empty() {
                item.to_string()
            } else {
                fields.join(", ")
            }
        })
        .collect();
    let more = items.len().saturating_sub(MAX_LISTED_VALUES);
    if more > 0 {
        format!("{} (and {more} more)", described.join("; "))
    } else {
        described.join("; ")
    }
}

/// `template` with each `{name}` replaced by the value of `name` in `vars`, in one pass (a value
/// that itself looks like `{name}` is not expanded again).
pub fn fill(template: &str, vars: &[(&str, &str)]) -> String {
    fill_placeholders(template, vars)
}

/// Borrows owned message variables as [`Explain::explain`] takes them.
pub fn borrow_vars<'a>(vars: &'a [(&'a str, String)]) -> Vec<(&'a str, &'a str)> {
    vars.iter()
        .map(|(name, value)| (*name, value.as_str()))
        .collect()
}

/// The text of an argument for messages: text as is, other values as JSON, nothing when absent.
pub fn text<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(text)) => text,
        Ok(Value::Null) | Err(_) => String::new(),
        Ok(other) => other.to_string(),
    }
}

/// The answer of a step whose list a `find` searches, every page walked: `items` at `pointer`
/// (`"/data"` → `{"data": [...]}`; `""`: the list itself), which is all the find reads of it.
pub fn list_answer(pointer: &str, items: Vec<Value>) -> Value {
    let mut answer = Value::Array(items);
    for segment in pointer
        .split('/')
        .skip(1)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
    {
        let name = segment.replace("~1", "/").replace("~0", "~");
        answer = Value::Object(Map::from_iter([(name, answer)]));
    }
    answer
}

/// `value` as the API takes it where a field is text: a number as its digits (an id the API gives
/// as an integer, sent where it takes text), each item of a list so; anything else as it is.
pub fn id_text(value: Value) -> Value {
    match value {
        Value::Number(number) => Value::String(number.to_string()),
        Value::Array(items) => Value::Array(items.into_iter().map(id_text).collect()),
        other => other,
    }
}

/// A scoping value where the API takes a number: text of digits becomes the number (Jira's
/// project ids are text in its answers and integers in its parameters); anything else stays as
/// it is.
pub fn numeric_id(value: Value) -> Value {
    if let Value::String(text) = &value
        && let Ok(number) = text.parse::<i64>()
    {
        return Value::from(number);
    }
    value
}

/// A resolved id as the API wants it: a number when the parameter is an integer.
pub fn id_value(id: String, integer: bool) -> Result<Value, ToolError> {
    if !integer {
        return Ok(Value::String(id));
    }
    id.parse::<i64>().map(Value::from).map_err(|_| {
        ToolError::InvalidArguments(format!(
            "The API gave the id {id:?}, which is not a number as expected."
        ))
    })
}

// Templates: text arguments (search queries, JQL) built from clauses over the arguments.
// ---------------------------------------------------------------------------------------------

/// The texts a template placeholder stands for: none for an absent argument (null, blank text or
/// an empty list), which drops its clause; each item of a list, which repeats it; otherwise the
/// value's text (a number or boolean as written).
pub fn template_values(value: &Value) -> Vec<String> {
    let text = |value: &Value| match value {
        Value::Null => None,
        Value::String(text) if text.trim().is_empty() => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    };
    match value {
        Value::Array(items) => items.iter().filter_map(text).collect(),
        other => text(other).into_iter().collect(),
    }
}

/// Is a value there, for `$if`: not absent, not blank text, not an empty list.
pub fn present(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(text) => !text.trim().is_empty(),
        Value::Array(items) => !items.is_empty(),
        _ => true,
    }
}

/// A list without the items left out (`$if` objects whose value is absent).
pub fn present_items(items: Vec<Value>) -> Value {
    Value::Array(items.into_iter().filter(|item| !item.is_null()).collect())
}

/// Is a template's `{name:if}` flag on? Only `true` keeps its clause: `false` and absent drop it.
pub fn switched_on(value: &Value) -> bool {
    *value == Value::Bool(true)
}

/// Refuses blank text for a required argument a template writes, whose clause would otherwise
/// drop out and widen the query (`"  "` for the words of a search).
pub fn not_blank(argument: &str, value: &Value) -> Result<(), ToolError> {
    let blank = |value: &Value| value.as_str().is_some_and(|text| text.trim().is_empty());
    match value {
        Value::String(_) if blank(value) => Err(ToolError::InvalidArguments(format!(
            "Invalid argument `{argument}`: it is required and cannot be blank."
        ))),
        // A required list: at least one value that is not blank.
        Value::Array(items) if items.iter().all(blank) => {
            Err(ToolError::InvalidArguments(format!(
                "Invalid argument `{argument}`: it is required; give at least one value that is not blank."
            )))
        }
        _ => Ok(()),
    }
}

/// How a template writes a value into its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    /// As it is.
    None,
    /// GitHub search: as it is when made of letters, digits and `-_./@#+`, else between double
    /// quotes; a double quote cannot be escaped there, so a value holding one is refused.
    Github,
    /// Slack search: the rule of GitHub's.
    Slack,
    /// JQL: a quoted string, with backslashes, quotes and control characters escaped.
    Jql,
}

impl Quote {
    /// Free text (of the argument `argument`) as plain words: each word written by the rule,
    /// joined by single spaces, so that `login fails` stays two words rather than a quoted
    /// phrase while a word the syntax would read as an operator (`is:open`) is quoted.
    pub fn write_words(self, argument: &str, value: &str) -> Result<String, ToolError> {
        let words: Vec<String> = value
            .split_whitespace()
            .map(|word| self.write(argument, word, false))
            .collect::<Result<_, _>>()?;
        Ok(words.join(" "))
    }

    /// `value` (of the argument `argument`) as its clause writes it; `quoted` when the clause puts
    /// it between quotes itself (`label:"{label}"`).
    pub fn write(self, argument: &str, value: &str, quoted: bool) -> Result<String, ToolError> {
        match self {
            Quote::None => Ok(value.to_string()),
            Quote::Github | Quote::Slack => {
                // Said without naming GitHub or Slack: other APIs' searches (Trello's) share
                // the syntax, and the model knows only the tool.
                if value.contains('"') {
                    return Err(ToolError::InvalidArguments(format!(
                        "Invalid argument `{argument}`: {value:?} has a double quote, which this search cannot hold; leave it out."
                    )));
                }
                let plain = value
                    .chars()
                    .all(|c| c.is_alphanumeric() || "-_./@#+".contains(c));
                if quoted || plain {
                    Ok(value.to_string())
                } else {
                    Ok(format!("\"{value}\""))
                }
            }
            Quote::Jql => {
                let mut escaped = String::with_capacity(value.len() + 2);
                for c in value.chars() {
                    match c {
                        '\\' => escaped.push_str("\\\\"),
                        '"' => escaped.push_str("\\\""),
                        '\'' => escaped.push_str("\\'"),
                        '\n' => escaped.push_str("\\n"),
                        '\r' => escaped.push_str("\\r"),
                        '\t' => escaped.push_str("\\t"),
                        c if c.is_control() => {
                            escaped.push_str(&format!("\\u{:04x}", u32::from(c)))
                        }
                        c => escaped.push(c),
                    }
                }
                if quoted {
                    Ok(escaped)
                } else {
                    Ok(format!("\"{escaped}\""))
                }
            }
        }
    }
}

/// The concise or detailed format of a result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ResponseFormat {
    /// Only what is needed to answer.
    #[default]
    Concise,
    /// Adds the fields needed for follow-up calls.
    Detailed,
}

impl ResponseFormat {
    pub fn is_detailed(self) -> bool {
        self == ResponseFormat::Detailed
    }
}

impl crate::runtime::TokenSource for ClientCredentials {
    fn token(
        &self,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<String, ToolError>> + Send + '_>> {
        Box::pin(ClientCredentials::token(self))
    }
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_required_argument_a_template_writes_is_refused_blank_or_as_an_empty_list() {
        assert!(not_blank("words", &json!("  ")).is_err());
        assert!(not_blank("words", &json!("moon")).is_ok());
        assert!(not_blank("states", &json!([])).is_err());
        assert!(not_blank("states", &json!(["  "])).is_err());
        assert!(not_blank("states", &json!(["OPEN", ""])).is_ok());
    }

    #[test]
    fn nothing_read_from_an_earlier_answer_says_what_is_missing_and_does_not_blame_the_api() {
        // `uris: [$found.tracks.items.0.uri]` after a search that found nothing.
        let error = from_answer::<Vec<String>>(1, "addTracks", "uris", &json!([null]))
            .expect_err("nothing to send");
        let ToolError::Answer(message) = error else {
            panic!("not an answer error: {error:?}");
        };
        assert!(
            message.starts_with("The answer to step 1 has nothing for `uris[0]` of addTracks"),
            "{message}"
        );
        assert!(!message.contains("may have changed"), "{message}");
        // A value of the wrong type is still the API's.
        let error =
            from_answer::<Vec<String>>(1, "addTracks", "uris", &json!([7])).expect_err("not text");
        assert!(
            matches!(&error, ToolError::Answer(m) if m.contains("the API may have changed")),
            "{error:?}"
        );
    }

    #[test]
    fn a_walked_list_is_answered_at_its_place() {
        assert_eq!(list_answer("", vec![json!(1)]), json!([1]));
        assert_eq!(list_answer("/data", vec![json!(1)]), json!({"data": [1]}));
        assert_eq!(
            list_answer("/a/b~1c", vec![json!(1)]),
            json!({"a": {"b/c": [1]}})
        );
    }

    #[test]
    fn id_text_writes_numbers_as_their_digits_and_leaves_the_rest() {
        assert_eq!(id_text(json!(101)), json!("101"));
        assert_eq!(id_text(json!([101, 102])), json!(["101", "102"]));
        assert_eq!(id_text(json!("a-1")), json!("a-1"));
        assert_eq!(id_text(Value::Null), Value::Null);
    }

    #[test]
    fn each_makes_one_object_per_item_and_keeps_an_absent_list_absent() {
        let make = |item: &Value| object([("uuid", item.clone())]);
        assert_eq!(
            each(&json!(["{a}", "{b}"]), make),
            json!([{"uuid": "{a}"}, {"uuid": "{b}"}])
        );
        assert_eq!(each(&Value::Null, make), Value::Null);
        assert_eq!(each(&json!("{a}"), make), json!([{"uuid": "{a}"}]));
    }

    // --- templates -------------------------------------------------------------------------

    #[test]
    fn a_required_parameter_built_from_no_argument_is_refused_naming_the_arguments() {
        let refused = required_text("q", "artist, year", "  ".to_string());
        let Err(ToolError::InvalidArguments(message)) = refused else {
            panic!("a blank query is refused: {refused:?}");
        };
        assert_eq!(
            message,
            "Give at least one of artist, year: the API needs `q`, which is built from them."
        );
        assert_eq!(
            required_text("q", "artist, year", "artist:Bach".to_string()).ok(),
            Some("artist:Bach".to_string())
        );
        assert_eq!(unless_blank(String::new()), None);
        assert_eq!(unless_blank("x".to_string()), Some("x".to_string()));
    }

    // --- paths into answers -----------------------------------------------------------------

    #[test]
    fn numbers_booleans_and_null_are_the_same_as_their_text() {
        assert!(same(&json!(true), &json!("true")));
        assert!(same(&json!("false"), &json!(false)));
        assert!(!same(&json!(true), &json!("false")));
        assert!(!same(&json!(true), &json!("yes")));
        assert!(same(&json!(3), &json!("3")));
        assert!(same(&Value::Null, &json!("null")));
        assert!(!same(&Value::Null, &json!("")));
        assert!(!same(&json!("a"), &json!("A")));
        assert!(same_text(&json!(" In Progress"), &json!("in progress")));
        assert!(same_text(&json!(3), &json!("3")));
    }

    #[test]
    fn a_path_through_a_list_takes_each_items_field_and_a_number_picks_one_item() {
        let answer = json!({
            "tracks": {"items": [
                {"uri": "a", "artists": [{"name": "X"}, {"name": "Y"}]},
                {"name": "no uri"},
                {"uri": "c/d", "artists": []}
            ]}
        });
        assert_eq!(value_at(&answer, "/tracks/items/uri"), json!(["a", "c/d"]));
        assert_eq!(value_at(&answer, "/tracks/items/0/uri"), json!("a"));
        assert_eq!(value_at(&answer, "/tracks/items/5/uri"), Value::Null);
        assert_eq!(
            value_at(&answer, "/tracks/items/artists/name"),
            json!([["X", "Y"], []])
        );
        assert_eq!(
            value_at(&answer, "/tracks/items/0/artists/name"),
            json!(["X", "Y"])
        );
        assert_eq!(value_at(&json!({"a/b": 1}), "/a~1b"), json!(1));
        assert_eq!(value_at(&answer, ""), answer);
        assert_eq!(value_at(&answer, "/nothing/here"), Value::Null);
    }

    #[test]
    fn a_list_item_that_is_no_object_is_kept_as_the_api_gave_it_not_shaped_into_an_empty_object() {
        const SHAPE: Shape = Shape {
            fields: &[FieldSpec {
                name: "name",
                from: "/name",
                convert: Convert::Copy,
            }],
            detailed: &[],
        };
        let collected = Collected {
            items: vec![json!({"name": "a", "b": 1}), Value::Null],
            more: false,
        };
        let output = shape_list(&SHAPE, "posts", collected, false, &[], "more");
        assert_eq!(
            output.value,
            json!({"posts": [{"name": "a"}, null], "truncated": false})
        );
    }

    #[test]
    fn a_result_field_through_a_list_is_the_list_of_the_items_values() {
        const SHAPE: Shape = Shape {
            fields: &[
                FieldSpec {
                    name: "name",
                    from: "/name",
                    convert: Convert::Copy,
                },
                FieldSpec {
                    name: "artists",
                    from: "/artists/name",
                    convert: Convert::Copy,
                },
            ],
            detailed: &[],
        };
        let item = json!({"name": "Song", "artists": [{"name": "X"}, {"name": "Y"}]});
        assert_eq!(
            shape_item(&SHAPE, &item, false, &[]),
            json!({"name": "Song", "artists": ["X", "Y"]})
        );
    }

    // --- templates ------------------------------------------------------------------------

    #[test]
    fn an_absent_argument_gives_a_template_no_value_and_a_list_one_per_item() {
        assert!(template_values(&Value::Null).is_empty());
        assert!(template_values(&json!("  ")).is_empty());
        assert!(template_values(&json!([])).is_empty());
        assert_eq!(template_values(&json!("open")), ["open"]);
        assert_eq!(template_values(&json!(42)), ["42"]);
        assert_eq!(template_values(&json!(["bug", "", "ui"])), ["bug", "ui"]);
    }

    #[test]
    fn github_quoting_keeps_plain_values_quotes_the_rest_and_refuses_a_double_quote() {
        let write = |value: &str, quoted: bool| Quote::Github.write("label", value, quoted);
        assert_eq!(write("octocat", false).ok().as_deref(), Some("octocat"));
        assert_eq!(
            write("v1.2-rc/x@y#1+", false).ok().as_deref(),
            Some("v1.2-rc/x@y#1+")
        );
        assert_eq!(
            write("good first issue", false).ok().as_deref(),
            Some("\"good first issue\"")
        );
        assert_eq!(write("a:b", false).ok().as_deref(), Some("\"a:b\""));
        // Between the clause's own quotes a value goes in as it is.
        assert_eq!(
            write("good first issue", true).ok().as_deref(),
            Some("good first issue")
        );
        let refused = text(write("say \"hi\"", true).expect_err("a double quote is refused"));
        assert_eq!(
            refused,
            "Invalid argument `label`: \"say \\\"hi\\\"\" has a double quote, which this search cannot hold; leave it out."
        );
        assert!(Quote::Slack.write("in", "a\"b", false).is_err());
    }

    #[test]
    fn jql_quoting_escapes_quotes_backslashes_and_controls_and_quotes_unquoted_values() {
        assert_eq!(
            Quote::Jql
                .write("status", "In \"Review\"", true)
                .ok()
                .as_deref(),
            Some("In \\\"Review\\\"")
        );
        assert_eq!(
            Quote::Jql
                .write("status", "it's a\\b\n", false)
                .ok()
                .as_deref(),
            Some("\"it\\'s a\\\\b\\n\"")
        );
        assert_eq!(
            Quote::None.write("q", "a \"b\"", false).ok().as_deref(),
            Some("a \"b\"")
        );
    }

    // --- errors ---------------------------------------------------------------------------

    fn text(error: ToolError) -> String {
        match error {
            ToolError::InvalidArguments(text) => text,
            ToolError::NotFound(not_found) => not_found.to_string(),
            ToolError::Answer(text) => text,
            other => panic!("expected InvalidArguments, NotFound or Answer, got {other:?}"),
        }
    }

    fn keys(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| name.to_string()).collect()
    }

    fn status_error(status: u16) -> ToolError {
        ToolError::Status {
            operation: "GET /projects/{id}",
            status,
            reason: "Not Found",
            message: "no such project".to_string(),
            retry_after: None,
        }
    }

    #[test]
    fn not_found_lists_the_available_values() {
        let error = not_found("project key", "WEBB", keys(&["WEB", "API", "MOBILE"]));
        assert_eq!(
            text(error),
            "Project \"WEBB\" not found. Available project keys: WEB, API, MOBILE."
        );
    }

    #[test]
    fn not_found_without_values_says_only_not_found() {
        let error = not_found("user", "bob", Vec::new());
        assert_eq!(text(error), "User \"bob\" not found.");
    }

    #[test]
    fn not_found_lists_at_most_twenty_values() {
        let available: Vec<String> = (1..=25).map(|n| format!("K{n}")).collect();
        let listed: Vec<String> = (1..=20).map(|n| format!("K{n}")).collect();
        let error = not_found("project key", "X", available);
        assert_eq!(
            text(error),
            format!(
                "Project \"X\" not found. Available project keys: {} and 5 more.",
                listed.join(", ")
            )
        );
    }

    #[test]
    fn several_alternatives_are_each_made_plural() {
        let error = not_found("user name or email", "Bo", keys(&["Ann Lee", "ann@x.org"]));
        assert_eq!(
            text(error),
            "User \"Bo\" not found. Available user names or emails: Ann Lee, ann@x.org."
        );
    }

    #[test]
    fn not_found_lists_a_value_two_items_share_once() {
        let error = not_found("user name", "Bo", keys(&["Ann Lee", "Bo Chen", "Ann Lee"]));
        assert_eq!(
            text(error),
            "User \"Bo\" not found. Available user names: Ann Lee, Bo Chen."
        );
    }

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

    #[tokio::test]
    async fn resolve_each_names_every_unknown_value_of_a_list_at_once() {
        let labels = keys(&["bug", "ui"]);
        let resolve = |value: String| {
            let labels = labels.clone();
            async move {
                match labels.iter().position(|label| *label == value) {
                    Some(index) => Ok(format!("{}", index + 1)),
                    None => Err(not_found("label", &value, labels)),
                }
            }
        };
        let ids = resolve_each(&keys(&["ui", "bug"]), resolve).await;
        assert_eq!(ids.expect("both are known"), keys(&["2", "1"]));
        let error = resolve_each(&keys(&["bug", "nope", "ui", "wat", "zzz"]), resolve)
            .await
            .expect_err("three are unknown");
        assert_eq!(
            text(error),
            "Labels \"nope\", \"wat\" and \"zzz\" not found. Available labels: bug, ui."
        );
    }

    #[tokio::test]
    async fn resolve_each_stops_at_an_error_that_is_not_a_miss() {
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let error = resolve_each(&keys(&["a", "b"]), |_| {
            calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async { Err::<String, _>(status_error(500)) }
        })
        .await
        .expect_err("the API failed");
        assert!(matches!(error, ToolError::Status { status: 500, .. }));
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
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
    fn a_step_answer_is_checked_only_where_later_steps_read_it_and_a_write_says_it_likely_happened()
    {
        static READ: Documented = Documented::new(
            r#"{"type":"object","properties":{"data":{"type":"object","properties":{"completed":{"type":"boolean"}}}}}"#,
        );
        // Fields nobody reads may stray from the documentation.
        let fits = serde_json::json!({"data": {"completed": true, "gid": 7}, "extra": null});
        assert!(READ.check(&fits, 1, "getTask", false).is_ok());
        let garbled = serde_json::json!({"data": {"completed": "yes"}});
        let error = READ.check(&garbled, 1, "getTask", false).unwrap_err();
        assert_eq!(
            text(error),
            "The API's answer to step 1 (getTask) does not have the shape the API documents (at /data/completed: \"yes\" is not of type \"boolean\"), so the server stopped there. Calling again will likely fail the same way; tell the user the API may have changed."
        );
        let error = READ
            .check(&Value::String("<html>".into()), 2, "createTask", true)
            .unwrap_err();
        assert_eq!(
            text(error),
            "The API accepted step 2 (createTask), but its answer does not have the shape the API documents (the answer: text, not JSON: \"<html>\"), so the server stopped there. The change was most likely made: do not call again; tell the user to check it, and that the API may have changed."
        );
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

    #[test]
    fn check_range_accepts_the_bounds_and_words_the_error() {
        assert!(check_range("limit", 1, 1, 50).is_ok());
        assert!(check_range("limit", 50, 1, 50).is_ok());
        let error = check_range("limit", 80, 1, 50).expect_err("80 is out of range");
        assert_eq!(
            text(error),
            "Invalid argument `limit`: 80 is out of range; use a value from 1 to 50."
        );
        assert!(check_range("limit", 0, 1, 50).is_err());
    }

    #[test]
    fn check_length_counts_characters_and_words_the_error() {
        assert!(check_length("title", &"é".repeat(200), 200).is_ok());
        let error = check_length("title", &"x".repeat(230), 200).expect_err("too long");
        assert_eq!(
            text(error),
            "Invalid argument `title`: 230 characters is too long; use at most 200."
        );
    }

    // --- codes ----------------------------------------------------------------------------

    #[test]
    fn codes_match_their_json_values() {
        assert!(Code::Int(2).matches(&json!(2)));
        assert!(Code::Int(2).matches(&json!("2")));
        assert!(!Code::Int(2).matches(&json!(3)));
        assert!(!Code::Int(2).matches(&json!("two")));
        assert!(!Code::Int(2).matches(&json!(2.5)));
        assert!(Code::Str("open").matches(&json!("open")));
        assert!(!Code::Str("open").matches(&json!("OPEN")));
        assert!(!Code::Str("1").matches(&json!(1)));
        assert_eq!(Value::from(Code::Int(3)), json!(3));
        assert_eq!(Value::from(Code::Str("a")), json!("a"));
    }

    // --- resolvers ------------------------------------------------------------------------

    static PROJECT_KEYS: ResolverSpec = ResolverSpec {
        what: "project key",
        match_fields: &["/key", "/name"],
        only: &[],
        id_field: "/id",
        name_field: "/key",
        ttl: Duration::from_secs(300),
    };

    static FRESH_EVERY_TIME: ResolverSpec = ResolverSpec {
        what: "project key",
        match_fields: &["/key"],
        only: &[],
        id_field: "/id",
        name_field: "/key",
        ttl: Duration::ZERO,
    };

    fn projects() -> Vec<Value> {
        vec![
            json!({"id": 10, "key": "WEB", "name": "Website"}),
            json!({"id": "a-20", "key": "API", "name": "Public API"}),
            json!({"id": 30, "key": "MOBILE", "name": null}),
        ]
    }

    /// A `fetch_all` that counts its calls and returns `items`.
    fn counted(
        calls: &AtomicUsize,
        items: Vec<Value>,
    ) -> impl FnOnce() -> std::future::Ready<Result<Vec<Value>, ToolError>> + '_ {
        move || {
            calls.fetch_add(1, Ordering::SeqCst);
            std::future::ready(Ok(items))
        }
    }

    #[tokio::test]
    async fn resolve_finds_a_value_and_then_uses_the_cache() {
        let cache = ResolverCache::new(&PROJECT_KEYS);
        let calls = AtomicUsize::new(0);
        let id = cache.resolve("WEB", counted(&calls, projects())).await;
        assert_eq!(id.expect("WEB resolves"), "10");
        let id = cache.resolve("API", counted(&calls, projects())).await;
        assert_eq!(id.expect("API resolves"), "a-20");
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn resolve_ignores_case_and_matches_every_match_field() {
        let cache = ResolverCache::new(&PROJECT_KEYS);
        let calls = AtomicUsize::new(0);
        let id = cache.resolve("mobile", counted(&calls, projects())).await;
        assert_eq!(id.expect("mobile resolves"), "30");
        let id = cache
            .resolve("public api", counted(&calls, projects()))
            .await;
        assert_eq!(id.expect("the name resolves"), "a-20");
        let id = cache.resolve("We", counted(&calls, projects())).await;
        assert!(id.is_err(), "matching is exact, not by prefix");
    }

    #[tokio::test]
    async fn resolve_of_a_value_two_items_share_lists_both_and_what_tells_them_apart() {
        let cache = ResolverCache::new(&PROJECT_KEYS);
        let calls = AtomicUsize::new(0);
        let mut items = projects();
        items.push(json!({"id": 40, "key": "WEB2", "name": "Public API"}));
        let error = cache
            .resolve("public api", counted(&calls, items))
            .await
            .expect_err("two projects are called Public API");
        assert_eq!(
            text(error),
            "Project \"public api\" is ambiguous: 2 project keys match it: API (id a-20); WEB2 \
             (id 40). Call again with one of the values that tell them apart, or with the id."
        );
    }

    #[tokio::test]
    async fn a_blank_value_is_refused_before_the_list_is_fetched() {
        let cache = ResolverCache::new(&PROJECT_KEYS);
        let calls = AtomicUsize::new(0);
        let error = cache
            .resolve("  ", counted(&calls, projects()))
            .await
            .expect_err("blank");
        assert_eq!(text(error), "The value is blank: give a project key.");
        assert_eq!(calls.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn a_list_with_an_ambiguous_and_an_unknown_value_tells_both() {
        let cache = ResolverCache::new(&PROJECT_KEYS);
        let calls = AtomicUsize::new(0);
        let mut items = projects();
        items.push(json!({"id": 40, "key": "WEB2", "name": "Public API"}));
        let values = [
            "public api".to_string(),
            "NOPE".to_string(),
            "WEB".to_string(),
        ];
        let error = resolve_each(&values, |value| {
            let items = items.clone();
            let cache = &cache;
            let calls = &calls;
            async move { cache.resolve(&value, counted(calls, items)).await }
        })
        .await
        .expect_err("one ambiguous, one unknown");
        let message = text(error);
        assert!(message.contains("\"public api\" is ambiguous"), "{message}");
        assert!(message.contains("\"NOPE\" not found"), "{message}");
    }

    #[tokio::test]
    async fn only_the_items_where_says_are_resolved_to() {
        static FILES: ResolverSpec = ResolverSpec {
            what: "file name",
            match_fields: &["/name"],
            only: &[("/type", "file")],
            id_field: "/id",
            name_field: "/name",
            ttl: Duration::from_secs(300),
        };
        let cache = ResolverCache::new(&FILES);
        let calls = AtomicUsize::new(0);
        let entries = vec![
            json!({"id": "d1", "name": "Reports", "type": "folder"}),
            json!({"id": "f1", "name": "q1.pdf", "type": "file"}),
            json!({"id": "f2", "name": "Reports", "type": "File"}),
        ];
        let id = cache
            .resolve("reports", counted(&calls, entries.clone()))
            .await;
        assert_eq!(id.expect("only the file matches"), "f2");
        let error = cache
            .resolve("d1", counted(&calls, entries))
            .await
            .expect_err("a folder's id is no file's");
        assert!(!text(error).contains("Reports (id d1)"));
    }

    #[tokio::test]
    async fn a_match_field_through_a_list_matches_any_of_its_values() {
        static DROPLETS: ResolverSpec = ResolverSpec {
            what: "droplet name or address",
            match_fields: &["/name", "/networks/v4/ip_address"],
            only: &[],
            id_field: "/id",
            name_field: "/name",
            ttl: Duration::from_secs(300),
        };
        let cache = ResolverCache::new(&DROPLETS);
        let calls = AtomicUsize::new(0);
        let droplets = vec![json!({
            "id": 101,
            "name": "web-01",
            "networks": {"v4": [{"ip_address": "10.0.0.101"}, {"ip_address": "203.0.0.101"}]},
        })];
        let id = cache
            .resolve("203.0.0.101", counted(&calls, droplets.clone()))
            .await;
        assert_eq!(id.expect("the second address matches"), "101");
        let id = cache.resolve("web-01", counted(&calls, droplets)).await;
        assert_eq!(id.expect("the name matches"), "101");
        assert_eq!(
            field_texts(&json!({"a": [{"b": "x"}, {"b": 2}, {"c": 3}]}), "/a/b"),
            ["x", "2"]
        );
        assert_eq!(field_texts(&json!({"a": ["x", "y"]}), "/a/1"), ["y"]);
        assert_eq!(
            field_texts(&json!({"tags": ["x", "y"]}), "/tags"),
            ["x", "y"]
        );
    }

    #[tokio::test]
    async fn an_id_an_earlier_search_found_is_known_to_a_scoped_cache_and_nothing_else_is() {
        static ARTISTS: ResolverSpec = ResolverSpec {
            what: "artist",
            match_fields: &["/name"],
            only: &[],
            id_field: "/id",
            name_field: "/name",
            ttl: Duration::from_secs(300),
        };
        let caches = ScopedResolverCache::new(&ARTISTS);
        let calls = AtomicUsize::new(0);
        let found = vec![
            json!({"id": "ar40", "name": "Nina"}),
            json!({"id": "ar41", "name": "Nina"}),
        ];
        let scope: Map<String, Value> = [("q".to_string(), json!("nina"))].into_iter().collect();
        assert!(!caches.knows_id("ar40").await, "nothing searched yet");
        let error = caches
            .scope(&scope)
            .resolve("nina", counted(&calls, found))
            .await
            .expect_err("two artists are called Nina");
        assert!(
            text(error).contains("id ar40"),
            "the ambiguity offers the ids"
        );
        assert!(caches.knows_id("ar40").await);
        assert!(caches.knows_id("ar41").await);
        assert!(!caches.knows_id("ar4").await, "only whole ids");
        assert!(!caches.knows_id("nina").await, "a name is not an id");
    }

    #[tokio::test]
    async fn among_several_matches_the_item_whose_id_the_value_is_is_the_one_meant() {
        static SLUGS: ResolverSpec = ResolverSpec {
            what: "category",
            match_fields: &["/name", "/slug"],
            only: &[],
            id_field: "/slug",
            name_field: "/name",
            ttl: Duration::from_secs(300),
        };
        let cache = ResolverCache::new(&SLUGS);
        let calls = AtomicUsize::new(0);
        let items = vec![
            json!({"name": "Dev", "slug": "dev"}),
            json!({"name": "dev", "slug": "dev-2"}),
        ];
        let id = cache.resolve("dev", counted(&calls, items.clone())).await;
        assert_eq!(id.expect("`dev` is the first one's id"), "dev");
        let id = cache.resolve("dev-2", counted(&calls, items)).await;
        assert_eq!(id.expect("the second is told by its id"), "dev-2");
    }

    #[tokio::test]
    async fn resolve_accepts_an_id_from_the_list() {
        let cache = ResolverCache::new(&PROJECT_KEYS);
        let calls = AtomicUsize::new(0);
        let id = cache.resolve("30", counted(&calls, projects())).await;
        assert_eq!(id.expect("an id resolves to itself"), "30");
    }

    #[tokio::test]
    async fn resolve_of_an_unknown_value_lists_the_available_keys() {
        let cache = ResolverCache::new(&PROJECT_KEYS);
        let calls = AtomicUsize::new(0);
        let error = cache
            .resolve("WEBB", counted(&calls, projects()))
            .await
            .expect_err("WEBB is unknown");
        assert_eq!(
            text(error),
            "Project \"WEBB\" not found. Available project keys: WEB, API, MOBILE."
        );
        // The list was fetched by this very call, so a miss does not fetch it again.
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn resolve_refetches_once_on_a_miss_in_an_older_list() {
        let cache = ResolverCache::new(&PROJECT_KEYS);
        let calls = AtomicUsize::new(0);
        cache
            .resolve("WEB", counted(&calls, projects()))
            .await
            .expect("WEB resolves");
        let mut grown = projects();
        grown.push(json!({"id": 40, "key": "NEW"}));
        let id = cache.resolve("new", counted(&calls, grown)).await;
        assert_eq!(id.expect("a project created since resolves"), "40");
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn resolve_passes_on_fetch_errors_and_retries_next_time() {
        let cache = ResolverCache::new(&PROJECT_KEYS);
        let error = cache
            .resolve("WEB", || async {
                Err(ToolError::InvalidArguments("upstream down".to_string()))
            })
            .await
            .expect_err("the fetch failed");
        assert_eq!(text(error), "upstream down");
        let calls = AtomicUsize::new(0);
        let id = cache.resolve("WEB", counted(&calls, projects())).await;
        assert_eq!(id.expect("WEB resolves"), "10");
    }

    #[tokio::test]
    async fn resolve_reports_a_wrong_id_field() {
        static NO_ID: ResolverSpec = ResolverSpec {
            what: "project key",
            match_fields: &["/key"],
            only: &[],
            id_field: "/uuid",
            name_field: "/key",
            ttl: Duration::from_secs(300),
        };
        let cache = ResolverCache::new(&NO_ID);
        let calls = AtomicUsize::new(0);
        let error = cache
            .resolve("WEB", counted(&calls, projects()))
            .await
            .expect_err("no item has /uuid");
        assert_eq!(text(error), "The API's answer has no /uuid field.");
    }

    #[tokio::test]
    async fn concurrent_resolves_fetch_the_list_once() {
        let cache = ResolverCache::new(&PROJECT_KEYS);
        let calls = AtomicUsize::new(0);
        let fetch = || async {
            calls.fetch_add(1, Ordering::SeqCst);
            // Let the other calls run and queue up while this fetch is in flight.
            for _ in 0..10 {
                tokio::task::yield_now().await;
            }
            Ok(projects())
        };
        let (a, b, c, d) = tokio::join!(
            cache.resolve("WEB", fetch),
            cache.resolve("API", fetch),
            cache.resolve("mobile", fetch),
            cache.resolve("NOPE", fetch),
        );
        assert_eq!(a.expect("WEB"), "10");
        assert_eq!(b.expect("API"), "a-20");
        assert_eq!(c.expect("mobile"), "30");
        assert!(d.is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_stale_list_is_fetched_again() {
        let cache = ResolverCache::new(&FRESH_EVERY_TIME);
        let calls = AtomicUsize::new(0);
        cache
            .resolve("WEB", counted(&calls, projects()))
            .await
            .expect("WEB resolves");
        let renumbered = vec![json!({"id": 99, "key": "WEB"})];
        let id = cache.resolve("WEB", counted(&calls, renumbered)).await;
        assert_eq!(id.expect("WEB resolves"), "99");
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn names_maps_ids_to_display_names() {
        let cache = ResolverCache::new(&PROJECT_KEYS);
        let calls = AtomicUsize::new(0);
        let names = cache
            .names(counted(&calls, projects()))
            .await
            .expect("the list loads");
        let expected: HashMap<String, String> = [("10", "WEB"), ("a-20", "API"), ("30", "MOBILE")]
            .into_iter()
            .map(|(id, name)| (id.to_string(), name.to_string()))
            .collect();
        assert_eq!(names, expected);
        // The list is shared with resolve.
        cache
            .resolve("API", counted(&calls, projects()))
            .await
            .expect("API resolves");
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn resolve_futures_are_send() {
        fn assert_send<T: Send>(_: &T) {}
        let cache = ResolverCache::new(&PROJECT_KEYS);
        assert_send(&cache.resolve("WEB", || async { Ok(projects()) }));
        assert_send(&cache.names(|| async { Ok(projects()) }));
        let credentials =
            ClientCredentials::new("http://127.0.0.1:9/token", "id".into(), "s".into(), vec![]);
        assert_send(&credentials.token());
        let paging = Paging {
            style: PagingStyle::Page,
            items: "",
            total: None,
            more: None,
            sized: true,
            max_page_size: 10,
            max_pages: 1,
        };
        assert_send(&collect_pages(&paging, None, |_| async {
            Ok(FetchedPage::from(json!([])))
        }));
    }

    #[test]
    fn field_text_reads_strings_and_numbers() {
        let item = json!({"id": 12, "key": "WEB", "nested": {"id": "x"}, "none": null});
        assert_eq!(field_text(&item, "/id").expect("number"), "12");
        assert_eq!(field_text(&item, "/key").expect("string"), "WEB");
        assert_eq!(field_text(&item, "/nested/id").expect("nested"), "x");
        let error = field_text(&item, "/none").expect_err("null is not text");
        assert_eq!(text(error), "The API's answer has no /none field.");
        assert!(field_text(&item, "/missing").is_err());
    }

    // --- pagination -----------------------------------------------------------------------

    /// The simulated API: 130 items, pages of at most 50.
    const TOTAL: usize = 130;
    const API_MAX_PAGE: i64 = 50;

    /// Items `start..start + size` of the simulated API, the size capped as the API would.
    fn slice(total: usize, start: i64, size: i64) -> Vec<Value> {
        let start = usize::try_from(start)
            .expect("offset is not negative")
            .min(total);
        let size = usize::try_from(size.min(API_MAX_PAGE)).expect("size is not negative");
        (start..(start + size).min(total))
            .map(|n| json!({"id": n}))
            .collect()
    }

    fn paging(style: PagingStyle, items: &'static str) -> Paging {
        Paging {
            style,
            items,
            total: None,
            more: None,
            sized: true,
            max_page_size: API_MAX_PAGE,
            max_pages: 50,
        }
    }

    /// Walks the simulated API of `total` items in `style`, returning what was collected and
    /// the requests made.
    async fn walk(
        style: PagingStyle,
        total: usize,
        limit: Option<usize>,
    ) -> (Collected, Vec<PageRequest>) {
        let mut requests = Vec::new();
        let page_style = match style {
            PagingStyle::Page => 0,
            PagingStyle::Offset => 1,
            PagingStyle::Cursor { .. } => 2,
            PagingStyle::Link => 3,
            PagingStyle::AfterLast { .. } => 4,
        };
        let mut paging = paging(style, "/items");
        if page_style == 4 {
            paging.more = Some("/has_more");
        }
        let collected = collect_pages(&paging, limit, |request: PageRequest| {
            requests.push(request.clone());
            let page = match page_style {
                0 => FetchedPage::from(json!({
                    "items": slice(total, (request.number - 1) * request.size, request.size),
                    "total": total,
                })),
                1 => {
                    FetchedPage::from(json!({"items": slice(total, request.offset, request.size)}))
                }
                2 => {
                    let start: i64 = request
                        .cursor
                        .as_deref()
                        .map_or(0, |cursor| cursor.parse().expect("our own cursor"));
                    let items = slice(total, start, request.size);
                    let end = start + to_i64(items.len());
                    let next = if to_i64(total) > end {
                        json!(end.to_string())
                    } else {
                        Value::Null
                    };
                    FetchedPage::from(json!({"items": items, "paging": {"next": next}}))
                }
                // Stripe: the next page starts after the id of the last item received.
                4 => {
                    let start: i64 = request.cursor.as_deref().map_or(0, |cursor| {
                        cursor.parse::<i64>().expect("our own cursor") + 1
                    });
                    let items = slice(total, start, request.size);
                    let end = start + to_i64(items.len());
                    FetchedPage::from(json!({"items": items, "has_more": to_i64(total) > end}))
                }
                _ => {
                    let start: i64 = request.link.as_deref().map_or(0, |link| {
                        link.rsplit('=')
                            .next()
                            .and_then(|n| n.parse().ok())
                            .expect("our own link")
                    });
                    let items = slice(total, start, request.size);
                    let end = start + to_i64(items.len());
                    let mut header =
                        String::from("<https://api.example/items?offset=0>; rel=\"first\"");
                    if to_i64(total) > end {
                        header.push_str(&format!(
                            ", <https://api.example/items?offset={end}>; rel=\"next\""
                        ));
                    }
                    FetchedPage {
                        body: json!({"items": items}),
                        next_link: parse_next_link(&header),
                    }
                }
            };
            std::future::ready(Ok(page))
        })
        .await
        .expect("the walk succeeds");
        (collected, requests)
    }

    #[tokio::test]
    async fn without_a_page_size_the_first_page_sets_it_and_a_shorter_page_is_the_last() {
        // The API pages by number alone, 30 items a page, 70 in all.
        let mut paging = paging(PagingStyle::Page, "/items");
        paging.sized = false;
        let mut asked = Vec::new();
        let collected = collect_pages(&paging, Some(100), |request: PageRequest| {
            asked.push(request.number);
            let start = usize::try_from(request.number - 1).expect("from 1") * 30;
            let items: Vec<Value> = (start..(start + 30).min(70))
                .map(|n| json!({"id": n}))
                .collect();
            std::future::ready(Ok(FetchedPage::from(json!({"items": items}))))
        })
        .await
        .expect("the walk succeeds");
        assert_eq!(
            asked,
            [1, 2, 3],
            "page 3 (10 items) is shorter than page 1, so the last"
        );
        assert_eq!(collected.items.len(), 70);
        assert!(!collected.more);
        // A limit inside the first page stops there and says more exist.
        let collected = collect_pages(&paging, Some(5), |_| {
            let items: Vec<Value> = (0..30).map(|n| json!({"id": n})).collect();
            std::future::ready(Ok(FetchedPage::from(json!({"items": items}))))
        })
        .await
        .expect("the walk succeeds");
        assert_eq!(collected.items.len(), 5);
        assert!(collected.more);
    }

    fn ids(collected: &Collected) -> Vec<usize> {
        collected
            .items
            .iter()
            .map(|item| {
                item["id"]
                    .as_u64()
                    .and_then(|id| usize::try_from(id).ok())
                    .expect("an id")
            })
            .collect()
    }

    fn styles() -> Vec<PagingStyle> {
        vec![
            PagingStyle::Page,
            PagingStyle::Offset,
            PagingStyle::Cursor {
                next: "/paging/next",
            },
            PagingStyle::Link,
            PagingStyle::AfterLast { field: "/id" },
        ]
    }

    #[tokio::test]
    async fn a_small_limit_takes_one_request_and_is_truncated() {
        for style in styles() {
            let (collected, requests) = walk(style, TOTAL, Some(20)).await;
            assert_eq!(requests.len(), 1);
            assert_eq!(requests[0].size, 20);
            assert_eq!(ids(&collected), (0..20).collect::<Vec<_>>());
            assert!(collected.more);
        }
    }

    #[tokio::test]
    async fn a_limit_of_one_full_page_takes_one_request() {
        for style in styles() {
            let (collected, requests) = walk(style, TOTAL, Some(50)).await;
            assert_eq!(requests.len(), 1);
            assert_eq!(collected.items.len(), 50);
            assert!(collected.more);
        }
    }

    #[tokio::test]
    async fn a_large_limit_walks_pages_of_the_same_size() {
        for style in styles() {
            let (collected, requests) = walk(style, TOTAL, Some(120)).await;
            assert_eq!(requests.len(), 3);
            assert!(requests.iter().all(|request| request.size == 50));
            assert_eq!(ids(&collected), (0..120).collect::<Vec<_>>());
            assert!(collected.more);
        }
    }

    #[tokio::test]
    async fn no_limit_collects_everything() {
        for style in styles() {
            let (collected, requests) = walk(style, TOTAL, None).await;
            assert_eq!(requests.len(), 3);
            assert_eq!(ids(&collected), (0..TOTAL).collect::<Vec<_>>());
            assert!(!collected.more);
        }
    }

    #[tokio::test]
    async fn fewer_items_than_the_limit_is_not_truncated() {
        for style in styles() {
            let (collected, requests) = walk(style, 30, Some(50)).await;
            assert_eq!(requests.len(), 1);
            assert_eq!(collected.items.len(), 30);
            assert!(!collected.more);
        }
    }

    #[tokio::test]
    async fn requests_carry_page_numbers_offsets_cursors_and_links() {
        let (_, requests) = walk(PagingStyle::Page, TOTAL, None).await;
        let numbers: Vec<i64> = requests.iter().map(|request| request.number).collect();
        assert_eq!(numbers, [1, 2, 3]);
        let (_, requests) = walk(PagingStyle::Offset, TOTAL, None).await;
        let offsets: Vec<i64> = requests.iter().map(|request| request.offset).collect();
        assert_eq!(offsets, [0, 50, 100]);
        let (_, requests) = walk(
            PagingStyle::Cursor {
                next: "/paging/next",
            },
            TOTAL,
            None,
        )
        .await;
        let cursors: Vec<Option<String>> = requests
            .iter()
            .map(|request| request.cursor.clone())
            .collect();
        assert_eq!(cursors, [None, Some("50".into()), Some("100".into())]);
        let (_, requests) = walk(PagingStyle::Link, TOTAL, None).await;
        assert_eq!(requests[0].link, None);
        assert_eq!(
            requests[2].link.as_deref(),
            Some("https://api.example/items?offset=100")
        );
    }

    /// `startAt`/`maxResults`/`total`: the API gives at most 50 items a page whatever is asked;
    /// asked for 100, its first page is short. With `total` the walk goes on to every item;
    /// without it, the short page ends the walk after 50.
    #[tokio::test]
    async fn a_total_in_the_answer_walks_past_pages_shorter_than_asked_for() {
        let walk_with = |total: Option<&'static str>| async move {
            let paging = Paging {
                style: PagingStyle::Offset,
                items: "/issues",
                total,
                more: None,
                sized: true,
                max_page_size: 100,
                max_pages: 10,
            };
            let mut offsets = Vec::new();
            let collected = collect_pages(&paging, None, |request: PageRequest| {
                offsets.push(request.offset);
                let issues = slice(TOTAL, request.offset, request.size);
                std::future::ready(Ok(FetchedPage::from(json!({
                    "startAt": request.offset,
                    "maxResults": API_MAX_PAGE,
                    "total": TOTAL,
                    "issues": issues,
                }))))
            })
            .await
            .expect("the walk");
            (collected, offsets)
        };
        let (collected, offsets) = walk_with(Some("/total")).await;
        assert_eq!(offsets, [0, 50, 100]);
        assert_eq!(collected.items.len(), TOTAL);
        assert!(!collected.more);
        let (collected, offsets) = walk_with(None).await;
        assert_eq!(offsets, [0]);
        assert_eq!(collected.items.len(), 50);
    }

    #[tokio::test]
    async fn the_page_bound_stops_the_walk_and_reports_more() {
        let paging = Paging {
            style: PagingStyle::Offset,
            items: "",
            total: None,
            more: None,
            sized: true,
            max_page_size: 50,
            max_pages: 2,
        };
        let mut calls = 0;
        let collected = collect_pages(&paging, None, |request: PageRequest| {
            calls += 1;
            std::future::ready(Ok(FetchedPage::from(Value::Array(slice(
                TOTAL,
                request.offset,
                request.size,
            )))))
        })
        .await
        .expect("the walk succeeds");
        assert_eq!(calls, 2);
        assert_eq!(collected.items.len(), 100);
        assert!(collected.more);
    }

    #[tokio::test]
    async fn the_servers_page_bound_stops_a_walk_the_curated_bound_would_continue() {
        let curated = paging(PagingStyle::Page, "/items");
        assert_eq!(
            curated.within(100).max_pages,
            50,
            "the curated bound stays the lower"
        );
        let bounded = curated.within(2);
        let mut calls = 0;
        // An API whose pages never end.
        let collected = collect_pages(&bounded, None, |request: PageRequest| {
            calls += 1;
            let items: Vec<Value> = (0..request.size).map(|i| json!({"id": i})).collect();
            std::future::ready(Ok(FetchedPage::from(json!({"items": items}))))
        })
        .await
        .expect("the walk succeeds");
        assert_eq!(calls, 2);
        assert!(collected.more, "the bound is reported as more items");
    }

    #[tokio::test]
    async fn a_cursor_that_does_not_move_ends_the_walk() {
        let paging = paging(PagingStyle::Cursor { next: "/next" }, "/items");
        let mut calls = 0;
        let collected = collect_pages(&paging, None, |_| {
            calls += 1;
            std::future::ready(Ok(FetchedPage::from(
                json!({"items": [{"id": 1}], "next": "same"}),
            )))
        })
        .await
        .expect("the walk succeeds");
        assert_eq!(calls, 2);
        assert_eq!(collected.items.len(), 2);
        assert!(!collected.more);
    }

    #[tokio::test]
    async fn a_fetch_error_or_a_body_without_items_fails_the_walk() {
        let paging = paging(PagingStyle::Page, "/items");
        let error = collect_pages(&paging, Some(10), |_| {
            std::future::ready(Ok(FetchedPage::from(json!({"data": []}))))
        })
        .await
        .expect_err("no items");
        assert_eq!(
            text(error),
            "The API's answer has no list at /items, where the API documents one (it is an object: {\"data\":[]}). The API may be failing or may have changed: calling again will likely fail the same way; tell the user."
        );
        let error = collect_pages(&paging, Some(10), |_| {
            std::future::ready(Err(ToolError::InvalidArguments("down".to_string())))
        })
        .await
        .expect_err("the fetch fails");
        assert_eq!(text(error), "down");
    }

    #[test]
    fn items_at_reads_the_list_at_a_pointer() {
        let body = json!({"data": {"items": [1, 2]}, "none": null, "text": "x"});
        assert_eq!(
            items_at(&body, "/data/items").expect("a list"),
            [json!(1), json!(2)]
        );
        assert!(items_at(&body, "/none").expect("null is empty").is_empty());
        assert_eq!(items_at(&json!([3]), "").expect("the body"), [json!(3)]);
        assert_eq!(
            text(items_at(&body, "/text").expect_err("not a list")),
            "The API's answer has no list at /text, where the API documents one (it is an object: {\"data\":{\"items\":[1,2]},\"none\":null,\"text\":\"x\"}). The API may be failing or may have changed: calling again will likely fail the same way; tell the user."
        );
        assert_eq!(
            text(items_at(&body, "").expect_err("not a list")),
            "The API's answer is not the list the API documents (it is an object: {\"data\":{\"items\":[1,2]},\"none\":null,\"text\":\"x\"}). The API may be failing or may have changed: calling again will likely fail the same way; tell the user."
        );
        assert_eq!(
            text(items_at(&json!("<html>Sign in</html>"), "").expect_err("text")),
            "The API's answer is not the list the API documents (it is text, not JSON: \"<html>Sign in</html>\"). The API may be failing or may have changed: calling again will likely fail the same way; tell the user."
        );
    }

    #[test]
    fn parse_next_link_finds_the_next_relation() {
        assert_eq!(
            parse_next_link(r#"<https://x/?page=2>; rel="next", <https://x/?page=9>; rel="last""#)
                .as_deref(),
            Some("https://x/?page=2")
        );
        assert_eq!(
            parse_next_link(r#"<https://x/?page=1>; rel="prev", <https://x/?page=3>; rel="next""#)
                .as_deref(),
            Some("https://x/?page=3")
        );
        // Unquoted, upper case, extra parameters, several relation types.
        assert_eq!(
            parse_next_link("<https://x/b>; title=\"a, b; c\"; REL=Next").as_deref(),
            Some("https://x/b")
        );
        assert_eq!(
            parse_next_link(r#"<https://x/c>; rel="last next""#).as_deref(),
            Some("https://x/c")
        );
        // Commas and semicolons inside the URL.
        assert_eq!(
            parse_next_link(r#"<https://x/?ids=1,2;3>; rel="next""#).as_deref(),
            Some("https://x/?ids=1,2;3")
        );
        // Relative URLs are returned as written.
        assert_eq!(
            parse_next_link(r#"</items?cursor=abc>;rel=next"#).as_deref(),
            Some("/items?cursor=abc")
        );
    }

    #[test]
    fn parse_next_link_without_a_next_relation_is_none() {
        assert_eq!(parse_next_link(""), None);
        assert_eq!(parse_next_link(r#"<https://x/?page=1>; rel="prev""#), None);
        assert_eq!(
            parse_next_link(r#"<https://x/?page=1>; rel="nextish""#),
            None
        );
        assert_eq!(parse_next_link(r#"<>; rel="next""#), None);
        assert_eq!(parse_next_link("garbage"), None);
        assert_eq!(parse_next_link(r#"<https://x/; rel="next""#), None);
        assert_eq!(parse_next_link(r#"<https://x/>; rel="next"#), None);
    }

    // --- shaping --------------------------------------------------------------------------

    static STATES: &[(Code, &str)] = &[(Code::Int(1), "open"), (Code::Int(2), "closed")];

    static ISSUE: Shape = Shape {
        fields: &[
            FieldSpec {
                name: "key",
                from: "/key",
                convert: Convert::Copy,
            },
            FieldSpec {
                name: "state",
                from: "/state",
                convert: Convert::Enum(STATES),
            },
            FieldSpec {
                name: "assignee",
                from: "/assignee/id",
                convert: Convert::Lookup(0),
            },
            FieldSpec {
                name: "due",
                from: "/due_date",
                convert: Convert::Copy,
            },
        ],
        detailed: &[
            FieldSpec {
                name: "description",
                from: "/body",
                convert: Convert::Copy,
            },
            FieldSpec {
                name: "watchers",
                from: "/watcher_ids",
                convert: Convert::Lookup(0),
            },
        ],
    };

    fn users() -> HashMap<String, String> {
        [("7", "alice"), ("8", "bob")]
            .into_iter()
            .map(|(id, name)| (id.to_string(), name.to_string()))
            .collect()
    }

    fn issue() -> Value {
        json!({
            "key": "WEB-1",
            "state": 2,
            "assignee": {"id": 7},
            "due_date": null,
            "body": "Fix it",
            "watcher_ids": [8, 9],
            "internal": true,
        })
    }

    #[test]
    fn shape_item_picks_renames_and_converts_fields_in_order() {
        let users = users();
        let shaped = shape_item(&ISSUE, &issue(), false, &[&users]);
        assert_eq!(
            serde_json::to_string(&shaped).expect("serializes"),
            r#"{"key":"WEB-1","state":"closed","assignee":"alice"}"#
        );
    }

    #[test]
    fn shape_item_detailed_adds_the_detailed_fields_after() {
        let users = users();
        let shaped = shape_item(&ISSUE, &issue(), true, &[&users]);
        assert_eq!(
            serde_json::to_string(&shaped).expect("serializes"),
            r#"{"key":"WEB-1","state":"closed","assignee":"alice","description":"Fix it","watchers":["bob","9"]}"#
        );
    }

    #[test]
    fn shape_item_shows_unknown_codes_and_ids_as_text_and_omits_missing_fields() {
        let users = users();
        let item = json!({"key": "WEB-2", "state": 5, "assignee": {"id": "99"}});
        let shaped = shape_item(&ISSUE, &item, true, &[&users]);
        assert_eq!(
            shaped,
            json!({"key": "WEB-2", "state": "5", "assignee": "99"})
        );
        // A missing lookup table gives the id as text rather than failing.
        let shaped = shape_item(&ISSUE, &issue(), false, &[]);
        assert_eq!(shaped["assignee"], json!("7"));
        // String codes for integer enums are mapped too.
        let shaped = shape_item(&ISSUE, &json!({"state": "1"}), false, &[]);
        assert_eq!(shaped, json!({"state": "open"}));
    }

    #[test]
    fn shape_item_without_fields_returns_the_item() {
        static NONE: Shape = Shape {
            fields: &[],
            detailed: &[],
        };
        assert_eq!(shape_item(&NONE, &issue(), true, &[]), issue());
    }

    #[test]
    fn shape_list_reports_truncation_with_a_note() {
        let users = users();
        let collected = Collected {
            items: vec![issue(), json!({"key": "WEB-3", "state": 1})],
            more: true,
        };
        let output = shape_list(
            &ISSUE,
            "issues",
            collected,
            false,
            &[&users],
            "More issues exist; raise limit.",
        );
        assert_eq!(
            serde_json::to_string(&output.value).expect("serializes"),
            r#"{"issues":[{"key":"WEB-1","state":"closed","assignee":"alice"},{"key":"WEB-3","state":"open"}],"truncated":true}"#
        );
        assert_eq!(output.notes, ["More issues exist; raise limit."]);
    }

    #[test]
    fn shape_list_without_truncation_has_no_note() {
        let collected = Collected {
            items: Vec::new(),
            more: false,
        };
        let output = shape_list(&ISSUE, "issues", collected, false, &[], "unused");
        assert_eq!(
            serde_json::to_string(&output.value).expect("serializes"),
            r#"{"issues":[],"truncated":false}"#
        );
        assert!(output.notes.is_empty());
    }

    // --- OAuth2 client credentials ----------------------------------------------------------

    /// A token endpoint on 127.0.0.1 answering every POST to `/token` with `status` and `body`;
    /// returns its URL, the number of POSTs and the last form body received.
    async fn token_endpoint(
        status: u16,
        body: Value,
    ) -> (String, Arc<AtomicUsize>, Arc<std::sync::Mutex<String>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds");
        let address = listener.local_addr().expect("has an address");
        let posts = Arc::new(AtomicUsize::new(0));
        let last_form = Arc::new(std::sync::Mutex::new(String::new()));
        let (counter, form_seen) = (Arc::clone(&posts), Arc::clone(&last_form));
        let app = axum::Router::new().route(
            "/token",
            axum::routing::post(move |form: String| {
                let issued = counter.fetch_add(1, Ordering::SeqCst) + 1;
                *form_seen.lock().expect("not poisoned") = form;
                let mut body = body.clone();
                if body.get("access_token").is_some() {
                    body["access_token"] = json!(format!("token-{issued}"));
                }
                async move {
                    (
                        axum::http::StatusCode::from_u16(status).expect("a status"),
                        [(axum::http::header::CONTENT_TYPE, "application/json")],
                        body.to_string(),
                    )
                }
            }),
        );
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        (format!("http://{address}/token"), posts, last_form)
    }

    fn credentials(url: &str, scopes: &[&str]) -> ClientCredentials {
        ClientCredentials::new(
            url,
            "my-client".to_string(),
            "s3cr3t-value".to_string(),
            scopes.iter().map(|scope| scope.to_string()).collect(),
        )
    }

    #[tokio::test]
    async fn a_token_is_fetched_once_and_cached() {
        let (url, posts, form) = token_endpoint(
            200,
            json!({"access_token": "", "token_type": "Bearer", "expires_in": 3600}),
        )
        .await;
        let source = credentials(&url, &["read", "write"]);
        assert_eq!(source.token().await.expect("a token"), "token-1");
        assert_eq!(source.token().await.expect("a token"), "token-1");
        assert_eq!(posts.load(Ordering::SeqCst), 1);
        let form = form.lock().expect("not poisoned").clone();
        let mut fields: Vec<&str> = form.split('&').collect();
        fields.sort_unstable();
        assert_eq!(
            fields,
            [
                "client_id=my-client",
                "client_secret=s3cr3t-value",
                "grant_type=client_credentials",
                "scope=read+write",
            ]
        );
    }

    #[tokio::test]
    async fn no_scope_is_sent_without_scopes() {
        let (url, _, form) = token_endpoint(200, json!({"access_token": ""})).await;
        let source = credentials(&url, &[]);
        source.token().await.expect("a token");
        assert!(!form.lock().expect("not poisoned").contains("scope"));
    }

    #[tokio::test]
    async fn a_token_about_to_expire_is_refreshed() {
        // 60 s is within the refresh margin, so the token is stale as soon as it arrives.
        let (url, posts, _) =
            token_endpoint(200, json!({"access_token": "", "expires_in": 60})).await;
        let source = credentials(&url, &[]);
        assert_eq!(source.token().await.expect("a token"), "token-1");
        assert_eq!(source.token().await.expect("a token"), "token-2");
        assert_eq!(posts.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_short_lived_token_is_used_then_replaced_before_it_expires() {
        // Valid for 61 s: usable for the 1 s before the 60 s refresh margin begins.
        let (url, posts, _) =
            token_endpoint(200, json!({"access_token": "", "expires_in": 61})).await;
        let source = credentials(&url, &[]);
        assert_eq!(source.token().await.expect("a token"), "token-1");
        assert_eq!(source.token().await.expect("a token"), "token-1");
        assert_eq!(
            posts.load(Ordering::SeqCst),
            1,
            "the fresh token was reused"
        );
        tokio::time::sleep(Duration::from_millis(1_100)).await;
        // token-1 is valid for another 59 s, yet it is replaced now.
        assert_eq!(source.token().await.expect("a token"), "token-2");
        assert_eq!(posts.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_token_without_expires_in_is_kept() {
        let (url, posts, _) = token_endpoint(200, json!({"access_token": ""})).await;
        let source = credentials(&url, &[]);
        source.token().await.expect("a token");
        source.token().await.expect("a token");
        assert_eq!(posts.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn refused_credentials_are_reported_without_the_secret() {
        let (url, _, _) = token_endpoint(
            401,
            json!({"error": "invalid_client", "error_description": "bad secret s3cr3t-value"}),
        )
        .await;
        let source = credentials(&url, &[]);
        let error = text(source.token().await.expect_err("refused"));
        assert!(!error.contains("s3cr3t-value"), "{error}");
        assert_eq!(
            error,
            "The server's OAuth2 credentials were refused by the token endpoint (HTTP 401 Unauthorized: invalid_client: bad secret <redacted>); the user must fix the server's OAuth2 client configuration."
        );
    }

    #[tokio::test]
    async fn an_answer_without_a_token_is_an_error() {
        let (url, _, _) = token_endpoint(200, json!({"token_type": "Bearer"})).await;
        let source = credentials(&url, &[]);
        let error = text(source.token().await.expect_err("no token"));
        assert!(error.contains("without an access_token"), "{error}");
    }

    #[tokio::test]
    async fn an_unreachable_token_endpoint_is_reported_without_the_secret() {
        // A port that was just free: nothing listens there any more.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds");
        let address = listener.local_addr().expect("has an address");
        drop(listener);
        let url = format!("http://{address}/token");
        let source = credentials(&url, &[]);
        let error = text(source.token().await.expect_err("unreachable"));
        assert!(!error.contains("s3cr3t-value"), "{error}");
        assert_eq!(
            error,
            format!(
                "Could not get an access token for the API: the OAuth2 token endpoint {url} failed (it is unreachable). Try again later; if this persists, the user must check the server's OAuth2 token URL."
            )
        );
        assert!(!format!("{source:?}").contains("s3cr3t-value"));
    }

    #[test]
    fn find_one_takes_the_only_match_and_describes_several_by_the_fields_that_differ() {
        let answer = json!({"items": [
            {"id": 1, "name": "Done", "team": "web"},
            {"id": 2, "name": "Start", "team": "web"},
            {"id": 3, "name": "DONE ", "team": "api"},
            {"id": 2, "name": "Start", "team": "web"},
        ]});
        let start = json!("start");
        assert_eq!(
            find_one(&answer, "/items", &[("/name", &start)]),
            Ok(Some(json!({"id": 2, "name": "Start", "team": "web"})))
        );
        let done = json!("done");
        assert_eq!(
            find_one(&answer, "/items", &[("/name", &done)]),
            Err("id 1, name Done, team web; id 3, name DONE , team api".to_string())
        );
        let web = json!("web");
        assert_eq!(
            find_one(&answer, "/items", &[("/name", &done), ("/team", &web)]),
            Ok(Some(json!({"id": 1, "name": "Done", "team": "web"})))
        );
        let close = json!("close");
        assert_eq!(find_one(&answer, "/items", &[("/name", &close)]), Ok(None));
        assert_eq!(
            find_one(&json!({}), "/items", &[("/name", &close)]),
            Ok(None)
        );
    }

    #[test]
    fn find_one_and_item_values_read_paths_through_lists_as_check_does() {
        let answer = json!({"page": {"boards": [
            {"id": 1, "name": "Todo", "tags": [{"name": "web"}]},
            {"id": 2, "name": "Doing", "tags": [{"name": "api"}, {"name": "web"}]},
        ]}});
        let doing = json!("doing");
        assert_eq!(
            find_one(&answer, "/page/boards", &[("/name", &doing)])
                .map(|found| found.map(|item| item["id"].clone())),
            Ok(Some(json!(2)))
        );
        // A field read through a list (`tags.name`: every tag's name) holds when one of its
        // values does.
        let api = json!("API");
        assert_eq!(
            find_one(&answer, "/page/boards", &[("/tags/name", &api)])
                .map(|found| found.map(|item| item["id"].clone())),
            Ok(Some(json!(2)))
        );
        let web = json!("web");
        assert!(find_one(&answer, "/page/boards", &[("/tags/name", &web)]).is_err());
        assert_eq!(item_values(&answer, "/page/boards", "/name"), "Todo, Doing");
        assert_eq!(item_values(&answer, "/page/none", "/name"), "none");
        let twice = json!({"transitions": [{"to": "Done"}, {"to": "Done"}, {"to": "Open"}]});
        assert_eq!(item_values(&twice, "/transitions", "/to"), "Done, Open");
    }

    #[test]
    fn token_lifetimes_are_read_leniently_and_capped() {
        assert_eq!(seconds(&json!(3600)), Some(3600.0));
        assert_eq!(seconds(&json!("3600")), Some(3600.0));
        assert_eq!(seconds(&json!(1e300)), Some(TOKEN_MAX_LIFETIME_SECS));
        assert_eq!(seconds(&json!(-5)), None);
        assert_eq!(seconds(&json!(null)), None);
    }
}
