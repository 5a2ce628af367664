//! Any sequence of operations gives the same bytes as a `Vec<u8>` would, under every policy.

use growable_buffer::{Config, GrowableBuffer, Growth};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Append(Vec<u8>),
    Reserve(usize),
    Clear,
    Flatten,
    /// To this share (0..=100%) of the length, or past it.
    Truncate(usize),
    /// Written in place: as much of these bytes as the spare room holds, then committed.
    InPlace(Vec<u8>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => proptest::collection::vec(any::<u8>(), 0..400).prop_map(Op::Append),
        1 => (0usize..5000).prop_map(Op::Reserve),
        1 => Just(Op::Clear),
        1 => Just(Op::Flatten),
        2 => (0usize..=110).prop_map(Op::Truncate),
        3 => proptest::collection::vec(any::<u8>(), 0..400).prop_map(Op::InPlace),
    ]
}

fn growth() -> impl Strategy<Value = Growth> {
    prop_oneof![
        (1.1f64..4.0).prop_map(|factor| Growth::Geometric { factor }),
        (1usize..600).prop_map(|step| Growth::Linear { step }),
        Just(Growth::Exact),
        (64usize..300).prop_map(|chunk_size| Growth::Segmented { chunk_size }),
    ]
}

thread_local! {
    static POOL: buffer_pool::BufferPool = buffer_pool::BufferPool::new(buffer_pool::PoolConfig {
        min_class_size: 64,
        ..buffer_pool::PoolConfig::default()
    })
    .unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 512 }))]
    #[test]
    fn matches_vec(growth in growth(), pooled in any::<bool>(), ops in proptest::collection::vec(op(), 0..60), probe in 0usize..3000) {
        let config = Config { growth, initial_capacity: 0, ..Config::default() };
        let mut buf = match growth {
            // Pooled chunks come back dirty from earlier buffers: the bytes must still match.
            Growth::Segmented { .. } if pooled => GrowableBuffer::with_pool(config, POOL.with(|p| p.clone())).unwrap(),
            _ => GrowableBuffer::with_config(config).unwrap(),
        };
        let mut oracle: Vec<u8> = Vec::new();
        for op in ops {
            match op {
                Op::Append(bytes) => { buf.append(&bytes).unwrap(); oracle.extend_from_slice(&bytes); }
                Op::Reserve(n) => { buf.reserve(n).unwrap(); prop_assert!(buf.stats().capacity >= oracle.len() + n); }
                Op::Clear => { buf.clear(); oracle.clear(); }
                Op::Truncate(percent) => {
                    let len = oracle.len() * percent / 100;
                    buf.truncate(len);
                    oracle.truncate(len);
                }
                Op::Flatten => { buf.flatten().unwrap(); prop_assert_eq!(buf.contiguous().unwrap(), &oracle[..]); }
                Op::InPlace(bytes) => {
                    let spare = buf.spare_capacity_mut();
                    let n = spare.len().min(bytes.len());
                    for (slot, &b) in spare.iter_mut().zip(&bytes[..n]) {
                        slot.write(b);
                    }
                    // SAFETY: n ≤ the room just returned, and its first n bytes were written.
                    unsafe { buf.commit(n) };
                    oracle.extend_from_slice(&bytes[..n]);
                }
            }
            prop_assert_eq!(buf.len(), oracle.len());
            prop_assert!(buf.stats().capacity >= oracle.len());
        }
        prop_assert_eq!(buf.to_vec(), oracle.clone());
        let joined: Vec<u8> = buf.segments().flatten().copied().collect();
        prop_assert_eq!(&joined, &oracle);
        prop_assert_eq!(buf.segments().count(), buf.segment_count());
        for i in 0..buf.segment_count() {
            prop_assert!(buf.segment(i).is_some());
        }
        prop_assert!(buf.segment(buf.segment_count()).is_none());
        let mut written = Vec::new();
        prop_assert_eq!(buf.write_all_to(&mut written).unwrap(), oracle.len());
        prop_assert_eq!(&written, &oracle);
        let offset = probe.min(oracle.len());
        let mut dst = vec![0u8; 257];
        let n = buf.copy_to(offset, &mut dst).unwrap();
        let expected = &oracle[offset..(offset + 257).min(oracle.len())];
        prop_assert_eq!(&dst[..n], expected);
    }
}
