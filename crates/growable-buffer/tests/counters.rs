//! The counters, checked against values worked out by hand, and the limit and failure paths.

#[cfg(all(target_os = "linux", not(miri)))]
use growable_buffer::MAP_THRESHOLD;
use growable_buffer::{Config, Error, GrowableBuffer, Growth, Stats};

#[test]
fn linear_growth_copies_everything_held_at_every_step() {
    // step 100, five appends of 60: capacity 100 (empty, no copy), 200 (copies 60), 300 (copies 180).
    let mut buf = GrowableBuffer::with_growth(Growth::Linear { step: 100 }).unwrap();
    for _ in 0..5 {
        buf.append(&[9; 60]).unwrap();
    }
    assert_eq!(buf.stats(), Stats { len: 300, capacity: 300, grows: 3, moves: 2, bytes_copied: 240 });
}

#[test]
fn geometric_doubling_grows_log_times() {
    let mut buf = GrowableBuffer::new();
    for i in 0..1000u32 {
        buf.append(&[i as u8]).unwrap();
    }
    let s = buf.stats();
    // 64, 128, 256, 512, 1024
    assert_eq!((s.len, s.capacity, s.grows), (1000, 1024, 5));
    assert!(s.bytes_copied <= 64 + 128 + 256 + 512, "{s:?}");
}

#[cfg(all(target_os = "linux", not(miri)))] // Miri has no mmap: large blocks stay on the heap there
#[test]
fn geometric_growth_above_the_map_threshold_copies_no_bytes() {
    let mut buf = GrowableBuffer::new();
    buf.reserve(MAP_THRESHOLD).unwrap();
    buf.append(&vec![1u8; MAP_THRESHOLD]).unwrap();
    let before = buf.stats().bytes_copied;
    let piece = [2u8; 25];
    while buf.len() + piece.len() <= 64 * MAP_THRESHOLD {
        buf.append(&piece).unwrap();
    }
    let s = buf.stats();
    assert_eq!(s.bytes_copied, before, "{s:?}");
    assert_eq!(s.grows, 1 + 6, "{s:?}"); // the reserve, then ×2 six times
    assert_eq!(buf.contiguous().unwrap()[MAP_THRESHOLD], 2);
}

#[test]
fn exact_grows_to_what_is_needed() {
    let mut buf = GrowableBuffer::with_growth(Growth::Exact).unwrap();
    buf.append(&[1; 10]).unwrap();
    buf.append(&[2; 20]).unwrap();
    let s = buf.stats();
    assert_eq!((s.len, s.capacity, s.grows), (30, 30, 2));
    buf.reserve(70).unwrap();
    buf.append(&[3; 70]).unwrap();
    assert_eq!(buf.stats().grows, 3);
}

#[test]
fn segmented_never_copies_until_flattened() {
    let mut buf = GrowableBuffer::with_growth(Growth::Segmented { chunk_size: 64 }).unwrap();
    buf.append(&[5; 200]).unwrap();
    assert_eq!(buf.stats(), Stats { len: 200, capacity: 256, grows: 4, moves: 0, bytes_copied: 0 });
    assert_eq!(buf.segment_count(), 4);
    assert_eq!(buf.contiguous(), Err(Error::NotContiguous));
    let mut sink = Vec::new();
    buf.write_all_to(&mut sink).unwrap();
    assert_eq!(buf.stats().bytes_copied, 0);
    buf.flatten().unwrap();
    assert_eq!(buf.stats().bytes_copied, 200);
    assert_eq!(buf.contiguous().unwrap(), &[5; 200][..]);
}

#[test]
fn clear_keeps_capacity_and_counters() {
    let mut buf = GrowableBuffer::with_growth(Growth::Segmented { chunk_size: 64 }).unwrap();
    buf.append(&[1; 130]).unwrap();
    buf.clear();
    buf.append(&[2; 100]).unwrap();
    assert_eq!(buf.stats().grows, 3);
    assert_eq!(buf.to_vec(), vec![2; 100]);
}

#[test]
fn the_limit_refuses_growth_and_keeps_what_was_appended() {
    for growth in [Growth::default(), Growth::Linear { step: 7 }, Growth::Exact, Growth::Segmented { chunk_size: 64 }] {
        let mut buf = GrowableBuffer::with_config(Config { growth, max_capacity: 256, initial_capacity: 0 }).unwrap();
        buf.append(&[1; 200]).unwrap();
        let err = buf.append(&[2; 100]).unwrap_err();
        assert!(matches!(err, Error::CapacityExceeded { requested: 300, limit: 256 }), "{growth:?}: {err}");
        assert_eq!(buf.to_vec(), vec![1; 200], "{growth:?}");
        buf.append(&[3; 56]).unwrap(); // exactly up to the limit still fits
        assert_eq!(buf.len(), 256);
        assert!(buf.stats().capacity <= 256);
    }
}

#[test]
fn initial_capacity_over_the_limit_is_refused() {
    let err = GrowableBuffer::with_config(Config { max_capacity: 10, initial_capacity: 11, ..Config::default() })
        .unwrap_err();
    assert!(matches!(err, Error::CapacityExceeded { .. }));
}

#[test]
fn overflowing_lengths_are_errors() {
    let mut buf = GrowableBuffer::new();
    buf.append(b"abc").unwrap();
    assert!(matches!(buf.reserve(usize::MAX), Err(Error::LengthOverflow { len: 3, .. })));
    assert_eq!(buf.to_vec(), b"abc");
}

#[test]
#[cfg_attr(miri, ignore = "Miri stops at huge allocations instead of failing them")]
fn allocation_failure_is_an_error_not_an_abort() {
    for growth in [Growth::default(), Growth::Linear { step: 1 }, Growth::Exact] {
        let mut buf =
            GrowableBuffer::with_config(Config { growth, max_capacity: usize::MAX, initial_capacity: 0 }).unwrap();
        buf.append(b"kept").unwrap();
        // 2^47 bytes is the entire user address space on x86-64 and more than any test machine has.
        assert!(matches!(buf.reserve(1 << 47), Err(Error::AllocFailed { .. })), "{growth:?}");
        // Past isize::MAX no allocation can hold it: a length overflow, whatever the limit.
        assert!(matches!(buf.reserve(usize::MAX - 4), Err(Error::LengthOverflow { .. })), "{growth:?}");
        assert!(matches!(buf.reserve(isize::MAX as usize), Err(Error::LengthOverflow { .. })), "{growth:?}");
        assert_eq!(buf.to_vec(), b"kept");
    }
    let mut seg = GrowableBuffer::with_config(Config {
        growth: Growth::Segmented { chunk_size: 1 << 46 },
        max_capacity: usize::MAX,
        initial_capacity: 0,
    })
    .unwrap();
    assert!(matches!(seg.append(b"x"), Err(Error::AllocFailed { .. })));
}

#[test]
fn copy_to_past_the_end_is_an_error() {
    let mut buf = GrowableBuffer::new();
    buf.append(b"abc").unwrap();
    let mut dst = [0u8; 4];
    assert_eq!(buf.copy_to(3, &mut dst), Ok(0));
    assert_eq!(buf.copy_to(4, &mut dst), Err(Error::OffsetOutOfRange { offset: 4, len: 3 }));
}

#[test]
fn pooled_segments_reuse_warm_chunks() {
    use buffer_pool::{BufferPool, PoolConfig};
    let pool = BufferPool::new(PoolConfig::default()).unwrap();
    let config = Config { growth: Growth::Segmented { chunk_size: 4096 }, ..Config::default() };
    for round in 0..20u8 {
        let mut buf = GrowableBuffer::with_pool(config, pool.clone()).unwrap();
        for i in 0..1000u32 {
            buf.append(&(i + u32::from(round)).to_le_bytes()).unwrap();
        }
        let expected: Vec<u8> = (0..1000u32).flat_map(|i| (i + u32::from(round)).to_le_bytes()).collect();
        assert_eq!(buf.to_vec(), expected, "round {round}: dirty chunks never leak old bytes");
        assert_eq!(buf.stats().grows, 1);
    }
    let s = pool.stats();
    assert_eq!((s.misses(), s.hits()), (1, 19), "one 4 KiB chunk per message, allocated once");
    assert!(GrowableBuffer::with_pool(Config::default(), pool).is_err(), "only segmented buffers take a pool");
}

#[test]
fn a_segmented_buffer_holds_up_to_its_limit_even_inside_a_chunk() {
    let config = Config { growth: Growth::Segmented { chunk_size: 4096 }, max_capacity: 5000, ..Config::default() };
    let mut buf = GrowableBuffer::with_config(config).unwrap();
    buf.append(&[1; 4096]).unwrap();
    buf.append(&[2; 1]).unwrap();
    buf.append(&[3; 903]).unwrap();
    assert_eq!(buf.len(), 5000);
    assert!(matches!(buf.append(&[4]), Err(Error::CapacityExceeded { requested: 5001, limit: 5000 })));
    assert_eq!(buf.len(), 5000, "a refused append loses nothing");
    let data = buf.to_vec();
    assert_eq!((data[4095], data[4096], data[4999]), (1, 2, 3));
}
