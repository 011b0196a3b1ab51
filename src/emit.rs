//! Format and verify: every Rust file (but the parts written directly, below) is parsed as
//! syntax (a gate against anything that is not valid Rust) and printed by prettyplease; the
//! render step then runs rustfmt over the printed files with a pinned configuration
//! ([`format_and_rustfmt`], which says why), so that the crate is `cargo fmt --check` clean as
//! written. The printed text is lexed back: that is where text from the spec
//! (string literals, doc comments) meets the printer, and a literal or comment that does not end
//! where it should, a bare carriage return in a doc comment or unbalanced delimiters are refused.
//! The grammar itself is not parsed a second time: prettyplease prints any syntax tree as text
//! that parses, and parsing it back was half of all the work of formatting a large API.
//!
//! A file is built in [`Part`]s that are formatted on their own, on every core: for an API of a
//! thousand operations a file is megabytes of Rust, and one syntax tree of it would be a hundred
//! megabytes held at once and formatted on one core.
//!
//! The repetitive bulk of the large files takes neither path: `src/client.rs` (its head: imports,
//! `Client`, its constructor; its methods, a `self.upstream.request(…)` chain per operation; its
//! parameter structs, one per operation, with the enums they name), discovery mode's
//! `src/operations.rs` (`render::discovery`) and the head and `ANSWERS` table of `tests/tools.rs`
//! (`render::crate_tests`) are written directly as text in the layout rustfmt gives them
//! ([`Part::direct`], `render::direct`), and so are `src/lib.rs` (`render::lib_rs`), and, in the
//! shapes zero-configuration plans give them, `src/main.rs` (`render::main_rs`), discovery mode's
//! `src/tools.rs` (`render::tools_rs`) and the stand-in and discovery tests of `tests/tools.rs`.
//! A file is then a sequence of [`Piece`]s: runs of printed parts, each formatted by rustfmt as a
//! file of its own (the small ones batched in one process, see [`Batches`]; as whole items: a run
//! between written members of one `impl` block keeps the block's `impl … {` or closing line for
//! rustfmt, cut after it ran),
//! and runs of written parts, joined in the file's order. That is not a second rustfmt: the
//! writers lay out only the few constructs the generator writes there (`///` lines, derives,
//! `#[serde(rename = …)]`, `pub field: Type,`, sorted imports, match arms of a string, a method's
//! signature, calls of literals and field references, the request chain, table entries), compute
//! the width decisions rustfmt makes for them (`max_width` 100, `fn_call_width`, `chain_width`
//! and `array_width` 60, a call that overflows its chain, the long attribute and arm forms, and a
//! statement too wide for rustfmt, which it leaves as prettyplease printed it), and give up on
//! anything else (a whole body sent as a form or multipart, a styled path segment, code that is
//! not ASCII …), so that the part (one method, a chunk of parameter structs, one module) is
//! printed and formatted as before. What keeps that safe: spec text reaches the written text only
//! through `render::direct`'s literal and doc comment functions (the escaping of the printed path,
//! tested against `proc_macro2`'s), the written text is lexed back like printed text, unit tests
//! compare it byte for byte with printing and rustfmt on hostile specs, the tracker, Stripe and
//! Slack, and the suite runs `rustfmt --check` over the Rust files of the large specs and of every
//! corpus document.

use proc_macro2::TokenStream;
use rayon::prelude::*;

/// Parses `tokens` as a Rust file and prints it formatted (a file of one part, on this thread).
pub fn format_rust(path: &str, tokens: TokenStream) -> Result<String, String> {
    let text = print(path, &|| tokens.clone())?;
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    space_items(text.lines(), &mut out);
    Ok(out)
}

/// Parses the tokens `build` makes as a Rust file, prints it and checks that the text lexes back.
///
/// Text a reader cannot see is escaped ([`escape_hidden_text`]) only when the printed text holds
/// some: every such literal prints it (a doc comment prints its value, escapes decoded), and
/// almost no spec has any, so the tokens are built a second time, escaped, only for the few
/// parts that do instead of being rebuilt for every part.
fn print(path: &str, build: &dyn Fn() -> TokenStream) -> Result<String, String> {
    let mut text = unparse(path, build())?;
    if text.chars().any(is_hidden) {
        text = unparse(path, escape_hidden_text(build()))?;
    }
    verify_rust(path, &text)?;
    Ok(text)
}

/// Parses `tokens` as a Rust file and prints it.
fn unparse(path: &str, tokens: TokenStream) -> Result<String, String> {
    let file: syn::File = syn::parse2(tokens)
        .map_err(|e| format!("internal error: generated {path} is not valid Rust: {e}"))?;
    Ok(prettyplease::unparse(&file))
}

/// What writes a direct part's text (see [`Part::direct`]).
type Write<'a> = dyn Fn() -> Option<String> + Send + Sync + 'a;

/// Some of a Rust file's top-level items, built when they are formatted (token trees are not
/// `Send`; the function that builds them is).
pub struct Part<'a> {
    build: Box<dyn Fn() -> TokenStream + Send + Sync + 'a>,
    /// Writes the part directly in its final layout (see [`Part::direct`]).
    write: Option<Box<Write<'a>>>,
    /// The part goes on with the previous part's `impl` block: it is written as a whole
    /// `impl ... {` block, whose first line the file leaves out.
    continues: bool,
    /// The next part goes on with this part's last `impl` block, whose closing line the file
    /// leaves out.
    continued: bool,
}

impl<'a> Part<'a> {
    /// Whole items.
    pub fn items(build: impl Fn() -> TokenStream + Send + Sync + 'a) -> Self {
        Part {
            build: Box::new(build),
            write: None,
            continues: false,
            continued: false,
        }
    }

    /// Whole items (or, with [`Part::continues`], members of an `impl` block) that `write`
    /// writes as text in the layout rustfmt gives them, or, when it cannot (`None`: a construct
    /// it does not lay out), that `build` makes as tokens to print and format like other parts.
    /// Written parts are neither printed nor formatted by rustfmt: their text takes its place
    /// between the formatted runs of printed parts (see [`Piece`]). A part whose members end
    /// the `impl` block writes its closing `}` line too.
    pub fn direct(
        write: impl Fn() -> Option<String> + Send + Sync + 'a,
        build: impl Fn() -> TokenStream + Send + Sync + 'a,
    ) -> Self {
        let mut part = Part::items(build);
        part.write = Some(Box::new(write));
        part
    }

    /// The text the part's writer writes, if it has one and it writes this part (the tests'
    /// way to compare writers with printing and rustfmt).
    #[cfg(test)]
    pub(crate) fn written(&self) -> Option<String> {
        self.write.as_ref().and_then(|write| write())
    }

    /// The next part continues this part's last item, an `impl` block (see [`Part::continues`]).
    pub fn continued(mut self) -> Self {
        self.continued = true;
        self
    }

    /// This part is one `impl` block that continues the previous part's: together they print as
    /// one block with every member of both.
    pub fn continues(mut self) -> Self {
        self.continues = true;
        self
    }

    /// Builds, formats and verifies this part on its own: the whole printed text, and where the
    /// text the file keeps of it starts and ends (after the `impl … {` line of a part that
    /// [`continues`](Part::continues), before the closing `}` line of one that is
    /// [`continued`](Part::continued)). The lines are cut when the file is joined: a part at the
    /// edge of a printed run keeps them for rustfmt (see [`Piece::Printed`]).
    fn format(&self, path: &str) -> Result<Printed, String> {
        let text = print(path, &self.build)?;
        let mut start = 0;
        if self.continues {
            start = text.len() - after_impl_line(&text, path)?.len();
        }
        let mut end = text.len();
        if self.continued {
            end = start + before_closing_line(&text[start..], path)?.len();
        }
        Ok(Printed { text, start, end })
    }
}

/// The members of the `impl` block `text` starts: what follows its one-line `impl … {`.
fn after_impl_line<'t>(text: &'t str, path: &str) -> Result<&'t str, String> {
    text.strip_prefix("impl ")
        .and_then(|rest| rest.split_once(" {\n"))
        .filter(|(line, _)| !line.contains('\n'))
        .map(|(_, members)| members)
        .ok_or_else(|| {
            format!("internal error: a part of generated {path} does not start an impl block")
        })
}

/// `text` without the closing `}` line of the `impl` block it ends.
fn before_closing_line<'t>(text: &'t str, path: &str) -> Result<&'t str, String> {
    text.strip_suffix("}\n")
        .filter(|rest| rest.ends_with('\n'))
        .ok_or_else(|| {
            format!("internal error: a part of generated {path} does not end an impl block")
        })
}

/// A printed part: its whole text, and the span the file keeps (see [`Part::format`]).
struct Printed {
    text: String,
    start: usize,
    end: usize,
}

/// What one part became: printed text, or text written directly.
enum Formatted {
    Printed(Printed),
    Written(String),
}

/// A run of a file's text as [`format_files`] leaves it.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece {
    /// Printed parts, spaced, for rustfmt to format: whole items, so that rustfmt formats the
    /// run as it formats it inside the whole file (rustfmt lays out each item on its own; what
    /// it does across items, sorting imports and keeping blank lines, stays within the file's
    /// head and the blank lines given). A run between written parts of one `impl` block keeps
    /// that block's opening line (`cut_open`) or closing line (`cut_close`), so that rustfmt
    /// reads whole items; [`format_and_rustfmt`] cuts them after rustfmt ran.
    Printed {
        text: String,
        cut_open: bool,
        cut_close: bool,
    },
    /// Parts written directly in rustfmt's layout (see [`Part::direct`]), spaced.
    Written(String),
}

/// A Rust file as [`format_files`] leaves it: its text in [`Piece`]s, printed and written
/// runs in the file's order. [`format_and_rustfmt`] gives the whole file.
#[derive(Debug, PartialEq, Eq)]
pub struct FormattedFile {
    pub path: String,
    pub pieces: Vec<Piece>,
}

/// Formats every part of every file, on every core, and groups each file's parts in runs of
/// printed and written text: `(path, parts)` in, one [`FormattedFile`] out for each, in the same
/// order, each text starting with `head`. A direct part that gives up is printed with its
/// neighbours; the others stay written wherever they are in the file.
pub fn format_files(
    files: Vec<(String, Vec<Part>)>,
    head: &str,
) -> Result<Vec<FormattedFile>, String> {
    format_files_with(files, head, FEWEST_WRITTEN_BETWEEN)
}

/// The fewest written parts that stay written between two printed parts of a file: a shorter run
/// is printed with its neighbours (see [`print_short_written_runs`]). Each printed run is a rustfmt
/// process of its own, 10 to 20 ms of starting alone, and a writer gives up on one part here and
/// there (one method of `src/client.rs`, one module of `src/operations.rs`): without this, a spec
/// with a few hundred such parts scattered would start a few hundred processes.
const FEWEST_WRITTEN_BETWEEN: usize = 32;

/// [`format_files`] with `fewest` for [`FEWEST_WRITTEN_BETWEEN`].
fn format_files_with(
    files: Vec<(String, Vec<Part>)>,
    head: &str,
    fewest: usize,
) -> Result<Vec<FormattedFile>, String> {
    let jobs: Vec<(&str, &Part)> = files
        .iter()
        .flat_map(|(path, parts)| parts.iter().map(move |part| (path.as_str(), part)))
        .collect();
    let formatted: Vec<Result<Formatted, String>> = jobs
        .into_par_iter()
        .map(|(path, part)| {
            if let Some(text) = part.write.as_ref().and_then(|write| write()) {
                // Members of an `impl` block lex back inside the block's braces: the part
                // leaves out its opening line, or (`continued`) its closing one.
                if part.continues || part.continued {
                    let open = if part.continues { "{" } else { "" };
                    let close = if part.continued { "}" } else { "" };
                    verify_rust(path, &format!("{open}{text}{close}"))?;
                } else {
                    verify_rust(path, &text)?;
                }
                return Ok(Formatted::Written(text));
            }
            part.format(path).map(Formatted::Printed)
        })
        .collect();
    let mut formatted = formatted.into_iter();
    let mut out = Vec::with_capacity(files.len());
    for (path, parts) in &files {
        let mut done: Vec<Formatted> = formatted
            .by_ref()
            .take(parts.len())
            .collect::<Result<_, _>>()?;
        print_short_written_runs(path, parts, &mut done, fewest)?;
        out.push(FormattedFile {
            path: path.clone(),
            pieces: pieces(parts, &done, head),
        });
    }
    Ok(out)
}

/// Prints (on every core) the written parts of a run of fewer than `fewest` between two printed
/// parts of one file, so that the printed parts on both sides and these make one printed run: one
/// rustfmt process where there would be two. What rustfmt makes of a printed part is what the
/// writer wrote, so the file's text is the same either way.
fn print_short_written_runs(
    path: &str,
    parts: &[Part],
    done: &mut [Formatted],
    fewest: usize,
) -> Result<(), String> {
    let mut gaps = Vec::new();
    let mut last_printed = None;
    for (index, formatted) in done.iter().enumerate() {
        if let Formatted::Printed(_) = formatted {
            if let Some(last) = last_printed
                && index - last - 1 < fewest
            {
                gaps.extend(last + 1..index);
            }
            last_printed = Some(index);
        }
    }
    let printed: Vec<(usize, Result<Printed, String>)> = gaps
        .into_par_iter()
        .map(|index| (index, parts[index].format(path)))
        .collect();
    for (index, result) in printed {
        done[index] = Formatted::Printed(result?);
    }
    Ok(())
}

/// The runs of one file's formatted parts (see [`Piece`]), `head` first.
fn pieces(parts: &[Part], done: &[Formatted], head: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut index = 0;
    while index < done.len() {
        if let Formatted::Written(_) = &done[index] {
            // Allocated once, at its whole length ([`join_spaced`] adds at most a line break
            // a part): the written bulk of a large file is megabytes, and growing it by doubling
            // touched twice that in fresh memory, on one core while the other waited.
            let length: usize = done[index..]
                .iter()
                .map_while(|formatted| match formatted {
                    Formatted::Written(text) => Some(text.len() + 1),
                    Formatted::Printed(_) => None,
                })
                .sum();
            let mut run = String::with_capacity(if index == 0 { head.len() } else { 0 } + length);
            if index == 0 {
                run.push_str(head);
            }
            while let Some(Formatted::Written(text)) = done.get(index) {
                join_spaced(&mut run, text);
                index += 1;
            }
            pieces.push(Piece::Written(run));
            continue;
        }
        let first = index;
        while let Some(Formatted::Printed(_)) = done.get(index) {
            index += 1;
        }
        // The `impl` lines at the run's edges stay (for rustfmt) only where a written part
        // goes on with the block.
        let cut_open = first > 0 && parts[first].continues;
        let cut_close = index < done.len() && parts[index - 1].continued;
        let printed = || {
            done[first..index].iter().map(|d| match d {
                Formatted::Printed(p) => p,
                Formatted::Written(_) => unreachable!("a run of printed parts"),
            })
        };
        // Spaced straight from the parts into the run's text: a large file is megabytes, and
        // every copy of it is memory the process touches afresh.
        let len: usize = printed().map(|p| p.text.len()).sum();
        let mut text = String::with_capacity(head.len() + len + len / 16);
        if first == 0 {
            text.push_str(head);
        }
        let last = index - 1;
        space_items(
            printed().enumerate().flat_map(|(at, p)| {
                let start = if at == 0 && cut_open { 0 } else { p.start };
                let end = if first + at == last && cut_close {
                    p.text.len()
                } else {
                    p.end
                };
                p.text[start..end].lines()
            }),
            &mut text,
        );
        pieces.push(Piece::Printed {
            text,
            cut_open,
            cut_close,
        });
    }
    pieces
}

/// Written parts' `texts` joined as a file's written run joins them (the tests' way).
#[cfg(test)]
pub(crate) fn join_written(texts: &[String]) -> String {
    let mut out = String::new();
    for text in texts {
        join_spaced(&mut out, text);
    }
    out
}

/// Appends `text` to `out` after a blank line where [`space_items`] would put one between the
/// last line of `out` and the first of `text`.
fn join_spaced(out: &mut String, text: &str) {
    let last = out.trim_end_matches('\n').rsplit('\n').next();
    let first = text.lines().next();
    if let (Some(last), Some(first)) = (last, first)
        && !last.is_empty()
        && blank_between(last, first)
    {
        out.push('\n');
    }
    out.push_str(text);
}

/// Formats every part of every file of `files` (see [`format_files`]), runs `rustfmt` over each
/// file's printed pieces and joins each file's pieces: `(path, text)` for each file, in the same
/// order, each text starting with `head`.
///
/// rustfmt runs on threads of their own, as many at once as there are cores. A large printed
/// piece (the bulk of a file with `--no-discovery`) goes to rustfmt, a process of its own, as
/// soon as its file's parts are formatted, while the parts of the next files are formatted on
/// every core. The small pieces (25 KB in all for a large API) are batched: once the files
/// before the first file written directly throughout are formatted (or every file is) they go to
/// rustfmt in as few processes as there are pieces that must begin a file (see [`Batches`]); the
/// small pieces of the files after, if any (a part a writer gave up on), are batched likewise once
/// every file is formatted. rustfmt is made ready ([`Rustfmt::get_ready`]) as soon as a file has a
/// printed piece, while the files after it are formatted: a crate written directly throughout (a
/// large API's zero-configuration crate) starts no rustfmt process at all. rustfmt is mostly
/// starting (10 to 15 ms of CPU a process, loading the compiler's libraries, whatever its input),
/// so a process a piece was most of what formatting them cost.
///
/// Why an external rustfmt after prettyplease: prettyplease gives the syntax tree a layout, but not
/// rustfmt's (it breaks method chains and signatures at other widths and does not sort imports),
/// and matching rustfmt line for line for every construct the generator writes (closures, nested
/// calls, comments) would be a second implementation of rustfmt; only the repetitive bulk of the
/// large files (`src/client.rs`, `src/operations.rs`, `tests/tools.rs`'s table, in the few forms
/// the generator writes there) is written in rustfmt's layout directly (see the module's
/// documentation). What keeps the output deterministic is the pinned configuration
/// ([`RUSTFMT_TOML`], passed with `--config-path`, so no `rustfmt.toml` around the user's
/// directories applies) and rustfmt's stability promise: within a style edition, formatting of
/// formatted code does not change across versions. The input is already laid out by
/// prettyplease, so without rustfmt (not installed, or `RUSTFMT` names nothing) the crate is
/// written as prettyplease prints it, with a warning on stderr saying so; the crate compiles the
/// same either way.
pub fn format_and_rustfmt(
    files: Vec<(String, Vec<Part>)>,
    head: &str,
    rustfmt: Rustfmt,
) -> Result<RustFiles, String> {
    let (send, receive) = std::sync::mpsc::channel::<Vec<ToFormat>>();
    let receive = std::sync::Mutex::new(receive);
    let mut formatted_files = Vec::with_capacity(files.len());
    let mut failure = None;
    let mut formatted: Vec<Option<FormatResult>> = Vec::new();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..rayon::current_num_threads().max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        // The lock is held only while waiting for the next batch.
                        let next = receive.lock().expect("no worker panics").recv();
                        let Ok(batch) = next else {
                            return done;
                        };
                        done.extend(rustfmt.format_batch(batch));
                    }
                })
            })
            .collect();
        let mut sent = 0;
        let mut batches = Batches::default();
        for file in files {
            // A file written directly throughout (`src/client.rs`, and `src/operations.rs` in
            // discovery mode: the bulk of the formatting, after the small files) prints nothing
            // unless a writer gives up on a part: the small pieces of the files before it go to
            // rustfmt now, to be formatted beside it rather than after every file (10 to 15 ms
            // with a core idle). A piece of its own would go in a batch after it.
            if file.1.iter().all(|part| part.write.is_some()) {
                for batch in std::mem::take(&mut batches).0 {
                    send.send(batch).expect("the workers wait for every piece");
                }
            }
            match format_files(vec![file], head) {
                Ok(mut one) => {
                    let printed = take_printed(&mut one);
                    // rustfmt gets ready once a piece is to be formatted, while the rest of the
                    // files are: with nothing printed, it never starts.
                    if !printed.is_empty()
                        && let Err(e) = rustfmt.get_ready()
                    {
                        failure = Some(e);
                        break;
                    }
                    for (path, text) in printed {
                        let piece = ToFormat {
                            index: sent,
                            path,
                            text,
                            head: 0,
                        };
                        sent += 1;
                        if let Some(alone) = batches.add(piece) {
                            send.send(vec![alone])
                                .expect("the workers wait for every piece");
                        }
                    }
                    formatted_files.extend(one);
                }
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        for batch in batches.0 {
            send.send(batch).expect("the workers wait for every piece");
        }
        drop(send);
        formatted.resize_with(sent, || None);
        for worker in workers {
            for (index, result) in worker.join().expect("no worker panics") {
                formatted[index] = Some(result);
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let mut printed = Vec::with_capacity(formatted.len());
    let mut missing = false;
    for result in formatted {
        let (text, ran) = result.expect("every piece sent was formatted")?;
        missing |= !ran;
        printed.push(text);
    }
    Ok(RustFiles {
        files: join_formatted(formatted_files, printed)?,
        rustfmt_missing: missing.then(|| rustfmt.named.clone()),
    })
}

/// A printed piece on its way to rustfmt: its place among the pieces sent, its file and its text.
struct ToFormat {
    index: usize,
    path: String,
    text: String,
    /// The length of the text's [`plain_head`], which a batch keeps out of rustfmt.
    head: usize,
}

impl ToFormat {
    /// The text rustfmt reads in a batch: all but its [`plain_head`].
    fn batched(&self) -> &str {
        &self.text[self.head..]
    }
}

/// What rustfmt made of a piece: its text formatted and `true`, or as it was and `false` when
/// rustfmt cannot be started; an error when rustfmt refused it.
type FormatResult = Result<(String, bool), String>;

/// Printed pieces of at most this many bytes are batched (see [`Batches`]); a larger one (the
/// printed bulk of a file, megabytes with `--no-discovery`) goes to rustfmt alone, at once, so
/// that the large ones are formatted side by side with the rest of the work.
const BATCHED_AT_MOST: usize = 64 << 10;

/// The small printed pieces of a crate (`src/main.rs`, `src/tools.rs` in discovery mode, the
/// stand-in module of `tests/tools.rs`, a client method a writer gave up on: 25 KB in all for
/// Stripe), grouped so that each group is one rustfmt process (see [`Rustfmt::format_batch`]): a
/// rustfmt process is mostly starting (10 to 15 ms of CPU however small its input, loading the
/// compiler's libraries), and one a piece was most of what formatting them cost. A piece's head
/// of plain comment lines (the `@generated` line, the generator's `//!` lines: see
/// [`plain_head`]) stays out of rustfmt; a piece that must still begin its file (other inner
/// attributes or module docs, see [`goes_first`]) begins a batch, one such piece a batch; the
/// others join the first batch.
#[derive(Default)]
struct Batches(Vec<Vec<ToFormat>>);

impl Batches {
    /// Adds `piece` to a batch; a piece too large to batch is given back, to go alone.
    fn add(&mut self, mut piece: ToFormat) -> Option<ToFormat> {
        if piece.text.len() > BATCHED_AT_MOST {
            return Some(piece);
        }
        piece.head = plain_head(&piece.text).len();
        if goes_first(piece.batched()) {
            match self
                .0
                .iter_mut()
                .find(|batch| !goes_first(batch[0].batched()))
            {
                Some(batch) => batch.insert(0, piece),
                None => self.0.push(vec![piece]),
            }
        } else {
            match self.0.first_mut() {
                Some(batch) => batch.push(piece),
                None => self.0.push(vec![piece]),
            }
        }
        None
    }
}

/// The comment lines that begin `text` and the blank line after them, when rustfmt keeps them as
/// they are wherever they are (the `@generated` head, a module doc of the generator's own words):
/// lines of printable ASCII without trailing spaces: `//` comments (not `///`, which documents
/// the next item), then one block of `//!` lines, single blank lines between them, up to the
/// blank line before the first item or other comment; `""` otherwise. A batch leaves them out of what rustfmt reads and puts them back before
/// what rustfmt made of the rest (rustfmt keeps a comment line as it is, and one blank line
/// between it and an item), so that the pieces that begin their files (`src/main.rs` and
/// `src/tools.rs` have module docs) go to one process.
fn plain_head(text: &str) -> &str {
    let plain = |line: &str| {
        line.ends_with('\n')
            && !line[..line.len() - 1].ends_with([' ', '\t'])
            && line.bytes().all(|b| matches!(b, b' '..=b'~' | b'\n'))
    };
    // The end of the last blank line, of the line read, and whether a `//!` block was read.
    let (mut head, mut at, mut docs) = (0, 0, false);
    for line in text.split_inclusive('\n') {
        let blank_before = text[..at].ends_with("\n\n");
        if line == "\n" {
            if at == 0 || blank_before {
                // rustfmt drops a blank line at the start and a second one in a row.
                return "";
            }
            head = at + 1;
        } else if line.starts_with("//!") && plain(line) && !(docs && blank_before) {
            // One block of module doc lines, after the plain comments.
            docs = true;
        } else if docs || !(line.starts_with("//") && !line.starts_with("///") && plain(line)) {
            // Past the head: a second block of inner attributes is left to rustfmt whole.
            if docs && blank_before && (line.starts_with("//!") || line.starts_with("#!")) {
                return "";
            }
            break;
        }
        at += line.len();
    }
    // Only a head followed by more than white space: rustfmt reads what follows it.
    match text[head..].trim().is_empty() {
        true => "",
        false => &text[..head],
    }
}

/// Whether printed `text` must begin what rustfmt reads: it holds inner attributes or a module
/// doc comment (Rust allows them only at the start of a file or block: found anywhere, to be
/// sure), starts with a blank line (which rustfmt drops only at the start of a file) or holds
/// `@generated` (which rustfmt looks for in the first lines of a file).
fn goes_first(text: &str) -> bool {
    text.starts_with('\n')
        || text.contains("@generated")
        || text.lines().any(|line| {
            let line = line.trim_start();
            line.starts_with("//!") || line.starts_with("#!") || line.starts_with("/*!")
        })
}

/// The item written between two pieces batched for rustfmt (see [`Rustfmt::format_batch`]), on
/// a line of its own: an item that is not a `use` or `mod` declaration, so that no sorting of
/// imports or modules crosses it, and that rustfmt leaves as it is.
const BETWEEN_PIECES: &str = "\nconst _MCPGEN_BETWEEN_PIECES: () = ();\n";

/// A crate's Rust files as [`format_and_rustfmt`] leaves them.
pub struct RustFiles {
    /// `(path, text)` of each file.
    pub files: Vec<(String, String)>,
    /// The rustfmt that could not be started (the files are as prettyplease printed them):
    /// the caller warns with [`warn_rustfmt_missing`] once the rest of the crate is rendered.
    pub rustfmt_missing: Option<std::ffi::OsString>,
}

/// Says on stderr that `program` (rustfmt) was not found, so the files are not rustfmt-formatted.
pub fn warn_rustfmt_missing(program: &std::ffi::OsStr) {
    eprintln!(
        "warning: `{}` was not found, so the generated Rust files are not rustfmt-formatted \
         (`cargo fmt --check` in the crate will report differences); install it with \
         `rustup component add rustfmt` or name it with RUSTFMT, and build again",
        program.to_string_lossy()
    );
}

/// What runs a formatter over `(path, text)` pairs in place (see [`join_with`]).
#[cfg(test)]
pub(crate) type Formatter = dyn Fn(&mut [(String, String)]) -> Result<(), String>;

/// Runs `format` over the printed pieces of `files` (`(path, text)` pairs, formatted in place),
/// cuts the `impl` lines they kept (see [`Piece::Printed`]) and joins each file's pieces: `(path,
/// text)` for each file, in the same order. [`format_and_rustfmt`] with a formatter of choice,
/// after the formatting (the tests' way).
#[cfg(test)]
pub(crate) fn join_with(
    files: Vec<FormattedFile>,
    format: &Formatter,
) -> Result<Vec<(String, String)>, String> {
    let mut files = files;
    let mut printed = take_printed(&mut files);
    format(&mut printed)?;
    join_formatted(files, printed.into_iter().map(|(_, text)| text).collect())
}

/// Moves the printed texts out of `files`, to be formatted: `(path, text)` for each, in the
/// files' order (a large file's are megabytes, and a copy of them memory the process touches
/// afresh). A piece of nothing but white space (an empty part) is left out, not formatted.
fn take_printed(files: &mut [FormattedFile]) -> Vec<(String, String)> {
    let mut printed: Vec<(String, String)> = Vec::new();
    for file in files {
        for piece in &mut file.pieces {
            if let Piece::Printed { text, .. } = piece {
                if text.trim().is_empty() {
                    *piece = Piece::Written(String::new());
                } else {
                    printed.push((file.path.clone(), std::mem::take(text)));
                }
            }
        }
    }
    printed
}

/// Joins each file's pieces, `printed` being the formatted texts [`take_printed`] took out of
/// them, in the same order, and cuts the `impl` lines they kept (see [`Piece::Printed`]).
fn join_formatted(
    files: Vec<FormattedFile>,
    printed: Vec<String>,
) -> Result<Vec<(String, String)>, String> {
    let mut printed = printed;
    let mut next = 0;
    let mut out = Vec::with_capacity(files.len());
    for file in files {
        // The file's text is allocated once, at its whole length (or is its one formatted
        // piece): a large file is megabytes, and growing it by doubling touches twice that.
        let formatted = file
            .pieces
            .iter()
            .filter(|piece| matches!(piece, Piece::Printed { .. }))
            .count();
        if let [
            Piece::Printed {
                cut_open: false,
                cut_close: false,
                ..
            },
        ] = file.pieces.as_slice()
        {
            out.push((file.path, std::mem::take(&mut printed[next])));
            next += 1;
            continue;
        }
        let written: usize = file
            .pieces
            .iter()
            .map(|piece| match piece {
                Piece::Written(text) => text.len() + 1,
                Piece::Printed { .. } => 1,
            })
            .sum();
        let length: usize = printed[next..next + formatted]
            .iter()
            .map(String::len)
            .sum();
        let mut text = String::with_capacity(length + written);
        for piece in file.pieces {
            match piece {
                Piece::Written(written) => join_spaced(&mut text, &written),
                Piece::Printed {
                    cut_open,
                    cut_close,
                    ..
                } => {
                    let formatted = std::mem::take(&mut printed[next]);
                    next += 1;
                    let mut kept = formatted.as_str();
                    if cut_open {
                        kept = after_impl_line(kept, &file.path)?;
                    }
                    if cut_close {
                        kept = before_closing_line(kept, &file.path)?;
                    }
                    join_spaced(&mut text, kept);
                }
            }
        }
        out.push((file.path, text));
    }
    Ok(out)
}

/// `text` spaced as [`space_items`] spaces printed text, for text written directly (see
/// [`Part::direct`]): a blank line is added where the printed path adds one, inside items too
/// (after a doc comment line that ends with `}` or `;`, before another doc line, attribute or
/// field), since rustfmt keeps the blank lines it is given.
pub fn spaced(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 64);
    space_items(text.lines(), &mut out);
    out
}

/// prettyplease prints items back to back; a blank line between items (but not inside a run of
/// `use` or `mod` declarations) makes the files read like hand-written ones. Appends `lines`,
/// spaced, to `out`.
fn space_items<'t>(lines: impl Iterator<Item = &'t str>, out: &mut String) {
    let mut previous: Option<&str> = None;
    for line in lines {
        if let Some(prev) = previous
            && blank_between(prev, line)
        {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
        previous = Some(line);
    }
}

/// Whether [`space_items`] puts a blank line between the lines `prev` and `line`.
fn blank_between(prev: &str, line: &str) -> bool {
    const STARTERS: &[&str] = &[
        "///",
        "#[",
        "pub ",
        "fn ",
        "async fn ",
        "impl",
        "mod ",
        "struct ",
        "enum ",
        "static ",
        "const ",
        "use ",
        "type ",
        "trait ",
        "macro_rules!",
    ];
    let (prev, current) = (prev.trim_start(), line.trim_start());
    let ends_item = prev.ends_with('}') || prev.ends_with(';');
    let same_run = |word: &str| {
        let kind = |l: &str| l.trim_start_matches("pub ").starts_with(word);
        kind(prev) && kind(current)
    };
    let after_module_doc = prev.starts_with("//!") && !current.starts_with("//!");
    (ends_item
        && STARTERS.iter().any(|s| current.starts_with(s))
        && !same_run("use ")
        && !same_run("mod "))
        || after_module_doc
}

/// The `rustfmt.toml` written into every generated crate, and the only configuration its files are
/// formatted with: the edition of the generated `Cargo.toml` and rustfmt's 2024 style edition.
pub const RUSTFMT_TOML: &str = "edition = \"2024\"\nstyle_edition = \"2024\"\n";

/// Runs `program` as rustfmt over `(path, text)` pairs in place, on every core (the tests' way;
/// generation runs it in [`format_and_rustfmt`]): whether it ran (`false`, files untouched, when it
/// cannot be started).
#[cfg(test)]
pub(crate) fn rustfmt_files_with(
    program: &std::ffi::OsStr,
    files: &mut [(String, String)],
) -> Result<bool, String> {
    let rustfmt = Rustfmt::new(Some(program.to_owned()))?;
    let results: Vec<Result<Option<String>, String>> = files
        .par_iter()
        .map(|(path, text)| rustfmt.format(path, text))
        .collect();
    let mut missing = false;
    for ((_, text), result) in files.iter_mut().zip(results) {
        match result? {
            Some(formatted) => *text = formatted,
            None => missing = true,
        }
    }
    Ok(!missing)
}

/// rustfmt as the render step runs it: the program, and a directory of its own holding the
/// pinned configuration ([`RUSTFMT_TOML`]), removed when this is dropped.
pub struct Rustfmt {
    /// What `RUSTFMT` names, or `rustfmt` (found on `PATH`).
    named: std::ffi::OsString,
    /// Whether `named` is the `rustfmt` on `PATH`, which may be rustup's proxy.
    on_path: bool,
    /// The rustfmt binary behind rustup's proxy, looked up once (see [`behind_rustup_proxy`]).
    direct: std::sync::OnceLock<Option<std::path::PathBuf>>,
    dir: std::path::PathBuf,
    config: std::path::PathBuf,
    /// The lookup of [`behind_rustup_proxy`] and a rustfmt process started ahead of need, on a
    /// thread of their own (see [`Rustfmt::start`]), until the first piece waits for them.
    starting: std::sync::Mutex<Option<std::thread::JoinHandle<Started>>>,
    /// The process started ahead and its program, until a piece for that program takes it.
    ready: std::sync::Mutex<Option<(std::ffi::OsString, std::process::Child)>>,
    /// Whether [`Rustfmt::get_ready`] ran.
    begun: std::sync::atomic::AtomicBool,
}

/// What [`Rustfmt::start`]'s thread finds: the binary behind rustup's proxy, and a rustfmt
/// process waiting for its input with its program.
type Started = (
    Option<std::path::PathBuf>,
    Option<(std::ffi::OsString, std::process::Child)>,
);

impl Rustfmt {
    /// The rustfmt `RUSTFMT` names, or the one on `PATH`, made ready while the caller goes on
    /// with other work: a thread asks rustup for the binary behind its proxy (see
    /// [`Rustfmt::format`]) and starts a rustfmt process, which loads the compiler's libraries
    /// (most of a rustfmt run) and then waits for the text on its standard input. `mcpgen
    /// build` with a curation file (whose tools are printed) starts it before loading the spec,
    /// when a core is mostly idle, so that the batch of small pieces finds its process ready when
    /// rendering ends; without one it uses [`Rustfmt::when_needed`]. A process no piece takes is
    /// killed when this is dropped.
    pub fn start() -> Result<Self, String> {
        let rustfmt = Rustfmt::when_needed()?;
        rustfmt.get_ready()?;
        Ok(rustfmt)
    }

    /// The rustfmt `RUSTFMT` names, or the one on `PATH`, made ready only when a piece is to be
    /// formatted ([`format_and_rustfmt`] calls [`Rustfmt::get_ready`] as soon as a file has a
    /// printed piece): a crate whose Rust files are all written directly, as a large API's
    /// zero-configuration crate is, starts no rustfmt or rustup process at all.
    pub fn when_needed() -> Result<Self, String> {
        Rustfmt::new(std::env::var_os("RUSTFMT"))
    }

    /// The rustfmt `program` names, made ready when needed (the tests' way to name one without
    /// setting `RUSTFMT` for the whole process).
    #[cfg(test)]
    pub(crate) fn named_when_needed(program: &str) -> Result<Self, String> {
        Rustfmt::new(Some(program.into()))
    }

    /// Starts, once, what [`Rustfmt::start`] starts ahead: on a thread of its own, the lookup of
    /// the binary behind rustup's proxy and a rustfmt process waiting for its input.
    pub fn get_ready(&self) -> Result<(), String> {
        if self.begun.swap(true, std::sync::atomic::Ordering::Relaxed) {
            return Ok(());
        }
        let (on_path, named, config) = (self.on_path, self.named.clone(), self.config.clone());
        let thread = std::thread::Builder::new()
            .name("rustfmt".into())
            .spawn(move || {
                let direct = if on_path { behind_rustup_proxy() } else { None };
                let program = direct.clone().map_or(named, Into::into);
                let child = spawn_rustfmt(&program, &config).ok();
                (direct, child.map(|child| (program, child)))
            })
            .map_err(|e| format!("cannot start a thread: {e}"))?;
        *self.starting.lock().expect("no lock is poisoned") = Some(thread);
        Ok(())
    }

    /// Waits for what [`Rustfmt::start`] began, if it did and no piece waited yet.
    fn started(&self) {
        let mut starting = self.starting.lock().expect("no lock is poisoned");
        if let Some(thread) = starting.take() {
            let (direct, child) = thread.join().expect("starting rustfmt does not panic");
            let _ = self.direct.set(direct);
            *self.ready.lock().expect("no lock is poisoned") = child;
        }
    }

    /// `text` formatted by `program`: the process started ahead when it runs that program, else
    /// one started now; `None` when the program cannot be started.
    fn run(
        &self,
        program: &std::ffi::OsStr,
        path: &str,
        text: &str,
    ) -> Result<Option<String>, String> {
        let ready = {
            let mut ready = self.ready.lock().expect("no lock is poisoned");
            match ready.as_ref() {
                Some((started, _)) if started == program => ready.take().map(|(_, child)| child),
                _ => None,
            }
        };
        let child = match ready {
            Some(child) => child,
            None => match spawn_rustfmt(program, &self.config) {
                Ok(child) => child,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(format!("cannot run rustfmt on generated {path}: {e}")),
            },
        };
        finish_rustfmt(child, path, text).map(Some)
    }

    /// The rustfmt `named` names, or without a name the one on `PATH`.
    fn new(named: Option<std::ffi::OsString>) -> Result<Self, String> {
        // One directory per call: generations run side by side in one process (tests, benches).
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("mcpgen-rustfmt-{}-{call}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(dir.join("rustfmt.toml"), RUSTFMT_TOML))
            .map_err(|e| {
                format!(
                    "cannot write rustfmt's configuration in {}: {e}",
                    dir.display()
                )
            })?;
        Ok(Rustfmt {
            on_path: named.is_none(),
            named: named.unwrap_or_else(|| "rustfmt".into()),
            direct: std::sync::OnceLock::new(),
            config: dir.join("rustfmt.toml"),
            dir,
            starting: std::sync::Mutex::new(None),
            ready: std::sync::Mutex::new(None),
            begun: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Formats `batch` (see [`Batches`]) in one rustfmt process: `(index, result)` for each piece,
    /// the result being the text formatted and `true`, or as it was and `false` when rustfmt
    /// cannot be started.
    ///
    /// The pieces go to rustfmt as one text, [`BETWEEN_PIECES`] between them, each without its
    /// trailing newlines (at the end of a file rustfmt drops blank lines, between items it keeps
    /// them): rustfmt lays out each item on its own, at its indentation, whatever items come
    /// before and after; what it does across items (sorting runs of `use` and `mod` declarations,
    /// keeping at most one blank line) stops at the item between; and only the first piece may
    /// hold what must begin a file ([`goes_first`]). Its output is cut at those items again.
    /// Should rustfmt refuse the text, or its output not cut into as many pieces (a piece holding
    /// that very line in a literal), each piece is formatted on its own, as it was before
    /// batching: the error then names its file.
    fn format_batch(&self, batch: Vec<ToFormat>) -> Vec<(usize, FormatResult)> {
        if batch.len() > 1 {
            let mut joined = String::with_capacity(batch.iter().map(|p| p.text.len() + 64).sum());
            for (at, piece) in batch.iter().enumerate() {
                if at > 0 {
                    joined.push_str(BETWEEN_PIECES);
                }
                joined.push_str(piece.batched().trim_end_matches('\n'));
            }
            joined.push('\n');
            match self.format("several files", &joined) {
                Ok(None) => {
                    return batch
                        .into_iter()
                        .map(|piece| (piece.index, Ok((piece.text, false))))
                        .collect();
                }
                Ok(Some(formatted)) => {
                    let cut: Vec<&str> = formatted.split(BETWEEN_PIECES).collect();
                    if cut.len() == batch.len() {
                        return batch
                            .iter()
                            .zip(cut)
                            .map(|(piece, text)| {
                                let head = &piece.text[..piece.head];
                                let text = format!("{head}{}\n", text.trim_end_matches('\n'));
                                (piece.index, Ok((text, true)))
                            })
                            .collect();
                    }
                }
                Err(_) => {}
            }
        }
        batch
            .into_iter()
            .map(|piece| {
                let result = match self.format(&piece.path, &piece.text) {
                    Ok(Some(formatted)) => Ok((formatted, true)),
                    Ok(None) => Ok((piece.text, false)),
                    Err(e) => Err(e),
                };
                (piece.index, result)
            })
            .collect()
    }

    /// `text` formatted; `None` when rustfmt cannot be started.
    ///
    /// rustup's proxy (the `rustfmt` on `PATH` of most installs) is a process that finds the
    /// toolchain and starts its rustfmt: about 13 ms of a rustfmt run of 30 on this project's
    /// machine. The binary it would start is asked of rustup once (`rustup which rustfmt`, in
    /// the same directory and environment, so toolchain overrides choose the same one) and
    /// started directly; should that fail in any way, the piece goes through the proxy as before,
    /// so what is written and said is what the proxy makes of it.
    fn format(&self, path: &str, text: &str) -> Result<Option<String>, String> {
        self.started();
        if self.on_path
            && let Some(direct) = self.direct.get_or_init(behind_rustup_proxy)
            && let Ok(Some(formatted)) = self.run(direct.as_os_str(), path, text)
        {
            return Ok(Some(formatted));
        }
        self.run(&self.named, path, text)
    }
}

impl Drop for Rustfmt {
    fn drop(&mut self) {
        self.started();
        if let Some((_, mut child)) = self.ready.get_mut().expect("no lock is poisoned").take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The rustfmt binary that rustup's proxy would run, when the `rustfmt` on `PATH` is that proxy
/// (the same file as the `rustup` on `PATH`, as its installer links them) and `rustup which
/// rustfmt` names an existing file; `None` otherwise (another rustfmt first on `PATH`, no
/// rustup, a toolchain without rustfmt), and on other systems than Unix.
fn behind_rustup_proxy() -> Option<std::path::PathBuf> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        use std::process::{Command, Stdio};
        let path = std::env::var_os("PATH")?;
        // The first executable file of that name on `PATH`, as `Command` finds it.
        let find = |name: &str| {
            std::env::split_paths(&path).find_map(|dir| {
                let file = dir.join(name);
                let metadata = std::fs::metadata(&file).ok()?;
                (metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
                    .then_some((file, metadata))
            })
        };
        let (_, proxy) = find("rustfmt")?;
        let (rustup, installer) = find("rustup")?;
        if (proxy.dev(), proxy.ino()) != (installer.dev(), installer.ino()) {
            return None;
        }
        let output = Command::new(rustup)
            .args(["which", "rustfmt"])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        let named = String::from_utf8(output.stdout).ok()?;
        let binary = std::path::PathBuf::from(named.trim_end_matches(['\n', '\r']));
        (output.status.success() && binary.is_absolute() && binary.is_file()).then_some(binary)
    }
    #[cfg(not(unix))]
    None
}

/// rustfmt started as `program` with the configuration `config`, reading the text to format on
/// its standard input and printing it formatted.
fn spawn_rustfmt(
    program: &std::ffi::OsStr,
    config: &std::path::Path,
) -> std::io::Result<std::process::Child> {
    use std::process::{Command, Stdio};
    Command::new(program)
        .arg("--config-path")
        .arg(config)
        .args(["--edition", "2024", "--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
}

/// `text` (of generated `path`) formatted by `child`, a process [`spawn_rustfmt`] started.
fn finish_rustfmt(
    mut child: std::process::Child,
    path: &str,
    text: &str,
) -> Result<String, String> {
    use std::io::Write;
    // Written on its own thread: rustfmt starts printing before it has read a large file. The
    // thread borrows the text (a large file is megabytes, and a copy of it memory touched afresh).
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let (output, written) = std::thread::scope(|scope| {
        let writer = scope.spawn(move || stdin.write_all(text.as_bytes()));
        let output = child.wait_with_output();
        (output, writer.join().expect("the writer does not panic"))
    });
    let output = output.map_err(|e| format!("cannot run rustfmt on generated {path}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "internal error: rustfmt refused generated {path}: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    written.map_err(|e| format!("cannot run rustfmt on generated {path}: {e}"))?;
    String::from_utf8(output.stdout)
        .map_err(|_| format!("internal error: rustfmt printed generated {path} as non-UTF-8"))
}

/// What the printed path makes of `tokens` as the file `path`: printed, then formatted by the
/// `rustfmt` on `PATH` (which the test fails without). The oracle of every direct writer's tests.
#[cfg(test)]
pub(crate) fn printed_and_rustfmt(path: &str, tokens: TokenStream) -> String {
    let printed = format_rust(path, tokens).expect("valid Rust");
    let mut files = vec![(path.to_string(), printed)];
    assert!(rustfmt_files_with("rustfmt".as_ref(), &mut files).expect("rustfmt runs"));
    files.remove(0).1
}

/// `tokens` with every code point a reader cannot see, or that changes the visible order of the
/// text around it, written as an escape (`\u{202e}`): rustc refuses bidirectional controls in
/// literals and doc comments (the Trojan Source lint), and an invisible character could hide text
/// from a reviewer. A string literal keeps its value (a raw string becomes an ordinary one, so
/// `tools/list` serves the same bytes); a doc comment shows the escape as text.
fn escape_hidden_text(tokens: TokenStream) -> TokenStream {
    use proc_macro2::{Group, Literal, TokenTree};
    let mut out = Vec::new();
    let mut in_doc = false;
    for tree in tokens {
        let tree = match tree {
            TokenTree::Group(group) => {
                let mut escaped = Group::new(group.delimiter(), escape_hidden_text(group.stream()));
                escaped.set_span(group.span());
                TokenTree::Group(escaped)
            }
            TokenTree::Literal(literal) => {
                let repr = literal.to_string();
                // A literal printed by `Literal::string` already escapes most of these; a raw
                // string or a doc comment's text shows them as they are.
                let may_hide = repr.starts_with(['"', 'r'])
                    && (repr.chars().any(is_hidden) || (in_doc && repr.contains("\\u{")));
                match syn::parse_str::<syn::LitStr>(&repr) {
                    Ok(text) if may_hide && in_doc => {
                        TokenTree::Literal(Literal::string(&escape_hidden(&text.value())))
                    }
                    Ok(text) if may_hide => TokenTree::Literal(
                        plain_string_literal(&text.value())
                            .parse()
                            .unwrap_or(literal),
                    ),
                    _ => TokenTree::Literal(literal),
                }
            }
            other => other,
        };
        // `doc = "..."`: the literal after `doc =` is a doc comment's text.
        in_doc = match &tree {
            TokenTree::Ident(ident) => ident == "doc",
            TokenTree::Punct(punct) => in_doc && punct.as_char() == '=',
            _ => false,
        };
        out.push(tree);
    }
    out.into_iter().collect()
}

/// `text` as an ordinary string literal that shows every hidden code point as an escape
/// ([`escape_hidden`]): quotes and backslashes escaped, everything else as it is (what a raw
/// string holding hidden text is rewritten to, so that it keeps its value).
pub(crate) fn plain_string_literal(text: &str) -> String {
    let mut plain = String::with_capacity(text.len() + 16);
    plain.push('"');
    for c in text.chars() {
        match c {
            '"' => plain.push_str("\\\""),
            '\\' => plain.push_str("\\\\"),
            c if is_hidden(c) => plain.push_str(&escape_hidden(&c.to_string())),
            c => plain.push(c),
        }
    }
    plain.push('"');
    plain
}

/// `text` with each hidden code point (see [`is_hidden`]) written as `\u{…}`.
pub(crate) fn escape_hidden(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_hidden(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `c` is a code point a reader cannot see or that reorders the text around it:
/// bidirectional controls and marks, zero-width and other invisible characters, line and
/// paragraph separators, tag characters, and control characters other than tab and line feed.
/// Letters that look like others (a Cyrillic `а`) are left alone: they are how other languages
/// are written, and rustc accepts them in literals and comments.
pub(crate) fn is_hidden(c: char) -> bool {
    matches!(
        c,
        '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2028}' | '\u{2029}'
            | '\u{061c}' | '\u{00ad}' | '\u{034f}' | '\u{115f}' | '\u{1160}' | '\u{17b4}'
            | '\u{17b5}' | '\u{180e}' | '\u{3164}' | '\u{feff}' | '\u{ffa0}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{e0000}'..='\u{e007f}'
    ) || (c.is_control() && c != '\n' && c != '\t')
}

/// Checks that the printed text of `path` lexes as Rust tokens: every literal and comment is
/// closed, no doc comment holds a bare carriage return, and delimiters balance.
///
/// Most generated text is checked by [`lexes_plainly`], which builds no tokens; what it cannot
/// vouch for is lexed by proc_macro2, whose error is the one reported.
fn verify_rust(path: &str, text: &str) -> Result<(), String> {
    if lexes_plainly(text) {
        return Ok(());
    }
    text.parse::<TokenStream>()
        .map(drop)
        .map_err(|e| format!("internal error: generated {path} does not lex back: {e}"))
}

/// Whether `text` lexes as Rust tokens, for text made of the tokens the generator writes:
/// `true` only for text proc_macro2 lexes too (tested against it), without building a token (the
/// lexing back was a tenth of all the work of generating Kubernetes' crate, most of it building
/// and dropping token trees, and a doc comment's text escaped a second time).
///
/// It follows proc_macro2's lexer (`proc_macro2::parse`) over ASCII identifiers, lifetimes and
/// punctuation, balanced delimiters, line and doc comments, string and character literals with
/// the escapes `\n \r \t \\ \0 \' \"`, `\x` and `\u{…}`, raw strings and decimal numbers;
/// anything else makes it answer `false` (not a verdict: [`verify_rust`] then asks proc_macro2):
/// a carriage return anywhere, a block comment, a byte or C string, a character literal with an escape,
/// other numbers (`0x`, exponents), code outside literals and comments that is not ASCII, and
/// text that does not lex (an unclosed literal, an unbalanced or mismatched delimiter).
fn lexes_plainly(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.contains(&b'\r') {
        return false;
    }
    let ident_start = |b: u8| b.is_ascii_alphabetic() || b == b'_';
    let ident_continue = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    // The end of the ASCII identifier from `at`.
    let ident_end = |mut at: usize| {
        while bytes.get(at).is_some_and(|&b| ident_continue(b)) {
            at += 1;
        }
        at
    };
    // After a literal: the end of its suffix (an identifier), `None` when a code point that is
    // not ASCII may go on with it.
    let after_suffix = |at: usize| {
        let end = match bytes.get(at) {
            Some(&b) if ident_start(b) => ident_end(at),
            _ => at,
        };
        match bytes.get(end) {
            Some(&b) if !b.is_ascii() => None,
            _ => Some(end),
        }
    };
    let mut closers: Vec<u8> = Vec::new();
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        let next = bytes.get(at + 1).copied();
        at = match b {
            b' ' | b'\t' | b'\n' | 0x0b | 0x0c => at + 1,
            // A line or doc comment, to the end of the line.
            b'/' if next == Some(b'/') => {
                memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |end| at + end)
            }
            b'/' if next == Some(b'*') => return false,
            b'(' | b'[' | b'{' => {
                closers.push(match b {
                    b'(' => b')',
                    b'[' => b']',
                    _ => b'}',
                });
                at + 1
            }
            b')' | b']' | b'}' => {
                if closers.pop() != Some(b) {
                    return false;
                }
                at + 1
            }
            b'"' => match cooked_string_end(bytes, at + 1).and_then(after_suffix) {
                Some(end) => end,
                None => return false,
            },
            b'\'' => {
                let Some(c) = text[at + 1..].chars().next() else {
                    return false;
                };
                let after = at + 1 + c.len_utf8();
                if !matches!(c, '\\' | '\'' | '\n' | '\t') && bytes.get(after) == Some(&b'\'') {
                    // A character literal.
                    match after_suffix(after + 1) {
                        Some(end) => end,
                        None => return false,
                    }
                } else if c.is_ascii() && ident_start(c as u8) {
                    // A lifetime (`'r#a`, `'ab'` and one going on in a code point that is not
                    // ASCII are left to proc_macro2).
                    let end = ident_end(at + 1);
                    if matches!(bytes.get(end), Some(b'\'' | b'#'))
                        || !bytes.get(end).is_none_or(u8::is_ascii)
                    {
                        return false;
                    }
                    end
                } else {
                    return false;
                }
            }
            b'0'..=b'9' => match number_end(bytes, at) {
                Some(end) => end,
                None => return false,
            },
            b if ident_start(b) => {
                const PREFIXES: [&[u8]; 7] =
                    [b"b\"", b"b'", b"br\"", b"br#", b"c\"", b"cr\"", b"cr#"];
                let rest = &bytes[at..];
                if PREFIXES.iter().any(|prefix| rest.starts_with(prefix)) {
                    return false;
                }
                if b == b'r' {
                    // A raw string: `r`, its hashes, a quote, its text, a quote and as many
                    // hashes.
                    let hashes = rest[1..].iter().take_while(|&&b| b == b'#').count();
                    if rest.get(1 + hashes) == Some(&b'"') {
                        let text = at + 2 + hashes;
                        let close = bytes[text..]
                            .windows(1 + hashes)
                            .position(|end| end[0] == b'"' && end[1..].iter().all(|&b| b == b'#'));
                        match close.and_then(|close| after_suffix(text + close + 1 + hashes)) {
                            Some(end) if hashes <= 255 => {
                                at = end;
                                continue;
                            }
                            _ => return false,
                        }
                    }
                }
                let end = if rest.starts_with(b"r#") {
                    // A raw identifier; proc_macro2 refuses these five.
                    if !bytes.get(at + 2).is_some_and(|&b| ident_start(b)) {
                        return false;
                    }
                    let end = ident_end(at + 2);
                    if matches!(
                        &text[at + 2..end],
                        "_" | "super" | "self" | "Self" | "crate"
                    ) {
                        return false;
                    }
                    end
                } else {
                    ident_end(at)
                };
                if !bytes.get(end).is_none_or(u8::is_ascii) {
                    return false;
                }
                end
            }
            b'~' | b'!' | b'@' | b'#' | b'$' | b'%' | b'^' | b'&' | b'*' | b'-' | b'=' | b'+'
            | b'|' | b';' | b':' | b',' | b'<' | b'.' | b'>' | b'/' | b'?' => at + 1,
            _ => return false,
        };
    }
    closers.is_empty()
}

/// The end of the ordinary string literal whose text starts at `at` (after its opening quote):
/// after its closing quote, `None` when it does not close or holds an escape [`lexes_plainly`]
/// leaves to proc_macro2.
fn cooked_string_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        // Straight to the next quote or backslash: the rest of a string's text is taken as it is.
        at += memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?;
        match *bytes.get(at)? {
            b'"' => return Some(at + 1),
            b'\\' => match *bytes.get(at + 1)? {
                b'n' | b'r' | b't' | b'\\' | b'\'' | b'"' | b'0' => at += 2,
                b'x' => {
                    let (high, low) = (*bytes.get(at + 2)?, *bytes.get(at + 3)?);
                    if !(b'0'..=b'7').contains(&high) || !low.is_ascii_hexdigit() {
                        return None;
                    }
                    at += 4;
                }
                b'u' => {
                    if bytes.get(at + 2) != Some(&b'{') {
                        return None;
                    }
                    let digits = bytes[at + 3..]
                        .iter()
                        .take_while(|b| b.is_ascii_hexdigit())
                        .count();
                    let close = at + 3 + digits;
                    if !(1..=6).contains(&digits) || bytes.get(close) != Some(&b'}') {
                        return None;
                    }
                    let hex = std::str::from_utf8(&bytes[at + 3..close]).ok()?;
                    char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
                    at = close + 1;
                }
                _ => return None,
            },
            _ => at += 1,
        }
    }
}

/// The end of the decimal number that starts at `at` (an integer or a float without exponent,
/// with an identifier's suffix), `None` for one [`lexes_plainly`] leaves to proc_macro2.
fn number_end(bytes: &[u8], at: usize) -> Option<usize> {
    let digits_end = |mut at: usize| {
        while bytes
            .get(at)
            .is_some_and(|&b| b.is_ascii_digit() || b == b'_')
        {
            at += 1;
        }
        at
    };
    if bytes[at] == b'0' && matches!(bytes.get(at + 1), Some(b'x' | b'o' | b'b')) {
        return None;
    }
    let mut end = digits_end(at);
    if bytes.get(end) == Some(&b'.') {
        match bytes.get(end + 1) {
            // `1..2`, `1.max(2)`: the integer, then a `.`.
            Some(&b) if b == b'.' || b.is_ascii_alphabetic() || b == b'_' => return Some(end),
            Some(&b) if !b.is_ascii() => return None,
            Some(&b) if b.is_ascii_digit() => end = digits_end(end + 1),
            // `1.`: a float.
            _ => return Some(end + 1),
        }
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        return None;
    }
    if bytes
        .get(end)
        .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_')
    {
        while bytes
            .get(end)
            .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
        {
            end += 1;
        }
    }
    match bytes.get(end) {
        Some(&b) if !b.is_ascii() => None,
        _ => Some(end),
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    #[test]
    fn items_are_formatted_with_a_blank_line_between_them_but_not_between_uses() {
        let text = format_rust(
            "x.rs",
            quote! {
                use std::fmt;
                use std::io;
                /// A.
                pub struct A;
                impl A { fn f(&self) -> u8 { let x = 1; x } }
            },
        )
        .expect("valid Rust");
        assert_eq!(
            text,
            "use std::fmt;\nuse std::io;\n\n/// A.\npub struct A;\n\nimpl A {\n    fn f(&self) -> u8 {\n        let x = 1;\n        x\n    }\n}\n"
        );
    }

    #[test]
    fn tokens_that_are_not_a_rust_file_are_an_internal_error_naming_the_file() {
        let error = format_rust("src/tools.rs", quote! { fn }).expect_err("not a file");
        assert!(
            error.starts_with("internal error: generated src/tools.rs is not valid Rust"),
            "{error}"
        );
    }

    #[test]
    fn an_impl_block_split_over_parts_prints_as_the_whole_block() {
        let whole = format_rust(
            "c.rs",
            quote! {
                //! Doc.
                use std::fmt;
                pub struct C;
                impl C {
                    fn new() -> Self { C }
                    fn a(&self) -> u8 { 1 }
                    fn b(&self) -> u8 { 2 }
                    fn c(&self) -> u8 { 3 }
                }
                struct P;
                struct Q;
            },
        )
        .expect("valid Rust");
        let parts = vec![
            Part::items(|| quote! { #![doc = " Doc."] use std::fmt; pub struct C; impl C { fn new() -> Self { C } } }).continued(),
            Part::items(|| quote! { impl C { fn a(&self) -> u8 { 1 } fn b(&self) -> u8 { 2 } } }).continues().continued(),
            Part::items(|| quote! { impl C { fn c(&self) -> u8 { 3 } } }).continues(),
            Part::items(TokenStream::new),
            Part::items(|| quote! { struct P; }),
            Part::items(|| quote! { struct Q; }),
        ];
        let files =
            unformatted(format_files(vec![("c.rs".into(), parts)], "").expect("valid Rust"));
        assert_eq!(files, [("c.rs".to_string(), whole)]);
    }

    #[test]
    fn files_of_many_parts_keep_their_order() {
        let files = (0..3)
            .map(|file| {
                let parts = (0..40).map(move |item| {
                    Part::items(move || {
                        let name = quote::format_ident!("S{file}_{item}");
                        quote! { struct #name; }
                    })
                });
                (format!("f{file}.rs"), parts.collect())
            })
            .collect();
        let formatted = unformatted(format_files(files, "").expect("valid Rust"));
        for (file, (path, text)) in formatted.iter().enumerate() {
            assert_eq!(path, &format!("f{file}.rs"));
            let expected: Vec<String> = (0..40)
                .map(|item| format!("struct S{file}_{item};"))
                .collect();
            let items: Vec<&str> = text.lines().filter(|line| !line.is_empty()).collect();
            assert_eq!(items, expected);
        }
    }

    /// The files joined without running a formatter over the printed pieces.
    fn unformatted(files: Vec<FormattedFile>) -> Vec<(String, String)> {
        join_with(files, &|_| Ok(())).expect("the pieces join")
    }

    #[test]
    fn direct_parts_are_written_where_they_are_and_one_that_gives_up_is_printed() {
        // The written text differs from the printed one, so that the test sees which was used.
        let parts = |gives_up: bool| {
            vec![
                Part::items(|| quote! { struct A; }),
                Part::direct(
                    || Some("/// written\nstruct B;\n".into()),
                    || quote! { struct B; },
                ),
                Part::direct(
                    move || (!gives_up).then(|| "/// written\nstruct C;\n".into()),
                    || quote! { struct C; },
                ),
                Part::items(|| quote! { struct D; }),
                Part::direct(
                    || Some("/// written\nstruct E;\n".into()),
                    || quote! { struct E; },
                ),
            ]
        };
        // Written runs between printed parts stay written however short (see the next test).
        let written =
            format_files_with(vec![("a.rs".into(), parts(false))], "", 1).expect("valid Rust");
        assert_eq!(
            written[0].pieces,
            [
                Piece::Printed {
                    text: "struct A;\n".into(),
                    cut_open: false,
                    cut_close: false
                },
                Piece::Written("/// written\nstruct B;\n\n/// written\nstruct C;\n".into()),
                Piece::Printed {
                    text: "struct D;\n".into(),
                    cut_open: false,
                    cut_close: false
                },
                Piece::Written("/// written\nstruct E;\n".into()),
            ]
        );
        assert_eq!(
            unformatted(written)[0].1,
            "struct A;\n\n/// written\nstruct B;\n\n/// written\nstruct C;\n\nstruct D;\n\n/// written\nstruct E;\n"
        );
        let files = unformatted(
            format_files_with(vec![("a.rs".into(), parts(true))], "", 1).expect("valid Rust"),
        );
        assert_eq!(
            files[0].1,
            "struct A;\n\n/// written\nstruct B;\n\nstruct C;\n\nstruct D;\n\n/// written\nstruct E;\n"
        );
        // Written text is lexed back like printed text.
        let parts = vec![Part::direct(
            || Some("const A: &str = \"open;\n".into()),
            TokenStream::new,
        )];
        let error = format_files(vec![("a.rs".into(), parts)], "").expect_err("does not lex");
        assert!(error.contains("does not lex back"), "{error}");
    }

    #[test]
    fn members_written_inside_a_printed_impl_block_join_it_as_rustfmt_formats_the_whole_block() {
        // What printing and rustfmt make of the whole file.
        let mut whole = vec![(
            "c.rs".to_string(),
            format_rust(
                "c.rs",
                quote! {
                    use std::fmt;
                    use std::collections::HashMap;
                    pub struct C;
                    impl C {
                        fn new() -> Self { C }
                        fn a(&self) -> u8 { 1 }
                        fn b(&self) -> u8 { 2 }
                        fn c(&self, x: HashMap<u8, u8>, y: HashMap<u8, u8>, z: HashMap<u8, u8>) -> fmt::Result { todo!() }
                    }
                    struct P;
                    struct Q;
                },
            )
            .expect("valid Rust"),
        )];
        assert!(rustfmt_files_with("rustfmt".as_ref(), &mut whole).expect("rustfmt runs"));
        // The same with `a` written directly between printed members, and `Q` at the end; the
        // printed member after it is long, so that rustfmt has something to lay out.
        let parts = |b_gives_up: bool| {
            vec![
                Part::items(|| quote! { use std::fmt; use std::collections::HashMap; pub struct C; impl C { fn new() -> Self { C } } }).continued(),
                Part::direct(
                    || Some("    fn a(&self) -> u8 {\n        1\n    }\n".into()),
                    || quote! { impl C { fn a(&self) -> u8 { 1 } } },
                )
                .continues()
                .continued(),
                Part::direct(
                    move || (!b_gives_up).then(|| "    fn b(&self) -> u8 {\n        2\n    }\n".into()),
                    || quote! { impl C { fn b(&self) -> u8 { 2 } } },
                )
                .continues()
                .continued(),
                Part::items(|| quote! { impl C { fn c(&self, x: HashMap<u8, u8>, y: HashMap<u8, u8>, z: HashMap<u8, u8>) -> fmt::Result { todo!() } } }).continues(),
                Part::items(|| quote! { struct P; }),
                Part::direct(|| Some("struct Q;\n".into()), || quote! { struct Q; }),
            ]
        };
        for b_gives_up in [false, true] {
            let files = format_files_with(vec![("c.rs".into(), parts(b_gives_up))], "", 1)
                .expect("valid Rust");
            let kept = |piece: &Piece| match piece {
                Piece::Printed {
                    cut_open,
                    cut_close,
                    ..
                } => (*cut_open, *cut_close),
                Piece::Written(_) => (false, false),
            };
            // The printed runs keep the `impl` lines a written member needs cut after rustfmt.
            assert_eq!(
                files[0].pieces.iter().map(kept).collect::<Vec<_>>()[..2],
                [(false, true), (false, false)]
            );
            let joined = join_with(files, &|printed| {
                rustfmt_files_with("rustfmt".as_ref(), printed).map(|ran| assert!(ran))
            })
            .expect("the pieces join");
            assert_eq!(joined, whole, "b gives up: {b_gives_up}");
        }
    }

    #[test]
    fn parts_given_up_here_and_there_make_one_printed_run_and_the_same_text() {
        // Members of an `impl` block, as `src/client.rs`'s methods are: every third one gives up,
        // and a member's written text is what printing and rustfmt make of it.
        let parts = || {
            let mut parts = vec![
                Part::items(|| quote! { pub struct C; impl C { pub fn new() -> Self { C } } })
                    .continued(),
            ];
            for n in 0..10usize {
                let written = format!("    pub fn m{n}(&self) -> usize {{\n        {n}\n    }}\n");
                let part = Part::direct(
                    move || (n % 3 != 0).then(|| written.clone()),
                    move || {
                        let name = quote::format_ident!("m{n}");
                        let value = proc_macro2::Literal::usize_unsuffixed(n);
                        quote! { impl C { pub fn #name(&self) -> usize { #value } } }
                    },
                )
                .continues();
                parts.push(if n < 9 { part.continued() } else { part });
            }
            parts
        };
        let printed_runs = |files: &[FormattedFile]| {
            files[0]
                .pieces
                .iter()
                .filter(|piece| matches!(piece, Piece::Printed { .. }))
                .count()
        };
        let rustfmt = |files| {
            join_with(files, &|printed| {
                rustfmt_files_with("rustfmt".as_ref(), printed).map(|ran| assert!(ran))
            })
            .expect("the pieces join")
        };
        // Runs of two written members stay written when two is enough: four printed runs (the
        // head with `m0`, `m3`, `m6`, `m9`).
        let apart = format_files_with(vec![("c.rs".into(), parts())], "", 2).expect("valid Rust");
        assert_eq!(printed_runs(&apart), 4);
        // By default they are printed with their neighbours: one printed run, one rustfmt.
        let together = format_files(vec![("c.rs".into(), parts())], "").expect("valid Rust");
        assert_eq!(printed_runs(&together), 1);
        let (apart, together) = (rustfmt(apart), rustfmt(together));
        assert_eq!(together, apart);
        assert!(
            together[0]
                .1
                .contains("    pub fn m4(&self) -> usize {\n        4\n    }\n")
        );
    }

    #[test]
    fn a_part_that_continues_something_other_than_an_impl_block_is_an_internal_error() {
        let parts = vec![Part::items(|| quote! { struct A; }).continues()];
        let error = format_files(vec![("a.rs".into(), parts)], "").expect_err("not an impl block");
        assert!(
            error.contains("internal error: a part of generated a.rs does not start an impl block"),
            "{error}"
        );
        let parts = vec![Part::items(|| quote! { struct A; }).continued()];
        let error = format_files(vec![("a.rs".into(), parts)], "").expect_err("not an impl block");
        assert!(error.contains("does not end an impl block"), "{error}");
    }

    #[test]
    fn hidden_code_points_become_escapes_in_literals_and_doc_comments() {
        let raw: TokenStream = "r#\"{\"a\": \"x\u{202e}\\\"y\"}\"#".parse().unwrap();
        let plain = proc_macro2::Literal::string("tab\tok \u{2066}rtl\u{2069}");
        let text = format_rust(
            "a.rs",
            quote! {
                #[doc = " Doc \u{202e}reversed\u{202c} \u{200b}."]
                pub const A: &str = #raw;
                pub const B: &str = #plain;
            },
        )
        .unwrap();
        assert!(
            !text.contains(['\u{202e}', '\u{2066}', '\u{200b}']),
            "{text}"
        );
        assert!(
            text.contains("/// Doc \\u{202e}reversed\\u{202c} \\u{200b}."),
            "{text}"
        );
        let file: syn::File = syn::parse_str(&text).unwrap();
        let values: Vec<String> = file
            .items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Const(c) => match &*c.expr {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        assert_eq!(
            values,
            ["{\"a\": \"x\u{202e}\\\"y\"}", "tab\tok \u{2066}rtl\u{2069}"]
        );
    }

    #[test]
    fn rustfmt_sorts_imports_and_joins_a_signature_that_fits_where_prettyplease_does_not() {
        let printed = format_rust(
            "src/client.rs",
            quote! {
                use serde_json::Value;
                use crate::runtime::ToolError;
                pub struct Client;
                impl Client {
                    pub async fn list_projects(&self, params: &ListProjectsParams) -> Result<Value, ToolError> { todo!() }
                }
            },
        )
        .expect("valid Rust");
        assert!(
            printed.contains("    pub async fn list_projects(\n"),
            "{printed}"
        );
        let mut files = vec![("src/client.rs".to_string(), printed)];
        assert!(rustfmt_files_with("rustfmt".as_ref(), &mut files).expect("rustfmt runs"));
        let formatted = &files[0].1;
        assert!(
            formatted.starts_with("use crate::runtime::ToolError;\nuse serde_json::Value;\n"),
            "{formatted}"
        );
        assert!(
            formatted.contains(
                "    pub async fn list_projects(&self, params: &ListProjectsParams) -> Result<Value, ToolError> {\n"
            ),
            "{formatted}"
        );
    }

    #[test]
    fn without_rustfmt_the_files_stay_as_prettyplease_printed_them() {
        let mut files = vec![(
            "src/lib.rs".to_string(),
            "use b::B;\nuse a::A;\n".to_string(),
        )];
        let ran = rustfmt_files_with("mcpgen-test-no-such-rustfmt".as_ref(), &mut files)
            .expect("a missing rustfmt is not an error");
        assert!(!ran);
        assert_eq!(files[0].1, "use b::B;\nuse a::A;\n");
    }

    #[test]
    fn a_file_rustfmt_refuses_is_an_internal_error_naming_it() {
        let mut files = vec![("src/tools.rs".to_string(), "fn main( {}\n".to_string())];
        let error = rustfmt_files_with("rustfmt".as_ref(), &mut files).expect_err("not Rust");
        assert!(
            error.starts_with("internal error: rustfmt refused generated src/tools.rs"),
            "{error}"
        );
    }

    /// Three files of printed and written parts (one written part gives up), as the tests'
    /// `join_with` and as [`format_and_rustfmt`] make them.
    fn three_files() -> Vec<(String, Vec<Part<'static>>)> {
        let mut files = Vec::new();
        for (n, path) in ["a.rs", "b.rs", "c.rs"].into_iter().enumerate() {
            let mut parts = vec![Part::items(
                move || quote! { use std::io; use std::fmt; pub struct C; impl C { pub fn new() -> Self { C } } },
            )
            .continued()];
            for m in 0..3usize {
                let gives_up = n == 1 && m == 1;
                parts.push(
                    Part::direct(
                        move || {
                            (!gives_up).then(|| {
                                format!("    pub fn m{m}(&self) -> usize {{\n        {m}\n    }}\n")
                            })
                        },
                        move || {
                            let name = quote::format_ident!("m{m}");
                            quote! { impl C { pub fn #name(&self) -> usize { #m } } }
                        },
                    )
                    .continues()
                    .continued(),
                );
            }
            parts.push(
                Part::direct(
                    || Some("    pub fn last(&self) -> usize {\n        0\n    }\n}\n".into()),
                    || quote! { impl C { pub fn last(&self) -> usize { 0 } } },
                )
                .continues(),
            );
            files.push((path.to_string(), parts));
        }
        files
    }

    #[test]
    fn rustfmt_run_while_files_are_formatted_gives_what_rustfmt_run_after_gives() {
        let after = join_with(
            format_files(three_files(), "// head\n\n").expect("valid Rust"),
            &|printed| rustfmt_files_with("rustfmt".as_ref(), printed).map(|ran| assert!(ran)),
        )
        .expect("the pieces join");
        let rustfmt = Rustfmt::new(Some("rustfmt".into())).expect("a configuration directory");
        let overlapped =
            format_and_rustfmt(three_files(), "// head\n\n", rustfmt).expect("valid Rust");
        assert_eq!(overlapped.files, after);
        assert_eq!(overlapped.rustfmt_missing, None);
        assert!(
            after[0]
                .1
                .starts_with("// head\n\nuse std::fmt;\nuse std::io;\n"),
            "{}",
            after[0].1
        );
        // a.rs is written but for its head; in b.rs, a part gave up and is printed (`1usize`),
        // and so is the written part between it and the head, but not those after it.
        assert!(
            after[0]
                .1
                .contains("    pub fn m1(&self) -> usize {\n        1\n    }\n")
        );
        assert!(
            after[1]
                .1
                .contains("    pub fn m2(&self) -> usize {\n        2\n    }\n")
        );
        assert!(
            after[1]
                .1
                .contains("    pub fn m1(&self) -> usize {\n        1usize\n    }\n")
        );
    }

    fn to_format(pieces: &[(&str, &str)]) -> Vec<ToFormat> {
        pieces
            .iter()
            .enumerate()
            .map(|(index, (path, text))| ToFormat {
                index,
                path: path.to_string(),
                text: text.to_string(),
                head: plain_head(text).len(),
            })
            .collect()
    }

    /// Pieces batched in one rustfmt process come out as each formatted alone: imports at the
    /// edges of two pieces are not sorted together, blank lines at a piece's end are dropped as
    /// at the end of a file, heads of plain comments (module docs, the `@generated` head) are
    /// kept as rustfmt keeps them, other inner attributes begin their batch, and a
    /// piece holding the line between pieces (in a raw string) or one rustfmt refuses makes
    /// each piece go alone (the error naming its file).
    #[test]
    fn pieces_batched_in_one_rustfmt_are_formatted_as_each_alone() {
        let rustfmt = Rustfmt::new(Some("rustfmt".into())).expect("a configuration directory");
        let alone = |pieces: &[(&str, &str)]| -> Vec<String> {
            pieces
                .iter()
                .map(|(path, text)| {
                    rustfmt
                        .format(path, text)
                        .expect("rustfmt runs")
                        .expect("rustfmt is installed")
                })
                .collect()
        };
        let batched = |pieces: &[(&str, &str)]| -> Vec<FormatResult> {
            let mut done = rustfmt.format_batch(to_format(pieces));
            done.sort_by_key(|(index, _)| *index);
            done.into_iter().map(|(_, result)| result).collect()
        };
        let between = BETWEEN_PIECES.trim();
        let marker_in_literal = format!("const X: &str = r#\"\n{between}\n\"#;\nfn   f() {{}}\n");
        for pieces in [
            vec![
                ("a.rs", "//! A.\n\nuse z::Z;\nuse   y::Y;\n"),
                ("b.rs", "use b::B;\nuse a::A;\nfn f( x:u8 ) {}\n\n\n"),
                (
                    "c.rs",
                    "impl C {\n    fn g(&self) -> [u8; 3] { [1,2,3] }\n}\n",
                ),
                ("d.rs", "mod z;\nmod a;\n"),
            ],
            vec![
                ("b.rs", "fn f( x:u8 ) {}\n"),
                ("d.rs", "// @generated by a test\n\nmod z;\nmod a;\n"),
                (
                    "e.rs",
                    "// @generated\n\n//! E.\n//! More.\n\nuse b::B;\nuse a::A;\n",
                ),
                ("f.rs", "//! F, trailing space \n\nfn   f() {}\n"),
                ("g.rs", "#![allow(dead_code)]\n\nuse b::B;\nuse a::A;\n"),
            ],
            vec![("a.rs", "fn a( ) {}\n"), ("b.rs", &marker_in_literal)],
        ] {
            let expected: Vec<FormatResult> = alone(&pieces)
                .into_iter()
                .map(|text| Ok((text, true)))
                .collect();
            assert_eq!(batched(&pieces), expected, "{pieces:?}");
        }
        let refused = batched(&[("a.rs", "fn a( ) {}\n"), ("b.rs", "fn main( {}\n")]);
        assert_eq!(refused[0], Ok(("fn a() {}\n".to_string(), true)));
        let error = refused[1].clone().expect_err("not Rust");
        assert!(
            error.starts_with("internal error: rustfmt refused generated b.rs"),
            "{error}"
        );
        let missing =
            Rustfmt::new(Some("mcpgen-test-no-such-rustfmt".into())).expect("a directory");
        let mut done = missing.format_batch(to_format(&[
            ("a.rs", "fn a( ) {}\n"),
            ("b.rs", "fn b( ) {}\n"),
        ]));
        done.sort_by_key(|(index, _)| *index);
        assert_eq!(
            done,
            vec![
                (0, Ok(("fn a( ) {}\n".to_string(), false))),
                (1, Ok(("fn b( ) {}\n".to_string(), false)))
            ]
        );
    }

    /// The head kept out of rustfmt is plain comments, one block of module docs and the blank
    /// line before the first item, and nothing rustfmt might change.
    #[test]
    fn the_plain_head_is_what_rustfmt_keeps_as_it_is() {
        let main = "// @generated x\n\n//! Main.\n//! More.\n\nuse a::A;\n";
        assert_eq!(
            plain_head(main),
            "// @generated x\n\n//! Main.\n//! More.\n\n"
        );
        for text in [
            "\n// a\n\nfn f() {}\n",
            "// a\n\n\nfn f() {}\n",
            "/// Doc.\n\nfn f() {}\n",
            "//! A \n\nfn f() {}\n",
            "//! A\n\n//! B\n\nfn f() {}\n",
            "//! A\n\n#![allow(x)]\nfn f() {}\n",
            "//! ü\n\nfn f() {}\n",
            "//! A\n\n",
            "fn f() {}\n",
        ] {
            assert_eq!(plain_head(text), "", "{text:?}");
        }
    }

    /// The small pieces make as few batches as the pieces that must begin one (one of them
    /// first in each; a head of plain comment lines is kept out of rustfmt and does not count),
    /// and a large piece goes alone.
    #[test]
    fn small_pieces_make_one_batch_for_each_piece_that_must_begin_one() {
        let mut batches = Batches::default();
        let large = "fn f() {}\n".repeat(BATCHED_AT_MOST / 10 + 1);
        let pieces = [
            "//! Lib, trailing space \n\nmod a;\n",
            "fn g() {}\n",
            "// @generated\n\n//! Main.\n\nfn main() {}\n",
            &large,
            "#![allow(dead_code)]\nfn h() {}\n",
            "impl C {}\n",
        ];
        let mut alone = Vec::new();
        for piece in to_format(
            &pieces
                .iter()
                .map(|text| ("x.rs", *text))
                .collect::<Vec<_>>(),
        ) {
            alone.extend(batches.add(piece).map(|piece| piece.index));
        }
        assert_eq!(alone, [3]);
        let indices: Vec<Vec<usize>> = batches
            .0
            .iter()
            .map(|batch| batch.iter().map(|piece| piece.index).collect())
            .collect();
        assert_eq!(indices, [vec![0, 1, 2, 5], vec![4]]);
    }

    #[test]
    fn the_rustfmt_behind_rustups_proxy_formats_as_the_proxy_does() {
        let text = "use b::B;\nuse a::A;\nfn f() { let x = [1,2,3]; }\n";
        let proxy = Rustfmt::new(Some("rustfmt".into())).expect("a configuration directory");
        let on_path = Rustfmt::new(None).expect("a configuration directory");
        let formatted = proxy.format("x.rs", text).expect("rustfmt runs");
        assert_eq!(
            on_path.format("x.rs", text).expect("rustfmt runs"),
            formatted
        );
        assert_eq!(
            formatted.as_deref(),
            Some("use a::A;\nuse b::B;\nfn f() {\n    let x = [1, 2, 3];\n}\n")
        );
    }

    /// A rustfmt started ahead has its process waiting, which the first piece takes and
    /// formats as a process started for it does; one no piece takes is ended when dropped.
    #[test]
    fn the_rustfmt_started_ahead_formats_with_its_waiting_process() {
        let text = "use b::B;\nuse a::A;\nfn f() { let x = [1,2,3]; }\n";
        let started = Rustfmt::start().expect("a configuration directory");
        started.started();
        assert!(started.ready.lock().expect("not poisoned").is_some());
        let formatted = started.format("x.rs", text).expect("rustfmt runs");
        assert!(started.ready.lock().expect("not poisoned").is_none());
        let fresh = Rustfmt::new(std::env::var_os("RUSTFMT")).expect("a directory");
        assert_eq!(formatted, fresh.format("x.rs", text).expect("rustfmt runs"));
        assert!(formatted.is_some());
        let unused = Rustfmt::start().expect("a configuration directory");
        unused.started();
        let pid = unused
            .ready
            .lock()
            .expect("not poisoned")
            .as_ref()
            .map(|(_, c)| c.id());
        drop(unused);
        let pid = pid.expect("a process was waiting");
        // Killed and reaped: no process of that id is left (not even a zombie).
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists()
                || cfg!(not(target_os = "linux"))
        );
    }

    /// The small pieces of the files before one written directly throughout go to rustfmt
    /// before that file is formatted (here, its one part waits for rustfmt to have read them);
    /// a piece of that file (its part gives up) goes to rustfmt after it, in a batch of its own.
    #[cfg(unix)]
    #[test]
    fn small_pieces_go_to_rustfmt_before_a_file_written_directly_is_formatted() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("a temporary directory");
        let log = dir.path().join("log");
        // A rustfmt that leaves its input as it is and logs it, a line before each run.
        let fake = dir.path().join("fake-rustfmt");
        std::fs::write(
            &fake,
            format!(
                "#!/bin/sh\nprintf '=== run\\n' >> '{0}'\ntee -a '{0}'\n",
                log.display()
            ),
        )
        .expect("the script is written");
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755))
            .expect("the script is made executable");
        let waited = log.clone();
        let files = vec![
            (
                "a.rs".to_string(),
                vec![Part::items(|| quote! { fn a_piece() {} })],
            ),
            (
                "b.rs".to_string(),
                vec![Part::direct(
                    move || {
                        let start = std::time::Instant::now();
                        while start.elapsed() < std::time::Duration::from_secs(30)
                            && !std::fs::read_to_string(&waited)
                                .is_ok_and(|logged| logged.contains("a_piece"))
                        {
                            std::thread::sleep(std::time::Duration::from_millis(5));
                        }
                        None
                    },
                    || quote! { fn b_piece() {} },
                )],
            ),
        ];
        let rustfmt = Rustfmt::new(Some(fake.into_os_string())).expect("a configuration directory");
        let formatted = format_and_rustfmt(files, "", rustfmt).expect("valid Rust");
        let texts: Vec<(&str, &str)> = formatted
            .files
            .iter()
            .map(|(path, text)| (path.as_str(), text.as_str()))
            .collect();
        assert_eq!(
            texts,
            [("a.rs", "fn a_piece() {}\n"), ("b.rs", "fn b_piece() {}\n")]
        );
        let logged = std::fs::read_to_string(&log).expect("rustfmt ran");
        let runs: Vec<&str> = logged.split("=== run\n").skip(1).collect();
        assert_eq!(runs.len(), 2, "{logged}");
        assert!(
            runs[0].contains("a_piece") && !runs[0].contains("b_piece"),
            "{logged}"
        );
        assert!(runs[1].contains("b_piece"), "{logged}");
    }

    #[test]
    fn without_rustfmt_overlapped_files_stay_printed_and_the_missing_rustfmt_is_named() {
        let rustfmt = Rustfmt::new(Some("mcpgen-test-no-such-rustfmt".into()))
            .expect("a configuration directory");
        let overlapped = format_and_rustfmt(three_files(), "", rustfmt).expect("valid Rust");
        let printed = join_with(
            format_files(three_files(), "").expect("valid Rust"),
            &|_| Ok(()),
        )
        .expect("the pieces join");
        assert_eq!(overlapped.files, printed);
        assert_eq!(
            overlapped.rustfmt_missing,
            Some(std::ffi::OsString::from("mcpgen-test-no-such-rustfmt"))
        );
    }

    #[test]
    fn a_file_that_does_not_lex_among_overlapped_ones_is_an_internal_error_naming_it() {
        let mut files = three_files();
        files[1].1.push(Part::direct(
            || Some("fn broken( {}\n".into()),
            || quote! {},
        ));
        let rustfmt = Rustfmt::new(Some("rustfmt".into())).expect("a configuration directory");
        let error = format_and_rustfmt(files, "", rustfmt)
            .err()
            .expect("does not lex");
        assert!(
            error.starts_with("internal error: generated b.rs does not lex back"),
            "{error}"
        );
    }

    /// What proc_macro2 says of `text`: whether it lexes.
    fn proc_macro2_lexes(text: &str) -> bool {
        text.parse::<TokenStream>().is_ok()
    }

    #[test]
    fn text_that_lexes_plainly_is_text_proc_macro2_lexes_on_a_million_random_snippets() {
        // Snippets of the characters where lexing goes wrong: quotes, escapes, comment starts,
        // delimiters, number and raw-string prefixes, a carriage return, text that is not ASCII.
        const PIECES: &[&str] = &[
            "\"",
            "'",
            "\\",
            "\\x7f",
            "\\x80",
            "\\u{10ffff}",
            "\\u{110000}",
            "\\u{}",
            "\\n",
            "\\q",
            "/",
            "*",
            "//",
            "///",
            "//!",
            "/*",
            "*/",
            "\n",
            "\r",
            "\t",
            " ",
            "(",
            ")",
            "[",
            "]",
            "{",
            "}",
            "#",
            "r",
            "b",
            "c",
            "br",
            "cr",
            "r#",
            "self",
            "_",
            "a",
            "e",
            "E",
            "x",
            "0",
            "1",
            "9",
            ".",
            "..",
            "_1",
            "0x",
            "1e5",
            "1.5",
            "u8",
            "é",
            "\u{202e}",
            "\u{a0}",
            "`",
            "$",
            "-",
            "=",
            ">",
            ";",
            ",",
            "\0",
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            // xorshift64*: a fixed sequence, so a failure is the same on every run.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let mut plain = 0;
        for _ in 0..1_000_000 {
            let length = (next() % 9) as usize;
            let text: String = (0..length)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect();
            if lexes_plainly(&text) {
                plain += 1;
                assert!(
                    proc_macro2_lexes(&text),
                    "lexes plainly but not in proc_macro2: {text:?}"
                );
            }
        }
        // The check is not vacuous: many snippets take the plain path.
        assert!(plain > 50_000, "{plain}");
    }

    #[test]
    fn the_generated_examples_lex_plainly() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("generated-examples");
        let mut checked = 0;
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("the examples are there") {
                let path = entry.expect("a directory entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs")
                    && !path.components().any(|c| c.as_os_str() == "runtime")
                {
                    let text = std::fs::read_to_string(&path).expect("UTF-8 Rust");
                    assert!(proc_macro2_lexes(&text), "{}", path.display());
                    assert!(
                        lexes_plainly(&text),
                        "{} does not lex plainly",
                        path.display()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked >= 20, "{checked}");
    }

    #[test]
    fn what_lexes_plainly_covers_the_generators_tokens_and_leaves_the_rest() {
        for plain in [
            "fn f<'a>(x: &'a str) -> u8 { let c = 'x'; let t = (1, 2.5, 3u8, 1.); t.0.max(1..2) }\n",
            "/// Doc with \"quotes\", `code` and é.\n//! Inner.\n// Plain.\npub r#type: Option<String>,\n",
            "const A: &str = \"a\\n\\t\\\\\\\"\\x7f\\u{202e}\\u{10ffff}é\";\n",
            "const B: [&str; 3] = [r\"a\\\", r#\"{\"b\": \"c\"}\"#, r##\"\"#\"##];\n",
            "#[serde(rename = \"x-y\")] $ ~ @ % ^ & * - = + | ; : , < . > / ?\n",
        ] {
            assert!(lexes_plainly(plain), "{plain}");
            assert!(proc_macro2_lexes(plain), "{plain}");
        }
        // Left to proc_macro2, which lexes them.
        for other in [
            "/* block */",
            "b\"bytes\"",
            "br#\"bytes\"#",
            "'\\n'",
            "0xff",
            "1e5",
            "let é = 1;",
            "a\r\nb",
            "\"\\\n continued\"",
        ] {
            assert!(!lexes_plainly(other), "{other}");
            assert!(proc_macro2_lexes(other), "{other}");
        }
        // Do not lex: refused by both.
        for broken in [
            "fn main( {}",
            "(]",
            ")",
            "\"open",
            "\"\\x80\"",
            "\"\\u{110000}\"",
            "\"\\q\"",
            "'ab'",
            "r#self",
            "r#\"open\"",
            "`",
            "/// a\rb",
        ] {
            assert!(!lexes_plainly(broken), "{broken}");
            assert!(!proc_macro2_lexes(broken), "{broken}");
        }
    }

    #[test]
    fn verify_rejects_text_that_does_not_lex() {
        assert!(verify_rust("a.rs", "fn main() {}\n").is_ok());
        assert!(verify_rust("a.rs", "fn main( {}\n").is_err());
        assert!(verify_rust("a.rs", "const A: &str = \"open;\n").is_err());
        assert!(verify_rust("a.rs", "/// a\rb\nstruct S;\n").is_err());
        assert!(verify_rust("a.rs", "/* open\nstruct S;\n").is_err());
    }
}
