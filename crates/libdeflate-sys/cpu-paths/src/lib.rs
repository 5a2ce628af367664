//! libdeflate built with its test support, and the few of its calls the test needs.

use std::ffi::c_void;

unsafe extern "C" {
    pub fn libdeflate_crc32(crc: u32, buffer: *const c_void, len: usize) -> u32;
    pub fn libdeflate_adler32(adler: u32, buffer: *const c_void, len: usize) -> u32;
    pub fn libdeflate_alloc_compressor(level: i32) -> *mut c_void;
    pub fn libdeflate_deflate_compress(
        c: *mut c_void,
        input: *const c_void,
        in_len: usize,
        out: *mut c_void,
        out_len: usize,
    ) -> usize;
    pub fn libdeflate_free_compressor(c: *mut c_void);
    pub fn libdeflate_alloc_decompressor() -> *mut c_void;
    pub fn libdeflate_deflate_decompress(
        d: *mut c_void,
        input: *const c_void,
        in_len: usize,
        out: *mut c_void,
        out_len: usize,
        actual_out: *mut usize,
    ) -> i32;
    pub fn libdeflate_free_decompressor(d: *mut c_void);
}

/// The features libdeflate's dispatch found (and kept, after `LIBDEFLATE_DISABLE_CPU_FEATURES`),
/// with its "known" bit; read after a first call.
pub fn features() -> u32 {
    #[cfg(target_arch = "x86_64")]
    unsafe extern "C" {
        static libdeflate_x86_cpu_features: u32;
    }
    #[cfg(target_arch = "aarch64")]
    unsafe extern "C" {
        static libdeflate_arm_cpu_features: u32;
    }
    // SAFETY: a u32 libdeflate writes once, at its first call, before this is read; read volatile
    // as libdeflate declares it.
    unsafe {
        #[cfg(target_arch = "x86_64")]
        return std::ptr::read_volatile(&raw const libdeflate_x86_cpu_features);
        #[cfg(target_arch = "aarch64")]
        return std::ptr::read_volatile(&raw const libdeflate_arm_cpu_features);
        #[allow(unreachable_code)]
        0
    }
}
