//! Names that Windows reads otherwise than they are stored, refused where extraction writes for
//! Windows: on Windows always, elsewhere when asked ([`Options::portable_names`](crate::Options)),
//! for archives bound for both. On Linux such names are legal files (`con.txt`, `12:00.log`) and
//! are extracted as they are. Backslashes, drive letters, UNC and absolute paths are refused
//! everywhere already ([`crate::read::names`]).

#![forbid(unsafe_code)]

/// Why Windows would read `path` (a checked relative path, components joined by `/`) otherwise
/// than it is stored, if it would: the first component that Windows reads otherwise.
pub(crate) fn refusal(path: &str) -> Option<&'static str> {
    path.split('/').find_map(component_refusal)
}

/// Why Windows would read one path component otherwise, if it would.
fn component_refusal(name: &str) -> Option<&'static str> {
    if name.contains(':') {
        return Some("a colon: an alternate data stream (or a drive) on Windows");
    }
    if name.chars().any(|c| matches!(c, '<' | '>' | '"' | '|' | '?' | '*') || u32::from(c) < 0x20) {
        return Some("a character Windows does not allow in names");
    }
    if name.ends_with(['.', ' ']) {
        return Some("a name ending in a dot or a space, which Windows drops");
    }
    // The part before the first dot, as Windows matches device names: `CON`, `con.txt`,
    // `Con .tar.gz` and `LPT1.log` all name a device.
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    if is_device(stem) {
        return Some("a reserved device name on Windows (CON, NUL, AUX, PRN, COM1, LPT1...)");
    }
    if is_short_name(stem) {
        return Some("an 8.3 short name, which may stand for another file on Windows");
    }
    None
}

/// Whether `stem` is one of Windows' reserved device names, in any case.
fn is_device(stem: &str) -> bool {
    const NAMES: [&str; 6] = ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"];
    if NAMES.iter().any(|n| stem.eq_ignore_ascii_case(n)) {
        return true;
    }
    // COM1–COM9 and LPT1–LPT9, and with the superscript digits ¹ ² ³, which Windows reads as 1–3.
    let mut chars = stem.chars();
    let prefix: String = chars.by_ref().take(3).collect();
    let rest: Vec<char> = chars.collect();
    (prefix.eq_ignore_ascii_case("COM") || prefix.eq_ignore_ascii_case("LPT"))
        && matches!(rest.as_slice(), ['1'..='9'] | ['¹' | '²' | '³'])
}

/// Whether `stem` has the shape of an 8.3 short name's first part: up to six characters, `~`,
/// then a number (`GIT~1`, `PROGRA~2`), which Windows may resolve to another file's long name.
fn is_short_name(stem: &str) -> bool {
    let Some((head, number)) = stem.rsplit_once('~') else { return false };
    (1..=6).contains(&head.chars().count())
        && !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit())
        && !number.starts_with('0')
}

#[cfg(test)]
mod tests {
    use super::refusal;

    #[test]
    fn every_class_windows_reads_otherwise_is_refused() {
        for name in [
            "logs/12:00.log",
            "file:stream",
            "a/b<c",
            "q?.txt",
            "star*",
            "pipe|x",
            "quote\"d",
            "tab\there",
            "dir./x",
            "a.",
            "a ",
            "CON",
            "con.txt",
            "sub/Nul.tar.gz",
            "aux",
            "PRN.log",
            "COM1",
            "lpt9.txt",
            "COM¹",
            "CONIN$",
            "Con .txt",
            "GIT~1",
            "git~1/config",
            "PROGRA~2.exe",
        ] {
            assert!(refusal(name).is_some(), "{name} passed");
        }
    }

    #[test]
    fn names_windows_reads_as_stored_pass() {
        for name in [
            "assets/app.js",
            "console.txt",
            "CONS",
            "COM10",
            "COM0",
            "LPT",
            "nul_file",
            "a.b.c",
            ".hidden",
            "backup~",
            "x~0",
            "longname~1",
            "~1",
            "café/ünïcode.txt",
        ] {
            assert_eq!(refusal(name), None, "{name} refused");
        }
    }
}
