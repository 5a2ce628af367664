//! The chunked decoder's checkpoints: where a later read may resume without inflating from the
//! start, and the stream CRC-32 marks a checkpoint carries.

use super::*;

impl<'a> ChunkedInflater<'a> {
    /// Records a [`Checkpoint`] at the first block boundary at least `span` output bytes after the
    /// previous one (or the start), from the next [`start`](Self::start),
    /// [`start_fed`](Self::start_fed) or [`resume_fed`](Self::resume_fed) on; 0 records none (the
    /// default). [`take_checkpoints`](Self::take_checkpoints) hands them out. Each holds up to 32
    /// KiB of output: a stream of `n` bytes costs about `n / span × 32 KiB`.
    pub fn set_checkpoint_span(&mut self, span: u64) {
        self.checkpoint_span = span;
        self.next_checkpoint = span;
        // Set on a stream started but not yet decoded: its checkpoints are recorded from its
        // first byte, and so is the CRC their digests rest on.
        if span > 0 && self.stream_crc.is_none() && self.bit_position() == 0 {
            self.stream_crc = Some((0, Crc32::new()));
            self.stream_marks.clear();
        }
    }

    /// The checkpoints recorded since the stream started, in output order.
    pub fn take_checkpoints(&mut self) -> Vec<Checkpoint> {
        std::mem::take(&mut self.checkpoints)
    }

    /// Resumes decoding a raw deflate stream at `checkpoint`, its input fed as for
    /// [`start_fed`](Self::start_fed) but from the byte offset returned (the byte holding the
    /// checkpoint's first bit): chunks then continue the stream's output from
    /// [`Checkpoint::out_offset`], and [`total_out`](Self::total_out) counts from there. A
    /// checkpoint inside a Huffman block rebuilds the block's tables from the header it keeps:
    /// one that does not decode as a header is [`Error::Corrupt`].
    ///
    /// # Panics
    /// For a zlib decoder: its Adler-32 covers the whole stream, so it cannot be checked from the
    /// middle; checkpoints are for raw deflate (zip entries, gzip members).
    pub fn resume_fed(&mut self, checkpoint: &Checkpoint) -> Result<u64, Error> {
        assert_eq!(self.format, Format::Raw, "checkpoints are for raw deflate streams");
        self.start_fed();
        match &checkpoint.inside {
            Inside::Nothing => {}
            Inside::Stored { left, last } => {
                self.state = State::Stored(usize::try_from(*left).map_err(|_| corrupt("stored block too long"))?);
                self.last_block = *last;
            }
            Inside::Codes { header, skip } => {
                // Rebuild the block's tables from its header, then go on where the checkpoint is.
                self.fed.extend_from_slice(header);
                self.input_ended = true;
                self.skip_bits = u32::from(*skip);
                self.block_header()?;
                if self.state != State::Codes || self.consumed_here() > header.len() {
                    return Err(corrupt("a checkpoint's block header is not one"));
                }
                self.fed.clear();
                self.input_ended = false;
                (self.next_in, self.bits, self.bit_count) = (0, 0, 0);
            }
        }
        // Resumed mid-stream: the bytes before are not seen, so there is no CRC to carry.
        self.stream_crc = None;
        let byte = checkpoint.bit_offset / 8;
        self.dropped = usize::try_from(byte).expect("a stream held in a usize-sized address space");
        self.skip_bits = (checkpoint.bit_offset % 8) as u32;
        let history = &checkpoint.window;
        self.window[..history.len()].copy_from_slice(history);
        self.pos = history.len();
        self.chunk_start = self.pos;
        self.total_out = checkpoint.out_offset;
        self.next_checkpoint = checkpoint.out_offset.saturating_add(self.checkpoint_span);
        Ok(byte)
    }

    /// At a block boundary: records a checkpoint if one is due.
    pub(super) fn maybe_checkpoint(&mut self) {
        let out = self.total_out + (self.pos - self.chunk_start) as u64;
        if out < self.next_checkpoint || out == 0 {
            return;
        }
        let inside = match self.state {
            State::Header => Inside::Nothing,
            State::Stored(left) => Inside::Stored { left: left as u64, last: self.last_block },
            State::Codes => Inside::Codes { header: self.header.as_slice().into(), skip: self.header_skip },
            State::Done => return,
        };
        let kept = (out.min(HISTORY as u64)) as usize;
        let bit_offset = self.bit_position();
        let stream_crc = self.stream_crc_at(bit_offset);
        self.checkpoints.push(Checkpoint {
            bit_offset,
            out_offset: out,
            window: self.window[self.pos - kept..self.pos].into(),
            inside,
            stream_crc,
        });
        self.next_checkpoint = out.saturating_add(self.checkpoint_span);
    }

    /// Carries the CRC-32 of the stream's first bytes forward to its first `to` bytes (all in
    /// memory), while recording checkpoints from the start.
    /// Notes it at every mark on the way.
    pub(super) fn carry_stream_crc(&mut self, to: u64) {
        if let Some((mut at, mut crc)) = self.stream_crc
            && to > at
        {
            let held = self.dropped as u64;
            while at < to {
                let mark = (at / STREAM_MARK + 1) * STREAM_MARK;
                let end = mark.min(to);
                crc.update(&self.input()[(at - held) as usize..(end - held) as usize]);
                if end == mark {
                    self.stream_marks.push(crc.finalize());
                }
                at = end;
            }
            self.stream_crc = Some((to, crc));
        }
    }

    /// What a pass that recorded checkpoints from the stream's start saw of its compressed bytes,
    /// up to the first `len` or as far as it holds them if fewer (a stream that ended before
    /// bytes it never needed): how far (`reach`), the CRC-32 of the first `(i + 1) ×
    /// STREAM_MARK` bytes at `i` for every mark within it, and the CRC-32 of all `reach` bytes.
    /// `None` where the pass did not start at the stream's start.
    pub(crate) fn take_stream_marks(&mut self, len: u64) -> Option<(Vec<u32>, u64, u32)> {
        let held_end = (self.dropped + self.input().len()) as u64;
        let reach = len.min(held_end);
        let whole = self.stream_crc_through(reach)?;
        let mut marks = std::mem::take(&mut self.stream_marks);
        marks.truncate((reach / STREAM_MARK) as usize);
        (marks.len() as u64 == reach / STREAM_MARK).then_some((marks, reach, whole))
    }

    /// The CRC-32s of the stream's bytes before and through the byte holding bit `bit` (which
    /// is in memory: the decoder is there).
    pub(super) fn stream_crc_at(&mut self, bit: u64) -> Option<StreamCrc> {
        let byte = bit / 8;
        self.carry_stream_crc(byte);
        let (_, crc) = self.stream_crc?;
        let before = crc.finalize();
        let through = if bit.is_multiple_of(8) {
            before
        } else {
            let mut with = crc;
            with.update(&self.input()[(byte - self.dropped as u64) as usize..][..1]);
            with.finalize()
        };
        Some(StreamCrc { before, through })
    }

    /// The CRC-32 of the stream's first `len` bytes, if the checkpoints recorded from its start
    /// carried it there and those bytes are still in memory (a fed decoder holds the last piece).
    pub(crate) fn stream_crc_through(&mut self, len: u64) -> Option<u32> {
        let held_end = (self.dropped + self.input().len()) as u64;
        let (at, _) = self.stream_crc?;
        if len < at || len > held_end {
            return None;
        }
        self.carry_stream_crc(len);
        self.stream_crc.map(|(_, crc)| crc.finalize())
    }
}
