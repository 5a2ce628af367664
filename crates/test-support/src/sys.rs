//! The crate's one OS layer: a file's permission bits as the tests compare them.

/// The permission bits of `meta`: the mode's on Unix; on Windows, where only read-only is
/// recorded, 0o444 or 0o644 (as extraction there reports them).
pub(crate) fn permission_bits(meta: &std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o7777
    }
    #[cfg(windows)]
    {
        if meta.permissions().readonly() { 0o444 } else { 0o644 }
    }
}
