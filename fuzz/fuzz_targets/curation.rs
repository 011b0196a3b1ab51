//! Any bytes as a curation file of the tracker example: parsing, checking, planning and rendering
//! never panic; a file with mistakes is diagnostics.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fn tracker() -> &'static mcpgen::api::Api {
    static API: OnceLock<mcpgen::api::Api> = OnceLock::new();
    API.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs/tracker/openapi.yaml");
        mcpgen::load::load(&path).expect("the tracker's API description loads")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let api = tracker();
    let Ok(checked) = mcpgen::curate::check_text(Path::new("mcpgen.yaml"), text, api) else {
        return;
    };
    if let Ok(plan) = mcpgen::plan::plan(api, &mcpgen::Options::default(), Some(&checked.model))
    {
        let _ = mcpgen::render::render(&plan);
    }
});
