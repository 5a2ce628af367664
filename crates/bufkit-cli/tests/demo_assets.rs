//! `bufkit demo assets --json`: every strategy read the same bytes (the demo checks that, and
//! fails otherwise), bufkit's rows count their allocations, and with a JDK on PATH the row of
//! `java.util.zip.ZipFile` itself is there. The demo works in a temporary directory of its own.

use std::process::Command;

#[test]
fn every_strategy_is_timed_and_java_util_zip_runs_when_a_jdk_is_on_path() {
    let out = Command::new(env!("CARGO_BIN_EXE_bufkit")).args(["demo", "assets", "--json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    let named = |prefix: &str| rows.iter().filter(|r| r["strategy"].as_str().unwrap().starts_with(prefix)).count();
    assert_eq!(named("bufkit:"), 5, "{rows:?}");
    assert_eq!(named("extract to a directory"), 1, "{rows:?}");
    for row in rows {
        assert!(row["seconds"].as_f64().unwrap() > 0.0, "{row}");
        if row["strategy"].as_str().unwrap().starts_with("bufkit:") {
            // Opening allocates about one name per entry; a read into a reused buffer or a pool
            // lease allocates nothing, so those rows stay near 1 (a fresh vector per read adds one).
            let per_file = row["allocations_per_file"].as_f64().unwrap();
            assert!(per_file < 4.0, "{row}");
        }
    }
    let reused = rows.iter().find(|r| r["strategy"].as_str().unwrap().contains("one buffer reused")).unwrap();
    let fresh = rows.iter().find(|r| r["strategy"] == "bufkit: open in place (mapped), read every asset").unwrap();
    let (reused, fresh) =
        (reused["allocations_per_file"].as_f64().unwrap(), fresh["allocations_per_file"].as_f64().unwrap());
    assert!(
        (fresh - reused - 1.0).abs() < 0.01,
        "a new vector per read is the only difference: {fresh} against {reused}"
    );
    let java_on_path = Command::new("java").arg("-version").output().is_ok_and(|o| o.status.success());
    if java_on_path {
        assert_eq!(named("java.util.zip.ZipFile"), 1, "{rows:?}\n{stderr}");
    }
}
