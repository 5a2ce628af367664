//! The exported form of a stream's checkpoints ([`Checkpoints::export`] and
//! [`Checkpoints::import`]): a header with the stream's sizes and CRC-32, each checkpoint with its
//! digest, and a CRC-32 of all of it, so that a later run checks what it is handed before it
//! trusts a byte of it.

use super::*;

/// The export format's first bytes, and its version.
const MAGIC: &[u8; 8] = b"BKCKPT03";
impl Checkpoints {
    /// The checkpoints as bytes to keep beside the stream (a file next to the archive), for
    /// [`import`](Self::import) in a later run: a header with the stream's sizes and CRC-32,
    /// each checkpoint with its digest (a CRC-32 of the checkpoint and of the compressed bytes
    /// to the next one), and a CRC-32 of all of it. Checkpoints [`build`](Self::build) made need
    /// no more reading: their pass kept what the digests need. Others (imported, or from another
    /// pass) read the compressed bytes through `source` as `build` does: the whole stream, once.
    pub fn export<E>(
        &self,
        mut source: impl FnMut(u64, &mut [u8]) -> Result<usize, E>,
    ) -> Result<Vec<u8>, SeekError<E>> {
        let mut out =
            Vec::with_capacity(64 + self.points.iter().map(|p| 36 + p.window.len() + MAX_HEADER).sum::<usize>());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.compressed_len.to_le_bytes());
        out.extend_from_slice(&self.len.to_le_bytes());
        out.extend_from_slice(&self.crc32.to_le_bytes());
        out.extend_from_slice(&self.span.to_le_bytes());
        out.extend_from_slice(&(self.points.len() as u64).to_le_bytes());
        let mut digest_of = |j: usize| match digest_kept(&self.points, j, self.compressed_len, self.stream_crc) {
            Some(kept) => Ok(kept),
            None => digest(&self.points, j, self.compressed_len, &mut source).map(|(digest, _)| digest),
        };
        // Region 0's digest, then each checkpoint with its region's.
        out.extend_from_slice(&digest_of(0)?.to_le_bytes());
        for (k, p) in self.points.iter().enumerate() {
            encode(p, &mut out);
            out.extend_from_slice(&digest_of(k + 1)?.to_le_bytes());
        }
        let sum = crate::crc32(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        Ok(out)
    }

    /// Checkpoints [`export`](Self::export)ed earlier, for the stream of `compressed_len` bytes
    /// that inflates to `len` bytes with CRC-32 `crc32` (as a zip entry's central record says).
    /// Refused, with the reason, unless they were made for exactly that stream, are whole and
    /// unaltered (their checksum), and are consistent: offsets inside the stream and increasing,
    /// each window as long as the output before its checkpoint. Each checkpoint's digest is
    /// checked against the stream's bytes when a read first goes through it
    /// ([`SeekError::Unbound`]).
    pub fn import(bytes: &[u8], compressed_len: u64, len: u64, crc32: u32) -> Result<Checkpoints, ImportError> {
        let refuse = |why: &str| ImportError(why.to_string());
        let (body, sum) = bytes.split_at_checked(bytes.len().saturating_sub(4)).ok_or_else(|| refuse("too short"))?;
        // The magic, two lengths, the CRC-32, the span and the count; the checksum after them.
        if bytes.len() < MAGIC.len() + 8 + 8 + 4 + 8 + 8 + 4 || !body.starts_with(MAGIC) {
            return Err(refuse("not a bufkit checkpoint file (or another version)"));
        }
        if crate::crc32(body).to_le_bytes() != sum {
            return Err(refuse("its checksum does not match: damaged or altered"));
        }
        let mut fields = Fields(&body[MAGIC.len()..]);
        let (their_compressed, their_len) = (fields.u64()?, fields.u64()?);
        let header = (their_compressed, their_len);
        let their_crc = fields.u32()?;
        let span = fields.u64()?;
        let count = fields.u64()?;
        if header != (compressed_len, len) || their_crc != crc32 {
            return Err(refuse(&format!(
                "made for a stream of {their_compressed} bytes inflating to {their_len} with CRC-32 {their_crc:08x}, \
                 not {compressed_len} / {len} / {crc32:08x}"
            )));
        }
        if span < WINDOW as u64 || count > len / WINDOW as u64 + 1 {
            return Err(refuse("impossible span or count"));
        }
        let mut points = Vec::with_capacity(count as usize);
        let mut digests = Vec::with_capacity(count as usize + 1);
        digests.push(fields.u32()?);
        let (mut last_bit, mut last_out) = (0u64, 0u64);
        for _ in 0..count {
            let (bit_offset, out_offset, window_len) = (fields.u64()?, fields.u64()?, u64::from(fields.u32()?));
            if bit_offset <= last_bit || out_offset <= last_out || out_offset > len || bit_offset >= compressed_len * 8
            {
                return Err(refuse("a checkpoint out of order or outside the stream"));
            }
            if window_len != out_offset.min(WINDOW as u64) {
                return Err(refuse("a checkpoint's window is not the 32 KiB before it"));
            }
            let window = fields.bytes(window_len as usize)?.into();
            let inside = match fields.bytes(1)?[0] {
                0 => Inside::Nothing,
                kind @ (1 | 2) => Inside::Stored { left: fields.u64()?, last: kind == 2 },
                3 => {
                    let skip = fields.bytes(1)?[0];
                    let header_len = u16::from_le_bytes(fields.bytes(2)?.try_into().expect("2 bytes")) as usize;
                    if skip > 7 || header_len == 0 || header_len > MAX_HEADER {
                        return Err(refuse("a checkpoint's block header is impossible"));
                    }
                    Inside::Codes { header: fields.bytes(header_len)?.into(), skip }
                }
                _ => return Err(refuse("a checkpoint of an unknown kind")),
            };
            if let Inside::Stored { left, .. } = inside
                && (left > 65_535 || bit_offset % 8 != 0)
            {
                return Err(refuse("a checkpoint inside a stored block that cannot be"));
            }
            points.push(Checkpoint { bit_offset, out_offset, window, inside, stream_crc: None });
            digests.push(fields.u32()?);
            (last_bit, last_out) = (bit_offset, out_offset);
        }
        if !fields.0.is_empty() {
            return Err(refuse("bytes after the last checkpoint"));
        }
        let regions = digests.iter().map(|_| std::sync::OnceLock::new()).collect();
        let checks = Checks::Imported { digests: digests.into(), regions };
        Ok(Checkpoints { compressed_len, len, crc32, span, points, stream_crc: None, checks })
    }
}

/// The export format's fields, read in order.
struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], ImportError> {
        let (v, rest) = self.0.split_at_checked(n).ok_or_else(|| ImportError("cut short".to_string()))?;
        self.0 = rest;
        Ok(v)
    }

    fn u64(&mut self) -> Result<u64, ImportError> {
        Ok(u64::from_le_bytes(self.bytes(8)?.try_into().expect("8 bytes")))
    }

    fn u32(&mut self) -> Result<u32, ImportError> {
        Ok(u32::from_le_bytes(self.bytes(4)?.try_into().expect("4 bytes")))
    }
}
