//! The CLI's one OS layer: what it asks of the system beyond `std` and asset-extract, per system.
//! The rest of the CLI has no `cfg` on a system.
//!
//! | | Unix | Windows |
//! |---|---|---|
//! | a closed pipe | `SIGPIPE` ignored: an `EPIPE` error the commands handle | (no signal) |
//! | interruption | `SIGINT` and `SIGTERM` set the cancel flag | Ctrl-C, Ctrl-Break and closing the console set it (`SetConsoleCtrlHandler`) |
//! | standard input as a pipe | its descriptor; widened to 1 MiB on Linux and Android | its handle |

use std::sync::atomic::{AtomicBool, Ordering};

/// Set on interruption (see [`cancel_on_interrupt`]): the extraction's cancel flag.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed); // an atomic store: async-signal-safe
}

/// Makes a write to a closed pipe an error the commands handle, not the end of the process.
pub fn ignore_broken_pipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_IGN has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

/// Turns an interruption (SIGINT and SIGTERM; on Windows Ctrl-C, Ctrl-Break and closing the
/// console) into [`INTERRUPTED`], so an interrupted run removes its staging directory before it
/// exits.
pub fn cancel_on_interrupt() {
    #[cfg(unix)]
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction with a handler that only stores to an atomic is valid; the
        // handler lives for the whole program.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
    #[cfg(windows)]
    {
        /// Runs on a thread of its own: sets the flag and says the event is handled (the
        /// extraction then stops and cleans up; closing the console still ends the process once
        /// this returns, after Windows' grace period).
        unsafe extern "system" fn on_console_event(_event: u32) -> windows_sys::core::BOOL {
            INTERRUPTED.store(true, Ordering::Relaxed);
            1
        }
        // SAFETY: registers a handler that lives for the whole program and only stores to an
        // atomic.
        unsafe { windows_sys::Win32::System::Console::SetConsoleCtrlHandler(Some(on_console_event), 1) };
    }
}

/// Calls `f` with standard input as the pipe asset-extract reads, widened first where the system
/// allows (1 MiB on Linux and Android: the writer and this process then switch 16 times less
/// often than with the default 64 KiB; nothing happens otherwise, or if refused).
pub fn with_stdin_pipe<R>(f: impl FnOnce(asset_extract::BorrowedPipe<'_>) -> R) -> R {
    let stdin = std::io::stdin();
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::os::unix::fs::FileTypeExt;
        use std::os::unix::io::AsRawFd;
        if std::fs::metadata("/proc/self/fd/0").is_ok_and(|meta| meta.file_type().is_fifo()) {
            // SAFETY: F_SETPIPE_SZ on our own open descriptor takes an int and touches no memory;
            // a refusal (EPERM above /proc/sys/fs/pipe-max-size) is harmless.
            unsafe { libc::fcntl(stdin.as_raw_fd(), libc::F_SETPIPE_SZ, 1 << 20) };
        }
    }
    #[cfg(unix)]
    let pipe = std::os::fd::AsFd::as_fd(&stdin);
    #[cfg(windows)]
    let pipe = std::os::windows::io::AsHandle::as_handle(&stdin);
    f(pipe)
}
