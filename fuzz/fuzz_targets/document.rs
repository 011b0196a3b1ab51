//! Any bytes as an API description: loading, planning and rendering never panic; a document
//! mcpgen cannot use is an error.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // External `$ref`s are looked up beside a document that does not exist: they fail cleanly.
    let Ok(api) = mcpgen::load::load_text(Path::new("/nonexistent/fuzz/openapi.yaml"), text) else {
        return;
    };
    if let Ok(plan) = mcpgen::plan::plan(&api, &mcpgen::Options::default(), None) {
        let _ = mcpgen::render::render(&plan);
    }
});
