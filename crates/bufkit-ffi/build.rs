//! Gives libbufkit.so a soname (`libbufkit.so.<ABI version>`) and writes `bufkit.pc` for pkg-config
//! next to the built libraries (for use from the build tree; `scripts/install` writes a relocatable one).

use std::path::PathBuf;

/// `BK_ABI_VERSION` as `src/version.rs` defines it.
fn abi_version() -> u32 {
    let source = std::fs::read_to_string("src/version.rs").expect("src/version.rs");
    source
        .lines()
        .find_map(|l| l.strip_prefix("pub const BK_ABI_VERSION: u32 = ")?.strip_suffix(';')?.parse().ok())
        .expect("BK_ABI_VERSION in src/version.rs")
}

fn main() {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap();
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap();
    if target_os == "linux" {
        // The soname follows the ABI version the header states (src/version.rs, the one source).
        let abi = abi_version();
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libbufkit.so.{abi}");
        println!("cargo:rerun-if-changed=src/version.rs");
        // Only the C ABI is exported. rustc's own version script lists this crate's `#[no_mangle]`
        // items (the `bk_` functions) and its dependencies' (bzip2-sys's `bz_internal_error`,
        // libbz2's error hook, which a host with its own libbz2 must not resolve to us); every
        // dependency is linked from an archive, so excluding archives from export keeps exactly
        // the `bk_` functions. A second version script would do the same with lld, but GNU ld
        // (aarch64, and x86-64 without lld) refuses two. ffi-tests/c/run.sh (exports-only-bk)
        // fails if any other symbol is exported.
        println!("cargo:rustc-cdylib-link-arg=-Wl,--exclude-libs,ALL");
    }
    if target_os == "macos" {
        // Programs find the library through their rpath, not at the path it was built at.
        println!("cargo:rustc-cdylib-link-arg=-Wl,-install_name,@rpath/libbufkit.dylib");
    }
    // Windows: rustc's export list for the DLL (a .def file) names bzip2-sys's hook too, and GNU
    // ld exports all a .def file names; scripts/windows/mingw-gcc, the linker our scripts set,
    // cuts it to the `bk_` functions.
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out: the libraries land in <target>/<profile>.
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let Some(lib_dir) = out_dir.ancestors().nth(3) else { return };
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let include_dir = manifest.join("../../include");
    let include_dir = include_dir.canonicalize().unwrap_or(include_dir);
    let pc = format!(
        "libdir={}\nincludedir={}\n\nName: bufkit\nDescription: Buffer-strategy primitives behind one C ABI\nVersion: {version}\n\
         Libs: -L${{libdir}} -lbufkit\nLibs.private: -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc\nCflags: -I${{includedir}}\n",
        lib_dir.display(),
        include_dir.display()
    );
    let _ = std::fs::write(lib_dir.join("bufkit.pc"), pc);
    // The soname link, so a program linked against the build tree starts (dangling until the
    // library itself is linked, a moment later).
    if target_os == "linux" {
        let link = lib_dir.join(format!("libbufkit.so.{}", abi_version()));
        if std::fs::symlink_metadata(&link).is_err() {
            let _ = std::os::unix::fs::symlink("libbufkit.so", &link);
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
