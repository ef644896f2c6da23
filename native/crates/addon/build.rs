//! Bakes the omp version into the addon (see `src/stamp.rs`).

const DEFAULT_VERSION: &str = "0.0.0-dev";

fn main() {
    println!("cargo:rerun-if-env-changed=OMP_VERSION");
    let version = std::env::var("OMP_VERSION").ok().filter(|v| !v.is_empty());
    let version = version.as_deref().unwrap_or(DEFAULT_VERSION);
    // The stamp is NUL-terminated and passed through a cargo directive line.
    assert!(
        version.bytes().all(|b| b.is_ascii_graphic()),
        "OMP_VERSION must be printable ASCII without spaces, got {version:?}"
    );
    println!("cargo:rustc-env=OMP_NATIVES_VERSION={version}");
}
