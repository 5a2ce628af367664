//! The follower: local headers read as a stream brings them, and the entries they describe
//! handed out to stage ahead (see `arrivals.rs`). It reads each header with the one local-header
//! parser, finds where an entry's data ends (by its sizes, or by its data descriptor), and
//! decides which entries are worth staging; what is kept is decided later, by the archive.

use crate::extract::destination::Mode;
use crate::extract::options::{Options, matches};
use crate::read::bytes::{CENTRAL_SIG, DESCRIPTOR_SIG, LOCAL_SIG, Shown};
use crate::read::entry::{Method, Mtime};
use crate::read::local::LocalFixed;
use crate::read::names::Kind;

/// Entries are held whole for a worker up to this compressed size: a larger one is inflated as
/// it arrives, read from the spool's file (once the stream is spooled to one).
pub(super) const STAGE_MAX: u64 = 4 << 20;

/// Bytes of an entry's data kept, while its descriptor is looked for, when the data is not: a
/// descriptor and the next signature fit.
const DESCRIPTOR_TAIL: usize = 32;

/// What the caller asked for, as far as it decides what is worth staging ahead.
#[derive(Default, Clone)]
pub(crate) struct Wanted {
    only: Vec<String>,
    quota: Option<u64>,
    max_ratio: Option<f64>,
    /// Leave files with the time they are written (else each gets the one its header records).
    no_mtime: bool,
    /// When a large deflated entry is inflated on several cores: such an entry is left to the
    /// extraction, which does that.
    parallel: crate::ParallelInflate,
}

impl Wanted {
    /// What `options` select, or `None` where nothing can be staged ahead: a merge (which stages
    /// inside the destination) and an incremental extraction (which keeps files of the last).
    pub(crate) fn of(options: &Options<'_>) -> Option<Wanted> {
        (options.mode != Mode::Merge && !options.incremental).then(|| Wanted {
            only: options.only.clone(),
            quota: options.quota,
            max_ratio: options.max_ratio,
            no_mtime: options.no_mtime,
            parallel: options.parallel_inflate,
        })
    }

    pub(super) fn selects(&self, name: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|p| matches(p, name))
    }
}

/// An entry's data to inflate ahead: where its header and data start in the stream, what its
/// local header names and declares, and its compressed bytes.
pub(super) struct Job {
    pub(super) header_at: u64,
    pub(super) data_at: u64,
    pub(super) path: String,
    pub(super) method: Method,
    pub(super) crc32: u32,
    pub(super) size: u64,
    /// The time to give the file (the one its local header records), unless none.
    pub(super) mtime: Option<(i64, u32)>,
    pub(super) compressed_size: u64,
    pub(super) data: Data,
}

/// Where a job's compressed bytes are.
pub(super) enum Data {
    /// Held for it (a small entry, queued once it has arrived).
    Held(Vec<u8>),
    /// In the spool's file as the stream brings them (a large entry, queued as it begins): read
    /// as they arrive, so that it is inflated while it is downloaded, not after.
    Arriving,
}

/// What the follower knows of the entry whose data it is in.
struct Local {
    header_at: u64,
    data_at: u64,
    /// Its name, if it could be staged under it.
    path: Option<String>,
    /// The time its local header records.
    mtime: Mtime,
    method: Option<Method>,
    crc32: u32,
    compressed_size: u64,
    size: u64,
    /// Whether it could be staged: a file with a name of its own, deflated or stored, not
    /// encrypted.
    stageable: bool,
    /// Whether its data is kept, to be staged.
    keep: bool,
    /// Whether it is being staged as it arrives.
    followed: bool,
}

/// Where the follower is in the stream.
enum State {
    /// In a local header, `held` holding it so far.
    Header,
    /// In an entry's data of known size, `left` bytes of it to come (held if kept).
    Data { local: Local, left: u64 },
    /// In an entry's data followed by a data descriptor: `held` holds the data so far, searched
    /// for the descriptor up to `searched`.
    Descriptor { local: Local, searched: usize, dropped: u64 },
    /// Past the last local header, or lost: nothing more is staged.
    Done,
}

/// Follows local headers through a stream, one piece at a time.
pub(super) struct Follower {
    wanted: Wanted,
    state: State,
    /// Where the stream is: the offset of the next byte fed.
    at: u64,
    held: Vec<u8>,
    /// Bytes the entries queued so far inflate to.
    queued: u64,
    /// Whether the stream is spooled to a file, from which entries too large to hold are read.
    pub(super) spooled: bool,
    /// The cores a large entry could be inflated on.
    cores: usize,
    /// Whether entries starting now may be staged (the workers have room).
    pub(super) accepting: bool,
}

impl Follower {
    /// Follows nothing more: every entry from here on comes from the spool.
    pub(super) fn stop(&mut self) {
        self.state = State::Done;
    }

    pub(super) fn new(wanted: Wanted) -> Follower {
        Follower {
            wanted,
            state: State::Header,
            at: 0,
            held: Vec::new(),
            queued: 0,
            spooled: false,
            cores: crate::available_cores(),
            accepting: true,
        }
    }

    /// Follows `piece`; `dispatch` takes each entry to stage. At most `ahead` bytes are queued
    /// to inflate in all.
    pub(super) fn feed(&mut self, mut piece: &[u8], ahead: u64, dispatch: &mut dyn FnMut(Job)) {
        while !piece.is_empty() {
            match std::mem::replace(&mut self.state, State::Done) {
                State::Done => return,
                State::Header => {
                    // The fixed part first, then the name and extra field it announces.
                    let need = LocalFixed::parse(&self.held).map_or(LocalFixed::LEN, |fixed| fixed.len());
                    let take = (need - self.held.len()).min(piece.len());
                    self.held.extend_from_slice(&piece[..take]);
                    piece = &piece[take..];
                    self.at += take as u64;
                    if self.held.len() < need {
                        self.state = State::Header;
                    } else {
                        match LocalFixed::parse(&self.held) {
                            Some(fixed) if fixed.len() > self.held.len() => self.state = State::Header,
                            Some(fixed) => self.state = self.begin_data(fixed, ahead, dispatch),
                            // Anything else (the central directory, other data) ends the following.
                            None => {}
                        }
                    }
                }
                State::Data { mut local, left } => {
                    // A large entry is inflated as it arrives once the spool is a file (its data
                    // then reads from there from its start, wherever the stream is).
                    if !local.followed
                        && local.stageable
                        && local.compressed_size > STAGE_MAX
                        && self.spooled
                        && self.accepting
                        && self.worth_staging(&local, ahead)
                    {
                        local.followed = true;
                        self.queue(&local, Data::Arriving, dispatch);
                    }
                    let take = left.min(piece.len() as u64) as usize;
                    if local.keep && local.compressed_size <= STAGE_MAX {
                        self.held.extend_from_slice(&piece[..take]);
                    }
                    piece = &piece[take..];
                    self.at += take as u64;
                    if left > take as u64 {
                        self.state = State::Data { local, left: left - take as u64 };
                    } else {
                        if local.keep && local.compressed_size <= STAGE_MAX {
                            let data = std::mem::take(&mut self.held);
                            self.queue(&local, Data::Held(data), dispatch);
                        }
                        self.held.clear();
                        self.state = State::Header;
                    }
                }
                State::Descriptor { mut local, searched, dropped } => {
                    match find_descriptor(&self.held, piece, searched, dropped) {
                        DescriptorSearch::Found { end, crc32, compressed_size, size } => {
                            // `end`, where the next header starts, and the data's length are
                            // indexes into held ++ piece.
                            let held_len = self.held.len();
                            let mut data = std::mem::take(&mut self.held);
                            self.held = if end < held_len { data[end..].to_vec() } else { Vec::new() };
                            (local.crc32, local.compressed_size, local.size) = (crc32, compressed_size, size);
                            local.keep &= self.worth_staging(&local, ahead);
                            if local.keep {
                                let len = compressed_size as usize;
                                if len > data.len() {
                                    data.extend_from_slice(&piece[..len - data.len()]);
                                }
                                data.truncate(len);
                                self.queue(&local, Data::Held(data), dispatch);
                            }
                            let skip = end.saturating_sub(held_len);
                            piece = &piece[skip..];
                            self.at += skip as u64;
                            self.state = State::Header;
                        }
                        DescriptorSearch::NotYet { mut searched } => {
                            // Too long to hold: followed, not staged.
                            local.keep &= (self.held.len() + piece.len()) as u64 <= STAGE_MAX + 32;
                            let mut dropped = dropped;
                            if local.keep || self.held.len() + piece.len() <= 2 * DESCRIPTOR_TAIL {
                                self.held.extend_from_slice(piece);
                            } else {
                                // Only the tail a descriptor may begin in is kept.
                                let total = self.held.len() + piece.len();
                                let cut = total - DESCRIPTOR_TAIL;
                                if piece.len() >= DESCRIPTOR_TAIL {
                                    self.held.clear();
                                    self.held.extend_from_slice(&piece[piece.len() - DESCRIPTOR_TAIL..]);
                                } else {
                                    self.held.extend_from_slice(piece);
                                    self.held.drain(..cut);
                                }
                                dropped += cut as u64;
                                searched = searched.saturating_sub(cut);
                            }
                            self.at += piece.len() as u64;
                            piece = &[];
                            self.state = State::Descriptor { local, searched, dropped };
                        }
                    }
                }
            }
        }
    }

    /// Whether `local` (its sizes known) is to be staged ahead: within the quota, the ratio and
    /// the bound on inflating ahead, and not an entry the extraction would inflate on several
    /// cores. (One too large to hold is staged only once the spool is a file: it is read there.)
    fn worth_staging(&self, local: &Local, ahead: u64) -> bool {
        let total = self.queued.saturating_add(local.size);
        let parallel = local.method == Some(Method::Deflate)
            && crate::inflate_in_parallel(self.wanted.parallel, local.size, self.cores);
        // (A stored entry whose sizes differ is refused by the one reading path.)
        let stored_lies = local.method == Some(Method::Stored) && local.size != local.compressed_size;
        !parallel
            && !stored_lies
            && total <= ahead
            && self.wanted.quota.is_none_or(|q| total <= q)
            && self.wanted.max_ratio.is_none_or(|r| local.size as f64 <= r * local.compressed_size.max(1) as f64)
    }

    fn queue(&mut self, local: &Local, data: Data, dispatch: &mut dyn FnMut(Job)) {
        let (Some(method), Some(path)) = (local.method, local.path.clone()) else { return };
        self.queued = self.queued.saturating_add(local.size);
        let (header_at, data_at, crc32, size) = (local.header_at, local.data_at, local.crc32, local.size);
        let mtime = if self.wanted.no_mtime { None } else { local.mtime.unix() };
        let compressed_size = local.compressed_size;
        dispatch(Job { header_at, data_at, path, method, crc32, size, mtime, compressed_size, data });
    }

    /// The state after the local header in `held` (whole): its entry's data, or done where the
    /// header cannot be followed. An empty entry is queued at once.
    fn begin_data(&mut self, fixed: LocalFixed, ahead: u64, dispatch: &mut dyn FnMut(Job)) -> State {
        let h = std::mem::take(&mut self.held);
        let (flags, code) = (fixed.flags, fixed.method);
        let name = &h[LocalFixed::LEN..LocalFixed::LEN + fixed.name_len];
        let extra = &h[LocalFixed::LEN + fixed.name_len..fixed.len()];
        // Sizes as the one reading path takes them; where it would refuse them, the 32-bit values
        // (a ZIP64 size without its extra field is then not followed, below).
        let (size, compressed_size) =
            fixed.sizes(extra, Shown(name)).unwrap_or((u64::from(fixed.size), u64::from(fixed.csize)));
        let method = Method::from_code(code).filter(|m| matches!(m, Method::Stored | Method::Deflate));
        // A name staged ahead is one the name rules accept as a file's, unchanged, and selected;
        // looked at only for an entry that can be staged now, or later as it arrives.
        let path = std::str::from_utf8(name).ok().filter(|n| {
            (self.accepting || compressed_size > STAGE_MAX)
                && matches!(crate::read::names::check(name, flags & 0x800 != 0, 3, None), Ok((p, Kind::File, _)) if p == *n)
                && self.wanted.selects(n)
        });
        let encrypted = flags & 1 != 0;
        let stageable = method.is_some() && path.is_some() && !encrypted;
        let mut local = Local {
            header_at: self.at - h.len() as u64,
            data_at: self.at,
            stageable,
            keep: stageable && self.accepting,
            followed: false,
            path: path.map(str::to_owned),
            mtime: crate::read::entry::mtime_of(extra, fixed.dos),
            method,
            crc32: fixed.crc,
            compressed_size,
            size,
        };
        if flags & 8 != 0 {
            return State::Descriptor { local, searched: 0, dropped: 0 };
        }
        if compressed_size == 0xFFFF_FFFF {
            return State::Done; // a ZIP64 size without its extra field: not followed
        }
        local.keep &= self.worth_staging(&local, ahead);
        if compressed_size == 0 {
            if local.keep {
                self.queue(&local, Data::Held(Vec::new()), dispatch);
            }
            return State::Header;
        }
        State::Data { local, left: compressed_size }
    }
}

/// What a search for an entry's data descriptor found.
#[derive(Debug, PartialEq, Eq)]
enum DescriptorSearch {
    /// A descriptor whose compressed size is the data's length, followed by the next header (or
    /// the central directory), which starts at `end` (an index into the bytes searched).
    Found { end: usize, crc32: u32, compressed_size: u64, size: u64 },
    /// None yet: searched up to `searched`.
    NotYet { searched: usize },
}

/// Looks for the data descriptor ending an entry's data in `held ++ piece` (the data from its
/// start, less the `dropped` bytes before `held`), from index `from`: the first local or central header signature preceded by a
/// descriptor (with or without its signature, with 4- or 8-byte sizes) whose compressed size is
/// exactly the length of the data before it.
fn find_descriptor(held: &[u8], piece: &[u8], from: usize, dropped: u64) -> DescriptorSearch {
    let total = held.len() + piece.len();
    let byte = |i: usize| if i < held.len() { held[i] } else { piece[i - held.len()] };
    let u32_at = |i: usize| u32::from_le_bytes([byte(i), byte(i + 1), byte(i + 2), byte(i + 3)]);
    let u64_at = |i: usize| u64::from(u32_at(i)) | (u64::from(u32_at(i + 4)) << 32);
    let signature = |i: usize| {
        let s = [byte(i), byte(i + 1), byte(i + 2), byte(i + 3)];
        s == LOCAL_SIG.to_le_bytes() || s == CENTRAL_SIG.to_le_bytes()
    };
    // Candidates: every 'P' from `from`, searched with memchr in each part.
    let mut at = from;
    while at + 4 <= total {
        let next = if at < held.len() {
            memchr::memchr(b'P', &held[at..])
                .map(|k| at + k)
                .or_else(|| memchr::memchr(b'P', piece).map(|k| held.len() + k))
        } else {
            memchr::memchr(b'P', &piece[at - held.len()..]).map(|k| at + k)
        };
        let Some(p) = next else { break };
        if p + 4 > total {
            return DescriptorSearch::NotYet { searched: p };
        }
        if signature(p) {
            // (length, has its signature, 8-byte sizes), in the order writers use them.
            for (len, signed, wide) in [(16, true, false), (24, true, true), (12, false, false), (20, false, true)] {
                let Some(start) = p.checked_sub(len) else { continue };
                if signed && u32_at(start) != DESCRIPTOR_SIG {
                    continue;
                }
                let fields = if signed { start + 4 } else { start };
                let (compressed_size, size) = if wide {
                    (u64_at(fields + 4), u64_at(fields + 12))
                } else {
                    (u64::from(u32_at(fields + 4)), u64::from(u32_at(fields + 8)))
                };
                if compressed_size == dropped + start as u64 {
                    return DescriptorSearch::Found { end: p, crc32: u32_at(fields), compressed_size, size };
                }
            }
        }
        at = p + 1;
    }
    DescriptorSearch::NotYet { searched: total.saturating_sub(3).max(from) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `data` followed by its data descriptor (with its signature) and the next local header's
    /// signature.
    fn descriptor(data: &[u8], crc: u32, size: u32) -> Vec<u8> {
        let mut v = data.to_vec();
        v.extend_from_slice(&DESCRIPTOR_SIG.to_le_bytes());
        v.extend_from_slice(&crc.to_le_bytes());
        v.extend_from_slice(&(data.len() as u32).to_le_bytes());
        v.extend_from_slice(&size.to_le_bytes());
        v.extend_from_slice(&LOCAL_SIG.to_le_bytes());
        v
    }

    #[test]
    fn a_descriptor_is_found_wherever_the_pieces_split_it() {
        // Data holding signatures that are not preceded by a matching descriptor.
        let mut data = b"PK\x03\x04 not a header PK\x01\x02 nor this".to_vec();
        data.extend(std::iter::repeat_n(b'P', 40));
        let whole = descriptor(&data, 0xdead_beef, 99);
        let end = data.len() + 16;
        for split in 0..whole.len() {
            let (held, piece) = whole.split_at(split);
            let found = find_descriptor(held, piece, 0, 0);
            if split <= end {
                assert_eq!(
                    found,
                    DescriptorSearch::Found { end, crc32: 0xdead_beef, compressed_size: data.len() as u64, size: 99 },
                    "split at {split}"
                );
            }
        }
        // Searching again from where a first search stopped finds it too.
        let (held, piece) = whole.split_at(20);
        let DescriptorSearch::NotYet { searched } = find_descriptor(&held[..10], &held[10..], 0, 0) else { panic!() };
        assert!(matches!(find_descriptor(held, piece, searched, 0), DescriptorSearch::Found { .. }));
    }

    #[test]
    fn without_a_matching_descriptor_nothing_is_found() {
        let whole = b"PK\x07\x08\x01\x02\x03\x04\x09\x00\x00\x00\x05\x00\x00\x00PK\x03\x04".to_vec();
        assert!(matches!(find_descriptor(&whole, &[], 0, 0), DescriptorSearch::NotYet { .. }));
    }
}
