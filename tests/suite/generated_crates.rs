//! Every committed generated crate compiles without warnings, passes clippy with warnings
//! denied, and passes its own tests. All of them share one target directory
//! (`target/generated`), so their dependencies build once.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn examples() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("generated-examples"))
        .expect("generated-examples/ exists")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.join("Cargo.toml").exists())
        .collect();
    dirs.sort();
    dirs
}

/// Runs cargo `args` on the crate in `dir`; fails the test with cargo's output otherwise.
fn cargo(dir: &Path, args: &[&str]) {
    let (command, rest) = args.split_first().expect("a cargo command");
    let output = Command::new(env!("CARGO"))
        .arg(command)
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .args(rest)
        .env("CARGO_TARGET_DIR", root().join("target/generated"))
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "`cargo {}` failed for {}:\n{}",
        args.join(" "),
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn every_generated_example_is_clippy_clean_and_passes_its_own_tests() {
    let examples = examples();
    assert!(
        examples.len() >= 2,
        "expected the committed examples, found {examples:?}"
    );
    for dir in examples {
        cargo(
            &dir,
            &["clippy", "--quiet", "--all-targets", "--", "-D", "warnings"],
        );
        cargo(&dir, &["test", "--quiet"]);
    }
}
