//! Library and ABI versions, checked against the header's macros by the tests.

use bufkit_ffi_macros::export;
use std::ffi::c_char;

/// The ABI version. Bumped on any incompatible change to a `bk_` signature, struct layout or enum value.
pub const BK_ABI_VERSION: u32 = 3;

/// Major part of the library version (matches `Cargo.toml`).
pub const BK_VERSION_MAJOR: u32 = 0;
/// Minor part of the library version.
pub const BK_VERSION_MINOR: u32 = 1;
/// Patch part of the library version.
pub const BK_VERSION_PATCH: u32 = 0;

/// The crate version, NUL-terminated for C.
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

/// The library version as a static NUL-terminated string, e.g. "0.1.0". Never NULL; do not free.
#[export(on_panic = VERSION.as_ptr().cast())]
#[unsafe(no_mangle)]
pub extern "C" fn bk_version() -> *const c_char {
    VERSION.as_ptr().cast()
}

/// The ABI version of the loaded library; compare it with `BK_ABI_VERSION` from the header.
#[export(on_panic = BK_ABI_VERSION)]
#[unsafe(no_mangle)]
pub extern "C" fn bk_abi_version() -> u32 {
    BK_ABI_VERSION
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_constants_match_cargo_toml() {
        let parts: Vec<u32> = env!("CARGO_PKG_VERSION").split('.').map(|p| p.parse().unwrap()).collect();
        assert_eq!(parts, [BK_VERSION_MAJOR, BK_VERSION_MINOR, BK_VERSION_PATCH]);
        // SAFETY: bk_version returns a static NUL-terminated string.
        let s = unsafe { std::ffi::CStr::from_ptr(bk_version()) };
        assert_eq!(s.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }
}
