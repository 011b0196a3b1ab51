//! `src/client.rs` of a generated crate: the client of the API, one method and one parameter
//! struct per operation.

use crate::api::{BodyKind, CredentialSource, Location};
use crate::emit;
use crate::plan::{Field, FieldTarget, FieldType, OperationPlan, Plan};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::direct;
use super::syntax::{
    OPERATIONS_PER_PART, collect_enums, doc_lines, docs, enum_type, ident, rust_type,
};

/// `src/client.rs`: the upstream client, one method and one parameter struct per operation. In
/// parts: the head (imports, `Client` and its constructor), the methods one operation at a time
/// (each an `impl Client` block that continues the one before, so that a method the writer does
/// not lay out is printed and formatted alone), the resolvers, and the parameter structs a chunk
/// of operations at a time.
pub fn client_rs(plan: &Plan) -> Vec<emit::Part<'_>> {
    let head = emit::Part::direct(
        move || write_client_head(plan, plan.operations.is_empty()),
        move || client_head(plan),
    );
    let mut parts = vec![if plan.operations.is_empty() {
        head
    } else {
        head.continued()
    }];
    let upload_env = format!("{}_UPLOAD_DIR", plan.server.env_prefix);
    let count = plan.operations.len();
    for (index, operation) in plan.operations.iter().enumerate() {
        let last = index + 1 == count;
        let upload_env = upload_env.clone();
        let build_env = upload_env.clone();
        let method = emit::Part::direct(
            move || {
                let mut text = String::new();
                write_method(&mut text, operation, &upload_env)?;
                if last {
                    text.push_str("}\n");
                }
                Some(text)
            },
            move || {
                let method = client_method(operation, &build_env);
                quote! {
                    impl Client {
                        #method
                    }
                }
            },
        )
        .continues();
        parts.push(if last { method } else { method.continued() });
    }
    parts.push(emit::Part::items(move || super::curated::resolvers(plan)));
    for chunk in plan.operations.chunks(OPERATIONS_PER_PART) {
        parts.push(emit::Part::direct(
            move || {
                let mut text = String::new();
                for operation in chunk {
                    write_params_struct(&mut text, operation)?;
                }
                Some(emit::spaced(&text))
            },
            move || {
                let params = chunk.iter().map(params_struct);
                quote! { #( #params )* }
            },
        ));
    }
    parts
}

/// [`params_struct`] written directly in rustfmt's layout (see [`direct`]), each item after a
/// blank line but the first; `None` if some line would not fit.
fn write_params_struct(out: &mut String, operation: &OperationPlan) -> Option<()> {
    if !out.is_empty() {
        out.push('\n');
    }
    let doc = format!(
        " The parameters of `{}` (`{}`).",
        operation.api_id,
        operation.label()
    );
    direct::doc_line(out, "", &doc)?;
    out.push_str("#[derive(Debug, Clone, serde::Deserialize)]\n#[serde(deny_unknown_fields)]\n");
    let mut line = String::new();
    if operation.fields.is_empty() {
        direct::push_line(out, &format!("pub struct {} {{}}", operation.params_type))?;
    } else {
        direct::push_line(out, &format!("pub struct {} {{", operation.params_type))?;
        for field in &operation.fields {
            if let Some(text) = field.description.as_deref().map(str::trim) {
                if !text.is_empty() {
                    for doc in doc_lines(text) {
                        line.clear();
                        line.push(' ');
                        line.push_str(&doc);
                        direct::doc_line(out, "    ", &line)?;
                    }
                }
                out.push_str("    ///\n");
            }
            let location = format!(" `{}`: {}.", field.api_name, target_text(&field.target));
            direct::doc_line(out, "    ", &location)?;
            if field.ident != field.property {
                direct::serde_rename(out, "    ", &direct::string_literal(&field.property)?)?;
            }
            line.clear();
            line.push_str("    pub ");
            line.push_str(&field.ident);
            line.push_str(": ");
            if !field.required {
                line.push_str("Option<");
            }
            write_type(&mut line, &field.ty);
            if !field.required {
                line.push('>');
            }
            line.push(',');
            direct::push_line(out, &line)?;
        }
        out.push_str("}\n");
    }
    let mut enums = Vec::new();
    for field in &operation.fields {
        collect_enums(&field.ty, &mut enums);
    }
    for found in enums {
        out.push('\n');
        write_enum_type(out, found)?;
    }
    Some(())
}

/// [`client_method`] written directly in rustfmt's layout (see [`direct`]): the members of the
/// `impl Client` block at its indentation, each after a blank line (`upload_env` names the
/// variable of a multipart body's upload directory); `None` where the writer does not lay out
/// what the method holds (a styled path segment, a form or multipart body that is
/// the whole body, text that is not ASCII) or a width is too close to one of rustfmt's limits to
/// decide.
fn write_method(out: &mut String, operation: &OperationPlan, upload_env: &str) -> Option<()> {
    write_method_variant(out, operation, false, upload_env)?;
    if operation.link_paged {
        write_method_variant(out, operation, true, upload_env)?;
    }
    Some(())
}

/// The indentation of a method's body.
const BODY: &str = "        ";
/// The indentation of a chain's links and a call's arguments in a method's body.
const NESTED: &str = "            ";

/// [`client_method_variant`] written directly (see [`write_method`]).
fn write_method_variant(
    out: &mut String,
    operation: &OperationPlan,
    page: bool,
    upload_env: &str,
) -> Option<()> {
    if !out.is_empty() {
        out.push('\n');
    }
    let label = operation.label();
    let doc = match (&operation.summary, page) {
        (_, true) => format!(
            " One page of `{}`: the body and the `Link` header; `next` follows a next-page link.",
            operation.api_id
        ),
        (Some(summary), false) => format!(" {summary} — `{label}` (`{}`).", operation.api_id),
        (None, false) => format!(" `{label}` (`{}`).", operation.api_id),
    };
    direct::doc_line(out, "    ", &doc)?;
    let mut params = vec!["&self".to_string()];
    if !operation.fields.is_empty() {
        params.push(format!("params: &{}", operation.params_type));
    }
    let returns = if page {
        params.push("next: Option<&str>".into());
        "Result<(Value, Option<String>), ToolError>"
    } else {
        "Result<Value, ToolError>"
    };
    let name = if page {
        format!("{}_page", operation.fn_name)
    } else {
        operation.fn_name.clone()
    };
    direct::ascii(&name)?;
    let signature = format!(
        "    pub async fn {name}({}) -> {returns} {{",
        params.join(", ")
    );
    if signature.len() <= direct::MAX_WIDTH {
        out.push_str(&signature);
        out.push('\n');
    } else {
        // A name too long for the line leaves it wider than rustfmt's width: rustfmt keeps
        // the parameters a line each below it as when it fits (the lines below must fit).
        out.push_str(&format!("    pub async fn {name}(\n"));
        for param in &params {
            direct::push_line(out, &format!("        {param},"))?;
        }
        direct::push_line(out, &format!("    ) -> {returns} {{"))?;
    }
    let body_fields: Vec<&Field> = operation
        .fields
        .iter()
        .filter(|f| f.target == FieldTarget::BodyProperty)
        .collect();
    let whole_body = operation
        .fields
        .iter()
        .find(|f| f.target == FieldTarget::WholeBody);
    let mut send_body = None;
    let mut statement = None;
    if let Some(body) = &operation.body {
        if !body_fields.is_empty() {
            out.push_str("        let mut body = Map::new();\n");
            for field in &body_fields {
                let args = [
                    "&mut body".to_string(),
                    direct::string_literal(direct::ascii(&field.api_name)?)?,
                    format!("&params.{}", field.ident),
                ];
                direct::call(out, BODY, "runtime::put", &args, ";")?;
            }
            send_body = Some(match body.kind {
                BodyKind::Form => ("form", vec!["body".to_string()]),
                BodyKind::Multipart => {
                    let files = body
                        .files
                        .iter()
                        .map(|file| direct::string_literal(direct::ascii(file)?))
                        .collect::<Option<Vec<_>>>()?;
                    let files = format!("&[{}]", files.join(", "));
                    // An array of files wide enough for rustfmt to break is not laid out.
                    if files.len() > 40 {
                        return None;
                    }
                    let env = direct::string_literal(direct::ascii(upload_env)?)?;
                    ("multipart", vec!["body".to_string(), files, env])
                }
                _ => ("json", vec!["Value::Object(body)".to_string()]),
            });
        } else if let Some(field) = whole_body {
            statement = Some(write_whole_body(field, body)?);
        }
    }
    write_request_chain(out, operation, send_body)?;
    if let Some(statement) = statement {
        out.push_str(&statement);
    }
    if page {
        out.push_str(
            "        let request = match next {\n            Some(link) => request.follow(link),\n            None => request,\n        };\n        self.upstream.send_with_link(request).await\n",
        );
    } else {
        out.push_str("        self.upstream.send(request).await\n");
    }
    out.push_str("    }\n");
    Some(())
}

/// The statement that adds the request body made of `field`, the whole body, to the request:
/// a JSON or text body (the writer does not lay out the others).
fn write_whole_body(field: &Field, body: &crate::plan::BodyPlan) -> Option<String> {
    let (method, args) = match body.kind {
        BodyKind::Json => (
            "json",
            vec!["serde_json::to_value(body).unwrap_or(Value::Null)".to_string()],
        ),
        BodyKind::Text => (
            "text",
            vec![
                direct::string_literal(direct::ascii(&body.content_type)?)?,
                "body.to_string()".to_string(),
            ],
        ),
        BodyKind::Form | BodyKind::Multipart => return None,
    };
    let mut out = String::new();
    let mut made = String::new();
    // A chain of one link (`request.json(…)`) stays on one line when it fits.
    let head = format!("request.{method}");
    if field.required {
        out.push_str(BODY);
        out.push_str("let request = {\n");
        direct::push_line(
            &mut out,
            &format!("{NESTED}let body = &params.{};", field.ident),
        )?;
        direct::call(&mut made, NESTED, &head, &args, "")?;
        if made.lines().count() != 1 {
            return None;
        }
        out.push_str(&made);
        out.push_str(BODY);
        out.push_str("};\n");
    } else {
        direct::push_line(
            &mut out,
            &format!("{BODY}let request = match &params.{} {{", field.ident),
        )?;
        direct::call(
            &mut made,
            NESTED,
            &format!("Some(body) => {head}"),
            &args,
            ",",
        )?;
        if made.lines().count() != 1 {
            return None;
        }
        out.push_str(&made);
        out.push_str(NESTED);
        out.push_str("None => request,\n");
        out.push_str(BODY);
        out.push_str("};\n");
    }
    Some(out)
}

/// `let request = self.upstream.request(…)…;`, the chain that builds the request, as rustfmt
/// lays out such a chain in a `let` statement: on one line when it is short; when the chain is
/// only `.request(…)` and its arguments do not fit beside `self.upstream`, either the chain goes
/// on the next line (`self.upstream` and `.request(…)`, when the call fits on one line) or the
/// call overflows (`self.upstream.request(` and one argument a line); else one link a line. A
/// label too long for any of these lines makes rustfmt leave the statement as printed
/// ([`write_printed_chain`]). An operation with a server of its own starts with
/// `.request_on(server, …)`.
fn write_request_chain(
    out: &mut String,
    operation: &OperationPlan,
    send_body: Option<(&str, Vec<String>)>,
) -> Option<()> {
    let segments = segment_texts(operation)?;
    let array_width = direct::list_width(&segments);
    let mut request_args = Vec::with_capacity(4);
    let head = match &operation.server {
        Some(server) => {
            request_args.push(direct::string_literal(direct::ascii(server)?)?);
            ".request_on"
        }
        None => ".request",
    };
    request_args.push(format!("reqwest::Method::{}", operation.method.as_upper()));
    request_args.push(direct::string_literal(direct::ascii(&operation.label())?)?);
    request_args.push(format!("&[{}]", segments.join(", ")));
    let mut steps: Vec<(String, Vec<String>)> = step_calls(operation)?;
    if let Some((method, args)) = send_body {
        steps.push((format!(".{method}"), args));
    }
    // The label's line in the layouts that give it the least indentation: the overflowed call
    // (`.request(…)` alone) and one link a line.
    let label = request_args[request_args.len() - 2].len() + 1;
    if NESTED.len() + label > direct::MAX_WIDTH
        || (!steps.is_empty() && NESTED.len() + 4 + label > direct::MAX_WIDTH)
    {
        return write_printed_chain(out, head, &request_args, &segments, &steps);
    }
    // A segment is a chain of its own: within a chain's width, it stays on one line; one of
    // several parts wider than that is broken, one call a line (see `write_request_args`).
    if segments
        .iter()
        .any(|segment| segment.len() > direct::CALL_WIDTH && !segment.ends_with(CONCAT))
    {
        return None;
    }
    let args_width = direct::list_width(&request_args);
    if steps.is_empty() {
        if operation.server.is_some() {
            return None;
        }
        // `self` and `.upstream` take 13 columns of the chain's 60; `.request()` 10 more.
        if args_width <= 37 {
            return direct::push_line(
                out,
                &format!(
                    "{BODY}let request = self.upstream.request({});",
                    request_args.join(", ")
                ),
            );
        }
        if args_width <= 54 {
            out.push_str(BODY);
            out.push_str("let request = self\n");
            out.push_str(NESTED);
            out.push_str(".upstream\n");
            return direct::call(out, NESTED, ".request", &request_args, ";");
        }
        // Overflowed, the call takes five lines; rustfmt prefers the chain on the next line
        // (`self.upstream` joined there) when that takes two, i.e. when `.request(…)` fits on
        // one line of a chain.
        if args_width <= direct::CALL_WIDTH {
            out.push_str(BODY);
            out.push_str("let request =\n");
            out.push_str(NESTED);
            out.push_str("self.upstream\n");
            return direct::call(
                out,
                &format!("{NESTED}    "),
                ".request",
                &request_args,
                ";",
            );
        }
        out.push_str(BODY);
        out.push_str("let request = self.upstream.request(\n");
        write_request_args(out, NESTED, &request_args, &segments, array_width)?;
        out.push_str(BODY);
        out.push_str(");\n");
        return Some(());
    }
    // The chain on one line would take at least `self.upstream.request()` and a step: far beyond
    // the 60 columns of a chain, unless every argument is tiny.
    let one_line = 13
        + head.len()
        + 2
        + args_width
        + steps
            .iter()
            .map(|(h, a)| h.len() + 2 + direct::list_width(a))
            .sum::<usize>();
    if one_line <= direct::CALL_WIDTH + 4 {
        return None;
    }
    out.push_str(BODY);
    out.push_str("let request = self\n");
    out.push_str(NESTED);
    out.push_str(".upstream\n");
    let line = NESTED.len() + head.len() + 2 + args_width;
    if args_width <= direct::CALL_WIDTH && line <= direct::MAX_WIDTH {
        out.push_str(NESTED);
        out.push_str(head);
        out.push('(');
        out.push_str(&request_args.join(", "));
        out.push_str(")\n");
    } else {
        out.push_str(NESTED);
        out.push_str(head);
        out.push_str("(\n");
        write_request_args(
            out,
            &format!("{NESTED}    "),
            &request_args,
            &segments,
            array_width,
        )?;
        out.push_str(NESTED);
        out.push_str(")\n");
    }
    let last = steps.len() - 1;
    for (index, (head, args)) in steps.iter().enumerate() {
        let suffix = if index == last { ";" } else { "" };
        direct::call(out, NESTED, head, args, suffix)?;
    }
    Some(())
}

/// prettyplease's margin: a group that does not fit before this column is broken.
const PRINT_MARGIN: usize = 89;

/// The request chain as prettyplease prints it, which is what rustfmt leaves of a statement it
/// cannot fit in its width (here: a label too long for its line): one link a line, the request's
/// arguments one a line, the segments' array on one line if it ends by prettyplease's margin (89
/// columns), else one segment a line, and each step on one line if it ends by the margin, else
/// one argument a line (`None`, the writer gives up, where prettyplease would break a segment or
/// an argument).
fn write_printed_chain(
    out: &mut String,
    head: &str,
    request_args: &[String],
    segments: &[String],
    steps: &[(String, Vec<String>)],
) -> Option<()> {
    out.push_str(BODY);
    out.push_str("let request = self\n");
    out.push_str(NESTED);
    out.push_str(".upstream\n");
    out.push_str(NESTED);
    out.push_str(head);
    out.push_str("(\n");
    let (array, args) = request_args.split_last()?;
    let indent = format!("{NESTED}    ");
    for arg in args {
        out.push_str(&indent);
        out.push_str(arg);
        out.push_str(",\n");
    }
    if segments.is_empty() || indent.len() + array.len() <= PRINT_MARGIN {
        out.push_str(&indent);
        out.push_str(array);
        out.push_str(",\n");
    } else {
        out.push_str(&indent);
        out.push_str("&[\n");
        let element = format!("{indent}    ");
        for (index, segment) in segments.iter().enumerate() {
            // The last element's comma is not printed as part of its line (prettyplease adds it
            // when it breaks the array), so it may end at the margin.
            let comma = usize::from(index + 1 < segments.len());
            if element.len() + segment.len() + comma > PRINT_MARGIN {
                write_broken_segment(out, &element, segment, |width| {
                    element.len() + width <= PRINT_MARGIN
                })?;
                continue;
            }
            out.push_str(&element);
            out.push_str(segment);
            out.push_str(",\n");
        }
        out.push_str(&indent);
        out.push_str("],\n");
    }
    out.push_str(NESTED);
    out.push(')');
    if steps.is_empty() {
        out.push_str(";\n");
        return Some(());
    }
    out.push('\n');
    let last = steps.len() - 1;
    for (index, (name, args)) in steps.iter().enumerate() {
        let suffix = if index == last { ";" } else { "" };
        let line = format!("{NESTED}{name}({}){suffix}", args.join(", "));
        if line.len() <= PRINT_MARGIN {
            out.push_str(&line);
            out.push('\n');
            continue;
        }
        out.push_str(NESTED);
        out.push_str(name);
        out.push_str("(\n");
        for arg in args {
            if indent.len() + arg.len() + 1 > PRINT_MARGIN {
                return None;
            }
            out.push_str(&indent);
            out.push_str(arg);
            out.push_str(",\n");
        }
        out.push_str(NESTED);
        out.push(')');
        out.push_str(suffix);
        out.push('\n');
    }
    Some(())
}

/// The arguments of `.request(…)` one a line at `indent`: the server, if any, the method, the
/// label and the array of the path's segments, on one line if it fits, else one segment a line
/// (rustfmt's mixed layout of an array of short items is not written: the writer gives up on it).
fn write_request_args(
    out: &mut String,
    indent: &str,
    args: &[String],
    segments: &[String],
    array_width: usize,
) -> Option<()> {
    let (array, args) = args.split_last()?;
    for arg in args {
        direct::push_line(out, &format!("{indent}{arg},"))?;
    }
    let line = indent.len() + array_width + 4;
    if array_width <= direct::CALL_WIDTH && line <= direct::MAX_WIDTH {
        out.push_str(indent);
        out.push_str(array);
        out.push_str(",\n");
        return Some(());
    }
    if segments.iter().all(|segment| segment.len() <= 12) {
        return None;
    }
    out.push_str(indent);
    out.push_str("&[\n");
    let element = format!("{indent}    ");
    for segment in segments {
        if segment.len() > direct::CALL_WIDTH
            || element.len() + segment.len() + 1 > direct::MAX_WIDTH
        {
            // The array of the parts: on one line within `array_width` and `max_width`.
            write_broken_segment(out, &element, segment, |width| {
                width - 2 <= direct::CALL_WIDTH && element.len() + width <= direct::MAX_WIDTH
            })?;
            continue;
        }
        out.push_str(&element);
        out.push_str(segment);
        out.push_str(",\n");
    }
    out.push_str(indent);
    out.push_str("],\n");
    Some(())
}

/// [`path_segments`] as text; `None` for a segment the writer does not lay out (a styled path
/// parameter). A segment of several parts is `[…].concat().as_str()` (see [`CONCAT`]).
fn segment_texts(operation: &OperationPlan) -> Option<Vec<String>> {
    operation
        .path
        .split('/')
        .filter(|segment| !segment.is_empty())
        .map(|segment| {
            let parts = split_template(segment);
            let texts = parts
                .iter()
                .map(|part| match part {
                    Part::Literal(text) => direct::string_literal(direct::ascii(text)?),
                    Part::Param(name) => match operation.fields.iter().find(|f| {
                        f.target == FieldTarget::Param(Location::Path) && f.api_name == *name
                    }) {
                        Some(Field { style: Some(_), .. }) => None,
                        Some(field) => Some(match field.ty {
                            FieldType::String => format!("params.{}.as_str()", field.ident),
                            FieldType::Integer { .. }
                            | FieldType::Number
                            | FieldType::Boolean
                            | FieldType::StringEnum { .. } => {
                                format!("params.{}.to_string().as_str()", field.ident)
                            }
                            _ => format!("runtime::path_text(&params.{}).as_str()", field.ident),
                        }),
                        None => direct::string_literal(direct::ascii(&format!("{{{name}}}"))?),
                    },
                })
                .collect::<Option<Vec<String>>>()?;
            match texts.as_slice() {
                [one] => Some(one.clone()),
                many => Some(format!("[{}]{CONCAT}", many.join(", "))),
            }
        })
        .collect()
}

/// What follows the array of a segment's parts.
const CONCAT: &str = ".concat().as_str()";

/// `segment` as an element of an array laid out one element a line at `indent`, when it does not
/// fit on its line: a segment of several parts as a chain broken one call a line (the array of
/// its parts on the element's line, when `fits` its width); `None` for any other.
fn write_broken_segment(
    out: &mut String,
    indent: &str,
    segment: &str,
    fits: impl Fn(usize) -> bool,
) -> Option<()> {
    let parts = segment.strip_suffix(CONCAT)?;
    if !parts.starts_with('[') || !fits(parts.len()) {
        return None;
    }
    out.push_str(indent);
    out.push_str(parts);
    out.push('\n');
    out.push_str(indent);
    out.push_str("    .concat()\n");
    out.push_str(indent);
    out.push_str("    .as_str(),\n");
    Some(())
}

/// The chain's steps after `.request(…)` (see [`client_method_variant`]), as `(.method, args)`.
fn step_calls(operation: &OperationPlan) -> Option<Vec<(String, Vec<String>)>> {
    let mut steps = Vec::new();
    for segment in operation.path.split('/') {
        let parts = split_template(segment);
        if parts.len() < 2 {
            continue;
        }
        for part in parts {
            let Part::Param(name) = part else { continue };
            if let Some(field) = operation.fields.iter().find(|f| {
                f.target == FieldTarget::Param(Location::Path)
                    && f.api_name == name
                    && f.ty == FieldType::String
                    && f.required
                    && f.style.is_none()
            }) {
                steps.push((
                    ".path_value".to_string(),
                    vec![
                        direct::string_literal(direct::ascii(&name)?)?,
                        format!("params.{}.as_str()", field.ident),
                    ],
                ));
            }
        }
    }
    for field in &operation.fields {
        let FieldTarget::Param(location @ (Location::Query | Location::Header | Location::Cookie)) =
            field.target
        else {
            continue;
        };
        let name = direct::string_literal(direct::ascii(&field.api_name)?)?;
        let value = format!("&params.{}", field.ident);
        steps.push(match field.style {
            None => (format!(".{}", location.as_str()), vec![name, value]),
            Some(style) => (
                format!(".{}_styled", location.as_str()),
                vec![
                    name,
                    value,
                    format!("runtime::Style::{}", style.style.variant()),
                    style.explode.to_string(),
                ],
            ),
        });
    }
    for param in operation.credentials.iter().filter(|param| param.required) {
        let carries = match &param.source {
            CredentialSource::Bearer => "runtime::Carries::Bearer".to_string(),
            CredentialSource::ApiKey(key) => format!(
                "runtime::Carries::ApiKey({})",
                direct::string_literal(direct::ascii(key)?)?
            ),
            CredentialSource::Sent | CredentialSource::Missing { .. } => continue,
        };
        let place = match (param.location, operation.body.as_ref().map(|b| b.kind)) {
            (Some(Location::Query), _) => "Query",
            (Some(Location::Header), _) => "Header",
            (Some(Location::Cookie), _) => "Cookie",
            (Some(Location::Path), _) => continue,
            (None, Some(BodyKind::Form)) => "Form",
            (None, Some(BodyKind::Multipart)) => "Multipart",
            (None, _) => "Json",
        };
        steps.push((
            ".carry".to_string(),
            vec![
                format!("runtime::CarriedIn::{place}"),
                direct::string_literal(direct::ascii(&param.name)?)?,
                carries,
            ],
        ));
    }
    Some(steps)
}

/// [`rust_type`] as text.
fn write_type(out: &mut String, ty: &FieldType) {
    match ty {
        FieldType::String => out.push_str("String"),
        FieldType::Integer { .. } => out.push_str("i64"),
        FieldType::Number => out.push_str("f64"),
        FieldType::Boolean => out.push_str("bool"),
        FieldType::StringEnum { type_name, .. } => out.push_str(type_name),
        FieldType::List(item) => {
            out.push_str("Vec<");
            write_type(out, item);
            out.push('>');
        }
        FieldType::Json => out.push_str("Value"),
    }
}

/// [`enum_type`] written directly in rustfmt's layout; `None` if some line would not fit, or the
/// enum has no variants.
fn write_enum_type(
    out: &mut String,
    (name, variants): (&String, &Vec<(String, String)>),
) -> Option<()> {
    if variants.is_empty() {
        return None;
    }
    let values: Vec<String> = variants
        .iter()
        .map(|(_, value)| format!("`{value}`"))
        .collect();
    direct::doc_line(out, "", &format!(" One of {}.", values.join(", ")))?;
    out.push_str(
        "#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]\n",
    );
    direct::push_line(out, &format!("pub enum {name} {{"))?;
    let literals: Vec<String> = variants
        .iter()
        .map(|(_, value)| direct::string_literal(value))
        .collect::<Option<_>>()?;
    for ((variant, _), literal) in variants.iter().zip(&literals) {
        direct::serde_rename(out, "    ", literal)?;
        direct::push_line(out, &format!("    {variant},"))?;
    }
    out.push_str("}\n\n");
    direct::push_line(out, &format!("impl {name} {{"))?;
    out.push_str(
        "    /// The value as the API spells it.\n    pub fn as_str(self) -> &'static str {\n        match self {\n",
    );
    for ((variant, _), literal) in variants.iter().zip(&literals) {
        direct::match_arm(out, "            ", &format!("{name}::{variant}"), literal)?;
    }
    out.push_str("        }\n    }\n}\n\n");
    direct::push_line(out, &format!("impl std::fmt::Display for {name} {{"))?;
    out.push_str(
        "    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {\n        f.write_str(self.as_str())\n    }\n}\n\n",
    );
    direct::push_line(
        out,
        &format!("impl crate::runtime::ParamValue for {name} {{"),
    )?;
    out.push_str(
        "    fn texts(&self) -> Vec<String> {\n        vec![self.as_str().to_string()]\n    }\n}\n",
    );
    Some(())
}

/// [`client_head`] written directly in rustfmt's layout (its imports as rustfmt sorts them),
/// with the `impl Client` block's closing line when `closed` (no methods follow); `None` if the
/// title's doc line would not be a `//!` line.
fn write_client_head(plan: &Plan, closed: bool) -> Option<String> {
    let title = format!(
        " The client of {}: one method per operation the tools call.",
        super::the_api(&plan.server.title)
    );
    let mut out = String::with_capacity(1024);
    direct::inner_doc_line(&mut out, &title)?;
    out.push('\n');
    let uses_body = plan.operations.iter().any(|op| {
        op.body.as_ref().is_some_and(|b| {
            b.kind != BodyKind::Text
                && op
                    .fields
                    .iter()
                    .any(|f| f.target == FieldTarget::BodyProperty)
        })
    });
    let map_import = if uses_body {
        "use serde_json::{Map, Value};\n"
    } else {
        "use serde_json::Value;\n"
    };
    // As rustfmt sorts them.
    if !plan.resolvers.is_empty() {
        out.push_str("use crate::runtime::curated;\n");
    }
    out.push_str("use crate::runtime::{self, ToolError, Upstream};\n");
    out.push_str(map_import);
    let has_caches = plan
        .resolvers
        .iter()
        .any(|r| matches!(r.source, crate::plan::curated::ResolverSource::List { .. }));
    out.push_str(
        "\n/// The API client, holding the HTTP connection pool and the server's credentials.\npub struct Client {\n    upstream: Upstream,\n",
    );
    if has_caches {
        out.push_str("    resolvers: Resolvers,\n");
    }
    out.push_str(
        "}\n\nimpl Client {\n    /// A client for the API at `base_url`, talking to it as `options` say.\n    pub fn new(\n        base_url: &str,\n        credentials: Vec<runtime::Credential>,\n        options: runtime::UpstreamOptions,\n    ) -> anyhow::Result<Self> {\n        Ok(Self {\n            upstream: Upstream::new(base_url, credentials, options)?,\n",
    );
    if has_caches {
        out.push_str("            resolvers: Resolvers::new(),\n");
    }
    out.push_str("        })\n    }\n");
    if super::uses_curated(plan) {
        out.push_str(
            "\n    /// The most pages of a list one call may walk (`--api-max-pages`).\n    pub fn max_pages(&self) -> usize {\n        self.upstream.max_pages()\n    }\n",
        );
    }
    if closed {
        out.push_str("}\n");
    }
    Some(out)
}

/// The head of `src/client.rs`, up to the `impl Client` block's constructor.
fn client_head(plan: &Plan) -> TokenStream {
    let title = format!(
        " The client of {}: one method per operation the tools call.",
        super::the_api(&plan.server.title)
    );
    let uses_body = plan.operations.iter().any(|op| {
        op.body.as_ref().is_some_and(|b| {
            b.kind != BodyKind::Text
                && op
                    .fields
                    .iter()
                    .any(|f| f.target == FieldTarget::BodyProperty)
        })
    });
    let map_import = if uses_body {
        quote! { use serde_json::{Map, Value}; }
    } else {
        quote! { use serde_json::Value; }
    };
    let has_resolvers = !plan.resolvers.is_empty();
    let curated_import = if has_resolvers {
        quote! { use crate::runtime::curated; }
    } else {
        quote! {}
    };
    let has_caches = plan
        .resolvers
        .iter()
        .any(|r| matches!(r.source, crate::plan::curated::ResolverSource::List { .. }));
    let resolvers_field = if has_caches {
        quote! { resolvers: Resolvers, }
    } else {
        quote! {}
    };
    let resolvers_init = if has_caches {
        quote! { resolvers: Resolvers::new(), }
    } else {
        quote! {}
    };
    let max_pages = if super::uses_curated(plan) {
        quote! {
            /// The most pages of a list one call may walk (`--api-max-pages`).
            pub fn max_pages(&self) -> usize {
                self.upstream.max_pages()
            }
        }
    } else {
        quote! {}
    };
    quote! {
        #![doc = #title]

        #map_import

        #curated_import
        use crate::runtime::{self, ToolError, Upstream};

        /// The API client, holding the HTTP connection pool and the server's credentials.
        pub struct Client {
            upstream: Upstream,
            #resolvers_field
        }

        impl Client {
            /// A client for the API at `base_url`, talking to it as `options` say.
            pub fn new(
                base_url: &str,
                credentials: Vec<runtime::Credential>,
                options: runtime::UpstreamOptions,
            ) -> anyhow::Result<Self> {
                Ok(Self { upstream: Upstream::new(base_url, credentials, options)?, #resolvers_init })
            }

            #max_pages
        }
    }
}

fn client_method(operation: &OperationPlan, upload_env: &str) -> TokenStream {
    let plain = client_method_variant(operation, false, upload_env);
    if operation.link_paged {
        let paged = client_method_variant(operation, true, upload_env);
        quote! { #plain #paged }
    } else {
        plain
    }
}

/// The method that calls `operation`; with `page`, the variant that follows a next-page link
/// and returns the response's `Link` header too.
fn client_method_variant(operation: &OperationPlan, page: bool, upload_env: &str) -> TokenStream {
    let fn_name = if page {
        ident(&format!("{}_page", operation.fn_name))
    } else {
        ident(&operation.fn_name)
    };
    let params_type = ident(&operation.params_type);
    let label = operation.label();
    let (page_arg, returns, send) = if page {
        (
            quote! { , next: Option<&str> },
            quote! { Result<(Value, Option<String>), ToolError> },
            quote! {
                let request = match next {
                    Some(link) => request.follow(link),
                    None => request,
                };
                self.upstream.send_with_link(request).await
            },
        )
    } else {
        (
            quote! {},
            quote! { Result<Value, ToolError> },
            quote! { self.upstream.send(request).await },
        )
    };
    let doc = match (&operation.summary, page) {
        (_, true) => format!(
            " One page of `{}`: the body and the `Link` header; `next` follows a next-page link.",
            operation.api_id
        ),
        (Some(summary), false) => format!(" {summary} — `{label}` (`{}`).", operation.api_id),
        (None, false) => format!(" `{label}` (`{}`).", operation.api_id),
    };
    let method = ident(operation.method.as_upper());
    let segments = path_segments(operation);
    // An operation with a server of its own is called there, not at the base URL.
    let start = match &operation.server {
        Some(server) => {
            quote! { .request_on(#server, reqwest::Method::#method, #label, &[#(#segments),*]) }
        }
        None => quote! { .request(reqwest::Method::#method, #label, &[#(#segments),*]) },
    };
    let mut steps = Vec::new();
    // A text path parameter that shares its segment with other text is checked on its own.
    for segment in operation.path.split('/') {
        let parts = split_template(segment);
        if parts.len() < 2 {
            continue;
        }
        for part in parts {
            let Part::Param(name) = part else { continue };
            if let Some(field) = operation.fields.iter().find(|f| {
                f.target == FieldTarget::Param(Location::Path)
                    && f.api_name == name
                    && f.ty == FieldType::String
                    && f.required
                    && f.style.is_none()
            }) {
                let value = ident(&field.ident);
                steps.push(quote! { .path_value(#name, params.#value.as_str()) });
            }
        }
    }
    for field in &operation.fields {
        let name = &field.api_name;
        let value = ident(&field.ident);
        let value = quote! { &params.#value };
        match (&field.target, field.style) {
            (FieldTarget::Param(Location::Query), None) => {
                steps.push(quote! { .query(#name, #value) })
            }
            (FieldTarget::Param(Location::Header), None) => {
                steps.push(quote! { .header(#name, #value) })
            }
            (FieldTarget::Param(Location::Cookie), None) => {
                steps.push(quote! { .cookie(#name, #value) })
            }
            (
                FieldTarget::Param(
                    location @ (Location::Query | Location::Header | Location::Cookie),
                ),
                Some(style),
            ) => {
                let method = format_ident!("{}_styled", location.as_str());
                let variant = format_ident!("{}", style.style.variant());
                let explode = style.explode;
                steps.push(quote! { .#method(#name, #value, runtime::Style::#variant, #explode) });
            }
            _ => {}
        }
    }
    steps.extend(carried_credentials(operation));
    let body_fields: Vec<&Field> = operation
        .fields
        .iter()
        .filter(|f| f.target == FieldTarget::BodyProperty)
        .collect();
    let whole_body = operation
        .fields
        .iter()
        .find(|f| f.target == FieldTarget::WholeBody);
    let mut prelude = TokenStream::new();
    let mut send_body = TokenStream::new();
    if let Some(body) = &operation.body {
        if !body_fields.is_empty() {
            let puts = body_fields.iter().map(|field| {
                let name = &field.api_name;
                let value = ident(&field.ident);
                quote! { runtime::put(&mut body, #name, &params.#value); }
            });
            prelude = quote! {
                let mut body = Map::new();
                #( #puts )*
            };
            send_body = match body.kind {
                BodyKind::Form => quote! { .form(body) },
                BodyKind::Multipart => {
                    let files = &body.files;
                    quote! { .multipart(body, &[#(#files),*], #upload_env) }
                }
                _ => quote! { .json(Value::Object(body)) },
            };
        } else if let Some(field) = whole_body {
            let value = ident(&field.ident);
            let content_type = &body.content_type;
            let make = match body.kind {
                BodyKind::Text => quote! { .text(#content_type, body.to_string()) },
                BodyKind::Form => quote! {
                    .form(serde_json::to_value(body).ok().and_then(|v| v.as_object().cloned()).unwrap_or_default())
                },
                BodyKind::Multipart => quote! {
                    .multipart(serde_json::to_value(body).ok().and_then(|v| v.as_object().cloned()).unwrap_or_default(), &[], #upload_env)
                },
                BodyKind::Json => {
                    quote! { .json(serde_json::to_value(body).unwrap_or(Value::Null)) }
                }
            };
            let bind = quote! { let request = match &params.#value { Some(body) => request #make, None => request }; };
            let bind_required =
                quote! { let request = { let body = &params.#value; request #make }; };
            let statement = if field.required { bind_required } else { bind };
            return quote! {
                #[doc = #doc]
                pub async fn #fn_name(&self, params: &#params_type #page_arg) -> #returns {
                    let request = self
                        .upstream
                        #start
                        #( #steps )*;
                    #statement
                    #send
                }
            };
        }
    }
    let params_arg = if operation.fields.is_empty() {
        quote! {}
    } else {
        quote! { params: &#params_type }
    };
    quote! {
        #[doc = #doc]
        pub async fn #fn_name(&self, #params_arg #page_arg) -> #returns {
            #prelude
            let request = self
                .upstream
                #start
                #( #steps )*
                #send_body;
            #send
        }
    }
}

/// The steps that send the required parameters carrying a credential of `auth` (`.carry(…)`).
/// A key that `auth` sends with every request already, or one it lacks, adds none; nor does an
/// optional parameter: the credential reaches the API by `auth`'s own means (the bearer header,
/// the key's place), and a second copy, in a URL perhaps, would only spread it.
fn carried_credentials(operation: &OperationPlan) -> Vec<TokenStream> {
    operation
        .credentials
        .iter()
        .filter(|param| param.required)
        .filter_map(|param| {
            let carries = match &param.source {
                CredentialSource::Bearer => quote! { runtime::Carries::Bearer },
                CredentialSource::ApiKey(key) => quote! { runtime::Carries::ApiKey(#key) },
                CredentialSource::Sent | CredentialSource::Missing { .. } => return None,
            };
            let place = match (param.location, operation.body.as_ref().map(|b| b.kind)) {
                (Some(Location::Query), _) => quote! { Query },
                (Some(Location::Header), _) => quote! { Header },
                (Some(Location::Cookie), _) => quote! { Cookie },
                (Some(Location::Path), _) => return None,
                (None, Some(BodyKind::Form)) => quote! { Form },
                (None, Some(BodyKind::Multipart)) => quote! { Multipart },
                (None, _) => quote! { Json },
            };
            let name = &param.name;
            Some(quote! { .carry(runtime::CarriedIn::#place, #name, #carries) })
        })
        .collect()
}

/// The expressions for the path's segments: literals as strings, `{name}` as the field's text.
fn path_segments(operation: &OperationPlan) -> Vec<TokenStream> {
    operation
        .path
        .split('/')
        .filter(|segment| !segment.is_empty())
        .map(|segment| {
            let parts = split_template(segment);
            let exprs: Vec<TokenStream> = parts
                .iter()
                .map(|part| match part {
                    Part::Literal(text) => quote! { #text },
                    Part::Param(name) => match operation.fields.iter().find(|f| {
                        f.target == FieldTarget::Param(Location::Path) && f.api_name == *name
                    }) {
                        Some(Field { ident: value, style: Some(style), .. }) => {
                            let value = ident(value);
                            let variant = format_ident!("{}", style.style.variant());
                            let explode = style.explode;
                            quote! { runtime::path_styled(#name, &params.#value, runtime::Style::#variant, #explode).as_str() }
                        }
                        Some(field) => {
                            let value = ident(&field.ident);
                            match field.ty {
                                FieldType::String => quote! { params.#value.as_str() },
                                FieldType::Integer { .. }
                                | FieldType::Number
                                | FieldType::Boolean
                                | FieldType::StringEnum { .. } => {
                                    quote! { params.#value.to_string().as_str() }
                                }
                                // A list (or object) in the path: style `simple`, items joined by commas.
                                _ => quote! { runtime::path_text(&params.#value).as_str() },
                            }
                        }
                        // A template name the operation does not declare: sent literally.
                        None => {
                            let text = format!("{{{name}}}");
                            quote! { #text }
                        }
                    },
                })
                .collect();
            match exprs.as_slice() {
                [one] => one.clone(),
                many => quote! { [#(#many),*].concat().as_str() },
            }
        })
        .collect()
}

enum Part {
    Literal(String),
    Param(String),
}

/// Splits `v{major}.{minor}` into literal and `{param}` parts.
fn split_template(segment: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut rest = segment;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        if open > 0 {
            parts.push(Part::Literal(rest[..open].to_string()));
        }
        parts.push(Part::Param(rest[open + 1..open + close].to_string()));
        rest = &rest[open + close + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Literal(rest.to_string()));
    }
    parts
}
fn params_struct(operation: &OperationPlan) -> TokenStream {
    let name = ident(&operation.params_type);
    let doc = format!(
        " The parameters of `{}` (`{}`).",
        operation.api_id,
        operation.label()
    );
    let mut enums = Vec::new();
    let fields = operation.fields.iter().map(|field| {
        collect_enums(&field.ty, &mut enums);
        let field_ident = ident(&field.ident);
        let ty = rust_type(&field.ty);
        let ty = if field.required {
            ty
        } else {
            quote! { Option<#ty> }
        };
        let rename = if field.ident != field.property {
            let property = &field.property;
            quote! { #[serde(rename = #property)] }
        } else {
            quote! {}
        };
        let doc = docs(field.description.as_deref());
        let location = format!(" `{}`: {}.", field.api_name, target_text(&field.target));
        let separator = if field.description.is_some() {
            quote! { #[doc = ""] }
        } else {
            quote! {}
        };
        quote! {
            #doc
            #separator
            #[doc = #location]
            #rename
            pub #field_ident: #ty,
        }
    });
    let fields: Vec<TokenStream> = fields.collect();
    let enums = enums.into_iter().map(enum_type);
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct #name {
            #( #fields )*
        }

        #( #enums )*
    }
}

fn target_text(target: &FieldTarget) -> &'static str {
    match target {
        FieldTarget::Param(Location::Path) => "path parameter",
        FieldTarget::Param(Location::Query) => "query parameter",
        FieldTarget::Param(Location::Header) => "header",
        FieldTarget::Param(Location::Cookie) => "cookie",
        FieldTarget::BodyProperty => "property of the request body",
        FieldTarget::WholeBody => "the request body",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The oracle of the direct writer: for specs with hostile text (bidi controls, invisible
    /// code points, quotes and backslashes in names), code in descriptions, cursed names, enums
    /// and renamed fields, the parameter structs written directly are byte for byte what
    /// printing their tokens and running rustfmt over the print makes of them.
    #[test]
    fn params_structs_written_directly_are_what_printing_and_rustfmt_make_of_them() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for spec in [
            "tests/fixtures/hostile-text.yaml",
            "tests/fixtures/doc-code.yaml",
            "tests/fixtures/cursed-names.yaml",
            "tests/fixtures/uploads.yaml",
            "specs/tracker/openapi.yaml",
            "tests/corpus/stripe/spec2.json",
            "tests/corpus/slack-web/slack_web_openapi_v2.json",
        ] {
            let options = crate::Options {
                no_discovery: true,
                ..Default::default()
            };
            let (plan, _) = crate::generate(&root.join(spec), None, &options)
                .unwrap_or_else(|e| panic!("{spec}: {e:#}"));
            // The operations the writer lays out: all but those of names longer than a line.
            let mut written = String::new();
            let mut laid_out = Vec::new();
            for operation in &plan.operations {
                let mut text = written.clone();
                if write_params_struct(&mut text, operation).is_some() {
                    written = text;
                    laid_out.push(operation);
                } else {
                    assert!(
                        spec.ends_with("cursed-names.yaml"),
                        "{spec}: {} is not written",
                        operation.api_id
                    );
                }
            }
            assert!(laid_out.len() + 1 >= plan.operations.len(), "{spec}");
            let written = emit::spaced(&written);
            let formatted = emit::printed_and_rustfmt("src/client.rs", {
                let params = laid_out.iter().copied().map(params_struct);
                quote! { #( #params )* }
            });
            assert!(written == formatted, "{spec}:\n{written}\n---\n{formatted}");
        }
    }

    #[test]
    fn a_line_the_writer_does_not_lay_out_makes_it_give_up() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let (mut plan, _) = crate::generate(
            &root.join("specs/tracker/openapi.yaml"),
            None,
            &crate::Options::default(),
        )
        .expect("the tracker generates");
        let operation = plan
            .operations
            .iter_mut()
            .find(|op| !op.fields.is_empty())
            .expect("an operation with parameters");
        let mut out = String::new();
        assert!(write_params_struct(&mut out, operation).is_some());
        let renamed = 0;
        // `#[serde(rename = "…")]` longer than rustfmt's line: rustfmt would break it.
        operation.fields[renamed].property = "p".repeat(90);
        assert_eq!(write_params_struct(&mut String::new(), operation), None);
        // A doc comment whose text spans lines does not print as `///` lines.
        operation.fields[renamed].property = operation.fields[renamed].ident.clone();
        operation.api_id = "two\nlines".into();
        assert_eq!(write_params_struct(&mut String::new(), operation), None);
    }
}

#[cfg(test)]
mod head_tests {
    use super::*;

    /// The head of `src/client.rs` written directly (imports, `Client`, its constructor, the
    /// pages limit of curated tools) is what printing it and running rustfmt make of it, for
    /// plans with and without request bodies, resolvers and their caches, and hostile titles.
    #[test]
    fn the_client_head_written_directly_is_what_printing_and_rustfmt_make_of_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut variants = 0;
        for (spec, curation) in [
            ("specs/tracker/openapi.yaml", None),
            (
                "specs/tracker/openapi.yaml",
                Some("specs/tracker/mcpgen.yaml"),
            ),
            (
                "specs/tracker/openapi.yaml",
                Some("tests/fixtures/discovery/tracker.yaml"),
            ),
            (
                "tests/corpus/swagger-petstore-v3/openapi.yaml",
                Some("specs/petstore/mcpgen.yaml"),
            ),
            ("tests/fixtures/hostile-text.yaml", None),
            ("tests/fixtures/cursed-names.yaml", None),
            ("tests/fixtures/uploads.yaml", None),
        ] {
            let curation = curation.map(|c| root.join(c));
            let (mut plan, _) =
                crate::generate(&root.join(spec), curation.as_deref(), &Default::default())
                    .unwrap_or_else(|e| panic!("{spec}: {e:#}"));
            for title in [
                plan.server.title.clone(),
                "The \u{202e}Tricky\u{2069} API \t".into(),
            ] {
                plan.server.title = title;
                for without_bodies in [false, true] {
                    if without_bodies {
                        for operation in &mut plan.operations {
                            operation.body = None;
                        }
                    }
                    let written = write_client_head(&plan, true).expect("a one-line title");
                    let formatted = emit::printed_and_rustfmt("src/client.rs", client_head(&plan));
                    assert_eq!(written, formatted, "{spec}");
                    variants += 1;
                }
            }
        }
        assert_eq!(variants, 28);
    }
}

#[cfg(test)]
mod method_tests {
    use super::*;

    /// The oracle of the methods' writer: for the hostile fixtures, the tracker, Stripe and
    /// Slack, the methods written directly are byte for byte what printing their tokens and
    /// running rustfmt over the print makes of them; and the writer lays out all of them but a
    /// name wider than a line.
    #[test]
    fn methods_written_directly_are_what_printing_and_rustfmt_make_of_them() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for spec in [
            "tests/fixtures/hostile-text.yaml",
            "tests/fixtures/doc-code.yaml",
            "tests/fixtures/cursed-names.yaml",
            "tests/fixtures/uploads.yaml",
            "specs/tracker/openapi.yaml",
            "tests/corpus/stripe/spec2.json",
            "tests/corpus/slack-web/slack_web_openapi_v2.json",
        ] {
            let options = crate::Options {
                no_discovery: true,
                ..Default::default()
            };
            let (plan, _) = crate::generate(&root.join(spec), None, &options)
                .unwrap_or_else(|e| panic!("{spec}: {e:#}"));
            let upload_env = format!("{}_UPLOAD_DIR", plan.server.env_prefix);
            let mut written = String::new();
            let mut laid_out = Vec::new();
            let mut not = Vec::new();
            for operation in &plan.operations {
                let mut text = written.clone();
                if write_method(&mut text, operation, &upload_env).is_some() {
                    written = text;
                    laid_out.push(operation.clone());
                } else {
                    not.push(operation.api_id.clone());
                }
            }
            // Every method, the cursed names' longest too, whose name is wider than a line.
            assert!(not.is_empty(), "{spec}: not written: {not:?}");
            if !laid_out.is_empty() {
                assert_written_as_rustfmt_formats(spec, &laid_out, &written, &plan);
            }
        }
    }

    /// Asserts that `written`, the methods of `operations` written directly, is what printing
    /// them and running rustfmt over the print makes of them.
    fn assert_written_as_rustfmt_formats(
        what: &str,
        operations: &[OperationPlan],
        written: &str,
        plan: &Plan,
    ) {
        let upload_env = format!("{}_UPLOAD_DIR", plan.server.env_prefix);
        let formatted = &emit::printed_and_rustfmt("src/client.rs", {
            let methods = operations.iter().map(|op| client_method(op, &upload_env));
            quote! { impl Client { #( #methods )* } }
        });
        let written = format!("impl Client {{\n{written}}}\n");
        if &written != formatted {
            let w: Vec<&str> = written.lines().collect();
            let f: Vec<&str> = formatted.lines().collect();
            let at = w
                .iter()
                .zip(&f)
                .position(|(a, b)| a != b)
                .unwrap_or(w.len().min(f.len()));
            let around = |lines: &[&str]| {
                lines[at.saturating_sub(12)..(at + 12).min(lines.len())].join("\n")
            };
            panic!(
                "{what}: differs at line {at}:\nwritten:\n{}\n---\nrustfmt:\n{}",
                around(&w),
                around(&f)
            );
        }
    }

    /// The request chain's layouts turn on widths (the chain on one line, one link a line, on
    /// the next line, the call overflowed; the segments' array on one line or one a line):
    /// paths of every length from 1 to 120 columns, with and without steps after `.request(…)`,
    /// are laid out as rustfmt lays them out.
    #[test]
    fn request_chains_of_every_width_are_laid_out_as_rustfmt_lays_them_out() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let (plan, _) = crate::generate(
            &root.join("specs/tracker/openapi.yaml"),
            None,
            &crate::Options::default(),
        )
        .expect("the tracker generates");
        let without_steps = plan
            .operations
            .iter()
            .find(|op| op.fields.is_empty())
            .expect("an operation without parameters");
        let with_steps = plan
            .operations
            .iter()
            .find(|op| {
                op.body.is_none()
                    && !op.fields.is_empty()
                    && op
                        .fields
                        .iter()
                        .all(|f| f.target == FieldTarget::Param(Location::Query))
            })
            .expect("an operation of query parameters");
        let upload_env = format!("{}_UPLOAD_DIR", plan.server.env_prefix);
        let mut operations = Vec::new();
        let mut written = String::new();
        let mut printed_chains = 0;
        for base in [without_steps, with_steps] {
            for server in [None, Some("https://uploads.example.com".to_string())] {
                for length in 1..=180 {
                    // One segment, segments of four letters and segments of sixteen, up to
                    // `length` columns.
                    let one = format!("/{}", "x".repeat(length));
                    let many: String = (0..length.div_ceil(5))
                        .map(|i| format!("/s{i:03}"))
                        .collect();
                    let long: String = (0..length.div_ceil(17))
                        .map(|i| format!("/long-segment-{i:03}"))
                        .collect();
                    for path in [one, many, long] {
                        let mut operation = base.clone();
                        operation.path = path;
                        operation.server = server.clone();
                        let mut text = written.clone();
                        if write_method(&mut text, &operation, &upload_env).is_some() {
                            // The label longer than any of rustfmt's layouts can hold: the
                            // statement as printed.
                            if operation.label().len() + 2 + NESTED.len() + 5 > direct::MAX_WIDTH {
                                printed_chains += 1;
                            }
                            written = text;
                            operations.push(operation);
                        }
                    }
                }
            }
        }
        // All but the arrays of many short segments that do not fit on a line (rustfmt's mixed
        // layout), segments too long to stay on a line, which the writer leaves to rustfmt, and
        // an operation of its own server without steps and a label that fits.
        assert!(operations.len() > 700, "{}", operations.len());
        assert!(printed_chains > 200, "{printed_chains}");
        assert_written_as_rustfmt_formats("paths of every width", &operations, &written, &plan);
    }

    /// A path parameter's segment (`params.….as_str()`, `.to_string()` of a number, or
    /// `runtime::path_text(…)` of a list, alone or among other parts: `[…].concat().as_str()`)
    /// is a chain of its own inside the request's arguments: names of every length from 1 to 64
    /// characters, of each type, alone and in segments of several parts, with and without steps
    /// and with short and long labels, are laid out as rustfmt lays them out.
    #[test]
    fn path_parameters_of_every_width_are_laid_out_as_rustfmt_lays_them_out() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let (plan, _) = crate::generate(
            &root.join("specs/tracker/openapi.yaml"),
            None,
            &crate::Options::default(),
        )
        .expect("the tracker generates");
        let upload_env = format!("{}_UPLOAD_DIR", plan.server.env_prefix);
        let base = plan
            .operations
            .iter()
            .find(|op| {
                op.body.is_none()
                    && op
                        .fields
                        .iter()
                        .any(|f| f.target == FieldTarget::Param(Location::Path))
            })
            .expect("an operation with a path parameter");
        let mut operations = Vec::new();
        let mut written = String::new();
        for steps in [false, true] {
            for ty in [
                FieldType::String,
                FieldType::Integer { allowed: None },
                FieldType::List(Box::new(FieldType::String)),
            ] {
                for (length, shape) in (1..=64).flat_map(|length| {
                    ["{name}", "v{name}.json", "{name}...{name}"].map(|shape| (length, shape))
                }) {
                    for prefix in [
                        "/p",
                        "/a-prefix-long-enough/for-the-label/of-the-request-to/overflow-any-line/rustfmt-could-give-it",
                    ] {
                        let mut operation = base.clone();
                        let mut field = operation
                            .fields
                            .iter()
                            .find(|f| f.target == FieldTarget::Param(Location::Path))
                            .expect("a path parameter")
                            .clone();
                        field.ident = "n".repeat(length);
                        field.api_name = "name".into();
                        field.style = None;
                        field.ty = ty.clone();
                        operation.path = format!("{prefix}/{shape}");
                        operation.fields = vec![field.clone()];
                        if steps {
                            field.ident = "q".into();
                            field.api_name = "q".into();
                            field.target = FieldTarget::Param(Location::Query);
                            operation.fields.push(field);
                        }
                        let mut text = written.clone();
                        if write_method(&mut text, &operation, &upload_env).is_some() {
                            written = text;
                            operations.push(operation);
                        }
                    }
                }
            }
        }
        // All but segments of one part wider than a chain's 60 columns (under a label that fits)
        // or than prettyplease's margin, and segments of several parts too wide to break.
        assert!(operations.len() > 700, "{}", operations.len());
        assert_written_as_rustfmt_formats("path parameters", &operations, &written, &plan);
    }
}
