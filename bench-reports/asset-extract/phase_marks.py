#!/usr/bin/env python3
"""Where one extraction's wall time goes, phase by phase, on every thread: copies the workspace to
a scratch directory, inserts a timestamp (µs since the round began, and the thread's id) at each
phase boundary of asset-extract's extraction, builds bench-reports/programs/src/bin/extract_loop.rs there, and prints
the timeline of the last of ROUNDS rounds. The library itself carries no instrumentation: the
marks exist only in the scratch copy.

Usage: python3 bench-reports/asset-extract/phase_marks.py ARCHIVE [ROUNDS [THREADS]]
"""
import os, shutil, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRATCH = "/tmp/bufkit-phase-marks"

MARK_FN = '''
/// Phase marks (scratch copy only).
pub static T0: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
/// Phase marks (scratch copy only).
pub static MARKS: Mutex<Vec<(&'static str, i64, f64)>> = Mutex::new(Vec::new());
/// Records a phase mark (scratch copy only).
pub fn mark(what: &'static str) {
    let t = T0.get_or_init(std::time::Instant::now).elapsed().as_secs_f64() * 1e6;
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::gettid() } as i64;
    MARKS.lock().unwrap().push((what, tid, t));
}
'''

# (file, text to find, text to put before it): each must match exactly once.
MARKS = [
    ("src/extract/mod.rs", "/// Extracts the archive at `archive` into `dest`", MARK_FN),
    ("src/extract/mod.rs", "    let file = File::open(archive)", '    mark("extract called");\n'),
    ("src/extract/mod.rs", "    let Selection { entries", '    mark("archive read");\n'),
    ("src/extract/mod.rs", "    staging::sweep_beside(dest);", '    mark("parsed and selected");\n'),
    ("src/extract/mod.rs", "    let found = destination::inspect", '    mark("swept");\n'),
    ("src/extract/mod.rs", "    let previous = if options.incremental", '    mark("destination inspected");\n'),
    ("src/extract/mod.rs", "    if options.fold_case || folds_case", '    mark("staging made");\n'),
    ("src/extract/mod.rs", "    let mut report = write_all(", '    mark("case folding probed");\n'),
    ("src/extract/mod.rs", "    let files: Vec<&Entry> = entries", '    mark("directories planned");\n'),
    ("src/extract/mod.rs", "    let work = || {", '    mark("pool and batches ready");\n'),
    ("src/extract/mod.rs", "        let mut inflaters = Inflaters", '        mark("worker started");\n'),
    ("src/extract/mod.rs", "        // Nothing left to inflate: write what", '        mark("worker out of batches");\n'),
    ("src/extract/mod.rs", "    if let Some(e) = failure.into_inner()", '    mark("workers joined");\n'),
    ("src/extract/mod.rs", "    report.skipped = skipped;", '    mark("write_all returned (its pool and tree dropped)");\n'),
    ("src/extract/mod.rs", "    Ok(report)\n}", '    mark("committed (renamed into place)");\n'),
    ("src/snapshot.rs", "    let buf: &mut [u8] = match &mut snapshot", '    crate::extract::mark("snapshot memory populated");\n'),
]

def main():
    archive = os.path.abspath(sys.argv[1])
    rounds = sys.argv[2] if len(sys.argv) > 2 else "50"
    threads = sys.argv[3] if len(sys.argv) > 3 else "2"
    shutil.rmtree(SCRATCH, ignore_errors=True)
    shutil.copytree(ROOT, SCRATCH, ignore=shutil.ignore_patterns("target", "build", ".git"))
    crate = os.path.join(SCRATCH, "crates/asset-extract")
    for rel, find, insert in MARKS:
        path = os.path.join(crate, rel)
        text = open(path).read()
        if text.count(find) != 1:
            sys.exit(f"phase_marks.py: '{find}' is not found exactly once in {rel}: update the marks")
        open(path, "w").write(text.replace(find, insert + find))
    lib = os.path.join(crate, "src/lib.rs")
    open(lib, "a").write("\n#[doc(hidden)]\npub use extract::{MARKS, mark};\n")
    loop = os.path.join(SCRATCH, "bench-reports/programs/src/bin/extract_loop.rs")
    text = open(loop).read()
    for find, new in [
        ("        let (wall, cpu) = (Instant::now(), cpu_seconds());\n",
         "        asset_extract::MARKS.lock().unwrap().clear();\n        let (wall, cpu) = (Instant::now(), cpu_seconds());\n        asset_extract::mark(\"round began\");\n"),
        ("    std::fs::remove_dir_all(&work)?;\n",
         "    std::fs::remove_dir_all(&work)?;\n    let marks = asset_extract::MARKS.lock().unwrap();\n    let t0 = marks[0].2;\n    for (what, tid, t) in marks.iter() { eprintln!(\"{:8.0} µs  thread {tid}  {what}\", t - t0); }\n"),
    ]:
        if text.count(find) != 1:
            sys.exit("phase_marks.py: extract_loop.rs changed: update the marks")
        text = text.replace(find, new)
    open(loop, "w").write(text)
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(SCRATCH, "target"))
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "bufkit-bench", "--bin", "extract_loop"],
                   cwd=SCRATCH, env=env, check=True)
    subprocess.run([os.path.join(SCRATCH, "target/release/extract_loop"), rounds, threads, archive], check=True)

if __name__ == "__main__":
    main()
