//! Load: reads an OpenAPI document (YAML or JSON) and returns the normalized [`Api`].
//!
//! The document is read as plain JSON values, so that keywords no Rust struct knows about are
//! not lost on the way; `$ref`s are resolved here and nowhere else. Every error names the file
//! and, where it applies, the JSON pointer of the offending value.

mod every_core;
mod json_split;
pub mod position;
mod refs;
mod repair;
mod schema;
mod swagger2;
mod unused;
mod validate;
mod yaml;
mod yaml_events;
mod yaml_split;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::api::{
    Api, Body, BodyKind, Document, Location, Method, Operation, ParamStyle, Parameter, Response,
    SecurityScheme, Style, Warning,
};
pub use schema::{EXPANDED, STUB_OF, SchemaContext, SchemaConverter, expand_stubs};

/// A document that cannot be turned into an [`Api`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub file: PathBuf,
    /// The JSON pointer of the offending value, when there is one.
    pub pointer: Option<String>,
    /// Line and column (from 1) of that value in `file`, when found.
    pub position: Option<(usize, usize)>,
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some((line, column)) = self.position {
            write!(f, ":{line}:{column}")?;
        }
        if let Some(pointer) = &self.pointer {
            write!(f, " at {}", if pointer.is_empty() { "/" } else { pointer })?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LoadError {}

/// Makes the [`LoadError`]s of the file at `path`.
fn errors_in(path: &Path) -> impl Fn(Option<String>, String) -> LoadError + '_ {
    move |pointer, message| LoadError {
        file: path.to_path_buf(),
        pointer,
        position: None,
        message,
    }
}

/// Reads and normalizes the document at `path`; external `$ref`s are read from its folder.
pub fn load(path: &Path) -> Result<Api, LoadError> {
    load_with(path, None)
}

/// [`load`], with external `$ref`s read from anywhere under `refs_root` when given.
pub fn load_with(path: &Path, refs_root: Option<&Path>) -> Result<Api, LoadError> {
    load_keeping(path, refs_root, None)
}

/// What a caller that reads only part of each operation's success response schema keeps of it
/// (see [`load_keeping`]).
pub struct Answers<'a> {
    /// Only when the document has more operations than this.
    pub above: usize,
    /// What is kept of a converted schema (on another thread than the caller's).
    pub keep: &'a (dyn Fn(Value) -> Value + Sync),
}

/// [`load_with`], keeping of each operation's success response schema only what `answers` keeps,
/// as each is converted: a large API's answers are most of what loading holds, and a caller that
/// reads a little of each (the discovery tools) need not hold them whole. The warnings are those
/// of the whole schemas.
pub fn load_keeping(
    path: &Path,
    refs_root: Option<&Path>,
    answers: Option<&Answers>,
) -> Result<Api, LoadError> {
    let error = errors_in(path);
    let bytes = read_bytes(path).map_err(|e| error(None, format!("cannot read the file: {e}")))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        error(
            None,
            format!(
                "the file is not UTF-8 text (invalid byte at offset {}); save it as UTF-8",
                e.valid_up_to()
            ),
        )
    })?;
    let document = parse_document(text).map_err(|message| error(None, message))?;
    // A large description's text is megabytes; only its parsed values are needed from here on.
    drop(bytes);
    load_document(path, document, refs_root, answers)
}

/// The bytes of the file at `path`: a large regular file mapped into memory (the kernel's own
/// copy in its page cache, not a fresh buffer filled by copying: for GitHub's 13 MB description,
/// ~10 ms of page faults and copying on one core before anything else can start), anything else
/// read.
fn read_bytes(path: &Path) -> std::io::Result<FileBytes> {
    /// Below this a read costs about what mapping does.
    const MAP_FROM: u64 = 1 << 20;
    let file = std::fs::File::open(path)?;
    let metadata = file.metadata()?;
    if metadata.is_file() && metadata.len() >= MAP_FROM {
        // SAFETY: the map is only read, and only while the caller loads the file. Were another
        // process to change the file meanwhile, the text could change after its UTF-8 check
        // (or a shortened file end the process with SIGBUS): mcpgen relies, as tools that map
        // what they read do (ripgrep), on the description not being rewritten while it runs.
        if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
            return Ok(FileBytes::Mapped(map));
        }
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut &file, &mut bytes)?;
    Ok(FileBytes::Read(bytes))
}

/// A file's bytes, mapped or read ([`read_bytes`]).
enum FileBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(map) => map,
            FileBytes::Read(bytes) => bytes,
        }
    }
}

/// Normalizes the document `text`, read from `path` (which names it in errors, and whose folder
/// external `$ref`s are read from).
pub fn load_text(path: &Path, text: &str) -> Result<Api, LoadError> {
    load_text_with(path, text, None)
}

/// [`load_text`], with external `$ref`s read from anywhere under `refs_root` when given.
pub fn load_text_with(path: &Path, text: &str, refs_root: Option<&Path>) -> Result<Api, LoadError> {
    let error = errors_in(path);
    let document = parse_document(text).map_err(|message| error(None, message))?;
    load_document(path, document, refs_root, None)
}

/// Normalizes the parsed document read from `path`. Its errors and warnings name the file they
/// are in (an external file a `$ref` named, when they are in one), with the line and column.
fn load_document(
    path: &Path,
    document: Value,
    refs_root: Option<&Path>,
    answers: Option<&Answers>,
) -> Result<Api, LoadError> {
    let mut places = Places::new(path, document.get("swagger").is_some());
    // Checking the document against its specification reads it only; so do the first steps of
    // normalizing it, which are done meanwhile on another core.
    let (invalid, prepared) = rayon::join(
        || validate::against_specification(&document),
        || Prepared::of(&document),
    );
    let api = normalize(path, document, prepared, refs_root, answers, &mut places);
    match api {
        Ok(mut api) => {
            // What makes the document invalid comes first: the repairs often follow from it.
            let repaired = std::mem::take(&mut api.warnings);
            let mut warnings = Vec::with_capacity(invalid.len() + repaired.len());
            // A value the loader repaired is told once, by the repair, which says what was done.
            let repaired_at: std::collections::HashSet<&str> =
                repaired.iter().map(|w| w.pointer.as_str()).collect();
            for (pointer, message) in invalid {
                if !repaired_at.contains(pointer.as_str()) {
                    warnings.push(places.warning(pointer, message, false));
                }
            }
            for warning in repaired {
                warnings.push(places.warning(warning.pointer, warning.message, true));
            }
            api.warnings = warnings;
            Ok(api)
        }
        Err(error) => Err(places.error(error)),
    }
}

/// The first steps of [`normalize`] that only read the document, for a document without
/// `$anchor`s (which are resolved first, changing its `$ref`s).
struct Prepared {
    targets: refs::RefTargets,
    /// The document's local `$ref`s ([`SchemaContext::prepare`]), found in the same walk as
    /// `targets`.
    local: refs::LocalRefs,
    /// The OpenAPI 3.0 conversion of a Swagger 2.0 document that names no other file.
    upgraded: Option<Result<Value, Fail>>,
}

impl Prepared {
    fn of(document: &Value) -> Option<Prepared> {
        if refs::has_anchor(document) {
            return None;
        }
        // A Swagger 2.0 document is converted while its `$ref`s are looked for on another core;
        // the conversion is dropped if some `$ref` names another file (the document is bundled
        // first, then converted), and finished once the walk tells whether some `$ref` points
        // into `/paths`.
        let ((targets, local), upgraded) = rayon::join(
            || refs::RefTargets::with_local(document),
            || upgraded_leaving_refs_into_paths(document),
        );
        let upgraded = match targets.external {
            true => None,
            false => upgraded.map(|converted| {
                converted.map(|converted| converted.with_refs_into_paths(document, targets.paths))
            }),
        };
        Some(Prepared {
            targets,
            local,
            upgraded,
        })
    }
}

/// [`load_document`] without the places: bundles, upgrades and converts `document`; `prepared`,
/// what of that was done already.
fn normalize(
    path: &Path,
    document: Value,
    prepared: Option<Prepared>,
    refs_root: Option<&Path>,
    answers: Option<&Answers>,
    places: &mut Places,
) -> Result<Api, LoadError> {
    let error = errors_in(path);
    let mut document = document;
    let (anchors, targets, local, upgraded) = match prepared {
        // Without `$anchor`s there is nothing to resolve.
        Some(prepared) => (
            Default::default(),
            prepared.targets,
            prepared.local,
            prepared.upgraded,
        ),
        None => {
            let anchors = refs::resolve_anchors(&mut document);
            let (targets, local) = refs::RefTargets::with_local(&document);
            (anchors, targets, local, None)
        }
    };
    // The local `$ref`s found are those of the document the loader reads unless it is bundled
    // or upgraded from Swagger 2.0: then the loader looks for them again.
    let local = match targets.external || upgraded.is_some() {
        true => None,
        false => Some(local),
    };
    let document = match targets.external {
        true => {
            let (document, sources) = refs::bundle(path, document, refs_root, anchors)?;
            places.sources = sources;
            document
        }
        false => document,
    };
    let upgraded = match upgraded {
        Some(upgraded) => {
            // The Swagger 2.0 document is not needed beside its conversion.
            drop(document);
            upgraded
        }
        None => upgrade(document),
    };
    let mut document = upgraded.map_err(|(pointer, message)| error(Some(pointer), message))?;
    // The operations are converted one path at a time, and each path's part of the document is
    // freed once converted: in a large API it is a third of the document, which is most of what
    // loading holds. Not when a `$ref` may point into `paths`: those parts stay to be found.
    let paths = match targets.external || targets.paths {
        true => None,
        false => take_paths(&mut document),
    };
    let once = paths.is_some();
    let mut api = Loader::new(&document)
        .knowing_refs(local)
        .keeping(answers)
        .converting_once(once)
        .answering_aside(true)
        .api(paths)
        .map_err(|(pointer, message)| error(Some(pointer), message))?;
    if api.operations.is_empty() {
        let webhooks = ["webhooks", "x-webhooks"]
            .iter()
            .any(|key| document.get(key).is_some());
        let message = match webhooks {
            true => {
                "the document describes no operations (webhooks are requests the API sends, not calls a server can make), so an MCP server made from it would have no tools; add operations under `paths`"
            }
            false => {
                "the document describes no operations, so an MCP server made from it would have no tools; add operations under `paths`"
            }
        };
        return Err(error(Some("/paths".into()), message.into()));
    }
    api.document = Document::new(document);
    Ok(api)
}

/// Tells a pointer into the loaded document as the file and the place the user wrote: a pointer
/// into a bundled external file becomes that file and the pointer in it, and each gets its line
/// and column. Files are parsed again for their positions only when something is reported.
struct Places {
    root: PathBuf,
    /// The document is Swagger 2.0: the loader's pointers are into its OpenAPI 3.0 conversion,
    /// whose places are not the file's (`/components/schemas/Pet` is `/definitions/Pet`), so
    /// they get no line and column rather than a wrong one.
    converted: bool,
    sources: refs::Sources,
    /// Canonical or given path → the parsed file, `None` when it cannot be read or parsed.
    parsed: std::collections::HashMap<PathBuf, Option<marked_yaml::Node>>,
}

impl Places {
    fn new(root: &Path, converted: bool) -> Self {
        Places {
            root: root.to_path_buf(),
            converted,
            sources: refs::Sources::default(),
            parsed: std::collections::HashMap::new(),
        }
    }

    /// The line and column of `pointer` in the file at `path`.
    fn position(&mut self, path: &Path, pointer: &str) -> Option<(usize, usize)> {
        let node = self.parsed.entry(path.to_path_buf()).or_insert_with(|| {
            let text = std::fs::read_to_string(path).ok()?;
            position::parse(&text)
        });
        position::find(node.as_ref()?, pointer)
    }

    /// `pointer` (into the bundled, perhaps converted document) as a file, a pointer in it and
    /// a position. `loaded`: the pointer is the loader's (into the conversion of a Swagger 2.0
    /// document), not the original document's.
    fn place(
        &mut self,
        pointer: String,
        loaded: bool,
    ) -> (Option<PathBuf>, String, Option<(usize, usize)>) {
        if let Some((shown, canonical, inner)) = self.sources.external(&pointer) {
            let (shown, canonical) = (shown.to_path_buf(), canonical.to_path_buf());
            let position = self.position(&canonical, &inner);
            return (Some(shown), inner, position);
        }
        let position = match loaded && self.converted {
            true => None,
            false => {
                let root = self.root.clone();
                self.position(&root, &pointer)
            }
        };
        (None, pointer, position)
    }

    fn warning(&mut self, pointer: String, message: String, loaded: bool) -> Warning {
        let (file, pointer, position) = self.place(pointer, loaded);
        Warning {
            file,
            pointer,
            position,
            message,
        }
    }

    fn error(&mut self, mut error: LoadError) -> LoadError {
        let Some(pointer) = error.pointer.clone().filter(|p| !p.is_empty()) else {
            return error;
        };
        if error.file == self.root {
            let (file, pointer, position) = self.place(pointer, true);
            if let Some(file) = file {
                error.file = file;
            }
            error.pointer = Some(pointer);
            error.position = position;
        } else {
            // An error the bundler found in an external file names that file already.
            let file = error.file.clone();
            error.position = self.position(&file, &pointer);
            error.pointer = Some(pointer);
        }
        error
    }
}

/// The warnings of loading the document at `path` ([`Api::warnings`]), one
/// `FILE:LINE:COL at POINTER: what was done` line each.
pub fn warning_lines(path: &Path, api: &Api) -> Vec<String> {
    api.warnings
        .iter()
        .map(|warning| {
            LoadError {
                file: warning.file.clone().unwrap_or_else(|| path.to_path_buf()),
                pointer: Some(warning.pointer.clone()),
                position: warning.position,
                message: warning.message.clone(),
            }
            .to_string()
        })
        .collect()
}

/// Prints on stderr what loading the document at `path` repaired, dropped or found invalid
/// ([`Api::warnings`]), one `warning: FILE:LINE:COL at POINTER: what was done` line each.
pub fn print_warnings(path: &Path, api: &Api) {
    for line in warning_lines(path, api) {
        eprintln!("warning: {line}");
    }
}

/// Removes the document's `paths` mapping from it (when it is a mapping) and returns it.
fn take_paths(document: &mut Value) -> Option<Map<String, Value>> {
    let root = document.as_object_mut()?;
    if !root.get("paths").is_some_and(Value::is_object) {
        return None;
    }
    match root.shift_remove("paths") {
        Some(Value::Object(paths)) => Some(paths),
        _ => None,
    }
}

/// Parses YAML or JSON text (JSON is YAML) into a JSON value; mapping keys that are numbers or
/// booleans (`200:`) become strings.
pub fn parse_text(text: &str) -> Result<Value, String> {
    parse(text, false, true)
}

/// [`parse_text`] for the API description itself, leaving out the parts no tool is made from
/// (see `load/unused.rs`): in GitHub's description they are a quarter of the text, and a large
/// description's memory is mostly its parsed values.
pub fn parse_document(text: &str) -> Result<Value, String> {
    parse(text, true, true)
}

/// [`parse_document`] on one core, the text read whole, as before large descriptions were read
/// in pieces (`yaml_split.rs`): what `examples/parse_time.rs` times beside it.
#[doc(hidden)]
pub fn parse_document_whole(text: &str) -> Result<Value, String> {
    parse(text, true, false)
}

/// `in_pieces`: a large text may be read in pieces on every core (the same value or error).
fn parse(text: &str, leave_out_unused: bool, in_pieces: bool) -> Result<Value, String> {
    let trimmed = text.trim_start_matches('\u{feff}');
    // `{` starts JSON, but also a YAML flow mapping: JSON first, for its better messages.
    let json_error = match trimmed.trim_start().starts_with('{') {
        true => {
            if in_pieces && let Some(value) = json_split::read(trimmed, leave_out_unused) {
                return Ok(value);
            }
            let parsed = if leave_out_unused {
                unused::parse_json(trimmed)
            } else {
                serde_json::from_str(trimmed)
            };
            match parsed {
                Ok(value) => return Ok(value),
                Err(e) => Some(format!("not valid JSON: {e}")),
            }
        }
        false => None,
    };
    let parsed = match in_pieces {
        true => yaml::parse(trimmed, leave_out_unused),
        false => yaml::parse_whole(trimmed, leave_out_unused),
    };
    parsed.map_err(|error| match error {
        yaml::Error::Syntax(e) => match json_error {
            Some(json_error) => json_error,
            None => format!("not valid YAML or JSON: {e}"),
        },
        yaml::Error::Key(message) => message,
    })
}

/// Converts a Swagger 2.0 document to OpenAPI 3.0; other documents are returned as they are
/// (their version is checked when they are loaded).
pub fn upgrade(document: Value) -> Result<Value, (String, String)> {
    upgraded(&document).unwrap_or(Ok(document))
}

/// [`upgrade`] of a Swagger 2.0 document (or of one with another `swagger` version: its error);
/// `None` for other documents.
fn upgraded(document: &Value) -> Option<Result<Value, (String, String)>> {
    let swagger = document.get("swagger")?;
    Some(upgrade_swagger(swagger, document).map(|converted| converted.finished(document)))
}

/// [`upgraded`] but for its last step ([`swagger2::convert_leaving_refs_into_paths`]).
fn upgraded_leaving_refs_into_paths(
    document: &Value,
) -> Option<Result<swagger2::Upgraded, (String, String)>> {
    let swagger = document.get("swagger")?;
    Some(upgrade_swagger(swagger, document))
}

fn upgrade_swagger(
    swagger: &Value,
    document: &Value,
) -> Result<swagger2::Upgraded, (String, String)> {
    let version = match swagger {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    if version != "2.0" {
        return Err((
            "/swagger".into(),
            format!(
                "Swagger version {version:?} is not supported; mcpgen reads Swagger 2.0, OpenAPI 3.0.x and 3.1.x"
            ),
        ));
    }
    swagger2::convert_leaving_refs_into_paths(document)
}

/// The text of a parameter's `name`: a string, or a number as YAML reads `- name: 1` (its
/// text, `1`).
pub(crate) fn name_text(name: &Value) -> Option<String> {
    match name {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// The names of the `{placeholders}` of a path template, each once, in order.
fn placeholders(path: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        let Some(length) = rest[start + 1..].find('}') else {
            break;
        };
        let name = &rest[start + 1..start + 1 + length];
        if !name.is_empty() && !names.contains(&name) {
            names.push(name);
        }
        rest = &rest[start + 1 + length + 1..];
    }
    names
}

/// Escapes one JSON pointer token (`~` → `~0`, `/` → `~1`).
pub fn pointer_token(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    push_pointer_token(&mut out, token);
    out
}

/// Appends [`pointer_token`]`(token)` to `out`.
fn push_pointer_token(out: &mut String, token: &str) {
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

type Fail = (String, String);

struct Loader<'a> {
    root: &'a Value,
    schemas: SchemaContext,
    /// What is kept of each success response schema (see [`load_keeping`]).
    answers: Option<&'a Answers<'a>>,
    /// The document has more operations than `answers` says: only what it keeps is kept.
    keep_answers: std::cell::Cell<bool>,
    /// Whether a root schema that is a `$ref` alone is converted once ([`Self::convert_once`]).
    once: bool,
    /// The roots converted so far that are a `$ref` alone, by reference and use.
    converted: std::cell::RefCell<schema::FastMap<(String, Use), Converted>>,
    /// Whether the success responses' and request bodies' schemas are converted and made on
    /// other threads ([`Aside`]).
    aside: bool,
    /// The document's local `$ref`s when found already ([`refs::LocalRefs`]).
    refs: Option<refs::LocalRefs>,
    /// The parameters made of the parameter objects `$ref`s point to, by place (`None`: one
    /// left out): each is made once however many operations refer to it, as Kubernetes'
    /// hundreds of operations refer to the same few. Made again, it would be the same and tell
    /// the same warnings at the same places, which are kept once.
    referenced_parameters: std::cell::RefCell<schema::FastMap<String, Option<Parameter>>>,
    /// While the operations are made with `aside`: the roots sent to the other threads.
    sent_aside: std::cell::RefCell<Option<Aside>>,
}

/// The success responses' and request bodies' schemas sent to other threads
/// ([`ASIDE_THREADS`]) to be converted, repaired ([`repair::make_valid`]) and made into
/// answers (cut, [`Answers::keep`]) and bodies ([`body_made`]) while the main thread makes the
/// rest of the operations: in a large API they are nearly all of what is converted. Each
/// thread converts with a copy of the document's
/// [`SchemaContext`], whose names and sizes are fixed before anything is converted, so an
/// answer converts the same on any thread. What must come out as if each were done in its
/// place does: the warnings are told in order ([`SchemaContext::defer`]), a failure is the
/// first in the document's order, and the operations get their answers in the end.
struct Aside {
    send: std::sync::mpsc::SyncSender<Repair>,
    /// How many repairs were sent.
    sent: usize,
    /// (the operation, by index, the repair number whose result is its answer's schema or its
    /// body's, which).
    uses: Vec<(usize, usize, Use)>,
}

/// How many threads convert the answers ([`Aside`]) beside the main thread: on two cores, two
/// keep both busy while the main thread has little to do between answers.
const ASIDE_THREADS: usize = 2;

/// A root schema, as the document writes it, to convert, repair and make into what `used` says,
/// an answer cut when `keep` is given; `number`: the order it was sent in.
struct Repair {
    number: usize,
    schema: Value,
    pointer: String,
    used: Use,
    keep: bool,
}

/// What converting and repairing a root made: the schema, the files of a body, and what was
/// told; or why the schema cannot be converted or made valid.
type Repaired = Result<(Value, Vec<String>, schema::ToldAside), Fail>;

/// What a root schema converted by [`Loader::convert_once`] is used as: what is made of it
/// differs.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Use {
    /// A request body's schema, for a body of this kind.
    Body(BodyKind),
    /// A success response's schema, converted expandable and perhaps cut ([`Answers`]).
    Answer,
}

/// A root schema that is a `$ref` alone, converted ([`Loader::convert_once`]).
struct Converted {
    /// The root's place, where it was converted.
    pointer: String,
    /// The warnings at that place its conversion told, in order; none when it was converted
    /// aside (they are its repair's).
    warnings: Vec<(String, String)>,
    /// The operation (its index among those made) that holds what was made of it.
    operation: usize,
    /// The number of its repair when converted aside ([`Aside`]): the operation's answer is its
    /// result, and what was told converting it is the repair's ([`schema::ToldAside`]).
    repair: Option<usize>,
}

/// Why a mapping without an `openapi` field is refused: the versions mcpgen reads, and, when its
/// top-level keys are those of an mcpgen curation file, that the two files were swapped.
fn no_version_field(root: &Map<String, Value>) -> String {
    let mut message =
        "not an OpenAPI document: it has no `openapi` version field (`openapi: 3.0.x` \
                       or `3.1.x`, or `swagger: \"2.0\"` for Swagger 2.0)"
            .to_string();
    const CURATION_KEYS: [&str; 4] = ["server", "tools", "operations", "budgets"];
    let curation_key = CURATION_KEYS.iter().find(|key| root.contains_key(**key));
    if let (Some(key), false) = (curation_key, root.contains_key("paths")) {
        message.push_str(&format!(
            "; it has `{key}:` and no `paths:`, like an mcpgen curation file: give the API \
             description as SPEC and the curation file with -c (`mcpgen build SPEC -c CURATION`)"
        ));
    }
    message
}

impl<'a> Loader<'a> {
    fn new(root: &'a Value) -> Self {
        Self {
            root,
            schemas: SchemaContext::default(),
            answers: None,
            keep_answers: std::cell::Cell::new(false),
            once: false,
            converted: Default::default(),
            aside: false,
            sent_aside: Default::default(),
            refs: None,
            referenced_parameters: Default::default(),
        }
    }

    /// This loader, with the document's local `$ref`s found already (`None`: it finds them).
    fn knowing_refs(mut self, refs: Option<refs::LocalRefs>) -> Self {
        self.refs = refs;
        self
    }

    /// This loader, converting and making the success responses' and request bodies' schemas
    /// on other threads ([`Aside`]).
    fn answering_aside(mut self, aside: bool) -> Self {
        self.aside = aside;
        self
    }

    /// This loader, converting a root schema that is a `$ref` alone once for all the places it
    /// is used as the same thing ([`Self::convert_once`]). Only where no `$ref` points into
    /// `paths`: the places of the roots are there, and a warning of a referenced schema's
    /// conversion could then be at one.
    fn converting_once(mut self, once: bool) -> Self {
        self.once = once;
        self
    }

    /// `make()`, what is made of the root schema `schema` at `pointer` (for the operation
    /// after `done`), or what `copy` takes of the operation that holds it (the schema is
    /// shared, not copied) where the same `$ref` alone was made into the same `used` before.
    /// Many operations answer with the same schema or take the same body (in Kubernetes'
    /// description, 1,065 answers are 184 schemas; in Stripe's, 587 are 283), and converting
    /// one inlines and checks hundreds of keywords.
    /// The conversion of `{"$ref": X}` is the same wherever it is (each referenced schema's name,
    /// size and conversion are the document's), except for the warnings at the root's own place:
    /// those are told again at the new place, in the same order; the others were told already,
    /// and each warning is kept once. What is made is taken from the operation, not held here:
    /// with a copy of each held aside until loading ended, generating Kubernetes' server peaked
    /// at 129 MiB instead of 99. The operations share it ([`crate::api::Body::schema`]): a copy
    /// for each was 7 % of generating Kubernetes' server.
    fn convert_once<T>(
        &self,
        schema: &Value,
        pointer: &str,
        used: Use,
        done: &[Operation],
        copy: impl Fn(&Operation) -> Option<T>,
        make: impl FnOnce() -> Result<T, Fail>,
    ) -> Result<T, Fail> {
        let reference = match self.once {
            true => alone_ref(schema),
            false => None,
        };
        let Some(reference) = reference else {
            return make();
        };
        let key = (reference.to_string(), used);
        if let Some(known) = self.converted.borrow().get(&key)
            && let Some(made) = done.get(known.operation).and_then(&copy)
        {
            if known.pointer != pointer {
                for (_, message) in &known.warnings {
                    self.schemas.warn(pointer.to_string(), message.clone());
                }
            }
            return Ok(made);
        }
        self.schemas.record();
        let made = make();
        let told = self.schemas.recorded();
        let made = made?;
        let warnings = told.into_iter().filter(|(at, _)| at == pointer).collect();
        self.converted.borrow_mut().entry(key).or_insert(Converted {
            pointer: pointer.to_string(),
            warnings,
            operation: done.len(),
            repair: None,
        });
        Ok(made)
    }

    fn keeping(mut self, answers: Option<&'a Answers<'a>>) -> Self {
        self.answers = answers;
        self
    }

    /// How many operations the path items `paths` have: one per method of each (a `$ref` to a
    /// path item followed), as [`Self::path_operations`] makes them.
    fn operation_count<'v>(
        &'v self,
        paths: impl Iterator<Item = (&'v String, &'v Value)>,
    ) -> usize {
        paths
            .map(|(path, item)| {
                let pointer = format!("/paths/{}", pointer_token(path));
                self.deref(item, &pointer).map_or(0, |(item, _)| {
                    Method::ALL
                        .iter()
                        .filter(|method| item.get(method.key()).is_some())
                        .count()
                })
            })
            .sum()
    }

    /// The API of the document; `paths`, when given, is its `paths` mapping taken out of it
    /// (see [`take_paths`]), each path item freed once its operations are converted.
    fn api(&self, paths: Option<Map<String, Value>>) -> Result<Api, Fail> {
        let Some(root) = self.root.as_object() else {
            return Err((
                String::new(),
                "not an OpenAPI document: the top level is not a mapping".into(),
            ));
        };
        self.check_version(root)?;
        let info = root.get("info").and_then(Value::as_object);
        let title = info
            .and_then(|i| i.get("title"))
            .and_then(Value::as_str)
            .unwrap_or("API")
            .to_string();
        let version = info
            .and_then(|i| i.get("version"))
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .unwrap_or_default();
        let description = info
            .and_then(|i| i.get("description"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let servers = servers(root.get("servers"));
        let security = root
            .get("security")
            .map(|s| security_requirement(s, "/security"))
            .transpose()?
            .unwrap_or_default();
        let security_schemes = self.security_schemes()?;
        let found;
        let refs = match &self.refs {
            Some(refs) => refs,
            None => {
                found = refs::LocalRefs::of(self.root, paths.as_ref());
                &found
            }
        };
        self.schemas.prepare(self.root, refs);
        let operations = self.operations(root, paths)?;
        let warnings = self
            .schemas
            .take_warnings()
            .into_iter()
            .map(|(pointer, message)| Warning {
                file: None,
                pointer,
                position: None,
                message,
            })
            .collect();
        Ok(Api {
            document: Document::default(),
            warnings,
            title,
            version,
            description,
            servers,
            operations,
            security_schemes,
            security,
        })
    }

    fn check_version(&self, root: &Map<String, Value>) -> Result<(), Fail> {
        let Some(version) = root.get("openapi") else {
            return Err((String::new(), no_version_field(root)));
        };
        let version = match version {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        if version.starts_with("3.0.") || version.starts_with("3.1.") {
            Ok(())
        } else if version == "3.0" || version == "3.1" {
            Err((
                "/openapi".into(),
                format!(
                    "`openapi: {version}` is not a full version: the field names the release of the specification the document follows, major.minor.patch — write `openapi: {}` (or the {version}.x release the document was written for)",
                    if version == "3.0" { "3.0.3" } else { "3.1.1" }
                ),
            ))
        } else {
            Err((
                "/openapi".into(),
                format!(
                    "OpenAPI version {version:?} is not supported; mcpgen reads OpenAPI 3.0.x and 3.1.x"
                ),
            ))
        }
    }

    /// Follows `$ref`s from `value` until it reaches a value that is not a reference.
    fn deref<'v>(&'v self, value: &'v Value, pointer: &str) -> Result<(&'v Value, String), Fail> {
        let mut current = value;
        let mut at = pointer.to_string();
        for _ in 0..32 {
            match current.get("$ref").and_then(Value::as_str) {
                Some(reference) => {
                    let (target, target_pointer) = self.resolve_ref(reference, &at)?;
                    current = target;
                    at = target_pointer;
                }
                None => return Ok((current, at)),
            }
        }
        Err((
            pointer.into(),
            "a chain of `$ref`s loops back on itself".into(),
        ))
    }

    /// Finds the value a local `$ref` points to.
    fn resolve_ref(&self, reference: &str, at: &str) -> Result<(&'a Value, String), Fail> {
        let Some(pointer) = reference.strip_prefix('#') else {
            return Err((
                at.into(),
                format!(
                    "`$ref: {reference}` points into another file; external references are not supported yet — bundle the document into one file (for example with `redocly bundle`)"
                ),
            ));
        };
        let pointer = percent_decode(pointer);
        schema::resolve(self.root, &pointer)
            .map(|target| (target, pointer.clone()))
            .ok_or_else(|| {
                (
                    at.into(),
                    format!("`$ref: {reference}` points to nothing in this document"),
                )
            })
    }

    fn security_schemes(&self) -> Result<IndexMap<String, SecurityScheme>, Fail> {
        let mut schemes = IndexMap::new();
        let Some(map) = self
            .root
            .pointer("/components/securitySchemes")
            .and_then(Value::as_object)
        else {
            return Ok(schemes);
        };
        for (name, scheme) in map {
            let pointer = format!("/components/securitySchemes/{}", pointer_token(name));
            let (scheme, _) = self.deref(scheme, &pointer)?;
            schemes.insert(name.clone(), security_scheme(scheme));
        }
        Ok(schemes)
    }

    fn operations(
        &self,
        root: &Map<String, Value>,
        paths: Option<Map<String, Value>>,
    ) -> Result<Vec<Operation>, Fail> {
        if let Some(answers) = self.answers {
            let count = match &paths {
                Some(paths) => self.operation_count(paths.iter()),
                None => self.operation_count(
                    root.get("paths")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flatten(),
                ),
            };
            self.keep_answers.set(count > answers.above);
        }
        if !self.aside {
            return self.make_operations(root, paths);
        }
        let (send, receive) = std::sync::mpsc::sync_channel::<Repair>(64);
        // Held by the converters alone: should both end early (a panic), the channel closes and
        // this thread's next send fails rather than waiting for them.
        let receive = Arc::new(std::sync::Mutex::new(receive));
        let keep = self.answers.map(|answers| answers.keep);
        let document = self.root;
        std::thread::scope(|scope| {
            let converters: Vec<_> = (0..ASIDE_THREADS)
                .map(|_| {
                    let context = self.schemas.copy();
                    let receive = Arc::clone(&receive);
                    scope.spawn(move || {
                        let mut made = Vec::new();
                        // `None` once the channel is closed and what was sent is taken.
                        let next = || receive.lock().ok()?.recv().ok();
                        while let Some(repair) = next() {
                            made.push((repair.number, repaired(document, &context, repair, keep)));
                        }
                        made
                    })
                })
                .collect();
            drop(receive);
            *self.sent_aside.borrow_mut() = Some(Aside {
                send,
                sent: 0,
                uses: Vec::new(),
            });
            self.schemas.defer();
            let made = self.make_operations(root, paths);
            let aside = self.sent_aside.borrow_mut().take();
            let Some(Aside { send, sent, uses }) = aside else {
                unreachable!("the aside is taken once");
            };
            // Closes the channel: the converters end once they have converted what was sent.
            drop(send);
            let mut repairs: Vec<Option<Repaired>> = (0..sent).map(|_| None).collect();
            for converter in converters {
                let made = match converter.join() {
                    Ok(made) => made,
                    Err(panic) => std::panic::resume_unwind(panic),
                };
                for (number, repaired) in made {
                    repairs[number] = Some(repaired);
                }
            }
            // Each repair was sent before whatever failed on this thread: the first failure of
            // a repair comes first in the document.
            let mut schemas = Vec::with_capacity(repairs.len());
            let mut warnings = Vec::with_capacity(repairs.len());
            for repair in repairs {
                let (schema, files, told) = repair.expect("every root sent is converted")?;
                schemas.push((Arc::new(schema), files));
                warnings.push(told);
            }
            let mut operations = made?;
            self.schemas.settle(&warnings);
            // The operations that use the same repair's schema share it.
            for (operation, repair, used) in uses {
                let operation = &mut operations[operation];
                let (schema, files) = &schemas[repair];
                match used {
                    Use::Body(_) => {
                        if let Some(body) = operation.body.as_mut() {
                            body.schema = Arc::clone(schema);
                            body.files = files.clone();
                        }
                    }
                    Use::Answer => {
                        if let Some(success) = operation.success.as_mut() {
                            success.schema = Some(Arc::clone(schema));
                        }
                    }
                }
            }
            Ok(operations)
        })
    }

    /// [`Self::operations`], the success responses' schemas left to the [`Aside`] when there is
    /// one.
    fn make_operations(
        &self,
        root: &Map<String, Value>,
        paths: Option<Map<String, Value>>,
    ) -> Result<Vec<Operation>, Fail> {
        let mut operations = Vec::new();
        match paths {
            Some(paths) => {
                for (path, item) in paths {
                    self.path_operations(&path, &item, &mut operations)?;
                }
            }
            None => {
                for (path, item) in root
                    .get("paths")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                {
                    self.path_operations(path, item, &mut operations)?;
                }
            }
        }
        Ok(operations)
    }

    /// Appends the operations of the path item `item` to `operations`.
    fn path_operations(
        &self,
        path: &str,
        item: &Value,
        operations: &mut Vec<Operation>,
    ) -> Result<(), Fail> {
        let item_pointer = format!("/paths/{}", pointer_token(path));
        let (item, item_pointer) = self.deref(item, &item_pointer)?;
        let shared = item
            .get("parameters")
            .map(|p| self.parameters(p, &format!("{item_pointer}/parameters")))
            .transpose()?
            .unwrap_or_default();
        for method in Method::ALL {
            let Some(operation) = item.get(method.key()) else {
                continue;
            };
            let pointer = format!("{item_pointer}/{}", method.key());
            let mut found =
                self.operation(path, method, operation, &pointer, &shared, operations)?;
            found.server = servers(operation.get("servers"))
                .into_iter()
                .chain(servers(item.get("servers")))
                .next();
            operations.push(found);
        }
        Ok(())
    }

    fn operation(
        &self,
        path: &str,
        method: Method,
        operation: &Value,
        pointer: &str,
        shared: &[Parameter],
        done: &[Operation],
    ) -> Result<Operation, Fail> {
        let text = |key: &str| {
            operation
                .get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let id = text("operationId").unwrap_or_else(|| format!("{} {path}", method.key()));
        let mut parameters: Vec<Parameter> = shared.to_vec();
        if let Some(own) = operation.get("parameters") {
            for parameter in self.parameters(own, &format!("{pointer}/parameters"))? {
                // An operation's parameter replaces the path item's one of the same name and place.
                parameters
                    .retain(|p| !(p.name == parameter.name && p.location == parameter.location));
                parameters.push(parameter);
            }
        }
        self.match_placeholders(path, pointer, &mut parameters);
        let body = operation
            .get("requestBody")
            .map(|b| self.body(b, &format!("{pointer}/requestBody"), done))
            .transpose()?
            .flatten();
        let success = operation
            .get("responses")
            .map(|r| self.success(r, &format!("{pointer}/responses"), done))
            .transpose()?
            .flatten();
        let security = operation
            .get("security")
            .map(|s| security_requirement(s, &format!("{pointer}/security")))
            .transpose()?;
        Ok(Operation {
            id,
            method,
            path: path.to_string(),
            summary: text("summary"),
            description: text("description"),
            tags: operation
                .get("tags")
                .and_then(Value::as_array)
                .map(|tags| {
                    tags.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            deprecated: operation.get("deprecated") == Some(&Value::Bool(true)),
            declared_read_only: false,
            parameters,
            body,
            success,
            security,
            server: None,
            credentials: Vec::new(),
        })
    }

    /// Makes the path parameters of the operation at `pointer` agree with the placeholders of
    /// its `path`, with a warning for each disagreement: a placeholder without a parameter
    /// (`/users/{username}/{foo}` declaring only `username`) becomes a required string parameter,
    /// so the server never sends the literal `{foo}`; a path parameter without a placeholder is
    /// dropped, since there is no place in the request to send it.
    fn match_placeholders(&self, path: &str, pointer: &str, parameters: &mut Vec<Parameter>) {
        let placeholders = placeholders(path);
        parameters.retain(|parameter| {
            let unplaced = parameter.location == Location::Path
                && !placeholders.contains(&parameter.name.as_str());
            if unplaced {
                self.schemas.warn(
                    pointer.to_string(),
                    format!(
                        "path parameter `{}` has no `{{{}}}` placeholder in the path `{path}`; dropped, since the request has no place for it",
                        parameter.name, parameter.name
                    ),
                );
            }
            !unplaced
        });
        for name in placeholders {
            let declared = parameters
                .iter()
                .any(|p| p.location == Location::Path && p.name == name);
            if declared {
                continue;
            }
            self.schemas.warn(
                pointer.to_string(),
                format!(
                    "the path `{path}` has the placeholder `{{{name}}}`, but the operation declares no path parameter `{name}`; read as a required string parameter `{name}`"
                ),
            );
            parameters.push(Parameter {
                name: name.to_string(),
                location: Location::Path,
                required: true,
                description: None,
                deprecated: false,
                schema: serde_json::json!({ "type": "string" }),
                style: None,
            });
        }
    }

    fn parameters(&self, list: &Value, pointer: &str) -> Result<Vec<Parameter>, Fail> {
        let Some(list) = list.as_array() else {
            return Err((pointer.into(), "`parameters` is not a list".into()));
        };
        let mut parameters = Vec::new();
        for (index, parameter) in list.iter().enumerate() {
            let place = format!("{pointer}/{index}");
            let (parameter, at) = self.deref(parameter, &place)?;
            let referenced = at != place;
            if referenced && let Some(made) = self.referenced_parameters.borrow().get(&at) {
                parameters.extend(made.clone());
                continue;
            }
            let made = self.parameter(parameter, &at)?;
            if referenced {
                self.referenced_parameters
                    .borrow_mut()
                    .insert(at, made.clone());
            }
            parameters.extend(made);
        }
        Ok(parameters)
    }

    /// The parameter the parameter object `parameter` at `at` makes; `None` for one left out.
    fn parameter(&self, parameter: &Value, at: &str) -> Result<Option<Parameter>, Fail> {
        let name = parameter
            .get("name")
            .and_then(name_text)
            .ok_or_else(|| (at.to_string(), "a parameter has no `name`".to_string()))?;
        let name = name.as_str();
        let location = match parameter.get("in").and_then(Value::as_str) {
            Some("path") => Location::Path,
            Some("query") => Location::Query,
            Some("header") => Location::Header,
            Some("cookie") => Location::Cookie,
            other => {
                return Err((
                    format!("{at}/in"),
                    format!(
                        "parameter `{name}` has `in: {}`; use path, query, header or cookie",
                        other.unwrap_or("(missing)")
                    ),
                ));
            }
        };
        // Hop-by-hop and content negotiation headers are the HTTP client's business.
        if location == Location::Header
            && ["accept", "content-type", "authorization"]
                .contains(&name.to_ascii_lowercase().as_str())
        {
            return Ok(None);
        }
        let schema = match parameter.get("schema") {
            Some(schema) => self.schema(schema, &format!("{at}/schema"))?,
            None => match parameter
                .get("content")
                .and_then(Value::as_object)
                .and_then(|content| content.values().next())
                .and_then(|media| media.get("schema"))
            {
                Some(schema) => self.schema(schema, &format!("{at}/content"))?,
                None => serde_json::json!({ "type": "string" }),
            },
        };
        Ok(Some(Parameter {
            name: name.to_string(),
            location,
            required: location == Location::Path
                || parameter.get("required") == Some(&Value::Bool(true)),
            description: parameter
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            deprecated: parameter.get("deprecated") == Some(&Value::Bool(true)),
            schema,
            style: param_style(parameter, location, at)?,
        }))
    }

    /// The operation's request body; `done`: the operations made so far.
    fn body(&self, body: &Value, pointer: &str, done: &[Operation]) -> Result<Option<Body>, Fail> {
        let (body, pointer) = self.deref(body, pointer)?;
        let Some(content) = body.get("content").and_then(Value::as_object) else {
            return Ok(None);
        };
        let pick = |wanted: &dyn Fn(&str) -> bool| {
            content
                .iter()
                .find(|(media_type, _)| wanted(&media_type.to_ascii_lowercase()))
        };
        let (kind, (content_type, media)) = if let Some(found) = pick(&is_json) {
            (BodyKind::Json, found)
        } else if let Some(found) = pick(&|m| m == "application/x-www-form-urlencoded") {
            (BodyKind::Form, found)
        } else if let Some(found) = pick(&|m| m == "multipart/form-data") {
            (BodyKind::Multipart, found)
        } else if let Some(found) = content.iter().next() {
            (BodyKind::Text, found)
        } else {
            return Ok(None);
        };
        let schema_pointer = format!("{pointer}/content/{}/schema", pointer_token(content_type));
        let made = |schema: Value| body_made(kind, schema);
        let (schema, files) = match media.get("schema") {
            // Made aside: [`Self::operations`] gives the body its schema and files.
            Some(schema) if self.sent_aside.borrow().is_some() => {
                self.aside(schema, schema_pointer, Use::Body(kind), false, done);
                (Arc::default(), Vec::new())
            }
            Some(schema) => self.convert_once(
                schema,
                &schema_pointer,
                Use::Body(kind),
                done,
                |operation| {
                    let body = operation.body.as_ref()?;
                    Some((Arc::clone(&body.schema), body.files.clone()))
                },
                || {
                    let (schema, files) = made(self.schema(schema, &schema_pointer)?);
                    Ok((Arc::new(schema), files))
                },
            )?,
            None => {
                let (schema, files) = made(serde_json::json!({}));
                (Arc::new(schema), files)
            }
        };
        Ok(Some(Body {
            kind,
            content_type: content_type.clone(),
            required: body.get("required") == Some(&Value::Bool(true)),
            description: body
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            schema,
            files,
        }))
    }

    /// The operation's success response; `done`: the operations made so far.
    fn success(
        &self,
        responses: &Value,
        pointer: &str,
        done: &[Operation],
    ) -> Result<Option<Response>, Fail> {
        let Some(responses) = responses.as_object() else {
            return Ok(None);
        };
        let mut codes: Vec<&String> = responses
            .keys()
            .filter(|code| code.starts_with('2'))
            .collect();
        codes.sort();
        let Some(code) = codes.first() else {
            return Ok(None);
        };
        let at = format!("{pointer}/{}", pointer_token(code));
        let (response, at) = self.deref(&responses[code.as_str()], &at)?;
        let json = response
            .get("content")
            .and_then(Value::as_object)
            .and_then(|content| {
                content
                    .iter()
                    .find(|(media, _)| is_json(&media.to_ascii_lowercase()))
            });
        let keep = self.answers.filter(|_| self.keep_answers.get());
        let schema = match json {
            Some((media, content)) => match content.get("schema") {
                Some(schema) if self.sent_aside.borrow().is_some() => {
                    let pointer = format!("{at}/content/{}/schema", pointer_token(media));
                    self.aside(schema, pointer, Use::Answer, keep.is_some(), done);
                    None
                }
                Some(schema) => {
                    let pointer = format!("{at}/content/{}/schema", pointer_token(media));
                    let answer = |operation: &Operation| operation.success.as_ref()?.schema.clone();
                    Some(
                        self.convert_once(schema, &pointer, Use::Answer, done, answer, || {
                            // An answer's schemas cut short name what they stand for: a curation
                            // file that reads fields inside them has them converted
                            // ([`expand_stubs`]).
                            let schema = SchemaConverter::new(self.root, &self.schemas)
                                .expandable()
                                .convert_root(schema, &pointer)?;
                            Ok(Arc::new(match keep {
                                Some(answers) => (answers.keep)(schema),
                                None => schema,
                            }))
                        })?,
                    )
                }
                None => None,
            },
            None => None,
        };
        Ok(Some(Response {
            status: code.to_string(),
            description: response
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            schema,
        }))
    }

    /// Sends the root schema `schema` at `pointer` of the operation after `done`, to be made
    /// into what `used` says, to be converted, repaired and made aside (an answer cut if
    /// `keep`); [`Self::operations`] gives the operation the result. As [`Self::convert_once`]
    /// does, a root that is a `$ref` alone sent before is not sent again: the operation gets the
    /// same result, and the warnings at the root's place are told again at this one.
    fn aside(&self, schema: &Value, pointer: String, used: Use, keep: bool, done: &[Operation]) {
        let key = match self.once {
            true => alone_ref(schema).map(|reference| (reference.to_string(), used)),
            false => None,
        };
        let known = key.as_ref().and_then(|key| {
            let converted = self.converted.borrow();
            let known = converted.get(key)?;
            Some((known.pointer.clone(), known.repair?))
        });
        if let Some((at, repair)) = known {
            if at != pointer {
                self.schemas.repair_told(repair, Some(pointer));
            }
            self.use_repair(done.len(), repair, used);
            return;
        }
        let repair = {
            let mut aside = self.sent_aside.borrow_mut();
            let aside = aside.as_mut().expect("roots are sent aside");
            let repair = aside.sent;
            aside.sent += 1;
            // The converters end only when the channel is closed, after this.
            let sent = aside.send.send(Repair {
                number: repair,
                schema: schema.clone(),
                pointer: pointer.clone(),
                used,
                keep,
            });
            assert!(sent.is_ok(), "the converters take every root sent");
            repair
        };
        self.schemas.repair_told(repair, None);
        if let Some(key) = key {
            self.converted.borrow_mut().entry(key).or_insert(Converted {
                pointer,
                warnings: Vec::new(),
                operation: done.len(),
                repair: Some(repair),
            });
        }
        self.use_repair(done.len(), repair, used);
    }

    /// The answer or body (`used`) of the operation numbered `operation` is what repair number
    /// `repair` makes.
    fn use_repair(&self, operation: usize, repair: usize, used: Use) {
        if let Some(aside) = self.sent_aside.borrow_mut().as_mut() {
            aside.uses.push((operation, repair, used));
        }
    }

    /// Converts one schema to self-contained JSON Schema 2020-12.
    fn schema(&self, schema: &Value, pointer: &str) -> Result<Value, Fail> {
        SchemaConverter::new(self.root, &self.schemas).convert_root(schema, pointer)
    }
}

/// Converts `repair`'s schema (a root of `document`; an answer's [`SchemaConverter::expandable`])
/// with `context`, makes it valid ([`repair::make_valid`]), then makes it into a body
/// ([`body_made`]) or an answer cut with `keep` if asked.
fn repaired(
    document: &Value,
    context: &SchemaContext,
    repair: Repair,
    keep: Option<&(dyn Fn(Value) -> Value + Sync)>,
) -> Repaired {
    let Repair {
        schema,
        pointer,
        used,
        keep: cut_it,
        ..
    } = repair;
    context.record();
    let converter = SchemaConverter::new(document, context);
    let converter = match used {
        Use::Answer => converter.expandable(),
        Use::Body(_) => converter,
    };
    let converted = converter.convert_unrepaired(&schema, &pointer);
    let converted_told = context.recorded();
    // Each warning is in `converted_told`; the context's own list is not read.
    drop(context.take_warnings());
    let mut schema = converted?;
    let mut repaired_told = Vec::new();
    repair::make_valid(&mut schema, &pointer, &mut repaired_told)?;
    let (schema, files) = match (used, cut_it, keep) {
        (Use::Body(kind), _, _) => body_made(kind, schema),
        (Use::Answer, true, Some(keep)) => (keep(schema), Vec::new()),
        (Use::Answer, _, _) => (schema, Vec::new()),
    };
    Ok((
        schema,
        files,
        schema::ToldAside {
            pointer,
            converted: converted_told,
            repaired: repaired_told,
        },
    ))
}

/// The reference of `schema` when it is a `$ref` and nothing else.
fn alone_ref(schema: &Value) -> Option<&str> {
    match schema.as_object()? {
        object if object.len() == 1 => object.get("$ref")?.as_str(),
        _ => None,
    }
}

/// The parameter's `style` and `explode`, when they differ from its location's default.
fn param_style(
    parameter: &Value,
    location: Location,
    pointer: &str,
) -> Result<Option<ParamStyle>, Fail> {
    let default = ParamStyle::default_for(location);
    let style = match parameter.get("style").and_then(Value::as_str) {
        None => default.style,
        Some(name) => Style::from_name(name).ok_or_else(|| {
            (
                format!("{pointer}/style"),
                format!("unknown parameter style {name:?}; OpenAPI's styles are form, simple, label, matrix, spaceDelimited, pipeDelimited and deepObject"),
            )
        })?,
    };
    let explode = match parameter.get("explode").and_then(Value::as_bool) {
        Some(explode) => explode,
        // `explode` defaults to true for `form` only.
        None => style == Style::Form,
    };
    let found = ParamStyle { style, explode };
    Ok((found != default).then_some(found))
}

/// What a body of `kind` is made of its converted `schema`: the schema sent (one object made of
/// its parts, [`merge_object_parts`]; a string for a text body) and the properties that are
/// files (of a multipart body, [`file_parts`]).
fn body_made(kind: BodyKind, schema: Value) -> (Value, Vec<String>) {
    let mut schema = match kind {
        BodyKind::Text => serde_json::json!({ "type": "string" }),
        _ => {
            let mut schema = schema;
            merge_object_parts(&mut schema);
            schema
        }
    };
    let files = match kind {
        BodyKind::Multipart => file_parts(&mut schema),
        _ => Vec::new(),
    };
    (schema, files)
}

/// Makes a body schema written as the parts of one object (`allOf`, as generated specs write
/// inheritance: Bitbucket's `pullrequest` is its base `object` plus fields of its own) that one
/// object, with the parts' properties and required fields together: each property is then a
/// parameter of its own, for tools and the curation file alike. A schema with a part that is not
/// an object listing its properties (a choice, an open object) is left as it is.
fn merge_object_parts(schema: &mut Value) {
    let Some(ObjectParts {
        properties,
        required,
        description,
    }) = merged_parts(schema, schema)
    else {
        return;
    };
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    object.remove("allOf");
    object.insert("type".into(), Value::String("object".into()));
    object.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        object.insert("required".into(), Value::from(required));
    }
    if let Some(description) = description {
        object
            .entry("description")
            .or_insert(Value::String(description));
    }
}

/// What the parts of one object (`allOf`) hold together.
struct ObjectParts {
    properties: serde_json::Map<String, Value>,
    required: Vec<String>,
    /// The object's own description: the last part's that has one.
    description: Option<String>,
}

/// The properties, required names and description of `schema`'s object parts, through `$ref`s
/// into `root`'s `$defs` and nested `allOf`s; `None` when a part is anything else.
fn merged_parts(root: &Value, schema: &Value) -> Option<ObjectParts> {
    let parts = schema.get("allOf")?.as_array()?;
    let mut properties = serde_json::Map::new();
    let mut required: Vec<String> = Vec::new();
    let mut description = None;
    for part in parts {
        let part = match part.get("$ref").and_then(Value::as_str) {
            Some(reference) => root.pointer(reference.strip_prefix('#')?)?,
            None => part,
        };
        let is_object = match part.get("type") {
            None => true,
            Some(ty) => ty == "object",
        };
        if !is_object
            || ["oneOf", "anyOf", "not"]
                .iter()
                .any(|k| part.get(k).is_some())
        {
            return None;
        }
        let own = match part.get("allOf") {
            Some(_) => merged_parts(root, part)?,
            None => ObjectParts {
                properties: part.get("properties")?.as_object()?.clone(),
                required: part
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
                description: part
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            },
        };
        properties.extend(own.properties);
        for name in own.required {
            if !required.contains(&name) {
                required.push(name);
            }
        }
        // The last part is the object's own (the base comes first).
        description = own.description.or(description);
    }
    Some(ObjectParts {
        properties,
        required,
        description,
    })
}

/// Rewrites the file properties of a multipart body schema (a binary string, or a list of them)
/// into [`api::file_schema`] and returns their names.
fn file_parts(schema: &mut Value) -> Vec<String> {
    let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for (name, property) in properties.iter_mut() {
        let description = property
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string);
        if is_binary(property) {
            *property = crate::api::file_schema(description.as_deref());
            files.push(name.clone());
        } else if property.get("type") == Some(&Value::from("array"))
            && property.get("items").is_some_and(is_binary)
        {
            *property = serde_json::json!({
                "type": "array",
                "items": crate::api::file_schema(None),
                "description": description.unwrap_or_else(|| "Files.".into()),
            });
            files.push(name.clone());
        }
    }
    files
}

/// Is `schema` a string of bytes (`format: binary`, or 3.1's `contentMediaType`/`contentEncoding`)?
fn is_binary(schema: &Value) -> bool {
    let is_string = match schema.get("type") {
        Some(Value::String(kind)) => kind == "string",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "string"),
        None => true,
        _ => false,
    };
    is_string
        && (schema.get("format").and_then(Value::as_str) == Some("binary")
            || schema.get("contentMediaType").is_some()
            || schema.get("contentEncoding").and_then(Value::as_str) == Some("binary"))
}

fn is_json(media_type: &str) -> bool {
    let essence = media_type.split(';').next().unwrap_or("").trim();
    essence == "application/json" || essence.ends_with("+json") || essence == "*/*"
}

fn servers(servers: Option<&Value>) -> Vec<String> {
    servers
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|server| {
                    let mut url = server.get("url")?.as_str()?.to_string();
                    if let Some(variables) = server.get("variables").and_then(Value::as_object) {
                        for (name, variable) in variables {
                            let default = variable
                                .get("default")
                                .and_then(Value::as_str)
                                .unwrap_or_default();
                            url = url.replace(&format!("{{{name}}}"), default);
                        }
                    }
                    Some(url)
                })
                .collect()
        })
        .unwrap_or_default()
}

fn security_requirement(value: &Value, pointer: &str) -> Result<Vec<Vec<String>>, Fail> {
    let Some(list) = value.as_array() else {
        return Err((pointer.into(), "`security` is not a list".into()));
    };
    Ok(list
        .iter()
        .map(|alternative| {
            alternative
                .as_object()
                .map(|schemes| schemes.keys().cloned().collect())
                .unwrap_or_default()
        })
        .collect())
}

fn security_scheme(scheme: &Value) -> SecurityScheme {
    let text = |key: &str| scheme.get(key).and_then(Value::as_str).unwrap_or_default();
    match text("type") {
        "http" => match text("scheme").to_ascii_lowercase().as_str() {
            "bearer" => SecurityScheme::Bearer,
            "basic" => SecurityScheme::Basic,
            other => SecurityScheme::Unsupported {
                kind: format!("http {other}"),
            },
        },
        "apiKey" => {
            let location = match text("in") {
                "query" => Location::Query,
                "cookie" => Location::Cookie,
                _ => Location::Header,
            };
            SecurityScheme::ApiKey {
                location,
                name: text("name").to_string(),
            }
        }
        "oauth2" => match scheme
            .pointer("/flows/clientCredentials/tokenUrl")
            .and_then(Value::as_str)
        {
            Some(token_url) => SecurityScheme::OAuth2ClientCredentials {
                token_url: token_url.to_string(),
            },
            // Interactive flows give a user's token; the server takes one as a bearer token.
            None => SecurityScheme::Bearer,
        },
        other => SecurityScheme::Unsupported {
            kind: other.to_string(),
        },
    }
}

/// `object.get(key)`, without hashing `key` when `object` is small. serde_json's map hashes each
/// key looked up with SipHash, which costs more than comparing the few keys of most schema
/// objects; conversion looks up `$ref` (and more) in every object it visits.
pub(crate) fn member<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    if object.len() <= SMALL_OBJECT {
        object
            .iter()
            .find_map(|(name, value)| (name == key).then_some(value))
    } else {
        object.get(key)
    }
}

/// The most members an object looked up by [`member`] has for its keys to be compared one by
/// one rather than hashed.
const SMALL_OBJECT: usize = 8;

/// Decodes `%XX` escapes in a `$ref` fragment.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    // Most `$ref`s have no escape: copied, rather than rebuilt a byte at a time and checked.
    if memchr::memchr(b'%', bytes).is_none() {
        return text.to_owned();
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        // Two hex digits exactly: `from_str_radix` alone would also take a sign (`%+1`).
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && bytes[i + 1..i + 3].iter().all(u8::is_ascii_hexdigit)
            && let Some(byte) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests;
