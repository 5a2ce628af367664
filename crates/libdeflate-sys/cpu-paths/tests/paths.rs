//! Each of libdeflate's CPU-feature paths, forced in turn: the test runs itself again once per
//! set of features taken away (`LIBDEFLATE_DISABLE_CPU_FEATURES`, libdeflate's own test switch),
//! from none to all, and each run checks CRC-32 and Adler-32 against plain implementations for
//! every length 0 to 4096 at every alignment 0 to 15, and a deflate round trip. The parent checks
//! that every run passed and that each took a different set of features.

use std::ffi::c_void;

use libdeflate_cpu_paths as ld;

#[path = "../../tests/plain/mod.rs"]
mod plain;
use plain::{adler32_plain, crc32_plain, data};

/// Cumulative sets of features to take away: each run drops more of the fast paths.
#[cfg(target_arch = "x86_64")]
const SETS: &[&str] = &[
    "",
    "avx512_vnni,avx_vnni,vpclmulqdq,avx512bw,avx512vl,zmm",
    "avx512_vnni,avx_vnni,vpclmulqdq,avx512bw,avx512vl,zmm,avx2,bmi2",
    "avx512_vnni,avx_vnni,vpclmulqdq,avx512bw,avx512vl,zmm,avx2,bmi2,avx,pclmulqdq",
    "avx512_vnni,avx_vnni,vpclmulqdq,avx512bw,avx512vl,zmm,avx2,bmi2,avx,pclmulqdq,sse2",
];
#[cfg(target_arch = "aarch64")]
const SETS: &[&str] = &[
    "",
    "sha3,dotprod",
    "sha3,dotprod,prefer_pmull,pmull",
    "sha3,dotprod,prefer_pmull,pmull,crc32",
    "sha3,dotprod,prefer_pmull,pmull,crc32,neon",
];

/// The checks one forced set runs; the features libdeflate used, as the last line of output.
fn child() {
    let data = data();
    for align in 0..16 {
        for len in 0..=4096 {
            let piece = &data[align..align + len];
            // SAFETY: `piece` is readable for its length.
            let (crc, adler) = unsafe {
                (
                    ld::libdeflate_crc32(0, piece.as_ptr().cast(), len),
                    ld::libdeflate_adler32(1, piece.as_ptr().cast(), len),
                )
            };
            assert_eq!(crc, crc32_plain(0, piece), "CRC-32 of {len} bytes at alignment {align}");
            assert_eq!(adler, adler32_plain(1, piece), "Adler-32 of {len} bytes at alignment {align}");
        }
    }
    // A deflate round trip of text with long matches (the decoder's fast loop) and of noise.
    let text: Vec<u8> = (0..20_000).flat_map(|i| format!("line {} of {}\n", i % 97, i % 13).into_bytes()).collect();
    for input in [&text[..], &data[..]] {
        let mut packed = vec![0u8; input.len() + 1024];
        let mut back = vec![0u8; input.len()];
        let mut got = 0usize;
        // SAFETY: each buffer is valid for the length given; the handles are freed once.
        let (n, status) = unsafe {
            let c = ld::libdeflate_alloc_compressor(6);
            let n = ld::libdeflate_deflate_compress(
                c,
                input.as_ptr().cast(),
                input.len(),
                packed.as_mut_ptr().cast(),
                packed.len(),
            );
            ld::libdeflate_free_compressor(c);
            let d = ld::libdeflate_alloc_decompressor();
            let status = ld::libdeflate_deflate_decompress(
                d,
                packed.as_ptr().cast::<c_void>(),
                n,
                back.as_mut_ptr().cast(),
                back.len(),
                &mut got,
            );
            ld::libdeflate_free_decompressor(d);
            (n, status)
        };
        assert!(n > 0 && status == 0 && got == input.len() && back == input, "round trip");
    }
    println!("\nfeatures {:#x}", ld::features());
}

#[test]
fn every_cpu_feature_path_gives_the_plain_results() {
    if std::env::var_os("CPU_PATHS_CHILD").is_some() {
        return child();
    }
    // Through the runner cargo was told to use (qemu-user for a cross build), else directly.
    let exe = std::env::current_exe().unwrap();
    let prefix = format!("CARGO_TARGET_{}_", std::env::consts::ARCH.to_uppercase());
    let runner: Vec<String> = std::env::vars()
        .find(|(name, _)| name.starts_with(&prefix) && name.ends_with("_RUNNER"))
        .map(|(_, value)| value.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    let mut seen = Vec::new();
    for set in SETS {
        let mut command = match runner.split_first() {
            Some((program, args)) => {
                let mut c = std::process::Command::new(program);
                c.args(args).arg(&exe);
                c
            }
            None => std::process::Command::new(&exe),
        };
        let output = command
            .args(["--exact", "every_cpu_feature_path_gives_the_plain_results", "--nocapture", "--test-threads=1"])
            .env("CPU_PATHS_CHILD", "1")
            .env("LIBDEFLATE_DISABLE_CPU_FEATURES", set)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "with {set:?} taken away: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let features = stdout
            .lines()
            .find_map(|l| l.split_once("features 0x").map(|(_, bits)| bits))
            .expect("the child's features")
            .to_string();
        eprintln!("taken away {set:?}: libdeflate used features {features}");
        seen.push(features);
    }
    // The CPU had something to take away at each step but, at most, the last few (a CPU without
    // AVX-512 has nothing left to drop at the second step): at least three distinct paths ran.
    seen.dedup();
    assert!(seen.len() >= 3, "only {} distinct feature sets ran: {seen:?}", seen.len());
}
