//! The Rust of curated tools: their input types, the enums that map readable names to codes,
//! the resolvers on the client, and each tool's straight-line handler built from the small
//! helpers in `curated.rs`.

use std::collections::BTreeSet;

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use serde_json::Value;

use super::syntax::{collect_enums, docs, enum_type, ident, raw_string, rust_type};
use crate::curate::model::PagingStyle;
use crate::curate::model::QuoteRule;
use crate::plan::curated::{
    AliasPlan, CuratedBody, CuratedTool, EnumPlan, PagingPlan, ParamKind, ResolverPlan,
    ResolverSource, ResultsPlan, ScopeValue, ShapeConvert, StepPlan, TemplatePart, TemplatePlan,
    ToolParam, ValueRef,
};
use crate::plan::{FieldType, OperationPlan, Plan};

/// A JSON value as a Rust expression of type `serde_json::Value`.
fn json_value(value: &Value) -> TokenStream {
    match value {
        Value::Null => quote! { serde_json::Value::Null },
        Value::Bool(b) => quote! { serde_json::Value::Bool(#b) },
        Value::Number(_) => {
            let number = json_tokens(value);
            quote! { serde_json::Value::from(#number) }
        }
        Value::String(s) => quote! { serde_json::Value::from(#s) },
        Value::Array(_) | Value::Object(_) => {
            let tokens = json_tokens(value);
            quote! { serde_json::json!(#tokens) }
        }
    }
}

/// A JSON value as the tokens `serde_json::json!` reads: a literal list or object reads in the
/// generated code as it is written in the curation file.
fn json_tokens(value: &Value) -> TokenStream {
    match value {
        Value::Null => quote! { null },
        Value::Bool(b) => quote! { #b },
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => {
                let lit = Literal::i64_unsuffixed(i);
                quote! { #lit }
            }
            (None, Some(u), _) => {
                let lit = Literal::u64_unsuffixed(u);
                quote! { #lit }
            }
            (None, None, Some(f)) => {
                let lit = Literal::f64_unsuffixed(f);
                quote! { #lit }
            }
            _ => quote! { null },
        },
        Value::String(s) => quote! { #s },
        Value::Array(items) => {
            let items = items.iter().map(json_tokens);
            quote! { [ #( #items ),* ] }
        }
        Value::Object(fields) => {
            let names = fields.keys();
            let values = fields.values().map(json_tokens);
            quote! { { #( #names: #values ),* } }
        }
    }
}

/// The `curated::Code` for an enum code.
fn code(value: &Value) -> TokenStream {
    match value {
        Value::Number(n) if n.is_i64() => {
            let lit = Literal::i64_unsuffixed(n.as_i64().unwrap_or_default());
            quote! { curated::Code::Int(#lit) }
        }
        Value::String(s) => quote! { curated::Code::Str(#s) },
        other => {
            let text = other.to_string();
            quote! { curated::Code::Str(#text) }
        }
    }
}

/// The enum types of `tools.rs`: readable names the model passes, codes the API takes.
pub fn enums(plan: &Plan) -> TokenStream {
    let items = plan.enums.iter().map(|e| {
        let name = ident(&e.type_name);
        let doc = format!(" `{}`: readable names for the API's codes.", e.name);
        let variants = e.variants.iter().map(|v| {
            let variant = ident(&v.ident);
            let readable = &v.name;
            quote! {
                #[serde(rename = #readable)]
                #variant,
            }
        });
        let code_arms = e.variants.iter().map(|v| {
            let variant = ident(&v.ident);
            let value = json_value(&v.code);
            quote! { #name::#variant => #value, }
        });
        let name_arms = e.variants.iter().map(|v| {
            let variant = ident(&v.ident);
            let readable = &v.name;
            quote! { #name::#variant => #readable, }
        });
        let codes = e.variants.iter().map(|v| {
            let code = code(&v.code);
            let readable = &v.name;
            quote! { (#code, #readable) }
        });
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
            pub enum #name {
                #( #variants )*
            }

            impl #name {
                /// Every code with its readable name, for mapping results back.
                pub const CODES: &'static [(curated::Code, &'static str)] = &[#( #codes ),*];

                /// The code the API takes.
                pub fn code(self) -> serde_json::Value {
                    match self {
                        #( #code_arms )*
                    }
                }

                /// The readable name.
                pub fn as_str(self) -> &'static str {
                    match self {
                        #( #name_arms )*
                    }
                }
            }

            impl std::fmt::Display for #name {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str(self.as_str())
                }
            }
        }
    });
    quote! { #( #items )* }
}

/// The statements that set a page's position and size on `params` (a mutable copy of the
/// walk's parameters, inside the page's `async` block).
fn paging_sets(operation: &OperationPlan, paging: &PagingPlan) -> TokenStream {
    let position = match (&paging.style, &paging.position_param) {
        (PagingStyle::Page, Some(name)) => Some((name, PageValue::Number)),
        (PagingStyle::Offset, Some(name)) => Some((name, PageValue::Offset)),
        (PagingStyle::Cursor, Some(name)) => Some((name, PageValue::Cursor)),
        _ => None,
    };
    let sets = position
        .into_iter()
        .chain(
            paging
                .size_param
                .as_ref()
                .map(|name| (name, PageValue::Size)),
        )
        .filter_map(|(name, value)| {
            let field = operation.fields.iter().find(|f| f.property == *name)?;
            let field_ident = ident(&field.ident);
            let value = value.typed(field).unwrap_or_else(|| {
                let json = value.json();
                conversion(operation, name, quote! { &#json }, &Origin::Checked)
            });
            Some(quote! { params.#field_ident = #value; })
        });
    quote! { #( #sets )* }
}

/// `let mut params = params.clone();`: a page's own copy of the walk's parameters, for `sets`
/// to set its position and size on.
fn page_params(sets: &TokenStream) -> TokenStream {
    if sets.is_empty() {
        quote! { let params = params.clone(); }
    } else {
        quote! { let mut params = params.clone(); }
    }
}

/// One of the values a page walk sets.
#[derive(Clone, Copy)]
enum PageValue {
    Number,
    Offset,
    Cursor,
    Size,
}

impl PageValue {
    /// The value as a field of `field`'s type, when the types agree (integers, a text cursor).
    fn typed(self, field: &crate::plan::Field) -> Option<TokenStream> {
        let value = match (self, &field.ty) {
            (PageValue::Number, FieldType::Integer { .. }) => quote! { page.number },
            (PageValue::Offset, FieldType::Integer { .. }) => quote! { page.offset },
            (PageValue::Size, FieldType::Integer { .. }) => quote! { page.size },
            (PageValue::Cursor, FieldType::String) if !field.required => {
                return Some(quote! { page.cursor.clone() });
            }
            _ => return None,
        };
        Some(if field.required {
            value
        } else {
            quote! { Some(#value) }
        })
    }

    /// The value as JSON.
    fn json(self) -> TokenStream {
        match self {
            PageValue::Number => quote! { serde_json::Value::from(page.number) },
            PageValue::Offset => quote! { serde_json::Value::from(page.offset) },
            PageValue::Size => quote! { serde_json::Value::from(page.size) },
            PageValue::Cursor => quote! { serde_json::Value::from(page.cursor.clone()) },
        }
    }
}

/// Where a value passed to an operation comes from, which says whose mistake it is when it does
/// not fit (see `curated::checked` in the runtime).
#[derive(Debug, Clone, PartialEq)]
enum Origin {
    /// The model's argument as given: `curated::from_argument`.
    Argument,
    /// What `check` proved fits: `curated::checked`.
    Checked,
    /// An earlier step's answer (its number): `curated::from_answer`.
    Answer(usize),
}

/// A value given to one parameter of an operation, by the parameter's property name.
struct Given {
    name: String,
    value: GivenValue,
}

enum GivenValue {
    /// A `serde_json::Value` expression (borrowed as `&` where it is converted).
    Json(TokenStream, Origin),
    /// An expression already of the field's Rust type (`Option` included): the compiler, not a
    /// conversion at run time, proves it fits.
    Typed(TokenStream),
    /// A template's text, and the names of the parameters it is built from (none when a clause
    /// is always there): an optional parameter is left out when every clause dropped out, a
    /// required one refused.
    Template(TokenStream, Vec<String>),
    /// A literal of the curation file, written as a Rust literal where the type allows.
    Literal(Value),
}

impl Given {
    fn json(name: &str, value: TokenStream, origin: Origin) -> Given {
        Given {
            name: name.to_string(),
            value: GivenValue::Json(value, origin),
        }
    }
}

/// `value` (an expression of type `&serde_json::Value`) as the type of the parameter `name` of
/// `operation`, through the runtime's conversion for where it comes from.
fn conversion(
    operation: &OperationPlan,
    name: &str,
    value: TokenStream,
    origin: &Origin,
) -> TokenStream {
    let api_id = &operation.api_id;
    match origin {
        Origin::Argument => quote! { curated::from_argument(#api_id, #name, #value)? },
        Origin::Checked => quote! { curated::checked(#api_id, #name, #value)? },
        Origin::Answer(step) => {
            let step = Literal::usize_unsuffixed(*step);
            quote! { curated::from_answer(#step, #api_id, #name, #value)? }
        }
    }
}

/// A literal of the curation file as a Rust literal of the field's type, where it is a scalar
/// of that type (other values go through `curated::checked`, from their JSON).
fn typed_literal(field: &crate::plan::Field, value: &Value) -> Option<TokenStream> {
    let literal = match (&field.ty, value) {
        (FieldType::String, Value::String(text)) => quote! { #text.to_string() },
        (FieldType::Integer { .. }, Value::Number(n)) => {
            let lit = Literal::i64_unsuffixed(n.as_i64()?);
            quote! { #lit }
        }
        (FieldType::Number, Value::Number(n)) => {
            let number = n.as_f64().filter(|f| f.is_finite())?;
            let lit = Literal::f64_suffixed(number);
            quote! { #lit }
        }
        (FieldType::Boolean, Value::Bool(b)) => quote! { #b },
        (FieldType::Json, value) => json_value(value),
        _ => return None,
    };
    Some(if field.required {
        literal
    } else {
        quote! { Some(#literal) }
    })
}

/// The parameter struct of `operation` as a Rust literal (`client::ListIssuesParams { .. }`):
/// every field, from the value given for it or `None`. A later value for the same parameter
/// overrides an earlier one. The planner only gives values to parameters the operation has.
fn params_literal(operation: &OperationPlan, module: &TokenStream, given: &[Given]) -> TokenStream {
    let params_type = ident(&operation.params_type);
    let fields = operation.fields.iter().map(|field| {
        let field_ident = ident(&field.ident);
        let name = &field.property;
        let value = match given.iter().rev().find(|g| g.name == *name) {
            None if field.required => conversion(
                operation,
                name,
                quote! { &serde_json::Value::Null },
                &Origin::Checked,
            ),
            None => quote! { None },
            Some(Given {
                value: GivenValue::Literal(value),
                ..
            }) => typed_literal(field, value).unwrap_or_else(|| {
                let json = json_value(value);
                conversion(operation, name, quote! { &#json }, &Origin::Checked)
            }),
            Some(Given {
                value: GivenValue::Json(value, origin),
                ..
            }) => conversion(operation, name, quote! { &#value }, origin),
            Some(Given {
                value: GivenValue::Typed(value),
                ..
            }) => value.clone(),
            // A template's text, as text where the field is; an optional parameter is left out
            // when every clause dropped out.
            Some(Given {
                value: GivenValue::Template(text, names),
                ..
            }) => match (&field.ty, field.required) {
                // Sent empty, the API would refuse the call or widen it to everything.
                (FieldType::String, true) if names.is_empty() => text.clone(),
                (FieldType::String, true) => {
                    let names = names.join(", ");
                    quote! { curated::required_text(#name, #names, #text)? }
                }
                (FieldType::String, false) => quote! { curated::unless_blank(#text) },
                (_, required) => {
                    let json = if required {
                        quote! { serde_json::Value::String(#text) }
                    } else {
                        quote! { curated::json(&curated::unless_blank(#text)) }
                    };
                    conversion(operation, name, quote! { &#json }, &Origin::Checked)
                }
            },
        };
        quote! { #field_ident: #value }
    });
    quote! { #module #params_type { #( #fields ),* } }
}

/// `let params = ...;` for a call of `operation` with the values `given` (nothing for an
/// operation without parameters).
fn params_decl(operation: &OperationPlan, module: &TokenStream, given: &[Given]) -> TokenStream {
    if operation.fields.is_empty() {
        return quote! {};
    }
    let literal = params_literal(operation, module, given);
    quote! { let params = #literal; }
}

/// The `curated::Paging` constant for a paging plan.
fn paging_const(name: &proc_macro2::Ident, paging: &PagingPlan) -> TokenStream {
    let style = match paging.style {
        PagingStyle::Page => quote! { curated::PagingStyle::Page },
        PagingStyle::Offset => quote! { curated::PagingStyle::Offset },
        PagingStyle::Cursor => match &paging.last_item_cursor {
            Some(field) => quote! { curated::PagingStyle::AfterLast { field: #field } },
            None => {
                let next = &paging.next_cursor;
                quote! { curated::PagingStyle::Cursor { next: #next } }
            }
        },
        PagingStyle::Link => quote! { curated::PagingStyle::Link },
    };
    let items = &paging.items;
    let total = match &paging.total {
        Some(pointer) => quote! { Some(#pointer) },
        None => quote! { None },
    };
    let more = match &paging.has_more {
        Some(pointer) => quote! { Some(#pointer) },
        None => quote! { None },
    };
    let max_page_size = Literal::i64_unsuffixed(paging.max_page_size);
    let max_pages = Literal::usize_unsuffixed(paging.max_pages);
    let sized = paging.size_param.is_some();
    quote! {
        const #name: curated::Paging = curated::Paging {
            style: #style,
            items: #items,
            total: #total,
            more: #more,
            sized: #sized,
            max_page_size: #max_page_size,
            max_pages: #max_pages,
        };
    }
}

/// The future of one page of `operation` in a page walk (`page` and `params`, this page's
/// parameters, in scope).
fn page_fetch(
    operation: &OperationPlan,
    paging: &PagingPlan,
    receiver: TokenStream,
) -> TokenStream {
    let call = call_operation(operation, receiver.clone());
    if paging.style != PagingStyle::Link {
        return quote! { #call.map(curated::FetchedPage::from) };
    }
    let page_fn = ident(&format!("{}_page", operation.fn_name));
    // The next page's URL: in the body where the file says so, else in the `Link` header.
    let next_link = match &paging.next_link {
        Some(pointer) => quote! { curated::value_at(&body, #pointer).as_str().map(str::to_string) },
        None => quote! { link.as_deref().and_then(curated::parse_next_link) },
    };
    let link = if paging.next_link.is_some() {
        quote! { _ }
    } else {
        quote! { link }
    };
    quote! {
        let (body, #link) = #receiver.#page_fn(&params, page.link.as_deref()).await?;
        let next_link = #next_link;
        Ok(curated::FetchedPage { body, next_link })
    }
}

/// A call of `operation`, its parameters `params` in scope (see [`params_decl`]).
fn call_operation(operation: &OperationPlan, receiver: TokenStream) -> TokenStream {
    let fn_name = ident(&operation.fn_name);
    if operation.fields.is_empty() {
        quote! { #receiver.#fn_name().await }
    } else {
        quote! { #receiver.#fn_name(&params).await }
    }
}

/// The resolvers, as methods of the client, and their caches.
pub fn resolvers(plan: &Plan) -> TokenStream {
    if plan.resolvers.is_empty() {
        return TokenStream::new();
    }
    let fields = plan
        .resolvers
        .iter()
        .filter(|r| matches!(r.source, ResolverSource::List { .. }))
        .map(|r| {
            let field = ident(&r.ident);
            if r.scope.is_empty() {
                quote! { #field: curated::ResolverCache, }
            } else {
                quote! { #field: curated::ScopedResolverCache, }
            }
        });
    let inits = plan
        .resolvers
        .iter()
        .filter(|r| matches!(r.source, ResolverSource::List { .. }))
        .map(|r| {
            let field = ident(&r.ident);
            let spec = ident(&format!("{}_RESOLVER", r.ident.to_uppercase()));
            if r.scope.is_empty() {
                quote! { #field: curated::ResolverCache::new(&#spec), }
            } else {
                quote! { #field: curated::ScopedResolverCache::new(&#spec), }
            }
        });
    let items = plan.resolvers.iter().map(|r| resolver(plan, r));
    if !plan
        .resolvers
        .iter()
        .any(|r| matches!(r.source, ResolverSource::List { .. }))
    {
        return quote! { #( #items )* };
    }
    quote! {
        /// The caches of the resolvers that list every item.
        pub struct Resolvers {
            #( #fields )*
        }

        impl Resolvers {
            pub fn new() -> Self {
                Self {
                    #( #inits )*
                }
            }
        }

        impl Default for Resolvers {
            fn default() -> Self {
                Self::new()
            }
        }

        #( #items )*
    }
}

fn resolver(plan: &Plan, r: &ResolverPlan) -> TokenStream {
    let spec_name = ident(&format!("{}_RESOLVER", r.ident.to_uppercase()));
    let resolve_fn = ident(&format!("resolve_{}", r.ident));
    let names_fn = ident(&format!("{}_names", r.ident));
    let list_fn = ident(&format!("list_every_{}", r.ident));
    let what = &r.what;
    let match_fields = &r.match_fields;
    let only = r
        .only
        .iter()
        .map(|(pointer, text)| quote! { (#pointer, #text) });
    let id_field = &r.id_field;
    let name_field = &r.name_field;
    let ttl = Literal::u64_unsuffixed(r.ttl_seconds);
    // A scoped resolver (the labels of one repository) takes its operation's scoping arguments
    // and lists, caches and looks up within them.
    let scoped = !r.scope.is_empty();
    let (scope_param, scope_arg) = if scoped {
        (
            quote! { scope: &serde_json::Map<String, serde_json::Value>, },
            quote! { scope },
        )
    } else {
        (quote! {}, quote! {})
    };
    // The operation's parameters the scope gives (the rest are left out). A resolved id where
    // the operation takes a number is sent as one (Jira's project ids: text in its answers, an
    // integer `projectId` in its parameters).
    let scope_operation = match &r.source {
        ResolverSource::List { operation, .. } | ResolverSource::Lookup { operation, .. } => {
            &plan.operations[*operation]
        }
    };
    let scope_given: Vec<Given> = r
        .scope
        .iter()
        .map(|(name, _)| {
            let integer = scope_operation
                .fields
                .iter()
                .any(|f| f.property == *name && matches!(f.ty, FieldType::Integer { .. }));
            let value = if integer {
                quote! { curated::numeric_id(curated::scoped(scope, #name)) }
            } else {
                quote! { curated::scoped(scope, #name) }
            };
            Given::json(name, value, Origin::Checked)
        })
        .collect();
    let aliases = r.aliases.iter().map(|(word, alias)| match alias {
        AliasPlan::Operation { operation, id } => {
            let operation = &plan.operations[*operation];
            let prelude = params_decl(operation, &quote! {}, &[]);
            let call = call_operation(operation, quote! { self });
            quote! {
                if value.eq_ignore_ascii_case(#word) {
                    #prelude
                    let found = #call?;
                    return curated::field_text(&found, #id);
                }
            }
        }
        AliasPlan::Literal(literal) => quote! {
            if value.eq_ignore_ascii_case(#word) {
                return Ok(#literal.to_string());
            }
        },
    });
    let aliases: Vec<TokenStream> = aliases.collect();
    let resolve_doc = format!(" The id for {}.", crate::text::with_article(what));
    let spec_doc = format!(" How {} becomes an id.", crate::text::with_article(what));
    match &r.source {
        ResolverSource::List {
            operation,
            items,
            paging,
        } => {
            let field = ident(&r.ident);
            let operation = &plan.operations[*operation];
            let list_doc = format!(
                " Every item `{}` lists, for the `{}` resolver.",
                operation.api_id, r.name
            );
            let list_body = match paging {
                Some(paging) => {
                    let paging_name = ident(&format!("{}_PAGING", r.ident.to_uppercase()));
                    let paging_def = paging_const(&paging_name, paging);
                    let sets = paging_sets(operation, paging);
                    let page_params = page_params(&sets);
                    let fetch = page_fetch(operation, paging, quote! { self });
                    let prelude = params_decl(operation, &quote! {}, &scope_given);
                    quote! {
                        #paging_def
                        #prelude
                        let collected = curated::collect_pages(&#paging_name.within(self.max_pages()), None, |page| {
                            #page_params
                            async move {
                                #sets
                                #fetch
                            }
                        })
                        .await?;
                        Ok(collected.items)
                    }
                }
                None => {
                    let prelude = params_decl(operation, &quote! {}, &scope_given);
                    let call = call_operation(operation, quote! { self });
                    quote! {
                        #prelude
                        let body = #call?;
                        curated::items_at(&body, #items)
                    }
                }
            };
            let names_doc = format!(" Every {what} by id, for showing ids as readable values.");
            // Result fields show ids as names through the whole API's list only.
            let names = if scoped {
                quote! {}
            } else {
                quote! {
                    #[doc = #names_doc]
                    pub async fn #names_fn(&self) -> Result<std::collections::HashMap<String, String>, ToolError> {
                        self.resolvers.#field.names(|| self.#list_fn()).await
                    }
                }
            };
            // A resolver that searches with the value (`$value` in its `args`) lists, and caches,
            // what the search for it finds.
            let search = match r
                .scope
                .iter()
                .find(|(_, value)| matches!(value, ScopeValue::Searched))
            {
                Some((name, _)) => quote! {
                    // An id an earlier search found: searching for it would find nothing.
                    if self.resolvers.#field.knows_id(value).await {
                        return Ok(value.to_string());
                    }
                    let mut scope = scope.clone();
                    scope.insert(#name.to_string(), serde_json::Value::from(value.trim()));
                    let scope = &scope;
                },
                None => quote! {},
            };
            let cache = if scoped {
                quote! { self.resolvers.#field.scope(scope) }
            } else {
                quote! { self.resolvers.#field }
            };
            quote! {
                #[doc = #spec_doc]
                pub static #spec_name: curated::ResolverSpec = curated::ResolverSpec {
                    what: #what,
                    match_fields: &[#( #match_fields ),*],
                    only: &[#( #only ),*],
                    id_field: #id_field,
                    name_field: #name_field,
                    ttl: std::time::Duration::from_secs(#ttl),
                };

                impl Client {
                    #[doc = #resolve_doc]
                    pub async fn #resolve_fn(&self, #scope_param value: &str) -> Result<String, ToolError> {
                        #( #aliases )*
                        #search
                        #cache.resolve(value, || self.#list_fn(#scope_arg)).await
                    }

                    #names

                    #[doc = #list_doc]
                    async fn #list_fn(&self, #scope_param) -> Result<Vec<serde_json::Value>, ToolError> {
                        #list_body
                    }
                }
            }
        }
        ResolverSource::Lookup { operation, param } => {
            let operation = &plan.operations[*operation];
            let mut given = scope_given;
            given.push(Given::json(
                param,
                quote! { serde_json::Value::from(value) },
                Origin::Argument,
            ));
            let prelude = params_decl(operation, &quote! {}, &given);
            let call = call_operation(operation, quote! { self });
            quote! {
                impl Client {
                    #[doc = #resolve_doc]
                    pub async fn #resolve_fn(&self, #scope_param value: &str) -> Result<String, ToolError> {
                        #( #aliases )*
                        curated::not_blank_value(#what, value)?;
                        #prelude
                        match #call {
                            Ok(found) => curated::field_text(&found, #id_field),
                            Err(ToolError::Status { status: 404, .. }) => {
                                Err(curated::not_found(#what, value, Vec::new()))
                            }
                            Err(other) => Err(other),
                        }
                    }
                }
            }
        }
    }
}

/// The Rust type of a plain curated parameter: the client's type, with JSON named in full, since
/// `tools.rs` does not import `serde_json::Value` (the client module does).
fn plain_param_type(ty: &FieldType) -> TokenStream {
    match ty {
        FieldType::Json => quote! { serde_json::Value },
        FieldType::List(item) => {
            let item = plain_param_type(item);
            quote! { Vec<#item> }
        }
        other => rust_type(other),
    }
}

/// The Rust type of a curated parameter.
fn param_type(plan: &Plan, param: &ToolParam) -> TokenStream {
    match &param.kind {
        ParamKind::Plain(ty) => plain_param_type(ty),
        ParamKind::Enum(index) => {
            let name = ident(&plan.enums[*index].type_name);
            quote! { #name }
        }
        ParamKind::Resolve(_) => quote! { String },
        ParamKind::ResolveList(_) => quote! { Vec<String> },
        ParamKind::Limit { .. } => quote! { i64 },
        ParamKind::ResponseFormat => quote! { curated::ResponseFormat },
    }
}

/// A default-value function for a parameter, when serde needs one.
fn default_fn(plan: &Plan, param: &ToolParam) -> Option<(proc_macro2::Ident, TokenStream)> {
    let default = param.default.as_ref()?;
    let name = ident(&format!("default_{}", param.ident.trim_end_matches('_')));
    let ty = param_type(plan, param);
    let body = match (&param.kind, default) {
        (ParamKind::Enum(index), Value::String(readable)) => {
            let e: &EnumPlan = &plan.enums[*index];
            let variant = e.variants.iter().find(|v| v.name == *readable)?;
            let enum_name = ident(&e.type_name);
            let variant = ident(&variant.ident);
            quote! { #enum_name::#variant }
        }
        (
            ParamKind::Limit { .. } | ParamKind::Plain(FieldType::Integer { .. }),
            Value::Number(n),
        ) => {
            let lit = Literal::i64_unsuffixed(n.as_i64()?);
            quote! { #lit }
        }
        (ParamKind::Plain(FieldType::Number), Value::Number(n)) => {
            let lit = Literal::f64_unsuffixed(n.as_f64()?);
            quote! { #lit }
        }
        (ParamKind::Plain(FieldType::Boolean), Value::Bool(b)) => quote! { #b },
        (ParamKind::Plain(FieldType::String) | ParamKind::Resolve(_), Value::String(s)) => {
            quote! { #s.to_string() }
        }
        (ParamKind::ResolveList(_) | ParamKind::Plain(FieldType::List(_)), Value::Array(items))
            if list_items_are_text(&param.kind) && items.iter().all(Value::is_string) =>
        {
            let items = items.iter().filter_map(Value::as_str);
            quote! { vec![#( #items.to_string() ),*] }
        }
        _ => return None,
    };
    Some((
        name.clone(),
        quote! {
            fn #name() -> #ty {
                #body
            }
        },
    ))
}

/// The value a parameter gives the API, as a `serde_json::Value` expression (resolving and
/// mapping as configured), with `?` for failures.
fn api_value(
    plan: &Plan,
    tool_name: &str,
    params: &[ToolParam],
    param: &ToolParam,
    optional: bool,
) -> TokenStream {
    let field = ident(&param.ident);
    let name = &param.name;
    let integer = match (&param.target, &param.kind) {
        (Some(target), _) => target.integer,
        // A workflow's parameter: the id goes out as the API gives it.
        (None, ParamKind::Resolve(index) | ParamKind::ResolveList(index)) => {
            plan.resolvers[*index].id_integer
        }
        (None, _) => false,
    };
    match &param.kind {
        ParamKind::Enum(index) => {
            let enum_name = ident(&plan.enums[*index].type_name);
            if optional {
                quote! { input.#field.map(#enum_name::code).unwrap_or_default() }
            } else {
                quote! { input.#field.code() }
            }
        }
        ParamKind::Resolve(index) => {
            let resolve_fn = ident(&format!("resolve_{}", plan.resolvers[*index].ident));
            let scope = scope_value(params, &plan.resolvers[*index]);
            let resolve = |value: TokenStream| {
                let call = match &scope {
                    Some(scope) => quote! { client.#resolve_fn(&#scope, #value) },
                    None => quote! { client.#resolve_fn(#value) },
                };
                quote! {
                    curated::id_value(
                        #call
                            .await
                            .map_err(|e| e.explain(ERRORS, &vars).for_argument(#tool_name, #name))?,
                        #integer,
                    )?
                }
            };
            if optional {
                let inner = resolve(quote! { value });
                quote! {
                    match &input.#field {
                        Some(value) => #inner,
                        None => serde_json::Value::Null,
                    }
                }
            } else {
                resolve(quote! { &input.#field })
            }
        }
        ParamKind::ResolveList(index) => {
            let resolve_fn = ident(&format!("resolve_{}", plan.resolvers[*index].ident));
            let (scope_local, scope_ref, scope_arg) =
                match scope_value(params, &plan.resolvers[*index]) {
                    Some(scope) => (
                        quote! { let scope = #scope; },
                        quote! { let scope = &scope; },
                        quote! { scope, },
                    ),
                    None => (quote! {}, quote! {}, quote! {}),
                };
            let resolve = |values: TokenStream| {
                quote! {{
                    #scope_local
                    serde_json::Value::Array(
                        curated::resolve_each(#values, |value| {
                            let client = &client;
                            #scope_ref
                            async move { client.#resolve_fn(#scope_arg &value).await }
                        })
                        .await
                        .map_err(|e| e.explain(ERRORS, &vars).for_argument(#tool_name, #name))?
                        .into_iter()
                        .map(|id| curated::id_value(id, #integer))
                        .collect::<Result<_, _>>()?,
                    )
                }}
            };
            if optional {
                let inner = resolve(quote! { values });
                quote! {
                    match &input.#field {
                        Some(values) => #inner,
                        None => serde_json::Value::Null,
                    }
                }
            } else {
                resolve(quote! { &input.#field })
            }
        }
        _ => quote! { curated::json(&input.#field) },
    }
}

/// The scope a scoped resolver lists within, as an expression of type
/// `serde_json::Map<String, serde_json::Value>`: each scoping argument from the tool's parameter
/// of that name (its value as the API wants it, computed before) or a literal. `None` for a resolver of the whole API.
fn scope_value(params: &[ToolParam], resolver: &ResolverPlan) -> Option<TokenStream> {
    if resolver.scope.is_empty() {
        return None;
    }
    // The value searched for is added by the resolver itself.
    let given: Vec<&(String, ScopeValue)> = resolver
        .scope
        .iter()
        .filter(|(_, value)| !matches!(value, ScopeValue::Searched))
        .collect();
    if given.is_empty() {
        return Some(quote! { serde_json::Map::new() });
    }
    let names = given.iter().map(|(api_name, _)| api_name);
    let values = given.iter().map(|(_, value)| match value {
        // Computed before, in `computation_order`.
        ScopeValue::Param(name) => match params.iter().find(|p| p.name == *name) {
            Some(param) => {
                let local = arg_local(param);
                quote! { #local.clone() }
            }
            // `check` refuses a scope naming a parameter the tool does not have.
            None => quote! { serde_json::Value::Null },
        },
        ScopeValue::Literal(value) => json_value(value),
        ScopeValue::Searched => quote! { serde_json::Value::Null },
    });
    Some(quote! { curated::scope([ #( (#names, #values) ),* ]) })
}

/// The parameters `wanted` (by index), with the ones that scope their resolvers, in the order
/// their values are computed: each after those it lists within, whose values its resolver reads.
fn computation_order(plan: &Plan, params: &[ToolParam], wanted: &[usize]) -> Vec<usize> {
    fn visit(
        index: usize,
        plan: &Plan,
        params: &[ToolParam],
        order: &mut Vec<usize>,
        seen: &mut Vec<usize>,
    ) {
        if seen.contains(&index) {
            return;
        }
        seen.push(index);
        if let ParamKind::Resolve(resolver) | ParamKind::ResolveList(resolver) = &params[index].kind
        {
            for (_, value) in &plan.resolvers[*resolver].scope {
                if let ScopeValue::Param(name) = value
                    && let Some(scope) = params.iter().position(|p| p.name == *name)
                {
                    visit(scope, plan, params, order, seen);
                }
            }
        }
        order.push(index);
    }
    let mut order = Vec::new();
    let mut seen = Vec::new();
    for index in wanted {
        visit(*index, plan, params, &mut order, &mut seen);
    }
    order
}

/// Are the items of a list parameter text (readable values, or strings)?
fn list_items_are_text(kind: &ParamKind) -> bool {
    match kind {
        ParamKind::ResolveList(_) => true,
        ParamKind::Plain(FieldType::List(item)) => matches!(**item, FieldType::String),
        _ => false,
    }
}

/// Is the parameter's field an `Option`? It is unless the argument is required, has a default
/// serde can apply, or is the response format.
fn is_optional(plan: &Plan, param: &ToolParam) -> bool {
    !param.required
        && !matches!(param.kind, ParamKind::ResponseFormat)
        && default_fn(plan, param).is_none()
}

/// The module of one curated tool.
pub fn tool_module(
    plan: &Plan,
    module: &proc_macro2::Ident,
    tool_name: &str,
    definition: TokenStream,
    doc: &str,
    tool: &CuratedTool,
) -> TokenStream {
    let mut default_fns = Vec::new();
    let fields = tool.params.iter().map(|param| {
        let field = ident(&param.ident);
        let ty = param_type(plan, param);
        let rename = if param.ident != param.name {
            let name = &param.name;
            quote! { #[serde(rename = #name)] }
        } else {
            quote! {}
        };
        let (ty, default) = if matches!(param.kind, ParamKind::ResponseFormat) {
            (ty, quote! { #[serde(default)] })
        } else if let Some((name, function)) = default_fn(plan, param) {
            default_fns.push(function);
            let name = name.to_string();
            (ty, quote! { #[serde(default = #name)] })
        } else if param.required {
            (ty, quote! {})
        } else {
            (quote! { Option<#ty> }, quote! {})
        };
        let doc = docs(param.description.as_deref());
        quote! {
            #doc
            #rename
            #default
            pub #field: #ty,
        }
    });
    let fields: Vec<TokenStream> = fields.collect();
    let mut enum_types = Vec::new();
    for param in &tool.params {
        if let ParamKind::Plain(ty) = &param.kind {
            collect_enums(ty, &mut enum_types);
        }
    }
    let param_enums: Vec<TokenStream> = enum_types.into_iter().map(enum_type).collect();
    let checks = tool.params.iter().filter_map(|param| match param.kind {
        ParamKind::Limit { max } => {
            let field = ident(&param.ident);
            let name = &param.name;
            let max = Literal::i64_unsuffixed(max);
            Some(quote! { curated::check_range(#name, input.#field, 1, #max)?; })
        }
        _ => None,
    });
    let vars = tool
        .params
        .iter()
        .filter(|p| !matches!(p.kind, ParamKind::Limit { .. } | ParamKind::ResponseFormat))
        .map(|param| {
            let field = ident(&param.ident);
            let name = &param.name;
            quote! { (#name, curated::text(&input.#field)) }
        });
    let errors = tool.errors.iter().map(|(status, message)| {
        let status = Literal::u16_unsuffixed(*status);
        quote! { (#status, #message) }
    });
    let detailed = match tool
        .params
        .iter()
        .find(|p| matches!(p.kind, ParamKind::ResponseFormat))
    {
        Some(param) => {
            let field = ident(&param.ident);
            quote! { input.#field.is_detailed() }
        }
        None => quote! { false },
    };
    let shape = shape_const(plan, &tool.results);
    let lookups_fetch = tool
        .results
        .lookups
        .iter()
        .enumerate()
        .map(|(slot, resolver)| {
            let names_fn = ident(&format!("{}_names", plan.resolvers[*resolver].ident));
            let local = ident(&format!("names_{slot}"));
            quote! { let #local = client.#names_fn().await.map_err(|e| e.explain(ERRORS, &vars))?; }
        });
    let lookups_fetch: Vec<TokenStream> = lookups_fetch.collect();
    let lookup_refs: Vec<TokenStream> = (0..tool.results.lookups.len())
        .map(|slot| {
            let local = ident(&format!("names_{slot}"));
            quote! { &#local }
        })
        .collect();
    let (module_items, body) = match &tool.body {
        CuratedBody::Call {
            operation,
            fixed,
            paging,
        } => call_body(
            plan,
            tool_name,
            tool,
            &plan.operations[*operation],
            fixed,
            paging.as_deref(),
            &detailed,
            &lookups_fetch,
            &lookup_refs,
        ),
        CuratedBody::Steps(steps) => steps_body(
            plan,
            tool_name,
            tool,
            steps,
            &detailed,
            &lookups_fetch,
            &lookup_refs,
        ),
    };
    // A tool without parameters still refuses arguments it does not take.
    let parse = if tool.params.is_empty() {
        quote! { let Input {} = runtime::parse_arguments(arguments)?; }
    } else {
        quote! { let input: Input = runtime::parse_arguments(arguments)?; }
    };
    quote! {
        #[doc = #doc]
        pub mod #module {
            use super::*;
            use crate::runtime::curated::Explain as _;

            /// The definition `tools/list` returns.
            pub const DEFINITION: &str = #definition;

            /// The tool's arguments, as the model gives them.
            #[derive(Debug, Deserialize)]
            #[serde(deny_unknown_fields)]
            pub struct Input {
                #( #fields )*
            }

            #( #default_fns )*

            #( #param_enums )*

            /// Messages for the API's errors, by HTTP status.
            const ERRORS: &[(u16, &str)] = &[#( #errors ),*];

            #shape

            #module_items

            pub async fn call(client: Arc<Client>, arguments: JsonObject) -> Result<ToolOutput, ToolError> {
                #parse
                #( #checks )*
                let vars = [#( #vars ),*];
                let vars = curated::borrow_vars(&vars);
                #body
            }
        }
    }
}

fn shape_fields(plan: &Plan, fields: &[crate::plan::curated::ShapeField]) -> Vec<TokenStream> {
    fields
        .iter()
        .map(|field| {
            let name = &field.name;
            let from = &field.from;
            let convert = match field.convert {
                ShapeConvert::Copy => quote! { curated::Convert::Copy },
                ShapeConvert::Enum(index) => {
                    let enum_name = ident(&plan.enums[index].type_name);
                    quote! { curated::Convert::Enum(#enum_name::CODES) }
                }
                ShapeConvert::Lookup(slot) => {
                    let slot = Literal::usize_unsuffixed(slot);
                    quote! { curated::Convert::Lookup(#slot) }
                }
            };
            quote! { curated::FieldSpec { name: #name, from: #from, convert: #convert } }
        })
        .collect()
}

fn shape_const(plan: &Plan, results: &ResultsPlan) -> TokenStream {
    let fields = shape_fields(plan, &results.fields);
    let detailed = shape_fields(plan, &results.detailed);
    let truncated = results.list.as_ref().map(|list| {
        let message = &list.truncated_message;
        quote! {
            /// Guidance sent with a result cut at the limit.
            const TRUNCATED: &str = #message;
        }
    });
    quote! {
        /// The fields of the result the model sees.
        const SHAPE: curated::Shape = curated::Shape {
            fields: &[#( #fields ),*],
            detailed: &[#( #detailed ),*],
        };

        #truncated
    }
}

#[allow(clippy::too_many_arguments)]
fn call_body(
    plan: &Plan,
    tool_name: &str,
    tool: &CuratedTool,
    operation: &OperationPlan,
    fixed: &[(String, ValueRef)],
    paging: Option<&PagingPlan>,
    detailed: &TokenStream,
    lookups_fetch: &[TokenStream],
    lookup_refs: &[TokenStream],
) -> (TokenStream, TokenStream) {
    // Each parameter that fills one of the operation's, and each one a template uses, as the API
    // wants it, computed once.
    let mut used: Vec<usize> = Vec::new();
    for (index, param) in tool.params.iter().enumerate() {
        if param.target.is_some() {
            used.push(index);
        }
    }
    // The parameters a fixed value reads: a template's, and those inside an object the call
    // builds around them (`content: { raw: $text }` from `from: content.raw`).
    fn reads(value: &ValueRef, used: &mut Vec<usize>) {
        let mut add = |param: usize| {
            if !used.contains(&param) {
                used.push(param);
            }
        };
        match value {
            ValueRef::Template(template) => template.params().into_iter().for_each(add),
            ValueRef::Input(index) => add(*index),
            ValueRef::Object(fields) => fields.iter().for_each(|(_, v)| reads(v, used)),
            ValueRef::Array(items) => items.iter().for_each(|v| reads(v, used)),
            ValueRef::Text(inner) => reads(inner, used),
            _ => {}
        }
    }
    for (_, value) in fixed {
        reads(value, &mut used);
    }
    used.sort_unstable();
    let arg_values = arg_statements(plan, tool_name, tool, &used);
    let given: Vec<Given> = tool
        .params
        .iter()
        .filter_map(|param| {
            let target = param.target.as_ref()?;
            if let Some(typed) = typed_input(plan, param, operation, &target.api_name) {
                return Some(Given {
                    name: target.api_name.clone(),
                    value: GivenValue::Typed(typed),
                });
            }
            let local = arg_local(param);
            Some(Given::json(
                &target.api_name,
                quote! { #local },
                Origin::Checked,
            ))
        })
        .chain(
            fixed
                .iter()
                .map(|(name, value)| given_value(plan, tool, operation, name, value, &[])),
        )
        .collect();
    let explain = quote! { .map_err(|e| e.explain(ERRORS, &vars)) };
    let (module_items, shaped) = fetch_and_shape(
        tool,
        operation,
        paging,
        &explain,
        detailed,
        lookups_fetch,
        lookup_refs,
    );
    let params = params_decl(operation, &quote! { client:: }, &given);
    let arg_values = read_locals(arg_values, &[&params, &shaped]);
    (
        module_items,
        quote! {
            #( #arg_values )*
            #params
            #shaped
        },
    )
}

/// `let arg_<name>: serde_json::Value = …;` for each parameter of `wanted` (and those their
/// resolvers' scopes read), in the order they are computed, each with its local.
fn arg_statements(
    plan: &Plan,
    tool_name: &str,
    tool: &CuratedTool,
    wanted: &[usize],
) -> Vec<(proc_macro2::Ident, TokenStream)> {
    computation_order(plan, &tool.params, wanted)
        .into_iter()
        .map(|index| {
            let param = &tool.params[index];
            let local = arg_local(param);
            let value = api_value(
                plan,
                tool_name,
                &tool.params,
                param,
                is_optional(plan, param),
            );
            let statement = quote! { let #local: serde_json::Value = #value; };
            (local, statement)
        })
        .collect()
}

/// The value a step or the file gives the parameter `name`: a literal as written, anything else
/// as JSON whose origin is the earliest step answer it reads (`steps`: each step variable and the
/// number of the step whose answer it holds), or the server.
fn given_value(
    plan: &Plan,
    tool: &CuratedTool,
    operation: &OperationPlan,
    name: &str,
    value: &ValueRef,
    steps: &[(String, usize)],
) -> Given {
    match value {
        ValueRef::Literal(literal) => Given {
            name: name.to_string(),
            value: GivenValue::Literal(literal.clone()),
        },
        ValueRef::Template(template) => Given {
            name: name.to_string(),
            value: GivenValue::Template(
                template_text(tool, template),
                // A clause without parameters is always there: the text is never empty.
                if template
                    .clauses
                    .iter()
                    .any(|clause| clause.params.is_empty() && clause.switches.is_empty())
                {
                    Vec::new()
                } else {
                    template
                        .params()
                        .into_iter()
                        .map(|index| tool.params[index].name.clone())
                        .collect()
                },
            ),
        },
        ValueRef::Input(index)
            if let Some(typed) = typed_input(plan, &tool.params[*index], operation, name) =>
        {
            Given {
                name: name.to_string(),
                value: GivenValue::Typed(typed),
            }
        }
        other => {
            let origin = match answer_step(other, steps) {
                Some(step) => Origin::Answer(step),
                None => Origin::Checked,
            };
            Given::json(name, value_expr(tool, other), origin)
        }
    }
}

/// The step variables whose answers a workflow reads: in later steps' values, as what a
/// `stop_if` returns (its `result`, or the answer before it), and as the tool's result (its
/// `results.from`, or the last answer).
fn used_step_vars(tool: &CuratedTool, steps: &[StepPlan]) -> BTreeSet<String> {
    fn reads(value: &ValueRef, used: &mut BTreeSet<String>) {
        used.extend(
            value
                .step_reads()
                .into_iter()
                .map(|(var, _)| var.to_string()),
        );
    }
    let mut used = BTreeSet::new();
    let mut last: Option<&String> = None;
    for step in steps {
        match step {
            StepPlan::Call {
                var, args, when, ..
            } => {
                args.iter().for_each(|(_, v)| reads(v, &mut used));
                if let Some((left, right)) = when.as_deref() {
                    reads(left, &mut used);
                    reads(right, &mut used);
                }
                last = Some(var);
            }
            StepPlan::StopIf {
                left,
                right,
                result,
                ..
            } => {
                reads(left, &mut used);
                reads(right, &mut used);
                match result {
                    Some(result) => reads(result, &mut used),
                    None => used.extend(last.cloned()),
                }
            }
            StepPlan::Resolve { value, scope, .. } => {
                reads(value, &mut used);
                scope.iter().for_each(|(_, v)| reads(v, &mut used));
            }
            StepPlan::Find {
                var,
                list,
                conditions,
                ..
            } => {
                reads(list, &mut used);
                conditions.iter().for_each(|(_, v)| reads(v, &mut used));
                last = Some(var);
            }
        }
    }
    match &tool.results.source {
        Some(source) => reads(source, &mut used),
        None => {
            let (alternatives, fallback) = last_answers(steps);
            used.extend(alternatives.into_iter().map(|(_, var)| var.to_string()));
            used.extend(fallback.map(str::to_string));
        }
    }
    used
}

/// What a workflow returns by default: the answer of its last step that ran. The calls with a
/// `when` at its end are alternatives, each with its step number, the last first; the answer
/// before them (a call's or a `find`'s) is returned when none ran.
fn last_answers(steps: &[StepPlan]) -> (Vec<(usize, &str)>, Option<&str>) {
    let mut alternatives = Vec::new();
    for (index, step) in steps.iter().enumerate().rev() {
        match step {
            StepPlan::Call {
                var, when: Some(_), ..
            } => alternatives.push((index + 1, var.as_str())),
            StepPlan::Call { var, .. } | StepPlan::Find { var, .. } => {
                return (alternatives, Some(var));
            }
            StepPlan::StopIf { .. } | StepPlan::Resolve { .. } => {}
        }
    }
    (alternatives, None)
}

/// The local holding whether step `number`, a call with a `when`, ran.
fn ran_local(number: usize) -> proc_macro2::Ident {
    ident(&format!("ran_{number}"))
}

/// The number of the step whose answer a value reads, if it reads one (the first found).
fn answer_step(value: &ValueRef, steps: &[(String, usize)]) -> Option<usize> {
    value
        .step_reads()
        .into_iter()
        .find_map(|(var, _)| steps.iter().find(|(v, _)| v == var).map(|(_, n)| *n))
}

/// The statements that call `operation` (its parameters `params` in scope) and return its answer
/// shaped as the tool's result: a walk of its pages up to the limit (`paging`), a list cut to the
/// limit from one answer, or one item. `explain` turns the call's error into the tool's; the
/// items the module needs beside the function (the paging constant) come first.
fn fetch_and_shape(
    tool: &CuratedTool,
    operation: &OperationPlan,
    paging: Option<&PagingPlan>,
    explain: &TokenStream,
    detailed: &TokenStream,
    lookups_fetch: &[TokenStream],
    lookup_refs: &[TokenStream],
) -> (TokenStream, TokenStream) {
    let limit = tool
        .params
        .iter()
        .find(|p| matches!(p.kind, ParamKind::Limit { .. }))
        .map(|p| {
            let field = ident(&p.ident);
            quote! { usize::try_from(input.#field).unwrap_or(1) }
        });
    let mut module_items = TokenStream::new();
    let shaped = match (&tool.results.list, paging) {
        (Some(list), Some(paging)) => {
            let paging_name = ident("PAGING");
            let paging_def = paging_const(&paging_name, paging);
            let sets = paging_sets(operation, paging);
            let page_params = page_params(&sets);
            let fetch = page_fetch(operation, paging, quote! { client });
            let limit = match &limit {
                Some(limit) => quote! { Some(#limit) },
                None => quote! { None },
            };
            let name = &list.name;
            module_items = paging_def;
            quote! {
                let collected = curated::collect_pages(&PAGING.within(client.max_pages()), #limit, |page| {
                    #page_params
                    let client = Arc::clone(&client);
                    async move {
                        #sets
                        #fetch
                    }
                })
                .await
                #explain?;
                #( #lookups_fetch )*
                Ok(curated::shape_list(&SHAPE, #name, collected, #detailed, &[#( #lookup_refs ),*], TRUNCATED))
            }
        }
        (Some(list), None) => {
            let call = call_operation(operation, quote! { client });
            let items = &list.items;
            let name = &list.name;
            let limit = limit.unwrap_or_else(|| quote! { usize::MAX });
            quote! {
                let body = #call #explain?;
                let mut items = curated::items_at(&body, #items)?;
                let limit = #limit;
                let more = items.len() > limit;
                items.truncate(limit);
                #( #lookups_fetch )*
                let collected = curated::Collected { items, more };
                Ok(curated::shape_list(&SHAPE, #name, collected, #detailed, &[#( #lookup_refs ),*], TRUNCATED))
            }
        }
        (None, _) => {
            let call = call_operation(operation, quote! { client });
            quote! {
                let body = #call #explain?;
                #( #lookups_fetch )*
                Ok(curated::shape_item(&SHAPE, &body, #detailed, &[#( #lookup_refs ),*]).into())
            }
        }
    };
    (module_items, shaped)
}

/// The local holding a parameter's value as the API wants it (`arg_<name>`).
fn arg_local(param: &ToolParam) -> proc_macro2::Ident {
    ident(&format!("arg_{}", param.ident.trim_end_matches('_')))
}

/// The model's argument `param` as the value of the parameter `name` of `operation`, when the
/// argument's Rust type is the field's (text into text, a list of integers into one): the
/// compiler checks the two agree, and nothing is converted at run time. `None` for a value the
/// server maps first (an enum, a resolved name) and for types that differ.
fn typed_input(
    plan: &Plan,
    param: &ToolParam,
    operation: &OperationPlan,
    name: &str,
) -> Option<TokenStream> {
    let ParamKind::Plain(ty) = &param.kind else {
        return None;
    };
    let field = operation.fields.iter().find(|f| f.property == name)?;
    let optional = is_optional(plan, param);
    // `check` refuses an optional argument without a default for a required parameter.
    if !same_rust_type(ty, &field.ty) || (optional && field.required) {
        return None;
    }
    let input = ident(&param.ident);
    let value = if is_copy(ty) {
        quote! { input.#input }
    } else {
        quote! { input.#input.clone() }
    };
    Some(if optional || field.required {
        value
    } else {
        quote! { Some(#value) }
    })
}

/// Do a curated parameter of type `param` and an operation's field of type `field` have the same
/// Rust type? Enums are generated per tool and per operation, so two are never the same type.
fn same_rust_type(param: &FieldType, field: &FieldType) -> bool {
    match (param, field) {
        (FieldType::String, FieldType::String)
        | (FieldType::Number, FieldType::Number)
        | (FieldType::Boolean, FieldType::Boolean)
        | (FieldType::Json, FieldType::Json) => true,
        // The values an integer takes are checked against the tool's input schema.
        (FieldType::Integer { allowed: mine }, FieldType::Integer { allowed: theirs }) => {
            theirs.is_none() || mine == theirs
        }
        (FieldType::List(param), FieldType::List(field)) => same_rust_type(param, field),
        _ => false,
    }
}

fn is_copy(ty: &FieldType) -> bool {
    matches!(
        ty,
        FieldType::Integer { .. } | FieldType::Number | FieldType::Boolean
    )
}

/// The `let arg_<name> = …;` statements (`locals`, each with the local it declares, in the
/// order they are computed) that `body` or a later kept statement reads. A value that fills a
/// parameter of its own type is read from the arguments directly, so its JSON local would go
/// unused; this looks at the generated tokens themselves, so it cannot disagree with them.
fn read_locals(
    locals: Vec<(proc_macro2::Ident, TokenStream)>,
    body: &[&TokenStream],
) -> Vec<TokenStream> {
    fn mentions(tokens: &TokenStream, name: &proc_macro2::Ident) -> bool {
        tokens.clone().into_iter().any(|tree| match tree {
            proc_macro2::TokenTree::Ident(found) => found == *name,
            proc_macro2::TokenTree::Group(group) => mentions(&group.stream(), name),
            _ => false,
        })
    }
    let mut kept: Vec<TokenStream> = Vec::new();
    let mut readers: Vec<&TokenStream> = body.to_vec();
    for (local, statement) in locals.iter().rev() {
        if readers.iter().any(|tokens| mentions(tokens, local)) {
            kept.push(statement.clone());
            readers.push(statement);
        }
    }
    kept.reverse();
    kept
}

/// The call that writes the value of `param` (named by `each`) into a template's text: whole, or
/// word by word for a `{name:words}` placeholder.
fn template_write(
    tool: &CuratedTool,
    param: usize,
    quoted: bool,
    words: bool,
    each: &dyn Fn(usize) -> proc_macro2::Ident,
) -> TokenStream {
    let name = &tool.params[param].name;
    let value = each(param);
    if words {
        quote! { quote.write_words(#name, &#value)? }
    } else {
        quote! { quote.write(#name, &#value, #quoted)? }
    }
}

/// The text a template builds, as a block of type `String`: each clause pushed once per combination of its
/// parameters' values (so not at all when one is absent, and once per item of a list), each value
/// written by the template's quoting rule, then the clauses kept joined.
fn template_text(tool: &CuratedTool, template: &TemplatePlan) -> TokenStream {
    // Clauses that write no parameter are text known now (`check` refuses a template that is
    // only that; a fixed value is written as it is).
    if template
        .clauses
        .iter()
        .all(|clause| clause.params.is_empty() && clause.switches.is_empty())
    {
        let text = template
            .clauses
            .iter()
            .map(|clause| {
                clause
                    .parts
                    .iter()
                    .map(|part| match part {
                        TemplatePart::Text(text) => text.as_str(),
                        TemplatePart::Value { .. } => "",
                    })
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join(&template.join);
        return quote! { #text.to_string() };
    }
    let rule = match template.quote {
        QuoteRule::None => quote! { curated::Quote::None },
        QuoteRule::Github => quote! { curated::Quote::Github },
        QuoteRule::Slack => quote! { curated::Quote::Slack },
        QuoteRule::Jql => quote! { curated::Quote::Jql },
    };
    // Each value is named after its parameter, unless that name is one the block uses itself
    // (`quote`, `clauses` and the `arg_` locals).
    let each = |index: usize| {
        let name = &tool.params[index].ident;
        if name == "quote" || name == "clauses" || name.starts_with("arg_") {
            ident(&format!("each_{}", name.trim_end_matches('_')))
        } else {
            ident(name)
        }
    };
    let clauses = template.clauses.iter().map(|clause| {
        let pieces: Vec<TokenStream> = clause
            .parts
            .iter()
            .map(|part| match part {
                TemplatePart::Text(text) => quote! { #text },
                TemplatePart::Value {
                    param,
                    quoted,
                    words,
                } => {
                    let write = template_write(tool, *param, *quoted, *words, &each);
                    quote! { #write.as_str() }
                }
            })
            .collect();
        let text = match (clause.parts.as_slice(), pieces.as_slice()) {
            ([TemplatePart::Text(_)], [only]) => quote! { #only.to_string() },
            (
                [
                    TemplatePart::Value {
                        param,
                        quoted,
                        words,
                    },
                ],
                _,
            ) => template_write(tool, *param, *quoted, *words, &each),
            _ => quote! { [ #( #pieces ),* ].concat() },
        };
        let mut body = quote! { clauses.push(#text); };
        for param in clause.switches.iter().rev() {
            let local = arg_local(&tool.params[*param]);
            body = quote! {
                if curated::switched_on(&#local) {
                    #body
                }
            };
        }
        for param in clause.params.iter().rev() {
            let value = each(*param);
            let local = arg_local(&tool.params[*param]);
            body = quote! {
                for #value in curated::template_values(&#local) {
                    #body
                }
            };
        }
        body
    });
    let join = &template.join;
    // A required text argument left blank would drop its clause and widen the query.
    let not_blank = template
        .params()
        .into_iter()
        .map(|index| &tool.params[index])
        .filter(|param| {
            // An empty list too, in a query language (where fewer clauses match more); a plain
            // list of values may be empty (nothing to add, nothing sent).
            param.required
                && (matches!(param.kind, ParamKind::Plain(FieldType::String))
                    || (list_items_are_text(&param.kind) && template.quote != QuoteRule::None))
        })
        .map(|param| {
            let name = &param.name;
            let local = arg_local(param);
            quote! { curated::not_blank(#name, &#local)?; }
        });
    // The quoting rule, where a clause writes a value.
    let quote_rule = template
        .clauses
        .iter()
        .any(|clause| {
            clause
                .parts
                .iter()
                .any(|part| matches!(part, TemplatePart::Value { .. }))
        })
        .then(|| quote! { let quote = #rule; });
    quote! {{
        #( #not_blank )*
        #quote_rule
        let mut clauses: Vec<String> = Vec::new();
        #( #clauses )*
        clauses.join(#join)
    }}
}

/// The expression for a step value that is only borrowed (`&` is written before it): a
/// parameter's or an answer's local itself rather than a copy.
fn borrowed_expr(tool: &CuratedTool, value: &ValueRef) -> TokenStream {
    match value {
        ValueRef::Input(index) => {
            let local = arg_local(&tool.params[*index]);
            quote! { #local }
        }
        ValueRef::Step { var, pointer } if pointer.is_empty() => {
            let var = ident(var);
            quote! { #var }
        }
        other => value_expr(tool, other),
    }
}

/// The expression for a step value.
fn value_expr(tool: &CuratedTool, value: &ValueRef) -> TokenStream {
    match value {
        ValueRef::Input(index) => {
            let local = arg_local(&tool.params[*index]);
            quote! { #local.clone() }
        }
        ValueRef::Template(template) => {
            let text = template_text(tool, template);
            quote! { serde_json::Value::String(#text) }
        }
        ValueRef::Step { var, pointer } => {
            let var = ident(var);
            if pointer.is_empty() {
                quote! { #var.clone() }
            } else {
                quote! { curated::value_at(&#var, #pointer) }
            }
        }
        ValueRef::Literal(value) => json_value(value),
        ValueRef::Object(fields) => {
            let names = fields.iter().map(|(name, _)| name);
            let values = fields.iter().map(|(_, value)| value_expr(tool, value));
            quote! { curated::object([ #( (#names, #values) ),* ]) }
        }
        ValueRef::Array(items) => {
            let kept = items
                .iter()
                .any(|item| matches!(item, ValueRef::When { .. }));
            let items = items.iter().map(|item| value_expr(tool, item));
            if kept {
                // An item kept only when a value is present is left out, not sent as null.
                quote! { curated::present_items(vec![ #( #items ),* ]) }
            } else {
                quote! { serde_json::Value::Array(vec![ #( #items ),* ]) }
            }
        }
        ValueRef::Each { list, fields } => {
            let list = borrowed_expr(tool, list);
            let names = fields.iter().map(|(name, _)| name);
            let values = fields.iter().map(|(_, value)| value_expr(tool, value));
            quote! {
                curated::each(&#list, |item| curated::object([ #( (#names, #values) ),* ]))
            }
        }
        ValueRef::Text(value) => {
            let value = value_expr(tool, value);
            quote! { curated::id_text(#value) }
        }
        ValueRef::Item(pointer) if pointer.is_empty() => quote! { item.clone() },
        ValueRef::Item(pointer) => quote! { curated::value_at(item, #pointer) },
        ValueRef::When { condition, value } => {
            let condition = value_expr(tool, condition);
            let value = value_expr(tool, value);
            quote! {
                if curated::present(&#condition) {
                    #value
                } else {
                    serde_json::Value::Null
                }
            }
        }
    }
}

fn steps_body(
    plan: &Plan,
    tool_name: &str,
    tool: &CuratedTool,
    steps: &[StepPlan],
    detailed: &TokenStream,
    lookups_fetch: &[TokenStream],
    lookup_refs: &[TokenStream],
) -> (TokenStream, TokenStream) {
    // Each parameter's value as the API wants it, computed once (where the steps read it).
    let wanted: Vec<usize> = (0..tool.params.len()).collect();
    let arg_values = arg_statements(plan, tool_name, tool, &wanted);
    let shape_result = |value: TokenStream| {
        if lookups_fetch.is_empty() {
            quote! { Ok(curated::shape_item(&SHAPE, &#value, #detailed, &[]).into()) }
        } else {
            quote! {{
                #( #lookups_fetch )*
                Ok(curated::shape_item(&SHAPE, &#value, #detailed, &[#( #lookup_refs ),*]).into())
            }}
        }
    };
    let mut last_var: Option<String> = None;
    let mut module_items = TokenStream::new();
    let mut list_result = false;
    // Each step variable and the number of the step whose answer it holds.
    let mut answers: Vec<(String, usize)> = Vec::new();
    let used = used_step_vars(tool, steps);
    let (result_alternatives, result_fallback) = last_answers(steps);
    // Whether each alternative ran is kept for the result, when the result is the last answer.
    let alternatives: Vec<usize> = match tool.results.source {
        None => result_alternatives
            .iter()
            .map(|(number, _)| *number)
            .collect(),
        Some(_) => Vec::new(),
    };
    // Steps are numbered as the file lists them, `find` and `stop_if` steps included.
    let statements = steps.iter().enumerate().map(|(index, step)| match step {
        StepPlan::Call {
            operation,
            api_id,
            var,
            args,
            errors,
            paging,
            answer,
            writes,
            when,
        } => {
            let operation = &plan.operations[*operation];
            let local = ident(var);
            last_var = Some(var.clone());
            let given: Vec<Given> = args
                .iter()
                .map(|(name, value)| given_value(plan, tool, operation, name, value, &answers))
                .collect();
            answers.push((var.clone(), index + 1));
            let step_errors = errors.iter().map(|(status, message)| {
                let status = Literal::u16_unsuffixed(*status);
                quote! { (#status, #message) }
            });
            let step_number = Literal::usize_unsuffixed(index + 1);
            let call = call_operation(operation, quote! { client });
            let params = params_decl(operation, &quote! { client:: }, &given);
            // A workflow whose result is a list ends with its last step: the list, walked and
            // cut like a one-call list tool's.
            if index + 1 == steps.len() && tool.results.list.is_some() {
                let explain = quote! {
                    .map_err(|e| {
                        e.explain(STEP_ERRORS, &vars)
                            .explain(ERRORS, &vars)
                            .in_step(#step_number, #api_id)
                    })
                };
                let (items, shaped) = fetch_and_shape(
                    tool,
                    operation,
                    paging.as_ref(),
                    &explain,
                    detailed,
                    lookups_fetch,
                    lookup_refs,
                );
                module_items = items;
                list_result = true;
                return quote! {
                    const STEP_ERRORS: &[(u16, &str)] = &[#( #step_errors ),*];
                    #params
                    #shaped
                };
            }
            // A step called for its errors only (a 404 that says the thing does not exist) keeps
            // no answer.
            let binding = if used.contains(var) {
                quote! { #local }
            } else {
                quote! { _ }
            };
            let call = match paging {
                // A list only a `find` reads: every page walked, the answer that list whole.
                Some(paging) => {
                    let paging_def = paging_const(&ident("PAGING"), paging);
                    let sets = paging_sets(operation, paging);
                    let page_params = page_params(&sets);
                    let fetch = page_fetch(operation, paging, quote! { client });
                    quote! {{
                        #paging_def
                        let collected = curated::collect_pages(&PAGING.within(client.max_pages()), None, |page| {
                            #page_params
                            let client = Arc::clone(&client);
                            async move {
                                #sets
                                #fetch
                            }
                        })
                        .await
                        .map_err(|e| {
                            e.explain(STEP_ERRORS, &vars)
                                .explain(ERRORS, &vars)
                                .in_step(#step_number, #api_id)
                        })?;
                        curated::list_answer(PAGING.items, collected.items)
                    }}
                }
                None => quote! {
                    #call.map_err(|e| {
                        e.explain(STEP_ERRORS, &vars)
                            .explain(ERRORS, &vars)
                            .in_step(#step_number, #api_id)
                    })?
                },
            };
            // What later steps read of the answer is checked before they rely on it.
            let block = match answer {
                None => quote! {{
                    const STEP_ERRORS: &[(u16, &str)] = &[#( #step_errors ),*];
                    #params
                    #call
                }},
                Some(answer) => {
                    let answer = raw_string(&answer.to_string());
                    quote! {{
                        const STEP_ERRORS: &[(u16, &str)] = &[#( #step_errors ),*];
                        static READ: curated::Documented = curated::Documented::new(#answer);
                        #params
                        let answer = #call;
                        READ.check(&answer, #step_number, #api_id, #writes)?;
                        answer
                    }}
                }
            };
            let Some((left, right)) = when.as_deref() else {
                return quote! { let #binding = #block; };
            };
            // A call made only when its condition holds answers nothing otherwise. Whether it
            // ran is kept where the tool's result depends on it.
            let condition = {
                let left = borrowed_expr(tool, left);
                let right = borrowed_expr(tool, right);
                quote! { curated::same_text(&#left, &#right) }
            };
            let (ran_decl, condition) = if alternatives.contains(&(index + 1)) {
                let ran = ran_local(index + 1);
                (quote! { let #ran = #condition; }, quote! { #ran })
            } else {
                (quote! {}, condition)
            };
            quote! {
                #ran_decl
                let #binding = if #condition #block else { serde_json::Value::Null };
            }
        }
        StepPlan::StopIf {
            left,
            right,
            result,
            message,
        } => {
            let left = borrowed_expr(tool, left);
            let right = borrowed_expr(tool, right);
            let result = match result {
                Some(value) => value_expr(tool, value),
                None => match &last_var {
                    Some(var) => {
                        let var = ident(var);
                        quote! { #var.clone() }
                    }
                    None => quote! { serde_json::Value::Null },
                },
            };
            let shaped = shape_result(result);
            quote! {
                // Nothing to do: the result is already as asked, and the model is told so.
                if curated::same_text(&#left, &#right) {
                    let shaped: Result<ToolOutput, ToolError> = #shaped;
                    return shaped.map(|output| output.with_note(curated::fill(#message, &vars)));
                }
            }
        }
        StepPlan::Resolve {
            var,
            resolver,
            value,
            scope,
        } => {
            let local = ident(var);
            // The id comes from the resolver's list: the API's, like an answer.
            answers.push((var.clone(), index + 1));
            let resolver = &plan.resolvers[*resolver];
            let resolve_fn = ident(&format!("resolve_{}", resolver.ident));
            let argument = match value {
                ValueRef::Input(index) => Some(tool.params[*index].name.as_str()),
                _ => None,
            };
            let value = value_expr(tool, value);
            let integer = resolver.id_integer;
            let (scope_decl, scope_arg) = if resolver.scope.is_empty() {
                (quote! {}, quote! {})
            } else if scope.is_empty() {
                // Only the value searched for, which the resolver adds itself.
                (quote! { let scope = serde_json::Map::new(); }, quote! { &scope, })
            } else {
                let names = scope.iter().map(|(name, _)| name);
                let values = scope.iter().map(|(_, value)| value_expr(tool, value));
                (
                    quote! { let scope = curated::scope([ #( (#names, #values) ),* ]); },
                    quote! { &scope, },
                )
            };
            // An unknown value is the model's to fix when it gave it as an argument.
            let explain = match argument {
                Some(param) => quote! { .for_argument(#tool_name, #param) },
                None => {
                    let step_number = Literal::usize_unsuffixed(index + 1);
                    let what = &resolver.name;
                    quote! { .in_step(#step_number, #what) }
                }
            };
            quote! {
                let #local = {
                    let value = #value;
                    if value.is_null() {
                        serde_json::Value::Null
                    } else {
                        #scope_decl
                        let id = client
                            .#resolve_fn(#scope_arg &curated::text(&value))
                            .await
                            .map_err(|e| e.explain(ERRORS, &vars) #explain)?;
                        curated::id_value(id, #integer)?
                    }
                };
            }
        }
        StepPlan::Find {
            var,
            list,
            conditions,
            missing,
            ambiguous,
        } => {
            let local = ident(var);
            // The item found is part of the answer the list came from.
            if let Some(step) = answer_step(list, &answers) {
                answers.push((var.clone(), step));
            }
            let (list_value, list_pointer) = match list {
                ValueRef::Step { var, pointer } => {
                    let var = ident(var);
                    (quote! { &#var }, pointer.clone())
                }
                other => {
                    let value = value_expr(tool, other);
                    (quote! { &#value }, String::new())
                }
            };
            let condition_values: Vec<TokenStream> = conditions
                .iter()
                .map(|(_, value)| value_expr(tool, value))
                .collect();
            let condition_fields: Vec<&String> = conditions.iter().map(|(field, _)| field).collect();
            let wanted: Vec<proc_macro2::Ident> = (0..conditions.len()).map(|i| ident(&format!("wanted_{i}"))).collect();
            last_var = Some(var.clone());
            // `{available}` in the message: the values the list had, in the first `where` field.
            let missing_message = match condition_fields.first() {
                Some(field) if missing.contains("{available}") => quote! {{
                    let available = curated::item_values(#list_value, #list_pointer, #field);
                    let mut vars = vars.clone();
                    vars.push(("available", available.as_str()));
                    curated::fill(#missing, &vars)
                }},
                _ => quote! { curated::fill(#missing, &vars) },
            };
            quote! {
                #( let #wanted = #condition_values; )*
                let #local = curated::find_one(#list_value, #list_pointer, &[#( (#condition_fields, &#wanted) ),*])
                    .map_err(|candidates| {
                        let mut vars = vars.clone();
                        vars.push(("candidates", candidates.as_str()));
                        ToolError::InvalidArguments(curated::fill(#ambiguous, &vars))
                    })?;
                let Some(#local) = #local else {
                    return Err(ToolError::InvalidArguments(#missing_message));
                };
            }
        }
    });
    let statements: Vec<TokenStream> = statements.collect();
    let result = match &tool.results.source {
        Some(value) => value_expr(tool, value),
        // The answer of the last step that ran.
        None => {
            let fallback = match result_fallback {
                Some(var) => {
                    let var = ident(var);
                    quote! { #var }
                }
                // Calls chosen by `when`, none of which ran: nothing was done, and the model is
                // told so rather than given an empty success.
                None if !result_alternatives.is_empty() => quote! {
                    return Err(ToolError::InvalidArguments(
                        "None of this tool's calls applies to these arguments, so nothing was done. Check the arguments that choose what the tool does.".into(),
                    ))
                },
                None => quote! { serde_json::Value::Null },
            };
            if result_alternatives.is_empty() {
                fallback
            } else {
                let branches = result_alternatives.iter().map(|(number, var)| {
                    let ran = ran_local(*number);
                    let var = ident(var);
                    quote! { if #ran { #var } }
                });
                quote! { #( #branches )else* else { #fallback } }
            }
        }
    };
    // A choice of answers is settled first, so the shaping reads one.
    let (settle, result) = if result_alternatives.is_empty() || tool.results.source.is_some() {
        (quote! {}, result)
    } else {
        (quote! { let answer = #result; }, quote! { answer })
    };
    let finish = if list_result {
        quote! {}
    } else {
        let shaped = shape_result(result);
        quote! {
            #settle
            #shaped
        }
    };
    let body: Vec<&TokenStream> = statements.iter().chain([&finish]).collect();
    let arg_values = read_locals(arg_values, &body);
    (
        module_items,
        quote! {
            #( #arg_values )*
            #( #statements )*
            #finish
        },
    )
}
