//! A large buffer's pages outlive it for the next one (Linux): a fresh buffer that grows past the
//! heap starts from the mapping the last one left, instead of faulting in new pages. One test in
//! its own binary, so no other test's buffer takes the kept mapping in between.
#![cfg(all(target_os = "linux", not(miri)))]

use growable_buffer::{GrowableBuffer, Growth};

fn message(seed: u8) -> Vec<u8> {
    (0..1_000_000u32).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
}

fn filled(growth: Growth, bytes: &[u8]) -> GrowableBuffer {
    let mut buf = GrowableBuffer::with_growth(growth).unwrap();
    for piece in bytes.chunks(25) {
        buf.append(piece).unwrap();
    }
    buf
}

#[test]
fn a_dropped_buffer_s_mapping_serves_the_next_one_and_only_in_place_growth_takes_it() {
    let geometric = Growth::Geometric { factor: 1.5 };
    let first = filled(geometric, &message(1));
    let first_at = first.contiguous().unwrap().as_ptr();
    drop(first);

    // The copying policy models a managed runtime: it neither takes nor keeps a mapping.
    let linear_bytes = message(2);
    let linear = filled(Growth::Linear { step: 256 << 10 }, &linear_bytes);
    assert_ne!(linear.contiguous().unwrap().as_ptr(), first_at, "the copying policy took the kept mapping");
    assert_eq!(linear.contiguous().unwrap(), &linear_bytes[..]);
    drop(linear);

    let second_bytes = message(3);
    let second = filled(geometric, &second_bytes);
    assert_eq!(second.contiguous().unwrap().as_ptr(), first_at, "the next buffer did not reuse the kept mapping");
    assert_eq!(second.contiguous().unwrap(), &second_bytes[..]);
    assert!(second.stats().capacity >= second_bytes.len());
    drop(second);

    // Past the limit nothing is kept: a 33 MiB buffer's memory goes back to the system.
    let big = vec![7u8; 33 << 20];
    let mut large = GrowableBuffer::new();
    large.append(&big).unwrap();
    let large_at = large.contiguous().unwrap().as_ptr();
    drop(large);
    let third = filled(geometric, &message(4));
    assert_ne!(third.contiguous().unwrap().as_ptr(), large_at);
    assert_eq!(third.contiguous().unwrap().as_ptr(), first_at, "the 33 MiB buffer displaced the kept mapping");
}
