//! Every reference from the curation file into the API — operationIds, parameters, field paths,
//! step variables, enum codes — checked against the normalized API, all mistakes collected.

use std::borrow::Cow;
use std::collections::BTreeSet;

use serde_json::Value;

use super::diagnostics::{Diagnostic, Severity};
use super::model::{
    Alias, At, ClausePart, Condition, Curation, FieldSpec, Pagination, PagingStyle, Param,
    ParamType, Resolver, Results, Spanned, Step, Template, TemplateFault, ToolSpec,
};
use super::schema::{
    is_array, items_of, json_types, nested_input, object_properties, only_array, operation_inputs,
    required_properties, schema_at, success_schema,
};
use super::semantics::{
    EACH, IF_PRESENT, ITEM, Reference, SEARCHED, Written, find_walks, glob_matches, is_searched,
    lookup_param, paging_param_names, paging_params, parameter_references, resolver_id_path,
    resolver_id_schema, resolver_items, resolver_paging, scoped_by, step_references, step_values,
    takes_paging, template_params, walked_pagination,
};
use crate::api::{Api, CredentialSource, Location, Operation};
use crate::naming;
use crate::text::with_article;

/// Checks `curation` against `api`, returning it with every diagnostic found.
pub fn check(api: &Api, curation: Curation) -> (Curation, Vec<Diagnostic>) {
    // Checked against the answers as the file declares them, like `bind` binds and `plan` plans
    // them.
    let declared = super::responses::check(api, &curation);
    let api = super::responses::apply(api, &super::responses::Declared::of(&curation));
    // The operations as the server calls them: without the parameters that carry a credential
    // (the environment-variable names do not matter here).
    let section = curation
        .auth
        .as_ref()
        .map(|section| super::bound::auth(section, &api));
    let auth = crate::plan::server_auth(&api, section.as_ref(), "SERVER");
    let api = crate::plan::credentials::carried(&api, &auth);
    let mut checker = Checker {
        api: &api,
        curation: &curation,
        out: declared,
        stops: Vec::new(),
        item_types: Vec::new(),
        each_item: None,
        optional: Vec::new(),
        param_names: Vec::new(),
        optional_steps: Vec::new(),
    };
    checker.run();
    // A finding made while checking several tools is reported once, naming them all; one also
    // made outside any tool belongs to the file.
    let mut out: Vec<Diagnostic> = Vec::new();
    for diagnostic in checker.out {
        let same = out.iter_mut().find(|seen| {
            (seen.severity, &seen.message, seen.at, &seen.help)
                == (
                    diagnostic.severity,
                    &diagnostic.message,
                    diagnostic.at,
                    &diagnostic.help,
                )
        });
        match same {
            Some(seen) if seen.tools.is_empty() || diagnostic.tools.is_empty() => {
                seen.tools.clear()
            }
            Some(seen) => {
                for tool in diagnostic.tools {
                    if !seen.tools.contains(&tool) {
                        seen.tools.push(tool);
                    }
                }
            }
            None => out.push(diagnostic),
        }
    }
    (curation, out)
}

struct Checker<'a> {
    api: &'a Api,
    curation: &'a Curation,
    out: Vec<Diagnostic>,
    /// The answers the workflow being checked returns other than its last step's (a `stop_if`'s
    /// when it stops, an earlier one when its last calls run only `when` …): for `results.fields`
    /// to be checked against.
    stops: Vec<OtherResult>,
    /// The JSON types of the items of the list parameters of the tool being checked (a resolved
    /// list's ids are text, or numbers where the API takes them).
    item_types: Vec<(String, Vec<&'static str>)>,
    /// Inside an `$each` object being checked: the JSON types of its items and their schema,
    /// where known, for `$item` and `$item.field`.
    each_item: Option<(Vec<&'static str>, Option<Value>)>,
    /// The parameters of the tool being checked that the model may leave out (`required:
    /// false` and no `default`): such a value is absent where the API requires one.
    optional: Vec<String>,
    /// The names of the parameters of the tool being checked.
    param_names: Vec<String>,
    /// The `resolve` steps of the tool being checked that resolve a parameter the model may
    /// leave out, and that parameter: their id is absent with it.
    optional_steps: Vec<(String, String)>,
}

/// An answer a workflow may return instead of its last step's.
struct OtherResult {
    /// Where the step that makes it the result is.
    at: At,
    /// The answer's schema.
    returned: Option<Value>,
    /// Why it is returned: `None` for a `stop_if` that stops, else the number of the last step
    /// that runs only `when` its condition holds (the answer is returned when it does not run).
    instead_of: Option<usize>,
}

impl<'a> Checker<'a> {
    fn error(&mut self, at: At, message: impl Into<String>) -> &mut Diagnostic {
        self.out.push(Diagnostic::error(at, message));
        self.out.last_mut().expect("just pushed")
    }

    fn operation_ids(&self) -> impl Iterator<Item = &'a str> {
        self.api.operations.iter().map(|op| op.id.as_str())
    }

    fn hidden(&self, id: &str) -> bool {
        self.curation.operations.hide.iter().any(|h| h.value == id)
    }

    /// The operation named by `id`, reporting an unknown or hidden one.
    fn operation(&mut self, id: &Spanned<String>) -> Option<&'a Operation> {
        match self.api.operations.iter().find(|op| op.id == id.value) {
            Some(op) if self.hidden(&op.id) => {
                self.error(
                    id.at,
                    format!("operation `{}` is hidden in `operations.hide`", id.value),
                )
                .help = Some("remove it from `operations.hide`, or do not use it here".into());
                None
            }
            Some(op) => {
                self.check_credentials(op, id.at);
                Some(op)
            }
            None => {
                let diagnostic =
                    Diagnostic::error(id.at, format!("unknown operation `{}`", id.value));
                let diagnostic = match self.by_method_and_path(&id.value) {
                    Some(op) if op.id.eq_ignore_ascii_case(id.value.trim()) => {
                        diagnostic.with_help(format!("did you mean `{}`?", op.id))
                    }
                    Some(op) => diagnostic.with_help(format!(
                        "`{} {}` is the operation `{}`: name it by its operationId",
                        op.method.as_upper(),
                        op.path,
                        op.id
                    )),
                    None => diagnostic.suggest(&id.value, self.operation_ids()),
                };
                self.out.push(diagnostic);
                None
            }
        }
    }

    /// The operation `written` names as `METHOD /path` (the name an operation without an
    /// operationId has), for one that has an operationId: the method in any case, the path's
    /// parameters by any name (`/users/{id}` for `/users/{user_id}`).
    fn by_method_and_path(&self, written: &str) -> Option<&'a Operation> {
        let (method, path) = written.trim().split_once(' ')?;
        let shape = |path: &str| -> Vec<String> {
            path.trim()
                .trim_end_matches('/')
                .split('/')
                .map(
                    |segment| match segment.starts_with('{') && segment.ends_with('}') {
                        true => "{}".to_string(),
                        false => segment.to_string(),
                    },
                )
                .collect()
        };
        let wanted = shape(path);
        self.api.operations.iter().find(|op| {
            op.method.key().eq_ignore_ascii_case(method.trim()) && shape(&op.path) == wanted
        })
    }

    /// Refuses a call of `operation` (written at `at`) that requires a credential `auth` does not
    /// fill: the server would send the request without it.
    fn check_credentials(&mut self, operation: &Operation, at: At) {
        for param in &operation.credentials {
            if let (CredentialSource::Missing { scheme }, true) = (&param.source, param.required) {
                let location = param.location.map_or("body", Location::as_str);
                self.error(
                    at,
                    format!(
                        "required parameter `{}` of `{}` carries the credential of security scheme `{scheme}`, which `auth` does not fill",
                        param.name, operation.id
                    ),
                )
                .help = Some(format!(
                    "add `{{ in: {location}, name: {}, env: ... }}` under `auth.api_keys`; the server reads the value from that environment variable",
                    param.name
                ));
            }
        }
    }

    /// Refuses `name`, written at `at` as a value for `operation`, when it is a parameter that
    /// carries a credential; true when it is one.
    fn credential_written(&mut self, at: At, operation: &Operation, name: &str) -> bool {
        let Some(param) = operation.credentials.iter().find(|p| p.name == name) else {
            return false;
        };
        let filled = match &param.source {
            CredentialSource::Missing { scheme } => format!(
                "add it under `auth.api_keys` (it is the spec's security scheme `{scheme}`)"
            ),
            _ => "`auth` fills it already".to_string(),
        };
        self.error(
            at,
            format!(
                "`{name}` of `{}` carries a credential: the server fills it from its environment, never the model or this file",
                operation.id
            ),
        )
        .help = Some(format!("remove it here; {filled}"));
        true
    }

    /// Warns about each API-key scheme of the spec that operations left to one-to-one or
    /// discovery tools require and `auth` does not fill: those tools would call without it.
    fn check_unfilled_schemes(&mut self) {
        let curation = self.curation;
        let mirrors = curation
            .operations
            .mirror
            .as_ref()
            .is_none_or(|m| m.value == super::model::AllOrNone::All);
        if !mirrors && curation.discovery.is_none() {
            return;
        }
        let mut unfilled: Vec<(&str, &str, Option<Location>, usize)> = Vec::new();
        for operation in &self.api.operations {
            if self.hidden(&operation.id) {
                continue;
            }
            for param in &operation.credentials {
                if let (CredentialSource::Missing { scheme }, true) =
                    (&param.source, param.required)
                {
                    match unfilled.iter_mut().find(|(s, ..)| s == scheme) {
                        Some(entry) => entry.3 += 1,
                        None => unfilled.push((scheme, &param.name, param.location, 1)),
                    }
                }
            }
        }
        for (scheme, name, location, count) in unfilled {
            let location = location.map_or("body", Location::as_str);
            let operations = if count == 1 {
                "operation requires"
            } else {
                "operations require"
            };
            self.out.push(Diagnostic {
                severity: Severity::Warning,
                message: format!(
                    "{count} {operations} the credential of security scheme `{scheme}` ({location} parameter `{name}`), which `auth` does not fill: their one-to-one and discovery tools would call without it"
                ),
                at: None,
                help: Some(format!(
                    "add `{{ in: {location}, name: {name}, env: ... }}` under `auth.api_keys`, or hide those operations"
                )),
                tools: Vec::new(),
            });
        }
    }

    /// The `auth` section: each parameter named under `params` is one some operation takes, and
    /// no API key is given twice.
    fn check_auth(&mut self) {
        self.check_unfilled_schemes();
        let Some(auth) = &self.curation.auth else {
            return;
        };
        let keys: Vec<_> = auth.api_key.iter().chain(&auth.api_keys).collect();
        let mut seen = BTreeSet::new();
        for key in &keys {
            let name = match key.location {
                super::model::KeyIn::Header => key.name.value.to_ascii_lowercase(),
                _ => key.name.value.clone(),
            };
            if !seen.insert((key.location as u8, name)) {
                self.error(
                    key.name.at,
                    format!(
                        "the API key `{}` is given twice under `auth`",
                        key.name.value
                    ),
                );
            }
        }
        let lists = auth
            .bearer
            .iter()
            .map(|b| &b.params)
            .chain(keys.iter().map(|k| &k.params));
        let carried: BTreeSet<&str> = self
            .api
            .operations
            .iter()
            .flat_map(|op| &op.credentials)
            .map(|p| p.name.as_str())
            .collect();
        for params in lists {
            for param in params {
                if !carried.contains(param.value.as_str()) {
                    let names: BTreeSet<&str> = self
                        .api
                        .operations
                        .iter()
                        .flat_map(|op| op.parameters.iter().map(|p| p.name.as_str()))
                        .chain(carried.iter().copied())
                        .collect();
                    let d = Diagnostic::error(
                        param.at,
                        format!("no operation has a parameter `{}`", param.value),
                    )
                    .suggest(&param.value, names);
                    self.out.push(d);
                }
            }
        }
    }

    fn run(&mut self) {
        let curation = self.curation;
        self.check_auth();
        if let Some(name) = &curation.server.name
            && naming::server_name(&name.value).is_none()
        {
            self.error(
                name.at,
                "the server name needs at least one letter or digit",
            );
        }
        let mut prefix_ok = true;
        if let Some(prefix) = &curation.server.prefix
            && !prefix
                .value
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            prefix_ok = false;
            self.error(
                prefix.at,
                "a tool-name prefix may only contain letters, digits, `_` and `-`",
            );
        }
        for read_only in &curation.operations.read_only {
            match self
                .api
                .operations
                .iter()
                .find(|op| op.id == read_only.value)
            {
                None => {
                    let ids: Vec<&str> = self.operation_ids().collect();
                    let d = Diagnostic::error(
                        read_only.at,
                        format!("unknown operation `{}`", read_only.value),
                    )
                    .suggest(&read_only.value, ids);
                    self.out.push(d);
                }
                Some(operation) if operation.method.is_safe() => {
                    let mut d = Diagnostic::error(
                        read_only.at,
                        format!(
                            "`{}` is a {} and reads only already",
                            operation.id,
                            operation.method.as_upper()
                        ),
                    )
                    .with_help("remove it from `read_only`");
                    d.severity = Severity::Warning;
                    self.out.push(d);
                }
                Some(_) => {}
            }
        }
        for hidden in &curation.operations.hide {
            if !self.api.operations.iter().any(|op| op.id == hidden.value) {
                let ids: Vec<&str> = self.operation_ids().collect();
                let d =
                    Diagnostic::error(hidden.at, format!("unknown operation `{}`", hidden.value))
                        .suggest(&hidden.value, ids);
                self.out.push(d);
            }
        }
        let filters: Vec<_> = curation
            .operations
            .include
            .iter()
            .chain(&curation.operations.exclude)
            .chain(
                curation
                    .discovery
                    .iter()
                    .flat_map(|d| d.include.iter().chain(&d.exclude)),
            )
            .collect();
        for filter in filters {
            self.check_filter(filter);
        }
        for words in curation.discovery.iter().flat_map(|d| &d.search_words) {
            self.check_search_words(words);
        }
        if let Some(discovery) = &curation.discovery {
            self.check_access_scopes(&discovery.scopes);
        }
        for (status, _) in &curation.errors {
            self.check_status(status);
        }
        for (name, values) in &curation.enums {
            if values.is_empty() {
                self.error(name.at, format!("enum `{}` maps no values", name.value));
            }
            let mut codes = Vec::new();
            for (readable, code) in values {
                if codes.contains(&code.value) {
                    self.error(
                        code.at,
                        format!(
                            "code {} is mapped twice in enum `{}`",
                            code.value, name.value
                        ),
                    );
                }
                codes.push(code.value.clone());
                if !(code.is_i64() || code.is_string()) {
                    self.error(
                        code.at,
                        format!(
                            "the code for `{}` must be an integer or a string",
                            readable.value
                        ),
                    );
                }
            }
        }
        for (name, resolver) in &curation.resolvers {
            self.check_resolver(name, resolver);
        }
        if let Some(pagination) = &curation.pagination {
            self.check_pagination_shape(pagination);
        }
        // With a bad prefix, tool names are checked on their own, so one mistake is one error.
        let prefix = match &curation.server.prefix {
            Some(prefix) if prefix_ok => prefix.value.as_str(),
            _ => "",
        };
        let mut names = BTreeSet::new();
        for (name, tool) in &curation.tools {
            let first = self.out.len();
            self.check_named_tool(&mut names, prefix, name, tool);
            for found in &mut self.out[first..] {
                found.tools = vec![name.value.clone()];
            }
        }
    }

    /// Checks one tool and its name (unique with `prefix`, among the `names` seen so far).
    fn check_named_tool(
        &mut self,
        names: &mut BTreeSet<String>,
        prefix: &str,
        name: &Spanned<String>,
        tool: &ToolSpec,
    ) {
        let full = format!("{prefix}{}", name.value);
        if !naming::is_valid_tool_name(&full) {
            self.error(
                name.at,
                format!(
                    "tool name `{full}` ({} characters) is not valid for model APIs: use 1 to {} letters, digits, `_` or `-`",
                    full.chars().count(),
                    naming::MAX_TOOL_NAME
                ),
            );
        }
        if !names.insert(full.clone()) {
            self.error(name.at, format!("tool `{full}` is defined twice"));
        }
        self.check_tool(name, tool);
    }

    fn check_status(&mut self, status: &Spanned<String>) {
        match status.value.parse::<u16>() {
            Ok(code) if (100..=599).contains(&code) => {}
            _ => {
                self.error(
                    status.at,
                    format!(
                        "`{}` is not an HTTP status; use a number such as 404",
                        status.value
                    ),
                );
            }
        }
    }

    /// OAuth scopes a tool needs: each a scope token of RFC 6749 §3.3 (printable ASCII but space,
    /// `"` and `\\`), each named once.
    fn check_access_scopes(&mut self, scopes: &[Spanned<String>]) {
        for (index, scope) in scopes.iter().enumerate() {
            let valid = !scope.value.is_empty()
                && scope
                    .value
                    .bytes()
                    .all(|b| matches!(b, 0x21 | 0x23..=0x5b | 0x5d..=0x7e));
            if !valid {
                self.error(
                    scope.at,
                    format!(
                        "`{}` is not an OAuth scope: a scope is printable ASCII without spaces, \
                         `\"` or `\\` (such as `issues:read`)",
                        scope.value
                    ),
                );
            } else if scopes[..index].iter().any(|s| s.value == scope.value) {
                self.error(scope.at, format!("scope `{}` is named twice", scope.value));
            }
        }
    }

    /// Search words name one operation or one tag that exists, and at least one word.
    fn check_search_words(&mut self, words: &super::model::SearchWords) {
        match (&words.operation, &words.tag) {
            (Some(_), Some(tag)) => {
                self.error(
                    tag.at,
                    "search words are for an `operation` or a `tag`, not both",
                );
            }
            (None, None) => {
                self.error(
                    words.words.at,
                    "search words need the `operation` or `tag` they are for",
                );
            }
            _ => self.check_filter(&words.filter()),
        }
        if words.words.iter().all(|w| w.trim().is_empty()) {
            self.error(words.words.at, "no search words given");
        }
    }

    fn check_filter(&mut self, filter: &super::model::Filter) {
        if let Some(id) = &filter.operation
            && !self.api.operations.iter().any(|op| op.id == id.value)
        {
            let ids: Vec<&str> = self.operation_ids().collect();
            let d = Diagnostic::error(id.at, format!("unknown operation `{}`", id.value))
                .suggest(&id.value, ids);
            self.out.push(d);
        }
        if let Some(tag) = &filter.tag {
            let tags: BTreeSet<&str> = self
                .api
                .operations
                .iter()
                .flat_map(|op| op.tags.iter().map(String::as_str))
                .collect();
            if !tags.contains(tag.value.as_str()) {
                let d =
                    Diagnostic::error(tag.at, format!("no operation has the tag `{}`", tag.value))
                        .suggest(&tag.value, tags.iter().copied());
                self.out.push(d);
            }
        }
        if let Some(method) = &filter.method {
            let known = [
                "GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE",
            ];
            if !known.contains(&method.value.to_ascii_uppercase().as_str()) {
                self.error(
                    method.at,
                    format!("`{}` is not an HTTP method", method.value),
                );
            }
        }
        if let Some(path) = &filter.path
            && !self
                .api
                .operations
                .iter()
                .any(|op| glob_matches(&path.value, &op.path))
        {
            self.error(
                path.at,
                format!("no operation's path matches `{}`", path.value),
            )
            .help = Some("`*` matches one path segment, `**` any number".into());
        }
    }

    fn check_pagination_shape(&mut self, pagination: &Pagination) {
        let cursor = pagination.style.value == PagingStyle::Cursor;
        match (&pagination.next_cursor, &pagination.last_item_cursor) {
            (None, None) if cursor => {
                self.error(
                    pagination.style.at,
                    "`cursor` paging needs `next_cursor` (where the next cursor is in a response) or `last_item_cursor` (the field of a page's last item that is)",
                );
            }
            (Some(_), Some(both)) => {
                self.error(
                    both.at,
                    "give `next_cursor` or `last_item_cursor`, not both: the next cursor comes from one place",
                );
            }
            _ => {}
        }
        // Keys of another style would be ignored: say so rather than walk differently.
        let style = pagination.style.value;
        let belongs: [(&str, Option<At>, &[PagingStyle]); 6] = [
            (
                "next_link",
                pagination.next_link.as_ref().map(|p| p.at),
                &[PagingStyle::Link],
            ),
            (
                "page_param",
                pagination.page_param.as_ref().map(|p| p.at),
                &[PagingStyle::Page],
            ),
            (
                "offset_param",
                pagination.offset_param.as_ref().map(|p| p.at),
                &[PagingStyle::Offset],
            ),
            (
                "cursor_param",
                pagination.cursor_param.as_ref().map(|p| p.at),
                &[PagingStyle::Cursor],
            ),
            (
                "next_cursor",
                pagination.next_cursor.as_ref().map(|p| p.at),
                &[PagingStyle::Cursor],
            ),
            (
                "last_item_cursor",
                pagination.last_item_cursor.as_ref().map(|p| p.at),
                &[PagingStyle::Cursor],
            ),
        ];
        for (key, at, styles) in belongs {
            if let Some(at) = at
                && !styles.contains(&style)
            {
                let owner = match styles[0] {
                    PagingStyle::Page => "page",
                    PagingStyle::Offset => "offset",
                    PagingStyle::Cursor => "cursor",
                    PagingStyle::Link => "link",
                };
                self.error(
                    at,
                    format!("`{key}` belongs to `{owner}` paging, not this one"),
                );
            }
        }
        if let Some(total) = &pagination.total
            && !matches!(
                pagination.style.value,
                PagingStyle::Page | PagingStyle::Offset
            )
        {
            self.error(
                total.at,
                "`total` counts the items of `page` and `offset` paging; a cursor or link walk ends where the API's next page does",
            );
        }
        if let Some(size) = pagination.max_page_size
            && size < 1
        {
            self.error(pagination.style.at, "`max_page_size` must be at least 1");
        }
    }

    /// Checks that `operation` takes the paging parameters `pagination` names.
    fn check_pagination_for(&mut self, pagination: &Pagination, operation: &Operation, at: At) {
        let names: Vec<String> = operation
            .parameters
            .iter()
            .map(|p| p.name.clone())
            .collect();
        for (param, default) in paging_params(pagination) {
            let (name, param_at) = match param {
                Some(p) => (p.value.clone(), p.at),
                None => (default.to_string(), at),
            };
            if !names.contains(&name) {
                let mut d = Diagnostic::error(
                    param_at,
                    format!(
                        "operation `{}` has no parameter `{name}` for paging",
                        operation.id
                    ),
                )
                .suggest(&name, names.iter().map(String::as_str));
                if matches!(default, "per_page" | "limit") && d.help.is_none() {
                    d.help = Some(format!(
                        "`{name}` is {} page-size parameter: name the operation's with `size_param`, or write `size_param: none` where the API takes no page size",
                        if param.is_some() {
                            "the file's"
                        } else {
                            "the default"
                        }
                    ));
                }
                self.out.push(d);
            }
        }
        // Page numbers, offsets and sizes are counts the server computes: a parameter that takes
        // text (an offset token the API hands out) is a cursor, not an offset.
        for (param, default) in paging_params(pagination) {
            if default == "cursor" {
                continue;
            }
            let name = param.map_or(default, |p| p.value.as_str());
            if let Some(found) = operation.parameters.iter().find(|p| p.name == name) {
                let types = json_types(any_branch(&found.schema));
                if !types.is_empty() && !types.iter().any(|t| matches!(*t, "integer" | "number")) {
                    self.error(
                        param.map_or(at, |p| p.at),
                        format!(
                            "`{name}` of `{}` takes {}, not a count the server can compute",
                            operation.id,
                            with_article(&types.join(" or "))
                        ),
                    )
                    .help = Some(if matches!(default, "per_page" | "limit") {
                        "a page size the API takes as text cannot be set by the server: write `size_param: none`, and give the size with `fixed` if it must be set".into()
                    } else {
                        "an offset the API hands out as text is a cursor: use `style: cursor` with `cursor_param` and `next_cursor`".into()
                    });
                }
            }
        }
        if let (Some(next), Some(schema)) = (&pagination.next_cursor, success_schema(operation)) {
            match schema_at(schema, &next.value) {
                Err((part, available)) => {
                    self.unknown_field(next.at, &part, &available, &operation.id)
                }
                Ok(Some(cursor)) => self.check_cursor_fits(pagination, operation, next, &cursor),
                Ok(None) => {}
            }
        }
        // `link` paging reads the `Link` header unless told otherwise: an answer with a field
        // that looks like the next page's URL most likely gives it there instead.
        if pagination.style.value == PagingStyle::Link
            && pagination.next_link.is_none()
            && let Some(schema) = success_schema(operation)
            && let Some(field) = next_page_field(schema, None)
        {
            let mut d = Diagnostic::error(
                at,
                format!(
                    "`link` paging follows the `Link` header, but the answer of `{}` has `{field}`, which may be the next page's URL: if the header is missing, only the first page is read",
                    operation.id
                ),
            );
            d.severity = Severity::Warning;
            d.help = Some(format!(
                "if `{field}` is the next page's URL, add `next_link: {field}`"
            ));
            self.out.push(d);
        }
        if let (Some(link), Some(schema)) = (&pagination.next_link, success_schema(operation)) {
            match schema_at(schema, &link.value) {
                Err((part, available)) => {
                    self.unknown_field(link.at, &part, &available, &operation.id)
                }
                Ok(Some(slot)) => {
                    let types = json_types(any_branch(&slot));
                    if !types.is_empty() && !types.contains(&"string") {
                        self.error(
                            link.at,
                            format!(
                                "`{}` in the answer of `{}` is {}, not the next page's URL",
                                link.value,
                                operation.id,
                                with_article(&types.join(" or "))
                            ),
                        );
                    } else if let Some(next) = own_address_beside_next(schema, &link.value) {
                        // Followed, this page's own address gives the same page again.
                        self.error(
                            link.at,
                            format!(
                                "`{}` in the answer of `{}` is most likely the address of the page itself, and `{next}` beside it the next page's",
                                link.value, operation.id
                            ),
                        )
                        .help = Some(format!("write `next_link: {next}`"));
                    }
                }
                Ok(None) => {}
            }
        }
        if let (Some(more), Some(schema)) = (&pagination.has_more, success_schema(operation)) {
            match schema_at(schema, &more.value) {
                Err((part, available)) => {
                    self.unknown_field(more.at, &part, &available, &operation.id)
                }
                Ok(Some(slot)) => {
                    let types = json_types(any_branch(&slot));
                    if !types.is_empty() && !types.contains(&"boolean") {
                        self.error(
                            more.at,
                            format!(
                                "`{}` in the answer of `{}` is {}, not a boolean that says whether more pages follow",
                                more.value,
                                operation.id,
                                with_article(&types.join(" or "))
                            ),
                        );
                    }
                }
                Ok(None) => {}
            }
        }
        if let Some(field) = &pagination.last_item_cursor
            && let Some(schema) = success_schema(operation)
        {
            let items = pagination
                .items
                .as_ref()
                .map(|i| i.value.clone())
                .or_else(|| only_array(schema));
            let item = items
                .and_then(|path| schema_at(schema, &path).ok().flatten())
                .and_then(|list| items_of(&list));
            if let Some(item) = item {
                match schema_at(&item, &field.value) {
                    Err((part, available)) => {
                        let d = Diagnostic::error(
                            field.at,
                            format!("the items `{}` lists have no field `{part}`", operation.id),
                        )
                        .suggest(&part, available.iter().map(String::as_str));
                        self.out.push(d);
                    }
                    Ok(Some(slot)) => {
                        let types = json_types(any_branch(&slot));
                        if !types.is_empty()
                            && !types.iter().any(|t| matches!(*t, "string" | "integer"))
                        {
                            self.error(
                                field.at,
                                format!(
                                    "`{}` of the items `{}` lists is {}: a cursor is text or a whole number",
                                    field.value,
                                    operation.id,
                                    with_article(&types.join(" or "))
                                ),
                            );
                        }
                    }
                    Ok(None) => {}
                }
            }
        }
        if let (Some(total), Some(schema)) = (&pagination.total, success_schema(operation)) {
            match schema_at(schema, &total.value) {
                Err((part, available)) => {
                    self.unknown_field(total.at, &part, &available, &operation.id)
                }
                Ok(Some(slot)) => {
                    let types = json_types(any_branch(&slot));
                    if !types.is_empty()
                        && !types.iter().any(|t| matches!(*t, "integer" | "number"))
                    {
                        self.error(
                            total.at,
                            format!(
                                "`{}` in the answer of `{}` is {}, not a count of items",
                                total.value,
                                operation.id,
                                with_article(&types.join(" or "))
                            ),
                        );
                    }
                }
                Ok(None) => {}
            }
        }
    }

    /// The cursor the answer holds (`next`) is sent back as the cursor parameter: text cannot
    /// go where the API takes a number (a link to the next page is not a page number).
    fn check_cursor_fits(
        &mut self,
        pagination: &Pagination,
        operation: &Operation,
        next: &Spanned<String>,
        cursor: &Value,
    ) {
        let name = pagination
            .cursor_param
            .as_ref()
            .map_or("cursor", |p| p.value.as_str());
        let Some(param) = operation.parameters.iter().find(|p| p.name == name) else {
            return;
        };
        let takes = json_types(any_branch(&param.schema));
        let gives = json_types(any_branch(cursor));
        let numeric = |types: &[&str]| {
            !types.is_empty() && types.iter().all(|t| matches!(*t, "integer" | "number"))
        };
        if numeric(&takes) && gives.contains(&"string") && !numeric(&gives) {
            self.error(
                next.at,
                format!(
                    "`{}` in the answer of `{}` is text, but the cursor parameter `{name}` takes {}",
                    next.value,
                    operation.id,
                    with_article(&takes.join(" or "))
                ),
            )
            .help = Some(format!(
                "a page number the server counts is `style: page` with `page_param: {name}`; a link to the next page is `style: link` with `next_link: {}`",
                next.value
            ));
        }
    }

    fn unknown_field(&mut self, at: At, part: &str, available: &[String], operation: &str) {
        let d = Diagnostic::error(
            at,
            format!("the response of `{operation}` has no field `{part}`"),
        )
        .suggest(part, available.iter().map(String::as_str));
        self.out.push(d);
    }

    fn check_resolver(&mut self, name: &Spanned<String>, resolver: &Resolver) {
        if resolver.list.is_none() && resolver.lookup.is_none() {
            self.error(
                name.at,
                format!(
                    "resolver `{}` needs `list` (an operation listing every item) or `lookup`",
                    name.value
                ),
            );
        }
        if let Some(list) = &resolver.list
            && let Some(operation) = self.operation(list)
        {
            // The list is called with no arguments but the paging ones.
            let paging: Vec<String> = self
                .curation
                .pagination
                .iter()
                .flat_map(paging_params)
                .map(|(param, default)| param.map_or(default.to_string(), |p| p.value.clone()))
                .collect();
            // Whether the list cannot be called as written (then its own page size is no concern).
            let mut uncallable = false;
            for (input, _, required) in operation_inputs(operation) {
                if required && !paging.contains(&input) && !scoped_by(resolver, &input) {
                    uncallable = true;
                    self.error(
                        list.at,
                        format!(
                            "resolver `{}` lists with `{}`, which needs `{input}` on every call",
                            name.value, operation.id
                        ),
                    )
                    .help = Some(format!(
                        "scope the list with `args: {{ {input}: ${input} }}`: each tool that resolves with `{}` then takes a `{input}` parameter, and the list is cached per `{input}`",
                        name.value
                    ));
                }
            }
            // A list no paging of the file walks is read one page at a time: a value past the
            // first page would be "not found". Said once: where the file's paging nearly fits
            // (its position but not its size parameter), what it lacks; else, where the list
            // pages by a size parameter of its own, that one.
            let walked = resolver_paging(self.curation, operation);
            // The walk sets its paging parameters itself, page after page.
            if let Some(pagination) = walked {
                let set = paging_param_names(pagination);
                for arg in resolver.args.keys().filter(|arg| set.contains(&arg.value)) {
                    self.error(
                        arg.at,
                        format!(
                            "`{}` is set by the walk through the pages of `{}`, page after page: resolver `{}` cannot give it",
                            arg.value, operation.id, name.value
                        ),
                    )
                    .help = Some("remove it; the page size is the pagination's `max_page_size`".into());
                }
            }
            let unwalked = walked.is_none();
            let mut nearly_fits = false;
            if let Some(pagination) = &self.curation.pagination
                && unwalked
            {
                let names = paging_param_names(pagination);
                let (taken, missing): (Vec<&String>, Vec<&String>) = names
                    .iter()
                    .partition(|name| operation.parameters.iter().any(|p| p.name == **name));
                if let (Some(taken), Some(missing)) = (taken.first(), missing.first()) {
                    nearly_fits = true;
                    let mut d = Diagnostic::error(
                        list.at,
                        format!(
                            "`{}` takes `{taken}` but not `{missing}`, so the file's `pagination` does not walk it: resolver `{}` reads its first page only",
                            operation.id, name.value
                        ),
                    );
                    d.severity = Severity::Warning;
                    d.help = Some(format!(
                        "if the API takes `{missing}` there, declare it under `query: {{ {}: {{ {missing}: {{ type: integer }} }} }}`",
                        operation.id
                    ));
                    self.out.push(d);
                }
            }
            if unwalked
                && !nearly_fits
                && !uncallable
                && let Some(size) = operation.parameters.iter().find(|p| {
                    p.location == Location::Query
                        && names_a_page_size(&p.name)
                        && !scoped_by(resolver, &p.name)
                })
            {
                let mut d = Diagnostic::error(
                    list.at,
                    format!(
                        "resolver `{}` reads one page of `{}`, which pages by `{}`: no `pagination` of this file walks it, so a value past the first page would be \"not found\"",
                        name.value, operation.id, size.name
                    ),
                );
                d.severity = Severity::Warning;
                d.help = Some(format!(
                    "declare the paging `{}` takes under `pagination:` (the style, its position parameter and `size_param: {}`)",
                    operation.id, size.name
                ));
                self.out.push(d);
            }
            self.check_resolver_args(resolver, operation);
            let Some(schema) = success_schema(operation) else {
                self.error(
                    list.at,
                    format!(
                        "operation `{}` returns no JSON to resolve from",
                        operation.id
                    ),
                );
                return;
            };
            let items_path = match &resolver.items {
                Some(items) => match schema_at(schema, &items.value) {
                    Ok(Some(found)) if is_array(&found) => Some(items.value.clone()),
                    Ok(Some(_)) => {
                        self.error(
                            items.at,
                            format!(
                                "`{}` in the response of `{}` is not a list",
                                items.value, operation.id
                            ),
                        );
                        None
                    }
                    Ok(None) => Some(items.value.clone()),
                    Err((part, available)) => {
                        self.unknown_field(items.at, &part, &available, &operation.id);
                        None
                    }
                },
                None => match resolver_items(resolver, operation) {
                    Some(found) => Some(found),
                    None => {
                        self.error(
                            list.at,
                            format!(
                                "say where the items are in the response of `{}` with `items`",
                                operation.id
                            ),
                        )
                        .help = Some(format!(
                            "give their path (`items: data`), `items: \"\"` when the answer itself is the list, or declare the answer under `responses: {{ {}: ... }}` where the spec has it wrong",
                            operation.id
                        ));
                        None
                    }
                },
            };
            if let Some(items_path) = items_path
                && let Ok(Some(list_schema)) = schema_at(schema, &items_path)
                && let Some(item) = items_of(&list_schema)
            {
                let id = resolver.id.clone();
                for field in resolver.match_fields.iter().chain(id.as_ref()) {
                    if let Err((part, available)) = schema_at(&item, &field.value) {
                        self.unknown_field(field.at, &part, &available, &operation.id);
                    }
                }
                for (field, value) in &resolver.where_fields {
                    match schema_at(&item, &field.value) {
                        Err((part, available)) => {
                            self.unknown_field(field.at, &part, &available, &operation.id)
                        }
                        Ok(Some(slot)) => {
                            let written = value.value.to_string();
                            self.check_types(
                                value.at,
                                &field.value,
                                Some(&written),
                                &json_types_of(&value.value),
                                any_branch(&slot),
                            );
                            if let Some(allowed) = allowed_values(any_branch(&slot))
                                && !allowed.contains(&value.value)
                            {
                                let shown: Vec<String> =
                                    allowed.iter().map(Value::to_string).collect();
                                self.error(
                                    value.at,
                                    format!(
                                        "`{}` is one of {}, never {written}: no item would be resolved to",
                                        field.value,
                                        shown.join(", ")
                                    ),
                                );
                            }
                        }
                        Ok(None) => {}
                    }
                }
                let id_path = resolver_id_path(resolver);
                if let Ok(Some(id_schema)) = schema_at(&item, id_path)
                    && id_schema.get("type").and_then(Value::as_str) == Some("integer")
                {
                    self.literal_aliases_are_integers(resolver, id_path);
                }
                // An id is one value: a path through a list gives an item several.
                if let Ok(Some(id_schema)) = schema_at(&item, id_path)
                    && is_array(&id_schema)
                {
                    let at = resolver.id.as_ref().map_or(name.at, |id| id.at);
                    self.error(
                        at,
                        format!(
                            "the id `{id_path}` of an item of `{}` is a list, not one value",
                            operation.id
                        ),
                    )
                    .help = Some(
                        "give the path of a field that holds one value per item (a path through a list reads that field of every item)".into(),
                    );
                }
            }
            if resolver.match_fields.is_empty() {
                self.error(
                    name.at,
                    format!(
                        "resolver `{}` needs `match`: the item fields a value is matched against",
                        name.value
                    ),
                );
            }
        }
        if resolver.list.is_none()
            && let Some((field, _)) = resolver.where_fields.first()
        {
            self.error(
                field.at,
                "`where` keeps some of the items a `list` gives; a `lookup` answers with one item",
            );
        }
        for (arg, value) in &resolver.args {
            if let Value::String(text) = &value.value
                && let Some(found) = text.find('$')
                && found > 0
                && text[found + 1..]
                    .starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '{')
            {
                self.error(
                    value.at,
                    format!(
                        "`{text}` under `{}` is sent as it is written: only a whole value (`$name`, `${SEARCHED}`) is replaced",
                        arg.value
                    ),
                );
            }
        }
        for (_, value) in &resolver.where_fields {
            if !matches!(
                value.value,
                Value::String(_) | Value::Number(_) | Value::Bool(_)
            ) || Reference::of(&value.value).is_some()
            {
                self.error(
                    value.at,
                    "a resolver's `where` compares a field with a literal: text, a number or a flag",
                );
            }
        }
        if let Some(lookup) = &resolver.lookup
            && let Some(operation) = self.operation(lookup)
        {
            if resolver.list.is_none()
                && let Some((arg, _)) = resolver.args.iter().find(|(_, v)| is_searched(&v.value))
            {
                self.error(
                    arg.at,
                    format!(
                        "a `lookup` takes the value as `lookup_param`; `${SEARCHED}` in `args` is for a `list` that searches with it"
                    ),
                )
                .help = Some(format!("write `lookup_param: {}` instead", arg.value));
            }
            let inputs = operation_inputs(operation);
            match success_schema(operation) {
                Some(schema) if is_array(schema) => {
                    self.error(
                        lookup.at,
                        format!(
                            "`{}` answers with a list, and a `lookup` takes the id from one item",
                            operation.id
                        ),
                    )
                    .help = Some(format!(
                        "use it as `list: {}` with `match:`, so that no match and several matches are told apart",
                        operation.id
                    ));
                }
                Some(schema) => {
                    if let Some(id) = resolver.id.as_ref().filter(|_| resolver.list.is_none())
                        && let Err((part, available)) = schema_at(schema, &id.value)
                    {
                        self.unknown_field(id.at, &part, &available, &operation.id);
                    }
                }
                None => {}
            }
            if resolver.list.is_none() {
                self.check_resolver_args(resolver, operation);
            }
            if let Some(param) = &resolver.lookup_param {
                for (input, _, required) in &inputs {
                    if *required && *input != param.value && !scoped_by(resolver, input) {
                        self.error(
                            lookup.at,
                            format!(
                                "`{}` also needs `{input}`, which a resolver's lookup cannot give",
                                operation.id
                            ),
                        );
                    }
                }
            }
            match &resolver.lookup_param {
                Some(param) => {
                    if !inputs.iter().any(|(n, _, _)| *n == param.value) {
                        let d = Diagnostic::error(
                            param.at,
                            format!(
                                "operation `{}` has no parameter `{}`",
                                operation.id, param.value
                            ),
                        )
                        .suggest(&param.value, inputs.iter().map(|(n, _, _)| n.as_str()));
                        self.out.push(d);
                    }
                }
                None => {
                    if lookup_param(resolver, operation).is_none() {
                        self.error(
                            lookup.at,
                            format!(
                                "say which parameter of `{}` takes the value with `lookup_param`",
                                operation.id
                            ),
                        );
                    }
                }
            }
        }
        for (word, (operation, id)) in resolver
            .aliases
            .iter()
            .filter_map(|(word, alias)| Some((word, alias.operation()?)))
        {
            let Some(op) = self.operation(operation) else {
                continue;
            };
            if op.parameters.iter().any(|p| p.required) {
                self.error(
                    operation.at,
                    format!(
                        "an alias needs an operation without required parameters; `{}` has some",
                        op.id
                    ),
                );
            }
            // The id is read from the alias's own answer, which may be shaped otherwise than the
            // resolver's items (the user itself, not a membership holding it).
            let path = id.map_or(resolver_id_path(resolver), |id| id.value.as_str());
            if let Some(answer) = success_schema(op)
                && let Err((part, available)) = schema_at(answer, path)
            {
                let at = id.map_or(operation.at, |id| id.at);
                let mut d = Diagnostic::error(
                    at,
                    format!(
                        "the answer of `{}` (alias `{}`) has no field `{part}`, where the alias's id is read (`{path}`)",
                        op.id, word
                    ),
                )
                .suggest(&part, available.iter().map(String::as_str));
                if id.is_none() {
                    d.help = Some(format!(
                        "give the alias the id's path in that answer: `{}: {{ call: {}, id: … }}`",
                        word, operation.value
                    ));
                }
                self.out.push(d);
            }
        }
    }

    /// A resolver's `args` name parameters of its operation, and their values are `$name`
    /// references or literals of the slot's type (the references are checked per tool).
    fn check_resolver_args(&mut self, resolver: &Resolver, operation: &Operation) {
        let inputs = operation_inputs(operation);
        for (arg, value) in &resolver.args {
            let Some((_, schema, _)) = inputs.iter().find(|(n, _, _)| *n == arg.value) else {
                let d = Diagnostic::error(
                    arg.at,
                    format!(
                        "operation `{}` has no parameter `{}`",
                        operation.id, arg.value
                    ),
                )
                .suggest(&arg.value, inputs.iter().map(|(n, _, _)| n.as_str()));
                self.out.push(d);
                continue;
            };
            match &value.value {
                Value::String(text) if text.starts_with('$') => {
                    if text.contains('.') || text.len() < 2 {
                        self.error(
                            value.at,
                            format!("`{text}` is not a parameter: a resolver's `args` take `$name`, the value of the tool's parameter `name`"),
                        );
                    }
                }
                _ => self.check_value(value, &arg.value, Some(schema), &[], &[]),
            }
        }
    }

    /// Each tool parameter resolved by a scoped resolver needs the tool parameters its scope
    /// names, resolved first: chains are served in order, circles refused.
    fn check_resolver_scopes(&mut self, tool: &ToolSpec) {
        for (name, param) in &tool.params {
            let Some(resolver_name) = &param.resolve else {
                continue;
            };
            let Some(resolver) = self.scoped_resolver(&resolver_name.value) else {
                continue;
            };
            for (arg, value) in &resolver.args {
                let Some(wanted) = Reference::of(&value.value).and_then(|r| r.whole()) else {
                    continue;
                };
                // The value being resolved, which the resolver searches with.
                if wanted == SEARCHED {
                    continue;
                }
                match tool.params.iter().find(|(n, _)| n.value == wanted) {
                    None => {
                        let params: Vec<&str> =
                            tool.params.keys().map(|k| k.value.as_str()).collect();
                        let d = Diagnostic::error(
                            resolver_name.at,
                            format!(
                                "resolver `{}` lists per `{}` (`{}: ${wanted}`), and this tool has no parameter `{wanted}` to give it",
                                resolver_name.value, arg.value, arg.value
                            ),
                        )
                        .suggest(wanted, params);
                        let d = if d.help.is_none() {
                            d.with_help(format!("add a parameter `{wanted}` to the tool"))
                        } else {
                            d
                        };
                        self.out.push(d);
                    }
                    Some((scope_name, scope_param)) => {
                        // Text of the model's own where the list takes a number cannot be sent
                        // (a resolved id can: text of digits goes as the number).
                        let slot = self.resolver_operation(resolver).and_then(|operation| {
                            operation_inputs(operation)
                                .into_iter()
                                .find(|(input, _, _)| *input == arg.value)
                        });
                        if let Some((_, slot, _)) = &slot
                            && scope_param.resolve.is_none()
                            && scope_param.enum_name.is_none()
                            && let Some(given) = scope_param.ty.as_ref().map(|t| t.value.as_str())
                            && !types_fit(&[given], &json_types(any_branch(slot)))
                        {
                            self.error(
                                scope_name.at,
                                format!(
                                    "`{wanted}` scopes resolver `{}` as `{}`, which takes {}, but `{wanted}` is {}",
                                    resolver_name.value,
                                    arg.value,
                                    with_article(&json_types(any_branch(slot)).join(" or ")),
                                    with_article(given)
                                ),
                            )
                            .help = Some(format!(
                                "declare `{wanted}` with the type `{}` takes",
                                arg.value
                            ));
                        }
                        if slot.as_ref().is_some_and(|(_, _, required)| *required)
                            && scope_param.required == Some(false)
                            && scope_param.default.is_none()
                        {
                            self.error(
                                scope_name.at,
                                format!(
                                    "`{wanted}` scopes resolver `{}` as `{}`, which its list requires, but `{wanted}` may be left out, and `{}` could then not be resolved",
                                    resolver_name.value, arg.value, name.value
                                ),
                            )
                            .help = Some(format!(
                                "give `{wanted}` a `default`, or leave out its `required: false`"
                            ));
                        }
                        if scope_name.value == name.value {
                            self.error(
                                resolver_name.at,
                                format!("parameter `{}` cannot scope its own resolver", name.value),
                            );
                        } else if let Some(circle) = self.scope_cycle(tool, &name.value, wanted) {
                            let within: Vec<String> =
                                circle.iter().map(|p| format!("`{p}`")).collect();
                            self.error(
                                resolver_name.at,
                                format!(
                                    "{} is resolved within {}, which is resolved within {}: a circle, so none can be resolved first",
                                    within[0],
                                    within[1..].join(", which is resolved within "),
                                    within[0]
                                ),
                            )
                            .help = Some(
                                "scope one of these resolvers by a parameter the others do not need".to_string(),
                            );
                        }
                    }
                }
            }
        }
    }

    /// The parameters from `start` through `next` back to `start`, when each one's resolver is
    /// scoped by the next (`board` by `workspace`, `workspace` by `board`): no order resolves them.
    /// A chain without a circle (`list` by `board`, `board` by `workspace`) is resolved in order.
    fn scope_cycle(&self, tool: &ToolSpec, start: &str, next: &str) -> Option<Vec<String>> {
        let mut path = vec![start.to_string()];
        self.scope_reaches(tool, next, start, &mut path)
            .then_some(path)
    }

    /// Does `from`'s resolver need `target`'s value, directly or through other scopes? `path`
    /// ends with the parameters on the way.
    fn scope_reaches(
        &self,
        tool: &ToolSpec,
        from: &str,
        target: &str,
        path: &mut Vec<String>,
    ) -> bool {
        if from == target {
            return true;
        }
        if path.iter().any(|seen| seen == from) {
            return false;
        }
        path.push(from.to_string());
        let scopes: Vec<&str> = tool
            .params
            .iter()
            .find(|(name, _)| name.value == from)
            .and_then(|(_, param)| param.resolve.as_ref())
            .and_then(|resolver| self.scoped_resolver(&resolver.value))
            .map(|resolver| {
                resolver
                    .args
                    .values()
                    .filter_map(|v| Reference::of(&v.value)?.whole())
                    .filter(|name| *name != SEARCHED)
                    .collect()
            })
            .unwrap_or_default();
        if scopes
            .into_iter()
            .any(|scope| self.scope_reaches(tool, scope, target, path))
        {
            return true;
        }
        path.pop();
        false
    }

    /// The operation a resolver reads (its `list`, else its `lookup`), when it exists; an unknown
    /// one is reported where the resolver is checked.
    fn resolver_operation(&self, resolver: &Resolver) -> Option<&'a Operation> {
        let id = resolver.list.as_ref().or(resolver.lookup.as_ref())?;
        self.api.operations.iter().find(|op| op.id == id.value)
    }

    /// The resolver of that name, when it has `args`.
    fn scoped_resolver(&self, name: &str) -> Option<&'a Resolver> {
        self.curation
            .resolvers
            .iter()
            .find(|(k, r)| k.value == name && !r.args.is_empty())
            .map(|(_, r)| r)
    }

    /// An alias to a value stands in for an id, so where ids are integers it must be one.
    fn literal_aliases_are_integers(&mut self, resolver: &Resolver, id_path: &str) {
        for (word, alias) in &resolver.aliases {
            if let Alias::Literal { value } = alias
                && value.value.parse::<i64>().is_err()
            {
                self.error(
                    value.at,
                    format!(
                        "alias `{word}` sends `{}` in place of an id, but the ids (`{id_path}`) are integers",
                        value.value
                    ),
                )
                .help = Some(
                    "alias it to an operation that answers with the item (`me: getCurrentUser`) instead".to_string(),
                );
            }
        }
    }

    fn check_tool(&mut self, name: &Spanned<String>, tool: &ToolSpec) {
        let params: Vec<&str> = tool.params.keys().map(|k| k.value.as_str()).collect();
        for (status, message) in &tool.errors {
            self.check_status(status);
            self.check_placeholders(status.at, message, &params, &[]);
        }
        self.check_resolver_scopes(tool);
        self.check_access_scopes(&tool.scopes);
        if let Some(pagination) = &tool.pagination {
            self.check_pagination_shape(pagination);
        }
        match (&tool.call, tool.steps.is_empty()) {
            (Some(_), false) => {
                self.error(
                    name.at,
                    format!("tool `{}` has both `call` and `steps`; use one", name.value),
                );
                return;
            }
            (None, true) => {
                self.error(
                    name.at,
                    format!(
                        "tool `{}` needs `call` (one operation) or `steps` (a workflow)",
                        name.value
                    ),
                );
                return;
            }
            _ => {}
        }
        let results = tool.results.as_ref();
        for (param_name, param) in &tool.params {
            let generated = match param_name.value.as_str() {
                "limit" if results.is_some_and(|r| r.limit.is_some()) => Some("`results.limit`"),
                "response_format" if results.is_some_and(|r| !r.detailed_fields.is_empty()) => {
                    Some("`results.detailed_fields`")
                }
                _ => None,
            };
            if let Some(source) = generated {
                self.error(
                    param_name.at,
                    format!(
                        "parameter `{}` is the one {source} adds; give yours another name",
                        param_name.value
                    ),
                );
            }
            self.check_param_refs(param_name, param);
            if let Some(header) = &param.header
                && (header.value.is_empty()
                    || !header
                        .value
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)))
            {
                self.error(
                    header.at,
                    format!(
                        "`{}` is not a valid header name: use letters, digits and `-`",
                        header.value
                    ),
                );
            }
        }
        let mut headers = BTreeSet::new();
        for param in tool.params.values() {
            if let Some(header) = &param.header
                && !headers.insert(header.value.to_ascii_lowercase())
            {
                self.error(
                    header.at,
                    format!(
                        "header `{}` is used by two parameters (header names ignore case)",
                        header.value
                    ),
                );
            }
        }
        self.param_names = tool.params.keys().map(|k| k.value.clone()).collect();
        self.optional_steps.clear();
        self.optional = tool
            .params
            .iter()
            .filter(|(_, param)| param.required == Some(false) && param.default.is_none())
            .map(|(name, _)| name.value.clone())
            .collect();
        self.item_types = tool
            .params
            .iter()
            .filter(|(_, param)| {
                param
                    .ty
                    .as_ref()
                    .is_some_and(|t| t.value == ParamType::Array)
            })
            .map(|(name, param)| {
                let types = if param.resolve.is_some() {
                    vec!["string", "integer"]
                } else {
                    vec![param.items.as_ref().map_or("string", |t| t.value.as_str())]
                };
                (name.value.clone(), types)
            })
            .collect();
        let response = if let Some(call) = &tool.call {
            let Some(operation) = self.operation(call) else {
                return;
            };
            self.check_call_tool(tool, operation, call.at);
            success_schema(operation).cloned()
        } else {
            self.stops.clear();
            self.check_steps(tool)
        };
        if let Some(results) = &tool.results {
            // A list the workflow cannot give is reported once, not again as fields it lacks.
            if tool.call.is_some() || self.check_workflow_list(tool, results) {
                self.check_results(results, response.as_ref());
            }
            if !tool.steps.is_empty() && results.items.is_none() {
                self.check_stop_results(results);
            }
        }
    }

    /// A `stop_if` returns another answer than the workflow's last step (the answer of the step
    /// before it, or its `result`), shaped by the same `results.fields`: each field must be
    /// there too, or the model would be told, when nothing needed doing, that the API's answer
    /// has the wrong shape.
    fn check_stop_results(&mut self, results: &Results) {
        let stops = std::mem::take(&mut self.stops);
        for OtherResult {
            at,
            returned,
            instead_of,
        } in &stops
        {
            let Some(returned) = returned else { continue };
            for (_, field) in results.fields.iter().chain(&results.detailed_fields) {
                let from = match field {
                    FieldSpec::Path(path) => path,
                    FieldSpec::Mapped(mapped) => &mapped.from,
                };
                if let Err((part, _)) = schema_at(returned, &from.value) {
                    let read = if part == from.value {
                        String::new()
                    } else {
                        format!(" (in `{}`)", from.value)
                    };
                    let (when, help) = match instead_of {
                        None => (
                            "when this `stop_if` stops".to_string(),
                            "give the `stop_if` a `result: $step` whose answer has the fields the results show, or show only fields both answers have",
                        ),
                        Some(step) => (
                            format!("when step {step} does not run (its `when` does not hold)"),
                            "show only fields every answer the tool may return has, or name the result with `results.from`",
                        ),
                    };
                    self.error(
                        *at,
                        format!(
                            "{when}, the tool returns an answer that has no field `{part}`, which `results.fields` reads{read}"
                        ),
                    )
                    .help = Some(help.into());
                    break;
                }
            }
        }
    }

    fn check_param_refs(&mut self, name: &Spanned<String>, param: &Param) {
        if let Some(enum_name) = &param.enum_name
            && !self
                .curation
                .enums
                .keys()
                .any(|k| k.value == enum_name.value)
        {
            let names: Vec<&str> = self
                .curation
                .enums
                .keys()
                .map(|k| k.value.as_str())
                .collect();
            let d = Diagnostic::error(enum_name.at, format!("unknown enum `{}`", enum_name.value))
                .suggest(&enum_name.value, names);
            self.out.push(d);
        }
        if let Some(resolver) = &param.resolve
            && !self
                .curation
                .resolvers
                .keys()
                .any(|k| k.value == resolver.value)
        {
            let names: Vec<&str> = self
                .curation
                .resolvers
                .keys()
                .map(|k| k.value.as_str())
                .collect();
            let d = Diagnostic::error(
                resolver.at,
                format!("unknown resolver `{}`", resolver.value),
            )
            .suggest(&resolver.value, names);
            self.out.push(d);
        }
        let is_list = param
            .ty
            .as_ref()
            .is_some_and(|t| t.value == ParamType::Array);
        if let Some(items) = &param.items {
            if !is_list {
                self.error(
                    items.at,
                    format!(
                        "`items` is the type of a list's items, and `{}` is no list",
                        name.value
                    ),
                )
                .help = Some("add `type: array`, or remove `items`".into());
            } else if items.value == ParamType::Array {
                self.error(
                    items.at,
                    "a list of lists is not a parameter type mcpgen serves",
                )
                .help = Some("give `items: string`, `integer`, `number` or `boolean`".into());
            }
        }
        if is_list && let Some(enum_name) = &param.enum_name {
            self.error(
                enum_name.at,
                format!(
                    "parameter `{}` is a list, and lists of enum names are not served yet",
                    name.value
                ),
            )
            .help =
                Some("take one name per call, or the API's codes as a list without `enum`".into());
        }
        if is_list && let Some(default) = &param.default {
            let item = param.items.as_ref().map_or(ParamType::String, |t| t.value);
            let fits = match &default.value {
                Value::Array(values) => values.iter().all(|v| match item {
                    ParamType::String => v.is_string(),
                    ParamType::Integer => v.is_i64() || v.is_u64(),
                    ParamType::Number => v.is_number(),
                    ParamType::Boolean => v.is_boolean(),
                    ParamType::Array => false,
                }),
                _ => false,
            };
            if !fits {
                self.error(
                    default.at,
                    format!(
                        "the default of list `{}` must be a list of {}s, such as [{}]",
                        name.value,
                        item.as_str(),
                        if item == ParamType::String {
                            "a, b"
                        } else {
                            "1, 2"
                        }
                    ),
                );
            }
        }
        // A scalar default its declared type cannot hold would be shown and never applied.
        if let (Some(ty), Some(default)) = (&param.ty, &param.default)
            && !is_list
            && param.enum_name.is_none()
            && param.resolve.is_none()
        {
            let fits = match ty.value {
                ParamType::String => default.value.is_string(),
                ParamType::Integer => default.value.is_i64() || default.value.is_u64(),
                ParamType::Number => default.value.is_number(),
                ParamType::Boolean => default.value.is_boolean(),
                ParamType::Array => true,
            };
            if !fits {
                self.error(
                    default.at,
                    format!(
                        "default {} of `{}` is not of its type `{}`",
                        default.value,
                        name.value,
                        ty.value.as_str()
                    ),
                )
                .help = Some(match ty.value {
                    ParamType::String => "quote it to make it text: \"3\"".to_string(),
                    other => format!("give a value of type {}", other.as_str()),
                });
            }
        }
        if param.enum_name.is_some() && param.resolve.is_some() {
            self.error(
                name.at,
                format!(
                    "parameter `{}` cannot both map an enum and resolve an id",
                    name.value
                ),
            );
        }
        if let (Some(enum_name), Some(default)) = (&param.enum_name, &param.default)
            && let Some(values) = self
                .curation
                .enums
                .iter()
                .find(|(k, _)| k.value == enum_name.value)
                .map(|(_, v)| v)
            && !values
                .keys()
                .any(|k| Some(k.value.as_str()) == default.value.as_str())
        {
            let names: Vec<&str> = values.keys().map(|k| k.value.as_str()).collect();
            let shown = default
                .value
                .as_str()
                .map_or_else(|| default.value.to_string(), str::to_string);
            let d = Diagnostic::error(
                default.at,
                format!(
                    "default `{shown}` is not one of the names of enum `{}`: {}",
                    enum_name.value,
                    names.join(", ")
                ),
            )
            .suggest(&shown, names.iter().copied());
            self.out.push(d);
        }
    }

    /// The input a dotted `from` (`content.raw`) fills inside one of `inputs`: its name, the
    /// field's schema and whether the API requires it ([`nested_input`]); `Ok(None)` when `from`
    /// has no dot or its first part is no input; `Err` with the input's name after reporting a
    /// field the object does not have.
    fn nested_input(
        &mut self,
        inputs: &[super::schema::Input],
        from: &str,
        at: At,
        operation: &str,
    ) -> Result<Option<super::schema::Input>, String> {
        match nested_input(inputs, from) {
            None => Ok(None),
            Some(Ok(nested)) => {
                let (_, schema, required) = nested.field;
                Ok(Some((nested.input, schema, required)))
            }
            Some(Err((part, available))) => {
                let top = from.split('.').next().unwrap_or(from);
                let d = Diagnostic::error(
                    at,
                    format!("`{top}` of `{operation}` has no field `{part}`"),
                )
                .suggest(&part, available.iter().map(String::as_str));
                self.out.push(d);
                Err(top.to_string())
            }
        }
    }

    fn check_call_tool(&mut self, tool: &ToolSpec, operation: &'a Operation, at: At) {
        let inputs = operation_inputs(operation);
        let input_names: Vec<&str> = inputs.iter().map(|(n, _, _)| n.as_str()).collect();
        let mut covered: BTreeSet<String> = BTreeSet::new();
        let in_templates = template_params(tool);
        for (param_name, param) in &tool.params {
            let from = param
                .from
                .as_ref()
                .map_or(param_name.value.as_str(), |f| f.value.as_str());
            let from_at = param.from.as_ref().map_or(param_name.at, |f| f.at);
            if param.from.is_none() && in_templates.contains(&param_name.value) {
                // A parameter a template uses reaches the API only through it.
                if param.ty.is_none() && param.enum_name.is_none() && param.resolve.is_none() {
                    self.error(
                        param_name.at,
                        format!(
                            "give parameter `{}`, which a template uses, a `type` (string, integer, number, boolean or array)",
                            param_name.value
                        ),
                    );
                }
                continue;
            }
            // A field inside an object the operation takes (`content.raw`): the object is
            // built around the parameter's value.
            let nested = match inputs.iter().any(|(n, _, _)| n == from) {
                true => None,
                false => match self.nested_input(&inputs, from, from_at, &operation.id) {
                    Ok(found) => found,
                    Err(top) => {
                        // Reported; the object is given, if wrongly.
                        covered.insert(top);
                        continue;
                    }
                },
            };
            if let Some((top, _, _)) = &nested {
                covered.insert(top.clone());
            }
            let found = match &nested {
                Some((_, schema, required)) => Some((from, schema, required)),
                None => inputs
                    .iter()
                    .find(|(n, _, _)| n == from)
                    .map(|(n, schema, required)| (n.as_str(), schema, required)),
            };
            match found {
                Some((_, schema, api_required)) => {
                    if *api_required && param.required == Some(false) && param.default.is_none() {
                        self.error(
                            param_name.at,
                            format!(
                                "`{}` of `{}` is required, but parameter `{}` may be left out, and the call would then fail",
                                from, operation.id, param_name.value
                            ),
                        )
                        .help = Some(
                            "give the parameter a `default` the API takes, or leave out `required: false`".into(),
                        );
                    }
                    covered.insert(from.to_string());
                    self.check_enum_codes(param, schema, from, &operation.id);
                    self.check_resolved_slot(param, schema, from, &operation.id);
                    // A list where the API takes one text (GitLab's comma-separated `labels`)
                    // goes through a template that joins it.
                    let wanted = json_types(any_branch(schema));
                    if param
                        .ty
                        .as_ref()
                        .is_some_and(|t| t.value == ParamType::Array)
                        && !wanted.is_empty()
                        && !wanted.contains(&"array")
                    {
                        self.error(
                            param_name.at,
                            format!(
                                "parameter `{}` is a list, and `{from}` of `{}` takes {}",
                                param_name.value,
                                operation.id,
                                with_article(&wanted.join(" or "))
                            ),
                        )
                        .help = Some(if wanted.contains(&"string") {
                            format!(
                                "join the list into the text under `fixed` and leave out `from`: `{from}: {{ template: \"{{{}}}\", join: \",\", quote: none }}`",
                                param_name.value
                            )
                        } else {
                            "take one value, without `type: array`".to_string()
                        });
                    }
                }
                None if self.credential_written(from_at, operation, from) => {}
                // A template that cannot be read may be the one meant to use it: its own error
                // says what is wrong.
                None if param.from.is_none() && param.ty.is_some() && !templates_readable(tool) => {
                }
                // A parameter of the tool's own that scopes the resolver of another (the board
                // whose lists a `list` name is one of) reaches the API through that resolver.
                None if param.from.is_none()
                    && scopes_a_resolver(self.curation, tool, &param_name.value) => {}
                None if param.from.is_none() && param.ty.is_some() => {
                    self.error(param_name.at, format!("parameter `{}` fills no parameter of `{}`; only workflow steps, templates and the scopes of resolvers can use parameters of their own", param_name.value, operation.id));
                }
                None => {
                    let mut d = Diagnostic::error(
                        from_at,
                        format!(
                            "operation `{}` has no parameter or body property `{from}`",
                            operation.id
                        ),
                    )
                    .suggest(from, input_names.iter().copied());
                    if d.help.is_none() {
                        d = d.with_help(format!("expected one of: {}", input_names.join(", ")));
                    }
                    self.out.push(d);
                }
            }
        }
        // Every fixed value is checked against its slot; a template's `{name}`s are the tool's
        // parameters.
        let typed_params = typed_params(tool);
        for (fixed, value) in &tool.fixed {
            if let Some((_, schema, _)) = inputs.iter().find(|(n, _, _)| *n == fixed.value) {
                covered.insert(fixed.value.clone());
                if let Some(name) = value
                    .value
                    .as_str()
                    .and_then(|v| v.strip_prefix('$'))
                    .filter(|name| {
                        name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                            && name
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                    })
                {
                    self.error(
                        value.at,
                        format!("`${name}` under `fixed` is no parameter's value: `fixed` holds literals and templates"),
                    )
                    .help = Some(format!(
                        "give the parameter `from: {}`, or write a template: {{ template: \"{{{name}}}\", quote: none }}",
                        fixed.value
                    ));
                    continue;
                }
                // Only a template names the tool's parameters: `$name` under `fixed` is no value.
                let params: &[(&str, Option<&'static str>)] = if Template::is_template(&value.value)
                {
                    &typed_params
                } else {
                    &[]
                };
                self.check_value(value, &fixed.value, Some(schema), params, &[]);
            } else if !self.credential_written(fixed.at, operation, &fixed.value) {
                let d = Diagnostic::error(
                    fixed.at,
                    format!(
                        "operation `{}` has no parameter `{}`",
                        operation.id, fixed.value
                    ),
                )
                .suggest(&fixed.value, input_names.iter().copied());
                self.out.push(d);
            }
        }
        let pagination = tool
            .pagination
            .as_ref()
            .or(self.curation.pagination.as_ref());
        let paged = tool.results.as_ref().is_some_and(|r| r.items.is_some());
        if let Some(results) = &tool.results
            && walked_pagination(self.curation, tool, operation).is_none()
        {
            let given: Vec<&str> = tool
                .params
                .iter()
                .map(|(name, param)| param.from.as_ref().unwrap_or(name).value.as_str())
                .chain(tool.fixed.keys().map(|k| k.value.as_str()))
                .collect();
            self.check_unasked_size(results, operation, &given);
        }
        if let Some(pagination) = pagination
            && paged
        {
            if tool.pagination.is_some() || takes_paging(pagination, operation) {
                self.check_pagination_for(pagination, operation, at);
                for (param, default) in paging_params(pagination) {
                    let paging_name = param.map_or(default, |p| p.value.as_str());
                    for (param_name, param) in &tool.params {
                        let from = param
                            .from
                            .as_ref()
                            .map_or(param_name.value.as_str(), |f| f.value.as_str());
                        if from == paging_name {
                            self.error(
                                param_name.at,
                                format!("`{paging_name}` is set by the server while it walks pages; the tool cannot also take it"),
                            )
                            .help = Some("remove the parameter: `results.limit` lets the model bound the result".into());
                        }
                    }
                }
            }
            for (param, default) in paging_params(pagination) {
                covered.insert(param.map_or(default.to_string(), |p| p.value.clone()));
            }
        }
        for (name, _, required) in &inputs {
            if *required && !covered.contains(name) {
                let in_query = operation
                    .parameters
                    .iter()
                    .any(|p| p.name == *name && p.location == Location::Query);
                self.error(
                    at,
                    format!(
                        "required parameter `{name}` of `{}` gets no value",
                        operation.id
                    ),
                )
                .help = Some(if in_query {
                    format!(
                        "add a tool parameter with `from: {name}`, or give it under `fixed`; if the API does without it, declare it under `query:` (`{}: {{ {name}: {{ type: string }} }}`), which makes it optional",
                        operation.id
                    )
                } else {
                    format!("add a tool parameter with `from: {name}`, or give it under `fixed`")
                });
            }
        }
    }

    /// A resolver gives an id (text or a number), one per value: the API slot a resolved
    /// parameter fills must take one, or a list of them.
    fn check_resolved_slot(
        &mut self,
        param: &Param,
        schema: &Value,
        api_name: &str,
        operation: &str,
    ) {
        let Some(resolver) = &param.resolve else {
            return;
        };
        let slot = any_branch(schema);
        let (item, list) = match slot.get("items") {
            Some(items) if is_array(slot) => (any_branch(items), true),
            _ => (slot, false),
        };
        let types = json_types(item);
        if types.is_empty() || types.iter().any(|t| matches!(*t, "string" | "integer")) {
            return;
        }
        let takes = if list {
            format!("a list of {}s", types.join("s or "))
        } else {
            with_article(&types.join(" or "))
        };
        self.error(
            resolver.at,
            format!(
                "`{api_name}` of `{operation}` takes {takes}, but resolver `{}` gives an id (text or a number)",
                resolver.value
            ),
        );
    }

    fn check_enum_codes(&mut self, param: &Param, schema: &Value, api_name: &str, operation: &str) {
        let Some(enum_name) = &param.enum_name else {
            return;
        };
        if is_array(any_branch(schema)) && param.ty.is_none() {
            self.error(
                enum_name.at,
                format!(
                    "`{api_name}` of `{operation}` takes a list, but a parameter with `enum` gives one value"
                ),
            )
            .help = Some(
                "make the tool a workflow whose step gives the list `[$param]`, or leave out `enum`"
                    .into(),
            );
            return;
        }
        let Some((_, values)) = self
            .curation
            .enums
            .iter()
            .find(|(k, _)| k.value == enum_name.value)
        else {
            return;
        };
        let api_values = schema.get("enum").and_then(Value::as_array);
        let wanted = json_types(schema);
        for (readable, code) in values {
            match api_values {
                // The API lists its values: each code must be one of them.
                Some(api_values) if !api_values.contains(&code.value) => {
                    let codes: Vec<String> = api_values.iter().map(Value::to_string).collect();
                    self.out.push(Diagnostic::error(
                        code.at,
                        format!(
                            "`{}` maps to {}, which `{api_name}` of `{operation}` does not accept (it takes {})",
                            readable.value,
                            code.value,
                            codes.join(", ")
                        ),
                    ));
                }
                Some(_) => {}
                // Otherwise each code must still be of the type the slot takes.
                None => {
                    let types = json_types_of(&code.value);
                    if types_fit(&types, &wanted) {
                        continue;
                    }
                    let mut d = Diagnostic::error(
                        code.at,
                        format!(
                            "`{}` maps to {}, {}, but `{api_name}` of `{operation}` takes {}",
                            readable.value,
                            code.value,
                            with_article(&types.join(" or ")),
                            with_article(&wanted.join(" or "))
                        ),
                    );
                    d.help = Some(if wanted.contains(&"string") {
                        format!(
                            "quote the code to send it as text: `{}: \"{}\"`",
                            readable.value, code.value
                        )
                    } else {
                        "write each code as the API takes it".into()
                    });
                    self.out.push(d);
                }
            }
        }
    }

    /// An enum parameter anywhere in a step argument (`data: { kind: $kind }`) sends codes the
    /// slot it reaches (`slot` is the argument's) must accept.
    fn check_enum_references(
        &mut self,
        tool: &ToolSpec,
        arg: &str,
        value: &Spanned<Value>,
        slot: &Value,
        operation: &str,
    ) {
        for (name, path) in parameter_references(&value.value) {
            let Some(param) = tool
                .params
                .iter()
                .find(|(n, _)| n.value == name)
                .map(|(_, p)| p)
                .filter(|p| p.enum_name.is_some())
            else {
                continue;
            };
            let Ok(Some(target)) = schema_at(slot, &path) else {
                continue;
            };
            let target = any_branch(&target);
            if !is_array(target) {
                let place = if path.is_empty() {
                    arg.to_string()
                } else {
                    format!("{arg}.{path}")
                };
                self.check_enum_codes(param, target, &place, operation);
            }
        }
    }

    /// `results.limit` over an operation the server does not page only cuts the API's answer: while
    /// the operation's own page size (a query parameter named like one, `cards_limit`,
    /// `maxResults`, `per_page`) is left unset, the API's default may return fewer items than the
    /// model asked for, and the result would not say that more exist. `given` are the inputs the
    /// tool sets.
    fn check_unasked_size(&mut self, results: &Results, operation: &Operation, given: &[&str]) {
        let Some(limit) = &results.limit else {
            return;
        };
        let sizes = || {
            operation
                .parameters
                .iter()
                .filter(|p| p.location == Location::Query && names_a_page_size(&p.name))
        };
        // A tool that sets one of several sizes (Trello's `cards_limit` of a search that also
        // takes `boards_limit`) sets the one its list has.
        if sizes().any(|p| given.contains(&p.name.as_str())) {
            return;
        }
        // Of several (a search's `boards_limit` and `cards_limit`), the one named after the list.
        let list = results
            .items
            .as_ref()
            .and_then(|items| items.value.rsplit('.').next())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let Some(size) = sizes()
            .find(|p| !list.is_empty() && p.name.to_ascii_lowercase().contains(&list))
            .or_else(|| sizes().next())
        else {
            return;
        };
        let mut d = Diagnostic::error(
                limit.at,
                format!(
                    "`results.limit` on `{}`, which this file does not page: the server only cuts the answer, and while `{}` is unset the API's own default may return fewer items than asked for, with nothing saying more exist",
                    operation.id, size.name
                ),
            )
            .with_help(format!(
                "set `{}` under `fixed` (to at least `limit.max`, {}), or declare `pagination` for `{}`",
                size.name, limit.value.max.value, operation.id
            ));
        d.severity = Severity::Warning;
        self.out.push(d);
    }

    /// A workflow's result is a list (`results.items`, `results.limit`) only as the answer of its
    /// last step, a `call`: that operation is walked and cut like a one-call list tool's, so the
    /// paging it takes is checked here, and its step may not set the paging parameters itself.
    /// Returns whether the result can be checked as written (false when the list was refused).
    fn check_workflow_list(&mut self, tool: &ToolSpec, results: &Results) -> bool {
        let Some(at) = results
            .items
            .as_ref()
            .map(|i| i.at)
            .or(results.limit.as_ref().map(|l| l.at))
        else {
            return true;
        };
        let last = tool.steps.last().map(|step| &step.value);
        let Some((last, call)) = last.and_then(|step| Some((step, step.call.as_ref()?))) else {
            self.error(at, "a workflow's result is a list only when its last step is a `call` whose answer holds it")
                .help = Some("end the workflow with the step that lists, or shape one item with `results.fields`".into());
            return false;
        };
        if let Some(from) = &results.from {
            let named = from.value.trim_start_matches('$');
            if last.name.as_ref().is_none_or(|name| name.value != named) {
                self.error(from.at, "`results.items` lists the answer of the workflow's last step; `results.from` cannot name another")
                    .help = Some("remove `results.from`, or move the listing step to the end".into());
                return false;
            }
        }
        if results.items.is_none() {
            return true;
        }
        let Some(operation) = self.operation(call) else {
            return true;
        };
        let Some(pagination) = walked_pagination(self.curation, tool, operation) else {
            let given: Vec<&str> = last.args.keys().map(|a| a.value.as_str()).collect();
            self.check_unasked_size(results, operation, &given);
            return true;
        };
        self.check_pagination_for(pagination, operation, call.at);
        for (param, default) in paging_params(pagination) {
            let paging_name = param.map_or(default, |p| p.value.as_str());
            if let Some(arg) = last.args.keys().find(|arg| arg.value == paging_name) {
                self.error(
                    arg.at,
                    format!("`{paging_name}` is set by the server while it walks pages; the step cannot also give it"),
                )
                .help = Some("remove the argument: `results.limit` lets the model bound the result".into());
            }
        }
        true
    }

    /// Refuses what a step says that its kind does not use: `where`, `missing` and `ambiguous`
    /// belong to a `find`, `args` and `errors` to a `call`, and a `stop_if` takes neither nor
    /// `as` (it ends the workflow and names no result).
    fn check_step_keys(&mut self, index: usize, step: &Step) {
        let (kind, allowed): (&str, &[&str]) = if step.call.is_some() {
            ("call", &["args", "errors", "as", "when"])
        } else if step.find.is_some() {
            ("find", &["where", "missing", "ambiguous", "as"])
        } else if step.resolve.is_some() {
            ("resolve", &["value", "args", "as"])
        } else {
            ("stop_if", &[])
        };
        let present: [(&str, &str, Option<At>); 8] = [
            ("when", "call", step.when.as_ref().map(|when| when.equal.at)),
            (
                "args",
                "call` or `resolve",
                step.args.keys().next().map(|k| k.at),
            ),
            ("value", "resolve", step.value.as_ref().map(|v| v.at)),
            ("errors", "call", step.errors.keys().next().map(|k| k.at)),
            (
                "where",
                "find",
                step.where_fields.keys().next().map(|k| k.at),
            ),
            ("missing", "find", step.missing.as_ref().map(|m| m.at)),
            ("ambiguous", "find", step.ambiguous.as_ref().map(|m| m.at)),
            (
                "as",
                "call`, `find` or `resolve",
                step.name.as_ref().map(|n| n.at),
            ),
        ];
        for (key, owner, at) in present {
            if let Some(at) = at
                && !allowed.contains(&key)
            {
                self.error(
                    at,
                    format!("step {} is a `{kind}`, which does not use `{key}`: it belongs to a `{owner}` step", index + 1),
                );
            }
        }
    }

    /// Warns about a `{name}` in a message that names none of `params` nor `extra`: it would
    /// reach the model as written.
    fn check_placeholders(&mut self, at: At, message: &str, params: &[&str], extra: &[&str]) {
        let mut rest = message;
        while let Some(open) = rest.find('{') {
            rest = &rest[open + 1..];
            let Some(close) = rest.find('}') else { break };
            let name = &rest[..close];
            let is_name = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if is_name && !params.contains(&name) && !extra.contains(&name) {
                let mut d = Diagnostic::error(
                    at,
                    format!("`{{{name}}}` in this message names no parameter of the tool; the model would read it as written"),
                )
                .suggest(name, params.iter().chain(extra).copied());
                d.severity = Severity::Warning;
                if d.help.is_none() {
                    let known: Vec<String> = params
                        .iter()
                        .chain(extra)
                        .map(|p| format!("`{{{p}}}`"))
                        .collect();
                    d.help = Some(if known.is_empty() {
                        "this tool has no parameters to name".to_string()
                    } else {
                        format!("the message can name {}", known.join(", "))
                    });
                }
                self.out.push(d);
            }
            rest = &rest[close + 1..];
        }
    }

    /// Checks a workflow's steps; returns the schema of the result the tool shapes.
    fn check_steps(&mut self, tool: &ToolSpec) -> Option<Value> {
        // Names visible to later steps: tool parameters, and each step's result with its schema.
        let typed_params = typed_params(tool);
        let params: Vec<&str> = typed_params.iter().map(|(name, _)| *name).collect();
        // The names a message may hold: the file's parameters (`{limit}` is not filled in).
        let message_names: Vec<&str> = tool.params.keys().map(|k| k.value.as_str()).collect();
        let mut results: Vec<(String, Option<Value>)> = Vec::new();
        // The steps (by `as`) whose call reads one page of a list the file's paging walks.
        let mut one_page: Vec<(String, String)> = Vec::new();
        let mut last: Option<Value> = None;
        // The answer of the step before, which a `stop_if` without `result` returns.
        let mut previous: Option<Value> = None;
        // The calls that run only `when` their condition holds, by `as`: step number, condition.
        let mut conditional: Vec<(String, usize, &Condition)> = Vec::new();
        // Each step's answer, as the tool may return it: whether its call has a `when`, and the
        // answer's schema (`None` for a step that answers nothing the tool returns).
        let mut answers: Vec<(Option<&Condition>, Option<Option<Value>>)> = Vec::new();
        for (param_name, param) in &tool.params {
            if param.from.is_some() {
                self.error(param_name.at, "a workflow's parameters fill no API parameter directly; steps use them as `$name`")
                    .help = Some("remove `from` and give the parameter a `type` or an `enum`".into());
            }
            if param.ty.is_none() && param.enum_name.is_none() && param.resolve.is_none() {
                self.error(param_name.at, format!("give workflow parameter `{}` a `type` (string, integer, number, boolean or array)", param_name.value));
            }
        }
        for (index, step) in tool.steps.iter().enumerate() {
            let step_at = step.at;
            let step = &step.value;
            // `$name` would mean the parameter, never the step's answer.
            if let Some(name) = &step.name
                && params.contains(&name.value.as_str())
            {
                self.error(
                    name.at,
                    format!(
                        "step {} is named `{}`, as a parameter of the tool is: `${}` means the parameter",
                        index + 1,
                        name.value,
                        name.value
                    ),
                )
                .help = Some(format!(
                    "name the step otherwise, such as `as: found_{}`",
                    name.value
                ));
            }
            let kinds = [
                step.call.is_some(),
                step.find.is_some(),
                step.stop_if.is_some(),
                step.resolve.is_some(),
            ];
            if kinds.iter().filter(|k| **k).count() != 1 {
                self.error(
                    step_at,
                    format!(
                        "step {} must have exactly one of `call`, `find`, `stop_if` or `resolve`",
                        index + 1
                    ),
                );
                continue;
            }
            self.check_step_keys(index, step);
            self.check_conditional_reads(index, step, &conditional, &params);
            let message_names = &message_names;
            for (status, message) in &step.errors {
                self.check_status(status);
                self.check_placeholders(status.at, message, message_names, &[]);
            }
            if let Some(missing) = &step.missing {
                self.check_placeholders(missing.at, &missing.value, message_names, &["available"]);
            }
            if let Some(ambiguous) = &step.ambiguous {
                self.check_placeholders(
                    ambiguous.at,
                    &ambiguous.value,
                    message_names,
                    &["candidates"],
                );
            }
            if let Some(message) = step.stop_if.as_ref().and_then(|stop| stop.message.as_ref()) {
                self.check_placeholders(step_at, message, message_names, &[]);
            }
            if let Some(call) = &step.call {
                let Some(operation) = self.operation(call) else {
                    // Later steps may still use the result; its shape is unknown because of the
                    // error just reported, so it is taken as anything (`true`) rather than
                    // warned about as undocumented.
                    if let Some(name) = &step.name {
                        results.push((name.value.clone(), Some(Value::Bool(true))));
                    }
                    continue;
                };
                let inputs = operation_inputs(operation);
                let names: Vec<&str> = inputs.iter().map(|(n, _, _)| n.as_str()).collect();
                for (arg, value) in &step.args {
                    if !names.contains(&arg.value.as_str())
                        && !self.credential_written(arg.at, operation, &arg.value)
                    {
                        let mut d = Diagnostic::error(
                            arg.at,
                            format!(
                                "operation `{}` has no parameter `{}`",
                                operation.id, arg.value
                            ),
                        )
                        .suggest(&arg.value, names.iter().copied());
                        if arg.value == "body"
                            && operation
                                .body
                                .as_ref()
                                .is_some_and(|b| b.flattened_properties().is_some())
                        {
                            d.help = Some("the body's fields are parameters of their own: write each under `args` (`title: $title`)".into());
                        }
                        self.out.push(d);
                    }
                    let slot = inputs
                        .iter()
                        .find(|(n, _, _)| *n == arg.value)
                        .map(|(_, schema, _)| schema);
                    if inputs
                        .iter()
                        .any(|(n, _, required)| *n == arg.value && *required)
                    {
                        self.check_required_given(
                            value.at,
                            &arg.value,
                            &value.value,
                            &operation.id,
                        );
                    }
                    let before = self.out.len();
                    self.check_value(value, &arg.value, slot, &typed_params, &results);
                    // A value that does not fit may be meant for the input of the same API name
                    // elsewhere (the body's `uris` beside a query `uris`), which goes by a
                    // prefixed name.
                    if self.out.len() > before
                        && let Some(twin) = operation.twin_of(&arg.value)
                        && let Some(d) = self.out.last_mut()
                    {
                        d.help = Some(format!(
                            "`{}` here is the {} parameter; the operation's other `{}` goes by `{twin}`",
                            arg.value,
                            operation
                                .parameters
                                .iter()
                                .find(|p| p.name == arg.value)
                                .map_or("first", |p| p.location.as_str()),
                            arg.value
                        ));
                    }
                    if let Some(slot) = slot {
                        self.check_enum_references(tool, &arg.value, value, slot, &operation.id);
                    }
                }
                // The last step of a list workflow gets its paging parameters from the server.
                let paged = match walked_pagination(self.curation, tool, operation) {
                    Some(pagination) if index + 1 == tool.steps.len() => {
                        paging_param_names(pagination)
                    }
                    _ => Vec::new(),
                };
                for (name, _, required) in &inputs {
                    if *required
                        && !paged.contains(name)
                        && !step.args.keys().any(|a| a.value == *name)
                    {
                        self.error(
                            call.at,
                            format!(
                                "required parameter `{name}` of `{}` gets no value in step {}",
                                operation.id,
                                index + 1
                            ),
                        )
                        .help = Some(format!(
                            "add `{name}: $param`, `{name}: $step.field` or a literal under `args`"
                        ));
                    }
                }
                if let Some(when) = &step.when {
                    self.check_equal(&when.equal, &typed_params, &results);
                    self.check_when_values(tool, &when.equal);
                    if index + 1 == tool.steps.len()
                        && let Some(items) = tool.results.as_ref().and_then(|r| r.items.as_ref())
                    {
                        self.error(
                            items.at,
                            format!("`results.items` reads the list the last step answers, but step {} runs only `when` its condition holds", index + 1),
                        )
                        .help = Some("a list tool's last step always runs: remove its `when`, or make it a tool of its own".into());
                    }
                    if let Some(name) = &step.name {
                        conditional.push((name.value.clone(), index + 1, when));
                    }
                }
                let schema = success_schema(operation).cloned();
                answers.push((step.when.as_ref(), Some(schema.clone())));
                last = schema.clone();
                previous = schema.clone();
                if let Some(name) = &step.name {
                    results.push((name.value.clone(), schema));
                    if let Some(pagination) = &self.curation.pagination
                        && takes_paging(pagination, operation)
                        && !paging_param_names(pagination)
                            .iter()
                            .any(|p| step.args.keys().any(|arg| arg.value == *p))
                        && find_walks(self.curation, tool, index, operation).is_none()
                    {
                        one_page.push((name.value.clone(), operation.id.clone()));
                    }
                }
            } else if let Some(find) = &step.find {
                let head = Reference::read(&find.value).map(|r| r.head);
                if let Some((_, operation)) = one_page
                    .iter()
                    .find(|(name, _)| Some(name.as_str()) == head)
                {
                    let mut d = Diagnostic::error(
                        find.at,
                        format!(
                            "`find` reads only the first page of `{operation}`: an item on a later page is not found"
                        ),
                    );
                    d.severity = Severity::Warning;
                    d.help = Some(format!(
                        "a `find` walks every page when it is all that reads the step's answer; else a resolver does (`list: {operation}`, scoped with `args` where it needs them); or set the page size in the step's `args`"
                    ));
                    self.out.push(d);
                }
                let list = self.check_reference(find, &params, &results);
                let mut item = list.as_ref().and_then(items_of);
                if let Some(list) = &list
                    && !is_array(list)
                {
                    self.error(find.at, format!("`{}` is not a list", find.value));
                    item = Some(Value::Bool(true));
                }
                for (field, value) in &step.where_fields {
                    let slot = match item.as_ref().map(|item| schema_at(item, &field.value)) {
                        Some(Ok(slot)) => slot.map(Cow::into_owned),
                        Some(Err((part, available))) => {
                            let d = Diagnostic::error(
                                field.at,
                                format!("the items of `{}` have no field `{part}`", find.value),
                            )
                            .suggest(&part, available.iter().map(String::as_str));
                            self.out.push(d);
                            None
                        }
                        None => None,
                    };
                    self.check_value(value, &field.value, slot.as_ref(), &typed_params, &results);
                }
                previous = item.clone();
                answers.push((None, Some(item.clone())));
                match &step.name {
                    Some(name) => results.push((name.value.clone(), item)),
                    None => {
                        self.error(
                            find.at,
                            "a `find` step needs `as`: the name later steps use for the item found",
                        );
                    }
                }
            } else if let Some(resolver_name) = &step.resolve {
                let id = self.check_resolve_step(
                    tool,
                    index,
                    step,
                    resolver_name,
                    &typed_params,
                    &results,
                );
                previous = None;
                answers.push((None, None));
                // An optional value resolves to nothing when it is left out.
                if let (Some(name), Some(value)) = (&step.name, &step.value)
                    && let Some(param) = Reference::of(&value.value).and_then(|r| r.whole())
                    && self.optional.iter().any(|p| p == param)
                {
                    self.optional_steps
                        .push((name.value.clone(), param.to_string()));
                }
                match &step.name {
                    Some(name) => results.push((name.value.clone(), id)),
                    None => {
                        self.error(
                            resolver_name.at,
                            "a `resolve` step needs `as`: the name later steps use for the id",
                        );
                    }
                }
            } else if let Some(stop) = &step.stop_if {
                self.check_equal(&stop.equal, &typed_params, &results);
                answers.push((None, None));
                if stop.result.is_none()
                    && let Some((Some(_), _)) = answers.iter().rev().find(|(_, a)| a.is_some())
                {
                    self.error(
                        stop.equal.at,
                        format!("step {} returns the answer of the call before it when it stops, but that call runs only `when` its condition holds", index + 1),
                    )
                    .help = Some("name the answer to return with `result: $step`".into());
                }
                // What the tool returns when it stops: the `result` named, or the answer of the
                // step before.
                let returned = match &stop.result {
                    Some(result) => self.check_reference(result, &params, &results),
                    None => previous.clone(),
                };
                self.stops.push(OtherResult {
                    at: stop.equal.at,
                    returned,
                    instead_of: None,
                });
            }
        }
        self.check_params_read(tool, &params);
        if let Some(from) = tool.results.as_ref().and_then(|r| r.from.as_ref()) {
            let head = Reference::read(&from.value).map(|r| r.head);
            if let Some((_, number, _)) = conditional
                .iter()
                .find(|(name, ..)| Some(name.as_str()) == head)
            {
                self.error(
                    from.at,
                    format!("`results.from` names step {number}, which runs only `when` its condition holds: when it does not run there is no answer to return"),
                )
                .help = Some("leave `results.from` out: the tool then returns the answer of the last step that ran".into());
                return None;
            }
            if from.value.contains('.') {
                self.error(
                    from.at,
                    "`results.from` names a step (`$name`), not a field of its result",
                )
                .help = Some("shape the step's result with `results.fields` instead".into());
                return None;
            }
            return self.check_reference(from, &params, &results);
        }
        self.check_alternatives(tool, &answers);
        last
    }

    /// The calls with a `when` at the end of a workflow are alternatives: the tool returns the
    /// answer of the last that ran, or the answer before them when none ran. Each such answer
    /// must have the fields the results show; with none before them, the conditions must cover
    /// every value of the one enum parameter they compare, or the tool may call nothing.
    fn check_alternatives(
        &mut self,
        tool: &ToolSpec,
        answers: &[(Option<&Condition>, Option<Option<Value>>)],
    ) {
        let mut alternatives: Vec<(usize, &Condition)> = Vec::new();
        let mut fallback: Option<&Option<Value>> = None;
        for (index, (when, answer)) in answers.iter().enumerate().rev() {
            match (when, answer) {
                (Some(when), Some(_)) => alternatives.push((index + 1, when)),
                (None, Some(answer)) => {
                    fallback = Some(answer);
                    break;
                }
                _ => {}
            }
        }
        if alternatives.is_empty() {
            return;
        }
        // Returned when the alternative before it in the file did not run.
        let returned = alternatives
            .iter()
            .skip(1)
            .map(|(number, _)| answers[number - 1].1.clone().flatten())
            .chain(fallback.cloned());
        for ((number, when), returned) in alternatives.iter().zip(returned) {
            self.stops.push(OtherResult {
                at: when.equal.at,
                returned,
                instead_of: Some(*number),
            });
        }
        if fallback.is_none() && !self.conditions_cover_an_enum(tool, &alternatives) {
            let (_, first) = alternatives[alternatives.len() - 1];
            let numbers: Vec<String> = alternatives
                .iter()
                .rev()
                .map(|(number, _)| number.to_string())
                .collect();
            let mut d = Diagnostic::error(
                first.equal.at,
                format!(
                    "when no `when` of step {} holds, the tool calls nothing and answers that nothing was done",
                    numbers.join(", ")
                ),
            );
            d.severity = Severity::Warning;
            d.help = Some("compare one `enum` parameter, a flag or `$response_format` with each of its values (`equal: [$param, code]`), so that one step always runs".into());
            self.out.push(d);
        }
    }

    /// Do the conditions compare one parameter of few values (an enum, a flag, the format) with
    /// each of them?
    fn conditions_cover_an_enum(
        &self,
        tool: &ToolSpec,
        alternatives: &[(usize, &Condition)],
    ) -> bool {
        let compared: Vec<(&str, &str)> = alternatives
            .iter()
            .filter_map(|(_, when)| {
                let [left, right] = when.equal.value.as_slice() else {
                    return None;
                };
                let param = Reference::read(&left.value)?.whole()?;
                (!right.value.starts_with('$')).then_some((param, right.value.as_str()))
            })
            .collect();
        let Some((param, _)) = compared.first() else {
            return false;
        };
        let Some(codes) = self.param_values(tool, param) else {
            return false;
        };
        compared.iter().all(|(p, _)| p == param)
            && codes.iter().all(|code| {
                compared
                    .iter()
                    .any(|(_, literal)| literal.trim().eq_ignore_ascii_case(code.trim()))
            })
    }

    /// Refuses a workflow parameter that no step reads (nor a template, nor a resolver's
    /// scope): the model would be asked for it for nothing.
    fn check_params_read(&mut self, tool: &ToolSpec, params: &[&str]) {
        let is_param = |name: &str| params.contains(&name);
        let mut read: BTreeSet<String> = BTreeSet::new();
        for step in &tool.steps {
            for value in step_values(&step.value) {
                read.extend(Written::read(&value.value, &is_param).params());
            }
            for text in step_references(&step.value) {
                if let Some(name) = Reference::read(&text.value).and_then(|r| r.whole()) {
                    read.insert(name.to_string());
                }
            }
        }
        for name in tool.params.keys() {
            if !read.contains(&name.value) && !scopes_a_resolver(self.curation, tool, &name.value) {
                self.error(
                    name.at,
                    format!(
                        "no step reads parameter `{}`: the model would be asked for it for nothing",
                        name.value
                    ),
                )
                .help = Some(format!(
                    "pass it to a step (`field: ${}`), or remove it",
                    name.value
                ));
            }
        }
    }

    /// The values a tool parameter can have where it has few, as the steps compare them: an enum
    /// parameter's codes, a flag's `true` and `false`, the two formats of `response_format`.
    fn param_values(&self, tool: &ToolSpec, name: &str) -> Option<Vec<String>> {
        let param = tool.params.iter().find(|(key, _)| key.value == name);
        let Some((_, param)) = param else {
            let formats = name == "response_format"
                && tool
                    .results
                    .as_ref()
                    .is_some_and(|r| !r.detailed_fields.is_empty());
            return formats.then(|| vec!["concise".into(), "detailed".into()]);
        };
        if param
            .ty
            .as_ref()
            .is_some_and(|t| t.value == ParamType::Boolean)
        {
            return Some(vec!["true".into(), "false".into()]);
        }
        let enum_name = param.enum_name.as_ref()?;
        let (_, codes) = self
            .curation
            .enums
            .iter()
            .find(|(key, _)| key.value == enum_name.value)?;
        Some(
            codes
                .values()
                .map(|code| match &code.value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                })
                .collect(),
        )
    }

    /// Refuses a `when` that compares a parameter of few values (an enum's codes, a flag) with a
    /// literal it can never be, such as an enum's readable name where the step gets its code.
    fn check_when_values(&mut self, tool: &ToolSpec, equal: &Spanned<Vec<Spanned<String>>>) {
        let [left, right] = equal.value.as_slice() else {
            return;
        };
        for (reference, literal) in [(left, right), (right, left)] {
            let Some(name) = Reference::read(&reference.value).and_then(|r| r.whole()) else {
                continue;
            };
            if literal.value.starts_with('$') {
                continue;
            }
            let Some(values) = self.param_values(tool, name) else {
                continue;
            };
            let wanted = literal.value.trim();
            if !values.iter().any(|v| v.trim().eq_ignore_ascii_case(wanted)) {
                self.error(
                    literal.at,
                    format!(
                        "`${name}` is never `{wanted}`: the step gets {}",
                        match values.as_slice() {
                            [one] => format!("`{one}`"),
                            _ => format!(
                                "one of {}",
                                values
                                    .iter()
                                    .map(|v| format!("`{v}`"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        }
                    ),
                )
                .help = Some(
                    "an enum parameter reaches the steps as its code: compare with a code".into(),
                );
            }
        }
    }

    /// The two values an `equal` compares (a `stop_if`'s, a `when`'s).
    fn check_equal(
        &mut self,
        equal: &Spanned<Vec<Spanned<String>>>,
        typed_params: &[(&str, Option<&'static str>)],
        results: &[(String, Option<Value>)],
    ) {
        if equal.value.len() != 2 {
            self.error(equal.at, "`equal` takes two values");
        }
        for value in &equal.value {
            self.check_value(
                &Spanned {
                    value: Value::String(value.value.clone()),
                    at: value.at,
                },
                "equal",
                None,
                typed_params,
                results,
            );
        }
    }

    /// Refuses a read of the answer of a call that runs only `when` its condition holds, from a
    /// step that does not run under the same condition: there may be no answer to read.
    fn check_conditional_reads(
        &mut self,
        index: usize,
        step: &Step,
        conditional: &[(String, usize, &Condition)],
        params: &[&str],
    ) {
        for (head, at) in answer_reads(step, params) {
            let Some((_, number, condition)) =
                conditional.iter().rev().find(|(name, ..)| name == head)
            else {
                continue;
            };
            if step.when.as_ref() == Some(*condition) {
                continue;
            }
            let shown: Vec<String> = condition
                .equal
                .value
                .iter()
                .map(|v| format!("`{}`", v.value))
                .collect();
            self.error(
                at,
                format!(
                    "step {} reads the answer of step {number}, which runs only when {} equals {}: when it does not run there is no answer",
                    index + 1,
                    shown.first().map_or("", String::as_str),
                    shown.get(1).map_or("", String::as_str)
                ),
            )
            .help = Some(if step.call.is_some() {
                format!("give step {} the same `when`", index + 1)
            } else {
                "read it only in calls with the same `when`".into()
            });
        }
    }

    /// A `resolve` step: a resolver of the file, a `value` that is text, and the resolver's scope
    /// given by the step's `args` (each one of the resolver's own `args`, from a parameter or an
    /// earlier step) or by the tool's parameters the resolver's `args` name. Returns the schema
    /// of the id, for the references later steps make to it.
    fn check_resolve_step(
        &mut self,
        tool: &ToolSpec,
        index: usize,
        step: &Step,
        resolver_name: &Spanned<String>,
        typed_params: &[(&str, Option<&'static str>)],
        results: &[(String, Option<Value>)],
    ) -> Option<Value> {
        let Some((_, resolver)) = self
            .curation
            .resolvers
            .iter()
            .find(|(name, _)| name.value == resolver_name.value)
        else {
            let d = Diagnostic::error(
                resolver_name.at,
                format!("unknown resolver `{}`", resolver_name.value),
            )
            .suggest(
                &resolver_name.value,
                self.curation.resolvers.keys().map(|k| k.value.as_str()),
            );
            self.out.push(d);
            return Some(Value::Bool(true));
        };
        match &step.value {
            Some(value) => self.check_value(
                value,
                "value",
                Some(&serde_json::json!({ "type": "string" })),
                typed_params,
                results,
            ),
            None => {
                self.error(
                    resolver_name.at,
                    format!(
                        "step {} resolves nothing: give the readable value as `value: $param`",
                        index + 1
                    ),
                );
            }
        }
        let list = self.resolver_operation(resolver);
        let inputs = list.map(operation_inputs).unwrap_or_default();
        for (arg, value) in &step.args {
            if !resolver.args.keys().any(|scope| scope.value == arg.value) {
                let d = Diagnostic::error(
                    arg.at,
                    format!(
                        "resolver `{}` takes no `{}` in its `args`: a `resolve` step's `args` give the resolver's scope",
                        resolver_name.value, arg.value
                    ),
                )
                .suggest(&arg.value, resolver.args.keys().map(|k| k.value.as_str()));
                self.out.push(d);
                continue;
            }
            let slot = inputs
                .iter()
                .find(|(name, _, _)| *name == arg.value)
                .map(|(_, schema, _)| schema);
            self.check_value(value, &arg.value, slot, typed_params, results);
        }
        // A scope the step does not give comes from the tool's parameter the resolver names.
        for (scope, value) in &resolver.args {
            if step.args.keys().any(|arg| arg.value == scope.value) {
                continue;
            }
            if let Some(wanted) = Reference::of(&value.value).and_then(|r| r.whole())
                && wanted != SEARCHED
                && !tool.params.keys().any(|name| name.value == wanted)
            {
                self.error(
                    resolver_name.at,
                    format!(
                        "resolver `{}` lists per `{}` (`{}: ${wanted}`), which neither this step's `args` nor a parameter `{wanted}` of the tool gives",
                        resolver_name.value, scope.value, scope.value
                    ),
                )
                .help = Some(format!(
                    "give it under the step's `args`: `{}: $step.field`",
                    scope.value
                ));
            }
        }
        // The id, of the type the resolver's items give it; an integer id goes as text where a
        // field takes text (bind sends its digits).
        let id = list
            .and_then(|operation| resolver_id_schema(resolver, operation))
            .unwrap_or(Value::Bool(true));
        Some(match json_types(&id).as_slice() {
            ["integer"] => serde_json::json!({ "type": ["integer", "string"] }),
            _ => id,
        })
    }

    /// Checks a value written under `args`, `where` or `equal` against `target`, the schema of the
    /// slot it fills when known: `$name` and `$step.path` at any depth of nested objects and
    /// arrays, the fields a nested object names, and each part's JSON type against the slot's
    /// (a string where the API takes an object is refused here, not by the API at run time).
    fn check_value(
        &mut self,
        value: &Spanned<Value>,
        slot: &str,
        target: Option<&Value>,
        params: &[(&str, Option<&'static str>)],
        results: &[(String, Option<Value>)],
    ) {
        let is_param = |name: &str| params.iter().any(|(param, _)| *param == name);
        let written = Written::read(&value.value, &is_param);
        self.check_written(value.at, &written, slot, target, params, results);
    }

    /// Checks each part of a written value against the slot it fills (`target`, the slot's
    /// schema, where known).
    fn check_written(
        &mut self,
        at: At,
        written: &Written,
        slot: &str,
        target: Option<&Value>,
        params: &[(&str, Option<&'static str>)],
        results: &[(String, Option<Value>)],
    ) {
        let target = target.map(any_branch);
        match written {
            Written::Template(value) => self.check_template(at, value, slot, target, params),
            Written::Param(name) => {
                let declared = params.iter().find(|(param, _)| param == name);
                let source_types: Vec<&str> = declared
                    .and_then(|(_, declared)| *declared)
                    .into_iter()
                    .collect();
                let written = format!("${name}");
                let Some(target) = target else { return };
                let before = self.out.len();
                self.check_types(at, slot, Some(&written), &source_types, target);
                // A list's items must fit the items the API takes, too.
                if self.out.len() == before
                    && source_types == ["array"]
                    && let Some(items) = target.get("items").map(any_branch)
                    && let Some((_, item_types)) =
                        self.item_types.iter().find(|(param, _)| param == name)
                {
                    let item_types = item_types.clone();
                    let before = self.out.len();
                    self.check_types(
                        at,
                        &format!("{slot}[]"),
                        Some(&format!("{written}[]")),
                        &item_types,
                        items,
                    );
                    if self.out.len() > before
                        && json_types(items) == ["object"]
                        && let Some(d) = self.out.last_mut()
                    {
                        d.help = Some(format!(
                            "make one object per item: `{{ {EACH}: {written}, field: ${ITEM} }}`"
                        ));
                    }
                }
            }
            Written::Answer(reference) => {
                let (text, schema) = self.answer_at(at, reference, params, results);
                let source_types = schema.as_ref().map(json_types).unwrap_or_default();
                if let Some(target) = target {
                    self.check_types(at, slot, Some(&text), &source_types, target);
                }
            }
            Written::When { condition, fields } => {
                if matches!(**condition, Written::Param(_) | Written::Answer(_)) {
                    let slot = format!("{slot}.{IF_PRESENT}");
                    self.check_written(at, condition, &slot, None, params, results);
                } else {
                    self.error(
                        at,
                        format!("`{IF_PRESENT}` in `{slot}` names the value whose presence keeps the object: `{IF_PRESENT}: $param` or `{IF_PRESENT}: $step.field`"),
                    );
                }
                self.check_object(at, fields, slot, target, params, results);
            }
            Written::Each {
                list,
                fields,
                with_if,
            } => {
                if *with_if {
                    self.error(
                        at,
                        format!("`{IF_PRESENT}` cannot stand beside `{EACH}` in `{slot}`: an absent list already leaves the field out"),
                    )
                    .help = Some(format!("to keep a field of each object only when a value is present, write `{IF_PRESENT}` in an object inside"));
                }
                let Some(item) = self.each_list(at, list, slot, params, results) else {
                    return;
                };
                if let Some(target) = target {
                    self.check_types(at, slot, None, &["array"], target);
                }
                let item_target = target.and_then(|t| t.get("items")).map(any_branch);
                let outer = self.each_item.replace(item);
                self.check_object(
                    at,
                    fields,
                    &format!("{slot}[]"),
                    item_target,
                    params,
                    results,
                );
                self.each_item = outer;
            }
            Written::Item(path) => {
                let written = Reference { head: ITEM, path }.to_string();
                let Some((types, schema)) = self.each_item.clone() else {
                    self.error(at, format!("`{written}` is the item of an `{EACH}` object, and there is none around it"));
                    return;
                };
                let source = match (path.is_empty(), schema) {
                    (true, _) => types,
                    (false, Some(schema)) => match schema_at(&schema, path) {
                        Ok(found) => found.map(|found| json_types(&found)).unwrap_or_default(),
                        Err((part, available)) => {
                            let d = Diagnostic::error(
                                at,
                                format!("the items `{EACH}` goes through have no field `{part}`"),
                            )
                            .suggest(&part, available.iter().map(String::as_str));
                            self.out.push(d);
                            return;
                        }
                    },
                    (false, None) if types.iter().all(|t| *t != "object") => {
                        self.error(
                            at,
                            format!("`{written}` reads a field, but the items `{EACH}` goes through are {}", with_article(&types.join(" or "))),
                        );
                        return;
                    }
                    (false, None) => Vec::new(),
                };
                if let Some(target) = target {
                    self.check_types(at, slot, Some(&written), &source, target);
                }
            }
            Written::Object(fields) => self.check_object(at, fields, slot, target, params, results),
            Written::Array(items) => self.check_array(at, items, slot, target, params, results),
            Written::Literal(Value::Object(map)) => {
                let fields: Vec<(&str, Written)> = map
                    .iter()
                    .map(|(name, field)| (name.as_str(), Written::Literal(field)))
                    .collect();
                self.check_object(at, &fields, slot, target, params, results);
            }
            Written::Literal(Value::Array(items)) => {
                let items: Vec<Written> = items.iter().map(Written::Literal).collect();
                self.check_array(at, &items, slot, target, params, results);
            }
            Written::Literal(literal) => {
                if let Value::String(text) = literal {
                    self.check_embedded_references(at, text, params, results);
                }
                if let Some(target) = target {
                    let written = literal.to_string();
                    self.check_types(at, slot, Some(&written), &json_types_of(literal), target);
                    if let Some(allowed) = allowed_values(target)
                        && !allowed.contains(literal)
                    {
                        let shown: Vec<String> = allowed.iter().map(Value::to_string).collect();
                        self.error(
                            at,
                            format!(
                                "`{slot}` takes {}, not {written}",
                                if shown.len() == 1 {
                                    shown[0].clone()
                                } else {
                                    format!("one of {}", shown.join(", "))
                                }
                            ),
                        );
                    }
                }
            }
        }
    }

    /// Refuses text that holds `$name` after its first character, where `name` is a parameter
    /// or an earlier step: only a whole value is replaced, so the API would get the `$name`
    /// itself.
    fn check_embedded_references(
        &mut self,
        at: At,
        text: &str,
        params: &[(&str, Option<&'static str>)],
        results: &[(String, Option<Value>)],
    ) {
        let mut rest = text;
        let mut offset = 0;
        while let Some(found) = rest.find('$') {
            let after = &rest[found + 1..];
            // `$name`, or `${name}` as shells write it.
            let name: String = after
                .strip_prefix('{')
                .unwrap_or(after)
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let inside = offset + found > 0;
            let param = params.iter().any(|(p, _)| *p == name);
            let step = results.iter().any(|(r, _)| *r == name);
            if inside && !name.is_empty() && (param || step) {
                let d = self.error(
                    at,
                    format!(
                        "`${name}` inside the text `{text}` is sent as it is written: only a whole value `${name}` is replaced"
                    ),
                );
                d.help = Some(if param {
                    let braced = format!("${{{name}}}");
                    let written = match text.contains(&braced) {
                        true => braced,
                        false => format!("${name}"),
                    };
                    format!(
                        "build the text with a template: `{{ template: \"{}\", quote: none }}`",
                        text.replacen(&written, &format!("{{{name}}}"), 1)
                    )
                } else {
                    "a template reads only the tool's parameters: give the value a step of its own, or a parameter".to_string()
                });
                return;
            }
            offset += found + 1;
            rest = after;
        }
    }

    /// The list an `$each` goes through (a list parameter, or a list in an earlier answer):
    /// the JSON types of its items and their schema where known; `None` after reporting what is
    /// not a list.
    fn each_list(
        &mut self,
        at: At,
        list: &Written,
        slot: &str,
        params: &[(&str, Option<&'static str>)],
        results: &[(String, Option<Value>)],
    ) -> Option<(Vec<&'static str>, Option<Value>)> {
        match list {
            Written::Param(name) => {
                let declared = params
                    .iter()
                    .find(|(param, _)| param == name)
                    .and_then(|(_, ty)| *ty);
                match self.item_types.iter().find(|(param, _)| param == name) {
                    Some((_, types)) => Some((types.clone(), None)),
                    None => {
                        self.error(
                            at,
                            format!(
                                "`{EACH}` in `{slot}` goes through a list, but `${name}` is {}",
                                declared.map_or("not one".to_string(), with_article)
                            ),
                        )
                        .help = Some(format!("declare `{name}` with `type: array`"));
                        None
                    }
                }
            }
            Written::Answer(reference) => {
                let (text, schema) = self.answer_at(at, reference, params, results);
                match schema {
                    Some(schema) if is_array(&schema) => {
                        let items = schema.get("items").map(any_branch).cloned();
                        let types = items.as_ref().map(json_types).unwrap_or_default();
                        Some((types, items))
                    }
                    Some(schema) => {
                        self.error(
                            at,
                            format!(
                                "`{EACH}` in `{slot}` goes through a list, but `{text}` is {}",
                                with_article(&json_types(&schema).join(" or "))
                            ),
                        );
                        None
                    }
                    None => Some((Vec::new(), None)),
                }
            }
            _ => {
                self.error(
                    at,
                    format!("`{EACH}` in `{slot}` takes the list to go through: `$param` or `$step.field`"),
                );
                None
            }
        }
    }

    /// Checks an object's fields against the object schema `target`: each is a field of it, of
    /// its type.
    /// Refuses `written` (a step's argument for the required input `input` of `operation`)
    /// when it is a parameter the model may leave out.
    fn check_required_given(&mut self, at: At, input: &str, written: &Value, operation: &str) {
        let names = self.param_names.clone();
        let is_param = |name: &str| names.iter().any(|p| p == name);
        if let Some(param) = self.may_be_absent(&Written::read(written, &is_param)) {
            self.optional_for_required(at, input, &param, &format!("`{operation}`"));
        }
    }

    /// The parameter the model may leave out that `written` then lacks: the parameter itself,
    /// the id a `resolve` step gives for it, or the list an `$each` makes one object per item
    /// of (no list, no objects).
    fn may_be_absent(&self, written: &Written) -> Option<String> {
        let optional = |name: &str| self.optional.iter().any(|p| p == name);
        match written {
            Written::Param(param) if optional(param) => Some(param.to_string()),
            Written::Answer(reference) if reference.path.is_empty() => self
                .optional_steps
                .iter()
                .find(|(step, _)| step == reference.head)
                .map(|(_, param)| param.clone()),
            Written::Each { list, .. } => self.may_be_absent(list),
            _ => None,
        }
    }

    /// The error for the optional parameter `param` filling `slot`, which `by` requires.
    fn optional_for_required(&mut self, at: At, slot: &str, param: &str, by: &str) {
        self.error(
            at,
            format!(
                "`{slot}` is required by {by}, but parameter `{param}` may be left out, and the request would then go without it"
            ),
        )
        .help = Some(format!(
            "give `{param}` a `default` the API takes, or leave out its `required: false`"
        ));
    }

    fn check_object(
        &mut self,
        at: At,
        fields: &[(&str, Written)],
        slot: &str,
        target: Option<&Value>,
        params: &[(&str, Option<&'static str>)],
        results: &[(String, Option<Value>)],
    ) {
        // A choice of object shapes (`oneOf` of objects): the value must fit one, and is checked
        // against the first it fits.
        let branches: Vec<&Value> = target
            .and_then(|t| t.get("oneOf").or_else(|| t.get("anyOf")))
            .and_then(Value::as_array)
            .map(|b| b.iter().collect())
            .unwrap_or_default();
        if branches.len() > 1 && branches.iter().all(|b| b.get("properties").is_some()) {
            match branches.iter().find(|branch| fits_shape(fields, branch)) {
                Some(branch) => self.check_object(at, fields, slot, Some(branch), params, results),
                None => {
                    let shapes: Vec<String> = branches.iter().map(|b| shape_summary(b)).collect();
                    self.error(
                        at,
                        format!(
                            "`{slot}` fits none of the {} shapes the API takes: {}",
                            branches.len(),
                            shapes.join("; ")
                        ),
                    );
                }
            }
            return;
        }
        if let Some(target) = target {
            self.check_types(at, slot, None, &["object"], target);
        }
        // The object's properties, its parts' (`allOf`) together.
        let properties = target.and_then(|t| object_properties(t, t));
        // An object that says it takes more, or one of whose parts does, is open.
        let open = target.is_some_and(|t| {
            std::iter::once(t)
                .chain(
                    t.get("allOf")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten(),
                )
                .any(|part| {
                    part.get("additionalProperties")
                        .is_some_and(|extra| extra != false)
                })
        });
        let required = target.map(required_properties).unwrap_or_default();
        for (name, field) in fields {
            if required.contains(name)
                && let Some(param) = self.may_be_absent(field)
            {
                self.optional_for_required(at, &format!("{slot}.{name}"), &param, "the API");
            }
            let slot_schema = properties.as_ref().and_then(|p| {
                p.iter()
                    .find(|(property, _)| property.as_str() == *name)
                    .map(|(_, schema)| *schema)
            });
            if let (Some(properties), None) = (&properties, slot_schema)
                && !open
            {
                let d = Diagnostic::error(
                    at,
                    format!("`{slot}` has no field `{name}` in the API's schema"),
                )
                .suggest(name, properties.iter().map(|(name, _)| name.as_str()));
                self.out.push(d);
            }
            let slot = format!("{slot}.{name}");
            self.check_written(at, field, &slot, slot_schema, params, results);
        }
    }

    /// Checks a list's items against the list schema `target`'s `items`.
    fn check_array(
        &mut self,
        at: At,
        items: &[Written],
        slot: &str,
        target: Option<&Value>,
        params: &[(&str, Option<&'static str>)],
        results: &[(String, Option<Value>)],
    ) {
        if let Some(target) = target {
            self.check_types(at, slot, None, &["array"], target);
        }
        let item_schema = target.and_then(|t| t.get("items"));
        let slot = format!("{slot}[]");
        for item in items {
            self.check_written(at, item, &slot, item_schema, params, results);
        }
    }

    /// Checks a template: how it is written, that each `{name}` is a parameter of the tool, that a
    /// clause repeats for one list at most, and that the slot it fills takes text.
    fn check_template(
        &mut self,
        at: At,
        value: &Value,
        slot: &str,
        target: Option<&Value>,
        params: &[(&str, Option<&'static str>)],
    ) {
        let places = self
            .curation
            .template_places
            .get(&(at.offset, slot.to_string()));
        let place = |fault: TemplateFault| places.and_then(|p| p.of(&fault)).unwrap_or(at);
        let template = match Template::parse(value) {
            Ok(template) => template,
            Err(error) => {
                self.error(place(error.fault), error.message).help = error.help;
                return;
            }
        };
        // A template that writes no parameter is text: most likely `$name` written where
        // `{name}` was meant.
        if template.params().is_empty() {
            let written: Vec<&str> = template
                .clauses
                .iter()
                .map(|c| c.written.as_str())
                .collect();
            let text = written.join(&template.join);
            let d = self.error(
                at,
                format!("the template of `{slot}` writes no parameter: `{text}` is sent as it is"),
            );
            d.help = Some(
                match params
                    .iter()
                    .find(|(param, _)| text.contains(&format!("${param}")))
                {
                    Some((param, _)) => {
                        format!("a template writes a parameter as `{{{param}}}`, not `${param}`")
                    }
                    None => "write the text itself, without `template:`".to_string(),
                },
            );
            return;
        }
        for (index, clause) in template.clauses.iter().enumerate() {
            let clause_at = place(TemplateFault::Clause(index));
            let mut lists = Vec::new();
            for part in &clause.parts {
                if let ClausePart::Switch { name } = part
                    && let Some((_, ty)) = params.iter().find(|(param, _)| *param == name)
                    && *ty != Some("boolean")
                {
                    self.error(
                        clause_at,
                        format!(
                            "`{{{name}:if}}` keeps the clause \"{}\" when `{name}` is true, but `{name}` is no `type: boolean` parameter",
                            clause.written
                        ),
                    )
                    .help = Some(format!("declare it `{name}: {{ type: boolean }}`, or write `{{{name}}}` to write its value"));
                }
            }
            for name in clause.params() {
                match params.iter().find(|(param, _)| *param == name) {
                    Some((_, Some("array"))) => lists.push(name),
                    Some(_) => {}
                    None => {
                        let d = Diagnostic::error(
                            clause_at,
                            format!(
                                "`{{{name}}}` in the template of `{slot}` is not a parameter of this tool"
                            ),
                        )
                        .suggest(name, params.iter().map(|(param, _)| *param));
                        self.out.push(d);
                    }
                }
            }
            if lists.len() > 1 {
                self.error(
                    clause_at,
                    format!(
                        "the clause \"{}\" repeats for two lists ({}); a clause repeats for one list at most",
                        clause.written,
                        lists.join(" and ")
                    ),
                )
                .help = Some("give each list its own clause".into());
            }
        }
        if let Some(target) = target {
            let wanted = json_types(target);
            if !wanted.is_empty() && !wanted.contains(&"string") {
                self.error(
                    place(TemplateFault::Whole),
                    format!(
                        "`{slot}` takes {}, but a template builds text",
                        with_article(&wanted.join(" or "))
                    ),
                )
                .help = Some("use a template only where the API takes a string".into());
            }
        }
    }

    /// Refuses a value whose JSON types cannot fill `target` (unknown types on either side pass).
    fn check_types(
        &mut self,
        at: At,
        slot: &str,
        written: Option<&str>,
        source: &[&str],
        target: &Value,
    ) {
        let wanted = json_types(target);
        if source.is_empty() || types_fit(source, &wanted) {
            return;
        }
        let wanted = with_article(&wanted.join(" or "));
        // A scalar or reference is named as written; an object or list written out, by its kind.
        let message = match written {
            Some(text) => format!(
                "`{slot}` takes {wanted}, but `{text}` is {}",
                with_article(&source.join(" or "))
            ),
            None if source == ["array"] => format!("`{slot}` takes {wanted}, but a list is given"),
            None => format!("`{slot}` takes {wanted}, but an object is given"),
        };
        // A number or flag where the API takes text: a parameter converts through a template.
        let as_text = written
            .and_then(Reference::read)
            .and_then(|reference| reference.whole())
            // A list's items (`$nums[]`) are not one value a template could write, nor is an
            // earlier step's answer (a template writes parameters).
            .filter(|name| !name.ends_with("[]"))
            .filter(|name| self.param_names.iter().any(|p| p == name))
            .filter(|_| wanted == "a string")
            .filter(|_| {
                source
                    .iter()
                    .all(|s| matches!(*s, "integer" | "number" | "boolean"))
            });
        self.error(at, message).help = Some(if let Some(name) = as_text {
            format!(
                "send it as text with `{{ template: \"{{{name}}}\", quote: none }}`, or declare the parameter `type: string`"
            )
        } else if wanted == "an object" {
            "write the object's fields here, each with its own value".into()
        } else {
            "give a value of the type the API takes".into()
        });
    }

    /// Checks an earlier answer's `reference` written at `at`: the reference as written, and the
    /// schema it points to when known.
    fn answer_at(
        &mut self,
        at: At,
        reference: &Reference,
        params: &[(&str, Option<&'static str>)],
        results: &[(String, Option<Value>)],
    ) -> (String, Option<Value>) {
        let names: Vec<&str> = params.iter().map(|(name, _)| *name).collect();
        let spanned = Spanned {
            value: reference.to_string(),
            at,
        };
        let schema = self.check_reference(&spanned, &names, results);
        (spanned.value, schema)
    }

    /// Checks `$name` or `$step.path`; returns the schema it points to, when known.
    fn check_reference(
        &mut self,
        reference: &Spanned<String>,
        params: &[&str],
        results: &[(String, Option<Value>)],
    ) -> Option<Value> {
        let Some(Reference { head, path }) = Reference::read(&reference.value) else {
            self.error(
                reference.at,
                format!(
                    "`{}` is not a reference; write `$param` or `$step.field`",
                    reference.value
                ),
            );
            return None;
        };
        if params.contains(&head) && path.is_empty() {
            return None;
        }
        match results.iter().rev().find(|(name, _)| name == head) {
            Some((_, Some(schema))) => match schema_at(schema, path) {
                Ok(found) => found.map(Cow::into_owned),
                Err((part, available)) => {
                    let d = Diagnostic::error(
                        reference.at,
                        format!("the result of `{head}` has no field `{part}`"),
                    )
                    .suggest(&part, available.iter().map(String::as_str));
                    self.out.push(d);
                    None
                }
            },
            Some((_, None)) if !path.is_empty() => {
                self.out.push(Diagnostic {
                    severity: Severity::Warning,
                    message: format!(
                        "`{}` cannot be checked: the API description documents no schema for the answer of `{head}`, so a wrong field would only show when the tool runs",
                        reference.value
                    ),
                    at: Some(reference.at),
                    help: Some(
                        "declare the answer's fields under `responses:` (by operationId, as JSON Schema), so that they are checked"
                            .into(),
                    ),
                    tools: Vec::new(),
                });
                None
            }
            Some((_, None)) => None,
            None => {
                let names: Vec<&str> = params
                    .iter()
                    .copied()
                    .chain(results.iter().map(|(n, _)| n.as_str()))
                    .collect();
                let d = Diagnostic::error(reference.at, format!("`${head}` is neither a parameter of this tool nor the result of an earlier step"))
                    .suggest(head, names);
                self.out.push(d);
                None
            }
        }
    }

    fn check_results(&mut self, results: &Results, response: Option<&Value>) {
        let item = match (&results.items, response) {
            (Some(items), Some(schema)) => match schema_at(schema, &items.value) {
                Ok(Some(list)) if is_array(&list) => items_of(&list),
                Ok(Some(_)) => {
                    self.error(
                        items.at,
                        format!("`{}` in the response is not a list", items.value),
                    );
                    None
                }
                Ok(None) => None,
                Err((part, available)) => {
                    let d =
                        Diagnostic::error(items.at, format!("the response has no field `{part}`"))
                            .suggest(&part, available.iter().map(String::as_str));
                    self.out.push(d);
                    None
                }
            },
            (None, Some(schema)) => Some(schema.clone()),
            _ => None,
        };
        for (_, field) in results.fields.iter().chain(&results.detailed_fields) {
            let (from, enum_name, resolve) = match field {
                FieldSpec::Path(path) => (path, None, None),
                FieldSpec::Mapped(mapped) => (
                    &mapped.from,
                    mapped.enum_name.as_ref(),
                    mapped.resolve.as_ref(),
                ),
            };
            let verified = match &item {
                Some(item) => match schema_at(item, &from.value) {
                    Ok(found) => found.is_some(),
                    Err((part, available)) => {
                        let d =
                            Diagnostic::error(from.at, format!("the result has no field `{part}`"))
                                .suggest(&part, available.iter().map(String::as_str));
                        self.out.push(d);
                        true
                    }
                },
                // No schema at all, or an `items` path already reported.
                None => results.items.is_some() && response.is_some(),
            };
            if !verified {
                self.out.push(Diagnostic {
                    severity: Severity::Warning,
                    message: format!(
                        "result field `{}` cannot be checked: the API description does not say what the answer holds there",
                        from.value
                    ),
                    at: Some(from.at),
                    help: Some(
                        "declare the answer's fields under `responses:` (by operationId, as JSON Schema), so that they are checked"
                            .into(),
                    ),
                    tools: Vec::new(),
                });
            }
            if let Some(enum_name) = enum_name
                && !self
                    .curation
                    .enums
                    .keys()
                    .any(|k| k.value == enum_name.value)
            {
                let names: Vec<&str> = self
                    .curation
                    .enums
                    .keys()
                    .map(|k| k.value.as_str())
                    .collect();
                let d =
                    Diagnostic::error(enum_name.at, format!("unknown enum `{}`", enum_name.value))
                        .suggest(&enum_name.value, names);
                self.out.push(d);
            }
            if let Some(resolver) = resolve {
                match self
                    .curation
                    .resolvers
                    .iter()
                    .find(|(k, _)| k.value == resolver.value)
                {
                    Some((_, spec)) if spec.list.is_none() => {
                        self.error(
                            resolver.at,
                            format!(
                                "resolver `{}` has no `list`, so ids cannot be shown as names",
                                resolver.value
                            ),
                        );
                    }
                    Some((_, spec)) if !spec.args.is_empty() => {
                        self.error(
                            resolver.at,
                            format!(
                                "resolver `{}` lists per scope (`args`), so a result field cannot show its ids as names yet",
                                resolver.value
                            ),
                        )
                        .help = Some("show the id, or a name field of the API's own".into());
                    }
                    Some(_) => {}
                    None => {
                        let names: Vec<&str> = self
                            .curation
                            .resolvers
                            .keys()
                            .map(|k| k.value.as_str())
                            .collect();
                        let d = Diagnostic::error(
                            resolver.at,
                            format!("unknown resolver `{}`", resolver.value),
                        )
                        .suggest(&resolver.value, names);
                        self.out.push(d);
                    }
                }
            }
        }
        if let Some(limit) = &results.limit {
            let (default, max) = (&limit.value.default, &limit.value.max);
            if max.value < 1 || default.value < 1 || default.value > max.value {
                self.error(
                    default.at,
                    format!(
                        "`limit` needs 1 <= default <= max (got default {}, max {})",
                        default.value, max.value
                    ),
                );
            }
            if results.items.is_none() {
                self.error(
                    limit.at,
                    "`limit` needs `items`: where the list is in the response",
                )
                .help = Some(
                    "give its path (`items: data.items`), or `items: \"\"` when the answer itself is the list".into(),
                );
            }
        }
        if !results.detailed_fields.is_empty() && results.fields.is_empty() {
            let at = results
                .detailed_fields
                .keys()
                .next()
                .map(|k| k.at)
                .unwrap_or_default();
            self.error(
                at,
                "`detailed_fields` add to `fields`; list the concise fields first",
            );
        }
    }
}

/// The tool's parameters with the JSON type each reaches the API with, where the file says it
/// plainly (`type:` without an enum or resolver).
/// The tool's parameters with their JSON types where known: the file's, then the ones its
/// `results` add (`limit`, `response_format`), which steps may read too.
fn typed_params(tool: &ToolSpec) -> Vec<(&str, Option<&'static str>)> {
    let results = tool.results.as_ref();
    let added = [
        (
            "limit",
            "integer",
            results.is_some_and(|r| r.limit.is_some()),
        ),
        (
            "response_format",
            "string",
            results.is_some_and(|r| !r.detailed_fields.is_empty()),
        ),
    ];
    tool.params
        .iter()
        .map(|(name, param)| {
            // A list is a list whatever its items become; a resolved or enum value has the
            // type of the API's ids or codes.
            let plain = param.enum_name.is_none() && param.resolve.is_none();
            (
                name.value.as_str(),
                param
                    .ty
                    .as_ref()
                    .filter(|t| plain || t.value == ParamType::Array)
                    .map(|t| t.value.as_str()),
            )
        })
        .chain(
            added
                .into_iter()
                .filter(|(_, _, present)| *present)
                .map(|(name, ty, _)| (name, Some(ty))),
        )
        .collect()
}

/// Do the templates under a tool's `fixed` read, each `{name}` naming a parameter of the tool?
fn templates_readable(tool: &ToolSpec) -> bool {
    tool.fixed
        .values()
        .filter(|value| Template::is_template(&value.value))
        .all(|value| {
            Template::parse(&value.value).is_ok_and(|template| {
                template
                    .params()
                    .iter()
                    .all(|name| tool.params.keys().any(|k| k.value == *name))
            })
        })
}

/// The only values a schema allows (`const`, or `enum`), when it says.
fn allowed_values(schema: &Value) -> Option<Vec<Value>> {
    match (schema.get("const"), schema.get("enum")) {
        (Some(only), _) => Some(vec![only.clone()]),
        (None, Some(Value::Array(values))) => Some(values.clone()),
        _ => None,
    }
}

/// The earlier answers a step reads (`$step`, `$step.field`), each with where it is written.
fn answer_reads<'s>(step: &'s Step, params: &[&str]) -> Vec<(&'s str, At)> {
    let is_param = |name: &str| params.contains(&name);
    let mut reads = Vec::new();
    for value in step_values(step) {
        let written = Written::read(&value.value, &is_param);
        reads.extend(written.answers().into_iter().map(|head| (head, value.at)));
    }
    for text in step_references(step) {
        if let Some(reference) = Reference::read(&text.value)
            && !reference.whole().is_some_and(is_param)
        {
            reads.push((reference.head, text.at));
        }
    }
    reads
}

/// Could an object with `fields` be an instance of the object schema `branch`? Its required
/// fields are there, no field is unknown to a closed branch, and literal fields keep to a
/// `const` or `enum` the branch gives them (`$name` values are not known yet, so they fit).
fn fits_shape(fields: &[(&str, Written)], branch: &Value) -> bool {
    let properties = branch.get("properties").and_then(Value::as_object);
    let required = branch
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    let open = branch
        .get("additionalProperties")
        .is_none_or(|extra| extra != false);
    required
        .into_iter()
        .all(|name| fields.iter().any(|(field, _)| *field == name))
        && fields.iter().all(
            |(name, value)| match properties.and_then(|p| p.get(*name)) {
                Some(schema) => match (value, allowed_values(schema)) {
                    (Written::Literal(value), Some(allowed)) => allowed.contains(value),
                    _ => true,
                },
                None => open && properties.is_none_or(|p| p.is_empty()),
            },
        )
}

/// One object shape, for messages: its fields, required ones first, with the one value a field
/// must have (a `const`, or an `enum` of one, as OpenAPI 3.0 writes a constant):
/// `{ type: "database_id", database_id }`.
fn shape_summary(branch: &Value) -> String {
    let properties = branch.get("properties").and_then(Value::as_object);
    let fields: Vec<String> = properties
        .into_iter()
        .flatten()
        .map(|(name, schema)| match allowed_values(schema).as_deref() {
            Some([only]) => format!("{name}: {only}"),
            _ => name.clone(),
        })
        .collect();
    format!("{{ {} }}", fields.join(", "))
}

/// The JSON type of a literal.
fn json_types_of(value: &Value) -> Vec<&'static str> {
    vec![match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }]
}

/// Does the tool's parameter `name` scope the resolver of another of its parameters
/// (`args: { board: $board }` of the resolver a `list` parameter resolves with)?
fn scopes_a_resolver(curation: &Curation, tool: &ToolSpec, name: &str) -> bool {
    tool.params.iter().any(|(other, param)| {
        other.value != name
            && param
                .resolve
                .as_ref()
                .and_then(|r| curation.resolvers.iter().find(|(k, _)| k.value == r.value))
                .is_some_and(|(_, resolver)| {
                    resolver.args.values().any(|value| {
                        Reference::of(&value.value).and_then(|r| r.whole()) == Some(name)
                    })
                })
    })
}

/// Can a value of one of the JSON types `source` fill a slot of one of `wanted`? Unknown types
/// on either side pass; an integer is a number; null fills any slot (an absent value is left
/// out).
/// Where `path` (in the answer `schema`) names a page's own address (`href`, `self`, `url` …)
/// and the same object has a text field named for the next page (`next`, `next_url` …): that
/// field's path.
fn own_address_beside_next(schema: &Value, path: &str) -> Option<String> {
    let (parent, last) = match path.rsplit_once('.') {
        Some((parent, last)) => (Some(parent), last),
        None => (None, path),
    };
    if !matches!(
        last.to_ascii_lowercase().as_str(),
        "href" | "self" | "url" | "uri" | "link" | "current" | "self_link" | "selflink"
    ) {
        return None;
    }
    next_page_field(schema, parent)
}

/// The names an answer gives the next page's URL by.
const NEXT_PAGE_FIELDS: [&str; 7] = [
    "next",
    "next_page",
    "nextPage",
    "next_url",
    "nextUrl",
    "nextLink",
    "next_link",
];

/// The path of a text field named for the next page's URL in the answer `schema`, beside the
/// field `parent` (at the top without one).
fn next_page_field(schema: &Value, parent: Option<&str>) -> Option<String> {
    NEXT_PAGE_FIELDS
        .into_iter()
        .map(|name| match parent {
            Some(parent) => format!("{parent}.{name}"),
            None => name.to_string(),
        })
        .find(|next| {
            schema_at(schema, next)
                .ok()
                .flatten()
                .is_some_and(|slot| json_types(any_branch(&slot)).contains(&"string"))
        })
}

fn types_fit(source: &[&str], wanted: &[&str]) -> bool {
    wanted.is_empty()
        || source.iter().any(|s| {
            wanted.contains(s) || (*s == "integer" && wanted.contains(&"number")) || *s == "null"
        })
}

/// A schema's one branch when it is `anyOf`/`oneOf` of a type and null (3.0's nullable, once
/// converted), so the branch's type and properties can be checked; otherwise the schema itself.
fn any_branch(schema: &Value) -> &Value {
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let real: Vec<&Value> = branches
                .iter()
                .filter(|b| b.get("type") != Some(&Value::from("null")))
                .collect();
            if let [only] = real.as_slice() {
                return only;
            }
        }
    }
    schema
}

/// Is `name` a page size by its name (`limit`, `per_page`, `pageSize`, `maxResults`, `cards_limit`,
/// `count`, `top`)?
fn names_a_page_size(name: &str) -> bool {
    let plain: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    ["limit", "perpage", "pagesize", "maxresults", "maxitems"]
        .iter()
        .any(|end| plain.ends_with(end))
        || matches!(plain.as_str(), "count" | "size" | "top" | "first" | "max")
}
