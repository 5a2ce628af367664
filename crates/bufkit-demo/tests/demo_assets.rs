//! `bufkit-demo assets --json`: every strategy read the same bytes (the demo checks that, and
//! fails otherwise), each is timed, and with a JDK on PATH the row of `java.util.zip.ZipFile`
//! itself is there. The demo works in a temporary directory of its own. (What a read allocates is
//! asset-extract's own test, `tests/read_allocations.rs`: the product counts nothing.)

use std::process::Command;

#[test]
fn every_strategy_is_timed_and_java_util_zip_runs_when_a_jdk_is_on_path() {
    let out = Command::new(env!("CARGO_BIN_EXE_bufkit-demo")).args(["assets", "--json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    let named = |prefix: &str| rows.iter().filter(|r| r["strategy"].as_str().unwrap().starts_with(prefix)).count();
    assert_eq!(named("bufkit:"), 5, "{rows:?}");
    assert_eq!(named("extract to a directory"), 1, "{rows:?}");
    for row in rows {
        assert!(row["seconds"].as_f64().unwrap() > 0.0, "{row}");
    }
    let java_on_path = Command::new("java").arg("-version").output().is_ok_and(|o| o.status.success());
    if java_on_path {
        assert_eq!(named("java.util.zip.ZipFile"), 1, "{rows:?}\n{stderr}");
    }
}
