//! The handler of one operation, shared by a one-to-one tool in `src/tools.rs` and a discovery
//! operation in `src/operations.rs`, so that both check arguments the same way.

use crate::plan::{FieldType, OperationPlan};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::syntax::ident;

/// `call`: parses the arguments into the operation's parameter struct, checks them, calls the
/// operation and returns its result (under `result` with `wrap`). One-to-one tools and the
/// discovery tools' operations share this handler, so both check arguments the same way.
pub(super) fn operation_handler(operation: &OperationPlan, wrap: bool) -> TokenStream {
    let params_type = ident(&operation.params_type);
    let fn_name = ident(&operation.fn_name);
    let checks = operation.fields.iter().filter_map(|field| {
        let FieldType::Integer {
            allowed: Some(allowed),
        } = &field.ty
        else {
            return None;
        };
        let property = &field.property;
        let value = ident(&field.ident);
        let value = if field.required {
            quote! { Some(params.#value) }
        } else {
            quote! { params.#value }
        };
        let allowed = allowed.iter().map(|v| Literal::i64_unsuffixed(*v));
        Some(quote! { runtime::check_one_of(#property, #value, &[#(#allowed),*])?; })
    });
    let (parse, args) = if operation.fields.is_empty() {
        (
            quote! { let client::#params_type {} = runtime::parse_arguments(arguments)?; },
            quote! {},
        )
    } else {
        (
            quote! { let params: client::#params_type = runtime::parse_arguments(arguments)?; },
            quote! { &params },
        )
    };
    let call = if wrap {
        quote! { Ok(serde_json::json!({ "result": client.#fn_name(#args).await? }).into()) }
    } else {
        quote! { Ok(client.#fn_name(#args).await?.into()) }
    };
    quote! {
        pub async fn call(client: Arc<Client>, arguments: JsonObject) -> Result<ToolOutput, ToolError> {
            #parse
            #( #checks )*
            #call
        }
    }
}
