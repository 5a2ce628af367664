//! Output memory from C is often uninitialised (`malloc`, `enif_alloc_binary`): the exports that
//! fill caller buffers treat it as such and initialise every byte they report. These tests hand
//! them fresh, uninitialised allocations. Under Miri (`cargo +nightly miri test -p bufkit-ffi
//! --test uninit_outputs buffer`) the buffer case checks that no uninitialised byte is read or
//! turned into a `&mut [u8]`; the inflate cases call libdeflate (C), which Miri cannot run.

use bufkit::*;

/// `n` bytes of uninitialised memory and the owner that frees it.
fn uninit(n: usize) -> (Vec<u8>, *mut u8) {
    let mut v = Vec::<u8>::with_capacity(n);
    let p = v.as_mut_ptr();
    (v, p)
}

#[test]
fn buffer_copy_out_into_uninitialised_memory() {
    let mut buffer = std::ptr::null_mut();
    let mut config = std::mem::MaybeUninit::<bk_buffer_config>::uninit();
    // SAFETY: valid out-pointers, a live handle, freed once; `dst` is writable for 64 bytes and the
    // copy initialises the `copied` bytes it reports, which are all that is read.
    unsafe {
        assert_eq!(bk_buffer_config_default(config.as_mut_ptr()), bk_status::BK_STATUS_OK);
        let mut config = config.assume_init();
        config.growth = bk_growth::BK_GROWTH_SEGMENTED as u32;
        config.chunk_size = 4096;
        assert_eq!(bk_buffer_new(&config, &mut buffer), bk_status::BK_STATUS_OK);
        for _ in 0..500 {
            assert_eq!(bk_buffer_append(buffer, b"0123456789".as_ptr(), 10), bk_status::BK_STATUS_OK);
        }
        // Across the first chunk's end, and past the buffer's end (only 10 bytes are there).
        let (mut owner, dst) = uninit(64);
        let mut copied = 0;
        assert_eq!(bk_buffer_copy_out(buffer, 4090, dst, 64, &mut copied), bk_status::BK_STATUS_OK);
        assert_eq!(copied, 64);
        owner.set_len(copied);
        assert!(owner.iter().enumerate().all(|(i, &b)| b == b'0' + (i % 10) as u8));
        let (mut tail, dst) = uninit(64);
        assert_eq!(bk_buffer_copy_out(buffer, 4990, dst, 64, &mut copied), bk_status::BK_STATUS_OK);
        assert_eq!(copied, 10);
        tail.set_len(copied);
        assert_eq!(&tail[..], b"0123456789");
        bk_buffer_free(buffer);
    }
}

/// "hello" as a zlib stream.
const HELLO: [u8; 13] = [0x78, 0xda, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x06, 0x2c, 0x02, 0x15];

#[test]
#[cfg_attr(miri, ignore = "calls libdeflate, C that Miri cannot run")]
fn inflate_at_and_batch_into_uninitialised_memory() {
    let mut inflater = std::ptr::null_mut();
    let mut input = HELLO.to_vec();
    input.extend_from_slice(&HELLO);
    // SAFETY: live handle, freed once; every output below is a fresh uninitialised allocation of
    // the length passed, read only after the call reports it written.
    unsafe {
        assert_eq!(bk_inflater_new(bk_format::BK_FORMAT_ZLIB as u32, &mut inflater), bk_status::BK_STATUS_OK);
        let (mut out, dst) = uninit(5);
        let mut consumed = 0;
        assert_eq!(
            bk_inflate_at(inflater, input.as_ptr(), input.len(), 0, dst, 5, &mut consumed),
            bk_status::BK_STATUS_OK
        );
        out.set_len(5);
        assert_eq!((&out[..], consumed), (&b"hello"[..], 13));

        // A failure zeroes what it was given: every byte is initialised either way.
        let (mut out, dst) = uninit(6);
        let status = bk_inflate_at(inflater, input.as_ptr(), input.len(), 0, dst, 6, &mut consumed);
        assert_eq!(status, bk_status::BK_STATUS_SIZE_MISMATCH);
        out.set_len(6);
        assert_eq!(out, [0; 6]);

        let requests =
            [bk_inflate_request { offset: 0, expected_len: 5 }, bk_inflate_request { offset: 13, expected_len: 5 }];
        let (mut out, dst) = uninit(10);
        let mut results = Vec::<bk_inflate_result>::with_capacity(2);
        let mut ok = 0;
        let status = bk_inflate_batch(
            inflater,
            input.as_ptr(),
            input.len(),
            requests.as_ptr(),
            2,
            dst,
            10,
            results.as_mut_ptr(),
            &mut ok,
        );
        assert_eq!((status, ok), (bk_status::BK_STATUS_OK, 2));
        out.set_len(10);
        results.set_len(2);
        assert_eq!(&out[..], b"hellohello");
        assert!(results.iter().all(|r| r.status == bk_status::BK_STATUS_OK as u32 && r.consumed == 13));
        bk_inflater_free(inflater);
    }
}
