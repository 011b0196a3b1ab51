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

#[cfg(test)]
mod tests {
    use super::super::paging::{FetchedPage, Paging, PagingStyle, collect_pages};
    use super::super::tests::{keys, status_error, text};
    use super::*;
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};

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
}
