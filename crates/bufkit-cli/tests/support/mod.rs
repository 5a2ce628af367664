//! What the CLI's tests share: running the `bufkit` binary this build made, and a range server.

pub mod range_server;

/// Runs `bufkit ARGS…`: whether it succeeded, its stdout and its stderr.
pub fn bufkit(args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bufkit")).args(args).output().expect("bufkit runs");
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}
