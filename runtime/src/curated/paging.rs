//! Pages of a list walked until a limit is reached ([`collect_pages`]), in every paging style an
//! API uses ([`PagingStyle`]).

use std::future::Future;

use serde_json::Value;

use super::super::ToolError;
use super::super::tool::shorten;

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

pub(super) fn to_i64(count: usize) -> i64 {
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
