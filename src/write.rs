//! Write: puts the rendered files into the output directory, all or nothing.
//!
//! The files are first written to a temporary directory beside the output, then moved into
//! place, so a failure midway leaves the output as it was. Files mcpgen did not produce are left
//! alone; a file is rewritten only when its content changed.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::render::File;

/// Writes `files` under `dir`, creating it when needed.
pub fn write(dir: &Path, files: &[File]) -> Result<(), String> {
    let parent = match dir.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let staging = parent.join(format!(".{name}.mcpgen-{}", std::process::id()));
    let result = stage_and_move(dir, &staging, files);
    let _ = fs::remove_dir_all(&staging);
    result
}

fn stage_and_move(dir: &Path, staging: &Path, files: &[File]) -> Result<(), String> {
    let context = |path: &Path, e: io::Error| format!("cannot write {}: {e}", path.display());
    let mut changed = Vec::new();
    for file in files {
        let target = dir.join(&file.path);
        if fs::read(&target).ok().as_deref() == Some(file.contents.as_bytes()) {
            continue;
        }
        let staged = staging.join(&file.path);
        if let Some(parent) = staged.parent() {
            fs::create_dir_all(parent).map_err(|e| context(parent, e))?;
        }
        fs::write(&staged, &file.contents).map_err(|e| context(&staged, e))?;
        changed.push((staged, target));
    }
    for (staged, target) in changed {
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|e| context(parent, e))?;
        }
        fs::rename(&staged, &target).map_err(|e| context(&target, e))?;
    }
    Ok(())
}
