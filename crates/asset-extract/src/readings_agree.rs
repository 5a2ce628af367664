//! A check of the crate's own, for its tests and its fuzz target `parse`: the two ways an
//! archive's local headers are checked (all at parse, or each at its entry's first read) accept
//! the same archives and place every entry's data alike, and where an archive opens in place,
//! every file reads as extraction reads it. It needs the crate's insides, so it lives here, built
//! only for the crate's tests and under cargo-fuzz (`--cfg fuzzing`).

/// Opening in place can leave each local header to its entry's first read: the central directory
/// parse and the local header checks together must refuse exactly what the strict parser
/// refuses, and agree on where every entry's data lies. Where the archive opens in place, every
/// file reads as extraction reads it.
pub fn deferred_checks_agree(data: &[u8]) {
    let full = crate::read_archive(data);
    let window = crate::read::bytes::Window::whole(data);
    let deferred = crate::read::archive::read_central(&window).and_then(|(layout, locals)| {
        let offsets = layout
            .entries
            .iter()
            .zip(&locals.entries)
            .map(|(e, local)| crate::read::local::check_local(&window, &window, local, e))
            .collect::<Result<Vec<u64>, _>>()?;
        for (local, e) in &locals.symlinks {
            crate::read::local::check_local(&window, &window, local, e)?;
        }
        Ok((layout, offsets))
    });
    match (&full, &deferred) {
        (Ok(layout), Ok((central, offsets))) => {
            assert_eq!(layout.entries.len(), central.entries.len());
            for ((e, c), &offset) in layout.entries.iter().zip(&central.entries).zip(offsets) {
                assert_eq!((&e.path, e.size, e.crc32, e.data_offset), (&c.path, c.size, c.crc32, offset));
            }
        }
        (Ok(_), Err(e)) => panic!("the deferred checks refuse what the strict parser accepts: {e}"),
        (Err(e), Ok(_)) => panic!("the deferred checks accept what the strict parser refuses: {e}"),
        (Err(_), Err(_)) => {}
    }
    let (Ok(layout), Ok(archive)) = (full, crate::AssetArchive::from_bytes(data.to_vec())) else { return };
    let (opened, mut decoder) = (crate::entry::opened::Opened::borrowed(data), None);
    for (i, e) in layout.entries.iter().enumerate() {
        if e.kind != crate::Kind::File || e.size > 1 << 24 {
            continue;
        }
        let mut expected = vec![0u8; e.size as usize];
        let tools = crate::entry::decode::WholeTools { decoder: &mut decoder, scratch: &mut Vec::new() };
        let ask = crate::entry::decode::Ask::new(crate::entry::decode::Output::Whole);
        let input = opened.input(e.data_offset, e);
        let want = crate::entry::decode::decoding(input, e, ask).and_then(|d| d.into_slice(&mut expected, tools, true));
        match (want, archive.read(i)) {
            (Ok(()), Ok(bytes)) => assert!(bytes == expected, "{}: in place reads other bytes", e.path),
            (Err(_), Err(_)) => {}
            (want, got) => panic!("{}: extraction says {want:?}, in place {:?}", e.path, got.map(|b| b.len())),
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every archive of the parse corpus (`fuzz/corpus/parse`).
    #[test]
    fn both_ways_of_checking_local_headers_agree_over_the_parse_corpus() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/parse");
        let mut n = 0;
        for entry in std::fs::read_dir(&corpus).unwrap() {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| super::deferred_checks_agree(&data));
            assert!(outcome.is_ok(), "{}: the two ways disagree", path.display());
            n += 1;
        }
        assert!(n >= 5, "{n} archives in {}", corpus.display());
    }
}
