//! Readable values (project keys, user names) resolved to the API's ids through a cached list
//! ([`ResolverCache`], [`ScopedResolverCache`]), with "not found" errors that list the values the
//! model can use.

use std::collections::HashMap;
use std::future::Future;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio::sync::Mutex;

use super::super::{MAX_LISTED_VALUES, NotFound, ToolError, plural, subject};
use super::values::value_at;

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
/// ([`super::super::oauth::cache_owner`]): one user's names are never shown to another.
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
        let owner = super::super::oauth::cache_owner();
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
