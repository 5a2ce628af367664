//! The growth workload and its reference, shared by the criterion benches and
//! `bufkit-demo growth` so both measure exactly the same thing. Not part of the stable API.

use crate::{Error, GrowableBuffer};

/// Piece lengths of 20–30 bytes from a fixed LCG, summing exactly to `total`.
pub fn piece_lengths(total: usize) -> Vec<u8> {
    let (mut seed, mut sum) = (0x2545_f491_u32, 0usize);
    let mut lens = Vec::with_capacity(total / 20 + 1);
    while sum < total {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let len = (20 + (seed >> 16) % 11) as usize;
        let len = len.min(total - sum);
        lens.push(len as u8);
        sum += len;
    }
    lens
}

/// Appends `source` to `buf` in pieces of `lens`.
pub fn fill(buf: &mut GrowableBuffer, source: &[u8], lens: &[u8]) -> Result<(), Error> {
    let mut at = 0;
    for &len in lens {
        let len = usize::from(len);
        buf.append(&source[at..at + len])?;
        at += len;
    }
    Ok(())
}

/// The reference: one memcpy of `source` into freshly mapped pages (page faults included, as for
/// the buffers; mapped directly so glibc's sliding mmap threshold cannot hand back warm memory),
/// then unmapped. Returns the bytes copied, or `None` if the mapping failed. Where the buffers do
/// not map pages themselves (not Linux, or under Miri), into a fresh heap allocation, as theirs.
pub fn memcpy_into_fresh_pages(source: &[u8]) -> Option<usize> {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        let len = source.len().max(1);
        // Plain pages, not the buffers' huge-page-aligned ones: the reference is an ordinary mapping.
        let p = crate::pages::map_anonymous(len, libc::PROT_READ | libc::PROT_WRITE)?;
        // SAFETY: the mapping holds len ≥ source.len() writable bytes and cannot overlap `source`.
        unsafe { std::ptr::copy_nonoverlapping(source.as_ptr(), p.cast::<u8>(), source.len()) };
        std::hint::black_box(p);
        // SAFETY: unmapping exactly the mapping made above, which nothing refers to any more.
        unsafe { libc::munmap(p, len) };
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    {
        let mut fresh = Vec::new();
        fresh.try_reserve_exact(source.len()).ok()?;
        fresh.extend_from_slice(source);
        std::hint::black_box(&fresh);
    }
    Some(source.len())
}
