//! Copies the describe tool's `expand` out of templates/discovery.rs, so that what is measured is
//! the generated servers' code.
use std::path::Path;

fn main() {
    let template = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../templates/discovery.rs");
    println!("cargo::rerun-if-changed={}", template.display());
    let text = std::fs::read_to_string(&template).expect("templates/discovery.rs");
    let start = text
        .find("\nfn expand(")
        .expect("`fn expand` in the template");
    let end = start + text[start..].find("\n}\n").expect("the end of `fn expand`") + 3;
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("expand.rs");
    std::fs::write(out, &text[start..end]).expect("written");
}
