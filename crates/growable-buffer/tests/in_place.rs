//! Writing into the spare room: never past the capacity limit, and committed bytes read back.

use growable_buffer::{Config, GrowableBuffer, Growth};

fn write_in_place(buf: &mut GrowableBuffer, byte: u8) -> usize {
    let spare = buf.spare_capacity_mut();
    let n = spare.len();
    for slot in spare.iter_mut() {
        slot.write(byte);
    }
    // SAFETY: the whole room just returned was written.
    unsafe { buf.commit(n) };
    n
}

#[test]
fn the_spare_room_stops_at_the_capacity_limit_under_every_policy() {
    for growth in [Growth::Geometric { factor: 1.5 }, Growth::Exact, Growth::Segmented { chunk_size: 4096 }] {
        let mut buf = GrowableBuffer::with_config(Config { growth, max_capacity: 1000, ..Config::default() }).unwrap();
        buf.append(&[1u8; 900]).unwrap();
        buf.reserve(100).unwrap();
        assert!(buf.spare_capacity_mut().len() <= 100, "{growth:?}");
        let added = write_in_place(&mut buf, 2);
        assert_eq!(buf.len(), 900 + added);
        assert!(buf.len() <= 1000);
        assert!(buf.append(&[3u8; 101]).is_err(), "{growth:?}: past the limit");
        let mut expected = vec![1u8; 900];
        expected.resize(900 + added, 2);
        assert_eq!(buf.to_vec(), expected);
    }
}

#[test]
fn a_segmented_buffer_offers_the_rest_of_its_chunk_and_moves_on_when_it_is_full() {
    let mut buf = GrowableBuffer::with_growth(Growth::Segmented { chunk_size: 64 }).unwrap();
    buf.append(&[1u8; 10]).unwrap();
    assert_eq!(write_in_place(&mut buf, 2), 54); // the rest of the first chunk
    assert!(buf.spare_capacity_mut().is_empty()); // full: no room until the next chunk
    buf.append(&[3u8; 5]).unwrap(); // goes into a second chunk
    assert_eq!(buf.segment_count(), 2);
    assert_eq!(write_in_place(&mut buf, 4), 59);
    let mut expected = vec![1u8; 10];
    expected.extend([2u8; 54]);
    expected.extend([3u8; 5]);
    expected.extend([4u8; 59]);
    assert_eq!(buf.to_vec(), expected);
    assert_eq!(buf.segment(0).unwrap().len(), 64);
}
