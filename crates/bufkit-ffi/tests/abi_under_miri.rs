//! The C ABI's Rust side, called as C calls it, in the shapes Miri can check for undefined
//! behaviour (`cargo +nightly miri test -p bufkit-ffi`): handles made and freed, buffers grown,
//! truncated and copied out into uninitialised memory, pool leases lent and given back (twice,
//! forged, to the wrong pool), a panic turned into a status, and every NULL refused. Paths that
//! reach C (libdeflate) or the file system are tested natively elsewhere.

use std::mem::MaybeUninit;
use std::ptr::{null, null_mut};

use bufkit::*;

#[test]
fn buffers_grow_truncate_and_copy_out_on_every_policy() {
    for growth in [bk_growth::BK_GROWTH_GEOMETRIC, bk_growth::BK_GROWTH_SEGMENTED, bk_growth::BK_GROWTH_LINEAR] {
        let mut config = MaybeUninit::<bk_buffer_config>::uninit();
        let mut buffer = null_mut();
        let data: Vec<u8> = (0..3000u32).map(|i| (i * 7) as u8).collect();
        // SAFETY: every pointer is to live local memory of the right type and length; the buffer
        // is freed once, at the end.
        unsafe {
            assert_eq!(bk_buffer_config_default(config.as_mut_ptr()), bk_status::BK_STATUS_OK);
            let mut config = config.assume_init();
            config.growth = growth as u32;
            config.chunk_size = 256;
            config.step = 512;
            assert_eq!(bk_buffer_new(&config, &mut buffer), bk_status::BK_STATUS_OK);
            for piece in data.chunks(37) {
                assert_eq!(bk_buffer_append(buffer, piece.as_ptr(), piece.len()), bk_status::BK_STATUS_OK);
            }
            assert_eq!(bk_buffer_truncate(buffer, 1000), bk_status::BK_STATUS_OK);
            assert_eq!(bk_buffer_append(buffer, data[1000..].as_ptr(), 2000), bk_status::BK_STATUS_OK);
            let mut out: Vec<MaybeUninit<u8>> = Vec::with_capacity(3000);
            let mut copied = 0;
            let status = bk_buffer_copy_out(buffer, 0, out.as_mut_ptr().cast(), 3000, &mut copied);
            assert_eq!((status, copied), (bk_status::BK_STATUS_OK, 3000));
            out.set_len(3000);
            let out: Vec<u8> = out.into_iter().map(|b| b.assume_init()).collect();
            assert_eq!(out, data);
            let (mut count, mut total) = (0, 0);
            assert_eq!(bk_buffer_segment_count(buffer, &mut count), bk_status::BK_STATUS_OK);
            for i in 0..count {
                let (mut ptr, mut len) = (null(), 0);
                assert_eq!(bk_buffer_segment(buffer, i, &mut ptr, &mut len), bk_status::BK_STATUS_OK);
                assert_eq!(std::slice::from_raw_parts(ptr, len), &data[total..total + len]);
                total += len;
            }
            assert_eq!(total, 3000);
            bk_buffer_free(buffer);
        }
    }
}

#[test]
fn leases_go_back_once_and_only_to_their_pool() {
    let (mut pool, mut other) = (null_mut(), null_mut());
    // SAFETY: live pools, leases used only while lent, pools freed once with nothing out.
    unsafe {
        assert_eq!(bk_pool_new(null(), &mut pool), bk_status::BK_STATUS_OK);
        assert_eq!(bk_pool_new(null(), &mut other), bk_status::BK_STATUS_OK);
        let mut leases = Vec::new();
        for size in [100, 4096, 20_000, 70_000] {
            let mut lease = MaybeUninit::<bk_lease>::uninit();
            assert_eq!(bk_pool_acquire(pool, size, lease.as_mut_ptr()), bk_status::BK_STATUS_OK);
            let lease = lease.assume_init();
            assert!(lease.len >= size);
            std::slice::from_raw_parts_mut(lease.data, lease.len).fill(0xa5); // the caller's to write
            leases.push(lease);
        }
        assert_eq!(bk_pool_free(pool), bk_status::BK_STATUS_LEASES_OUTSTANDING);
        assert_eq!(bk_pool_release(other, &leases[0]), bk_status::BK_STATUS_WRONG_POOL);
        let forged = bk_lease { id: leases[1].id ^ 1, ..leases[1] };
        assert_eq!(bk_pool_release(pool, &forged), bk_status::BK_STATUS_LEASE_INVALID);
        for lease in &leases {
            assert_eq!(bk_pool_release(pool, lease), bk_status::BK_STATUS_OK);
            assert_eq!(bk_pool_release(pool, lease), bk_status::BK_STATUS_LEASE_INVALID); // twice
        }
        // Reused memory comes back dirty but initialised: reading it is defined.
        let mut again = MaybeUninit::<bk_lease>::uninit();
        assert_eq!(bk_pool_acquire(pool, 4096, again.as_mut_ptr()), bk_status::BK_STATUS_OK);
        let again = again.assume_init();
        let _sum: u32 = std::slice::from_raw_parts(again.data, again.len).iter().map(|&b| u32::from(b)).sum();
        assert_eq!(bk_pool_release(pool, &again), bk_status::BK_STATUS_OK);
        assert_eq!(bk_pool_trim(pool), bk_status::BK_STATUS_OK);
        assert_eq!(bk_pool_free(pool), bk_status::BK_STATUS_OK);
        assert_eq!(bk_pool_free(other), bk_status::BK_STATUS_OK);
    }
}

#[test]
fn nulls_are_refused_and_a_panic_is_a_status() {
    // SAFETY: NULL is what is being tested; nothing is dereferenced.
    unsafe {
        assert_eq!(bk_buffer_new(null(), null_mut()), bk_status::BK_STATUS_NULL_POINTER);
        assert_eq!(bk_buffer_append(null_mut(), null(), 0), bk_status::BK_STATUS_NULL_POINTER);
        assert_eq!(bk_pool_new(null(), null_mut()), bk_status::BK_STATUS_NULL_POINTER);
        assert_eq!(bk_pool_acquire(null(), 10, null_mut()), bk_status::BK_STATUS_NULL_POINTER);
        assert_eq!(bk_pool_release(null(), null()), bk_status::BK_STATUS_NULL_POINTER);
        assert_eq!(bk_cancel_new(null_mut()), bk_status::BK_STATUS_NULL_POINTER);
        bk_buffer_free(null_mut());
        bk_cancel_free(null_mut());
        let mut cancel = null_mut();
        assert_eq!(bk_cancel_new(&mut cancel), bk_status::BK_STATUS_OK);
        assert_eq!(bk_cancel_request(cancel), bk_status::BK_STATUS_OK);
        bk_cancel_free(cancel);
    }
    assert_eq!(bk_test_panic(), bk_status::BK_STATUS_PANIC);
    assert!(!bk_status_message(bk_status::BK_STATUS_PANIC as u32).is_null());
    assert_eq!(bk_abi_version(), BK_ABI_VERSION);
}
