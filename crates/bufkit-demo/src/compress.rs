//! Compressing the demos' built-in data, with libdeflate's compressor (the same library whose
//! decoder bufkit uses, patched only on its decoding side).

/// `data` as a raw deflate stream (zip's method 8) at `level` (1–12), or a zlib stream.
pub fn deflate(data: &[u8], level: i32, zlib: bool) -> Vec<u8> {
    use libdeflate_sys as ld;
    // SAFETY: a level in libdeflate's range gives a compressor or NULL (out of memory), checked.
    let compressor = unsafe { ld::libdeflate_alloc_compressor(level.clamp(1, 12)) };
    assert!(!compressor.is_null(), "out of memory allocating a compressor");
    // SAFETY: a live compressor; the bound functions only compute.
    let bound = unsafe {
        if zlib {
            ld::libdeflate_zlib_compress_bound(compressor, data.len())
        } else {
            ld::libdeflate_deflate_compress_bound(compressor, data.len())
        }
    };
    let mut out = vec![0u8; bound];
    // SAFETY: `data` is readable for its length and `out` writable for `bound` bytes, which is
    // enough for any input of this length; the compressor is live and freed just after.
    let written = unsafe {
        let (input, output) = (data.as_ptr().cast(), out.as_mut_ptr().cast());
        let n = if zlib {
            ld::libdeflate_zlib_compress(compressor, input, data.len(), output, bound)
        } else {
            ld::libdeflate_deflate_compress(compressor, input, data.len(), output, bound)
        };
        ld::libdeflate_free_compressor(compressor);
        n
    };
    assert!(written > 0, "the bound holds any input");
    out.truncate(written);
    out
}

/// One deflated entry's bytes as a [`std::io::Read`], through a decoder the caller keeps from
/// entry to entry (as `java.util.zip` keeps its inflaters): the loops a runtime writes by hand
/// differ in their buffers, not in their decoder.
pub struct Inflating<'a, 'd> {
    inflater: &'d mut strided_inflate::ChunkedInflater<'a>,
    handed: usize,
    ended: bool,
}

impl<'a, 'd> Inflating<'a, 'd> {
    /// Starts `inflater` on `stream`.
    pub fn new(inflater: &'d mut strided_inflate::ChunkedInflater<'a>, stream: &'a [u8]) -> Self {
        inflater.start(stream);
        Inflating { inflater, handed: 0, ended: false }
    }
}

impl std::io::Read for Inflating<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let chunk = self.inflater.last_chunk();
            if self.handed < chunk.len() {
                let n = buf.len().min(chunk.len() - self.handed);
                buf[..n].copy_from_slice(&chunk[self.handed..self.handed + n]);
                self.handed += n;
                return Ok(n);
            }
            if self.ended {
                return Ok(0);
            }
            match self.inflater.next_chunk() {
                Ok(Some(_)) => self.handed = 0,
                Ok(None) => self.ended = true,
                Err(e) => return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
            }
        }
    }
}
