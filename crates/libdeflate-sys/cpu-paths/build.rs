//! libdeflate's sources from `../libdeflate` (the patched copy bufkit ships), built with the test
//! support that reads `LIBDEFLATE_DISABLE_CPU_FEATURES`.

fn main() {
    println!("cargo:rerun-if-changed=../libdeflate");
    let files = [
        "arm/cpu_features.c",
        "x86/cpu_features.c",
        "adler32.c",
        "crc32.c",
        "deflate_compress.c",
        "deflate_decompress.c",
        "utils.c",
    ];
    cc::Build::new()
        .files(files.iter().map(|f| format!("../libdeflate/lib/{f}")))
        .include("../libdeflate")
        .define("TEST_SUPPORT__DO_NOT_USE", None)
        .warnings(false)
        .compile("deflate_test_support");
}
