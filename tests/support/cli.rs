//! Running the mcpgen binary as a user does, and reading back what it wrote: the helpers the
//! command-line tests share.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::SystemTime;

/// What one run of the binary did.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `mcpgen args…` in `dir`, without colour (`NO_COLOR`) in what the test compares.
pub fn mcpgen(dir: &Path, args: &[&str]) -> Run {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("the mcpgen binary runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Every file under `dir`, by path relative to it (with `/`), with its bytes.
pub fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    files_with(dir, |path| std::fs::read(path).expect("a readable file"))
}

/// Every file under `dir`, by relative path, with its modification time.
pub fn modification_times(dir: &Path) -> BTreeMap<String, SystemTime> {
    files_with(dir, |path| {
        std::fs::metadata(path)
            .and_then(|m| m.modified())
            .expect("a modification time")
    })
}

/// What `read` makes of every file under `dir`, by path relative to it (with `/`).
fn files_with<T>(dir: &Path, read: impl Fn(&Path) -> T) -> BTreeMap<String, T> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).expect("a readable directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path
                    .strip_prefix(dir)
                    .expect("under the directory")
                    .to_string_lossy()
                    .replace('\\', "/");
                files.insert(relative, read(&path));
            }
        }
    }
    files
}

/// Compares `actual` with the golden file `name` in the repository's folder `folder`, or rewrites
/// the file when `UPDATE_GOLDEN` is set.
pub fn golden(folder: &str, name: &str, actual: &str) {
    let path = super::repo().join(folder).join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("the golden file is written");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} is missing; run with UPDATE_GOLDEN=1", path.display()));
    assert_eq!(
        actual,
        expected,
        "the output differs from {}; UPDATE_GOLDEN=1 rewrites it",
        path.display()
    );
}
