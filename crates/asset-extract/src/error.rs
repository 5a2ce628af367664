//! The one error type of this crate: what was refused, and in which entry.

#![forbid(unsafe_code)]

/// Why an archive was refused. When an entry is at fault its name (as stored, lossily decoded) is
/// given. Nothing is left behind on any error: the destination is as it was.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The archive's structure is invalid or inconsistent (end record, central directory, ZIP64
    /// records, local headers, overlapping or truncated entries).
    #[error("malformed archive: {reason}{}", entry_suffix(.entry))]
    Malformed {
        /// What is wrong.
        reason: String,
        /// The entry concerned, if any.
        entry: Option<String>,
    },
    /// The bytes admit two readings that disagree: two end records (one in the other's comment,
    /// say) that describe different central directories. Readers that pick differently see
    /// different files in the same archive, which is how signature checks get bypassed; so no
    /// reading is picked.
    #[error("ambiguous archive: {reason}")]
    Ambiguous {
        /// The two readings.
        reason: String,
    },
    /// An entry's name is not a safe relative path (absolute, `..`, backslash, drive letter, NUL,
    /// invalid UTF-8, too long), or collides with another entry's.
    #[error("unsafe entry name {entry:?}: {reason}")]
    UnsafeName {
        /// The name as stored.
        entry: String,
        /// Why it is refused.
        reason: &'static str,
    },
    /// An entry of a kind that is never extracted: symlink, device, FIFO, socket.
    #[error("entry {entry:?} is a {kind}, which is not extracted")]
    UnsupportedKind {
        /// The entry.
        entry: String,
        /// What it is.
        kind: &'static str,
    },
    /// Encrypted entries are refused before anything is written.
    #[error("entry {entry:?} is encrypted ({scheme}), which is not supported")]
    Encrypted {
        /// The entry.
        entry: String,
        /// How, as the headers say: "ZipCrypto", "WinZip AES" (method 99) or "PKWARE strong
        /// encryption" (flag bit 6).
        scheme: &'static str,
    },
    /// A compression method bufkit does not read (see [`Method`](crate::Method)): encryption's
    /// AE-x (99), PPMd (98), implode, shrink, reduce and the rest.
    #[error("entry {entry:?} uses compression method {method} ({}), which is not supported", crate::read::entry::method_name(*method))]
    UnsupportedMethod {
        /// The entry.
        entry: String,
        /// The method number.
        method: u16,
    },
    /// The entry's data does not inflate cleanly to its declared size.
    #[error("entry {entry:?}: {source}")]
    Data {
        /// The entry.
        entry: String,
        /// What the decoder found.
        source: strided_inflate::Error,
    },
    /// The CRC-32 of the extracted data does not match the archive's.
    #[error("entry {entry:?} fails its CRC-32 check")]
    Crc {
        /// The entry.
        entry: String,
    },
    /// Extraction would pass the byte quota, or an entry's compression ratio is above the limit.
    #[error("entry {entry:?}: {reason}")]
    Limit {
        /// The entry.
        entry: String,
        /// Which limit.
        reason: String,
    },
    /// The destination cannot be used as asked: it exists and is not empty (create mode), is not
    /// a directory, is a symlink, is protected from replacement (`/`, a mount point, `.`/`..`, the
    /// current or home directory), or changed while the archive was extracted. Nothing there was
    /// touched, except as `reason` says for a merge interrupted after its first file.
    #[error("destination {path}: {reason}")]
    Destination {
        /// The path concerned.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The `only` patterns matched no entry; nothing was touched.
    #[error("no entry matches {}", .patterns.join(", "))]
    NothingSelected {
        /// The patterns given.
        patterns: Vec<String>,
    },
    /// The caller cancelled the extraction; nothing was left behind.
    #[error("extraction cancelled")]
    Cancelled,
    /// A read at an offset past the entry's end.
    #[error("entry {entry:?}: offset {offset} is past its end ({size} bytes)")]
    OutOfRange {
        /// The entry.
        entry: String,
        /// The offset asked for.
        offset: u64,
        /// The entry's size.
        size: u64,
    },
    /// Checkpoints imported for an entry are not that entry's, or are damaged.
    #[error("entry {entry:?}: checkpoints refused: {reason}")]
    CheckpointsRefused {
        /// The entry.
        entry: String,
        /// Why.
        reason: String,
    },
    /// A file system operation failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path concerned.
        path: String,
        /// The system error.
        source: std::io::Error,
    },
}

fn entry_suffix(entry: &Option<String>) -> String {
    entry.as_ref().map(|e| format!(" (entry {e:?})")).unwrap_or_default()
}

impl Error {
    /// The same error again, for a reader that fails every call after its first failure with the
    /// error it failed with (an I/O error keeps its kind, its OS code and its message).
    pub(crate) fn again(&self) -> Error {
        match self {
            Error::Malformed { reason, entry } => Error::Malformed { reason: reason.clone(), entry: entry.clone() },
            Error::Ambiguous { reason } => Error::Ambiguous { reason: reason.clone() },
            Error::UnsafeName { entry, reason } => Error::UnsafeName { entry: entry.clone(), reason },
            Error::UnsupportedKind { entry, kind } => Error::UnsupportedKind { entry: entry.clone(), kind },
            Error::Encrypted { entry, scheme } => Error::Encrypted { entry: entry.clone(), scheme },
            Error::UnsupportedMethod { entry, method } => {
                Error::UnsupportedMethod { entry: entry.clone(), method: *method }
            }
            Error::Data { entry, source } => Error::Data { entry: entry.clone(), source: source.clone() },
            Error::Crc { entry } => Error::Crc { entry: entry.clone() },
            Error::Limit { entry, reason } => Error::Limit { entry: entry.clone(), reason: reason.clone() },
            Error::Destination { path, reason } => Error::Destination { path: path.clone(), reason: reason.clone() },
            Error::NothingSelected { patterns } => Error::NothingSelected { patterns: patterns.clone() },
            Error::Cancelled => Error::Cancelled,
            Error::OutOfRange { entry, offset, size } => {
                Error::OutOfRange { entry: entry.clone(), offset: *offset, size: *size }
            }
            Error::CheckpointsRefused { entry, reason } => {
                Error::CheckpointsRefused { entry: entry.clone(), reason: reason.clone() }
            }
            Error::Io { action, path, source } => Error::Io {
                action,
                path: path.clone(),
                source: match source.raw_os_error() {
                    Some(code) => std::io::Error::from_raw_os_error(code),
                    None => std::io::Error::new(source.kind(), source.to_string()),
                },
            },
        }
    }

    /// The entry concerned, if any.
    pub fn entry(&self) -> Option<&str> {
        match self {
            Error::Malformed { entry, .. } => entry.as_deref(),
            Error::UnsafeName { entry, .. }
            | Error::UnsupportedKind { entry, .. }
            | Error::Encrypted { entry, .. }
            | Error::UnsupportedMethod { entry, .. }
            | Error::Data { entry, .. }
            | Error::Crc { entry }
            | Error::OutOfRange { entry, .. }
            | Error::CheckpointsRefused { entry, .. }
            | Error::Limit { entry, .. } => Some(entry),
            Error::Io { .. }
            | Error::Cancelled
            | Error::Destination { .. }
            | Error::NothingSelected { .. }
            | Error::Ambiguous { .. } => None,
        }
    }

    /// For a file system failure or a refused destination, the path concerned.
    pub fn path(&self) -> Option<&str> {
        match self {
            Error::Io { path, .. } | Error::Destination { path, .. } => Some(path),
            _ => None,
        }
    }

    /// For a failed system call, its `errno` (`ENOENT`, `ENOSPC`, ...).
    pub fn os_error(&self) -> Option<i32> {
        match self {
            Error::Io { source, .. } => source.raw_os_error(),
            _ => None,
        }
    }

    pub(crate) fn malformed(reason: impl Into<String>) -> Error {
        Error::Malformed { reason: reason.into(), entry: None }
    }

    pub(crate) fn malformed_entry(reason: impl Into<String>, entry: &str) -> Error {
        Error::Malformed { reason: reason.into(), entry: Some(entry.to_string()) }
    }

    pub(crate) fn io(action: &'static str, path: &std::path::Path, source: std::io::Error) -> Error {
        Error::Io { action, path: path.display().to_string(), source }
    }
}
