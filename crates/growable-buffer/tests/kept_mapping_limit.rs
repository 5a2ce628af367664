//! A buffer with a `max_capacity` never holds more than it, even when the mapping a freed buffer
//! left behind is larger than what it asked for (issue 29, 1: a buffer took over a kept 4 MiB
//! mapping and then appended past its 200,000-byte limit). In its own binary, so that no other
//! test takes or replaces the kept mapping in between.
#![cfg(all(target_os = "linux", not(miri)))]

use growable_buffer::{Config, Error, GrowableBuffer, Growth};

/// Grows a buffer to 4 MiB in place and drops it, leaving its mapping kept for the next buffer.
fn leave_a_kept_mapping() {
    let mut big = GrowableBuffer::with_growth(Growth::Geometric { factor: 1.5 }).unwrap();
    for _ in 0..64 {
        big.append(&[1u8; 64 << 10]).unwrap();
    }
    drop(big);
}

#[test]
fn max_capacity_holds_when_a_larger_kept_mapping_is_available() {
    let limit = 200_000;
    for growth in [Growth::Geometric { factor: 1.5 }, Growth::Exact, Growth::Segmented { chunk_size: 64 << 10 }] {
        leave_a_kept_mapping();
        let mut buf = GrowableBuffer::with_config(Config { growth, max_capacity: limit, ..Config::default() }).unwrap();
        buf.append(&[2u8; 150_000]).unwrap();
        buf.flatten().unwrap();
        assert!(buf.stats().capacity <= limit, "{growth:?}: capacity {} past the limit", buf.stats().capacity);
        let err = buf.append(&[3u8; 100_000]).unwrap_err();
        assert!(matches!(err, Error::CapacityExceeded { .. }), "{growth:?}: {err:?}");
        assert_eq!(buf.len(), 150_000, "{growth:?}: a refused append changed the length");
        assert!(buf.spare_capacity_mut().len() <= limit - 150_000);
        buf.append(&[4u8; 50_000]).unwrap();
        assert_eq!(buf.append(&[5u8; 1]).map_err(|e| matches!(e, Error::CapacityExceeded { .. })), Err(true));
    }
}
