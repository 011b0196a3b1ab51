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

#[cfg(test)]
mod tests {
    use super::super::tests::text;
    use super::*;
    use serde_json::json;

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
}
