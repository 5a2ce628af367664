//! What bufkit's tests, fuzz targets and benchmark programs share, and no library depends on:
//! zip archives made to order ([`zip`]), the fuzz harnesses of strided-inflate ([`deflate`]) and
//! asset-extract ([`zip`]), and the replay of a fuzz corpus through its harness ([`replay`]).
//! Not published.

pub mod deflate;
mod sys;
pub mod zip;

use std::path::Path;

/// Runs every input under `corpus` (a fuzz target's corpus folder) through `harness`, and says
/// how many there were; panics naming the first input whose harness panics. What a fuzzer found
/// once so stays fixed.
pub fn replay(corpus: &Path, harness: fn(&[u8])) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir(corpus).unwrap_or_else(|e| panic!("{}: {e}", corpus.display())) {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| harness(&data));
        assert!(outcome.is_ok(), "{} fails its harness", path.display());
        n += 1;
    }
    n
}

/// A command that runs the test binary this is called from again, as a child: through the
/// runner cargo was told to use for this target (`CARGO_TARGET_<TRIPLE>_RUNNER`, such as
/// `qemu-aarch64 -L /usr/aarch64-linux-gnu` for a cross-built test), else directly. Under
/// qemu-user a child started directly would be started as a native program, and fail.
pub fn own_binary() -> std::process::Command {
    let exe = std::env::current_exe().expect("the test binary's path");
    let prefix = format!("CARGO_TARGET_{}_", std::env::consts::ARCH.to_uppercase());
    // A runner (qemu-user, wine) runs this binary from the host; a Windows program starts
    // another without one.
    let runner = std::env::vars()
        .filter(|_| !cfg!(windows))
        .find(|(name, _)| name.starts_with(&prefix) && name.ends_with("_RUNNER"))
        .map(|(_, value)| value.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|words| !words.is_empty());
    match runner {
        Some(words) => {
            let mut command = std::process::Command::new(&words[0]);
            command.args(&words[1..]).arg(exe);
            command
        }
        None => std::process::Command::new(exe),
    }
}
