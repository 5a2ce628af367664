//! `cargo xtask bindings [--check]`: see the library's documentation.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let outcome = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["bindings"] => xtask::write(&root).map(|changed| {
            for path in &changed {
                println!("wrote {}", path.display());
            }
            if changed.is_empty() {
                println!("every generated file is fresh");
            }
            true
        }),
        ["bindings", "--check"] => xtask::stale(&root).map(|stale| {
            for path in &stale {
                eprintln!("stale: {} (regenerate with `cargo xtask bindings`)", path.display());
            }
            stale.is_empty()
        }),
        _ => {
            eprintln!("usage: cargo xtask bindings [--check]\n\n{}", USAGE);
            return ExitCode::from(2);
        }
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "Generates include/bufkit.h (with the pinned cbindgen) and every binding file that copies a fact
of the C ABI (statuses, struct layouts, downcalls, the JNI and NIF registration, the records and
the extraction structs) from crates/bufkit-ffi and the bindings' C glue. --check writes nothing and
fails if a committed file is stale.";
