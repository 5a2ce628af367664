//! Extracts an archive to tmpfs ROUNDS times, each into a fresh destination removed afterwards,
//! and prints the median wall time, CPU time and parallel efficiency of the extraction alone.
//! The archive is ARCHIVE, or by default the APK-shaped bench archive (`benches/support/apk.rs`:
//! 222 entries). Run it under a profiler to see where a small archive's time goes
//! (`bench-reports/asset-extract/phases.sh`).
//!
//! Usage: `cargo run --release -p bufkit-bench --bin extract_loop -- [ROUNDS [THREADS [ARCHIVE]]]`

use std::time::Instant;

use asset_extract::Options;

#[path = "../../../../crates/asset-extract/benches/support/apk.rs"]
mod apk;

fn cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage fills the struct it is given; RUSAGE_SELF is always valid.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6;
    t(usage.ru_utime) + t(usage.ru_stime)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rounds: usize = std::env::args().nth(1).map_or(Ok(200), |s| s.parse())?;
    let threads: usize = std::env::args().nth(2).map_or(Ok(0), |s| s.parse())?;
    let base = if std::path::Path::new("/dev/shm").is_dir() { "/dev/shm".into() } else { std::env::temp_dir() };
    let work = base.join(format!("bufkit-extract-loop-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let archive = match std::env::args().nth(3) {
        Some(path) => std::path::PathBuf::from(path),
        None => {
            let archive = work.join("app.apk");
            std::fs::write(&archive, apk::apk())?;
            archive
        }
    };
    let options = Options { threads, ..Options::default() };
    let (mut walls, mut cpus) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let dest = work.join(format!("out-{round}"));
        let (wall, cpu) = (Instant::now(), cpu_seconds());
        asset_extract::extract(&archive, &dest, &options)?;
        walls.push(wall.elapsed().as_secs_f64());
        cpus.push(cpu_seconds() - cpu);
        std::fs::remove_dir_all(&dest)?;
    }
    std::fs::remove_dir_all(&work)?;
    walls.sort_by(f64::total_cmp);
    cpus.sort_by(f64::total_cmp);
    let (wall, cpu) = (walls[rounds / 2], cpus[rounds / 2]);
    let threads = if threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { threads };
    println!(
        "{{\"rounds\":{rounds},\"threads\":{threads},\"wall_ms\":{:.3},\"cpu_ms\":{:.3},\"efficiency\":{:.2}}}",
        wall * 1e3,
        cpu * 1e3,
        cpu / (threads as f64 * wall)
    );
    Ok(())
}
