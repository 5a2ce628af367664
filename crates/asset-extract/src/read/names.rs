//! Entry names and kinds: only safe relative paths, only regular files and directories.

#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use crate::Error;

/// What an entry creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
}

/// The name of bufkit's incremental manifest in an extracted tree, reserved: no entry may take it.
/// Here rather than in `manifest` so that name checking depends on nothing else in the crate.
pub(crate) const MANIFEST_NAME: &str = ".bufkit-manifest";

/// Longest name accepted, and longest single component (Linux's PATH_MAX and NAME_MAX).
const MAX_PATH: usize = 4096;
const MAX_COMPONENT: usize = 255;

/// The characters of code page 437 for bytes 0x80–0xFF (below that it is ASCII).
const CP437_HIGH: [char; 128] = [
    'Ç', 'ü', 'é', 'â', 'ä', 'à', 'å', 'ç', 'ê', 'ë', 'è', 'ï', 'î', 'ì', 'Ä', 'Å', 'É', 'æ', 'Æ', 'ô', 'ö', 'ò', 'û',
    'ù', 'ÿ', 'Ö', 'Ü', '¢', '£', '¥', '₧', 'ƒ', 'á', 'í', 'ó', 'ú', 'ñ', 'Ñ', 'ª', 'º', '¿', '⌐', '¬', '½', '¼', '¡',
    '«', '»', '░', '▒', '▓', '│', '┤', '╡', '╢', '╖', '╕', '╣', '║', '╗', '╝', '╜', '╛', '┐', '└', '┴', '┬', '├', '─',
    '┼', '╞', '╟', '╚', '╔', '╩', '╦', '╠', '═', '╬', '╧', '╨', '╤', '╥', '╙', '╘', '╒', '╓', '╫', '╪', '┘', '┌', '█',
    '▄', '▌', '▐', '▀', 'α', 'ß', 'Γ', 'π', 'Σ', 'σ', 'µ', 'τ', 'Φ', 'Θ', 'Ω', 'δ', '∞', 'φ', 'ε', '∩', '≡', '±', '≥',
    '≤', '⌠', '⌡', '÷', '≈', '°', '∙', '·', '√', 'ⁿ', '²', '■', '\u{a0}',
];

/// Hosts (the "made by" high byte) whose names use `\\` as the separator: MS-DOS/FAT, NTFS, VFAT.
fn windows_host(host: u8) -> bool {
    matches!(host, 0 | 11 | 14)
}

/// The name as text: UTF-8 when the archive says so (and then it must be valid); without the flag,
/// UTF-8 if the bytes are valid UTF-8 (what tools on Linux write), else code page 437, the
/// format's default. A DOS or Windows host's backslashes are separators, as unzip reads them.
fn decode(raw: &[u8], utf8_flag: bool, host: u8) -> Option<Cow<'_, str>> {
    let text = match std::str::from_utf8(raw) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) if utf8_flag => return None,
        Err(_) => Cow::Owned(
            raw.iter().map(|&b| if b < 0x80 { char::from(b) } else { CP437_HIGH[usize::from(b - 0x80)] }).collect(),
        ),
    };
    Some(if windows_host(host) && text.contains('\\') { Cow::Owned(text.replace('\\', "/")) } else { text })
}

/// Whether a Unix mode says symlink.
pub(crate) fn is_symlink(unix_mode: Option<u32>) -> bool {
    unix_mode.is_some_and(|m| m & 0o170_000 == 0o120_000)
}

/// Validates a stored name; returns the relative path, the kind, and the masked mode.
///
/// Names are decoded as [`decode`] says. Refused: invalid UTF-8 with the UTF-8 flag, NUL,
/// backslashes (from other hosts than DOS and Windows), absolute paths, drive letters and UNC
/// names, `.` and `..` components, empty components, over-long names; and symlinks, devices and
/// sockets by their Unix mode (a FIFO is what `zip` records for a pipe it read: a regular file).
pub fn check(raw: &[u8], utf8_flag: bool, host: u8, unix_mode: Option<u32>) -> Result<(String, Kind, u32), Error> {
    // The stored name as shown in errors, decoded only when one is returned.
    let shown = || String::from_utf8_lossy(raw).into_owned();
    let unsafe_name = |reason| Error::UnsafeName { entry: shown(), reason };
    let decoded = decode(raw, utf8_flag, host).ok_or_else(|| unsafe_name("not valid UTF-8 despite the UTF-8 flag"))?;
    let name: &str = &decoded;
    if name.is_empty() {
        return Err(unsafe_name("empty name"));
    }
    if let Some(reason) = refusal(name) {
        return Err(unsafe_name(reason));
    }
    let is_dir_name = name.ends_with('/');
    let trimmed = name.trim_end_matches('/');
    let kind_bits = unix_mode.map(|m| m & 0o170_000).unwrap_or(0);
    let kind = match kind_bits {
        0o120_000 => return Err(Error::UnsupportedKind { entry: shown(), kind: "symlink" }),
        0o020_000 | 0o060_000 => return Err(Error::UnsupportedKind { entry: shown(), kind: "device" }),
        0o140_000 => return Err(Error::UnsupportedKind { entry: shown(), kind: "socket" }),
        // The name says which: a trailing slash makes a directory whatever the mode says, and
        // without one it is a file even where the mode says directory, as unzip and Python read
        // it (the entry's data is then the file's, never dropped).
        _ if is_dir_name => Kind::Directory,
        // Regular files; and what `zip` writes for a pipe it read (`-` for its standard input):
        // the pipe's mode (FIFO), and as data the bytes it read, a regular file as unzip has it.
        _ => Kind::File,
    };
    // Permissions: owner-writable, world-readable; executable only if the archive says so. Never
    // setuid, setgid or sticky.
    let executable = unix_mode.is_some_and(|m| m & 0o111 != 0 && m & 0o170_000 != 0o040_000);
    let mode = match kind {
        Kind::Directory => 0o755,
        Kind::File if executable => 0o755,
        Kind::File => 0o644,
    };
    Ok((trimmed.to_string(), kind, mode))
}

/// Why `name` (decoded, not empty) is not a safe relative path, if it is not.
fn refusal(name: &str) -> Option<&'static str> {
    let bytes = name.as_bytes();
    if bytes.len() <= MAX_COMPONENT && !may_need_a_closer_look(bytes) && !has_drive_letter(bytes) {
        return None; // nearly every name: no component walk needed
    }
    closer_look(name)
}

/// [`refusal`] for names [`may_need_a_closer_look`]: each check in turn.
fn closer_look(name: &str) -> Option<&'static str> {
    let bytes = name.as_bytes();
    // One pass over the bytes for what the checks below look for anywhere in the name.
    let (has_nul, has_backslash) =
        name.bytes().fold((false, false), |(nul, backslash), b| (nul | (b == 0), backslash | (b == b'\\')));
    if has_nul {
        return Some("contains NUL");
    }
    if name.trim_end_matches('/') == MANIFEST_NAME {
        return Some("reserved for bufkit's incremental manifest");
    }
    if has_backslash {
        return Some("contains a backslash");
    }
    if name.starts_with('/') {
        return Some("absolute path");
    }
    if has_drive_letter(bytes) {
        return Some("drive letter");
    }
    if name.len() > MAX_PATH {
        return Some("longer than the system allows");
    }
    for component in name.trim_end_matches('/').as_bytes().split(|&b| b == b'/') {
        match component {
            b"" => return Some("empty path component"),
            b"." | b".." => return Some("`.` or `..` component"),
            c if c.len() > MAX_COMPONENT => return Some("a component longer than the system allows"),
            _ => {}
        }
    }
    None
}

/// Whether `name` holds anything [`refusal`] might refuse beyond its length and a drive letter:
/// NUL, a backslash, `//`, or a component starting with `/` or `.` (an absolute path, `.`, `..`,
/// the manifest's name). One pass without branches, which the compiler vectorizes: walking the
/// components of every name was a third of opening a 1,000-entry APK. Names it lets through,
/// at most one component's length long, cannot hold an empty, `.`, `..` or over-long component.
fn may_need_a_closer_look(name: &[u8]) -> bool {
    let Some(&first) = name.first() else { return false };
    let odd = |b: u8| (b == 0) | (b == b'\\');
    let starts_component = |b: u8| (b == b'/') | (b == b'.');
    // Each byte beside the one before it, folded without an early exit so that it vectorizes.
    let later = name
        .iter()
        .zip(&name[1..])
        .fold(false, |seen, (&before, &b)| seen | odd(b) | ((before == b'/') & starts_component(b)));
    later | odd(first) | starts_component(first)
}

/// Whether `name` starts with a DOS drive letter (`C:`).
fn has_drive_letter(name: &[u8]) -> bool {
    name.len() >= 2 && name[1] == b':' && name[0].is_ascii_alphabetic()
}

/// Refuses archives whose paths collide: the same path twice, or a file where another entry
/// needs a directory. With `fold_case` (a destination that folds case, or a caller who asks),
/// names that differ only in case collide too.
pub fn check_collisions<'a>(
    paths: impl ExactSizeIterator<Item = (&'a str, Kind)>,
    fold_case: bool,
) -> Result<(), Error> {
    let key = |path: &'a str| if fold_case { fold(path) } else { Cow::Borrowed(path) };
    // foldhash: seeded per process, so names crafted to collide cannot make this quadratic.
    let hasher = foldhash::fast::RandomState::default();
    let mut seen: HashMap<Cow<'a, str>, (Kind, &'a str), _> =
        HashMap::with_capacity_and_hasher(paths.len(), hasher.clone());
    let mut dirs_needed: HashSet<&'a str, _> = HashSet::with_hasher(hasher);
    for (path, kind) in paths {
        if let Some((_, other)) = seen.get(&key(path)) {
            let reason = if *other == path { "duplicate name" } else { "duplicate name (differs only in case)" };
            return Err(Error::UnsafeName { entry: path.to_string(), reason });
        }
        seen.insert(key(path), (kind, path));
        let mut rest = path;
        // Parents are shared by many entries: stop at the first one already noted.
        while let Some((parent, _)) = rest.rsplit_once('/') {
            if !dirs_needed.insert(parent) {
                break;
            }
            rest = parent;
        }
    }
    for dir in dirs_needed {
        if let Some((Kind::File, file)) = seen.get(&key(dir)) {
            return Err(Error::UnsafeName {
                entry: file.to_string(),
                reason: "a file where another entry needs a directory",
            });
        }
    }
    Ok(())
}

/// The name as a case-insensitive file system would compare it; borrowed when already folded.
fn fold(path: &str) -> Cow<'_, str> {
    if path.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
        Cow::Borrowed(path)
    } else {
        Cow::Owned(path.to_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name of up to 7 characters over the characters that matter: the shortcut lets
    /// through only names the full walk accepts.
    #[test]
    fn names_let_through_without_a_walk_pass_the_walk() {
        const ALPHABET: &[u8] = b"a./\\\0:C";
        let mut name = Vec::new();
        let (mut shortcut, mut walked) = (0, 0);
        for len in 0..=7u32 {
            for mut n in 0..ALPHABET.len().pow(len) {
                name.clear();
                for _ in 0..len {
                    name.push(ALPHABET[n % ALPHABET.len()]);
                    n /= ALPHABET.len();
                }
                let text = std::str::from_utf8(&name).expect("ASCII");
                if text.is_empty() {
                    continue;
                }
                if !may_need_a_closer_look(&name) && !has_drive_letter(&name) {
                    shortcut += 1;
                    assert_eq!(closer_look(text), None, "{text:?} skipped the walk that refuses it");
                } else {
                    walked += 1;
                }
                assert_eq!(refusal(text), closer_look(text), "{text:?}");
            }
        }
        assert!(shortcut > 1000 && walked > 1000, "{shortcut} through the shortcut, {walked} walked");
    }

    /// Long names take the walk: a component over 255 bytes is refused.
    #[test]
    fn a_long_component_is_still_refused() {
        let long = format!("dir/{}", "x".repeat(MAX_COMPONENT + 1));
        assert_eq!(refusal(&long), Some("a component longer than the system allows"));
        assert_eq!(refusal(&"x".repeat(MAX_COMPONENT)), None);
    }
}
