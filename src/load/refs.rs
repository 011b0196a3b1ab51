//! External file `$ref`s: bundled into the root document before it is loaded.
//!
//! Each file a `$ref` names (`Pet.yaml`, `../common/Error.json#/Error`) is read once, relative to
//! the file that holds the `$ref`, and placed under `/x-mcpgen-external/<Name>` of the root
//! document (`<Name>` from the file's name, made unique); the `$ref` becomes a local one to that
//! place. `$ref`s stay `$ref`s, so recursion across files is handled like recursion inside one
//! file, and cycles between files end because each file is read only once.
//!
//! Nothing is fetched over the network, and only files inside the folder of the document (or the
//! folder the user allows with `--refs-root`) are read, with a `.yaml`, `.yml` or `.json` name: a
//! document cannot make mcpgen copy an arbitrary file of the machine into a generated crate.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

use super::{LoadError, parse_text, pointer_token};

/// Where bundled files are placed in the root document.
pub const EXTERNAL_KEY: &str = "x-mcpgen-external";

/// Keys whose values are mappings from names the document chooses to objects: their keys are
/// names (a response named `default`, a property named `enum` or `example`), never keywords.
const NAME_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "paths",
    "webhooks",
    "callbacks",
    "components",
    "schemas",
    "responses",
    "parameters",
    "requestBodies",
    "headers",
    "securitySchemes",
    "securityDefinitions",
    "links",
    "content",
    "encoding",
    "examples",
    "variables",
    "pathItems",
    EXTERNAL_KEY,
];

/// What [`is_literal`] is told for the "key" of an item of a list: no key it knows, so the keys
/// of an object in `parameters: [...]` are keywords, not names.
pub const ITEM: &str = "[]";

/// Name mappings whose keys may start with `x-` and still be names (of schemas or files).
const NAMES_NOT_EXTENSIONS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "schemas",
    EXTERNAL_KEY,
];

/// Does `value`, under `key` of an object that is itself under `parent` (whose own object is
/// under `grandparent`), hold literal data rather than more of the document? The specifications
/// put references in schemas, parameters, responses and the like, never inside `example`,
/// `examples` (a schema's list, or an Example object's `value`), `default`, `enum`, `const` or
/// `x-` extensions: a `$ref` key there is part of the data (`example: {$ref: a}`), and following
/// it refused valid documents.
pub fn is_literal(
    grandparent: Option<&str>,
    parent: Option<&str>,
    key: &str,
    value: &Value,
) -> bool {
    if key.starts_with("x-") && key != EXTERNAL_KEY {
        return !parent.is_some_and(|p| NAMES_NOT_EXTENSIONS.contains(&p));
    }
    if parent.is_some_and(|p| NAME_MAPS.contains(&p)) {
        return false;
    }
    match key {
        "example" | "default" | "enum" | "const" => true,
        "examples" => value.is_array(),
        "value" => grandparent == Some("examples"),
        _ => false,
    }
}

/// What the `$ref`s of a document point to, found in one walk of it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RefTargets {
    /// Some `$ref` names another file (the document needs [`bundle`]).
    pub external: bool,
    /// Some local `$ref` may point into `/paths` (to a path item or a part of an operation).
    pub paths: bool,
}

/// The local `$ref`s of a document (outside literal data, [`is_literal`]), each as its
/// fragment (a JSON pointer, still percent-encoded), in the order they are written: those in
/// `paths`, then the others.
#[derive(Debug, Default, Clone)]
pub struct LocalRefs {
    pub in_paths: Vec<String>,
    pub others: Vec<String>,
}

impl LocalRefs {
    /// Those of `document`, whose `paths` mapping was taken out as `paths` (or is in it).
    /// The path items are walked on every core (a Swagger 2.0 document's conversion is looked
    /// through again here, while no other work is left to the second core).
    pub fn of(document: &Value, paths: Option<&serde_json::Map<String, Value>>) -> LocalRefs {
        use rayon::prelude::*;
        let items: Vec<(&String, &Value)> = paths.into_iter().flatten().collect();
        let walk_paths = || {
            items
                .par_iter()
                .map(|(path, item)| {
                    let mut found = Vec::new();
                    if !is_literal(None, Some("paths"), path, item) {
                        let mut targets = RefTargets::default();
                        targets.walk(item, Some("paths"), Some(path), &mut found);
                    }
                    found
                })
                .collect::<Vec<_>>()
        };
        let ((_, mut local), in_paths) =
            rayon::join(|| RefTargets::with_local(document), walk_paths);
        local.in_paths.extend(in_paths.into_iter().flatten());
        local
    }
}

impl RefTargets {
    pub fn of(document: &Value) -> Self {
        Self::with_local(document).0
    }

    /// [`Self::of`], with the document's local `$ref`s found in the same walk.
    pub fn with_local(document: &Value) -> (Self, LocalRefs) {
        let mut targets = RefTargets::default();
        let mut local = LocalRefs::default();
        match document.as_object() {
            Some(root) => {
                for (key, value) in root {
                    if is_literal(None, None, key, value) {
                        continue;
                    }
                    let found = match key == "paths" {
                        true => &mut local.in_paths,
                        false => &mut local.others,
                    };
                    targets.walk(value, None, Some(key), found);
                }
            }
            None => targets.walk(document, None, None, &mut local.others),
        }
        (targets, local)
    }

    fn walk(
        &mut self,
        value: &Value,
        grandparent: Option<&str>,
        parent: Option<&str>,
        local: &mut Vec<String>,
    ) {
        match value {
            Value::Object(object) => {
                for (key, value) in object {
                    if is_literal(grandparent, parent, key, value) {
                        continue;
                    }
                    if key == "$ref"
                        && let Value::String(reference) = value
                    {
                        match reference.strip_prefix('#') {
                            // A percent-encoded pointer might spell `/paths` too.
                            Some(pointer) => {
                                self.paths |=
                                    pointer.starts_with("/paths") || pointer.contains('%');
                                local.push(pointer.to_string());
                            }
                            None => self.external = true,
                        }
                    } else {
                        self.walk(value, parent, Some(key), local);
                    }
                }
            }
            Value::Array(items) => {
                for value in items {
                    self.walk(value, parent, Some(ITEM), local);
                }
            }
            _ => {}
        }
    }
}

/// Resolves the `$anchor`s of one file: every `$anchor: NAME` (outside literal data) is taken out
/// of `value`, and every local `$ref: "#NAME"` to one becomes a JSON pointer to that place
/// (OpenAPI 3.1 schemas may refer by anchor; the loader reads pointers). Returns the anchors
/// found, NAME → pointer, for `$ref`s from other files (`file.json#NAME`).
pub fn resolve_anchors(value: &mut Value) -> HashMap<String, String> {
    let mut anchors = HashMap::new();
    if !has_anchor(value) {
        return anchors;
    }
    collect_anchors(value, None, None, &mut String::new(), &mut anchors);
    if !anchors.is_empty() {
        rewrite_anchor_refs(value, None, None, &anchors);
    }
    anchors
}

/// Whether an `$anchor` key is anywhere in `value` (a quick look before the walk that keeps
/// track of places).
pub(super) fn has_anchor(value: &Value) -> bool {
    match value {
        Value::Object(object) => object
            .iter()
            .any(|(key, child)| key == "$anchor" || has_anchor(child)),
        Value::Array(items) => items.iter().any(has_anchor),
        _ => false,
    }
}

fn collect_anchors(
    value: &Value,
    grandparent: Option<&str>,
    parent: Option<&str>,
    pointer: &mut String,
    anchors: &mut HashMap<String, String>,
) {
    match value {
        Value::Object(object) => {
            if !parent.is_some_and(|p| NAME_MAPS.contains(&p))
                && let Some(Value::String(name)) = object.get("$anchor")
            {
                anchors
                    .entry(name.clone())
                    .or_insert_with(|| pointer.clone());
            }
            for (key, child) in object {
                if is_literal(grandparent, parent, key, child) {
                    continue;
                }
                let length = pointer.len();
                pointer.push('/');
                pointer.push_str(&pointer_token(key));
                collect_anchors(child, parent, Some(key), pointer, anchors);
                pointer.truncate(length);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                let length = pointer.len();
                pointer.push_str(&format!("/{index}"));
                collect_anchors(child, parent, Some(ITEM), pointer, anchors);
                pointer.truncate(length);
            }
        }
        _ => {}
    }
}

fn rewrite_anchor_refs(
    value: &mut Value,
    grandparent: Option<&str>,
    parent: Option<&str>,
    anchors: &HashMap<String, String>,
) {
    match value {
        Value::Object(object) => {
            if !parent.is_some_and(|p| NAME_MAPS.contains(&p)) {
                if object.get("$anchor").is_some_and(Value::is_string) {
                    object.remove("$anchor");
                }
                if let Some(Value::String(reference)) = object.get_mut("$ref")
                    && let Some(pointer) = reference.strip_prefix('#').and_then(|n| anchors.get(n))
                {
                    *reference = format!("#{pointer}");
                }
            }
            for (key, child) in object.iter_mut() {
                if key != "$ref" && !is_literal(grandparent, parent, key, child) {
                    rewrite_anchor_refs(child, parent, Some(key), anchors);
                }
            }
        }
        Value::Array(items) => {
            for child in items {
                rewrite_anchor_refs(child, parent, Some(ITEM), anchors);
            }
        }
        _ => {}
    }
}

/// Replaces the external `$ref`s of `document` (read from `path`) by local ones, bringing the
/// files they name into it. Files are read only under `refs_root` (default: the document's own
/// folder). A document without external `$ref`s ([`RefTargets::external`]) is returned as it is.
/// Also returns the files brought in, by their name under [`EXTERNAL_KEY`].
pub fn bundle(
    path: &Path,
    mut document: Value,
    refs_root: Option<&Path>,
    root_anchors: HashMap<String, String>,
) -> Result<(Value, Sources), LoadError> {
    if !RefTargets::of(&document).external {
        return Ok((document, Sources::default()));
    }
    let root_file = path.canonicalize().map_err(|e| LoadError {
        file: path.to_path_buf(),
        pointer: None,
        position: None,
        message: format!("cannot read the file: {e}"),
    })?;
    let boundary = match refs_root {
        Some(root) => root.canonicalize().map_err(|e| LoadError {
            file: root.to_path_buf(),
            pointer: None,
            position: None,
            message: format!("--refs-root: cannot read the folder: {e}"),
        })?,
        None => root_file.parent().unwrap_or(Path::new("/")).to_path_buf(),
    };
    let mut anchors = HashMap::new();
    anchors.insert(root_file.clone(), root_anchors);
    let mut bundler = Bundler {
        root_file: root_file.clone(),
        boundary,
        names: HashMap::new(),
        files: Vec::new(),
        anchors,
    };
    bundler.walk(&mut document, path, &root_file, None, &mut Walk::default())?;
    let mut index = 0;
    while index < bundler.files.len() {
        let (name, display, canonical, mut value) = bundler.files[index].clone();
        bundler.walk(
            &mut value,
            &display,
            &canonical,
            Some(&name),
            &mut Walk::default(),
        )?;
        bundler.files[index].3 = value;
        index += 1;
    }
    let mut sources = Sources::default();
    if let Some(root) = document.as_object_mut() {
        let bundled: Map<String, Value> = bundler
            .files
            .into_iter()
            .map(|(name, shown, canonical, value)| {
                sources.files.insert(name.clone(), (shown, canonical));
                (name, value)
            })
            .collect();
        root.insert(EXTERNAL_KEY.into(), Value::Object(bundled));
    }
    Ok((document, sources))
}

/// The external files a document was bundled from, so that a pointer into the bundle can be
/// told as the file and the place the user wrote.
#[derive(Debug, Default)]
pub struct Sources {
    /// Name under [`EXTERNAL_KEY`] → (the path as the user would see it, its canonical path).
    files: HashMap<String, (PathBuf, PathBuf)>,
}

impl Sources {
    /// The file (shown, canonical) and the pointer in it of `pointer` into the bundled document;
    /// `None` when it points into the root document.
    pub fn external<'a>(&'a self, pointer: &str) -> Option<(&'a Path, &'a Path, String)> {
        let rest = pointer.strip_prefix(&format!("/{EXTERNAL_KEY}/"))?;
        let (token, inner) = match rest.split_once('/') {
            Some((token, inner)) => (token, format!("/{inner}")),
            None => (rest, String::new()),
        };
        let name = token.replace("~1", "/").replace("~0", "~");
        let (shown, canonical) = self.files.get(&name)?;
        Some((shown, canonical, inner))
    }
}

/// Where the bundler is in a file: the JSON pointer, and the keys of the two objects above.
#[derive(Default)]
struct Walk {
    pointer: String,
    keys: Vec<String>,
    /// The folders relative `$ref`s are read from here (as shown, canonical) when an enclosing
    /// schema's `$id` moved them from the file's own folder (OpenAPI 3.1, JSON Schema 2020-12).
    base: Option<(PathBuf, PathBuf)>,
}

impl Walk {
    fn parents(&self) -> (Option<&str>, Option<&str>) {
        let mut last = self.keys.iter().rev().map(String::as_str);
        let parent = last.next();
        (last.next(), parent)
    }
}

struct Bundler {
    root_file: PathBuf,
    boundary: PathBuf,
    /// Canonical path of each file read → its name under [`EXTERNAL_KEY`].
    names: HashMap<PathBuf, String>,
    /// The files read, in order: name, path as the user would see it, canonical path, contents
    /// (its `$ref`s rewritten once its turn comes).
    files: Vec<(String, PathBuf, PathBuf, Value)>,
    /// Canonical path of each file read (the root document's too) → its `$anchor`s, name →
    /// pointer ([`resolve_anchors`]).
    anchors: HashMap<PathBuf, HashMap<String, String>>,
}

impl Bundler {
    /// Rewrites the `$ref`s in `value`, part of the file `file` (shown as `display`), which is
    /// the root document when `name` is `None`. `pointer` is where `value` is in that file.
    fn walk(
        &mut self,
        value: &mut Value,
        display: &Path,
        file: &Path,
        name: Option<&str>,
        walk: &mut Walk,
    ) -> Result<(), LoadError> {
        match value {
            Value::Object(object) => {
                // `$id: ./nested/` is the base of the relative `$ref`s in its schema (its own
                // too); an `$id` that is a URL names no folder mcpgen reads.
                let outer = walk.base.clone();
                if !walk.parents().1.is_some_and(|p| NAME_MAPS.contains(&p))
                    && let Some(Value::String(id)) = object.get("$id")
                    && !id.contains("://")
                    && !id.starts_with('#')
                    && !id.is_empty()
                {
                    let (shown, canonical) = walk
                        .base
                        .clone()
                        .unwrap_or_else(|| (display.to_path_buf(), file.to_path_buf()));
                    let id = id.split('#').next().unwrap_or_default();
                    // `nested/` names a folder: a file in it has that folder as its parent.
                    let inside = |path: &Path| match id.ends_with('/') {
                        true => path.parent().unwrap_or(Path::new("")).join(id).join("_"),
                        false => path.parent().unwrap_or(Path::new("")).join(id),
                    };
                    walk.base = Some((inside(&shown), normalize(&inside(&canonical))));
                }
                if let Some(Value::String(reference)) = object.get_mut("$ref") {
                    let (shown, canonical) = walk
                        .base
                        .clone()
                        .unwrap_or_else(|| (display.to_path_buf(), file.to_path_buf()));
                    *reference = self.rewrite(
                        reference,
                        display,
                        (&shown, &canonical),
                        name,
                        &walk.pointer,
                    )?;
                }
                let result = self.walk_entries(object, display, file, name, walk);
                walk.base = outer;
                result
            }
            Value::Array(items) => {
                for (index, child) in items.iter_mut().enumerate() {
                    let length = walk.pointer.len();
                    walk.pointer.push_str(&format!("/{index}"));
                    walk.keys.push(ITEM.into());
                    self.walk(child, display, file, name, walk)?;
                    walk.keys.pop();
                    walk.pointer.truncate(length);
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// [`Bundler::walk`] into the entries of `object`.
    fn walk_entries(
        &mut self,
        object: &mut Map<String, Value>,
        display: &Path,
        file: &Path,
        name: Option<&str>,
        walk: &mut Walk,
    ) -> Result<(), LoadError> {
        for (key, child) in object.iter_mut() {
            let (grandparent, parent) = walk.parents();
            if is_literal(grandparent, parent, key, child) {
                continue;
            }
            let length = walk.pointer.len();
            walk.pointer.push('/');
            walk.pointer.push_str(&pointer_token(key));
            walk.keys.push(key.clone());
            self.walk(child, display, file, name, walk)?;
            walk.keys.pop();
            walk.pointer.truncate(length);
        }
        Ok(())
    }

    /// The local `$ref` that replaces `reference`, found at `pointer` in the file shown as
    /// `display`; a relative `$ref` is read from the folder of `base` (shown, canonical), the
    /// file itself unless an `$id` moved it.
    fn rewrite(
        &mut self,
        reference: &str,
        display: &Path,
        base: (&Path, &Path),
        name: Option<&str>,
        pointer: &str,
    ) -> Result<String, LoadError> {
        let (base_shown, file) = base;
        let fail = |message: String| LoadError {
            file: display.to_path_buf(),
            pointer: Some(pointer.to_string()),
            position: None,
            message,
        };
        let (target, fragment) = match reference.split_once('#') {
            Some((target, fragment)) => (target, fragment),
            None => (reference, ""),
        };
        // A local `#NAME` to an `$anchor` was made a pointer when the file was read.
        let not_a_pointer = || {
            fail(format!(
                "`$ref: {reference}` has a fragment that is neither a JSON pointer (`#/…`) nor the name of an `$anchor` in the file it names"
            ))
        };
        if !fragment.is_empty() && !fragment.starts_with('/') && target.is_empty() {
            return Err(not_a_pointer());
        }
        if target.is_empty() {
            // A local reference: local to the file it is in.
            return Ok(match name {
                None => reference.to_string(),
                Some(name) => local_ref(Some(name), fragment),
            });
        }
        if target.contains("://") || target.starts_with("//") {
            return Err(fail(format!(
                "`$ref: {reference}` points to a URL; mcpgen does not fetch anything over the network — download the file next to the document and refer to it by a relative path"
            )));
        }
        let relative = Path::new(target);
        let joined = match relative.is_absolute() {
            true => relative.to_path_buf(),
            false => file.parent().unwrap_or(Path::new("/")).join(relative),
        };
        let lexical = normalize(&joined);
        if !lexical.starts_with(&self.boundary) {
            return Err(fail(format!(
                "`$ref: {reference}` climbs out of the folder of the document; mcpgen reads only files under {} — to allow a wider folder, name it with --refs-root DIR",
                self.boundary.display()
            )));
        }
        // Lexically: `nosuchdir/../other.yaml` is `other.yaml` even when `nosuchdir` does not exist.
        let canonical = lexical.canonicalize().map_err(|e| {
            fail(format!(
                "`$ref: {reference}` names the file {}, which cannot be read: {e}",
                lexical.display()
            ))
        })?;
        // A symbolic link could lead elsewhere: the file itself must be inside too.
        if !canonical.starts_with(&self.boundary) {
            return Err(fail(format!(
                "`$ref: {reference}` climbs out of the folder of the document (through a symbolic link); mcpgen reads only files under {}",
                self.boundary.display()
            )));
        }
        let anchored = |anchors: Option<&HashMap<String, String>>| -> Result<String, LoadError> {
            match fragment.is_empty() || fragment.starts_with('/') {
                true => Ok(fragment.to_string()),
                false => anchors
                    .and_then(|anchors| anchors.get(fragment))
                    .cloned()
                    .ok_or_else(not_a_pointer),
            }
        };
        if canonical == self.root_file {
            return Ok(local_ref(None, &anchored(self.anchors.get(&canonical))?));
        }
        if let Some(existing) = self.names.get(&canonical) {
            let fragment = anchored(self.anchors.get(&canonical))?;
            // Read already (for an earlier `$ref`): the place must be in it all the same.
            if let Some((_, shown, _, contents)) = self.files.iter().find(|f| f.0 == *existing)
                && !fragment.is_empty()
                && contents
                    .pointer(&super::percent_decode(&fragment))
                    .is_none()
            {
                return Err(fail(format!(
                    "`$ref: {reference}` points to nothing in {}",
                    shown.display()
                )));
            }
            return Ok(local_ref(Some(existing), &fragment));
        }
        let extension = canonical
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if !matches!(extension.as_deref(), Some("yaml" | "yml" | "json")) {
            return Err(fail(format!(
                "`$ref: {reference}` names a file that is not .yaml, .yml or .json; mcpgen reads only OpenAPI fragments from such files"
            )));
        }
        let shown = base_shown.parent().unwrap_or(Path::new("")).join(relative);
        let file_error = |message: String| LoadError {
            file: shown.clone(),
            pointer: None,
            position: None,
            message,
        };
        let bytes = std::fs::read(&canonical).map_err(|e| {
            fail(format!(
                "`$ref: {reference}` names a file that cannot be read: {e}"
            ))
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            file_error(format!(
                "the file is not UTF-8 text (invalid byte at offset {}); save it as UTF-8",
                e.utf8_error().valid_up_to()
            ))
        })?;
        let mut contents = parse_text(&text).map_err(file_error)?;
        let anchors = resolve_anchors(&mut contents);
        let fragment = anchored(Some(&anchors))?;
        let fragment = fragment.as_str();
        self.anchors.insert(canonical.clone(), anchors);
        if !fragment.is_empty() && contents.pointer(&super::percent_decode(fragment)).is_none() {
            return Err(fail(format!(
                "`$ref: {reference}` points to nothing in {}",
                shown.display()
            )));
        }
        let name = self.unique_name(&canonical);
        self.names.insert(canonical.clone(), name.clone());
        self.files.push((name.clone(), shown, canonical, contents));
        Ok(local_ref(Some(&name), fragment))
    }

    /// A name for a file's place under [`EXTERNAL_KEY`]: its stem, made unique. The stem is what
    /// a recursive schema's `$defs` entry is named after.
    fn unique_name(&self, canonical: &Path) -> String {
        let stem = canonical
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("file")
            .to_string();
        let mut name = stem.clone();
        let mut n = 2;
        while self.names.values().any(|taken| *taken == name) {
            name = format!("{stem}{n}");
            n += 1;
        }
        name
    }
}

/// A local `$ref` to `fragment` in the root document (`None`) or in a bundled file.
fn local_ref(name: Option<&str>, fragment: &str) -> String {
    match name {
        None => format!("#{fragment}"),
        Some(name) => format!("#/{EXTERNAL_KEY}/{}{fragment}", pointer_token(name)),
    }
}

/// `a/b/../c` → `a/c`, without touching the disk.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn external(document: Value) -> bool {
        RefTargets::of(&document).external
    }

    #[test]
    fn ref_keys_in_literal_data_are_not_references() {
        for literal in [
            json!({ "example": { "$ref": "a.yaml" } }),
            json!({ "default": { "$ref": "a.yaml" } }),
            json!({ "enum": [{ "$ref": "a.yaml" }] }),
            json!({ "const": { "$ref": "a.yaml" } }),
            json!({ "examples": [{ "$ref": "a.yaml" }] }),
            json!({ "examples": { "one": { "value": { "$ref": "a.yaml" } } } }),
            json!({ "x-ms-examples": { "one": { "$ref": "a.yaml" } } }),
            json!({ "parameters": [{ "name": "a", "in": "query", "example": { "$ref": "a.yaml" } }] }),
        ] {
            assert!(!external(literal.clone()), "{literal}");
        }
    }

    #[test]
    fn names_that_look_like_literal_keywords_still_hold_references() {
        for named in [
            json!({ "responses": { "default": { "$ref": "a.yaml" } } }),
            json!({ "properties": { "example": { "$ref": "a.yaml" } } }),
            json!({ "properties": { "enum": { "$ref": "a.yaml" } } }),
            json!({ "properties": { "x-id": { "$ref": "a.yaml" } } }),
            json!({ "examples": { "default": { "$ref": "a.yaml" } } }),
            json!({ "components": { "schemas": { "const": { "$ref": "a.yaml" } } } }),
            json!({ "schema": { "$ref": "a.yaml" } }),
        ] {
            assert!(external(named.clone()), "{named}");
        }
    }
}
