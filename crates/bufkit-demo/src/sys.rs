//! The demo's one OS layer: the memory figures the pool story reports, per system. The rest of
//! the demo has no `cfg` on a system.
//!
//! | | Linux and Android | other Unix systems | Windows |
//! |---|---|---|---|
//! | page faults | minor faults (`getrusage`) | minor faults (`getrusage`) | all page faults (`GetProcessMemoryInfo`) |
//! | peak resident memory | `VmHWM` | `ru_maxrss` | peak working set (`GetProcessMemoryInfo`) |

/// The page faults this process has taken that read nothing from disk (minor faults); on
/// Windows, all its page faults.
pub fn page_faults() -> u64 {
    #[cfg(unix)]
    {
        // SAFETY: getrusage fills the struct it is given; zeroed is a valid starting value.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: RUSAGE_SELF with a valid out-pointer.
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
        usage.ru_minflt as u64
    }
    #[cfg(windows)]
    {
        memory_counters().map_or(0, |c| u64::from(c.PageFaultCount))
    }
}

/// This process's peak resident memory, in KiB: `VmHWM` on Linux and Android (its own address
/// space, unlike `ru_maxrss`, which exec inherits from the parent), `ru_maxrss` on the other Unix
/// systems, the peak working set on Windows.
pub fn peak_rss_kib() -> u64 {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmHWM:").map(|v| v.trim().trim_end_matches("kB").trim().to_string()))
            })
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }
    #[cfg(all(unix, not(any(target_os = "linux", target_os = "android"))))]
    {
        // SAFETY: as in `page_faults`.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: RUSAGE_SELF with a valid out-pointer.
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
        // macOS reports bytes, the BSDs KiB.
        let max = usage.ru_maxrss as u64;
        if cfg!(target_vendor = "apple") { max / 1024 } else { max }
    }
    #[cfg(windows)]
    {
        memory_counters().map_or(0, |c| c.PeakWorkingSetSize as u64 / 1024)
    }
}

#[cfg(windows)]
fn memory_counters() -> Option<windows_sys::Win32::System::ProcessStatus::PROCESS_MEMORY_COUNTERS> {
    use windows_sys::Win32::System::ProcessStatus::{GetProcessMemoryInfo, PROCESS_MEMORY_COUNTERS};
    use windows_sys::Win32::System::Threading::GetCurrentProcess;
    // SAFETY: an all-zero PROCESS_MEMORY_COUNTERS (integers) is a valid value to fill.
    let mut counters: PROCESS_MEMORY_COUNTERS = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<PROCESS_MEMORY_COUNTERS>() as u32;
    // SAFETY: the pseudo-handle of this process, and a buffer of the size given.
    let ok = unsafe { GetProcessMemoryInfo(GetCurrentProcess(), &mut counters, size) };
    (ok != 0).then_some(counters)
}
